// The v2 record batch header, read and patched in place. This is the broker's hot path: a
// Produce request's batches are validated, stamped with offsets and stored without ever
// decoding (or decompressing) their records.
import { DecodeError, EncodeError } from '../primitives/index.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  MIN_BATCH_LENGTH,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  type TimestampTypeId,
} from './constants.js';
import { crc32c } from './crc.js';

/**
 * The fixed 61-byte header of a v2 batch. Offsets and producer ids are int64 and stay bigint;
 * timestamps are numbers (milliseconds fit a double exactly; a header whose timestamp does not is
 * rejected as corrupt).
 */
export interface BatchHeader {
  baseOffset: bigint;
  /** Bytes after the length field: the whole batch is `LOG_OVERHEAD + batchLength` bytes. */
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  /** CRC-32C as stored, unsigned. */
  crc: number;
  /** The raw int16 attributes; the fields below are decoded from it. */
  attributes: number;
  /** Compression codec id (attribute bits 0-2): 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  codec: number;
  timestampType: TimestampTypeId;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
}

/**
 * Reads the v2 header of the batch starting at `offset` of `buf`. Checks that the 61 header bytes
 * are there, that magic is 2 and that batchLength is at least the header's; it does not check
 * that the whole batch is present (see `iterateBatches`) nor the CRC (see `verifyBatchCrc`).
 */
export function readBatchHeader(buf: Buffer, offset = 0): BatchHeader {
  if (offset < 0 || buf.length - offset < RECORD_BATCH_OVERHEAD) {
    throw new DecodeError(`record batch header needs ${RECORD_BATCH_OVERHEAD} bytes, ${Math.max(0, buf.length - offset)} left`);
  }
  const magic = buf.readInt8(offset + MAGIC_OFFSET);
  if (magic !== 2) throw new DecodeError(`record batch has magic ${magic}, expected 2`);
  const batchLength = buf.readInt32BE(offset + BATCH_LENGTH_OFFSET);
  if (batchLength < MIN_BATCH_LENGTH) {
    throw new DecodeError(`record batch length ${batchLength} is smaller than the ${MIN_BATCH_LENGTH}-byte header`);
  }
  const attributes = buf.readInt16BE(offset + ATTRIBUTES_OFFSET);
  return {
    baseOffset: buf.readBigInt64BE(offset + BASE_OFFSET_OFFSET),
    batchLength,
    partitionLeaderEpoch: buf.readInt32BE(offset + PARTITION_LEADER_EPOCH_OFFSET),
    magic,
    crc: buf.readUInt32BE(offset + CRC_OFFSET),
    attributes,
    codec: attributes & COMPRESSION_CODEC_MASK,
    timestampType: (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0,
    isTransactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: (attributes & DELETE_HORIZON_FLAG_MASK) !== 0,
    lastOffsetDelta: buf.readInt32BE(offset + LAST_OFFSET_DELTA_OFFSET),
    baseTimestamp: readTimestamp(buf, offset + BASE_TIMESTAMP_OFFSET, 'baseTimestamp'),
    maxTimestamp: readTimestamp(buf, offset + MAX_TIMESTAMP_OFFSET, 'maxTimestamp'),
    producerId: buf.readBigInt64BE(offset + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(offset + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(offset + BASE_SEQUENCE_OFFSET),
    recordsCount: buf.readInt32BE(offset + RECORDS_COUNT_OFFSET),
  };
}

/** An int64 millisecond timestamp as a number, from two 32-bit halves (no BigInt on the hot path). */
export function readTimestamp(buf: Buffer, pos: number, what: string): number {
  const hi = buf.readInt32BE(pos);
  const lo = buf.readUInt32BE(pos + 4);
  // |hi| < 2^21 keeps hi * 2^32 + lo strictly inside ±2^53.
  if (hi >= 0x200000 || hi <= -0x200000) throw new DecodeError(`${what} is outside the safe-integer range`);
  return hi * 0x100000000 + lo;
}

export function writeTimestamp(buf: Buffer, pos: number, v: number): void {
  if (!Number.isSafeInteger(v)) throw new EncodeError(`timestamp ${v} is not a safe integer`);
  buf.writeBigInt64BE(BigInt(v), pos);
}

/** The whole batch's size, from its length field (no checks: see `iterateBatches`). */
export function batchSize(batch: Buffer): number {
  return LOG_OVERHEAD + batch.readInt32BE(BATCH_LENGTH_OFFSET);
}

/** The offset of the batch's last record: baseOffset + lastOffsetDelta. */
export function lastOffsetOf(h: Pick<BatchHeader, 'baseOffset' | 'lastOffsetDelta'>): bigint {
  return h.baseOffset + BigInt(h.lastOffsetDelta);
}

// ---- CRC ---------------------------------------------------------------------------------------

/** CRC-32C of a whole batch (a buffer holding exactly one batch): attributes to the end. */
export function computeBatchCrc(batch: Buffer): number {
  return crc32c(batch, ATTRIBUTES_OFFSET, batch.length);
}

/** True when the stored CRC matches the batch bytes. `batch` must hold exactly one batch. */
export function verifyBatchCrc(batch: Buffer): boolean {
  if (batch.length < RECORD_BATCH_OVERHEAD) return false;
  return batch.readUInt32BE(CRC_OFFSET) === computeBatchCrc(batch);
}

// ---- in-place mutators (the broker's append path) -------------------------------------------
// All take the batch's own buffer (the view `iterateBatches` yields), so writes land in the
// request buffer the broker stores: no copy of the batch is ever made.

/** Rewrites baseOffset. It sits before the CRC'd range, so the CRC stays valid. */
export function setBaseOffset(batch: Buffer, baseOffset: bigint): void {
  checkBatchBuffer(batch);
  batch.writeBigInt64BE(baseOffset, BASE_OFFSET_OFFSET);
}

/** Rewrites partitionLeaderEpoch; also outside the CRC'd range. */
export function setPartitionLeaderEpoch(batch: Buffer, epoch: number): void {
  checkBatchBuffer(batch);
  batch.writeInt32BE(epoch, PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * Sets the timestamp type and maxTimestamp, as Kafka's DefaultRecordBatch.setMaxTimestamp does:
 * both are inside the CRC'd range, so the CRC is recomputed and rewritten in place. A no-op when
 * both already hold these values (the CRC is then left untouched, even if it was wrong).
 */
export function setMaxTimestamp(batch: Buffer, timestampType: TimestampTypeId, maxTimestamp: number): void {
  checkBatchBuffer(batch);
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  const current = readTimestamp(batch, MAX_TIMESTAMP_OFFSET, 'maxTimestamp');
  const currentType = (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0;
  if (currentType === timestampType && current === maxTimestamp) return;
  const next = timestampType === 1 ? attributes | TIMESTAMP_TYPE_MASK : attributes & ~TIMESTAMP_TYPE_MASK;
  batch.writeInt16BE(next, ATTRIBUTES_OFFSET);
  writeTimestamp(batch, MAX_TIMESTAMP_OFFSET, maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch), CRC_OFFSET);
}

/**
 * Stamps the batch with the broker's append time (topic config message.timestamp.type =
 * LogAppendTime): sets the timestamp-type bit and maxTimestamp, recomputes the CRC in place.
 * Consumers then read every record's timestamp as `appendTime`.
 */
export function setLogAppendTime(batch: Buffer, appendTime: number): void {
  setMaxTimestamp(batch, 1, appendTime);
}

/** The mutators work on exactly one batch: a wrong buffer would silently corrupt other bytes. */
function checkBatchBuffer(batch: Buffer): void {
  if (batch.length < RECORD_BATCH_OVERHEAD || batch.readInt8(MAGIC_OFFSET) !== 2) {
    throw new EncodeError('not a v2 record batch');
  }
  if (batchSize(batch) !== batch.length) {
    throw new EncodeError(`buffer holds ${batch.length} bytes but the batch is ${batchSize(batch)}: pass one batch's own view`);
  }
}

/**
 * What the leader stamps on a batch it appends (UnifiedLog.append / LogValidator): setBaseOffset,
 * setPartitionLeaderEpoch and setMaxTimestamp on a batch
 * whose attributes were read as `attributes`: the same bytes, without BigInt. A buffer those
 * setters would refuse (not exactly one v2 batch), and a stored max timestamp they cannot read (or
 * that must change, which means a new CRC) go through the setters themselves, errors included.
 */
export function stampAppendedHeader(batch: Buffer, attributes: number, baseOffset: number, leaderEpoch: number, timestampType: 0 | 1, maxTimestamp: number): void {
  const size = batch.length;
  if (size < RECORD_BATCH_OVERHEAD || batch[MAGIC_OFFSET] !== 2 || batch.readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD !== size) {
    setBaseOffset(batch, BigInt(baseOffset));
    setPartitionLeaderEpoch(batch, leaderEpoch);
    setMaxTimestamp(batch, timestampType, maxTimestamp);
    return;
  }
  // baseOffset is a safe non-negative integer: high and low 32 bits.
  batch.writeUInt32BE(Math.floor(baseOffset / 0x100000000), 0);
  batch.writeUInt32BE(baseOffset >>> 0, 4);
  batch.writeInt32BE(leaderEpoch, PARTITION_LEADER_EPOCH_OFFSET);
  const hi = batch.readInt32BE(MAX_TIMESTAMP_OFFSET);
  const unchanged =
    hi < 0x200000 &&
    hi > -0x200000 &&
    hi * 0x100000000 + batch.readUInt32BE(MAX_TIMESTAMP_OFFSET + 4) === maxTimestamp &&
    ((attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0) === timestampType;
  if (!unchanged) setMaxTimestamp(batch, timestampType, maxTimestamp);
}
