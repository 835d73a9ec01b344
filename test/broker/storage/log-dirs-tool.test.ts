// kafka-log-dirs.sh (Kafka 3.9.1's org.apache.kafka.tools.LogDirsCommand, from the jars
// scripts/kafka-reference caches) against kmock with a data dir and in memory: DescribeLogDirs
// answers the one log dir with each partition's size, as an operator reads it. (AlterReplicaLogDirs
// is pinned by the conformance scenario testAlterReplicaLogDirs.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { fetchReference } from '../../conformance/support/reference.js';
import { run } from '../../support/clients/processes.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';

const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
if (libs === undefined && required) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);

interface LogDirsOutput {
  brokers: Array<{ broker: number; logDirs: Array<{ logDir: string; error: string | null; partitions: Array<{ partition: string; size: number; offsetLag: number; isFuture: boolean }> }> }>;
}

describe.skipIf(libs === undefined)('kafka-log-dirs.sh --describe', () => {
  let kmock: Kmock | undefined;
  afterEach(async () => {
    await kmock?.close();
    kmock = undefined;
  });

  const logDirs = async (k: Kmock, ...args: string[]): Promise<LogDirsOutput> => {
    const r = await run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'org.apache.kafka.tools.LogDirsCommand', '--bootstrap-server', k.bootstrapServers, '--describe', ...args], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout.split('\n').find((l) => l.startsWith('{'))!) as LogDirsOutput;
  };

  const produce = async (k: Kmock, topic: string, n: number) => {
    const kafka = new Kafka({ clientId: 'log-dirs', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ partition: 0, value: `value-${i}` })) });
    await producer.disconnect();
  };

  it('with a data dir: its absolute path, and the sizes of the partitions asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-log-dirs-'));
    kmock = await startKmock({ logDirs: dir });
    await produce(kmock, 'orders', 10);
    const out = await logDirs(kmock, '--topic-list', 'orders');
    expect(out.brokers).toHaveLength(1);
    const [d] = out.brokers[0].logDirs;
    expect(d.logDir).toBe(resolve(dir));
    expect(d.error).toBeNull();
    const sizes = Object.fromEntries(d.partitions.map((p) => [p.partition, p.size]));
    expect(Object.keys(sizes).sort()).toEqual(['orders-0', 'orders-1']);
    expect(sizes['orders-0']).toBeGreaterThan(10 * 'value-0'.length);
    expect(sizes['orders-1']).toBe(0);
    expect(d.partitions.every((p) => p.offsetLag === 0 && !p.isFuture)).toBe(true);
  }, 120_000);

  it('in memory: the log dir "(in memory)"', async () => {
    kmock = await startKmock({});
    await produce(kmock, 'events', 1);
    const out = await logDirs(kmock);
    expect(out.brokers[0].logDirs.map((d) => d.logDir)).toEqual(['(in memory)']);
    expect(out.brokers[0].logDirs[0].partitions.map((p) => p.partition).sort()).toEqual(['events-0', 'events-1']);
  }, 120_000);
});
