// kafkajs 2.2.4, unchanged, with transactions, against a real listening kmock: a transactional
// producer's commit and abort, what READ_COMMITTED (kafkajs's default) and READ_UNCOMMITTED
// consumers see of them (also while a transaction is still open), a consume-transform-produce loop
// that commits its input offsets in its transactions (sendOffsets) and resumes from them after a
// restart, and the fencing of a producer by a newer one with the same transactional id.
//
// Every expectation is what the broker did, read back through a real consumer or admin call, or
// asked with kmock's codec as any client would (ListOffsets under both isolation levels,
// DescribeTransactions): never a constant the test itself forced. What Kafka 3.9.1 does in each
// case was read off a real broker with these same tests: KMOCK_TXN_TEST_BOOTSTRAP=host:port runs
// them against it (start one with `scripts/kafka-reference start 3.9.1 --set
// group.initial.rebalance.delay.ms=0 --set transaction.abort.timed.out.transaction.cleanup.interval.ms=500`,
// the settings kmock gets here); the few assertions on kmock's own trace are then skipped.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel, Partitioners, type Consumer, type ConsumerConfig, type Producer, type ProducerConfig } from 'kafkajs';
import { answeredErrors, describeTransaction, E, logEnds, settledTransaction, stableEnds, startTestBroker, uniqueName, type TestBroker } from '../../support/clients/txn.js';
import { dumpTraceIfAsked } from '../../support/clients/trace.js';
import { waitFor, within } from '../../support/clients/wait.js';

/** Set KMOCK_CLIENT_DEBUG=1 to see kafkajs's own log lines (at INFO) on stderr. */
const KJS_LOG_LEVEL = process.env.KMOCK_CLIENT_DEBUG ? logLevel.INFO : logLevel.NOTHING;

let broker: TestBroker;
let kafka: Kafka;
let closers: Array<() => Promise<unknown>>;

beforeEach(async (ctx) => {
  // Timed-out transactions are looked for every 500 ms (Kafka's default: 10 s).
  broker = await startTestBroker({ groupInitialRebalanceDelayMs: 0, transactionAbortTimedOutTransactionCleanupIntervalMs: 500 });
  kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: 'kmock-kafkajs-txn-test',
    logLevel: KJS_LOG_LEVEL,
    connectionTimeout: 3000,
    requestTimeout: 15_000,
    retry: { initialRetryTime: 100, retries: 10 },
  });
  closers = [];
  ctx.onTestFailed(() => {
    if (broker.trace) process.stderr.write(`--- kmock trace (last lines) ---\n${broker.trace.tail(80)}\n`);
  });
});

afterEach(async (ctx) => {
  if (broker.trace) dumpTraceIfAsked(broker.trace, ctx.task.name);
  for (const close of closers.reverse()) await within('client close', 15_000, close()).catch(() => undefined);
  await broker.close();
});

async function admin() {
  const a = kafka.admin({ retry: { initialRetryTime: 100, retries: 10 } });
  closers.push(() => a.disconnect());
  await within('admin connect', 15_000, a.connect());
  return a;
}

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  const a = await admin();
  expect(await a.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true })).toBe(true);
}

/**
 * A transactional producer as the brief of kafkajs's docs has it (idempotent, one request in
 * flight). Its retries are bounded (kafkajs's default for an idempotent producer is unbounded,
 * which would turn a broker that keeps answering a retriable error into a hung test); enough for
 * the CONCURRENT_TRANSACTIONS answers Kafka gives InitProducerId while markers are written.
 */
async function txnProducer(transactionalId: string, config: ProducerConfig = {}): Promise<Producer> {
  const p = kafka.producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: 10_000,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 100, retries: 8 },
    ...config,
  });
  closers.push(() => p.disconnect());
  await within('producer connect', 15_000, p.connect());
  return p;
}

async function plainProducer(): Promise<Producer> {
  const p = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  closers.push(() => p.disconnect());
  await within('producer connect', 15_000, p.connect());
  return p;
}

interface Read {
  partition: number;
  offset: number;
  key: string | null;
  value: string;
}

const FAST: Omit<ConsumerConfig, 'groupId'> = {
  sessionTimeout: 6000,
  rebalanceTimeout: 10_000,
  heartbeatInterval: 300,
  maxWaitTimeInMs: 100,
  retry: { initialRetryTime: 100, retries: 10 },
};

/**
 * A group consumer (its own group) that records every message it is given and how far it has got
 * in each partition: kafkajs's END_BATCH_PROCESS carries the last offset of every fetched batch,
 * also of one that held only control records or aborted records (which it hands to no one).
 */
class Reader {
  readonly read: Read[] = [];
  readonly position = new Map<number, number>();
  fetches = 0;
  readonly consumer: Consumer;

  constructor(readonly topic: string, groupId: string, config: Partial<ConsumerConfig> = {}) {
    this.consumer = kafka.consumer({ ...FAST, groupId, ...config });
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, (e) => {
      const next = Number(e.payload.lastOffset) + 1;
      if (next > (this.position.get(e.payload.partition) ?? 0)) this.position.set(e.payload.partition, next);
    });
    this.consumer.on(this.consumer.events.FETCH, () => {
      this.fetches++;
    });
    closers.push(() => this.consumer.disconnect());
  }

  async start(): Promise<this> {
    await within('consumer connect', 15_000, this.consumer.connect());
    await within('consumer subscribe', 15_000, this.consumer.subscribe({ topics: [this.topic], fromBeginning: true }));
    await within('consumer run', 15_000, this.consumer.run({
      eachMessage: async ({ partition, message }) => {
        this.read.push({ partition, offset: Number(message.offset), key: message.key?.toString() ?? null, value: message.value?.toString() ?? '' });
      },
    }));
    return this;
  }

  /** Until the consumer has got to `ends[p]` in every partition p (index = partition). */
  async caughtUp(ends: number[]): Promise<void> {
    await waitFor(`${this.topic} read up to ${ends.join('/')} (at ${JSON.stringify([...this.position])})`, () =>
      ends.every((end, p) => end === 0 || (this.position.get(p) ?? 0) >= end), 30_000);
  }

  values(): string[] {
    return this.read.map((r) => r.value);
  }

  stop(): Promise<void> {
    return within('consumer disconnect', 15_000, this.consumer.disconnect());
  }
}

/** Every record of the topic a new consumer of its own group gets, read up to the given ends. */
async function readAll(topic: string, ends: number[], config: Partial<ConsumerConfig> = {}): Promise<Read[]> {
  const r = await new Reader(topic, uniqueName(`${topic}-reader-${config.readUncommitted ? 'uncommitted' : 'committed'}`), config).start();
  await r.caughtUp(ends);
  await r.stop();
  return [...r.read].sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

const at = (rs: Read[]) => rs.map((r) => `${r.partition}@${r.offset}:${r.value}`);

/** The Kafka error name a kafkajs error carries (KafkaJSProtocolError.type), looking through its wrappers. */
function kafkaErrorName(e: unknown, depth = 0): string | null {
  if (e === null || typeof e !== 'object' || depth > 8) return null;
  const err = e as { type?: unknown; originalError?: unknown; cause?: unknown };
  if (typeof err.type === 'string' && /^[A-Z][A-Z0-9_]+$/.test(err.type)) return err.type;
  return kafkaErrorName(err.originalError, depth + 1) ?? kafkaErrorName(err.cause, depth + 1);
}

async function rejection(p: Promise<unknown>): Promise<{ name: string | null; retriable: unknown; message: string }> {
  try {
    await p;
  } catch (e) {
    return { name: kafkaErrorName(e), retriable: (e as { retriable?: unknown }).retriable, message: String((e as Error).message) };
  }
  throw new Error('expected a rejection, but it resolved');
}

/** Error codes of the partitions in a Produce answer (trace JSON). */
const produceErrors = (r: Record<string, unknown>) =>
  ((r.responses ?? []) as Array<{ partitionResponses: Array<{ errorCode: number }> }>).flatMap((t) => t.partitionResponses.map((p) => p.errorCode));
const addPartitionsErrors = (r: Record<string, unknown>) =>
  ((r.resultsByTopicV3AndBelow ?? []) as Array<{ resultsByPartition: Array<{ partitionErrorCode: number }> }>).flatMap((t) =>
    t.resultsByPartition.map((p) => p.partitionErrorCode),
  );
const topLevelError = (r: Record<string, unknown>) => [Number(r.errorCode)];

describe('kafkajs transactional producer', () => {
  it('commit: the records of a transaction over two partitions, each followed by a COMMIT marker; a READ_COMMITTED consumer reads them all', async () => {
    const topic = uniqueName('txn-commit');
    const id = uniqueName('kjs-commit');
    await createTopic(topic, 2);
    const producer = await txnProducer(id);

    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ key: 'a', value: 'c0', partition: 0 }, { key: 'b', value: 'c1', partition: 1 }] });
    await txn.send({ topic, messages: [{ key: 'c', value: 'c2', partition: 0 }] });
    // Open: the records are in the log, the last stable offset is held at the transaction's first
    // offset in each partition, and the coordinator has both partitions in the transaction.
    expect(await logEnds(broker.bootstrap, topic, 2)).toEqual({ end: [2, 1], stable: [0, 0] });
    const open = await describeTransaction(broker.bootstrap, id);
    expect(open).toMatchObject({ errorCode: E.NONE, state: 'Ongoing', partitions: [`${topic}-0`, `${topic}-1`], timeoutMs: 10_000 });

    await txn.commit();
    // One COMMIT marker after the records in each partition, and nothing left open.
    expect(await stableEnds(broker.bootstrap, topic, 2)).toEqual([3, 2]);
    const done = await settledTransaction(broker.bootstrap, id);
    expect(done).toMatchObject({ errorCode: E.NONE, state: 'CompleteCommit', partitions: [], producerId: open.producerId, producerEpoch: open.producerEpoch });

    const read = await readAll(topic, [3, 2]);
    expect(at(read)).toEqual([`0@0:c0`, `0@1:c2`, `1@0:c1`]);
    expect(read.map((r) => r.key)).toEqual(['a', 'c', 'b']);
  });

  it('abort: a READ_COMMITTED consumer (the default) never sees an aborted record; a readUncommitted one sees them all', async () => {
    const topic = uniqueName('txn-abort');
    await createTopic(topic, 1);
    const producer = await txnProducer(uniqueName('kjs-abort'));

    const send = async (values: string[], end: 'commit' | 'abort') => {
      const txn = await producer.transaction();
      await txn.send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
      await (end === 'commit' ? txn.commit() : txn.abort());
    };
    await send(['keep-0', 'keep-1'], 'commit');
    await send(['drop-0', 'drop-1'], 'abort');
    await send(['keep-2'], 'commit');
    // 5 records and 3 markers (COMMIT, ABORT, COMMIT).
    const ends = await stableEnds(broker.bootstrap, topic, 1);
    expect(ends).toEqual([8]);

    const committed = await readAll(topic, ends);
    expect(at(committed)).toEqual(['0@0:keep-0', '0@1:keep-1', '0@6:keep-2']);
    const uncommitted = await readAll(topic, ends, { readUncommitted: true });
    expect(at(uncommitted)).toEqual(['0@0:keep-0', '0@1:keep-1', '0@3:drop-0', '0@4:drop-1', '0@6:keep-2']);
  });

  it('a running READ_COMMITTED consumer gets nothing of an open transaction, all of it at commit, and nothing of an aborted one', async () => {
    const topic = uniqueName('txn-live');
    await createTopic(topic, 1);
    const producer = await txnProducer(uniqueName('kjs-live'));
    const committed = await new Reader(topic, uniqueName('live-committed')).start();
    const uncommitted = await new Reader(topic, uniqueName('live-uncommitted'), { readUncommitted: true }).start();

    const t1 = await producer.transaction();
    await t1.send({ topic, messages: [{ value: 'first-0', partition: 0 }, { value: 'first-1', partition: 0 }] });
    // The READ_UNCOMMITTED consumer gets the open transaction's records; the READ_COMMITTED one,
    // fetching all along (two more fetches answered after the other got them), gets nothing.
    await waitFor('the uncommitted reader to get the open transaction', () => uncommitted.read.length === 2);
    const fetchesThen = committed.fetches;
    await waitFor('two more fetches of the committed reader', () => committed.fetches >= fetchesThen + 2);
    expect(committed.values()).toEqual([]);

    await t1.commit();
    await waitFor('the committed reader to get the committed transaction', () => committed.read.length === 2);
    expect(committed.values()).toEqual(['first-0', 'first-1']);

    const t2 = await producer.transaction();
    await t2.send({ topic, messages: [{ value: 'gone-0', partition: 0 }] });
    await waitFor('the uncommitted reader to get the second transaction', () => uncommitted.read.length === 3);
    await t2.abort();
    const t3 = await producer.transaction();
    await t3.send({ topic, messages: [{ value: 'last', partition: 0 }] });
    await t3.commit();
    const ends = await stableEnds(broker.bootstrap, topic, 1);
    expect(ends).toEqual([7]); // first-0, first-1, COMMIT, gone-0, ABORT, last, COMMIT
    await committed.caughtUp(ends);
    await uncommitted.caughtUp(ends);
    expect(at(committed.read)).toEqual(['0@0:first-0', '0@1:first-1', '0@5:last']);
    expect(at(uncommitted.read)).toEqual(['0@0:first-0', '0@1:first-1', '0@3:gone-0', '0@5:last']);
  });
});

describe('kafkajs exactly-once consume-transform-produce', () => {
  it('sendOffsets commits the input offsets with the output; an aborted transaction commits neither; a restarted consumer resumes from the committed offsets', async () => {
    const input = uniqueName('ctp-in');
    const output = uniqueName('ctp-out');
    const group = uniqueName('ctp-group');
    await createTopic(input, 2);
    await createTopic(output, 2);
    const a = await admin();
    const source = await plainProducer();
    const produceInputs = (from: number, count: number) =>
      source.send({ topic: input, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ key: `i${from + i}`, value: `i${from + i}`, partition: (from + i) % 2 })) });
    const committedOffsets = async () => {
      const [t] = await a.fetchOffsets({ groupId: group, topics: [input] });
      return [...(t?.partitions ?? [])].sort((x, y) => x.partition - y.partition).map((p) => Number(p.offset));
    };

    const producer = await txnProducer(uniqueName('ctp-txn'));
    /** One member of the loop: every batch read is transformed and written in a transaction with its input offsets. */
    const startLoop = async (name: string) => {
      const consumed: Read[] = [];
      const consumer = kafka.consumer({ ...FAST, groupId: group });
      closers.push(() => consumer.disconnect());
      await consumer.connect();
      await consumer.subscribe({ topics: [input], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          if (batch.messages.length === 0) return;
          for (const m of batch.messages) consumed.push({ partition: batch.partition, offset: Number(m.offset), key: m.key?.toString() ?? null, value: m.value?.toString() ?? '' });
          const txn = await producer.transaction();
          try {
            await txn.send({ topic: output, messages: batch.messages.map((m) => ({ key: m.key, value: `${name}(${m.value?.toString()})`, partition: batch.partition })) });
            const next = Number(batch.messages[batch.messages.length - 1]!.offset) + 1;
            await txn.sendOffsets({ consumerGroupId: group, topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: String(next) }] }] });
            await txn.commit();
          } catch (e) {
            await txn.abort().catch(() => undefined);
            throw e;
          }
        },
      });
      return { consumer, consumed };
    };

    await produceInputs(0, 6);
    const first = await startLoop('A');
    // The offsets the broker stored from the transactions (OffsetFetch through kafkajs's admin).
    await waitFor('offsets 3/3 committed through the transactions', async () => (await committedOffsets()).join() === '3,3');
    await first.consumer.disconnect();
    expect(first.consumed.map((r) => r.value).sort()).toEqual(['i0', 'i1', 'i2', 'i3', 'i4', 'i5']);

    // 4 more inputs, and a transaction that writes an output and commits offsets past them, then
    // aborts: the group's offsets stay where they were, and the output is never read committed.
    await produceInputs(6, 4);
    const aborted = await producer.transaction();
    await aborted.send({ topic: output, messages: [{ key: 'i6', value: 'aborted(i6)', partition: 0 }] });
    await aborted.sendOffsets({ consumerGroupId: group, topics: [{ topic: input, partitions: [{ partition: 0, offset: '5' }, { partition: 1, offset: '5' }] }] });
    await aborted.abort();
    expect(await committedOffsets()).toEqual([3, 3]);

    // Restarted: the loop resumes from the committed offsets, 3 in each partition, and gets exactly the 4 new inputs.
    const second = await startLoop('B');
    await waitFor('offsets 5/5 committed through the transactions', async () => (await committedOffsets()).join() === '5,5');
    await second.consumer.disconnect();
    expect(second.consumed.map((r) => `${r.partition}@${r.offset}:${r.value}`).sort()).toEqual(['0@3:i6', '0@4:i8', '1@3:i7', '1@4:i9']);

    // The output: every input transformed exactly once, by the member that committed its offset;
    // the aborted attempt is there for a READ_UNCOMMITTED reader only.
    const ends = await stableEnds(broker.bootstrap, output, 2);
    const out = await readAll(output, ends);
    expect(out.map((r) => r.value).sort()).toEqual(['A(i0)', 'A(i1)', 'A(i2)', 'A(i3)', 'A(i4)', 'A(i5)', 'B(i6)', 'B(i7)', 'B(i8)', 'B(i9)']);
    const all = await readAll(output, ends, { readUncommitted: true });
    expect(all.map((r) => r.value).filter((v) => v.startsWith('aborted'))).toEqual(['aborted(i6)']);
  });
});

describe('kafkajs producer fencing', () => {
  it('a second producer with the same transactional id fences the first: its next transaction fails with INVALID_PRODUCER_EPOCH, and so does an open one', async () => {
    const topic = uniqueName('txn-fence');
    const id = uniqueName('kjs-fence');
    await createTopic(topic, 1);

    const p1 = await txnProducer(id);
    const t1 = await p1.transaction();
    await t1.send({ topic, messages: [{ value: 'p1-committed', partition: 0 }] });
    await t1.commit();
    const before = await settledTransaction(broker.bootstrap, id);

    // kafkajs sends InitProducerId at the first transaction(), not at connect(): p2 fences p1 there.
    const p2 = await txnProducer(id);
    const t2 = await p2.transaction();
    const after = await describeTransaction(broker.bootstrap, id);
    expect(after.producerId).toBe(before.producerId);
    expect(after.producerEpoch).toBe(before.producerEpoch + 1);

    // p1 (initialized, so it does not ask again) begins a transaction: its AddPartitionsToTxn
    // (v1) carries the old epoch. Kafka 3.9 answers PRODUCER_FENCED as INVALID_PRODUCER_EPOCH
    // below v2; kafkajs raises it as a non-retriable KafkaJSProtocolError.
    const zombie = await p1.transaction();
    const zombieError = await rejection(zombie.send({ topic, messages: [{ value: 'p1-zombie', partition: 0 }] }));
    expect(zombieError).toMatchObject({ name: 'INVALID_PRODUCER_EPOCH', retriable: false });
    await zombie.abort().catch(() => undefined);
    if (broker.trace) expect(answeredErrors(broker, 'AddPartitionsToTxn', addPartitionsErrors)).toContain(E.INVALID_PRODUCER_EPOCH);

    // Fenced in the middle of a transaction: p2 has one open when p3 initializes. Kafka bumps the
    // epoch to abort p2's transaction with it (answering p3 CONCURRENT_TRANSACTIONS, which kafkajs
    // retries, until the abort is complete), then bumps it again for p3: two epochs past p2's.
    // p2's next Produce and its EndTxn are refused with INVALID_PRODUCER_EPOCH.
    await t2.send({ topic, messages: [{ value: 'p2-open', partition: 0 }] });
    const p3 = await txnProducer(id);
    const t3 = await p3.transaction();
    expect((await describeTransaction(broker.bootstrap, id)).producerEpoch).toBe(before.producerEpoch + 3);
    expect(await rejection(t2.send({ topic, messages: [{ value: 'p2-more', partition: 0 }] }))).toMatchObject({ name: 'INVALID_PRODUCER_EPOCH' });
    expect(await rejection(t2.commit())).toMatchObject({ name: 'INVALID_PRODUCER_EPOCH' });
    if (broker.trace) {
      expect(answeredErrors(broker, 'Produce', produceErrors)).toContain(E.INVALID_PRODUCER_EPOCH);
      expect(answeredErrors(broker, 'EndTxn', topLevelError)).toContain(E.INVALID_PRODUCER_EPOCH);
    }

    await t3.send({ topic, messages: [{ value: 'p3', partition: 0 }] });
    await t3.commit();
    expect(await settledTransaction(broker.bootstrap, id)).toMatchObject({ state: 'CompleteCommit', producerEpoch: before.producerEpoch + 3 });

    // p1-committed, COMMIT, p2-open, ABORT (written by the coordinator when p3 fenced p2), p3, COMMIT.
    const ends = await stableEnds(broker.bootstrap, topic, 1);
    expect(ends).toEqual([6]);
    expect(at(await readAll(topic, ends))).toEqual(['0@0:p1-committed', '0@4:p3']);
    expect(at(await readAll(topic, ends, { readUncommitted: true }))).toEqual(['0@0:p1-committed', '0@2:p2-open', '0@4:p3']);
  });
});

describe('kafkajs transaction timeout', () => {
  it('a transaction left open past its timeout is aborted by the broker: the last stable offset moves on, the producer\'s commit is refused, READ_COMMITTED never sees it', async () => {
    const topic = uniqueName('txn-timeout');
    const id = uniqueName('kjs-timeout');
    await createTopic(topic, 1);
    // 1 s transaction timeout; the broker aborts it at its next check after that.
    const slow = await txnProducer(id, { transactionTimeout: 1000 });
    const open = await slow.transaction();
    await open.send({ topic, messages: [{ value: 'expired', partition: 0 }] });
    const started = await describeTransaction(broker.bootstrap, id);
    expect(started).toMatchObject({ state: 'Ongoing', timeoutMs: 1000 });

    // Another producer's committed record after it is held back by the open transaction: the
    // last stable offset stays at the open transaction's first offset.
    const other = await txnProducer(uniqueName('kjs-timeout-other'));
    const later = await other.transaction();
    await later.send({ topic, messages: [{ value: 'later', partition: 0 }] });
    await later.commit();
    const held = await logEnds(broker.bootstrap, topic, 1);
    expect(held.stable).toEqual([0]);

    // The broker aborts it (bumping the epoch, as a fence): an ABORT marker after the COMMIT.
    await waitFor('the broker to abort the timed-out transaction', async () => (await describeTransaction(broker.bootstrap, id)).state === 'CompleteAbort', 30_000, 100);
    expect(await describeTransaction(broker.bootstrap, id)).toMatchObject({ producerId: started.producerId, producerEpoch: started.producerEpoch + 1, partitions: [] });
    const ends = await stableEnds(broker.bootstrap, topic, 1);
    expect(ends).toEqual([4]); // expired, later, COMMIT, ABORT

    // The producer, unaware, commits: refused with the epoch the abort bumped past.
    expect(await rejection(open.commit())).toMatchObject({ name: 'INVALID_PRODUCER_EPOCH' });

    expect(at(await readAll(topic, ends))).toEqual(['0@1:later']);
    expect(at(await readAll(topic, ends, { readUncommitted: true }))).toEqual(['0@0:expired', '0@1:later']);
  });
});
