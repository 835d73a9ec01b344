// Compaction as the log manager runs it (compaction.ts over cleaner.ts): which range is cleanable
// (LogCleanerManager.cleanableOffsets: the active segment, the last stable offset,
// min.compaction.lag.ms; min.cleanable.dirty.ratio; max.compaction.lag.ms), segments grouped and
// replaced (offsets kept), the checkpoint, and a property run against a model of Kafka's rule:
// below the first uncleanable offset only the latest record of each key stays, tombstones until
// their delete horizon; at and after it everything stays.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactLog, groupSegmentsBySize, isCleanable, logToClean } from '../../../src/broker/log/compaction.js';
import { DEFAULT_LOG_CONFIG, PartitionLog, type LogConfig } from '../../../src/broker/log/partition-log.js';
import { decodeRecords, encodeBatch, type RecordBatch } from '../../../src/codec/records/index.js';

const NOW = 1_700_000_000_000;

function keyed(key: string, value: string | null, ts = NOW): Buffer {
  return encodeBatch({ records: [{ key, value, timestamp: ts }] });
}

function records(l: PartitionLog): Array<[number, string, string | null]> {
  const out: Array<[number, string, string | null]> = [];
  for (const b of l.storedBatches()) {
    for (const e of decodeRecords(b).entries as RecordBatch[]) {
      for (const r of e.records) out.push([Number(e.baseOffset) + r.offsetDelta, r.key!.toString(), r.value === null ? null : r.value.toString()]);
    }
  }
  return out;
}

function compacted(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, compact: true, delete: false, segmentBytes: keyed('a', 'v0').length * 2, minCleanableDirtyRatio: 0.5, ...overrides };
}

describe('cleanable range and choice', () => {
  it('never cleans the active segment; keeps the latest record per key below it; offsets unchanged', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = compacted();
    for (const [k, v] of [['a', 'v0'], ['b', 'v1'], ['a', 'v2'], ['b', 'v3'], ['a', 'v4']]) l.appendAsLeader(keyed(k, v), c, NOW);
    expect(l.logSegments.map((s) => s.baseOffset)).toEqual([0, 2, 4]);
    const ltc = logToClean(l, c, NOW);
    expect(ltc.firstUncleanableOffset).toBe(4);
    expect(isCleanable(ltc)).toBe(true);
    compactLog(ltc, NOW);
    expect(records(l)).toEqual([
      [2, 'a', 'v2'],
      [3, 'b', 'v3'],
      [4, 'a', 'v4'],
    ]);
    // groupSegmentsBySize counts the segments' sizes before cleaning: two full segments are two groups
    expect(l.logSegments.map((s) => s.baseOffset)).toEqual([0, 2, 4]);
    expect(l.firstDirtyOffset).toBe(4);
    // nothing dirty left below the active segment: not cleanable
    expect(isCleanable(logToClean(l, c, NOW))).toBe(false);
    // reads still find every offset that stayed
    expect(l.read(0, 1 << 20, true).records.length).toBe(2);
  });

  it('min.cleanable.dirty.ratio: a log is cleaned when its dirty share passes it', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = compacted({ minCleanableDirtyRatio: 0.99 });
    for (let i = 0; i < 5; i++) l.appendAsLeader(keyed('a', `v${i}`), c, NOW);
    const ltc = logToClean(l, c, NOW);
    expect(ltc.cleanableRatio).toBe(1);
    expect(isCleanable(ltc)).toBe(true);
    compactLog(ltc, NOW);
    l.appendAsLeader(keyed('a', 'v5'), c, NOW);
    l.appendAsLeader(keyed('a', 'v6'), c, NOW); // rolls: a new dirty segment behind the active one
    const again = logToClean(l, c, NOW);
    expect(again.cleanableRatio).toBeLessThan(0.99);
    expect(isCleanable(again)).toBe(false);
  });

  it('min.compaction.lag.ms: segments younger than the lag stay dirty', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = compacted({ minCompactionLagMs: 10_000 });
    for (let i = 0; i < 5; i++) l.appendAsLeader(keyed('a', `v${i}`, NOW), c, NOW);
    expect(logToClean(l, c, NOW + 5000).firstUncleanableOffset).toBe(0);
    expect(logToClean(l, c, NOW + 10_001).firstUncleanableOffset).toBe(4);
  });

  it('max.compaction.lag.ms makes a log cleanable below the dirty ratio', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = compacted({ minCleanableDirtyRatio: 0.99, maxCompactionLagMs: 1000 });
    for (let i = 0; i < 4; i++) l.appendAsLeader(keyed(`k${i}`, 'v', NOW), c, NOW);
    l.appendAsLeader(keyed('k0', 'w', NOW), c, NOW);
    const ltc = logToClean(l, { ...c }, NOW + 2000);
    expect(ltc.needCompactionNow).toBe(true);
    expect(isCleanable(ltc)).toBe(true);
  });

  it('a log of one (active) segment has nothing cleanable', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = compacted();
    l.appendAsLeader(keyed('a', 'v0'), c, NOW);
    l.appendAsLeader(keyed('a', 'v1'), c, NOW);
    const ltc = logToClean(l, c, NOW);
    expect(ltc.firstUncleanableOffset).toBe(0);
    expect(isCleanable(ltc)).toBe(false);
  });

  it('groupSegmentsBySize: consecutive segments while the sum stays within segment.bytes', () => {
    const l = new PartitionLog('t', 0, NOW);
    const one = keyed('a', 'v').length;
    const c = compacted({ segmentBytes: one });
    for (let i = 0; i < 5; i++) l.appendAsLeader(keyed('a', 'v'), c, NOW);
    const groups = groupSegmentsBySize(l.logSegments.slice(0, 4), one * 2, 10 << 20, 4);
    expect(groups.map((g) => g.map((s) => s.baseOffset))).toEqual([[0, 1], [2, 3]]);
  });
});

describe('compaction against a model of Kafka rules (property)', () => {
  it('latest record per key below the first uncleanable offset, everything after it, offsets kept', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.option(fc.constantFrom('1', '2', '3'), { freq: 5 })), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 6 }), (ops, perSegment) => {
        const l = new PartitionLog('t', 0, NOW);
        const c = compacted({ segmentBytes: keyed('a', '1').length * perSegment, minCleanableDirtyRatio: 0, deleteRetentionMs: 1_000_000_000 });
        ops.forEach(([k, v]) => l.appendAsLeader(keyed(k, v), c, NOW));
        const before = records(l);
        const ltc = logToClean(l, c, NOW);
        const end = ltc.firstUncleanableOffset;
        if (!isCleanable(ltc)) return;
        compactLog(ltc, NOW);
        const latest = new Map<string, number>();
        for (const [o, k] of before) if (o < end) latest.set(k, o);
        const expected = before.filter(([o, k]) => o >= end || latest.get(k) === o);
        expect(records(l)).toEqual(expected);
        expect(l.logEndOffset).toBe(ops.length);
        // every retained offset reads back from the log
        for (const [o] of expected) {
          const r = l.read(o, 1 << 20, true);
          const got = (decodeRecords(Buffer.concat(r.records)).entries as RecordBatch[]).map((b) => Number(b.baseOffset));
          expect(got[0]).toBe(o);
        }
      }),
      { numRuns: 300 },
    );
  });
});
