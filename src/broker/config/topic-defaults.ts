// The broker's defaults for topic configs, as KafkaConfig.extractLogConfigMap derives them from
// the broker's settings: segment.ms from log.roll.ms or else log.roll.hours, retention.ms from
// log.retention.ms, .minutes or .hours (negative: -1), flush.ms from log.flush.interval.ms or else
// log.flush.scheduler.interval.ms, and the others from their one synonym. A topic without an
// override of a config uses this value (LogConfig.fromProps over these defaults).
// `brokerTopicDefaults` reads the broker's configs by their Kafka names (static settings with the
// dynamic broker configs layered over them: dynamic-configs.ts); `staticTopicDefaults` is the same
// over the static settings alone. Values are the text ConfigDef.convertToString gives the parsed
// value (as LogConfig holds it), so a dynamic " 1000 " reaches the log as "1000".
import type { BrokerConfig } from '../config.js';
import { brokerConfigKey } from './broker-configs.js';
import { convertToString, parseType } from './config-def.js';
import { kmockStaticSettings } from './static-settings.js';

const HOUR_MS = 3_600_000n;
const MINUTE_MS = 60_000n;

/** A broker config's value by its Kafka name (static and dynamic layers), undefined when unset. */
export type BrokerValueLookup = (name: string) => string | undefined;

/** KafkaConfig.logRetentionTimeMillis */
export function logRetentionTimeMillis(c: Pick<BrokerConfig, 'logRetentionMs' | 'logRetentionMinutes' | 'logRetentionHours'>): number {
  const millis = c.logRetentionMs ?? (c.logRetentionMinutes !== null ? c.logRetentionMinutes * 60_000 : c.logRetentionHours * 3_600_000);
  return millis < 0 ? -1 : millis;
}

/** A broker config's parsed value: the lookup's text (else the catalog default) through ConfigDef.parseType. */
function parsed(value: BrokerValueLookup, name: string): bigint | number | boolean | string | string[] | null {
  const key = brokerConfigKey(name);
  if (key === undefined) throw new Error(`no broker config ${name}`);
  const text = value(name) ?? key.defaultValue;
  if (text === null) return null;
  const p = parseType(name, text, key.type);
  if ('error' in p) {
    // Only validated values are stored; a default always parses.
    const d = key.defaultValue === null ? null : parseType(name, key.defaultValue, key.type);
    return d === null || 'error' in d ? null : d.value;
  }
  return p.value;
}

function text(value: BrokerValueLookup, name: string): string {
  const key = brokerConfigKey(name)!;
  const v = parsed(value, name);
  return v === null ? '' : convertToString(v, key.type);
}

function long(value: BrokerValueLookup, name: string): bigint | null {
  const v = parsed(value, name);
  return v === null ? null : BigInt(v as bigint | number);
}

/** KafkaConfig.logRollTimeMillis and friends: the millisecond setting, else hours x 3600000. */
function millisOrHours(value: BrokerValueLookup, millis: string, hours: string): string {
  return String(long(value, millis) ?? long(value, hours)! * HOUR_MS);
}

/** KafkaConfig.logRetentionTimeMillis over the broker's configs (-1 when negative: no limit). */
export function retentionMillis(value: BrokerValueLookup): bigint {
  const millis =
    long(value, 'log.retention.ms') ??
    (long(value, 'log.retention.minutes') !== null ? long(value, 'log.retention.minutes')! * MINUTE_MS : long(value, 'log.retention.hours')! * HOUR_MS);
  return millis < 0n ? -1n : millis;
}

/** Topic config name -> the broker's value for it, as text (KafkaConfig.extractLogConfigMap). */
export function brokerTopicDefaults(value: BrokerValueLookup): Map<string, string> {
  const same = (topic: string, broker: string): [string, string] => [topic, text(value, broker)];
  return new Map<string, string>([
    same('segment.bytes', 'log.segment.bytes'),
    ['segment.ms', millisOrHours(value, 'log.roll.ms', 'log.roll.hours')],
    ['segment.jitter.ms', millisOrHours(value, 'log.roll.jitter.ms', 'log.roll.jitter.hours')],
    same('segment.index.bytes', 'log.index.size.max.bytes'),
    same('flush.messages', 'log.flush.interval.messages'),
    ['flush.ms', String(long(value, 'log.flush.interval.ms') ?? long(value, 'log.flush.scheduler.interval.ms'))],
    same('retention.bytes', 'log.retention.bytes'),
    ['retention.ms', String(retentionMillis(value))],
    same('max.message.bytes', 'message.max.bytes'),
    same('index.interval.bytes', 'log.index.interval.bytes'),
    same('delete.retention.ms', 'log.cleaner.delete.retention.ms'),
    same('min.compaction.lag.ms', 'log.cleaner.min.compaction.lag.ms'),
    same('max.compaction.lag.ms', 'log.cleaner.max.compaction.lag.ms'),
    same('file.delete.delay.ms', 'log.segment.delete.delay.ms'),
    same('min.cleanable.dirty.ratio', 'log.cleaner.min.cleanable.ratio'),
    same('cleanup.policy', 'log.cleanup.policy'),
    same('min.insync.replicas', 'min.insync.replicas'),
    same('compression.type', 'compression.type'),
    same('compression.gzip.level', 'compression.gzip.level'),
    same('compression.lz4.level', 'compression.lz4.level'),
    same('compression.zstd.level', 'compression.zstd.level'),
    same('unclean.leader.election.enable', 'unclean.leader.election.enable'),
    same('preallocate', 'log.preallocate'),
    same('message.format.version', 'log.message.format.version'),
    same('message.timestamp.type', 'log.message.timestamp.type'),
    same('message.timestamp.difference.max.ms', 'log.message.timestamp.difference.max.ms'),
    same('message.timestamp.before.max.ms', 'log.message.timestamp.before.max.ms'),
    same('message.timestamp.after.max.ms', 'log.message.timestamp.after.max.ms'),
    same('message.downconversion.enable', 'log.message.downconversion.enable'),
    same('local.retention.ms', 'log.local.retention.ms'),
    same('local.retention.bytes', 'log.local.retention.bytes'),
  ]);
}

/** Topic config name -> the broker's value for it, as text (the static settings only). */
export function staticTopicDefaults(c: BrokerConfig): Map<string, string> {
  const settings = kmockStaticSettings(c);
  return brokerTopicDefaults((name) => settings.get(name));
}
