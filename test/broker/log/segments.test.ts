// Segments and retention, as Kafka 3.9's UnifiedLog/LogSegment keep them (examples after
// UnifiedLogTest / LogSegmentTest): rolls by size, time (from the first batch's timestamp, with
// jitter) and full indexes; reads that stop at a segment's end; retention by time, by size and by
// the log start offset, never at the active segment when empty, rolling before deleting them all;
// the log manager's schedule on a manual clock; the stored-memory cap.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog, type LogConfig } from '../../../src/broker/log/partition-log.js';
import { LOG_INITIAL_TASK_DELAY_MS, LogManager } from '../../../src/broker/log/log-manager.js';
import { BrokerLogDefaults } from '../../../src/broker/log/log-config.js';
import { TopicStore } from '../../../src/broker/log/topics.js';
import { BrokerClock } from '../../../src/broker/time/broker-clock.js';
import { DEFAULT_CONFIG, type BrokerConfig } from '../../../src/broker/config.js';
import { randomIds } from '../../../src/broker/ids.js';
import { encodeBatch, decodeRecords, type RecordBatch } from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;

function batch(n: number, ts = NOW, key = 'k'): Buffer {
  return encodeBatch({ records: Array.from({ length: n }, (_, i) => ({ key: `${key}${i}`, value: `value-${i}`, timestamp: ts })) });
}

function cfg(overrides: Partial<LogConfig>): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

function bases(l: PartitionLog): number[] {
  return l.logSegments.map((s) => s.baseOffset);
}

describe('rolling', () => {
  it('rolls when the next batch would pass segment.bytes, at the log end offset', () => {
    const l = new PartitionLog('t', 0, NOW);
    const size = batch(2).length;
    const c = cfg({ segmentBytes: size * 2 });
    for (let i = 0; i < 5; i++) expect(l.appendAsLeader(batch(2), c, NOW).baseOffset).toBe(i * 2);
    expect(bases(l)).toEqual([0, 4, 8]);
    expect(l.logSegments.map((s) => s.size)).toEqual([size * 2, size * 2, size]);
    expect(l.size).toBe(size * 5);
  });

  it('rolls by segment.ms measured from the first batch timestamp, or from creation when it has none', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = cfg({ segmentMs: 1000 });
    l.appendAsLeader(batch(1, NOW), c, NOW);
    l.appendAsLeader(batch(1, NOW + 1000), c, NOW + 1000); // waited 1000: not > 1000
    expect(bases(l)).toEqual([0]);
    l.appendAsLeader(batch(1, NOW + 1001), c, NOW + 1001);
    expect(bases(l)).toEqual([0, 2]);
    // an old timestamp in a young segment: measured on the message timestamps, no roll
    l.appendAsLeader(batch(1, NOW - 50_000), c, NOW + 5000);
    expect(bases(l)).toEqual([0, 2]);
  });

  it('rolls a compacted topic by max.compaction.lag.ms when smaller than segment.ms', () => {
    const l = new PartitionLog('t', 0, NOW);
    const c = cfg({ compact: true, segmentMs: 1_000_000, maxCompactionLagMs: 100 });
    l.appendAsLeader(batch(1, NOW), c, NOW);
    l.appendAsLeader(batch(1, NOW + 101), c, NOW + 101);
    expect(bases(l)).toEqual([0, 1]);
  });

  it('rolls when the offset index is full (segment.index.bytes / 8 entries)', () => {
    // index.interval.bytes 0: an index entry before every append after the first
    const l = new PartitionLog('t', 0, NOW, { maxIndexSize: 16 });
    const c = cfg({ indexIntervalBytes: 0, segmentIndexBytes: 16 });
    for (let i = 0; i < 6; i++) l.appendAsLeader(batch(1, NOW + i), c, NOW);
    // 16 bytes: 2 offset entries (and 1 time entry: 16 / 12) -> full after entries at appends 2 and 3
    expect(bases(l).length).toBeGreaterThan(1);
    for (const s of l.logSegments) expect(s.timeIndexTimestamps.length).toBeLessThanOrEqual(1 + 1);
  });
});

describe('reads across segments', () => {
  it('stop at the end of the segment holding the fetch offset (LocalLog.read reads one segment)', () => {
    const l = new PartitionLog('t', 0, NOW);
    const size = batch(2).length;
    const c = cfg({ segmentBytes: size * 2 });
    for (let i = 0; i < 4; i++) l.appendAsLeader(batch(2), c, NOW);
    const r = l.read(0, 1 << 20, true);
    expect(r.records.length).toBe(2);
    expect(r.startSegment).toBe(0);
    const r2 = l.read(4, 1 << 20, true);
    expect((decodeRecords(Buffer.concat(r2.records)).entries as RecordBatch[]).map((b) => b.baseOffset)).toEqual([4n, 6n]);
    expect(r2.startSegment).toBe(4);
    expect(r2.startPosition).toBe(0);
    expect(l.offsetMetadata(8)).toEqual({ offset: 8, segmentBaseOffset: 4, position: size * 2 });
  });
});

describe('retention (UnifiedLog.deleteOldSegments)', () => {
  function threeSegments(ts: number[]): { l: PartitionLog; c: LogConfig } {
    const l = new PartitionLog('t', 0, NOW);
    const c = cfg({ segmentBytes: batch(1).length });
    for (const t of ts) l.appendAsLeader(batch(1, t), c, NOW);
    return { l, c };
  }

  it('by time: segments whose largest timestamp is older than retention.ms, oldest first, stopping at the first young one', () => {
    const { l, c } = threeSegments([NOW - 10_000, NOW - 500, NOW - 10_000]);
    expect(bases(l)).toEqual([0, 1, 2]);
    const d = l.deleteOldSegments({ ...c, retentionMs: 1000 }, NOW);
    expect(d.map((x) => [x.reason, x.segments])).toEqual([['retention.ms', 1]]);
    expect(bases(l)).toEqual([1, 2]);
    expect(l.logStartOffset).toBe(1);
    expect(l.read(0, 100, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('by time, every segment: rolls a new empty active segment first, the log start offset is the log end', () => {
    const { l, c } = threeSegments([NOW - 10_000, NOW - 10_000, NOW - 10_000]);
    l.deleteOldSegments({ ...c, retentionMs: 1000 }, NOW);
    expect(bases(l)).toEqual([3]);
    expect(l.logStartOffset).toBe(3);
    expect(l.logEndOffset).toBe(3);
    // an empty last segment is never deleted
    expect(l.deleteOldSegments({ ...c, retentionMs: 0 }, NOW + 100_000)).toEqual([]);
  });

  it('by size: whole segments while the log stays at or above retention.bytes', () => {
    const { l, c } = threeSegments([NOW, NOW, NOW]);
    const size = batch(1).length;
    // 3 segments over a bound of one segment less a byte: the excess is 2 segments and a byte
    l.deleteOldSegments({ ...c, retentionBytes: size - 1 }, NOW);
    expect(bases(l)).toEqual([2]);
    // at exactly two segments: one goes (the excess is one segment)
    const { l: l2, c: c2 } = threeSegments([NOW, NOW, NOW]);
    l2.deleteOldSegments({ ...c2, retentionBytes: size * 2 }, NOW);
    expect(bases(l2)).toEqual([1, 2]);
  });

  it('with cleanup.policy=compact only the log start offset rule applies', () => {
    const { l, c } = threeSegments([NOW - 10_000, NOW - 10_000, NOW - 10_000]);
    expect(l.deleteOldSegments({ ...c, delete: false, retentionMs: 1, retentionBytes: 0 }, NOW)).toEqual([]);
    l.deleteRecords(2);
    expect(l.deleteOldSegments({ ...c, delete: false }, NOW).map((d) => d.segments)).toEqual([2]);
    expect(bases(l)).toEqual([2]);
  });

  it('the log manager runs retention after the initial delay, then every log.retention.check.interval.ms, on the broker clock', () => {
    const clock = new BrokerClock({ setting: 'manual', startMs: NOW });
    const topics = new TopicStore({ clock, ids: randomIds, startedAt: NOW });
    const config: BrokerConfig = { ...DEFAULT_CONFIG, logRetentionCheckIntervalMs: 60_000 };
    const defaults = new BrokerLogDefaults(new Map([['segment.bytes', String(batch(1).length)]]));
    const m = new LogManager({ config, topics, logDefaults: defaults, clock, log: pino({ level: 'silent' }), hasDataDir: () => false });
    const t = topics.create('t', 1, 1, new Map([['retention.ms', '1000']]));
    const l = t.partitions[0];
    const c = { ...DEFAULT_LOG_CONFIG, segmentBytes: batch(1).length, retentionMs: 1000 };
    l.appendAsLeader(batch(1, NOW), c, NOW);
    l.appendAsLeader(batch(1, NOW), c, NOW);
    m.start();
    clock.advance(LOG_INITIAL_TASK_DELAY_MS - 1);
    expect(m.stats.retentionChecks).toBe(0);
    clock.advance(1);
    expect(m.stats.retentionChecks).toBe(1);
    // both segments are past retention.ms, the active one too: a new one is rolled first
    expect(bases(l)).toEqual([2]);
    expect(l.logStartOffset).toBe(2);
    clock.advance(60_000);
    expect(m.stats.retentionChecks).toBe(2);
    m.close();
  });
});

describe('the stored-memory cap (kmock)', () => {
  it('without a data dir drops the oldest data, moves the log start offset and warns once naming the partitions', () => {
    const clock = new BrokerClock({ setting: 'manual', startMs: NOW });
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => lines.push(JSON.parse(s)) });
    const topics = new TopicStore({ clock, ids: randomIds, startedAt: NOW });
    const one = batch(10).length;
    const config: BrokerConfig = { ...DEFAULT_CONFIG, storedMaxBytes: one * 10 };
    const defaults = new BrokerLogDefaults();
    let m: LogManager | undefined;
    const t = new TopicStore({ clock, ids: randomIds, startedAt: NOW, logOptions: () => ({ onStored: (b) => m!.onStored(b) }) }).create('t', 2, 1);
    m = new LogManager({ config, topics: { all: () => [t] } as unknown as TopicStore, logDefaults: defaults, clock, log, hasDataDir: () => false });
    for (let i = 0; i < 30; i++) t.partitions[i % 2].appendAsLeader(batch(10), DEFAULT_LOG_CONFIG, NOW);
    expect(m.residentBytes()).toBeLessThanOrEqual(one * 10);
    expect(t.partitions[0].logStartOffset).toBeGreaterThan(0);
    expect(t.partitions[0].read(0, 100, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    // the newest data is still there
    expect(t.partitions[1].read(t.partitions[1].logEndOffset - 10, 1 << 20, true).records.length).toBe(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(String(lines[0].msg)).toContain('storedMaxBytes');
    expect(Object.keys(lines[0].partitions as object).sort()[0]).toMatch(/^t-[01]$/);
    void topics;
  });
});
