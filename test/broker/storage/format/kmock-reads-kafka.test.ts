// kmock reads Kafka's files: a real Kafka 3.9.1 (scripts/kafka-reference, its log.dirs pointed at a
// temp dir of this test's) takes a topic with segment.bytes=8192 and two partitions from kafkajs
// producers (plain, gzip, idempotent, transactional with commits, aborts and one transaction left
// open), is stopped cleanly, and every file of its log dir is decoded with
// src/broker/storage/format: each .log scanned to its end with every batch found (the partitions'
// end offsets and record counts as produced), each index passing the decoder's checks and equal to
// the one the scan rebuilds by Kafka's rules, the transaction indexes naming exactly the aborted
// transactions, the producer snapshots agreeing with the log, the checkpoints, partition.metadata,
// meta.properties and .kafka_cleanshutdown read. Then the same after kill -9 of a second Kafka:
// the active segments' indexes still preallocated (10 MiB of zeros after their entries), no
// snapshot at the end, no clean-shutdown file. About 15 s, most of it Kafka starting and stopping.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompressionTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceKafkaOrReason, type ReferenceKafka } from '../../../conformance/support/reference.js';
import {
  classifyPartitionFile,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  decodeCleanShutdown,
  decodeLeaderEpochCheckpoint,
  decodeMetaProperties,
  decodeOffsetCheckpoint,
  decodeOffsetIndex,
  decodePartitionMetadata,
  decodeProducerSnapshot,
  decodeTimeIndex,
  decodeTxnIndex,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  parsePartitionDirName,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  scanLogSegment,
  segmentFileName,
  unwrap,
  verifyOffsetIndex,
  verifyTimeIndex,
  type AbortedTxnEntry,
  type ProducerSnapshotEntry,
  type ScannedBatch,
  type SegmentScan,
} from '../../../../src/broker/storage/format/index.js';
import { kafkaLibs, KAFKA_VERSION } from './kafka-tools.js';

const libs = await kafkaLibs();
const TOPIC = 'seg';
const PARTITIONS = 2;

interface Produced {
  records: number[];
  /** Last stable offsets as kafkajs's admin reads them (ListOffsets, read_committed): partition 0's open transaction holds its own back. */
  stableOffsets: number[];
  clusterId: string;
}

let kafka: ReferenceKafka | undefined;
let skipReason: string | undefined;
let dataDir: string;
let produced: Produced;

beforeAll(async () => {
  if (libs === undefined) return;
  dataDir = mkdtempSync(join(tmpdir(), 'kmock-kafka-data-'));
  const started = await startWithTopic(dataDir);
  if ('reason' in started) {
    skipReason = started.reason;
    return;
  }
  ({ kafka } = started);
  const { client, admin } = started;
  const records = new Array<number>(PARTITIONS).fill(0);
  const count = (partition: number, n: number): void => {
    records[partition] += n;
  };

  const plain = client.producer();
  await plain.connect();
  for (let i = 0; i < 40; i++) {
    const messages = Array.from({ length: 5 }, (_, j) => ({ partition: i % PARTITIONS, key: `k${j}`, value: `${'x'.repeat(200)}${i}` }));
    await plain.send({ topic: TOPIC, messages });
    count(i % PARTITIONS, 5);
  }
  await plain.send({ topic: TOPIC, compression: CompressionTypes.GZIP, messages: Array.from({ length: 20 }, (_, j) => ({ partition: 1, value: `gz${j}` })) });
  count(1, 20);
  await plain.disconnect();

  const idem = client.producer({ idempotent: true, maxInFlightRequests: 1 });
  await idem.connect();
  for (let i = 0; i < 30; i++) {
    await idem.send({ topic: TOPIC, messages: [{ partition: i % PARTITIONS, value: `idem-${i}-${'y'.repeat(300)}` }, { partition: i % PARTITIONS, value: `idem-${i}b` }] });
    count(i % PARTITIONS, 2);
  }
  await idem.disconnect();

  const txn = client.producer({ transactionalId: 'kmock-format-tx', idempotent: true, maxInFlightRequests: 1 });
  await txn.connect();
  for (let i = 0; i < 8; i++) {
    const t = await txn.transaction();
    await t.send({ topic: TOPIC, messages: [{ partition: 0, value: `txn${i}` }, { partition: 1, value: `txn${i}` }, { partition: 0, value: `txn${i}b` }] });
    count(0, 2);
    count(1, 1);
    if (i % 2 === 1) await t.abort();
    else await t.commit();
  }
  // One transaction left open at shutdown: the snapshots carry its first offset.
  const open = await txn.transaction();
  await open.send({ topic: TOPIC, messages: [{ partition: 0, value: 'open' }] });
  count(0, 1);
  await txn.disconnect();

  const offsets = await admin.fetchTopicOffsets(TOPIC);
  const stableOffsets = new Array<number>(PARTITIONS).fill(0);
  for (const o of offsets) stableOffsets[o.partition] = Number(o.high);
  const { clusterId } = await admin.describeCluster();
  await admin.disconnect();
  produced = { records, stableOffsets, clusterId };

  // A clean stop (SIGTERM): give the controlled shutdown time before scripts/kafka-reference kills.
  process.env.KMOCK_KAFKA_STOP_TIMEOUT = '60';
  await kafka.stop();
}, 240_000);

afterAll(async () => {
  await kafka?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

/** The log end offset: the last stable offset, plus partition 0's open transaction (one record). */
function endOffset(p: number): number {
  return produced.stableOffsets[p] + (p === 0 ? 1 : 0);
}

function read(...parts: string[]): Buffer {
  return readFileSync(join(dataDir, ...parts));
}

/** Everything decoded from one partition folder. */
interface PartitionFiles {
  scans: SegmentScan[];
  batches: ScannedBatch[];
  aborted: AbortedTxnEntry[];
  snapshots: Array<{ offset: number; entries: ProducerSnapshotEntry[] }>;
  unknown: string[];
}

/** Decodes every file of a partition folder, checking each on the way. */
function decodePartition(name: string): PartitionFiles {
  const dir = join(dataDir, name);
  const files = readdirSync(dir).sort();
  const out: PartitionFiles = { scans: [], batches: [], aborted: [], snapshots: [], unknown: [] };
  let previousLastOffset: number | undefined;
  for (const f of files) {
    const kind = classifyPartitionFile(f);
    const file = `${name}/${f}`;
    const bytes = readFileSync(join(dir, f));
    if (kind.kind === 'leader-epoch-checkpoint') unwrap(decodeLeaderEpochCheckpoint(bytes, { file }));
    else if (kind.kind === 'partition-metadata') unwrap(decodePartitionMetadata(bytes, { file }));
    else if (kind.kind !== 'segment') out.unknown.push(f);
    else {
      expect(kind.pending, file).toBeUndefined();
      const base = kind.baseOffset;
      if (kind.suffix === '.log') {
        const scan = scanLogSegment(bytes, base, { file, indexIntervalBytes: 4096, previousLastOffset });
        expect(scan.stop, file).toEqual({ kind: 'end' });
        expect(scan.validBytes).toBe(bytes.length);
        out.scans.push(scan);
        out.batches.push(...scan.batches);
        if (scan.batchCount > 0) previousLastOffset = scan.nextOffset - 1;
        // The indexes Kafka wrote are the ones its rules give (LogSegment.append = recover, one batch per append).
        const index = unwrap(decodeOffsetIndex(base, read(name, segmentFileName(base, '.index')), { file: `${file} index` }));
        const time = unwrap(decodeTimeIndex(base, read(name, segmentFileName(base, '.timeindex')), { file: `${file} time index` }));
        expect(index.preallocatedBytes, `${file}: a clean shutdown trims indexes`).toBe(0);
        expect(time.preallocatedBytes).toBe(0);
        expect(verifyOffsetIndex(index.entries, scan.batches)).toEqual([]);
        expect(verifyTimeIndex(time.entries, scan.batches)).toEqual([]);
        expect(index.entries, `${file} offset index`).toEqual(scan.indexes!.offsetIndex);
        expect(time.entries, `${file} time index`).toEqual(scan.indexes!.timeIndex);
      } else if (kind.suffix === '.txnindex') {
        const txn = unwrap(decodeTxnIndex(base, bytes, { file }));
        expect(txn.partialTailBytes).toBe(0);
        out.aborted.push(...txn.entries);
      } else if (kind.suffix === '.snapshot') {
        out.snapshots.push({ offset: base, entries: unwrap(decodeProducerSnapshot(bytes, { file })) });
      }
    }
  }
  return out;
}

describe.skipIf(libs === undefined)(`kmock reads a log dir Kafka ${KAFKA_VERSION} wrote`, () => {
  it('finds the log dir files Kafka writes, and reads them', ({ skip }) => {
    if (skipReason !== undefined) skip(skipReason);
    const top = readdirSync(dataDir).sort();
    expect(top).toEqual(expect.arrayContaining(['.kafka_cleanshutdown', 'meta.properties', RECOVERY_POINT_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE, CLEANER_OFFSET_CHECKPOINT_FILE, `${TOPIC}-0`, `${TOPIC}-1`]));
    const meta = unwrap(decodeMetaProperties(read('meta.properties')));
    expect(meta).toMatchObject({ version: 1, nodeId: 1, clusterId: produced.clusterId });
    expect(meta.directoryId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(unwrap(decodeCleanShutdown(read('.kafka_cleanshutdown'))).brokerEpoch).toBeGreaterThanOrEqual(0);

    const recovery = unwrap(decodeOffsetCheckpoint(read(RECOVERY_POINT_CHECKPOINT_FILE), { file: RECOVERY_POINT_CHECKPOINT_FILE }));
    const replication = unwrap(decodeOffsetCheckpoint(read(REPLICATION_OFFSET_CHECKPOINT_FILE), { file: REPLICATION_OFFSET_CHECKPOINT_FILE }));
    unwrap(decodeOffsetCheckpoint(read(LOG_START_OFFSET_CHECKPOINT_FILE), { file: LOG_START_OFFSET_CHECKPOINT_FILE }));
    // Never written while nothing is compacted: Kafka leaves it empty.
    expect(unwrap(decodeOffsetCheckpoint(read(CLEANER_OFFSET_CHECKPOINT_FILE)))).toEqual([]);
    for (let p = 0; p < PARTITIONS; p++) {
      // A clean shutdown flushes everything: the recovery point and the high watermark are the log end offset.
      expect(recovery).toContainEqual({ topic: TOPIC, partition: p, offset: endOffset(p) });
      expect(replication).toContainEqual({ topic: TOPIC, partition: p, offset: endOffset(p) });
    }
    for (const d of top) {
      if (!statSync(join(dataDir, d)).isDirectory()) continue;
      expect(parsePartitionDirName(d), d).toMatchObject({ kind: 'live' });
    }
  });

  it('scans every segment of the topic to its end and finds every batch produced', ({ skip }) => {
    if (skipReason !== undefined) skip(skipReason);
    const topicIds = new Set<string>();
    for (let p = 0; p < PARTITIONS; p++) {
      const name = `${TOPIC}-${p}`;
      const files = decodePartition(name);
      expect(files.unknown).toEqual([]);
      // segment.bytes=8192: several segments, named by their first offsets.
      expect(files.scans.length, name).toBeGreaterThanOrEqual(3);
      files.scans.forEach((s, i) => {
        if (i > 0) expect(s.baseOffset).toBe(files.scans[i - 1].nextOffset);
        expect(s.fileBytes).toBeLessThanOrEqual(8192);
      });
      expect(files.scans[files.scans.length - 1].nextOffset).toBe(endOffset(p));
      const data = files.batches.filter((b) => !b.isControl);
      expect(data.reduce((n, b) => n + (b.recordCount ?? 0), 0)).toBe(produced.records[p]);
      expect(files.batches.some((b) => b.codec === 1)).toBe(p === 1);

      // The transaction index names exactly the aborted transactions: per ABORT marker, the
      // transaction's first offset, the marker, and the stable offset after it.
      const expectedAborts: AbortedTxnEntry[] = [];
      const firstOf = new Map<bigint, number>();
      for (const b of files.batches) {
        if (!b.isTransactional) continue;
        if (!b.isControl) {
          if (!firstOf.has(b.producerId)) firstOf.set(b.producerId, b.baseOffset!);
          continue;
        }
        if (b.controlType === 0) expectedAborts.push({ producerId: b.producerId, firstOffset: firstOf.get(b.producerId)!, lastOffset: b.lastOffset, lastStableOffset: b.lastOffset + 1 });
        firstOf.delete(b.producerId);
      }
      expect(expectedAborts.length).toBe(p === 0 ? 4 : 4);
      expect(files.aborted).toEqual(expectedAborts);

      // Producer snapshots: at segment rolls and at the end offset; each agrees with the log below it.
      expect(files.snapshots.length).toBeGreaterThanOrEqual(2);
      const bases = new Set(files.scans.map((s) => s.baseOffset));
      for (const snap of files.snapshots) {
        expect(bases.has(snap.offset) || snap.offset === endOffset(p), `snapshot at ${snap.offset}`).toBe(true);
        for (const e of snap.entries) {
          const last = files.batches.filter((b) => b.producerId === e.producerId && !b.isControl && b.lastOffset < snap.offset).pop()!;
          expect(e.lastOffset).toBe(last.lastOffset);
          expect(e.lastSequence).toBe(last.baseSequence + last.lastOffset - last.baseOffset!);
          expect(e.producerEpoch).toBe(last.producerEpoch);
          const open = firstOpenAt(files.batches, e.producerId, snap.offset);
          expect(e.currentTxnFirstOffset).toBe(open);
        }
      }
      // The snapshot at the end has the open transaction, starting at partition 0's last stable offset.
      const end = files.snapshots.find((s) => s.offset === endOffset(p))!;
      const openTxns = end.entries.filter((e) => e.currentTxnFirstOffset >= 0).map((e) => e.currentTxnFirstOffset);
      expect(openTxns).toEqual(p === 0 ? [produced.stableOffsets[0]] : []);

      const epochs = unwrap(decodeLeaderEpochCheckpoint(read(name, 'leader-epoch-checkpoint')));
      expect(epochs).toEqual([{ epoch: 0, startOffset: 0 }]);
      expect(files.scans.flatMap((s, i) => scanLogSegment(read(name, segmentFileName(s.baseOffset, '.log')), s.baseOffset, { latestEpoch: i === 0 ? -1 : 0 }).epochs)).toEqual(epochs);
      topicIds.add(unwrap(decodePartitionMetadata(read(name, 'partition.metadata'))).topicId);
    }
    expect(topicIds.size).toBe(1);
  });

  it('reads every other partition folder Kafka made (__transaction_state, __cluster_metadata)', ({ skip }) => {
    if (skipReason !== undefined) skip(skipReason);
    const dirs = readdirSync(dataDir).filter((d) => statSync(join(dataDir, d)).isDirectory() && !d.startsWith(`${TOPIC}-`));
    expect(dirs).toContain('__cluster_metadata-0');
    expect(dirs.filter((d) => d.startsWith('__transaction_state-')).length).toBe(50);
    for (const d of dirs) {
      const files = decodePartition(d);
      if (d === '__cluster_metadata-0') {
        // KRaft's own files: its quorum state, and maybe metadata snapshots (<offset>-<epoch>.checkpoint).
        for (const f of files.unknown) expect(f === 'quorum-state' || /^\d{20}-\d{10}\.checkpoint$/.test(f), f).toBe(true);
      } else expect(files.unknown, d).toEqual([]);
    }
  });
});

describe.skipIf(libs === undefined)(`kmock reads a log dir Kafka ${KAFKA_VERSION} left when killed (kill -9)`, () => {
  let crashed: ReferenceKafka | undefined;
  let crashDir: string;
  let crashReason: string | undefined;
  let ends: number[];

  beforeAll(async () => {
    crashDir = mkdtempSync(join(tmpdir(), 'kmock-kafka-crash-'));
    const started = await startWithTopic(crashDir);
    if ('reason' in started) {
      crashReason = started.reason;
      return;
    }
    crashed = started.kafka;
    const { client, admin } = started;
    const idem = client.producer({ idempotent: true, maxInFlightRequests: 1 });
    await idem.connect();
    for (let i = 0; i < 40; i++) await idem.send({ topic: TOPIC, messages: [{ partition: i % PARTITIONS, value: `crash-${i}-${'z'.repeat(400)}` }] });
    await idem.disconnect();
    const txn = client.producer({ transactionalId: 'kmock-format-crash', idempotent: true, maxInFlightRequests: 1 });
    await txn.connect();
    for (let i = 0; i < 4; i++) {
      const t = await txn.transaction();
      await t.send({ topic: TOPIC, messages: [{ partition: 0, value: `t${i}` }, { partition: 1, value: `t${i}` }] });
      if (i % 2 === 1) await t.abort();
      else await t.commit();
    }
    await txn.disconnect();
    ends = new Array<number>(PARTITIONS).fill(0);
    for (const o of await admin.fetchTopicOffsets(TOPIC)) ends[o.partition] = Number(o.high);
    await admin.disconnect();
    // The JVM this test started, by its pid: no shutdown hook runs, nothing is flushed or trimmed.
    process.kill(crashed.pid, 'SIGKILL');
    for (let i = 0; i < 100 && alive(crashed.pid); i++) await new Promise((r) => setTimeout(r, 100));
    await crashed.stop();
  }, 240_000);

  afterAll(async () => {
    await crashed?.stop();
    if (crashDir !== undefined) rmSync(crashDir, { recursive: true, force: true });
  });

  it('scans every segment to its end; the active segments keep their preallocated indexes', ({ skip }) => {
    if (crashReason !== undefined) skip(crashReason);
    const top = readdirSync(crashDir);
    expect(top).not.toContain('.kafka_cleanshutdown');
    expect(top).toContain('meta.properties');
    unwrap(decodeMetaProperties(readFileSync(join(crashDir, 'meta.properties'))));
    // Checkpoints are written every log.flush.offset.checkpoint.interval.ms (60 s): after an early
    // crash they are still the empty files CheckpointFile creates, which read as no entries.
    for (const f of [RECOVERY_POINT_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE, CLEANER_OFFSET_CHECKPOINT_FILE]) {
      unwrap(decodeOffsetCheckpoint(readFileSync(join(crashDir, f)), { file: f }));
    }
    for (let p = 0; p < PARTITIONS; p++) {
      const dir = join(crashDir, `${TOPIC}-${p}`);
      const logs = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
      expect(logs.length).toBeGreaterThanOrEqual(2);
      let next = 0;
      logs.forEach((f, i) => {
        const base = Number(f.slice(0, 20));
        expect(base).toBe(next);
        const scan = scanLogSegment(readFileSync(join(dir, f)), base, { indexIntervalBytes: 4096 });
        expect(scan.stop, f).toEqual({ kind: 'end' });
        next = scan.nextOffset;
        const indexBytes = readFileSync(join(dir, segmentFileName(base, '.index')));
        const timeBytes = readFileSync(join(dir, segmentFileName(base, '.timeindex')));
        const index = unwrap(decodeOffsetIndex(base, indexBytes));
        const time = unwrap(decodeTimeIndex(base, timeBytes));
        expect(index.entries).toEqual(scan.indexes!.offsetIndex);
        const active = i === logs.length - 1;
        if (active) {
          // segment.index.bytes (10 MiB) of preallocated index, and no roll entry in the time index yet.
          expect(indexBytes.length).toBe(10485760);
          expect(timeBytes.length).toBe(10485756);
          expect(index.preallocatedBytes).toBe(10485760 - 8 * index.entries.length);
          const rebuilt = scan.indexes!.timeIndex;
          expect([rebuilt, rebuilt.slice(0, -1)]).toContainEqual(time.entries);
        } else {
          expect(index.preallocatedBytes).toBe(0);
          expect(time.entries).toEqual(scan.indexes!.timeIndex);
        }
      });
      expect(next).toBe(ends[p]);
      // Snapshots only from rolls: none at the log end, which only a clean close writes.
      const bases = new Set(logs.map((f) => Number(f.slice(0, 20))));
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.snapshot'))) {
        expect(bases.has(Number(f.slice(0, 20))), f).toBe(true);
        unwrap(decodeProducerSnapshot(readFileSync(join(dir, f)), { file: f }));
      }
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.txnindex'))) unwrap(decodeTxnIndex(Number(f.slice(0, 20)), readFileSync(join(dir, f))));
      expect(unwrap(decodeLeaderEpochCheckpoint(readFileSync(join(dir, 'leader-epoch-checkpoint'))))).toEqual([{ epoch: 0, startOffset: 0 }]);
    }
  });
});

/** A Kafka whose log.dirs is `dir`, with TOPIC created (segment.bytes 8192), and a connected admin. */
async function startWithTopic(dir: string): Promise<{ kafka: ReferenceKafka; client: Kafka; admin: Admin } | { reason: string }> {
  const started = await startReferenceKafkaOrReason({ version: KAFKA_VERSION, settings: { 'log.dirs': dir } });
  if (started.kafka === null) return { reason: started.reason };
  const client = new Kafka({ brokers: [started.kafka.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: TOPIC, numPartitions: PARTITIONS, configEntries: [{ name: 'segment.bytes', value: '8192' }] }] });
  return { kafka: started.kafka, client, admin };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The first offset of `producerId`'s transaction still open at `offset`, or -1. */
function firstOpenAt(batches: readonly ScannedBatch[], producerId: bigint, offset: number): number {
  let first = -1;
  for (const b of batches) {
    if (b.producerId !== producerId || !b.isTransactional || b.lastOffset >= offset) continue;
    if (b.isControl) first = -1;
    else if (first < 0) first = b.baseOffset!;
  }
  return first;
}
