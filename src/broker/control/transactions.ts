// The control plane's door to the transaction coordinator (txn/coordinator.ts): every transactional
// id it knows (producer id and epoch, state, partitions, how long the transaction has been
// running), and its events as they happen. `kmock.control.transactions` is this object; the admin
// HTTP API's /transactions routes and `kmock admin transactions` call it too.
//
// It only reads: a transaction changes through its producer's requests and the coordinator's own
// timers (timeout abort, id expiration), never through the control plane. Time comes from the
// broker's clock, so ages follow a manual clock.
import { eventIterator } from './event-iterator.js';
import type { Broker } from '../broker.js';
import type { TxnEvent } from '../txn/events.js';
import type { TxnMetadata, TxnState } from '../txn/metadata.js';
import { badRequest, notFound } from './errors.js';

export type { TxnEvent, TxnState };

/** One transactional id, as the coordinator holds it. */
export interface TransactionView {
  transactionalId: string;
  /** bigint here; a number in the HTTP API's JSON (a string beyond 2^53). */
  producerId: bigint;
  /** -1 until the first InitProducerId completes. */
  producerEpoch: number;
  state: TxnState;
  /** The state a transition under way is going to (e.g. CompleteCommit while the markers are written); null when none. */
  pendingState: TxnState | null;
  /** The partitions in the transaction (the markers not yet written, once it is ending), in the order added. */
  partitions: Array<{ topic: string; partition: number }>;
  /** The producer's transaction.timeout.ms. */
  timeoutMs: number;
  /** Clock time the current (or last) transaction started; -1 when none has. */
  startedAt: number;
  /** Clock now minus startedAt while a transaction runs (Ongoing, PrepareCommit, PrepareAbort); else null. */
  ageMs: number | null;
  /** Clock time of the id's last transition. */
  lastUpdate: number;
}

export interface TxnEventOptions {
  /** Only events of this transactional id. */
  transactionalId?: string;
  /** Ends the iteration when aborted. */
  signal?: AbortSignal;
  /** Events kept while the consumer is slow; the oldest are dropped beyond it (default 10000). */
  bufferSize?: number;
}

/** Kafka's longest string (transactional ids are STRING: int16 length). */
const MAX_ID_LENGTH = 32767;

export class TransactionsControl {
  constructor(private readonly broker: Broker) {}

  /** Every transactional id the coordinator knows, in the order they were first seen. */
  list(): TransactionView[] {
    const now = this.broker.clock.now();
    const coordinator = this.broker.transactions;
    return coordinator.transactionalIds().flatMap((id) => {
      const md = coordinator.metadata(id);
      return md ? [view(md, now)] : [];
    });
  }

  /** One transactional id; 404 when the coordinator does not know it. */
  get(transactionalId: unknown): TransactionView {
    const id = transactionalIdArg(transactionalId);
    const md = this.broker.transactions.metadata(id);
    if (md === undefined) throw notFound(`no transactional id "${id}"`);
    return view(md, this.broker.clock.now());
  }

  /** Calls `listener` with every transaction event (of one transactional id, if given); returns the unsubscribe. */
  subscribe(listener: (e: TxnEvent) => void, transactionalId?: string): () => void {
    const only = transactionalId === undefined ? undefined : transactionalIdArg(transactionalId);
    // A failing listener must not disturb the coordinator, which delivers its events inline.
    const l = (e: TxnEvent): void => {
      if (only !== undefined && e.transactionalId !== only) return;
      try {
        listener(e);
      } catch (err) {
        this.broker.log.error({ err: String((err as Error)?.stack ?? err) }, 'transaction event listener failed');
      }
    };
    this.broker.txnEventListeners.add(l);
    return () => {
      this.broker.txnEventListeners.delete(l);
    };
  }

  /** Transaction events as an async iterator; subscribed from this call on, ended by `return()`
   *  (e.g. `break` in a for-await) or the signal. Events wait in a buffer while the consumer is busy. */
  events(options: TxnEventOptions = {}): AsyncIterableIterator<TxnEvent> {
    const limit = options.bufferSize ?? 10_000;
    if (!Number.isInteger(limit) || limit < 1) throw badRequest(`bufferSize must be a positive integer, got ${String(options.bufferSize)}`);
    return eventIterator<TxnEvent>((push) => this.subscribe(push, options.transactionalId), options);
  }
}

/** A transactional id: a non-empty string of at most 32767 characters (400 otherwise). */
export function transactionalIdArg(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw badRequest('transactional id must be a non-empty string');
  if (v.length > MAX_ID_LENGTH) throw badRequest('transactional id too long');
  return v;
}

function view(md: TxnMetadata, now: number): TransactionView {
  const running = md.hasPendingTransaction && md.txnStartTimestamp >= 0;
  return {
    transactionalId: md.transactionalId,
    producerId: md.producerId,
    producerEpoch: md.producerEpoch,
    state: md.state,
    pendingState: md.pendingState,
    partitions: md.partitions(),
    timeoutMs: md.txnTimeoutMs,
    startedAt: md.txnStartTimestamp,
    ageMs: running ? Math.max(0, now - md.txnStartTimestamp) : null,
    lastUpdate: md.txnLastUpdateTimestamp,
  };
}
