// Idempotent-producer state of one partition, as Kafka 3.9 keeps it (storage/.../log/
// ProducerStateManager.java, ProducerStateEntry.java, ProducerAppendInfo.java, BatchMetadata.java):
// per producer id, its epoch and the metadata of its last five batches, so that
// - a retried batch (same epoch, same first and last sequence as one of the five) is answered
//   with the offsets it was first appended at, without appending again;
// - an older epoch is refused with INVALID_PRODUCER_EPOCH;
// - a sequence that does not follow the last one is refused with OUT_OF_ORDER_SEQUENCE_NUMBER.
// Kafka 3.9 never sends UNKNOWN_PRODUCER_ID from the log: a producer id it has no state for (new,
// or expired) is accepted at any sequence (ProducerAppendInfo.checkSequence), and so is it here.
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
    if (this.producerEpoch !== epoch) {
      this.batches.length = 0;
      this.producerEpoch = epoch;
    }
    if (this.batches.length === NUM_BATCHES_TO_RETAIN) this.batches.shift();
    this.batches.push(meta);
    this.lastTimestamp = meta.timestamp;
  }
}

/** The outcome of checking one data batch against a producer's state. */
export type ProducerCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; batch: BatchMetadata }
  | { kind: 'error'; errorCode: number; message: string };

const APPEND: ProducerCheck = { kind: 'append' };

export interface ProducerStateOptions {
  expirationMs?: number;
  checkIntervalMs?: number;
  /**
   * When the broker started (its clock's ms): Kafka runs the expiration check on a broker-wide
   * schedule that starts with the broker (LogManager's "PeriodicProducerExpirationCheck").
   */
  scheduleOrigin?: number;
}

export class ProducerStateManager {
  private readonly producers = new Map<bigint, ProducerStateEntry>();
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
   * client data batch: the duplicate check first, then the epoch, then the sequence.
   */
  check(producerId: bigint, epoch: number, firstSeq: number, lastSeq: number, firstOffset: number, now = Date.now()): ProducerCheck {
    const current = this.lastEntry(producerId, now);
    if (current !== undefined) {
      const dup = current.findDuplicateBatch(epoch, firstSeq, lastSeq);
      if (dup !== undefined) return { kind: 'duplicate', batch: dup };
    }
    const currentEpoch = current?.producerEpoch ?? NO_PRODUCER_EPOCH;
    // checkProducerEpoch
    if (epoch < currentEpoch) {
      return {
        kind: 'error',
        errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
        message:
          `Epoch of producer ${producerId} at offset ${firstOffset} in ${this.topicPartition} is ${epoch}, ` +
          `which is smaller than the last seen epoch ${currentEpoch}`,
      };
    }
    // checkSequence (origin CLIENT)
    if (epoch !== currentEpoch) {
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
    return APPEND;
  }

  /** ProducerStateManager.update after the batch was appended. */
  update(producerId: bigint, epoch: number, meta: BatchMetadata): void {
    let entry = this.producers.get(producerId);
    if (entry === undefined) {
      entry = new ProducerStateEntry(producerId);
      this.producers.set(producerId, entry);
    }
    entry.addBatch(epoch, meta);
  }

  /**
   * ProducerStateManager.removeExpiredProducers, run on Kafka's schedule: every check that was due
   * by `now` happens at its scheduled time (entries only change when this object is used, and it
   * runs the due checks first, so evaluating at the latest due time is exact).
   */
  private maybeExpire(now: number): void {
    if (now < this.nextExpirationCheck || this.producers.size === 0) {
      if (now >= this.nextExpirationCheck) this.advanceSchedule(now);
      return;
    }
    const checkTime = this.advanceSchedule(now);
    for (const [id, entry] of this.producers) {
      // No transactions in kmock, so no entry has an ongoing transaction that would keep it.
      if (checkTime - entry.lastTimestamp >= this.expirationMs) this.producers.delete(id);
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
