// A deterministic broker (`deterministic: true, seed`) on a manual clock: the same requests give
// the same trace, byte for byte (topic ids, member ids, the cluster id, log-append times, request
// timings all repeat), and another seed gives other ids. Without it ids are random, as Kafka's.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  createCreateTopicsRequest,
  createDescribeClusterRequest,
  createFetchRequest,
  createHeartbeatRequest,
  createInitProducerIdRequest,
  createJoinGroupRequest,
  createProduceRequest,
  createSyncGroupRequest,
  FetchRequest,
  type CreateTopicsResponse,
  type DescribeClusterResponse,
  type JoinGroupResponse,
} from '../../../src/codec/index.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { DETERMINISTIC_EPOCH_MS } from '../../../src/broker/config.js';
import { RawClient } from '../../support/raw-client.js';

interface Session {
  port: number;
  /** Every log line the broker wrote, as written. */
  lines: string[];
  topicId: string;
  memberId: string;
  clusterId: string;
}

const join = (memberId: string) =>
  createJoinGroupRequest({
    groupId: 'replayed',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }],
    reason: null,
  });

/**
 * A logger keeping every line as written, each stamped with the broker clock's time once
 * `stampWith(kmock)` is called (as `kmock start --deterministic` stamps its lines).
 */
function clockStampedLog(): { lines: string[]; logger: pino.Logger; stampWith(k: Kmock): void } {
  const lines: string[] = [];
  let now = () => 0;
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(l);
      done();
    },
  });
  const logger = pino({ level: 'info', base: undefined, timestamp: () => `,"time":${now()}` }, sink);
  return { lines, logger, stampWith: (k) => (now = () => k.clock.now()) };
}

/** One scripted client session; the log's timestamps come from the broker clock, as `kmock start --deterministic` writes them. */
async function session(options: KmockOptions): Promise<Session> {
  const { lines, logger, stampWith } = clockStampedLog();
  const kmock = await startKmock({ trace: true, logger, groupInitialRebalanceDelayMs: 0, ...options });
  stampWith(kmock);
  try {
    const c = await RawClient.connect(kmock.bootstrapServers);
    c.clientId = 'replay';
    const created = (await c.request(19, 7, createCreateTopicsRequest({
      topics: [{ name: 'logs', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }],
      timeoutMs: 5000,
    }))) as CreateTopicsResponse;
    const produce = (value: string) =>
      c.request(0, 9, createProduceRequest({ acks: -1, timeoutMs: 1000, topicData: [{ name: 'logs', partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: 1, records: [{ key: null, value, timestamp: 1 }] }) }] }] }));
    await produce('first');
    kmock.clock.advance(1_500);
    await produce('second');
    const required = (await c.request(11, 9, join(''))) as JoinGroupResponse;
    const joined = (await c.request(11, 9, join(required.memberId))) as JoinGroupResponse;
    await c.request(14, 5, createSyncGroupRequest({ groupId: 'replayed', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: joined.memberId, assignment: Buffer.from([7]) }] }));
    // The session lapses on the clock: the next heartbeat is refused.
    kmock.clock.advance(10_000);
    await c.request(12, 4, createHeartbeatRequest({ groupId: 'replayed', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null }));
    await c.request(1, 12, createFetchRequest({ maxWaitMs: 0, topics: [FetchRequest.createTopic({ topic: 'logs', partitions: [FetchRequest.createPartition({ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })] })] }));
    await c.request(22, 4, createInitProducerIdRequest({ transactionalId: null, transactionTimeoutMs: 60_000 }));
    const cluster = (await c.request(60, 0, createDescribeClusterRequest({}))) as DescribeClusterResponse;
    c.close();
    await c.waitForClose();
    return { port: kmock.port, lines, topicId: created.topics[0]!.topicId, memberId: joined.memberId, clusterId: cluster.clusterId };
  } finally {
    await kmock.close();
  }
}

describe('deterministic runs', () => {
  it('give the same trace byte for byte on a manual clock, and other ids with another seed', async () => {
    const first = await session({ deterministic: true, seed: 7, clock: 'manual' });
    // The same port as the first run: Metadata, FindCoordinator and DescribeCluster show it.
    const again = await session({ port: first.port, deterministic: true, seed: 7, clock: 'manual' });
    expect(first.lines.length).toBeGreaterThan(10);
    expect(again.lines).toEqual(first.lines);

    const traced = first.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.trace === true);
    expect(traced.map((l) => l.api)).toEqual(['CreateTopics', 'Produce', 'Produce', 'JoinGroup', 'JoinGroup', 'SyncGroup', 'Heartbeat', 'Fetch', 'InitProducerId', 'DescribeCluster']);
    expect((traced[6]!.response as { errorCode: number }).errorCode).toBe(25); // UNKNOWN_MEMBER_ID: the session lapsed
    // Log-append times are the clock's: it starts at the deterministic epoch.
    expect(JSON.stringify(traced[1]!.response)).toContain(`${DETERMINISTIC_EPOCH_MS}`);
    expect(JSON.stringify(traced[2]!.response)).toContain(`${DETERMINISTIC_EPOCH_MS + 1_500}`);
    expect(first.lines[0]).toContain(`"time":${DETERMINISTIC_EPOCH_MS}`);
    expect(first.memberId).toMatch(/^replay-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.clusterId).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);

    const other = await session({ port: first.port, deterministic: true, seed: 8, clock: 'manual' });
    expect(other.topicId).not.toBe(first.topicId);
    expect(other.memberId).not.toBe(first.memberId);
    expect(other.clusterId).not.toBe(first.clusterId);
  });

  it('are off by default: topic and member ids are random, the cluster id is kmock\'s fixed one', async () => {
    const a = await session({ clock: 'manual' });
    const b = await session({ clock: 'manual' });
    expect(a.topicId).not.toBe(b.topicId);
    expect(a.memberId).not.toBe(b.memberId);
    expect(a.clusterId).toBe('kmock-cluster-00000001');
    expect(b.clusterId).toBe(a.clusterId);
  });

  it('store log-append times from the clock', async () => {
    const kmock = await startKmock({ deterministic: true, clock: 'manual' });
    try {
      const c = await RawClient.connect(kmock.bootstrapServers);
      await c.request(19, 7, createCreateTopicsRequest({ topics: [{ name: 'at', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }], timeoutMs: 5000 }));
      kmock.clock.advance(42);
      const r = await c.request(0, 9, createProduceRequest({ acks: -1, timeoutMs: 1000, topicData: [{ name: 'at', partitionData: [{ index: 0, records: encodeBatch({ records: [{ key: null, value: 'x', timestamp: 5 }] }) }] }] }));
      expect((r as { responses: Array<{ partitionResponses: Array<{ logAppendTimeMs: bigint }> }> }).responses[0]!.partitionResponses[0]!.logAppendTimeMs).toBe(BigInt(DETERMINISTIC_EPOCH_MS + 42));
      c.close();
    } finally {
      await kmock.close();
    }
  });
});

describe('deterministic runs with a real client', () => {
  it('kafkajs admin and producer: the same trace byte for byte when the client sets its own record timestamps', async () => {
    const { Kafka, logLevel } = await import('kafkajs');
    const run = async (port: number) => {
      const { lines, logger, stampWith } = clockStampedLog();
      const kmock = await startKmock({ port, trace: true, logger, deterministic: true, seed: 11, clock: 'manual' });
      stampWith(kmock);
      try {
        const kafka = new Kafka({ brokers: [kmock.bootstrapServers], clientId: 'replay', logLevel: logLevel.NOTHING });
        const admin = kafka.admin();
        await admin.connect();
        await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2, configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }] });
        await admin.disconnect();
        const producer = kafka.producer({ allowAutoTopicCreation: false });
        await producer.connect();
        for (let i = 0; i < 3; i++) {
          // The client's own random part, fixed: the record timestamps (kafkajs stamps Date.now()).
          await producer.send({ topic: 'orders', acks: -1, messages: [{ key: `k${i}`, value: `v${i}`, partition: i % 2, timestamp: '1' }] });
          kmock.clock.advance(250);
        }
        await producer.disconnect();
      } finally {
        await kmock.close();
      }
      return { port: kmock.port, trace: lines.filter((l) => l.includes('"trace":true')) };
    };
    const first = await run(0);
    const again = await run(first.port);
    expect(first.trace.length).toBeGreaterThan(8);
    expect(again.trace).toEqual(first.trace);
    // The log-append times are the clock's, 250 ms apart.
    expect(first.trace.filter((l) => l.includes('"api":"Produce"')).map((l) => /"logAppendTimeMs":(\d+)/.exec(l)?.[1])).toEqual(
      [0, 250, 500].map((d) => String(DETERMINISTIC_EPOCH_MS + d)),
    );
  });
});
