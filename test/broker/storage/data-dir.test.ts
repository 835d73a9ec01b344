// The data dir (--data-dir, log.dirs) across restarts, with kafkajs as the client: topics, their
// configs, data, the cluster id and producer ids come back; an idempotent producer's retry after a
// restart is a duplicate, not a second copy; a torn tail is truncated to the last whole batch; a
// dir kmock cannot read is refused with the file named; compacted segments are swapped in on disk;
// Kafka 3.9.1's kafka-dump-log.sh reads the segments a running kmock wrote.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/broker/log/log-config.js';
import { dumpLogSegments, kafkaLibs } from './format/kafka-tools.js';

const dirs: string[] = [];
const running: Kmock[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kmock-data-'));
  dirs.push(d);
  return d;
}

async function start(dir: string, extra: KmockOptions = {}): Promise<Kmock> {
  const k = await startKmock({ logDirs: dir, ...extra });
  running.push(k);
  return k;
}

async function stop(k: Kmock): Promise<void> {
  await k.close();
  running.splice(running.indexOf(k), 1);
}

afterEach(async () => {
  for (const k of running.splice(0)) await k.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function client(k: Kmock): Kafka {
  return new Kafka({ clientId: 'data-dir-test', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 50 } });
}

async function consumeAll(k: Kmock, topic: string, expected: number): Promise<Array<{ partition: number; offset: string; key: string; value: string }>> {
  const consumer = client(k).consumer({ groupId: `g-${Math.random()}`, retry: { retries: 2 } });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: Array<{ partition: number; offset: string; key: string; value: string }> = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${expected} records`)), 20_000);
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, offset: message.offset, key: message.key!.toString(), value: message.value!.toString() });
        if (got.length >= expected) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return got;
}

describe('a restart brings back what the data dir kept', () => {
  it('topics, their configs, data, the cluster id, and producer ids go on from the next block', async () => {
    const dir = tmpDir();
    let k = await start(dir);
    const admin = client(k).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '123456789' }] }] });
    const { clusterId } = await admin.describeCluster();
    await admin.disconnect();
    const producer = client(k).producer({ idempotent: true });
    await producer.connect();
    for (let i = 0; i < 30; i++) await producer.send({ topic: 'orders', acks: -1, messages: [{ key: `k${i}`, value: `v${i}`, partition: i % 3 }] });
    await producer.disconnect();
    expect(k.broker.producerIds.peek()).toBe(1n);
    await stop(k);

    k = await start(dir);
    const admin2 = client(k).admin();
    await admin2.connect();
    expect(await admin2.listTopics()).toContain('orders');
    expect((await admin2.describeCluster()).clusterId).toBe(clusterId);
    const described = await admin2.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders', configNames: ['retention.ms'] }] });
    expect(described.resources[0].configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '123456789' });
    const offsets = await admin2.fetchTopicOffsets('orders');
    expect(offsets.map((o) => o.high).sort()).toEqual(['10', '10', '10']);
    await admin2.disconnect();
    const got = await consumeAll(k, 'orders', 30);
    expect(new Set(got.map((m) => m.value)).size).toBe(30);
    // A new idempotent producer gets an id from a new block (Kafka's controller: ProducerIdsRecord).
    const p2 = client(k).producer({ idempotent: true });
    await p2.connect();
    await p2.send({ topic: 'orders', acks: -1, messages: [{ key: 'after', value: 'restart', partition: 0 }] });
    await p2.disconnect();
    expect(k.broker.producerIds.peek()).toBe(1001n);
    expect(k.broker.topics.get('orders')!.partitions[0].logEndOffset).toBe(11);
  });

  it("an idempotent producer's retry after a restart is answered as a duplicate", async () => {
    const dir = tmpDir();
    let k = await start(dir);
    const topic = k.broker.topics.create('idem', 1, 1);
    const batch = () => encodeBatch({ producerId: 7n, producerEpoch: 0, baseSequence: 0, records: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] });
    expect(topic.partitions[0].appendAsLeader(batch(), DEFAULT_LOG_CONFIG, Date.now())).toMatchObject({ errorCode: 0, baseOffset: 0, appended: true });
    await stop(k);
    k = await start(dir);
    const log = k.broker.topics.get('idem')!.partitions[0];
    expect(log.logEndOffset).toBe(2);
    // the same batch again (a producer retrying across the restart): the original offsets, not stored
    expect(log.appendAsLeader(batch(), DEFAULT_LOG_CONFIG, Date.now())).toMatchObject({ errorCode: 0, baseOffset: 0, appended: false });
    // the next sequence goes on
    const next = encodeBatch({ producerId: 7n, producerEpoch: 0, baseSequence: 2, records: [{ key: 'c', value: '3' }] });
    expect(log.appendAsLeader(next, DEFAULT_LOG_CONFIG, Date.now())).toMatchObject({ errorCode: 0, baseOffset: 2, appended: true });
    expect(log.logEndOffset).toBe(3);
  });

  it('producer state outlives the segments retention deleted (the snapshot written at roll and at shutdown)', async () => {
    const dir = tmpDir();
    let k = await start(dir, { clock: 'manual' });
    const idem = (pid: bigint, seq: number) => encodeBatch({ producerId: pid, producerEpoch: 0, baseSequence: seq, records: [{ key: 'a', value: 'x'.repeat(50) }] });
    const one = idem(9n, 0).length;
    const topic = k.broker.topics.create('snap', 1, 1, new Map([['segment.bytes', String(one)]]));
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: one };
    const log = topic.partitions[0];
    expect(log.appendAsLeader(idem(9n, 0), config, k.clock.now()).baseOffset).toBe(0);
    for (let i = 0; i < 3; i++) log.appendAsLeader(idem(5n, i), config, k.clock.now());
    log.deleteRecords(2);
    k.broker.logManager.cleanupLogs();
    expect(log.logSegments[0].baseOffset).toBe(2); // producer 9's only batch is gone with its segment
    await stop(k);
    expect(fs.readdirSync(path.join(dir, 'snap-0')).filter((n) => n.endsWith('.snapshot'))).toContain('00000000000000000004.snapshot');
    k = await start(dir, { clock: 'manual' });
    const reloaded = k.broker.topics.get('snap')!.partitions[0];
    // producer 9 retrying its batch: still a duplicate, answered with the original offset
    expect(reloaded.appendAsLeader(idem(9n, 0), config, k.clock.now())).toMatchObject({ errorCode: 0, baseOffset: 0, appended: false });
    expect(reloaded.appendAsLeader(idem(9n, 1), config, k.clock.now())).toMatchObject({ errorCode: 0, baseOffset: 4, appended: true });
  });

  it('a torn tail is truncated to the last whole batch, with a warning naming the file', async () => {
    const dir = tmpDir();
    let k = await start(dir);
    const topic = k.broker.topics.create('torn', 1, 1);
    for (let i = 0; i < 3; i++) topic.partitions[0].appendAsLeader(encodeBatch({ records: [{ key: `k${i}`, value: 'x'.repeat(100) }] }), DEFAULT_LOG_CONFIG, Date.now());
    await stop(k);
    const file = path.join(dir, 'torn-0', '00000000000000000000.log');
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size - 10); // the last batch cut short, as a crash mid-write leaves it
    fs.rmSync(path.join(dir, '.kafka_cleanshutdown'));
    const lines: Array<Record<string, unknown>> = [];
    k = await start(dir, { logger: pino({ level: 'warn' }, { write: (s: string) => lines.push(JSON.parse(s)) }) });
    const log = k.broker.topics.get('torn')!.partitions[0];
    expect(log.logEndOffset).toBe(2);
    expect(fs.statSync(file).size).toBe(size - (size / 3));
    expect(lines.some((l) => String(l.msg).includes('torn tail') && String(l.msg).includes(file))).toBe(true);
    // appends go on at the recovered end
    expect(log.appendAsLeader(encodeBatch({ records: [{ key: 'k', value: 'y' }] }), DEFAULT_LOG_CONFIG, Date.now()).baseOffset).toBe(2);
  });

  it('a dir kmock cannot read is refused, naming the file', async () => {
    const newer = tmpDir();
    fs.writeFileSync(path.join(newer, 'kmock.properties'), 'data.dir.version=99\n');
    await expect(startKmock({ logDirs: newer })).rejects.toThrow(/kmock\.properties: data dir version 99 was written by a newer kmock/);
    const foreign = tmpDir();
    fs.writeFileSync(path.join(foreign, 'notes.txt'), 'hello');
    await expect(startKmock({ logDirs: foreign })).rejects.toThrow(/not a kmock or Kafka data dir/);
    const badMeta = tmpDir();
    let k = await start(badMeta);
    await stop(k);
    fs.writeFileSync(path.join(badMeta, 'meta.properties'), 'version=1\nnode.id=oops\n');
    await expect(startKmock({ logDirs: badMeta })).rejects.toThrow(/meta\.properties/);
    const otherNode = tmpDir();
    k = await start(otherNode);
    await stop(k);
    await expect(startKmock({ logDirs: otherNode, nodeId: 5 })).rejects.toThrow(/node\.id=1, but this broker is node 5/);
  });

  it('compaction rewrites segments on disk and the result survives a restart', async () => {
    const dir = tmpDir();
    let k = await start(dir, { clock: 'manual' });
    const one = encodeBatch({ records: [{ key: 'a', value: 'v0' }] }).length;
    const topic = k.broker.topics.create('compacted', 1, 1, new Map([['cleanup.policy', 'compact'], ['segment.bytes', String(one * 2)]]));
    const config = { ...DEFAULT_LOG_CONFIG, compact: true, delete: false, segmentBytes: one * 2 };
    for (let i = 0; i < 7; i++) topic.partitions[0].appendAsLeader(encodeBatch({ records: [{ key: i % 2 === 0 ? 'a' : 'b', value: `v${i}` }] }), config, k.clock.now());
    expect(k.broker.logManager.runCleaner()).toEqual(['compacted-0']);
    const names = fs.readdirSync(path.join(dir, 'compacted-0'));
    expect(names.filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap'))).toEqual([]);
    const kept = topic.partitions[0].storedBatches().map((b) => b.toString('hex'));
    await stop(k);
    k = await start(dir, { clock: 'manual' });
    expect(k.broker.topics.get('compacted')!.partitions[0].storedBatches().map((b) => b.toString('hex'))).toEqual(kept);
    expect(k.broker.topics.get('compacted')!.partitions[0].firstDirtyOffset).toBe(6);
  });

  it('deleting a topic removes its partition dirs; new partitions get theirs; both survive a restart', async () => {
    const dir = tmpDir();
    let k = await start(dir);
    const admin = client(k).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'gone', numPartitions: 2 }, { topic: 'grown', numPartitions: 1 }] });
    expect(fs.existsSync(path.join(dir, 'gone-1'))).toBe(true);
    await admin.deleteTopics({ topics: ['gone'] });
    expect(fs.existsSync(path.join(dir, 'gone-0'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'gone-1'))).toBe(false);
    await admin.createPartitions({ topicPartitions: [{ topic: 'grown', count: 3 }] });
    expect(fs.existsSync(path.join(dir, 'grown-2', 'partition.metadata'))).toBe(true);
    await admin.disconnect();
    await stop(k);
    k = await start(dir);
    expect(k.broker.topics.get('gone')).toBeUndefined();
    expect(k.broker.topics.get('grown')!.partitions.length).toBe(3);
  });

  it('retention deletes segment files', async () => {
    const dir = tmpDir();
    const k = await start(dir, { clock: 'manual' });
    const one = encodeBatch({ records: [{ key: 'a', value: 'v0' }] }).length;
    const topic = k.broker.topics.create('retained', 1, 1, new Map([['retention.bytes', String(one)], ['segment.bytes', String(one)]]));
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: one, retentionBytes: one };
    for (let i = 0; i < 4; i++) topic.partitions[0].appendAsLeader(encodeBatch({ records: [{ key: 'a', value: `v${i}` }] }), config, k.clock.now());
    expect(fs.readdirSync(path.join(dir, 'retained-0')).filter((n) => n.endsWith('.log'))).toHaveLength(4);
    k.broker.logManager.cleanupLogs();
    expect(fs.readdirSync(path.join(dir, 'retained-0')).filter((n) => n.endsWith('.log'))).toEqual(['00000000000000000003.log']);
    expect(topic.partitions[0].logStartOffset).toBe(3);
  });

  it('the stored-memory cap with a data dir evicts the oldest bytes to disk, and reads still answer', async () => {
    const dir = tmpDir();
    const value = 'x'.repeat(10_000);
    const k = await start(dir, { storedMaxBytes: 100_000 });
    const producer = client(k).producer();
    await producer.connect();
    for (let i = 0; i < 40; i++) await producer.send({ topic: 'big', acks: 1, messages: [{ key: `k${i}`, value }] });
    await producer.disconnect();
    expect(k.broker.logManager.residentBytes()).toBeLessThanOrEqual(100_000);
    expect(k.broker.logManager.stats.memoryEvicted).toBeGreaterThan(0);
    expect(k.broker.topics.get('big')!.partitions[0].logStartOffset).toBe(0);
    const got = await consumeAll(k, 'big', 40);
    expect(got.map((m) => m.key)).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`));
  });
});

const libs = await kafkaLibs();

describe.skipIf(libs === undefined)("Kafka 3.9.1's kafka-dump-log.sh reads what a running kmock wrote", () => {
  it('every batch, offsets and CRCs valid, indexes sane', async () => {
    const dir = tmpDir();
    const k = await start(dir);
    const producer = client(k).producer({ idempotent: true });
    await producer.connect();
    for (let i = 0; i < 20; i++) await producer.send({ topic: 'dumped', acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }, { key: `j${i}`, value: `w${i}` }] });
    await producer.disconnect();
    await stop(k);
    const log = path.join(dir, 'dumped-0', '00000000000000000000.log');
    const { stdout, stderr } = await dumpLogSegments(libs!, [log], ['--deep-iteration']);
    expect(stderr).toBe('');
    const batches = stdout.split('\n').filter((l) => l.startsWith('baseOffset:'));
    expect(batches).toHaveLength(20);
    expect(batches.every((l) => l.endsWith(' isvalid: true') && l.includes(' producerId: 0 '))).toBe(true);
    expect(batches.map((l) => Number(/^baseOffset: (\d+)/.exec(l)![1]))).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    const index = await dumpLogSegments(libs!, [path.join(dir, 'dumped-0', '00000000000000000000.index')], ['--index-sanity-check']);
    expect(index.stdout + index.stderr).not.toMatch(/corrupt|Exception/i);
    // the producer snapshot written at shutdown: Kafka reads producer 0 at its last sequence and offset
    const snapshot = await dumpLogSegments(libs!, [path.join(dir, 'dumped-0', '00000000000000000040.snapshot')]);
    expect(snapshot.stdout).toMatch(/producerId: 0 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: \d+ firstSequence: 38 lastSequence: 39 lastOffset: 39 offsetDelta: 1 /);
  });
});
