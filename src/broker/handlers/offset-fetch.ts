// OffsetFetch (9): v1-v7 one group in the old layout, v8+ several groups. Version 0 read
// ZooKeeper; a KRaft broker answers it with UNSUPPORTED_VERSION per partition.
import { type OffsetFetchResponse, ErrorCode } from '../../codec/index.js';
import { defineHandler } from './types.js';

export const offsetFetchHandler = defineHandler({
  apiKey: 9,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req): OffsetFetchResponse {
    const v = ctx.apiVersion;
    const groups = ctx.services.groups;
    if (v >= 8) {
      const out: OffsetFetchResponse.Group[] = req.groups.map((g) =>
        groups.offsetFetch({ groupId: g.groupId, topics: g.topics, requireStable: req.requireStable }),
      );
      return { throttleTimeMs: 0, topics: [], errorCode: 0, groups: out };
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
    const g = groups.offsetFetch({ groupId: req.groupId, topics: req.topics, requireStable: v >= 7 && req.requireStable });
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
