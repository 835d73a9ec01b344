// OffsetCommit (8). Version 0 stored offsets in ZooKeeper; a KRaft broker (Kafka 3.9) answers it
// with UNSUPPORTED_VERSION for every partition, and so does kmock. Authorization as
// KafkaApis.handleOffsetCommitRequest: READ on the group first (else GROUP_AUTHORIZATION_FAILED for
// every partition), then READ on each topic (TOPIC_AUTHORIZATION_FAILED).
import { mergeTopicErrors, splitByReadableKnownPartitions } from './known-partitions.js';
import { defineHandler } from './types.js';
import { ErrorCode } from '../../codec/index.js';
import { AclOperation, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const offsetCommitHandler = defineHandler({
  apiKey: 8,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req) {
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return everyPartition(req.topics, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const { known, unknown } = splitByReadableKnownPartitions(ctx, req.topics);
    if (known.length === 0) return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, []) };
    if (ctx.apiVersion === 0) {
      return everyPartition(req.topics, ErrorCode.UNSUPPORTED_VERSION);
    }
    const res = ctx.services.groups.offsetCommit(ctx.apiVersion, { ...req, topics: known });
    return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, res.topics) };
  },
});

/** OffsetCommitRequest.getErrorResponse: every partition of the request, known or not. */
function everyPartition(topics: Array<{ name: string; partitions: Array<{ partitionIndex: number }> }>, errorCode: number) {
  return { throttleTimeMs: 0, topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })) };
}
