// fast-check arbitraries for record batches as a Produce request carries them: random v2 batches
// (every codec, both timestamp types, producer fields, offset deltas in order, permuted or wrong),
// legacy magic 0/1 message sets, and the ways a batch gets damaged (bytes changed with the CRC
// fixed up, counts, attributes, lengths, garbage records). Shared by the validation property tests
// (validate-fast-path.property.test.ts, test/broker/handlers/produce-fast-path.property.test.ts).
// zstd batches need `await initCompression()` before they are built.
import fc from 'fast-check';
import { CRC_OFFSET, type CompressionName } from '../../../src/codec/records/constants.js';
import { encodeBatch } from '../../../src/codec/records/batch.js';
import { computeBatchCrc } from '../../../src/codec/records/header.js';
import { encodeMessageSet } from '../../../src/codec/records/legacy.js';

export const NOW = 1_700_000_000_000;
const CODECS: CompressionName[] = ['none', 'none', 'none', 'gzip', 'snappy', 'lz4', 'zstd'];

const bytes = (max: number) => fc.integer({ min: 0, max }).map((n) => Buffer.alloc(n, 0x61));

const recordArb = fc.record({
  key: fc.oneof(fc.constant(null), bytes(100)),
  value: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 12, arbitrary: bytes(300) }, { weight: 1, arbitrary: bytes(9000) }),
  headers: fc.option(fc.array(fc.record({ key: fc.string({ maxLength: 70 }), value: fc.option(bytes(80), { nil: null }) }), { maxLength: 3 }), { nil: undefined }),
  // from the batch's base timestamp; null: NO_TIMESTAMP (-1)
  timestamp: fc.oneof(fc.integer({ min: -100_000, max: 100_000 }), fc.constant(2 ** 40), fc.constant(null)),
});

type RecordSpec = typeof recordArb extends fc.Arbitrary<infer T> ? T : never;

/** Many small records: offset deltas past 63 take two varint bytes. */
const smallRecordArb: fc.Arbitrary<RecordSpec> = fc.record({
  key: fc.constant(null),
  value: bytes(10),
  headers: fc.constant(undefined),
  timestamp: fc.integer({ min: -1000, max: 1000 }),
});

const batchRecordsArb: fc.Arbitrary<RecordSpec[]> = fc.oneof(
  { weight: 5, arbitrary: fc.array(recordArb, { minLength: 1, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.array(smallRecordArb, { minLength: 60, maxLength: 300 }) },
);

const batchArb = fc.record({
  records: batchRecordsArb,
  // offset deltas 0..n-1 (what clients send), a permutation of them (Kafka accepts that
  // uncompressed), or anything (the header's offset range then disagrees)
  offsets: fc.constantFrom('in-order', 'in-order', 'in-order', 'in-order', 'in-order', 'in-order', 'permuted', 'random'),
  seed: fc.nat(),
  base: fc.constantFrom(NOW, NOW - 10_000_000, -1, 0, NOW + 5_000_000),
  compression: fc.constantFrom(...CODECS),
  timestampType: fc.constantFrom(0, 0, 0, 1) as fc.Arbitrary<0 | 1>,
  idempotent: fc.boolean(),
  isControl: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  maxTimestamp: fc.option(fc.constantFrom(0, -1, 2 ** 52, NOW + 1), { nil: undefined, freq: 10 }),
});

type BatchSpec = typeof batchArb extends fc.Arbitrary<infer T> ? T : never;

function buildBatch(s: BatchSpec): Buffer {
  const n = s.records.length;
  let deltas: number[] | null = null;
  if (s.offsets === 'permuted') {
    deltas = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1, r = s.seed; i > 0; i--, r = (r * 1103515245 + 12345) >>> 0) {
      const j = r % (i + 1);
      [deltas[i], deltas[j]] = [deltas[j], deltas[i]];
    }
  } else if (s.offsets === 'random') {
    deltas = Array.from({ length: n }, (_, i) => ((s.seed >>> (i % 16)) + i * 977) % 5000);
  }
  return encodeBatch({
    records: s.records.map((r, i) => ({
      key: r.key,
      value: r.value,
      headers: r.headers,
      timestamp: r.timestamp === null ? -1 : s.base + r.timestamp,
      offsetDelta: deltas === null ? undefined : deltas[i],
    })),
    lastOffsetDelta: s.offsets === 'permuted' ? n - 1 : undefined,
    compression: s.compression,
    timestampType: s.timestampType,
    producerId: s.idempotent ? 1n : -1n,
    producerEpoch: s.idempotent ? 0 : -1,
    baseSequence: s.idempotent ? 0 : -1,
    isControl: s.isControl,
    maxTimestamp: s.maxTimestamp,
  });
}

const legacyArb = fc.record({
  magic: fc.constantFrom(0, 1) as fc.Arbitrary<0 | 1>,
  messages: fc.array(fc.record({ key: fc.oneof(fc.constant(null), bytes(20)), value: fc.oneof(fc.constant(null), bytes(300)), timestamp: fc.integer({ min: NOW - 100_000, max: NOW }) }), { minLength: 1, maxLength: 5 }),
  compression: fc.constantFrom('none', 'none', 'gzip', 'snappy', 'lz4') as fc.Arbitrary<CompressionName>,
});

/** How a batch is damaged; most of them fix the CRC up, so that the record walk decides. */
const mutationArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      at: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe), fc.nat(255))), { minLength: 1, maxLength: 4 }),
      fixCrc: fc.constantFrom(true, true, true, true, false),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('count' as const), delta: fc.constantFrom(-1, 1, 2 ** 31 - 2), offsets: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('attributes' as const), bits: fc.constantFrom(0x08, 0x10, 0x20, 0x40, 0x07) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('length' as const), cut: fc.integer({ min: -20, max: 20 }), fixLength: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('garbage' as const), body: fc.uint8Array({ minLength: 0, maxLength: 120 }) }) },
);

type Mutation = typeof mutationArb extends fc.Arbitrary<infer T> ? T : never;

function fixCrc(b: Buffer): Buffer {
  if (b.length >= 61) b.writeUInt32BE(computeBatchCrc(b), CRC_OFFSET);
  return b;
}

function mutate(original: Buffer, m: Mutation): Buffer {
  const b = Buffer.from(original);
  switch (m.kind) {
    case 'none':
      return b;
    case 'bytes':
      // in the records region when there is one (the header's own checks have their own tests)
      for (const [at, v] of m.at) b[b.length > 61 ? 61 + (at % (b.length - 61)) : at % b.length] = v;
      return m.fixCrc ? fixCrc(b) : b;
    case 'count': {
      if (b.length < 61) return b;
      const c = b.readInt32BE(57) + m.delta;
      b.writeInt32BE(c | 0, 57);
      if (m.offsets) b.writeInt32BE((c - 1) | 0, 23);
      return fixCrc(b);
    }
    case 'attributes':
      if (b.length < 61) return b;
      b.writeInt16BE(b.readInt16BE(21) ^ m.bits, 21);
      return fixCrc(b);
    case 'length': {
      const out = m.cut <= 0 ? Buffer.from(b.subarray(0, Math.max(26, b.length + m.cut))) : Buffer.concat([b, Buffer.alloc(m.cut, 0x01)]);
      if (m.fixLength) out.writeInt32BE(out.length - 12, 8);
      return fixCrc(out);
    }
    case 'garbage': {
      const out = Buffer.concat([b.subarray(0, Math.min(61, b.length)), Buffer.from(m.body)]);
      out.writeInt32BE(out.length - 12, 8);
      return fixCrc(out);
    }
  }
}

/** A Produce partition's records: a v2 batch (5 in 6) or a legacy message set, then maybe damaged. */
export const recordsArb: fc.Arbitrary<Buffer> = fc
  .tuple(fc.oneof({ weight: 5, arbitrary: batchArb.map(buildBatch) }, { weight: 1, arbitrary: legacyArb.map((s) => encodeMessageSet(s)) }), mutationArb)
  .map(([bytes, mutation]) => mutate(bytes, mutation));
