// The kafkajs workloads, identical for every broker: produce, consume everything back, and the
// time for N consumers of one group to be joined. The client runs in the benchmark process; the
// broker is a separate process.
import kafkajs, { type Consumer, type Kafka as KafkaT } from 'kafkajs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMsOf, rdkafkaCreateTopic, spawnBroker, type SpawnSpec } from './peers.js';
import { probeApiVersions } from './wire.js';

const { Kafka, logLevel } = kafkajs;

function client(bootstrap: string, clientId: string): KafkaT {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  });
}

export interface ProduceOptions {
  messages: number;
  batchSize: number;
  valueBytes: number;
  /** Untimed batches sent first (same topic; the consumer reads them too). */
  warmupBatches: number;
}

export interface ProduceResult {
  messages: number;
  ms: number;
  msgsPerSec: number;
  /** Messages in the topic after the run (timed + warm-up). */
  total: number;
  /** CPU time of this (the client's) process during the timed part, ms: kafkajs's own cost. */
  clientCpuMs: number;
}

/**
 * One producer (acks=1, no compression, null keys), `messages / batchSize` sequential
 * `producer.send()` calls of `batchSize` messages each.
 */
export async function produceRun(
  bootstrap: string,
  topic: string,
  o: ProduceOptions,
  hooks: { before?: () => void; after?: () => void } = {},
): Promise<ProduceResult> {
  const producer = client(bootstrap, 'bench-producer').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const value = Buffer.alloc(o.valueBytes, 0x61);
  const batch = Array.from({ length: o.batchSize }, () => ({ value }));
  try {
    for (let i = 0; i < o.warmupBatches; i++) await producer.send({ topic, acks: 1, messages: batch });
    const batches = Math.ceil(o.messages / o.batchSize);
    hooks.before?.();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < batches; i++) await producer.send({ topic, acks: 1, messages: batch });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    hooks.after?.();
    const n = batches * o.batchSize;
    return {
      messages: n,
      ms,
      msgsPerSec: (n / ms) * 1000,
      total: n + o.warmupBatches * o.batchSize,
      clientCpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    await producer.disconnect();
  }
}

export interface ConsumeResult {
  messages: number;
  /** From the consumer's GROUP_JOIN to the last message: the fetch path only. */
  ms: number;
  msgsPerSec: number;
  /** From consumer.run() to GROUP_JOIN (includes the broker's initial rebalance delay). */
  joinMs: number;
  /** CPU time of this (the client's) process from GROUP_JOIN to the last message, ms. */
  clientCpuMs: number;
}

/**
 * Messages the topic holds (high watermark - log start offset, summed over partitions), by
 * ListOffsets. librdkafka's mock keeps at most 5 MiB (or 100,000 batches) per partition and
 * drops the oldest batches beyond that (rdkafka_mock.c, mpart->max_size), so this can be less
 * than what was produced.
 */
export async function retainedMessages(bootstrap: string, topic: string): Promise<number> {
  const admin = client(bootstrap, 'bench-admin').admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** One consumer in a fresh group reads the topic from the beginning (eachBatch, auto-resolve). */
export async function consumeRun(bootstrap: string, topic: string, groupId: string, expected: number, timeoutMs = 120_000): Promise<ConsumeResult> {
  const consumer = client(bootstrap, 'bench-consumer').consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let joinedAt = NaN;
  let cpuAtJoin = process.cpuUsage();
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (Number.isNaN(joinedAt)) {
      joinedAt = performance.now();
      cpuAtJoin = process.cpuUsage();
    }
  });
  let cpuAtEnd = { user: 0, system: 0 };
  let count = 0;
  try {
    const done = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumer read ${count}/${expected} in ${timeoutMs} ms`)), timeoutMs);
      consumer.on(consumer.events.CRASH, (e) => reject(new Error(`consumer crashed: ${e.payload.error}`)));
      void consumer.run({
        eachBatch: async ({ batch }) => {
          count += batch.messages.length;
          if (count >= expected) {
            cpuAtEnd = process.cpuUsage(cpuAtJoin);
            clearTimeout(timer);
            resolve(performance.now());
          }
        },
      });
    });
    const tRun = performance.now();
    const end = await done;
    const ms = end - joinedAt;
    return {
      messages: count,
      ms,
      msgsPerSec: (count / ms) * 1000,
      joinMs: joinedAt - tRun,
      clientCpuMs: (cpuAtEnd.user + cpuAtEnd.system) / 1000,
    };
  } finally {
    await consumer.disconnect();
  }
}

export interface JoinResult {
  /** From creating the consumers until every one has emitted GROUP_JOIN at least once. */
  ms: number;
  /** GROUP_JOIN events seen until then (10 = one generation for all; more = extra rebalances). */
  joinEvents: number;
  /** Distinct member ids among the consumers' latest GROUP_JOIN events. */
  members: number;
  /**
   * When the last of the consumers sent its first JoinGroup (from kafkajs's REQUEST
   * instrumentation, ms after the start): the client-side part (connect, metadata, coordinator).
   */
  lastFirstJoinMs: number;
  /** JoinGroup requests sent until all were joined (MEMBER_ID_REQUIRED retries and rejoins included). */
  joinRequests: number;
}

/**
 * Starts `n` consumers of one new group (connect, subscribe, run) at once and times until all `n`
 * have been joined (each consumer's `consumer.events.GROUP_JOIN`).
 */
export async function joinRun(bootstrap: string, topic: string, groupId: string, n: number, timeoutMs = 60_000): Promise<JoinResult> {
  const kafka = client(bootstrap, 'bench-join');
  const consumers: Consumer[] = [];
  const joined = new Set<number>();
  const memberIds = new Map<number, string>();
  let joinEvents = 0;
  let joinRequests = 0;
  const firstJoinAt = new Map<number, number>();
  const t0Epoch = Date.now();
  const t0 = performance.now();
  try {
    const all = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${joined.size}/${n} consumers joined in ${timeoutMs} ms`)), timeoutMs);
      for (let i = 0; i < n; i++) {
        const c = kafka.consumer({ groupId });
        consumers.push(c);
        c.on(c.events.GROUP_JOIN, (e) => {
          joinEvents++;
          memberIds.set(i, e.payload.memberId);
          joined.add(i);
          if (joined.size === n) {
            clearTimeout(timer);
            resolve(performance.now());
          }
        });
        c.on(c.events.CRASH, (e) => reject(new Error(`consumer ${i} crashed: ${e.payload.error}`)));
        c.on(c.events.REQUEST, (e) => {
          if (e.payload.apiName !== 'JoinGroup' || joined.size === n) return;
          joinRequests++;
          const at = e.payload.createdAt - t0Epoch;
          if (!firstJoinAt.has(i) || at < firstJoinAt.get(i)!) firstJoinAt.set(i, at);
        });
      }
      for (const c of consumers) {
        void (async () => {
          await c.connect();
          await c.subscribe({ topic, fromBeginning: true });
          await c.run({ eachBatch: async () => {} });
        })().catch(reject);
      }
    });
    const end = await all;
    return {
      ms: end - t0,
      joinEvents,
      members: new Set(memberIds.values()).size,
      lastFirstJoinMs: Math.max(...firstJoinAt.values()),
      joinRequests,
    };
  } finally {
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => {})));
  }
}

/** Topic creation on kmock through the Kafka API (kafkajs admin → CreateTopics). */
export async function kafkajsCreateTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  const admin = client(bootstrap, 'bench-admin').admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
    if (!created) throw new Error(`topic ${topic} already exists`);
  } finally {
    await admin.disconnect();
  }
}

export interface ProduceSample {
  msgsPerSec: number;
  /** Broker process CPU (all threads, /proc) per 1,000 messages, ms. */
  brokerCpuPerK: number;
  /** This (the client's) process CPU per 1,000 messages, ms. */
  clientCpuPerK: number;
}

/**
 * The produce workload alone on a fresh broker process: start it, wait for its first answer and
 * a second more, create the topic (the C runner's own call for librdkafka's mock, kafkajs admin
 * otherwise), run produceRun, stop it.
 */
export async function produceOnFreshBroker(spec: SpawnSpec, topic: string, o: ProduceOptions): Promise<ProduceSample> {
  const p = await spawnBroker(spec);
  let cpu0 = 0;
  let cpu1 = 0;
  try {
    await probeApiVersions(p.host, p.port);
    await sleep(1000);
    if (spec.kind === 'rdkafka') await rdkafkaCreateTopic(p, topic, 1);
    else await kafkajsCreateTopic(p.bootstrap, topic, 1); // the replay broker answers it from its recording
    const r = await produceRun(p.bootstrap, topic, o, { before: () => (cpu0 = cpuMsOf(p.pid)), after: () => (cpu1 = cpuMsOf(p.pid)) });
    return { msgsPerSec: r.msgsPerSec, brokerCpuPerK: ((cpu1 - cpu0) / r.messages) * 1000, clientCpuPerK: (r.clientCpuMs / r.messages) * 1000 };
  } finally {
    await p.stop();
  }
}
