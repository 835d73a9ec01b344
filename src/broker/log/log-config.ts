// The topic-level settings the log applies, as Kafka 3.9's LogConfig holds them: a topic's config
// overrides (CreateTopics configs, Topic.configs) over the broker's defaults, resolved once per
// change of the overrides (the append path asks for them on every Produce request).
import { NO_TIMESTAMP_BOUND, type BatchValidationConfig } from '../../codec/records/validate.js';
import { targetCodecOf } from './recompress.js';
import { DEFAULT_INDEX_INTERVAL_BYTES } from './txn-index.js';

/** LogConfig.DEFAULT_MAX_MESSAGE_BYTES (1 MiB + LOG_OVERHEAD) = broker message.max.bytes default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1048588;

/** Long.MAX_VALUE as a number: "no bound" for the long settings (retention, lags, flush). */
export const NO_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * What the log needs of a topic's configs. The fields LogValidator reads (message.timestamp.*,
 * max.message.bytes, cleanup.policy=compact) are BatchValidationConfig's (codec/records/validate.ts).
 */
export interface LogConfig extends BatchValidationConfig {
  /** cleanup.policy contains "delete": DeleteRecords is allowed, retention deletes segments. */
  delete: boolean;
  /** min.insync.replicas */
  minInsyncReplicas: number;
  /** compression.type as the codec id batches are stored with; null for `producer` (kept as sent). */
  compressionCodec: number | null;
  /** index.interval.bytes: the offset index's spacing (it bounds read_committed aborted lists: txn-index.ts). */
  indexIntervalBytes: number;
  /** segment.bytes: a segment rolls when the next batch would pass it. */
  segmentBytes: number;
  /** segment.ms: a segment rolls when its first batch is older than this (less the jitter). */
  segmentMs: number;
  /** segment.jitter.ms */
  segmentJitterMs: number;
  /** segment.index.bytes: a segment rolls when its offset or time index is full. */
  segmentIndexBytes: number;
  /** retention.ms (-1: no limit; NO_BOUND for Long.MAX_VALUE) */
  retentionMs: number;
  /** retention.bytes (-1: no limit) */
  retentionBytes: number;
  /** delete.retention.ms: how long the cleaner keeps tombstones and transaction markers. */
  deleteRetentionMs: number;
  /** min.compaction.lag.ms */
  minCompactionLagMs: number;
  /** max.compaction.lag.ms */
  maxCompactionLagMs: number;
  /** min.cleanable.dirty.ratio */
  minCleanableDirtyRatio: number;
  /** flush.messages (NO_BOUND: never) */
  flushMessages: number;
  /** flush.ms (NO_BOUND: never) */
  flushMs: number;
  /** file.delete.delay.ms */
  fileDeleteDelayMs: number;
}

export const DEFAULT_LOG_CONFIG: LogConfig = {
  timestampType: 'CreateTime',
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  compact: false,
  delete: true,
  timestampBeforeMaxMs: NO_TIMESTAMP_BOUND,
  timestampAfterMaxMs: NO_TIMESTAMP_BOUND,
  minInsyncReplicas: 1,
  compressionCodec: null,
  indexIntervalBytes: DEFAULT_INDEX_INTERVAL_BYTES,
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  segmentJitterMs: 0,
  segmentIndexBytes: 10485760,
  retentionMs: 604800000,
  retentionBytes: -1,
  deleteRetentionMs: 86400000,
  minCompactionLagMs: 0,
  maxCompactionLagMs: NO_BOUND,
  minCleanableDirtyRatio: 0.5,
  flushMessages: NO_BOUND,
  flushMs: NO_BOUND,
  fileDeleteDelayMs: 60000,
};

/**
 * The broker's value of each topic config (config/topic-defaults.ts: its static settings, and the
 * dynamic broker configs layered over them by whoever owns those), read by resolveLogConfig under
 * a topic's overrides. `version` changes with every replace, so resolved configs are recomputed.
 */
export class BrokerLogDefaults {
  version = 0;
  private values: ReadonlyMap<string, string>;
  private readonly listeners: Array<() => void> = [];

  constructor(values: ReadonlyMap<string, string> = new Map()) {
    this.values = values;
  }

  /** The broker's value for topic config `name`, or undefined (the catalog default applies). */
  get(name: string): string | undefined {
    return this.values.get(name);
  }

  /** Replaces every value (a dynamic broker config changed); listeners run after. */
  replace(values: ReadonlyMap<string, string>): void {
    this.values = values;
    this.version++;
    for (const l of this.listeners) l();
  }

  /** Called after each replace (the retention check re-reads configs on its own schedule). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/** The defaults of a broker with no settings: every topic config at Kafka's default. */
export const KAFKA_LOG_DEFAULTS = new BrokerLogDefaults();

/**
 * A topic's config overrides (Topic.configs): a Map that counts its changes, so that
 * resolveLogConfig can keep what it derived from it until the next set/delete/clear.
 */
export class TopicConfigMap extends Map<string, string> {
  /** Bumped by every change. */
  version = 0;
  /** Called after every change (the data dir saves the topic's configs). */
  onChange: (() => void) | undefined;

  override set(key: string, value: string): this {
    this.version++;
    super.set(key, value);
    this.onChange?.();
    return this;
  }

  override delete(key: string): boolean {
    this.version++;
    const had = super.delete(key);
    this.onChange?.();
    return had;
  }

  override clear(): void {
    this.version++;
    super.clear();
    this.onChange?.();
  }
}

/** resolveLogConfig's last answer per TopicConfigMap, valid while both versions match. */
const resolved = new WeakMap<TopicConfigMap, { version: number; defaults: BrokerLogDefaults; defaultsVersion: number; config: LogConfig }>();
const resolvedDefaults = new WeakMap<BrokerLogDefaults, { version: number; config: LogConfig }>();

/** The effective log config: topic overrides over the broker's values over Kafka's defaults. */
export function resolveLogConfig(topicConfigs: ReadonlyMap<string, string>, defaults: BrokerLogDefaults = KAFKA_LOG_DEFAULTS): LogConfig {
  if (topicConfigs.size === 0) {
    const hit = resolvedDefaults.get(defaults);
    if (hit !== undefined && hit.version === defaults.version) return hit.config;
    const config = deriveLogConfig(topicConfigs, defaults);
    resolvedDefaults.set(defaults, { version: defaults.version, config });
    return config;
  }
  if (!(topicConfigs instanceof TopicConfigMap)) return deriveLogConfig(topicConfigs, defaults);
  const hit = resolved.get(topicConfigs);
  if (hit !== undefined && hit.version === topicConfigs.version && hit.defaults === defaults && hit.defaultsVersion === defaults.version) return hit.config;
  const config = deriveLogConfig(topicConfigs, defaults);
  resolved.set(topicConfigs, { version: topicConfigs.version, defaults, defaultsVersion: defaults.version, config });
  return config;
}

function deriveLogConfig(topicConfigs: ReadonlyMap<string, string>, defaults: BrokerLogDefaults): LogConfig {
  const get = (key: string): string | undefined => topicConfigs.get(key) ?? defaults.get(key);
  const type = get('message.timestamp.type');
  const policy = (get('cleanup.policy') ?? 'delete').split(',').map((s) => s.trim().toLowerCase());
  const difference = longConfig(get, 'message.timestamp.difference.max.ms');
  const before = longConfig(get, 'message.timestamp.before.max.ms');
  const d = DEFAULT_LOG_CONFIG;
  return {
    timestampType: type === 'LogAppendTime' || type === 'CreateTime' ? type : 'CreateTime',
    maxMessageBytes: intConfig(get, 'max.message.bytes', DEFAULT_MAX_MESSAGE_BYTES),
    compact: policy.includes('compact'),
    delete: policy.includes('delete'),
    // before.max.ms falls back to the deprecated difference.max.ms, as Kafka does
    timestampBeforeMaxMs: before !== NO_TIMESTAMP_BOUND ? before : difference,
    timestampAfterMaxMs: longConfig(get, 'message.timestamp.after.max.ms'),
    minInsyncReplicas: intConfig(get, 'min.insync.replicas', 1),
    compressionCodec: targetCodecOf(get('compression.type')),
    indexIntervalBytes: intConfig(get, 'index.interval.bytes', DEFAULT_INDEX_INTERVAL_BYTES),
    segmentBytes: intConfig(get, 'segment.bytes', d.segmentBytes),
    segmentMs: numberConfig(get, 'segment.ms', d.segmentMs),
    segmentJitterMs: numberConfig(get, 'segment.jitter.ms', d.segmentJitterMs),
    segmentIndexBytes: intConfig(get, 'segment.index.bytes', d.segmentIndexBytes),
    retentionMs: numberConfig(get, 'retention.ms', d.retentionMs),
    retentionBytes: numberConfig(get, 'retention.bytes', d.retentionBytes),
    deleteRetentionMs: numberConfig(get, 'delete.retention.ms', d.deleteRetentionMs),
    minCompactionLagMs: numberConfig(get, 'min.compaction.lag.ms', d.minCompactionLagMs),
    maxCompactionLagMs: numberConfig(get, 'max.compaction.lag.ms', d.maxCompactionLagMs),
    minCleanableDirtyRatio: ratioConfig(get, 'min.cleanable.dirty.ratio', d.minCleanableDirtyRatio),
    flushMessages: numberConfig(get, 'flush.messages', d.flushMessages),
    flushMs: numberConfig(get, 'flush.ms', d.flushMs),
    fileDeleteDelayMs: numberConfig(get, 'file.delete.delay.ms', d.fileDeleteDelayMs),
  };
}

type Lookup = (key: string) => string | undefined;

function intConfig(get: Lookup, key: string, dflt: number): number {
  const v = get(key);
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isInteger(n) ? n : dflt;
}

/** A long setting as a number: Long.MAX_VALUE (and anything past 2^53) becomes NO_BOUND. */
function numberConfig(get: Lookup, key: string, dflt: number): number {
  const v = get(key);
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return dflt;
  const n = Number(v.trim());
  return n > NO_BOUND ? NO_BOUND : n;
}

function ratioConfig(get: Lookup, key: string, dflt: number): number {
  const v = get(key);
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? n : dflt;
}

/** A long setting as a bigint; absent or unparsable: Long.MAX_VALUE, the default of every long used here. */
function longConfig(get: Lookup, key: string): bigint {
  const v = get(key);
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return NO_TIMESTAMP_BOUND;
  return BigInt(v.trim());
}

/** LogConfig.maxSegmentMs: a compacted topic rolls by max.compaction.lag.ms too. */
export function maxSegmentMs(config: LogConfig): number {
  return config.compact && config.maxCompactionLagMs > 0 ? Math.min(config.maxCompactionLagMs, config.segmentMs) : config.segmentMs;
}

/** LogConfig.randomSegmentJitter */
export function randomSegmentJitter(config: LogConfig, randomInt: () => number): number {
  return config.segmentJitterMs === 0 ? 0 : randomInt() % Math.min(config.segmentJitterMs, config.segmentMs);
}
