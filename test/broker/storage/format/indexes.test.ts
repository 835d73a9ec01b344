// The offset, time and transaction indexes (src/broker/storage/format/offset-index.ts,
// time-index.ts, txn-index.ts) and Kafka's rule for which entries they hold (segment-indexes.ts):
// round trips, the sanity checks of OffsetIndex/TimeIndex/TransactionIndex, preallocated tails, lookups.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildSegmentIndexes,
  decodeOffsetIndex,
  decodeTimeIndex,
  decodeTxnIndex,
  encodeOffsetIndex,
  encodeTimeIndex,
  encodeTxnIndex,
  lookupOffsetIndex,
  lookupTimeIndex,
  SegmentIndexBuilder,
  timeIndexEntryOnRoll,
  unwrap,
  upperBoundOffsetIndex,
  verifyOffsetIndex,
  verifyTimeIndex,
  type IndexableBatch,
} from '../../../../src/broker/storage/format/index.js';

const BASE = 1000;

describe('offset index', () => {
  it('round-trips 8-byte entries relative to the base offset', () => {
    const entries = [
      { offset: 1019, position: 4365 },
      { offset: 1037, position: 8746 },
      { offset: 1055, position: 13129 },
    ];
    const buf = encodeOffsetIndex(BASE, entries);
    expect(buf.length).toBe(24);
    expect(buf.toString('hex')).toBe('000000130000110d00000025000022' + '2a0000003700003349');
    expect(unwrap(decodeOffsetIndex(BASE, buf))).toEqual({ entries, preallocatedBytes: 0 });
    expect(unwrap(decodeOffsetIndex(BASE, Buffer.alloc(0)))).toEqual({ entries: [], preallocatedBytes: 0 });
  });

  it('round-trips any increasing entries (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { maxLength: 40 }), fc.nat({ max: 2 ** 40 }), (rels, base) => {
        const sorted = [...rels].sort((a, b) => a - b);
        const entries = sorted.map((r, i) => ({ offset: base + r, position: (i + 1) * 4097 }));
        expect(unwrap(decodeOffsetIndex(base, encodeOffsetIndex(base, entries))).entries).toEqual(entries);
      }),
    );
  });

  it('reads an untrimmed (preallocated) index as its entries plus a zeroed tail', () => {
    const buf = Buffer.concat([encodeOffsetIndex(BASE, [{ offset: 1010, position: 5000 }]), Buffer.alloc(8 * 100)]);
    expect(unwrap(decodeOffsetIndex(BASE, buf))).toEqual({ entries: [{ offset: 1010, position: 5000 }], preallocatedBytes: 800 });
    // A wholly zero file (an active segment's index after a crash, before its first entry) has no
    // entries: Kafka never indexes position 0, so (relative offset 0, position 0) is never written.
    expect(unwrap(decodeOffsetIndex(BASE, Buffer.alloc(10485760)))).toEqual({ entries: [], preallocatedBytes: 10485760 });
    expect(unwrap(decodeOffsetIndex(BASE, Buffer.alloc(8)))).toEqual({ entries: [], preallocatedBytes: 8 });
  });

  it("fails OffsetIndex.sanityCheck's rules and append's, naming the file and byte", () => {
    const e = (buf: Buffer): string => {
      const d = decodeOffsetIndex(BASE, buf, { file: 'p-0/00000000000000001000.index' });
      expect(d.ok).toBe(false);
      return d.ok ? '' : d.error.message;
    };
    expect(e(Buffer.alloc(12))).toBe('p-0/00000000000000001000.index: is corrupt, found 12 bytes which is not a multiple of 8');
    const rel = (pairs: number[][]): Buffer => {
      const b = Buffer.alloc(pairs.length * 8);
      pairs.forEach(([o, p], i) => {
        b.writeInt32BE(o, i * 8);
        b.writeInt32BE(p, i * 8 + 4);
      });
      return b;
    };
    expect(e(rel([[-1, 100]]))).toMatch(/byte 0: entry 0 has offset 999, below the base offset 1000/);
    expect(e(rel([[5, 100], [5, 200]]))).toMatch(/byte 8: entry 1 has offset 1005, not above the previous entry's 1005/);
    expect(e(rel([[5, 100], [4, 200]]))).toMatch(/not above the previous/);
    expect(e(rel([[5, 100], [6, 100]]))).toMatch(/entry 1 has position 100, not above the previous entry's 100/);
    expect(e(rel([[5, -3]]))).toMatch(/negative position/);
    // Zeros in the middle are not a preallocated tail.
    expect(e(rel([[5, 100], [0, 0], [7, 300]]))).toMatch(/entry 1 has offset 1000/);
  });

  it("refuses to encode what OffsetIndex.append refuses", () => {
    expect(() => encodeOffsetIndex(BASE, [{ offset: 999, position: 1 }])).toThrow(RangeError);
    expect(() => encodeOffsetIndex(BASE, [{ offset: BASE + 2 ** 31, position: 1 }])).toThrow(RangeError);
    expect(() => encodeOffsetIndex(BASE, [{ offset: 1001, position: 1 }, { offset: 1001, position: 2 }])).toThrow(RangeError);
    expect(() => encodeOffsetIndex(BASE, [{ offset: 1001, position: 5 }, { offset: 1002, position: 5 }])).toThrow(RangeError);
  });

  it('looks up as OffsetIndex.lookup and fetchUpperBoundOffset', () => {
    const entries = [
      { offset: 1019, position: 4365 },
      { offset: 1037, position: 8746 },
    ];
    expect(lookupOffsetIndex(BASE, entries, 1000)).toEqual({ offset: BASE, position: 0 });
    expect(lookupOffsetIndex(BASE, entries, 1018)).toEqual({ offset: BASE, position: 0 });
    expect(lookupOffsetIndex(BASE, entries, 1019)).toEqual(entries[0]);
    expect(lookupOffsetIndex(BASE, entries, 1036)).toEqual(entries[0]);
    expect(lookupOffsetIndex(BASE, entries, 5000)).toEqual(entries[1]);
    expect(upperBoundOffsetIndex(entries, 0)).toEqual(entries[0]);
    expect(upperBoundOffsetIndex(entries, 4366)).toEqual(entries[1]);
    expect(upperBoundOffsetIndex(entries, 8747)).toBeUndefined();
  });
});

describe('time index', () => {
  const T = 1_796_190_698_250;

  it('round-trips 12-byte entries: int64 timestamp, int32 relative offset', () => {
    const entries = [
      { timestamp: T, offset: 1019 },
      { timestamp: T + 66, offset: 1037 },
      { timestamp: T + 176, offset: 1065 },
    ];
    const buf = encodeTimeIndex(BASE, entries);
    expect(buf.length).toBe(36);
    expect(buf.subarray(0, 12).toString('hex')).toBe('000001a2354efb0a00000013');
    expect(unwrap(decodeTimeIndex(BASE, buf))).toEqual({ entries, preallocatedBytes: 0 });
    // Timestamp 0 is a timestamp (above NO_TIMESTAMP).
    expect(unwrap(decodeTimeIndex(BASE, encodeTimeIndex(BASE, [{ timestamp: 0, offset: BASE }]))).entries).toEqual([{ timestamp: 0, offset: BASE }]);
  });

  it('reads a preallocated tail as zeros, not entries', () => {
    const buf = Buffer.concat([encodeTimeIndex(BASE, [{ timestamp: T, offset: 1003 }]), Buffer.alloc(12 * 10)]);
    expect(unwrap(decodeTimeIndex(BASE, buf))).toEqual({ entries: [{ timestamp: T, offset: 1003 }], preallocatedBytes: 120 });
    // Kafka's preallocated size, 10 MiB rounded down to whole entries, untouched: no entries.
    expect(unwrap(decodeTimeIndex(BASE, Buffer.alloc(10485756)))).toEqual({ entries: [], preallocatedBytes: 10485756 });
    // A trimmed index of one entry, timestamp 0 at the base offset, is that entry.
    expect(unwrap(decodeTimeIndex(BASE, Buffer.alloc(12)))).toEqual({ entries: [{ timestamp: 0, offset: BASE }], preallocatedBytes: 0 });
  });

  it("fails TimeIndex.sanityCheck's rules and maybeAppend's", () => {
    const entry = (ts: bigint, rel: number): Buffer => {
      const b = Buffer.alloc(12);
      b.writeBigInt64BE(ts, 0);
      b.writeInt32BE(rel, 8);
      return b;
    };
    const e = (...parts: Buffer[]): string => {
      const d = decodeTimeIndex(BASE, Buffer.concat(parts), { file: 't.timeindex' });
      return d.ok ? 'ok' : d.error.message;
    };
    expect(e(Buffer.alloc(13))).toBe('t.timeindex: is corrupt, found 13 bytes which is not a multiple of 12');
    expect(e(entry(100n, -1))).toMatch(/byte 0: entry 0 has offset 999, below the base offset/);
    expect(e(entry(100n, 1), entry(99n, 2))).toMatch(/byte 12: entry 1 has timestamp 99, not above the previous entry's 100/);
    expect(e(entry(100n, 1), entry(100n, 2))).toMatch(/not above the previous entry's 100/);
    expect(e(entry(100n, 5), entry(101n, 4))).toMatch(/entry 1 has offset 1004, below the previous entry's 1005/);
    expect(e(entry(-1n, 0))).toMatch(/timestamp -1, not above NO_TIMESTAMP/);
    expect(e(entry(2n ** 62n, 0))).toMatch(/safe-integer range/);
    expect(e(entry(100n, 5), entry(101n, 5))).toBe('ok');
  });

  it('refuses to encode what maybeAppend would skip or refuse', () => {
    expect(() => encodeTimeIndex(BASE, [{ timestamp: -1, offset: BASE }])).toThrow(RangeError);
    expect(() => encodeTimeIndex(BASE, [{ timestamp: 5, offset: 1001 }, { timestamp: 5, offset: 1002 }])).toThrow(RangeError);
    expect(() => encodeTimeIndex(BASE, [{ timestamp: 5, offset: 1002 }, { timestamp: 6, offset: 1001 }])).toThrow(RangeError);
    expect(() => encodeTimeIndex(BASE, [{ timestamp: 5, offset: 999 }])).toThrow(RangeError);
  });

  it('adds the max timestamp on roll only when it is above the last entry (maybeAppend)', () => {
    expect(timeIndexEntryOnRoll([], -1, BASE)).toBeNull();
    expect(timeIndexEntryOnRoll([], 0, 1002)).toEqual({ timestamp: 0, offset: 1002 });
    expect(timeIndexEntryOnRoll([{ timestamp: 50, offset: 1003 }], 50, 1003)).toBeNull();
    expect(timeIndexEntryOnRoll([{ timestamp: 50, offset: 1003 }], 40, 1001)).toBeNull();
    expect(timeIndexEntryOnRoll([{ timestamp: 50, offset: 1003 }], 60, 1009)).toEqual({ timestamp: 60, offset: 1009 });
  });

  it('looks up as TimeIndex.lookup', () => {
    const entries = [
      { timestamp: 10, offset: 1005 },
      { timestamp: 20, offset: 1009 },
    ];
    expect(lookupTimeIndex(BASE, entries, 9)).toEqual({ timestamp: -1, offset: BASE });
    expect(lookupTimeIndex(BASE, entries, 10)).toEqual(entries[0]);
    expect(lookupTimeIndex(BASE, entries, 19)).toEqual(entries[0]);
    expect(lookupTimeIndex(BASE, entries, 99)).toEqual(entries[1]);
  });
});

describe('transaction index', () => {
  const entries = [
    { producerId: 2n, firstOffset: 1082, lastOffset: 1083, lastStableOffset: 1084 },
    { producerId: 2n, firstOffset: 990, lastOffset: 1087, lastStableOffset: 1088 },
    { producerId: 2n ** 62n, firstOffset: 1090, lastOffset: 1091, lastStableOffset: 1092 },
  ];

  it('round-trips 34-byte AbortedTxn entries, version 0', () => {
    const buf = encodeTxnIndex(entries);
    expect(buf.length).toBe(102);
    expect(buf.subarray(0, 34).toString('hex')).toBe('0000' + '0000000000000002' + '000000000000043a' + '000000000000043b' + '000000000000043c');
    expect(unwrap(decodeTxnIndex(BASE, buf))).toEqual({ entries, partialTailBytes: 0 });
    expect(unwrap(decodeTxnIndex(BASE, Buffer.alloc(0)))).toEqual({ entries: [], partialTailBytes: 0 });
  });

  it('reports a torn last entry instead of reading it, as TransactionIndex does', () => {
    const buf = encodeTxnIndex(entries);
    for (let cut = 1; cut < 34; cut++) {
      expect(unwrap(decodeTxnIndex(BASE, buf.subarray(0, 68 + cut)))).toEqual({ entries: entries.slice(0, 2), partialTailBytes: cut });
    }
  });

  it("fails TransactionIndex's checks", () => {
    const e = (buf: Buffer, base = BASE): string => {
      const d = decodeTxnIndex(base, buf, { file: 'x.txnindex' });
      return d.ok ? 'ok' : d.error.message;
    };
    const v1 = encodeTxnIndex(entries.slice(0, 1));
    v1.writeInt16BE(1, 0);
    expect(e(v1)).toBe('x.txnindex byte 0: aborted transaction 0 has version 1, current version is 0');
    // sanityCheck: a last offset below the segment's base offset.
    expect(e(encodeTxnIndex(entries), 1084)).toMatch(/last offset 1083 of aborted transaction 0 is less than start offset 1084/);
    const swapped = Buffer.concat([encodeTxnIndex([entries[1]]), encodeTxnIndex([entries[0]])]);
    expect(e(swapped)).toMatch(/byte 34: aborted transaction 1 has last offset 1083, not above the previous one's 1087/);
    const inverted = encodeTxnIndex([{ producerId: 1n, firstOffset: 1085, lastOffset: 1083, lastStableOffset: 1086 }]);
    expect(e(inverted)).toMatch(/first offset 1085 and last offset 1083/);
    expect(() => encodeTxnIndex([entries[1], entries[0]])).toThrow(RangeError);
  });
});

describe("the index entries Kafka's LogSegment keeps", () => {
  // Batches of 487 bytes at 1 ms apart: with index.interval.bytes 4096 the 10th batch (position
  // 4383, 4383 - 0 > 4096) gets the first entry, then every 9th.
  const batches: IndexableBatch[] = Array.from({ length: 30 }, (_, i) => ({
    position: i * 487,
    size: 487,
    lastOffset: BASE + 2 * i + 1,
    maxTimestamp: 1_000 + i,
  }));

  it('indexes the batch past index.interval.bytes and adds the max timestamp on roll', () => {
    const { offsetIndex, timeIndex } = buildSegmentIndexes(BASE, batches, 4096);
    expect(offsetIndex).toEqual([
      { offset: BASE + 19, position: 9 * 487 },
      { offset: BASE + 37, position: 18 * 487 },
      { offset: BASE + 55, position: 27 * 487 },
    ]);
    expect(timeIndex).toEqual([
      { timestamp: 1009, offset: BASE + 19 },
      { timestamp: 1018, offset: BASE + 37 },
      { timestamp: 1027, offset: BASE + 55 },
      { timestamp: 1029, offset: BASE + 59 },
    ]);
    expect(verifyOffsetIndex(offsetIndex, batches)).toEqual([]);
    expect(verifyTimeIndex(timeIndex, batches)).toEqual([]);
  });

  it('keeps the first batch holding the max timestamp, and no time entry for a timestamp that does not grow', () => {
    const flat: IndexableBatch[] = batches.map((b, i) => ({ ...b, maxTimestamp: i < 5 ? 1000 + i : 1004 }));
    const { offsetIndex, timeIndex } = buildSegmentIndexes(BASE, flat, 4096);
    expect(offsetIndex).toHaveLength(3);
    expect(timeIndex).toEqual([{ timestamp: 1004, offset: BASE + 9 }]);
    expect(verifyTimeIndex(timeIndex, flat)).toEqual([]);
  });

  it('gives magic-0 batches (no timestamps) an empty time index', () => {
    const v0 = batches.map((b) => ({ ...b, maxTimestamp: -1 }));
    expect(buildSegmentIndexes(BASE, v0, 4096).timeIndex).toEqual([]);
  });

  it('indexes every batch but the first with index.interval.bytes 0', () => {
    const { offsetIndex } = buildSegmentIndexes(BASE, batches.slice(0, 4), 0);
    expect(offsetIndex.map((e) => e.position)).toEqual([487, 974, 1461]);
  });

  it('resumes a loaded segment counting from its end, as a reopened LogSegment does', () => {
    const b = new SegmentIndexBuilder(BASE, 4096, { lastIndexedPosition: 10 * 487, timeIndex: [{ timestamp: 1009, offset: BASE + 19 }] });
    expect(b.maxTimestampSoFar).toEqual({ timestamp: 1009, offset: BASE + 19 });
    for (const batch of batches.slice(10)) b.add(batch);
    expect(b.offsetIndex.map((e) => e.position)).toEqual([19 * 487, 28 * 487]);
  });

  it('verification names entries that point nowhere or disagree with the batch', () => {
    expect(verifyOffsetIndex([{ offset: BASE + 19, position: 100 }], batches)).toEqual(['offset index entry (offset 1019, position 100) points at no batch']);
    expect(verifyOffsetIndex([{ offset: BASE + 18, position: 9 * 487 }], batches)).toEqual([
      'offset index entry (offset 1018, position 4383): the batch there ends at offset 1019',
    ]);
    expect(verifyTimeIndex([{ timestamp: 5, offset: BASE + 19 }], batches)).toEqual(['time index entry (timestamp 5, offset 1019): the batch\'s max timestamp is 1009']);
  });
});
