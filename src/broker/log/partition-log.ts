// One partition's log, in memory, behaving as Kafka 3.9's UnifiedLog/LocalLog/LogSegment and
// LogValidator do for a leader with one replica.
//
// Stored entries are the producers' batches as received: the Buffer views of the Produce request
// frame, patched in place (base offset, partition leader epoch, and the max timestamp/type when
// Kafka would rewrite it, e.g. LogAppendTime: header.ts recomputes the CRC then). Fetch hands
// those same Buffer objects to the response writer, which sends them without copying. The one
// exception is Produce v0-v2's legacy message sets: Kafka 3.9 rebuilds them as a v2 batch, and
// so does kmock (up-convert.ts), storing that new buffer instead.
//
// Beside the buffers the log keeps, per batch, its base and last offsets, max timestamp and byte
// position in parallel number arrays, so reads find the batch holding an offset by binary search.
// Offsets are JavaScript numbers (exact up to 2^53); they become int64 bigints at the wire.
import { ErrorCode } from '../errors.js';
import { decompress } from '../../codec/records/compression.js';
import { zstdReady } from '../../codec/records/zstd.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from '../../codec/records/constants.js';
import { computeBatchCrc, setBaseOffset, setMaxTimestamp, setPartitionLeaderEpoch } from '../../codec/records/header.js';
import { firstOffsetOf, incrementSequence, ProducerStateManager } from './producer-state.js';
import { planMessageSetAppend } from './up-convert.js';
import { recompressBatch, targetCodecOf } from './recompress.js';

/** The partition's leader epoch. kmock's single broker has led every partition since epoch 0. */
export const LEADER_EPOCH = 0;
/** LogConfig.DEFAULT_MAX_MESSAGE_BYTES (1 MiB + LOG_OVERHEAD) = broker message.max.bytes default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1048588;
/** Kafka's Long.MAX_VALUE timestamp bounds mean "no bound". */
const LONG_MAX = 9223372036854775807n;

// ---- topic-level settings the log applies (LogConfig) --------------------------------------------

export interface LogConfig {
  /** message.timestamp.type */
  timestampType: 'CreateTime' | 'LogAppendTime';
  /** max.message.bytes */
  maxMessageBytes: number;
  /** cleanup.policy contains "compact": every record needs a key. */
  compact: boolean;
  /** cleanup.policy contains "delete": DeleteRecords is allowed. */
  delete: boolean;
  /** message.timestamp.before.max.ms (falls back to the deprecated difference.max.ms, as Kafka does). */
  timestampBeforeMaxMs: bigint;
  /** message.timestamp.after.max.ms */
  timestampAfterMaxMs: bigint;
  /** min.insync.replicas */
  minInsyncReplicas: number;
  /** compression.type as the codec id batches are stored with; null for `producer` (kept as sent). */
  compressionCodec: number | null;
}

export const DEFAULT_LOG_CONFIG: LogConfig = {
  timestampType: 'CreateTime',
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  compact: false,
  delete: true,
  timestampBeforeMaxMs: LONG_MAX,
  timestampAfterMaxMs: LONG_MAX,
  minInsyncReplicas: 1,
  compressionCodec: null,
};

const DEFAULT_LOG_APPEND_TIME_CONFIG: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' };

/**
 * A topic's config overrides (Topic.configs): a Map that counts its changes, so that
 * resolveLogConfig can keep what it derived from it until the next set/delete/clear.
 */
export class TopicConfigMap extends Map<string, string> {
  /** Bumped by every change. */
  version = 0;

  override set(key: string, value: string): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.version++;
    return super.delete(key);
  }

  override clear(): void {
    this.version++;
    super.clear();
  }
}

/** resolveLogConfig's last answer per TopicConfigMap, valid while version and broker type match. */
const resolved = new WeakMap<TopicConfigMap, { version: number; brokerType: string; config: LogConfig }>();

/** The effective log config: topic overrides over the broker's defaults. */
export function resolveLogConfig(
  topicConfigs: ReadonlyMap<string, string>,
  broker: { logMessageTimestampType: 'CreateTime' | 'LogAppendTime' },
): LogConfig {
  if (topicConfigs.size === 0) {
    return broker.logMessageTimestampType === 'CreateTime' ? DEFAULT_LOG_CONFIG : DEFAULT_LOG_APPEND_TIME_CONFIG;
  }
  if (!(topicConfigs instanceof TopicConfigMap)) return deriveLogConfig(topicConfigs, broker);
  const brokerType = broker.logMessageTimestampType;
  const hit = resolved.get(topicConfigs);
  if (hit !== undefined && hit.version === topicConfigs.version && hit.brokerType === brokerType) return hit.config;
  const config = deriveLogConfig(topicConfigs, broker);
  resolved.set(topicConfigs, { version: topicConfigs.version, brokerType, config });
  return config;
}

function deriveLogConfig(topicConfigs: ReadonlyMap<string, string>, broker: { logMessageTimestampType: 'CreateTime' | 'LogAppendTime' }): LogConfig {
  const type = topicConfigs.get('message.timestamp.type');
  const policy = (topicConfigs.get('cleanup.policy') ?? 'delete').split(',').map((s) => s.trim().toLowerCase());
  const difference = longConfig(topicConfigs, 'message.timestamp.difference.max.ms');
  const before = longConfig(topicConfigs, 'message.timestamp.before.max.ms');
  return {
    timestampType: type === 'LogAppendTime' || type === 'CreateTime' ? type : broker.logMessageTimestampType,
    maxMessageBytes: intConfig(topicConfigs, 'max.message.bytes', DEFAULT_MAX_MESSAGE_BYTES),
    compact: policy.includes('compact'),
    delete: policy.includes('delete'),
    timestampBeforeMaxMs: before !== LONG_MAX ? before : difference,
    timestampAfterMaxMs: longConfig(topicConfigs, 'message.timestamp.after.max.ms'),
    minInsyncReplicas: intConfig(topicConfigs, 'min.insync.replicas', 1),
    compressionCodec: targetCodecOf(topicConfigs.get('compression.type')),
  };
}

function intConfig(c: ReadonlyMap<string, string>, key: string, dflt: number): number {
  const v = c.get(key);
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isInteger(n) ? n : dflt;
}

function longConfig(c: ReadonlyMap<string, string>, key: string): bigint {
  const v = c.get(key);
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return LONG_MAX;
  return BigInt(v.trim());
}

// ---- results -------------------------------------------------------------------------------------

/** ProduceResponse.RecordError. */
export interface RecordError {
  batchIndex: number;
  message: string | null;
}

/** What Kafka's LogAppendResult turns into in a ProduceResponse partition. */
export interface AppendResult {
  errorCode: number;
  /** First offset of the batch (the original one for a duplicate); -1 on errors. */
  baseOffset: number;
  /** The append time under LogAppendTime; a duplicate's stored timestamp; else -1. */
  logAppendTime: number;
  /** -1 where Kafka answers with LogAppendInfo.UNKNOWN_LOG_APPEND_INFO. */
  logStartOffset: number;
  recordErrors: RecordError[];
  /** Only set where Kafka sets it (record-level validation failures). */
  errorMessage: string | null;
  /** Kafka's log message for the failure (not sent to clients unless errorMessage is set). */
  reason?: string;
  /** True when the batch was stored; false for errors and for duplicates. */
  appended: boolean;
}

export interface ReadResult {
  errorCode: number;
  /** The stored Buffers (the same objects); the last may be a view cut at the size limit. */
  records: Buffer[];
  bytes: number;
  /** LogSegment.read's firstEntryIncomplete: the first batch did not fit in the limit. */
  firstEntryIncomplete: boolean;
  /** Byte position the read started at (Kafka's LogOffsetMetadata.relativePositionInSegment). */
  startPosition: number;
}

export interface TimestampAndOffset {
  timestamp: number;
  offset: number;
  /** Leader epoch of the batch holding the offset, or -1 when unknown. */
  leaderEpoch: number;
}

const NO_RECORDS: Buffer[] = [];

// ---- the log ---------------------------------------------------------------------------------------

export class PartitionLog {
  /** First offset still readable (DeleteRecords moves it). Read-only outside this class. */
  logStartOffset = 0;
  /** Next offset to assign; with one replica it is also the high watermark and the LSO. Read-only outside. */
  logEndOffset = 0;
  /** Bytes ever appended: the position the next batch would get in Kafka's (single) segment. */
  endPosition = 0;
  /** When the log was created (an empty segment's mtime for ListOffsets v0). */
  readonly createdAt: number;
  /** Time of the last append (the active segment's mtime). */
  lastModified: number;
  readonly producers: ProducerStateManager;
  /** "topic-partition", as Kafka's messages name it. */
  private readonly tp: string;

  // Parallel arrays, one slot per stored batch; slots below `head` were deleted.
  private batches: Buffer[] = [];
  private baseOffsets: number[] = [];
  private lastOffsets: number[] = [];
  private maxTimestamps: number[] = [];
  private positions: number[] = [];
  private head = 0;

  /** The segment's maxTimestampSoFar: the first batch with the largest timestamp. */
  private maxTimestampSoFar = -1;
  private offsetOfMaxTimestamp: number | null = null;
  private hasMaxTimestamp = false;
  /** When no batch had a timestamp above -1: the first batch with max timestamp -1 (Kafka's fallback). */
  private noTimestampCandidate: { offset: number | null } | null = null;

  constructor(
    readonly topic: string,
    readonly index: number,
    now = Date.now(),
  ) {
    this.createdAt = now;
    this.lastModified = now;
    this.tp = `${topic}-${index}`;
    this.producers = new ProducerStateManager(this.tp);
  }

  get highWatermark(): number {
    return this.logEndOffset;
  }

  /** No transactions: the last stable offset is the high watermark. */
  get lastStableOffset(): number {
    return this.logEndOffset;
  }

  /** Number of batches held. */
  get batchCount(): number {
    return this.batches.length - this.head;
  }

  /** The stored batch Buffers, oldest first (the same objects Fetch sends). */
  storedBatches(): Buffer[] {
    return this.batches.slice(this.head);
  }

  // ---- append (UnifiedLog.append as leader, LogValidator, ProducerStateManager) ------------------

  /**
   * Validates one v2 batch (exactly one batch's bytes, as the Produce request carried it), assigns
   * its offsets and stores it. Checks run in Kafka's order: UnifiedLog.analyzeAndValidateRecords
   * (base offset, size, CRC), LogValidator (header consistency, every record, timestamps and keys),
   * then the producer state (duplicates, epoch, sequence).
   */
  appendAsLeader(batch: Buffer, config: LogConfig = DEFAULT_LOG_CONFIG, now = Date.now()): AppendResult {
    const tp = this.tp;
    let size = batch.length;
    // analyzeAndValidateRecords
    if (batch.readInt32BE(0) !== 0 || batch.readInt32BE(4) !== 0) {
      return this.failure(ErrorCode.INVALID_RECORD, `The baseOffset of the record batch in the append to ${tp} should be 0, but it is ${batch.readBigInt64BE(0)}`);
    }
    if (size < LAST_OFFSET_DELTA_OFFSET + 4) {
      // Kafka reads lastOffsetDelta past the end of such a batch: an unexpected exception.
      return this.failure(ErrorCode.UNKNOWN_SERVER_ERROR, `record batch of ${size} bytes is too short to hold its header`);
    }
    if (size > config.maxMessageBytes) {
      return unknownFailure(
        ErrorCode.MESSAGE_TOO_LARGE,
        `The record batch size in the append to ${tp} is ${size} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`,
      );
    }
    if (size < RECORD_BATCH_OVERHEAD || batch.readUInt32BE(CRC_OFFSET) !== computeBatchCrc(batch)) {
      return unknownFailure(
        ErrorCode.CORRUPT_MESSAGE,
        `Record is corrupt (stored crc = ${batch.readUInt32BE(CRC_OFFSET)}) in topic partition ${tp}.`,
      );
    }
    let attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
    const codec = attributes & COMPRESSION_CODEC_MASK;
    if (codec > 4) return this.failure(ErrorCode.UNKNOWN_SERVER_ERROR, `Unknown compression type id: ${codec}`);

    // LogValidator.validateBatch (origin CLIENT)
    const lastOffsetDelta = batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
    const count = batch.readInt32BE(RECORDS_COUNT_OFFSET);
    const countFromOffsets = lastOffsetDelta + 1;
    if (countFromOffsets <= 0) {
      return this.failure(ErrorCode.INVALID_RECORD, `Batch has an invalid offset range: [0, ${lastOffsetDelta}] in topic partition ${tp}`);
    }
    if (count <= 0) return this.failure(ErrorCode.INVALID_RECORD, `Invalid reported count for record batch: ${count} in topic partition ${tp}`);
    if (countFromOffsets !== count) {
      return this.failure(
        ErrorCode.INVALID_RECORD,
        `Inconsistent batch offset range [0, ${lastOffsetDelta}] and count of records ${count} in topic partition ${tp}`,
      );
    }
    if ((attributes & CONTROL_FLAG_MASK) !== 0) {
      return this.failure(ErrorCode.INVALID_RECORD, `Clients are not allowed to write control records in topic partition ${tp}`);
    }
    const hasProducerId = batch.readInt32BE(PRODUCER_ID_OFFSET) >= 0;
    const baseSequence = batch.readInt32BE(BASE_SEQUENCE_OFFSET);
    if (hasProducerId && baseSequence < 0) {
      return this.failure(
        ErrorCode.INVALID_RECORD,
        `Invalid sequence number ${baseSequence} in record batch with producerId ${batch.readBigInt64BE(PRODUCER_ID_OFFSET)} in topic partition ${tp}`,
      );
    }

    // LogValidator: every record (decompressed when the batch is compressed, as Kafka does)
    const batchLogAppendTime = (attributes & TIMESTAMP_TYPE_MASK) !== 0;
    const walk = validateRecords(batch, codec, count, batchLogAppendTime, config, now, tp);
    if (walk.errorCode !== 0) {
      if (walk.recordErrors !== null) {
        return {
          errorCode: walk.errorCode,
          baseOffset: -1,
          logAppendTime: -1,
          logStartOffset: this.logStartOffset,
          recordErrors: walk.recordErrors,
          errorMessage: walk.message,
          reason: walk.message,
          appended: false,
        };
      }
      return this.failure(walk.errorCode, walk.message);
    }

    // Not in place (recompress.ts): a topic compression.type other than the batch's codec. The
    // batch is rebuilt (offset deltas 0..n-1 whatever they were), and UnifiedLog.append checks the
    // new size against max.message.bytes again.
    const targetCodec = config.compressionCodec ?? codec;
    let offsetDeltaOfMax = walk.offsetDeltaOfMax;
    let firstOffsetDelta = walk.firstOffsetDelta;
    if (targetCodec === codec && codec !== 0 && !walk.offsetsInOrder) {
      // Kafka means to rebuild this batch too, but it read the records with skipKeyValueIterator
      // (it expected to work in place), and the rebuild's record.key() throws.
      return this.failure(ErrorCode.UNKNOWN_SERVER_ERROR, 'key is skipped in PartialDefaultRecord (a compressed batch whose offset deltas are not 0..n-1)');
    }
    if (targetCodec !== codec) {
      const rebuilt = recompressBatch(batch, targetCodec);
      batch = rebuilt.batch;
      offsetDeltaOfMax = rebuilt.offsetDeltaOfMax;
      firstOffsetDelta = 0;
      size = batch.length;
      attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
      if (size > config.maxMessageBytes) {
        return unknownFailure(
          ErrorCode.MESSAGE_TOO_LARGE,
          `Message batch size is ${size} bytes in append to partition ${tp} which exceeds the maximum configured size of ${config.maxMessageBytes}.`,
        );
      }
    }

    // Offsets and timestamps, in place (assignOffsetsNonCompressed / the in-place compressed path)
    const baseOffset = this.logEndOffset;
    const lastOffset = baseOffset + lastOffsetDelta;
    const logAppendTime = config.timestampType === 'LogAppendTime';
    const maxTimestamp = logAppendTime ? now : walk.maxTimestamp;
    if (!Number.isSafeInteger(maxTimestamp)) {
      return this.failure(ErrorCode.UNKNOWN_SERVER_ERROR, `max timestamp ${maxTimestamp} is outside what kmock can store exactly`);
    }
    stampHeader(batch, attributes, baseOffset, logAppendTime ? 1 : 0, maxTimestamp);

    // UnifiedLog.analyzeAndValidateProducerState
    let producerId = -1n;
    let producerEpoch = -1;
    if (hasProducerId) {
      producerId = batch.readBigInt64BE(PRODUCER_ID_OFFSET);
      producerEpoch = batch.readInt16BE(PRODUCER_EPOCH_OFFSET);
      const lastSeq = incrementSequence(baseSequence, lastOffsetDelta);
      const check = this.producers.check(producerId, producerEpoch, baseSequence, lastSeq, baseOffset, now);
      if (check.kind === 'duplicate') {
        return {
          errorCode: 0,
          baseOffset: firstOffsetOf(check.batch),
          logAppendTime: check.batch.timestamp,
          logStartOffset: this.logStartOffset,
          recordErrors: [],
          errorMessage: null,
          appended: false,
        };
      }
      if ((attributes & TRANSACTIONAL_FLAG_MASK) !== 0) {
        // No transaction coordinator ever verified this partition for the transaction.
        return this.failure(ErrorCode.INVALID_TXN_STATE, 'Record was not part of an ongoing transaction');
      }
      if (check.kind === 'error') return this.failure(check.errorCode, check.message);
    }

    // LocalLog.append, ProducerStateManager.update
    this.batches.push(batch);
    this.baseOffsets.push(baseOffset);
    this.lastOffsets.push(lastOffset);
    this.maxTimestamps.push(maxTimestamp);
    this.positions.push(this.endPosition);
    this.endPosition += size;
    this.logEndOffset = lastOffset + 1;
    this.lastModified = now;
    this.trackMaxTimestamp(maxTimestamp, logAppendTime ? firstOffsetDelta : offsetDeltaOfMax, baseOffset);
    if (hasProducerId) {
      this.producers.update(producerId, producerEpoch, {
        lastSeq: incrementSequence(baseSequence, lastOffsetDelta),
        lastOffset,
        offsetDelta: lastOffsetDelta,
        timestamp: maxTimestamp,
      });
    }
    return {
      errorCode: 0,
      baseOffset,
      logAppendTime: logAppendTime ? now : -1,
      logStartOffset: this.logStartOffset,
      recordErrors: [],
      errorMessage: null,
      appended: true,
    };
  }

  /**
   * Produce v0-v2: appends a partition's whole `records` field, which may hold legacy message sets
   * (magic 0/1) to up-convert into one v2 batch, or v2 batches (see up-convert.ts). The v3+ path
   * (appendAsLeader on the request's own batch) never comes here.
   */
  appendMessageSet(records: Buffer, config: LogConfig = DEFAULT_LOG_CONFIG, now = Date.now()): AppendResult {
    const plan = planMessageSetAppend(records, config, now, this.tp);
    switch (plan.kind) {
      case 'empty':
        // UnifiedLog.append: no valid bytes, nothing appended, the analysis answered as is.
        return { errorCode: 0, baseOffset: -1, logAppendTime: -1, logStartOffset: this.logStartOffset, recordErrors: [], errorMessage: null, appended: false };
      case 'batch':
      case 'converted':
        return this.appendAsLeader(plan.batch, config, now);
      case 'error':
        if (plan.recordErrors !== undefined) {
          return {
            errorCode: plan.errorCode,
            baseOffset: -1,
            logAppendTime: -1,
            logStartOffset: this.logStartOffset,
            recordErrors: plan.recordErrors,
            errorMessage: plan.reason,
            reason: plan.reason,
            appended: false,
          };
        }
        return plan.unknownInfo ? unknownFailure(plan.errorCode, plan.reason) : this.failure(plan.errorCode, plan.reason);
    }
  }

  /** A failure Kafka reports with the partition's log start offset (the generic Throwable branch). */
  private failure(errorCode: number, reason: string): AppendResult {
    return { errorCode, baseOffset: -1, logAppendTime: -1, logStartOffset: this.logStartOffset, recordErrors: [], errorMessage: null, reason, appended: false };
  }

  /** LogSegment.append's maxTimestampSoFar bookkeeping (strictly greater wins: the first batch keeps it). */
  private trackMaxTimestamp(maxTimestamp: number, offsetDelta: number | null, baseOffset: number): void {
    const offset = offsetDelta === null ? null : baseOffset + offsetDelta;
    if (maxTimestamp > this.maxTimestampSoFar) {
      this.maxTimestampSoFar = maxTimestamp;
      this.offsetOfMaxTimestamp = offset;
      this.hasMaxTimestamp = true;
    } else if (!this.hasMaxTimestamp && maxTimestamp === -1 && this.noTimestampCandidate === null) {
      this.noTimestampCandidate = { offset };
    }
  }

  // ---- read (UnifiedLog.read / LocalLog.read / LogSegment.read) -----------------------------------

  /**
   * Reads from the batch holding `fetchOffset` on. At most `maxBytes` bytes, cut mid-batch like
   * Kafka's file slice; with `minOneMessage` the first batch is returned whole even if larger.
   * OFFSET_OUT_OF_RANGE below the log start offset or above the log end offset.
   */
  read(fetchOffset: number, maxBytes: number, minOneMessage: boolean): ReadResult {
    if (fetchOffset < this.logStartOffset || fetchOffset > this.logEndOffset) {
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1 };
    }
    if (fetchOffset === this.logEndOffset) {
      return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: this.endPosition };
    }
    if (maxBytes < 0) {
      // LogSegment.read: IllegalArgumentException("Invalid max size ...")
      return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1 };
    }
    const first = this.indexOfOffset(fetchOffset);
    const startPosition = this.positions[first];
    const firstSize = this.batches[first].length;
    const adjustedMax = minOneMessage ? Math.max(maxBytes, firstSize) : maxBytes;
    const firstEntryIncomplete = adjustedMax < firstSize;
    if (adjustedMax === 0) return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete, startPosition };
    const fetchSize = Math.min(this.endPosition - startPosition, adjustedMax);
    const out: Buffer[] = [];
    let left = fetchSize;
    for (let i = first; i < this.batches.length && left > 0; i++) {
      const b = this.batches[i];
      if (b.length <= left) {
        out.push(b);
        left -= b.length;
      } else {
        out.push(b.subarray(0, left));
        left = 0;
      }
    }
    return { errorCode: 0, records: out, bytes: fetchSize, firstEntryIncomplete, startPosition };
  }

  /** Byte position of the batch holding `offset` (the log end position at or past the end). */
  positionOf(offset: number): number {
    if (offset >= this.logEndOffset || this.batchCount === 0) return this.endPosition;
    if (offset < this.logStartOffset) return -1;
    return this.positions[this.indexOfOffset(offset)];
  }

  /** Slot of the first batch whose last offset is >= offset (LogSegment.translateOffset). */
  private indexOfOffset(offset: number): number {
    let lo = this.head;
    let hi = this.lastOffsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lastOffsets[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // ---- DeleteRecords (Partition.deleteRecordsOnLeader, UnifiedLog.maybeIncrementLogStartOffset) ---

  /**
   * Moves the log start offset to `offset` (-1: the high watermark) and drops the batches wholly
   * below it. OFFSET_OUT_OF_RANGE for other negative offsets and offsets past the high watermark.
   * Returns the low watermark (the log start offset) on success.
   */
  deleteRecords(offset: number): { errorCode: number; lowWatermark: number } {
    const converted = offset === -1 ? this.highWatermark : offset;
    if (converted < 0 || converted > this.highWatermark) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 };
    if (converted > this.logStartOffset) {
      this.logStartOffset = converted;
      while (this.head < this.lastOffsets.length && this.lastOffsets[this.head] < converted) {
        this.batches[this.head] = EMPTY; // release the request buffer
        this.head++;
      }
      if (this.head > 64 && this.head * 2 > this.batches.length) this.compact();
    }
    return { errorCode: 0, lowWatermark: this.logStartOffset };
  }

  private compact(): void {
    const h = this.head;
    this.batches = this.batches.slice(h);
    this.baseOffsets = this.baseOffsets.slice(h);
    this.lastOffsets = this.lastOffsets.slice(h);
    this.maxTimestamps = this.maxTimestamps.slice(h);
    this.positions = this.positions.slice(h);
    this.head = 0;
  }

  // ---- offsets by timestamp (UnifiedLog.fetchOffsetByTimestamp) --------------------------------------

  /**
   * The first record at or after the log start offset with timestamp >= `target` (its own
   * timestamp and offset), or null when there is none (ListOffsets then answers -1/-1).
   */
  offsetForTimestamp(target: number): TimestampAndOffset | null {
    for (let i = this.head; i < this.batches.length; i++) {
      if (this.maxTimestamps[i] < target) continue;
      const batch = this.batches[i];
      const base = this.baseOffsets[i];
      const hit: { found: TimestampAndOffset | null } = { found: null };
      const lso = this.logStartOffset;
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
   * ListOffsets MAX_TIMESTAMP (-3): the first batch with the largest timestamp, and in it the first
   * record with that timestamp. Like Kafka, this looks at every batch the segment still holds,
   * including batches below a log start offset moved by DeleteRecords.
   */
  maxTimestampOffset(): TimestampAndOffset | null {
    if (this.hasMaxTimestamp) {
      return this.offsetOfMaxTimestamp === null
        ? null
        : { timestamp: this.maxTimestampSoFar, offset: this.offsetOfMaxTimestamp, leaderEpoch: LEADER_EPOCH };
    }
    if (this.noTimestampCandidate !== null && this.noTimestampCandidate.offset !== null) {
      return { timestamp: -1, offset: this.noTimestampCandidate.offset, leaderEpoch: LEADER_EPOCH };
    }
    return null;
  }

  /**
   * ListOffsets v0 (UnifiedLog.legacyFetchOffsetsBefore with Kafka's one segment): the segment's
   * start (the log start offset) stamped with its mtime, and, once it holds data, the log end
   * offset stamped "now"; the offsets at or before `timestamp`, newest first, at most `maxNumOffsets`.
   * Throws RangeError for a negative maxNumOffsets (Kafka fails allocating the array).
   */
  legacyOffsetsBefore(timestamp: number, maxNumOffsets: number, now = Date.now()): number[] {
    const table: Array<[number, number]> = [[Math.max(0, this.logStartOffset), this.endPosition > 0 ? this.lastModified : this.createdAt]];
    if (this.endPosition > 0) table.push([this.logEndOffset, now]);
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
}

const EMPTY = Buffer.alloc(0);

function epochOf(batch: Buffer): number {
  const e = batch.readInt32BE(12);
  return e >= 0 ? e : -1;
}

/**
 * setBaseOffset, setPartitionLeaderEpoch(LEADER_EPOCH) and setMaxTimestamp (header.ts) on a batch
 * whose attributes were read as `attributes`: the same bytes, without BigInt. A buffer those
 * setters would refuse (not exactly one v2 batch), and a stored max timestamp they cannot read (or
 * that must change, which means a new CRC) go through the setters themselves, errors included.
 */
function stampHeader(batch: Buffer, attributes: number, baseOffset: number, timestampType: 0 | 1, maxTimestamp: number): void {
  const size = batch.length;
  if (size < RECORD_BATCH_OVERHEAD || batch[MAGIC_OFFSET] !== 2 || batch.readInt32BE(BATCH_LENGTH_OFFSET) + LOG_OVERHEAD !== size) {
    setBaseOffset(batch, BigInt(baseOffset));
    setPartitionLeaderEpoch(batch, LEADER_EPOCH);
    setMaxTimestamp(batch, timestampType, maxTimestamp);
    return;
  }
  // baseOffset is a safe non-negative integer: high and low 32 bits.
  batch.writeUInt32BE(Math.floor(baseOffset / 0x100000000), 0);
  batch.writeUInt32BE(baseOffset >>> 0, 4);
  batch.writeInt32BE(LEADER_EPOCH, PARTITION_LEADER_EPOCH_OFFSET);
  const hi = batch.readInt32BE(MAX_TIMESTAMP_OFFSET);
  const unchanged =
    hi < 0x200000 &&
    hi > -0x200000 &&
    hi * 0x100000000 + batch.readUInt32BE(MAX_TIMESTAMP_OFFSET + 4) === maxTimestamp &&
    ((attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0) === timestampType;
  if (!unchanged) setMaxTimestamp(batch, timestampType, maxTimestamp);
}

function unknownFailure(errorCode: number, reason: string): AppendResult {
  return { errorCode, baseOffset: -1, logAppendTime: -1, logStartOffset: -1, recordErrors: [], errorMessage: null, reason, appended: false };
}

// ---- records: walking a batch's records without decoding them ------------------------------------

/** int64 read as a number (exact within ±2^53; never throws, unlike the header parser). */
function readLongNumber(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * 0x100000000 + buf.readUInt32BE(pos + 4);
}

class RecordStructureError extends Error {
  constructor(
    message: string,
    /** ErrorCode Kafka answers with; INVALID_RECORD unless Kafka lets a non-API exception escape. */
    readonly errorCode: number = ErrorCode.INVALID_RECORD,
  ) {
    super(message);
  }
}

/** A cursor over one records region (the batch after its header, or its decompressed body). */
class Cursor {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end: number,
  ) {}

  byte(): number {
    if (this.pos >= this.end) throw new RecordStructureError('Found invalid record structure');
    return this.buf[this.pos++];
  }

  /** ByteUtils.readVarint: zigzag int32, at most 5 bytes. */
  varint(): number {
    let value = 0;
    let i = 0;
    let b: number;
    while (((b = this.byte()) & 0x80) !== 0) {
      value |= (b & 0x7f) << i;
      i += 7;
      if (i > 28) throw new RecordStructureError('Varint is too long');
    }
    value |= b << i;
    return (value >>> 1) ^ -(value & 1);
  }

  /** ByteUtils.readVarlong as a number: zigzag int64, at most 10 bytes. */
  varlong(): number {
    let value = 0;
    let scale = 1;
    let i = 0;
    let b: number;
    while (((b = this.byte()) & 0x80) !== 0) {
      value += (b & 0x7f) * scale;
      scale *= 128;
      i += 7;
      if (i > 63) throw new RecordStructureError('Varlong is too long');
    }
    value += b * scale;
    // zigzag: even -> value/2, odd -> -(value+1)/2
    return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
  }

  skip(n: number): void {
    if (n <= 0) return;
    if (n > this.end - this.pos) throw new RecordStructureError('Found invalid record structure');
    this.pos += n;
  }
}

/** Called per record: return true to stop. keySize/valueSize are -1 for null. */
type RecordVisitor = (offsetDelta: number, timestamp: number, keySize: number, valueSize: number, index: number) => boolean;

/**
 * Walks `count` records as Kafka's record iterators do: DefaultRecord.readFrom for an
 * uncompressed batch (the length prefix must match what the fields use), readPartiallyFrom for a
 * decompressed stream (the prefix is not checked); then no bytes may be left.
 */
function walkRecords(
  cur: Cursor,
  count: number,
  compressed: boolean,
  baseTimestamp: number,
  logAppendTime: number | null,
  visit: RecordVisitor,
): void {
  for (let index = 0; index < count; index++) {
    let size: number;
    try {
      size = cur.varint();
    } catch (e) {
      if (compressed) throw new RecordStructureError('Incorrect declared batch size, premature EOF reached');
      if ((e as Error).message === 'Varint is too long') {
        // Kafka's uncompressed iterator lets this IllegalArgumentException escape.
        throw new RecordStructureError('Varint is too long', ErrorCode.UNKNOWN_SERVER_ERROR);
      }
      throw new RecordStructureError('Incorrect declared batch size, premature EOF reached');
    }
    if (!compressed && cur.end - cur.pos < size) {
      throw new RecordStructureError(
        `Invalid record size: expected ${size} bytes in record payload, but instead the buffer has only ${cur.end - cur.pos} remaining bytes.`,
      );
    }
    const start = cur.pos;
    let stop: boolean;
    try {
      cur.byte(); // attributes
      const timestampDelta = cur.varlong();
      const offsetDelta = cur.varint();
      const keySize = cur.varint();
      cur.skip(keySize);
      const valueSize = cur.varint();
      cur.skip(valueSize);
      const headers = cur.varint();
      if (headers < 0) throw new RecordStructureError(`Found invalid number of record headers ${headers}`);
      if (!compressed && headers > cur.end - cur.pos) {
        throw new RecordStructureError(`Found invalid number of record headers. ${headers} is larger than the remaining size of the buffer`);
      }
      for (let h = 0; h < headers; h++) {
        const hk = cur.varint();
        if (hk < 0) throw new RecordStructureError(`Invalid negative header key size ${hk}`);
        cur.skip(hk);
        cur.skip(cur.varint());
      }
      if (!compressed && cur.pos - start !== size) {
        throw new RecordStructureError(
          `Invalid record size: expected to read ${size} bytes in record payload, but instead read ${cur.pos - start}`,
        );
      }
      const timestamp = logAppendTime ?? baseTimestamp + timestampDelta;
      stop = visit(offsetDelta, timestamp, keySize < 0 ? -1 : keySize, valueSize < 0 ? -1 : valueSize, index);
    } catch (e) {
      if (e instanceof RecordStructureError && e.message.startsWith('Varint')) throw new RecordStructureError('Found invalid record structure');
      if (e instanceof RecordStructureError && e.message.startsWith('Varlong')) throw new RecordStructureError('Found invalid record structure');
      throw e;
    }
    if (stop) return;
  }
  if (cur.pos !== cur.end) throw new RecordStructureError('Incorrect declared batch size, records still remaining in file');
}

/** The records region of a batch: a cursor over its body, decompressed when needed. */
function recordsCursor(batch: Buffer, codec: number): Cursor {
  if (codec === 0) {
    const c = new Cursor(batch, batch.length);
    c.pos = RECORD_BATCH_OVERHEAD;
    return c;
  }
  if (codec === 4 && !zstdReady()) throw new Error('zstd is not initialised: await initCompression() before appending zstd batches');
  const body = decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD));
  return new Cursor(body, body.length);
}

/** Visits the records of a stored (already validated) batch. */
function forEachStoredRecord(batch: Buffer, visit: (offsetDelta: number, timestamp: number) => boolean): void {
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  const codec = attributes & COMPRESSION_CODEC_MASK;
  const logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? readLongNumber(batch, MAX_TIMESTAMP_OFFSET) : null;
  const cur = recordsCursor(batch, codec);
  walkRecords(cur, batch.readInt32BE(RECORDS_COUNT_OFFSET), codec !== 0, readLongNumber(batch, BASE_TIMESTAMP_OFFSET), logAppendTime, visit);
}

// ---- the structure-only walk of an uncompressed batch ----------------------------------------------
// walkRecords' checks for `compressed = false`, on the batch bytes directly: no cursor object, no
// visitor, no exceptions. It only answers "every record is well-formed" (true, with the
// timestamps validateRecords needs in the scan* variables below) or "something is off" (false:
// the caller then runs walkRecords, which finds the same problem and reports it in Kafka's words).

/** Results of the last scanUncompressed that returned true (read right after the call). */
let scanMax = -1;
let scanDeltaOfMax: number | null = null;
let scanFirstDelta: number | null = null;
/** Where scanVarint/scanVarlong stopped; -1 when the bytes ran out or the number was too long. */
let scanPos = 0;

/** ByteUtils.readVarint at scanPos (as Cursor.varint), for the multi-byte case. */
function scanVarint(buf: Buffer, end: number): number {
  let p = scanPos;
  let value = 0;
  let i = 0;
  for (;;) {
    if (p >= end) {
      scanPos = -1;
      return 0;
    }
    const b = buf[p++];
    if ((b & 0x80) === 0) {
      value |= b << i;
      scanPos = p;
      return (value >>> 1) ^ -(value & 1);
    }
    value |= (b & 0x7f) << i;
    i += 7;
    if (i > 28) {
      scanPos = -1;
      return 0;
    }
  }
}

/** ByteUtils.readVarlong as a number at scanPos (as Cursor.varlong), for the multi-byte case. */
function scanVarlong(buf: Buffer, end: number): number {
  let p = scanPos;
  let value = 0;
  let scale = 1;
  let i = 0;
  for (;;) {
    if (p >= end) {
      scanPos = -1;
      return 0;
    }
    const b = buf[p++];
    if ((b & 0x80) === 0) {
      value += b * scale;
      scanPos = p;
      return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    value += (b & 0x7f) * scale;
    scale *= 128;
    i += 7;
    if (i > 63) {
      scanPos = -1;
      return 0;
    }
  }
}

/**
 * DefaultRecord.readFrom over the `count` records of an uncompressed batch (header included in
 * `batch`, which holds exactly the batch): every length, field and header as walkRecords reads
 * them, then nothing may be left. True when all of it holds; the max timestamp bookkeeping is
 * validateRecords' for records that pass validateKey/validateTimestamp (here: all of them).
 */
function scanUncompressed(batch: Buffer, count: number, baseTimestamp: number): boolean {
  const end = batch.length;
  let p = RECORD_BATCH_OVERHEAD;
  let max = -1;
  let deltaOfMax: number | null = null;
  let firstDelta: number | null = null;
  // b, c: the first two bytes of a varint; one- and two-byte varints (lengths under 8 KiB,
  // offset deltas under 4096) are decoded inline, longer ones by scanVarint/scanVarlong.
  let b = 0;
  let c = 0;
  for (let index = 0; index < count; index++) {
    // length (varint; one byte for records under 64 bytes)
    let size: number;
    if (p < end && (b = batch[p]) < 0x80) {
      size = (b >>> 1) ^ -(b & 1);
      p++;
    } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
      const x = (b & 0x7f) | (c << 7);
      size = (x >>> 1) ^ -(x & 1);
      p += 2;
    } else {
      scanPos = p;
      size = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    if (end - p < size) return false;
    const start = p;
    // attributes
    if (p >= end) return false;
    p++;
    // timestampDelta (varlong)
    let timestampDelta: number;
    if (p < end && (b = batch[p]) < 0x80) {
      timestampDelta = b % 2 === 0 ? b / 2 : -(b + 1) / 2;
      p++;
    } else {
      scanPos = p;
      timestampDelta = scanVarlong(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    // offsetDelta
    let offsetDelta: number;
    if (p < end && (b = batch[p]) < 0x80) {
      offsetDelta = (b >>> 1) ^ -(b & 1);
      p++;
    } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
      const x = (b & 0x7f) | (c << 7);
      offsetDelta = (x >>> 1) ^ -(x & 1);
      p += 2;
    } else {
      scanPos = p;
      offsetDelta = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    // key, value: a varint length (negative: null), then that many bytes
    for (let field = 0; field < 2; field++) {
      let n: number;
      if (p < end && (b = batch[p]) < 0x80) {
        n = (b >>> 1) ^ -(b & 1);
        p++;
      } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
        const x = (b & 0x7f) | (c << 7);
        n = (x >>> 1) ^ -(x & 1);
        p += 2;
      } else {
        scanPos = p;
        n = scanVarint(batch, end);
        if (scanPos < 0) return false;
        p = scanPos;
      }
      if (n > 0) {
        if (n > end - p) return false;
        p += n;
      }
    }
    // headers: a count, then per header a key length (not negative), key, value length, value
    let headers: number;
    if (p < end && (b = batch[p]) < 0x80) {
      headers = (b >>> 1) ^ -(b & 1);
      p++;
    } else {
      scanPos = p;
      headers = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    if (headers < 0 || headers > end - p) return false;
    for (let h = 0; h < headers; h++) {
      scanPos = p;
      const hk = scanVarint(batch, end);
      if (scanPos < 0 || hk < 0) return false;
      p = scanPos;
      if (hk > 0) {
        if (hk > end - p) return false;
        p += hk;
      }
      scanPos = p;
      const hv = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
      if (hv > 0) {
        if (hv > end - p) return false;
        p += hv;
      }
    }
    if (p - start !== size) return false;
    if (index === 0) firstDelta = offsetDelta;
    const timestamp = baseTimestamp + timestampDelta;
    if (timestamp > max) {
      max = timestamp;
      deltaOfMax = offsetDelta;
    } else if (timestamp === max && deltaOfMax === null) {
      deltaOfMax = offsetDelta;
    }
  }
  if (p !== end) return false;
  scanMax = max;
  scanDeltaOfMax = deltaOfMax;
  scanFirstDelta = firstDelta;
  return true;
}

interface WalkOutcome {
  errorCode: number;
  message: string;
  recordErrors: RecordError[] | null;
  /** Largest record timestamp (Kafka's maxBatchTimestamp, starting from -1). */
  maxTimestamp: number;
  /** offsetDelta of the first record whose timestamp is that maximum, if any. */
  offsetDeltaOfMax: number | null;
  firstOffsetDelta: number | null;
  /** Every record's offsetDelta equals its index (LogValidator's expectedInnerOffset check). */
  offsetsInOrder: boolean;
}

/**
 * LogValidator's record loop: structure (INVALID_RECORD), keys on compacted topics
 * (INVALID_RECORD) and timestamps (INVALID_TIMESTAMP) with per-record errors, and the batch's
 * true max timestamp.
 */
function validateRecords(
  batch: Buffer,
  codec: number,
  count: number,
  batchLogAppendTime: boolean,
  config: LogConfig,
  now: number,
  tp: string,
): WalkOutcome {
  const checkTimestamps = config.timestampBeforeMaxMs !== LONG_MAX || config.timestampAfterMaxMs !== LONG_MAX;
  const createTime = config.timestampType === 'CreateTime';
  // No record of an uncompressed batch can fail validateKey/validateTimestamp under these
  // settings: a structure-only walk gives the verdict when it finds nothing wrong (else the full
  // walk below runs and reports what it finds, exactly as before).
  if (codec === 0 && !batchLogAppendTime && !config.compact && !(createTime && checkTimestamps)) {
    if (scanUncompressed(batch, count, readLongNumber(batch, BASE_TIMESTAMP_OFFSET))) {
      // (only uncompressed batches take this path, where Kafka never checks the offset deltas)
      return { errorCode: 0, message: '', recordErrors: null, maxTimestamp: scanMax, offsetDeltaOfMax: scanDeltaOfMax, firstOffsetDelta: scanFirstDelta, offsetsInOrder: true };
    }
  }
  const out: WalkOutcome = { errorCode: 0, message: '', recordErrors: null, maxTimestamp: -1, offsetDeltaOfMax: null, firstOffsetDelta: null, offsetsInOrder: true };
  let cur: Cursor;
  try {
    cur = recordsCursor(batch, codec);
  } catch (e) {
    // Kafka: KafkaException("Failed to decompress record stream") -> UNKNOWN_SERVER_ERROR
    out.errorCode = ErrorCode.UNKNOWN_SERVER_ERROR;
    out.message = `Failed to decompress record stream: ${(e as Error).message}`;
    return out;
  }
  const headerMax = readLongNumber(batch, MAX_TIMESTAMP_OFFSET);
  let errors: Array<{ code: number; batchIndex: number; message: string }> | null = null;
  try {
    walkRecords(
      cur,
      count,
      codec !== 0,
      readLongNumber(batch, BASE_TIMESTAMP_OFFSET),
      batchLogAppendTime ? headerMax : null,
      (offsetDelta, timestamp, keySize, valueSize, index) => {
        if (index === 0) out.firstOffsetDelta = offsetDelta;
        if (offsetDelta !== index) out.offsetsInOrder = false;
        // validateKey, then validateTimestamp (one error per record, key first)
        let err: { code: number; batchIndex: number; message: string } | null = null;
        if (config.compact && keySize < 0) {
          err = { code: ErrorCode.INVALID_RECORD, batchIndex: index, message: `Compacted topic cannot accept message without key in topic partition ${tp}` };
        } else if (createTime && timestamp !== -1) {
          if (checkTimestamps) {
            const diff = BigInt(now) - BigInt(timestamp);
            if (diff > config.timestampBeforeMaxMs || -diff > config.timestampAfterMaxMs) {
              const lo = BigInt.asIntN(64, BigInt(now) - config.timestampBeforeMaxMs);
              const hi = BigInt.asIntN(64, BigInt(now) + config.timestampAfterMaxMs);
              err = {
                code: ErrorCode.INVALID_TIMESTAMP,
                batchIndex: index,
                message: `Timestamp ${timestamp} of message with offset ${offsetDelta} is out of range. The timestamp should be within [${lo}, ${hi}]`,
              };
            }
          }
        } else if (batchLogAppendTime) {
          err = {
            code: ErrorCode.INVALID_TIMESTAMP,
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
    out.errorCode = e.errorCode;
    out.message = e.message;
    return out;
  }
  if (errors !== null) {
    // LogValidator.processRecordErrors
    const list: Array<{ code: number; batchIndex: number; message: string }> = errors;
    out.recordErrors = list.map((e) => ({ batchIndex: e.batchIndex, message: e.message }));
    if (list.some((e) => e.code === ErrorCode.INVALID_TIMESTAMP)) {
      out.errorCode = ErrorCode.INVALID_TIMESTAMP;
      out.message = 'One or more records have been rejected due to invalid timestamp';
    } else {
      out.errorCode = ErrorCode.INVALID_RECORD;
      const shown = list
        .slice(0, 3)
        .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`)
        .join(', ');
      out.message = `One or more records have been rejected due to ${list.length} record errors in total, and only showing the first three errors at most: [${shown}]`;
    }
  }
  return out;
}
