// The log cleaner's pass (src/broker/log/cleaner.ts) against a tiny model of Kafka 3.9's
// compaction rules, over random logs of keyed records, tombstones, null keys, idempotent batches
// and transactions ended by COMMIT/ABORT markers, cleaned three times with random bounds and times; plus
// examples named after LogCleanerTest's cases.
//
// The model says what the rules mean, not how LogCleaner streams through them: a data batch is
// aborted when an aborted-transaction entry of its producer spans it; a key's latest offset is
// over the non-aborted records in [firstDirty, end); below `end` a record stays when it has a key,
// is its key's latest (or its key is not in the dirty range) and is not a tombstone past its
// batch's horizon; a COMMIT marker may go when no committed data of its producer lies between it
// and the producer's previous marker, an ABORT marker when none of its transaction's data is left;
// a marker that may go gets a horizon first and goes once now >= it; a batch keeping a tombstone
// and no horizon yet gets now + delete.retention.ms; an active producer's last batch stays
// (empty if need be). Everything at or after `end` is untouched; offsets never change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanLog, type CleanInput, type LastRecord } from '../../../src/broker/log/cleaner.js';
import type { AbortedTxn } from '../../../src/broker/log/txn-index.js';
import { ControlRecordType, decodeBatch, encodeBatch, encodeEndTxnMarkerBatch } from '../../../src/codec/records/index.js';

const T0 = 1_700_000_000_000;
const IDEMPOTENT_PID = 10n;

interface MRecord {
  offset: number;
  key: string | null;
  value: string | null;
}
interface MBatch {
  base: number;
  last: number;
  pid: bigint;
  txn: boolean;
  /** 'EMPTY': a control batch whose marker record is gone (its type with it). */
  control: 'COMMIT' | 'ABORT' | 'EMPTY' | null;
  gzip?: boolean;
  horizon: number | null;
  records: MRecord[];
}
interface Log {
  batches: MBatch[];
  aborted: AbortedTxn[];
  /** Offsets where a batch starts, plus the log end: the possible bounds. */
  boundaries: number[];
  /** The last stable offset at the end. */
  lso: number;
}

type Rec = { key: string | null; value: string | null };
type Op =
  | { kind: 'plain'; idempotent: boolean; gzip: boolean; recs: Rec[] }
  | { kind: 'txn'; pid: number; recs: Rec[] }
  | { kind: 'marker'; pid: number; commit: boolean };

const rec: fc.Arbitrary<Rec> = fc.record({
  key: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c', 'd') }),
  value: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.string({ maxLength: 3 }) }),
});
const recs = fc.array(rec, { minLength: 1, maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('plain' as const), idempotent: fc.boolean(), gzip: fc.boolean(), recs }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('txn' as const), pid: fc.integer({ min: 1, max: 3 }), recs }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('marker' as const), pid: fc.integer({ min: 1, max: 3 }), commit: fc.boolean() }) },
);

function buildLog(ops: readonly Op[]): Log {
  const batches: MBatch[] = [];
  const aborted: AbortedTxn[] = [];
  const open = new Map<number, number>();
  let next = 0;
  for (const o of ops) {
    const base = next;
    if (o.kind === 'marker') {
      const first = open.get(o.pid);
      open.delete(o.pid);
      if (!o.commit && first !== undefined) aborted.push({ producerId: BigInt(o.pid), firstOffset: first, lastOffset: base, lastStableOffset: base });
      batches.push({ base, last: base, pid: BigInt(o.pid), txn: true, control: o.commit ? 'COMMIT' : 'ABORT', horizon: null, records: [] });
      next++;
      continue;
    }
    const records = o.recs.map((r, i) => ({ offset: base + i, key: r.key, value: r.value }));
    next += records.length;
    if (o.kind === 'txn') {
      if (!open.has(o.pid)) open.set(o.pid, base);
      batches.push({ base, last: next - 1, pid: BigInt(o.pid), txn: true, control: null, horizon: null, records });
    } else {
      batches.push({ base, last: next - 1, pid: o.idempotent ? IDEMPOTENT_PID : -1n, txn: false, control: null, gzip: o.gzip, horizon: null, records });
    }
  }
  const lso = Math.min(next, ...open.values());
  return { batches, aborted, boundaries: [...batches.map((b) => b.base), next], lso };
}

function encode(b: MBatch): Buffer {
  if (b.control !== null) {
    return encodeEndTxnMarkerBatch({ commit: b.control === 'COMMIT', producerId: b.pid, producerEpoch: 0, coordinatorEpoch: 0, timestamp: T0, baseOffset: BigInt(b.base) });
  }
  return encodeBatch({
    baseOffset: BigInt(b.base),
    baseTimestamp: T0,
    producerId: b.pid,
    producerEpoch: b.pid === -1n ? -1 : 0,
    baseSequence: b.pid === -1n ? -1 : b.base,
    isTransactional: b.txn,
    compression: b.gzip === true ? 'gzip' : 'none',
    records: b.records.map((r) => ({ key: r.key, value: r.value, offsetDelta: r.offset - b.base, timestamp: T0 })),
  });
}

/** Decodes a stored batch (checking its CRC and layout) back to the model's terms. */
function decode(buf: Buffer): MBatch {
  const d = decodeBatch(buf);
  const base = Number(d.baseOffset);
  const control = d.isControl ? (d.records.length === 0 ? null : d.records[0].control?.type === ControlRecordType.COMMIT ? 'COMMIT' : 'ABORT') : null;
  return {
    base,
    last: base + d.lastOffsetDelta,
    pid: d.producerId,
    txn: d.isTransactional,
    control: d.isControl ? (control ?? 'EMPTY') : null,
    gzip: d.compression === 'gzip',
    horizon: d.hasDeleteHorizon ? d.baseTimestamp : null,
    records: d.isControl ? [] : d.records.map((r) => ({ offset: base + r.offsetDelta, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null })),
  };
}

/** A model batch plus what a control batch holds (its marker record, or nothing once emptied). */
interface ModelBatch extends MBatch {
  markerKept: boolean;
  /** Output must be the input's Buffer. */
  same: boolean;
}

interface Pass {
  start: number;
  end: number;
  now: number;
  ret: number;
  active: ReadonlyMap<bigint, LastRecord>;
}

/** The model of one pass over the model log (with markerKept per control batch). */
function modelClean(log: ModelBatch[], aborted: readonly AbortedTxn[], p: Pass): { batches: ModelBatch[]; aborted: AbortedTxn[] } {
  const below = log.filter((b) => b.base < p.end);
  if (p.start >= p.end || !below.some((b) => b.last >= p.start)) return { batches: log.map((b) => ({ ...b, same: true })), aborted: [...aborted] };
  const isAborted = (b: MBatch): boolean =>
    b.txn && b.control === null && aborted.some((t) => t.producerId === b.pid && t.firstOffset <= b.base && b.last < t.lastOffset);
  const latest = new Map<string, number>();
  for (const b of log) {
    if (b.control !== null || isAborted(b)) continue;
    for (const r of b.records) if (r.key !== null && r.offset >= p.start && r.offset < p.end) latest.set(r.key, r.offset);
  }
  const out: ModelBatch[] = [];
  const keptAborted: AbortedTxn[] = aborted.filter((t) => t.lastOffset >= p.end);
  for (const [i, b] of log.entries()) {
    if (b.base >= p.end) {
      out.push({ ...b, same: true });
      continue;
    }
    const lr = p.active.get(b.pid);
    const lastOfProducer = lr !== undefined && (lr.lastDataOffset !== null ? lr.lastDataOffset === b.last : b.control !== null && b.pid !== -1n);
    if (b.control !== null) {
      let mayGo: boolean;
      if (!b.markerKept) mayGo = true;
      else if (b.control === 'ABORT') {
        const t = aborted.find((a) => a.producerId === b.pid && a.lastOffset === b.base);
        const hasData = t !== undefined && log.some((d) => d.pid === b.pid && d.control === null && d.txn && d.base >= t.firstOffset && d.base < b.base);
        if (hasData) keptAborted.push(t);
        mayGo = !hasData;
      } else {
        let prev = -1;
        for (let j = 0; j < i; j++) if (log[j].pid === b.pid && log[j].control !== null && log[j].markerKept) prev = j;
        mayGo = !log.slice(prev + 1, i).some((d) => d.pid === b.pid && d.control === null && d.txn && !isAborted(d));
      }
      const gone = mayGo && b.horizon !== null && b.horizon <= p.now;
      if (!gone) {
        const horizon = mayGo && b.markerKept && b.horizon === null ? p.now + p.ret : b.horizon;
        out.push({ ...b, horizon, same: horizon === b.horizon });
      } else if (lastOfProducer) {
        out.push({ ...b, control: 'EMPTY', markerKept: false, horizon: null, same: !b.markerKept });
      }
      continue;
    }
    const records = isAborted(b)
      ? []
      : b.records.filter(
          (r) => r.key !== null && r.offset >= (latest.get(r.key) ?? -1) && (r.value !== null || b.horizon === null || p.now < b.horizon),
        );
    if (records.length > 0) {
      const tombstones = records.some((r) => r.value === null);
      const horizon = tombstones && b.horizon === null ? p.now + p.ret : b.horizon;
      out.push({ ...b, records, horizon, same: records.length === b.records.length && horizon === b.horizon });
    } else if (lastOfProducer) {
      // An emptied batch is a bare, uncompressed header (DefaultRecordBatch.writeEmptyHeader).
      out.push({ ...b, records: [], horizon: null, gzip: false, same: b.records.length === 0 });
    }
  }
  return { batches: out, aborted: keptAborted.sort((x, y) => x.lastOffset - y.lastOffset) };
}

function toModel(bufs: readonly Buffer[]): ModelBatch[] {
  return bufs.map((buf) => {
    const m = decode(buf);
    return { ...m, markerKept: m.control !== null && decodeBatch(buf).records.length > 0, same: true };
  });
}

const strip = (bs: readonly ModelBatch[]): Omit<ModelBatch, 'same'>[] => bs.map(({ same: _same, ...rest }) => rest);

function input(batches: readonly Buffer[], aborted: readonly AbortedTxn[], p: Pass): CleanInput {
  return {
    batches,
    firstDirtyOffset: p.start,
    cleanableEndOffset: p.end,
    now: p.now,
    deleteRetentionMs: p.ret,
    abortedTransactions: aborted,
    lastRecordsOfActiveProducers: p.active,
  };
}

describe('cleanLog against a model of Kafka 3.9 compaction', () => {
  it('three passes over random logs agree with the model', () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 25 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.subarray([1n, 2n, 3n, IDEMPOTENT_PID]),
        fc.boolean(),
        (ops, bounds, ret, gap, activePids, noDataOffset) => {
          const log = buildLog(ops);
          const eligible = log.boundaries.filter((o) => o <= log.lso);
          const active = new Map<bigint, LastRecord>();
          for (const pid of activePids) {
            const data = log.batches.filter((b) => b.pid === pid && b.control === null);
            const last = data.length > 0 && !noDataOffset ? data[data.length - 1].last : null;
            active.set(pid, { lastDataOffset: last, producerEpoch: 0 });
          }
          let bufs = log.batches.map(encode);
          let model = toModel(bufs);
          let aborted: AbortedTxn[] = log.aborted;
          let modelAborted: AbortedTxn[] = log.aborted;
          let now = T0;
          for (const [a, b] of bounds) {
            // Half the passes clean as far as they may (the LSO or the log end).
            const end = eligible[Math.min(a % (2 * eligible.length), eligible.length - 1)];
            const firsts = eligible.filter((o) => o <= end);
            const pass: Pass = { start: firsts[b % firsts.length], end, now, ret, active };
            const result = cleanLog(input(bufs, aborted, pass));
            const expected = modelClean(model, modelAborted, pass);
            const got = toModel(result.batches);
            expect(strip(got)).toEqual(strip(expected.batches));
            expect(result.abortedTransactions).toEqual(expected.aborted);
            // A batch left whole is the very same Buffer; a changed one is a new one.
            for (const [i, m] of expected.batches.entries()) expect(bufs.includes(result.batches[i])).toBe(m.same);
            bufs = result.batches;
            aborted = result.abortedTransactions;
            model = expected.batches;
            modelAborted = expected.aborted;
            now += gap;
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---- examples after LogCleanerTest (core/src/test/scala/unit/kafka/log/LogCleanerTest.scala) ----

const DAY = 86_400_000;

/** A log built batch by batch with consecutive offsets, as appendAsLeader would assign them. */
class TestLog {
  batches: Buffer[] = [];
  aborted: AbortedTxn[] = [];
  next = 0;
  private readonly open = new Map<bigint, number>();

  plain(...records: Array<[string | null, string | null]>): this {
    return this.data(-1n, false, records);
  }

  txn(pid: bigint, ...records: Array<[string | null, string | null]>): this {
    if (!this.open.has(pid)) this.open.set(pid, this.next);
    return this.data(pid, true, records);
  }

  marker(pid: bigint, commit: boolean): this {
    const first = this.open.get(pid);
    this.open.delete(pid);
    if (!commit && first !== undefined) this.aborted.push({ producerId: pid, firstOffset: first, lastOffset: this.next, lastStableOffset: this.next });
    this.batches.push(encodeEndTxnMarkerBatch({ commit, producerId: pid, producerEpoch: 0, coordinatorEpoch: 0, timestamp: T0, baseOffset: BigInt(this.next) }));
    this.next++;
    return this;
  }

  private data(pid: bigint, txn: boolean, records: Array<[string | null, string | null]>): this {
    this.batches.push(
      encodeBatch({
        baseOffset: BigInt(this.next),
        baseTimestamp: T0,
        producerId: pid,
        producerEpoch: pid === -1n ? -1 : 0,
        baseSequence: pid === -1n ? -1 : this.next,
        isTransactional: txn,
        records: records.map(([key, value]) => ({ key, value, timestamp: T0 })),
      }),
    );
    this.next += records.length;
    return this;
  }
}

/** Cleans `batches` like LogCleanerTest's doClean(LogToClean(tp, log, dirty, activeSegment.baseOffset), now). */
function clean(batches: readonly Buffer[], aborted: readonly AbortedTxn[], end: number, now: number, extra: Partial<CleanInput> = {}) {
  return cleanLog({ batches, cleanableEndOffset: end, now, deleteRetentionMs: DAY, abortedTransactions: aborted, ...extra });
}

const offsetsIn = (bs: readonly Buffer[]): number[] =>
  bs.flatMap((b) => {
    const d = decodeBatch(b);
    return d.records.map((r) => Number(d.baseOffset) + r.offsetDelta);
  });
const keysIn = (bs: readonly Buffer[]): string[] =>
  bs.flatMap((b) => {
    const d = decodeBatch(b);
    return d.isControl ? [] : d.records.map((r) => r.key!.toString());
  });
const lastOffsetsPerBatch = (bs: readonly Buffer[]): number[] => bs.map((b) => {
  const d = decodeBatch(b);
  return Number(d.baseOffset) + d.lastOffsetDelta;
});

describe('cleanLog examples after LogCleanerTest', () => {
  it('testCleanSegments: only the latest record of each key stays, offsets and untouched batches kept', () => {
    const log = new TestLog().plain(['1', 'a']).plain(['2', 'b'], ['1', 'c']).plain(['3', 'd']).plain(['2', 'e']);
    const r = clean(log.batches, [], log.next, T0);
    expect(offsetsIn(r.batches)).toEqual([2, 3, 4]);
    expect(keysIn(r.batches)).toEqual(['1', '3', '2']);
    expect(r.batches[1]).toBe(log.batches[2]);
    expect(r.batches[2]).toBe(log.batches[3]);
    expect(r.endOffset).toBe(5);
    // The rewritten batch keeps its base and last offsets.
    const d = decodeBatch(r.batches[0]);
    expect([d.baseOffset, d.lastOffsetDelta]).toEqual([1n, 1]);
    expect(r.stats).toMatchObject({ messagesRead: 5, messagesRetained: 3, batchesRewritten: 1, batchesDeleted: 1 });
  });

  it('testCleaningWithUncleanableSection: records at or after the bound are untouched', () => {
    const log = new TestLog().plain(['1', 'a']).plain(['1', 'b']).plain(['1', 'c']).plain(['1', 'd']);
    const r = clean(log.batches, [], 2, T0);
    expect(offsetsIn(r.batches)).toEqual([1, 2, 3]);
    expect(r.batches.slice(1)).toEqual(log.batches.slice(2));
    expect(r.batches[1]).toBe(log.batches[2]);
    expect(r.endOffset).toBe(2);
  });

  it('testPartialSegmentClean: keys only before the first dirty offset stay', () => {
    const log = new TestLog().plain(['1', 'a']).plain(['2', 'b']).plain(['2', 'c']).plain(['3', 'd']);
    const r = clean(log.batches, [], 4, T0, { firstDirtyOffset: 2 });
    expect(offsetsIn(r.batches)).toEqual([0, 2, 3]);
  });

  it('testCleaningWithUnkeyedMessages: records without a key are removed', () => {
    const log = new TestLog().plain([null, 'a'], ['1', 'b']).plain([null, 'c']).plain(['2', 'd']);
    const r = clean(log.batches, [], log.next, T0);
    expect(offsetsIn(r.batches)).toEqual([1, 3]);
    expect(r.stats.invalidMessages).toBe(2);
  });

  it('testCleaningWithDeletes / testCleanTombstone: a tombstone gets a delete horizon, then goes once it passes', () => {
    const log = new TestLog().plain(['1', 'a']).plain(['1', null]).plain(['2', 'b']);
    const first = clean(log.batches, [], log.next, T0 + 5);
    expect(offsetsIn(first.batches)).toEqual([1, 2]);
    const stamped = decodeBatch(first.batches[0]);
    expect(stamped.hasDeleteHorizon).toBe(true);
    expect(stamped.baseTimestamp).toBe(T0 + 5 + DAY);
    // The record keeps its own timestamp; the batch its producer fields.
    expect(stamped.records[0].timestamp).toBe(T0);
    expect(stamped.maxTimestamp).toBe(T0);
    expect(first.batches[1]).toBe(log.batches[2]);
    // Before the horizon the tombstone stays, in the same buffer (it already has its horizon).
    const second = clean(first.batches, [], log.next, T0 + 4 + DAY);
    expect(second.batches[0]).toBe(first.batches[0]);
    // At the horizon it goes.
    const third = clean(second.batches, [], log.next, T0 + 5 + DAY);
    expect(offsetsIn(third.batches)).toEqual([2]);
  });

  it('testBasicTransactionAwareCleaning: aborted data goes, committed data is compacted, the index is kept', () => {
    const log = new TestLog()
      .txn(1n, ['1', 'x'], ['2', 'x'])
      .txn(2n, ['2', 'x'], ['3', 'x'])
      .txn(1n, ['3', 'x'], ['4', 'x'])
      .marker(1n, false)
      .marker(2n, true)
      .txn(1n, ['2', 'x'])
      .marker(1n, true);
    const r = clean(log.batches, log.aborted, log.next, T0);
    expect(keysIn(r.batches)).toEqual(['3', '2']);
    expect(offsetsIn(r.batches)).toEqual([3, 6, 7, 8, 9]);
    expect(r.abortedTransactions).toEqual(log.aborted);
  });

  it('testAbortMarkerRemoval: the abort marker stays while its data does, then gets a horizon, then goes', () => {
    const log = new TestLog().txn(1n, ['1', 'x']).txn(1n, ['2', 'x'], ['3', 'x']).marker(1n, false).txn(1n, ['3', 'x']).marker(1n, true);
    const now = T0 + 10 * DAY;
    const first = clean(log.batches, log.aborted, log.next, now);
    expect(keysIn(first.batches)).toEqual(['3']);
    expect(offsetsIn(first.batches)).toEqual([3, 4, 5]);
    expect(first.abortedTransactions).toEqual(log.aborted);
    const second = clean(first.batches, first.abortedTransactions, log.next, now);
    expect(offsetsIn(second.batches)).toEqual([3, 4, 5]);
    expect(decodeBatch(second.batches[0]).hasDeleteHorizon).toBe(true);
    expect(second.abortedTransactions).toEqual([]);
    const third = clean(second.batches, second.abortedTransactions, log.next, now + DAY + 1);
    expect(offsetsIn(third.batches)).toEqual([4, 5]);
  });

  it('testCommitMarkerRemoval: a commit marker stays until its transaction has no records left', () => {
    const log = new TestLog().txn(1n, ['1', 'x']).txn(1n, ['2', 'x'], ['3', 'x']).marker(1n, true).txn(1n, ['2', 'x']).marker(1n, true);
    const now = T0 + 10 * DAY;
    let r = clean(log.batches, [], log.next, now);
    expect(keysIn(r.batches)).toEqual(['1', '3', '2']);
    expect(offsetsIn(r.batches)).toEqual([0, 2, 3, 4, 5]);
    log.batches = r.batches;
    log.txn(1n, ['1', 'x'], ['3', 'x']).marker(1n, true);
    r = clean(log.batches, [], log.next, now, { firstDirtyOffset: r.endOffset });
    expect(keysIn(r.batches)).toEqual(['2', '1', '3']);
    expect(offsetsIn(r.batches)).toEqual([3, 4, 5, 6, 7, 8]);
    // Same time: the marker has just been given its horizon.
    r = clean(r.batches, [], log.next, now);
    expect(offsetsIn(r.batches)).toEqual([3, 4, 5, 6, 7, 8]);
    r = clean(r.batches, [], log.next, Number.MAX_SAFE_INTEGER);
    expect(offsetsIn(r.batches)).toEqual([4, 5, 6, 7, 8]);
  });

  it('testLogCleanerRetainsLastSequenceEvenIfTransactionAborted: the last batch of an active producer stays, empty', () => {
    const log = new TestLog().txn(1n, ['1', 'x']).txn(1n, ['2', 'x'], ['3', 'x']).marker(1n, false);
    const active = new Map([[1n, { lastDataOffset: 2, producerEpoch: 0 }]]);
    const r = clean(log.batches, log.aborted, log.next, T0, { lastRecordsOfActiveProducers: active });
    expect(lastOffsetsPerBatch(r.batches)).toEqual([2, 3]);
    expect(keysIn(r.batches)).toEqual([]);
    expect(offsetsIn(r.batches)).toEqual([3]);
    const empty = decodeBatch(r.batches[0]);
    expect(empty).toMatchObject({ baseOffset: 1n, producerId: 1n, producerEpoch: 0, baseSequence: 1, isTransactional: true, recordsCount: 0, baseTimestamp: -1, maxTimestamp: T0 });
    // Its last sequence is base sequence + last offset delta, as before.
    expect(empty.baseSequence + empty.lastOffsetDelta).toBe(2);
  });

  it('testCleanEmptyControlBatch: an active producer\'s last marker stays as an empty batch, which a later pass keeps', () => {
    const log = new TestLog().marker(1n, true).plain(['2', '2']).plain(['3', '3']);
    const active = new Map([[1n, { lastDataOffset: null, producerEpoch: 0 }]]);
    const now = T0 + 10 * DAY;
    let r = clean(log.batches, [], log.next, now, { lastRecordsOfActiveProducers: active });
    expect(decodeBatch(r.batches[0]).hasDeleteHorizon).toBe(true);
    r = clean(r.batches, [], log.next, now + DAY + 1, { lastRecordsOfActiveProducers: active });
    expect(offsetsIn(r.batches)).toEqual([1, 2]);
    expect(lastOffsetsPerBatch(r.batches)).toEqual([0, 1, 2]);
    const again = clean(r.batches, [], log.next, Number.MAX_SAFE_INTEGER, { lastRecordsOfActiveProducers: active });
    expect(again.batches[0]).toBe(r.batches[0]);
    // Without the producer the empty control batch is discarded.
    expect(offsetsIn(clean(r.batches, [], log.next, now).batches)).toEqual([1, 2]);
    expect(clean(r.batches, [], log.next, now).batches).toHaveLength(2);
  });

  it('rebuilt batches keep their codec and LogAppendTime, with a valid CRC', () => {
    const gz = encodeBatch({
      baseOffset: 0n,
      compression: 'gzip',
      timestampType: 1,
      baseTimestamp: T0,
      maxTimestamp: T0 + 7,
      records: [{ key: 'k', value: 'a' }, { key: 'k', value: 'b' }, { key: 'j', value: null }],
    });
    const r = clean([gz], [], 3, T0);
    const d = decodeBatch(r.batches[0]);
    expect(d).toMatchObject({ compression: 'gzip', timestampType: 1, maxTimestamp: T0 + 7, hasDeleteHorizon: true, lastOffsetDelta: 2 });
    expect(d.records.map((x) => [x.offsetDelta, x.key?.toString(), x.value?.toString() ?? null])).toEqual([[1, 'k', 'b'], [2, 'j', null]]);
  });

  it('refuses legacy message sets', () => {
    const legacy = Buffer.alloc(30);
    legacy.writeInt8(1, 16);
    expect(() => clean([legacy], [], 1, T0)).toThrow(/v2/);
  });
});
