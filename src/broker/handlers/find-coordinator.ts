// FindCoordinator (10): kmock is the coordinator of every group and every transactional id. As on
// a fresh Kafka cluster (KafkaApis.getCoordinator), the first lookup of each kind creates its
// internal topic (`__consumer_offsets`, `__transaction_state`) and answers COORDINATOR_NOT_AVAILABLE;
// clients retry and find this node. Share groups (KIP-932, key type 2) have no coordinator in 3.9.
// Before any of that, per key: DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED) or on the
// transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and CLUSTER_ACTION for a share group.
import { AclOperation, type FindCoordinatorResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized, authorizedCluster } from '../security/authorizer/index.js';
import type { RequestContext } from './types.js';
import type { BrokerServices } from '../services.js';
import { ensureInternalTopic, OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '../internal-topics.js';
import { defineHandler } from './types.js';

const GROUP = 0;
const TRANSACTION = 1;
const SHARE = 2;
/** Kafka's Errors.message(): the exception text, or the name for NONE. */
const MESSAGES: Record<number, string> = {
  [ErrorCode.NONE]: 'NONE',
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'The coordinator is not available.',
  [ErrorCode.GROUP_AUTHORIZATION_FAILED]: 'Group authorization failed.',
  [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]: 'Transactional Id authorization failed.',
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]: 'Cluster authorization failed.',
  [ErrorCode.INVALID_REQUEST]:
    'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
};

/** getCoordinator's authorization checks for one key: an error, or undefined when allowed. */
function unauthorized(ctx: RequestContext, keyType: number, key: string): number | undefined {
  if (keyType === GROUP && !authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, key)) return ErrorCode.GROUP_AUTHORIZATION_FAILED;
  if (keyType === TRANSACTION && !authorized(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)) return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  if (keyType === SHARE && ctx.apiVersion >= 6 && !authorizedCluster(ctx, AclOperation.CLUSTER_ACTION)) return ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  return undefined;
}

function coordinatorFor(b: BrokerServices, keyType: number, version: number): number {
  if (keyType === SHARE) return version < 6 ? ErrorCode.INVALID_REQUEST : ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (keyType !== GROUP && keyType !== TRANSACTION) return ErrorCode.INVALID_REQUEST;
  return ensureInternalTopic(b, keyType === GROUP ? OFFSETS_TOPIC : TRANSACTION_STATE_TOPIC) ? ErrorCode.NONE : ErrorCode.COORDINATOR_NOT_AVAILABLE;
}

export const findCoordinatorHandler = defineHandler({
  apiKey: 10,
  minVersion: 0,
  maxVersion: 6,
  handle(ctx, req) {
    const b = ctx.services;
    const v = ctx.apiVersion;
    if (v < 4) {
      const error = unauthorized(ctx, req.keyType, req.key) ?? coordinatorFor(b, req.keyType, v);
      const ok = error === ErrorCode.NONE;
      return {
        throttleTimeMs: 0,
        errorCode: error,
        errorMessage: MESSAGES[error] ?? null,
        nodeId: ok ? b.config.nodeId : -1,
        host: ok ? ctx.listener.advertised.host : '',
        port: ok ? ctx.listener.advertised.port : -1,
        coordinators: [],
      };
    }
    // One answer for every key: the internal topic the first key creates is not visible to the
    // request's other keys on Kafka (creation goes through the controller), and no key, no lookup.
    let answer: number | undefined;
    const coordinators: FindCoordinatorResponse.Coordinator[] = req.coordinatorKeys.map((key) => {
      const error = unauthorized(ctx, req.keyType, key) ?? (answer ??= coordinatorFor(b, req.keyType, v));
      const ok = error === ErrorCode.NONE;
      return {
        key,
        nodeId: ok ? b.config.nodeId : -1,
        host: ok ? ctx.listener.advertised.host : '',
        port: ok ? ctx.listener.advertised.port : -1,
        errorCode: error,
        errorMessage: '',
      };
    });
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host: '', port: 0, coordinators };
  },
});
