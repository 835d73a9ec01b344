// Record-batch validation as Kafka 3.9's broker does it before an append, in Kafka's order and
// with Kafka's messages. The broker calls this module; it answers by Kafka error name and the
// broker turns that into its answer (ErrorCode, which log start offset to report).
//
// - nextEntry / scanEntries: the framing of a Produce records field as ByteBufferLogInputStream
//   reads it (KafkaApis/ReplicaManager look at every batch before anything else).
// - validateClientBatch: one v2 batch from a client (AppendOrigin.CLIENT), exactly one batch's
//   bytes: UnifiedLog.analyzeAndValidateRecords (base offset, size, CRC, codec), then
//   LogValidator.validateBatch (offset range, count, control and producer fields), then
//   LogValidator's record loop (every record's structure, validateKey, validateTimestamp,
//   processRecordErrors), reading a compressed batch's records decompressed as Kafka does.
//   The record loop has a fast path (record-scan.ts) for the common uncompressed batch whose
//   records cannot fail validateKey/validateTimestamp; the full path is record-walk.ts.
// Nothing here changes the batch: assigning offsets and timestamps is the log's job.
import { ATTRIBUTES_OFFSET, BASE_SEQUENCE_OFFSET, BASE_TIMESTAMP_OFFSET, COMPRESSION_CODEC_MASK, CONTROL_FLAG_MASK, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, LOG_OVERHEAD, MAGIC_OFFSET, MAX_TIMESTAMP_OFFSET, MESSAGE_OVERHEAD_V0, PRODUCER_ID_OFFSET, RECORDS_COUNT_OFFSET, RECORD_BATCH_OVERHEAD, TIMESTAMP_TYPE_MASK } from './constants.js';
import { computeBatchCrc } from './header.js';
import { scanUncompressed } from './record-scan.js';
import { readLongNumber, RecordStructureError, recordsCursor, walkRecords, type Cursor } from './record-walk.js';

/** Long.MAX_VALUE: the message.timestamp.*.max.ms value that means "no bound" (their default). */
export const NO_TIMESTAMP_BOUND = 9223372036854775807n;

/** The topic settings LogValidator applies (the broker's LogConfig has these and more). */
export interface BatchValidationConfig {
  /** message.timestamp.type */
  timestampType: 'CreateTime' | 'LogAppendTime';
  /** max.message.bytes */
  maxMessageBytes: number;
  /** cleanup.policy contains "compact": every record needs a key. */
  compact: boolean;
  /** message.timestamp.before.max.ms (falls back to the deprecated difference.max.ms, as Kafka does). */
  timestampBeforeMaxMs: bigint;
  /** message.timestamp.after.max.ms */
  timestampAfterMaxMs: bigint;
}

/** The Kafka errors (by their Errors names) a batch is refused with. */
export type BatchErrorName = 'CORRUPT_MESSAGE' | 'MESSAGE_TOO_LARGE' | 'INVALID_TIMESTAMP' | 'INVALID_RECORD' | 'UNKNOWN_SERVER_ERROR';

/** ProduceResponse.RecordError. */
export interface RecordError {
  batchIndex: number;
  message: string | null;
}

/** A refused batch: Kafka's error and its message (the exception's). */
export interface BatchRejection {
  ok: false;
  /**
   * UNKNOWN_SERVER_ERROR where Kafka lets a non-API exception escape. CORRUPT_MESSAGE and
   * MESSAGE_TOO_LARGE are the exceptions ReplicaManager answers with UNKNOWN_LOG_APPEND_INFO.
   */
  error: BatchErrorName;
  message: string;
  /** LogValidator.processRecordErrors' per-record errors (a RecordValidationException), else null. */
  recordErrors: RecordError[] | null;
}

/** A batch that may be appended: what the log needs of its header and records. */
export interface AcceptedBatch {
  ok: true;
  attributes: number;
  codec: number;
  lastOffsetDelta: number;
  hasProducerId: boolean;
  baseSequence: number;
  /** Largest record timestamp (Kafka's maxBatchTimestamp, starting from -1). */
  maxTimestamp: number;
  /** offsetDelta of the first record whose timestamp is that maximum, if any. */
  offsetDeltaOfMax: number | null;
  firstOffsetDelta: number | null;
  /**
   * A compressed batch's offset deltas are 0..n-1 (LogValidator's expectedInnerOffset check;
   * Kafka looks at them in compressed batches only, so this is true for an uncompressed one).
   */
  offsetsInOrder: boolean;
}

export type BatchVerdict = AcceptedBatch | BatchRejection;

// ---- framing (ByteBufferLogInputStream.nextBatch) ---------------------------------------------------

/** The entry at a position of a records field: its size and magic, nothing whole, or corruption. */
export type LogEntry = { kind: 'none' } | { kind: 'corrupt'; message: string } | { kind: 'entry'; size: number; magic: number };

const NONE: LogEntry = { kind: 'none' };
/** Bytes up to and including the magic byte. */
const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;

/**
 * ByteBufferLogInputStream.nextBatch at `pos`. Unlike iterate.ts's entrySizeAt (the strict reader
 * of whole blobs), Kafka checks the magic as soon as its byte is there, even in an entry cut short,
 * and reports a partial entry as nothing (UnifiedLog.trimInvalidBytes drops it).
 */
export function nextEntry(records: Buffer, pos: number): LogEntry {
  const remaining = records.length - pos;
  if (remaining < LOG_OVERHEAD) return NONE;
  const recordSize = records.readInt32BE(pos + 8);
  // LegacyRecord.RECORD_OVERHEAD_V0: the smallest entry of any format
  if (recordSize < MESSAGE_OVERHEAD_V0) {
    return { kind: 'corrupt', message: `Record size ${recordSize} is less than the minimum record overhead (${MESSAGE_OVERHEAD_V0})` };
  }
  if (remaining < HEADER_SIZE_UP_TO_MAGIC) return NONE;
  const magic = records.readInt8(pos + MAGIC_OFFSET);
  if (magic < 0 || magic > 2) return { kind: 'corrupt', message: `Invalid magic found in record: ${magic}` };
  const size = recordSize + LOG_OVERHEAD;
  if (remaining < size) return NONE;
  return { kind: 'entry', size, magic };
}

/**
 * ReplicaManager.handleProduceAppend's `records.batches.filter(b => b.hasProducerId && b.isTransactional)`
 * over a partition's records: null records throw (NullPointerException), and so does the framing of
 * a later entry (Produce v0-v2, whose records Kafka checks nothing of before) or a v2 batch too short
 * to hold a producer id. Null when every entry frames. `message` is null where Kafka's answer has none.
 */
export function scanEntries(records: Buffer | null): { error: 'CORRUPT_MESSAGE' | 'UNKNOWN_SERVER_ERROR'; message: string | null } | null {
  if (records === null) return { error: 'UNKNOWN_SERVER_ERROR', message: null };
  let pos = 0;
  for (;;) {
    const e = nextEntry(records, pos);
    if (e.kind === 'none') return null;
    if (e.kind === 'corrupt') return { error: 'CORRUPT_MESSAGE', message: e.message };
    if (e.magic === 2 && e.size < PRODUCER_ID_OFFSET + 8) return { error: 'UNKNOWN_SERVER_ERROR', message: null };
    pos += e.size;
  }
}

// ---- one client batch ------------------------------------------------------------------------------

/**
 * ReplicaManager.appendToLocalLog answers CorruptRecordException and RecordTooLargeException with
 * UNKNOWN_LOG_APPEND_INFO (log start offset -1), every other failure with the partition's.
 */
export function reportsUnknownLogStart(error: BatchErrorName): boolean {
  return error === 'CORRUPT_MESSAGE' || error === 'MESSAGE_TOO_LARGE';
}

function reject(error: BatchErrorName, message: string): BatchRejection {
  return { ok: false, error, message, recordErrors: null };
}

/**
 * UnifiedLog.analyzeAndValidateRecords for one v2 batch (`batch` holds exactly that batch): base
 * offset, size, CRC and codec id. Null when it passes. Produce v0-v2's sets get the same checks
 * for their v2 entries (log/up-convert.ts).
 */
export function analyzeBatch(batch: Buffer, config: Pick<BatchValidationConfig, 'maxMessageBytes'>, tp: string): BatchRejection | null {
  const size = batch.length;
  if (batch.readInt32BE(0) !== 0 || batch.readInt32BE(4) !== 0) {
    return reject('INVALID_RECORD', `The baseOffset of the record batch in the append to ${tp} should be 0, but it is ${batch.readBigInt64BE(0)}`);
  }
  if (size < LAST_OFFSET_DELTA_OFFSET + 4) {
    // Kafka reads lastOffsetDelta past the end of such a batch: an unexpected exception.
    return reject('UNKNOWN_SERVER_ERROR', `record batch of ${size} bytes is too short to hold its header`);
  }
  if (size > config.maxMessageBytes) {
    return reject(
      'MESSAGE_TOO_LARGE',
      `The record batch size in the append to ${tp} is ${size} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`,
    );
  }
  if (size < RECORD_BATCH_OVERHEAD || batch.readUInt32BE(CRC_OFFSET) !== computeBatchCrc(batch)) {
    return reject('CORRUPT_MESSAGE', `Record is corrupt (stored crc = ${batch.readUInt32BE(CRC_OFFSET)}) in topic partition ${tp}.`);
  }
  // CompressionType.forId throws IllegalArgumentException for ids Kafka does not define.
  const codec = batch.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK;
  if (codec > 4) return reject('UNKNOWN_SERVER_ERROR', `Unknown compression type id: ${codec}`);
  return null;
}

/**
 * Validates one v2 batch from a client (`batch` holds exactly that batch) for the partition named
 * `tp` ("topic-partition", for the messages), in Kafka's order: analyzeBatch, then LogValidator.
 * `fastPath` false always takes the full record walk: the reference the fast path is checked
 * against (test/codec/records/validate-fast-path.property.test.ts).
 */
export function validateClientBatch(batch: Buffer, config: BatchValidationConfig, now: number, tp: string, fastPath = true): BatchVerdict {
  const analyzed = analyzeBatch(batch, config, tp);
  if (analyzed !== null) return analyzed;
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  const codec = attributes & COMPRESSION_CODEC_MASK;

  // LogValidator.validateBatch (origin CLIENT)
  const lastOffsetDelta = batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
  const count = batch.readInt32BE(RECORDS_COUNT_OFFSET);
  const countFromOffsets = lastOffsetDelta + 1;
  if (countFromOffsets <= 0) return reject('INVALID_RECORD', `Batch has an invalid offset range: [0, ${lastOffsetDelta}] in topic partition ${tp}`);
  if (count <= 0) return reject('INVALID_RECORD', `Invalid reported count for record batch: ${count} in topic partition ${tp}`);
  if (countFromOffsets !== count) {
    return reject('INVALID_RECORD', `Inconsistent batch offset range [0, ${lastOffsetDelta}] and count of records ${count} in topic partition ${tp}`);
  }
  if ((attributes & CONTROL_FLAG_MASK) !== 0) return reject('INVALID_RECORD', `Clients are not allowed to write control records in topic partition ${tp}`);
  const hasProducerId = batch.readInt32BE(PRODUCER_ID_OFFSET) >= 0;
  const baseSequence = batch.readInt32BE(BASE_SEQUENCE_OFFSET);
  if (hasProducerId && baseSequence < 0) {
    return reject(
      'INVALID_RECORD',
      `Invalid sequence number ${baseSequence} in record batch with producerId ${batch.readBigInt64BE(PRODUCER_ID_OFFSET)} in topic partition ${tp}`,
    );
  }

  // LogValidator's record loop
  const accepted: AcceptedBatch = {
    ok: true,
    attributes,
    codec,
    lastOffsetDelta,
    hasProducerId,
    baseSequence,
    maxTimestamp: -1,
    offsetDeltaOfMax: null,
    firstOffsetDelta: null,
    offsetsInOrder: true,
  };
  const batchLogAppendTime = (attributes & TIMESTAMP_TYPE_MASK) !== 0;
  const checkTimestamps = config.timestampBeforeMaxMs !== NO_TIMESTAMP_BOUND || config.timestampAfterMaxMs !== NO_TIMESTAMP_BOUND;
  // No record of an uncompressed batch can fail validateKey/validateTimestamp under these
  // settings: the structure-only scan gives the verdict when it finds nothing wrong (else the
  // full walk runs and reports what it finds). Kafka never checks an uncompressed batch's offset
  // deltas, so offsetsInOrder stays true.
  if (fastPath && codec === 0 && !batchLogAppendTime && !config.compact && !(config.timestampType === 'CreateTime' && checkTimestamps)) {
    if (scanUncompressed(batch, count, readLongNumber(batch, BASE_TIMESTAMP_OFFSET), accepted)) return accepted;
  }
  return walkAndValidateRecords(batch, count, batchLogAppendTime, checkTimestamps, config, now, tp, accepted);
}

/** One record's validateKey/validateTimestamp failure, before processRecordErrors. */
export interface RecordFailure {
  error: 'INVALID_RECORD' | 'INVALID_TIMESTAMP';
  batchIndex: number;
  message: string;
}

/**
 * LogValidator's record loop on the full walk: structure (INVALID_RECORD; a structure error wins
 * over any record error found before it), then per record validateKey on compacted topics
 * (INVALID_RECORD) and validateTimestamp (INVALID_TIMESTAMP), collected; and the batch's true max
 * timestamp over the records that passed, written into `out`.
 */
function walkAndValidateRecords(
  batch: Buffer,
  count: number,
  batchLogAppendTime: boolean,
  checkTimestamps: boolean,
  config: BatchValidationConfig,
  now: number,
  tp: string,
  out: AcceptedBatch,
): BatchVerdict {
  const codec = out.codec;
  const createTime = config.timestampType === 'CreateTime';
  let cur: Cursor;
  try {
    cur = recordsCursor(batch, codec);
  } catch (e) {
    // Kafka: KafkaException("Failed to decompress record stream") -> UNKNOWN_SERVER_ERROR
    return reject('UNKNOWN_SERVER_ERROR', `Failed to decompress record stream: ${(e as Error).message}`);
  }
  const headerMax = readLongNumber(batch, MAX_TIMESTAMP_OFFSET);
  let errors: RecordFailure[] | null = null;
  try {
    walkRecords(
      cur,
      count,
      codec !== 0,
      readLongNumber(batch, BASE_TIMESTAMP_OFFSET),
      batchLogAppendTime ? headerMax : null,
      (offsetDelta, timestamp, keySize, valueSize, index) => {
        if (index === 0) out.firstOffsetDelta = offsetDelta;
        if (offsetDelta !== index && codec !== 0) out.offsetsInOrder = false;
        // validateKey, then validateTimestamp (one error per record, key first)
        let err: RecordFailure | null = null;
        if (config.compact && keySize < 0) {
          err = { error: 'INVALID_RECORD', batchIndex: index, message: `Compacted topic cannot accept message without key in topic partition ${tp}` };
        } else if (createTime && timestamp !== -1) {
          if (checkTimestamps) {
            const diff = BigInt(now) - BigInt(timestamp);
            if (diff > config.timestampBeforeMaxMs || -diff > config.timestampAfterMaxMs) {
              const lo = BigInt.asIntN(64, BigInt(now) - config.timestampBeforeMaxMs);
              const hi = BigInt.asIntN(64, BigInt(now) + config.timestampAfterMaxMs);
              err = {
                error: 'INVALID_TIMESTAMP',
                batchIndex: index,
                message: `Timestamp ${timestamp} of message with offset ${offsetDelta} is out of range. The timestamp should be within [${lo}, ${hi}]`,
              };
            }
          }
        } else if (batchLogAppendTime) {
          err = {
            error: 'INVALID_TIMESTAMP',
            batchIndex: index,
            message:
              `Invalid timestamp type in message DefaultRecord(offset=${offsetDelta}, timestamp=${timestamp}, ` +
              `key=${Math.max(0, keySize)} bytes, value=${Math.max(0, valueSize)} bytes). Producer should not set timestamp type to LogAppendTime.`,
          };
        }
        if (err !== null) (errors ??= []).push(err);
        else if (timestamp > out.maxTimestamp) {
          out.maxTimestamp = timestamp;
          out.offsetDeltaOfMax = offsetDelta;
        } else if (timestamp === out.maxTimestamp && out.offsetDeltaOfMax === null) {
          out.offsetDeltaOfMax = offsetDelta;
        }
        return false;
      },
    );
  } catch (e) {
    if (!(e instanceof RecordStructureError)) throw e;
    return reject(e.error, e.message);
  }
  return errors === null ? out : processRecordErrors(errors);
}

/**
 * LogValidator.processRecordErrors: a RecordValidationException carrying every record's error,
 * INVALID_TIMESTAMP if any is a timestamp error, else INVALID_RECORD (its message lists the first
 * three).
 */
export function processRecordErrors(list: readonly RecordFailure[]): BatchRejection {
  const recordErrors = list.map((e) => ({ batchIndex: e.batchIndex, message: e.message }));
  if (list.some((e) => e.error === 'INVALID_TIMESTAMP')) {
    return { ok: false, error: 'INVALID_TIMESTAMP', message: 'One or more records have been rejected due to invalid timestamp', recordErrors };
  }
  const shown = list
    .slice(0, 3)
    .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`)
    .join(', ');
  return {
    ok: false,
    error: 'INVALID_RECORD',
    message: `One or more records have been rejected due to ${list.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
    recordErrors,
  };
}
