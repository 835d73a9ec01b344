// ListTransactions (66), versions 0-1, as Kafka 3.9's KafkaApis.handleListTransactionsRequest and
// TransactionStateManager.listTransactionStates: filtered by state names (unknown names echoed in
// UnknownStateFilters), producer ids and, in v1 (KIP-994), a minimum running time.
import { defineHandler } from './types.js';

export const listTransactionsHandler = defineHandler({
  apiKey: 66,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const listed = ctx.services.transactions.listTransactions(req.stateFilters, req.producerIdFilters, Number(req.durationFilter));
    return { throttleTimeMs: 0, ...listed };
  },
});
