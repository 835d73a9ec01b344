// OffsetFetch (9): v1-v7 one group in the old layout, v8+ several groups. Version 0 read
// ZooKeeper; a KRaft broker answers it with UNSUPPORTED_VERSION per partition. Authorization as
// KafkaApis.handleOffsetFetchRequestFromCoordinator: DESCRIBE on each group (else that group is
// GROUP_AUTHORIZATION_FAILED); named topics the principal may not DESCRIBE are answered
// TOPIC_AUTHORIZATION_FAILED after the others, and an all-topics fetch leaves them out.
import { type OffsetFetchResponse, ErrorCode } from '../../codec/index.js';
import { defineHandler } from './types.js';
import { AclOperation, ResourceType } from '../../codec/index.js';
import { authorized, filterAuthorized } from '../security/authorizer/index.js';
import type { RequestContext } from './types.js';

export const offsetFetchHandler = defineHandler({
  apiKey: 9,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req): OffsetFetchResponse {
    const v = ctx.apiVersion;
    const groups = ctx.services.groups;
    if (v >= 8) {
      const out: OffsetFetchResponse.Group[] = req.groups.map((g) => fetchGroup(ctx, g.groupId, g.topics, req.requireStable));
      return { throttleTimeMs: 0, topics: [], errorCode: 0, groups: out };
    }
    if (v === 0 && !authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, req.groupId)) {
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, groups: [] };
    }
    if (v === 0) {
      const topics = (req.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({
          partitionIndex: p,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
        })),
      }));
      return { throttleTimeMs: 0, topics, errorCode: ErrorCode.UNSUPPORTED_VERSION, groups: [] };
    }
    const g = fetchGroup(ctx, req.groupId, req.topics, v >= 7 && req.requireStable);
    // Below v2 there is no top-level error: it is copied onto each partition (OffsetFetchResponse).
    const topics = g.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) =>
        v < 2 && g.errorCode !== 0
          ? { partitionIndex: p.partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: g.errorCode }
          : p,
      ),
    }));
    return { throttleTimeMs: 0, topics, errorCode: g.errorCode, groups: [] };
  },
});

/** One group's offsets as the principal may see them (fetchOffsetsForGroup / fetchAllOffsetsForGroup). */
function fetchGroup(ctx: RequestContext, groupId: string, topics: Array<{ name: string; partitionIndexes: number[] }> | null, requireStable: boolean): OffsetFetchResponse.Group {
  if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return { groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  const groups = ctx.services.groups;
  if (topics === null) {
    const g = groups.offsetFetch({ groupId, topics: null, requireStable });
    if (g.errorCode !== 0 || ctx.services.authorizer === undefined) return g;
    const describable = filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, g.topics.map((t) => t.name), false);
    return { ...g, topics: g.topics.filter((t) => describable.has(t.name)) };
  }
  const describable = filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topics.map((t) => t.name));
  const g = groups.offsetFetch({ groupId, topics: topics.filter((t) => describable.has(t.name)), requireStable });
  if (g.errorCode !== 0) return g;
  const denied = topics
    .filter((t) => !describable.has(t.name))
    .map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) }));
  return { ...g, topics: [...g.topics, ...denied] };
}
