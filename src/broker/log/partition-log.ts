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
import { ATTRIBUTES_OFFSET, PRODUCER_EPOCH_OFFSET, PRODUCER_ID_OFFSET, TRANSACTIONAL_FLAG_MASK } from '../../codec/records/constants.js';
import { encodeEndTxnMarkerBatch } from '../../codec/records/control.js';
import { stampAppendedHeader } from '../../codec/records/header.js';
import { reportsUnknownLogStart, validateClientBatch, type BatchRejection } from '../../codec/records/validate.js';
import { DEFAULT_LOG_CONFIG, maxSegmentMs, randomSegmentJitter, type LogConfig } from './log-config.js';
import { NO_VERIFICATION, type AppendResult, type ControlMarker, type MarkerAppendResult, type ReadResult, type RetentionDeletion, type TimestampAndOffset, type TxnAppendOptions } from './log-results.js';
import { firstOffsetOf, incrementSequence, ProducerStateManager } from './producer-state.js';
import { TransactionIndex, type AbortedTxn } from './txn-index.js';
import { LogSegment, ownBytes, type SegmentFile } from './segment.js';
import { legacyOffsetsBefore, maxTimestampOffset, offsetForTimestamp } from './offset-lookups.js';
import { planMessageSetAppend } from './up-convert.js';
import { recompressBatch } from './recompress.js';
import { ErrorCode } from '../../codec/index.js';

// The log's config moved to log-config.ts; these re-exports keep the callers that import them
// from here (handlers/delete-records.ts, bench/broker/produce-diff.ts) working.
export { DEFAULT_LOG_CONFIG, maxSegmentMs, resolveLogConfig, type LogConfig } from './log-config.js';
export type { RecordError } from '../../codec/records/validate.js';
export { NO_VERIFICATION, type AppendResult, type ControlMarker, type MarkerAppendResult, type ReadResult, type RetentionDeletion, type TimestampAndOffset, type TxnAppendOptions } from './log-results.js';

/** The partition's leader epoch. kmock's single broker has led every partition since epoch 0. */
export const LEADER_EPOCH = 0;

const NO_RECORDS: Buffer[] = [];
const NO_ABORTED: AbortedTxn[] = [];

// ---- the log ---------------------------------------------------------------------------------------

/** How a partition log is made (the broker's clock and, with a data dir, its segment files). */
export interface PartitionLogOptions {
  /** When the broker started, on its clock (the producer expiration schedule's origin). */
  brokerStartMs?: number;
  /** A new segment's file (storage/): null keeps the segment in memory only. `cleaned`: a cleaner output. */
  segmentFile?: (baseOffset: number, cleaned: boolean) => SegmentFile | null;
  /** An int in [0, 2^31): segment.jitter.ms draws (LogConfig.randomSegmentJitter). */
  randomInt?: () => number;
  /** segment.index.bytes of the first segment. */
  maxIndexSize?: number;
  /** Called after every append with its stored bytes (the log manager's memory cap). */
  onStored?: (bytes: number) => void;
  /** A log loaded from the data dir (storage/data-dir.ts): its segments and offsets, and the replay of its batches. */
  restore?: {
    segments: LogSegment[];
    logStartOffset: number;
    logEndOffset: number;
    firstDirtyOffset: number;
    /** Rebuilds the producer state and the aborted-transaction index from the batches. */
    replay: (log: PartitionLog) => void;
  };
}

/** A position in the log: Kafka's LogOffsetMetadata (the segment holding it and the byte position there). */
export interface OffsetMetadata {
  offset: number;
  segmentBaseOffset: number;
  position: number;
}

export class PartitionLog {
  /** First offset still readable (DeleteRecords and retention move it). Read-only outside this class. */
  logStartOffset = 0;
  /** Next offset to assign; with one replica it is also the high watermark and the LSO. Read-only outside. */
  logEndOffset = 0;
  /** When the log was created (an empty segment's mtime for ListOffsets v0). */
  readonly createdAt: number;
  readonly producers: ProducerStateManager;
  /** The aborted transactions (every segment's transaction index, in marker order). */
  readonly txnIndex = new TransactionIndex();
  /** "topic-partition", as Kafka's messages name it. */
  readonly tp: string;
  /** The segments, oldest first; the last is the active one. Never empty. */
  private segments: LogSegment[] = [];
  private readonly segmentFile: (baseOffset: number, cleaned: boolean) => SegmentFile | null;
  private readonly randomInt: () => number;
  private readonly onStored: ((bytes: number) => void) | undefined;
  /** The cleaner's checkpoint: the first offset not yet compacted (cleaner-offset-checkpoint). */
  firstDirtyOffset = 0;
  /** UnifiedLog.recoveryPoint: everything below it is fsynced (the data dir's). */
  recoveryPoint = 0;
  /** When the log was last flushed (flush.ms). */
  lastFlushTime: number;

  constructor(
    readonly topic: string,
    readonly index: number,
    now = Date.now(),
    options: PartitionLogOptions | number = {},
  ) {
    const opts: PartitionLogOptions = typeof options === 'number' ? { brokerStartMs: options } : options;
    this.createdAt = now;
    this.lastFlushTime = now;
    this.tp = `${topic}-${index}`;
    this.producers = new ProducerStateManager(this.tp, { scheduleOrigin: opts.brokerStartMs ?? now });
    this.segmentFile = opts.segmentFile ?? (() => null);
    this.randomInt = opts.randomInt ?? (() => Math.floor(Math.random() * 0x7fffffff));
    this.onStored = opts.onStored;
    if (opts.restore !== undefined && opts.restore.segments.length > 0) {
      this.segments = opts.restore.segments;
      this.logStartOffset = opts.restore.logStartOffset;
      this.logEndOffset = opts.restore.logEndOffset;
      this.firstDirtyOffset = opts.restore.firstDirtyOffset;
      this.recoveryPoint = opts.restore.logEndOffset;
      opts.restore.replay(this);
    } else {
      this.segments.push(new LogSegment(0, now, 0, opts.maxIndexSize ?? DEFAULT_LOG_CONFIG.segmentIndexBytes, this.segmentFile(0, false)));
    }
  }

  /** The active segment (appends go there). */
  get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1];
  }

  /** The segments, oldest first (read-only: retention, the cleaner and storage go through methods). */
  get logSegments(): readonly LogSegment[] {
    return this.segments;
  }

  /** UnifiedLog.size: the bytes of every segment. */
  get size(): number {
    let n = 0;
    for (const seg of this.segments) n += seg.size;
    return n;
  }

  /** Bytes of stored batches held in memory (the stored-memory cap counts these). */
  get residentBytes(): number {
    let n = 0;
    for (const seg of this.segments) n += seg.residentBytes;
    return n;
  }

  /** Time of the last append (the active segment's mtime). */
  get lastModified(): number {
    return this.activeSegment.lastModified;
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

  /** Number of batches held (every segment's, below the log start offset too until retention deletes them). */
  get batchCount(): number {
    let n = 0;
    for (const seg of this.segments) n += seg.batchCount;
    return n;
  }

  /** The stored batch Buffers, oldest first (the same objects Fetch sends). */
  storedBatches(): Buffer[] {
    const out: Buffer[] = [];
    for (const seg of this.segments) for (const b of seg.allBatches()) out.push(b);
    return out;
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
    stampAppendedHeader(batch, attributes, baseOffset, LEADER_EPOCH, logAppendTime ? 1 : 0, maxTimestamp);
    // UnifiedLog.append: maybe roll before the producer state is checked (a duplicate can roll too).
    this.maybeRoll(size, maxTimestamp, baseOffset, lastOffset, config, now);

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
        origin: txn.origin,
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
    const deltaOfMax = logAppendTime ? firstOffsetDelta : offsetDeltaOfMax;
    this.store(batch, baseOffset, lastOffset, maxTimestamp, deltaOfMax === null ? null : baseOffset + deltaOfMax, config, now);
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
    this.maybeRoll(batch.length, now, offset, offset, config, now);
    this.store(batch, offset, offset, now, offset, config, now);
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
  private store(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number, offsetOfMaxRecord: number | null, config: LogConfig, now: number): void {
    this.activeSegment.append(ownBytes(batch), baseOffset, lastOffset, maxTimestamp, offsetOfMaxRecord, config.indexIntervalBytes, now);
    this.logEndOffset = lastOffset + 1;
    this.onStored?.(batch.length);
    // UnifiedLog.append: flush once flush.messages messages are unflushed.
    if (this.activeSegment.file !== null && this.logEndOffset - this.recoveryPoint >= config.flushMessages) this.flush(now);
  }

  // ---- segments (UnifiedLog.maybeRoll / roll, LocalLog.roll) --------------------------------------

  /** UnifiedLog.maybeRoll for an append of `messagesSize` bytes. */
  private maybeRoll(messagesSize: number, maxTimestamp: number, firstOffset: number, lastOffset: number, config: LogConfig, now: number): void {
    const params = { maxSegmentMs: maxSegmentMs(config), maxSegmentBytes: config.segmentBytes, maxTimestampInMessages: maxTimestamp, maxOffsetInMessages: lastOffset, messagesSize, now };
    if (this.activeSegment.shouldRoll(params)) this.roll(config, now, firstOffset);
  }

  /**
   * UnifiedLog.roll / LocalLog.roll: a new active segment at max(expectedNextOffset, log end
   * offset). An empty active segment with that base offset is replaced, as Kafka deletes and
   * recreates it. Returns the new segment.
   */
  roll(config: LogConfig, now: number, expectedNextOffset = 0): LogSegment {
    const newOffset = Math.max(expectedNextOffset, this.logEndOffset);
    const active = this.activeSegment;
    const segment = new LogSegment(newOffset, now, randomSegmentJitter(config, this.randomInt), config.segmentIndexBytes, null);
    if (active.baseOffset === newOffset && active.size === 0) {
      active.file?.delete();
      segment.file = this.segmentFile(newOffset, false);
      this.segments[this.segments.length - 1] = segment;
      return segment;
    }
    active.onBecomeInactive();
    segment.file = this.segmentFile(newOffset, false);
    this.segments.push(segment);
    return segment;
  }

  /** The segment holding `offset`: the last whose base offset is <= it (floorSegment); -1 if none. */
  private floorSegmentIndex(offset: number): number {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length - 1;
    if (segs[0].baseOffset > offset) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (segs[mid].baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * The LogOffsetMetadata of `offset`: the log end offset is the active segment's end; another
   * offset is the position of the batch holding it (LocalLog.convertToOffsetMetadataOrThrow), or
   * of the next batch when none holds it (a gap left by compaction).
   */
  offsetMetadata(offset: number): OffsetMetadata {
    if (offset >= this.logEndOffset) {
      const active = this.activeSegment;
      return { offset, segmentBaseOffset: active.baseOffset, position: active.size };
    }
    let si = Math.max(0, this.floorSegmentIndex(offset));
    while (si < this.segments.length) {
      const seg = this.segments[si];
      const slot = seg.slotOf(offset);
      if (slot >= 0) return { offset, segmentBaseOffset: seg.baseOffset, position: seg.positionAt(slot) };
      si++;
    }
    const active = this.activeSegment;
    return { offset, segmentBaseOffset: active.baseOffset, position: active.size };
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

  /** UnifiedLog.flush: fsyncs every segment's file; the recovery point becomes the log end offset. */
  flush(now: number): void {
    for (const seg of this.segments) if (seg.file !== null && seg.file.unflushedBytes > 0) seg.file.flush();
    this.recoveryPoint = this.logEndOffset;
    this.lastFlushTime = now;
  }

  /** The byte position of `offset` in its segment (offsetMetadata's position). */
  positionOf(offset: number): number {
    return this.offsetMetadata(offset).position;
  }

  // ---- read (UnifiedLog.read / LocalLog.read / LogSegment.read) -----------------------------------

  /**
   * Reads from the batch holding `fetchOffset` on, up to the high watermark, or with
   * `readCommitted` up to the last stable offset (FetchIsolation.TXN_COMMITTED: the byte position
   * of the batch holding it, so whole batches below it). One segment at most, as LocalLog.read: the
   * floor segment of the offset, or the next one when it holds nothing at or past it. At most
   * `maxBytes` bytes, cut mid-batch like Kafka's file slice; with `minOneMessage` the first batch
   * is returned whole even if larger. OFFSET_OUT_OF_RANGE below the log start offset or above the
   * log end offset. A read_committed read also gets the aborted transactions of its range
   * (LocalLog.addAbortedTransactions: an empty list when it starts at or past the last stable offset).
   */
  read(fetchOffset: number, maxBytes: number, minOneMessage: boolean, readCommitted = false): ReadResult {
    if (fetchOffset < this.logStartOffset || fetchOffset > this.logEndOffset) {
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1, startSegment: -1, abortedTransactions: null };
    }
    const maxOffset = readCommitted ? this.lastStableOffset : this.highWatermark;
    if (fetchOffset >= maxOffset) {
      // emptyFetchDataInfo, at the metadata of the fetch offset
      const at = this.offsetMetadata(fetchOffset);
      return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: at.position, startSegment: at.segmentBaseOffset, abortedTransactions: readCommitted ? NO_ABORTED : null };
    }
    if (maxBytes < 0) {
      // LogSegment.read: IllegalArgumentException("Invalid max size ...")
      return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: -1, startSegment: -1, abortedTransactions: null };
    }
    const maxMeta = this.offsetMetadata(maxOffset);
    for (let si = Math.max(0, this.floorSegmentIndex(fetchOffset)); si < this.segments.length; si++) {
      const seg = this.segments[si];
      const maxPosition = seg.baseOffset < maxMeta.segmentBaseOffset ? seg.size : seg.baseOffset === maxMeta.segmentBaseOffset ? maxMeta.position : null;
      const r = seg.read(fetchOffset, maxBytes, maxPosition, minOneMessage);
      if (r === null) continue;
      const aborted = readCommitted ? this.abortedTransactions(fetchOffset, si, r.startPosition, r.bytes) : null;
      return { errorCode: 0, records: r.records, bytes: r.bytes, firstEntryIncomplete: r.firstEntryIncomplete, startPosition: r.startPosition, startSegment: seg.baseOffset, abortedTransactions: aborted };
    }
    // Past the last segment's batches (all deleted by compaction): empty, at the log end.
    const end = this.offsetMetadata(this.logEndOffset);
    return { errorCode: 0, records: NO_RECORDS, bytes: 0, firstEntryIncomplete: false, startPosition: end.position, startSegment: end.segmentBaseOffset, abortedTransactions: readCommitted ? NO_ABORTED.slice() : null };
  }

  /**
   * LocalLog.addAbortedTransactions for a read of `fetchSize` bytes from `startPosition` of segment
   * `si`: the aborted transactions up to the segment's offset index upper bound, else the next
   * segment's base offset, else the log end offset.
   */
  private abortedTransactions(fetchOffset: number, si: number, startPosition: number, fetchSize: number): AbortedTxn[] {
    if (this.txnIndex.size === 0) return NO_ABORTED.slice();
    const next = this.segments[si + 1];
    const upperBound = this.segments[si].offsetIndex.upperBoundOffset(startPosition + fetchSize) ?? (next !== undefined ? next.baseOffset : this.logEndOffset);
    return this.txnIndex.collect(fetchOffset, upperBound);
  }

  // ---- DeleteRecords (Partition.deleteRecordsOnLeader, UnifiedLog.maybeIncrementLogStartOffset) ---

  /**
   * Moves the log start offset to `offset` (-1: the high watermark). OFFSET_OUT_OF_RANGE for other
   * negative offsets and offsets past the high watermark. The segments wholly below it are deleted
   * at the next retention check (deleteLogStartOffsetBreachedSegments), as on Kafka. Returns the low
   * watermark (the log start offset) on success.
   */
  deleteRecords(offset: number): { errorCode: number; lowWatermark: number } {
    const converted = offset === -1 ? this.highWatermark : offset;
    if (converted < 0 || converted > this.highWatermark) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 };
    this.maybeIncrementLogStartOffset(converted);
    return { errorCode: 0, lowWatermark: this.logStartOffset };
  }

  /** UnifiedLog.maybeIncrementLogStartOffset (the producer state keeps its producers). */
  private maybeIncrementLogStartOffset(offset: number): boolean {
    if (offset <= this.logStartOffset) return false;
    this.logStartOffset = offset;
    if (this.firstDirtyOffset < offset) this.firstDirtyOffset = offset;
    return true;
  }

  // ---- retention (UnifiedLog.deleteOldSegments) ----------------------------------------------------

  /**
   * UnifiedLog.deleteOldSegments: the segments wholly below the log start offset, then (with
   * cleanup.policy delete) those past retention.bytes and those older than retention.ms, oldest
   * first, never at or past the high watermark, never the last segment when empty. Deleting every
   * segment rolls a new one first. The log start offset moves to the first remaining segment.
   */
  deleteOldSegments(config: LogConfig, now: number): RetentionDeletion[] {
    const out: RetentionDeletion[] = [];
    const run = (reason: RetentionDeletion['reason'], predicate: (seg: LogSegment, next: LogSegment | undefined) => boolean): void => {
      const deletable = this.deletableSegments(predicate);
      if (deletable.length > 0) out.push(this.deleteSegments(deletable, reason, config, now));
    };
    run('log-start-offset', (_seg, next) => next !== undefined && next.baseOffset <= this.logStartOffset);
    if (config.delete) {
      const retentionSize = config.retentionBytes;
      let diff = this.size - retentionSize;
      if (retentionSize >= 0 && diff >= 0) {
        run('retention.bytes', (seg) => {
          if (diff - seg.size >= 0) {
            diff -= seg.size;
            return true;
          }
          return false;
        });
      }
      const retentionMs = config.retentionMs;
      if (retentionMs >= 0) run('retention.ms', (seg) => now - seg.largestTimestamp > retentionMs);
    }
    return out;
  }

  /** UnifiedLog.deletableSegments (no remote storage). */
  private deletableSegments(predicate: (seg: LogSegment, next: LogSegment | undefined) => boolean): LogSegment[] {
    const deletable: LogSegment[] = [];
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i];
      const next = this.segments[i + 1];
      const isLastSegmentAndEmpty = next === undefined && seg.size === 0;
      const upperBoundOffset = next !== undefined ? next.baseOffset : this.logEndOffset;
      if (this.highWatermark >= upperBoundOffset && predicate(seg, next) && !isLastSegmentAndEmpty) deletable.push(seg);
      else break;
    }
    return deletable;
  }

  /** UnifiedLog.deleteSegments: the first `deletable.length` segments go. */
  private deleteSegments(deletable: LogSegment[], reason: RetentionDeletion['reason'], config: LogConfig, now: number): RetentionDeletion {
    let toDelete = deletable.length;
    if (this.segments.length === toDelete) {
      const fresh = this.roll(config, now);
      // An empty active segment deleted and recreated: it is not counted as deleted.
      if (deletable[deletable.length - 1].baseOffset === fresh.baseOffset) toDelete--;
    }
    const bytes = deletable.slice(0, toDelete).reduce((n, seg) => n + seg.size, 0);
    if (toDelete > 0) {
      const removed = this.segments.splice(0, toDelete);
      this.maybeIncrementLogStartOffset(this.segments[0].baseOffset);
      this.txnIndex.dropBelow(this.segments[0].baseOffset);
      for (const seg of removed) seg.file?.delete();
    }
    return { reason, segments: deletable.length, bytes, logStartOffset: this.logStartOffset };
  }

  /**
   * The stored-memory cap without a data dir (kmock's own rule, docs/storage.md): deletes the
   * oldest segment when it is not the active one, as retention does; else drops the active
   * segment's oldest batches, at least `bytes` of them, below the high watermark. The log start
   * offset moves past what went. Returns the bytes freed, 0 when nothing can go.
   */
  dropOldest(bytes: number, config: LogConfig, now: number): number {
    if (this.segments.length > 1) {
      let first = true;
      const deletable = this.deletableSegments(() => {
        const take = first;
        first = false;
        return take;
      });
      return deletable.length === 0 ? 0 : this.deleteSegments(deletable, 'memory', config, now).bytes;
    }
    const r = this.activeSegment.dropHead(bytes, this.highWatermark);
    if (r.bytes > 0) {
      this.maybeIncrementLogStartOffset(Math.min(r.nextOffset, this.highWatermark));
      this.txnIndex.dropBelow(this.logStartOffset);
    }
    return r.bytes;
  }

  /** Lets go of the in-memory bytes of the oldest segments that have a file, until `bytes` are freed. */
  evictOldest(bytes: number): number {
    let freed = 0;
    for (let i = 0; i < this.segments.length && freed < bytes; i++) freed += this.segments[i].evict(bytes - freed);
    return freed;
  }

  // ---- compaction (the cleaner: cleaner-run.ts) -------------------------------------------------------

  /**
   * Replaces segments [from, from + count) with `replacement` (the cleaner's output, same offsets):
   * Cleaner.cleanSegments' replaceSegments. The transaction index becomes `abortedTransactions`.
   */
  replaceSegments(from: number, count: number, replacement: LogSegment[], abortedTransactions: readonly AbortedTxn[]): void {
    const removed = this.segments.splice(from, count, ...replacement);
    for (const seg of removed) if (!replacement.includes(seg)) seg.file?.delete();
    for (const seg of replacement) seg.file?.swapIn?.();
    this.txnIndex.replaceAll(abortedTransactions);
  }

  /** A new segment for the cleaner's output (its file made as the log makes them). */
  newSegment(baseOffset: number, created: number, config: LogConfig): LogSegment {
    return new LogSegment(baseOffset, created, 0, config.segmentIndexBytes, this.segmentFile(baseOffset, true));
  }

  // ---- offsets by timestamp (offset-lookups.ts: UnifiedLog.fetchOffsetByTimestamp) ----------------

  /** ListOffsets by timestamp: offset-lookups.ts offsetForTimestamp. */
  offsetForTimestamp(target: number): TimestampAndOffset | null {
    return offsetForTimestamp(this, target);
  }

  /** ListOffsets MAX_TIMESTAMP (-3): offset-lookups.ts maxTimestampOffset. */
  maxTimestampOffset(): TimestampAndOffset | null {
    return maxTimestampOffset(this);
  }

  /** ListOffsets v0: offset-lookups.ts legacyOffsetsBefore. */
  legacyOffsetsBefore(timestamp: number, maxNumOffsets: number, now = Date.now()): number[] {
    return legacyOffsetsBefore(this, timestamp, maxNumOffsets, now);
  }
}







function unknownFailure(errorCode: number, reason: string): AppendResult {
  return { errorCode, baseOffset: -1, logAppendTime: -1, logStartOffset: -1, recordErrors: [], errorMessage: null, reason, appended: false };
}
