// ListOffsets' lookups over a partition log's segments, as Kafka 3.9's UnifiedLog does them:
// fetchOffsetByTimestamp (a timestamp, MAX_TIMESTAMP) and legacyFetchOffsetsBefore (v0). They
// read the log through its public view (segments, offsets) and change nothing.
import { forEachStoredRecord } from '../../codec/records/record-walk.js';
import type { TimestampAndOffset } from './log-results.js';
import { LEADER_EPOCH, type PartitionLog } from './partition-log.js';

/**
 * The first record at or after the log start offset with timestamp >= `target` (its own
 * timestamp and offset), searched in the first segment whose largest timestamp reaches `target`
 * only (LogSegment.findOffsetByTimestamp), or null when there is none (ListOffsets answers -1/-1).
 */
export function offsetForTimestamp(log: PartitionLog, target: number): TimestampAndOffset | null {
  const seg = log.logSegments.find((s) => s.largestTimestamp >= target);
  if (seg === undefined) return null;
  const lso = log.logStartOffset;
  for (let i = 0; i < seg.batchCount; i++) {
    if (seg.maxTimestampAt(i) < target || seg.lastOffsetAt(i) < lso) continue;
    const batch = seg.batchAt(i);
    const base = seg.baseOffsetAt(i);
    const hit: { found: TimestampAndOffset | null } = { found: null };
    forEachStoredRecord(batch, (offsetDelta, timestamp) => {
      if (timestamp >= target && base + offsetDelta >= lso) {
        hit.found = { timestamp, offset: base + offsetDelta, leaderEpoch: epochOf(batch) };
        return true;
      }
      return false;
    });
    if (hit.found !== null) return hit.found;
  }
  return null;
}

/**
 * ListOffsets MAX_TIMESTAMP (-3): the first segment with the largest max timestamp, its first
 * batch with that timestamp, and in it the first record with that timestamp. Like Kafka, this
 * looks at every batch the segments still hold, including batches below a log start offset moved
 * by DeleteRecords (until retention deletes their segment).
 */
export function maxTimestampOffset(log: PartitionLog): TimestampAndOffset | null {
  // UnifiedLog.fetchOffsetByTimestamp: segments.maxBy(maxTimestampSoFar), the first on a tie.
  let best = log.logSegments[0];
  for (const seg of log.logSegments) if (seg.maxTimestampSoFar > best.maxTimestampSoFar) best = seg;
  if (best.maxTimestampSoFar >= 0) {
    return best.offsetOfMaxTimestamp === null ? null : { timestamp: best.maxTimestampSoFar, offset: best.offsetOfMaxTimestamp, leaderEpoch: LEADER_EPOCH };
  }
  // No timestamp above -1 anywhere: the first batch with max timestamp -1 (Kafka's fallback).
  const candidate = best.noTimestampCandidate;
  if (candidate !== null && candidate.offset !== null) return { timestamp: -1, offset: candidate.offset, leaderEpoch: LEADER_EPOCH };
  return null;
}

/**
 * ListOffsets v0 (UnifiedLog.legacyFetchOffsetsBefore): each segment's base offset (at least the
 * log start offset) stamped with its mtime, and, when the last segment holds data, the log end
 * offset stamped "now"; the offsets at or before `timestamp`, newest first, at most `maxNumOffsets`.
 * Throws RangeError for a negative maxNumOffsets (Kafka fails allocating the array).
 */
export function legacyOffsetsBefore(log: PartitionLog, timestamp: number, maxNumOffsets: number, now = Date.now()): number[] {
  const table: Array<[number, number]> = log.logSegments.map((seg) => [Math.max(seg.baseOffset, log.logStartOffset), seg.lastModified]);
  if (log.activeSegment.size > 0) table.push([log.logEndOffset, now]);
  let start: number;
  if (timestamp === -1) start = table.length - 1;
  else if (timestamp === -2) start = 0;
  else {
    start = table.length - 1;
    while (start >= 0 && table[start][1] > timestamp) start--;
  }
  const n = Math.min(maxNumOffsets, start + 1);
  if (n < 0) throw new RangeError(`negative array size ${n}`);
  const out: number[] = [];
  for (let j = 0; j < n; j++) out.push(table[start - j][0]);
  return out.sort((a, b) => b - a);
}

function epochOf(batch: Buffer): number {
  const e = batch.readInt32BE(12);
  return e >= 0 ? e : -1;
}
