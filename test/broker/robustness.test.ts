// Regression tests for what the wire fuzzer (fuzz.test.ts) and the robustness conformance
// scenarios (test/conformance/scenarios/robustness.ts) found, each answered as Kafka 3.9.1 does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { decodeResponse, encodeRequest, Reader, type ApiTypes, ZERO_UUID } from '../../src/codec/index.js';
import { buildRequest } from '../conformance/runner.js';
import { recordingLogger, type LogLine } from '../support/fuzz.js';
import { RawClient } from '../support/raw-client.js';

const lines: LogLine[] = [];
let kmock: Kmock;

beforeAll(async () => {
  kmock = await startKmock({ logger: recordingLogger(lines) });
  const c = await RawClient.connect(kmock.bootstrapServers);
  await c.request(19, 5, buildRequest(19, { topics: [{ name: 'existing', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 }));
  c.close();
});
afterAll(() => kmock.close());

function frame<K extends keyof ApiTypes>(api: K, version: number, body: object, clientId: string | null = 'test'): Buffer {
  return encodeRequest({ apiKey: api, apiVersion: version, correlationId: 7, clientId }, buildRequest(api, body as never));
}

async function answerTo<K extends keyof ApiTypes>(bytes: Buffer, api: K, version: number): Promise<ApiTypes[K]['response']> {
  const c = await RawClient.connect(kmock.bootstrapServers);
  try {
    c.sendRaw(bytes);
    const d = decodeResponse(await c.nextFrame(5000), api, version);
    expect(d.correlationId).toBe(7);
    return d.body as ApiTypes[K]['response'];
  } finally {
    c.close();
  }
}

const handlerErrors = () => lines.filter((l) => l.level === 'error');

describe('Metadata v12 with a null topic name and the zero topic id', () => {
  // Kafka 3.9.1: KafkaApis.handleTopicMetadataRequest checks null names below v12 only; at v12
  // the name reaches Topic.validate (getTopicMetadata, or AutoTopicCreationManager
  // .filterCreatableTopics), which throws NullPointerException; KafkaApis.handleError answers
  // MetadataRequest.getErrorResponse: every requested topic with UNKNOWN_SERVER_ERROR (a null
  // name as ""), no brokers, no cluster id, controller -1. Was: a TypeError in the handler and
  // a closed connection.
  it('is answered with UNKNOWN_SERVER_ERROR for every requested topic, creating nothing', async () => {
    const res = await answerTo(
      frame(3, 12, { topics: [{ name: 'to-create', topicId: ZERO_UUID }, { name: null, topicId: ZERO_UUID }, { name: 'existing', topicId: ZERO_UUID }], allowAutoTopicCreation: true }),
      3,
      12,
    );
    expect(res.brokers).toEqual([]);
    expect(res.clusterId).toBeNull();
    expect(res.controllerId).toBe(-1);
    expect(res.topics.map((t) => [t.name, t.errorCode, t.topicId, t.partitions.length])).toEqual([
      ['to-create', -1, ZERO_UUID, 0],
      ['', -1, ZERO_UUID, 0],
      ['existing', -1, ZERO_UUID, 0],
    ]);
    expect(kmock.broker.topics.get('to-create')).toBeUndefined();
    expect(handlerErrors()).toEqual([]);
    expect(lines.some((l) => l.level === 'warn' && /null name/.test(l.msg))).toBe(true);
  });

  it('keeps the connection open, and a non-zero id still makes the names ignored', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    const first = await c.request(3, 12, buildRequest(3, { topics: [{ name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: false }));
    expect(first.topics.map((t) => t.errorCode)).toEqual([-1]);
    const byId = await c.request(3, 12, buildRequest(3, { topics: [{ name: null, topicId: ZERO_UUID }, { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], allowAutoTopicCreation: false }));
    expect(byId.topics.map((t) => [t.name, t.errorCode])).toEqual([[null, 100]]);
    c.close();
  });

  it('below v12 it is still INVALID_REQUEST', async () => {
    const res = await answerTo(frame(3, 11, { topics: [{ name: null, topicId: ZERO_UUID }] }), 3, 11);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([['', 42]]);
  });
});

describe('negative lengths of nullable fields are null, as Kafka reads them', () => {
  // Kafka's generated readers treat any negative length of a nullable field as null
  // (e.g. MetadataRequestData.read: `if (arrayLength < 0) this.topics = null`), so a Kafka 3.9.1
  // broker answers these; kmock refused anything but -1 and closed the connection.
  it('Metadata v1 with a topic count of -2 is an all-topics request', async () => {
    const f = frame(3, 1, { topics: [] });
    f.writeInt32BE(-2, f.length - 4);
    const res = await answerTo(f, 3, 1);
    expect(res.topics.map((t) => t.name)).toContain('existing');
  });

  it('a request header with client id length -2 has a null client id', async () => {
    const f = frame(3, 1, { topics: [{ name: 'existing' }] }, null);
    f.writeInt16BE(-2, 12);
    const res = await answerTo(f, 3, 1);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([['existing', 0]]);
  });

  it('in the codec: nullable strings, bytes and arrays; a non-nullable array still refuses', () => {
    const r = new Reader(Buffer.from([0xff, 0xfe, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff, 0xfe]));
    expect(r.nullableString()).toBeNull();
    expect(r.nullableBytes()).toBeNull();
    expect(r.arrayLength(1)).toBe(-2);
    // Metadata v0's topic array is not nullable: -2 there is refused (the connection closes).
    const v0 = frame(3, 0, { topics: [] });
    v0.writeInt32BE(-2, v0.length - 4);
    return answerTo(v0, 3, 0).then(
      () => expect.unreachable('Metadata v0 with count -2 must close the connection'),
      (e) => expect(String(e)).toMatch(/closed/),
    );
  });
});

describe('closes come with a log line saying why', () => {
  it('a frame shorter than a request header', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    c.sendRaw(Buffer.from([0, 0, 0, 3, 0, 3, 0]));
    expect(await c.waitForClose(3000)).toBe(true);
    expect(lines.some((l) => l.level === 'warn' && /frame too short/.test(l.msg))).toBe(true);
  });

  it('an acks=0 Produce that fails (logged at info, as Kafka does)', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    c.sendRaw(frame(0, 9, { acks: 0, timeoutMs: 1000, topicData: [{ name: 'no-such-topic-and-bad/name', partitionData: [{ index: 0, records: null }] }] }));
    expect(await c.waitForClose(3000)).toBe(true);
    expect(lines.some((l) => l.level === 'info' && l.msg === 'closing connection' && /acks=0/.test(String(l.obj.why)))).toBe(true);
    expect(handlerErrors()).toEqual([]);
  });
});
