// A segment's time index, `<base offset>.timeindex` (storage/.../log/TimeIndex.java): 12-byte
// entries, int64 timestamp then int32 offset relative to the segment's base offset. An entry
// (T, O) says the largest timestamp in the segment up to offset O is T: O is the last offset of
// the batch that holds T, so every record with a timestamp above T comes after O. Timestamps
// strictly increase (maybeAppend only appends a timestamp above the last one); offsets never
// decrease.
//
// When entries are added (LogSegment.append / recover), with the offset index's entry: the
// segment's max timestamp so far and the last offset of the batch holding it (see
// segment-indexes.ts). **When a segment is rolled or closed** (LogSegment.onBecomeInactiveSegment,
// LogSegment.close, and at the end of LogSegment.recover), Kafka calls
// `timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, skipFullCheck = true)`:
// the segment's largest timestamp and the last offset of the (first) batch holding it are
// appended unless the last entry already has that timestamp. That last entry is what time-based
// retention and ListOffsets read (UnifiedLog: a segment's largestTimestamp), so a segment kmock
// rolls must end with it: `timeIndexEntryOnRoll` below says which entry to add. A segment whose
// batches all lack timestamps (magic 0, timestamp -1) has an empty time index.
//
// Like the offset index, the file is preallocated while active (10485756 bytes by default: 10 MiB
// rounded down to whole entries) and trimmed on roll/close; zero entries at the end are reported
// as `preallocatedBytes` (an all-zero first entry counts as one only in a 12-byte file). (Kafka's own
// TimeIndex.sanityCheck would call such an untrimmed file corrupt, since its last slot's timestamp
// 0 is below the first: Kafka only meets those files in segments it recovers anyway.)

import { indexSlots, largestAtOrBelow } from './offset-index.js';
import { checkBaseOffset, checkInt, fail, INT32_MAX, ok, readInt64Number, writeInt64Number, type Decoded, type DecodeFileOptions } from './result.js';

export const TIME_INDEX_ENTRY_SIZE = 12;

/** RecordBatch.NO_TIMESTAMP. */
export const NO_TIMESTAMP = -1;

export interface TimeIndexEntry {
  timestamp: number;
  /** Absolute offset: base offset + the stored relative offset. */
  offset: number;
}

export interface TimeIndex {
  entries: TimeIndexEntry[];
  /** Zero bytes after the entries: the preallocated, never-written part of an untrimmed index. */
  preallocatedBytes: number;
}

/**
 * The time index file for these entries, trimmed to them. Throws (a caller bug) where
 * TimeIndex.maybeAppend would refuse or skip an entry: a timestamp not above the previous one or
 * not above -1, an offset below the previous one, or an offset outside the base offset's int32 range.
 */
export function encodeTimeIndex(baseOffset: number, entries: readonly TimeIndexEntry[]): Buffer {
  checkBaseOffset(baseOffset);
  const buf = Buffer.alloc(entries.length * TIME_INDEX_ENTRY_SIZE);
  let prev: TimeIndexEntry = { timestamp: NO_TIMESTAMP, offset: baseOffset };
  entries.forEach((e, i) => {
    const rel = e.offset - baseOffset;
    checkInt(rel, 0, INT32_MAX, `time index entry ${i}: offset ${e.offset} relative to base offset ${baseOffset}:`);
    if (!Number.isSafeInteger(e.timestamp) || e.timestamp <= prev.timestamp) {
      throw new RangeError(`time index entry ${i}: timestamp ${e.timestamp} is not above ${i === 0 ? 'NO_TIMESTAMP (-1)' : `the previous entry's ${prev.timestamp}`}`);
    }
    if (e.offset < prev.offset) throw new RangeError(`time index entry ${i}: offset ${e.offset} is below the previous entry's ${prev.offset}`);
    writeInt64Number(buf, i * TIME_INDEX_ENTRY_SIZE, e.timestamp, 'timestamp');
    buf.writeInt32BE(rel, i * TIME_INDEX_ENTRY_SIZE + 8);
    prev = e;
  });
  return buf;
}

/**
 * Reads a time index with TimeIndex.sanityCheck's rules (a size that is a multiple of 12; the last
 * timestamp not below the first; no offset below the base offset) and those every time index Kafka
 * writes keeps (maybeAppend): timestamps strictly increasing and above -1, offsets never decreasing.
 */
export function decodeTimeIndex(baseOffset: number, buf: Buffer, options?: DecodeFileOptions): Decoded<TimeIndex> {
  checkBaseOffset(baseOffset);
  const file = options?.file ?? 'time index';
  // An all-zero entry is one only when it is the file's only slot (see above).
  const framed = indexSlots(buf, TIME_INDEX_ENTRY_SIZE, file, buf.length === TIME_INDEX_ENTRY_SIZE ? 1 : 0);
  if (!framed.ok) return framed;
  const { slots, used } = framed.value;
  const entries: TimeIndexEntry[] = new Array(used);
  let prev: TimeIndexEntry = { timestamp: NO_TIMESTAMP, offset: baseOffset };
  for (let i = 0; i < used; i++) {
    const at = i * TIME_INDEX_ENTRY_SIZE;
    const timestamp = readInt64Number(buf, at);
    const rel = buf.readInt32BE(at + 8);
    const offset = baseOffset + rel;
    if (timestamp === null) return fail(file, `entry ${i} has a timestamp outside the safe-integer range`, { position: at });
    if (rel < 0) return fail(file, `entry ${i} has offset ${offset}, below the base offset ${baseOffset}`, { position: at });
    if (timestamp <= prev.timestamp) {
      const than = i === 0 ? 'NO_TIMESTAMP (-1)' : `the previous entry's ${prev.timestamp}`;
      return fail(file, `entry ${i} has timestamp ${timestamp}, not above ${than}`, { position: at });
    }
    if (offset < prev.offset) return fail(file, `entry ${i} has offset ${offset}, below the previous entry's ${prev.offset}`, { position: at });
    entries[i] = prev = { timestamp, offset };
  }
  return ok({ entries, preallocatedBytes: (slots - used) * TIME_INDEX_ENTRY_SIZE });
}

/**
 * The entry TimeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar) adds to a time
 * index whose entries are `entries`, or null when it adds none (the timestamp is not above the
 * last entry's, or not above -1 for an empty index). Call it with the segment's max timestamp and
 * the last offset of the batch holding it when the segment is rolled or closed (see above).
 */
export function timeIndexEntryOnRoll(
  entries: readonly TimeIndexEntry[],
  maxTimestampSoFar: number,
  offsetOfMaxTimestampSoFar: number,
): TimeIndexEntry | null {
  const last = entries[entries.length - 1];
  const lastTimestamp = last === undefined ? NO_TIMESTAMP : last.timestamp;
  if (maxTimestampSoFar <= lastTimestamp) return null;
  if (last !== undefined && offsetOfMaxTimestampSoFar < last.offset) {
    // Kafka throws InvalidOffsetException here: the max timestamp moved backwards in offsets.
    throw new RangeError(`offset ${offsetOfMaxTimestampSoFar} of the max timestamp is below the last time index entry's ${last.offset}`);
  }
  return { timestamp: maxTimestampSoFar, offset: offsetOfMaxTimestampSoFar };
}

/**
 * TimeIndex.lookup: the entry with the largest timestamp at or below `targetTimestamp`, or
 * (NO_TIMESTAMP, baseOffset) when there is none. A ListOffsets by timestamp then looks the offset up
 * in the offset index and scans the .log from there (LogSegment.findOffsetByTimestamp).
 */
export function lookupTimeIndex(baseOffset: number, entries: readonly TimeIndexEntry[], targetTimestamp: number): TimeIndexEntry {
  return largestAtOrBelow(entries, targetTimestamp, (e) => e.timestamp) ?? { timestamp: NO_TIMESTAMP, offset: baseOffset };
}
