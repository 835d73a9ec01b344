// Independent cross-checks against kafkajs 2.2.4's own record-batch and message-set code: its
// encoder's bytes must decode with ours (and for none/gzip be byte-identical to ours, CRC
// included), and our bytes must decode with its decoder.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compress,
  decodeRecords,
  decompress,
  encodeBatch,
  encodeMessageSet,
  initCompression,
  readBatchHeader,
  type CompressionName,
  type LegacyEntry,
  type RecordBatch,
} from '../../../src/codec/records/index.js';
import { require } from './helpers.js';

type Enc = { buffer: Buffer };
const Encoder = require('kafkajs/src/protocol/encoder') as new () => Enc & { writeEncoder(e: Enc): Enc };
const Decoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => unknown;
const { RecordBatch: KRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (opts: Record<string, unknown>) => Promise<Enc>;
};
const KRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: Record<string, unknown>) => Enc;
const kRecordBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (d: unknown) => Promise<KDecodedBatch>;
const KMessageSet = require('kafkajs/src/protocol/messageSet') as (o: Record<string, unknown>) => Enc;
const kMessageSetDecoder = require('kafkajs/src/protocol/messageSet/decoder') as (d: unknown, size: number) => Promise<KMessage[]>;
const kDecodeMessages = require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages') as (d: unknown) => Promise<unknown[]>;
const { Types, Codecs } = require('kafkajs/src/protocol/message/compression') as {
  Types: Record<string, number>;
  Codecs: Record<number, () => { compress(e: Enc): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> }>;
};

interface KRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | null>;
  isControlRecord: boolean;
}
interface KDecodedBatch {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  records: KRecord[];
}
interface KMessage {
  offset: string;
  crc: number;
  magicByte: number;
  attributes: number;
  timestamp?: string;
  key: Buffer | null;
  value: Buffer | null;
}

const CODEC_ID: Record<CompressionName, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

beforeAll(async () => {
  await initCompression();
  // kafkajs ships gzip only; snappy/lz4/zstd are plugins. Plugging ours in checks kafkajs's batch
  // framing around them (the compression itself is then ours on both sides).
  for (const name of ['snappy', 'lz4', 'zstd'] as const) {
    Codecs[Types[name === 'snappy' ? 'Snappy' : name === 'lz4' ? 'LZ4' : 'ZSTD']] = () => ({
      compress: async (e: Enc) => compress(name, e.buffer),
      decompress: async (b: Buffer) => decompress(name, b),
    });
  }
});

interface Rec {
  key: Buffer | null;
  value: Buffer | null;
  headers: [string, Buffer][];
  timestampDelta: number;
  offsetDelta: number;
}
interface Spec {
  compression: CompressionName;
  baseOffset: bigint;
  baseTimestamp: number;
  maxTimestamp: number;
  partitionLeaderEpoch: number;
  transactional: boolean;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  records: Rec[];
}

async function kafkajsEncode(s: Spec): Promise<Buffer> {
  const records = s.records.map((r) =>
    KRecord({ offsetDelta: r.offsetDelta, timestampDelta: r.timestampDelta, key: r.key, value: r.value, headers: Object.fromEntries(r.headers) }),
  );
  const batch = await KRecordBatch({
    compression: CODEC_ID[s.compression],
    firstOffset: s.baseOffset,
    firstTimestamp: s.baseTimestamp,
    maxTimestamp: s.maxTimestamp,
    partitionLeaderEpoch: s.partitionLeaderEpoch,
    lastOffsetDelta: s.records.length === 0 ? 0 : s.records[s.records.length - 1].offsetDelta,
    transactional: s.transactional,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    firstSequence: s.baseSequence,
    records,
  });
  return batch.buffer;
}

function ourEncode(s: Spec): Buffer {
  return encodeBatch({
    compression: s.compression,
    baseOffset: s.baseOffset,
    baseTimestamp: s.baseTimestamp,
    maxTimestamp: s.maxTimestamp,
    partitionLeaderEpoch: s.partitionLeaderEpoch,
    isTransactional: s.transactional,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    baseSequence: s.baseSequence,
    records: s.records.map((r) => ({ ...r, headers: r.headers.map(([key, value]) => ({ key, value })) })),
  });
}

function expectOurs(b: RecordBatch, s: Spec): void {
  expect(b).toMatchObject({
    compression: s.compression,
    baseOffset: s.baseOffset,
    baseTimestamp: s.baseTimestamp,
    maxTimestamp: s.maxTimestamp,
    partitionLeaderEpoch: s.partitionLeaderEpoch,
    isTransactional: s.transactional,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    baseSequence: s.baseSequence,
    recordsCount: s.records.length,
  });
  s.records.forEach((r, i) => {
    const d = b.records[i];
    expect(d.key).toEqual(r.key);
    expect(d.value).toEqual(r.value);
    expect(d.offsetDelta).toBe(r.offsetDelta);
    expect(d.timestamp).toBe(s.baseTimestamp + r.timestampDelta);
    expect(d.headers.map((h) => [h.key, h.value])).toEqual(r.headers);
  });
}

function expectKafkajs(k: KDecodedBatch, s: Spec): void {
  expect(k.firstOffset).toBe(String(s.baseOffset));
  expect(k.firstTimestamp).toBe(String(s.baseTimestamp));
  expect(k.maxTimestamp).toBe(String(s.maxTimestamp));
  expect(k.partitionLeaderEpoch).toBe(s.partitionLeaderEpoch);
  expect(k.inTransaction).toBe(s.transactional);
  expect(k.producerId).toBe(String(s.producerId));
  expect(k.producerEpoch).toBe(s.producerEpoch);
  expect(k.firstSequence).toBe(s.baseSequence);
  expect(k.records).toHaveLength(s.records.length);
  s.records.forEach((r, i) => {
    const d = k.records[i];
    expect(d.offset).toBe(String(s.baseOffset + BigInt(r.offsetDelta)));
    expect(d.timestamp).toBe(String(s.baseTimestamp + r.timestampDelta));
    expect(d.key).toEqual(r.key);
    expect(d.value).toEqual(r.value);
    expect(d.headers).toEqual(Object.fromEntries(r.headers));
  });
}

const sample = (compression: CompressionName): Spec => ({
  compression,
  baseOffset: 1000n,
  baseTimestamp: 1_650_000_000_000,
  maxTimestamp: 1_650_000_000_009,
  partitionLeaderEpoch: 4,
  transactional: true,
  producerId: 123456789n,
  producerEpoch: 7,
  baseSequence: 11,
  records: [
    { key: Buffer.from('key-0'), value: Buffer.from('value-0'), headers: [['trace', Buffer.from('abc')], ['ü', Buffer.alloc(0)]], timestampDelta: 0, offsetDelta: 0 },
    { key: null, value: Buffer.from('x'.repeat(500)), headers: [], timestampDelta: 9, offsetDelta: 1 },
    { key: Buffer.from('k'), value: null, headers: [], timestampDelta: 3, offsetDelta: 2 },
  ],
});

describe('kafkajs 2.2.4 record batches (magic 2)', () => {
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(`${codec}: kafkajs encodes -> we decode; we encode -> kafkajs decodes`, async () => {
      const s = sample(codec);
      const theirs = await kafkajsEncode(s);
      const d = decodeRecords(theirs); // CRC verified by default
      expect(d.partial).toBeNull();
      expectOurs(d.entries[0] as RecordBatch, s);

      const ours = ourEncode(s);
      expectKafkajs(await kRecordBatchDecoder(new Decoder(ours)), s);
      if (codec === 'none' || codec === 'gzip') {
        // Same inputs, same bytes: CRC and (for gzip) zlib output identical.
        expect(ours.equals(theirs)).toBe(true);
        expect(readBatchHeader(ours).crc).toBe(readBatchHeader(theirs).crc);
      }
    });
  }

  const bytesArb = fc.option(fc.uint8Array({ maxLength: 24 }).map((u) => Buffer.from(u)), { nil: null });
  const specArb = fc.record({
    compression: fc.constantFrom<CompressionName>('none', 'gzip'),
    baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }),
    baseTimestamp: fc.integer({ min: 0, max: 2 ** 42 }),
    maxTimestamp: fc.integer({ min: 0, max: 2 ** 42 }),
    partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    transactional: fc.boolean(),
    producerId: fc.bigInt({ min: -1n, max: 2n ** 62n }),
    producerEpoch: fc.integer({ min: -1, max: 32767 }),
    baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    records: fc
      .array(
        fc.record({
          key: bytesArb,
          value: bytesArb,
          // kafkajs keys headers by name and cannot encode a null header value
          // (and orders integer-like names first, as JS objects do: hence the 'h' prefix)
          headers: fc.uniqueArray(fc.tuple(fc.string({ maxLength: 6 }).map((k) => `h${k}`), fc.uint8Array({ maxLength: 8 }).map((u) => Buffer.from(u))), {
            maxLength: 3,
            selector: ([k]) => k,
          }),
          timestampDelta: fc.integer({ min: 0, max: 2 ** 30 }),
        }),
        { maxLength: 6 },
      )
      .map((rs) => rs.map((r, i) => ({ ...r, offsetDelta: i }))),
  });

  it('property: byte-identical with kafkajs for none/gzip, and each side decodes the other', async () => {
    await fc.assert(
      fc.asyncProperty(specArb, async (s) => {
        const theirs = await kafkajsEncode(s);
        const ours = ourEncode(s);
        expect(ours.equals(theirs)).toBe(true);
        expectOurs(decodeRecords(theirs).entries[0] as RecordBatch, s);
        expectKafkajs(await kRecordBatchDecoder(new Decoder(ours)), s);
      }),
      { numRuns: 150 },
    );
  });

  it('fetch tail: kafkajs drops the partial last batch, we report it', async () => {
    const blob = Buffer.concat([ourEncode(sample('none')), ourEncode({ ...sample('gzip'), baseOffset: 1003n })]);
    const cut = blob.subarray(0, blob.length - 7);
    const frame = Buffer.alloc(4);
    frame.writeInt32BE(cut.length, 0);
    const theirs = (await kDecodeMessages(new Decoder(Buffer.concat([frame, cut])))) as KRecord[];
    const ours = decodeRecords(cut);
    expect(theirs).toHaveLength(3);
    expect(ours.entries).toHaveLength(1);
    expect(ours.partial).toMatchObject({ position: blob.length - ourEncode({ ...sample('gzip'), baseOffset: 1003n }).length });
  });
});

describe('kafkajs 2.2.4 legacy message sets (magic 0/1)', () => {
  const entries = [
    { key: Buffer.from('k0'), value: Buffer.from('v0'), timestamp: 1_600_000_000_000 },
    { key: null, value: Buffer.from('v1'), timestamp: 1_600_000_000_005 },
    { key: Buffer.from('k2'), value: null, timestamp: 1_600_000_000_002 },
  ];

  for (const magic of [0, 1] as const) {
    it(`magic ${magic}, uncompressed: byte-identical, both ways`, async () => {
      // kafkajs numbers the messages 0..n-1 here (its `compression !== None` test is true for undefined)
      const theirs = KMessageSet({ messageVersion: magic, entries }).buffer;
      const ours = encodeMessageSet({ magic, messages: entries });
      expect(ours.equals(theirs)).toBe(true);
      const decoded = decodeRecords(theirs).entries as LegacyEntry[];
      expect(decoded.map((m) => [m.offset, m.key, m.value, m.timestamp])).toEqual(
        entries.map((e, i) => [BigInt(i), e.key, e.value, magic === 1 ? e.timestamp : null]),
      );
      const withOffsets = encodeMessageSet({ magic, messages: entries.map((e) => ({ ...e, offset: -1n })) });
      const k = await kMessageSetDecoder(new Decoder(withOffsets), withOffsets.length);
      expect(k.map((m) => [m.offset, m.crc >>> 0, m.magicByte, m.key, m.value])).toEqual(
        (decodeRecords(withOffsets).entries as LegacyEntry[]).map((m) => ['-1', m.crc, magic, m.key, m.value]),
      );
    });

    it(`magic ${magic}, gzip wrapper: kafkajs produce-style set decodes; ours decodes in kafkajs`, async () => {
      // How kafkajs's Produce v2 builds a compressed set: inner set with offsets 0..n-1, gzip, one wrapper (offset 0).
      const inner = KMessageSet({ messageVersion: magic, compression: Types.GZIP, entries });
      const value = await Codecs[Types.GZIP]().compress(inner);
      const theirs = KMessageSet({ messageVersion: magic, entries: [{ compression: Types.GZIP, timestamp: 1_600_000_000_005, key: null, value }] }).buffer;
      const [w] = decodeRecords(theirs).entries as LegacyEntry[];
      expect(w.compression).toBe('gzip');
      // wrapper offset 0 - last inner offset 2 is a negative base, so (Kafka's rule) inner offsets stay as written
      expect(w.messages.map((m) => [m.offset, m.key, m.value])).toEqual(entries.map((e, i) => [BigInt(i), e.key, e.value]));

      const ours = encodeMessageSet({ magic, compression: 'gzip', baseOffset: 200n, messages: entries });
      const k = await kMessageSetDecoder(new Decoder(ours), ours.length);
      const mine = (decodeRecords(ours).entries as LegacyEntry[])[0].messages;
      expect(k.map((m) => [m.offset, m.key, m.value, m.timestamp ?? null])).toEqual(
        mine.map((m) => [String(m.offset), m.key, m.value, m.timestamp === null ? null : String(m.timestamp)]),
      );
      expect(mine.map((m) => m.offset)).toEqual([200n, 201n, 202n]);
    });
  }

  it('partial last message: kafkajs stops, we report it', async () => {
    const set = encodeMessageSet({ magic: 1, messages: entries });
    const cut = set.subarray(0, set.length - 3);
    const k = await kMessageSetDecoder(new Decoder(cut), cut.length);
    const ours = decodeRecords(cut);
    expect(k).toHaveLength(2);
    expect(ours.entries).toHaveLength(2);
    expect(ours.partial).not.toBeNull();
  });
});
