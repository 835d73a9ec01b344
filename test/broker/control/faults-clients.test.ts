// Injected faults as real clients see them: kafkajs retries an injected NOT_LEADER_OR_FOLLOWER and
// stores its records once; raw requests get the error in the API's exact response shape and are
// not processed; added latency is measured on the wire; dropped connections are noticed by
// kafkajs, which reconnects and carries on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kafka, Partitioners, logLevel, type LogEntry } from 'kafkajs';
import {
  createApiVersionsRequest,
  createFetchRequest,
  createJoinGroupRequest,
  createMetadataRequest,
  createProduceRequest,
} from '../../../src/codec/index.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';
import { waitFor, within } from '../../support/clients/wait.js';
import { ensureTopic } from './helpers.js';

let kmock: Kmock;
const closers: Array<() => Promise<unknown> | void> = [];

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0 });
});

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  await kmock.close();
});

function kafka(clientId: string, logs: Array<{ level: number; message: string; error?: string }> = []): Kafka {
  return new Kafka({
    brokers: [kmock.bootstrapServers],
    clientId,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 50, retries: 8 },
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry: LogEntry) => {
      logs.push({ level: entry.level, message: String(entry.log.message), error: entry.log.error as string | undefined });
    },
  });
}

async function raw(clientId = 'raw'): Promise<RawClient> {
  const c = await RawClient.connect(kmock.bootstrapServers);
  c.clientId = clientId;
  closers.push(() => c.close());
  return c;
}

describe('injected errors', () => {
  it('kafkajs: a producer gets NOT_LEADER_OR_FOLLOWER twice, retries, and its records are stored once', async () => {
    const logs: Array<{ level: number; message: string; error?: string }> = [];
    const k = kafka('producer-app', logs);
    const admin = k.admin();
    closers.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'retry', numPartitions: 1 }], waitForLeaders: true });
    const producer = k.producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { initialRetryTime: 50, retries: 8 } });
    closers.push(() => producer.disconnect());
    await producer.connect();

    kmock.control.injectErrors({ apiKey: 'Produce', errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 2 });
    const [res] = await within('send', 20_000, producer.send({ topic: 'retry', acks: -1, messages: [{ value: 'a' }, { value: 'b' }] }));
    expect(res).toMatchObject({ topicName: 'retry', partition: 0, errorCode: 0, baseOffset: '0' });

    // kafkajs logs each failed response once at ERROR (and again at DEBUG).
    const notLeader = logs.filter(
      (l) => l.level === logLevel.ERROR && l.message.startsWith('Response Produce') && /not the leader/i.test(l.error ?? ''),
    );
    expect(notLeader).toHaveLength(2);
    expect(kmock.control.faultsView()).toEqual({ errors: [], latency: [], injected: [{ apiKey: 0, api: 'Produce', count: 2 }] });
    // The refused attempts were not appended: two records, once.
    expect(kmock.control.topics().find((t) => t.name === 'retry')!.partitions[0]!.logEndOffset).toBe(2);
  });

  it('raw: the exact error shape per API and version, the request not processed, then normal service', async () => {
    const c = await raw();
    await ensureTopic(c, 't');
    await waitFor('topic t', () => kmock.broker.topics.get('t'));
    const records = encodeBatch({ records: [{ value: 'x' }] });
    const produceReq = createProduceRequest({
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records }] }],
    });

    kmock.control.injectErrors({ apiKey: 0, errorCodes: ['NOT_LEADER_OR_FOLLOWER', 'REQUEST_TIMED_OUT'] });
    const first = await c.request(0, 9, produceReq);
    expect(first).toEqual({
      responses: [
        {
          name: 't',
          partitionResponses: [
            { index: 0, errorCode: 6, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } },
          ],
        },
      ],
      throttleTimeMs: 0,
      nodeEndpoints: [],
    });
    const second = await c.request(0, 3, produceReq);
    expect(second.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: 7, baseOffset: -1n });
    expect(kmock.broker.topics.get('t')!.partitions[0]!.logEndOffset).toBe(0);
    const third = await c.request(0, 9, produceReq);
    expect(third.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0n });

    kmock.control.injectErrors({ apiKey: 'Fetch', errorCode: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const fetch = await c.request(
      1,
      11,
      createFetchRequest({
        maxWaitMs: 0,
        minBytes: 1,
        topics: [{ topic: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20, lastFetchedEpoch: -1, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA' }] }],
      }),
    );
    expect(fetch.errorCode).toBe(3);
    expect(fetch.responses).toEqual([
      {
        topic: 't',
        topicId: expect.any(String),
        partitions: [expect.objectContaining({ partitionIndex: 0, errorCode: 3, highWatermark: -1n, records: null })],
      },
    ]);

    kmock.control.injectErrors({ apiKey: 'JoinGroup', errorCode: 'COORDINATOR_LOAD_IN_PROGRESS' });
    const join = await c.request(
      11,
      9,
      createJoinGroupRequest({ groupId: 'g', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] }),
    );
    expect(join).toMatchObject({ errorCode: 14, generationId: -1, memberId: '', leader: '', members: [] });
    // Not processed: no group was created.
    expect(kmock.control.groups()).toEqual([]);

    kmock.control.injectErrors({ apiKey: 'ApiVersions', errorCode: 'UNSUPPORTED_VERSION' });
    expect(await c.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'x', clientSoftwareVersion: '1' }))).toMatchObject({ errorCode: 35, apiKeys: [] });
    expect((await c.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'x', clientSoftwareVersion: '1' }))).apiKeys.length).toBeGreaterThan(10);
  });

  it('Produce with acks=0 and an injected error: no response, nothing stored', async () => {
    const c = await raw();
    await ensureTopic(c, 'quiet');
    await waitFor('topic', () => kmock.broker.topics.get('quiet'));
    kmock.control.injectErrors({ apiKey: 0, errorCode: 6 });
    c.sendRaw(
      (await import('../../../src/codec/index.js')).encodeRequest(
        { apiKey: 0, apiVersion: 9, correlationId: 99, clientId: 'raw' },
        createProduceRequest({ acks: 0, timeoutMs: 1000, topicData: [{ name: 'quiet', partitionData: [{ index: 0, records: encodeBatch({ records: [{ value: 'x' }] }) }] }] }),
      ),
    );
    // The next request is answered first: nothing came back for the acks=0 one.
    const md = await c.requestFull(3, 9, createMetadataRequest({ topics: [] }));
    expect(md.correlationId).not.toBe(99);
    expect(kmock.broker.topics.get('quiet')!.partitions[0]!.logEndOffset).toBe(0);
  });
});

describe('injected latency', () => {
  it('delays only the chosen API, by at least the set time, until removed', async () => {
    const c = await raw();
    const timed = async (fn: () => Promise<unknown>): Promise<number> => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const metadata = () => c.request(3, 9, createMetadataRequest({ topics: [] }));
    const apiVersions = () => c.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'x', clientSoftwareVersion: '1' }));
    await metadata();

    kmock.control.setLatency({ apiKey: 'Metadata', ms: 300 });
    expect(await timed(metadata)).toBeGreaterThanOrEqual(295);
    expect(await timed(apiVersions)).toBeLessThan(250);
    kmock.control.setLatency({ apiKey: 3, ms: 0 });
    expect(await timed(metadata)).toBeLessThan(250);

    // Latency and an error together: delayed, then the error.
    kmock.control.setLatency({ apiKey: 3, ms: 200 });
    kmock.control.injectErrors({ apiKey: 3, errorCode: 'BROKER_NOT_AVAILABLE' });
    const t0 = performance.now();
    const res = await c.request(3, 9, createMetadataRequest({ topics: [{ name: 'x' }] as never }));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(195);
    expect(res.topics[0]!.errorCode).toBe(8);
  });

  it('kafkajs: an admin call takes at least the added latency', async () => {
    const k = kafka('latency-app');
    const admin = k.admin();
    closers.push(() => admin.disconnect());
    await admin.connect();
    await admin.listTopics();
    kmock.control.setLatency({ apiKey: 'Metadata', ms: 400 });
    const t0 = performance.now();
    await admin.fetchTopicMetadata({ topics: [] });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(395);
  });
});

describe('dropped connections', () => {
  it('kafkajs notices, reconnects and keeps consuming; other clients keep their connections', async (ctx) => {
    const setup = kafka('setup');
    const admin = setup.admin();
    closers.push(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'drops', numPartitions: 1 }], waitForLeaders: true });
    const producer = setup.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    closers.push(() => producer.disconnect());
    await producer.connect();

    const logs: Array<{ level: number; message: string; error?: string }> = [];
    const consumer = kafka('victim', logs).consumer({
      groupId: 'drop-group',
      sessionTimeout: 10_000,
      heartbeatInterval: 200,
      maxWaitTimeInMs: 100,
      retry: { initialRetryTime: 50, retries: 10 },
    });
    closers.push(() => consumer.disconnect());
    const seen: string[] = [];
    let joins = 0;
    consumer.on(consumer.events.GROUP_JOIN, () => void joins++);
    ctx.onTestFailed(() => {
      process.stderr.write(`group: ${JSON.stringify(kmock.control.groups())}\nseen: ${JSON.stringify(seen)}\n`);
      for (const l of logs.filter((x) => x.level <= logLevel.WARN).slice(-30)) process.stderr.write(`kafkajs: ${JSON.stringify(l)}\n`);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: ['drops'], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await waitFor('the consumer to join', () => joins > 0);

    await producer.send({ topic: 'drops', messages: [{ value: 'before' }] });
    await waitFor('first message', () => seen.includes('before'));
    const others = kmock.control.connections().filter((c) => c.clientId !== 'victim').map((c) => c.id);
    const victims = kmock.control.connections().filter((c) => c.clientId === 'victim').map((c) => c.id);
    expect(victims.length).toBeGreaterThan(0);

    const { dropped } = kmock.control.dropConnections({ clientId: 'victim' });
    expect(dropped).toBe(victims.length);
    await waitFor('kafkajs to notice', () => logs.some((l) => /closed connection|Connection error|ECONNRESET|socket/i.test(`${l.message} ${l.error ?? ''}`)));
    // kafkajs reconnects with new connections...
    await waitFor('reconnect', () => kmock.control.connections().some((c) => c.clientId === 'victim' && !victims.includes(c.id)));
    // ...and keeps consuming.
    await producer.send({ topic: 'drops', messages: [{ value: 'after' }] });
    await waitFor('message after the drop', () => seen.includes('after'));
    // The other clients were left alone.
    const now = kmock.control.connections().map((c) => c.id);
    for (const id of others) expect(now).toContain(id);
  });
});
