// The broker's background work on its logs, as Kafka 3.9's LogManager and LogCleaner schedule it,
// on the broker's clock (a manual clock in tests, real time in the broker):
// - retention ("kafka-log-retention": LogManager.cleanupLogs every log.retention.check.interval.ms
//   after log.initial.task.delay.ms, 30 s): UnifiedLog.deleteOldSegments on every log not compacted;
// - the cleaner (LogCleaner.CleanerThread.doWork, log.cleaner.enable): every log.cleaner.backoff.ms,
//   the filthiest compacted log is cleaned while one is cleanable, then the compacted logs get
//   deleteOldSegments (LogCleanerManager.deletableLogs: the log start offset rule, and retention
//   for compact,delete);
// - the stored-memory cap (kmock's own, BrokerConfig.storedMaxBytes, docs/storage.md): after an
//   append that takes stored bytes past it, the oldest segments leave memory: evicted to their
//   files with a data dir, else deleted (the log start offset moves; one warning line names them).
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import type { TimerHandle } from '../group/clock.js';
import type { BrokerClock } from '../time/broker-clock.js';
import { compactLog, isCleanable, logToClean, type LogToClean } from './compaction.js';
import { resolveLogConfig, type BrokerLogDefaults, type LogConfig } from './log-config.js';
import type { PartitionLog, RetentionDeletion } from './partition-log.js';
import type { TopicStore } from './topics.js';

/** LogManager's InitialTaskDelayMs default (log.initial.task.delay.ms, a testing-only setting in Kafka: BrokerConfig.logInitialTaskDelayMs). */
export const LOG_INITIAL_TASK_DELAY_MS = 30_000;

export interface LogManagerDeps {
  config: BrokerConfig;
  topics: TopicStore;
  logDefaults: BrokerLogDefaults;
  clock: BrokerClock;
  log: Logger;
  /** True when segments have files (evict instead of delete under the memory cap). */
  hasDataDir: () => boolean;
  /** Retention moved a log start offset: fetch waiters and the like may react. */
  onLogStartOffsetMoved?: (topic: string, partition: number) => void;
}

export interface LogManagerStats {
  retentionChecks: number;
  segmentsDeleted: number;
  cleanerRuns: number;
  logsCleaned: number;
  memoryDropped: number;
  memoryEvicted: number;
}

export class LogManager {
  readonly stats: LogManagerStats = { retentionChecks: 0, segmentsDeleted: 0, cleanerRuns: 0, logsCleaned: 0, memoryDropped: 0, memoryEvicted: 0 };
  private retentionTimer: TimerHandle | undefined;
  private flushTimer: TimerHandle | undefined;
  private cleanerTimer: TimerHandle | undefined;
  /** Stored bytes appended since the last exact count (the cap is checked against a recount). */
  private appendedSinceCount = 0;
  private lastCount = 0;
  private closed = false;

  constructor(private readonly deps: LogManagerDeps) {}

  /** Schedules retention and the cleaner (LogManager.startup). */
  start(): void {
    const { config, clock } = this.deps;
    const retentionEvery = Math.max(1, config.logRetentionCheckIntervalMs);
    const retention = (): void => {
      if (this.closed) return;
      this.cleanupLogs();
      this.retentionTimer = clock.schedule(retentionEvery, retention, { name: 'kafka-log-retention', housekeeping: true });
    };
    this.retentionTimer = clock.schedule(config.logInitialTaskDelayMs, retention, { name: 'kafka-log-retention', housekeeping: true });
    // "kafka-log-flusher": logs whose flush.ms passed are flushed (off at Kafka's default, Long.MAX_VALUE).
    const flushEvery = config.logFlushSchedulerIntervalMs;
    if (flushEvery < 2 ** 31 && this.deps.hasDataDir()) {
      const flusher = (): void => {
        if (this.closed) return;
        this.flushDirtyLogs();
        this.flushTimer = clock.schedule(flushEvery, flusher, { name: 'kafka-log-flusher', housekeeping: true });
      };
      this.flushTimer = clock.schedule(config.logInitialTaskDelayMs, flusher, { name: 'kafka-log-flusher', housekeeping: true });
    }
    if (config.logCleanerEnable) {
      const backoff = Math.max(1, config.logCleanerBackoffMs);
      const cleaner = (): void => {
        if (this.closed) return;
        this.runCleaner();
        this.cleanerTimer = clock.schedule(backoff, cleaner, { name: 'kafka-log-cleaner', housekeeping: true });
      };
      this.cleanerTimer = clock.schedule(backoff, cleaner, { name: 'kafka-log-cleaner', housekeeping: true });
    }
  }

  close(): void {
    this.closed = true;
    this.retentionTimer?.cancel();
    this.flushTimer?.cancel();
    this.cleanerTimer?.cancel();
  }

  private configOf(topicConfigs: ReadonlyMap<string, string>): LogConfig {
    return resolveLogConfig(topicConfigs, this.deps.logDefaults);
  }

  private *logs(): Generator<{ topic: string; log: PartitionLog; config: LogConfig }> {
    for (const t of this.deps.topics.all()) {
      const config = this.configOf(t.configs);
      for (const log of t.partitions) yield { topic: t.name, log, config };
    }
  }

  /** LogManager.flushDirtyLogs: each log whose flush.ms has passed since its last flush. */
  flushDirtyLogs(): void {
    const now = this.deps.clock.now();
    for (const { log, config } of this.logs()) if (now - log.lastFlushTime >= config.flushMs) log.flush(now);
  }

  /** LogManager.cleanupLogs: deleteOldSegments on every log that is not compacted. Returns what went. */
  cleanupLogs(): RetentionDeletion[] {
    this.stats.retentionChecks++;
    const now = this.deps.clock.now();
    const all: RetentionDeletion[] = [];
    for (const { log, config } of this.logs()) {
      if (config.compact) continue;
      all.push(...this.deleteOldSegments(log, config, now));
    }
    return all;
  }

  private deleteOldSegments(log: PartitionLog, config: LogConfig, now: number): RetentionDeletion[] {
    const before = log.logStartOffset;
    const deleted = log.deleteOldSegments(config, now);
    for (const d of deleted) {
      this.stats.segmentsDeleted += d.segments;
      // UnifiedLog.deleteSegments logs at INFO: "Deleting segments due to ..."
      this.deps.log.info({ topic: log.topic, partition: log.index, reason: d.reason, segments: d.segments, bytes: d.bytes, logStartOffset: d.logStartOffset }, 'deleted log segments');
    }
    if (log.logStartOffset !== before) this.deps.onLogStartOffsetMoved?.(log.topic, log.index);
    return deleted;
  }

  /**
   * One cleaner round (CleanerThread.doWork without the sleep): clean the filthiest cleanable
   * compacted log until none is left, then deleteOldSegments on the compacted logs. Returns the
   * logs cleaned, "topic-partition".
   */
  runCleaner(): string[] {
    this.stats.cleanerRuns++;
    const now = this.deps.clock.now();
    const cleaned: string[] = [];
    const done = new Set<PartitionLog>();
    for (;;) {
      let filthiest: LogToClean | undefined;
      for (const { log, config } of this.logs()) {
        if (!config.compact || done.has(log)) continue;
        const ltc = logToClean(log, config, now);
        if (!isCleanable(ltc)) continue;
        if (filthiest === undefined || ltc.cleanableRatio > filthiest.cleanableRatio) filthiest = ltc;
      }
      if (filthiest === undefined) break;
      done.add(filthiest.log);
      try {
        const stats = compactLog(filthiest, now);
        this.stats.logsCleaned++;
        cleaned.push(filthiest.log.tp);
        this.deps.log.info(
          { topic: filthiest.log.topic, partition: filthiest.log.index, bytesRead: stats.bytesRead, bytesRetained: stats.bytesRetained, messagesRead: stats.messagesRead, messagesRetained: stats.messagesRetained },
          'log cleaned',
        );
      } catch (e) {
        // LogCleaner marks the partition uncleanable and goes on with the others.
        this.deps.log.error({ topic: filthiest.log.topic, partition: filthiest.log.index, err: String((e as Error)?.stack ?? e) }, 'log cleaning failed');
      }
    }
    for (const { log, config } of this.logs()) if (config.compact) this.deleteOldSegments(log, config, now);
    return cleaned;
  }

  // ---- the stored-memory cap --------------------------------------------------------------------

  /** After an append of `bytes` stored bytes: enforce the cap when they may pass it. */
  onStored(bytes: number): void {
    const cap = this.deps.config.storedMaxBytes;
    if (cap < 0) return;
    this.appendedSinceCount += bytes;
    if (this.lastCount + this.appendedSinceCount <= cap) return;
    this.enforceMemoryCap();
  }

  /** Bytes of stored batches held in memory, every partition. */
  residentBytes(): number {
    let n = 0;
    for (const { log } of this.logs()) n += log.residentBytes;
    return n;
  }

  /**
   * Frees the oldest stored data until memory is under 90% of the cap (some room, so the next
   * appends do not each pay a recount). With a data dir the oldest segments' bytes leave memory
   * (read back from their files); without one the oldest segments are deleted, the log start
   * offset moves, and one warning line names the partitions that lost data.
   */
  enforceMemoryCap(): void {
    const cap = this.deps.config.storedMaxBytes;
    let resident = this.residentBytes();
    this.appendedSinceCount = 0;
    this.lastCount = resident;
    if (cap < 0 || resident <= cap) return;
    const target = Math.floor(cap * 0.9);
    const now = this.deps.clock.now();
    const lost = new Map<string, { bytes: number; logStartOffset: number }>();
    const withFiles = this.deps.hasDataDir();
    while (resident > target) {
      // The partition whose oldest resident segment is the oldest.
      let victim: { log: PartitionLog; config: LogConfig; age: number } | undefined;
      for (const { log, config } of this.logs()) {
        const seg = log.logSegments.find((s) => s.residentBytes > 0);
        if (seg === undefined) continue;
        if (victim === undefined || seg.created < victim.age) victim = { log, config, age: seg.created };
      }
      if (victim === undefined) break;
      const freed = withFiles ? victim.log.evictOldest(resident - target) : victim.log.dropOldest(resident - target, victim.config, now);
      if (freed <= 0) break;
      resident -= freed;
      if (withFiles) this.stats.memoryEvicted += freed;
      else {
        this.stats.memoryDropped += freed;
        const entry = lost.get(victim.log.tp) ?? { bytes: 0, logStartOffset: 0 };
        entry.bytes += freed;
        entry.logStartOffset = victim.log.logStartOffset;
        lost.set(victim.log.tp, entry);
        this.deps.onLogStartOffsetMoved?.(victim.log.topic, victim.log.index);
      }
    }
    this.lastCount = resident;
    if (lost.size > 0) {
      this.deps.log.warn(
        { storedMaxBytes: cap, partitions: Object.fromEntries(lost) },
        'stored data passed storedMaxBytes and there is no data dir: the oldest segments of these partitions were deleted (their log start offsets moved)',
      );
    }
  }
}
