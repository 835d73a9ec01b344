// OffsetDelete (47): unknown topics/partitions answered here, the rest by the coordinator.
import { mergeTopicErrors, splitByKnownPartitions } from './known-partitions.js';
import { defineHandler } from './types.js';

export const offsetDeleteHandler = defineHandler({
  apiKey: 47,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const { known, unknown } = splitByKnownPartitions(ctx.services, req.topics);
    const res = ctx.services.groups.offsetDelete({ groupId: req.groupId, topics: known });
    // OffsetDeleteResponse.Builder.merge: a group-level error replaces everything.
    if (res.errorCode !== 0) return { throttleTimeMs: 0, errorCode: res.errorCode, topics: res.topics };
    return { throttleTimeMs: 0, errorCode: 0, topics: mergeTopicErrors(unknown, res.topics) };
  },
});
