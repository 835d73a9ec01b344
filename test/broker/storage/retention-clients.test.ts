// Retention and compaction as kafkajs sees them, on a manual broker clock (the test moves it past
// the retention check and the cleaner's backoff): a consumer whose committed offset fell behind
// the log start offset gets OFFSET_OUT_OF_RANGE and resets as configured (kafkajs fromBeginning:
// earliest); a compacted topic read after the cleaner ran has one record per key below the active
// segment, at their original offsets.
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { LOG_INITIAL_TASK_DELAY_MS } from '../../../src/broker/log/log-manager.js';

let kmock: Kmock | undefined;
afterEach(async () => {
  await kmock?.close();
  kmock = undefined;
});

function client(k: Kmock): Kafka {
  return new Kafka({ clientId: 'retention-test', brokers: [k.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 50 } });
}

async function consume(k: Kmock, topic: string, groupId: string, until: (n: number) => boolean, fromBeginning = true): Promise<Array<{ offset: number; key: string; value: string | null }>> {
  const consumer = client(k).consumer({ groupId, retry: { retries: 2 }, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning });
  const got: Array<{ offset: number; key: string; value: string | null }> = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} records: ${JSON.stringify(got)}`)), 20_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        got.push({ offset: Number(message.offset), key: message.key!.toString(), value: message.value === null ? null : message.value.toString() });
        if (until(got.length)) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return got;
}

describe('retention as a kafkajs consumer sees it', () => {
  it('a committed offset behind the log start offset resets to the earliest offset', async () => {
    kmock = await startKmock({ clock: 'manual', longPollsOnRealTime: true, groupInitialRebalanceDelayMs: 0 });
    const admin = client(kmock).admin();
    await admin.connect();
    // one 3-record batch per segment (segment.bytes just under two batches), keep about 2 segments
    await admin.createTopics({ topics: [{ topic: 'retained', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '200' }, { name: 'retention.bytes', value: '300' }] }] });
    const producer = client(kmock).producer();
    await producer.connect();
    for (let i = 0; i < 8; i++) await producer.send({ topic: 'retained', messages: [0, 1, 2].map((j) => ({ key: `k${i}-${j}`, value: 'v'.repeat(20) })) });
    await producer.disconnect();
    const first = await consume(kmock, 'retained', 'behind', (n) => n >= 3);
    expect(first[0].offset).toBe(0);
    // the group committed offset 3 (kafkajs commits what it processed); now retention runs
    const committed = await admin.fetchOffsets({ groupId: 'behind', topics: ['retained'] });
    expect(committed[0].partitions[0].offset).toBe('3');
    kmock.clock.advance(LOG_INITIAL_TASK_DELAY_MS);
    const log = kmock.broker.topics.get('retained')!.partitions[0];
    expect(log.logStartOffset).toBeGreaterThan(3);
    const logStart = log.logStartOffset;
    const [earliest] = await admin.fetchTopicOffsetsByTimestamp('retained', -2);
    expect(Number(earliest.offset)).toBe(logStart);
    // Fetch at the committed offset 3 answers OFFSET_OUT_OF_RANGE; kafkajs resets to the earliest
    const resumed = await consume(kmock, 'retained', 'behind', (n) => n >= 24 - logStart);
    expect(resumed[0].offset).toBe(logStart);
    expect((await admin.fetchOffsets({ groupId: 'behind', topics: ['retained'] }))[0].partitions[0].offset).toBe('24');
    expect(resumed.at(-1)!.offset).toBe(23);
    await admin.disconnect();
  });
});

describe('a compacted topic as a kafkajs consumer reads it', () => {
  it('after the cleaner ran: the latest record per key below the active segment, original offsets, tombstones kept', async () => {
    kmock = await startKmock({ clock: 'manual', longPollsOnRealTime: true, groupInitialRebalanceDelayMs: 0 });
    const admin = client(kmock).admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        {
          topic: 'table',
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: '300' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    });
    await admin.disconnect();
    const producer = client(kmock).producer();
    await producer.connect();
    const sent: Array<[string, string | null]> = [];
    for (let i = 0; i < 30; i++) {
      const key = `user-${i % 4}`;
      const value = i === 25 ? null : `state-${i}`;
      sent.push([key, value]);
      await producer.send({ topic: 'table', messages: [{ key, value }] });
    }
    await producer.disconnect();
    const log = kmock.broker.topics.get('table')!.partitions[0];
    const activeBase = log.activeSegment.baseOffset;
    expect(activeBase).toBeGreaterThan(8);
    kmock.clock.advance(15_000); // log.cleaner.backoff.ms
    expect(kmock.broker.logManager.stats.logsCleaned).toBe(1);
    const expected = sent
      .map(([key, value], offset) => ({ offset, key, value }))
      .filter((r) => r.offset >= activeBase || !sent.some(([k], o) => k === r.key && o > r.offset && o < activeBase));
    const got = await consume(kmock, 'table', 'reader', (n) => n >= expected.length);
    expect(got).toEqual(expected);
  });
});
