// The broker's defaults for topic configs, as KafkaConfig.extractLogConfigMap derives them from
// the broker's settings: segment.ms from log.roll.ms or else log.roll.hours, retention.ms from
// log.retention.ms, .minutes or .hours (negative: -1), flush.ms from log.flush.interval.ms or else
// log.flush.scheduler.interval.ms, and the others from their one synonym. A topic without an
// override of a config uses this value (LogConfig.fromProps over these defaults). Only the configs
// kmock has a setting for are here; the rest fall back to the topic catalog's default.
import type { BrokerConfig } from '../config.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** KafkaConfig.logRetentionTimeMillis */
export function logRetentionTimeMillis(c: Pick<BrokerConfig, 'logRetentionMs' | 'logRetentionMinutes' | 'logRetentionHours'>): number {
  const millis = c.logRetentionMs ?? (c.logRetentionMinutes !== null ? c.logRetentionMinutes * MINUTE_MS : c.logRetentionHours * HOUR_MS);
  return millis < 0 ? -1 : millis;
}

/** Long.MAX_VALUE as Kafka prints it (a JS number cannot hold it exactly). */
const LONG_MAX = '9223372036854775807';

function longText(n: number): string {
  return n >= 9223372036854775807 ? LONG_MAX : String(n);
}

/** Topic config name -> the broker's value for it, as text (the static settings only). */
export function staticTopicDefaults(c: BrokerConfig): Map<string, string> {
  return new Map<string, string>([
    ['segment.bytes', String(c.logSegmentBytes)],
    ['segment.ms', String(c.logRollMs ?? c.logRollHours * HOUR_MS)],
    ['segment.jitter.ms', String(c.logRollJitterMs ?? c.logRollJitterHours * HOUR_MS)],
    ['segment.index.bytes', String(c.logIndexSizeMaxBytes)],
    ['flush.messages', longText(c.logFlushIntervalMessages)],
    ['flush.ms', longText(c.logFlushIntervalMs ?? c.logFlushSchedulerIntervalMs)],
    ['retention.bytes', String(c.logRetentionBytes)],
    ['retention.ms', String(logRetentionTimeMillis(c))],
    ['max.message.bytes', String(c.messageMaxBytes)],
    ['index.interval.bytes', String(c.logIndexIntervalBytes)],
    ['delete.retention.ms', String(c.logCleanerDeleteRetentionMs)],
    ['min.compaction.lag.ms', String(c.logCleanerMinCompactionLagMs)],
    ['max.compaction.lag.ms', longText(c.logCleanerMaxCompactionLagMs)],
    ['file.delete.delay.ms', String(c.logSegmentDeleteDelayMs)],
    ['min.cleanable.dirty.ratio', String(c.logCleanerMinCleanableRatio)],
    ['cleanup.policy', c.logCleanupPolicy],
    ['min.insync.replicas', String(c.minInsyncReplicas)],
    ['compression.type', c.compressionType],
    ['message.timestamp.type', c.logMessageTimestampType],
  ]);
}
