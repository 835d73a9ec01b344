import { describe, expect, it } from 'vitest';
import {
  checkProduceRecords,
  computeBatchCrc,
  decodeBatch,
  encodeBatch,
  encodeMessageSet,
  iterateBatches,
  lastOffsetOf,
  readBatchHeader,
  setBaseOffset,
  setLogAppendTime,
  setMaxTimestamp,
  setPartitionLeaderEpoch,
  splitBatches,
  verifyBatchCrc,
} from '../../../src/codec/records/index.js';
import { expectDecodeError, kafkajsBatch, kafkajsCrc32c } from './helpers.js';

const batch = (over: Partial<Parameters<typeof encodeBatch>[0]> = {}) =>
  encodeBatch({
    baseTimestamp: 1_600_000_000_000,
    producerId: 1000n,
    producerEpoch: 1,
    baseSequence: 0,
    records: [{ key: 'a', value: 'one' }, { key: 'b', value: 'two', timestamp: 1_600_000_000_010 }],
    ...over,
  });

describe('readBatchHeader', () => {
  it('reads every field of a batch kafkajs wrote', async () => {
    // kafkajs's RecordBatch encoder (gzip, CRC-32C and layout all its own), run at test time.
    const blob = await kafkajsBatch({
      compression: 'gzip',
      baseOffset: 1_234_567_890_123n,
      partitionLeaderEpoch: 17,
      baseTimestamp: 1_479_847_795_000,
      maxTimestamp: 1_479_847_795_009,
      transactional: true,
      producerId: 9_007_199_254_740_993n,
      producerEpoch: 3,
      baseSequence: 42,
      records: [
        { key: Buffer.from([1, 2, 3, 4]), value: Buffer.from([5, 6, 7]), timestampDelta: 5, headers: { h: Buffer.from([11, 12]) } },
        { key: null, value: Buffer.from('x'), timestampDelta: 9 },
      ],
    });
    expect(readBatchHeader(blob)).toEqual({
      baseOffset: 1_234_567_890_123n,
      batchLength: blob.length - 12,
      partitionLeaderEpoch: 17,
      magic: 2,
      crc: kafkajsCrc32c(blob.subarray(21)),
      attributes: 1 | 16,
      codec: 1,
      timestampType: 0,
      isTransactional: true,
      isControl: false,
      hasDeleteHorizon: false,
      lastOffsetDelta: 1,
      baseTimestamp: 1_479_847_795_000,
      maxTimestamp: 1_479_847_795_009,
      producerId: 9_007_199_254_740_993n,
      producerEpoch: 3,
      baseSequence: 42,
      recordsCount: 2,
    });
    expect(verifyBatchCrc(blob)).toBe(true);
    // the header reader and the full decoder agree
    expect(decodeBatch(blob)).toMatchObject({ ...readBatchHeader(blob), compression: 'gzip' });
  });

  it('decodes the attribute bits', () => {
    const h = readBatchHeader(batch({ compression: 'lz4', timestampType: 1, isTransactional: true, isControl: true, hasDeleteHorizon: true, records: [] }));
    expect(h.attributes).toBe(3 | 8 | 16 | 32 | 64);
    expect(h).toMatchObject({ codec: 3, timestampType: 1, isTransactional: true, isControl: true, hasDeleteHorizon: true });
  });

  it('reads at an offset of a larger buffer, and checks what it reads', () => {
    const b = batch();
    const padded = Buffer.concat([Buffer.alloc(5), b]);
    expect(readBatchHeader(padded, 5)).toEqual(readBatchHeader(b));
    expectDecodeError(() => readBatchHeader(b.subarray(0, 60)), /needs 61 bytes/);
    const m1 = Buffer.from(b);
    m1[16] = 1;
    expectDecodeError(() => readBatchHeader(m1), /magic 1/);
    const short = Buffer.from(b);
    short.writeInt32BE(48, 8);
    expectDecodeError(() => readBatchHeader(short), /smaller than/);
  });

  it('lastOffsetOf', () => {
    expect(lastOffsetOf(readBatchHeader(batch({ baseOffset: 10n })))).toBe(11n);
  });
});

describe('iterateBatches / splitBatches', () => {
  const blob = () => Buffer.concat([batch({ baseOffset: 0n }), batch({ baseOffset: 2n, compression: 'gzip' }), batch({ baseOffset: 4n })]);

  it('yields each batch as a view of the blob with its header', () => {
    const b = blob();
    const got = [...iterateBatches(b)];
    expect(got.map((x) => x.header!.baseOffset)).toEqual([0n, 2n, 4n]);
    expect(got.map((x) => x.magic)).toEqual([2, 2, 2]);
    for (const x of got) {
      expect(x.bytes.buffer).toBe(b.buffer); // no copies
      expect(x.bytes.byteOffset).toBe(b.byteOffset + x.position);
      expect(verifyBatchCrc(x.bytes)).toBe(true);
    }
    expect(got[1].header!.codec).toBe(1);
  });

  it('reports legacy entries by magic, without a header', () => {
    const legacy = encodeMessageSet({ magic: 1, messages: [{ value: 'old' }] });
    const got = [...iterateBatches(Buffer.concat([legacy, batch()]))];
    expect(got.map((x) => [x.magic, x.header === null])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('every truncation: strict mode throws DecodeError, partial mode stops and says where', () => {
    const b = blob();
    const sizes = [...iterateBatches(b)].map((x) => x.bytes.length);
    const ends = [sizes[0], sizes[0] + sizes[1], b.length];
    for (let n = 0; n <= b.length; n++) {
      const cut = b.subarray(0, n);
      const whole = ends.filter((e) => e <= n).length;
      const { batches, partial } = splitBatches(cut, { allowPartial: true });
      expect(batches).toHaveLength(whole);
      expect([...iterateBatches(cut, { allowPartial: true })]).toHaveLength(whole);
      if (n === 0 || ends.includes(n)) {
        expect(partial).toBeNull();
        expect([...iterateBatches(cut)]).toHaveLength(whole);
      } else {
        expect(partial!.position).toBe(whole === 0 ? 0 : ends[whole - 1]);
        expectDecodeError(() => [...iterateBatches(cut)], /needs/);
        expectDecodeError(() => splitBatches(cut), /needs/);
      }
    }
  });

  it('a negative, too-small or overlong length is corruption', () => {
    for (const len of [-1, -0x80000000, 0, 13]) {
      const b = blob();
      b.writeInt32BE(len, 8);
      expectDecodeError(() => [...iterateBatches(b, { allowPartial: true })], /below the minimum/);
    }
    const b = blob();
    b.writeInt32BE(0x7fffffff, 8); // runs past the end: strict mode says so
    expectDecodeError(() => [...iterateBatches(b)], /needs 2147483659 bytes/);
  });
});

describe('in-place mutators', () => {
  it('setBaseOffset and setPartitionLeaderEpoch leave the CRC valid (outside the CRC range)', () => {
    const blob = Buffer.concat([batch(), batch()]);
    const [, second] = [...iterateBatches(blob)];
    const crc = second.header!.crc;
    setBaseOffset(second.bytes, 123456789012345n);
    setPartitionLeaderEpoch(second.bytes, 17);
    const again = [...iterateBatches(blob)][1].header!;
    expect(again.baseOffset).toBe(123456789012345n);
    expect(again.partitionLeaderEpoch).toBe(17);
    expect(again.crc).toBe(crc);
    expect(verifyBatchCrc(second.bytes)).toBe(true);
    expect(decodeBatch(second.bytes).baseOffset).toBe(123456789012345n);
  });

  it('setLogAppendTime sets the bit and maxTimestamp and recomputes the CRC in place', () => {
    for (const compression of ['none', 'gzip', 'snappy'] as const) {
      const blob = Buffer.concat([Buffer.alloc(3), batch({ compression })]);
      const view = blob.subarray(3);
      const before = readBatchHeader(view);
      setLogAppendTime(view, 1_700_000_000_123);
      const h = readBatchHeader(blob, 3);
      expect(h.timestampType).toBe(1);
      expect(h.maxTimestamp).toBe(1_700_000_000_123);
      expect(h.attributes).toBe(before.attributes | 8);
      expect(h.crc).not.toBe(before.crc);
      expect(h.crc).toBe(computeBatchCrc(view));
      expect(verifyBatchCrc(view)).toBe(true);
      const d = decodeBatch(view);
      expect(d.records.map((r) => r.timestamp)).toEqual([1_700_000_000_123, 1_700_000_000_123]);
      // and back to CreateTime
      setMaxTimestamp(view, 0, 1_600_000_000_010);
      expect(decodeBatch(view).records.map((r) => r.timestamp)).toEqual([1_600_000_000_000, 1_600_000_000_010]);
    }
  });

  it('refuse a buffer that is not exactly one v2 batch', () => {
    const b = batch();
    expect(() => setBaseOffset(Buffer.concat([b, b]), 1n)).toThrow(/one batch/);
    expect(() => setLogAppendTime(b.subarray(0, 40), 1)).toThrow(/not a v2/);
  });
});

describe('checkProduceRecords', () => {
  it('accepts one valid batch and hands back its view and header', () => {
    const b = batch();
    const r = checkProduceRecords(b);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.batches).toHaveLength(1);
      expect(r.batches[0].bytes.buffer).toBe(b.buffer);
      expect(r.batches[0].header.recordsCount).toBe(2);
    }
  });

  it('CRC mismatch -> CORRUPT_MESSAGE', () => {
    const b = batch();
    b[b.length - 2] ^= 1;
    expect(checkProduceRecords(b)).toMatchObject({ ok: false, problem: 'CORRUPT_MESSAGE', message: expect.stringMatching(/CRC/) });
  });

  it('truncated or bad length -> CORRUPT_MESSAGE', () => {
    const b = batch();
    expect(checkProduceRecords(b.subarray(0, b.length - 1))).toMatchObject({ ok: false, problem: 'CORRUPT_MESSAGE' });
    const c = Buffer.from(b);
    c.writeInt32BE(-5, 8);
    expect(checkProduceRecords(c)).toMatchObject({ ok: false, problem: 'CORRUPT_MESSAGE' });
  });

  it('legacy magic -> UNSUPPORTED_MAGIC with the magic', () => {
    for (const magic of [0, 1] as const) {
      const r = checkProduceRecords(encodeMessageSet({ magic, messages: [{ value: 'v' }] }));
      expect(r).toMatchObject({ ok: false, problem: 'UNSUPPORTED_MAGIC', magic });
    }
  });

  it('a magic no Kafka wrote -> CORRUPT_MESSAGE, magic reported', () => {
    const b = batch();
    b[16] = 3;
    expect(checkProduceRecords(b)).toMatchObject({ ok: false, problem: 'CORRUPT_MESSAGE', magic: 3 });
  });

  it('Kafka InvalidRecordException cases -> INVALID_RECORD', () => {
    expect(checkProduceRecords(Buffer.alloc(0))).toMatchObject({ ok: false, problem: 'INVALID_RECORD' });
    expect(checkProduceRecords(Buffer.concat([batch(), batch()]))).toMatchObject({ ok: false, problem: 'INVALID_RECORD' });
    expect(checkProduceRecords(Buffer.concat([batch(), batch()]), { singleBatch: false }).ok).toBe(true);
    expect(checkProduceRecords(batch({ lastOffsetDelta: 5 }))).toMatchObject({ ok: false, problem: 'INVALID_RECORD', message: expect.stringMatching(/6 offsets but holds 2/) });
    expect(checkProduceRecords(batch({ records: [] }))).toMatchObject({ ok: false, problem: 'INVALID_RECORD' });
    expect(checkProduceRecords(batch({ isControl: true, records: [{ key: Buffer.alloc(4) }] }))).toMatchObject({ ok: false, problem: 'INVALID_RECORD' });
  });
});
