// The coordinators' state across a restart, with kafkajs (coordinator-state.ts): offsets committed
// by a consumer group and by a transactional producer (sendOffsets) are in __consumer_offsets,
// the transaction in __transaction_state; coordinators rebuilt from those logs in-process hold the
// same state as the live ones, and after a restart on the same data dir a consumer of the group
// resumes from its committed offsets and the transactional id goes on at the next epoch. Kafka
// 3.9.1's kafka-dump-log.sh decodes the segments kmock wrote (--offsets-decoder,
// --transaction-log-decoder) when its jars are cached.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCoordinatorState } from '../../src/broker/coordinator-state.js';
import { GroupCoordinator } from '../../src/broker/group/coordinator.js';
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '../../src/broker/internal-topics.js';
import { ProducerIdManager } from '../../src/broker/log/producer-ids.js';
import { startKmock, type Kmock, type KmockOptions } from '../../src/broker/server.js';
import { TransactionCoordinator } from '../../src/broker/txn/coordinator.js';
import { dumpLogSegments, kafkaLibs } from './storage/format/kafka-tools.js';

const running: Kmock[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const k of running.splice(0)) await k.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(options: KmockOptions = {}): Promise<Kmock> {
  const k = await startKmock({ groupInitialRebalanceDelayMs: 0, ...options });
  running.push(k);
  return k;
}

async function stop(k: Kmock): Promise<void> {
  await k.close();
  running.splice(running.indexOf(k), 1);
}

function client(k: Kmock): Kafka {
  return new Kafka({ clientId: 'coordinator-state-test', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
}

/** Produces 20 records to `orders` (2 partitions), consumes and commits the first 6 of each partition as group `g`. */
async function commitSome(k: Kmock): Promise<void> {
  const kafka = client(k);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }, { topic: 'out', numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `v${i}` })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: 'g' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  const seen = new Map<number, number>();
  await new Promise<void>((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const n = (seen.get(partition) ?? 0) + 1;
        seen.set(partition, n);
        if (n <= 6) await consumer.commitOffsets([{ topic: 'orders', partition, offset: String(Number(message.offset) + 1) }]);
        if ([...seen.values()].reduce((a, b) => a + b, 0) === 20) resolve();
      },
    });
  });
  await consumer.disconnect();
  // Exactly-once: a transaction commits offsets of group `eos` with a record to `out`.
  const txp = kafka.producer({ transactionalId: 'eos-tx', idempotent: true, maxInFlightRequests: 1 });
  await txp.connect();
  const txn = await txp.transaction();
  await txn.send({ topic: 'out', messages: [{ value: 'done' }] });
  await txn.sendOffsets({ consumerGroupId: 'eos', topics: [{ topic: 'orders', partitions: [{ partition: 0, offset: '4' }, { partition: 1, offset: '5' }] }] });
  await txn.commit();
  await txp.disconnect();
}

async function resumeFrom(k: Kmock, groupId: string): Promise<Map<number, string>> {
  const consumer = client(k).consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  const first = new Map<number, string>();
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        if (!first.has(partition)) first.set(partition, message.offset);
        if (first.size === 2) resolve();
      },
    });
  });
  await consumer.disconnect();
  return first;
}

function groupsView(g: GroupCoordinator) {
  return g.groupIds().sort().map((id) => {
    const group = g.group(id)!;
    return { id, state: group.state, generation: group.generationId, protocolType: group.protocolType, offsets: group.offsets.all().map((o) => [o.topic, o.partition, o.offset.offset, o.offset.appendSeq]).sort() };
  });
}

describe('coordinator state in __consumer_offsets and __transaction_state', () => {
  it('coordinators rebuilt in-process from the logs a live broker wrote hold the same groups, offsets and transactions', async () => {
    const k = await start();
    await commitSome(k);
    const b = k.broker;
    expect(b.topics.get(OFFSETS_TOPIC)!.partitions.some((l) => l.logEndOffset > 0)).toBe(true);
    expect(b.topics.get(TRANSACTION_STATE_TOPIC)!.partitions.some((l) => l.logEndOffset > 0)).toBe(true);
    const log = pino({ level: 'silent' });
    const groups = new GroupCoordinator({ clock: b.clock, timers: b.clock, offsetsRetentionCheckIntervalMs: 0 });
    const producerIds = new ProducerIdManager();
    const transactions = new TransactionCoordinator({ clock: b.clock, timers: b.clock, producerIds, offsetsPartitionFor: (g) => groups.partitionFor(g) });
    try {
      const loaded = loadCoordinatorState({ topics: b.topics, groups, transactions, producerIds, clock: b.clock, log });
      expect(loaded.groups.flatMap((s) => s.groups).sort()).toEqual(['eos', 'g']);
      expect(groupsView(groups)).toEqual(groupsView(b.groups));
      expect(groupsView(groups).find((g) => g.id === 'g')).toMatchObject({ state: 'Empty', generation: 2, protocolType: 'consumer' });
      expect(transactions.describeTransaction('eos-tx')).toEqual(b.transactions.describeTransaction('eos-tx'));
      expect(transactions.describeTransaction('eos-tx').transactionState).toBe('CompleteCommit');
      // The allocator goes on past the producer ids the logs hold.
      expect(producerIds.peek()).toBeGreaterThan(b.transactions.metadata('eos-tx')!.producerId);
    } finally {
      groups.close();
      transactions.close();
    }
  });

  it('after a restart on the same data dir, consumers resume from the committed offsets and the transactional id goes on at the next epoch', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kmock-coordinators-'));
    dirs.push(dir);
    let k = await start({ logDirs: dir });
    await commitSome(k);
    const before = k.broker.transactions.describeTransaction('eos-tx');
    await stop(k);

    k = await start({ logDirs: dir });
    expect(k.broker.groups.group('g')).toMatchObject({ state: 'Empty', generationId: 2 });
    expect(k.control.groups().map((g) => g.groupId).sort()).toEqual(['eos', 'g']);
    expect(await resumeFrom(k, 'g')).toEqual(new Map([[0, '6'], [1, '6']]));
    expect(await resumeFrom(k, 'eos')).toEqual(new Map([[0, '4'], [1, '5']]));
    // The group's new generation follows the loaded one.
    expect(k.broker.groups.group('g')!.generationId).toBeGreaterThan(2);

    expect(k.broker.transactions.describeTransaction('eos-tx')).toMatchObject({ transactionState: 'CompleteCommit', producerId: before.producerId, producerEpoch: before.producerEpoch });
    const txp = client(k).producer({ transactionalId: 'eos-tx', idempotent: true, maxInFlightRequests: 1 });
    await txp.connect();
    const again = await txp.transaction();
    await again.send({ topic: 'out', messages: [{ value: 'after the restart' }] });
    await again.commit();
    await txp.disconnect();
    expect(k.broker.transactions.describeTransaction('eos-tx')).toMatchObject({ transactionState: 'CompleteCommit', producerId: before.producerId, producerEpoch: before.producerEpoch + 1 });
  });

  it("Kafka 3.9.1's kafka-dump-log.sh decodes the records kmock wrote (--offsets-decoder, --transaction-log-decoder)", async () => {
    const libs = await kafkaLibs();
    if (libs === undefined) return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kmock-coordinators-'));
    dirs.push(dir);
    const k = await start({ logDirs: dir });
    await commitSome(k);
    const offsetsPartition = k.broker.groups.partitionFor('g');
    const txnPartition = k.broker.transactions.partitionFor('eos-tx');
    await stop(k);
    const segment = (topic: string, p: number) => path.join(dir, `${topic}-${p}`, '00000000000000000000.log');
    const offsets = await dumpLogSegments(libs, [segment(OFFSETS_TOPIC, offsetsPartition)], ['--offsets-decoder']);
    expect(offsets.stdout).toMatch(/key: \{"type":"2","data":\{"group":"g"\}\} payload: \{"version":"3","data":\{"protocolType":"consumer","generation":1,/);
    expect(offsets.stdout).toMatch(/key: \{"type":"1","data":\{"group":"g","topic":"orders","partition":[01]\}\} payload: \{"version":"3","data":\{"offset":6,"leaderEpoch":-1,"metadata":"","commitTimestamp":\d+\}\}/);
    expect(offsets.stdout).toMatch(/"generation":2,"protocol":null,"leader":null,"currentStateTimestamp":\d+,"members":\[\]/);
    expect(offsets.stdout).not.toMatch(/isvalid: false/);
    const txns = await dumpLogSegments(libs, [segment(TRANSACTION_STATE_TOPIC, txnPartition)], ['--transaction-log-decoder']);
    for (const state of ['Empty', 'Ongoing', 'PrepareCommit', 'CompleteCommit']) {
      expect(txns.stdout).toMatch(new RegExp(`key: transaction_metadata::transactionalId=eos-tx payload: producerId:\\d+,producerEpoch:0,state=${state},`));
    }
    const eos = await dumpLogSegments(libs, [segment(OFFSETS_TOPIC, k.broker.groups.partitionFor('eos'))], ['--offsets-decoder']);
    expect(eos.stdout).toMatch(/isTransactional: true isControl: false/);
    expect(eos.stdout).toMatch(/endTxnMarker: COMMIT coordinatorEpoch: 0/);
  }, 120_000);
});
