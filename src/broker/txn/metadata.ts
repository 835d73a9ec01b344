// A transactional id's state, as Kafka 3.9's TransactionMetadata.scala holds it: the states and
// their valid previous states (TransactionState), the prepare/complete pair of every transition
// (prepareTransitionTo + completeTransitionTo, with the pending state in between), epoch bumps and
// exhaustion (prepareIncrementProducerEpoch, prepareProducerIdRotation, isEpochExhausted, KIP-360's
// lastProducerEpoch), and the epoch fence (prepareFenceProducerEpoch, hasFailedEpochFence).
//
// A prepare* call only computes the target (a `TxnTransit`, Kafka's TxnTransitMetadata) and sets
// `pendingState`; the state changes in completeTransition, after the transaction log write
// succeeded (coordinator.ts). Anything Kafka throws IllegalStateException for throws
// `TxnStateError` here: it means a coordinator bug, never a client error.

import { MAX_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, tpKey, type TopicPartition } from './types.js';
import { ErrorCode } from '../../codec/index.js';

export type TxnState =
  | 'Empty'
  | 'Ongoing'
  | 'PrepareCommit'
  | 'PrepareAbort'
  | 'CompleteCommit'
  | 'CompleteAbort'
  | 'Dead'
  | 'PrepareEpochFence';

/** TransactionState.fromId's ids (the transaction log's state byte). */
export const TXN_STATE_IDS: Readonly<Record<TxnState, number>> = Object.freeze({
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
});

/** TransactionState.AllStates, in id order. Names are what DescribeTransactions/ListTransactions show. */
export const ALL_TXN_STATES: readonly TxnState[] = Object.freeze(Object.keys(TXN_STATE_IDS) as TxnState[]);

/** Each state's validPreviousStates (TransactionMetadata.scala). */
export const VALID_PREVIOUS_STATES: Readonly<Record<TxnState, readonly TxnState[]>> = Object.freeze({
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteAbort', 'CompleteCommit'],
  PrepareEpochFence: ['Ongoing'],
});

/** TransactionState.isExpirationAllowed. */
export function isExpirationAllowed(state: TxnState): boolean {
  return state === 'Empty' || state === 'CompleteCommit' || state === 'CompleteAbort';
}

/** TransactionState.fromName. */
export function txnStateFromName(name: string): TxnState | undefined {
  return (ALL_TXN_STATES as readonly string[]).includes(name) ? (name as TxnState) : undefined;
}

/**
 * TransactionMetadata.isEpochExhausted: epochs stop at Short.MaxValue - 1 so that the coordinator
 * can always fence the last one with a bump to Short.MaxValue.
 */
export function isEpochExhausted(producerEpoch: number): boolean {
  return producerEpoch >= MAX_PRODUCER_EPOCH - 1;
}

/** Kafka's IllegalStateException/IllegalArgumentException in the coordinator: a bug, not a client error. */
export class TxnStateError extends Error {
  override readonly name = 'TxnStateError';
}

/** TxnTransitMetadata: the target of a prepared transition. */
export interface TxnTransit {
  readonly producerId: bigint;
  readonly lastProducerId: bigint;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly txnState: TxnState;
  /** tpKey()s. */
  readonly topicPartitions: ReadonlySet<string>;
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
}

/** A completed transition, as the property test and the events see it. */
export interface TransitionRecord {
  transactionalId: string;
  from: TxnState;
  to: TxnState;
}

export type TransitionObserver = (record: TransitionRecord) => void;

export class TxnMetadata {
  /** Kafka's pendingState: the state a prepared transition is going to; blocks other transitions. */
  pendingState: TxnState | null = null;
  /**
   * A previous epoch fence's log write failed, so the bumped epoch may not be in the log: the next
   * fence does not bump again (it was never returned to a client).
   */
  hasFailedEpochFence = false;
  /** tpKey()s, insertion order. */
  readonly topicPartitions = new Set<string>();

  constructor(
    readonly transactionalId: string,
    public producerId: bigint,
    public lastProducerId: bigint,
    public producerEpoch: number,
    public lastProducerEpoch: number,
    public txnTimeoutMs: number,
    public state: TxnState,
    public txnStartTimestamp: number,
    public txnLastUpdateTimestamp: number,
    private readonly observer?: TransitionObserver,
  ) {}

  /** A new id's metadata, as handleInitProducerId creates it: epoch -1, Empty. */
  static create(transactionalId: string, producerId: bigint, txnTimeoutMs: number, now: number, observer?: TransitionObserver): TxnMetadata {
    return new TxnMetadata(transactionalId, producerId, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, txnTimeoutMs, 'Empty', -1, now, observer);
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Ongoing, PrepareAbort or PrepareCommit. */
  get hasPendingTransaction(): boolean {
    return this.state === 'Ongoing' || this.state === 'PrepareAbort' || this.state === 'PrepareCommit';
  }

  partitions(): TopicPartition[] {
    return [...this.topicPartitions].map((k) => {
      const i = k.lastIndexOf(':');
      return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
    });
  }

  /** removePartition: a marker was written. Only while the markers of PrepareCommit/PrepareAbort go out. */
  removePartition(tp: TopicPartition): void {
    if (this.state !== 'PrepareCommit' && this.state !== 'PrepareAbort') {
      throw new TxnStateError(
        `transaction metadata's current state is ${this.state}, and its pending state is ${this.pendingState} while trying to remove partitions whose txn marker has been sent`,
      );
    }
    this.topicPartitions.delete(tpKey(tp));
  }

  // --- prepare ---------------------------------------------------------------------------------------

  /** prepareNoTransit (tests only in Kafka). */
  prepareNoTransit(): TxnTransit {
    return this.transit(this.state, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs,
      this.topicPartitions, this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  /** prepareFenceProducerEpoch: Ongoing → PrepareEpochFence with the epoch bumped (unless a fence failed before). */
  prepareFenceProducerEpoch(): TxnTransit {
    if (this.producerEpoch === MAX_PRODUCER_EPOCH) {
      throw new TxnStateError('Cannot fence producer with epoch equal to Short.MaxValue since this would overflow');
    }
    const bumped = this.hasFailedEpochFence ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepareTransitionTo('PrepareEpochFence', this.producerId, bumped, NO_PRODUCER_EPOCH, this.txnTimeoutMs,
      this.topicPartitions, this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  /**
   * prepareIncrementProducerEpoch (KIP-360). Without an expected epoch: bump, last epoch -1. With one:
   * equal to the current epoch (or no current epoch) → bump and remember the current as last; equal
   * to the last epoch → a retry of a successful bump, answered without bumping; else PRODUCER_FENCED.
   */
  prepareIncrementProducerEpoch(newTxnTimeoutMs: number, expectedProducerEpoch: number | undefined, now: number): TxnTransit | number {
    if (this.isProducerEpochExhausted) {
      throw new TxnStateError(`Cannot allocate any more producer epochs for producerId ${this.producerId}`);
    }
    const bumped = this.producerEpoch + 1;
    let next: number;
    let last: number;
    if (expectedProducerEpoch === undefined) {
      [next, last] = [bumped, NO_PRODUCER_EPOCH];
    } else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedProducerEpoch === this.producerEpoch) {
      [next, last] = [bumped, this.producerEpoch];
    } else if (expectedProducerEpoch === this.lastProducerEpoch) {
      [next, last] = [this.producerEpoch, this.lastProducerEpoch];
    } else {
      return ErrorCode.PRODUCER_FENCED;
    }
    return this.prepareTransitionTo('Empty', this.producerId, next, last, newTxnTimeoutMs, new Set(), -1, now);
  }

  /** prepareProducerIdRotation: a new producer id at epoch 0 (the old epoch kept as last if the client gave one). */
  prepareProducerIdRotation(newProducerId: bigint, newTxnTimeoutMs: number, now: number, recordLastEpoch: boolean): TxnTransit {
    if (this.hasPendingTransaction) {
      throw new TxnStateError('Cannot rotate producer ids while a transaction is still pending');
    }
    return this.prepareTransitionTo('Empty', newProducerId, 0, recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      newTxnTimeoutMs, new Set(), -1, now);
  }

  /** prepareAddPartitions: → Ongoing; the start time is set when a new transaction begins. */
  prepareAddPartitions(added: readonly TopicPartition[], now: number): TxnTransit {
    const start = this.state === 'Empty' || this.state === 'CompleteAbort' || this.state === 'CompleteCommit' ? now : this.txnStartTimestamp;
    const partitions = new Set(this.topicPartitions);
    for (const tp of added) partitions.add(tpKey(tp));
    return this.prepareTransitionTo('Ongoing', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs,
      partitions, start, now);
  }

  /** prepareAbortOrCommit: → PrepareCommit / PrepareAbort. */
  prepareAbortOrCommit(newState: 'PrepareCommit' | 'PrepareAbort', now: number): TxnTransit {
    return this.prepareTransitionTo(newState, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs,
      this.topicPartitions, this.txnStartTimestamp, now);
  }

  /** prepareComplete: → CompleteCommit / CompleteAbort, no partitions; clears hasFailedEpochFence. */
  prepareComplete(now: number): TxnTransit {
    const newState = this.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort';
    this.hasFailedEpochFence = false;
    return this.prepareTransitionTo(newState, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs,
      new Set(), this.txnStartTimestamp, now);
  }

  /** prepareDead: the id is being expired. */
  prepareDead(): TxnTransit {
    return this.prepareTransitionTo('Dead', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs,
      new Set(), this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  private transit(
    state: TxnState, producerId: bigint, epoch: number, lastEpoch: number, timeoutMs: number,
    partitions: ReadonlySet<string>, start: number, updated: number,
  ): TxnTransit {
    return Object.freeze({
      producerId,
      lastProducerId: this.producerId,
      producerEpoch: epoch,
      lastProducerEpoch: lastEpoch,
      txnTimeoutMs: timeoutMs,
      txnState: state,
      topicPartitions: new Set(partitions),
      txnStartTimestamp: start,
      txnLastUpdateTimestamp: updated,
    });
  }

  private prepareTransitionTo(
    newState: TxnState, newProducerId: bigint, newEpoch: number, newLastEpoch: number, newTimeoutMs: number,
    newPartitions: ReadonlySet<string>, newStart: number, now: number,
  ): TxnTransit {
    if (this.pendingState !== null) {
      throw new TxnStateError(`Preparing transaction state transition to ${newState} while it already a pending state ${this.pendingState}`);
    }
    if (newProducerId < 0n) throw new TxnStateError(`Illegal new producer id ${newProducerId}`);
    // The epoch is -1 only for metadata just created, which may stay so until it goes Dead.
    if (newState !== 'Dead' && newEpoch < 0) throw new TxnStateError(`Illegal new producer epoch ${newEpoch}`);
    if (!VALID_PREVIOUS_STATES[newState].includes(this.state)) {
      throw new TxnStateError(
        `Preparing transaction state transition to ${newState} failed since the target state ${newState} is not a valid previous state of the current state ${this.state}`,
      );
    }
    this.pendingState = newState;
    return this.transit(newState, newProducerId, newEpoch, newLastEpoch, newTimeoutMs, newPartitions, newStart, now);
  }

  // --- complete --------------------------------------------------------------------------------------

  /**
   * completeTransitionTo: after the transaction log write succeeded. Checks what Kafka checks per
   * target state (epoch unchanged or validly bumped, partitions only grow while Ongoing, timestamps)
   * and throws on anything else.
   */
  completeTransition(t: TxnTransit): void {
    const to = this.pendingState;
    if (to === null) {
      throw new TxnStateError(`TransactionalId ${this.transactionalId} completing transaction state transition while it does not have a pending state`);
    }
    if (to !== t.txnState) this.transitionFailure(t);
    switch (to) {
      case 'Empty': // from InitProducerId
        if ((this.producerEpoch !== t.producerEpoch && !this.validProducerEpochBump(t)) || t.topicPartitions.size > 0 || t.txnStartTimestamp !== -1) {
          this.transitionFailure(t);
        }
        this.txnTimeoutMs = t.txnTimeoutMs;
        this.producerEpoch = t.producerEpoch;
        this.lastProducerEpoch = t.lastProducerEpoch;
        this.producerId = t.producerId;
        this.lastProducerId = t.lastProducerId;
        break;
      case 'Ongoing': // from AddPartitions
        if (!this.validProducerEpoch(t) || ![...this.topicPartitions].every((k) => t.topicPartitions.has(k)) || this.txnTimeoutMs !== t.txnTimeoutMs) {
          this.transitionFailure(t);
        }
        this.txnStartTimestamp = t.txnStartTimestamp;
        for (const k of t.topicPartitions) this.topicPartitions.add(k);
        break;
      case 'PrepareAbort':
      case 'PrepareCommit': // from EndTxn
        if (!this.validProducerEpoch(t) || !sameSet(this.topicPartitions, t.topicPartitions) || this.txnTimeoutMs !== t.txnTimeoutMs ||
          this.txnStartTimestamp !== t.txnStartTimestamp) {
          this.transitionFailure(t);
        }
        break;
      case 'CompleteAbort':
      case 'CompleteCommit': // from writing the markers
        if (!this.validProducerEpoch(t) || this.txnTimeoutMs !== t.txnTimeoutMs || t.txnStartTimestamp === -1) this.transitionFailure(t);
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.topicPartitions.clear();
        break;
      case 'PrepareEpochFence':
        // Never completed: endTransaction replaces it with PrepareAbort before anything is written.
        this.transitionFailure(t);
        break;
      case 'Dead':
        // An expired id is removed from the cache, never moved to Dead.
        throw new TxnStateError(
          `TransactionalId ${this.transactionalId} is trying to complete a transition to Dead; the only acceptable completion is removal from the cache`,
        );
    }
    const from = this.state;
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
    this.pendingState = null;
    this.state = to;
    this.observer?.({ transactionalId: this.transactionalId, from, to });
  }

  private validProducerEpoch(t: TxnTransit): boolean {
    return t.producerEpoch === this.producerEpoch && t.producerId === this.producerId;
  }

  private validProducerEpochBump(t: TxnTransit): boolean {
    return t.producerEpoch === this.producerEpoch + 1 || (t.producerEpoch === 0 && t.producerId !== this.producerId);
  }

  private transitionFailure(t: TxnTransit): never {
    throw new TxnStateError(`TransactionalId ${this.transactionalId} failed transition to state ${t.txnState} due to unexpected metadata`);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((k) => b.has(k));
}
