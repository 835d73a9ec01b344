// The recovery scan of a segment's `.log` (storage/.../log/LogSegment.java: recover; clients/.../
// record/FileRecords.java batches() and FileLogInputStream.nextBatch; DefaultRecordBatch and
// LegacyRecord ensureValid): walk the batch headers from byte 0, check each batch, and say how many
// leading bytes are valid and why the walk stopped. Kafka's recovery truncates the .log to that
// length and rebuilds the indexes from the valid batches; `indexIntervalBytes` makes the scan
// rebuild them in the same pass (segment-indexes.ts).
//
// Framing, as FileLogInputStream: at most 17 bytes left (the header up to the magic byte) ends the
// walk; a size field below 14 (the smallest legacy message) is corruption; a batch that runs past
// the end of the file ends the walk. Then, per batch, as LogSegment.recover: ensureValid (v2: at
// least the 61-byte header, CRC-32C from the attributes to the end; magic 0/1: CRC-32 from the
// magic byte to the end) and ensureOffsetInRange (the last offset fits an int32 relative to the
// segment's base offset).
//
// kmock is stricter than Kafka 3.9 in three places, each a batch no Kafka writes:
// - a magic byte other than 0, 1, 2 is corruption (Kafka reads magic >= 2 as a v2 batch; the
//   magic byte is outside the v2 CRC, so a flipped magic would go unnoticed there);
// - a legacy magic-1 message shorter than its 22-byte overhead is corruption (Kafka fails later,
//   reading the timestamp);
// - offsets must increase from batch to batch and a v2 batch's base offset must not be below the
//   segment's (Kafka only checks the last offset's range, and a range failure there is not
//   truncated but throws LogSegmentOffsetOverflowException, which LogLoader answers by splitting
//   the segment: segments kmock writes never need that; for a foreign one the caller should refuse
//   with the message rather than truncate).
//
// Every length read from the file is checked against the bytes left before it is used. Legacy
// batches are not decompressed: a compressed legacy wrapper's base offset and record count are
// unknown (null), as Kafka's FileChannelRecordBatch only learns them by decompressing.
//
// Input: the whole file as a Buffer, or a SegmentSource that reads it piecewise (a 1 GiB segment
// need not be in memory: `fileSource(fd)` reads it through a window of `readAheadBytes`, and each
// batch is held only while it is checked). Batch metadata is collected unless `collect: false`;
// `onBatch` sees each valid batch (and a view of its bytes) as it is found.

import { readSync, fstatSync } from 'node:fs';
import {
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MESSAGE_OVERHEAD_V0,
  MESSAGE_OVERHEAD_V1,
  RECORD_BATCH_OVERHEAD,
  computeBatchCrc,
  decodeBatch,
  readBatchHeader,
  readLegacyRecord,
  type BatchHeader,
} from '../../../codec/records/index.js';
import type { EpochEntry } from './checkpoints.js';
import type { OffsetIndexEntry } from './offset-index.js';
import { checkBaseOffset, INT32_MAX } from './result.js';
import { SegmentIndexBuilder } from './segment-indexes.js';
import type { TimeIndexEntry } from './time-index.js';

/** FileLogInputStream's HEADER_SIZE_UP_TO_MAGIC: offset, size, partition leader epoch / crc, magic. */
export const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;

/** A .log read piecewise. */
export interface SegmentSource {
  /** The file's length in bytes. */
  readonly size: number;
  /** Up to `length` bytes from `position`; fewer only when the file ends first. */
  read(position: number, length: number): Buffer;
}

/** A Buffer holding the whole file, read without copying. */
export function bufferSource(buf: Buffer): SegmentSource {
  return { size: buf.length, read: (position, length) => buf.subarray(position, Math.min(buf.length, position + length)) };
}

/** An open file descriptor, read with fs.readSync; `size` defaults to the file's current length. */
export function fileSource(fd: number, size: number = fstatSync(fd).size): SegmentSource {
  return {
    size,
    read(position, length) {
      const n = Math.max(0, Math.min(length, size - position));
      const buf = Buffer.allocUnsafe(n);
      let got = 0;
      while (got < n) {
        const r = readSync(fd, buf, got, n - got, position + got);
        if (r === 0) break;
        got += r;
      }
      return got === n ? buf : buf.subarray(0, got);
    },
  };
}

/** One valid batch's metadata: a v2 record batch or a legacy (magic 0/1) message set entry. */
export interface ScannedBatch {
  /** Byte position in the .log. */
  position: number;
  /** Bytes, log overhead included. */
  size: number;
  magic: 0 | 1 | 2;
  /** The first offset; null for a compressed legacy wrapper (known only by decompressing). */
  baseOffset: number | null;
  lastOffset: number;
  /** The batch's max timestamp (v2), the message's timestamp (magic 1), -1 (magic 0). */
  maxTimestamp: number;
  /** 0 CreateTime, 1 LogAppendTime (the attribute bit; always 0 for magic 0). */
  timestampType: 0 | 1;
  /** Compression codec id (attributes & 7): 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  codec: number;
  /** The stored CRC (CRC-32C for v2, CRC-32 for magic 0/1), unsigned; it matched. */
  crc: number;
  /** -1 for legacy entries. */
  partitionLeaderEpoch: number;
  /** -1/-1/-1 for legacy entries (RecordBatch.NO_PRODUCER_ID and friends). */
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
  /** The v2 records count; 1 for an uncompressed legacy message; null for a compressed legacy wrapper. */
  recordCount: number | null;
  /** For a control batch: its first record's ControlRecordType (0 ABORT, 1 COMMIT), or null when unreadable. */
  controlType?: number | null;
}

export type TornReason =
  /** At most 17 bytes left: not even a batch's header up to its magic byte. */
  | 'truncated-header'
  /** The batch's size field runs past the end of the file. */
  | 'truncated-batch';

export type CorruptReason =
  /** A size field below what its format allows, or above `maxBatchBytes`. */
  | 'size'
  /** A magic byte other than 0, 1, 2. */
  | 'magic'
  /** The stored CRC does not match the bytes. */
  | 'crc'
  /** A header field no batch can have (a v2 timestamp outside the safe-integer range). */
  | 'header'
  /** An offset below the segment's base offset or more than 2^31-1 above it. */
  | 'offset-range'
  /** Offsets not increasing (a batch's first offset not above the previous batch's last, or its last below its first). */
  | 'offset-order';

export type ScanStop =
  | { kind: 'end' }
  | { kind: 'torn'; reason: TornReason; position: number; message: string }
  | { kind: 'corrupt'; reason: CorruptReason; position: number; message: string };

export interface SegmentScan {
  baseOffset: number;
  /** The file's length. */
  fileBytes: number;
  /** Length of the valid prefix: what Kafka's recovery truncates the .log to. */
  validBytes: number;
  /** fileBytes - validBytes. */
  truncatedBytes: number;
  /** The valid batches, in file order (empty with `collect: false`). */
  batches: ScannedBatch[];
  batchCount: number;
  /** Why the scan stopped at validBytes: the end of the file, a torn tail, or corruption. */
  stop: ScanStop;
  /** The offset after the last valid batch, or the base offset when there is none (LogSegment.readNextOffset). */
  nextOffset: number;
  /** The largest max timestamp of the valid batches (-1 when none) and the last offset of the first batch holding it. */
  maxTimestamp: number;
  offsetOfMaxTimestamp: number;
  /**
   * Leader epochs first seen in this segment, with their start offsets, as LogSegment.recover
   * assigns them to the leader epoch cache: a v2 batch's partitionLeaderEpoch >= 0 above the latest
   * epoch so far (`latestEpoch` option, then the ones found) starts an epoch at its base offset.
   */
  epochs: EpochEntry[];
  /** With `indexIntervalBytes`: the offset and time index entries recover rebuilds (the roll entry included). */
  indexes?: { offsetIndex: OffsetIndexEntry[]; timeIndex: TimeIndexEntry[] };
}

export interface ScanOptions {
  /** How the file is named in messages (default "segment <base offset>"). */
  file?: string;
  /** Keep each batch's metadata in `batches` (default true). */
  collect?: boolean;
  /** Called for each valid batch; `bytes` is a view of the batch (copy it to keep it). */
  onBatch?: (batch: ScannedBatch, bytes: Buffer) => void;
  /** Rebuild the indexes as LogSegment.recover does, with this index.interval.bytes. */
  indexIntervalBytes?: number;
  /**
   * Declared batch sizes above this are corruption (reason 'size') instead of a torn tail. Kafka
   * has no such bound (a huge size field just ends the walk, like a torn tail: the truncation is
   * the same); pass e.g. the topic's max.message.bytes plus the overhead to tell them apart.
   */
  maxBatchBytes?: number;
  /** Bytes read at a time from a SegmentSource (default 1 MiB); a larger batch is read whole. */
  readAheadBytes?: number;
  /** The leader epoch cache's latest epoch before this segment (for `epochs`). */
  latestEpoch?: number;
  /** The previous segment's last offset: this segment's offsets must be above it (default baseOffset - 1). */
  previousLastOffset?: number;
}

const DEFAULT_READ_AHEAD = 1 << 20;

/** Scans a segment's .log whose file name gives `baseOffset`. Never throws for bad bytes. */
export function scanLogSegment(input: Buffer | SegmentSource, baseOffset: number, options: ScanOptions = {}): SegmentScan {
  checkBaseOffset(baseOffset);
  const src = Buffer.isBuffer(input) ? bufferSource(input) : input;
  const fileBytes = src.size;
  const file = options.file ?? `segment ${baseOffset}`;
  const window = new Window(src, Buffer.isBuffer(input) ? Math.max(1, input.length) : (options.readAheadBytes ?? DEFAULT_READ_AHEAD));
  const collect = options.collect !== false;
  const indexer = options.indexIntervalBytes === undefined ? null : new SegmentIndexBuilder(baseOffset, options.indexIntervalBytes);
  const batches: ScannedBatch[] = [];
  const epochs: EpochEntry[] = [];
  let latestEpoch = options.latestEpoch ?? -1;
  let prevLast = options.previousLastOffset ?? baseOffset - 1;
  let batchCount = 0;
  let maxTimestamp = -1;
  let offsetOfMaxTimestamp = -1;
  let pos = 0;
  let stop: ScanStop = { kind: 'end' };
  const torn = (reason: TornReason, text: string): ScanStop => ({ kind: 'torn', reason, position: pos, message: `${file} byte ${pos}: ${text}` });
  const corrupt = (reason: CorruptReason, text: string): ScanStop => ({ kind: 'corrupt', reason, position: pos, message: `${file} byte ${pos}: ${text}` });

  while (pos < fileBytes) {
    const left = fileBytes - pos;
    if (left <= HEADER_SIZE_UP_TO_MAGIC) {
      stop = torn('truncated-header', `${left} bytes left, too few for a batch header`);
      break;
    }
    const head = window.get(pos, HEADER_SIZE_UP_TO_MAGIC);
    if (head === null) {
      stop = torn('truncated-header', 'the file ended while reading a batch header');
      break;
    }
    const length = head.readInt32BE(BATCH_LENGTH_OFFSET);
    if (length < MESSAGE_OVERHEAD_V0) {
      stop = corrupt('size', `record size ${length} is smaller than the minimum record overhead (${MESSAGE_OVERHEAD_V0})`);
      break;
    }
    const size = LOG_OVERHEAD + length;
    if (options.maxBatchBytes !== undefined && size > options.maxBatchBytes) {
      stop = corrupt('size', `batch size ${size} is above the largest allowed (${options.maxBatchBytes})`);
      break;
    }
    if (length > left - LOG_OVERHEAD) {
      stop = torn('truncated-batch', `a ${size}-byte batch, but only ${left} bytes left`);
      break;
    }
    const magic = head.readInt8(MAGIC_OFFSET);
    if (magic !== 0 && magic !== 1 && magic !== 2) {
      stop = corrupt('magic', `invalid magic ${magic}`);
      break;
    }
    const min = magic === 2 ? RECORD_BATCH_OVERHEAD : LOG_OVERHEAD + (magic === 1 ? MESSAGE_OVERHEAD_V1 : MESSAGE_OVERHEAD_V0);
    if (size < min) {
      stop = corrupt('size', `a magic ${magic} batch of ${size} bytes is smaller than the minimum of ${min}`);
      break;
    }
    const bytes = window.get(pos, size);
    if (bytes === null) {
      stop = torn('truncated-batch', `the file ended while reading a ${size}-byte batch`);
      break;
    }
    const read = magic === 2 ? readV2(bytes, pos) : readLegacy(bytes, pos, magic);
    if (typeof read === 'string') {
      stop = read.startsWith('crc:') ? corrupt('crc', read.slice(4)) : corrupt('header', read);
      break;
    }
    const b = read;
    // ensureOffsetInRange, and offsets increasing.
    if (b.baseOffset !== null && b.lastOffset < b.baseOffset) {
      stop = corrupt('offset-order', `last offset ${b.lastOffset} is below the batch's base offset ${b.baseOffset}`);
      break;
    }
    const first = b.baseOffset ?? b.lastOffset;
    if (first < baseOffset || b.lastOffset - baseOffset > INT32_MAX) {
      stop = corrupt('offset-range', `offsets ${first}..${b.lastOffset} do not fit the segment of base offset ${baseOffset}`);
      break;
    }
    if (first <= prevLast) {
      stop = corrupt('offset-order', `offset ${first} is not above the previous batch's last offset ${prevLast}`);
      break;
    }

    prevLast = b.lastOffset;
    batchCount++;
    if (b.maxTimestamp > maxTimestamp) {
      maxTimestamp = b.maxTimestamp;
      offsetOfMaxTimestamp = b.lastOffset;
    }
    if (b.magic === 2 && b.partitionLeaderEpoch >= 0 && b.partitionLeaderEpoch > latestEpoch) {
      latestEpoch = b.partitionLeaderEpoch;
      epochs.push({ epoch: latestEpoch, startOffset: b.baseOffset ?? b.lastOffset });
    }
    indexer?.add(b);
    if (collect) batches.push(b);
    options.onBatch?.(b, bytes);
    pos += size;
  }
  if (indexer !== null) indexer.roll();
  return {
    baseOffset,
    fileBytes,
    validBytes: pos,
    truncatedBytes: fileBytes - pos,
    batches,
    batchCount,
    stop,
    nextOffset: batchCount > 0 ? prevLast + 1 : baseOffset,
    maxTimestamp,
    offsetOfMaxTimestamp: batchCount > 0 ? offsetOfMaxTimestamp : -1,
    epochs,
    ...(indexer === null ? {} : { indexes: { offsetIndex: indexer.offsetIndex, timeIndex: indexer.timeIndex } }),
  };
}

/** A v2 batch's metadata, or why it is invalid ("crc:" + text for a CRC mismatch). */
function readV2(bytes: Buffer, pos: number): ScannedBatch | string {
  const stored = bytes.readUInt32BE(CRC_OFFSET);
  const computed = computeBatchCrc(bytes);
  if (stored !== computed) return `crc:record batch is corrupt (stored crc = ${stored}, computed crc = ${computed})`;
  let h: BatchHeader;
  try {
    h = readBatchHeader(bytes);
  } catch (e) {
    if (e instanceof Error) return `record batch header: ${e.message}`;
    throw e;
  }
  const baseOffset = Number(h.baseOffset);
  if (!Number.isSafeInteger(baseOffset) || !Number.isSafeInteger(baseOffset + h.lastOffsetDelta)) return 'record batch offsets are outside the safe-integer range';
  const b: ScannedBatch = {
    position: pos,
    size: bytes.length,
    magic: 2,
    baseOffset,
    lastOffset: baseOffset + h.lastOffsetDelta,
    maxTimestamp: h.maxTimestamp,
    timestampType: h.timestampType,
    codec: h.codec,
    crc: stored,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    isTransactional: h.isTransactional,
    isControl: h.isControl,
    recordCount: h.recordsCount,
  };
  if (h.isControl) b.controlType = controlTypeOf(bytes, h);
  return b;
}

/** The first record's control type (ControlRecordType.parseTypeId), for uncompressed control batches. */
function controlTypeOf(bytes: Buffer, h: BatchHeader): number | null {
  if (h.codec !== 0 || h.recordsCount < 1) return null;
  try {
    return decodeBatch(bytes, { verifyCrc: false }).records[0]?.control?.type ?? null;
  } catch {
    return null;
  }
}

/** A legacy message's metadata, or why it is invalid. */
function readLegacy(bytes: Buffer, pos: number, magic: 0 | 1): ScannedBatch | string {
  const v = readLegacyRecord(bytes);
  if (!v.crcValid) return `crc:record is corrupt (stored crc = ${v.storedCrc}, computed crc differs)`;
  const lastOffset = Number(v.offset);
  if (!Number.isSafeInteger(lastOffset)) return 'message offset is outside the safe-integer range';
  const timestamp = magic === 1 ? Number(v.timestamp) : -1;
  if (!Number.isSafeInteger(timestamp)) return 'message timestamp is outside the safe-integer range';
  const compressed = v.codec !== 0;
  return {
    position: pos,
    size: bytes.length,
    magic,
    baseOffset: compressed ? null : lastOffset,
    lastOffset,
    maxTimestamp: timestamp,
    timestampType: v.timestampType,
    codec: v.codec,
    crc: v.storedCrc,
    partitionLeaderEpoch: -1,
    producerId: -1n,
    producerEpoch: -1,
    baseSequence: -1,
    isTransactional: false,
    isControl: false,
    recordCount: compressed ? null : 1,
  };
}

/** A read window over a SegmentSource: batches inside it are views, others cause a new read. */
class Window {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly src: SegmentSource,
    private readonly readAhead: number,
  ) {}

  /** `n` bytes at `pos`, or null when the source has fewer. */
  get(pos: number, n: number): Buffer | null {
    const off = pos - this.start;
    if (off >= 0 && off + n <= this.buf.length) return this.buf.subarray(off, off + n);
    const want = Math.min(Math.max(n, this.readAhead), this.src.size - pos);
    const b = this.src.read(pos, want);
    this.buf = b;
    this.start = pos;
    return b.length >= n ? b.subarray(0, n) : null;
  }
}
