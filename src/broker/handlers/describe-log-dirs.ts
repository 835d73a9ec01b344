// DescribeLogDirs (35), v0-4, as KafkaApis.handleDescribeLogDirsRequest and
// ReplicaManager.describeLogDirs answer it on a broker with one log dir: DESCRIBE on the cluster
// (else CLUSTER_AUTHORIZATION_FAILED, no results); then the log dir with, per topic, the requested
// partitions it holds (all of them when Topics is null): size (UnifiedLog.size, the bytes of every
// segment), offset lag 0 (a leader's log end equals its high watermark here; no future logs).
// Topics with none of the requested partitions are left out. v4's TotalBytes and UsableBytes are
// the volume's (fs.statfs).
//
// kmock's log dir is its data dir (the first of log.dirs). Without one the logs are in memory:
// the log dir is "(in memory)", and the volume is the stored-bytes budget (stored.max.bytes) and
// what of it is left.
import { statfsSync } from 'node:fs';
import { AclOperation, createDescribeLogDirsResponse, ErrorCode, type DescribeLogDirsResponse } from '../../codec/index.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { defineHandler, type RequestContext } from './types.js';

/** The log dir kmock reports when it keeps its logs in memory. */
export const IN_MEMORY_LOG_DIR = '(in memory)';

export const describeLogDirsHandler = defineHandler({
  apiKey: 35,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    if (!authorizedCluster(ctx, AclOperation.DESCRIBE)) {
      return createDescribeLogDirsResponse({ throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] });
    }
    const wanted = req.topics === null ? undefined : new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]));
    const topics: DescribeLogDirsResponse.Topic[] = [];
    for (const t of ctx.services.topics.all()) {
      const asked = wanted?.get(t.name);
      if (wanted !== undefined && asked === undefined) continue;
      const partitions = t.partitions
        .filter((p) => asked === undefined || asked.has(p.index))
        .map((p) => ({ partitionIndex: p.index, partitionSize: BigInt(p.size), offsetLag: 0n, isFutureKey: false }));
      if (partitions.length > 0) topics.push({ name: t.name, partitions });
    }
    const volume = volumeOf(ctx);
    return createDescribeLogDirsResponse({
      throttleTimeMs: 0,
      errorCode: 0,
      results: [{ errorCode: 0, logDir: ctx.services.logDir ?? IN_MEMORY_LOG_DIR, topics, totalBytes: volume.total, usableBytes: volume.usable }],
    });
  },
});

/** Files.getFileStore(dir).getTotalSpace / getUsableSpace, or the in-memory budget. */
function volumeOf(ctx: RequestContext): { total: bigint; usable: bigint } {
  const b = ctx.services;
  if (b.logDir === null) {
    let resident = 0;
    for (const t of b.topics.all()) for (const p of t.partitions) resident += p.residentBytes;
    const total = b.config.storedMaxBytes;
    return { total: BigInt(total), usable: BigInt(Math.max(0, total - resident)) };
  }
  try {
    const s = statfsSync(b.logDir, { bigint: true });
    return { total: s.blocks * s.bsize, usable: s.bavail * s.bsize };
  } catch {
    return { total: -1n, usable: -1n };
  }
}
