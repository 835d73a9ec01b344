// The recovery scan of a .log (src/broker/storage/format/log-scan.ts), after LogSegment.recover and
// FileLogInputStream: every batch found with its metadata; a torn tail cut at every byte; every
// byte flipped; hostile size fields; legacy magic 0/1 message sets; offsets out of the segment's
// range or order; the piecewise reader; the indexes rebuilt in the same pass.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildSegmentIndexes,
  fileSource,
  scanLogSegment,
  type ScannedBatch,
  type SegmentScan,
  type SegmentSource,
} from '../../../../src/broker/storage/format/index.js';
import { encodeBatch, encodeEndTxnMarkerBatch, encodeMessageSet, setPartitionLeaderEpoch } from '../../../../src/codec/records/index.js';

const BASE = 100;
const T = 1_700_000_000_000;

/** A segment of v2 batches: plain, idempotent, transactional + markers, gzip, LogAppendTime, an epoch change. */
function v2Segment(): { file: Buffer; batches: Buffer[] } {
  const batches: Buffer[] = [];
  let offset = BASE;
  const add = (b: Buffer, epoch = 0): void => {
    setPartitionLeaderEpoch(b, epoch);
    batches.push(b);
    offset += b.readInt32BE(23) + 1;
  };
  add(encodeBatch({ baseOffset: BigInt(offset), records: [{ key: 'k', value: 'v0', timestamp: T }, { value: 'v1', timestamp: T + 5 }] }));
  add(encodeBatch({ baseOffset: BigInt(offset), producerId: 7n, producerEpoch: 1, baseSequence: 0, records: [{ value: 'idem', timestamp: T + 2 }] }));
  add(encodeBatch({ baseOffset: BigInt(offset), producerId: 9n, producerEpoch: 0, baseSequence: 0, isTransactional: true, records: [{ value: 't', timestamp: T + 9 }] }));
  add(encodeEndTxnMarkerBatch({ commit: false, producerId: 9n, producerEpoch: 0, coordinatorEpoch: 3, timestamp: T + 10, baseOffset: BigInt(offset) }));
  add(encodeBatch({ baseOffset: BigInt(offset), compression: 'gzip', records: Array.from({ length: 20 }, (_, i) => ({ value: `gz${i}`, timestamp: T + 20 })) }), 2);
  add(encodeBatch({ baseOffset: BigInt(offset), timestampType: 1, maxTimestamp: T + 30, records: [{ value: 'lat', timestamp: T + 1 }] }), 2);
  add(encodeEndTxnMarkerBatch({ commit: true, producerId: 9n, producerEpoch: 0, coordinatorEpoch: 3, timestamp: T + 31, baseOffset: BigInt(offset) }), 5);
  return { file: Buffer.concat(batches), batches };
}

const seg = v2Segment();
const boundaries = seg.batches.reduce<number[]>((acc, b) => [...acc, acc[acc.length - 1] + b.length], [0]);

function check(scan: SegmentScan): void {
  expect(scan.validBytes + scan.truncatedBytes).toBe(scan.fileBytes);
  expect(scan.batches.length).toBe(scan.batchCount);
}

describe('scanning a clean segment', () => {
  const scan = scanLogSegment(seg.file, BASE, { indexIntervalBytes: 100 });

  it('finds every batch with its header fields', () => {
    check(scan);
    expect(scan.stop).toEqual({ kind: 'end' });
    expect(scan.validBytes).toBe(seg.file.length);
    expect(scan.batchCount).toBe(7);
    expect(scan.batches.map((b) => [b.position, b.size, b.baseOffset, b.lastOffset])).toEqual(
      seg.batches.map((b, i) => [boundaries[i], b.length, [100, 102, 103, 104, 105, 125, 126][i], [101, 102, 103, 104, 124, 125, 126][i]]),
    );
    const [plain, idem, txn, abort, gzip, lat, commit] = scan.batches;
    expect(plain).toMatchObject({ magic: 2, maxTimestamp: T + 5, producerId: -1n, producerEpoch: -1, baseSequence: -1, isTransactional: false, isControl: false, recordCount: 2, codec: 0, timestampType: 0, partitionLeaderEpoch: 0 });
    expect(plain.controlType).toBeUndefined();
    expect(idem).toMatchObject({ producerId: 7n, producerEpoch: 1, baseSequence: 0, isTransactional: false });
    expect(txn).toMatchObject({ producerId: 9n, isTransactional: true, isControl: false });
    expect(abort).toMatchObject({ isTransactional: true, isControl: true, controlType: 0, baseSequence: -1 });
    expect(gzip).toMatchObject({ codec: 1, recordCount: 20, partitionLeaderEpoch: 2 });
    expect(lat).toMatchObject({ timestampType: 1, maxTimestamp: T + 30 });
    expect(commit).toMatchObject({ controlType: 1, partitionLeaderEpoch: 5 });
    expect(plain.crc).toBe(seg.batches[0].readUInt32BE(17));
  });

  it('answers the next offset, the max timestamp and the leader epochs recover assigns', () => {
    expect(scan.nextOffset).toBe(127);
    expect(scan.maxTimestamp).toBe(T + 31);
    expect(scan.offsetOfMaxTimestamp).toBe(126);
    expect(scan.epochs).toEqual([
      { epoch: 0, startOffset: 100 },
      { epoch: 2, startOffset: 105 },
      { epoch: 5, startOffset: 126 },
    ]);
    expect(scanLogSegment(seg.file, BASE, { latestEpoch: 2 }).epochs).toEqual([{ epoch: 5, startOffset: 126 }]);
  });

  it('rebuilds the indexes as buildSegmentIndexes does over the batches', () => {
    expect(scan.indexes).toEqual(buildSegmentIndexes(BASE, scan.batches, 100));
    expect(scan.indexes!.offsetIndex.length).toBeGreaterThan(0);
    expect(scan.indexes!.timeIndex[scan.indexes!.timeIndex.length - 1]).toEqual({ timestamp: T + 31, offset: 126 });
  });

  it('reports an empty file as a clean end at the base offset', () => {
    const empty = scanLogSegment(Buffer.alloc(0), BASE, { indexIntervalBytes: 4096 });
    expect(empty).toMatchObject({ validBytes: 0, batchCount: 0, stop: { kind: 'end' }, nextOffset: BASE, maxTimestamp: -1, offsetOfMaxTimestamp: -1 });
    expect(empty.indexes).toEqual({ offsetIndex: [], timeIndex: [] });
  });

  it('can skip collecting and hand each batch to a callback', () => {
    const seen: Array<[ScannedBatch, number]> = [];
    const s = scanLogSegment(seg.file, BASE, { collect: false, onBatch: (b, bytes) => seen.push([b, bytes.length]) });
    expect(s.batches).toEqual([]);
    expect(s.batchCount).toBe(7);
    expect(seen.map(([b, n]) => [b.position, n])).toEqual(seg.batches.map((b, i) => [boundaries[i], b.length]));
  });
});

describe('a torn tail, cut at every byte', () => {
  it('keeps the whole batches before the cut and says the tail is torn', () => {
    for (let n = 0; n <= seg.file.length; n++) {
      const scan = scanLogSegment(seg.file.subarray(0, n), BASE);
      check(scan);
      const whole = boundaries.filter((b) => b <= n);
      const valid = whole[whole.length - 1];
      expect(scan.validBytes, `cut at ${n}`).toBe(valid);
      expect(scan.batchCount).toBe(whole.length - 1);
      if (n === valid) expect(scan.stop).toEqual({ kind: 'end' });
      else {
        expect(scan.stop).toMatchObject({ kind: 'torn', position: valid, reason: n - valid <= 17 ? 'truncated-header' : 'truncated-batch' });
      }
    }
  });
});

describe('a flipped byte', () => {
  it('stops at the batch holding it: CRC-covered bytes as a CRC mismatch', () => {
    for (let i = 0; i < seg.file.length; i++) {
      const bad = Buffer.from(seg.file);
      bad[i] ^= 0x04;
      const scan = scanLogSegment(bad, BASE);
      check(scan);
      const k = boundaries.findIndex((b, j) => b <= i && i < boundaries[j + 1]);
      const start = boundaries[k];
      const inBatch = i - start;
      if (inBatch >= 17) {
        // attributes to the end: the CRC-32C covers them; the CRC field itself too (17-20).
        expect(scan.stop, `byte ${i}`).toMatchObject({ kind: 'corrupt', reason: 'crc', position: start });
        expect(scan.validBytes).toBe(start);
      } else if (inBatch >= 12) {
        // partitionLeaderEpoch (12-15) is outside the CRC, as in Kafka: the batch passes with
        // another epoch. The magic byte (16) does not.
        if (inBatch === 16) expect(scan.stop, `byte ${i}`).toMatchObject({ kind: 'corrupt', position: start });
        else expect(scan.validBytes, `byte ${i}`).toBe(seg.file.length);
      } else if (inBatch >= 8) {
        // The size field: a torn or corrupt size, or a CRC mismatch of the misframed batch.
        expect(scan.validBytes, `byte ${i}`).toBe(start);
        expect(scan.stop.kind, `byte ${i}`).not.toBe('end');
      } else {
        // baseOffset is outside the CRC too: a flip that keeps offsets in range and increasing
        // passes (as in Kafka), and the next batch's offsets then fail the order check.
        expect(scan.validBytes, `byte ${i}`).toBeLessThanOrEqual(boundaries[k + 1]);
        if (scan.validBytes === boundaries[k + 1] && k + 1 < seg.batches.length) {
          expect(scan.stop, `byte ${i}`).toMatchObject({ kind: 'corrupt', reason: 'offset-order', position: boundaries[k + 1] });
        }
      }
    }
  });
});

describe('hostile sizes', () => {
  function withLength(length: number, at = boundaries[2]): Buffer {
    const b = Buffer.from(seg.file);
    b.writeInt32BE(length, at + 8);
    return b;
  }

  it('calls sizes below the smallest message corrupt, as FileLogInputStream', () => {
    for (const length of [-2147483648, -1, 0, 13]) {
      const scan = scanLogSegment(withLength(length), BASE);
      expect(scan.stop).toMatchObject({ kind: 'corrupt', reason: 'size', position: boundaries[2] });
      expect(scan.stop.kind !== 'end' && scan.stop.message).toMatch(new RegExp(`segment 100 byte ${boundaries[2]}: record size ${length} is smaller than the minimum record overhead \\(14\\)`));
      expect(scan.validBytes).toBe(boundaries[2]);
    }
  });

  it('calls a v2 size below the 61-byte header corrupt', () => {
    for (const length of [14, 30, 48]) expect(scanLogSegment(withLength(length), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'size' });
  });

  it('takes a size past the end of the file as a torn tail, or as corrupt above maxBatchBytes', () => {
    const huge = withLength(0x7fffffff);
    expect(scanLogSegment(huge, BASE).stop).toMatchObject({ kind: 'torn', reason: 'truncated-batch', position: boundaries[2] });
    expect(scanLogSegment(huge, BASE, { maxBatchBytes: 1 << 20 }).stop).toMatchObject({ kind: 'corrupt', reason: 'size', position: boundaries[2] });
    // One byte too long: the batch swallows the next one's first byte and fails its CRC.
    expect(scanLogSegment(withLength(seg.batches[2].length - 11), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'crc' });
  });

  it('refuses magic bytes no Kafka wrote', () => {
    for (const magic of [3, 127, -1]) {
      const b = Buffer.from(seg.file);
      b.writeInt8(magic, boundaries[1] + 16);
      expect(scanLogSegment(b, BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'magic', position: boundaries[1] });
    }
  });

  it('survives random garbage (never throws, never passes the garbage)', () => {
    let seed = 12345;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let run = 0; run < 300; run++) {
      const junk = Buffer.alloc(Math.floor(rand() * 300));
      for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(rand() * 256);
      if (rand() < 0.5 && junk.length > 20) junk.writeInt32BE(Math.floor(rand() * 400) - 50, 8);
      const scan = scanLogSegment(Buffer.concat([seg.batches[0], junk]), BASE);
      check(scan);
      expect(scan.validBytes).toBeGreaterThanOrEqual(seg.batches[0].length);
    }
  });
});

describe('offsets', () => {
  const one = (o: number): Buffer => encodeBatch({ baseOffset: BigInt(o), records: [{ value: 'x', timestamp: T }, { value: 'y', timestamp: T }] });
  const at = (...offsets: number[]): Buffer => Buffer.concat(offsets.map(one));
  const size = one(0).length;

  it('must start at or above the base offset and fit an int32 relative to it', () => {
    expect(scanLogSegment(at(99), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-range', position: 0 });
    expect(scanLogSegment(at(100, 100 + 2 ** 31 - 1), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-range', position: size });
    expect(scanLogSegment(at(100, 100 + 2 ** 31 - 2), BASE).stop).toEqual({ kind: 'end' });
  });

  it('must increase from batch to batch', () => {
    expect(scanLogSegment(at(100, 101), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-order', position: size });
    expect(scanLogSegment(at(100, 102, 102), BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-order', position: 2 * size });
    expect(scanLogSegment(at(100, 105), BASE).stop).toEqual({ kind: 'end' });
    expect(scanLogSegment(at(100), BASE, { previousLastOffset: 100 }).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-order' });
    const backwards = encodeBatch({ baseOffset: 110n, lastOffsetDelta: -1, records: [{ value: 'x', timestamp: T }] });
    expect(scanLogSegment(backwards, BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'offset-order' });
  });
});

describe('legacy message sets (magic 0 and 1)', () => {
  const v0 = encodeMessageSet({ magic: 0, baseOffset: 100n, messages: [{ value: 'a' }, { key: 'k', value: 'b' }] });
  const v1 = encodeMessageSet({ magic: 1, baseOffset: 102n, messages: [{ value: 'c', timestamp: T }] });
  const v1gz = encodeMessageSet({ magic: 1, baseOffset: 103n, compression: 'gzip', messages: [{ value: 'd', timestamp: T + 1 }, { value: 'e', timestamp: T + 2 }] });
  const v1lat = encodeMessageSet({ magic: 1, baseOffset: 105n, timestampType: 1, messages: [{ value: 'f', timestamp: T + 9 }] });
  const file = Buffer.concat([v0, v1, v1gz, v1lat]);

  it('reads them as Kafka does, without decompressing', () => {
    const scan = scanLogSegment(file, BASE, { indexIntervalBytes: 0 });
    expect(scan.stop).toEqual({ kind: 'end' });
    expect(scan.batches.map((b) => [b.magic, b.baseOffset, b.lastOffset, b.maxTimestamp, b.recordCount, b.codec, b.timestampType])).toEqual([
      [0, 100, 100, -1, 1, 0, 0],
      [0, 101, 101, -1, 1, 0, 0],
      [1, 102, 102, T, 1, 0, 0],
      [1, null, 104, T + 2, null, 1, 0],
      [1, 105, 105, T + 9, 1, 0, 1],
    ]);
    expect(scan.batches[0]).toMatchObject({ producerId: -1n, producerEpoch: -1, baseSequence: -1, partitionLeaderEpoch: -1, isControl: false });
    expect(scan.epochs).toEqual([]);
    expect(scan.nextOffset).toBe(106);
    // v0 messages have no timestamp: the time index starts at the first magic-1 one.
    expect(scan.indexes!.timeIndex[0]).toEqual({ timestamp: T, offset: 102 });
  });

  it('checks their CRC-32 over the magic byte onwards', () => {
    for (let i = 16; i < v1.length; i++) {
      const bad = Buffer.from(file);
      bad[v0.length + i] ^= 1;
      const stop = scanLogSegment(bad, BASE).stop;
      expect(stop, `byte ${i}`).toMatchObject({ kind: 'corrupt', position: v0.length });
    }
  });

  it('calls a magic-1 message shorter than its 22-byte overhead corrupt', () => {
    const short = Buffer.from(v0.subarray(0, 27));
    short.writeInt8(1, 16);
    expect(scanLogSegment(short, BASE).stop).toMatchObject({ kind: 'corrupt', reason: 'size' });
  });
});

describe('reading piecewise', () => {
  /** A source over `buf` that records its reads and returns at most `cap` bytes per read. */
  function source(buf: Buffer, cap = Infinity): SegmentSource & { reads: Array<[number, number]> } {
    const reads: Array<[number, number]> = [];
    return {
      size: buf.length,
      reads,
      read(position, length) {
        reads.push([position, length]);
        return Buffer.from(buf.subarray(position, Math.min(buf.length, position + Math.min(length, cap))));
      },
    };
  }

  it('gives the same answer through a small window, reading each byte about once', () => {
    const whole = scanLogSegment(seg.file, BASE, { indexIntervalBytes: 100 });
    for (const readAheadBytes of [1, 17, 64, 200, 1 << 20]) {
      const src = source(seg.file);
      const scan = scanLogSegment(src, BASE, { indexIntervalBytes: 100, readAheadBytes });
      expect(scan).toEqual(whole);
      // A batch straddling the window is read again from its start: at most one window per batch.
      const bytesRead = src.reads.reduce((n, [, l]) => n + l, 0);
      expect(bytesRead).toBeLessThanOrEqual(seg.file.length + (17 + Math.min(readAheadBytes, seg.file.length)) * seg.batches.length);
      const largest = Math.max(...seg.batches.map((b) => b.length));
      for (const [, l] of src.reads) expect(l).toBeLessThanOrEqual(Math.max(readAheadBytes, largest));
    }
  });

  it('takes a source that comes up short as a torn file', () => {
    const src = source(seg.file, 50);
    const scan = scanLogSegment(src, BASE, { readAheadBytes: 40 });
    expect(scan.stop).toMatchObject({ kind: 'torn', position: 0 });
  });

  it('reads a real file through fileSource', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-scan-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, '00000000000000000100.log');
    writeFileSync(path, Buffer.concat([seg.file, Buffer.from('torn tail bytes!!!!!')]));
    const fd = openSync(path, 'r');
    try {
      const scan = scanLogSegment(fileSource(fd), BASE, { readAheadBytes: 128, file: path });
      expect(scan.validBytes).toBe(seg.file.length);
      expect(scan.batchCount).toBe(7);
      expect(scan.stop).toMatchObject({ kind: 'torn', reason: 'truncated-batch', position: seg.file.length });
      expect(scan.stop.kind !== 'end' && scan.stop.message.startsWith(`${path} byte ${seg.file.length}:`)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });
});
