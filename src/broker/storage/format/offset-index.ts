// A segment's offset index, `<base offset>.index` (storage/.../log/OffsetIndex.java,
// AbstractIndex.java): 8-byte entries, int32 offset relative to the segment's base offset and
// int32 byte position of the batch in the `.log`, both big-endian. Sparse: LogSegment adds an
// entry (the batch's last offset, its position) when more than index.interval.bytes were written
// since the last one (see segment-indexes.ts for the exact rule).
//
// Kafka preallocates an active segment's index to segment.index.bytes (10 MiB by default) of
// zeros and trims it to its entries when the segment is rolled or closed
// (AbstractIndex.trimToValidSize); kmock writes trimmed files only. A file left by a crash can
// still carry the zeroed tail (Kafka 3.9 killed with -9 leaves the active segment's .index at
// 10485760 bytes): the decoder reports it (`preallocatedBytes`), as DumpLogSegments stops at the
// first zero entry after the first ("since it is a sparse file, in the event of a crash there may
// be many zero entries").
//
// No checksum guards the file; Kafka rebuilds an index it distrusts from the log (LogSegment.recover),
// and so should the caller when decodeOffsetIndex fails.

import { checkBaseOffset, checkInt, fail, INT32_MAX, ok, type Decoded, type DecodeFileOptions } from './result.js';

export const OFFSET_INDEX_ENTRY_SIZE = 8;

export interface OffsetIndexEntry {
  /** Absolute offset (base offset + the stored relative offset): the last offset of the indexed batch. */
  offset: number;
  /** Byte position of the batch in the segment's .log. */
  position: number;
}

export interface OffsetIndex {
  entries: OffsetIndexEntry[];
  /** Zero bytes after the entries: the preallocated, never-written part of an untrimmed index. */
  preallocatedBytes: number;
}

/**
 * The index file for these entries, trimmed to them. Throws (a caller bug) where OffsetIndex.append
 * would: an offset not above the previous one (InvalidOffsetException), or one that does not fit
 * an int32 relative to `baseOffset` (IndexOffsetOverflowException); positions must be int32s,
 * increasing.
 */
export function encodeOffsetIndex(baseOffset: number, entries: readonly OffsetIndexEntry[]): Buffer {
  checkBaseOffset(baseOffset);
  const buf = Buffer.alloc(entries.length * OFFSET_INDEX_ENTRY_SIZE);
  let prev: OffsetIndexEntry | undefined;
  entries.forEach((e, i) => {
    const rel = e.offset - baseOffset;
    checkInt(rel, 0, INT32_MAX, `offset index entry ${i}: offset ${e.offset} relative to base offset ${baseOffset}:`);
    checkInt(e.position, 0, INT32_MAX, `offset index entry ${i}: position`);
    if (prev !== undefined && e.offset <= prev.offset) {
      throw new RangeError(`offset index entry ${i}: offset ${e.offset} is not above the previous entry's ${prev.offset}`);
    }
    if (prev !== undefined && e.position <= prev.position) {
      throw new RangeError(`offset index entry ${i}: position ${e.position} is not above the previous entry's ${prev.position}`);
    }
    buf.writeInt32BE(rel, i * OFFSET_INDEX_ENTRY_SIZE);
    buf.writeInt32BE(e.position, i * OFFSET_INDEX_ENTRY_SIZE + 4);
    prev = e;
  });
  return buf;
}

/**
 * Reads an offset index with OffsetIndex.sanityCheck's rules (a size that is a multiple of 8; no
 * offset below the base offset) plus those every index Kafka writes keeps: offsets and positions
 * strictly increasing (OffsetIndex.append refuses anything else). Zero entries at the end are the
 * preallocated part (see above), not entries.
 */
export function decodeOffsetIndex(baseOffset: number, buf: Buffer, options?: DecodeFileOptions): Decoded<OffsetIndex> {
  checkBaseOffset(baseOffset);
  const file = options?.file ?? 'offset index';
  const framed = indexSlots(buf, OFFSET_INDEX_ENTRY_SIZE, file, 0);
  if (!framed.ok) return framed;
  const { slots, used } = framed.value;
  const entries: OffsetIndexEntry[] = new Array(used);
  for (let i = 0; i < used; i++) {
    const at = i * OFFSET_INDEX_ENTRY_SIZE;
    const rel = buf.readInt32BE(at);
    const position = buf.readInt32BE(at + 4);
    const offset = baseOffset + rel;
    if (rel < 0) return fail(file, `entry ${i} has offset ${offset}, below the base offset ${baseOffset}`, { position: at });
    if (position < 0) return fail(file, `entry ${i} has a negative position ${position}`, { position: at });
    if (i > 0 && offset <= entries[i - 1].offset) {
      return fail(file, `entry ${i} has offset ${offset}, not above the previous entry's ${entries[i - 1].offset}`, { position: at });
    }
    if (i > 0 && position <= entries[i - 1].position) {
      return fail(file, `entry ${i} has position ${position}, not above the previous entry's ${entries[i - 1].position}`, { position: at });
    }
    entries[i] = { offset, position };
  }
  return ok({ entries, preallocatedBytes: (slots - used) * OFFSET_INDEX_ENTRY_SIZE });
}

/**
 * OffsetIndex.lookup: the entry with the largest offset at or below `targetOffset`, or
 * (baseOffset, 0) when there is none: where a read for that offset starts scanning the .log.
 */
export function lookupOffsetIndex(baseOffset: number, entries: readonly OffsetIndexEntry[], targetOffset: number): OffsetIndexEntry {
  return largestAtOrBelow(entries, targetOffset, (e) => e.offset) ?? { offset: baseOffset, position: 0 };
}

/**
 * AbstractIndex.largestLowerBoundSlotFor: the last entry whose key is at or below `target`
 * (entries sorted by key), or undefined. Shared with the time index.
 */
export function largestAtOrBelow<T>(entries: readonly T[], target: number, key: (e: T) => number): T | undefined {
  let lo = 0;
  let hi = entries.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (key(entries[mid]) <= target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? undefined : entries[found];
}

/**
 * OffsetIndex.fetchUpperBoundOffset: the first entry whose position is at or past `position`
 * (a fetch's start position plus its size), or undefined.
 */
export function upperBoundOffsetIndex(entries: readonly OffsetIndexEntry[], position: number): OffsetIndexEntry | undefined {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].position < position) lo = mid + 1;
    else hi = mid;
  }
  return entries[lo];
}

/**
 * An index file's slots (its size must be a multiple of `entrySize`: AbstractIndex's sanity
 * checks) and how many of them hold entries (`usedSlots`). Shared with the time index.
 */
export function indexSlots(buf: Buffer, entrySize: number, file: string, minUsed: number): Decoded<{ slots: number; used: number }> {
  if (buf.length % entrySize !== 0) return fail(file, `is corrupt, found ${buf.length} bytes which is not a multiple of ${entrySize}`);
  const slots = buf.length / entrySize;
  return ok({ slots, used: usedSlots(buf, slots, entrySize, minUsed) });
}

/**
 * How many slots hold entries: all of them but the run of all-zero slots at the end, down to
 * `minUsed`. For the offset index that is every zero slot (Kafka never indexes position 0, so an
 * all-zero entry is never written: a wholly zero file, the active segment's preallocated index
 * after a crash, has no entries); the time index keeps an all-zero first slot when it is the file's
 * only one (a trimmed index whose one entry is timestamp 0 at the base offset).
 */
function usedSlots(buf: Buffer, slots: number, entrySize: number, minUsed = 0): number {
  let used = slots;
  while (used > minUsed && isZero(buf, (used - 1) * entrySize, used * entrySize)) used--;
  return used;
}

function isZero(buf: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (buf[k] !== 0) return false;
  return true;
}
