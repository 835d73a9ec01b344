import { gunzipSync, gzipSync } from 'node:zlib';
import { compress as zstdLib } from '@bokuweb/zstd-wasm';
import { compressFrameSync } from 'lz4-napi';
import { compressSync as snappyRaw } from 'snappy';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/codec/primitives/index.js';
import {
  allRecords,
  compress,
  crc32,
  decodeLegacyEntry,
  decodeRecords,
  encodeBatch,
  encodeMessage,
  encodeMessageSet,
  initCompression,
  readLegacyRecord,
  type LegacyEntry,
} from '../../../src/codec/records/index.js';
import { expectDecodeError, KAFKAJS_CODEC, kafkajsCrc32, kafkajsMessageSet } from './helpers.js';

beforeAll(async () => {
  await initCompression();
});

function entries(blob: Buffer): LegacyEntry[] {
  const d = decodeRecords(blob);
  expect(d.partial).toBeNull();
  return d.entries.map((e) => {
    if (e.magic === 2) throw new Error('expected legacy');
    return e;
  });
}

// Reference messages written at test time by kafkajs's own message encoders (CRC-32 by kafkajs),
// wrapped by hand where kafkajs has no codec. librdkafka's real message sets are checked in
// librdkafka.test.ts.
describe('legacy messages written by kafkajs', () => {
  it('empty v0 and v1 messages', () => {
    const v0 = kafkajsMessageSet(0, [{ key: null, value: null }]);
    const v1 = kafkajsMessageSet(1, [{ key: null, value: null, timestamp: 0 }]);
    const [m0] = entries(v0);
    expect(m0).toMatchObject({ magic: 0, crc: kafkajsCrc32(v0.subarray(16)), key: null, value: null, timestamp: null, compression: 'none' });
    const [m1] = entries(v1);
    expect(m1).toMatchObject({ magic: 1, crc: kafkajsCrc32(v1.subarray(16)), timestamp: 0, key: null, value: null });
    // and we write the same bytes
    expect(encodeMessage(0, 0n, 0, -1, null, null).equals(v0)).toBe(true);
    expect(encodeMessage(1, 0n, 0, 0, null, null).equals(v1)).toBe(true);
  });

  it('gzip wrapper with an empty value is corrupt (no inner messages), as in Kafka', () => {
    const wrapper = kafkajsMessageSet(0, [{ key: null, value: gzipSync(Buffer.alloc(0)), compression: KAFKAJS_CODEC.gzip }]);
    expectDecodeError(() => decodeRecords(wrapper), /no inner messages/);
  });

  // Two empty magic-0 messages, compressed into a wrapper the way librdkafka does not write them:
  // xerial-framed snappy (the Java client's framing), an LZ4 frame with a content checksum, and
  // zstd inside a magic-1 wrapper (Kafka itself only allows zstd with magic 2).
  const inner = () => kafkajsMessageSet(0, [{ key: Buffer.alloc(0), value: Buffer.alloc(0) }, { key: Buffer.alloc(0), value: Buffer.alloc(0) }]);
  const xerial = (raw: Buffer) => {
    const head = Buffer.from('82534e4150505900000000010000000100000000', 'hex'); // magic, version 1, compatible 1, block length
    head.writeInt32BE(raw.length, 16);
    return Buffer.concat([head, raw]);
  };
  it.each([
    ['xerial-framed snappy', 'snappy', 0, () => xerial(snappyRaw(inner()))],
    ['gzip', 'gzip', 0, () => gzipSync(inner())],
    ['LZ4 frame with content checksum', 'lz4', 1, () => compressFrameSync(inner(), { contentChecksum: true })],
    ['zstd', 'zstd', 1, () => Buffer.from(zstdLib(inner(), 3))],
  ] as const)('%s wrapper with two inner magic-0 messages', (_name, codec, magic, value) => {
    const set = kafkajsMessageSet(magic, [{ key: null, value: value(), timestamp: 1_600_000_000_000, compression: KAFKAJS_CODEC[codec] }], 5n);
    const [w] = entries(set);
    expect(w.compression).toBe(codec);
    expect(w.magic).toBe(magic);
    expect(w.messages).toHaveLength(2);
    // inner magic may differ from the wrapper's: Kafka's consumers accept it
    for (const m of w.messages) expect(m).toMatchObject({ magic: 0, compression: 'none', key: Buffer.alloc(0), value: Buffer.alloc(0) });
    // inner offsets 0 and 1: absolute for magic 0, relative to the wrapper's 5 (the last one) for magic 1
    expect(w.messages.map((m) => m.offset)).toEqual(magic === 0 ? [0n, 1n] : [4n, 5n]);
  });
});

describe('round trips', () => {
  const msgs = [
    { key: 'k0', value: 'v0', timestamp: 1000 },
    { key: null, value: 'v1', timestamp: 1002 },
    { key: 'k2', value: null, timestamp: 1001 },
    { value: Buffer.alloc(0) },
  ];

  for (const magic of [0, 1] as const) {
    for (const compression of ['none', 'gzip', 'snappy', 'lz4'] as const) {
      it(`magic ${magic}, ${compression}`, () => {
        const blob = encodeMessageSet({ magic, compression, baseOffset: 100n, messages: msgs });
        const es = entries(blob);
        expect(es).toHaveLength(compression === 'none' ? 4 : 1);
        const all = es.flatMap((e) => e.messages);
        expect(all.map((m) => m.offset)).toEqual([100n, 101n, 102n, 103n]);
        expect(all.map((m) => (m.key === null ? null : m.key.toString()))).toEqual(['k0', null, 'k2', null]);
        expect(all.map((m) => (m.value === null ? null : m.value.toString()))).toEqual(['v0', 'v1', null, '']);
        expect(all.map((m) => m.timestamp)).toEqual(magic === 1 ? [1000, 1002, 1001, -1] : [null, null, null, null]);
        if (compression !== 'none') {
          expect(es[0].offset).toBe(103n); // wrapper carries the last inner offset
          if (magic === 1) expect(es[0].timestamp).toBe(1002); // and the max timestamp
        }
      });
    }
  }

  it('magic 1 inner offsets are relative; absolute offsets come from the wrapper', () => {
    const blob = encodeMessageSet({ magic: 1, compression: 'gzip', baseOffset: 500n, messages: msgs });
    const e = decodeLegacyEntry(blob);
    expect(e.offset).toBe(503n);
    // the raw inner set really holds 0..3
    const inner = decodeRecords(gunzipSync(e.value!)).entries as LegacyEntry[];
    expect(inner.map((m) => m.offset)).toEqual([0n, 1n, 2n, 3n]);
  });

  it('magic 1 LogAppendTime wrapper stamps its timestamp on every inner message', () => {
    const blob = encodeMessageSet({ magic: 1, compression: 'snappy', timestampType: 1, wrapperTimestamp: 7777, messages: msgs });
    const [w] = entries(blob);
    expect(w.timestampType).toBe(1);
    expect(w.messages.map((m) => [m.timestamp, m.timestampType])).toEqual(msgs.map(() => [7777, 1]));
  });

  it('property: any messages, magic, codec', () => {
    const bytesArb = fc.option(fc.uint8Array({ maxLength: 30 }).map((u) => Buffer.from(u)), { nil: null });
    fc.assert(
      fc.property(
        fc.constantFrom(0 as const, 1 as const),
        fc.constantFrom('none' as const, 'gzip' as const, 'snappy' as const, 'lz4' as const),
        fc.bigInt({ min: 0n, max: 2n ** 62n }),
        fc.array(fc.record({ key: bytesArb, value: bytesArb, timestamp: fc.integer({ min: -1, max: 2 ** 50 }) }), { minLength: 1, maxLength: 6 }),
        (magic, compression, baseOffset, messages) => {
          const all = entries(encodeMessageSet({ magic, compression, baseOffset, messages })).flatMap((e) => e.messages);
          expect(all.map((m) => m.offset)).toEqual(messages.map((_, i) => baseOffset + BigInt(i)));
          expect(all.map((m) => m.key)).toEqual(messages.map((m) => m.key));
          expect(all.map((m) => m.value)).toEqual(messages.map((m) => m.value));
          expect(all.map((m) => m.timestamp)).toEqual(messages.map((m) => (magic === 1 ? m.timestamp : null)));
        },
      ),
    );
  });

  it('legacy and v2 entries mixed in one blob', () => {
    const blob = Buffer.concat([
      encodeMessageSet({ magic: 0, messages: [{ value: 'a' }] }),
      encodeMessageSet({ magic: 1, compression: 'gzip', baseOffset: 1n, messages: [{ value: 'b' }, { value: 'c' }] }),
      encodeBatch({ baseOffset: 3n, baseTimestamp: 0, records: [{ value: 'd' }] }),
    ]);
    const d = decodeRecords(blob);
    expect(d.entries.map((e) => e.magic)).toEqual([0, 1, 2]);
    expect([...allRecords(d)].map((r) => [r.offset, r.record.value!.toString()])).toEqual([
      [0n, 'a'],
      [1n, 'b'],
      [2n, 'c'],
      [3n, 'd'],
    ]);
  });
});


describe('Kafka validation rules', () => {
  it('nested compression is refused', () => {
    const innerWrapper = encodeMessageSet({ magic: 1, compression: 'gzip', messages: [{ value: 'x' }] });
    const outer = encodeMessage(1, 0n, 1, 0, null, compress('gzip', innerWrapper));
    expectDecodeError(() => decodeRecords(outer), /must not be compressed/);
  });

  it('inner magic may differ from the wrapper (Kafka consumers accept it; some clients write it)', () => {
    const inner = encodeMessageSet({ magic: 0, messages: [{ value: 'x' }, { value: 'y' }] });
    const outer = encodeMessage(1, 10n, 1 | 8, 99, null, compress('gzip', inner));
    const [w] = entries(outer);
    expect(w.messages.map((m) => [m.magic, m.offset, m.timestamp])).toEqual([
      [0, 9n, null],
      [0, 10n, null],
    ]);
  });

  it('a compressed wrapper with a null value, or a truncated inner set, is corrupt', () => {
    expectDecodeError(() => decodeRecords(encodeMessage(1, 0n, 1, 0, null, null)), /null value/);
    const inner = encodeMessageSet({ magic: 1, messages: [{ value: 'x' }, { value: 'y' }] });
    const outer = encodeMessage(1, 0n, 1, 0, null, compress('gzip', inner.subarray(0, inner.length - 3)));
    expectDecodeError(() => decodeRecords(outer), /truncated/);
  });

  it('CRC-32 is checked (and can be skipped)', () => {
    const blob = encodeMessageSet({ magic: 1, messages: [{ value: 'hello' }] });
    expect(blob.readUInt32BE(12)).toBe(crc32(blob, 16));
    blob[blob.length - 1] ^= 1;
    expectDecodeError(() => decodeRecords(blob), /CRC mismatch/);
    expect(decodeRecords(blob, { verifyCrc: false }).entries).toHaveLength(1);
  });

  it('key/value lengths that disagree with the message size are corrupt', () => {
    const blob = encodeMessageSet({ magic: 0, messages: [{ key: 'k', value: 'hello' }] });
    blob.writeInt32BE(10, blob.length - 9); // value length 5 -> 10
    expectDecodeError(() => decodeRecords(blob, { verifyCrc: false }), /needs 10 bytes/);
    blob.writeInt32BE(3, blob.length - 9); // value length 3: two bytes left over
    expectDecodeError(() => decodeRecords(blob, { verifyCrc: false }), /left after its value/);
    // Any negative length is a null value (Kafka's Utils.sizeDelimited: size < 0 is null, as the
    // codec reads every nullable length since 61a2ec9), so the value's 5 bytes are left over.
    blob.writeInt32BE(-2, blob.length - 9);
    expectDecodeError(() => decodeRecords(blob, { verifyCrc: false }), /5 bytes left after its value/);
  });

  it('zstd is refused for magic < 2 on encode', () => {
    expect(() => encodeMessageSet({ magic: 1, compression: 'zstd', messages: [{ value: 'x' }] })).toThrow(/magic 2/);
  });

  it('decompression bomb guard', () => {
    const blob = encodeMessageSet({ magic: 1, compression: 'gzip', messages: [{ value: Buffer.alloc(3_000_000) }] });
    expectDecodeError(() => decodeRecords(blob, { maxDecompressedSize: 1_000_000 }), /limit/);
  });
});

describe('truncation', () => {
  it('every prefix of a set: whole messages decode, the cut one is reported as partial', () => {
    const parts = [
      encodeMessageSet({ magic: 0, baseOffset: 0n, messages: [{ key: 'a', value: 'aaaa' }] }),
      encodeMessageSet({ magic: 1, compression: 'gzip', baseOffset: 1n, messages: [{ value: 'b' }, { value: 'c' }] }),
      encodeMessageSet({ magic: 1, baseOffset: 3n, messages: [{ value: 'dddddd', timestamp: 5 }] }),
    ];
    const blob = Buffer.concat(parts);
    const ends = [parts[0].length, parts[0].length + parts[1].length, blob.length];
    for (let n = 0; n <= blob.length; n++) {
      const d = decodeRecords(blob.subarray(0, n));
      const whole = ends.filter((e) => e <= n).length;
      expect(d.entries).toHaveLength(whole);
      expect(d.partial === null).toBe(n === 0 || ends.includes(n));
    }
  });

  it('random corruption only ever raises DecodeError', () => {
    const base = Buffer.concat([
      encodeMessageSet({ magic: 0, compression: 'lz4', messages: [{ key: 'a', value: 'aaaa' }, { value: 'b' }] }),
      encodeMessageSet({ magic: 1, compression: 'snappy', messages: [{ value: 'b' }, { value: 'c' }] }),
      encodeMessageSet({ magic: 1, messages: [{ value: 'dddddd', timestamp: 5 }] }),
    ]);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }), (flips) => {
        const b = Buffer.from(base);
        for (const [at, x] of flips) b[at % b.length] ^= x;
        try {
          decodeRecords(b, { verifyCrc: false });
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('readLegacyRecord (the broker-side reader, as Kafka\'s LegacyRecord)', () => {
  it('reads the fields at their positions; the CRC is reported, not enforced', () => {
    const m = encodeMessage(1, 42n, 8, 1234, Buffer.from('k'), Buffer.from('v'));
    expect(readLegacyRecord(m)).toMatchObject({
      offset: 42n,
      magic: 1,
      attributes: 8,
      codec: 0,
      crcValid: true,
      timestamp: 1234n,
      timestampType: 1,
      key: Buffer.from('k'),
      value: Buffer.from('v'),
      malformed: null,
    });
    const bad = Buffer.from(m);
    bad[bad.length - 1] ^= 1;
    expect(readLegacyRecord(bad)).toMatchObject({ crcValid: false, storedCrc: m.readUInt32BE(12) });
    expect(readLegacyRecord(encodeMessage(0, 0n, 2, -1, null, null))).toMatchObject({ magic: 0, codec: 2, timestamp: -1n, timestampType: 0, key: null, value: null });
  });

  it('any negative length is null, bytes after the value are ignored, a length past the end is malformed', () => {
    const m = encodeMessage(0, 0n, 0, -1, null, Buffer.from('v'));
    const neg = Buffer.from(m);
    neg.writeInt32BE(-7, 18);
    expect(readLegacyRecord(neg)).toMatchObject({ key: null, value: Buffer.from('v'), malformed: null });
    const longer = Buffer.concat([m, Buffer.from([1, 2, 3])]);
    longer.writeInt32BE(m.length - 12 + 3, 8);
    expect(readLegacyRecord(longer)).toMatchObject({ value: Buffer.from('v'), malformed: null });
    const past = Buffer.from(m);
    past.writeInt32BE(9, 22);
    expect(readLegacyRecord(past).malformed).toMatch(/value of 9 bytes runs past the end/);
    // decodeLegacyEntry, the strict reader, refuses what the broker reader tolerates
    expect(() => decodeLegacyEntry(longer, { verifyCrc: false })).toThrow(DecodeError);
  });
});
