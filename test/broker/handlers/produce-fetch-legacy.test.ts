// Produce v0-v2 and Fetch v0-v3 against a listening kmock, over raw frames: legacy message sets
// up-converted into the v2 log, stored batches down-converted for old consumers, the v0-v2 hard
// size limit, and the errors Kafka 3.9 answers on those versions.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createApiVersionsRequest,
  createFetchRequest,
  createProduceRequest,
  encodeRequest,
  type FetchResponse,
  FetchRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import {
  decodeBatch,
  decodeRecords,
  encodeBatch,
  encodeMessageSet,
  initCompression,
  type LegacyEntry,
  type LegacyMessageInput,
} from '../../../src/codec/records/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let client: RawClient;

beforeAll(async () => {
  await initCompression();
});
beforeEach(async () => {
  kmock = await startKmock();
  client = await RawClient.connect(kmock.bootstrapServers);
});
afterEach(async () => {
  client.close();
  await kmock.close();
});

const T = 1_700_000_000_000;

function topic(name: string, configs?: Record<string, string>): void {
  kmock.broker.topics.create(name, 1, 1, configs ? new Map(Object.entries(configs)) : undefined);
}

const msgs = (values: string[], ts = T): LegacyMessageInput[] => values.map((v, i) => ({ key: `k-${v}`, value: v, timestamp: ts + i }));

async function produce(version: number, name: string, records: Buffer | null, acks = -1) {
  const res = await client.request(0, version, createProduceRequest({ acks, timeoutMs: 5000, topicData: [{ name, partitionData: [{ index: 0, records }] }] }));
  return res.responses[0].partitionResponses[0];
}

async function fetch(version: number, name: string, fetchOffset: number, part: Partial<FetchRequest.Partition> = {}, init: Parameters<typeof createFetchRequest>[0] = {}) {
  const res = await client.request(
    1,
    version,
    createFetchRequest({
      maxWaitMs: 0,
      minBytes: 0,
      topics: [FetchRequest.createTopic({ topic: name, partitions: [FetchRequest.createPartition({ partition: 0, fetchOffset: BigInt(fetchOffset), partitionMaxBytes: 1 << 20, ...part })] })],
      ...init,
    }),
  );
  return res;
}

function records(res: FetchResponse): Buffer {
  return res.responses[0].partitions[0].records as Buffer;
}

/** Every message of a legacy fetch: [offset, magic, timestamp, value]. */
function messages(res: FetchResponse): Array<[bigint, number, number | null, string | null]> {
  return (decodeRecords(records(res)).entries as LegacyEntry[]).flatMap((e) => {
    expect(e.magic).not.toBe(2);
    return e.messages.map((m) => [m.offset, m.magic, m.timestamp, m.value?.toString() ?? null] as [bigint, number, number | null, string | null]);
  });
}

describe('ApiVersions', () => {
  it('advertises Produce 0-11 and Fetch 0-17, as Kafka 3.9', async () => {
    const res = await client.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 't', clientSoftwareVersion: '1' }));
    expect(res.apiKeys.find((k) => k.apiKey === 0)).toEqual({ apiKey: 0, minVersion: 0, maxVersion: 11 });
    expect(res.apiKeys.find((k) => k.apiKey === 1)).toEqual({ apiKey: 1, minVersion: 0, maxVersion: 17 });
  });
});

describe('Produce v0-v2', () => {
  it('up-converts magic 0 and magic 1 sets, plain and compressed; v4+ fetches see the v2 batches', async () => {
    topic('up');
    expect(await produce(0, 'up', encodeMessageSet({ magic: 0, messages: msgs(['a', 'b']) }))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(await produce(1, 'up', encodeMessageSet({ magic: 0, compression: 'snappy', messages: msgs(['c', 'd']) }))).toMatchObject({ errorCode: 0, baseOffset: 2n });
    expect(await produce(2, 'up', encodeMessageSet({ magic: 1, messages: msgs(['e']) }))).toMatchObject({ errorCode: 0, baseOffset: 4n, logAppendTimeMs: -1n });
    expect(await produce(2, 'up', encodeMessageSet({ magic: 1, compression: 'gzip', messages: msgs(['f', 'g', 'h'], T + 10) }))).toMatchObject({ errorCode: 0, baseOffset: 5n });
    // Produce v0-v2 does not check the magic: a v2 batch is stored as for v3+.
    expect(await produce(2, 'up', encodeBatch({ baseTimestamp: T, records: [{ value: 'i', headers: [{ key: 'h', value: null }] }] }))).toMatchObject({ errorCode: 0, baseOffset: 8n });

    const res = await fetch(12, 'up', 0);
    const batches = decodeRecords(records(res)).entries.map((e) => {
      if (e.magic !== 2) throw new Error('the log holds v2 batches only');
      return e;
    });
    expect(batches.map((b) => [b.baseOffset, b.compression, b.records.length, b.baseTimestamp, b.maxTimestamp])).toEqual([
      [0n, 'none', 2, -1, -1],
      [2n, 'snappy', 2, -1, -1],
      [4n, 'none', 1, T, T],
      [5n, 'gzip', 3, T + 10, T + 12],
      [8n, 'none', 1, T, T],
    ]);
    expect(batches.flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
    expect(batches[3].records.map((r) => r.key!.toString())).toEqual(['k-f', 'k-g', 'k-h']);
  });

  it('v2 on a LogAppendTime topic answers the append time', async () => {
    topic('lat', { 'message.timestamp.type': 'LogAppendTime' });
    const before = Date.now();
    const r = await produce(2, 'lat', encodeMessageSet({ magic: 1, messages: msgs(['x']) }));
    expect(r.errorCode).toBe(0);
    expect(Number(r.logAppendTimeMs)).toBeGreaterThanOrEqual(before);
    const b = decodeBatch(kmock.broker.topics.get('lat')!.partitions[0].storedBatches()[0]);
    expect(b).toMatchObject({ timestampType: 1, maxTimestamp: Number(r.logAppendTimeMs), baseTimestamp: T });
  });

  it('errors: corrupt CRC, magic mismatch, two wrappers, compacted topic without key; empty records succeed with offset -1', async () => {
    topic('err');
    topic('cmp', { 'cleanup.policy': 'compact' });
    const bad = encodeMessageSet({ magic: 1, messages: msgs(['a']) });
    bad[bad.length - 1] ^= 1;
    expect(await produce(2, 'err', bad)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, baseOffset: -1n });
    const mixed = Buffer.concat([encodeMessageSet({ magic: 0, messages: msgs(['a']) }), encodeMessageSet({ magic: 1, messages: msgs(['b']) })]);
    expect((await produce(1, 'err', mixed)).errorCode).toBe(ErrorCode.INVALID_RECORD);
    const two = Buffer.concat([encodeMessageSet({ magic: 1, compression: 'gzip', messages: msgs(['a']) }), encodeMessageSet({ magic: 1, compression: 'gzip', messages: msgs(['b']) })]);
    expect((await produce(2, 'err', two)).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect((await produce(2, 'cmp', encodeMessageSet({ magic: 1, messages: [{ value: 'no key' }] }))).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(await produce(0, 'err', Buffer.alloc(0))).toMatchObject({ errorCode: 0, baseOffset: -1n });
    expect(await produce(0, 'missing', Buffer.alloc(0))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    expect(kmock.broker.topics.get('err')!.partitions[0].logEndOffset).toBe(0);
  });

  it('a later entry that does not frame fails the whole request (ReplicaManager.handleProduceAppend reads every batch)', async () => {
    topic('w1');
    topic('w2');
    const good = encodeMessageSet({ magic: 1, messages: msgs(['a']) });
    const bad = Buffer.from(good);
    bad.writeInt32BE(13, 8); // size below the 14-byte minimum
    const res = await client.request(
      0,
      2,
      createProduceRequest({
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          { name: 'w1', partitionData: [{ index: 0, records: good }] },
          { name: 'w2', partitionData: [{ index: 0, records: Buffer.concat([good, bad.subarray(0, 20)]) }] },
        ],
      }),
    );
    expect(res.responses.map((t) => [t.name, t.partitionResponses[0].errorCode, t.partitionResponses[0].baseOffset])).toEqual([
      ['w1', ErrorCode.CORRUPT_MESSAGE, -1n],
      ['w2', ErrorCode.CORRUPT_MESSAGE, -1n],
    ]);
    expect(kmock.broker.topics.get('w1')!.partitions[0].logEndOffset).toBe(0);
  });

  it('acks=0 at v0: no response, the records are appended', async () => {
    topic('a0');
    client.sendRaw(
      encodeRequest(
        { apiKey: 0, apiVersion: 0, correlationId: 77, clientId: 'raw' },
        createProduceRequest({ acks: 0, timeoutMs: 1000, topicData: [{ name: 'a0', partitionData: [{ index: 0, records: encodeMessageSet({ magic: 0, messages: msgs(['z']) }) }] }] }),
      ),
    );
    // the next request's answer is the next frame: nothing came for the acks=0 one
    const res = await fetch(0, 'a0', 0);
    expect(messages(res)).toEqual([[0n, 0, null, 'z']]);
  });
});

describe('Fetch v0-v3', () => {
  async function fill(name: string): Promise<void> {
    await produce(9, name, encodeBatch({ baseTimestamp: T, records: [0, 1, 2].map((i) => ({ key: `k${i}`, value: `v${i}`, timestampDelta: i, headers: [{ key: 'h', value: 'x' }] })) }));
    await produce(9, name, encodeBatch({ baseTimestamp: T + 10, compression: 'gzip', records: [3, 4].map((i) => ({ value: `v${i}`, timestampDelta: i })) }));
  }

  it('v0/v1 read magic 0, v2/v3 magic 1; offsets kept, records before the fetch offset dropped from plain batches only', async () => {
    topic('down');
    await fill('down');
    for (const v of [0, 1]) {
      const res = await fetch(v, 'down', 1);
      expect(res.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 5n });
      expect(messages(res)).toEqual([
        [1n, 0, null, 'v1'],
        [2n, 0, null, 'v2'],
        [3n, 0, null, 'v3'],
        [4n, 0, null, 'v4'],
      ]);
    }
    for (const v of [2, 3]) {
      // The converted messages are bigger than the stored batches, and the answer is as long as
      // what was read: the wrapper is cut off; a consumer fetches again from where it stopped.
      const first = await fetch(v, 'down', 0);
      expect(decodeRecords(records(first)).partial).not.toBeNull();
      expect(messages(first)).toEqual([
        [0n, 1, T, 'v0'],
        [1n, 1, T + 1, 'v1'],
        [2n, 1, T + 2, 'v2'],
      ]);
      expect(messages(await fetch(v, 'down', 3))).toEqual([
        [3n, 1, T + 13, 'v3'],
        [4n, 1, T + 14, 'v4'],
      ]);
      // inside the compressed batch: all of it is sent
      expect(messages(await fetch(v, 'down', 4)).map((m) => m[0])).toEqual([3n, 4n]);
    }
    // the stored batches are untouched: v4+ still gets them as they are
    const v4 = decodeRecords(records(await fetch(4, 'down', 0))).entries;
    expect(v4.map((e) => e.magic)).toEqual([2, 2]);
  });

  it('v0-v2 have a hard limit: a first batch larger than the partition limit gives nothing; v3 sends it whole', async () => {
    topic('hard');
    await fill('hard');
    const first = kmock.broker.topics.get('hard')!.partitions[0].storedBatches()[0].length;
    for (const v of [0, 1, 2]) {
      const res = await fetch(v, 'hard', 0, { partitionMaxBytes: first - 1 });
      expect(res.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 5n });
      expect(records(res).length).toBe(0);
    }
    const v3 = await fetch(3, 'hard', 0, { partitionMaxBytes: first - 1 });
    expect(messages(v3).map((m) => m[0])).toEqual([0n, 1n, 2n]);
    // v3's request-level max_bytes: still the first batch, whole
    const tiny = await fetch(3, 'hard', 0, {}, { maxBytes: 1 });
    expect(messages(tiny).map((m) => m[0])).toEqual([0n, 1n, 2n]);
    // one whole batch and part of the next: the converted size is what was read (here cut)
    const cut = await fetch(2, 'hard', 0, { partitionMaxBytes: first + 10 });
    const d = decodeRecords(records(cut));
    expect(records(cut).length).toBe(Math.max(first + 10, 3 * 38));
    expect((d.entries as LegacyEntry[]).map((e) => e.offset)).toEqual([0n, 1n, 2n].slice(0, d.entries.length));
  });

  it('errors: out of range, unknown topic, down-conversion disabled, zstd topics and batches', async () => {
    topic('e');
    topic('off', { 'message.downconversion.enable': 'false' });
    topic('zt', { 'compression.type': 'zstd' });
    topic('zb');
    await fill('e');
    await fill('off');
    await produce(9, 'zb', encodeBatch({ baseTimestamp: T, compression: 'zstd', records: [{ value: 'z' }] }));

    expect((await fetch(0, 'e', 9)).responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1n });
    expect((await fetch(1, 'nope', 0)).responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: -1n });
    expect((await fetch(3, 'off', 0)).responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, highWatermark: -1n });
    // answered by maybeConvertFetchedData: null records, unlike the partitions refused before reading
    expect((await fetch(3, 'off', 0)).responses[0].partitions[0].records).toBeNull();
    expect((await fetch(4, 'off', 0)).responses[0].partitions[0].errorCode).toBe(0);
    for (const v of [3, 9]) expect((await fetch(v, 'zt', 0)).responses[0].partitions[0].errorCode).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    expect((await fetch(10, 'zt', 0)).responses[0].partitions[0].errorCode).toBe(0);
    expect((await fetch(2, 'zb', 0)).responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, highWatermark: -1n });
    expect((await fetch(4, 'zb', 0)).responses[0].partitions[0].errorCode).toBe(0);
  });

  it('long poll at v2: a produce at v2 wakes it, and it answers converted data', async () => {
    topic('lp');
    const other = await RawClient.connect(kmock.bootstrapServers);
    try {
      const pending = fetch(2, 'lp', 0, {}, { maxWaitMs: 10_000, minBytes: 1 });
      await new Promise((r) => setTimeout(r, 100));
      expect(kmock.broker.fetchWaiters.size).toBe(1);
      await other.request(0, 2, createProduceRequest({ acks: 1, timeoutMs: 1000, topicData: [{ name: 'lp', partitionData: [{ index: 0, records: encodeMessageSet({ magic: 1, messages: msgs(['w']) }) }] }] }));
      expect(messages(await pending)).toEqual([[0n, 1, T, 'w']]);
    } finally {
      other.close();
    }
  });
});
