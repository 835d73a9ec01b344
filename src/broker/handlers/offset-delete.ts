// OffsetDelete (47): DELETE on the group (else GROUP_AUTHORIZATION_FAILED for the request), topics
// the principal may not READ and unknown topics/partitions answered here, the rest by the
// coordinator (KafkaApis.handleOffsetDeleteRequest).
import { mergeTopicErrors, splitByReadableKnownPartitions } from './known-partitions.js';
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const offsetDeleteHandler = defineHandler({
  apiKey: 47,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
    const { known, unknown } = splitByReadableKnownPartitions(ctx, req.topics);
    const res = ctx.services.groups.offsetDelete({ groupId: req.groupId, topics: known });
    // OffsetDeleteResponse.Builder.merge: a group-level error replaces everything.
    if (res.errorCode !== 0) return { throttleTimeMs: 0, errorCode: res.errorCode, topics: res.topics };
    return { throttleTimeMs: 0, errorCode: 0, topics: mergeTopicErrors(unknown, res.topics) };
  },
});
