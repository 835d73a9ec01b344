// Kafka reads kmock's files: a log dir written with src/broker/storage/format's encoders (two
// segments of real v2 batches from the codec's encoder: plain, idempotent, transactional with
// COMMIT and ABORT markers, gzip, LogAppendTime, an open transaction; their .index, .timeindex and
// .txnindex built by Kafka's rules; producer snapshots at the roll and at the end;
// leader-epoch-checkpoint, partition.metadata, meta.properties, the offset checkpoints and
// .kafka_cleanshutdown) is read by Kafka 3.9.1's kafka-dump-log.sh (kafka.tools.DumpLogSegments,
// with --print-data-log --deep-iteration, --index-sanity-check, --verify-index-only) and by
// Kafka's own readers of the text files (KafkaFormatReader.java); what they print is compared with
// what was written. Also: Kafka's count of a torn tail's invalid bytes equals the scan's, the
// batch Kafka marks invalid is where the scan stops, and legacy magic 0/1 message sets read alike.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeCleanShutdown,
  encodeLeaderEpochCheckpoint,
  encodeMetaProperties,
  encodeOffsetCheckpoint,
  encodeOffsetIndex,
  encodePartitionMetadata,
  encodeProducerSnapshot,
  encodeTimeIndex,
  encodeTxnIndex,
  partitionDirName,
  scanLogSegment,
  SegmentIndexBuilder,
  segmentFileName,
  type AbortedTxnEntry,
  type OffsetIndexEntry,
  type ProducerSnapshotEntry,
  type TimeIndexEntry,
} from '../../../../src/broker/storage/format/index.js';
import { decodeBatch, encodeBatch, encodeEndTxnMarkerBatch, encodeMessageSet, readBatchHeader, setPartitionLeaderEpoch, type RecordInput } from '../../../../src/codec/records/index.js';
import { dumpLogSegments, dumpSections, fieldsOf, jdkMissing, kafkaFormatReader, kafkaLibs, readerLines } from './kafka-tools.js';

const libs = await kafkaLibs();
const noJdk = libs === undefined ? undefined : jdkMissing();

const T = 1_750_000_000_000;
const TOPIC = 'orders';
const TOPIC_ID = 'ZTdiAUvQTKSWHX-QynA3Ow';
const CLUSTER_ID = 'HBsmYSiztkHEqbCqcf5dRQ';
const DIRECTORY_ID = '8trtQZb_oSHHzFYAfLe5zw';
const INDEX_INTERVAL = 256;
const IDEMPOTENT = 1000n;
const TXN = 2000n;
const TXN_EPOCH = 3;
const COORDINATOR_EPOCH = 7;

interface Segment {
  baseOffset: number;
  batches: Buffer[];
  log: Buffer;
  offsetIndex: OffsetIndexEntry[];
  timeIndex: TimeIndexEntry[];
  aborted: AbortedTxnEntry[];
}

/** The partition as kmock's log would hold it: batches with offsets, two segments, the producer state at each point. */
function buildPartition(): { segments: Segment[]; snapshots: Array<{ offset: number; entries: ProducerSnapshotEntry[] }>; values: Map<number, string> } {
  const values = new Map<number, string>();
  const producers = new Map<bigint, ProducerSnapshotEntry>();
  const segments: Segment[] = [];
  const snapshots: Array<{ offset: number; entries: ProducerSnapshotEntry[] }> = [];
  let next = 0;
  let seq = new Map<bigint, number>();
  let current: { base: number; batches: Buffer[]; aborted: AbortedTxnEntry[]; epoch: number } = { base: 0, batches: [], aborted: [], epoch: 0 };
  let txnFirst = -1;

  const append = (b: Buffer): void => {
    setPartitionLeaderEpoch(b, current.epoch);
    const h = readBatchHeader(b);
    const base = Number(h.baseOffset);
    const last = base + h.lastOffsetDelta;
    if (!h.isControl) decodeBatch(b).records.forEach((r, i) => values.set(base + i, r.value!.toString()));
    if (h.producerId >= 0n) {
      const e = producers.get(h.producerId) ?? {
        producerId: h.producerId,
        producerEpoch: h.producerEpoch,
        lastSequence: -1,
        lastOffset: -1,
        offsetDelta: 0,
        timestamp: -1,
        coordinatorEpoch: -1,
        currentTxnFirstOffset: -1,
      };
      if (h.isControl) {
        // ProducerAppendInfo.appendEndTxnMarker: the coordinator epoch, no ongoing transaction, the marker's time.
        const commit = decodeBatch(b).records[0].control!.type === 1;
        if (!commit) current.aborted.push({ producerId: h.producerId, firstOffset: e.currentTxnFirstOffset, lastOffset: last, lastStableOffset: last + 1 });
        Object.assign(e, { coordinatorEpoch: COORDINATOR_EPOCH, currentTxnFirstOffset: -1, timestamp: h.maxTimestamp });
      } else {
        Object.assign(e, { lastSequence: h.baseSequence + h.lastOffsetDelta, lastOffset: last, offsetDelta: h.lastOffsetDelta, timestamp: h.maxTimestamp });
        if (h.isTransactional && e.currentTxnFirstOffset < 0) e.currentTxnFirstOffset = base;
      }
      producers.set(h.producerId, e);
    }
    current.batches.push(b);
    next = last + 1;
  };
  const records = (n: number, tag: string, ts: number): RecordInput[] =>
    Array.from({ length: n }, (_, j) => ({ key: `${tag}-k${j}`, value: `${tag}-value-${j}-${'x'.repeat(40)}`, timestamp: ts + j }));
  const producerBatch = (pid: bigint, n: number, tag: string, ts: number, transactional = false): Buffer => {
    const s = seq.get(pid) ?? 0;
    seq.set(pid, s + n);
    return encodeBatch({
      baseOffset: BigInt(next),
      producerId: pid,
      producerEpoch: pid === TXN ? TXN_EPOCH : 0,
      baseSequence: s,
      isTransactional: transactional,
      records: records(n, tag, ts),
    });
  };
  const marker = (commit: boolean, ts: number): Buffer =>
    encodeEndTxnMarkerBatch({ commit, producerId: TXN, producerEpoch: TXN_EPOCH, coordinatorEpoch: COORDINATOR_EPOCH, timestamp: ts, baseOffset: BigInt(next) });
  const roll = (): void => {
    const builder = new SegmentIndexBuilder(current.base, INDEX_INTERVAL);
    const log = Buffer.concat(current.batches);
    for (const b of scanLogSegment(log, current.base).batches) builder.add(b);
    builder.roll();
    segments.push({ baseOffset: current.base, batches: current.batches, log, offsetIndex: builder.offsetIndex, timeIndex: builder.timeIndex, aborted: current.aborted });
    snapshots.push({ offset: next, entries: [...producers.values()].map((e) => ({ ...e })) });
  };

  // Segment 0, leader epoch 0.
  for (let i = 0; i < 12; i++) append(encodeBatch({ baseOffset: BigInt(next), records: records(3, `plain${i}`, T + i * 10) }));
  for (let i = 0; i < 4; i++) append(producerBatch(IDEMPOTENT, 2, `idem${i}`, T + 200 + i));
  append(producerBatch(TXN, 2, 'txnA', T + 300, true));
  append(marker(false, T + 301));
  roll();
  // Segment 1, leader epoch 1.
  current = { base: next, batches: [], aborted: [], epoch: 1 };
  append(producerBatch(TXN, 1, 'txnB', T + 400, true));
  append(marker(true, T + 401));
  append(producerBatch(TXN, 1, 'txnC', T + 402, true));
  append(marker(false, T + 403));
  append(encodeBatch({ baseOffset: BigInt(next), compression: 'gzip', records: records(10, 'gzip', T + 500) }));
  append(encodeBatch({ baseOffset: BigInt(next), timestampType: 1, maxTimestamp: T + 600, records: records(2, 'lat', T + 100) }));
  for (let i = 0; i < 2; i++) append(producerBatch(IDEMPOTENT, 2, `idem-late${i}`, T + 700 + i));
  append(producerBatch(TXN, 2, 'txnOpen', T + 800, true));
  roll();
  seq = new Map();
  return { segments, snapshots, values };
}

const partition = buildPartition();
let dir: string;
let pdir: string;
const path = (name: string): string => join(pdir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kmock-format-'));
  pdir = join(dir, partitionDirName(TOPIC, 0));
  mkdirSync(pdir);
  for (const s of partition.segments) {
    writeFileSync(path(segmentFileName(s.baseOffset, '.log')), s.log);
    writeFileSync(path(segmentFileName(s.baseOffset, '.index')), encodeOffsetIndex(s.baseOffset, s.offsetIndex));
    writeFileSync(path(segmentFileName(s.baseOffset, '.timeindex')), encodeTimeIndex(s.baseOffset, s.timeIndex));
    writeFileSync(path(segmentFileName(s.baseOffset, '.txnindex')), encodeTxnIndex(s.aborted));
  }
  for (const snap of partition.snapshots) writeFileSync(path(segmentFileName(snap.offset, '.snapshot')), encodeProducerSnapshot(snap.entries));
  const epochs = partition.segments.flatMap((s, i) => scanLogSegment(s.log, s.baseOffset, { latestEpoch: i === 0 ? -1 : 0 }).epochs);
  writeFileSync(path('leader-epoch-checkpoint'), encodeLeaderEpochCheckpoint(epochs));
  writeFileSync(path('partition.metadata'), encodePartitionMetadata(TOPIC_ID));
  const end = partition.snapshots[partition.snapshots.length - 1].offset;
  writeFileSync(join(dir, 'meta.properties'), encodeMetaProperties({ clusterId: CLUSTER_ID, nodeId: 1, directoryId: DIRECTORY_ID }));
  writeFileSync(join(dir, '.kafka_cleanshutdown'), encodeCleanShutdown(6));
  writeFileSync(join(dir, 'recovery-point-offset-checkpoint'), encodeOffsetCheckpoint([{ topic: TOPIC, partition: 0, offset: end }]));
  writeFileSync(join(dir, 'replication-offset-checkpoint'), encodeOffsetCheckpoint([{ topic: TOPIC, partition: 0, offset: end }, { topic: 'other', partition: 3, offset: 9 }]));
  writeFileSync(join(dir, 'log-start-offset-checkpoint'), encodeOffsetCheckpoint([]));
  writeFileSync(join(dir, 'cleaner-offset-checkpoint'), encodeOffsetCheckpoint([{ topic: 'compacted', partition: 0, offset: 1234 }]));
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(libs === undefined)('Kafka 3.9.1 reads the files kmock writes', () => {
  it('kafka-dump-log.sh --deep-iteration prints every batch and record as written, CRCs valid', async () => {
    const files = partition.segments.flatMap((s) => ['.log', '.index', '.timeindex', '.txnindex'].map((x) => path(segmentFileName(s.baseOffset, x as '.log'))));
    const snaps = partition.snapshots.map((s) => path(segmentFileName(s.offset, '.snapshot')));
    const { stdout, stderr } = await dumpLogSegments(libs!, [...files, ...snaps], ['--print-data-log', '--deep-iteration']);
    // No index mismatch, time index error, non-consecutive offset or invalid byte: Kafka prints those on stderr.
    expect(stderr).toBe('');
    expect(stdout).not.toMatch(/invalid bytes/);
    const sections = dumpSections(stdout);

    for (const s of partition.segments) {
      const lines = sections.get(path(segmentFileName(s.baseOffset, '.log')))!;
      expect(lines[0]).toBe(`Log starting offset: ${s.baseOffset}`);
      const batchLines = lines.filter((l) => l.startsWith('baseOffset:')).map(fieldsOf);
      const scan = scanLogSegment(s.log, s.baseOffset);
      expect(batchLines.length).toBe(s.batches.length);
      batchLines.forEach((k, i) => {
        const b = scan.batches[i];
        const h = readBatchHeader(s.batches[i]);
        expect(k).toMatchObject({
          baseOffset: String(b.baseOffset),
          lastOffset: String(b.lastOffset),
          count: String(b.recordCount),
          baseSequence: String(b.baseSequence),
          producerId: String(b.producerId),
          producerEpoch: String(b.producerEpoch),
          partitionLeaderEpoch: String(b.partitionLeaderEpoch),
          isTransactional: String(b.isTransactional),
          isControl: String(b.isControl),
          position: String(b.position),
          [b.timestampType === 1 ? 'LogAppendTime' : 'CreateTime']: String(b.maxTimestamp),
          size: String(b.size),
          magic: '2',
          compresscodec: b.codec === 1 ? 'gzip' : 'none',
          crc: String(h.crc),
          isvalid: 'true',
        });
      });
      // Records: consecutive offsets, the values written, the markers' types.
      const recordLines = lines.filter((l) => l.startsWith('| offset:'));
      for (const l of recordLines) {
        const f = fieldsOf(l);
        const offset = Number(f.offset);
        if (l.includes('endTxnMarker:')) expect(l).toMatch(new RegExp(`endTxnMarker: (ABORT|COMMIT) coordinatorEpoch: ${COORDINATOR_EPOCH}`));
        else expect(l.endsWith(` payload: ${partition.values.get(offset)}`), l).toBe(true);
      }
      expect(recordLines.map((l) => Number(fieldsOf(l).offset))).toEqual(Array.from({ length: scan.nextOffset - s.baseOffset }, (_, i) => s.baseOffset + i));

      const index = sections.get(path(segmentFileName(s.baseOffset, '.index')))!;
      expect(s.offsetIndex.length).toBeGreaterThan(2);
      expect(index).toEqual(s.offsetIndex.map((e) => `offset: ${e.offset} position: ${e.position}`));
      const time = sections.get(path(segmentFileName(s.baseOffset, '.timeindex')))!;
      expect(time).toEqual(s.timeIndex.map((e) => `timestamp: ${e.timestamp} offset: ${e.offset}`));
      const txn = sections.get(path(segmentFileName(s.baseOffset, '.txnindex')))!;
      expect(txn).toEqual(
        s.aborted.map((a) => `version: 0 producerId: ${a.producerId} firstOffset: ${a.firstOffset} lastOffset: ${a.lastOffset} lastStableOffset: ${a.lastStableOffset}`),
      );
      expect(txn.length).toBe(1);
    }

    for (const snap of partition.snapshots) {
      const lines = sections.get(path(segmentFileName(snap.offset, '.snapshot')))!;
      expect(lines).toEqual(
        snap.entries.map(
          (e) =>
            `producerId: ${e.producerId} producerEpoch: ${e.producerEpoch} coordinatorEpoch: ${e.coordinatorEpoch} ` +
            `currentTxnFirstOffset: ${e.currentTxnFirstOffset < 0 ? 'OptionalLong.empty' : `OptionalLong[${e.currentTxnFirstOffset}]`} lastTimestamp: ${e.timestamp} ` +
            `firstSequence: ${e.lastSequence - e.offsetDelta} lastSequence: ${e.lastSequence} lastOffset: ${e.lastOffset} offsetDelta: ${e.offsetDelta} timestamp: ${e.timestamp}`,
        ),
      );
    }
    // The end snapshot has the open transaction.
    expect(partition.snapshots[1].entries.find((e) => e.producerId === TXN)!.currentTxnFirstOffset).toBeGreaterThan(0);
  }, 120_000);

  it('the indexes pass --index-sanity-check and --verify-index-only', async () => {
    const indexes = partition.segments.flatMap((s) => [path(segmentFileName(s.baseOffset, '.index')), path(segmentFileName(s.baseOffset, '.timeindex'))]);
    const sanity = await dumpLogSegments(libs!, indexes, ['--index-sanity-check']);
    expect(sanity.stderr).toBe('');
    for (const f of indexes) expect(dumpSections(sanity.stdout).get(f)).toEqual([`${f} passed sanity check.`]);
    const verify = await dumpLogSegments(libs!, indexes, ['--verify-index-only']);
    expect(verify.stderr).toBe('');
    for (const f of indexes) expect(dumpSections(verify.stdout).get(f)).toEqual([]);
  }, 120_000);

  it.skipIf(noJdk !== undefined)("Kafka's readers take meta.properties, the checkpoints, partition.metadata and .kafka_cleanshutdown", async () => {
    const lines = await kafkaFormatReader(libs!, dir, pdir);
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
    expect(readerLines(lines, 'meta')).toEqual([{ version: '1', clusterId: CLUSTER_ID, nodeId: '1', directoryId: DIRECTORY_ID }]);
    expect(readerLines(lines, 'cleanshutdown')).toEqual([{ exists: 'true', brokerEpoch: '6' }]);
    const end = String(partition.snapshots[1].offset);
    expect(readerLines(lines, 'checkpoint')).toEqual([
      { file: 'recovery-point-offset-checkpoint', entries: '1' },
      { file: 'log-start-offset-checkpoint', entries: '0' },
      { file: 'replication-offset-checkpoint', entries: '2' },
      { file: 'cleaner-offset-checkpoint', entries: '1' },
    ]);
    expect(readerLines(lines, 'offset')).toEqual(
      expect.arrayContaining([
        { file: 'recovery-point-offset-checkpoint', topic: TOPIC, partition: '0', offset: end },
        { file: 'replication-offset-checkpoint', topic: 'other', partition: '3', offset: '9' },
        { file: 'cleaner-offset-checkpoint', topic: 'compacted', partition: '0', offset: '1234' },
      ]),
    );
    expect(readerLines(lines, 'epoch')).toEqual([
      { epoch: '0', startOffset: '0' },
      { epoch: '1', startOffset: String(partition.segments[1].baseOffset) },
    ]);
    expect(readerLines(lines, 'partition.metadata')).toEqual([{ version: '0', topicId: TOPIC_ID }]);
  }, 180_000);

  it("Kafka's iteration stops where the scan does: torn tails and a corrupt batch", async () => {
    const log = partition.segments[1].log;
    const scan = scanLogSegment(log, partition.segments[1].baseOffset);
    const third = scan.batches[3];
    const cuts = [log.length - 1, log.length - 17, log.length - 18, third.position + 5, third.position + third.size - 1, 10];
    const cases = cuts.map((n, i) => {
      const d = join(dir, `torn-${i}`);
      mkdirSync(d);
      const file = join(d, segmentFileName(partition.segments[1].baseOffset, '.log'));
      writeFileSync(file, log.subarray(0, n));
      return { file, scan: scanLogSegment(log.subarray(0, n), partition.segments[1].baseOffset) };
    });
    const flipped = Buffer.from(log);
    flipped[third.position + 40] ^= 0xff;
    const flippedFile = join(dir, 'flipped', segmentFileName(partition.segments[1].baseOffset, '.log'));
    mkdirSync(join(dir, 'flipped'));
    writeFileSync(flippedFile, flipped);

    // Legacy message sets (magic 0 and 1, plain, gzip, LogAppendTime), as an old broker wrote them.
    const legacy = Buffer.concat([
      encodeMessageSet({ magic: 0, baseOffset: 0n, messages: [{ value: 'a' }, { key: 'k', value: 'b' }] }),
      encodeMessageSet({ magic: 1, baseOffset: 2n, messages: [{ value: 'c', timestamp: T }] }),
      encodeMessageSet({ magic: 1, baseOffset: 3n, compression: 'gzip', messages: [{ value: 'd', timestamp: T + 1 }, { value: 'e', timestamp: T + 2 }] }),
      encodeMessageSet({ magic: 1, baseOffset: 5n, timestampType: 1, messages: [{ value: 'f', timestamp: T + 9 }] }),
    ]);
    mkdirSync(join(dir, 'legacy'));
    const legacyFile = join(dir, 'legacy', segmentFileName(0, '.log'));
    writeFileSync(legacyFile, legacy);

    const { stdout } = await dumpLogSegments(libs!, [...cases.map((c) => c.file), flippedFile, legacyFile]);
    const sections = dumpSections(stdout);
    for (const c of cases) {
      const lines = sections.get(c.file)!;
      expect(c.scan.stop.kind).toBe('torn');
      expect(lines.filter((l) => l.startsWith('baseOffset:')).length).toBe(c.scan.batchCount);
      const invalid = lines.find((l) => l.startsWith('Found '));
      expect(invalid).toBe(`Found ${c.scan.truncatedBytes} invalid bytes at the end of ${segmentFileName(partition.segments[1].baseOffset, '.log')}`);
    }
    // DumpLogSegments walks past a bad CRC (it only marks it); recovery stops there, and so does the scan.
    const batchLines = sections.get(flippedFile)!.filter((l) => l.startsWith('baseOffset:')).map(fieldsOf);
    const firstInvalid = batchLines.find((f) => f.isvalid === 'false')!;
    const flippedScan = scanLogSegment(flipped, partition.segments[1].baseOffset);
    expect(flippedScan.stop).toMatchObject({ kind: 'corrupt', reason: 'crc', position: third.position });
    expect(firstInvalid.position).toBe(String(third.position));

    const legacyScan = scanLogSegment(legacy, 0);
    expect(legacyScan.stop).toEqual({ kind: 'end' });
    const legacyLines = sections.get(legacyFile)!.filter((l) => l.startsWith('offset:')).map(fieldsOf);
    expect(legacyLines.map((f) => [f.offset, f.position, f.CreateTime ?? f.LogAppendTime ?? f.NoTimestampType, f.size, f.magic, f.compresscodec, f.crc, f.isvalid])).toEqual(
      legacyScan.batches.map((b) => [
        String(b.lastOffset),
        String(b.position),
        String(b.maxTimestamp),
        String(b.size),
        String(b.magic),
        b.codec === 1 ? 'gzip' : 'none',
        String(b.crc),
        'true',
      ]),
    );
  }, 120_000);
});
