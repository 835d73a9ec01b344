// ListTransactions (66), versions 0-1, as Kafka 3.9's KafkaApis.handleListTransactionsRequest and
// TransactionStateManager.listTransactionStates: filtered by state names (unknown names echoed in
// UnknownStateFilters), producer ids and, in v1 (KIP-994), a minimum running time.
import { AclOperation, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const listTransactionsHandler = defineHandler({
  apiKey: 66,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const listed = ctx.services.transactions.listTransactions(req.stateFilters, req.producerIdFilters, Number(req.durationFilter));
    // Only the transactional ids the principal may DESCRIBE (KafkaApis.handleListTransactionsRequest).
    const transactionStates = listed.transactionStates.filter((t) => authorized(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactionalId));
    return { throttleTimeMs: 0, ...listed, transactionStates };
  },
});
