// Produce v0-v2: what Kafka 3.9 does with the records of a partition before anything is stored,
// when they may be legacy message sets (magic 0/1). With inter.broker.protocol.version >= 3.0 the
// log's message format is always v2, so Kafka up-converts them to one v2 batch:
//
// - UnifiedLog.analyzeAndValidateRecords walks every shallow entry (ByteBufferLogInputStream
//   framing; per entry: v2 base offset, size against max.message.bytes, CRC, codec id);
// - LogValidator.validateMessagesAndAssignOffsets with toMagic 2:
//   - uncompressed legacy entries: convertAndAssignOffsetsNonCompressed (every entry must have the
//     first one's magic; each message is validated as its own batch, so it is record 0 of it);
//   - a compressed legacy wrapper: validateMessagesAndAssignOffsetsCompressed, which never works in
//     place for a legacy wrapper (its magic is not 2): the inner messages (AbstractLegacyRecordBatch's
//     DeepRecordsIterator) are validated, then rebuilt into a v2 batch with the wrapper's codec
//     (Kafka builds it with the topic's compression.type; kmock with the wrapper's codec, and
//     appendAsLeader then rebuilds it when the topic names another: the same records);
//   - v2 batches (Produce v0-v2 does not check the magic, ProduceRequest.validateRecords): exactly
//     one, validated in place as for Produce v3+ (PartitionLog.appendAsLeader).
// The v2 batch built here is what MemoryRecordsBuilder writes: base timestamp = first record's,
// max timestamp = the largest (from -1), no producer id, no headers, offsets 0..n-1; its CreateTime
// attribute and max timestamp are then set by appendAsLeader exactly as for a client's batch
// (LogAppendTime topics). Which fields survive: key, value, timestamp (magic 1; -1 for magic 0).
//
// Produce responses below v8 carry neither record errors nor error messages, so only error codes
// and offsets reach clients; the reasons are kept for kmock's log.
import { decompress } from '../../codec/records/compression.js';
import { ATTRIBUTES_OFFSET, COMPRESSION_CODEC_MASK, LOG_OVERHEAD, MESSAGE_OVERHEAD_V0, compressionName } from '../../codec/records/constants.js';
import { encodeBatch } from '../../codec/records/batch.js';
import { readLegacyRecord, type LegacyRecordView } from '../../codec/records/legacy.js';
import { analyzeBatch, nextEntry, processRecordErrors, reportsUnknownLogStart, type RecordError, type RecordFailure } from '../../codec/records/validate.js';
import type { LogConfig } from './log-config.js';
import { ErrorCode } from '../../codec/index.js';

const MIN_ENTRY_SIZE = MESSAGE_OVERHEAD_V0;

/** What to do with a partition's records. */
export type MessageSetPlan =
  /** No whole entry (empty records, or only a partial one): Kafka appends nothing and answers success. */
  | { kind: 'empty' }
  /** One v2 batch (plus trailing partial bytes, already cut): append it as Produce v3+ does. */
  | { kind: 'batch'; batch: Buffer }
  /** The up-converted v2 batch: append it as a client's (base offset 0, CreateTime, no producer). */
  | { kind: 'converted'; batch: Buffer }
  | PlanError;

export interface PlanError {
  kind: 'error';
  errorCode: number;
  reason: string;
  /**
   * True for the exceptions ReplicaManager.appendToLocalLog answers with UNKNOWN_LOG_APPEND_INFO
   * (log start offset -1: CorruptRecordException, RecordTooLargeException); false for the rest,
   * answered with the partition's log start offset.
   */
  unknownInfo: boolean;
  /** LogValidator.processRecordErrors (RecordValidationException). */
  recordErrors?: RecordError[];
}

function err(errorCode: number, reason: string, unknownInfo = false): PlanError {
  return { kind: 'error', errorCode, reason, unknownInfo };
}

interface Entry {
  bytes: Buffer;
  magic: number;
}

/**
 * Plans the append of a Produce v0-v2 partition's records (the whole `records` field), running
 * Kafka's checks in Kafka's order. `tp` is "topic-partition" for the reasons.
 */
export function planMessageSetAppend(records: Buffer, config: LogConfig, now: number, tp: string): MessageSetPlan {
  // ByteBufferLogInputStream: whole entries; a partial tail is dropped (UnifiedLog.trimInvalidBytes).
  // Through the Produce handler framing errors never get here (ReplicaManager.handleProduceAppend
  // frames every batch first and fails the whole request); direct callers get them per partition.
  const entries: Entry[] = [];
  let pos = 0;
  for (;;) {
    const e = nextEntry(records, pos);
    if (e.kind === 'none') break;
    if (e.kind === 'corrupt') return err(ErrorCode.CORRUPT_MESSAGE, e.message, true);
    const whole = pos === 0 && e.size === records.length;
    entries.push({ bytes: whole ? records : records.subarray(pos, pos + e.size), magic: e.magic });
    pos += e.size;
  }
  if (entries.length === 0) return { kind: 'empty' };
  // The common case of a single v2 batch: appendAsLeader runs the same checks itself.
  if (entries.length === 1 && entries[0].magic === 2) return { kind: 'batch', batch: entries[0].bytes };

  // UnifiedLog.analyzeAndValidateRecords, entry by entry.
  let sourceCodec = 0;
  for (const e of entries) {
    const a = analyzeEntry(e, config, tp);
    if (a.kind === 'error') return a;
    if (a.codec !== 0) sourceCodec = a.codec;
  }

  // LogValidator.validateMessagesAndAssignOffsets
  const first = entries[0];
  if (sourceCodec === 0) {
    if (first.magic === 2) {
      // More than one entry (a lone v2 batch returned above): assignOffsetsNonCompressed or
      // convertAndAssignOffsetsNonCompressed, whose getFirstBatchAndMaybeValidateNoMoreBatches allows
      // several batches only when the first is legacy.
      return err(ErrorCode.INVALID_RECORD, 'Compressed outer record has more than one batch');
    }
    return convertUncompressed(entries, config, now, tp);
  }
  if (entries.length > 1) return err(ErrorCode.INVALID_RECORD, 'Compressed outer record has more than one batch');
  return convertCompressed(first, config, now, tp);
}

type Analyzed = { kind: 'ok'; codec: number } | PlanError;

/** The per-batch part of analyzeAndValidateRecords. */
function analyzeEntry(e: Entry, config: LogConfig, tp: string): Analyzed {
  const b = e.bytes;
  const size = b.length;
  if (e.magic === 2) {
    const refused = analyzeBatch(b, config, tp);
    if (refused !== null) return err(ErrorCode[refused.error], refused.message, reportsUnknownLogStart(refused.error));
    return { kind: 'ok', codec: b.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK };
  }
  // A legacy message: the same checks, its own CRC.
  if (size > config.maxMessageBytes) {
    return err(
      ErrorCode.MESSAGE_TOO_LARGE,
      `The record batch size in the append to ${tp} is ${size} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`,
      true,
    );
  }
  const m = readLegacyRecord(b);
  if (!m.crcValid) return err(ErrorCode.CORRUPT_MESSAGE, `Record is corrupt (stored crc = ${m.storedCrc}) in topic partition ${tp}.`, true);
  // CompressionType.forId throws IllegalArgumentException for ids Kafka does not define.
  if (m.codec > 4) return err(ErrorCode.UNKNOWN_SERVER_ERROR, `Unknown compression type id: ${m.codec}`);
  return { kind: 'ok', codec: m.codec };
}

/** A record as MemoryRecordsBuilder.appendWithOffset receives it. */
interface OutRecord {
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
}

/** The record a legacy message is to LogValidator (with the offset it reports). */
interface Candidate {
  view: LegacyRecordView;
  offset: bigint;
  /** Record.timestamp(): -1 for magic 0; magic 1 inside a LogAppendTime wrapper reports the wrapper's. */
  timestamp: bigint;
}

/** convertAndAssignOffsetsNonCompressed: every message is a batch of one record. */
function convertUncompressed(entries: Entry[], config: LogConfig, now: number, tp: string): MessageSetPlan {
  // A v2 batch among them is read as one (it fails the magic check below when its turn comes).
  const views = entries.map((e) => (e.magic === 2 ? null : readLegacyRecord(e.bytes)));
  // AbstractRecords.estimateSizeInBytes reads every key and value before anything is validated.
  for (const v of views) if (v !== null && v.malformed !== null) return err(ErrorCode.UNKNOWN_SERVER_ERROR, `legacy message is malformed: ${v.malformed}`);
  const firstMagic = entries[0].magic;
  const out: OutRecord[] = [];
  for (let i = 0; i < entries.length; i++) {
    const v = views[i];
    // validateBatch
    if (v === null || v.magic !== firstMagic) {
      return err(ErrorCode.INVALID_RECORD, `Batch magic ${entries[i].magic} is not the same as the first batch's magic byte ${firstMagic} in topic partition ${tp}`);
    }
    const c: Candidate = { view: v, offset: v.offset, timestamp: v.magic === 0 ? -1n : v.timestamp };
    // The message is record 0 of its own batch: processRecordErrors fails on the first bad one.
    const e = validateRecord(c, v, 0, config, now, tp);
    if (e !== null && e !== 'corrupt') return recordErrorsFailure([e]);
    const appended = appendable(c);
    if (appended.kind === 'error') return appended;
    out.push(appended.record);
  }
  return build(out, 0, tp);
}

/** validateMessagesAndAssignOffsetsCompressed for one compressed legacy wrapper (never in place). */
function convertCompressed(e: Entry, config: LogConfig, now: number, tp: string): MessageSetPlan {
  const wrapper = readLegacyRecord(e.bytes);
  // AbstractLegacyRecordBatch.DeepRecordsIterator
  if (wrapper.codec === 4) return err(ErrorCode.INVALID_RECORD, `Invalid wrapper compressionType found in legacy deep record iterator ${wrapper.magic}`);
  if (wrapper.malformed !== null) return err(ErrorCode.UNKNOWN_SERVER_ERROR, `legacy wrapper is malformed: ${wrapper.malformed}`);
  if (wrapper.value === null) {
    return err(ErrorCode.INVALID_RECORD, `Found invalid compressed record set with null value (magic = ${wrapper.magic})`);
  }
  let inner: Buffer;
  try {
    inner = decompress(wrapper.codec, wrapper.value, { magic: wrapper.magic });
  } catch (x) {
    // An IOException from the codec's stream becomes a KafkaException: an unexpected error.
    return err(ErrorCode.UNKNOWN_SERVER_ERROR, `Failed to decompress the legacy message set: ${(x as Error).message}`);
  }
  // DataLogInputStream: inner entries until the stream ends; one cut short ends it quietly.
  const innerEntries: Buffer[] = [];
  let pos = 0;
  while (inner.length - pos >= LOG_OVERHEAD) {
    const size = inner.readInt32BE(pos + 8);
    if (size < MIN_ENTRY_SIZE) {
      return err(ErrorCode.CORRUPT_MESSAGE, `Record size is less than the minimum record overhead (${MIN_ENTRY_SIZE})`, true);
    }
    if (inner.length - pos - LOG_OVERHEAD < size) break;
    innerEntries.push(inner.subarray(pos, pos + LOG_OVERHEAD + size));
    pos += LOG_OVERHEAD + size;
  }
  if (innerEntries.length === 0) return err(ErrorCode.INVALID_RECORD, 'Found invalid compressed record set with no inner records');
  const views = innerEntries.map((b) => readLegacyRecord(b));
  let base = -1n;
  if (wrapper.magic === 1) {
    if (wrapper.offset === 0n) base = 0n; // some librdkafka versions leave the wrapper's offset 0
    else {
      const lastInner = views[views.length - 1].offset;
      if (wrapper.offset < lastInner) {
        return err(
          ErrorCode.INVALID_RECORD,
          `Found invalid wrapper offset in compressed v1 message set, wrapper offset '${wrapper.offset}' is less than the last inner message offset '${lastInner}' and it is not zero.`,
        );
      }
      base = wrapper.offset - lastInner;
    }
  }

  const recordErrors: RecordFailure[] = [];
  const validated: Candidate[] = [];
  for (let i = 0; i < views.length; i++) {
    const v = views[i];
    if (v.codec !== 0) return err(ErrorCode.INVALID_RECORD, 'Inner messages must not be compressed');
    const timestamp = v.magic === 0 ? -1n : wrapper.timestampType === 1 ? wrapper.timestamp : v.timestamp;
    const c: Candidate = { view: v, offset: wrapper.magic === 1 ? base + v.offset : v.offset, timestamp };
    const e = validateRecord(c, wrapper, i, config, now, tp);
    if (e === 'corrupt') return err(ErrorCode.CORRUPT_MESSAGE, `Record is corrupt (stored crc = ${v.storedCrc}) in topic partition ${tp}`, true);
    if (e !== null) recordErrors.push(e);
    else validated.push(c);
  }
  if (recordErrors.length > 0) return recordErrorsFailure(recordErrors);
  // buildRecordsAndAssignOffsets: estimateSizeInBytes reads the keys and values, then the builder appends.
  for (const c of validated) if (c.view.malformed !== null) return err(ErrorCode.UNKNOWN_SERVER_ERROR, `legacy message is malformed: ${c.view.malformed}`);
  const out: OutRecord[] = [];
  for (const c of validated) {
    const appended = appendable(c);
    if (appended.kind === 'error') return appended;
    out.push(appended.record);
  }
  return build(out, wrapper.codec, tp);
}

/**
 * LogValidator.validateRecord for a legacy record of `batch` (the message itself, or the wrapper):
 * magic match, the inner CRC (compressed sets only; 'corrupt' is thrown, not collected), then
 * validateKey and validateTimestamp. Null when the record is fine.
 */
function validateRecord(
  c: Candidate,
  batch: LegacyRecordView,
  index: number,
  config: LogConfig,
  now: number,
  tp: string,
): RecordFailure | 'corrupt' | null {
  const v = c.view;
  if (v.magic !== batch.magic) {
    return { error: 'INVALID_RECORD', batchIndex: index, message: `Record ${describe(c)}'s magic does not match outer magic ${batch.magic} in topic partition ${tp}` };
  }
  if (batch !== v && !v.crcValid) return 'corrupt';
  // Record.hasKey; a malformed message fails later, where Kafka first reads its key and value.
  if (config.compact && v.malformed === null && v.key === null) {
    return { error: 'INVALID_RECORD', batchIndex: index, message: `Compacted topic cannot accept message without key in topic partition ${tp}` };
  }
  if (config.timestampType === 'CreateTime' && c.timestamp !== -1n) {
    const diff = BigInt(now) - c.timestamp;
    if (diff > config.timestampBeforeMaxMs || -diff > config.timestampAfterMaxMs) {
      const lo = BigInt.asIntN(64, BigInt(now) - config.timestampBeforeMaxMs);
      const hi = BigInt.asIntN(64, BigInt(now) + config.timestampAfterMaxMs);
      return {
        error: 'INVALID_TIMESTAMP',
        batchIndex: index,
        message: `Timestamp ${c.timestamp} of message with offset ${c.offset} is out of range. The timestamp should be within [${lo}, ${hi}]`,
      };
    }
  } else if (batch.magic > 0 && batch.timestampType === 1) {
    return {
      error: 'INVALID_TIMESTAMP',
      batchIndex: index,
      message: `Invalid timestamp type in message ${describe(c)}. Producer should not set timestamp type to LogAppendTime.`,
    };
  }
  return null;
}

/** LegacyRecordBatch.toString, for the reasons. */
function describe(c: Candidate): string {
  const v = c.view;
  const codec = compressionName(v.codec) ?? String(v.codec);
  const ts = v.magic > 0 ? `, ${v.timestampType === 1 ? 'LogAppendTime' : 'CreateTime'}=${c.timestamp}` : '';
  return `LegacyRecordBatch(offset=${c.offset}, Record(magic=${v.magic}, attributes=${v.attributes}, compression=${codec}, crc=${v.storedCrc}${ts}, key=${v.key?.length ?? 0} bytes, value=${v.value?.length ?? 0} bytes))`;
}

/** MemoryRecordsBuilder.appendWithOffset's own check on the record it is given. */
function appendable(c: Candidate): { kind: 'ok'; record: OutRecord } | PlanError {
  if (c.timestamp < 0n && c.timestamp !== -1n) return err(ErrorCode.UNKNOWN_SERVER_ERROR, `Invalid negative timestamp ${c.timestamp}`);
  return { kind: 'ok', record: { timestamp: c.timestamp, key: c.view.key, value: c.view.value } };
}

/** LogValidator.processRecordErrors (codec/records/validate.ts), as a plan. */
function recordErrorsFailure(list: readonly RecordFailure[]): PlanError {
  const r = processRecordErrors(list);
  return { ...err(ErrorCode[r.error], r.message), recordErrors: r.recordErrors ?? [] };
}

/**
 * MemoryRecordsBuilder (magic 2, base offset 0, no producer): base timestamp from the first record,
 * max timestamp the largest from -1, offset deltas 0..n-1, no headers, `codec` compression.
 */
function build(records: OutRecord[], codec: number, tp: string): MessageSetPlan {
  const base = records[0].timestamp;
  let max = -1n;
  for (const r of records) if (r.timestamp > max) max = r.timestamp;
  const safe = (t: bigint) => t >= BigInt(Number.MIN_SAFE_INTEGER) && t <= BigInt(Number.MAX_SAFE_INTEGER);
  if (!records.every((r) => safe(r.timestamp - base)) || !safe(base) || !safe(max)) {
    return err(ErrorCode.UNKNOWN_SERVER_ERROR, `timestamps in the append to ${tp} are outside what kmock can store exactly`);
  }
  const batch = encodeBatch({
    baseOffset: 0n,
    compression: compressionName(codec),
    timestampType: 0,
    baseTimestamp: Number(base),
    maxTimestamp: Number(max),
    records: records.map((r, i) => ({ key: r.key, value: r.value, offsetDelta: i, timestampDelta: Number(r.timestamp - base) })),
  });
  return { kind: 'converted', batch };
}
