// Consumers across a kmock restart on the same data dir: the Java kafka-clients consumer
// (test/support/clients/ClockConsumer.java) and kafkajs each commit what they read, the broker
// stops and starts again on its data dir (the committed offsets come back from
// __consumer_offsets, as Kafka's GroupMetadataManager loads them), more records are produced, and
// each consumer, started again in its group, goes on from its committed offset: nothing read
// twice, nothing skipped.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { buildJavaProgram } from '../../support/clients/java.js';
import { ProcessSet, type JsonEvent } from '../../support/clients/processes.js';
import { waitFor } from '../../support/clients/wait.js';

const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
const program = await buildJavaProgram('ClockConsumer.java', (process.env.KMOCK_JAVA_CLIENTS ?? '4.4.0').split(',')[0]!);
if ('unavailable' in program && CI) throw new Error(`${program.unavailable}: Java kafka-clients must run under CI`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kmock-restart-'));
const procs = new ProcessSet();
let kmock: Kmock | undefined;
afterAll(async () => {
  await procs.killAll();
  await kmock?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function kafka(k: Kmock): Kafka {
  return new Kafka({ clientId: 'restart-test', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
}

async function produce(k: Kmock, from: number, to: number): Promise<void> {
  const p = kafka(k).producer();
  await p.connect();
  for (let i = from; i < to; i++) await p.send({ topic: 'kept', acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }] });
  await p.disconnect();
}

/** kafkajs in group `kg`: reads `n` records, commits, leaves. */
async function kafkajsRead(k: Kmock, n: number): Promise<number[]> {
  const c = kafka(k).consumer({ groupId: 'kg', maxWaitTimeInMs: 200 });
  await c.connect();
  await c.subscribe({ topic: 'kept', fromBeginning: true });
  const offsets: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kafkajs read ${offsets.length} of ${n}: ${offsets.join(',')}`)), 30_000);
    void c.run({
      eachMessage: async ({ message }) => {
        offsets.push(Number(message.offset));
        if (offsets.length >= n) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await c.disconnect(); // commits what it consumed
  return offsets;
}

/** The Java consumer in group `jg`: reads until it has committed `upTo`, then stops. */
async function javaRead(k: Kmock, name: string, upTo: number): Promise<number[]> {
  if (!('argv' in program)) throw new Error('no Java');
  const [java, ...jvm] = program.argv;
  const p = procs.start(name, java!, [...jvm, '--bootstrap', k.bootstrapServers, '--topic', 'kept', '--group', 'jg', '--client-id', name]);
  await waitFor(`${name} committed ${upTo}`, () => p.events.find((e: JsonEvent) => e.event === 'committed' && (e.offsets as Record<string, number>)['0'] === upTo), 120_000);
  await p.kill('SIGTERM', 20_000);
  return p.events.filter((e: JsonEvent) => e.event === 'record').map((e: JsonEvent) => e.offset as number);
}

describe.skipIf('unavailable' in program)('committed offsets across a restart on the data dir', () => {
  it('Java and kafkajs consumers go on from their committed offsets', async () => {
    kmock = await startKmock({ logDirs: dir, groupInitialRebalanceDelayMs: 0 });
    await kafka(kmock).admin().createTopics({ topics: [{ topic: 'kept', numPartitions: 1 }] });
    await produce(kmock, 0, 10);
    expect(await kafkajsRead(kmock, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await javaRead(kmock, 'java-1', 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await kmock.close();

    kmock = await startKmock({ logDirs: dir, groupInitialRebalanceDelayMs: 0 });
    const admin = kafka(kmock).admin();
    await admin.connect();
    const committed = async (groupId: string) => (await admin.fetchOffsets({ groupId, topics: ['kept'] }))[0].partitions[0].offset;
    expect(await committed('kg')).toBe('10');
    expect(await committed('jg')).toBe('10');
    await admin.disconnect();
    await produce(kmock, 10, 15);
    expect(await kafkajsRead(kmock, 5)).toEqual([10, 11, 12, 13, 14]);
    expect(await javaRead(kmock, 'java-2', 15)).toEqual([10, 11, 12, 13, 14]);
  }, 300_000);
});
