// The data dir (`--data-dir DIR`, Kafka's log.dirs): partitions in Kafka 3.9's own layout, so that
// Kafka's kafka-dump-log.sh reads them, plus what kmock keeps of the cluster metadata.
//
//   DIR/meta.properties                  KRaft's (version=1, node.id, cluster.id, directory.id)
//   DIR/kmock.properties                 kmock's data dir version (a newer one is refused)
//   DIR/kmock-topics.json                topics (name, id, partitions, configs) and dynamic broker
//                                        configs: what Kafka keeps in its __cluster_metadata log
//   DIR/recovery-point-offset-checkpoint, log-start-offset-checkpoint, replication-offset-checkpoint,
//   DIR/cleaner-offset-checkpoint        Kafka's checkpoint files, written at clean shutdown and
//                                        every 60 s (log.flush.offset.checkpoint.interval.ms)
//   DIR/.kafka_cleanshutdown             written last on a clean shutdown, removed at start
//   DIR/.lock                            the pid of the kmock using the dir
//   DIR/<topic>-<partition>/             partition.metadata, leader-epoch-checkpoint, and per
//                                        segment NNNNNNNNNNNNNNNNNNNN.log/.index/.timeindex/.txnindex
//
// Loading (LogLoader): each partition's .log files are scanned (every batch's size, magic and CRC:
// storage/format/log-scan.ts); the first invalid byte ends the partition's log (a torn tail is
// truncated, later segments are deleted, one warning line each, as Kafka's recovery does); the
// producer state and aborted-transaction index are rebuilt from the batches (Kafka replays from
// its latest snapshot; kmock replays every retained batch, which gives the same state); indexes
// are rebuilt in memory. Batches stay on disk and are read on demand: nothing is loaded into
// memory at start. A file that is not Kafka's (or a dir kmock cannot read) is named in the error.
import type { AclBinding } from '../security/authorizer/index.js';
import type { SavedClientQuota } from '../quotas/client-quotas.js';
import type { SavedDelegationToken } from '../security/delegation-tokens.js';
import type { ScramCredentialEntry } from '../security/sasl/scram-credentials.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import { decodeBatch } from '../../codec/records/batch.js';
import { parseEndTxnMarker } from '../../codec/records/control.js';
import { forEachStoredRecord } from '../../codec/records/record-walk.js';
import { LogSegment } from '../log/segment.js';
import type { PartitionLog, PartitionLogOptions } from '../log/partition-log.js';
import { incrementSequence, type ProducerSnapshotState } from '../log/producer-state.js';
import type { AbortedTxn } from '../log/txn-index.js';
import {
  CLEAN_SHUTDOWN_FILE,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  decodeMetaProperties,
  decodeOffsetCheckpoint,
  decodePartitionMetadata,
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  encodeCleanShutdown,
  encodeLeaderEpochCheckpoint,
  encodeMetaProperties,
  encodeOffsetCheckpoint,
  encodePartitionMetadata,
  fileSource,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  META_PROPERTIES_FILE,
  newDirectoryId,
  PARTITION_METADATA_FILE,
  parsePartitionDirName,
  parseSegmentFileName,
  partitionDirName,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  scanLogSegment,
  segmentFileName,
  type PartitionOffset,
  type ScannedBatch,
  type ScanStop,
} from './format/index.js';
import type { SavedDynamicConfigs } from '../config/dynamic-configs.js';
import { FileSegment } from './segment-file.js';
import { walkBatchHeaders, type BatchHeaderInfo } from './header-walk.js';

/** The data dir layout version this kmock writes; it reads this one and refuses newer ones. */
export const DATA_DIR_VERSION = 1;
const KMOCK_PROPERTIES = 'kmock.properties';
const TOPICS_FILE = 'kmock-topics.json';
const LOCK_FILE = '.lock';

export class DataDirError extends Error {}

/** A topic as the data dir keeps it. */
export interface SavedTopic {
  name: string;
  id: string;
  partitions: number;
  replicationFactor: number;
  configs: Array<[string, string]>;
}

export interface SavedCluster {
  topics: SavedTopic[];
  /** The controller's next producer id block start (ProducerIdsRecord), as a decimal string. */
  nextProducerIdBlock?: string;
  /** DynamicBrokerConfigs.entries(): per broker, cluster default, client metrics subscriptions. */
  dynamicConfigs: SavedDynamicConfigs;
  /**
   * ScramCredentialStore.entries(): the SCRAM credentials AlterUserScramCredentials made (salts and
   * derived keys only, as Kafka's UserScramCredentialRecord: never a password).
   */
  scramCredentials?: ScramCredentialEntry[];
  /** ClientQuotaStore.entries(): the client quotas AlterClientQuotas set (ClientQuotaRecords). */
  clientQuotas?: SavedClientQuota[];
  /** DelegationTokenStore.entries(): the delegation tokens (their HMACs are derived again from the secret key). */
  delegationTokens?: SavedDelegationToken[];
  /** The authorizer's ACLs (Kafka's AccessControlEntryRecords), when one is configured. */
  acls?: AclBinding[];
}

/** What loading a partition found (logged, and reported by tests). */
export interface PartitionLoad {
  segments: number;
  batches: number;
  bytes: number;
  truncatedBytes: number;
  deletedSegments: number;
}

export class DataDir {
  readonly dir: string;
  /** Was the last shutdown clean (the .kafka_cleanshutdown file was there)? */
  hadCleanShutdown = false;
  private readonly checkpoints = new Map<string, Map<string, number>>();
  readonly loads = new Map<string, PartitionLoad>();

  constructor(
    dir: string,
    private readonly log: Logger,
  ) {
    this.dir = path.resolve(dir);
  }

  /**
   * Takes the dir (creating it), checks its version and meta.properties, and answers the cluster
   * id to use: the one stored, else `clusterId`. A node id or cluster id other than the stored one
   * is refused, as Kafka refuses a log dir of another cluster.
   */
  open(nodeId: number, clusterId: string, clusterIdGiven: boolean): string {
    fs.mkdirSync(this.dir, { recursive: true });
    this.lock();
    const kmockProps = path.join(this.dir, KMOCK_PROPERTIES);
    if (fs.existsSync(kmockProps)) {
      const m = /^data\.dir\.version=(\d+)$/m.exec(fs.readFileSync(kmockProps, 'utf8'));
      if (m === null) throw new DataDirError(`${kmockProps}: no data.dir.version line: this is not a kmock data dir kmock can read`);
      const v = Number(m[1]);
      if (v > DATA_DIR_VERSION) throw new DataDirError(`${kmockProps}: data dir version ${v} was written by a newer kmock (this one reads version ${DATA_DIR_VERSION}); use that kmock, or another --data-dir`);
    } else {
      const entries = fs.readdirSync(this.dir).filter((n) => n !== LOCK_FILE);
      if (entries.length > 0 && !fs.existsSync(path.join(this.dir, META_PROPERTIES_FILE))) {
        throw new DataDirError(`${this.dir}: not empty and not a kmock or Kafka data dir (no ${META_PROPERTIES_FILE}): ${entries.slice(0, 5).join(', ')}`);
      }
      fs.writeFileSync(kmockProps, `# kmock data dir\ndata.dir.version=${DATA_DIR_VERSION}\n`);
    }
    const metaPath = path.join(this.dir, META_PROPERTIES_FILE);
    let cluster = clusterId;
    if (fs.existsSync(metaPath)) {
      const meta = decodeMetaProperties(fs.readFileSync(metaPath), { file: metaPath });
      if (!meta.ok) throw new DataDirError(meta.error.message);
      const stored = meta.value;
      if (stored.nodeId !== undefined && stored.nodeId !== nodeId) throw new DataDirError(`${metaPath}: node.id=${stored.nodeId}, but this broker is node ${nodeId}`);
      if (stored.clusterId !== undefined) {
        if (clusterIdGiven && stored.clusterId !== clusterId) throw new DataDirError(`${metaPath}: cluster.id=${stored.clusterId}, but this broker was started with cluster id ${clusterId}`);
        cluster = stored.clusterId;
      }
    } else {
      fs.writeFileSync(metaPath, encodeMetaProperties({ clusterId, nodeId, directoryId: newDirectoryId() }));
    }
    const clean = path.join(this.dir, CLEAN_SHUTDOWN_FILE);
    this.hadCleanShutdown = fs.existsSync(clean);
    fs.rmSync(clean, { force: true });
    for (const f of [RECOVERY_POINT_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE, CLEANER_OFFSET_CHECKPOINT_FILE]) {
      const p = path.join(this.dir, f);
      const m = new Map<string, number>();
      if (fs.existsSync(p)) {
        const d = decodeOffsetCheckpoint(fs.readFileSync(p), { file: p });
        if (!d.ok) this.log.warn({ file: p, error: d.error.message }, 'checkpoint file unreadable: ignored');
        else for (const e of d.value) m.set(`${e.topic}-${e.partition}`, e.offset);
      }
      this.checkpoints.set(f, m);
    }
    return cluster;
  }

  /** `.lock` with our pid; a live other pid refuses the dir (Kafka's FileLock). */
  private lock(): void {
    const p = path.join(this.dir, LOCK_FILE);
    if (fs.existsSync(p)) {
      const pid = Number(fs.readFileSync(p, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DataDirError(`${this.dir} is in use by another kmock (pid ${pid}, ${p})`);
      }
    }
    fs.writeFileSync(p, String(process.pid));
  }

  // ---- cluster metadata ---------------------------------------------------------------------------

  /** The file the cluster metadata (topics, configs, credentials, ACLs) is kept in. */
  get clusterFile(): string {
    return path.join(this.dir, TOPICS_FILE);
  }

  loadCluster(): SavedCluster | null {
    const p = path.join(this.dir, TOPICS_FILE);
    if (!fs.existsSync(p)) return null;
    try {
      const saved = JSON.parse(fs.readFileSync(p, 'utf8')) as SavedCluster;
      if (!Array.isArray(saved.topics)) throw new Error('no topics list');
      return saved;
    } catch (e) {
      throw new DataDirError(`${p}: unreadable (${(e as Error).message})`);
    }
  }

  /** Rewrites the metadata file (written aside, then renamed over: never half written). */
  saveCluster(saved: SavedCluster): void {
    const p = path.join(this.dir, TOPICS_FILE);
    const tmp = `${p}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(saved, null, 1));
    fs.renameSync(tmp, p);
  }

  // ---- partitions -----------------------------------------------------------------------------------

  partitionPath(topic: string, partition: number): string {
    return path.join(this.dir, partitionDirName(topic, partition));
  }

  /**
   * How a partition's log is made: with its files (created, or loaded when the dir has segments).
   * `logOf` gives the log once it exists (the .txnindex writer reads its aborted transactions).
   */
  logOptions(topic: string, topicId: string, partition: number, indexIntervalBytes: number, logOf: () => PartitionLog | undefined): PartitionLogOptions {
    const dir = this.partitionPath(topic, partition);
    fs.mkdirSync(dir, { recursive: true });
    const metaPath = path.join(dir, PARTITION_METADATA_FILE);
    if (fs.existsSync(metaPath)) {
      const meta = decodePartitionMetadata(fs.readFileSync(metaPath), { file: metaPath });
      if (!meta.ok) throw new DataDirError(meta.error.message);
      if (meta.value.topicId !== topicId) throw new DataDirError(`${metaPath}: topic id ${meta.value.topicId}, but ${topic} has id ${topicId}`);
    } else {
      fs.writeFileSync(metaPath, encodePartitionMetadata(topicId));
    }
    const epochPath = path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE);
    // KRaft's leader assigns epoch 0 from offset 0 when it becomes leader (LeaderEpochFileCache.assign).
    if (!fs.existsSync(epochPath)) fs.writeFileSync(epochPath, encodeLeaderEpochCheckpoint([{ epoch: 0, startOffset: 0 }]));
    const abortedTxns = (base: number) => () => {
      const log = logOf();
      if (log === undefined) return [];
      const next = log.logSegments.find((s) => s.baseOffset > base)?.baseOffset ?? Number.POSITIVE_INFINITY;
      return log.txnIndex.all().filter((t) => t.lastOffset >= base && t.lastOffset < next);
    };
    const segmentFile = (baseOffset: number, cleaned: boolean) => {
      // UnifiedLog.roll: a producer state snapshot at the new segment's base offset.
      const log = logOf();
      if (!cleaned && baseOffset > 0 && log !== undefined) writeSnapshot(dir, baseOffset, log);
      return new FileSegment({ dir, baseOffset, cleaned, abortedTxns: abortedTxns(baseOffset) });
    };
    const restored = this.loadSegments(topic, partition, dir, indexIntervalBytes, abortedTxns);
    return { segmentFile, ...(restored === null ? {} : { restore: restored }) };
  }

  /** LogLoader: the partition's segments from its .log files, or null when it has none. */
  private loadSegments(topic: string, partition: number, dir: string, indexIntervalBytes: number, abortedTxns: (base: number) => () => AbortedTxn[]): NonNullable<PartitionLogOptions['restore']> | null {
    const tp = `${topic}-${partition}`;
    // Leftovers of an interrupted compaction: .cleaned files are dropped; .swap files finish the swap.
    const names = fs.readdirSync(dir);
    for (const n of names) if (n.endsWith('.cleaned')) fs.rmSync(path.join(dir, n), { force: true });
    for (const n of names) {
      if (!n.endsWith('.swap')) continue;
      const final = path.join(dir, n.slice(0, -'.swap'.length));
      fs.renameSync(path.join(dir, n), final);
    }
    const logs = fs
      .readdirSync(dir)
      .map((n) => ({ n, parsed: parseSegmentFileName(n) }))
      .filter((x) => x.parsed !== null && x.parsed.suffix === '.log' && x.parsed.pending === undefined)
      .map((x) => x.parsed!.baseOffset)
      .sort((a, b) => a - b);
    if (logs.length === 0) return null;
    const load: PartitionLoad = { segments: 0, batches: 0, bytes: 0, truncatedBytes: 0, deletedSegments: 0 };
    // A clean shutdown wrote the recovery point at the log end: nothing to recover.
    const recoveryPoint = this.hadCleanShutdown ? Number.POSITIVE_INFINITY : (this.checkpoints.get(RECOVERY_POINT_CHECKPOINT_FILE)?.get(tp) ?? 0);
    const segments: LogSegment[] = [];
    const replay: Array<(log: PartitionLog) => void> = [];
    let broken = false;
    for (let i = 0; i < logs.length; i++) {
      const base = logs[i];
      const file = path.join(dir, segmentFileName(base, '.log'));
      if (broken) {
        // LogLoader: the segments after a corrupt one are deleted.
        this.log.warn({ topic, partition, file }, 'deleting a segment after the point the log was truncated to');
        for (const s of ['.log', '.index', '.timeindex', '.txnindex'] as const) fs.rmSync(path.join(dir, segmentFileName(base, s)), { force: true });
        load.deletedSegments++;
        continue;
      }
      const stat = fs.statSync(file);
      // LogLoader recovers only from the recovery point on (the whole log after an unclean
      // shutdown without a checkpoint); below it the batch headers are enough.
      const next = logs[i + 1];
      const trusted = (next === undefined ? this.hadCleanShutdown : next <= recoveryPoint) ? walkBatchHeaders(file, stat.size, base) : null;
      let scan: { batches: Array<BatchHeaderInfo | ScannedBatch>; validBytes: number; truncatedBytes: number; stop: ScanStop };
      if (trusted !== null) {
        scan = { batches: trusted, validBytes: stat.size, truncatedBytes: 0, stop: { kind: 'end' } };
      } else {
        const fd = fs.openSync(file, 'r+');
        scan = scanLogSegment(fileSource(fd, stat.size), base, { file, collect: true });
        fs.closeSync(fd);
      }
      if (scan.stop.kind !== 'end') {
        broken = true;
        load.truncatedBytes += scan.truncatedBytes;
        fs.truncateSync(file, scan.validBytes);
        this.log.warn(
          { topic, partition, file, position: scan.stop.position, reason: scan.stop.reason, truncatedBytes: scan.truncatedBytes },
          `log recovery: ${scan.stop.kind === 'torn' ? 'a torn tail' : 'corrupt bytes'} in ${file} (${scan.stop.message}); truncated to the last valid batch`,
        );
      }
      const seg = new LogSegment(base, stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs, 0, 10485760, new FileSegment({ dir, baseOffset: base, existing: { size: scan.validBytes }, abortedTxns: abortedTxns(base) }));
      for (const b of scan.batches) {
        if (b.magic !== 2 || b.baseOffset === null) throw new DataDirError(`${file}: a magic ${b.magic} entry at position ${b.position}: kmock stores v2 batches only`);
        seg.addLoaded(b.size, b.baseOffset, b.lastOffset, b.maxTimestamp, null, indexIntervalBytes, stat.mtimeMs);
        const batchPosition = b.position;
        const batchSize = b.size;
        replay.push((log) => replayBatch(log, b, () => seg.file!.read(batchPosition, batchSize)));
        load.batches++;
      }
      seg.lastModified = stat.mtimeMs;
      // ListOffsets MAX_TIMESTAMP needs the record holding the max timestamp: one batch read.
      if (seg.maxTimestampSoFar >= 0) {
        for (let s = 0; s < seg.batchCount; s++) {
          if (seg.maxTimestampAt(s) !== seg.maxTimestampSoFar) continue;
          const bytes = seg.batchAt(s);
          const baseOffset = seg.baseOffsetAt(s);
          let found: number | null = null;
          forEachStoredRecord(bytes, (delta, ts) => {
            if (ts === seg.maxTimestampSoFar) {
              found = baseOffset + delta;
              return true;
            }
            return false;
          });
          seg.setOffsetOfMaxTimestamp(found);
          break;
        }
      }
      if (i < logs.length - 1 && !broken) seg.onBecomeInactive();
      else (seg.file as FileSegment).markActive();
      segments.push(seg);
      load.segments++;
      load.bytes += seg.size;
    }
    const logEndOffset = segments[segments.length - 1].nextOffset;
    // ProducerStateManager: the latest snapshot at or below the log end (later ones are stale after
    // a truncation). Kafka loads it and replays the batches after it; kmock replays every retained
    // batch (which also rebuilds the aborted index) and takes from the snapshot the producers the
    // log no longer holds a batch of (retention deleted them): the same state.
    const snapshot = latestSnapshot(dir, logEndOffset, this.log);
    const checkpointStart = this.checkpoints.get(LOG_START_OFFSET_CHECKPOINT_FILE)?.get(tp);
    const logStartOffset = Math.min(Math.max(segments[0].baseOffset, checkpointStart ?? 0), logEndOffset);
    const firstDirtyOffset = this.checkpoints.get(CLEANER_OFFSET_CHECKPOINT_FILE)?.get(tp) ?? logStartOffset;
    this.loads.set(tp, load);
    if (load.truncatedBytes > 0 || load.deletedSegments > 0 || !this.hadCleanShutdown) {
      this.log.info({ topic, partition, ...load, logEndOffset, cleanShutdown: this.hadCleanShutdown }, 'partition loaded');
    }
    return {
      segments,
      logStartOffset,
      logEndOffset,
      firstDirtyOffset,
      replay: (log) => {
        for (const r of replay) r(log);
        if (snapshot !== undefined) log.producers.loadSnapshot(snapshot.entries, { onlyMissing: true });
      },
    };
  }

  /** Removes a deleted topic's partition dir (Kafka renames it -delete, then removes it). */
  deletePartition(topic: string, partition: number): void {
    fs.rmSync(this.partitionPath(topic, partition), { recursive: true, force: true });
  }

  /** Every partition dir present (kmock's metadata file names the topics; others are reported). */
  partitionDirs(): Array<{ topic: string; partition: number }> {
    const out: Array<{ topic: string; partition: number }> = [];
    for (const n of fs.readdirSync(this.dir)) {
      const p = parsePartitionDirName(n);
      if (p !== null && p.kind === 'live' && fs.statSync(path.join(this.dir, n)).isDirectory()) out.push({ topic: p.topic, partition: p.partition });
    }
    return out;
  }

  // ---- checkpoints and shutdown -------------------------------------------------------------------------

  /** The checkpoint files from the logs' current state. */
  writeCheckpoints(logs: Iterable<PartitionLog>, recoveryPoint: (log: PartitionLog) => number): void {
    const recovery: PartitionOffset[] = [];
    const start: PartitionOffset[] = [];
    const hw: PartitionOffset[] = [];
    const cleaner: PartitionOffset[] = [];
    for (const l of logs) {
      recovery.push({ topic: l.topic, partition: l.index, offset: recoveryPoint(l) });
      if (l.logStartOffset > 0) start.push({ topic: l.topic, partition: l.index, offset: l.logStartOffset });
      hw.push({ topic: l.topic, partition: l.index, offset: l.highWatermark });
      if (l.firstDirtyOffset > 0) cleaner.push({ topic: l.topic, partition: l.index, offset: l.firstDirtyOffset });
    }
    const write = (name: string, entries: PartitionOffset[]) => {
      const p = path.join(this.dir, name);
      fs.writeFileSync(`${p}.tmp`, encodeOffsetCheckpoint(entries));
      fs.renameSync(`${p}.tmp`, p);
    };
    write(RECOVERY_POINT_CHECKPOINT_FILE, recovery);
    write(LOG_START_OFFSET_CHECKPOINT_FILE, start);
    write(REPLICATION_OFFSET_CHECKPOINT_FILE, hw);
    write(CLEANER_OFFSET_CHECKPOINT_FILE, cleaner);
  }

  /**
   * A clean shutdown (LogManager.shutdown): every log flushed, its active segment's indexes
   * written, a producer snapshot at its end, the checkpoints, then .kafka_cleanshutdown; the lock goes.
   */
  close(logs: PartitionLog[], clean: boolean): void {
    for (const l of logs) {
      if (clean && l.logEndOffset > 0) {
        const dir = this.partitionPath(l.topic, l.index);
        if (fs.existsSync(dir)) {
          writeSnapshot(dir, l.logEndOffset, l);
          pruneSnapshots(dir, l.logSegments[0]?.baseOffset ?? 0);
        }
      }
      for (const seg of l.logSegments) {
        const file = seg.file as FileSegment | null;
        if (file === null) continue;
        if (clean && seg === l.activeSegment) file.writeIndexes(seg);
        if (clean) file.flush();
        file.close();
      }
    }
    if (clean) {
      this.writeCheckpoints(logs, (l) => l.logEndOffset);
      fs.writeFileSync(path.join(this.dir, CLEAN_SHUTDOWN_FILE), encodeCleanShutdown(0));
    }
    fs.rmSync(path.join(this.dir, LOCK_FILE), { force: true });
  }
}

/** `<offset>.snapshot`: ProducerStateManager.takeSnapshot (written aside, then renamed). */
function writeSnapshot(dir: string, offset: number, log: PartitionLog): void {
  const file = path.join(dir, segmentFileName(offset, '.snapshot'));
  fs.writeFileSync(`${file}.tmp`, encodeProducerSnapshot(log.producers.snapshotEntries()));
  fs.renameSync(`${file}.tmp`, file);
}

/** Snapshots below the first segment go (UnifiedLog.deleteProducerSnapshots of deleted segments). */
function pruneSnapshots(dir: string, firstBase: number): void {
  for (const n of fs.readdirSync(dir)) {
    const p = parseSegmentFileName(n);
    if (p !== null && p.suffix === '.snapshot' && p.pending === undefined && p.baseOffset < firstBase) fs.rmSync(path.join(dir, n), { force: true });
  }
}

/** The newest readable snapshot at or below `maxOffset`; newer ones are deleted (ProducerStateManager.truncateAndReload). */
function latestSnapshot(dir: string, maxOffset: number, log: Logger): { offset: number; entries: ProducerSnapshotState[] } | undefined {
  const offsets = fs
    .readdirSync(dir)
    .map((n) => parseSegmentFileName(n))
    .filter((p): p is NonNullable<typeof p> => p !== null && p.suffix === '.snapshot' && p.pending === undefined)
    .map((p) => p.baseOffset)
    .sort((a, b) => b - a);
  for (const offset of offsets) {
    const file = path.join(dir, segmentFileName(offset, '.snapshot'));
    if (offset > maxOffset) {
      fs.rmSync(file, { force: true });
      continue;
    }
    const d = decodeProducerSnapshot(fs.readFileSync(file), { file });
    if (d.ok) return { offset, entries: d.value };
    // ProducerStateManager.readSnapshot: a corrupt snapshot is deleted and the next older one tried.
    log.warn({ file, error: d.error.message }, 'producer snapshot unreadable: deleted, rebuilding from the log');
    fs.rmSync(file, { force: true });
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One loaded batch into the producer state and the aborted index (ProducerStateManager's replay
 * in LogLoader / UnifiedLog.rebuildProducerState): data batches update their producer, markers
 * end its transaction (an ABORT entering the transaction index).
 */
function replayBatch(
  log: PartitionLog,
  b: { producerId: bigint; producerEpoch: number; baseSequence: number; baseOffset: number | null; lastOffset: number; maxTimestamp: number; isTransactional: boolean; isControl: boolean; controlType?: number | null },
  bytes: () => Buffer,
): void {
  if (b.producerId < 0n) return;
  if (b.isControl) {
    const decoded = decodeBatch(bytes());
    const record = decoded.records[0];
    if (record === undefined) return;
    let marker: ReturnType<typeof parseEndTxnMarker>;
    try {
      marker = parseEndTxnMarker(record);
    } catch {
      return;
    }
    const completed = log.producers.applyMarker(b.producerId, b.producerEpoch, marker.coordinatorEpoch, !marker.commit, b.lastOffset, b.maxTimestamp);
    if (completed !== null && completed.isAborted) {
      log.txnIndex.append({ producerId: b.producerId, firstOffset: completed.firstOffset, lastOffset: b.lastOffset, lastStableOffset: completed.lastStableOffset });
    }
    return;
  }
  const offsetDelta = b.lastOffset - (b.baseOffset ?? b.lastOffset);
  log.producers.update(
    b.producerId,
    b.producerEpoch,
    { lastSeq: incrementSequence(b.baseSequence, offsetDelta), lastOffset: b.lastOffset, offsetDelta, timestamp: b.maxTimestamp },
    b.isTransactional,
  );
}
