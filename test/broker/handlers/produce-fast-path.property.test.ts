// Produce's fast path for the common request (produceSimple) against the general path (produce):
// two identical brokers get the same random requests (Produce v0-v11, any acks, existing, missing
// and internal topics, valid and corrupted batches of every codec, legacy magic 0/1 sets, null or
// concatenated records, topics with configs). Whenever produceSimple answers, produce answers the
// same (response or no response, connection closes, fetch wake-ups) and leaves the same logs; when
// it declines, it has changed nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProduceRequest } from '../../../src/codec/index.js';
import { initCompression } from '../../../src/codec/records/compression.js';
import { produce, produceSimple } from '../../../src/broker/handlers/produce.js';
import type { RequestContext } from '../../../src/broker/handlers/types.js';
import type { PartitionLog } from '../../../src/broker/log/partition-log.js';
import { Topic } from '../../../src/broker/log/topics.js';
import { NOW, recordsArb } from '../../codec/records/batch-arbitraries.js';

beforeAll(async () => {
  await initCompression();
  vi.spyOn(Date, 'now').mockReturnValue(NOW + 4242);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const CONNECTION = { id: 1 };

function fakeBroker(configs: ReadonlyArray<readonly [string, string]>) {
  const closed: string[] = [];
  const notified: string[] = [];
  const topics = new Map<string, Topic>();
  for (const [name, partitions] of [['t', 2], ['u', 3], ['__consumer_offsets', 1]] as const) {
    const topic = new Topic(name, `id-${name}`, partitions, 1);
    for (const [k, v] of configs) topic.configs.set(k, v);
    topics.set(name, topic);
  }
  const broker = {
    topics,
    config: { logMessageTimestampType: 'CreateTime' },
    clock: { now: () => Date.now() },
    log: { debug() {}, info() {}, warn() {} },
    fetchWaiters: { notify: (topic: string, partition: number) => notified.push(`${topic}-${partition}`) },
    // strict-clients mode off: the produce handler reads this flag first
    clientFindings: { enabled: false },
  };
  return { broker, closed, notified, topics };
}

type FakeBroker = ReturnType<typeof fakeBroker>;

function logState(l: PartitionLog) {
  return {
    logEndOffset: l.logEndOffset,
    size: l.size,
    stored: l.storedBatches().map((b) => b.toString('hex')),
    maxTimestamp: l.maxTimestampOffset(),
    producers: [...l.producers.activeProducers(NOW).entries()].map(([id, e]) => [String(id), e.producerEpoch, JSON.stringify(e.batches)]),
  };
}

function state(b: FakeBroker) {
  return { closed: [...b.closed], notified: [...b.notified], logs: [...b.topics.values()].map((t) => t.partitions.map(logState)) };
}

const partitionArb = fc.record({
  index: fc.constantFrom(0, 0, 0, 0, 1, 1, 1, 2, 3, -1),
  records: fc.oneof({ weight: 20, arbitrary: recordsArb }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(recordsArb, recordsArb).map(([a, b]) => Buffer.concat([a, b])) }),
});

const topicArb = fc.record({ name: fc.constantFrom('t', 't', 'u', 'u', 'missing', '__consumer_offsets'), partitionData: fc.array(partitionArb, { minLength: 1, maxLength: 3 }) });
type TopicSpec = typeof topicArb extends fc.Arbitrary<infer T> ? T : never;

const topicDataArb: fc.Arbitrary<TopicSpec[]> = fc.oneof(
  // the common request: one partition of one topic (kafkajs sends these)
  { weight: 2, arbitrary: fc.record({ name: fc.constantFrom('t', 'u'), partitionData: fc.tuple(partitionArb) }).map((t): TopicSpec[] => [t]) },
  { weight: 1, arbitrary: fc.array(topicArb, { minLength: 1, maxLength: 3 }) },
);

const requestArb = fc.record({
  version: fc.constantFrom(0, 1, 2, 3, 5, 7, 7, 8, 9, 9, 9, 11),
  acks: fc.constantFrom(1, 1, 1, -1, -1, 0, 2),
  clientId: fc.constantFrom('c', 'c', 'c', '__admin_client'),
  topicData: topicDataArb,
});

const configsArb = fc.constantFrom<ReadonlyArray<readonly [string, string]>>(
  [],
  [],
  [],
  [['cleanup.policy', 'compact']],
  [['min.insync.replicas', '2']],
  [['message.timestamp.type', 'LogAppendTime']],
  [['message.timestamp.before.max.ms', '1000']],
  [['max.message.bytes', '500']],
  [['compression.type', 'gzip']],
  [['compression.type', 'uncompressed']],
);

type RequestSpec = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

/** The request as the codec decodes it: its own copies of the records (appends patch them). */
function request(s: RequestSpec): ProduceRequest {
  return {
    transactionalId: null,
    acks: s.acks,
    timeoutMs: 30000,
    topicData: s.topicData.map((t) => ({ name: t.name, partitionData: t.partitionData.map((p) => ({ index: p.index, records: p.records === null ? null : Buffer.from(p.records) })) })),
  } as ProduceRequest;
}

function context(b: FakeBroker, s: RequestSpec): RequestContext {
  return {
    services: b.broker,
    connection: CONNECTION,
    closeConnection: (why: string) => b.closed.push(why),
    header: { apiKey: 0, apiVersion: s.version, correlationId: 1, clientId: s.clientId },
    apiVersion: s.version,
    receivedAt: 0,
    receivedAtClock: 0,
  } as unknown as RequestContext;
}

function run<T>(f: () => T): { ok: T } | { threw: string } {
  try {
    return { ok: f() };
  } catch (e) {
    return { threw: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

describe('Produce fast path', () => {
  it('answers every request it takes exactly as the general path does, and declines without changing anything', () => {
    let answered = 0;
    let answeredWithErrors = 0;
    fc.assert(
      fc.property(configsArb, fc.array(requestArb, { minLength: 1, maxLength: 3 }), (configs, requests) => {
        const fast = fakeBroker(configs);
        const general = fakeBroker(configs);
        for (const s of requests) {
          const simple = run(() => produceSimple(context(fast, s), request(s)));
          if ('ok' in simple && simple.ok === undefined) {
            // declined: nothing changed; both brokers then take the general path
            expect(state(fast)).toEqual(state(general));
            expect(run(() => produce(context(fast, s), request(s)))).toEqual(run(() => produce(context(general, s), request(s))));
          } else {
            answered++;
            const reference = run(() => produce(context(general, s), request(s)));
            expect(simple).toEqual(reference);
            const answer = 'ok' in simple ? simple.ok : undefined;
            if (typeof answer === 'object' && answer.responses.some((t) => t.partitionResponses.some((p) => p.errorCode !== 0))) answeredWithErrors++;
          }
          expect(state(fast)).toEqual(state(general));
        }
      }),
      { numRuns: 1500 },
    );
    // not vacuous: the fast path took many requests, some of which failed in the log
    if (process.env.KMOCK_PROPERTY_STATS) console.log(`fast path answered ${answered} requests, ${answeredWithErrors} with errors`);
    expect(answered).toBeGreaterThan(300);
    expect(answeredWithErrors).toBeGreaterThan(100);
  });
});
