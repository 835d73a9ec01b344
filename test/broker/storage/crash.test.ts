// kill -9 during acks=all produce, many times: a `kmock start --data-dir DIR --fsync` process is
// killed at a random moment while kafkajs producers send; it is started again on the same dir and
// every partition is read back: every acknowledged record is there, exactly once, in order.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnKmock } from '../../support/kmock-process.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kmock-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROUNDS = 6;
const PARTITIONS = 3;

function kafka(bootstrap: string): Kafka {
  return new Kafka({ clientId: 'crash-test', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, requestTimeout: 3000, connectionTimeout: 1000 });
}

async function readAll(bootstrap: string): Promise<Map<number, string[]>> {
  const admin = kafka(bootstrap).admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets('crash');
  await admin.disconnect();
  const total = offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  const consumer = new Kafka({ clientId: 'crash-check', brokers: [bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: `check-${Math.random()}` });
  await consumer.connect();
  await consumer.subscribe({ topic: 'crash', fromBeginning: true });
  const byPartition = new Map<number, string[]>();
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    if (total === 0) return resolve();
    const timer = setTimeout(() => reject(new Error(`read ${seen} of ${total}`)), 30_000);
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        const list = byPartition.get(partition) ?? [];
        list.push(message.value!.toString());
        byPartition.set(partition, list);
        if (++seen >= total) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return byPartition;
}

describe('kill -9 during acks=all produce with fsyncOnAcksAll', () => {
  it(`loses no acknowledged record over ${ROUNDS} crashes`, async () => {
    const acked: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const k = await spawnKmock(['start', '--port', '0', '--data-dir', dir, '--fsync', '--log-level', 'warn', '--set', `num.partitions=${PARTITIONS}`, '--set', 'log.segment.bytes=20000'], /listening on (\S+)/);
      const bootstrap = k.match[1];
      const producer = kafka(bootstrap).producer({ allowAutoTopicCreation: true });
      await producer.connect();
      let stop = false;
      const sender = (async () => {
        for (let i = 0; !stop; i++) {
          const value = `r${round}-${i}`;
          try {
            await producer.send({ topic: 'crash', acks: -1, messages: [{ key: value, value, partition: i % PARTITIONS }] });
            acked.push(value);
          } catch {
            return;
          }
        }
      })();
      await new Promise((r) => setTimeout(r, 200 + Math.floor(Math.random() * 800)));
      k.child.kill('SIGKILL');
      stop = true;
      await new Promise((r) => k.child.once('exit', r));
      await sender;
      await producer.disconnect().catch(() => undefined);
    }
    expect(acked.length).toBeGreaterThan(ROUNDS * 5);
    const k = await spawnKmock(['start', '--port', '0', '--data-dir', dir, '--log-level', 'warn'], /listening on (\S+)/);
    try {
      const byPartition = await readAll(k.match[1]);
      const all = [...byPartition.values()].flat();
      const stored = new Set(all);
      const lost = acked.filter((v) => !stored.has(v));
      expect(lost).toEqual([]);
      // exactly once, and each partition in send order
      expect(all.length).toBe(stored.size);
      for (const [p, values] of byPartition) {
        const order = values.map((v) => acked.indexOf(v)).filter((i) => i >= 0);
        expect([...order].sort((a, b) => a - b), `partition ${p}`).toEqual(order);
      }
    } finally {
      k.child.kill('SIGTERM');
      await new Promise((r) => k.child.once('exit', r));
    }
  }, 180_000);
});
