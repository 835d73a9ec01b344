// Which compacted partition to clean and how its segments are rewritten: Kafka 3.9's
// LogCleanerManager (cleanableOffsets, maxCompactionDelay, calculateCleanableBytes, LogToClean,
// grabFilthiestCompactedLog) and Cleaner.doClean / groupSegmentsBySize / cleanSegments, around
// cleaner.ts's one pass over the batches. The log manager (log-manager.ts) runs it on the broker's
// clock every log.cleaner.backoff.ms.
//
// Offsets are never rewritten: the cleaner keeps every retained batch's base and last offsets;
// segments of a group become one segment at the group's first base offset. The checkpoint (the
// first dirty offset) is the log's `firstDirtyOffset`.
import { forEachStoredRecord } from '../../codec/records/record-walk.js';
import { ATTRIBUTES_OFFSET, LAST_OFFSET_DELTA_OFFSET, MAX_TIMESTAMP_OFFSET, TIMESTAMP_TYPE_MASK } from '../../codec/records/constants.js';
import { cleanLog, type CleanStats, type LastRecord } from './cleaner.js';
import type { LogConfig } from './log-config.js';
import type { PartitionLog } from './partition-log.js';
import type { LogSegment } from './segment.js';

/** LogToClean: a compacted log's clean and cleanable bytes. */
export interface LogToClean {
  log: PartitionLog;
  config: LogConfig;
  firstDirtyOffset: number;
  /** calculateCleanableBytes: the base offset of the first uncleanable segment. */
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  /** maxCompactionDelay > 0: max.compaction.lag.ms says it must be cleaned now. */
  needCompactionNow: boolean;
  cleanableRatio: number;
}

/** LogCleanerManager.cleanableOffsets + LogToClean for one compacted log. */
export function logToClean(log: PartitionLog, config: LogConfig, now: number): LogToClean {
  // An invalid checkpoint (below the log start offset, or past the log end) resets to the log start.
  let firstDirtyOffset = log.firstDirtyOffset;
  if (firstDirtyOffset < log.logStartOffset || firstDirtyOffset > log.logEndOffset) firstDirtyOffset = log.logStartOffset;
  const segments = log.logSegments;
  const active = log.activeSegment;
  const nonActiveFrom = (offset: number): LogSegment[] => {
    // UnifiedLog.nonActiveLogSegmentsFrom: the segments from the one holding `offset`, active excluded.
    const out: LogSegment[] = [];
    for (let i = 0; i < segments.length - 1; i++) {
      const next = segments[i + 1];
      if (next.baseOffset > offset) out.push(segments[i]);
    }
    return out;
  };
  const minCompactionLagMs = Math.max(config.minCompactionLagMs, 0);
  let uncleanable = Math.min(log.lastStableOffset, active.baseOffset);
  if (minCompactionLagMs > 0) {
    const young = nonActiveFrom(firstDirtyOffset).find((s) => s.largestTimestamp > now - minCompactionLagMs);
    if (young !== undefined) uncleanable = Math.min(uncleanable, young.baseOffset);
  }
  uncleanable = Math.max(firstDirtyOffset, uncleanable);

  // maxCompactionDelay
  const firstBatchTimestamps = nonActiveFrom(firstDirtyOffset)
    .map((s) => s.firstBatchTimestamp)
    .filter((t) => t > 0 && Number.isFinite(t));
  const earliest = firstBatchTimestamps.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...firstBatchTimestamps);
  const cleanUntilTime = now - Math.max(config.maxCompactionLagMs, 0);
  const needCompactionNow = earliest < cleanUntilTime;

  // calculateCleanableBytes
  const firstUncleanableSegment = nonActiveFrom(uncleanable)[0] ?? active;
  const firstUncleanableOffset = firstUncleanableSegment.baseOffset;
  const from = Math.min(firstDirtyOffset, firstUncleanableOffset);
  let cleanableBytes = 0;
  let cleanBytes = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const end = i + 1 < segments.length ? segments[i + 1].baseOffset : Number.POSITIVE_INFINITY;
    // UnifiedLog.logSegments(from, to): the segments overlapping [from, to)
    if (end > from && s.baseOffset < firstUncleanableOffset) cleanableBytes += s.size;
    if (s.baseOffset < firstDirtyOffset) cleanBytes += s.size;
  }
  const totalBytes = cleanBytes + cleanableBytes;
  return {
    log,
    config,
    firstDirtyOffset,
    firstUncleanableOffset,
    cleanBytes,
    cleanableBytes,
    needCompactionNow,
    cleanableRatio: totalBytes === 0 ? 0 : cleanableBytes / totalBytes,
  };
}

/** grabFilthiestCompactedLog's test: enough dirt, or max.compaction.lag.ms passed with something to clean. */
export function isCleanable(ltc: LogToClean): boolean {
  if (ltc.cleanBytes + ltc.cleanableBytes <= 0) return false;
  return (ltc.needCompactionNow && ltc.cleanableBytes > 0) || ltc.cleanableRatio > ltc.config.minCleanableDirtyRatio;
}

/** Cleaner.groupSegmentsBySize over the segments to clean (offset and time index sizes as trimmed files). */
export function groupSegmentsBySize(segments: readonly LogSegment[], maxSize: number, maxIndexSize: number, firstUncleanableOffset: number): LogSegment[][] {
  const grouped: LogSegment[][] = [];
  let i = 0;
  while (i < segments.length) {
    const group = [segments[i]];
    let logSize = segments[i].size;
    let indexSize = segments[i].offsetIndex.size * 8;
    let timeIndexSize = segments[i].timeIndexTimestamps.length * 12;
    i++;
    while (i < segments.length) {
      const s = segments[i];
      const lastOffsetForFirst = i + 1 < segments.length ? segments[i + 1].baseOffset - 1 : firstUncleanableOffset - 1;
      if (
        logSize + s.size <= maxSize &&
        indexSize + s.offsetIndex.size * 8 <= maxIndexSize &&
        timeIndexSize + s.timeIndexTimestamps.length * 12 <= maxIndexSize &&
        (s.size === 0 || lastOffsetForFirst - group[group.length - 1].baseOffset <= 2147483647)
      ) {
        group.push(s);
        logSize += s.size;
        indexSize += s.offsetIndex.size * 8;
        timeIndexSize += s.timeIndexTimestamps.length * 12;
        i++;
      } else break;
    }
    grouped.push(group);
  }
  return grouped;
}

/** The offset of the first record holding a batch's max timestamp (for ListOffsets MAX_TIMESTAMP). */
function offsetOfMaxTimestamp(batch: Buffer, baseOffset: number): number | null {
  if ((batch.readInt16BE(ATTRIBUTES_OFFSET) & TIMESTAMP_TYPE_MASK) !== 0) return baseOffset;
  const max = Number(batch.readBigInt64BE(MAX_TIMESTAMP_OFFSET));
  let found: number | null = null;
  forEachStoredRecord(batch, (delta, ts) => {
    if (ts === max) {
      found = baseOffset + delta;
      return true;
    }
    return false;
  });
  return found;
}

/**
 * Cleaner.doClean on one log: the cleaner's pass over every segment below the first uncleanable
 * offset, the retained batches written into one new segment per group (each at its group's first
 * base offset, with the group's last modification time), the segments replaced, and the checkpoint
 * moved to the end of what was cleaned. Returns the pass's stats.
 */
export function compactLog(ltc: LogToClean, now: number): CleanStats {
  const { log, config, firstUncleanableOffset } = ltc;
  const segments = log.logSegments;
  let count = 0;
  while (count < segments.length && segments[count].baseOffset < firstUncleanableOffset) count++;
  const toClean = segments.slice(0, count);
  const batches: Buffer[] = [];
  for (const s of toClean) for (const b of s.allBatches()) batches.push(b);
  const active = new Map<bigint, LastRecord>();
  for (const [id, e] of log.producers.activeProducers(now)) {
    const last = e.batches[e.batches.length - 1];
    active.set(id, { lastDataOffset: last === undefined ? null : last.lastOffset, producerEpoch: e.producerEpoch });
  }
  const result = cleanLog({
    batches,
    firstDirtyOffset: ltc.firstDirtyOffset,
    cleanableEndOffset: firstUncleanableOffset,
    now,
    deleteRetentionMs: config.deleteRetentionMs,
    abortedTransactions: log.txnIndex.all(),
    lastRecordsOfActiveProducers: active,
  });
  const groups = groupSegmentsBySize(toClean, config.segmentBytes, config.segmentIndexBytes, firstUncleanableOffset);
  const replacement: LogSegment[] = [];
  let next = 0;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    const end = g + 1 < groups.length ? groups[g + 1][0].baseOffset : firstUncleanableOffset;
    const last = group[group.length - 1];
    const cleaned = log.newSegment(group[0].baseOffset, group[0].created, config);
    while (next < result.batches.length) {
      const b = result.batches[next];
      const base = Number(b.readBigInt64BE(0));
      if (base >= end) break;
      const lastOffset = base + b.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
      cleaned.append(b, base, lastOffset, Number(b.readBigInt64BE(MAX_TIMESTAMP_OFFSET)), offsetOfMaxTimestamp(b, base), config.indexIntervalBytes, last.lastModified);
      next++;
    }
    cleaned.onBecomeInactive();
    cleaned.lastModified = last.lastModified;
    replacement.push(cleaned);
  }
  log.replaceSegments(0, count, replacement, result.abortedTransactions);
  log.firstDirtyOffset = result.endOffset;
  return result.stats;
}
