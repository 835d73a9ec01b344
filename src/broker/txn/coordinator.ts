// The transaction coordinator: a pure state machine on an injected clock, following Kafka 3.9's
// TransactionCoordinator.scala (the operations), TransactionStateManager.scala (the id → metadata
// cache, appendTransactionToLog, timedOutTransactions, removeExpiredTransactionalIds,
// listTransactionStates, loadTransactionsForTxnTopicPartition) and
// TransactionMarkerChannelManager.scala (markers.ts).
//
// The pieces (src/broker/txn):
//   types.ts       ids, TopicPartition, results, the constants of RecordBatch
//   config.ts      the four transaction.* broker settings, Kafka 3.9 defaults
//   metadata.ts    TransactionMetadata: states, valid previous states, prepare/complete, epochs
//   markers.ts     the MarkerWriter seam and what each WriteTxnMarkers error means
//   events.ts      what `onEvent` hears
//   log-records.ts the __transaction_state records (TransactionLogKey/Value v0, tombstones)
//   transaction-log.ts the broker's TxnLogStore: those records appended to the partition logs
//   coordinator.ts this file: the operations, the outbox, the two housekeeping timers, loadFromLog
//
// kmock has one broker, so it owns every __transaction_state partition at coordinator epoch 0 and
// loads them before it serves a request (loadFromLog, called at start by coordinator-state.ts):
// NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS only come from a `TxnLogStore` that answers a
// log append error (mapped as appendTransactionToLog maps it).
//
// Transaction version: Kafka 3.9 serves transaction version 0/1 semantics (KIP-890 part 2, "TV2",
// with its epoch bump on every EndTxn and implicit AddPartitions, is 4.x). So: the epoch is bumped
// only by InitProducerId and by fencing; EndTxn keeps it; the client adds partitions explicitly.
//
// Easy to get wrong (all as 3.9 does):
// - Every operation answers PRODUCER_FENCED for a wrong epoch; KafkaApis turns it into
//   INVALID_PRODUCER_EPOCH for old versions: InitProducerId < v4, EndTxn < v2, AddPartitionsToTxn < v2,
//   AddOffsetsToTxn < v2 (and TxnOffsetCommit, in the group coordinator). The handlers must map it.
// - InitProducerId on an Ongoing transaction bumps the epoch (PrepareEpochFence), aborts, and answers
//   CONCURRENT_TRANSACTIONS even when the abort succeeded: the client retries and gets a second bump.
//   If the fence exhausts the epochs, that retry rotates to a new producer id.
// - EndTxn answers NONE as soon as PrepareCommit/PrepareAbort is written; the markers go out after,
//   and until CompleteCommit/CompleteAbort is written every request gets CONCURRENT_TRANSACTIONS.
// - EndTxn retried after completion: same result → NONE, the other → INVALID_TXN_STATE; EndTxn in
//   Empty → INVALID_TXN_STATE; in PrepareX with the same result → CONCURRENT_TRANSACTIONS.
// - AddPartitions of partitions already in an Ongoing transaction answers NONE without a write.
// - Unknown transactional id: INVALID_PRODUCER_ID_MAPPING for Add*/EndTxn, TRANSACTIONAL_ID_NOT_FOUND
//   for DescribeTransactions. An empty id: INVALID_REQUEST.
// - Transaction timeout check is `start + timeout < now` (strictly), made only every
//   abortTimedOutTransactionsIntervalMs; the abort bumps the epoch, fencing the producer.
// - KIP-360: an expected {producerId, epoch} equal to the current → bump, remember it as the last
//   epoch; equal to the last epoch → the retry of a bump, answered with the current epoch unbumped;
//   else PRODUCER_FENCED. A producer id that is neither current nor (with an exhausted epoch) the
//   last → PRODUCER_FENCED, unless the metadata was just created (epoch -1).
// - Expiration removes only ids in Empty/CompleteCommit/CompleteAbort with no pending transition,
//   idle for transactional.id.expiration.ms (`lastUpdate <= now - expiration`).
// - A failed log write clears the pending state; a failed epoch-fence write keeps the bumped epoch in
//   memory and sets hasFailedEpochFence, so the next fence does not bump again.

import type { Clock, TimerHandle, Timers } from '../group/clock.js';
import { javaUtilsAbs } from '../group/offsets-log.js';
import { javaStringHashCode } from '../group/protocol-selection.js';
import { resolveTransactionConfig, type TransactionCoordinatorConfig } from './config.js';
import type { TxnEvent, TxnEventListener } from './events.js';
import { MARKER_RETRY_BACKOFF_MS, immediateMarkerWriter, markerOutcome, type MarkerPartitionResult, type MarkerWriter } from './markers.js';
import { readTransactionLogPartition } from './log-records.js';
import type { RecordBatch } from '../../codec/records/batch.js';
import { TxnMetadata, TxnStateError, isEpochExhausted, isExpirationAllowed, txnStateFromName, type TransitionObserver, type TxnState, type TxnTransit } from './metadata.js';
import {
  GROUP_METADATA_TOPIC, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, tpKey,
  type InitProducerIdResult, type ProducerIdAndEpoch, type TopicPartition, type TransactionResult,
} from './types.js';
import { ErrorCode } from '../../codec/index.js';

/** kmock's ProducerIdManager (src/broker/log/producer-ids.ts). May throw; an `errorCode` on the error is answered. */
export interface ProducerIdAllocator {
  generateProducerId(): bigint;
}

/**
 * The transaction log (__transaction_state): the seam the coordinator's writes go through. The
 * broker's store appends TransactionLogKey/Value records to the id's partition
 * (transaction-log.ts); without one every append succeeds. A test or fault can answer a raw log
 * append error (e.g. NOT_ENOUGH_REPLICAS), which the coordinator maps and rolls back from exactly
 * as Kafka 3.9.
 */
export interface TxnLogStore {
  /** appendTransactionToLog's write: the id's new metadata (`transit`), one record. */
  append(transactionalId: string, transit: TxnTransit): number;
  /** removeExpiredTransactionalIds' write: the tombstones of one partition's expired ids, one batch. */
  appendTombstones(partition: number, transactionalIds: readonly string[]): number;
}

const alwaysSucceeds: TxnLogStore = { append: () => ErrorCode.NONE, appendTombstones: () => ErrorCode.NONE };

export interface TransactionCoordinatorOptions {
  config?: Partial<TransactionCoordinatorConfig>;
  clock: Clock;
  timers: Timers;
  producerIds: ProducerIdAllocator;
  /** GroupCoordinator.partitionFor: the __consumer_offsets partition of a group (AddOffsetsToTxn). */
  offsetsPartitionFor: (groupId: string) => number;
  markers?: MarkerWriter;
  log?: TxnLogStore;
  onEvent?: TxnEventListener;
  /** Every completed transition (tests and the property test). */
  onTransition?: TransitionObserver;
}

export interface DescribedTransaction {
  transactionalId: string;
  errorCode: number;
  transactionState: string;
  transactionTimeoutMs: number;
  transactionStartTimeMs: number;
  producerId: bigint;
  producerEpoch: number;
  topics: { topic: string; partitions: number[] }[];
}

export interface ListedTransactions {
  errorCode: number;
  unknownStateFilters: string[];
  transactionStates: { transactionalId: string; producerId: bigint; transactionState: string }[];
}

/** What loadFromLog found in one __transaction_state partition. */
export interface TxnLoadSummary {
  partition: number;
  /** Transactional ids loaded. */
  loaded: number;
  /** Records with a key version this coordinator cannot read (skipped, as Kafka warns and skips). */
  unknownKeys: number;
  /** Why reading stopped early (what was read before is loaded, as Kafka does). */
  error?: string;
}

type ApiResult<T> = { error: number } | { ok: T };

/** The coordinator epoch of every __transaction_state partition on kmock's one broker. */
export const COORDINATOR_EPOCH = 0;

export class TransactionCoordinator {
  readonly config: Readonly<TransactionCoordinatorConfig>;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly producerIds: ProducerIdAllocator;
  private readonly offsetsPartitionFor: (groupId: string) => number;
  private readonly markers: MarkerWriter;
  private readonly log: TxnLogStore;
  private readonly listener: TxnEventListener | undefined;
  private readonly transitionObserver: TransitionObserver | undefined;
  /** TransactionStateManager's cache, in creation order. */
  private readonly txns = new Map<string, TxnMetadata>();
  /** TransactionMarkerChannelManager.transactionsWithPendingMarkers: id → the Complete* transit to write. */
  private readonly pendingCompletions = new Map<string, { metadata: TxnMetadata; transit: TxnTransit }>();
  private readonly timerHandles = new Set<TimerHandle>();
  private closed = false;

  private readonly outbox: (() => void)[] = [];
  private depth = 0;
  private flushing = false;

  constructor(options: TransactionCoordinatorOptions) {
    this.config = resolveTransactionConfig(options.config);
    this.clock = options.clock;
    this.timers = options.timers;
    this.producerIds = options.producerIds;
    this.offsetsPartitionFor = options.offsetsPartitionFor;
    this.markers = options.markers ?? immediateMarkerWriter;
    this.log = options.log ?? alwaysSucceeds;
    this.listener = options.onEvent;
    this.transitionObserver = options.onTransition;
    // TransactionCoordinator.startup / TransactionStateManager.enableTransactionalIdExpiration.
    this.every(this.config.abortTimedOutTransactionsIntervalMs, 'transaction-abort', () => this.abortTimedOutTransactions());
    if (this.config.enableTransactionalIdExpiration) {
      this.every(this.config.removeExpiredTransactionalIdsIntervalMs, 'transactionalId-expiration', () => this.removeExpiredTransactionalIds());
    }
  }

  /** Stops the timers (TransactionCoordinator.shutdown). */
  close(): void {
    this.closed = true;
    for (const h of this.timerHandles) h.cancel();
    this.timerHandles.clear();
  }

  // --- views ------------------------------------------------------------------------------------------

  /** The metadata of an id (tests, the control plane): live, do not mutate. */
  metadata(transactionalId: string): TxnMetadata | undefined {
    return this.txns.get(transactionalId);
  }

  transactionalIds(): string[] {
    return [...this.txns.keys()];
  }

  /** handleDescribeTransactions (one id of a DescribeTransactions request). */
  describeTransaction(transactionalId: string): DescribedTransaction {
    const answer: DescribedTransaction = {
      transactionalId, errorCode: ErrorCode.NONE, transactionState: '', transactionTimeoutMs: 0,
      transactionStartTimeMs: 0, producerId: 0n, producerEpoch: 0, topics: [], // the response's defaults
    };
    if (transactionalId === '') return { ...answer, errorCode: ErrorCode.INVALID_REQUEST };
    const md = this.txns.get(transactionalId);
    // A Dead id is being expired: not found.
    if (md === undefined || md.state === 'Dead') return { ...answer, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
    const topics = new Map<string, number[]>();
    for (const tp of md.partitions()) {
      const list = topics.get(tp.topic) ?? [];
      list.push(tp.partition);
      topics.set(tp.topic, list);
    }
    return {
      transactionalId,
      errorCode: ErrorCode.NONE,
      transactionState: md.state,
      transactionTimeoutMs: md.txnTimeoutMs,
      transactionStartTimeMs: md.txnStartTimestamp,
      producerId: md.producerId,
      producerEpoch: md.producerEpoch,
      topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
    };
  }

  /**
   * handleListTransactions / listTransactionStates. Unknown state names are echoed in
   * unknownStateFilters (and match nothing); Dead ids are never listed. `durationFilterMs` is
   * ListTransactions v1's (KIP-994): only transactions running longer than it. Kafka's order is
   * its hash maps'; kmock lists in creation order.
   */
  listTransactions(stateFilters: readonly string[], producerIdFilters: readonly bigint[], durationFilterMs = -1): ListedTransactions {
    const states = new Set<TxnState>();
    const unknownStateFilters: string[] = [];
    for (const name of stateFilters) {
      const s = txnStateFromName(name);
      if (s === undefined) unknownStateFilters.push(name);
      else states.add(s);
    }
    const pids = new Set(producerIdFilters);
    const now = this.clock.now();
    const transactionStates = [...this.txns.values()]
      .filter((md) =>
        md.state !== 'Dead' &&
        (pids.size === 0 || pids.has(md.producerId)) &&
        (stateFilters.length === 0 || states.has(md.state)) &&
        !(durationFilterMs >= 0 && now - md.txnStartTimestamp <= durationFilterMs))
      .map((md) => ({ transactionalId: md.transactionalId, producerId: md.producerId, transactionState: md.state as string }));
    return { errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  }

  // --- loading (TransactionStateManager.loadTransactionsForTxnTopicPartition) ------------------------

  /**
   * Rebuilds the transactions of one __transaction_state partition from its log, read from the
   * log start offset to its end (loadTransactionMetadata): for each id its last record, a
   * tombstone forgetting it. Each comes back in its state with its producer id and epoch, timeout,
   * partitions and times, and no last producer id/epoch (the record has none); an Ongoing one is
   * aborted by the timeout check once its timeout passes, counted from its start as before; a
   * PrepareCommit/PrepareAbort one is completed: its markers are written again and then
   * CompleteCommit/CompleteAbort (addLoadedTransactionsToCache, then the markers). An id already
   * known is replaced, as the partition's cache entry is. A record that cannot be read stops the
   * reading; what came before it is loaded (`error` says why). Called once per partition at start.
   */
  loadFromLog(partition: number, batches: Iterable<RecordBatch>): TxnLoadSummary {
    let summary: TxnLoadSummary = { partition, loaded: 0, unknownKeys: 0 };
    this.run(() => {
      const { transactions, unknownKeys, error } = readTransactionLogPartition(batches);
      summary = { partition, loaded: transactions.size, unknownKeys, ...(error === undefined ? {} : { error }) };
      const loaded: TxnMetadata[] = [];
      for (const [transactionalId, r] of transactions) {
        const md = new TxnMetadata(
          transactionalId, r.producerId, NO_PRODUCER_ID, r.producerEpoch, NO_PRODUCER_EPOCH, r.txnTimeoutMs, r.state,
          r.txnStartTimestamp, r.txnLastUpdateTimestamp, (t) => this.onTransitioned(t.transactionalId, t.from, t.to),
        );
        for (const tp of r.partitions) md.topicPartitions.add(tpKey(tp));
        this.pendingCompletions.delete(transactionalId);
        this.txns.set(transactionalId, md);
        loaded.push(md);
      }
      for (const md of loaded) {
        if (md.state !== 'PrepareCommit' && md.state !== 'PrepareAbort') continue;
        const result: TransactionResult = md.state === 'PrepareCommit' ? 'COMMIT' : 'ABORT';
        this.addTxnMarkersToSend(result, md, md.prepareComplete(this.clock.now()));
      }
    });
    return summary;
  }

  // --- InitProducerId ---------------------------------------------------------------------------------

  /**
   * handleInitProducerId. `expected` is InitProducerId v3+'s ProducerId/ProducerEpoch when both are
   * set (KafkaApis answers INVALID_REQUEST when only one is -1, and passes none when both are).
   * Answers PRODUCER_FENCED where the handler must answer INVALID_PRODUCER_EPOCH below v4.
   */
  initProducerId(
    transactionalId: string | null,
    transactionTimeoutMs: number,
    expected: ProducerIdAndEpoch | undefined,
    callback: (result: InitProducerIdResult) => void,
  ): void {
    this.run(() => {
      const answer = (r: InitProducerIdResult) => this.deliver(() => callback(r));
      const fail = (errorCode: number) => answer({ producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH, errorCode });
      if (transactionalId === null) {
        // Idempotent producer: always a new id at epoch 0.
        const pid = this.allocate();
        if (typeof pid === 'number') fail(pid);
        else answer({ producerId: pid, producerEpoch: 0, errorCode: ErrorCode.NONE });
        return;
      }
      if (transactionalId === '') return fail(ErrorCode.INVALID_REQUEST);
      if (!this.validateTransactionTimeoutMs(transactionTimeoutMs)) return fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
      let md = this.txns.get(transactionalId);
      if (md === undefined) {
        const pid = this.allocate();
        if (typeof pid === 'number') return fail(pid);
        md = TxnMetadata.create(transactionalId, pid, transactionTimeoutMs, this.clock.now(), (r) => this.onTransitioned(r.transactionalId, r.from, r.to));
        this.txns.set(transactionalId, md); // putTransactionStateIfNotExists: kept even if the append below fails
      }
      const prepared = this.prepareInitProducerIdTransit(transactionTimeoutMs, md, expected);
      if ('error' in prepared) return fail(prepared.error);
      const transit = prepared.ok;
      if (transit.txnState === 'PrepareEpochFence') {
        // Abort the ongoing transaction; answer CONCURRENT_TRANSACTIONS so that the client retries.
        this.endTransactionInternal(transactionalId, transit.producerId, transit.producerEpoch, 'ABORT', false, (error) =>
          fail(error !== ErrorCode.NONE ? error : ErrorCode.CONCURRENT_TRANSACTIONS));
        return;
      }
      this.appendTransactionToLog(transactionalId, transit, (error) => {
        if (error === ErrorCode.NONE) answer({ producerId: transit.producerId, producerEpoch: transit.producerEpoch, errorCode: ErrorCode.NONE });
        else fail(error);
      });
    });
  }

  /** TransactionStateManager.validateTransactionTimeoutMs. */
  validateTransactionTimeoutMs(txnTimeoutMs: number): boolean {
    return txnTimeoutMs <= this.config.transactionMaxTimeoutMs && txnTimeoutMs > 0;
  }

  private prepareInitProducerIdTransit(timeoutMs: number, md: TxnMetadata, expected: ProducerIdAndEpoch | undefined): ApiResult<TxnTransit> {
    // Fence unless: the metadata was just created (recovering from UNKNOWN_PRODUCER_ID), the id is
    // the current one (the epoch is checked on the bump), or it is the last one with an exhausted
    // epoch (a retry of a rotation whose answer was lost).
    const isValidProducerId = (e: ProducerIdAndEpoch) =>
      md.producerEpoch === NO_PRODUCER_EPOCH || e.producerId === md.producerId ||
      (e.producerId === md.lastProducerId && isEpochExhausted(e.epoch));
    if (md.pendingTransitionInProgress) return { error: ErrorCode.CONCURRENT_TRANSACTIONS };
    if (expected !== undefined && !isValidProducerId(expected)) return { error: ErrorCode.PRODUCER_FENCED };
    switch (md.state) {
      case 'PrepareAbort':
      case 'PrepareCommit':
        return { error: ErrorCode.CONCURRENT_TRANSACTIONS };
      case 'CompleteAbort':
      case 'CompleteCommit':
      case 'Empty': {
        if (md.isProducerEpochExhausted && (expected === undefined || expected.epoch === md.producerEpoch)) {
          const pid = this.allocate();
          if (typeof pid === 'number') return { error: pid };
          return { ok: md.prepareProducerIdRotation(pid, timeoutMs, this.clock.now(), expected !== undefined) };
        }
        const r = md.prepareIncrementProducerEpoch(timeoutMs, expected?.epoch, this.clock.now());
        return typeof r === 'number' ? { error: r } : { ok: r };
      }
      case 'Ongoing':
        // This epoch is never returned: the client's retry bumps a second time (or rotates the id).
        return { ok: md.prepareFenceProducerEpoch() };
      case 'Dead':
      case 'PrepareEpochFence':
        throw new TxnStateError(`Found transactionalId ${md.transactionalId} with state ${md.state}. This is illegal as we should never have transitioned to this state.`);
    }
  }

  private allocate(): bigint | number {
    try {
      return this.producerIds.generateProducerId();
    } catch (e) {
      const code = (e as { errorCode?: unknown }).errorCode;
      return typeof code === 'number' ? code : ErrorCode.UNKNOWN_SERVER_ERROR; // Errors.forException
    }
  }

  // --- AddPartitionsToTxn / AddOffsetsToTxn -----------------------------------------------------------

  /**
   * handleAddPartitionsToTransaction: one error for the whole request. KafkaApis makes the
   * per-partition answers (UNKNOWN_TOPIC_OR_PARTITION for unknown partitions and
   * OPERATION_NOT_ATTEMPTED for the others, without calling the coordinator; otherwise this error
   * for every partition) and maps PRODUCER_FENCED to INVALID_PRODUCER_EPOCH below v2.
   */
  addPartitionsToTransaction(
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    partitions: readonly TopicPartition[],
    callback: (errorCode: number) => void,
  ): void {
    this.run(() => {
      const answer = (e: number) => this.deliver(() => callback(e));
      if (transactionalId === '') return answer(ErrorCode.INVALID_REQUEST);
      const md = this.txns.get(transactionalId);
      if (md === undefined) return answer(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      if (md.producerId !== producerId) return answer(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      if (md.producerEpoch !== producerEpoch) return answer(ErrorCode.PRODUCER_FENCED);
      if (md.pendingTransitionInProgress) return answer(ErrorCode.CONCURRENT_TRANSACTIONS);
      if (md.state === 'PrepareCommit' || md.state === 'PrepareAbort') return answer(ErrorCode.CONCURRENT_TRANSACTIONS);
      // Already in the transaction: NONE without a write.
      if (md.state === 'Ongoing' && partitions.every((tp) => md.topicPartitions.has(tpKey(tp)))) return answer(ErrorCode.NONE);
      // Epoch -1 matches metadata whose first InitProducerId write failed; Kafka's prepareTransitionTo
      // then throws IllegalArgumentException, which KafkaApis answers as UNKNOWN_SERVER_ERROR.
      if (producerEpoch < 0) return answer(ErrorCode.UNKNOWN_SERVER_ERROR);
      const transit = md.prepareAddPartitions(partitions, this.clock.now());
      this.appendTransactionToLog(transactionalId, transit, answer);
    });
  }

  /** KafkaApis.handleAddOffsetsToTxnRequest: the group's __consumer_offsets partition joins the transaction. */
  addOffsetsToTransaction(
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    groupId: string,
    callback: (errorCode: number) => void,
  ): void {
    const tp = { topic: GROUP_METADATA_TOPIC, partition: this.offsetsPartitionFor(groupId) };
    this.addPartitionsToTransaction(transactionalId, producerId, producerEpoch, [tp], callback);
  }

  /**
   * handleVerifyPartitionsInTransaction (AddPartitionsToTxn v4+ VerifyOnly, broker to broker in
   * 3.9): per partition NONE if in the transaction, else TRANSACTION_ABORTABLE; the pending state
   * is not checked.
   */
  verifyPartitionsInTransaction(transactionalId: string, producerId: bigint, producerEpoch: number, partitions: readonly TopicPartition[]): MarkerPartitionResult[] {
    const all = (errorCode: number) => partitions.map((tp) => ({ ...tp, errorCode }));
    if (transactionalId === '') return all(ErrorCode.INVALID_REQUEST);
    const md = this.txns.get(transactionalId);
    if (md === undefined || md.producerId !== producerId) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (md.producerEpoch !== producerEpoch) return all(ErrorCode.PRODUCER_FENCED);
    if (md.state === 'PrepareCommit' || md.state === 'PrepareAbort') return all(ErrorCode.CONCURRENT_TRANSACTIONS);
    return partitions.map((tp) => ({ ...tp, errorCode: md.topicPartitions.has(tpKey(tp)) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE }));
  }

  // --- EndTxn -----------------------------------------------------------------------------------------

  /** handleEndTransaction. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH for EndTxn < v2 (KafkaApis). */
  endTransaction(
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    result: TransactionResult,
    callback: (errorCode: number) => void,
  ): void {
    this.run(() => this.endTransactionInternal(transactionalId, producerId, producerEpoch, result, true, (e) => this.deliver(() => callback(e))));
  }

  private endTransactionInternal(
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    result: TransactionResult,
    isFromClient: boolean,
    callback: (errorCode: number) => void,
  ): void {
    if (transactionalId === '') return callback(ErrorCode.INVALID_REQUEST);
    const md = this.txns.get(transactionalId);
    if (md === undefined) return callback(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const invalidState = () => callback(ErrorCode.INVALID_TXN_STATE);
    let isEpochFence = false;
    let transit: TxnTransit;
    if (md.producerId !== producerId) return callback(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    // Clients must send the current epoch; the coordinator's own aborts send a bumped one.
    if ((isFromClient && producerEpoch !== md.producerEpoch) || producerEpoch < md.producerEpoch) return callback(ErrorCode.PRODUCER_FENCED);
    if (md.pendingTransitionInProgress && md.pendingState !== 'PrepareEpochFence') return callback(ErrorCode.CONCURRENT_TRANSACTIONS);
    switch (md.state) {
      case 'Ongoing': {
        const next = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort';
        if (next === 'PrepareAbort' && md.pendingState === 'PrepareEpochFence') {
          // Make way for PrepareAbort, with the bumped epoch in the metadata about to be written.
          isEpochFence = true;
          md.pendingState = null;
          md.producerEpoch = producerEpoch;
          md.lastProducerEpoch = NO_PRODUCER_EPOCH;
        }
        transit = md.prepareAbortOrCommit(next, this.clock.now());
        break;
      }
      case 'CompleteCommit':
        return result === 'COMMIT' ? callback(ErrorCode.NONE) : invalidState();
      case 'CompleteAbort':
        return result === 'ABORT' ? callback(ErrorCode.NONE) : invalidState();
      case 'PrepareCommit':
        return result === 'COMMIT' ? callback(ErrorCode.CONCURRENT_TRANSACTIONS) : invalidState();
      case 'PrepareAbort':
        return result === 'ABORT' ? callback(ErrorCode.CONCURRENT_TRANSACTIONS) : invalidState();
      case 'Empty':
        return invalidState();
      case 'Dead':
      case 'PrepareEpochFence':
        throw new TxnStateError(`Found transactionalId ${transactionalId} with state ${md.state}. This is illegal as we should never have transitioned to this state.`);
    }
    this.appendTransactionToLog(transactionalId, transit, (error) => {
      if (error !== ErrorCode.NONE) {
        // The bumped epoch stays in memory but was never returned: the next fence must not bump again.
        if (isEpochFence && this.txns.get(transactionalId) === md) md.hasFailedEpochFence = true;
        return callback(error);
      }
      // sendTxnMarkersCallback: re-check, prepare the completion, answer, then send the markers.
      const current = this.txns.get(transactionalId);
      if (current === undefined) throw new TxnStateError(`no metadata in the cache for ${transactionalId}; this is not expected`);
      if (current.producerId !== producerId) return callback(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      if (current.producerEpoch !== producerEpoch) return callback(ErrorCode.PRODUCER_FENCED);
      if (current.pendingTransitionInProgress) return callback(ErrorCode.CONCURRENT_TRANSACTIONS);
      const expectedState = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort';
      if (current.state !== expectedState) {
        if (current.state === 'Dead' || current.state === 'PrepareEpochFence') throw new TxnStateError(`Found transactionalId ${transactionalId} with state ${current.state}`);
        return invalidState();
      }
      const completion = current.prepareComplete(this.clock.now());
      callback(ErrorCode.NONE);
      this.addTxnMarkersToSend(result, current, completion);
    });
  }

  // --- markers (TransactionMarkerChannelManager) ------------------------------------------------------

  private addTxnMarkersToSend(result: TransactionResult, md: TxnMetadata, completion: TxnTransit): void {
    this.pendingCompletions.set(md.transactionalId, { metadata: md, transit: completion });
    this.sendMarkers(result, md, md.partitions());
    this.maybeWriteTxnCompletion(md.transactionalId);
  }

  private sendMarkers(result: TransactionResult, md: TxnMetadata, partitions: TopicPartition[]): void {
    if (partitions.length === 0) return;
    const pending = this.pendingCompletions.get(md.transactionalId);
    const request = {
      transactionalId: md.transactionalId, producerId: md.producerId, producerEpoch: md.producerEpoch,
      coordinatorEpoch: COORDINATOR_EPOCH, result, partitions,
    };
    this.markers.write(request, (results) => this.run(() => this.onMarkersWritten(result, md, pending, results)));
  }

  /** TransactionMarkerRequestCompletionHandler.onComplete, for one transaction's entry. */
  private onMarkersWritten(
    result: TransactionResult,
    md: TxnMetadata,
    pending: { metadata: TxnMetadata; transit: TxnTransit } | undefined,
    results: MarkerPartitionResult[],
  ): void {
    // Markers of a transaction no longer pending (dropped, or a newer one) are ignored.
    if (pending === undefined || this.pendingCompletions.get(md.transactionalId) !== pending || this.txns.get(md.transactionalId) !== md) return;
    const retry: TopicPartition[] = [];
    for (const r of results) {
      const tp = { topic: r.topic, partition: r.partition };
      switch (markerOutcome(r.errorCode)) {
        case 'done':
          md.removePartition(tp);
          break;
        case 'retry':
          retry.push(tp);
          break;
        case 'abort-sending':
          this.pendingCompletions.delete(md.transactionalId); // removeMarkersForTxn
          return;
        case 'fatal':
          throw new TxnStateError(`Received fatal error ${r.errorCode} while sending txn marker for ${md.transactionalId}`);
      }
    }
    if (retry.length > 0) this.later(MARKER_RETRY_BACKOFF_MS, `txn markers retry ${md.transactionalId}`, () => this.sendMarkers(result, md, retry));
    else this.maybeWriteTxnCompletion(md.transactionalId);
  }

  private maybeWriteTxnCompletion(transactionalId: string): void {
    const pending = this.pendingCompletions.get(transactionalId);
    if (pending === undefined || pending.metadata.topicPartitions.size > 0) return;
    this.pendingCompletions.delete(transactionalId);
    this.writeTxnCompletion(transactionalId, pending.transit);
  }

  /** writeTxnCompletion / tryAppendToLog: COORDINATOR_NOT_AVAILABLE is retried, keeping the pending state. */
  private writeTxnCompletion(transactionalId: string, transit: TxnTransit): void {
    this.appendTransactionToLog(transactionalId, transit, (error) => {
      switch (error) {
        case ErrorCode.NONE:
        case ErrorCode.NOT_COORDINATOR:
        case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
          return;
        case ErrorCode.COORDINATOR_NOT_AVAILABLE:
          this.later(MARKER_RETRY_BACKOFF_MS, `txn completion retry ${transactionalId}`, () => this.writeTxnCompletion(transactionalId, transit));
          return;
        default:
          throw new TxnStateError(`Unexpected error ${error} while appending to transaction log for ${transactionalId}`);
      }
    }, (error) => error === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }

  // --- the transaction log ----------------------------------------------------------------------------

  /**
   * appendTransactionToLog: write, map the append error to a coordinator error, then complete the
   * transition, or clear the pending state (unless `retryOnError` says the caller retries).
   */
  private appendTransactionToLog(
    transactionalId: string,
    transit: TxnTransit,
    callback: (errorCode: number) => void,
    retryOnError: (errorCode: number) => boolean = () => false,
  ): void {
    const md = this.txns.get(transactionalId);
    if (md === undefined) return callback(ErrorCode.NOT_COORDINATOR);
    const error = mapAppendError(this.log.append(transactionalId, transit));
    if (error === ErrorCode.NONE) md.completeTransition(transit);
    else if (!retryOnError(error)) md.pendingState = null;
    callback(error);
  }

  // --- timers -----------------------------------------------------------------------------------------

  /** TransactionCoordinator.abortTimedOutTransactions, with TransactionStateManager.timedOutTransactions. */
  abortTimedOutTransactions(): void {
    this.run(() => {
      const now = this.clock.now();
      const timedOut = [...this.txns.values()].filter((md) =>
        !md.pendingTransitionInProgress && md.state === 'Ongoing' && md.txnStartTimestamp + md.txnTimeoutMs < now);
      for (const md of timedOut) {
        if (this.txns.get(md.transactionalId) !== md || md.pendingTransitionInProgress) continue;
        const fence = md.prepareFenceProducerEpoch();
        this.emit({ type: 'txn-timed-out', transactionalId: md.transactionalId, at: now, producerId: md.producerId, producerEpoch: md.producerEpoch, timeoutMs: md.txnTimeoutMs });
        // onEndTransactionComplete only logs the outcome.
        this.endTransactionInternal(md.transactionalId, fence.producerId, fence.producerEpoch, 'ABORT', false, () => {});
      }
    });
  }

  /**
   * TransactionStateManager.removeExpiredTransactionalIds: per __transaction_state partition, the
   * expirable ids go Dead, one batch of their tombstones is written, then they are removed.
   */
  removeExpiredTransactionalIds(): void {
    this.run(() => {
      const now = this.clock.now();
      const byPartition = new Map<number, { md: TxnMetadata; dead: TxnTransit }[]>();
      for (const md of this.txns.values()) {
        if (md.pendingState !== null || !isExpirationAllowed(md.state) || md.txnLastUpdateTimestamp > now - this.config.transactionalIdExpirationMs) continue;
        const partition = this.partitionFor(md.transactionalId);
        const list = byPartition.get(partition) ?? [];
        list.push({ md, dead: md.prepareDead() });
        byPartition.set(partition, list);
      }
      for (const [partition, expired] of [...byPartition].sort((a, b) => a[0] - b[0])) {
        const error = this.log.appendTombstones(partition, expired.map((e) => e.md.transactionalId));
        for (const { md, dead } of expired) {
          if (error === ErrorCode.NONE && md.pendingState === 'Dead' && md.producerEpoch === dead.producerEpoch && this.txns.get(md.transactionalId) === md) {
            this.txns.delete(md.transactionalId);
            this.emit({ type: 'txn-id-expired', transactionalId: md.transactionalId, at: now, producerId: md.producerId, producerEpoch: md.producerEpoch });
          } else {
            md.pendingState = null;
          }
        }
      }
    });
  }

  /** TransactionStateManager.partitionFor: the id's __transaction_state partition. */
  partitionFor(transactionalId: string): number {
    return javaUtilsAbs(javaStringHashCode(transactionalId)) % this.config.transactionStateTopicPartitions;
  }

  private every(intervalMs: number, name: string, fn: () => void): void {
    const arm = () => {
      const handle = this.timers.schedule(intervalMs, () => {
        this.timerHandles.delete(handle);
        if (this.closed) return;
        arm();
        fn();
      }, { name, housekeeping: true });
      this.timerHandles.add(handle);
    };
    arm();
  }

  private later(delayMs: number, name: string, fn: () => void): void {
    if (this.closed) return;
    const handle = this.timers.schedule(delayMs, () => {
      this.timerHandles.delete(handle);
      if (!this.closed) this.run(fn);
    }, { name });
    this.timerHandles.add(handle);
  }

  // --- the outbox -------------------------------------------------------------------------------------

  private onTransitioned(transactionalId: string, from: TxnState, to: TxnState): void {
    const md = this.txns.get(transactionalId);
    this.transitionObserver?.({ transactionalId, from, to });
    this.emit({ type: 'txn-state-changed', transactionalId, at: this.clock.now(), from, to, producerId: md?.producerId ?? NO_PRODUCER_ID, producerEpoch: md?.producerEpoch ?? NO_PRODUCER_EPOCH });
  }

  private emit(event: TxnEvent): void {
    const listener = this.listener;
    if (listener) this.deliver(() => listener(event));
  }

  private deliver(fn: () => void): void {
    this.outbox.push(fn);
  }

  /** Runs an operation; responses and events go out once it (and any nested one) has finished. */
  private run(fn: () => void): void {
    this.depth++;
    try {
      fn();
    } finally {
      this.depth--;
    }
    if (this.depth === 0 && !this.flushing) {
      this.flushing = true;
      try {
        for (let next = this.outbox.shift(); next !== undefined; next = this.outbox.shift()) next();
      } finally {
        this.flushing = false;
      }
    }
  }
}

/** appendTransactionToLog's mapping of a log append error to a coordinator error. */
export function mapAppendError(error: number): number {
  switch (error) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return error;
  }
}
