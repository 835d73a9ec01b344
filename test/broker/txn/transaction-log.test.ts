// The transaction coordinator's records in __transaction_state (log-records.ts, transaction-log.ts)
// and its loader (TransactionCoordinator.loadFromLog), against what Kafka 3.9.1 wrote for the same
// story (test/broker/group/fixtures/record-kafka-segments.ts): TransactionLogKey v0 /
// TransactionLogValue v0 read and encoded again to the same bytes, the same sequence of records
// for the same transactions, tombstones per partition, and transactions rebuilt in their states.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../../../src/broker/group/coordinator.js';
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '../../../src/broker/internal-topics.js';
import { ProducerIdManager } from '../../../src/broker/log/producer-ids.js';
import { TransactionCoordinator } from '../../../src/broker/txn/coordinator.js';
import { logMarkerWriter } from '../../../src/broker/txn/log-markers.js';
import * as L from '../../../src/broker/txn/log-records.js';
import type { TxnTransit } from '../../../src/broker/txn/metadata.js';
import { tpKey } from '../../../src/broker/txn/types.js';
import type { RecordBatch } from '../../../src/codec/records/batch.js';
import { ErrorCode } from '../../../src/codec/index.js';
import { kafkaBatches, kafkaPartitions, OffsetsTopicEnv, shape } from '../group/offsets-topic-env.js';

/** A broker's two coordinators over one store (the markers into its logs). */
function coordinators(env: OffsetsTopicEnv, config: ConstructorParameters<typeof TransactionCoordinator>[0]['config'] = {}) {
  const groups = new GroupCoordinator({ clock: env.clock, timers: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0 });
  const producerIds = new ProducerIdManager();
  const transactions = new TransactionCoordinator({
    config,
    clock: env.clock,
    timers: env.clock,
    producerIds,
    offsetsPartitionFor: (g) => groups.partitionFor(g),
    markers: logMarkerWriter({ ...env.services, groups, log: pino({ level: 'silent' }) }),
    log: env.txnStore(),
  });
  return { groups, transactions, producerIds };
}

function sync<T>(f: (cb: (r: T) => void) => void): T {
  let out: T | undefined;
  f((r) => (out = r));
  if (out === undefined) throw new Error('no answer');
  return out;
}

function transitOf(r: L.TransactionLogRecord): TxnTransit {
  return {
    producerId: r.producerId,
    lastProducerId: -1n,
    producerEpoch: r.producerEpoch,
    lastProducerEpoch: -1,
    txnTimeoutMs: r.txnTimeoutMs,
    txnState: r.state,
    topicPartitions: new Set(r.partitions.map(tpKey)),
    txnStartTimestamp: r.txnStartTimestamp,
    txnLastUpdateTimestamp: r.txnLastUpdateTimestamp,
  };
}

const records = (batches: readonly { batch: RecordBatch }[]) =>
  batches.flatMap(({ batch }) => batch.records.map((r) => ({ key: L.readTransactionLogKey(r.key!), value: L.readTransactionLogValue(r.value) })));

describe("Kafka 3.9.1's transaction log records", () => {
  const kafka = kafkaBatches('__transaction_state-20');

  it('read back and encode again to the same bytes (TransactionLogKey v0, TransactionLogValue v0); one record per batch, no producer, CreateTime', () => {
    expect(kafka.length).toBeGreaterThan(5);
    for (const { batch } of kafka) {
      expect(shape(batch)).toMatchObject({ producerId: -1n, producerEpoch: -1, baseSequence: -1, isTransactional: false, compression: 'none', timestampType: 0, records: 1 });
      const r = batch.records[0]!;
      const key = L.readTransactionLogKey(r.key!);
      if (!('transactionalId' in key)) throw new Error('unknown key');
      expect(L.transactionLogKeyBytes(key.transactionalId)).toEqual(r.key);
      expect(r.value!.readInt16BE(0)).toBe(0);
      expect(L.transactionLogValueBytes(transitOf(L.readTransactionLogValue(r.value)!))).toEqual(r.value);
      expect(L.transactionStatePartitionFor(key.transactionalId)).toBe(20);
    }
  });

  it('kmock writes the same records for the same transactions: InitProducerId, AddPartitions, AddOffsets, EndTxn commit (PrepareCommit, CompleteCommit), an aborted one, a committed one', () => {
    const theirs = records(kafka).map(({ value }) => ({ state: value!.state, epoch: value!.producerEpoch, timeout: value!.txnTimeoutMs, partitions: value!.partitions.map((p) => p.topic === OFFSETS_TOPIC ? 'offsets' : `${p.topic}-${p.partition}`), started: value!.txnStartTimestamp >= 0 }));
    const env = new OffsetsTopicEnv(1_000_000);
    const { transactions } = coordinators(env);
    const init = sync<{ producerId: bigint; producerEpoch: number; errorCode: number }>((cb) => transactions.initProducerId('tx-1', 60_000, undefined, cb));
    const { producerId: pid, producerEpoch: epoch } = init;
    const add = (tps: { topic: string; partition: number }[]) => expect(sync<number>((cb) => transactions.addPartitionsToTransaction('tx-1', pid, epoch, tps, cb))).toBe(ErrorCode.NONE);
    const offsets = () => expect(sync<number>((cb) => transactions.addOffsetsToTransaction('tx-1', pid, epoch, 'g-txn', cb))).toBe(ErrorCode.NONE);
    const end = (commit: boolean) => expect(sync<number>((cb) => transactions.endTransaction('tx-1', pid, epoch, commit ? 'COMMIT' : 'ABORT', cb))).toBe(ErrorCode.NONE);
    env.topics.create('t', 2, 1);
    add([{ topic: 't', partition: 0 }]);
    offsets();
    end(true);
    offsets();
    end(false);
    offsets();
    end(true);
    const ours = records(env.transactionLog(transactions.partitionFor('tx-1'))).map(({ value }) => ({ state: value!.state, epoch: value!.producerEpoch, timeout: value!.txnTimeoutMs, partitions: value!.partitions.map((p) => p.topic === OFFSETS_TOPIC ? 'offsets' : `${p.topic}-${p.partition}`), started: value!.txnStartTimestamp >= 0 }));
    expect(ours).toEqual(theirs);
    expect(env.transactionLog(20).every(({ batch }) => batch.producerId === -1n && batch.records.length === 1)).toBe(true);
  });

  it('loads as Kafka loads it: tx-1 in CompleteCommit with its producer id, epoch and timeout, no last producer epoch', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const { transactions } = coordinators(env);
    for (const [p, batches] of kafkaPartitions(TRANSACTION_STATE_TOPIC)) expect(transactions.loadFromLog(p, batches)).toEqual({ partition: p, loaded: 1, unknownKeys: 0 });
    const last = records(kafka).at(-1)!.value!;
    expect(transactions.describeTransaction('tx-1')).toMatchObject({ errorCode: 0, transactionState: 'CompleteCommit', producerId: last.producerId, producerEpoch: 0, transactionTimeoutMs: 60_000, transactionStartTimeMs: last.txnStartTimestamp, topics: [] });
    expect(transactions.metadata('tx-1')).toMatchObject({ lastProducerId: -1n, lastProducerEpoch: -1, txnLastUpdateTimestamp: last.txnLastUpdateTimestamp });
  });
});

describe('a transaction coordinator rebuilt from the log of another', () => {
  function story() {
    const env = new OffsetsTopicEnv(1_000_000);
    env.topics.create('t', 3, 1);
    const c = coordinators(env);
    const init = (id: string) => sync<{ producerId: bigint; producerEpoch: number; errorCode: number }>((cb) => c.transactions.initProducerId(id, 30_000, undefined, cb));
    const add = (id: string, pid: bigint, epoch: number, partition: number) => sync<number>((cb) => c.transactions.addPartitionsToTransaction(id, pid, epoch, [{ topic: 't', partition }], cb));
    const done = init('done');
    add('done', done.producerId, done.producerEpoch, 0);
    sync<number>((cb) => c.transactions.endTransaction('done', done.producerId, done.producerEpoch, 'COMMIT', cb));
    const open = init('open');
    add('open', open.producerId, open.producerEpoch, 1);
    add('open', open.producerId, open.producerEpoch, 2);
    const empty = init('empty');
    const again = init('empty'); // a second InitProducerId bumps the epoch
    return { env, ...c, done, open, empty, again };
  }
  const describe3 = (t: TransactionCoordinator) => ['done', 'open', 'empty'].map((id) => t.describeTransaction(id));

  it('has the same transactions: state, producer id and epoch, timeout, start time and partitions', () => {
    const s = story();
    const reloaded = coordinators(s.env);
    for (const [p, batches] of s.env.partitions(TRANSACTION_STATE_TOPIC)) reloaded.transactions.loadFromLog(p, batches);
    expect(describe3(reloaded.transactions)).toEqual(describe3(s.transactions));
    expect(describe3(reloaded.transactions).map((d) => d.transactionState)).toEqual(['CompleteCommit', 'Ongoing', 'Empty']);
    expect(reloaded.transactions.metadata('empty')!.producerEpoch).toBe(1);
  });

  it('an Ongoing transaction resumes its timeout from its start: aborted (epoch bumped, markers written) once it passes', () => {
    const s = story();
    s.transactions.close(); // the broker that wrote the log is gone
    const reloaded = coordinators(s.env, { abortTimedOutTransactionsIntervalMs: 1_000 });
    for (const [p, batches] of s.env.partitions(TRANSACTION_STATE_TOPIC)) reloaded.transactions.loadFromLog(p, batches);
    const partition1 = s.env.topics.get('t')!.partitions[1]!;
    const end = partition1.logEndOffset;
    s.env.clock.advance(30_000);
    expect(reloaded.transactions.metadata('open')!.state).toBe('Ongoing');
    s.env.clock.advance(2_000);
    expect(reloaded.transactions.metadata('open')).toMatchObject({ state: 'CompleteAbort', producerEpoch: s.open.producerEpoch + 1 });
    expect(partition1.logEndOffset).toBe(end + 1); // the ABORT marker
  });

  it('a transaction caught in PrepareCommit is completed by the load: its markers are written again, then CompleteCommit', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    env.topics.create('t', 1, 1);
    const c = coordinators(env);
    const init = sync<{ producerId: bigint; producerEpoch: number; errorCode: number }>((cb) => c.transactions.initProducerId('p', 30_000, undefined, cb));
    sync<number>((cb) => c.transactions.addPartitionsToTransaction('p', init.producerId, init.producerEpoch, [{ topic: 't', partition: 0 }], cb));
    sync<number>((cb) => c.transactions.addOffsetsToTransaction('p', init.producerId, init.producerEpoch, 'g', cb));
    sync<number>((cb) => c.transactions.endTransaction('p', init.producerId, init.producerEpoch, 'COMMIT', cb));
    // The log as a broker that stopped right after PrepareCommit left it: drop what followed.
    const batches = env.partitions(TRANSACTION_STATE_TOPIC).get(c.transactions.partitionFor('p'))!;
    const prepared = batches.filter((b) => L.readTransactionLogValue(b.records[0]!.value)!.state !== 'CompleteCommit');
    expect(L.readTransactionLogValue(prepared.at(-1)!.records[0]!.value)!.state).toBe('PrepareCommit');
    const data = env.topics.get('t')!.partitions[0]!;
    const dataEnd = data.logEndOffset;
    const reloaded = coordinators(env);
    reloaded.transactions.loadFromLog(c.transactions.partitionFor('p'), prepared);
    expect(reloaded.transactions.metadata('p')!.state).toBe('CompleteCommit');
    expect(data.logEndOffset).toBe(dataEnd + 1);
    const last = env.transactionLog(c.transactions.partitionFor('p')).at(-1)!.batch;
    expect(L.readTransactionLogValue(last.records[0]!.value)!.state).toBe('CompleteCommit');
  });

  it('expired ids: their tombstones, one batch per partition; a reloaded coordinator does not know them', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const c = coordinators(env, { transactionalIdExpirationMs: 1_000 });
    // Two ids of one partition, one of another.
    const all = new Map<number, string[]>();
    for (let i = 0; i < 200; i++) {
      const id = `id-${i}`;
      all.set(c.transactions.partitionFor(id), [...(all.get(c.transactions.partitionFor(id)) ?? []), id]);
    }
    const [pair] = [...all].filter(([, list]) => list.length >= 2);
    const [single] = [...all].filter(([p]) => p !== pair![0]);
    const byPartition = new Map([[pair![0], pair![1].slice(0, 2)], [single![0], single![1].slice(0, 1)]]);
    const ids = [...byPartition.values()].flat();
    for (const id of ids) sync((cb) => c.transactions.initProducerId(id, 30_000, undefined, cb));
    env.clock.advance(2_000);
    c.transactions.removeExpiredTransactionalIds();
    expect(c.transactions.transactionalIds()).toEqual([]);
    for (const [p, list] of byPartition) {
      const last = env.transactionLog(p).at(-1)!.batch;
      expect(last.records.map((r) => [L.readTransactionLogKey(r.key!), r.value])).toEqual(list.map((id) => [{ transactionalId: id }, null]));
    }
    const reloaded = coordinators(env);
    for (const [p, batches] of env.partitions(TRANSACTION_STATE_TOPIC)) reloaded.transactions.loadFromLog(p, batches);
    expect(reloaded.transactions.transactionalIds()).toEqual([]);
  });

  it('a record that cannot be read stops the reading: what came before it loads (as Kafka catches the error), the error is reported', () => {
    const s = story();
    const p = s.transactions.partitionFor('open');
    const batches = s.env.partitions(TRANSACTION_STATE_TOPIC).get(p)!;
    const broken = [...batches, { ...batches[0]!, records: batches[0]!.records.map((r) => ({ ...r, value: Buffer.from([0, 7, 0]) })) }];
    const reloaded = coordinators(s.env);
    const summary = reloaded.transactions.loadFromLog(p, broken);
    expect(summary.error).toMatch(/Unknown version 7/);
    expect(reloaded.transactions.metadata('open')?.state).toBe('Ongoing');
  });
});
