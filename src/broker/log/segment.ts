// One log segment, as Kafka 3.9's LogSegment (storage/.../internals/log/LogSegment.java) keeps it:
// the record batches of an offset range starting at `baseOffset`, their byte positions relative to
// the segment, the sparse offset index and the time index (entries counted against
// segment.index.bytes, which rolls the segment when full), the max timestamp so far and the
// timestamp rolls are measured from.
//
// The batches themselves are Buffers: the producers' bytes as received (partition-log.ts). With a
// data dir a segment also has a file (`SegmentFile`, storage/): every batch is written there as it
// is appended, and a segment's buffers can be let go (evict) once flushed, under the stored-memory
// cap; a read then comes from the file. Per batch the segment keeps only numbers, in parallel
// arrays: no per-record objects.
import { OffsetIndex } from './txn-index.js';

/** Where a segment's bytes live besides memory (a `.log` file in the data dir: storage/). */
export interface SegmentFile {
  /** Appends one batch at byte `position` (the segment's size before the append). */
  append(batch: Buffer, position: number): void;
  /** Reads `length` bytes at `position`. */
  read(position: number, length: number): Buffer;
  /** The bytes written but not yet fsynced. */
  readonly unflushedBytes: number;
  /** fsync. */
  flush(): void;
  /** Called when the segment stops being the active one (Kafka writes its trimmed indexes then). */
  onRoll(segment: LogSegment): void;
  /** The segment is deleted (retention, DeleteRecords, compaction replacing it, topic deletion). */
  delete(): void;
  /** A cleaner output takes its final name once the segments it replaces are deleted. */
  swapIn?(): void;
  close(): void;
}

/** What shouldRoll needs of the next append (RollParams). */
export interface RollParams {
  maxSegmentMs: number;
  maxSegmentBytes: number;
  maxTimestampInMessages: number;
  maxOffsetInMessages: number;
  messagesSize: number;
  now: number;
}

/** A batch read from a segment: its slot, bytes and position. */
export interface SegmentRead {
  records: Buffer[];
  bytes: number;
  /** Position of the first batch read, relative to the segment. */
  startPosition: number;
  firstEntryIncomplete: boolean;
}

const NO_BUFFERS: Buffer[] = [];
const INT_MAX = 2147483647;

export class LogSegment {
  /** Bytes in the segment. */
  size = 0;
  /** The last append's time (the .log file's mtime in Kafka): retention falls back to it. */
  lastModified: number;
  /** LogSegment.rollingBasedTimestamp: the first batch's max timestamp. */
  private rollingBasedTimestamp: number | null = null;

  // Parallel arrays, one slot per batch.
  private readonly bufs: Array<Buffer | null> = [];
  private readonly baseOffsets: number[] = [];
  private readonly lastOffsets: number[] = [];
  private readonly maxTimestamps: number[] = [];
  private readonly positions: number[] = [];
  /** Bytes held in memory (size less the evicted batches). */
  residentBytes = 0;

  readonly offsetIndex = new OffsetIndex();
  /** Time index entries (TimeIndex: timestamp, offset), appended only when the timestamp grows. */
  readonly timeIndexTimestamps: number[] = [];
  readonly timeIndexOffsets: number[] = [];
  private bytesSinceLastIndexEntry = 0;

  /** Sets the offset of the record with the max timestamp (loading: found by reading that batch). */
  setOffsetOfMaxTimestamp(offset: number | null): void {
    this.offsetOfMaxTimestamp = offset;
  }

  /** maxTimestampAndOffsetSoFar: the first batch to reach the largest timestamp (its last offset: "shallow"). */
  maxTimestampSoFar = -1;
  shallowOffsetOfMaxTimestampSoFar = -1;
  /** ListOffsets MAX_TIMESTAMP: the record in that batch (offsetOfMaxTimestamp), null when unknown. */
  offsetOfMaxTimestamp: number | null = null;
  private hasMaxTimestamp = false;
  /** When no batch had a timestamp above -1: the first batch with max timestamp -1 (Kafka's fallback). */
  noTimestampCandidate: { offset: number | null } | null = null;

  constructor(
    readonly baseOffset: number,
    /** Creation time (the roll time when no batch has a timestamp). */
    readonly created: number,
    /** LogConfig.randomSegmentJitter, drawn once per segment. */
    readonly rollJitterMs: number,
    /** segment.index.bytes at creation: the index capacity (maxIndexSize). */
    readonly maxIndexSize: number,
    public file: SegmentFile | null = null,
  ) {
    this.lastModified = created;
  }

  get batchCount(): number {
    return this.bufs.length;
  }

  /** The offset after the segment's last batch (its base offset when empty). */
  get nextOffset(): number {
    const n = this.lastOffsets.length;
    return n === 0 ? this.baseOffset : this.lastOffsets[n - 1] + 1;
  }

  /** The offset index's capacity: maxIndexSize / 8 entries (AbstractIndex.maxEntries). */
  private get offsetIndexFull(): boolean {
    return this.offsetIndex.size >= Math.floor(this.maxIndexSize / 8);
  }
  /**
   * The time index's: maxIndexSize / 12 entries, the last kept for the roll (TimeIndex.isFull:
   * entries >= maxEntries - 1; onBecomeInactive appends it), so a time index of one entry is
   * always full and every batch rolls.
   */
  private get timeIndexFull(): boolean {
    return this.timeIndexTimestamps.length >= Math.floor(this.maxIndexSize / 12) - 1;
  }

  /** LogSegment.largestTimestamp: the max timestamp so far, else the last modification time. */
  get largestTimestamp(): number {
    return this.maxTimestampSoFar >= 0 ? this.maxTimestampSoFar : this.lastModified;
  }

  /** LogSegment.shouldRoll */
  shouldRoll(p: RollParams): boolean {
    const reachedRollMs = this.timeWaitedForRoll(p.now, p.maxTimestampInMessages) > p.maxSegmentMs - this.rollJitterMs;
    return (
      this.size > p.maxSegmentBytes - p.messagesSize ||
      (this.size > 0 && reachedRollMs) ||
      this.offsetIndexFull ||
      this.timeIndexFull ||
      p.maxOffsetInMessages - this.baseOffset > INT_MAX
    );
  }

  /** LogSegment.timeWaitedForRoll */
  timeWaitedForRoll(now: number, messageTimestamp: number): number {
    const ts = this.rollingBasedTimestamp ?? -1;
    return ts >= 0 ? messageTimestamp - ts : now - this.created;
  }

  /** LogSegment.getFirstBatchTimestamp (max.compaction.lag.ms): Infinity when unknown. */
  get firstBatchTimestamp(): number {
    const ts = this.rollingBasedTimestamp;
    return ts !== null && ts >= 0 ? ts : Number.POSITIVE_INFINITY;
  }

  /**
   * LogSegment.append of one batch whose offsets and timestamps are final. `offsetOfMaxRecord` is
   * the offset of the record with the max timestamp (null when unknown), for ListOffsets
   * MAX_TIMESTAMP; the time index gets the batch's last offset (the shallow offset).
   */
  append(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number, offsetOfMaxRecord: number | null, indexIntervalBytes: number, now: number): void {
    this.file?.append(batch, this.size);
    this.add(batch, batch.length, baseOffset, lastOffset, maxTimestamp, offsetOfMaxRecord, indexIntervalBytes, now);
  }

  /**
   * A batch already in the segment's file (loading a data dir): its metadata only, the bytes stay
   * on disk. The indexes are rebuilt as LogSegment.recover rebuilds them.
   */
  addLoaded(size: number, baseOffset: number, lastOffset: number, maxTimestamp: number, offsetOfMaxRecord: number | null, indexIntervalBytes: number, modified: number): void {
    this.add(null, size, baseOffset, lastOffset, maxTimestamp, offsetOfMaxRecord, indexIntervalBytes, modified);
  }

  private add(batch: Buffer | null, size: number, baseOffset: number, lastOffset: number, maxTimestamp: number, offsetOfMaxRecord: number | null, indexIntervalBytes: number, now: number): void {
    const position = this.size;
    if (position === 0) this.rollingBasedTimestamp = maxTimestamp;
    // Update the max timestamp so far (strictly greater wins: the first batch keeps it).
    if (maxTimestamp > this.maxTimestampSoFar) {
      this.maxTimestampSoFar = maxTimestamp;
      this.shallowOffsetOfMaxTimestampSoFar = lastOffset;
      this.offsetOfMaxTimestamp = offsetOfMaxRecord;
      this.hasMaxTimestamp = true;
    } else if (!this.hasMaxTimestamp && maxTimestamp === -1 && this.noTimestampCandidate === null) {
      this.noTimestampCandidate = { offset: offsetOfMaxRecord };
    }
    if (this.bytesSinceLastIndexEntry > indexIntervalBytes) {
      this.offsetIndex.append(lastOffset, position);
      this.maybeAppendTimeIndex(this.maxTimestampSoFar, this.shallowOffsetOfMaxTimestampSoFar);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
    this.bufs.push(batch);
    this.baseOffsets.push(baseOffset);
    this.lastOffsets.push(lastOffset);
    this.maxTimestamps.push(maxTimestamp);
    this.positions.push(position);
    this.size += size;
    if (batch !== null) this.residentBytes += size;
    this.lastModified = now;
  }

  /** TimeIndex.maybeAppend: only a larger timestamp makes an entry. */
  private maybeAppendTimeIndex(timestamp: number, offset: number): void {
    const n = this.timeIndexTimestamps.length;
    const lastTs = n === 0 ? -1 : this.timeIndexTimestamps[n - 1];
    if (timestamp > lastTs) {
      this.timeIndexTimestamps.push(timestamp);
      this.timeIndexOffsets.push(offset);
    }
  }

  /** LogSegment.onBecomeInactiveSegment: the time index gets the max timestamp so far. */
  onBecomeInactive(): void {
    this.maybeAppendTimeIndex(this.maxTimestampSoFar, this.shallowOffsetOfMaxTimestampSoFar);
    this.file?.onRoll(this);
  }

  // ---- reads ----------------------------------------------------------------------------------

  /** Slot of the first batch whose last offset is >= offset, or -1 (LogSegment.translateOffset). */
  slotOf(offset: number): number {
    const last = this.lastOffsets;
    let lo = 0;
    let hi = last.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (last[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < last.length ? lo : -1;
  }

  /** Position of the batch holding `offset` (the segment's size past its last batch). */
  positionOf(offset: number): number {
    const slot = this.slotOf(offset);
    return slot < 0 ? this.size : this.positions[slot];
  }

  batchAt(slot: number): Buffer {
    const b = this.bufs[slot];
    if (b !== null) return b;
    // Evicted: from the file.
    const position = this.positions[slot];
    const length = (slot + 1 < this.positions.length ? this.positions[slot + 1] : this.size) - position;
    return this.file!.read(position, length);
  }

  baseOffsetAt(slot: number): number {
    return this.baseOffsets[slot];
  }
  lastOffsetAt(slot: number): number {
    return this.lastOffsets[slot];
  }
  maxTimestampAt(slot: number): number {
    return this.maxTimestamps[slot];
  }
  positionAt(slot: number): number {
    return this.positions[slot];
  }

  /**
   * LogSegment.read: from the batch holding `startOffset`, at most `maxSize` bytes (the first batch
   * whole with `minOneMessage`), ending at `maxPosition` (null: Kafka's empty maxPositionOpt, no
   * records). Null when no batch holds an offset >= startOffset. Batches go out as the stored
   * Buffers; the last may be cut, as Kafka's file slice is.
   */
  read(startOffset: number, maxSize: number, maxPosition: number | null, minOneMessage: boolean): SegmentRead | null {
    const first = this.slotOf(startOffset);
    if (first < 0) return null;
    const startPosition = this.positions[first];
    const firstSize = (first + 1 < this.positions.length ? this.positions[first + 1] : this.size) - startPosition;
    const adjustedMax = minOneMessage ? Math.max(maxSize, firstSize) : maxSize;
    if (adjustedMax === 0 || maxPosition === null) return { records: NO_BUFFERS, bytes: 0, startPosition, firstEntryIncomplete: false };
    const fetchSize = Math.min(maxPosition - startPosition, adjustedMax);
    const out: Buffer[] = [];
    let left = fetchSize;
    if (left > 0 && this.bufs[first] === null) {
      // Evicted batches: one read of the range from the file.
      out.push(this.file!.read(startPosition, fetchSize));
      left = 0;
    }
    for (let i = first; i < this.bufs.length && left > 0; i++) {
      const b = this.bufs[i] ?? this.batchAt(i);
      if (b.length <= left) {
        out.push(b);
        left -= b.length;
      } else {
        out.push(b.subarray(0, left));
        left = 0;
      }
    }
    return { records: out, bytes: fetchSize, startPosition, firstEntryIncomplete: adjustedMax < firstSize };
  }

  /** Every stored batch, oldest first (the cleaner and the control plane read these). */
  allBatches(): Buffer[] {
    const out: Buffer[] = [];
    for (let i = 0; i < this.bufs.length; i++) out.push(this.batchAt(i));
    return out;
  }

  // ---- memory -----------------------------------------------------------------------------------

  /**
   * Lets go of the in-memory copies of the oldest batches (the file has them: written is enough,
   * the OS serves reads of unflushed bytes), at least `bytes` of them. Returns the bytes freed.
   */
  evict(bytes = Number.POSITIVE_INFINITY): number {
    if (this.file === null || this.residentBytes === 0) return 0;
    let freed = 0;
    for (let i = 0; i < this.bufs.length && freed < bytes; i++) {
      const b = this.bufs[i];
      if (b === null) continue;
      this.bufs[i] = null;
      freed += b.length;
    }
    this.residentBytes -= freed;
    return freed;
  }

  /**
   * kmock's memory cap without a data dir: removes the oldest batches, at least `bytes` of them
   * and at least one, keeping batches whose offsets reach `keepFrom`; positions and the offset
   * index are rebased so the segment reads as if it started at its new first batch. Returns the
   * bytes removed and the first offset left (the segment's next offset when it is empty).
   */
  dropHead(bytes: number, keepFrom: number): { bytes: number; nextOffset: number } {
    let n = 0;
    let dropped = 0;
    while (n < this.bufs.length && (dropped < bytes || n === 0) && this.lastOffsets[n] < keepFrom) {
      dropped += (n + 1 < this.positions.length ? this.positions[n + 1] : this.size) - this.positions[n];
      n++;
    }
    if (n === 0) return { bytes: 0, nextOffset: this.baseOffsets[0] ?? this.baseOffset };
    const resident = this.bufs.slice(0, n).reduce((k, b) => k + (b === null ? 0 : b.length), 0);
    const nextOffset = n < this.bufs.length ? this.baseOffsets[n] : this.lastOffsets[n - 1] + 1;
    for (const arr of [this.bufs, this.baseOffsets, this.lastOffsets, this.maxTimestamps, this.positions] as unknown[][]) arr.splice(0, n);
    for (let i = 0; i < this.positions.length; i++) this.positions[i] -= dropped;
    this.offsetIndex.rebase(dropped);
    this.size -= dropped;
    this.residentBytes -= resident;
    return { bytes: dropped, nextOffset };
  }
}

/**
 * The bytes a stored batch keeps alive. A batch is stored as a view of its Produce request's
 * frame (no copy); when that frame is much larger than the batch (many partitions in one request,
 * or a small frame read in a large socket chunk), the view would pin all of it for as long as the
 * batch is retained, so the batch gets its own copy instead: memory stays proportional to what is
 * stored (the stored-memory cap counts batch bytes).
 */
export function ownBytes(batch: Buffer): Buffer {
  const backing = batch.buffer.byteLength;
  if (backing <= batch.length * 2 + 16384) return batch;
  const copy = Buffer.allocUnsafeSlow(batch.length);
  batch.copy(copy);
  return copy;
}
