// The partition log against a tiny model of Kafka's transactional log, over random sequences of
// transactional appends, COMMIT/ABORT markers (also for producers with nothing open, and with
// bumped epochs), non-transactional appends and DeleteRecords: after every step the last stable
// offset, the aborted-transactions index and every read_committed read (records up to the LSO,
// the aborted list of the range) agree with the model.
//
// The model says what each thing means, not how Kafka computes it: the LSO is the first offset of
// the oldest open transaction (at least the log start offset), else the log end offset; an abort
// records the oldest other open transaction's first offset (else the offset past the marker) as its
// LSO; a read's aborted list is every aborted transaction overlapping [fetch offset, upper bound),
// which Kafka's scan with its early stop must give exactly. The upper bound is the offset index's
// (index.interval.bytes random, from an entry before every append to none at all), modelled from
// the batches' sizes as LogSegment.append adds entries; reads use random byte limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog, type LogConfig } from '../../../src/broker/log/partition-log.js';
import { SENTINEL_GUARD } from '../../../src/broker/log/producer-state.js';
import { decodeRecords, encodeBatch, type RecordBatch } from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;
const INTERVALS = [0, 60, 150, 400, 0x7fffffff];
const UNVERIFIED = { verificationEnabled: false, guard: SENTINEL_GUARD };

type Op =
  | { kind: 'txn'; pid: number; n: number }
  | { kind: 'plain'; n: number }
  | { kind: 'marker'; pid: number; commit: boolean; bump: boolean }
  | { kind: 'delete'; back: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('txn' as const), pid: fc.nat(2), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('plain' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('marker' as const), pid: fc.nat(2), commit: fc.boolean(), bump: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), back: fc.nat(4) }) },
);

interface ModelAborted {
  producerId: bigint;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

class Model {
  /** Per stored batch: base offset, last offset, byte position, size. */
  batches: Array<{ base: number; last: number; pos: number; size: number }> = [];
  /** The offset index: [last offset, position]. */
  index: Array<[number, number]> = [];
  bytesSinceIndex = 0;
  bytes = 0;
  end = 0;
  start = 0;
  /** producer -> first offset of its open transaction */
  open = new Map<number, number>();
  epoch = new Map<number, number>();
  seq = new Map<number, number>();
  aborted: ModelAborted[] = [];

  stored(base: number, last: number, size: number, interval: number): void {
    if (this.bytesSinceIndex > interval) {
      this.index.push([last, this.bytes]);
      this.bytesSinceIndex = 0;
    }
    this.bytesSinceIndex += size;
    this.batches.push({ base, last, pos: this.bytes, size });
    this.bytes += size;
  }

  /** Byte position of the batch holding `offset`, the end position past the last one. */
  positionOf(offset: number): number {
    return this.batches.find((b) => b.last >= offset)?.pos ?? this.bytes;
  }

  get lso(): number {
    const firsts = [...this.open.values()];
    if (firsts.length === 0) return this.end;
    return Math.min(Math.max(Math.min(...firsts), this.start), this.end);
  }
}

function run(interval: number, ops: Op[], limits: number[]): void {
  const CONFIG: LogConfig = { ...DEFAULT_LOG_CONFIG, indexIntervalBytes: interval };
  const log = new PartitionLog('t', 0, NOW, NOW);
  const m = new Model();
  let step = 0;
  for (const o of ops) {
    switch (o.kind) {
      case 'txn': {
        const epoch = m.epoch.get(o.pid) ?? 0;
        const seq = m.seq.get(o.pid) ?? 0;
        const b = encodeBatch({
          records: Array.from({ length: o.n }, (_, i) => ({ value: `${o.pid}:${seq + i}`, timestamp: NOW })),
          producerId: BigInt(o.pid),
          producerEpoch: epoch,
          baseSequence: seq,
          isTransactional: true,
        });
        const r = log.appendAsLeader(b, CONFIG, NOW, UNVERIFIED);
        expect(r).toMatchObject({ errorCode: 0, baseOffset: m.end });
        m.stored(m.end, m.end + o.n - 1, b.length, interval);
        if (!m.open.has(o.pid)) m.open.set(o.pid, m.end);
        m.end += o.n;
        m.seq.set(o.pid, seq + o.n);
        m.epoch.set(o.pid, epoch);
        break;
      }
      case 'plain': {
        const b = encodeBatch({ records: Array.from({ length: o.n }, () => ({ value: 'x', timestamp: NOW })) });
        expect(log.appendAsLeader(b, CONFIG, NOW, UNVERIFIED).baseOffset).toBe(m.end);
        m.stored(m.end, m.end + o.n - 1, b.length, interval);
        m.end += o.n;
        break;
      }
      case 'marker': {
        const epoch = (m.epoch.get(o.pid) ?? 0) + (o.bump ? 1 : 0);
        const r = log.appendControlMarker({ producerId: BigInt(o.pid), producerEpoch: epoch, coordinatorEpoch: 0, result: o.commit ? 'COMMIT' : 'ABORT' }, NOW, CONFIG);
        expect(r).toEqual({ errorCode: 0, offset: m.end });
        m.stored(m.end, m.end, MARKER_SIZE, interval);
        const first = m.open.get(o.pid);
        if (first !== undefined) {
          m.open.delete(o.pid);
          if (!o.commit) {
            const others = [...m.open.values()];
            m.aborted.push({ producerId: BigInt(o.pid), firstOffset: first, lastOffset: m.end, lastStableOffset: others.length > 0 ? Math.min(...others) : m.end + 1 });
          }
        }
        if (o.bump) {
          // a new epoch forgets the producer's sequences: its next batch starts at 0
          m.seq.set(o.pid, 0);
        }
        m.epoch.set(o.pid, epoch);
        m.end += 1;
        break;
      }
      case 'delete': {
        const to = Math.max(m.start, m.end - o.back);
        expect(log.deleteRecords(to).errorCode).toBe(ErrorCode.NONE);
        m.start = to;
        break;
      }
    }
    expect(log.logEndOffset).toBe(m.end);
    expect(log.lastStableOffset).toBe(m.lso);
    expect(log.txnIndex.all()).toEqual(m.aborted);
    // every read_committed read from the log start offset to the log end offset
    for (let fetch = m.start; fetch <= m.end; fetch++) {
      const r = log.read(fetch, 1 << 20, true, true);
      expect(r.errorCode).toBe(0);
      const batches = r.records.length === 0 ? [] : (decodeRecords(Buffer.concat(r.records)).entries as RecordBatch[]);
      const offsets = batches.flatMap((b) => b.records.map((x) => Number(b.baseOffset) + x.offsetDelta));
      if (fetch >= m.lso) {
        expect(offsets).toEqual([]);
        expect(r.abortedTransactions).toEqual([]);
        continue;
      }
      // whole batches, from the one holding the fetch offset, all below the LSO, up to the batch holding it
      expect(offsets.length).toBeGreaterThan(0);
      expect(Math.max(...offsets)).toBeLessThan(m.lso);
      expect(Number(batches[0].baseOffset)).toBeLessThanOrEqual(fetch);
      const next = Math.max(...offsets) + 1;
      expect(log.positionOf(next)).toBe(log.positionOf(m.lso));
      expect(r.abortedTransactions).toEqual(abortedFor(m, fetch, m.positionOf(fetch), r.bytes));
      // a byte-limited read (no minOneMessage): the bytes are the limit or what the LSO allows
      const limit = limits[step++ % limits.length];
      const cut = log.read(fetch, limit, false, true);
      const startPos = m.positionOf(fetch);
      const fetchSize = Math.min(m.positionOf(m.lso) - startPos, limit);
      expect(cut.bytes).toBe(fetchSize);
      expect(cut.startPosition).toBe(startPos);
      expect(cut.abortedTransactions).toEqual(abortedFor(m, fetch, startPos, fetchSize));
    }
  }
}

/** RECORD_BATCH_OVERHEAD + EndTransactionMarker.CURRENT_END_TXN_SCHEMA_RECORD_SIZE. */
const MARKER_SIZE = 78;

/** The aborted transactions overlapping [fetch, upper bound): the first index entry at or past the bytes read, else the log end. */
function abortedFor(m: Model, fetch: number, startPos: number, fetchSize: number): ModelAborted[] {
  const upper = m.index.find(([, pos]) => pos >= startPos + fetchSize)?.[0] ?? m.end;
  return m.aborted.filter((t) => t.lastOffset >= fetch && t.firstOffset < upper);
}

describe('transactional log vs a model', () => {
  it('LSO, aborted index and read_committed reads over random appends, markers and deletions', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INTERVALS), fc.array(op, { maxLength: 40 }), fc.array(fc.nat(400), { minLength: 1, maxLength: 8 }), (interval, ops, limits) =>
        run(interval, ops, limits),
      ),
      { numRuns: 300 },
    );
  });
});
