// The topic-level settings the log applies, as Kafka 3.9's LogConfig holds them: a topic's config
// overrides (CreateTopics configs, Topic.configs) over the broker's defaults, resolved once per
// change of the overrides (the append path asks for them on every Produce request).
import { NO_TIMESTAMP_BOUND, type BatchValidationConfig } from '../../codec/records/validate.js';
import { targetCodecOf } from './recompress.js';
import { DEFAULT_INDEX_INTERVAL_BYTES } from './txn-index.js';

/** LogConfig.DEFAULT_MAX_MESSAGE_BYTES (1 MiB + LOG_OVERHEAD) = broker message.max.bytes default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1048588;

/**
 * What the log needs of a topic's configs. The fields LogValidator reads (message.timestamp.*,
 * max.message.bytes, cleanup.policy=compact) are BatchValidationConfig's (codec/records/validate.ts).
 */
export interface LogConfig extends BatchValidationConfig {
  /** cleanup.policy contains "delete": DeleteRecords is allowed. */
  delete: boolean;
  /** min.insync.replicas */
  minInsyncReplicas: number;
  /** compression.type as the codec id batches are stored with; null for `producer` (kept as sent). */
  compressionCodec: number | null;
  /** index.interval.bytes: the offset index's spacing (it bounds read_committed aborted lists: txn-index.ts). */
  indexIntervalBytes: number;
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
};

const DEFAULT_LOG_APPEND_TIME_CONFIG: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' };

/**
 * A topic's config overrides (Topic.configs): a Map that counts its changes, so that
 * resolveLogConfig can keep what it derived from it until the next set/delete/clear.
 */
export class TopicConfigMap extends Map<string, string> {
  /** Bumped by every change. */
  version = 0;

  override set(key: string, value: string): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.version++;
    return super.delete(key);
  }

  override clear(): void {
    this.version++;
    super.clear();
  }
}

/** resolveLogConfig's last answer per TopicConfigMap, valid while version and broker type match. */
const resolved = new WeakMap<TopicConfigMap, { version: number; brokerType: string; config: LogConfig }>();

/** The effective log config: topic overrides over the broker's defaults. */
export function resolveLogConfig(
  topicConfigs: ReadonlyMap<string, string>,
  broker: { logMessageTimestampType: 'CreateTime' | 'LogAppendTime' },
): LogConfig {
  if (topicConfigs.size === 0) {
    return broker.logMessageTimestampType === 'CreateTime' ? DEFAULT_LOG_CONFIG : DEFAULT_LOG_APPEND_TIME_CONFIG;
  }
  if (!(topicConfigs instanceof TopicConfigMap)) return deriveLogConfig(topicConfigs, broker);
  const brokerType = broker.logMessageTimestampType;
  const hit = resolved.get(topicConfigs);
  if (hit !== undefined && hit.version === topicConfigs.version && hit.brokerType === brokerType) return hit.config;
  const config = deriveLogConfig(topicConfigs, broker);
  resolved.set(topicConfigs, { version: topicConfigs.version, brokerType, config });
  return config;
}

function deriveLogConfig(topicConfigs: ReadonlyMap<string, string>, broker: { logMessageTimestampType: 'CreateTime' | 'LogAppendTime' }): LogConfig {
  const type = topicConfigs.get('message.timestamp.type');
  const policy = (topicConfigs.get('cleanup.policy') ?? 'delete').split(',').map((s) => s.trim().toLowerCase());
  const difference = longConfig(topicConfigs, 'message.timestamp.difference.max.ms');
  const before = longConfig(topicConfigs, 'message.timestamp.before.max.ms');
  return {
    timestampType: type === 'LogAppendTime' || type === 'CreateTime' ? type : broker.logMessageTimestampType,
    maxMessageBytes: intConfig(topicConfigs, 'max.message.bytes', DEFAULT_MAX_MESSAGE_BYTES),
    compact: policy.includes('compact'),
    delete: policy.includes('delete'),
    // before.max.ms falls back to the deprecated difference.max.ms, as Kafka does
    timestampBeforeMaxMs: before !== NO_TIMESTAMP_BOUND ? before : difference,
    timestampAfterMaxMs: longConfig(topicConfigs, 'message.timestamp.after.max.ms'),
    minInsyncReplicas: intConfig(topicConfigs, 'min.insync.replicas', 1),
    compressionCodec: targetCodecOf(topicConfigs.get('compression.type')),
    indexIntervalBytes: intConfig(topicConfigs, 'index.interval.bytes', DEFAULT_INDEX_INTERVAL_BYTES),
  };
}

function intConfig(c: ReadonlyMap<string, string>, key: string, dflt: number): number {
  const v = c.get(key);
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isInteger(n) ? n : dflt;
}

/** A long setting; absent or unparsable: Long.MAX_VALUE, the default of every long used here. */
function longConfig(c: ReadonlyMap<string, string>, key: string): bigint {
  const v = c.get(key);
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return NO_TIMESTAMP_BOUND;
  return BigInt(v.trim());
}
