// One partition's log, in memory, behaving as Kafka 3.9's UnifiedLog/LocalLog/LogSegment do for
// a leader with one replica: offsets, the per-batch index, storage and reads. What LogValidator
// checks before an append is codec/records/validate.ts's; the topic settings are log-config.ts's.
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
//
// Transactions: producer-state.ts keeps the producers' ongoing transactions, which give the last
// stable offset (UnifiedLog.lastStableOffset: the first unstable offset, at least the log start
// offset, else the high watermark); appendControlMarker writes COMMIT/ABORT markers as
// KafkaApis.handleWriteTxnMarkersRequest has them appended (origin COORDINATOR); txn-index.ts
// keeps the aborted transactions and the sparse offset index that bound a read_committed read's
// aborted list (LocalLog.addAbortedTransactions).
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from '../../codec/records/constants.js';
import { encodeEndTxnMarkerBatch } from '../../codec/records/control.js';
import { setBaseOffset, setMaxTimestamp, setPartitionLeaderEpoch } from '../../codec/records/header.js';
import { forEachStoredRecord } from '../../codec/records/record-walk.js';
import { reportsUnknownLogStart, validateClientBatch, type BatchRejection } from '../../codec/records/validate.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from './log-config.js';
import { NO_VERIFICATION, type AppendResult, type ControlMarker, type MarkerAppendResult, type ReadResult, type TimestampAndOffset, type TxnAppendOptions } from './log-results.js';
import { firstOffsetOf, incrementSequence, ProducerStateManager } from './producer-state.js';
import { OffsetIndex, TransactionIndex, type AbortedTxn } from './txn-index.js';
import { planMessageSetAppend } from './up-convert.js';
import { recompressBatch } from './recompress.js';
import { ErrorCode } from '../../codec/index.js';

// The log's config moved to log-config.ts; these re-exports keep the callers that import them
// from here (handlers/delete-records.ts, bench/broker/produce-diff.ts) working.
export { DEFAULT_LOG_CONFIG, resolveLogConfig, type LogConfig } from './log-config.js';
export type { RecordError } from '../../codec/records/validate.js';
export { NO_VERIFICATION, type AppendResult, type ControlMarker, type MarkerAppendResult, type ReadResult, type TimestampAndOffset, type TxnAppendOptions } from './log-results.js';

/** The partition's leader epoch. kmock's single broker has led every partition since epoch 0. */
export const LEADER_EPOCH = 0;

const NO_RECORDS: Buffer[] = [];
const NO_ABORTED: AbortedTxn[] = [];

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
  /** The aborted transactions (the segment's transaction index). */
  readonly txnIndex = new TransactionIndex();
  private readonly offsetIndex = new OffsetIndex();
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
    /** When the broker started, on its clock (the producer expiration schedule's origin). */
    brokerStartMs = now,
  ) {
    this.createdAt = now;
    this.lastModified = now;
    this.tp = `${topic}-${index}`;
    this.producers = new ProducerStateManager(this.tp, { scheduleOrigin: brokerStartMs });
  }

  get highWatermark(): number {
    return this.logEndOffset;
  }

  /**
   * UnifiedLog.lastStableOffset: the first unstable offset (the oldest ongoing transaction's first
   * offset, raised to the log start offset: maybeIncrementFirstUnstableOffset) when below the high
   * watermark, else the high watermark.
   */
  get lastStableOffset(): number {
    const first = this.producers.firstUndecidedOffset();
    if (first < 0) return this.logEndOffset;
    const unstable = Math.max(first, this.logStartOffset);
    return unstable < this.highWatermark ? unstable : this.highWatermark;
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
   * and LogValidator (validateClientBatch: base offset, size, CRC, header consistency, every record,
   * timestamps and keys), then the producer state (duplicates, epoch, sequence).
   */
  appendAsLeader(batch: Buffer, config: LogConfig = DEFAULT_LOG_CONFIG, now = Date.now(), txn: TxnAppendOptions = NO_VERIFICATION): AppendResult {
    const tp = this.tp;
    const valid = validateClientBatch(batch, config, now, tp);
    if (!valid.ok) return this.rejected(valid);
    const { codec, lastOffsetDelta, hasProducerId, baseSequence } = valid;
    let attributes = valid.attributes;
    let size = batch.length;

    // Not in place (recompress.ts): a topic compression.type other than the batch's codec. The
    // batch is rebuilt (offset deltas 0..n-1 whatever they were), and UnifiedLog.append checks the
    // new size against max.message.bytes again.
    const targetCodec = config.compressionCodec ?? codec;
    let offsetDeltaOfMax = valid.offsetDeltaOfMax;
    let firstOffsetDelta = valid.firstOffsetDelta;
    if (targetCodec === codec && codec !== 0 && !valid.offsetsInOrder) {
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
    const maxTimestamp = logAppendTime ? now : valid.maxTimestamp;
    if (!Number.isSafeInteger(maxTimestamp)) {
      return this.failure(ErrorCode.UNKNOWN_SERVER_ERROR, `max timestamp ${maxTimestamp} is outside what kmock can store exactly`);
    }
    stampHeader(batch, attributes, baseOffset, logAppendTime ? 1 : 0, maxTimestamp);

    // UnifiedLog.analyzeAndValidateProducerState
    let producerId = -1n;
    let producerEpoch = -1;
    const isTransactional = (attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
    if (hasProducerId) {
      producerId = batch.readBigInt64BE(PRODUCER_ID_OFFSET);
      producerEpoch = batch.readInt16BE(PRODUCER_EPOCH_OFFSET);
      const lastSeq = incrementSequence(baseSequence, lastOffsetDelta);
      const check = this.producers.check(producerId, producerEpoch, baseSequence, lastSeq, baseOffset, now, {
        isTransactional,
        verificationEnabled: txn.verificationEnabled,
        guard: txn.guard,
      });
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
      if (check.kind === 'error') return this.failure(check.errorCode, check.message);
    }

    // LocalLog.append, ProducerStateManager.update
    this.store(batch, baseOffset, lastOffset, maxTimestamp, config, now);
    this.trackMaxTimestamp(maxTimestamp, logAppendTime ? firstOffsetDelta : offsetDeltaOfMax, baseOffset);
    if (hasProducerId) {
      const meta = { lastSeq: incrementSequence(baseSequence, lastOffsetDelta), lastOffset, offsetDelta: lastOffsetDelta, timestamp: maxTimestamp };
      this.producers.update(producerId, producerEpoch, meta, isTransactional);
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
  appendMessageSet(records: Buffer, config: LogConfig = DEFAULT_LOG_CONFIG, now = Date.now(), txn: TxnAppendOptions = NO_VERIFICATION): AppendResult {
    const plan = planMessageSetAppend(records, config, now, this.tp);
    switch (plan.kind) {
      case 'empty':
        // UnifiedLog.append: no valid bytes, nothing appended, the analysis answered as is.
        return { errorCode: 0, baseOffset: -1, logAppendTime: -1, logStartOffset: this.logStartOffset, recordErrors: [], errorMessage: null, appended: false };
      case 'batch':
      case 'converted':
        return this.appendAsLeader(plan.batch, config, now, txn);
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

  /**
   * Writes a COMMIT or ABORT marker, as the partition's leader appends the control batch that
   * KafkaApis.handleWriteTxnMarkersRequest builds (MemoryRecords.withEndTransactionMarker: one
   * control record, the EndTxnMarker key and value, CRC-32C) with origin COORDINATOR: LogValidator
   * stamps offset, leader epoch and (LogAppendTime topics) the append time, never compresses it;
   * ProducerAppendInfo.appendEndTxnMarker checks the producer and coordinator epochs
   * (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED) and ends the producer's transaction,
   * an ABORT adding it to the transaction index. A producer with no transaction here still gets its
   * marker. Markers are appended with acks=-1, which Partition.appendRecordsToLeader checks against
   * the effective min ISR, min(min.insync.replicas, replicas): 1 with one replica, always met.
   * `config` is the topic's (resolveLogConfig): its timestamp type and index.interval.bytes apply.
   */
  appendControlMarker(marker: ControlMarker, now = Date.now(), config: LogConfig = DEFAULT_LOG_CONFIG): MarkerAppendResult {
    const { producerId, producerEpoch, coordinatorEpoch } = marker;
    const offset = this.logEndOffset;
    // UnifiedLog.analyzeAndValidateProducerState: batches without a producer id have no producer state.
    const hasProducerId = producerId >= 0n;
    if (hasProducerId) {
      const check = this.producers.checkMarker(producerId, producerEpoch, coordinatorEpoch, offset, now);
      if (check.kind === 'error') return { errorCode: check.errorCode, offset: -1, reason: check.message };
    }
    const batch = encodeEndTxnMarkerBatch({
      commit: marker.result === 'COMMIT',
      producerId,
      producerEpoch,
      coordinatorEpoch,
      timestamp: now,
      baseOffset: BigInt(offset),
      partitionLeaderEpoch: LEADER_EPOCH,
      timestampType: config.timestampType === 'LogAppendTime' ? 1 : 0,
    });
    this.store(batch, offset, offset, now, config, now);
    this.trackMaxTimestamp(now, 0, offset);
    if (hasProducerId) {
      const completed = this.producers.applyMarker(producerId, producerEpoch, coordinatorEpoch, marker.result === 'ABORT', offset, now);
      // LogSegment.updateTxnIndex, then ProducerStateManager.completeTxn
      if (completed !== null && completed.isAborted) {
        this.txnIndex.append({ producerId, firstOffset: completed.firstOffset, lastOffset: offset, lastStableOffset: completed.lastStableOffset });
      }
    }
    return { errorCode: 0, offset };
  }

  /** LocalLog.append / LogSegment.append of one batch whose offsets and timestamps are final. */
  private store(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number, config: LogConfig, now: number): void {
    this.offsetIndex.onAppend(lastOffset, this.endPosition, batch.length, config.indexIntervalBytes);
    this.batches.push(batch);
    this.baseOffsets.push(baseOffset);
    this.lastOffsets.push(lastOffset);
    this.maxTimestamps.push(maxTimestamp);
    this.positions.push(this.endPosition);
    this.endPosition += batch.length;
    this.logEndOffset = lastOffset + 1;
    this.lastModified = now;
  }

  /**
   * A batch LogValidator refused, answered as ReplicaManager.appendToLocalLog does: record errors
   * (RecordValidationException) with their message, the rest with the log start offset that
   * reportsUnknownLogStart says.
   */
  private rejected(v: BatchRejection): AppendResult {
    const errorCode = ErrorCode[v.error];
    if (v.recordErrors !== null) {
      return {
        errorCode,
        baseOffset: -1,
        logAppendTime: -1,
        logStartOffset: this.logStartOffset,
        recordErrors: v.recordErrors,
        errorMessage: v.message,
        reason: v.message,
        appended: false,
      };
    }
    if (reportsUnknownLogStart(v.error)) return unknownFailure(errorCode, v.message);
    return this.failure(errorCode, v.message);
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
   * Reads from the batch holding `fetchOffset` on, up to the high watermark, or with
   * `readCommitted` up to the last stable offset (FetchIsolation.TXN_COMMITTED: the byte position
   * of the batch holding it, so whole batches below it). At most `maxBytes` bytes, cut mid-batch
   * like Kafka's file slice; with `minOneMessage` the first batch is returned whole even if larger.
   * OFFSET_OUT_OF_RANGE below the log start offset or above the log end offset. A read_committed
   * read also gets the aborted transactions of its range (LocalLog.read / addAbortedTransactions:
   * an empty list when it starts at or past the last stable offset).
   */
  read(fetchOffset: number, maxBytes: number, minOneMessage: boolean, readCommitted = false): ReadResult {
    if (fetchOffset < this.logStartOffset || fetchOffset > this.logEndOffset) {
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1, abortedTransactions: null };
    }
    const maxOffset = readCommitted ? this.lastStableOffset : this.highWatermark;
    if (fetchOffset >= maxOffset) {
      // emptyFetchDataInfo, at the position of the batch holding the offset (the end position at the end)
      const startPosition = this.positionOf(fetchOffset);
      return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition, abortedTransactions: readCommitted ? NO_ABORTED : null };
    }
    if (maxBytes < 0) {
      // LogSegment.read: IllegalArgumentException("Invalid max size ...")
      return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1, abortedTransactions: null };
    }
    const first = this.indexOfOffset(fetchOffset);
    const startPosition = this.positions[first];
    const firstSize = this.batches[first].length;
    const adjustedMax = minOneMessage ? Math.max(maxBytes, firstSize) : maxBytes;
    const aborted = (fetchSize: number) => (readCommitted ? this.abortedTransactions(fetchOffset, startPosition, fetchSize) : null);
    // LogSegment.read: nothing to read is "no records" (FetchDataInfo's two-argument constructor: complete)
    if (adjustedMax === 0) return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition, abortedTransactions: aborted(0) };
    const firstEntryIncomplete = adjustedMax < firstSize;
    const maxPosition = this.positionOf(maxOffset);
    const fetchSize = Math.min(maxPosition - startPosition, adjustedMax);
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
    return { errorCode: 0, records: out, bytes: fetchSize, firstEntryIncomplete, startPosition, abortedTransactions: aborted(fetchSize) };
  }

  /**
   * LocalLog.addAbortedTransactions for a read of `fetchSize` bytes from `startPosition`: the
   * aborted transactions up to the offset index's upper bound (else the log end offset).
   */
  abortedTransactions(fetchOffset: number, startPosition: number, fetchSize: number): AbortedTxn[] {
    if (this.txnIndex.size === 0) return NO_ABORTED.slice();
    const upperBound = this.offsetIndex.upperBoundOffset(startPosition + fetchSize) ?? this.logEndOffset;
    return this.txnIndex.collect(fetchOffset, upperBound);
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
