// Real Produce requests from librdkafka (an independent C implementation of the Kafka protocol),
// captured on this machine at test time: test/support/librdkafka-capture.ts runs a tiny Kafka
// server and drives librdkafka through python3-confluent-kafka with known keys, values, headers
// and timestamps, in every codec and message format librdkafka writes. Our decoder must return
// exactly what librdkafka was asked to send, with every CRC verified; where the format is
// deterministic our encoder must reproduce librdkafka's bytes; every truncation must be a partial
// tail or a DecodeError. Skipped, with the reason, when librdkafka is not installed.
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/codec/primitives/index.js';
import {
  checkProduceRecords,
  computeBatchCrc,
  decodeBatch,
  decodeLegacyEntry,
  decodeRecords,
  decompress,
  encodeBatch,
  encodeMessageSet,
  initCompression,
  isXerialFramed,
  readBatchHeader,
  verifyBatchCrc,
  type CompressionName,
  type KafkaRecord,
  type LegacyEntry,
  type RecordBatch,
} from '../../../src/codec/records/index.js';
import { xxh32Short } from '../../../src/codec/records/lz4.js';
import { captureLibrdkafka, probeLibrdkafka, type Capture, type CaptureMessage, type CaptureRun } from '../../support/librdkafka-capture.js';
import { expectDecodeError, kafkajsCrc32, kafkajsCrc32c, lz4FrameDecode, require, snappyRawDecode } from './helpers.js';

const PROBE = probeLibrdkafka();
if (!PROBE.ok) console.warn(`test/codec/records/librdkafka.test.ts: skipping the librdkafka captures: ${PROBE.reason}`);
const TITLE = PROBE.ok ? `librdkafka ${PROBE.version} Produce requests, captured at test time` : `librdkafka captures (SKIPPED: ${PROBE.reason})`;

// ---- what librdkafka is asked to send ------------------------------------------------------------

const T = 1_700_000_000_000;
const b = (s: string) => Buffer.from(s);
const MESSAGES: CaptureMessage[] = [
  { key: b('key-0'), value: b('value-0 '.repeat(30)), headers: [['trace', b('abc')], ['null-value', null], ['ü', Buffer.alloc(0)]], timestamp: T },
  { key: null, value: b('v1 '.repeat(40)), headers: [['dup', b('1')], ['dup', b('2')]], timestamp: T + 5 },
  { key: b('k2'), value: null, timestamp: T - 3 }, // before the batch's first timestamp: a negative delta
  { key: Buffer.alloc(0), value: Buffer.alloc(0), timestamp: T + 1 },
  { key: Buffer.from([0, 255, 1, 128]), value: Buffer.from(Array.from({ length: 256 }, (_, i) => i)), timestamp: T + 2 ** 33 }, // delta past int32
];
const MAX_TS = T + 2 ** 33;
/** Older formats have no headers (librdkafka drops them), so none are asked for. */
const LEGACY_MESSAGES: CaptureMessage[] = MESSAGES.map((m) => ({ key: m.key, value: m.value, timestamp: m.timestamp }));
/** ~220 KB: several 64 KiB LZ4 blocks, long snappy copies. */
const BIG: CaptureMessage = {
  key: b('big'),
  value: b(Array.from({ length: 6000 }, (_, i) => `record line ${i}: the quick brown fox\n`).join('')),
  timestamp: T,
};

const V2_CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const COMPRESSED = ['gzip', 'snappy', 'lz4', 'zstd'] as const;
const LEGACY_CODECS = ['none', 'gzip', 'snappy', 'lz4'] as const;
const MAGICS = [0, 1] as const;
const LINGER = { 'linger.ms': '1000' }; // every message of a run waits for flush(): one batch

const RUNS: CaptureRun[] = [
  ...V2_CODECS.map((c) => ({ name: `v2-${c}`, config: { ...LINGER, 'compression.type': c }, messages: MESSAGES, expectRequests: 1 })),
  // Advertising Produce up to v1 makes librdkafka write magic 0, up to v2 magic 1.
  ...MAGICS.flatMap((magic) =>
    LEGACY_CODECS.map((c) => ({
      name: `m${magic}-${c}`,
      produceMaxVersion: magic + 1,
      config: { ...LINGER, 'compression.type': c },
      messages: LEGACY_MESSAGES,
      expectRequests: 1,
    })),
  ),
  // No ApiVersions at all: librdkafka assumes the broker version it is told (for 0.10.0 and later
  // it asks anyway, so only magic 0 can be had this way).
  {
    name: 'fallback-0822-lz4',
    config: { ...LINGER, 'compression.type': 'lz4', 'api.version.request': 'false', 'broker.version.fallback': '0.8.2.2' },
    messages: LEGACY_MESSAGES,
    expectRequests: 1,
  },
  {
    name: 'fallback-090-gzip',
    config: { ...LINGER, 'compression.type': 'gzip', 'api.version.request': 'false', 'broker.version.fallback': '0.9.0' },
    messages: LEGACY_MESSAGES,
    expectRequests: 1,
  },
  // Several batches: idempotent (producer id, epoch, sequences), and gzip where the later batches
  // do not shrink, so librdkafka sends them uncompressed.
  { name: 'v2-idempotent', config: { ...LINGER, 'enable.idempotence': 'true', 'batch.num.messages': '2' }, messages: MESSAGES, expectRequests: 3 },
  { name: 'v2-split-gzip', config: { ...LINGER, 'compression.type': 'gzip', 'batch.num.messages': '2' }, messages: MESSAGES, expectRequests: 3 },
  ...COMPRESSED.map((c) => ({ name: `big-${c}`, config: { ...LINGER, 'compression.type': c }, messages: [BIG], expectRequests: 1 })),
];

// ---- checks --------------------------------------------------------------------------------------

function only(blob: Buffer): RecordBatch {
  const d = decodeRecords(blob); // CRC verified
  expect(d.partial).toBeNull();
  expect(d.entries).toHaveLength(1);
  const e = d.entries[0];
  if (e.magic !== 2) throw new Error('expected a v2 batch');
  return e;
}

function legacyEntries(blob: Buffer): LegacyEntry[] {
  const d = decodeRecords(blob);
  expect(d.partial).toBeNull();
  return d.entries.map((e) => {
    if (e.magic === 2) throw new Error('expected legacy messages');
    return e;
  });
}

const hex = (v: Buffer | null) => (v === null ? null : v.toString('hex'));

/** The records are exactly the messages librdkafka was given, in order (bytes compared as hex: fast). */
function expectRecords(records: KafkaRecord[], asked: CaptureMessage[]): void {
  expect(records.map((r) => [hex(r.key), hex(r.value), r.timestamp, r.attributes, r.headers.map((h) => [h.key, hex(h.value)])])).toEqual(
    asked.map((m) => [hex(m.key), hex(m.value), m.timestamp, 0, (m.headers ?? []).map(([k, v]) => [k, hex(v)])]),
  );
}

/** What our encoder writes for the asked-for messages, uncompressed, with librdkafka's header defaults. */
function ourBatch(asked: CaptureMessage[], over: { producerId?: bigint; producerEpoch?: number; baseSequence?: number } = {}): Buffer {
  return encodeBatch({
    partitionLeaderEpoch: 0,
    producerId: -1n,
    producerEpoch: -1,
    baseSequence: -1,
    ...over,
    baseTimestamp: asked[0].timestamp,
    records: asked.map((m) => ({ key: m.key, value: m.value, timestamp: m.timestamp, headers: (m.headers ?? []).map(([key, value]) => ({ key, value })) })),
  });
}

/** Where each top-level entry of a blob ends, from the log overhead alone (offset, int32 size). */
function entryEnds(blob: Buffer): number[] {
  const ends: number[] = [];
  for (let pos = 0; pos < blob.length; pos += 12 + blob.readInt32BE(pos + 8)) ends.push(pos + 12 + blob.readInt32BE(pos + 8));
  expect(ends[ends.length - 1]).toBe(blob.length);
  return ends;
}

/**
 * Runs `fn` and returns the DecodeError it throws (undefined if none; anything else is rethrown).
 * Stack traces are skipped: the loops below make thousands of these errors.
 */
function decodeErrorOf(fn: () => unknown): DecodeError | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    fn();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  } finally {
    Error.stackTraceLimit = limit;
  }
  return undefined;
}

const RECORDS_START = 61; // v2 batch header size: records (or the compressed payload) start here

describe.skipIf(!PROBE.ok)(TITLE, () => {
  let caps: Map<string, Capture>;
  const cap = (name: string): Capture => {
    const c = caps.get(name);
    if (c === undefined) throw new Error(`no capture ${name}`);
    return c;
  };

  beforeAll(async () => {
    await initCompression();
    caps = await captureLibrdkafka(RUNS);
  }, 60_000);

  describe('v2 record batches (Produce v7)', () => {
    it.each(V2_CODECS)('%s: one batch holding exactly what librdkafka was asked to send; CRC verifies', (codec) => {
      const c = cap(`v2-${codec}`);
      expect(c.requests.map((r) => [r.apiVersion, r.acks])).toEqual([[7, -1]]);
      const blob = c.records;
      const batch = only(blob);
      expect(batch).toMatchObject({
        baseOffset: 0n,
        batchLength: blob.length - 12,
        partitionLeaderEpoch: 0, // librdkafka leaves it 0; the broker stamps it
        magic: 2,
        compression: codec,
        timestampType: 0,
        isTransactional: false,
        isControl: false,
        hasDeleteHorizon: false,
        lastOffsetDelta: MESSAGES.length - 1,
        baseTimestamp: T,
        maxTimestamp: MAX_TS,
        producerId: -1n,
        producerEpoch: -1,
        baseSequence: -1,
        recordsCount: MESSAGES.length,
      });
      expect(batch.records.map((r) => [r.offsetDelta, r.timestampDelta])).toEqual(MESSAGES.map((m, i) => [i, m.timestamp - T]));
      expectRecords(batch.records, MESSAGES);

      // The header reader agrees with the full decoder, and three CRC-32C implementations agree.
      const { records: _r, compression: _c, ...head } = batch;
      expect(readBatchHeader(blob)).toEqual(head);
      expect(verifyBatchCrc(blob)).toBe(true);
      expect(computeBatchCrc(blob)).toBe(batch.crc);
      expect(kafkajsCrc32c(blob.subarray(21))).toBe(batch.crc);
      expect(checkProduceRecords(blob)).toMatchObject({ ok: true });
    });

    it('none: our encoder reproduces librdkafka\'s bytes exactly, CRC included (from the decoded batch, and from the messages alone)', () => {
      const blob = cap('v2-none').records;
      expect(encodeBatch(only(blob)).equals(blob)).toBe(true);
      expect(ourBatch(MESSAGES).equals(blob)).toBe(true);
    });

    it.each(COMPRESSED)('%s: the decompressed records are byte-identical to our uncompressed encoding', (codec) => {
      const blob = cap(`v2-${codec}`).records;
      const batch = only(blob);
      const payload = blob.subarray(RECORDS_START);
      const plain = ourBatch(MESSAGES).subarray(RECORDS_START);
      expect(decompress(codec, payload).equals(plain)).toBe(true);
      // Our compressed re-encoding decodes to the same records (compressor output itself differs).
      const again = only(encodeBatch(batch));
      expect(again.records).toEqual(batch.records);
      expect({ ...again, crc: 0, batchLength: 0 }).toEqual({ ...batch, crc: 0, batchLength: 0 });
    });

    it('the codecs\' framing as librdkafka writes it, checked by independent decoders', () => {
      const payload = (codec: CompressionName) => cap(`v2-${codec}`).records.subarray(RECORDS_START);
      const plain = ourBatch(MESSAGES).subarray(RECORDS_START);
      // gzip: a plain gzip member
      expect(gunzipSync(payload('gzip')).equals(plain)).toBe(true);
      // snappy: raw snappy, NOT the xerial framing the Java client writes
      expect(isXerialFramed(payload('snappy'))).toBe(false);
      expect(snappyRawDecode(payload('snappy')).equals(plain)).toBe(true);
      // lz4: an LZ4 frame, independent blocks, no checksums, 64 KiB blocks, proper header checksum
      const lz4 = payload('lz4');
      const f = lz4FrameDecode(lz4);
      expect(f.data.equals(plain)).toBe(true);
      expect([f.flg, f.bd]).toEqual([0x60, 0x40]);
      expect(f.hc).toBe((xxh32Short(lz4, 4, 6) >>> 8) & 0xff);
      // zstd: a zstd frame
      expect(payload('zstd').readUInt32LE(0)).toBe(0xfd2fb528);
    });

    it('idempotent producer: id and epoch from InitProducerId, a sequence per batch; bytes reproduced', () => {
      const c = cap('v2-idempotent');
      expect(c.requests).toHaveLength(3);
      const batches = c.requests.map((r) => only(r.records));
      expect(batches.map((x) => [x.producerId, x.producerEpoch, x.baseSequence, x.recordsCount, x.lastOffsetDelta])).toEqual([
        [4242n, 7, 0, 2, 1],
        [4242n, 7, 2, 2, 1],
        [4242n, 7, 4, 1, 0],
      ]);
      expectRecords(
        batches.flatMap((x) => x.records),
        MESSAGES,
      );
      c.requests.forEach((r, i) => {
        expect(encodeBatch(batches[i]).equals(r.records)).toBe(true);
        const asked = MESSAGES.slice(2 * i, 2 * i + 2);
        expect(ourBatch(asked, { producerId: 4242n, producerEpoch: 7, baseSequence: 2 * i }).equals(r.records)).toBe(true);
      });
    });

    it('several batches, mixed codecs: gzip where it pays, uncompressed where it does not', () => {
      const c = cap('v2-split-gzip');
      const d = decodeRecords(c.records);
      expect(d.partial).toBeNull();
      const batches = d.entries as RecordBatch[];
      expect(batches.map((x) => [x.recordsCount, x.compression])).toEqual([
        [2, 'gzip'],
        [2, 'none'],
        [1, 'none'],
      ]);
      expectRecords(
        batches.flatMap((x) => x.records),
        MESSAGES,
      );
    });

    it.each(COMPRESSED)('%s, a ~220 KB record: decodes; the decompression limit is enforced', (codec) => {
      const blob = cap(`big-${codec}`).records;
      const batch = only(blob);
      expect(batch.compression).toBe(codec);
      expectRecords(batch.records, [BIG]);
      const payload = blob.subarray(RECORDS_START);
      const plain = ourBatch([BIG]).subarray(RECORDS_START);
      if (codec === 'lz4') {
        const f = lz4FrameDecode(payload);
        expect(f.blocks).toBeGreaterThan(1);
        expect(f.data.equals(plain)).toBe(true);
      }
      if (codec === 'snappy') expect(snappyRawDecode(payload).equals(plain)).toBe(true);
      expectDecodeError(() => decodeBatch(blob, { maxDecompressedSize: 100_000 }), /limit/);
    });

    it('kafkajs decodes librdkafka\'s uncompressed and gzip batches to the same records we do', async () => {
      const Decoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => unknown;
      const decodeKjs = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
        d: unknown,
      ) => Promise<{ records: { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null }[] }>;
      for (const codec of ['none', 'gzip'] as const) {
        const k = await decodeKjs(new Decoder(cap(`v2-${codec}`).records));
        expect(k.records.map((r) => [r.offset, r.timestamp, r.key, r.value])).toEqual(
          MESSAGES.map((m, i) => [String(i), String(m.timestamp), m.key, m.value]),
        );
      }
    });
  });

  describe('legacy message sets', () => {
    const cases = MAGICS.flatMap((magic) => LEGACY_CODECS.map((codec) => [magic, codec] as const));

    it.each(cases)('magic %i, %s: holds exactly what librdkafka was asked to send; CRC-32s verify', (magic, codec) => {
      const c = cap(`m${magic}-${codec}`);
      expect(c.requests.map((r) => [r.apiVersion, r.acks])).toEqual([[magic + 1, -1]]);
      const blob = c.records;
      const es = legacyEntries(blob);
      expect(es).toHaveLength(codec === 'none' ? LEGACY_MESSAGES.length : 1);
      // every message's stored CRC-32 is kafkajs's CRC-32 of its bytes from the magic on
      const ends = entryEnds(blob);
      es.forEach((e, i) => expect(e.crc).toBe(kafkajsCrc32(blob.subarray((i === 0 ? 0 : ends[i - 1]) + 16, ends[i]))));
      const all = es.flatMap((e) => e.messages);
      expect(all.map((m) => [m.offset, m.magic, m.compression, m.timestampType, m.key, m.value, m.timestamp])).toEqual(
        LEGACY_MESSAGES.map((m, i) => [BigInt(i), magic, 'none', 0, m.key, m.value, magic === 1 ? m.timestamp : null]),
      );
      expect(checkProduceRecords(blob)).toMatchObject({ ok: false, problem: 'UNSUPPORTED_MAGIC', magic });
    });

    it.each(MAGICS)('magic %i, none: our encoder reproduces librdkafka\'s bytes exactly', (magic) => {
      const blob = cap(`m${magic}-none`).records;
      expect(encodeMessageSet({ magic, messages: LEGACY_MESSAGES }).equals(blob)).toBe(true);
    });

    it.each(cases.filter(([, codec]) => codec !== 'none'))(
      'magic %i, %s wrapper: the decompressed inner set is byte-identical to ours',
      (magic, codec) => {
        const [w] = legacyEntries(cap(`m${magic}-${codec}`).records);
        // librdkafka writes the wrapper at offset 0 (the broker assigns the real ones) and, for
        // magic 1, the FIRST inner message's timestamp, where Kafka's producer writes the largest.
        // Inner offsets are 0..n-1, so for magic 1 the wrapper gives a negative base and (Kafka's
        // rule) the inner offsets are kept as written.
        expect(w).toMatchObject({ offset: 0n, magic, compression: codec, key: null, timestamp: magic === 1 ? T : null, timestampType: 0 });
        const inner = encodeMessageSet({ magic, messages: LEGACY_MESSAGES });
        const value = w.value!;
        expect(decompress(codec, value, { magic }).equals(inner)).toBe(true);
        if (codec === 'gzip') expect(gunzipSync(value).equals(inner)).toBe(true);
        if (codec === 'snappy') {
          expect(isXerialFramed(value)).toBe(false); // raw snappy here too
          expect(snappyRawDecode(value).equals(inner)).toBe(true);
        }
        if (codec === 'lz4') {
          const f = lz4FrameDecode(value);
          expect(f.data.equals(inner)).toBe(true);
          if (magic === 1) {
            expect(f.hc).toBe((xxh32Short(value, 4, 6) >>> 8) & 0xff);
          } else {
            // Kafka 0.8's LZ4 bug, which librdkafka reproduces for magic 0: the header checksum
            // covers the frame magic too. Read as magic 1 (a proper frame), it is refused.
            expect(f.hc).toBe((xxh32Short(value, 0, 6) >>> 8) & 0xff);
            expect(f.hc).not.toBe((xxh32Short(value, 4, 6) >>> 8) & 0xff);
            expectDecodeError(() => decompress('lz4', value, { magic: 1 }));
          }
        }
      },
    );

    it('without ApiVersions (api.version.request=false): fallback 0.8.2.2 sends Produce v0, 0.9.0 Produce v1, both magic 0', () => {
      for (const [name, version, codec] of [
        ['fallback-0822-lz4', 0, 'lz4'],
        ['fallback-090-gzip', 1, 'gzip'],
      ] as const) {
        const c = cap(name);
        expect(c.requests.map((r) => r.apiVersion)).toEqual([version]);
        const [w, ...rest] = legacyEntries(c.records);
        expect(rest).toEqual([]);
        expect(w).toMatchObject({ magic: 0, compression: codec, offset: 0n });
        expect(w.messages.map((m) => [m.offset, m.magic, m.key, m.value, m.timestamp])).toEqual(
          LEGACY_MESSAGES.map((m, i) => [BigInt(i), 0, m.key, m.value, null]),
        );
        expect(decompress(codec, w.value!, { magic: 0 }).equals(encodeMessageSet({ magic: 0, messages: LEGACY_MESSAGES }))).toBe(true);
      }
    });
  });

  // These loops make tens of thousands of checks: mismatches are collected and asserted once.
  describe('truncation and corruption', () => {
    const small = () => RUNS.filter((r) => !r.name.startsWith('big-')).map((r) => r.name);

    it('every prefix of every capture: whole entries decode, the cut one is a partial tail', () => {
      const wrong: unknown[] = [];
      for (const name of small()) {
        const blob = cap(name).records;
        const ends = entryEnds(blob);
        for (let n = 0; n <= blob.length; n++) {
          const d = decodeRecords(blob.subarray(0, n));
          const whole = ends.filter((e) => e <= n).length;
          const start = whole === 0 ? 0 : ends[whole - 1];
          const partial = n === start ? null : { position: start, available: n - start, size: n - start >= 12 ? ends[whole] - start : null };
          const ok =
            d.entries.length === whole &&
            (partial === null
              ? d.partial === null
              : d.partial !== null && d.partial.position === partial.position && d.partial.available === partial.available && d.partial.size === partial.size);
          if (!ok) wrong.push({ name, n, entries: d.entries.length, partial: d.partial, expected: { entries: whole, partial } });
        }
      }
      expect(wrong).toEqual([]);
    });

    it('every prefix of every kind of entry: allowPartial=false, decodeBatch and decodeLegacyEntry throw DecodeError', () => {
      const wrong: unknown[] = [];
      for (const name of small()) {
        const blob = cap(name).records;
        const [end] = entryEnds(blob); // the first entry: the others are of the same kind
        const decodeEntry = blob[16] === 2 ? decodeBatch : decodeLegacyEntry;
        for (let n = 1; n < end; n++) {
          const cut = blob.subarray(0, n);
          if (!/truncated/.test(decodeErrorOf(() => decodeRecords(cut, { allowPartial: false }))?.message ?? '')) wrong.push({ name, n, what: 'allowPartial' });
          if (decodeErrorOf(() => decodeEntry(cut)) === undefined) wrong.push({ name, n, what: decodeEntry.name });
        }
      }
      expect(wrong).toEqual([]);
    });

    it('every one-byte change inside the CRC-covered range is caught; without the CRC check, nothing but DecodeError is thrown', () => {
      const wrong: unknown[] = [];
      for (const name of small()) {
        const blob = cap(name).records;
        const [end] = entryEnds(blob);
        // v2: CRC-32C from the attributes (byte 21) on; legacy: CRC-32 from the magic (byte 16) on
        for (let at = blob[16] === 2 ? 21 : 16; at < end; at++) {
          const bad = Buffer.from(blob.subarray(0, end));
          bad[at] ^= 0x41;
          if (decodeErrorOf(() => decodeRecords(bad)) === undefined) wrong.push({ name, at });
          decodeErrorOf(() => decodeRecords(bad, { verifyCrc: false })); // rethrows anything but a DecodeError
        }
      }
      expect(wrong).toEqual([]);
    });
  });
});
