// Full decode and encode of v2 record batches (Kafka's DefaultRecordBatch), for tests, the CLI and
// producer tooling. The broker's append path never comes here (see header.ts and iterate.ts).
//
// Shape: a decoded batch is its header (bigint baseOffset/producerId, number timestamps) plus
// `compression` by name and the records, whose offsets and timestamps stay relative
// (offsetDelta, timestampDelta) next to the absolute `timestamp` consumers see.
import { DecodeError, EncodeError, Reader, Writer } from '../primitives/index.js';
import {
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  CompressionCodec,
  compressionName,
  DEFAULT_MAX_DECOMPRESSED_SIZE,
  DELETE_HORIZON_FLAG_MASK,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  type CompressionName,
  type TimestampTypeId,
} from './constants.js';
import { compress, decompress } from './compression.js';
import { computeBatchCrc, readBatchHeader, writeTimestamp, type BatchHeader } from './header.js';
import {
  checkInt,
  MIN_RECORD_SIZE,
  prepareRecord,
  readRecord,
  sizeOfRecord,
  writeRecord,
  type KafkaRecord,
  type PreparedRecord,
  type RecordInput,
} from './record.js';

export interface RecordBatch extends BatchHeader {
  magic: 2;
  compression: CompressionName;
  records: KafkaRecord[];
}

export interface DecodeOptions {
  /** Check the batch CRC (Java consumers' check.crcs). Default true. */
  verifyCrc?: boolean;
  /** Largest size one batch's records may decompress to. Default 64 MiB. */
  maxDecompressedSize?: number;
}

/** The absolute offset of a record: baseOffset + offsetDelta. */
export function recordOffset(batch: Pick<BatchHeader, 'baseOffset'>, record: Pick<KafkaRecord, 'offsetDelta'>): bigint {
  return batch.baseOffset + BigInt(record.offsetDelta);
}

/**
 * Decodes exactly one v2 batch (`batch` holds it and nothing else, as `iterateBatches` yields).
 * Throws DecodeError for anything malformed: lengths, CRC, codec, record count, record layout,
 * bytes left over.
 */
export function decodeBatch(batch: Buffer, options?: DecodeOptions): RecordBatch {
  const header = readBatchHeader(batch);
  const size = LOG_OVERHEAD + header.batchLength;
  if (size !== batch.length) {
    throw new DecodeError(`record batch declares ${size} bytes but ${batch.length} were given`);
  }
  if (options?.verifyCrc !== false) {
    const crc = computeBatchCrc(batch);
    if (crc !== header.crc) {
      throw new DecodeError(`record batch CRC mismatch: stored 0x${header.crc.toString(16)}, computed 0x${crc.toString(16)}`);
    }
  }
  const compression = compressionName(header.codec);
  if (compression === undefined) throw new DecodeError(`record batch has unknown compression codec ${header.codec}`);
  const count = header.recordsCount;
  if (count < 0) throw new DecodeError(`record batch has negative record count ${count}`);

  let body = batch.subarray(RECORD_BATCH_OVERHEAD);
  if (compression !== 'none') {
    body = decompress(compression, body, { maxSize: options?.maxDecompressedSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE });
  }
  // A hostile count fails here, before the array is allocated.
  if (count * MIN_RECORD_SIZE > body.length) {
    throw new DecodeError(`${count} records cannot fit in ${body.length} bytes`);
  }
  const ctx = {
    baseTimestamp: header.baseTimestamp,
    logAppendTime: header.timestampType === 1 ? header.maxTimestamp : null,
    isControl: header.isControl,
  };
  const r = new Reader(body);
  const records: KafkaRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    try {
      records[i] = readRecord(r, ctx);
    } catch (e) {
      if (e instanceof DecodeError) e.path.unshift(`records[${i}]`);
      throw e;
    }
  }
  if (r.remaining !== 0) {
    throw new DecodeError(`record batch has ${r.remaining} bytes left after its ${count} records`);
  }
  return { ...header, magic: 2, compression, records };
}

/**
 * A batch to encode. Defaults follow Kafka's Java producer where it has one: no producer id
 * (-1/-1/-1), partitionLeaderEpoch -1, CreateTime. `baseTimestamp` defaults to the first record's
 * `timestamp` (else Date.now()); `maxTimestamp` to the largest record timestamp (else the base);
 * `lastOffsetDelta` to the last record's offsetDelta (0 for an empty batch).
 */
export interface RecordBatchInput {
  records: readonly RecordInput[];
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
  compression?: CompressionName;
  timestampType?: TimestampTypeId;
  isTransactional?: boolean;
  isControl?: boolean;
  hasDeleteHorizon?: boolean;
  baseTimestamp?: number;
  maxTimestamp?: number;
  lastOffsetDelta?: number;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  /** Raw attribute bits to set besides those above (e.g. to test unknown bits). */
  extraAttributes?: number;
}

/** Encodes one v2 batch, CRC included. zstd needs `await initCompression()` first. */
export function encodeBatch(input: RecordBatchInput): Buffer {
  const compression = input.compression ?? 'none';
  const codec = CompressionCodec[compression];
  if (codec === undefined) throw new EncodeError(`unknown compression ${String(compression)}`);
  const baseTimestamp = input.baseTimestamp ?? input.records[0]?.timestamp ?? Date.now();
  if (!Number.isSafeInteger(baseTimestamp)) throw new EncodeError(`baseTimestamp ${baseTimestamp} is not a safe integer`);

  const prepared: PreparedRecord[] = new Array(input.records.length);
  let recordsSize = 0;
  let maxTs = baseTimestamp;
  for (let i = 0; i < input.records.length; i++) {
    const p = prepareRecord(input.records[i], i, baseTimestamp);
    prepared[i] = p;
    recordsSize += sizeOfRecord(p);
    if (baseTimestamp + p.timestampDelta > maxTs) maxTs = baseTimestamp + p.timestampDelta;
  }
  const maxTimestamp = input.maxTimestamp ?? maxTs;
  const lastOffsetDelta = input.lastOffsetDelta ?? (prepared.length > 0 ? prepared[prepared.length - 1].offsetDelta : 0);
  const partitionLeaderEpoch = input.partitionLeaderEpoch ?? -1;
  const producerEpoch = input.producerEpoch ?? -1;
  const baseSequence = input.baseSequence ?? -1;
  checkInt(lastOffsetDelta, -0x80000000, 0x7fffffff, 'lastOffsetDelta');
  checkInt(partitionLeaderEpoch, -0x80000000, 0x7fffffff, 'partitionLeaderEpoch');
  checkInt(producerEpoch, -0x8000, 0x7fff, 'producerEpoch');
  checkInt(baseSequence, -0x80000000, 0x7fffffff, 'baseSequence');
  const baseOffset = input.baseOffset ?? 0n;
  const producerId = input.producerId ?? -1n;
  checkInt64(baseOffset, 'baseOffset');
  checkInt64(producerId, 'producerId');

  let attributes = codec | (input.extraAttributes ?? 0);
  if (input.timestampType === 1) attributes |= TIMESTAMP_TYPE_MASK;
  if (input.isTransactional === true) attributes |= TRANSACTIONAL_FLAG_MASK;
  if (input.isControl === true) attributes |= CONTROL_FLAG_MASK;
  if (input.hasDeleteHorizon === true) attributes |= DELETE_HORIZON_FLAG_MASK;
  checkInt(attributes, -0x8000, 0x7fff, 'attributes');
  if ((attributes & COMPRESSION_CODEC_MASK) !== codec) throw new EncodeError('extraAttributes must not set codec bits');

  // Records go straight into the batch when uncompressed; otherwise into their own buffer first.
  let body: Buffer | null = null;
  if (codec !== 0) {
    const rw = new Writer(recordsSize);
    for (const p of prepared) writeRecord(rw, p);
    body = compress(compression, rw.finish());
  }
  const total = RECORD_BATCH_OVERHEAD + (body === null ? recordsSize : body.length);
  if (total - LOG_OVERHEAD > 0x7fffffff) throw new EncodeError('record batch is larger than 2 GiB');
  const w = new Writer(total);
  w.int64(baseOffset);
  w.int32(total - LOG_OVERHEAD);
  w.int32(partitionLeaderEpoch);
  w.int8(2);
  w.uint32(0); // CRC, filled in below
  w.int16(attributes);
  w.int32(lastOffsetDelta);
  writeTimestamp(w.buf, w.pos, baseTimestamp);
  w.pos += 8;
  writeTimestamp(w.buf, w.pos, maxTimestamp);
  w.pos += 8;
  w.int64(producerId);
  w.int16(producerEpoch);
  w.int32(baseSequence);
  w.int32(prepared.length);
  if (body === null) for (const p of prepared) writeRecord(w, p);
  else w.raw(body);
  const out = w.finish();
  out.writeUInt32BE(computeBatchCrc(out), CRC_OFFSET);
  return out;
}

function checkInt64(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < -(2n ** 63n) || v >= 2n ** 63n) throw new EncodeError(`${what} must be an int64 bigint`);
}
