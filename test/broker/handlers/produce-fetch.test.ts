// Produce, Fetch, ListOffsets, DeleteRecords and InitProducerId against a listening kmock: raw
// frames built with kmock's codec for exact error codes, and kafkajs 2.2.4 as a real client.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompressionTypes, Kafka, logLevel, Partitioners } from 'kafkajs';
import {
  createDeleteRecordsRequest,
  createFetchRequest,
  createInitProducerIdRequest,
  createListOffsetsRequest,
  createProduceRequest,
  encodeRequest,
  encodeResponseChunks,
  type FetchResponse,
  type ProduceResponse,
  FetchRequest,
  ListOffsetsRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import { decodeRecords, encodeBatch, initCompression, readBatchHeader, type RecordBatchInput, type RecordBatch } from '../../../src/codec/records/index.js';
import { Broker } from '../../../src/broker/broker.js';
import { resolveConfig } from '../../../src/broker/config.js';
import { fetchHandler } from '../../../src/broker/handlers/fetch.js';
import { HANDLERS } from '../../../src/broker/handlers/index.js';
import { produceHandler } from '../../../src/broker/handlers/produce.js';
import type { RequestContext } from '../../../src/broker/handlers/types.js';
import { decodeRequest, decodeResponse } from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let client: RawClient;

beforeEach(async () => {
  kmock = await startKmock();
  client = await RawClient.connect(kmock.bootstrapServers);
});
afterEach(async () => {
  client.close();
  await kmock.close();
});

function topic(name: string, partitions = 1, configs?: Record<string, string>): void {
  kmock.broker.topics.create(name, partitions, 1, configs ? new Map(Object.entries(configs)) : undefined);
}

function log(name: string, partition = 0) {
  return kmock.broker.topics.get(name)!.partitions[partition];
}

function batch(values: string[], init: Partial<RecordBatchInput> = {}): Buffer {
  return encodeBatch({ records: values.map((v) => ({ key: null, value: v })), ...init });
}

function produceBody(name: string, records: Buffer | null, acks = -1, partition = 0) {
  return createProduceRequest({ acks, timeoutMs: 30000, topicData: [{ name, partitionData: [{ index: partition, records }] }] });
}

async function produce(name: string, records: Buffer | null, opts: { acks?: number; version?: number; partition?: number } = {}) {
  const res = await client.request(0, opts.version ?? 9, produceBody(name, records, opts.acks ?? -1, opts.partition ?? 0));
  return res.responses[0].partitionResponses[0];
}

function fetchPartition(fetchOffset: bigint, init: Partial<FetchRequest.Partition> = {}) {
  return FetchRequest.createPartition({ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, ...init });
}

async function fetch(name: string, fetchOffset: bigint, version = 12, init: Parameters<typeof createFetchRequest>[0] = {}, c = client) {
  const body = createFetchRequest({
    maxWaitMs: 0,
    minBytes: 0,
    topics: [FetchRequest.createTopic({ topic: name, topicId: kmock.broker.topics.get(name)?.id, partitions: [fetchPartition(fetchOffset)] })],
    ...init,
  });
  return c.request(1, version, body);
}

function values(res: FetchResponse, t = 0, p = 0): string[] {
  const records = res.responses[t].partitions[p].records as Buffer;
  return (decodeRecords(records).entries as RecordBatch[]).flatMap((b) => b.records.map((r) => r.value!.toString()));
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Produce', () => {
  it('appends and answers base offset and log start offset; no auto-creation on produce', async () => {
    topic('p');
    expect(await produce('p', batch(['a', 'b']))).toMatchObject({ errorCode: 0, baseOffset: 0n, logAppendTimeMs: -1n, logStartOffset: 0n });
    expect(await produce('p', batch(['c']))).toMatchObject({ errorCode: 0, baseOffset: 2n });
    expect(await produce('nope', batch(['x']))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1n, logStartOffset: -1n });
    expect(kmock.broker.topics.get('nope')).toBeUndefined();
    expect(await produce('p', batch(['x']), { partition: 1 })).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  });

  it('a compression.type=zstd topic stores an uncompressed batch zstd-compressed (the codec loads on demand)', async () => {
    topic('zt', 1, { 'compression.type': 'zstd' });
    expect(await produce('zt', batch(['a', 'b']))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    const [stored] = decodeRecords(log('zt').storedBatches()[0]).entries as RecordBatch[];
    expect(stored.compression).toBe('zstd');
    expect(stored.records.map((r) => r.value?.toString())).toEqual(['a', 'b']);
  });

  it('stores the request frame\'s own bytes (a view, not a copy)', () => {
    const broker = new Broker(resolveConfig({ logLevel: 'silent' }));
    broker.topics.create('z', 1, 1);
    const frame = encodeRequest({ apiKey: 0, apiVersion: 9, correlationId: 1, clientId: 'x' }, produceBody('z', batch(['a', 'b'])));
    const decoded = decodeRequest(frame.subarray(4));
    const ctx: RequestContext = { services: broker.services, connection: { id: 1, clientHost: 'h', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS'}, listener: broker.services.listeners[0], closeConnection: () => undefined, header: decoded.header, apiVersion: 9, receivedAt: 0, receivedAtClock: 0 };
    const res = produceHandler.handle(ctx, decoded.body as never) as ProduceResponse;
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
    const stored = broker.topics.get('z')!.partitions[0].storedBatches()[0];
    expect(stored.buffer).toBe(frame.buffer);
    expect(stored.byteOffset).toBeGreaterThan(frame.byteOffset);
  });

  it('refuses with Kafka\'s per-partition errors', async () => {
    topic('e');
    await initCompression();
    expect((await produce('e', batch(['a']), { acks: 2 })).errorCode).toBe(ErrorCode.INVALID_REQUIRED_ACKS);
    const corrupt = batch(['a']);
    corrupt[corrupt.length - 1] ^= 1;
    expect(await produce('e', corrupt)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, logStartOffset: -1n, errorMessage: null });
    expect((await produce('e', Buffer.concat([batch(['a']), batch(['b'])]))).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect((await produce('e', Buffer.alloc(0))).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect((await produce('e', batch(['a'], { compression: 'zstd' }), { version: 3 })).errorCode).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    expect((await produce('e', batch(['a'], { compression: 'zstd' }), { version: 7 })).errorCode).toBe(0);
    expect(log('e').logEndOffset).toBe(1);
  });

  it('fills recordErrors and errorMessage for record-level failures (v8+)', async () => {
    topic('c', 1, { 'cleanup.policy': 'compact' });
    const r = await produce('c', batch(['no-key']), { version: 8 });
    expect(r.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(r.recordErrors).toEqual([{ batchIndex: 0, batchIndexErrorMessage: 'Compacted topic cannot accept message without key in topic partition c-0' }]);
    expect(r.errorMessage).toMatch(/^One or more records have been rejected due to 1 record errors in total/);
  });

  it('transactional records without a transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request', async () => {
    topic('tx', 2);
    const body = createProduceRequest({
      transactionalId: null,
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        { name: 'tx', partitionData: [{ index: 0, records: batch(['ok']) }] },
        { name: 'tx', partitionData: [{ index: 1, records: batch(['a'], { isTransactional: true, producerId: 1n, producerEpoch: 0, baseSequence: 0 }) }] },
      ],
    });
    const res = await client.request(0, 9, body);
    expect(res.responses).toHaveLength(1);
    expect(res.responses[0].partitionResponses.map((p) => [p.index, p.errorCode, p.errorMessage])).toEqual([
      // ApiError.fromThrowable: the exception's text is the error's default one, so no message
      [0, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null],
      [1, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null],
    ]);
    expect(log('tx').logEndOffset).toBe(0);
  });

  it('a transactional id the coordinator does not know: the transactional partition answers INVALID_PRODUCER_ID_MAPPING, the others append', async () => {
    topic('tx', 2);
    const body = createProduceRequest({
      transactionalId: 'txn',
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        { name: 'tx', partitionData: [{ index: 0, records: batch(['ok']) }] },
        { name: 'tx', partitionData: [{ index: 1, records: batch(['a'], { isTransactional: true, producerId: 1n, producerEpoch: 0, baseSequence: 0 }) }] },
      ],
    });
    const res = await client.request(0, 9, body);
    expect(res.responses[0].partitionResponses.map((p) => [p.index, p.errorCode, p.errorMessage, p.baseOffset, p.logStartOffset])).toEqual([
      [0, 0, null, 0n, 0n],
      [1, ErrorCode.INVALID_PRODUCER_ID_MAPPING, null, -1n, -1n],
    ]);
    expect(log('tx', 1).logEndOffset).toBe(0);
  });

  it('a v2 batch too short to hold a producer id fails the whole request: UNKNOWN_SERVER_ERROR, no message', async () => {
    topic('sh');
    const short = Buffer.alloc(40);
    short.writeInt32BE(28, 8);
    short.writeInt8(2, 16);
    const res = await client.request(
      0,
      9,
      createProduceRequest({
        acks: -1,
        timeoutMs: 1000,
        topicData: [
          { name: 'sh', partitionData: [{ index: 0, records: short }] },
          { name: 'nope', partitionData: [{ index: 0, records: batch(['a']) }] },
        ],
      }),
    );
    expect(res.responses.map((t) => [t.name, t.partitionResponses[0].errorCode, t.partitionResponses[0].errorMessage])).toEqual([
      ['sh', ErrorCode.UNKNOWN_SERVER_ERROR, null],
      ['nope', ErrorCode.UNKNOWN_SERVER_ERROR, null],
    ]);
  });

  it('acks=0: no response; an error closes the connection', async () => {
    topic('z0');
    client.sendRaw(encodeRequest({ apiKey: 0, apiVersion: 9, correlationId: 77, clientId: 'x' }, produceBody('z0', batch(['a']), 0)));
    await until(() => log('z0').logEndOffset === 1);
    // the next request is answered first: nothing was sent for the acks=0 one
    const r = await client.requestFull(0, 9, produceBody('z0', batch(['b']), 1));
    expect(r.body.responses[0].partitionResponses[0].baseOffset).toBe(1n);
    client.sendRaw(encodeRequest({ apiKey: 0, apiVersion: 9, correlationId: 78, clientId: 'x' }, produceBody('missing', batch(['a']), 0)));
    expect(await client.waitForClose()).toBe(true);
  });

  it('answers a duplicate Produce frame with the original offsets, without appending again', async () => {
    topic('d');
    const frame = () =>
      encodeRequest(
        { apiKey: 0, apiVersion: 9, correlationId: 5, clientId: 'x' },
        produceBody('d', batch(['a', 'b', 'c'], { producerId: 0n, producerEpoch: 0, baseSequence: 0 })),
      );
    await produce('d', batch(['first']));
    client.sendRaw(frame());
    const first = await client.nextFrame();
    client.sendRaw(frame());
    const second = await client.nextFrame();
    const a = (decodeResponse(first, 0, 9).body as ProduceResponse).responses[0].partitionResponses[0];
    const b = (decodeResponse(second, 0, 9).body as ProduceResponse).responses[0].partitionResponses[0];
    expect(a).toMatchObject({ errorCode: 0, baseOffset: 1n, logAppendTimeMs: -1n });
    // Kafka (UnifiedLog.append) answers a duplicate with the original offsets and, as
    // logAppendTime, the timestamp kept in the producer state: the batch's max timestamp.
    expect(b).toMatchObject({ errorCode: 0, baseOffset: 1n, logStartOffset: 0n });
    expect(b.logAppendTimeMs).toBe(BigInt(readBatchHeader(log('d').storedBatches()[1]).maxTimestamp));
    expect(log('d').logEndOffset).toBe(4);
    expect(log('d').batchCount).toBe(2);
    const next = await produce('d', batch(['x'], { producerId: 0n, producerEpoch: 0, baseSequence: 3 }));
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 4n });
    const gap = await produce('d', batch(['y'], { producerId: 0n, producerEpoch: 0, baseSequence: 9 }));
    expect(gap).toMatchObject({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n, logStartOffset: 0n });
    const fenced = await produce('d', batch(['y'], { producerId: 0n, producerEpoch: -1, baseSequence: 4 }));
    expect(fenced.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
  });
});

describe('Fetch', () => {
  it('reads from the batch holding the offset, with high watermark, LSO and log start offset', async () => {
    topic('f');
    await produce('f', batch(['a', 'b']));
    await produce('f', batch(['c']));
    const res = await fetch('f', 1n);
    const p = res.responses[0].partitions[0];
    expect(res).toMatchObject({ errorCode: 0, sessionId: 0 });
    expect(p).toMatchObject({ errorCode: 0, highWatermark: 3n, lastStableOffset: 3n, logStartOffset: 0n, preferredReadReplica: -1, abortedTransactions: null });
    expect(values(res)).toEqual(['a', 'b', 'c']);
    const committed = await fetch('f', 0n, 12, { isolationLevel: 1 });
    expect(committed.responses[0].partitions[0].abortedTransactions).toEqual([]);
  });

  it('hands the stored Buffers themselves to the response writer', () => {
    const broker = new Broker(resolveConfig({ logLevel: 'silent' }));
    const t = broker.topics.create('zc', 1, 1);
    for (const v of ['a', 'b', 'c']) expect(t.partitions[0].appendAsLeader(batch([v])).errorCode).toBe(0);
    const stored = t.partitions[0].storedBatches();
    const ctx: RequestContext = {
      services: broker.services,
      connection: { id: 1, clientHost: 'h', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS'},
      listener: broker.services.listeners[0], closeConnection: () => undefined,
      header: { apiKey: 1, apiVersion: 12, correlationId: 1, clientId: 'x' },
      apiVersion: 12,
      receivedAt: 0,
      receivedAtClock: 0,
    };
    const req = createFetchRequest({ topics: [FetchRequest.createTopic({ topic: 'zc', partitions: [fetchPartition(0n)] })] });
    const res = fetchHandler.handle(ctx, req) as FetchResponse;
    const records = res.responses[0].partitions[0].records as Buffer[];
    expect(records).toHaveLength(3);
    records.forEach((b, i) => expect(b).toBe(stored[i]));
    const chunks = encodeResponseChunks(1, 12, 1, res);
    for (const s of stored) expect(chunks).toContain(s);
  });

  it('max_bytes and partition_max_bytes: the first batch always whole, then cut like Kafka', async () => {
    topic('m', 2);
    await produce('m', batch(['aaaaaaaaaa']));
    await produce('m', batch(['bbbbbbbbbb']));
    await produce('m', batch(['cccccccccc']), { partition: 1 });
    const size = log('m').storedBatches()[0].length;
    const req = (maxBytes: number, partitionMaxBytes: number) =>
      client.request(
        1,
        12,
        createFetchRequest({
          maxBytes,
          topics: [
            FetchRequest.createTopic({
              topic: 'm',
              partitions: [fetchPartition(0n, { partitionMaxBytes }), fetchPartition(0n, { partition: 1, partitionMaxBytes })],
            }),
          ],
        }),
      );
    // response limit 1 byte: partition 0 still returns its first batch; partition 1 nothing
    let res = await req(1, 1 << 20);
    expect((res.responses[0].partitions[0].records as Buffer).length).toBe(size);
    expect((res.responses[0].partitions[1].records as Buffer).length).toBe(0);
    // partition limit size+5: one whole batch and 5 bytes of the next
    res = await req(1 << 20, size + 5);
    expect((res.responses[0].partitions[0].records as Buffer).length).toBe(size + 5);
    expect(values(res)).toEqual(['aaaaaaaaaa']);
    expect(values(res, 0, 1)).toEqual(['cccccccccc']);
  });

  it('errors: OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, sessions', async () => {
    topic('x');
    await produce('x', batch(['a']));
    const oor = (await fetch('x', 5n)).responses[0].partitions[0];
    expect(oor).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1n, logStartOffset: -1n, lastStableOffset: -1n });
    const unknown = await client.request(
      1,
      12,
      createFetchRequest({
        topics: [FetchRequest.createTopic({ topic: 'nope', partitions: [fetchPartition(0n)] }), FetchRequest.createTopic({ topic: 'x', partitions: [fetchPartition(0n)] })],
      }),
    );
    // read partitions first, then the ones answered without reading (FetchResponse.of order)
    expect(unknown.responses.map((t) => [t.topic, t.partitions[0].errorCode])).toEqual([
      ['x', 0],
      ['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    // MemoryRecords.EMPTY, as Kafka 3.9.1 answers (conformance run), not null.
    expect(unknown.responses[1].partitions[0].records).toEqual(Buffer.alloc(0));
    const byId = await client.request(
      1,
      13,
      createFetchRequest({ topics: [FetchRequest.createTopic({ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [fetchPartition(0n)] })] }),
    );
    expect(byId.responses[0]).toMatchObject({ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
    expect(byId.responses[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_ID);
    const good = await fetch('x', 0n, 13);
    expect(good.responses[0].topicId).toBe(kmock.broker.topics.get('x')!.id);
    expect(values(good)).toEqual(['a']);
    // a full fetch asking for a session (epoch 0) is served sessionless; an incremental one is unknown
    expect((await fetch('x', 0n, 12, { sessionId: 0, sessionEpoch: 0 })).sessionId).toBe(0);
    const inc = await fetch('x', 0n, 12, { sessionId: 123, sessionEpoch: 1 });
    expect(inc).toMatchObject({ errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] });
  });

  it('long poll on two partitions: one Produce writing both answers it with both (woken after the whole request, as Kafka)', async () => {
    topic('lp2', 2);
    const other = await RawClient.connect(kmock.bootstrapServers);
    try {
      const parts = [0, 1].map((partition) => fetchPartition(0n, { partition }));
      const pending = client.request(1, 11, createFetchRequest({ maxWaitMs: 10_000, minBytes: 1, topics: [FetchRequest.createTopic({ topic: 'lp2', partitions: parts })] }));
      await until(() => kmock.broker.fetchWaiters.size === 1);
      await other.request(0, 9, createProduceRequest({
        acks: -1,
        timeoutMs: 30000,
        topicData: [{ name: 'lp2', partitionData: [{ index: 0, records: batch(['a']) }, { index: 1, records: batch(['b']) }] }],
      }));
      const res = await pending;
      expect(res.responses[0].partitions.map((p) => p.highWatermark)).toEqual([1n, 1n]);
      expect([values(res, 0, 0), values(res, 0, 1)]).toEqual([['a'], ['b']]);
    } finally {
      other.close();
    }
  });

  it('long poll: a produce wakes the waiting fetch long before max_wait_ms', async () => {
    topic('lp');
    const other = await RawClient.connect(kmock.bootstrapServers);
    try {
      const started = performance.now();
      const pending = fetch('lp', 0n, 12, { maxWaitMs: 10_000, minBytes: 1 });
      await new Promise((r) => setTimeout(r, 200));
      expect(kmock.broker.fetchWaiters.size).toBe(1);
      const produced = performance.now();
      await other.request(0, 9, produceBody('lp', batch(['wake'])));
      const res = await pending;
      const answered = performance.now();
      expect(values(res)).toEqual(['wake']);
      expect(answered - started).toBeGreaterThanOrEqual(190);
      expect(answered - produced).toBeLessThan(1000);
      expect(kmock.broker.fetchWaiters.size).toBe(0);
      // without data the fetch answers empty at max_wait_ms
      const t0 = performance.now();
      const empty = await fetch('lp', 1n, 12, { maxWaitMs: 300, minBytes: 1 });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(280);
      expect((empty.responses[0].partitions[0].records as Buffer).length).toBe(0);
    } finally {
      other.close();
    }
  });
});

describe('ListOffsets', () => {
  async function list(name: string, timestamp: bigint, version = 7) {
    const res = await client.request(
      2,
      version,
      createListOffsetsRequest({
        replicaId: -1,
        topics: [{ name, partitions: [ListOffsetsRequest.createPartition({ partitionIndex: 0, timestamp, maxNumOffsets: version === 0 ? 10 : 1 })] }],
      }),
    );
    return res.topics[0].partitions[0];
  }

  it('earliest, latest, by timestamp, max timestamp; v0 old style', async () => {
    topic('lo');
    const at = (v: string, timestamp: number) => ({ value: v, timestamp });
    await produce('lo', encodeBatch({ records: [at('a', 1000), at('b', 3000)] }));
    await produce('lo', encodeBatch({ records: [at('c', 2000), at('d', 5000), at('e', 4000)] }));
    expect(await list('lo', -2n)).toMatchObject({ errorCode: 0, offset: 0n, timestamp: -1n, leaderEpoch: 0 });
    expect(await list('lo', -1n)).toMatchObject({ errorCode: 0, offset: 5n, timestamp: -1n, leaderEpoch: 0 });
    expect(await list('lo', 2500n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 3000n });
    expect(await list('lo', 4500n)).toMatchObject({ errorCode: 0, offset: 3n, timestamp: 5000n });
    expect(await list('lo', 9000n)).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n, leaderEpoch: -1 });
    expect(await list('lo', -3n)).toMatchObject({ errorCode: 0, offset: 3n, timestamp: 5000n });
    expect((await list('lo', -3n, 6)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect((await list('lo', -7n)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(await list('lo', -1n, 3)).toMatchObject({ offset: 5n, leaderEpoch: -1 });
    expect(await list('lo', -1n, 0)).toMatchObject({ errorCode: 0, oldStyleOffsets: [5n, 0n] });
    expect(await list('lo', -2n, 0)).toMatchObject({ errorCode: 0, oldStyleOffsets: [0n] });
    expect((await list('lo', -3n, 0)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect((await list('nope', -1n)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});

describe('DeleteRecords', () => {
  it('moves the log start offset; Fetch and ListOffsets follow', async () => {
    topic('dr');
    topic('compacted', 1, { 'cleanup.policy': 'compact' });
    await produce('dr', batch(['a', 'b', 'c']));
    await produce('dr', batch(['d', 'e']));
    const del = async (name: string, offset: bigint, partition = 0) =>
      (await client.request(21, 2, createDeleteRecordsRequest({ timeoutMs: 1000, topics: [{ name, partitions: [{ partitionIndex: partition, offset }] }] })))
        .topics[0].partitions[0];
    expect(await del('dr', 4n)).toEqual({ partitionIndex: 0, lowWatermark: 4n, errorCode: 0 });
    expect(await del('dr', 9n)).toMatchObject({ lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE });
    expect(await del('nope', 0n)).toMatchObject({ lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    expect(await del('compacted', 0n)).toMatchObject({ errorCode: ErrorCode.POLICY_VIOLATION });
    expect((await fetch('dr', 3n)).responses[0].partitions[0].errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const from4 = await fetch('dr', 4n);
    expect(from4.responses[0].partitions[0].logStartOffset).toBe(4n);
    expect(values(from4)).toEqual(['d', 'e']); // the batch holding offset 4
    expect(await del('dr', -1n)).toMatchObject({ lowWatermark: 5n, errorCode: 0 });
  });
});

describe('InitProducerId', () => {
  it('sequential ids with epoch 0, from the same producer id manager as transactional ids', async () => {
    const init = (init: Parameters<typeof createInitProducerIdRequest>[0], v = 4) =>
      client.request(22, v, createInitProducerIdRequest({ transactionalId: null, transactionTimeoutMs: 60000, ...init }));
    expect(await init({})).toMatchObject({ errorCode: 0, producerId: 0n, producerEpoch: 0 });
    expect(await init({ producerId: 0n, producerEpoch: 0 })).toMatchObject({ errorCode: 0, producerId: 1n, producerEpoch: 0 });
    expect(await init({ producerId: -1n, producerEpoch: 3 })).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 });
    // a new transactional id: the next producer id, its epoch bumped from -1 to 0
    expect(await init({ transactionalId: 'tx' }, 1)).toMatchObject({ errorCode: 0, producerId: 2n, producerEpoch: 0 });
  });
});

describe('kafkajs 2.2.4', () => {
  function kafka() {
    return new Kafka({ clientId: 'kmock-test', brokers: [kmock.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  }

  it('produces with acks 0, 1 and -1, and gzip; the data reads back in order', async () => {
    topic('kjs');
    const producer = kafka().producer({ createPartitioner: Partitioners.LegacyPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const r1 = await producer.send({ topic: 'kjs', acks: 1, messages: [{ value: 'one' }] });
      expect(r1[0]).toMatchObject({ errorCode: 0, baseOffset: '0' });
      const r2 = await producer.send({ topic: 'kjs', acks: -1, messages: [{ value: 'two' }, { value: 'three' }] });
      expect(r2[0]).toMatchObject({ errorCode: 0, baseOffset: '1' });
      await producer.send({ topic: 'kjs', acks: 0, messages: [{ value: 'four' }] });
      await until(() => log('kjs').logEndOffset === 4);
      await producer.send({ topic: 'kjs', acks: -1, compression: CompressionTypes.GZIP, messages: [{ value: 'five' }, { value: 'six' }] });
      expect(log('kjs').logEndOffset).toBe(6);
    } finally {
      await producer.disconnect();
    }
    const res = await fetch('kjs', 0n);
    expect(values(res)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
    const gz = (decodeRecords(res.responses[0].partitions[0].records as Buffer).entries as RecordBatch[]).at(-1)!;
    expect(gz.compression).toBe('gzip');
  });

  it('a topic created with compression.type=gzip stores kafkajs\'s uncompressed batches gzipped; consumers read the same values', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'gzt', numPartitions: 1, configEntries: [{ name: 'compression.type', value: 'gzip' }] }] });
    } finally {
      await admin.disconnect();
    }
    const producer = kafka().producer({ createPartitioner: Partitioners.LegacyPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const r = await producer.send({ topic: 'gzt', acks: -1, messages: [{ key: 'a', value: 'one', headers: { h: 'x' } }, { value: 'two' }] });
      expect(r[0]).toMatchObject({ errorCode: 0, baseOffset: '0' });
    } finally {
      await producer.disconnect();
    }
    const res = await fetch('gzt', 0n);
    expect(values(res)).toEqual(['one', 'two']);
    const [stored] = decodeRecords(res.responses[0].partitions[0].records as Buffer).entries as RecordBatch[];
    expect(stored.compression).toBe('gzip');
    expect(stored.records[0].headers).toEqual([{ key: 'h', value: Buffer.from('x') }]);
  });

  it('idempotent producer: InitProducerId, sequences, and stored producer state', async () => {
    topic('idem', 2);
    const producer = kafka().producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.LegacyPartitioner });
    await producer.connect();
    try {
      for (let i = 0; i < 4; i++) await producer.send({ topic: 'idem', messages: [{ key: `k${i}`, value: `v${i}`, partition: i % 2 }] });
    } finally {
      await producer.disconnect();
    }
    expect(log('idem', 0).logEndOffset + log('idem', 1).logEndOffset).toBe(4);
    const entry = log('idem', 0).producers.lastEntry(0n);
    expect(entry).toMatchObject({ producerEpoch: 0 });
    expect(entry!.lastSeq).toBe(1);
  });

  const groupApis = [8, 9, 10, 11, 12, 13, 14];
  const haveGroups = groupApis.every((k) => HANDLERS.some((h) => h.apiKey === k));
  it.skipIf(!haveGroups)('a group consumer reads what was produced (needs the group coordinator handlers)', async () => {
    topic('grp');
    const k = kafka();
    const producer = k.producer({ createPartitioner: Partitioners.LegacyPartitioner });
    await producer.connect();
    await producer.send({ topic: 'grp', messages: [{ value: 'g1' }, { value: 'g2' }] });
    await producer.disconnect();
    const consumer = k.consumer({ groupId: 'g', sessionTimeout: 6000, heartbeatInterval: 500 });
    const seen: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: ['grp'], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
      await until(() => seen.length === 2, 30_000);
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toEqual(['g1', 'g2']);
  });
});
