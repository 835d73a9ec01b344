// TxnOffsetCommit (28), versions 0-4, as Kafka 3.9's KafkaApis.handleTxnOffsetCommitRequest:
// topics or partitions the broker does not have answer UNKNOWN_TOPIC_OR_PARTITION (a whole unknown
// topic, then each missing partition of a known one) and only the rest reach the group
// coordinator; the two answers are merged by topic (TxnOffsetCommitResponse.Builder). Everything
// else (the KIP-890 check that AddOffsetsToTxn added the group's __consumer_offsets partition,
// member validation for v3+, below-v2 COORDINATOR_LOAD_IN_PROGRESS → COORDINATOR_NOT_AVAILABLE) is
// the coordinator's: group/txn-offsets.ts. Before all that: WRITE on the transactional id, then
// READ on the group (each failure answers every partition, getErrorResponse), then READ on each
// topic (TOPIC_AUTHORIZATION_FAILED for the topic's partitions).
import { mergeTopicErrors, splitByReadableKnownPartitions } from './known-partitions.js';
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType, type TxnOffsetCommitResponse } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const txnOffsetCommitHandler = defineHandler({
  apiKey: 28,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req): TxnOffsetCommitResponse {
    const denied = !authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)
      ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)
        ? ErrorCode.GROUP_AUTHORIZATION_FAILED
        : undefined;
    if (denied !== undefined) {
      return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: denied })) })) };
    }
    const { known, unknown } = splitByReadableKnownPartitions(ctx, req.topics);
    if (known.length === 0) return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, []) };
    const res = ctx.services.groups.txnOffsetCommit(ctx.apiVersion, {
      transactionalId: req.transactionalId,
      groupId: req.groupId,
      producerId: req.producerId,
      producerEpoch: req.producerEpoch,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      topics: known,
    });
    return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, res.topics) };
  },
});
