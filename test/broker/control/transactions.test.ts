// The control plane's transactions door: every transactional id the coordinator knows (a real
// kafkajs transactional producer's, and raw protocol ones on a manual clock), its events as an
// iterator and a subscription, the HTTP routes and their SSE stream, and injected errors on the
// transaction APIs in each API's own error shape.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import {
  createAddOffsetsToTxnRequest,
  createAddPartitionsToTxnRequest,
  createDescribeTransactionsRequest,
  createEndTxnRequest,
  createInitProducerIdRequest,
  createListTransactionsRequest,
  createTxnOffsetCommitRequest,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { ControlError } from '../../../src/broker/control/errors.js';
import type { TxnEvent } from '../../../src/broker/control/transactions.js';
import { RawClient } from '../../support/raw-client.js';
import { waitFor, within } from '../../support/clients/wait.js';
import { addPartitions, createTopic, endTransaction, initTransactions } from './helpers.js';

let kmock: Kmock | undefined;
const closers: Array<() => unknown> = [];

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  await kmock?.close();
  kmock = undefined;
});

async function start(options: KmockOptions = {}): Promise<Kmock> {
  kmock = await startKmock(options);
  return kmock;
}

async function raw(k: Kmock): Promise<RawClient> {
  const c = await RawClient.connect(k.bootstrapServers);
  closers.push(() => c.close());
  return c;
}

/** The next `n` events of an iterator, or a failure naming how many came. */
async function take(it: AsyncIterableIterator<TxnEvent>, n: number): Promise<TxnEvent[]> {
  const got: TxnEvent[] = [];
  await within(`${n} transaction events`, 10_000, (async () => {
    while (got.length < n) {
      const r = await it.next();
      if (r.done) throw new Error(`the iterator ended after ${got.length} events`);
      got.push(r.value);
    }
  })());
  return got;
}

const transitions = (events: TxnEvent[]): string[] =>
  events.map((e) => (e.type === 'txn-state-changed' ? `${e.from}->${e.to}@${e.producerEpoch}` : `${e.type}@${e.producerEpoch}`));

const status = (f: () => unknown): number | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof ControlError ? e.status : -1;
  }
  return undefined;
};

describe('control.transactions with kafkajs 2.2.4', () => {
  it('a transaction shows Ongoing with its partition, then CompleteCommit; an abort CompleteAbort; the events come in order', async () => {
    const k = await start();
    const kafka = new Kafka({ brokers: [k.bootstrapServers], clientId: 'txn-app', logLevel: logLevel.NOTHING, retry: { initialRetryTime: 50, retries: 8 } });
    const admin = kafka.admin();
    closers.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true });

    const events = k.control.transactions.events({ transactionalId: 'orders-tx' });
    closers.push(() => events.return?.());
    const producer = kafka.producer({ transactionalId: 'orders-tx', maxInFlightRequests: 1, idempotent: true });
    closers.push(() => producer.disconnect());
    await producer.connect();

    const txn = await producer.transaction();
    await within('send', 20_000, txn.send({ topic: 'orders', messages: [{ key: 'k', value: 'v1', partition: 1 }] }));
    const [ongoing] = k.control.transactions.list();
    expect(ongoing).toMatchObject({
      transactionalId: 'orders-tx',
      producerEpoch: 0,
      state: 'Ongoing',
      pendingState: null,
      partitions: [{ topic: 'orders', partition: 1 }],
      timeoutMs: 60_000, // kafkajs's default transactionTimeout
    });
    expect(typeof ongoing!.producerId).toBe('bigint');
    expect(ongoing!.producerId).toBeGreaterThanOrEqual(0n);
    expect(ongoing!.startedAt).toBeGreaterThan(0);
    expect(ongoing!.ageMs).toBeGreaterThanOrEqual(0);
    expect(ongoing!.ageMs!).toBeLessThan(20_000);
    expect(k.control.transactions.get('orders-tx')).toEqual({ ...ongoing, ageMs: expect.any(Number) });
    // The open transaction holds partition 1's last stable offset at its first record.
    const orders = () => k.control.topics().find((t) => t.name === 'orders')!.partitions[1]!;
    expect(orders()).toMatchObject({ highWatermark: 1, lastStableOffset: 0 });

    await within('commit', 20_000, txn.commit());
    const committed = await waitFor('CompleteCommit', () => {
      const t = k.control.transactions.get('orders-tx');
      return t.state === 'CompleteCommit' && t;
    });
    expect(committed).toMatchObject({ producerId: ongoing!.producerId, producerEpoch: 0, partitions: [], ageMs: null, startedAt: ongoing!.startedAt });
    expect(committed.lastUpdate).toBeGreaterThanOrEqual(ongoing!.lastUpdate);
    expect(orders()).toMatchObject({ highWatermark: 2, lastStableOffset: 2 }); // the record and the COMMIT marker

    const second = await producer.transaction();
    await within('send', 20_000, second.send({ topic: 'orders', messages: [{ value: 'v2', partition: 0 }] }));
    expect(k.control.transactions.get('orders-tx')).toMatchObject({ state: 'Ongoing', partitions: [{ topic: 'orders', partition: 0 }] });
    await within('abort', 20_000, second.abort());
    await waitFor('CompleteAbort', () => k.control.transactions.get('orders-tx').state === 'CompleteAbort');

    expect(transitions(await take(events, 7))).toEqual([
      'Empty->Empty@0', // InitProducerId
      'Empty->Ongoing@0', // AddPartitionsToTxn
      'Ongoing->PrepareCommit@0', // EndTxn
      'PrepareCommit->CompleteCommit@0', // the markers written
      'CompleteCommit->Ongoing@0',
      'Ongoing->PrepareAbort@0',
      'PrepareAbort->CompleteAbort@0',
    ]);
  }, 60_000);

  it("a group's view shows sendOffsets' offsets pending until the commit, then committed", async () => {
    const k = await start({ groupInitialRebalanceDelayMs: 0 });
    const kafka = new Kafka({ clientId: 'ctl-txn-offsets', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
    const admin = kafka.admin();
    closers.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'in', numPartitions: 1 }, { topic: 'out', numPartitions: 1 }] });
    const producer = kafka.producer({ transactionalId: 'eos-tx', maxInFlightRequests: 1, idempotent: true });
    closers.push(() => producer.disconnect());
    await producer.connect();
    const txn = await producer.transaction();
    await within('send', 20_000, txn.send({ topic: 'out', messages: [{ value: 'x' }] }));
    await within('sendOffsets', 20_000, txn.sendOffsets({ consumerGroupId: 'eos-group', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '7' }] }] }));
    const pending = k.control.group('eos-group');
    expect(pending.offsets).toEqual([]);
    expect(pending.pendingTransactionalOffsets).toEqual([
      expect.objectContaining({ topic: 'in', partition: 0, offset: 7n, producerId: k.control.transactions.get('eos-tx').producerId }),
    ]);
    await within('commit', 20_000, txn.commit());
    const done = await waitFor('offsets committed', () => {
      const g = k.control.group('eos-group');
      return g.offsets.length > 0 && g;
    });
    expect(done.offsets).toEqual([expect.objectContaining({ topic: 'in', partition: 0, offset: 7 })]);
    expect(done.pendingTransactionalOffsets).toEqual([]);
  }, 60_000);
});

describe('control.transactions on a manual clock', () => {
  it('ages follow the clock; a timed-out transaction is aborted with an epoch bump, in events per id', async () => {
    const k = await start({ clock: 'manual', clockStartMs: 1_000, transactionAbortTimedOutTransactionCleanupIntervalMs: 1_000 });
    const c = await raw(k);
    expect(await createTopic(c, 'pay', 2)).toBe(0);
    const onlyA = k.control.transactions.events({ transactionalId: 'a' });
    const all = k.control.transactions.events();
    closers.push(() => onlyA.return?.(), () => all.return?.());

    const a = await initTransactions(c, 'a', 10_000);
    expect(await addPartitions(a, 'pay', [1, 0])).toEqual([0, 0]);
    const b = await initTransactions(c, 'b', 30_000);
    expect(k.control.transactions.list()).toEqual([
      { transactionalId: 'a', producerId: a.producerId, producerEpoch: 0, state: 'Ongoing', pendingState: null, partitions: [{ topic: 'pay', partition: 1 }, { topic: 'pay', partition: 0 }], timeoutMs: 10_000, startedAt: 1_000, ageMs: 0, lastUpdate: 1_000 },
      { transactionalId: 'b', producerId: b.producerId, producerEpoch: 0, state: 'Empty', pendingState: null, partitions: [], timeoutMs: 30_000, startedAt: -1, ageMs: null, lastUpdate: 1_000 },
    ]);
    expect(b.producerId).not.toBe(a.producerId);

    k.clock.advance(4_000);
    expect(k.control.transactions.get('a').ageMs).toBe(4_000);
    // Not yet past its timeout (start + timeout < now, checked every second): still Ongoing at 11 000.
    k.clock.advance(6_000);
    expect(k.control.transactions.get('a')).toMatchObject({ state: 'Ongoing', ageMs: 10_000 });
    k.clock.advance(1_000);
    expect(k.control.transactions.get('a')).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1, partitions: [], ageMs: null, startedAt: 1_000, lastUpdate: 12_000 });
    expect(k.control.transactions.get('b')).toMatchObject({ state: 'Empty', producerEpoch: 0 });

    const seen = await take(onlyA, 5);
    expect(transitions(seen)).toEqual(['Empty->Empty@0', 'Empty->Ongoing@0', 'txn-timed-out@0', 'Ongoing->PrepareAbort@1', 'PrepareAbort->CompleteAbort@1']);
    expect(seen.map((e) => e.at)).toEqual([1_000, 1_000, 12_000, 12_000, 12_000]);
    expect(seen[2]).toEqual({ type: 'txn-timed-out', transactionalId: 'a', at: 12_000, producerId: a.producerId, producerEpoch: 0, timeoutMs: 10_000 });
    // The unfiltered stream has b's InitProducerId between a's events, in the order they happened.
    expect((await take(all, 6)).map((e) => `${e.transactionalId}:${e.type}`)).toEqual([
      'a:txn-state-changed', 'a:txn-state-changed', 'b:txn-state-changed', 'a:txn-timed-out', 'a:txn-state-changed', 'a:txn-state-changed',
    ]);
  });

  it('an idle transactional id expires: an event, then it is gone', async () => {
    const k = await start({ clock: 'manual', clockStartMs: 1_000, transactionalIdExpirationMs: 5_000, transactionRemoveExpiredTransactionCleanupIntervalMs: 1_000 });
    const c = await raw(k);
    const heard: TxnEvent[] = [];
    const unsubscribe = k.control.transactions.subscribe((e) => heard.push(e));
    const p = await initTransactions(c, 'idle');
    expect(k.control.transactions.get('idle').state).toBe('Empty');
    k.clock.advance(4_000);
    expect(k.control.transactions.list()).toHaveLength(1);
    k.clock.advance(1_000);
    expect(k.control.transactions.list()).toEqual([]);
    expect(status(() => k.control.transactions.get('idle'))).toBe(404);
    expect(heard.at(-1)).toEqual({ type: 'txn-id-expired', transactionalId: 'idle', at: 6_000, producerId: p.producerId, producerEpoch: 0 });
    unsubscribe();
    await initTransactions(c, 'idle');
    expect(heard).toHaveLength(2);
  });

  it('checks its input; a throwing listener does not disturb the coordinator; the signal and the buffer bound events()', async () => {
    const lines: Array<Record<string, any>> = [];
    const logger = pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const k = await start({ clock: 'manual', logger });
    const c = await raw(k);
    expect(status(() => k.control.transactions.get(''))).toBe(400);
    expect(status(() => k.control.transactions.get(7))).toBe(400);
    expect(status(() => k.control.transactions.get('x'.repeat(32_768)))).toBe(400);
    expect(() => k.control.transactions.get('nope')).toThrow('no transactional id "nope"');
    expect(status(() => k.control.transactions.events({ bufferSize: 0 }))).toBe(400);

    k.control.transactions.subscribe(() => {
      throw new Error('listener bug');
    });
    const p = await initTransactions(c, 'robust');
    expect(await createTopic(c, 't')).toBe(0);
    expect(await addPartitions(p, 't', [0])).toEqual([0]);
    expect(k.control.transactions.get('robust')).toMatchObject({ state: 'Ongoing', partitions: [{ topic: 't', partition: 0 }] });
    expect(lines.filter((l) => l.msg === 'transaction event listener failed')).toHaveLength(2);
    expect(lines.find((l) => l.msg === 'transaction event listener failed')!.err).toMatch(/listener bug/);

    // Only the newest bufferSize events wait for a slow consumer.
    const small = k.control.transactions.events({ bufferSize: 2 });
    expect(await endTransaction(p, true)).toBe(0);
    await waitFor('CompleteCommit', () => k.control.transactions.get('robust').state === 'CompleteCommit');
    await initTransactions(c, 'robust'); // CompleteCommit -> Empty, epoch 1
    expect(transitions(await take(small, 2))).toEqual(['PrepareCommit->CompleteCommit@0', 'CompleteCommit->Empty@1']);

    // The signal ends the iteration, pending next() included.
    const abort = new AbortController();
    const it = k.control.transactions.events({ signal: abort.signal });
    const pending = it.next();
    abort.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
    const listeners = k.broker.txnEventListeners.size;
    await small.return!();
    expect(k.broker.txnEventListeners.size).toBe(listeners - 1);
    const aborted = k.control.transactions.events({ signal: AbortSignal.abort() });
    expect(await aborted.next()).toEqual({ value: undefined, done: true });
  });
});

describe('the HTTP API', () => {
  it('GET /transactions, /transactions/:id, and /transactions/events streams the events of one id', async () => {
    const k = await start({ clock: 'manual', clockStartMs: 5_000, adminPort: 0 });
    const url = k.adminUrl!;
    const get = async (path: string) => {
      const res = await fetch(url + path);
      return { status: res.status, body: (await res.json()) as any };
    };
    const c = await raw(k);
    expect(await createTopic(c, 'ledger', 3)).toBe(0);
    const p = await initTransactions(c, 'ledger-tx', 20_000);
    await initTransactions(c, 'events'); // an id named like the stream
    expect(await addPartitions(p, 'ledger', [2])).toEqual([0]);
    k.clock.advance(1_500);

    const listed = await get('/transactions');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { transactionalId: 'ledger-tx', producerId: Number(p.producerId), producerEpoch: 0, state: 'Ongoing', pendingState: null, partitions: [{ topic: 'ledger', partition: 2 }], timeoutMs: 20_000, startedAt: 5_000, ageMs: 1_500, lastUpdate: 5_000 },
      expect.objectContaining({ transactionalId: 'events', state: 'Empty', ageMs: null, startedAt: -1 }),
    ]);
    expect(await get('/transactions/ledger-tx')).toEqual({ status: 200, body: listed.body[0] });
    expect(await get('/transactions/%65vents')).toMatchObject({ status: 200, body: { transactionalId: 'events' } });
    expect(await get('/transactions/missing')).toEqual({ status: 404, body: { error: 'no transactional id "missing"' } });
    expect((await fetch(url + '/transactions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(405);
    expect((await get('/transactions/events?group=g')).status).toBe(400);
    expect((await get('/transactions/events?transactionalId=')).status).toBe(400);

    const res = await fetch(`${url}/transactions/events?transactionalId=ledger-tx`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    closers.push(() => reader.cancel());
    let text = '';
    const readUntil = async (needle: string, from = 0) => {
      await within(`"${needle}" on the stream`, 10_000, (async () => {
        while (text.indexOf(needle, from) < 0) text += new TextDecoder().decode((await reader.read()).value);
      })());
    };
    await readUntil(': subscribed');
    await initTransactions(c, 'other'); // not this stream's id
    expect(await endTransaction(p, true)).toBe(0);
    await readUntil('"to":"CompleteCommit"');
    const blocks = text.split('\n\n').filter((b) => b.includes('event: '));
    expect(blocks.map((b) => /^event: (.*)$/m.exec(b)![1])).toEqual(['txn-state-changed', 'txn-state-changed']);
    const data = blocks.map((b) => JSON.parse(/^data: (.*)$/m.exec(b)![1]!));
    expect(data).toEqual([
      { type: 'txn-state-changed', transactionalId: 'ledger-tx', at: 6_500, from: 'Ongoing', to: 'PrepareCommit', producerId: Number(p.producerId), producerEpoch: 0 },
      { type: 'txn-state-changed', transactionalId: 'ledger-tx', at: 6_500, from: 'PrepareCommit', to: 'CompleteCommit', producerId: Number(p.producerId), producerEpoch: 0 },
    ]);
  });
});

describe('injected errors on the transaction APIs', () => {
  it('each answers in its own error shape at its highest version, and the request is not processed', async () => {
    const k = await start();
    const c = await raw(k);
    expect(await createTopic(c, 'shop', 2)).toBe(0);
    const served = (key: number) => k.broker.handlers.get(key);
    const max = (key: number) => served(key)!.maxVersion;
    const inject = (apiKey: number, errorCode: number) => k.control.injectErrors({ apiKey, errorCode });
    const COORDINATOR_NOT_AVAILABLE = 15;
    const CONCURRENT_TRANSACTIONS = 51;

    expect(max(22)).toBe(5);
    inject(22, COORDINATOR_NOT_AVAILABLE);
    expect(await c.request(22, 5, createInitProducerIdRequest({ transactionalId: 'inj', transactionTimeoutMs: 60_000 }))).toEqual({
      throttleTimeMs: 0, errorCode: COORDINATOR_NOT_AVAILABLE, producerId: -1n, producerEpoch: -1,
    });
    expect(k.control.transactions.list()).toEqual([]); // not processed
    const p = await initTransactions(c, 'inj');

    // AddPartitionsToTxn: v5 (its highest: brokers' batches) only the top-level error; v3 (clients') every partition.
    expect(max(24)).toBe(5);
    inject(24, CONCURRENT_TRANSACTIONS);
    const batch = createAddPartitionsToTxnRequest({
      transactions: [{ transactionalId: 'inj', producerId: p.producerId, producerEpoch: p.producerEpoch, verifyOnly: false, topics: [{ name: 'shop', partitions: [0, 1] }] }],
    });
    expect(await c.request(24, 5, batch)).toEqual({ throttleTimeMs: 0, errorCode: CONCURRENT_TRANSACTIONS, resultsByTransaction: [], resultsByTopicV3AndBelow: [] });
    inject(24, CONCURRENT_TRANSACTIONS);
    const v3 = createAddPartitionsToTxnRequest({
      v3AndBelowTransactionalId: 'inj', v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: p.producerEpoch, v3AndBelowTopics: [{ name: 'shop', partitions: [1, 0] }],
    });
    expect((await c.request(24, 3, v3)).resultsByTopicV3AndBelow).toEqual([
      { name: 'shop', resultsByPartition: [{ partitionIndex: 1, partitionErrorCode: CONCURRENT_TRANSACTIONS }, { partitionIndex: 0, partitionErrorCode: CONCURRENT_TRANSACTIONS }] },
    ]);
    expect(k.control.transactions.get('inj')).toMatchObject({ state: 'Empty', partitions: [] });
    expect((await c.request(24, 3, v3)).resultsByTopicV3AndBelow[0]!.resultsByPartition.map((r) => r.partitionErrorCode)).toEqual([0, 0]);
    expect(k.control.transactions.get('inj').state).toBe('Ongoing');

    expect(max(25)).toBe(4);
    inject(25, COORDINATOR_NOT_AVAILABLE);
    expect(await c.request(25, 4, createAddOffsetsToTxnRequest({ transactionalId: 'inj', producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: 'g' }))).toEqual({
      throttleTimeMs: 0, errorCode: COORDINATOR_NOT_AVAILABLE,
    });

    expect(max(26)).toBe(4);
    inject(26, CONCURRENT_TRANSACTIONS);
    const commit = createEndTxnRequest({ transactionalId: 'inj', producerId: p.producerId, producerEpoch: p.producerEpoch, committed: true });
    expect(await c.request(26, 4, commit)).toEqual({ throttleTimeMs: 0, errorCode: CONCURRENT_TRANSACTIONS });
    expect(k.control.transactions.get('inj').state).toBe('Ongoing'); // not committed

    if (served(28)) {
      inject(28, COORDINATOR_NOT_AVAILABLE);
      const toc = createTxnOffsetCommitRequest({
        transactionalId: 'inj', groupId: 'g', producerId: p.producerId, producerEpoch: p.producerEpoch,
        topics: [{ name: 'shop', partitions: [{ partitionIndex: 1, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }] }],
      });
      expect(await c.request(28, max(28), toc)).toEqual({ throttleTimeMs: 0, topics: [{ name: 'shop', partitions: [{ partitionIndex: 1, errorCode: COORDINATOR_NOT_AVAILABLE }] }] });
    }

    inject(65, COORDINATOR_NOT_AVAILABLE);
    const described = await c.request(65, max(65), createDescribeTransactionsRequest({ transactionalIds: ['inj', 'x'] }));
    expect(described.transactionStates.map((s) => [s.transactionalId, s.errorCode, s.producerId, s.transactionState])).toEqual([
      ['inj', COORDINATOR_NOT_AVAILABLE, 0n, ''],
      ['x', COORDINATOR_NOT_AVAILABLE, 0n, ''],
    ]);
    inject(66, COORDINATOR_NOT_AVAILABLE);
    expect(await c.request(66, max(66), createListTransactionsRequest({ stateFilters: [], producerIdFilters: [], durationFilter: -1n }))).toEqual({
      throttleTimeMs: 0, errorCode: COORDINATOR_NOT_AVAILABLE, unknownStateFilters: [], transactionStates: [],
    });

    // Then normal service: the commit goes through.
    expect(await c.request(26, 4, commit)).toEqual({ throttleTimeMs: 0, errorCode: 0 });
    expect(k.control.faultsView().injected).toEqual(expect.arrayContaining([
      { apiKey: 22, api: 'InitProducerId', count: 1 },
      { apiKey: 24, api: 'AddPartitionsToTxn', count: 2 },
      { apiKey: 26, api: 'EndTxn', count: 1 },
    ]));
  });
});
