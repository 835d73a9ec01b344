// Storage as Kafka keeps it (issue #13): segments, retention and compaction, seen on the wire.
//
// - Segments: topics roll by segment.ms (on the records' own timestamps: LogSegment.shouldRoll
//   measures the next batch's max timestamp against the segment's first, so the layout is the
//   same on every broker and every run), by segment.bytes and by full indexes. A read stays
//   in one segment (LocalLog.read), ListOffsets v0 lists the segments' base offsets
//   (UnifiedLog.legacyFetchOffsetsBefore), ListOffsets by timestamp searches only the first
//   segment whose largest timestamp reaches the target (UnifiedLog.searchOffsetInLocalLog), and
//   MAX_TIMESTAMP takes the segment with the largest one, below the log start offset too.
// - Retention (UnifiedLog.deleteOldSegments, run by LogManager.cleanupLogs every
//   log.retention.check.interval.ms after log.initial.task.delay.ms): retention.ms, retention.bytes,
//   the log start offset after DeleteRecords, the active segment deleted (a new empty one rolled).
// - Compaction (LogCleaner, every log.cleaner.backoff.ms): the latest record per key below the
//   active segment, offsets kept, tombstones kept until delete.retention.ms after the clean that
//   first saw them (KIP-534's delete horizon), compact,delete.
// - Configs at run time: IncrementalAlterConfigs of retention.ms and min.cleanable.dirty.ratio,
//   applied by the next check (or cleaner round).
//
// Time. Both brokers run retention every second and the cleaner every 200 ms (SETTINGS), and the
// reference Kafka and kmock start their retention task after 100 ms (log.initial.task.delay.ms,
// internal in Kafka, BrokerConfig.logInitialTaskDelayMs in kmock). A scenario
// never sleeps blindly for a background task: it resends a request (outside the transcript) until
// the task's effect shows, with a bound, and compares the settled answer. Where retention may run
// while a scenario produces, the layout is one batch per segment and the scenario only compares
// what does not depend on when a check ran (Produce v3 has no log start offset; the settled state
// is the same whichever checks ran on the way). Otherwise retention and compaction are switched on
// by IncrementalAlterConfigs once everything is written. What a check is about to change (a segment
// wholly below the log start offset) is read right after a check was seen to run, so the next one
// is most of a second away (justAfterRetentionCheck). testCompaction waits out delete.retention.ms
// with a wait step, so it also has a "[manual clock]" variant (the wait a clock jump on kmock).
//
// Timestamps. Fixed old ones (T0, and OLD, 3 days before the module loaded: the same value on both
// brokers) are compared exactly; recent ones are taken when the step runs and compared as <now>
// (runner.ts: timestamps within a day of now). None lies in the future: Kafka 4.x refuses records
// more than an hour ahead (message.timestamp.after.max.ms, KIP-1030).
//
// Kafka 4.x: segment.bytes is at least 1 MiB there (KIP-1030; 14 bytes on 3.9), so no scenario
// uses less; ListOffsets v0 and Fetch v0-v3 were removed (KIP-896): they go on connections of
// their own ("v0", "old"), which 4.x closes (causes-4x.ts kafka-4x-removed-versions).
import type { Ctx, Scenario, Settings } from '../runner.js';
import { encodeBatch, splitBatches } from '../../../src/codec/records/index.js';
import { E, scenario, send, wait } from './dsl.js';

/** The storage brokers' settings (both targets): background tasks every second or faster. */
const SETTINGS: Settings = {
  'log.retention.check.interval.ms': 1000,
  'log.initial.task.delay.ms': 100,
  'log.cleaner.backoff.ms': 200,
};

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['data', 'storage'], groups: [], settings: SETTINGS });

const T0 = 1_700_000_000_000;
const H = 3_600_000;
const DAY = 24 * H;
/** Three days before the module loaded: past retention.ms of a day, the same on both brokers. */
const OLD = Math.floor(Date.now() / 1000) * 1000 - 3 * DAY;

/** A record: key, value (null: a tombstone), absolute timestamp (a function: read when the step runs). */
type Rec = [key: string | null, value: string | null, timestamp: number | (() => number)];

function batchOf(records: Rec[]): Buffer {
  const ts = records.map(([, , t]) => (typeof t === 'function' ? t() : t));
  return encodeBatch({ baseTimestamp: ts[0], records: records.map(([key, value], i) => ({ key, value, timestamp: ts[i] })) });
}
/** The encoded size of a batch of fixed timestamps (the bytes a broker stores as received). */
const sizeOf = (records: Rec[]): number => batchOf(records).length;

// ---- requests ------------------------------------------------------------------------------------

/** CreateTopics v5 with topic configs (the answer lists the effective configs: those are compared too). */
const createTopic = (name: string, configs: Record<string, string | number>) =>
  send('a', 19, 5, (c: Ctx) => ({ topics: [{ name: c.t(name), numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: String(v) })) }], timeoutMs: 5000 }), {
    label: `create-topic ${name} ${JSON.stringify(configs)}`,
    expect: { topics: [{ errorCode: 0 }] },
    awaitTopics: true,
  });

/** A partition the controller just created may not be ready on the broker yet: producers retry. */
const notReady = { while: (r: { responses: Array<{ partitionResponses: Array<{ errorCode: number }> }> }) => r.responses.some((t) => t.partitionResponses.some((p) => p.errorCode === E.NOT_LEADER_OR_FOLLOWER)), delayMs: 100, max: 30 };

/**
 * Produce (v9 unless given) of one batch to `topic`/0. `baseOffset` and `logStartOffset` are the
 * expected answer (v5+ carry the log start offset).
 */
const produce = (topic: string, records: Rec[], o: { v?: number; baseOffset?: number; logStartOffset?: number; label?: string } = {}) =>
  send('a', 0, o.v ?? 9, (c: Ctx) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: c.t(topic), partitionData: [{ index: 0, records: batchOf(records) }] }] }), {
    label: o.label ?? `produce ${topic} ${records.map(([k, v]) => `${k}:${v === null ? 'null' : v.length > 12 ? `<${v.length} bytes>` : v}`).join(',')}`,
    expect:
      o.baseOffset === undefined
        ? undefined
        : { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: o.baseOffset, ...(o.logStartOffset !== undefined ? { logStartOffset: o.logStartOffset } : {}) }] }] },
    retry: notReady,
  });

interface FetchOpts {
  v?: number;
  conn?: string;
  /** The partition's max bytes (default 1 MiB); the request's is 50 MiB. */
  partitionMaxBytes?: number;
  label?: string;
  expect?: unknown;
  /** Resent (outside the transcript, every 100 ms, at most 10 s) until the answer's batches meet it. */
  until?: (batches: Fetched[]) => boolean;
}
/** A fetched batch: its base offset and record count (v2 batches only). */
interface Fetched {
  baseOffset: number;
  records: number;
}
type FetchRes = { responses: Array<{ partitions: Array<{ errorCode: number; records: Buffer | null }> }> };
/** The whole v2 batches of a Fetch answer. */
const fetchedBatches = (r: FetchRes): Fetched[] => {
  const records = r.responses[0]?.partitions[0]?.records;
  if (records === null || records === undefined || records.length === 0) return [];
  return splitBatches(records, { allowPartial: true })
    .batches.filter((b) => b.header !== null)
    .map((b) => ({ baseOffset: Number(b.header!.baseOffset), records: b.header!.recordsCount }));
};

/** Fetch (v12 unless given) of `topic`/0 from `offset`, no wait. */
const fetch = (topic: string, offset: number, o: FetchOpts = {}) => {
  const v = o.v ?? 12;
  return send(
    o.conn ?? 'a',
    1,
    v,
    (c: Ctx) => ({
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 50 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: c.t(topic),
          topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
          partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: o.partitionMaxBytes ?? 1 << 20 }],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    }),
    {
      label: o.label ?? `fetch v${v} ${topic} @${offset}${o.partitionMaxBytes !== undefined ? ` (max ${o.partitionMaxBytes} bytes)` : ''}`,
      expect: o.expect as never,
      retry: o.until === undefined ? undefined : { while: (r) => !o.until!(fetchedBatches(r as unknown as FetchRes)), delayMs: 100, max: 100 },
    },
  );
};

/** ListOffsets timestamps (ListOffsetsRequest). */
const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;

type ListRes = { topics: Array<{ partitions: Array<{ errorCode: number; offset: bigint | number; timestamp: bigint | number }> }> };
const listedOffset = (r: ListRes): number => Number(r.topics[0]?.partitions[0]?.offset ?? -1);

/**
 * ListOffsets (v7 unless given; v1+) of `topic`/0 at `timestamp` (a function: read when the step
 * runs). `until`: resent (outside the transcript, every 100 ms, at most 10 s) until the offset
 * answered meets it: a background task's effect awaited.
 */
const listOffsets = (
  topic: string,
  timestamp: number | (() => number),
  o: { v?: number; label?: string; expect?: { offset?: number; timestamp?: number; errorCode?: number }; until?: (offset: number) => boolean; pollMs?: number } = {},
) => {
  const v = o.v ?? 7;
  const name = typeof timestamp === 'function' ? 'a timestamp' : timestamp === LATEST ? 'latest' : timestamp === EARLIEST ? 'earliest' : timestamp === MAX_TIMESTAMP ? 'max timestamp' : `timestamp ${timestamp}`;
  return send(
    'a',
    2,
    v,
    (c: Ctx) => ({
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: c.t(topic), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: typeof timestamp === 'function' ? timestamp() : timestamp }] }],
    }),
    {
      label: o.label ?? `list-offsets v${v} ${topic} ${name}${o.until !== undefined ? ' (once settled)' : ''}`,
      expect: o.expect === undefined ? undefined : ({ topics: [{ partitions: [{ errorCode: 0, ...o.expect }] }] } as never),
      retry: o.until === undefined ? undefined : { while: (r: ListRes) => !o.until!(listedOffset(r)), delayMs: o.pollMs ?? 100, max: Math.ceil(10_000 / (o.pollMs ?? 100)) },
    },
  );
};

/**
 * ListOffsets v0 (UnifiedLog.legacyFetchOffsetsBefore: the segments' base offsets, at least the
 * log start offset, and the log end offset when the last segment holds data; newest first, at most
 * maxNumOffsets) on its own connection: Kafka 4.x removed v0 and closes the connection.
 */
const legacyOffsets = (topic: string, timestamp: number, maxNumOffsets: number, expect?: number[]) =>
  send(
    'v0',
    2,
    0,
    (c: Ctx) => ({ replicaId: -1, topics: [{ name: c.t(topic), partitions: [{ partitionIndex: 0, timestamp, maxNumOffsets }] }] }),
    {
      label: `list-offsets v0 ${topic} ${timestamp === LATEST ? 'latest' : timestamp === EARLIEST ? 'earliest' : `before ${timestamp}`}, at most ${maxNumOffsets}`,
      expect: expect === undefined ? undefined : { topics: [{ partitions: [{ errorCode: 0, oldStyleOffsets: expect }] }] },
    },
  );

/** IncrementalAlterConfigs v1: SET each config of `topic`. */
const alterTopic = (topic: string, configs: Record<string, string | number>) =>
  send(
    'a',
    44,
    1,
    (c: Ctx) => ({
      validateOnly: false,
      resources: [{ resourceType: 2, resourceName: c.t(topic), configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value: String(value) })) }],
    }),
    { label: `alter ${topic} ${JSON.stringify(configs)}`, expect: { responses: [{ errorCode: 0 }] } },
  );

/** DeleteRecords v2 of `topic`/0 before `offset`. */
const deleteRecords = (topic: string, offset: number, lowWatermark: number) =>
  send('a', 21, 2, (c: Ctx) => ({ topics: [{ name: c.t(topic), partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 5000 }), {
    label: `delete-records ${topic} before ${offset}`,
    expect: { topics: [{ partitions: [{ errorCode: 0, lowWatermark }] }] },
  });

/**
 * Waits (bounded) for a retention check to have just run, so that the next one is most of
 * log.retention.check.interval.ms away: a topic `name` with retention.ms of a day gets a
 * three-day-old record, which the next check deletes (its log start offset moves to 1); polled
 * every 20 ms. What a scenario then reads within a few round trips sees no check in between.
 */
const justAfterRetentionCheck = (name: string) => [
  createTopic(name, { 'retention.ms': DAY }),
  produce(name, [['tick', 'tick', OLD]], { v: 3, baseOffset: 0 }),
  listOffsets(name, EARLIEST, { until: (offset) => offset >= 1, pollMs: 20, expect: { offset: 1 }, label: `list-offsets v7 ${name} earliest (once a retention check ran)` }),
];

const outOfRange = { responses: [{ partitions: [{ errorCode: E.OFFSET_OUT_OF_RANGE }] }] };

// ---- data ----------------------------------------------------------------------------------------

/** Six batches in three segments by segment.ms = 1 h: [0-1, 2] [3, 4-5] [6, 7]. */
const SEGMENTED: Rec[][] = [
  [['a', 'a0', T0], ['b', 'b0', T0 + 1]],
  [['c', 'c0', T0 + 10]],
  // 2 h after the first batch: a new segment at 3
  [['a', 'a1', T0 + 2 * H]],
  [['b', 'b1', T0 + 2 * H + 5], ['c', 'c1', T0 + 2 * H + 6]],
  // a new segment at 6; then an earlier timestamp, which does not roll
  [['a', 'a2', T0 + 4 * H + 2]],
  [['b', 'b2', T0 + 4 * H]],
];

/** segment.bytes = 1 MiB (the least 4.x allows): a 560 kB batch, then a 500 kB one that does not fit. */
const BIG_A = 'x'.repeat(560_000);
const BIG_B = 'y'.repeat(500_000);

/** Five batches of the same size, one per segment (2 h apart, segment.ms = 1 h). */
const EQUAL: Rec[][] = [0, 1, 2, 3, 4, 5].map((i) => [[`k${i}`, `value-${i}-`.padEnd(100, '.'), T0 + i * 2 * H]]);
const EQUAL_SIZE = sizeOf(EQUAL[0]);

/**
 * The compacted topic: [A0 A1] [B0 B1 B2] [C0 C1], segments by segment.ms = 1 h.
 * A0 k1 k2 k3 (0-2), A1 k1 (3) | B0 k2 (4), B1 k3 tombstone (5, alone in its batch), B2 k4 k1 (6-7) | C0 k2 (8), C1 k5 (9).
 */
const COMPACTED: Rec[][] = [
  [['k1', 'a1', T0], ['k2', 'a2', T0 + 1], ['k3', 'a3', T0 + 2]],
  [['k1', 'b1', T0 + 3]],
  [['k2', 'b2', T0 + 2 * H]],
  [['k3', null, T0 + 2 * H + 1]],
  [['k4', 'b4', T0 + 2 * H + 2], ['k1', 'c1', T0 + 2 * H + 3]],
  [['k2', 'c2', T0 + 4 * H]],
  [['k5', 'c5', T0 + 4 * H + 1]],
];
const B0_SIZE = sizeOf(COMPACTED[2]);
/** delete.retention.ms of the compacted topic: how long the cleaner keeps the tombstone. */
const DELETE_RETENTION_MS = 2000;

const now = () => Date.now();
const hoursAgo = (h: number) => () => Date.now() - h * H;

export const storageScenarios: Scenario[] = [
  tag(
    scenario('testSegmentsRolledBySegmentMs', {
      mirrors: 'UnifiedLog.maybeRoll / LogSegment.shouldRoll (segment.ms on record timestamps) / LocalLog.read / UnifiedLog.legacyFetchOffsetsBefore / UnifiedLog.fetchOffsetByTimestamp',
      description:
        'six batches in three segments rolled by segment.ms on their timestamps (an earlier timestamp does not roll): Fetch from 0 with room for everything returns the first segment only, from inside a segment to its end, from each next base offset; ListOffsets v0 lists the base offsets; by timestamp lands in the first segment whose largest timestamp reaches it; max timestamp',
      steps: [
        createTopic('seg', { 'segment.ms': H, 'retention.ms': -1 }),
        ...SEGMENTED.map((b, i) => produce('seg', b, { baseOffset: [0, 2, 3, 4, 6, 7][i], logStartOffset: 0 })),
        fetch('seg', 0, { label: 'fetch v12 seg @0: the first segment only', expect: { responses: [{ partitions: [{ errorCode: 0, highWatermark: 8, logStartOffset: 0 }] }] } }),
        fetch('seg', 1),
        fetch('seg', 2),
        fetch('seg', 3, { label: 'fetch v12 seg @3: the second segment' }),
        fetch('seg', 5),
        fetch('seg', 6, { label: 'fetch v12 seg @6: the active segment' }),
        fetch('seg', 8),
        fetch('seg', 0, { v: 4 }),
        fetch('seg', 0, { partitionMaxBytes: 10, label: 'fetch v12 seg @0, max 10 bytes: the first batch whole' }),
        legacyOffsets('seg', LATEST, 10, [8, 6, 3, 0]),
        legacyOffsets('seg', LATEST, 2, [8, 6]),
        legacyOffsets('seg', EARLIEST, 10, [0]),
        legacyOffsets('seg', T0, 10, []),
        listOffsets('seg', EARLIEST, { expect: { offset: 0 } }),
        listOffsets('seg', LATEST, { expect: { offset: 8 } }),
        listOffsets('seg', T0 + 5, { expect: { offset: 2, timestamp: T0 + 10 } }),
        listOffsets('seg', T0 + 11, { expect: { offset: 3, timestamp: T0 + 2 * H } }),
        listOffsets('seg', T0 + 2 * H + 6, { expect: { offset: 5 } }),
        listOffsets('seg', T0 + 4 * H, { expect: { offset: 6, timestamp: T0 + 4 * H + 2 } }),
        listOffsets('seg', T0 + 4 * H + 3, { expect: { offset: -1, timestamp: -1 } }),
        listOffsets('seg', T0 + 4 * H + 1, { v: 1 }),
        listOffsets('seg', MAX_TIMESTAMP, { expect: { offset: 6, timestamp: T0 + 4 * H + 2 } }),
      ],
    }),
  ),

  tag(
    scenario('testSegmentsRolledByFullIndexes', {
      mirrors: 'LogSegment.shouldRoll (offsetIndex.isFull, timeIndex.isFull: TimeIndex keeps its last entry for the roll) / LogSegment.append (index.interval.bytes) / TimeIndex.maybeAppend',
      description:
        'index.interval.bytes 0 (an index entry at every append but a segment\'s first): segment.index.bytes 16 (one time-index entry, kept for the roll: the index is always full) rolls every batch; 36 (three time entries, four offset entries) with rising timestamps rolls after three batches (the time index), with one timestamp after five (the offset index: a time entry only when the timestamp grows); reads, ListOffsets v0 and by timestamp show the segments',
      steps: [
        createTopic('idx', { 'segment.index.bytes': 16, 'index.interval.bytes': 0, 'retention.ms': -1 }),
        ...[0, 1, 2, 3, 4].map((i) => produce('idx', [[`k${i}`, `v${i}`, T0 + i]], { baseOffset: i })),
        legacyOffsets('idx', LATEST, 10, [5, 4, 3, 2, 1, 0]),
        fetch('idx', 0),
        fetch('idx', 3),
        listOffsets('idx', T0 + 1, { expect: { offset: 1 } }),
        listOffsets('idx', MAX_TIMESTAMP, { expect: { offset: 4 } }),
        createTopic('rising', { 'segment.index.bytes': 36, 'index.interval.bytes': 0, 'retention.ms': -1 }),
        ...[0, 1, 2, 3, 4, 5, 6].map((i) => produce('rising', [[`k${i}`, `v${i}`, T0 + i]], { baseOffset: i })),
        legacyOffsets('rising', LATEST, 10, [7, 6, 3, 0]),
        fetch('rising', 0),
        fetch('rising', 4),
        listOffsets('rising', T0 + 4, { expect: { offset: 4 } }),
        createTopic('flat', { 'segment.index.bytes': 36, 'index.interval.bytes': 0, 'retention.ms': -1 }),
        ...[0, 1, 2, 3, 4, 5, 6].map((i) => produce('flat', [[`k${i}`, `v${i}`, T0]], { baseOffset: i })),
        legacyOffsets('flat', LATEST, 10, [7, 5, 0]),
        fetch('flat', 0),
        fetch('flat', 5),
        listOffsets('flat', T0, { expect: { offset: 0 } }),
        listOffsets('flat', MAX_TIMESTAMP, { expect: { offset: 0 } }),
      ],
    }),
  ),

  tag(
    scenario('testSegmentBytesAndDeleteRecords', {
      mirrors:
        'LogSegment.shouldRoll (segment.bytes) / UnifiedLog.fetchOffsetByTimestamp (MAX_TIMESTAMP over every segment; searchOffsetInLocalLog from the log start offset) / Partition.deleteRecordsOnLeader / UnifiedLog.deleteLogStartOffsetBreachedSegments',
      description:
        'segment.bytes 1 MiB: a 560 kB batch, then a 500 kB one rolls; by timestamp lands in the first segment (its largest timestamp reaches every target), max timestamp is there; DeleteRecords before 1 leaves that segment until the retention check: ListOffsets v0 lists it at the log start offset, max timestamp still answers offset 0 (below the log start offset), and by timestamp finds nothing (its first segment has no record at or after the log start offset; later segments are not searched); once the check deleted it, all three move on; Fetch below the log start offset, Produce and Fetch answers carry it',
      steps: [
        createTopic('big', { 'segment.bytes': 1 << 20, 'retention.ms': -1 }),
        produce('big', [['a', BIG_A, T0 + 5 * H]], { baseOffset: 0 }),
        produce('big', [['b', BIG_B, T0]], { baseOffset: 1 }),
        produce('big', [['c', 'c', T0 + 1], ['d', 'd', T0 + 2]], { baseOffset: 2 }),
        fetch('big', 2),
        legacyOffsets('big', LATEST, 10, [4, 1, 0]),
        listOffsets('big', MAX_TIMESTAMP, { expect: { offset: 0, timestamp: T0 + 5 * H } }),
        listOffsets('big', T0 + 1, { expect: { offset: 0, timestamp: T0 + 5 * H } }),
        // Right after a retention check: the next is about a second away, and until it runs the
        // segment wholly below the new log start offset is still there.
        ...justAfterRetentionCheck('tick'),
        deleteRecords('big', 1, 1),
        legacyOffsets('big', LATEST, 10, [4, 1, 1]),
        listOffsets('big', MAX_TIMESTAMP, { expect: { offset: 0, timestamp: T0 + 5 * H } }),
        listOffsets('big', T0 + 1, { expect: { offset: -1, timestamp: -1 } }),
        listOffsets('big', EARLIEST, { expect: { offset: 1 } }),
        // The check deletes the segment wholly below the log start offset.
        listOffsets('big', MAX_TIMESTAMP, { until: (offset) => offset !== 0, expect: { offset: 3, timestamp: T0 + 2 } }),
        legacyOffsets('big', LATEST, 10, [4, 1]),
        listOffsets('big', T0 + 1, { expect: { offset: 2, timestamp: T0 + 1 } }),
        fetch('big', 0, { expect: outOfRange }),
        fetch('big', 2, { expect: { responses: [{ partitions: [{ errorCode: 0, logStartOffset: 1 }] }] } }),
        produce('big', [['e', 'e', T0 + 3]], { baseOffset: 4, logStartOffset: 1 }),
      ],
    }),
  ),

  tag(
    scenario('testRetentionMsDeletesTheActiveSegment', {
      mirrors: 'UnifiedLog.deleteRetentionMsBreachedSegments / UnifiedLog.deleteSegments (roll before deleting every segment) / LogManager.cleanupLogs',
      description:
        'a topic created with retention.ms of a day: three-day-old batches are deleted by the next check, the active segment with them (a new empty one is rolled: log start offset = log end offset 3); Fetch below it OFFSET_OUT_OF_RANGE, at it empty; ListOffsets v0 lists only the empty segment, max timestamp finds nothing; a new batch is appended at 3 and answered with log start offset 3',
      steps: [
        createTopic('rms', { 'retention.ms': DAY }),
        // Produce v3 answers carry no log start offset: what a check did in between does not show.
        produce('rms', [['a', 'a', OLD], ['b', 'b', OLD + 1]], { v: 3, baseOffset: 0 }),
        produce('rms', [['c', 'c', OLD + 2]], { v: 3, baseOffset: 2 }),
        listOffsets('rms', EARLIEST, { until: (offset) => offset >= 3, expect: { offset: 3 } }),
        listOffsets('rms', LATEST, { expect: { offset: 3 } }),
        legacyOffsets('rms', LATEST, 10, [3]),
        listOffsets('rms', MAX_TIMESTAMP, { expect: { offset: -1, timestamp: -1 } }),
        listOffsets('rms', OLD, { expect: { offset: -1 } }),
        fetch('rms', 0, { expect: outOfRange }),
        fetch('rms', 2, { expect: outOfRange }),
        fetch('rms', 3, { expect: { responses: [{ partitions: [{ errorCode: 0, highWatermark: 3, logStartOffset: 3 }] }] } }),
        produce('rms', [['d', 'd', now]], { baseOffset: 3, logStartOffset: 3 }),
        listOffsets('rms', OLD, { expect: { offset: 3 } }),
        fetch('rms', 3),
      ],
    }),
  ),

  tag(
    scenario('testRetentionBytes', {
      mirrors: 'UnifiedLog.deleteRetentionSizeBreachedSegments',
      description:
        'a topic created with retention.bytes of two and a half segments, five segments of one batch each (the active one counts): the two oldest go, the log start offset moves to the segment boundary 2; Fetch below it OFFSET_OUT_OF_RANGE, at it from 2; a sixth batch (Produce answers log start offset 2) makes the next check delete one more',
      steps: [
        createTopic('rb', { 'segment.ms': H, 'retention.ms': -1, 'retention.bytes': Math.floor(2.5 * EQUAL_SIZE) }),
        ...EQUAL.slice(0, 5).map((b, i) => produce('rb', b, { v: 3, baseOffset: i })),
        listOffsets('rb', EARLIEST, { until: (offset) => offset >= 2, expect: { offset: 2 } }),
        legacyOffsets('rb', LATEST, 10, [5, 4, 3, 2]),
        fetch('rb', 0, { expect: outOfRange }),
        fetch('rb', 1, { expect: outOfRange }),
        fetch('rb', 2, { expect: { responses: [{ partitions: [{ errorCode: 0, logStartOffset: 2 }] }] } }),
        produce('rb', EQUAL[5], { baseOffset: 5, logStartOffset: 2 }),
        listOffsets('rb', EARLIEST, { until: (offset) => offset >= 3, expect: { offset: 3 } }),
        listOffsets('rb', T0, { expect: { offset: 3, timestamp: T0 + 6 * H } }),
        legacyOffsets('rb', LATEST, 10, [6, 5, 4, 3]),
      ],
    }),
  ),

  tag(
    scenario('testRetentionMsAlteredAtRunTime', {
      mirrors: 'IncrementalAlterConfigs of a topic -> LogManager.updateTopicConfig; UnifiedLog.deleteRetentionMsBreachedSegments at the next check',
      description:
        'a topic without retention holds three-day-old and recent segments; IncrementalAlterConfigs retention.ms = 1 day: the next check deletes the old segments (log start offset 2, Fetch and Produce answers carry it); retention.ms = 1 ms: every segment goes, the active one too (log start offset = log end offset)',
      steps: [
        createTopic('alt', { 'segment.ms': H, 'retention.ms': -1 }),
        produce('alt', [['a', 'a', OLD]], { baseOffset: 0, logStartOffset: 0 }),
        produce('alt', [['b', 'b', OLD + 2 * H]], { baseOffset: 1, logStartOffset: 0 }),
        produce('alt', [['c', 'c', hoursAgo(2)]], { baseOffset: 2, logStartOffset: 0 }),
        produce('alt', [['d', 'd', now]], { baseOffset: 3, logStartOffset: 0 }),
        listOffsets('alt', EARLIEST, { expect: { offset: 0 } }),
        alterTopic('alt', { 'retention.ms': DAY }),
        listOffsets('alt', EARLIEST, { until: (offset) => offset > 0, expect: { offset: 2 } }),
        fetch('alt', 1, { expect: outOfRange }),
        fetch('alt', 2, { expect: { responses: [{ partitions: [{ errorCode: 0, logStartOffset: 2 }] }] } }),
        legacyOffsets('alt', LATEST, 10, [4, 3, 2]),
        produce('alt', [['e', 'e', now]], { baseOffset: 4, logStartOffset: 2 }),
        alterTopic('alt', { 'retention.ms': 1 }),
        listOffsets('alt', EARLIEST, { until: (offset) => offset >= 5, expect: { offset: 5 } }),
        listOffsets('alt', LATEST, { expect: { offset: 5 } }),
        legacyOffsets('alt', LATEST, 10, [5]),
        fetch('alt', 5, { expect: { responses: [{ partitions: [{ errorCode: 0, highWatermark: 5, logStartOffset: 5 }] }] } }),
      ],
    }),
  ),

  tag(
    scenario('testCompaction', {
      mirrors:
        'LogCleaner.doClean / Cleaner.cleanInto / MemoryRecords.filterTo (delete horizon, KIP-534) / LogCleanerManager.grabFilthiestCompactedLog (min.cleanable.dirty.ratio) / groupSegmentsBySize',
      description:
        'a compacted topic written with min.cleanable.dirty.ratio 1 (never cleanable), then set to 0.01: the cleaner keeps the latest record per key below the active segment (offsets kept, gaps), merges the cleaned segments into one, leaves the active segment alone and keeps the tombstone (its batch rewritten with a delete horizon: read through Fetch v3\'s down-conversion, whose absolute timestamps do not depend on when the cleaner ran, and ListOffsets by timestamp); after delete.retention.ms, a roll makes the log cleanable again and the next clean drops the tombstone',
      steps: [
        createTopic('cmp', { 'cleanup.policy': 'compact', 'segment.ms': H, 'min.cleanable.dirty.ratio': 1, 'delete.retention.ms': DELETE_RETENTION_MS }),
        ...COMPACTED.map((b, i) => produce('cmp', b, { baseOffset: [0, 3, 4, 5, 6, 8, 9][i] })),
        legacyOffsets('cmp', LATEST, 10, [10, 8, 4, 0]),
        alterTopic('cmp', { 'min.cleanable.dirty.ratio': '0.01' }),
        // Only the batch at 4 (k2): the tombstone batch after it carries the cleaner's delete horizon.
        fetch('cmp', 0, { partitionMaxBytes: B0_SIZE, until: (b) => b.length > 0 && b[0].baseOffset !== 0, label: 'fetch v12 cmp @0 (once cleaned): the first batch left' }),
        fetch('cmp', 6, { label: 'fetch v12 cmp @6: the end of the cleaned segment' }),
        fetch('cmp', 8, { label: 'fetch v12 cmp @8: the active segment, not cleaned' }),
        fetch('cmp', 0, { v: 3, conn: 'old', label: 'fetch v3 cmp @0: down-converted, the tombstone kept' }),
        legacyOffsets('cmp', LATEST, 10, [10, 8, 0]),
        listOffsets('cmp', EARLIEST, { expect: { offset: 0 } }),
        listOffsets('cmp', T0, { expect: { offset: 4, timestamp: T0 + 2 * H } }),
        listOffsets('cmp', T0 + 2 * H + 1, { expect: { offset: 5, timestamp: T0 + 2 * H + 1 } }),
        listOffsets('cmp', MAX_TIMESTAMP, { expect: { offset: 9 } }),
        // Past the tombstone's delete horizon (the clean above + delete.retention.ms), then a roll.
        wait(DELETE_RETENTION_MS + 500),
        produce('cmp', [['k6', 'd6', T0 + 6 * H]], { baseOffset: 10 }),
        fetch('cmp', 0, { until: (b) => b.length > 0 && b[0].baseOffset > 5, label: 'fetch v12 cmp @0 (once cleaned again): the tombstone gone' }),
        legacyOffsets('cmp', LATEST, 10, [11, 10, 0]),
        listOffsets('cmp', T0 + 2 * H + 1, { expect: { offset: 6 } }),
        fetch('cmp', 10),
      ],
    }),
  ),

  tag(
    scenario('testCompactAndDelete', {
      mirrors: 'LogCleaner.CleanerThread.cleanFilthiestLog (clean, then deleteOldSegments of LogCleanerManager.deletableLogs) / LogManager.cleanupLogs (compacted logs left to the cleaner)',
      description:
        'cleanup.policy compact,delete with old and recent segments; retention.ms (1 day) and min.cleanable.dirty.ratio set in one IncrementalAlterConfigs: the cleaner compacts first, merging old and recent records into one segment whose largest timestamp is recent, so retention deletes nothing; then retention.ms = 1 h: the cleaner deletes that segment (log start offset = the active segment)',
      steps: [
        createTopic('cd', { 'cleanup.policy': 'compact,delete', 'segment.ms': H, 'retention.ms': -1, 'min.cleanable.dirty.ratio': 1 }),
        produce('cd', [['k1', 'a1', OLD], ['k2', 'a2', OLD + 1]], { baseOffset: 0 }),
        produce('cd', [['k1', 'b1', OLD + 2 * H]], { baseOffset: 2 }),
        produce('cd', [['k3', 'c3', hoursAgo(2)]], { baseOffset: 3 }),
        produce('cd', [['k2', 'd2', now]], { baseOffset: 4 }),
        alterTopic('cd', { 'retention.ms': DAY, 'min.cleanable.dirty.ratio': '0.01' }),
        // The first batch keeps its base offset 0 (v2: MemoryRecords.buildRetainedRecordsInto), its k1 gone.
        fetch('cd', 0, { until: (b) => b.length > 0 && b[0].records === 1, label: 'fetch v12 cd @0 (once cleaned)' }),
        listOffsets('cd', EARLIEST, { expect: { offset: 0 } }),
        legacyOffsets('cd', LATEST, 10, [5, 4, 0]),
        alterTopic('cd', { 'retention.ms': H }),
        listOffsets('cd', EARLIEST, { until: (offset) => offset > 0, expect: { offset: 4 } }),
        fetch('cd', 0, { expect: outOfRange }),
        fetch('cd', 4, { expect: { responses: [{ partitions: [{ errorCode: 0, logStartOffset: 4 }] }] } }),
        produce('cd', [['k4', 'e4', now]], { baseOffset: 5, logStartOffset: 4 }),
      ],
    }),
  ),
];
