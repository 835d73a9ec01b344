// FindCoordinator (10): kmock is the coordinator of every group. As on a fresh Kafka cluster, the
// first group lookup creates `__consumer_offsets` and answers COORDINATOR_NOT_AVAILABLE; clients
// retry and find this node. kmock has no transaction coordinator: it answers transactional ids as
// a Kafka broker whose authorizer denies them all (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), the
// same model InitProducerId and Produce follow, so clients fail fast and clearly.
import { type FindCoordinatorResponse, ErrorCode } from '../../codec/index.js';
import type { BrokerServices } from '../services.js';
import { defineHandler } from './types.js';

const GROUP = 0;
const TRANSACTION = 1;
const SHARE = 2;
/** offsets.topic.num.partitions and transaction.state.log.num.partitions defaults. */
const INTERNAL_TOPIC_PARTITIONS = 50;

/** Kafka's Errors.message(): the exception text, or the name for NONE. */
const MESSAGES: Record<number, string> = {
  [ErrorCode.NONE]: 'NONE',
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'The coordinator is not available.',
  [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]: 'Transactional Id authorization failed.',
  [ErrorCode.INVALID_REQUEST]:
    'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
};

function coordinatorFor(b: BrokerServices, keyType: number, version: number): number {
  if (keyType === SHARE) return version < 6 ? ErrorCode.INVALID_REQUEST : ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (keyType === TRANSACTION) return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  if (keyType !== GROUP) return ErrorCode.INVALID_REQUEST;
  const topic = '__consumer_offsets';
  if (!b.topics.get(topic)) {
    b.topics.create(topic, INTERNAL_TOPIC_PARTITIONS, 1, new Map([['cleanup.policy', 'compact']]));
    b.log.info({ topic }, 'internal topic created');
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  return ErrorCode.NONE;
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
        host: ok ? b.advertised.host : '',
        port: ok ? b.advertised.port : -1,
        coordinators: [],
      };
    }
    const coordinators: FindCoordinatorResponse.Coordinator[] = req.coordinatorKeys.map((key) => {
      const error = coordinatorFor(b, req.keyType, v);
      const ok = error === ErrorCode.NONE;
      return {
        key,
        nodeId: ok ? b.config.nodeId : -1,
        host: ok ? b.advertised.host : '',
        port: ok ? b.advertised.port : -1,
        errorCode: error,
        errorMessage: '',
      };
    });
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host: '', port: 0, coordinators };
  },
});
