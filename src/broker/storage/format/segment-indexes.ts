// Which entries a segment's offset and time indexes hold, by Kafka's rules, and checks of an index
// against the segment's batches.
//
// LogSegment.recover (and LogSegment.append, which keeps the same cadence one append at a time),
// for each batch in file order:
//   1. if the batch's max timestamp is above the segment's max so far, that becomes the max, with
//      the batch's last offset as its offset (the first batch holding the max wins ties);
//   2. if more than index.interval.bytes (default 4096) lie between the last indexed batch's
//      position (0 at first) and this batch's position, the offset index gets (the batch's last
//      offset, its position) and the time index gets (max so far, its offset) if that timestamp is
//      above the time index's last (TimeIndex.maybeAppend); this batch becomes the last indexed.
// When the segment is rolled or closed (and at the end of recover), the time index gets (max so
// far, its offset) once more, again only if above its last timestamp (time-index.ts:
// timeIndexEntryOnRoll). The first batch (position 0) is never indexed: a lookup below the first
// entry starts at position 0 anyway (OffsetIndex.lookup answers (baseOffset, 0)).
//
// One difference kmock need not copy: LogSegment.append indexes an append of several batches
// once, at the first batch's position with the last batch's last offset (DumpLogSegments then
// reports a mismatch for it); kmock appends one batch at a time, which indexes exactly as recover.

import type { OffsetIndexEntry } from './offset-index.js';
import { NO_TIMESTAMP, timeIndexEntryOnRoll, type TimeIndexEntry } from './time-index.js';

/** LogConfig's index.interval.bytes default. */
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;

/** What indexing needs of a batch (log-scan.ts's ScannedBatch has these). */
export interface IndexableBatch {
  position: number;
  /** Bytes of the batch, log overhead included. */
  size: number;
  lastOffset: number;
  /** -1 (NO_TIMESTAMP) for a magic 0 message. */
  maxTimestamp: number;
}

/** Where a builder starts: an empty segment by default, or a segment loaded with these entries. */
export interface IndexBuilderState {
  offsetIndex?: readonly OffsetIndexEntry[];
  timeIndex?: readonly TimeIndexEntry[];
  /**
   * The position the interval is counted from. A LogSegment opened from disk starts counting at
   * its current end (bytesSinceLastIndexEntry is 0 after a restart), so pass the .log's size when
   * resuming appends to a loaded segment.
   */
  lastIndexedPosition?: number;
  /** The segment's max timestamp so far and the offset holding it (a loaded segment: its time index's last entry). */
  maxTimestampSoFar?: number;
  offsetOfMaxTimestampSoFar?: number;
}

/**
 * Builds a segment's index entries batch by batch, as LogSegment does: `add` each batch appended
 * (or scanned), `roll` when the segment is rolled or closed. The entry arrays are the builder's own
 * and grow as batches come; encode them with encodeOffsetIndex / encodeTimeIndex.
 */
export class SegmentIndexBuilder {
  readonly offsetIndex: OffsetIndexEntry[];
  readonly timeIndex: TimeIndexEntry[];
  private lastIndexedPosition: number;
  private maxTimestamp: number;
  private offsetOfMaxTimestamp: number;

  constructor(
    readonly baseOffset: number,
    readonly indexIntervalBytes: number = DEFAULT_INDEX_INTERVAL_BYTES,
    state: IndexBuilderState = {},
  ) {
    if (!Number.isInteger(indexIntervalBytes) || indexIntervalBytes < 0) throw new RangeError(`index.interval.bytes ${indexIntervalBytes} is not a non-negative integer`);
    this.offsetIndex = [...(state.offsetIndex ?? [])];
    this.timeIndex = [...(state.timeIndex ?? [])];
    this.lastIndexedPosition = state.lastIndexedPosition ?? 0;
    const lastTime = this.timeIndex[this.timeIndex.length - 1];
    this.maxTimestamp = state.maxTimestampSoFar ?? lastTime?.timestamp ?? NO_TIMESTAMP;
    this.offsetOfMaxTimestamp = state.offsetOfMaxTimestampSoFar ?? lastTime?.offset ?? baseOffset;
  }

  /** The segment's largest timestamp so far (-1 when none) and the last offset of the first batch holding it. */
  get maxTimestampSoFar(): { timestamp: number; offset: number } {
    return { timestamp: this.maxTimestamp, offset: this.offsetOfMaxTimestamp };
  }

  /** Indexes one batch (steps 1 and 2 above). */
  add(batch: IndexableBatch): void {
    if (batch.maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = batch.maxTimestamp;
      this.offsetOfMaxTimestamp = batch.lastOffset;
    }
    if (batch.position - this.lastIndexedPosition > this.indexIntervalBytes) {
      this.offsetIndex.push({ offset: batch.lastOffset, position: batch.position });
      const t = timeIndexEntryOnRoll(this.timeIndex, this.maxTimestamp, this.offsetOfMaxTimestamp);
      if (t !== null) this.timeIndex.push(t);
      this.lastIndexedPosition = batch.position;
    }
  }

  /** The time index's entry on roll or close (added here too), or null when it gets none. */
  roll(): TimeIndexEntry | null {
    const t = timeIndexEntryOnRoll(this.timeIndex, this.maxTimestamp, this.offsetOfMaxTimestamp);
    if (t !== null) this.timeIndex.push(t);
    return t;
  }
}

/** The indexes of a closed segment of these batches (in file order): what LogSegment.recover leaves. */
export function buildSegmentIndexes(
  baseOffset: number,
  batches: Iterable<IndexableBatch>,
  indexIntervalBytes: number = DEFAULT_INDEX_INTERVAL_BYTES,
): { offsetIndex: OffsetIndexEntry[]; timeIndex: TimeIndexEntry[] } {
  const b = new SegmentIndexBuilder(baseOffset, indexIntervalBytes);
  for (const batch of batches) b.add(batch);
  b.roll();
  return { offsetIndex: b.offsetIndex, timeIndex: b.timeIndex };
}

/**
 * DumpLogSegments --verify-index-only for an offset index: every entry must point at the start of
 * a batch whose last offset is the entry's offset. Answers the problems found (none: []).
 */
export function verifyOffsetIndex(entries: readonly OffsetIndexEntry[], batches: readonly IndexableBatch[]): string[] {
  const byPosition = new Map<number, IndexableBatch>();
  for (const b of batches) byPosition.set(b.position, b);
  const problems: string[] = [];
  for (const e of entries) {
    const b = byPosition.get(e.position);
    if (b === undefined) problems.push(`offset index entry (offset ${e.offset}, position ${e.position}) points at no batch`);
    else if (b.lastOffset !== e.offset) problems.push(`offset index entry (offset ${e.offset}, position ${e.position}): the batch there ends at offset ${b.lastOffset}`);
  }
  return problems;
}

/**
 * DumpLogSegments --verify-index-only for a time index: every entry's offset must be the last
 * offset of a batch whose max timestamp is the entry's timestamp, timestamps increasing.
 */
export function verifyTimeIndex(entries: readonly TimeIndexEntry[], batches: readonly IndexableBatch[]): string[] {
  const byLastOffset = new Map<number, IndexableBatch>();
  for (const b of batches) byLastOffset.set(b.lastOffset, b);
  const problems: string[] = [];
  let prev = NO_TIMESTAMP;
  for (const e of entries) {
    const b = byLastOffset.get(e.offset);
    if (b === undefined) problems.push(`time index entry (timestamp ${e.timestamp}, offset ${e.offset}): no batch ends at that offset`);
    else if (b.maxTimestamp !== e.timestamp) problems.push(`time index entry (timestamp ${e.timestamp}, offset ${e.offset}): the batch's max timestamp is ${b.maxTimestamp}`);
    if (e.timestamp <= prev) problems.push(`time index entry (timestamp ${e.timestamp}, offset ${e.offset}) is not after the previous timestamp ${prev}`);
    prev = e.timestamp;
  }
  return problems;
}
