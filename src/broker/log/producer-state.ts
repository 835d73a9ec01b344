// Idempotent and transactional producer state of one partition, as Kafka 3.9 keeps it (storage/
// .../log/ProducerStateManager.java, ProducerStateEntry.java, ProducerAppendInfo.java,
// BatchMetadata.java, VerificationStateEntry.java, VerificationGuard.java): per producer id, its
// epoch and the metadata of its last five batches, so that
// - a retried batch (same epoch, same first and last sequence as one of the five) is answered
//   with the offsets it was first appended at, without appending again;
// - an older epoch is refused with INVALID_PRODUCER_EPOCH;
// - a sequence that does not follow the last one is refused with OUT_OF_ORDER_SEQUENCE_NUMBER.
// Kafka 3.9 never sends UNKNOWN_PRODUCER_ID from the log: a producer id it has no state for (new,
// or expired) is accepted at any sequence (ProducerAppendInfo.checkSequence), and so is it here.
//
// Transactions (ProducerAppendInfo.appendDataBatch / appendEndTxnMarker, ProducerStateManager
// ongoingTxns / lastStableOffset / completeTxn):
// - the first transactional batch of a producer starts its transaction: currentTxnFirstOffset is
//   that batch's base offset, and the partition's ongoing transactions (by first offset) gain it;
// - a non-transactional batch while the producer's transaction is ongoing: INVALID_TXN_STATE
//   (the reverse, a transactional batch after non-transactional ones, just starts a transaction);
// - a COMMIT/ABORT marker with an epoch below the producer's: INVALID_PRODUCER_EPOCH; with a
//   coordinator epoch below the last one seen: TRANSACTION_COORDINATOR_FENCED; else it ends the
//   transaction (if any: a marker for a producer with none is written all the same and only
//   updates the epochs), taking the marker's epoch (a fenced producer's epoch bump) and forgetting
//   the producer's batches when the epoch changes;
// - producers with an ongoing transaction never expire.
// KIP-890 part 1 (transaction.partition.verification.enable): before a transactional batch of a
// producer with no ongoing transaction is appended, Produce asks the coordinator; the partition
// keeps a VerificationStateEntry (a unique guard, the lowest sequence seen) from the moment it
// starts asking until a transactional batch or marker of that producer is written (or the entry
// expires with producer.id.expiration.ms). The append needs the guard it was given (see
// UnifiedLog.analyzeAndValidateProducerState).
//
// Kafka also keeps "unreplicated" completed transactions (markers above the high watermark);
// with one replica the high watermark reaches the marker within the same append, so none is ever
// left between two requests and kmock keeps none.
import { ErrorCode } from '../../codec/index.js';

/** RecordBatch.NO_PRODUCER_EPOCH / NO_SEQUENCE. */
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
/** ProducerStateEntry.NUM_BATCHES_TO_RETAIN. */
export const NUM_BATCHES_TO_RETAIN = 5;
/** producer.id.expiration.ms (Kafka default: one day). */
export const PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** producer.id.expiration.check.interval.ms (Kafka default: ten minutes). */
export const PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600_000;

const INT32_MAX = 0x7fffffff;


/** DefaultRecordBatch.incrementSequence: sequences wrap from Integer.MAX_VALUE to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

/** DefaultRecordBatch.decrementSequence. */
export function decrementSequence(sequence: number, decrement: number): number {
  if (sequence < decrement) return INT32_MAX - (decrement - sequence) + 1;
  return sequence - decrement;
}

/** BatchMetadata: what is remembered of one appended batch. */
export interface BatchMetadata {
  lastSeq: number;
  lastOffset: number;
  /** lastOffset - firstOffset. */
  offsetDelta: number;
  /** The batch's max timestamp as stored (the append time under LogAppendTime). */
  timestamp: number;
}

export function firstSeqOf(b: BatchMetadata): number {
  return decrementSequence(b.lastSeq, b.offsetDelta);
}

export function firstOffsetOf(b: BatchMetadata): number {
  return b.lastOffset - b.offsetDelta;
}

export class ProducerStateEntry {
  /** Oldest first, at most NUM_BATCHES_TO_RETAIN. */
  readonly batches: BatchMetadata[] = [];
  producerEpoch = NO_PRODUCER_EPOCH;
  lastTimestamp = -1;
  /** The coordinator epoch of the last marker written for this producer (-1 before any). */
  coordinatorEpoch = -1;
  /** First offset of the producer's ongoing transaction, or -1 when it has none. */
  currentTxnFirstOffset = -1;

  constructor(readonly producerId: bigint) {}

  get lastSeq(): number {
    return this.batches.length === 0 ? NO_SEQUENCE : this.batches[this.batches.length - 1].lastSeq;
  }

  /** ProducerStateEntry.findDuplicateBatch: same epoch and exactly the same sequence range. */
  findDuplicateBatch(epoch: number, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
    if (epoch !== this.producerEpoch) return undefined;
    for (const b of this.batches) if (b.lastSeq === lastSeq && firstSeqOf(b) === firstSeq) return b;
    return undefined;
  }

  /** ProducerStateEntry.addBatch (via update): a new epoch forgets the old epoch's batches. */
  addBatch(epoch: number, meta: BatchMetadata): void {
    this.maybeUpdateProducerEpoch(epoch);
    if (this.batches.length === NUM_BATCHES_TO_RETAIN) this.batches.shift();
    this.batches.push(meta);
    this.lastTimestamp = meta.timestamp;
  }

  /** ProducerStateEntry.update(epoch, coordinatorEpoch, lastTimestamp): what a marker leaves. */
  endTransaction(epoch: number, coordinatorEpoch: number, timestamp: number): void {
    this.maybeUpdateProducerEpoch(epoch);
    this.coordinatorEpoch = coordinatorEpoch;
    this.currentTxnFirstOffset = -1;
    this.lastTimestamp = timestamp;
  }

  private maybeUpdateProducerEpoch(epoch: number): void {
    if (this.producerEpoch !== epoch) {
      this.batches.length = 0;
      this.producerEpoch = epoch;
    }
  }
}

/**
 * VerificationGuard: a unique value per VerificationStateEntry; SENTINEL (0) verifies nothing.
 * Kafka draws them from a broker-wide counter; only equality matters.
 */
export type VerificationGuard = number;
export const SENTINEL_GUARD: VerificationGuard = 0;
let lastGuard = 0;

/** VerificationStateEntry: made when Produce starts verifying a producer's first transactional batch. */
export class VerificationStateEntry {
  readonly guard: VerificationGuard = ++lastGuard;

  constructor(
    /** Creation time (the entry expires producer.id.expiration.ms after it). */
    readonly timestamp: number,
    public lowestSequence: number,
    public epoch: number,
  ) {}

  /** maybeUpdateLowestSequenceAndEpoch: a lower sequence of the same epoch, or any sequence of a newer one. */
  update(sequence: number, epoch: number): void {
    if (epoch === this.epoch && sequence < this.lowestSequence) this.lowestSequence = sequence;
    if (epoch > this.epoch) {
      this.epoch = epoch;
      this.lowestSequence = sequence;
    }
  }
}

/** What the transactional checks of one data batch need (UnifiedLog.analyzeAndValidateProducerState). */
export interface TxnBatchInfo {
  isTransactional: boolean;
  /** ProducerStateManagerConfig.transactionVerificationEnabled (transaction.partition.verification.enable). */
  verificationEnabled: boolean;
  /** The guard Produce's verification was given (SENTINEL_GUARD when there was none). */
  guard: VerificationGuard;
  /** AppendOrigin.COORDINATOR skips the duplicate and sequence checks. */
  origin?: 'client' | 'coordinator';
}

const NOT_TRANSACTIONAL: TxnBatchInfo = { isTransactional: false, verificationEnabled: true, guard: SENTINEL_GUARD };

/** CompletedTxn with the last stable offset the transaction index records for it. */
export interface CompletedTxn {
  producerId: bigint;
  firstOffset: number;
  /** The marker's offset. */
  lastOffset: number;
  isAborted: boolean;
  /** ProducerStateManager.lastStableOffset(completedTxn). */
  lastStableOffset: number;
}

/** The outcome of checking a COMMIT/ABORT marker against the producer's state. */
export type MarkerCheck = { kind: 'append' } | { kind: 'error'; errorCode: number; message: string };

/** The outcome of checking one data batch against a producer's state. */
export type ProducerCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; batch: BatchMetadata }
  | { kind: 'error'; errorCode: number; message: string };

const APPEND: ProducerCheck = { kind: 'append' };
const APPEND_MARKER: MarkerCheck = { kind: 'append' };

export interface ProducerStateOptions {
  expirationMs?: number;
  checkIntervalMs?: number;
  /**
   * When the broker started (its clock's ms): Kafka runs the expiration check on a broker-wide
   * schedule that starts with the broker (LogManager's "PeriodicProducerExpirationCheck").
   */
  scheduleOrigin?: number;
}

/** One producer in a snapshot file (storage/format/producer-snapshot.ts's entry). */
export interface ProducerSnapshotState {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: number;
  offsetDelta: number;
  timestamp: number;
  coordinatorEpoch: number;
  currentTxnFirstOffset: number;
}

export class ProducerStateManager {
  private readonly producers = new Map<bigint, ProducerStateEntry>();
  private readonly verificationStates = new Map<bigint, VerificationStateEntry>();
  /**
   * ongoingTxns: first offset -> producer id. Transactions start at the log end offset, so
   * insertion order is first-offset order (Kafka's TreeMap order).
   */
  private readonly ongoingTxns = new Map<number, bigint>();
  private peak = 0;
  private readonly expirationMs: number;
  private readonly checkIntervalMs: number;
  private nextExpirationCheck: number;

  constructor(
    private readonly topicPartition: string,
    options: ProducerStateOptions = {},
  ) {
    this.expirationMs = options.expirationMs ?? PRODUCER_ID_EXPIRATION_MS;
    this.checkIntervalMs = options.checkIntervalMs ?? PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS;
    this.nextExpirationCheck = (options.scheduleOrigin ?? Date.now()) + this.checkIntervalMs;
  }

  get size(): number {
    return this.producers.size;
  }

  /** The producers with state (DescribeProducers' view). */
  activeProducers(now = Date.now()): ReadonlyMap<bigint, ProducerStateEntry> {
    this.maybeExpire(now);
    return this.producers;
  }

  lastEntry(producerId: bigint, now = Date.now()): ProducerStateEntry | undefined {
    this.maybeExpire(now);
    return this.producers.get(producerId);
  }

  /**
   * UnifiedLog.analyzeAndValidateProducerState + ProducerAppendInfo.appendDataBatch for one
   * client data batch: the duplicate check first, then the transaction verification, the epoch,
   * the sequence, and the transactional state.
   */
  check(
    producerId: bigint,
    epoch: number,
    firstSeq: number,
    lastSeq: number,
    firstOffset: number,
    now = Date.now(),
    txn: TxnBatchInfo = NOT_TRANSACTIONAL,
  ): ProducerCheck {
    const current = this.lastEntry(producerId, now);
    const fromClient = txn.origin !== 'coordinator';
    if (current !== undefined && fromClient) {
      const dup = current.findDuplicateBatch(epoch, firstSeq, lastSeq);
      if (dup !== undefined) return { kind: 'duplicate', batch: dup };
    }
    const ongoing = current !== undefined && current.currentTxnFirstOffset >= 0;
    // batchMissingRequiredVerification: a transactional batch that starts a transaction needs the
    // guard of the verification Produce ran for it.
    if (txn.isTransactional && !ongoing && txn.verificationEnabled) {
      const v = this.verificationStates.get(producerId);
      if (txn.guard === SENTINEL_GUARD || v === undefined || v.guard !== txn.guard) {
        return { kind: 'error', errorCode: ErrorCode.INVALID_TXN_STATE, message: 'Record was not part of an ongoing transaction' };
      }
    }
    const currentEpoch = current?.producerEpoch ?? NO_PRODUCER_EPOCH;
    // checkProducerEpoch
    if (epoch < currentEpoch) return this.epochError(producerId, firstOffset, epoch, currentEpoch);
    // checkSequence (origin CLIENT only)
    const verification = this.verificationStates.get(producerId);
    if (fromClient && verification !== undefined && firstSeq > verification.lowestSequence) {
      return {
        kind: 'error',
        errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        message:
          `Out of order sequence number for producer ${producerId} at offset ${firstOffset} in partition ${this.topicPartition}: ` +
          `${firstSeq} (incoming seq. number), ${verification.lowestSequence} (earliest seen sequence)`,
      };
    }
    if (!fromClient) {
      // a coordinator's batch: no sequence rules
    } else if (epoch !== currentEpoch) {
      if (firstSeq !== 0 && currentEpoch !== NO_PRODUCER_EPOCH) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message:
            `Invalid sequence number for new epoch of producer ${producerId}at offset ${firstOffset} in partition ` +
            `${this.topicPartition}: ${epoch} (request epoch), ${firstSeq} (seq. number), ${currentEpoch} (current producer epoch)`,
        };
      }
    } else {
      const currentLastSeq = current?.lastSeq ?? NO_SEQUENCE;
      if (!(currentEpoch === NO_PRODUCER_EPOCH || inSequence(currentLastSeq, firstSeq))) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message:
            `Out of order sequence number for producer ${producerId} at offset ${firstOffset} in partition ` +
            `${this.topicPartition}: ${firstSeq} (incoming seq. number), ${currentLastSeq} (current end sequence number)`,
        };
      }
    }
    // appendDataBatch: a producer in a transaction writes transactional batches only.
    if (ongoing && !txn.isTransactional) {
      return {
        kind: 'error',
        errorCode: ErrorCode.INVALID_TXN_STATE,
        message: `Expected transactional write from producer ${producerId} at offset ${firstOffset} in partition ${this.topicPartition}`,
      };
    }
    return APPEND;
  }

  private epochError(producerId: bigint, offset: number, epoch: number, currentEpoch: number): { kind: 'error'; errorCode: number; message: string } {
    return {
      kind: 'error',
      errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
      message:
        `Epoch of producer ${producerId} at offset ${offset} in ${this.topicPartition} is ${epoch}, ` +
        `which is smaller than the last seen epoch ${currentEpoch}`,
    };
  }

  /**
   * ProducerStateManager.update after the batch was appended: a transactional batch of a producer
   * with no ongoing transaction starts one at `firstOffset`, and any transactional batch clears the
   * producer's verification state (UnifiedLog.updateProducers).
   */
  update(producerId: bigint, epoch: number, meta: BatchMetadata, isTransactional = false): void {
    const entry = this.entryFor(producerId);
    entry.addBatch(epoch, meta);
    if (isTransactional) {
      if (entry.currentTxnFirstOffset < 0) {
        const firstOffset = firstOffsetOf(meta);
        entry.currentTxnFirstOffset = firstOffset;
        this.ongoingTxns.set(firstOffset, producerId);
      }
      this.verificationStates.delete(producerId);
    }
  }

  private entryFor(producerId: bigint): ProducerStateEntry {
    let entry = this.producers.get(producerId);
    if (entry === undefined) {
      entry = new ProducerStateEntry(producerId);
      this.producers.set(producerId, entry);
      if (this.producers.size > this.peak) this.peak = this.producers.size;
    }
    return entry;
  }

  // ---- snapshots (ProducerStateManager.writeSnapshot / readSnapshot / loadFromSnapshot) ---------

  /**
   * The producers as Kafka's snapshot file holds them: each producer's last batch only (and its
   * ongoing transaction's first offset).
   */
  snapshotEntries(): ProducerSnapshotState[] {
    const out: ProducerSnapshotState[] = [];
    for (const e of this.producers.values()) {
      const last = e.batches[e.batches.length - 1];
      out.push({
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        lastSequence: last === undefined ? NO_SEQUENCE : last.lastSeq,
        lastOffset: last === undefined ? -1 : last.lastOffset,
        offsetDelta: last === undefined ? 0 : last.offsetDelta,
        timestamp: e.lastTimestamp,
        coordinatorEpoch: e.coordinatorEpoch,
        currentTxnFirstOffset: e.currentTxnFirstOffset,
      });
    }
    return out;
  }

  /** ProducerStateManager.loadFromSnapshot: the entries a snapshot held (before the log's later batches replay). */
  loadSnapshot(entries: readonly ProducerSnapshotState[], options: { onlyMissing?: boolean } = {}): void {
    for (const s of entries) {
      if (options.onlyMissing && this.producers.has(s.producerId)) continue;
      const e = this.entryFor(s.producerId);
      e.producerEpoch = s.producerEpoch;
      e.coordinatorEpoch = s.coordinatorEpoch;
      e.lastTimestamp = s.timestamp;
      e.batches.length = 0;
      if (s.lastOffset >= 0) e.batches.push({ lastSeq: s.lastSequence, lastOffset: s.lastOffset, offsetDelta: s.offsetDelta, timestamp: s.timestamp });
      e.currentTxnFirstOffset = s.currentTxnFirstOffset;
      if (s.currentTxnFirstOffset >= 0) this.ongoingTxns.set(s.currentTxnFirstOffset, s.producerId);
    }
    // ongoingTxns in first-offset order (TreeMap), whatever order the file had
    const sorted = [...this.ongoingTxns].sort((a, b) => a[0] - b[0]);
    this.ongoingTxns.clear();
    for (const [k, v] of sorted) this.ongoingTxns.set(k, v);
  }

  /** The most producers ever held at once (the size Kafka's HashMap grew its table for: DescribeProducers' order). */
  get peakProducerCount(): number {
    return this.peak;
  }

  // ---- transactions ----------------------------------------------------------------------------

  /** UnifiedLog.hasOngoingTransaction. */
  hasOngoingTransaction(producerId: bigint): boolean {
    const entry = this.producers.get(producerId);
    return entry !== undefined && entry.currentTxnFirstOffset >= 0;
  }

  /**
   * UnifiedLog.maybeStartTransactionVerification: SENTINEL_GUARD when the producer's transaction
   * is already ongoing here (no verification needed), else the guard of its (new or existing)
   * verification state, whose lowest sequence and epoch this batch may lower or raise.
   */
  maybeStartTransactionVerification(producerId: bigint, sequence: number, epoch: number, now = Date.now()): VerificationGuard {
    this.maybeExpire(now);
    if (this.hasOngoingTransaction(producerId)) return SENTINEL_GUARD;
    let v = this.verificationStates.get(producerId);
    if (v === undefined) {
      v = new VerificationStateEntry(now, sequence, epoch);
      this.verificationStates.set(producerId, v);
    }
    v.update(sequence, epoch);
    return v.guard;
  }

  /** The producer's verification state, if Produce started one (tests, tools). */
  verificationState(producerId: bigint): VerificationStateEntry | undefined {
    return this.verificationStates.get(producerId);
  }

  /** ProducerStateManager.firstUndecidedOffset: the first offset of the oldest ongoing transaction, or -1. */
  firstUndecidedOffset(): number {
    for (const first of this.ongoingTxns.keys()) return first;
    return -1;
  }

  /** The ongoing transactions, oldest first: [first offset, producer id]. */
  ongoingTransactions(): ReadonlyMap<number, bigint> {
    return this.ongoingTxns;
  }

  /** ProducerAppendInfo.appendEndTxnMarker's checks (origin COORDINATOR): the epoch, then the coordinator epoch. */
  checkMarker(producerId: bigint, epoch: number, coordinatorEpoch: number, offset: number, now = Date.now()): MarkerCheck {
    const current = this.lastEntry(producerId, now);
    if (current === undefined) return APPEND_MARKER;
    if (epoch < current.producerEpoch) return this.epochError(producerId, offset, epoch, current.producerEpoch);
    if (current.coordinatorEpoch > coordinatorEpoch) {
      return {
        kind: 'error',
        errorCode: ErrorCode.TRANSACTION_COORDINATOR_FENCED,
        message:
          `Invalid coordinator epoch for producerId ${producerId} at offset ${offset} in partition ${this.topicPartition}: ` +
          `${coordinatorEpoch} (zombie), ${current.coordinatorEpoch} (current)`,
      };
    }
    return APPEND_MARKER;
  }

  /**
   * After the marker at `offset` was appended: ProducerStateManager.update, lastStableOffset and
   * completeTxn. Returns the transaction it completed, or null when the producer had none ongoing
   * (such a marker leaves no trace in the transaction index).
   */
  applyMarker(producerId: bigint, epoch: number, coordinatorEpoch: number, isAbort: boolean, offset: number, timestamp: number): CompletedTxn | null {
    const entry = this.entryFor(producerId);
    const firstOffset = entry.currentTxnFirstOffset;
    entry.endTransaction(epoch, coordinatorEpoch, timestamp);
    this.verificationStates.delete(producerId);
    if (firstOffset < 0) return null;
    // findNextIncompleteTxn: the oldest ongoing transaction of another producer.
    let lastStableOffset = offset + 1;
    for (const [first, pid] of this.ongoingTxns) {
      if (pid !== producerId) {
        lastStableOffset = first;
        break;
      }
    }
    this.ongoingTxns.delete(firstOffset);
    return { producerId, firstOffset, lastOffset: offset, isAborted: isAbort, lastStableOffset };
  }

  /**
   * ProducerStateManager.removeExpiredProducers, run on Kafka's schedule: every check that was due
   * by `now` happens at its scheduled time (entries only change when this object is used, and it
   * runs the due checks first, so evaluating at the latest due time is exact).
   */
  private maybeExpire(now: number): void {
    if (now < this.nextExpirationCheck || (this.producers.size === 0 && this.verificationStates.size === 0)) {
      if (now >= this.nextExpirationCheck) this.advanceSchedule(now);
      return;
    }
    const checkTime = this.advanceSchedule(now);
    for (const [id, entry] of this.producers) {
      // isProducerExpired: a producer with an ongoing transaction is kept.
      if (entry.currentTxnFirstOffset < 0 && checkTime - entry.lastTimestamp >= this.expirationMs) this.producers.delete(id);
    }
    for (const [id, v] of this.verificationStates) {
      if (checkTime - v.timestamp >= this.expirationMs) this.verificationStates.delete(id);
    }
  }

  /** Moves the schedule past `now`; returns the latest check time that was due. */
  private advanceSchedule(now: number): number {
    const missed = Math.floor((now - this.nextExpirationCheck) / this.checkIntervalMs);
    const checkTime = this.nextExpirationCheck + missed * this.checkIntervalMs;
    this.nextExpirationCheck = checkTime + this.checkIntervalMs;
    return checkTime;
  }
}

/** ProducerAppendInfo.inSequence. */
function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}
