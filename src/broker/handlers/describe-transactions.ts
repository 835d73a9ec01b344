// DescribeTransactions (65), version 0, as Kafka 3.9's KafkaApis.handleDescribeTransactionsRequest:
// one state per requested transactional id, in request order (TransactionCoordinator
// .handleDescribeTransactions: INVALID_REQUEST for "", TRANSACTIONAL_ID_NOT_FOUND for an unknown id).
import { defineHandler } from './types.js';

export const describeTransactionsHandler = defineHandler({
  apiKey: 65,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    return {
      throttleTimeMs: 0,
      transactionStates: req.transactionalIds.map((id) => {
        const d = ctx.services.transactions.describeTransaction(id);
        return {
          errorCode: d.errorCode,
          transactionalId: d.transactionalId,
          transactionState: d.transactionState,
          transactionTimeoutMs: d.transactionTimeoutMs,
          transactionStartTimeMs: BigInt(d.transactionStartTimeMs),
          producerId: d.producerId,
          producerEpoch: d.producerEpoch,
          topics: d.topics,
        };
      }),
    };
  },
});
