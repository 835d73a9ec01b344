// AddOffsetsToTxn (25), versions 0-4, as Kafka 3.9's KafkaApis.handleAddOffsetsToTxnRequest: the
// group's __consumer_offsets partition (GroupCoordinator.partitionFor) joins the transaction, so
// that its TxnOffsetCommit offsets commit or abort with it. PRODUCER_FENCED is
// INVALID_PRODUCER_EPOCH below v2.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType, type AddOffsetsToTxnResponse } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const addOffsetsToTxnHandler = defineHandler({
  apiKey: 25,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    // WRITE on the transactional id, then READ on the group (KafkaApis.handleAddOffsetsToTxnRequest).
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    return new Promise<AddOffsetsToTxnResponse>((resolve) => {
      ctx.services.transactions.addOffsetsToTransaction(req.transactionalId, req.producerId, req.producerEpoch, req.groupId, (error) => {
        const errorCode = ctx.apiVersion < 2 && error === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : error;
        resolve({ throttleTimeMs: 0, errorCode });
      });
    });
  },
});
