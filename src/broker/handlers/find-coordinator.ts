// FindCoordinator (10): kmock is the coordinator of every group and every transactional id. As on
// a fresh Kafka cluster (KafkaApis.getCoordinator), the first lookup of each kind creates its
// internal topic (`__consumer_offsets`, `__transaction_state`) and answers COORDINATOR_NOT_AVAILABLE;
// clients retry and find this node. Share groups (KIP-932, key type 2) have no coordinator in 3.9.
import { type FindCoordinatorResponse, ErrorCode } from '../../codec/index.js';
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
  [ErrorCode.INVALID_REQUEST]:
    'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
};

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
      const error = coordinatorFor(b, req.keyType, v);
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
      const error = (answer ??= coordinatorFor(b, req.keyType, v));
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
