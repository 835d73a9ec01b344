// OffsetCommit (8). Version 0 stored offsets in ZooKeeper; a KRaft broker (Kafka 3.9) answers it
// with UNSUPPORTED_VERSION for every partition, and so does kmock.
import { mergeTopicErrors, splitByKnownPartitions } from './known-partitions.js';
import { defineHandler } from './types.js';
import { ErrorCode } from '../../codec/index.js';

export const offsetCommitHandler = defineHandler({
  apiKey: 8,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req) {
    const { known, unknown } = splitByKnownPartitions(ctx.services, req.topics);
    if (known.length === 0) return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, []) };
    if (ctx.apiVersion === 0) {
      // getErrorResponse: every partition of the request, known or not.
      const topics = req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNSUPPORTED_VERSION })),
      }));
      return { throttleTimeMs: 0, topics };
    }
    const res = ctx.services.groups.offsetCommit(ctx.apiVersion, { ...req, topics: known });
    return { throttleTimeMs: 0, topics: mergeTopicErrors(unknown, res.topics) };
  },
});
