import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/codec/primitives/index.js';
import {
  ControlRecordType,
  decodeBatch,
  decodeRecords,
  encodeBatch,
  encodeEndTxnMarkerBatch,
  initCompression,
  parseEndTxnMarker,
  recordOffset,
  type CompressionName,
  type RecordBatch,
  type RecordBatchInput,
} from '../../../src/codec/records/index.js';
import { expectDecodeError, kafkajsBatch, kafkajsCrc32c, withControlBit, type KafkajsBatchSpec } from './helpers.js';

beforeAll(async () => {
  await initCompression();
});

const CODECS: CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

function only(blob: Buffer): RecordBatch {
  const d = decodeRecords(blob);
  expect(d.partial).toBeNull();
  expect(d.entries).toHaveLength(1);
  const b = d.entries[0];
  if (b.magic !== 2) throw new Error('expected a v2 batch');
  return b;
}

// Batches with no data records, which no producer sends (librdkafka's captures are in
// librdkafka.test.ts): written at test time by kafkajs's own RecordBatch encoder, the control one
// by setting the control bit on a kafkajs batch and recomputing the CRC with kafkajs's CRC-32C.
const EMPTY_SPEC: KafkajsBatchSpec = {
  baseOffset: 0n,
  partitionLeaderEpoch: 0,
  baseTimestamp: 0,
  maxTimestamp: 0,
  transactional: false,
  producerId: 0n,
  producerEpoch: 0,
  baseSequence: 0,
  records: [],
};
const MARKER_SPEC = { producerId: 31337n, producerEpoch: 4, coordinatorEpoch: 9, timestamp: 1_650_000_000_123, baseOffset: 77n, partitionLeaderEpoch: 3 };
const independent: { empty?: Buffer; emptyTxn?: Buffer; control?: Buffer; marker?: Buffer } = {};

beforeAll(async () => {
  independent.empty = await kafkajsBatch(EMPTY_SPEC);
  independent.emptyTxn = await kafkajsBatch({ ...EMPTY_SPEC, baseOffset: 5n, partitionLeaderEpoch: 2, baseTimestamp: 1_479_847_795_000, maxTimestamp: -1, transactional: true, producerId: 1000n, producerEpoch: 1, baseSequence: -1 });
  independent.control = withControlBit(independent.empty);
  // A COMMIT marker: key = version 0, type 1; value = version 0, coordinator epoch (int16 + int32).
  const key = Buffer.from([0, 0, 0, 1]);
  const value = Buffer.alloc(6);
  value.writeInt32BE(MARKER_SPEC.coordinatorEpoch, 2);
  independent.marker = withControlBit(
    await kafkajsBatch({
      baseOffset: MARKER_SPEC.baseOffset,
      partitionLeaderEpoch: MARKER_SPEC.partitionLeaderEpoch,
      baseTimestamp: MARKER_SPEC.timestamp,
      maxTimestamp: MARKER_SPEC.timestamp,
      transactional: true,
      producerId: MARKER_SPEC.producerId,
      producerEpoch: MARKER_SPEC.producerEpoch,
      baseSequence: -1,
      records: [{ key, value, timestampDelta: 0 }],
    }),
  );
});

describe('batches without data records, written by kafkajs', () => {
  it('empty batches decode with no records, the CRC kafkajs wrote, and re-encode to the same bytes', () => {
    const blob = independent.empty!;
    expect(blob.length).toBe(61);
    const e = only(blob);
    expect(e).toMatchObject({ records: [], recordsCount: 0, crc: kafkajsCrc32c(blob.subarray(21)), compression: 'none', isControl: false });
    expect(encodeBatch({ ...e, records: [] }).equals(blob)).toBe(true);
    const t = only(independent.emptyTxn!);
    expect(t).toMatchObject({ baseOffset: 5n, partitionLeaderEpoch: 2, isTransactional: true, baseTimestamp: 1_479_847_795_000, maxTimestamp: -1, producerId: 1000n, baseSequence: -1 });
    expect(encodeBatch({ ...t, records: [] }).equals(independent.emptyTxn!)).toBe(true);
  });

  it('an empty control batch', () => {
    const c = only(independent.control!);
    expect(c.isControl).toBe(true);
    expect(c.attributes).toBe(0x20);
    expect(c.crc).not.toBe(only(independent.empty!).crc);
    expect(encodeBatch({ ...c, records: [] }).equals(independent.control!)).toBe(true);
  });

  it('a COMMIT transaction marker: decodes as one, and encodeEndTxnMarkerBatch writes the same bytes', () => {
    const b = only(independent.marker!);
    expect(b).toMatchObject({ isControl: true, isTransactional: true, producerId: 31337n, producerEpoch: 4, baseSequence: -1, baseOffset: 77n });
    expect(b.records).toHaveLength(1);
    expect(b.records[0].control).toEqual({ version: 0, type: ControlRecordType.COMMIT });
    expect(parseEndTxnMarker(b.records[0])).toEqual({ commit: true, version: 0, coordinatorEpoch: 9 });
    expect(encodeEndTxnMarkerBatch({ commit: true, ...MARKER_SPEC }).equals(independent.marker!)).toBe(true);
  });
});

describe('round trips', () => {
  const input = (compression: CompressionName): RecordBatchInput => ({
    compression,
    baseOffset: 1234567890123n,
    partitionLeaderEpoch: 7,
    baseTimestamp: 1_700_000_000_000,
    producerId: 9_007_199_254_740_993n, // beyond 2^53: must stay a bigint
    producerEpoch: 3,
    baseSequence: 42,
    isTransactional: true,
    records: [
      { key: 'k1', value: 'v1', headers: [{ key: 'h', value: 'x' }, { key: 'h', value: null }, { key: 'ü', value: Buffer.alloc(0) }] },
      { key: null, value: null, timestamp: 1_700_000_000_005 },
      { key: Buffer.alloc(0), value: Buffer.alloc(300, 1), timestampDelta: -20, offsetDelta: 5 },
    ],
  });

  it.each(CODECS)('%s: every field survives', (codec) => {
    const b = only(encodeBatch(input(codec)));
    expect(b).toMatchObject({
      compression: codec,
      baseOffset: 1234567890123n,
      partitionLeaderEpoch: 7,
      magic: 2,
      timestampType: 0,
      isTransactional: true,
      isControl: false,
      hasDeleteHorizon: false,
      lastOffsetDelta: 5,
      baseTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_005,
      producerId: 9_007_199_254_740_993n,
      producerEpoch: 3,
      baseSequence: 42,
      recordsCount: 3,
    });
    const [r0, r1, r2] = b.records;
    expect(r0.key!.toString()).toBe('k1');
    expect(r0.headers.map((h) => [h.key, h.value === null ? null : h.value.toString()])).toEqual([
      ['h', 'x'],
      ['h', null],
      ['ü', ''],
    ]);
    expect(r1.key).toBeNull();
    expect(r1.value).toBeNull();
    expect(r1.timestamp).toBe(1_700_000_000_005);
    expect(r1.offsetDelta).toBe(1);
    expect(r2.key).toEqual(Buffer.alloc(0));
    expect(r2.timestampDelta).toBe(-20);
    expect(r2.timestamp).toBe(1_699_999_999_980);
    expect(recordOffset(b, r2)).toBe(1234567890128n);
  });

  it('uncompressed values are views of the input, not copies', () => {
    const blob = encodeBatch({ baseTimestamp: 0, records: [{ value: 'abc' }] });
    const v = only(blob).records[0].value!;
    expect(v.buffer).toBe(blob.buffer);
  });

  it('LogAppendTime batches report maxTimestamp for every record', () => {
    const b = only(encodeBatch({ timestampType: 1, baseTimestamp: 100, maxTimestamp: 999, records: [{ timestampDelta: 1 }, { timestampDelta: 2 }] }));
    expect(b.timestampType).toBe(1);
    expect(b.records.map((r) => r.timestamp)).toEqual([999, 999]);
    expect(b.records.map((r) => r.timestampDelta)).toEqual([1, 2]);
  });

  it('large timestamp deltas use the varlong range', () => {
    const b = only(encodeBatch({ baseTimestamp: 0, records: [{ timestampDelta: 2 ** 45 }, { timestampDelta: -(2 ** 40) }] }));
    expect(b.records.map((r) => r.timestampDelta)).toEqual([2 ** 45, -(2 ** 40)]);
  });

  it('control batches: transaction markers', () => {
    for (const commit of [true, false]) {
      const blob = encodeEndTxnMarkerBatch({ commit, producerId: 77n, producerEpoch: 2, coordinatorEpoch: 5, timestamp: 1000, baseOffset: 50n });
      const b = only(blob);
      expect(b.isControl).toBe(true);
      expect(b.isTransactional).toBe(true);
      expect(b.records).toHaveLength(1);
      expect(b.records[0].control).toEqual({ version: 0, type: commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT });
      expect(parseEndTxnMarker(b.records[0])).toEqual({ commit, version: 0, coordinatorEpoch: 5 });
    }
  });

  it('control batches: a key shorter than 4 bytes is corrupt', () => {
    const blob = encodeBatch({ isControl: true, baseTimestamp: 0, records: [{ key: Buffer.from([0, 0]) }] });
    expectDecodeError(() => decodeBatch(blob), /control record key/);
  });

  it('several batches in one blob', () => {
    const blob = Buffer.concat(CODECS.map((c, i) => encodeBatch({ ...input(c), baseOffset: BigInt(i * 10) })));
    const d = decodeRecords(blob);
    expect(d.entries.map((e) => (e as RecordBatch).compression)).toEqual(CODECS);
    expect(d.partial).toBeNull();
  });
});

// ---- property-based ------------------------------------------------------------------------------

const bytesArb = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((u) => Buffer.from(u)),
  { nil: null },
);
const recordArb = fc.record({
  key: bytesArb,
  value: bytesArb,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytesArb }), { maxLength: 3 }),
  timestampDelta: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  offsetDelta: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  attributes: fc.integer({ min: -128, max: 127 }),
});
const batchArb = fc.record({
  compression: fc.constantFrom(...CODECS),
  baseOffset: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  partitionLeaderEpoch: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  timestampType: fc.constantFrom(0 as const, 1 as const),
  isTransactional: fc.boolean(),
  hasDeleteHorizon: fc.boolean(),
  baseTimestamp: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
  maxTimestamp: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
  lastOffsetDelta: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  producerId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  producerEpoch: fc.integer({ min: -32768, max: 32767 }),
  baseSequence: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  records: fc.array(recordArb, { maxLength: 8 }),
});

describe('property: decode(encode(batch)) == batch', () => {
  it('for any batch, any codec', () => {
    fc.assert(
      fc.property(batchArb, (input) => {
        const blob = encodeBatch(input);
        const b = decodeBatch(blob);
        const { records, ...head } = input;
        expect(b).toMatchObject(head);
        expect(b.recordsCount).toBe(records.length);
        expect(b.batchLength).toBe(blob.length - 12);
        expect(b.records).toHaveLength(records.length);
        records.forEach((r, i) => {
          const d = b.records[i];
          expect(d.key).toEqual(r.key);
          expect(d.value).toEqual(r.value);
          expect(d.headers).toEqual(r.headers);
          expect(d.timestampDelta).toBe(r.timestampDelta);
          expect(d.offsetDelta).toBe(r.offsetDelta);
          expect(d.attributes).toBe(r.attributes);
          expect(d.timestamp).toBe(input.timestampType === 1 ? input.maxTimestamp : input.baseTimestamp + r.timestampDelta);
        });
        // Re-encoding the decoded batch gives the same bytes (uncompressed: compression is deterministic too, but keep it simple).
        if (input.compression === 'none') expect(encodeBatch(b).equals(blob)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('corrupted bytes only ever raise DecodeError (CRC check off, so the record parser sees them)', () => {
    fc.assert(
      fc.property(
        batchArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (input, flips) => {
          const original = encodeBatch(input);
          const blob = Buffer.from(original);
          for (const [at, x] of flips) blob[at % blob.length] ^= x;
          try {
            decodeRecords(blob, { verifyCrc: false });
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
          // With the CRC check on, any flip in the CRC'd range is caught (two flips of one byte
          // with the same value cancel out: then nothing changed).
          if (flips.every(([at]) => at % blob.length >= 21) && !blob.equals(original)) {
            expect(() => decodeRecords(blob)).toThrow(DecodeError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('corruption in the middle throws DecodeError', () => {
  const good = () => encodeBatch({ baseTimestamp: 0, records: [{ key: 'a', value: 'b' }, { key: 'c', value: 'd' }] });

  it('CRC mismatch', () => {
    const b = good();
    b[b.length - 2] ^= 1; // the last value byte: 'd' -> 'e'
    expectDecodeError(() => decodeBatch(b), /CRC mismatch/);
    expect(decodeBatch(b, { verifyCrc: false }).records).toHaveLength(2);
  });

  it('record count larger than the records', () => {
    const b = good();
    b.writeInt32BE(3, 57);
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }));
    b.writeInt32BE(0x7fffffff, 57);
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }), /cannot fit/);
    b.writeInt32BE(-1, 57);
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }), /negative/);
  });

  it('bytes left after the declared records', () => {
    const b = good();
    b.writeInt32BE(1, 57);
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }), /left after its 1 records/);
  });

  it('a record length that disagrees with its fields', () => {
    const b = good();
    b[61] += 2; // first record's length varint (small, one byte)
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }));
  });

  it('unknown codec id', () => {
    const b = good();
    b.writeInt16BE(5, 21);
    expectDecodeError(() => decodeBatch(b, { verifyCrc: false }), /unknown compression codec 5/);
  });

  it('corrupt compressed payload', () => {
    for (const compression of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const b = encodeBatch({ compression, baseTimestamp: 0, records: [{ value: 'x'.repeat(1000) }] });
      b.fill(0xee, 61 + 4, 61 + 12);
      expectDecodeError(() => decodeBatch(b, { verifyCrc: false }));
    }
  });

  it('decompression bomb guard per batch', () => {
    const b = encodeBatch({ compression: 'gzip', baseTimestamp: 0, records: [{ value: Buffer.alloc(2_000_000) }] });
    expectDecodeError(() => decodeBatch(b, { maxDecompressedSize: 1_000_000 }), /limit/);
    expect(decodeBatch(b).records[0].value!.length).toBe(2_000_000);
  });

  it('a bad length in the second batch of a blob throws (not a partial tail)', () => {
    const blob = Buffer.concat([good(), good(), good()]);
    const second = good().length;
    blob.writeInt32BE(10, second + 8); // below any entry's minimum
    const e = expectDecodeError(() => decodeRecords(blob), /length 10/);
    expect(e.path).toEqual(['[1]']);
    blob.writeInt32BE(30, second + 8); // legal for a legacy message, too small for magic 2
    expectDecodeError(() => decodeRecords(blob), /below the minimum 49/);
  });
});

describe('truncation: every prefix either decodes with a partial tail or throws DecodeError', () => {
  it.each(CODECS)('%s, three batches', (compression) => {
    const batches = [0, 1, 2].map((i) =>
      encodeBatch({ compression, baseOffset: BigInt(i * 3), baseTimestamp: 0, records: [{ key: 'k', value: 'value '.repeat(20) }, { value: null }] }),
    );
    const blob = Buffer.concat(batches);
    const ends = [batches[0].length, batches[0].length + batches[1].length, blob.length];
    for (let n = 0; n <= blob.length; n++) {
      const d = decodeRecords(blob.subarray(0, n));
      const complete = ends.filter((e) => e <= n).length;
      expect(d.entries).toHaveLength(complete);
      if (ends.includes(n) || n === 0) expect(d.partial).toBeNull();
      else {
        const start = complete === 0 ? 0 : ends[complete - 1];
        expect(d.partial).toEqual({ position: start, available: n - start, size: n - start >= 12 ? batches[complete].length : null });
      }
      if (d.partial !== null) expectDecodeError(() => decodeRecords(blob.subarray(0, n), { allowPartial: false }), /truncated/);
    }
  });

  it.each(['empty', 'emptyTxn', 'control', 'marker'] as const)('kafkajs-written %s batch: every prefix is a partial tail; decodeBatch throws', (name) => {
    const g = independent[name]!;
    for (let n = 1; n < g.length; n++) {
      const d = decodeRecords(g.subarray(0, n));
      expect(d.entries).toEqual([]);
      expect(d.partial).toEqual({ position: 0, available: n, size: n >= 12 ? g.length : null });
      expectDecodeError(() => decodeBatch(g.subarray(0, n)));
    }
  });

  it('decodeBatch on a cut batch is a DecodeError', () => {
    const b = encodeBatch({ baseTimestamp: 0, records: [{ value: 'v' }] });
    for (let n = 0; n < b.length; n++) expectDecodeError(() => decodeBatch(b.subarray(0, n)));
  });
});

describe('encoder input checks', () => {
  it('rejects out-of-range fields with EncodeError', () => {
    expect(() => encodeBatch({ records: [{ offsetDelta: 2 ** 31 }] })).toThrow(/offsetDelta/);
    expect(() => encodeBatch({ producerEpoch: 40000, records: [] })).toThrow(/producerEpoch/);
    expect(() => encodeBatch({ baseOffset: 2n ** 63n, records: [] })).toThrow(/baseOffset/);
    expect(() => encodeBatch({ baseTimestamp: 0.5, records: [] })).toThrow(/baseTimestamp/);
  });
});
