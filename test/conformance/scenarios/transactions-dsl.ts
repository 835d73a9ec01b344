// Builders for the transaction scenarios (transactions*.ts) and the transactional random
// sequences (random-txn.ts): a transactional producer `as` (default: its connection's name) keeps
// its producer id and epoch in the context (`<as>.pid`, `<as>.epoch`), captured from its
// InitProducerId answer, and its next sequence number per partition (`<as>.seq.<topic>.<p>`), so
// the requests that follow read like Kafka's TransactionsTest: init, add partitions, produce,
// add offsets, txn-commit offsets, end. Transactional ids and group ids are namespaced (c.g), so
// normalisation removes the run's prefix; producer ids become symbols (producer#1, …), epochs and
// offsets are compared as they are.
import type { Ctx, Expectation, SendStep, Settings, Step } from '../runner.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { BASE_SETTINGS, send } from './dsl.js';

/** Record timestamps of the scenarios' batches (an hour before this process started: see random.ts RANDOM_T0). */
export const TXN_T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

/**
 * The broker settings of every transaction scenario: the timed-out transaction sweep every 100 ms
 * (Kafka's default is 10 s), so that a transaction timeout of a few hundred ms aborts within a
 * scenario; everything else is Kafka's default (transaction.max.timeout.ms 900000).
 */
export const TXN_SETTINGS: Settings = {
  ...BASE_SETTINGS,
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': 100,
};
/** The sweep interval above and the margin a scenario waits past a deadline. */
export const ABORT_SWEEP_MS = 100;

/** Retriable answers of a broker whose __transaction_state is still being created or loaded. */
const LOADING = new Set([14, 15, 16]);

/** The namespaced transactional id `name` ("": the empty id itself). */
export const txnId = (c: Ctx, name: string): string => (name === '' ? '' : c.g(name));

interface Common {
  v?: number;
  label?: string;
  expect?: Expectation;
  wait?: boolean;
  timeoutMs?: number;
}

/**
 * FindCoordinator for transactional ids (key type 1), resent while the coordinator is not
 * available yet (Kafka creates and loads __transaction_state after the first lookup): only the
 * last answer is in the transcript. `retry: false` records the first answer as it is.
 */
export function findTxnCoordinator(conn: string, names: string[] = ['tx'], o: Common & { retry?: boolean } = {}): SendStep<10> {
  const v = o.v ?? 3;
  return send(conn, 10, v, (c: Ctx) => (v >= 4 ? { keyType: 1, coordinatorKeys: names.map((n) => txnId(c, n)) } : { key: txnId(c, names[0]), keyType: 1 }), {
    label: o.label ?? `find-coordinator v${v} (${names.join(', ')})`,
    expect: o.expect,
    retry:
      o.retry === false
        ? undefined
        : {
            while: (r) => (v >= 4 ? r.coordinators.some((x) => x.errorCode !== 0) : r.errorCode !== 0),
            delayMs: 100,
            max: 100,
          },
  });
}

export interface InitOpts extends Common {
  /** Transactional id (short name); null for an idempotent producer. */
  tx?: string | null;
  /** Producer whose id/epoch are captured (default: the connection). */
  as?: string;
  timeout?: number;
  /** KIP-360: the producer id and epoch sent (default -1/-1). */
  pid?: (c: Ctx) => bigint | number;
  epoch?: (c: Ctx) => number;
  /** Do not capture the answer (a request whose answer the producer ignores). */
  noCapture?: boolean;
}

/** InitProducerId; a NONE answer sets `<as>.pid`/`<as>.epoch` and resets the producer's sequences. */
export function initPid(conn: string, o: InitOpts = {}): SendStep<22> {
  const v = o.v ?? 4;
  const as = o.as ?? conn;
  const tx = o.tx === undefined ? 'tx' : o.tx;
  return send(
    conn,
    22,
    v,
    (c: Ctx) => ({
      transactionalId: tx === null ? null : txnId(c, tx),
      transactionTimeoutMs: o.timeout ?? 60000,
      producerId: o.pid ? o.pid(c) : -1,
      producerEpoch: o.epoch ? o.epoch(c) : -1,
    }),
    {
      label: o.label ?? `init-producer-id v${v} ${as}${tx === null ? ' (idempotent)' : ''}`,
      expect: o.expect,
      wait: o.wait,
      timeoutMs: o.timeoutMs,
      // A coordinator still loading its partition of __transaction_state: retried (last answer kept).
      retry: { while: (r) => LOADING.has(r.errorCode), delayMs: 100, max: 100 },
      capture: (r, c) => {
        if (o.noCapture || r.errorCode !== 0) return;
        c.set(`${as}.pid`, r.producerId);
        c.set(`${as}.epoch`, r.producerEpoch);
        c.set(`${as}.seqs`, {});
      },
    },
  );
}

/** The producer's captured id (or -1) and epoch (or -1), adjusted by `epochDelta`. */
export const pidOf = (as: string) => (c: Ctx): bigint => BigInt(c.v<bigint | number>(`${as}.pid`, -1));
export const epochOf = (as: string, delta = 0) => (c: Ctx): number => c.v<number>(`${as}.epoch`, -1) + delta;

export type TopicParts = Array<[topic: string, partitions: number[]]>;

export interface AddPartitionsOpts extends Common {
  tx?: string;
  as?: string;
  topics?: TopicParts;
  pid?: (c: Ctx) => bigint | number;
  epoch?: (c: Ctx) => number;
}

/** AddPartitionsToTxn v0-v3 (one transaction, the V3AndBelow fields). */
export function addPartitions(conn: string, o: AddPartitionsOpts = {}): SendStep<24> {
  const v = o.v ?? 3;
  const as = o.as ?? conn;
  const topics = o.topics ?? [['t', [0]]];
  return send(
    conn,
    24,
    v,
    (c: Ctx) => ({
      v3AndBelowTransactionalId: txnId(c, o.tx ?? 'tx'),
      v3AndBelowProducerId: (o.pid ?? pidOf(as))(c),
      v3AndBelowProducerEpoch: (o.epoch ?? epochOf(as))(c),
      v3AndBelowTopics: topics.map(([t, ps]) => ({ name: c.t(t), partitions: ps })),
    }),
    { label: o.label ?? `add-partitions v${v} ${as} ${topics.map(([t, ps]) => `${t}/${ps.join(',')}`).join(' ')}`, expect: o.expect, wait: o.wait },
  );
}

export interface BatchedTxn {
  tx: string;
  as: string;
  verifyOnly?: boolean;
  topics: TopicParts;
  epoch?: (c: Ctx) => number;
  pid?: (c: Ctx) => bigint | number;
}

/** AddPartitionsToTxn v4+ (the broker-to-coordinator form: several transactions, VerifyOnly). */
export function addPartitionsBatched(conn: string, txns: BatchedTxn[], o: Common = {}): SendStep<24> {
  const v = o.v ?? 4;
  return send(
    conn,
    24,
    v,
    (c: Ctx) => ({
      transactions: txns.map((x) => ({
        transactionalId: txnId(c, x.tx),
        producerId: (x.pid ?? pidOf(x.as))(c),
        producerEpoch: (x.epoch ?? epochOf(x.as))(c),
        verifyOnly: x.verifyOnly ?? false,
        topics: x.topics.map(([t, ps]) => ({ name: c.t(t), partitions: ps })),
      })),
    }),
    { label: o.label ?? `add-partitions v${v} ${txns.map((x) => `${x.tx}${x.verifyOnly ? ' (verify)' : ''}`).join(' + ')}`, expect: o.expect },
  );
}

export interface TxnOpts extends Common {
  tx?: string;
  as?: string;
  pid?: (c: Ctx) => bigint | number;
  epoch?: (c: Ctx) => number;
}

export function addOffsets(conn: string, o: TxnOpts & { group?: string } = {}): SendStep<25> {
  const v = o.v ?? 3;
  const as = o.as ?? conn;
  return send(
    conn,
    25,
    v,
    (c: Ctx) => ({ transactionalId: txnId(c, o.tx ?? 'tx'), producerId: (o.pid ?? pidOf(as))(c), producerEpoch: (o.epoch ?? epochOf(as))(c), groupId: c.g(o.group ?? 'g') }),
    { label: o.label ?? `add-offsets v${v} ${as}`, expect: o.expect, wait: o.wait },
  );
}

export function endTxn(conn: string, commit: boolean, o: TxnOpts = {}): SendStep<26> {
  const v = o.v ?? 3;
  const as = o.as ?? conn;
  return send(
    conn,
    26,
    v,
    (c: Ctx) => ({ transactionalId: txnId(c, o.tx ?? 'tx'), producerId: (o.pid ?? pidOf(as))(c), producerEpoch: (o.epoch ?? epochOf(as))(c), committed: commit }),
    { label: o.label ?? `end-txn v${v} ${as} ${commit ? 'commit' : 'abort'}`, expect: o.expect, wait: o.wait, timeoutMs: o.timeoutMs },
  );
}

export interface TxnCommitOpts extends TxnOpts {
  group?: string;
  topic?: string;
  offsets?: Array<[partition: number, offset: number]>;
  generation?: (c: Ctx) => number;
  member?: (c: Ctx) => string;
  instance?: string | null;
  metadata?: string;
  /** More topics (same offsets) besides `topic`. */
  topics?: string[];
}

/** TxnOffsetCommit (v3+: the generation, member id and instance id, -1/""/null by default). */
export function txnCommit(conn: string, o: TxnCommitOpts = {}): SendStep<28> {
  const v = o.v ?? 3;
  const as = o.as ?? conn;
  return send(
    conn,
    28,
    v,
    (c: Ctx) => ({
      transactionalId: txnId(c, o.tx ?? 'tx'),
      groupId: c.g(o.group ?? 'g'),
      producerId: (o.pid ?? pidOf(as))(c),
      producerEpoch: (o.epoch ?? epochOf(as))(c),
      generationId: o.generation ? o.generation(c) : -1,
      memberId: o.member ? o.member(c) : '',
      groupInstanceId: o.instance ?? null,
      topics: (o.topics ?? [o.topic ?? 't']).map((t) => ({
        name: c.t(t),
        partitions: (o.offsets ?? [[0, 1]]).map(([p, off]) => ({ partitionIndex: p, committedOffset: off, committedLeaderEpoch: -1, committedMetadata: o.metadata ?? 'm' })),
      })),
    }),
    { label: o.label ?? `txn-offset-commit v${v} ${as}`, expect: o.expect, wait: o.wait },
  );
}

export interface ProduceOpts extends Common {
  /** The request's transactionalId field (short name; null: none). Default: the producer's "tx". */
  tx?: string | null;
  as?: string;
  topic?: string;
  partition?: number;
  n?: number;
  /** The transactional attribute bit (default true). */
  transactional?: boolean;
  epoch?: (c: Ctx) => number;
  pid?: (c: Ctx) => bigint | number;
  /** The base sequence (default: the producer's next one for the partition). */
  seq?: (c: Ctx) => number;
  /** Do not advance the producer's sequence (a request expected to fail). */
  keepSeq?: boolean;
  acks?: number;
  /** Record values are "<tag><i>" (default: the producer's name). */
  tag?: string;
}

const seqKey = (topic: string, partition: number) => `${topic}/${partition}`;
function seqsOf(c: Ctx, as: string): Record<string, number> {
  if (!c.has(`${as}.seqs`)) c.set(`${as}.seqs`, {});
  return c.v<Record<string, number>>(`${as}.seqs`);
}

/** A v2 batch of `n` records from the producer: its id, epoch, next sequence; transactional by default. */
export function txnBatch(c: Ctx, as: string, o: Omit<ProduceOpts, 'v' | 'label' | 'expect' | 'wait' | 'timeoutMs' | 'acks' | 'keepSeq'> = {}): Buffer {
  const topic = o.topic ?? 't';
  const partition = o.partition ?? 0;
  const n = o.n ?? 2;
  const seq = o.seq ? o.seq(c) : (seqsOf(c, as)[seqKey(topic, partition)] ?? 0);
  const tag = o.tag ?? as;
  return encodeBatch({
    baseTimestamp: TXN_T0,
    producerId: BigInt((o.pid ?? pidOf(as))(c)),
    producerEpoch: (o.epoch ?? epochOf(as))(c),
    baseSequence: seq,
    isTransactional: o.transactional ?? true,
    records: Array.from({ length: n }, (_, i) => ({ key: `${tag}-k${seq + i}`, value: `${tag}-v${seq + i}`, timestampDelta: i })),
  });
}

/** Produce one transactional batch; a NONE answer advances the producer's sequence for the partition. */
export function produceTxn(conn: string, o: ProduceOpts = {}): SendStep<0> {
  const v = o.v ?? 9;
  const as = o.as ?? conn;
  const topic = o.topic ?? 't';
  const partition = o.partition ?? 0;
  const n = o.n ?? 2;
  const tx = o.tx === undefined ? 'tx' : o.tx;
  return send(
    conn,
    0,
    v,
    (c: Ctx) => ({
      transactionalId: tx === null ? null : txnId(c, tx),
      acks: o.acks ?? -1,
      timeoutMs: 5000,
      topicData: [{ name: c.t(topic), partitionData: [{ index: partition, records: txnBatch(c, as, o) }] }],
    }),
    {
      label: o.label ?? `produce v${v} ${as} ${topic}/${partition} ×${n}`,
      expect: o.expect,
      wait: o.wait,
      capture: (r, c) => {
        const code = r.responses[0]?.partitionResponses[0]?.errorCode;
        if (code !== 0 || o.keepSeq || o.seq) return;
        const seqs = seqsOf(c, as);
        seqs[seqKey(topic, partition)] = (seqs[seqKey(topic, partition)] ?? 0) + n;
      },
    },
  );
}

export interface FetchOpts extends Common {
  topic?: string;
  partition?: number;
  offset?: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolation?: 0 | 1;
  maxBytes?: number;
  /** v13+: by topic id, the one captured as `tid` (topicIdStep). */
  byId?: boolean;
}

/** Metadata v12 of `topic`, its topic id captured as `tid` (for Fetch v13+ by id). */
export function topicIdStep(conn: string, topic = 't'): SendStep<3> {
  return send(conn, 3, 12, (c: Ctx) => ({ topics: [{ name: c.t(topic) }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), {
    label: `metadata ${topic} (topic id)`,
    capture: (r, c) => c.set('tid', r.topics[0]?.topicId),
  });
}

export function fetchRecords(conn: string, o: FetchOpts = {}): SendStep<1> {
  const v = o.v ?? 11;
  const iso = o.isolation ?? 1;
  const topic = o.topic ?? 't';
  return send(
    conn,
    1,
    v,
    (c: Ctx) => ({
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: o.maxBytes ?? 1048576,
      isolationLevel: iso,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: o.byId ? '' : c.t(topic), topicId: o.byId ? c.v('tid', 'AAAAAAAAAAAAAAAAAAAAAA') : 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: o.partition ?? 0, currentLeaderEpoch: -1, fetchOffset: o.offset ?? 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: o.maxBytes ?? 1048576 }] }],
      forgottenTopicsData: [],
      rackId: '',
    }),
    { label: o.label ?? `fetch v${v} ${iso === 1 ? 'read_committed' : 'read_uncommitted'} ${topic}/${o.partition ?? 0} @${o.offset ?? 0}`, expect: o.expect },
  );
}

export function listOffsetsIso(conn: string, o: Common & { topic?: string; partitions?: number[]; isolation?: 0 | 1; timestamp?: number } = {}): SendStep<2> {
  const v = o.v ?? 7;
  const iso = o.isolation ?? 1;
  const topic = o.topic ?? 't';
  return send(
    conn,
    2,
    v,
    (c: Ctx) => ({
      replicaId: -1,
      isolationLevel: iso,
      topics: [{ name: c.t(topic), partitions: (o.partitions ?? [0]).map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: o.timestamp ?? -1, maxNumOffsets: 1 })) }],
    }),
    { label: o.label ?? `list-offsets v${v} ${iso === 1 ? 'read_committed' : 'read_uncommitted'} ${o.timestamp === -2 ? 'earliest' : o.timestamp === -3 ? 'max' : 'latest'}`, expect: o.expect },
  );
}

export function describeTxns(conn: string, names: string[] = ['tx'], o: Common = {}): SendStep<65> {
  return send(conn, 65, 0, (c: Ctx) => ({ transactionalIds: names.map((n) => txnId(c, n)) }), {
    label: o.label ?? `describe-transactions ${names.join(', ')}`,
    expect: o.expect,
    // A coordinator still loading its partition of __transaction_state (a broker that just started).
    retry: { while: (r) => r.transactionStates.some((x) => LOADING.has(x.errorCode)), delayMs: 100, max: 100 },
  });
}

/**
 * DescribeTransactions resent while the transaction is between EndTxn and its completion
 * (PrepareCommit/PrepareAbort, or a fenced epoch's PrepareEpochFence): Kafka answers EndTxn once
 * PrepareCommit is in its log and writes the markers after, asynchronously; the last answer
 * (CompleteCommit/CompleteAbort) is the one compared. A scenario that goes on after an EndTxn
 * waits here, so that what follows does not depend on how fast Kafka wrote its markers.
 */
export function awaitCompletion(conn: string, name = 'tx', label?: string): SendStep<65> {
  return send(conn, 65, 0, (c: Ctx) => ({ transactionalIds: [txnId(c, name)] }), {
    label: label ?? `describe-transactions ${name} (completed)`,
    retry: { while: (r) => ['PrepareCommit', 'PrepareAbort', 'PrepareEpochFence'].includes(r.transactionStates[0]?.transactionState ?? ''), delayMs: 20, max: 250 },
  });
}

export function listTxns(conn: string, o: Common & { states?: string[]; pids?: Array<(c: Ctx) => bigint | number>; duration?: number } = {}): SendStep<66> {
  const v = o.v ?? 1;
  return send(
    conn,
    66,
    v,
    (c: Ctx) => ({ stateFilters: o.states ?? [], producerIdFilters: (o.pids ?? []).map((f) => BigInt(f(c))), durationFilter: o.duration ?? -1 }),
    { label: o.label ?? `list-transactions v${v}${o.states?.length ? ` states=${o.states.join(',')}` : ''}${o.pids?.length ? ' by producer id' : ''}${o.duration !== undefined ? ` duration>${o.duration}` : ''}`, expect: o.expect },
  );
}

export interface MarkerSpec {
  as?: string;
  pid?: (c: Ctx) => bigint | number;
  epoch?: (c: Ctx) => number;
  commit: boolean;
  topics: TopicParts;
  coordinatorEpoch?: number;
}

/** WriteTxnMarkers sent as `kafka-transactions.sh abort` sends it (to the partition leader). */
export function writeMarkers(conn: string, markers: MarkerSpec[], o: Common = {}): SendStep<27> {
  const v = o.v ?? 1;
  return send(
    conn,
    27,
    v,
    (c: Ctx) => ({
      markers: markers.map((m) => ({
        producerId: (m.pid ?? pidOf(m.as ?? conn))(c),
        producerEpoch: (m.epoch ?? epochOf(m.as ?? conn))(c),
        transactionResult: m.commit,
        topics: m.topics.map(([t, ps]) => ({ name: c.t(t), partitionIndexes: ps })),
        coordinatorEpoch: m.coordinatorEpoch ?? 0,
      })),
    }),
    { label: o.label ?? `write-txn-markers v${v} ${markers.map((m) => (m.commit ? 'commit' : 'abort')).join(', ')}`, expect: o.expect },
  );
}

export function describeProducers(conn: string, topics: TopicParts = [['t', [0]]], o: Common = {}): SendStep<61> {
  return send(conn, 61, 0, (c: Ctx) => ({ topics: topics.map(([t, ps]) => ({ name: c.t(t), partitionIndexes: ps })) }), {
    label: o.label ?? `describe-producers ${topics.map(([t, ps]) => `${t}/${ps.join(',')}`).join(' ')}`,
    expect: o.expect,
  });
}

/**
 * The partitions of a just-created topic are in Kafka's metadata a moment before their leader
 * serves them: ListOffsets (retried while NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION /
 * LEADER_NOT_AVAILABLE; only the last answer is kept) makes sure the data path is ready.
 */
export function partitionsReady(conn: string, topic = 't', partitions: number[] = [0]): SendStep<2> {
  return send(conn, 2, 1, (c: Ctx) => ({ replicaId: -1, topics: [{ name: c.t(topic), partitions: partitions.map((p) => ({ partitionIndex: p, timestamp: -1 })) }] }), {
    label: `list-offsets ${topic} (partitions ready)`,
    retry: { while: (r) => r.topics[0]?.partitions.some((p) => [3, 5, 6].includes(p.errorCode)) ?? true, delayMs: 50, max: 100 },
  });
}

/** A transactional producer that is ready to add partitions: coordinator found, producer id and epoch 0. */
export function initTransactional(conn: string, o: { tx?: string; as?: string; timeout?: number; v?: number } = {}): Step[] {
  return [
    findTxnCoordinator(conn, [o.tx ?? 'tx']),
    initPid(conn, { tx: o.tx ?? 'tx', as: o.as, timeout: o.timeout, v: o.v, expect: { errorCode: 0, producerEpoch: 0 } }),
  ];
}
