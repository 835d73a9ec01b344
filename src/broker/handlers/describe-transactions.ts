// DescribeTransactions (65), version 0, as Kafka 3.9's KafkaApis.handleDescribeTransactionsRequest:
// one state per requested transactional id, in request order (TransactionCoordinator
// .handleDescribeTransactions: INVALID_REQUEST for "", TRANSACTIONAL_ID_NOT_FOUND for an unknown id).
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const describeTransactionsHandler = defineHandler({
  apiKey: 65,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    return {
      throttleTimeMs: 0,
      transactionStates: req.transactionalIds.map((id) => {
        // DESCRIBE on the transactional id, else only the error; partitions of topics the
        // principal may not DESCRIBE are left out (KafkaApis.handleDescribeTransactionsRequest).
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id)) {
          return { errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionalId: id, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: 0n, producerId: 0n, producerEpoch: 0, topics: [] };
        }
        const d = ctx.services.transactions.describeTransaction(id);
        return {
          errorCode: d.errorCode,
          transactionalId: d.transactionalId,
          transactionState: d.transactionState,
          transactionTimeoutMs: d.transactionTimeoutMs,
          transactionStartTimeMs: BigInt(d.transactionStartTimeMs),
          producerId: d.producerId,
          producerEpoch: d.producerEpoch,
          topics: ctx.services.authorizer === undefined ? d.topics : d.topics.filter((t) => authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic)),
        };
      }),
    };
  },
});
