// Topic administration as Apache Kafka 3.9 does it in KRaft mode with one broker: the rules behind
// CreateTopics, DeleteTopics, CreatePartitions and DescribeConfigs, shared by their handlers.
//
// Where each rule comes from (Kafka 3.9 sources):
//  - request-level checks (duplicates, __cluster_metadata, name/id resolution for deletes):
//    core/.../server/ControllerApis.scala (createTopics, deleteTopics, createPartitions);
//  - per-topic rules and their messages: metadata/.../controller/ReplicationControlManager.java
//    (createTopics/createTopic, validateNewTopicNames, computeConfigChanges, deleteTopics,
//    createPartitions, validateManualPartitionAssignment) and StripedReplicaPlacer.java;
//  - topic config validation: ConfigurationControlManager.incrementalAlterConfig ->
//    ControllerConfigurationValidator -> storage/.../log/LogConfig.validate and ConfigDef;
//  - effective configs returned by CreateTopics v5+: metadata/.../KafkaConfigSchema.java;
//  - DescribeConfigs entries, sources and synonyms: core/.../server/ConfigHelper.scala and
//    DynamicBrokerConfig.scala;
//  - the controller's limits: a request whose deadline (now + timeoutMs) has passed before the
//    controller runs it times out as a whole (KafkaEventQueue), and one controller operation may
//    write at most 10000 records (QuorumController.MAX_RECORDS_PER_USER_OP).
// The configuration keys, defaults, validators and documentation strings below are Kafka 3.9's
// (LogConfig, TopicConfig, ServerLogConfigs, ServerConfigs, SocketServerConfigs, KRaftConfigs,
// ReplicationConfigs, GroupCoordinatorConfig, CleanerConfig, RemoteLogManagerConfig;
// Apache License 2.0).
import type { Broker } from '../broker.js';
import { DEFAULT_CONFIG, type BrokerConfig } from '../config.js';
import { ErrorCode } from '../errors.js';
import { randomUuid, ZERO_UUID, type Topic } from './topics.js';

// ---- errors -------------------------------------------------------------------------------------

/** Kafka's ApiError: a code and a message (null when Kafka sends none). */
export interface ApiError {
  code: number;
  message: string | null;
}

export const NO_ERROR: ApiError = { code: ErrorCode.NONE, message: null };

function apiError(code: number, message: string | null = null): ApiError {
  return { code, message };
}

/** Errors.X.message() for the errors whose default text Kafka puts in responses. */
export const DEFAULT_ERROR_MESSAGE = {
  INVALID_REQUEST:
    'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  TOPIC_DELETION_DISABLED: 'Topic deletion is disabled.',
} as const;

/** QuorumController.MAX_RECORDS_PER_USER_OP: records one controller operation may write. */
export const MAX_RECORDS_PER_USER_OP = 10000;

/** Topic.CLUSTER_METADATA_TOPIC_NAME: CreateTopics refuses it. */
export const CLUSTER_METADATA_TOPIC_NAME = '__cluster_metadata';

/**
 * The controller handles an operation only if its deadline (now + timeoutMs) has not passed when
 * it gets to run it: with timeoutMs <= 0 it always has, and the whole request gets
 * REQUEST_TIMED_OUT without being carried out (KafkaEventQueue deadline handling).
 */
export function controllerDeadlinePassed(timeoutMs: number): boolean {
  return timeoutMs <= 0;
}

// ---- topic names --------------------------------------------------------------------------------

const MAX_NAME_LENGTH = 249;

/** Topic.validate's message ("Topic name is invalid: ..."), or null for a legal name. */
export function invalidTopicNameMessage(name: string): string | null {
  let reason: string | null = null;
  if (name.length === 0) reason = 'the empty string is not allowed';
  else if (name === '.') reason = "'.' is not allowed";
  else if (name === '..') reason = "'..' is not allowed";
  else if (name.length > MAX_NAME_LENGTH) reason = `the length of '${name}' is longer than the max allowed length ${MAX_NAME_LENGTH}`;
  else if (!/^[a-zA-Z0-9._-]+$/.test(name)) {
    reason = `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return reason === null ? null : `Topic name is invalid: ${reason}`;
}

function hasCollisionChars(name: string): boolean {
  return name.includes('_') || name.includes('.');
}

// ---- Java value semantics (ConfigDef.parseType, Integer/Long/Double parsing and printing) -------

export type ConfigType = 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';

/** DescribeConfigsResponse.ConfigType ids. */
export const CONFIG_TYPE_ID: Record<ConfigType, number> = {
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
};

/** DescribeConfigsResponse.ConfigSource ids. */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
} as const;

/** A parsed config value: INT/SHORT and DOUBLE as number, LONG as bigint, LIST as string[]. */
export type ConfigValue = boolean | string | number | bigint | string[];

/** String.trim(): strips every char <= ' ' from both ends. */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

function parseJavaInteger(s: string, min: bigint, max: bigint): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < min || n > max ? undefined : n;
}

const JAVA_DOUBLE =
  /^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)$/;

/** Double.parseDouble (which trims, accepts NaN/Infinity, type suffixes and hex floats). */
function parseJavaDouble(text: string): number | undefined {
  const s = javaTrim(text);
  if (!JAVA_DOUBLE.test(s)) return undefined;
  const negative = s.startsWith('-');
  const body = s.replace(/^[+-]/, '').replace(/[fFdD]$/, '');
  let v: number;
  if (body === 'NaN') return NaN;
  if (body === 'Infinity') v = Infinity;
  else if (/^0[xX]/.test(body)) {
    const [mant, exp] = body.slice(2).split(/[pP]/);
    const [int, frac = ''] = mant.split('.');
    v = parseInt((int || '0') + frac, 16) * 2 ** (Number(exp) - 4 * frac.length);
  } else v = Number(body);
  return negative ? -v : v;
}

/** Double.toString. */
export function javaDoubleToString(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mant, exp] = d.toExponential().split('e');
  return `${mant.includes('.') ? mant : `${mant}.0`}E${exp.replace('+', '')}`;
}

/** Object.toString of a parsed value, as Kafka prints it in messages. */
function javaToString(v: ConfigValue, type: ConfigType): string {
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  if (type === 'DOUBLE') return javaDoubleToString(v as number);
  return String(v);
}

/** ConfigDef.convertToString: the text form DescribeConfigs reports. */
function convertToString(v: ConfigValue, type: ConfigType): string {
  if (Array.isArray(v)) return v.join(',');
  if (type === 'DOUBLE') return javaDoubleToString(v as number);
  return String(v);
}

type Parsed = { value: ConfigValue } | { error: string };

/** ConfigException(name, value, message)'s text. */
function configException(name: string, value: string, message: string): string {
  return `Invalid value ${value} for configuration ${name}: ${message}`;
}

/** ConfigDef.parseType for a value given as text. */
function parseType(name: string, raw: string, type: ConfigType): Parsed {
  const trimmed = javaTrim(raw);
  const notANumber = (): Parsed => ({ error: configException(name, raw, `Not a number of type ${type}`) });
  switch (type) {
    case 'BOOLEAN': {
      const l = trimmed.toLowerCase();
      if (l === 'true') return { value: true };
      if (l === 'false') return { value: false };
      return { error: configException(name, raw, 'Expected value to be either true or false') };
    }
    case 'STRING':
    case 'PASSWORD':
    case 'CLASS':
      return { value: trimmed };
    case 'INT': {
      const n = parseJavaInteger(trimmed, -2147483648n, 2147483647n);
      return n === undefined ? notANumber() : { value: Number(n) };
    }
    case 'SHORT': {
      const n = parseJavaInteger(trimmed, -32768n, 32767n);
      return n === undefined ? notANumber() : { value: Number(n) };
    }
    case 'LONG': {
      const n = parseJavaInteger(trimmed, -9223372036854775808n, 9223372036854775807n);
      return n === undefined ? notANumber() : { value: n };
    }
    case 'DOUBLE': {
      const d = parseJavaDouble(trimmed);
      return d === undefined ? notANumber() : { value: d };
    }
    case 'LIST':
      // Arrays.asList(COMMA_WITH_WHITESPACE.split(trimmed, -1)): trailing empty items are kept.
      return { value: trimmed === '' ? [] : trimmed.split(/\s*,\s*/) };
  }
}

// ---- validators (ConfigDef.Range / ValidString / ValidList and Kafka's own) -----------------------

/** Returns the ConfigException message, or null when the value is valid. */
type Validator = (name: string, value: ConfigValue, type: ConfigType) => string | null;

function atLeast(min: number): Validator {
  return (name, value, type) =>
    Number(value) < min ? configException(name, javaToString(value, type), `Value must be at least ${min}`) : null;
}

function between(min: number, max: number): Validator {
  return (name, value, type) => {
    const n = Number(value);
    if (n < min) return configException(name, javaToString(value, type), `Value must be at least ${min}`);
    if (n > max) return configException(name, javaToString(value, type), `Value must be no more than ${max}`);
    return null;
  };
}

function validString(allowed: string[]): Validator {
  return (name, value) =>
    allowed.includes(value as string) ? null : configException(name, value as string, `String must be one of: ${allowed.join(', ')}`);
}

function validList(allowed: string[]): Validator {
  const one = validString(allowed);
  return (name, value, type) => {
    for (const item of value as string[]) {
      const e = one(name, item, type);
      if (e) return e;
    }
    return null;
  };
}

/** CompressionType.GZIP.levelValidator(). */
const gzipLevel: Validator = (name, value) => {
  const level = value as number;
  return level > 9 || (level < 1 && level !== -1)
    ? configException(name, String(level), 'Value must be between 1 and 9 or equal to -1')
    : null;
};

/** MetadataVersion ids (MetadataVersion.VERSIONS) and the production releases (<= 3.9-IV0). */
const METADATA_VERSION_IDS = [
  '0.8.0', '0.8.1', '0.8.2', '0.9.0', '0.10.0-IV0', '0.10.0-IV1', '0.10.1-IV0', '0.10.1-IV1', '0.10.1-IV2',
  '0.10.2-IV0', '0.11.0-IV0', '0.11.0-IV1', '0.11.0-IV2', '1.0-IV0', '1.1-IV0', '2.0-IV0', '2.0-IV1', '2.1-IV0',
  '2.1-IV1', '2.1-IV2', '2.2-IV0', '2.2-IV1', '2.3-IV0', '2.3-IV1', '2.4-IV0', '2.4-IV1', '2.5-IV0', '2.6-IV0',
  '2.7-IV0', '2.7-IV1', '2.7-IV2', '2.8-IV0', '2.8-IV1', '3.0-IV0', '3.0-IV1', '3.1-IV0', '3.2-IV0', '3.3-IV0',
  '3.3-IV1', '3.3-IV2', '3.3-IV3', '3.4-IV0', '3.5-IV0', '3.5-IV1', '3.5-IV2', '3.6-IV0', '3.6-IV1', '3.6-IV2',
  '3.7-IV0', '3.7-IV1', '3.7-IV2', '3.7-IV3', '3.7-IV4', '3.8-IV0', '3.9-IV0', '4.0-IV0', '4.0-IV1',
];
const METADATA_VERSION_KEYS = new Set<string>([
  ...METADATA_VERSION_IDS,
  ...METADATA_VERSION_IDS.filter((v) => !v.startsWith('4.')).map((v) => v.replace(/-IV\d+$/, '')),
]);

/** MetadataVersion.fromVersionString as MetadataVersionValidator uses it. */
function isMetadataVersion(text: string): boolean {
  // String.split drops trailing empty strings.
  const segments = text.split('.');
  while (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  const numSegments = text.startsWith('0.') ? 3 : 2;
  const key = numSegments >= segments.length ? text : segments.slice(0, numSegments).join('.');
  return METADATA_VERSION_KEYS.has(key);
}

const metadataVersion: Validator = (name, value) =>
  isMetadataVersion(value as string)
    ? null
    : configException(name, value as string, `Version ${value as string} is not a valid version`);

/** ThrottledReplicaListValidator. */
const throttledReplicas: Validator = (name, value) => {
  const proposed = (value as string[]).map((s) => javaTrim(s));
  if (proposed.every((s) => /^([0-9]+:[0-9]+)?$/.test(s)) || proposed.join('') === '*') return null;
  return configException(
    name,
    `[${(value as string[]).join(', ')}]`,
    `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`,
  );
};

// ---- config keys ----------------------------------------------------------------------------------

export interface TopicConfigKey {
  name: string;
  type: ConfigType;
  /** The default as ConfigDef.convertToString gives it. */
  defaultValue: string;
  validator: Validator | null;
  /** The broker setting that supplies the default (ServerTopicConfigSynonyms), if any. */
  serverSynonym: string | null;
  documentation: string;
}

function topicKey(
  name: string,
  type: ConfigType,
  defaultValue: string,
  validator: Validator | null,
  serverSynonym: string | null,
  documentation: string,
): TopicConfigKey {
  return { name, type, defaultValue, validator, serverSynonym, documentation };
}

export interface BrokerConfigKey {
  name: string;
  type: ConfigType;
  /** KafkaConfig's default as text, or null when it has none. */
  defaultValue: string | null;
  /** In DynamicBrokerConfig.AllDynamicConfigs (then DescribeConfigs says readOnly=false). */
  dynamic: boolean;
  documentation: string;
}

function brokerKey(name: string, type: ConfigType, defaultValue: string | null, dynamic: boolean, documentation: string): BrokerConfigKey {
  return { name, type, defaultValue, dynamic, documentation };
}

// ---- the keys ----------------------------------------------------------------------------------

/** Kafka 3.9 topic configs (LogConfig), in definition order: the order ConfigDef.parse checks them. */
export const TOPIC_CONFIGS: readonly TopicConfigKey[] = [
  topicKey("segment.bytes", 'INT', "1073741824", atLeast(14), "log.segment.bytes",
    "This configuration controls the segment file size for the log. Retention and cleaning is always done a file at a time so a larger segment size means fewer files but less granular control over retention."),
  topicKey("segment.ms", 'LONG', "604800000", atLeast(1), "log.roll.ms",
    "This configuration controls the period of time after which Kafka will force the log to roll even if the segment file isn't full to ensure that retention can delete or compact old data."),
  topicKey("segment.jitter.ms", 'LONG', "0", atLeast(0), "log.roll.jitter.ms",
    "The maximum random jitter subtracted from the scheduled segment roll time to avoid thundering herds of segment rolling"),
  topicKey("segment.index.bytes", 'INT', "10485760", atLeast(4), "log.index.size.max.bytes",
    "This configuration controls the size of the index that maps offsets to file positions. We preallocate this index file and shrink it only after log rolls. You generally should not need to change this setting."),
  topicKey("flush.messages", 'LONG', "9223372036854775807", atLeast(1), "log.flush.interval.messages",
    "This setting allows specifying an interval at which we will force an fsync of data written to the log. For example if this was set to 1 we would fsync after every message; if it were 5 we would fsync after every five messages. In general we recommend you not set this and use replication for durability and allow the operating system's background flush capabilities as it is more efficient. This setting can be overridden on a per-topic basis (see <a href=\"#topicconfigs\">the per-topic configuration section</a>)."),
  topicKey("flush.ms", 'LONG', "9223372036854775807", atLeast(0), "log.flush.interval.ms",
    "This setting allows specifying a time interval at which we will force an fsync of data written to the log. For example if this was set to 1000 we would fsync after 1000 ms had passed. In general we recommend you not set this and use replication for durability and allow the operating system's background flush capabilities as it is more efficient."),
  topicKey("retention.bytes", 'LONG', "-1", null, "log.retention.bytes",
    "This configuration controls the maximum size a partition (which consists of log segments) can grow to before we will discard old log segments to free up space if we are using the \"delete\" retention policy. By default there is no size limit only a time limit. Since this limit is enforced at the partition level, multiply it by the number of partitions to compute the topic retention in bytes. Additionally, retention.bytes configuration operates independently of \"segment.ms\" and \"segment.bytes\" configurations. Moreover, it triggers the rolling of new segment if the retention.bytes is configured to zero."),
  topicKey("retention.ms", 'LONG', "604800000", atLeast(-1), "log.retention.ms",
    "This configuration controls the maximum time we will retain a log before we will discard old log segments to free up space if we are using the \"delete\" retention policy. This represents an SLA on how soon consumers must read their data. If set to -1, no time limit is applied. Additionally, retention.ms configuration operates independently of \"segment.ms\" and \"segment.bytes\" configurations. Moreover, it triggers the rolling of new segment if the retention.ms condition is satisfied."),
  topicKey("max.message.bytes", 'INT', "1048588", atLeast(0), "message.max.bytes",
    "The largest record batch size allowed by Kafka (after compression if compression is enabled). If this is increased and there are consumers older than 0.10.2, the consumers' fetch size must also be increased so that they can fetch record batches this large. In the latest message format version, records are always grouped into batches for efficiency. In previous message format versions, uncompressed records are not grouped into batches and this limit only applies to a single record in that case."),
  topicKey("index.interval.bytes", 'INT', "4096", atLeast(0), "log.index.interval.bytes",
    "This setting controls how frequently Kafka adds an index entry to its offset index. The default setting ensures that we index a message roughly every 4096 bytes. More indexing allows reads to jump closer to the exact position in the log but makes the index larger. You probably don't need to change this."),
  topicKey("delete.retention.ms", 'LONG', "86400000", atLeast(0), "log.cleaner.delete.retention.ms",
    "The amount of time to retain delete tombstone markers for <a href=\"#compaction\">log compacted</a> topics. This setting also gives a bound on the time in which a consumer must complete a read if they begin from offset 0 to ensure that they get a valid snapshot of the final stage (otherwise delete tombstones may be collected before they complete their scan)."),
  topicKey("min.compaction.lag.ms", 'LONG', "0", atLeast(0), "log.cleaner.min.compaction.lag.ms",
    "The minimum time a message will remain uncompacted in the log. Only applicable for logs that are being compacted."),
  topicKey("max.compaction.lag.ms", 'LONG', "9223372036854775807", atLeast(1), "log.cleaner.max.compaction.lag.ms",
    "The maximum time a message will remain ineligible for compaction in the log. Only applicable for logs that are being compacted."),
  topicKey("file.delete.delay.ms", 'LONG', "60000", atLeast(0), "log.segment.delete.delay.ms",
    "The time to wait before deleting a file from the filesystem"),
  topicKey("min.cleanable.dirty.ratio", 'DOUBLE', "0.5", between(0, 1), "log.cleaner.min.cleanable.ratio",
    "This configuration controls how frequently the log compactor will attempt to clean the log (assuming <a href=\"#compaction\">log compaction</a> is enabled). By default we will avoid cleaning a log where more than 50% of the log has been compacted. This ratio bounds the maximum space wasted in the log by duplicates (at 50% at most 50% of the log could be duplicates). A higher ratio will mean fewer, more efficient cleanings but will mean more wasted space in the log. If the max.compaction.lag.ms or the min.compaction.lag.ms configurations are also specified, then the log compactor considers the log to be eligible for compaction as soon as either: (i) the dirty ratio threshold has been met and the log has had dirty (uncompacted) records for at least the min.compaction.lag.ms duration, or (ii) if the log has had dirty (uncompacted) records for at most the max.compaction.lag.ms period."),
  topicKey("cleanup.policy", 'LIST', "delete", validList(['compact', 'delete']), "log.cleanup.policy",
    "This config designates the retention policy to use on log segments. The \"delete\" policy (which is the default) will discard old segments when their retention time or size limit has been reached. The \"compact\" policy will enable <a href=\"#compaction\">log compaction</a>, which retains the latest value for each key. It is also possible to specify both policies in a comma-separated list (e.g. \"delete,compact\"). In this case, old segments will be discarded per the retention time and size configuration, while retained segments will be compacted."),
  topicKey("unclean.leader.election.enable", 'BOOLEAN', "false", null, "unclean.leader.election.enable",
    "Indicates whether to enable replicas not in the ISR set to be elected as leader as a last resort, even though doing so may result in data loss.<p>Note: In KRaft mode, when enabling this config dynamically, it needs to wait for the unclean leader electionthread to trigger election periodically (default is 5 minutes). Please run `kafka-leader-election.sh` with `unclean` option to trigger the unclean leader election immediately if needed.</p>"),
  topicKey("min.insync.replicas", 'INT', "1", atLeast(1), "min.insync.replicas",
    "When a producer sets acks to \"all\" (or \"-1\"), this configuration specifies the minimum number of replicas that must acknowledge a write for the write to be considered successful. If this minimum cannot be met, then the producer will raise an exception (either NotEnoughReplicas or NotEnoughReplicasAfterAppend).<br>When used together, <code>min.insync.replicas</code> and <code>acks</code> allow you to enforce greater durability guarantees. A typical scenario would be to create a topic with a replication factor of 3, set <code>min.insync.replicas</code> to 2, and produce with <code>acks</code> of \"all\". This will ensure that the producer raises an exception if a majority of replicas do not receive a write."),
  topicKey("compression.type", 'STRING', "producer", validString(['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer']), "compression.type",
    "Specify the final compression type for a given topic. This configuration accepts the standard compression codecs ('gzip', 'snappy', 'lz4', 'zstd'). It additionally accepts 'uncompressed' which is equivalent to no compression; and 'producer' which means retain the original compression codec set by the producer."),
  topicKey("compression.gzip.level", 'INT', "-1", gzipLevel, "compression.gzip.level",
    "The compression level to use if compression.type is set to <code>gzip</code>."),
  topicKey("compression.lz4.level", 'INT', "9", between(1, 17), "compression.lz4.level",
    "The compression level to use if compression.type is set to <code>lz4</code>."),
  topicKey("compression.zstd.level", 'INT', "3", between(-131072, 22), "compression.zstd.level",
    "The compression level to use if compression.type is set to <code>zstd</code>."),
  topicKey("preallocate", 'BOOLEAN', "false", null, "log.preallocate",
    "True if we should preallocate the file on disk when creating a new log segment."),
  topicKey("message.format.version", 'STRING', "3.0-IV1", metadataVersion, "log.message.format.version",
    "[DEPRECATED] Specify the message format version the broker will use to append messages to the logs. The value of this config is always assumed to be `3.0` if `inter.broker.protocol.version` is 3.0 or higher (the actual config value is ignored). Otherwise, the value should be a valid ApiVersion. Some examples are: 0.10.0, 1.1, 2.8, 3.0. By setting a particular message format version, the user is certifying that all the existing messages on disk are smaller or equal than the specified version. Setting this value incorrectly will cause consumers with older versions to break as they will receive messages with a format that they don't understand."),
  topicKey("message.timestamp.type", 'STRING', "CreateTime", validString(['CreateTime', 'LogAppendTime']), "log.message.timestamp.type",
    "Define whether the timestamp in the message is message create time or log append time. The value should be either `CreateTime` or `LogAppendTime`"),
  topicKey("message.timestamp.difference.max.ms", 'LONG', "9223372036854775807", atLeast(0), "log.message.timestamp.difference.max.ms",
    "[DEPRECATED] The maximum difference allowed between the timestamp when a broker receives a message and the timestamp specified in the message. If message.timestamp.type=CreateTime, a message will be rejected if the difference in timestamp exceeds this threshold. This configuration is ignored if message.timestamp.type=LogAppendTime."),
  topicKey("message.timestamp.before.max.ms", 'LONG', "9223372036854775807", atLeast(0), "log.message.timestamp.before.max.ms",
    "This configuration sets the allowable timestamp difference between the broker's timestamp and the message timestamp. The message timestamp can be earlier than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if message.timestamp.type=LogAppendTime."),
  topicKey("message.timestamp.after.max.ms", 'LONG', "9223372036854775807", atLeast(0), "log.message.timestamp.after.max.ms",
    "This configuration sets the allowable timestamp difference between the message timestamp and the broker's timestamp. The message timestamp can be later than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if message.timestamp.type=LogAppendTime."),
  topicKey("leader.replication.throttled.replicas", 'LIST', "", throttledReplicas, null,
    "A list of replicas for which log replication should be throttled on the leader side. The list should describe a set of replicas in the form [PartitionId]:[BrokerId],[PartitionId]:[BrokerId]:... or alternatively the wildcard '*' can be used to throttle all replicas for this topic."),
  topicKey("follower.replication.throttled.replicas", 'LIST', "", throttledReplicas, null,
    "A list of replicas for which log replication should be throttled on the follower side. The list should describe a set of replicas in the form [PartitionId]:[BrokerId],[PartitionId]:[BrokerId]:... or alternatively the wildcard '*' can be used to throttle all replicas for this topic."),
  topicKey("message.downconversion.enable", 'BOOLEAN', "true", null, "log.message.downconversion.enable",
    "This configuration controls whether down-conversion of message formats is enabled to satisfy consume requests. When set to <code>false</code>, broker will not perform down-conversion for consumers expecting an older message format. The broker responds with <code>UNSUPPORTED_VERSION</code> error for consume requests from such older clients. This configurationdoes not apply to any message format conversion that might be required for replication to followers."),
  topicKey("remote.storage.enable", 'BOOLEAN', "false", null, null,
    "To enable tiered storage for a topic, set this configuration as true. You can not disable this config once it is enabled. It will be provided in future versions."),
  topicKey("local.retention.ms", 'LONG', "-2", atLeast(-2), "log.local.retention.ms",
    "The number of milliseconds to keep the local log segment before it gets deleted. Default value is -2, it represents `retention.ms` value is to be used. The effective value should always be less than or equal to `retention.ms` value."),
  topicKey("local.retention.bytes", 'LONG', "-2", atLeast(-2), "log.local.retention.bytes",
    "The maximum size of local log segments that can grow for a partition before it deletes the old segments. Default value is -2, it represents `retention.bytes` value to be used. The effective value should always be less than or equal to `retention.bytes` value."),
  topicKey("remote.log.copy.disable", 'BOOLEAN', "false", null, null,
    "Determines whether tiered data for a topic should become read only, and no more data uploading on a topic. Once this config is set to true, the local retention configuration (i.e. local.retention.ms/bytes) becomes irrelevant, and all data expiration follows the topic-wide retention configuration(i.e. retention.ms/bytes)."),
  topicKey("remote.log.delete.on.disable", 'BOOLEAN', "false", null, null,
    "Determines whether tiered data for a topic should be deleted after tiered storage is disabled on a topic. This configuration should be enabled when trying to set `remote.storage.enable` from true to false"),
];

/**
 * The broker configs kmock describes (a subset of KafkaConfig: every setting kmock has, every
 * broker synonym of a topic config, and common read-only ones), with Kafka 3.9 types and defaults.
 */
export const BROKER_CONFIGS: readonly BrokerConfigKey[] = [
  brokerKey("process.roles", 'LIST', "", false,
    "The roles that this process plays: 'broker', 'controller', or 'broker,controller' if it is both. This configuration is only applicable for clusters in KRaft (Kafka Raft) mode (instead of ZooKeeper). Leave this config undefined or empty for ZooKeeper clusters."),
  brokerKey("node.id", 'INT', "-1", false,
    "The node ID associated with the roles this process is playing when <code>process.roles</code> is non-empty. This is required configuration when running in KRaft mode."),
  brokerKey("broker.id", 'INT', "-1", false,
    "The broker id for this server. If unset, a unique broker id will be generated.To avoid conflicts between ZooKeeper generated broker id's and user configured broker id's, generated broker ids start from reserved.broker.max.id + 1."),
  brokerKey("listeners", 'STRING', "PLAINTEXT://:9092", true,
    "Listener List - Comma-separated list of URIs we will listen on and the listener names. If the listener name is not a security protocol, <code>listener.security.protocol.map</code> must also be set.\n Listener names and port numbers must be unique unless %n one listener is an IPv4 address and the other listener is %n an IPv6 address (for the same port).%n Specify hostname as 0.0.0.0 to bind to all interfaces.%n Leave hostname empty to bind to default interface.%n Examples of legal listener lists:%n <code>PLAINTEXT://myhost:9092,SSL://:9091</code>%n <code>CLIENT://0.0.0.0:9092,REPLICATION://localhost:9093</code>%n <code>PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092</code>%n"),
  brokerKey("advertised.listeners", 'STRING', null, true,
    "Listeners to publish to ZooKeeper for clients to use, if different than the <code>listeners</code> config property. In IaaS environments, this may need to be different from the interface to which the broker binds. If this is not set, the value for <code>listeners</code> will be used. Unlike <code>listeners</code>, it is not valid to advertise the 0.0.0.0 meta-address.\n Also unlike <code>listeners</code>, there can be duplicated ports in this property, so that one listener can be configured to advertise another listener's address. This can be useful in some cases where external load balancers are used."),
  brokerKey("listener.security.protocol.map", 'STRING', "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT", true,
    "Map between listener names and security protocols. This must be defined for the same security protocol to be usable in more than one port or IP. For example, internal and external traffic can be separated even if SSL is required for both. Concretely, the user could define listeners with names INTERNAL and EXTERNAL and this property as: <code>INTERNAL:SSL,EXTERNAL:SSL</code>. As shown, key and value are separated by a colon and map entries are separated by commas. Each listener name should only appear once in the map. Different security (SSL and SASL) settings can be configured for each listener by adding a normalised prefix (the listener name is lowercased) to the config name. For example, to set a different keystore for the INTERNAL listener, a config with name <code>listener.name.internal.ssl.keystore.location</code> would be set. If the config for the listener name is not set, the config will fallback to the generic config (i.e. <code>ssl.keystore.location</code>). Note that in KRaft a default mapping from the listener names defined by <code>controller.listener.names</code> to PLAINTEXT is assumed if no explicit mapping is provided and no other security protocol is in use."),
  brokerKey("broker.rack", 'STRING', null, false,
    "Rack of the broker. This will be used in rack aware replication assignment for fault tolerance. Examples: <code>RACK1</code>, <code>us-east-1d</code>"),
  brokerKey("socket.request.max.bytes", 'INT', "104857600", false,
    "The maximum number of bytes in a socket request"),
  brokerKey("connections.max.idle.ms", 'LONG', "600000", false,
    "Idle connections timeout: the server socket processor threads close the connections that idle more than this"),
  brokerKey("socket.send.buffer.bytes", 'INT', "102400", false,
    "The SO_SNDBUF buffer of the socket server sockets. If the value is -1, the OS default will be used."),
  brokerKey("socket.receive.buffer.bytes", 'INT', "102400", false,
    "The SO_RCVBUF buffer of the socket server sockets. If the value is -1, the OS default will be used."),
  // Dynamic: DynamicThreadPool.ReconfigurableConfigs (num.io.threads, num.network.threads,
  // num.replica.fetchers, num.recovery.threads.per.data.dir, background.threads) is part of
  // DynamicBrokerConfig.AllDynamicConfigs, so ConfigHelper.createBrokerConfigEntry says readOnly=false.
  brokerKey("num.network.threads", 'INT', "3", true,
    "The number of threads that the server uses for receiving requests from the network and sending responses to the network. Noted: each listener (except for controller listener) creates its own thread pool."),
  brokerKey("num.io.threads", 'INT', "8", true,
    "The number of threads that the server uses for processing requests, which may include disk I/O"),
  brokerKey("queued.max.requests", 'INT', "500", false,
    "The number of queued requests allowed for data-plane, before blocking the network threads"),
  brokerKey("request.timeout.ms", 'INT', "30000", false,
    "The configuration controls the maximum amount of time the client will wait for the response of a request. If the response is not received before the timeout elapses the client will resend the request if necessary or fail the request if retries are exhausted."),
  brokerKey("background.threads", 'INT', "10", true,
    "The number of threads to use for various background processing tasks"),
  brokerKey("auto.create.topics.enable", 'BOOLEAN', "true", false,
    "Enable auto creation of topic on the server."),
  brokerKey("num.partitions", 'INT', "1", false,
    "The default number of log partitions per topic"),
  brokerKey("default.replication.factor", 'INT', "1", false,
    "The replication factor for automatically created topics, and for topics created with -1 as the replication factor"),
  brokerKey("delete.topic.enable", 'BOOLEAN', "true", false,
    "Enables delete topic. Delete topic through the admin tool will have no effect if this config is turned off"),
  brokerKey("group.initial.rebalance.delay.ms", 'INT', "3000", false,
    "The amount of time the group coordinator will wait for more consumers to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances, but increases the time until processing begins."),
  brokerKey("group.min.session.timeout.ms", 'INT', "6000", false,
    "The minimum allowed session timeout for registered consumers. Shorter timeouts result in quicker failure detection at the cost of more frequent consumer heartbeating, which can overwhelm broker resources."),
  brokerKey("group.max.session.timeout.ms", 'INT', "1800000", false,
    "The maximum allowed session timeout for registered consumers. Longer timeouts give consumers more time to process messages in between heartbeats at the cost of a longer time to detect failures."),
  brokerKey("group.max.size", 'INT', "2147483647", false,
    "The maximum number of consumers that a single consumer group can accommodate."),
  brokerKey("offsets.retention.minutes", 'INT', "10080", false,
    "For subscribed consumers, committed offset of a specific partition will be expired and discarded when 1) this retention period has elapsed after the consumer group loses all its consumers (i.e. becomes empty); 2) this retention period has elapsed since the last time an offset is committed for the partition and the group is no longer subscribed to the corresponding topic. For standalone consumers (using manual assignment), offsets will be expired after this retention period has elapsed since the time of last commit. Note that when a group is deleted via the delete-group request, its committed offsets will also be deleted without extra retention period; also when a topic is deleted via the delete-topic request, upon propagated metadata update any group's committed offsets for that topic will also be deleted without extra retention period."),
  brokerKey("offsets.topic.replication.factor", 'SHORT', "3", false,
    "The replication factor for the offsets topic (set higher to ensure availability). Internal topic creation will fail until the cluster size meets this replication factor requirement."),
  brokerKey("offsets.topic.num.partitions", 'INT', "50", false,
    "The number of partitions for the offset commit topic (should not change after deployment)."),
  brokerKey("transaction.state.log.replication.factor", 'SHORT', "3", false,
    "The replication factor for the transaction topic (set higher to ensure availability). Internal topic creation will fail until the cluster size meets this replication factor requirement."),
  brokerKey("transaction.state.log.min.isr", 'INT', "2", false,
    "The minimum number of replicas that must acknowledge a write to transaction topic in order to be considered successful."),
  brokerKey("auto.leader.rebalance.enable", 'BOOLEAN', "true", false,
    "Enables auto leader balancing. A background thread checks the distribution of partition leaders at regular intervals, configurable by leader.imbalance.check.interval.seconds. If the leader imbalance exceeds leader.imbalance.per.broker.percentage, leader rebalance to the preferred leader for partitions is triggered."),
  brokerKey("replica.fetch.max.bytes", 'INT', "1048576", false,
    "The number of bytes of messages to attempt to fetch for each partition. This is not an absolute maximum, if the first record batch in the first non-empty partition of the fetch is larger than this value, the record batch will still be returned to ensure that progress can be made. The maximum record batch size accepted by the broker is defined via <code>message.max.bytes</code> (broker config) or <code>max.message.bytes</code> (topic config)."),
  brokerKey("message.max.bytes", 'INT', "1048588", true,
    "The largest record batch size allowed by Kafka (after compression if compression is enabled). If this is increased and there are consumers older than 0.10.2, the consumers' fetch size must also be increased so that they can fetch record batches this large. In the latest message format version, records are always grouped into batches for efficiency. In previous message format versions, uncompressed records are not grouped into batches and this limit only applies to a single record in that case.This can be set per topic with the topic level <code>max.message.bytes</code> config."),
  brokerKey("min.insync.replicas", 'INT', "1", true,
    "When a producer sets acks to \"all\" (or \"-1\"), <code>min.insync.replicas</code> specifies the minimum number of replicas that must acknowledge a write for the write to be considered successful. If this minimum cannot be met, then the producer will raise an exception (either <code>NotEnoughReplicas</code> or <code>NotEnoughReplicasAfterAppend</code>).<br>When used together, <code>min.insync.replicas</code> and acks allow you to enforce greater durability guarantees. A typical scenario would be to create a topic with a replication factor of 3, set <code>min.insync.replicas</code> to 2, and produce with acks of \"all\". This will ensure that the producer raises an exception if a majority of replicas do not receive a write."),
  brokerKey("compression.type", 'STRING', "producer", true,
    "Specify the final compression type for a given topic. This configuration accepts the standard compression codecs ('gzip', 'snappy', 'lz4', 'zstd'). It additionally accepts 'uncompressed' which is equivalent to no compression; and 'producer' which means retain the original compression codec set by the producer."),
  brokerKey("compression.gzip.level", 'INT', "-1", true,
    "The compression level to use if compression.type is set to 'gzip'."),
  brokerKey("compression.lz4.level", 'INT', "9", true,
    "The compression level to use if compression.type is set to 'lz4'."),
  brokerKey("compression.zstd.level", 'INT', "3", true,
    "The compression level to use if compression.type is set to 'zstd'."),
  brokerKey("unclean.leader.election.enable", 'BOOLEAN', "false", true,
    "Indicates whether to enable replicas not in the ISR set to be elected as leader as a last resort, even though doing so may result in data loss<p>Note: In KRaft mode, when enabling this config dynamically, it needs to wait for the unclean leader election thread to trigger election periodically (default is 5 minutes). Please run `kafka-leader-election.sh` with `unclean` option to trigger the unclean leader election immediately if needed.</p>"),
  brokerKey("log.dir", 'STRING', "/tmp/kafka-logs", false,
    "The directory in which the log data is kept (supplemental for log.dirs property)"),
  brokerKey("log.dirs", 'STRING', null, false,
    "A comma-separated list of the directories where the log data is stored. If not set, the value in log.dir is used."),
  brokerKey("log.segment.bytes", 'INT', "1073741824", true,
    "The maximum size of a single log file"),
  brokerKey("log.roll.ms", 'LONG', null, true,
    "The maximum time before a new log segment is rolled out (in milliseconds). If not set, the value in log.roll.hours is used"),
  brokerKey("log.roll.hours", 'INT', "168", false,
    "The maximum time before a new log segment is rolled out (in hours), secondary to log.roll.ms property"),
  brokerKey("log.roll.jitter.ms", 'LONG', null, true,
    "The maximum jitter to subtract from logRollTimeMillis (in milliseconds). If not set, the value in log.roll.jitter.hours is used"),
  brokerKey("log.roll.jitter.hours", 'INT', "0", false,
    "The maximum jitter to subtract from logRollTimeMillis (in hours), secondary to log.roll.jitter.ms property"),
  brokerKey("log.retention.ms", 'LONG', null, true,
    "The number of milliseconds to keep a log file before deleting it (in milliseconds), If not set, the value in log.retention.minutes is used. If set to -1, no time limit is applied."),
  brokerKey("log.retention.minutes", 'INT', null, false,
    "The number of minutes to keep a log file before deleting it (in minutes), secondary to log.retention.ms property. If not set, the value in log.retention.hours is used"),
  brokerKey("log.retention.hours", 'INT', "168", false,
    "The number of hours to keep a log file before deleting it (in hours), tertiary to log.retention.ms property"),
  brokerKey("log.retention.bytes", 'LONG', "-1", true,
    "The maximum size of the log before deleting it"),
  brokerKey("log.retention.check.interval.ms", 'LONG', "300000", false,
    "The frequency in milliseconds that the log cleaner checks whether any log is eligible for deletion"),
  brokerKey("log.cleanup.policy", 'LIST', "delete", true,
    "The default cleanup policy for segments beyond the retention window. A comma separated list of valid policies. Valid policies are: \"delete\" and \"compact\""),
  brokerKey("log.index.size.max.bytes", 'INT', "10485760", true,
    "The maximum size in bytes of the offset index"),
  brokerKey("log.index.interval.bytes", 'INT', "4096", true,
    "The interval with which we add an entry to the offset index."),
  brokerKey("log.flush.interval.messages", 'LONG', "9223372036854775807", true,
    "The number of messages accumulated on a log partition before messages are flushed to disk."),
  brokerKey("log.flush.interval.ms", 'LONG', null, true,
    "The maximum time in ms that a message in any topic is kept in memory before flushed to disk. If not set, the value in log.flush.scheduler.interval.ms is used"),
  brokerKey("log.flush.scheduler.interval.ms", 'LONG', "9223372036854775807", false,
    "The frequency in ms that the log flusher checks whether any log needs to be flushed to disk"),
  brokerKey("log.segment.delete.delay.ms", 'LONG', "60000", true,
    "The amount of time to wait before deleting a file from the filesystem. If the value is 0 and there is no file to delete, the system will wait 1 millisecond. Low value will cause busy waiting"),
  brokerKey("log.preallocate", 'BOOLEAN', "false", true,
    "Should pre allocate file when create new segment? If you are using Kafka on Windows, you probably need to set it to true."),
  brokerKey("log.message.format.version", 'STRING', "3.0-IV1", false,
    "Specify the message format version the broker will use to append messages to the logs. The value should be a valid MetadataVersion. Some examples are: 0.8.2, 0.9.0.0, 0.10.0, check MetadataVersion for more details. By setting a particular message format version, the user is certifying that all the existing messages on disk are smaller or equal than the specified version. Setting this value incorrectly will cause consumers with older versions to break as they will receive messages with a format that they don't understand."),
  brokerKey("log.message.timestamp.type", 'STRING', "CreateTime", true,
    "Define whether the timestamp in the message is message create time or log append time. The value should be either <code>CreateTime</code> or <code>LogAppendTime</code>."),
  brokerKey("log.message.timestamp.difference.max.ms", 'LONG', "9223372036854775807", true,
    "[DEPRECATED] The maximum difference allowed between the timestamp when a broker receives a message and the timestamp specified in the message. If log.message.timestamp.type=CreateTime, a message will be rejected if the difference in timestamp exceeds this threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime.The maximum timestamp difference allowed should be no greater than log.retention.ms to avoid unnecessarily frequent log rolling."),
  brokerKey("log.message.timestamp.before.max.ms", 'LONG', "9223372036854775807", true,
    "This configuration sets the allowable timestamp difference between the broker's timestamp and the message timestamp. The message timestamp can be earlier than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime."),
  brokerKey("log.message.timestamp.after.max.ms", 'LONG', "9223372036854775807", true,
    "This configuration sets the allowable timestamp difference between the message timestamp and the broker's timestamp. The message timestamp can be later than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime."),
  brokerKey("log.message.downconversion.enable", 'BOOLEAN', "true", true,
    "This configuration controls whether down-conversion of message formats is enabled to satisfy consume requests. When set to <code>false</code>, broker will not perform down-conversion for consumers expecting an older message format. The broker responds with <code>UNSUPPORTED_VERSION</code> error for consume requests from such older clients. This configurationdoes not apply to any message format conversion that might be required for replication to followers."),
  brokerKey("log.cleaner.enable", 'BOOLEAN', "true", false,
    "Enable the log cleaner process to run on the server. Should be enabled if using any topics with a cleanup.policy=compact including the internal offsets topic. If disabled those topics will not be compacted and continually grow in size."),
  brokerKey("log.cleaner.delete.retention.ms", 'LONG', "86400000", true,
    "The amount of time to retain tombstone message markers for log compacted topics. This setting also gives a bound on the time in which a consumer must complete a read if they begin from offset 0 to ensure that they get a valid snapshot of the final stage (otherwise  tombstones messages may be collected before a consumer completes their scan)."),
  brokerKey("log.cleaner.min.compaction.lag.ms", 'LONG', "0", true,
    "The minimum time a message will remain uncompacted in the log. Only applicable for logs that are being compacted."),
  brokerKey("log.cleaner.max.compaction.lag.ms", 'LONG', "9223372036854775807", true,
    "The maximum time a message will remain ineligible for compaction in the log. Only applicable for logs that are being compacted."),
  brokerKey("log.cleaner.min.cleanable.ratio", 'DOUBLE', "0.5", true,
    "The minimum ratio of dirty log to total log for a log to eligible for cleaning. If the log.cleaner.max.compaction.lag.ms or the log.cleaner.min.compaction.lag.ms configurations are also specified, then the log compactor considers the log eligible for compaction as soon as either: (i) the dirty ratio threshold has been met and the log has had dirty (uncompacted) records for at least the log.cleaner.min.compaction.lag.ms duration, or (ii) if the log has had dirty (uncompacted) records for at most the log.cleaner.max.compaction.lag.ms period."),
  brokerKey("log.local.retention.ms", 'LONG', "-2", true,
    "The number of milliseconds to keep the local log segments before it gets eligible for deletion. Default value is -2, it represents `log.retention.ms` value is to be used. The effective value should always be less than or equal to `log.retention.ms` value."),
  brokerKey("log.local.retention.bytes", 'LONG', "-2", true,
    "The maximum size of local log segments that can grow for a partition before it gets eligible for deletion. Default value is -2, it represents `log.retention.bytes` value to be used. The effective value should always be less than or equal to `log.retention.bytes` value."),
  brokerKey("num.recovery.threads.per.data.dir", 'INT', "1", true,
    "The number of threads per data directory to be used for log recovery at startup and flushing at shutdown"),
];

const TOPIC_KEYS = new Map(TOPIC_CONFIGS.map((k) => [k.name, k]));
const BROKER_KEYS = new Map(BROKER_CONFIGS.map((k) => [k.name, k]));

export function topicConfigKey(name: string): TopicConfigKey | undefined {
  return TOPIC_KEYS.get(name);
}

function parsedDefault(key: TopicConfigKey): ConfigValue {
  const p = parseType(key.name, key.defaultValue, key.type);
  if ('error' in p) throw new Error(`bad default for ${key.name}`);
  return p.value;
}

// ---- topic config validation (CreateTopics) --------------------------------------------------------

export interface ConfigInput {
  name: string;
  value: string | null;
}

/**
 * What the controller says about a new topic's configs: computeConfigChanges (null values), then
 * LogConfig.validate (unknown names, then every key parsed and checked in definition order, then
 * the cross-key checks). Null when they are valid.
 */
export function validateNewTopicConfigs(configs: readonly ConfigInput[]): ApiError | null {
  const nulls = configs.filter((c) => c.value === null).map((c) => c.name);
  if (nulls.length > 0) {
    return apiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`);
  }
  const given = configMap(configs);
  for (const name of given.keys()) {
    if (!TOPIC_KEYS.has(name)) return apiError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
  }
  const parsed = new Map<string, ConfigValue>();
  for (const key of TOPIC_CONFIGS) {
    const raw = given.get(key.name);
    if (raw === undefined) {
      parsed.set(key.name, parsedDefault(key));
      continue;
    }
    const p = parseType(key.name, raw, key.type);
    if ('error' in p) return apiError(ErrorCode.INVALID_CONFIG, p.error);
    const invalid = key.validator?.(key.name, p.value, key.type);
    if (invalid) return apiError(ErrorCode.INVALID_CONFIG, invalid);
    parsed.set(key.name, p.value);
  }
  const minLag = parsed.get('min.compaction.lag.ms') as bigint;
  const maxLag = parsed.get('max.compaction.lag.ms') as bigint;
  if (minLag > maxLag) {
    return apiError(
      ErrorCode.INVALID_CONFIG,
      `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`,
    );
  }
  if (parsed.get('remote.storage.enable') === true) {
    // remote.log.storage.system.enable defaults to false.
    return apiError(
      ErrorCode.INVALID_CONFIG,
      'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.',
    );
  }
  return null;
}

/** Config entries as the controller records them: one value per name, the last one given. */
function configMap(configs: readonly ConfigInput[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const c of configs) if (c.value !== null) m.set(c.name, c.value);
  return m;
}

/** A stored topic config value as LogConfig parses it and DescribeConfigs prints it. */
function normalizedTopicValue(key: TopicConfigKey, raw: string): string {
  const p = parseType(key.name, raw, key.type);
  return 'error' in p ? raw : convertToString(p.value, key.type);
}

// ---- broker settings -----------------------------------------------------------------------------

/** Kafka setting name -> kmock BrokerConfig field, for the settings kmock has. */
const KMOCK_SETTINGS: ReadonlyArray<[string, keyof BrokerConfig]> = [
  ['broker.rack', 'rack'],
  ['socket.request.max.bytes', 'socketRequestMaxBytes'],
  ['connections.max.idle.ms', 'connectionsMaxIdleMs'],
  ['auto.create.topics.enable', 'autoCreateTopicsEnable'],
  ['num.partitions', 'numPartitions'],
  ['default.replication.factor', 'defaultReplicationFactor'],
  ['log.message.timestamp.type', 'logMessageTimestampType'],
  ['delete.topic.enable', 'deleteTopicEnable'],
  ['group.initial.rebalance.delay.ms', 'groupInitialRebalanceDelayMs'],
  ['group.min.session.timeout.ms', 'groupMinSessionTimeoutMs'],
  ['group.max.session.timeout.ms', 'groupMaxSessionTimeoutMs'],
  ['group.max.size', 'groupMaxSize'],
  ['offsets.retention.minutes', 'offsetsRetentionMinutes'],
];

/**
 * The broker's static configuration (what its server.properties would hold): the settings a
 * single-node KRaft broker must have (process.roles, node.id -- which Kafka copies to broker.id --,
 * listeners, and the internal topics' replication settings that make one node work, as in Kafka's
 * config/kraft/server.properties), plus every kmock setting that differs from Kafka's default.
 */
export function staticBrokerConfigs(broker: Broker): Map<string, string> {
  const c = broker.config;
  const listenPort = c.port === 0 ? broker.advertisedPort : c.port;
  const m = new Map<string, string>([
    ['process.roles', 'broker,controller'],
    ['node.id', String(c.nodeId)],
    ['broker.id', String(c.nodeId)],
    ['listeners', `PLAINTEXT://${c.host}:${listenPort}`],
    ['advertised.listeners', `PLAINTEXT://${broker.advertisedHost}:${broker.advertisedPort}`],
    ['offsets.topic.replication.factor', '1'],
    ['transaction.state.log.replication.factor', '1'],
    ['transaction.state.log.min.isr', '1'],
  ]);
  for (const [name, field] of KMOCK_SETTINGS) {
    const v = c[field];
    if (v !== DEFAULT_CONFIG[field] && v !== null && v !== undefined) m.set(name, String(v));
  }
  return m;
}

/** DynamicBrokerConfig.brokerConfigSynonyms (without listener overrides, which kmock has none of). */
function brokerConfigSynonyms(name: string): string[] {
  switch (name) {
    case 'log.roll.ms':
    case 'log.roll.hours':
      return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms':
    case 'log.roll.jitter.hours':
      return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms':
      return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms':
    case 'log.retention.minutes':
    case 'log.retention.hours':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
    default:
      return [name];
  }
}

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/**
 * ConfigHelper.configSynonyms: the static settings, then the defaults, of every synonym of `name`,
 * with those before `name` itself dropped. (kmock has no dynamic broker configs.)
 */
function configSynonyms(staticConfigs: Map<string, string>, name: string): ConfigSynonym[] {
  const names = brokerConfigSynonyms(name);
  const all: ConfigSynonym[] = [];
  for (const n of names) {
    const v = staticConfigs.get(n);
    if (v !== undefined) all.push({ name: n, value: v, source: ConfigSource.STATIC_BROKER_CONFIG });
  }
  for (const n of names) {
    const d = BROKER_KEYS.get(n)?.defaultValue;
    if (d !== undefined && d !== null) all.push({ name: n, value: d, source: ConfigSource.DEFAULT_CONFIG });
  }
  const first = all.findIndex((s) => s.name === name);
  return first < 0 ? [] : all.slice(first);
}

// ---- DescribeConfigs entries -----------------------------------------------------------------------

export interface DescribedConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: ConfigSynonym[];
  configType: number;
  documentation: string | null;
}

function wanted(keys: readonly string[] | null): (name: string) => boolean {
  if (keys === null || keys.length === 0) return () => true;
  const set = new Set(keys);
  return (name) => set.has(name);
}

/**
 * A topic's configs as ConfigHelper.createTopicConfigEntry describes them: every topic config,
 * valued by the topic's override or else the broker's setting, with the override first among the
 * synonyms and the source of the first synonym (DEFAULT_CONFIG when there is none).
 */
export function describeTopicConfigs(
  broker: Broker,
  topic: Topic,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of [...TOPIC_CONFIGS].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!keep(key.name)) continue;
    const override = topic.configs.get(key.name);
    const brokerValue = key.serverSynonym === null ? undefined : staticConfigs.get(key.serverSynonym);
    const value =
      override !== undefined
        ? normalizedTopicValue(key, override)
        : brokerValue !== undefined
          ? normalizedTopicValue(key, brokerValue)
          : key.defaultValue;
    const synonyms = key.serverSynonym === null ? [] : configSynonyms(staticConfigs, key.serverSynonym);
    if (override !== undefined) synonyms.unshift({ name: key.name, value, source: ConfigSource.TOPIC_CONFIG });
    out.push({
      name: key.name,
      value,
      readOnly: false,
      configSource: synonyms.length > 0 ? synonyms[0].source : ConfigSource.DEFAULT_CONFIG,
      isSensitive: key.type === 'PASSWORD',
      synonyms: includeSynonyms ? synonyms : [],
      configType: CONFIG_TYPE_ID[key.type],
      documentation: includeDocumentation ? key.documentation : null,
    });
  }
  return out;
}

/**
 * The broker's own configs as ConfigHelper.createBrokerConfigEntry describes them (resource name =
 * this node's id): value, source from the synonyms, readOnly unless dynamically updatable.
 * kmock describes the settings it has plus the common ones admin tools read, not all of Kafka's.
 */
export function describeBrokerConfigs(
  broker: Broker,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of [...BROKER_CONFIGS].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!keep(key.name)) continue;
    const synonyms = configSynonyms(staticConfigs, key.name);
    const isSensitive = key.type === 'PASSWORD';
    out.push({
      name: key.name,
      value: isSensitive ? null : (staticConfigs.get(key.name) ?? key.defaultValue),
      readOnly: !key.dynamic,
      configSource: synonyms.length > 0 ? synonyms[0].source : ConfigSource.DEFAULT_CONFIG,
      isSensitive,
      synonyms: includeSynonyms ? synonyms : [],
      configType: CONFIG_TYPE_ID[key.type],
      documentation: includeDocumentation ? key.documentation : null,
    });
  }
  return out;
}

/** The loggers a broker started with Kafka's config/log4j.properties has configured, and their levels. */
export const BROKER_LOGGERS: ReadonlyArray<[string, string]> = [
  ['root', 'INFO'],
  ['kafka', 'INFO'],
  ['kafka.authorizer.logger', 'INFO'],
  ['kafka.controller', 'TRACE'],
  ['kafka.log.LogCleaner', 'INFO'],
  ['kafka.network.RequestChannel$', 'WARN'],
  ['kafka.request.logger', 'WARN'],
  ['org.apache.kafka', 'INFO'],
  ['org.apache.kafka.controller', 'INFO'],
  ['org.apache.zookeeper', 'INFO'],
  ['state.change.logger', 'INFO'],
];

/** Integer.parseInt, as Scala's String.toInt does it. */
export function parseJavaInt(text: string): number | undefined {
  const n = parseJavaInteger(text, -2147483648n, 2147483647n);
  return n === undefined ? undefined : Number(n);
}

// ---- CreateTopics --------------------------------------------------------------------------------

export interface CreatableTopicInput {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: ReadonlyArray<{ partitionIndex: number; brokerIds: readonly number[] }>;
  configs: readonly ConfigInput[];
}

export interface EffectiveTopicConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
}

export interface CreateTopicResult {
  name: string;
  error: ApiError;
  /** ZERO_UUID unless created (validateOnly still gets a fresh id, as from Kafka). */
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
  configs: EffectiveTopicConfig[];
}

/**
 * A new topic's effective configs, sorted by name (KafkaConfigSchema.resolveEffectiveTopicConfigs):
 * the value given at creation (as given), else the broker's static setting, else the default.
 */
export function effectiveTopicConfigs(broker: Broker, creation: Map<string, string>): EffectiveTopicConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  return [...TOPIC_CONFIGS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((key) => {
      let value: string | null = key.defaultValue;
      let source: number = ConfigSource.DEFAULT_CONFIG;
      const given = creation.get(key.name);
      const fromBroker = key.serverSynonym === null ? undefined : staticConfigs.get(key.serverSynonym);
      if (given !== undefined) {
        value = given;
        source = ConfigSource.TOPIC_CONFIG;
      } else if (fromBroker !== undefined) {
        value = fromBroker;
        source = ConfigSource.STATIC_BROKER_CONFIG;
      }
      return { name: key.name, value, readOnly: false, configSource: source, isSensitive: key.type === 'PASSWORD' };
    });
}

function failedCreate(name: string, error: ApiError): CreateTopicResult {
  return { name, error, topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: [] };
}

/** ReplicationControlManager.validateManualPartitionAssignment against this one broker. */
function validateManualAssignment(nodeId: number, brokerIds: readonly number[], replicationFactor?: number): ApiError | null {
  const bad = (m: string): ApiError => apiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, m);
  if (brokerIds.length === 0) return bad('The manual partition assignment includes an empty replica list.');
  const sorted = [...brokerIds].sort((a, b) => a - b);
  let prev: number | undefined;
  for (const id of sorted) {
    if (id !== nodeId) {
      return bad(`The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
    if (id === prev) return bad(`The manual partition assignment includes the broker ${prev} more than once.`);
    prev = id;
  }
  if (replicationFactor !== undefined && sorted.length !== replicationFactor) {
    return bad(
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not ` +
        `consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
  return null;
}

/** ReplicationControlManager.createTopic's checks: the partition count and replication, or why not. */
function planNewTopic(broker: Broker, t: CreatableTopicInput): ApiError | { partitions: number; replicationFactor: number } {
  const nodeId = broker.config.nodeId;
  if (t.assignments.length > 0) {
    if (t.replicationFactor !== -1) {
      return apiError(
        ErrorCode.INVALID_REQUEST,
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    }
    if (t.numPartitions !== -1) {
      return apiError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
    }
    const parts = new Map<number, number>();
    let replicationFactor: number | undefined;
    for (const a of t.assignments) {
      if (parts.has(a.partitionIndex)) {
        return apiError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `Found multiple manual partition assignments for partition ${a.partitionIndex}`,
        );
      }
      const invalid = validateManualAssignment(nodeId, a.brokerIds, replicationFactor);
      if (invalid) return invalid;
      replicationFactor = a.brokerIds.length;
      // Every registered broker (this one) is active, so the ISR is never empty here.
      parts.set(a.partitionIndex, a.brokerIds.length);
    }
    for (let i = 0; i < parts.size; i++) {
      if (!parts.has(i)) {
        return apiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
      }
    }
    return { partitions: parts.size, replicationFactor: parts.get(0) ?? replicationFactor ?? 1 };
  }
  if (t.replicationFactor < -1 || t.replicationFactor === 0) {
    return apiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  }
  if (t.numPartitions < -1 || t.numPartitions === 0) {
    return apiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
  }
  const partitions = t.numPartitions === -1 ? broker.config.numPartitions : t.numPartitions;
  // The default replication factor is a short in the controller.
  const replicationFactor = t.replicationFactor === -1 ? toShort(broker.config.defaultReplicationFactor) : t.replicationFactor;
  // StripedReplicaPlacer.place with one registered, unfenced broker.
  if (replicationFactor <= 0) {
    return apiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): Invalid replication factor ${replicationFactor}: ` +
        'the replication factor must be positive.',
    );
  }
  if (replicationFactor > 1) {
    return apiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ` +
        `${replicationFactor} cannot be reached because only 1 broker(s) are registered.`,
    );
  }
  return { partitions, replicationFactor };
}

function toShort(n: number): number {
  return ((n & 0xffff) << 16) >> 16;
}

/**
 * CreateTopics as ControllerApis.createTopics and ReplicationControlManager.createTopics answer it.
 * Results come in request order, then the duplicate names, then __cluster_metadata.
 */
export function createTopics(
  broker: Broker,
  topics: readonly CreatableTopicInput[],
  validateOnly: boolean,
  timeoutMs: number,
): CreateTopicResult[] {
  const store = broker.topics;
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const tail: CreateTopicResult[] = [];
  for (const [name, n] of counts) {
    if (n > 1) tail.push(failedCreate(name, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.')));
  }
  if (counts.get(CLUSTER_METADATA_TOPIC_NAME) === 1) {
    tail.push(
      failedCreate(
        CLUSTER_METADATA_TOPIC_NAME,
        apiError(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC_NAME} is prohibited.`),
      ),
    );
  }
  const effective = topics.filter((t) => counts.get(t.name) === 1 && t.name !== CLUSTER_METADATA_TOPIC_NAME);
  if (effective.length === 0) return tail;
  if (controllerDeadlinePassed(timeoutMs)) {
    return topics.map((t) => failedCreate(t.name, apiError(ErrorCode.REQUEST_TIMED_OUT)));
  }

  const errors = new Map<string, ApiError>();
  // validateNewTopicNames: legal name, then no '.'/'_' collision with an existing topic.
  for (const t of effective) {
    const invalid = invalidTopicNameMessage(t.name);
    if (invalid !== null) errors.set(t.name, apiError(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid));
    if (hasCollisionChars(t.name)) {
      const other = store.collision(t.name);
      if (other) {
        errors.set(
          t.name,
          apiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${t.name}' collides with existing topic: ${other.name}`),
        );
      }
    }
  }
  for (const t of effective) {
    if (store.get(t.name)) errors.set(t.name, apiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`));
  }
  // computeConfigChanges: null config values.
  for (const t of effective) {
    if (errors.has(t.name)) continue;
    const nulls = t.configs.filter((c) => c.value === null).map((c) => c.name);
    if (nulls.length > 0) {
      errors.set(t.name, apiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`));
    }
  }

  const created = new Map<string, CreateTopicResult>();
  const toCreate: Array<{ name: string; partitions: number; replicationFactor: number; configs: Map<string, string> }> = [];
  let records = 0;
  for (const t of effective) {
    if (errors.has(t.name)) continue;
    const configError = validateNewTopicConfigs(t.configs);
    if (configError) {
      errors.set(t.name, configError);
      continue;
    }
    const plan = planNewTopic(broker, t);
    if ('code' in plan) {
      errors.set(t.name, plan);
      continue;
    }
    const configs = configMap(t.configs);
    // TopicRecord + one ConfigRecord per key + one PartitionRecord per partition.
    records += 1 + configs.size + plan.partitions;
    if (records > MAX_RECORDS_PER_USER_OP) {
      const tooLarge = apiError(ErrorCode.POLICY_VIOLATION, 'Unable to perform excessively large batch operation.');
      return topics.map((x) => failedCreate(x.name, tooLarge));
    }
    toCreate.push({ name: t.name, partitions: plan.partitions, replicationFactor: plan.replicationFactor, configs });
    created.set(t.name, {
      name: t.name,
      error: NO_ERROR,
      // The controller draws an id even when it only validates.
      topicId: randomUuid(),
      numPartitions: plan.partitions,
      replicationFactor: plan.replicationFactor,
      configs: effectiveTopicConfigs(broker, configs),
    });
  }
  if (!validateOnly) {
    for (const c of toCreate) {
      // Stored as LogConfig parses them (trimmed, lists joined with ','), so readers of
      // Topic.configs see clean values; the CreateTopics answer above keeps them as given.
      const normalized = new Map([...c.configs].map(([k, v]) => [k, normalizedTopicValue(TOPIC_KEYS.get(k)!, v)]));
      const topic = store.create(c.name, c.partitions, c.replicationFactor, normalized);
      created.get(c.name)!.topicId = topic.id;
      broker.log.info({ topic: c.name, partitions: c.partitions }, 'topic created');
    }
  }
  const results = effective.map((t) => created.get(t.name) ?? failedCreate(t.name, errors.get(t.name)!));
  return [...results, ...tail];
}

// ---- DeleteTopics --------------------------------------------------------------------------------

export interface DeleteTopicResult {
  name: string | null;
  topicId: string;
  error: ApiError;
}

/** Told the partitions of each deleted topic (e.g. GroupCoordinator.onPartitionsDeleted). */
export type TopicDeletedHook = (partitions: Array<{ topic: string; partition: number }>) => void;

const deletionHooks = new WeakMap<Broker, TopicDeletedHook[]>();

/**
 * Registers what must follow a topic deletion. In Kafka the group coordinator drops the committed
 * offsets of deleted partitions (BrokerMetadataPublisher -> GroupCoordinator.onPartitionsDeleted);
 * whoever wires the coordinator to the broker registers that here.
 */
export function onTopicDeleted(broker: Broker, hook: TopicDeletedHook): void {
  const hooks = deletionHooks.get(broker);
  if (hooks) hooks.push(hook);
  else deletionHooks.set(broker, [hook]);
}

/**
 * Removes a topic and its partitions. Like Kafka's ReplicaManager when it stops deleted
 * partitions (completeDelayedFetchOrProduceRequests), fetches waiting on them are woken so they
 * answer now instead of at their max wait; then the deletion hooks run.
 */
export function removeTopic(broker: Broker, topic: Topic): void {
  if (broker.topics.get(topic.name) !== topic) return;
  broker.topics.delete(topic.name);
  const count = topic.partitions.length;
  topic.partitions.splice(0);
  for (let p = 0; p < count; p++) broker.fetchWaiters.notify(topic.name, p);
  const partitions = Array.from({ length: count }, (_, partition) => ({ topic: topic.name, partition }));
  for (const hook of deletionHooks.get(broker) ?? []) hook(partitions);
  broker.log.info({ topic: topic.name, partitions: count }, 'topic deleted');
}

/**
 * DeleteTopics as ControllerApis.deleteTopics answers it: `topicNames` (v0-5) and `topics`
 * (v6, by name or by id). Kafka shuffles the results; kmock keeps them in request order.
 */
export function deleteTopics(
  broker: Broker,
  topicNames: readonly string[],
  topics: ReadonlyArray<{ name: string | null; topicId: string }>,
  apiVersion: number,
  timeoutMs: number,
): DeleteTopicResult[] {
  const requested = [...topicNames.map((name) => ({ name: name as string | null, topicId: ZERO_UUID })), ...topics];
  if (!broker.config.deleteTopicEnable) {
    // Thrown before anything else; the error response carries no message.
    const code = apiVersion < 3 ? ErrorCode.INVALID_REQUEST : ErrorCode.TOPIC_DELETION_DISABLED;
    return requested.map((t) => ({ name: t.name, topicId: t.topicId, error: apiError(code) }));
  }
  const responses: DeleteTopicResult[] = [];
  const append = (name: string | null, topicId: string, error: ApiError): void => {
    responses.push({ name, topicId, error });
  };
  const providedNames = new Set<string>();
  const duplicateNames = new Set<string>();
  const providedIds = new Set<string>();
  const duplicateIds = new Set<string>();
  const addName = (name: string): void => {
    if (duplicateNames.has(name) || providedNames.has(name)) {
      duplicateNames.add(name);
      providedNames.delete(name);
    } else providedNames.add(name);
  };
  for (const name of topicNames) addName(name);
  for (const t of topics) {
    if (t.name === null) {
      if (t.topicId === ZERO_UUID) append(null, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'));
      else if (duplicateIds.has(t.topicId) || providedIds.has(t.topicId)) {
        duplicateIds.add(t.topicId);
        providedIds.delete(t.topicId);
      } else providedIds.add(t.topicId);
    } else if (t.topicId === ZERO_UUID) addName(t.name);
    else append(t.name, t.topicId, apiError(ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'));
  }
  for (const name of duplicateNames) append(name, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
  for (const id of duplicateIds) append(null, id, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'));
  if ((providedIds.size > 0 || providedNames.size > 0) && controllerDeadlinePassed(timeoutMs)) {
    return requested.map((t) => ({ name: t.name, topicId: t.topicId, error: apiError(ErrorCode.REQUEST_TIMED_OUT) }));
  }
  const idToTopic = new Map<string, Topic>();
  for (const id of providedIds) {
    const t = broker.topics.getById(id);
    if (t) idToTopic.set(id, t);
    else append(null, id, apiError(ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.'));
  }
  for (const name of providedNames) {
    const t = broker.topics.get(name);
    if (!t) {
      // new ApiError(UNKNOWN_TOPIC_OR_PARTITION) carries the error's default text (conformance run vs 3.9.1).
      append(name, ZERO_UUID, apiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'));
    } else if (duplicateIds.has(t.id) || idToTopic.has(t.id)) {
      duplicateIds.add(t.id);
      idToTopic.delete(t.id);
      append(name, t.id, apiError(ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'));
    } else idToTopic.set(t.id, t);
  }
  for (const [id, t] of idToTopic) {
    removeTopic(broker, t);
    append(t.name, id, NO_ERROR);
  }
  // Request order: by the first request entry naming the topic (by name or by id).
  const position = (r: DeleteTopicResult): number => {
    const i = requested.findIndex(
      (q) =>
        (r.name !== null && q.name === r.name) ||
        (r.topicId !== ZERO_UUID && q.topicId === r.topicId) ||
        (r.name === null && r.topicId === ZERO_UUID && q.name === null && q.topicId === ZERO_UUID),
    );
    return i < 0 ? requested.length : i;
  };
  return responses.map((r, i) => ({ r, p: position(r), i })).sort((a, b) => a.p - b.p || a.i - b.i).map((x) => x.r);
}

// ---- CreatePartitions ----------------------------------------------------------------------------

export interface CreatePartitionsInput {
  name: string;
  count: number;
  assignments: ReadonlyArray<{ brokerIds: readonly number[] }> | null;
}

export interface CreatePartitionsResult {
  name: string;
  error: ApiError;
}

/**
 * CreatePartitions as ControllerApis.createPartitions and ReplicationControlManager.createPartitions
 * answer it. Duplicate names come first, then the topics in request order.
 */
export function createPartitions(
  broker: Broker,
  topics: readonly CreatePartitionsInput[],
  validateOnly: boolean,
  timeoutMs: number,
): CreatePartitionsResult[] {
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const results: CreatePartitionsResult[] = [];
  for (const [name, n] of counts) {
    if (n > 1) results.push({ name, error: apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.') });
  }
  const unique = topics.filter((t) => counts.get(t.name) === 1);
  if (unique.length === 0) return results;
  if (controllerDeadlinePassed(timeoutMs)) {
    return topics.map((t) => ({ name: t.name, error: apiError(ErrorCode.REQUEST_TIMED_OUT) }));
  }
  let recordBudget = MAX_RECORDS_PER_USER_OP;
  for (const t of unique) {
    const fail = (code: number, message: string | null = null): void => {
      results.push({ name: t.name, error: apiError(code, message) });
    };
    const topic = broker.topics.get(t.name);
    if (!topic) {
      fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      continue;
    }
    const size = topic.partitions.length;
    if (t.count === size) {
      fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${size} partition(s).`);
      continue;
    }
    if (t.count < size) {
      fail(ErrorCode.INVALID_PARTITIONS, `The topic ${t.name} currently has ${size} partition(s); ${t.count} would not be an increase.`);
      continue;
    }
    const additional = t.count - size;
    if (t.assignments !== null && t.assignments.length !== additional) {
      fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Attempted to add ${additional} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`,
      );
      continue;
    }
    // Every partition kmock has is on this one broker: one replica.
    const replicationFactor = 1;
    let invalid: ApiError | null = null;
    for (const a of t.assignments ?? []) {
      invalid = validateManualAssignment(broker.config.nodeId, a.brokerIds, replicationFactor);
      if (invalid) break;
    }
    if (invalid) {
      results.push({ name: t.name, error: invalid });
      continue;
    }
    // One PartitionRecord per new partition. Past the controller's record limit the records
    // already added stay in the batch and the topic's result is the unexpected error.
    const fits = Math.min(additional, recordBudget);
    recordBudget -= fits;
    if (!validateOnly && fits > 0) {
      topic.addPartitions(size + fits);
      broker.log.info({ topic: t.name, partitions: size + fits }, 'partitions added');
    }
    if (fits < additional) fail(ErrorCode.UNKNOWN_SERVER_ERROR);
    else results.push({ name: t.name, error: NO_ERROR });
  }
  return results;
}
