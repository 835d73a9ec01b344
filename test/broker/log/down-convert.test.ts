// Fetch v0-v3's down-conversion (log/down-convert.ts): stored v2 batches become magic 0/1 message
// sets as Kafka 3.9's RecordsUtil.downConvert writes them, sized as LazyDownConversionRecords(Send)
// sizes them (the larger of the bytes read and the first converted batch; cut, or padded with an
// overflow batch).
import { beforeAll, describe, expect, it } from 'vitest';
import { downConvert } from '../../../src/broker/log/down-convert.js';
import {
  crc32,
  decodeLegacyEntry,
  decodeRecords,
  encodeBatch,
  encodeEndTxnMarkerBatch,
  initCompression,
  type CompressionName,
  type LegacyEntry,
  type RecordBatchInput,
} from '../../../src/codec/records/index.js';

const T = 1_700_000_000_000;

beforeAll(async () => {
  await initCompression();
});

/** A stored batch: `n` records k<i>/v<i> from `baseOffset`, timestamps T + i, one header each. */
function stored(baseOffset: number, n: number, init: Partial<RecordBatchInput> = {}): Buffer {
  return encodeBatch({
    baseOffset: BigInt(baseOffset),
    partitionLeaderEpoch: 0,
    baseTimestamp: T,
    records: Array.from({ length: n }, (_, i) => ({ key: `k${baseOffset + i}`, value: `v${baseOffset + i}`, timestampDelta: i, headers: [{ key: 'h', value: 'x' }] })),
    ...init,
  });
}

function convert(batches: Buffer[], toMagic: 0 | 1, fetchOffset: number, bytes = batches.reduce((n, b) => n + b.length, 0)) {
  const r = downConvert(batches, bytes, toMagic, fetchOffset);
  if (!r.ok) throw new Error('unsupported');
  const blob = Buffer.concat(r.records);
  expect(blob.length).toBe(r.bytes);
  return { blob, decoded: decodeRecords(blob) };
}

function legacy(blob: Buffer): LegacyEntry[] {
  return decodeRecords(blob).entries.map((e) => {
    if (e.magic === 2) throw new Error('expected legacy entries');
    return e;
  });
}

describe('one message per record (uncompressed batches)', () => {
  it('magic 1: offsets, timestamps, keys and values kept; headers dropped; CRCs valid', () => {
    const b = stored(5, 3);
    const { blob } = convert([b], 1, 5);
    const e = legacy(blob.subarray(0, 3 * (12 + 22 + 2 + 2)));
    expect(e.map((m) => [m.offset, m.magic, m.attributes, m.timestamp, m.key?.toString(), m.value?.toString()])).toEqual([
      [5n, 1, 0, T, 'k5', 'v5'],
      [6n, 1, 0, T + 1, 'k6', 'v6'],
      [7n, 1, 0, T + 2, 'k7', 'v7'],
    ]);
  });

  it('magic 0: no timestamps; records before the fetch offset are dropped', () => {
    const b = stored(5, 4);
    const r = downConvert([b], b.length, 0, 7);
    expect(r.ok).toBe(true);
    const blob = Buffer.concat((r as { records: Buffer[] }).records);
    // 2 messages of 12 + 14 + 2 + 2 bytes = 60, fewer than the 4-record batch's bytes: padded.
    expect(blob.length).toBe(b.length);
    const { entries, partial } = decodeRecords(blob);
    expect(entries.map((m) => [(m as LegacyEntry).offset, m.magic, (m as LegacyEntry).timestamp])).toEqual([
      [7n, 0, null],
      [8n, 0, null],
    ]);
    expect(partial).toMatchObject({ position: 60 });
  });

  it('a LogAppendTime batch: the LogAppendTime bit and the append time on every message', () => {
    const b = stored(0, 2, { timestampType: 1, maxTimestamp: T + 999 });
    const e = legacy(convert([b], 1, 0).blob.subarray(0, 2 * 38));
    expect(e.map((m) => [m.attributes, m.timestampType, m.timestamp])).toEqual([
      [8, 1, T + 999],
      [8, 1, T + 999],
    ]);
  });

  it('null keys and values stay null', () => {
    const b = encodeBatch({ baseOffset: 0n, baseTimestamp: T, records: [{ key: null, value: null }] });
    const e = legacy(convert([b], 1, 0).blob.subarray(0, 34));
    expect(e[0]).toMatchObject({ key: null, value: null });
  });
});

describe('one wrapper per compressed batch', () => {
  for (const compression of ['gzip', 'snappy', 'lz4'] as CompressionName[]) {
    it(`${compression}, magic 1: relative inner offsets, the wrapper at the last offset with the max timestamp`, () => {
      const b = stored(10, 3, { compression });
      // every record is kept, even those before the fetch offset
      const { decoded } = convert([b], 1, 11);
      const [w] = decoded.entries as LegacyEntry[];
      expect(w).toMatchObject({ offset: 12n, magic: 1, compression, timestamp: T + 2, timestampType: 0 });
      expect(w.attributes & 7).toBe({ gzip: 1, snappy: 2, lz4: 3 }[compression as 'gzip']);
      expect(w.messages.map((m) => [m.offset, m.timestamp, m.value?.toString()])).toEqual([
        [10n, T, 'v10'],
        [11n, T + 1, 'v11'],
        [12n, T + 2, 'v12'],
      ]);
    });

    it(`${compression}, magic 0: absolute inner offsets`, () => {
      const b = stored(10, 2, { compression });
      const [w] = convert([b], 0, 10).decoded.entries as LegacyEntry[];
      expect(w).toMatchObject({ offset: 11n, magic: 0, compression });
      expect(w.messages.map((m) => m.offset)).toEqual([10n, 11n]);
    });
  }

  it('inner offsets as written: 0..n-1 for magic 1, absolute for magic 0', () => {
    const b = stored(10, 2, { compression: 'gzip' });
    const { blob } = convert([b], 1, 10);
    const raw = decodeLegacyEntry(blob.subarray(0, 12 + blob.readInt32BE(8)));
    expect(raw.offset).toBe(11n);
    // decodeLegacyEntry made them absolute from the wrapper: base = 11 - 1 = 10
    expect(raw.messages.map((m) => m.offset)).toEqual([10n, 11n]);
  });

  it('a LogAppendTime batch: the wrapper and the inner messages carry the append time', () => {
    const b = stored(0, 2, { compression: 'gzip', timestampType: 1, maxTimestamp: T + 999 });
    const [w] = convert([b], 1, 0).decoded.entries as LegacyEntry[];
    expect(w).toMatchObject({ timestamp: T + 999, timestampType: 1 });
    expect(w.attributes).toBe(1 | 8);
    expect(w.messages.map((m) => [m.timestamp, m.attributes])).toEqual([
      [T + 999, 8],
      [T + 999, 8],
    ]);
  });
});

describe('sizes', () => {
  it('larger conversion: cut at max(bytes read, first converted batch), the last message partial', () => {
    const a = stored(0, 3);
    const b = stored(3, 3);
    const bytes = a.length + b.length;
    const { blob, decoded } = convert([a, b], 1, 0);
    expect(blob.length).toBe(bytes);
    expect(decoded.partial).not.toBeNull();
    expect(decoded.entries.length).toBe(Math.floor(bytes / 38));
  });

  it('the first converted batch is sent whole even when bigger than what was read', () => {
    const a = stored(0, 10);
    const { blob, decoded } = convert([a], 1, 0);
    expect(blob.length).toBe(10 * 38);
    expect(decoded.partial).toBeNull();
    expect(decoded.entries).toHaveLength(10);
  });

  it('a cut last batch counts in the size but is not converted', () => {
    const a = stored(0, 1);
    const b = stored(1, 5);
    const read = [a, b.subarray(0, 30)];
    const bytes = a.length + 30;
    const r = downConvert(read, bytes, 1, 0);
    expect(r).toMatchObject({ ok: true, bytes: Math.max(bytes, 38) });
    const blob = Buffer.concat((r as { records: Buffer[] }).records);
    const d = decodeRecords(blob);
    expect(d.entries).toHaveLength(1);
    // the rest is an overflow batch: offset -1, a length past the end
    const tail = blob.subarray(38);
    expect(tail.length).toBe(bytes - 38);
    expect(tail.readBigInt64BE(0)).toBe(-1n);
    expect(tail.readInt32BE(8)).toBe(Math.max(tail.length + 1, 61));
    expect(tail.subarray(12).every((x) => x === 0)).toBe(true);
  });

  it('nothing but a cut batch: nothing at all', () => {
    const b = stored(0, 5);
    expect(downConvert([b.subarray(0, 40)], 40, 0, 0)).toEqual({ ok: true, records: [], bytes: 0 });
  });

  it('a compressed batch can convert smaller than it is stored: the rest is an overflow batch', () => {
    // magic 0 drops the timestamps; 50 similar records compress to little either way
    const b = encodeBatch({ baseOffset: 0n, baseTimestamp: T, compression: 'gzip', records: Array.from({ length: 50 }, () => ({ value: 'x'.repeat(100) })) });
    const r = downConvert([b], b.length, 0, 0) as { records: Buffer[]; bytes: number };
    const blob = Buffer.concat(r.records);
    expect(blob.length).toBe(b.length);
    const wrapperSize = 12 + blob.readInt32BE(8);
    expect(wrapperSize).toBeLessThan(b.length);
    const pad = blob.subarray(wrapperSize);
    expect(pad.subarray(0, Math.min(8, pad.length)).every((x) => x === 0xff)).toBe(true);
  });

  it('an overflow batch with fewer than 12 bytes to fill is its first bytes: part of offset -1', () => {
    const b = stored(0, 1);
    // 5 bytes more than the 38-byte message were "read"
    const r = downConvert([b], 38 + 5, 1, 0) as { records: Buffer[]; bytes: number };
    const blob = Buffer.concat(r.records);
    expect(blob.length).toBe(43);
    expect(blob.subarray(38)).toEqual(Buffer.alloc(5, 0xff));
  });

  it('an overflow batch claims the bytes left plus one, at least a batch header', () => {
    const b = stored(0, 1);
    const blob = Buffer.concat((downConvert([b], 38 + 100, 1, 0) as { records: Buffer[] }).records);
    expect(blob.readInt32BE(38 + 8)).toBe(101);
    const small = Buffer.concat((downConvert([b], 38 + 20, 1, 0) as { records: Buffer[] }).records);
    expect(small.readInt32BE(38 + 8)).toBe(61);
  });
});

describe('zstd', () => {
  it('a zstd first batch cannot be converted', () => {
    expect(downConvert([stored(0, 2, { compression: 'zstd' })], 100, 1, 0)).toEqual({ ok: false });
  });

  it('a zstd batch later: the chunk holding it is replaced by an overflow batch', () => {
    const a = stored(0, 2);
    const b = stored(2, 2);
    const z = stored(4, 2, { compression: 'zstd' });
    const bytes = a.length + b.length + z.length;
    const r = downConvert([a, b, z], bytes, 1, 0) as { records: Buffer[]; bytes: number };
    const blob = Buffer.concat(r.records);
    expect(blob.length).toBe(bytes);
    // b and z are one chunk (under 128 KiB): b is lost with it
    const d = decodeRecords(blob);
    expect(d.entries.map((e) => (e as LegacyEntry).offset)).toEqual([0n, 1n]);
    expect(blob.readBigInt64BE(2 * 38)).toBe(-1n);
  });
});

describe('transactions (RecordsUtil.downConvert drops control batches)', () => {
  const marker = (offset: number) =>
    encodeEndTxnMarkerBatch({ commit: true, producerId: 7n, producerEpoch: 0, coordinatorEpoch: 0, timestamp: T, baseOffset: BigInt(offset), partitionLeaderEpoch: 0 });

  it('a marker between data batches disappears; transactional data converts like any other', () => {
    const a = stored(0, 2, { isTransactional: true, producerId: 7n, producerEpoch: 0, baseSequence: 0 });
    const m = marker(2);
    const c = stored(3, 1);
    const { blob } = convert([a, m, c], 1, 0);
    // one message per record of a and c (38 bytes each), then padding to the bytes read
    const e = legacy(blob.subarray(0, 3 * 38));
    expect(e.map((x) => [x.offset, x.value?.toString()])).toEqual([
      [0n, 'v0'],
      [1n, 'v1'],
      [3n, 'v3'],
    ]);
    expect(blob.length).toBe(a.length + m.length + c.length);
  });

  it('a read starting with a marker: the first data batch is converted twice (LazyDownConversionRecords skips one batch for it)', () => {
    const m = marker(0);
    const a = stored(1, 1);
    const b = stored(2, 1);
    const { blob } = convert([m, a, b], 1, 0);
    const e = legacy(blob.subarray(0, 3 * 38));
    expect(e.map((x) => x.offset)).toEqual([1n, 1n, 2n]);
    expect(blob.length).toBe(m.length + a.length + b.length);
  });

  it('a read of markers only converts to nothing but an overflow batch', () => {
    const r = downConvert([marker(0), marker(1)], 156, 1, 0) as { records: Buffer[]; bytes: number };
    expect(r.bytes).toBe(12);
    expect(Buffer.concat(r.records).readBigInt64BE(0)).toBe(-1n);
  });
});

it('message CRCs are CRC-32 of the bytes from the magic on', () => {
  const { blob } = convert([stored(0, 1)], 1, 0);
  expect(blob.readUInt32BE(12)).toBe(crc32(blob.subarray(0, 38), 16));
});
