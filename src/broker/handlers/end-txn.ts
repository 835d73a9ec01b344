// EndTxn (26), versions 0-4, as Kafka 3.9's KafkaApis.handleEndTxnRequest: commit or abort the
// transaction (TransactionCoordinator.handleEndTransaction). The answer comes once PrepareCommit /
// PrepareAbort is in the transaction log; the markers follow, and until they are all written the
// transactional id answers CONCURRENT_TRANSACTIONS. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below
// v2. (Kafka 3.9 serves transaction version 0 semantics: EndTxn does not bump the epoch; v5's
// epoch in the response is 4.x.)
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType, type EndTxnResponse } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const endTxnHandler = defineHandler({
  apiKey: 26,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    return new Promise<EndTxnResponse>((resolve) => {
      ctx.services.transactions.endTransaction(req.transactionalId, req.producerId, req.producerEpoch, req.committed ? 'COMMIT' : 'ABORT', (error) => {
        const errorCode = ctx.apiVersion < 2 && error === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : error;
        resolve({ throttleTimeMs: 0, errorCode });
      });
    });
  },
});
