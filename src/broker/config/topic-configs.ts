// The Kafka 3.9 topic config catalog: every topic-level config (LogConfig's ConfigDef), one entry
// each with its type, default, validator, the broker setting that supplies its default and its
// documentation, so that one entry is enough to look a config up, check a value for it and
// describe it. Also LogConfig.validate, which CreateTopics (and later AlterConfigs) runs on a
// topic's overrides, and the normalised form LogConfig stores a value in.
// The keys, defaults, validators and documentation strings are Kafka 3.9's (storage/.../log/
// LogConfig.java, clients/.../common/config/TopicConfig.java, ServerTopicConfigSynonyms.java,
// CompressionType.java, MetadataVersionValidator; Apache License 2.0).
import {
  atLeast,
  between,
  configException,
  convertToString,
  parseType,
  validList,
  validString,
  type ConfigType,
  type ConfigValue,
  type Parsed,
  type Validator,
} from './config-def.js';
import { javaHashOrder } from './java-hash.js';
import { javaTrim } from './java-values.js';

// ---- Kafka's own validators ----------------------------------------------------------------------

/** CompressionType.GZIP.levelValidator(). */
export const gzipLevel: Validator = (name, value) => {
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

// ---- the catalog ---------------------------------------------------------------------------------

/**
 * One topic config: its name to look it up by, its type and validator to check a value with
 * (parseTopicConfigValue), and its default, broker synonym and documentation to describe it.
 */
export interface TopicConfigKey {
  name: string;
  type: ConfigType;
  /** The default as ConfigDef.convertToString gives it. */
  defaultValue: string;
  /** The ConfigDef validator LogConfig gives the key, applied after parsing; null when it has none. */
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

const TOPIC_KEYS = new Map(TOPIC_CONFIGS.map((k) => [k.name, k]));

export function topicConfigKey(name: string): TopicConfigKey | undefined {
  return TOPIC_KEYS.get(name);
}

function parsedDefault(key: TopicConfigKey): ConfigValue {
  const p = parseType(key.name, key.defaultValue, key.type);
  if ('error' in p) throw new Error(`bad default for ${key.name}`);
  return p.value;
}

// ---- checking and normalising values -------------------------------------------------------------

/** One value for `key` as LogConfig checks it: ConfigDef.parseType, then the key's validator. */
export function parseTopicConfigValue(key: TopicConfigKey, raw: string): Parsed {
  const p = parseType(key.name, raw, key.type);
  if ('error' in p) return p;
  const invalid = key.validator?.(key.name, p.value, key.type);
  return invalid ? { error: invalid } : p;
}

/**
 * LogConfig.validate on a topic's overrides (one value per name), as the controller runs it for
 * CreateTopics and AlterConfigs: unknown names first (in the order of the java.util.Properties
 * they are read from), then every key parsed and checked in definition order (the given value,
 * else the broker's value for it -- KafkaConfig.extractLogConfigMap, `brokerValue` -- else the
 * default), then the cross-key checks. The ConfigException message, or null when they are valid.
 */
export function validateTopicConfigs(given: ReadonlyMap<string, string>, brokerValue?: (name: string) => string | undefined): string | null {
  for (const name of javaHashOrder(given.keys())) {
    if (!TOPIC_KEYS.has(name)) return `Unknown topic config name: ${name}`;
  }
  const parsed = new Map<string, ConfigValue>();
  for (const key of TOPIC_CONFIGS) {
    const raw = given.get(key.name);
    if (raw === undefined) {
      const fromBroker = brokerValue?.(key.name);
      const p = fromBroker === undefined ? undefined : parseType(key.name, fromBroker, key.type);
      parsed.set(key.name, p !== undefined && !('error' in p) ? p.value : parsedDefault(key));
      continue;
    }
    const p = parseTopicConfigValue(key, raw);
    if ('error' in p) return p.error;
    parsed.set(key.name, p.value);
  }
  const minLag = parsed.get('min.compaction.lag.ms') as bigint;
  const maxLag = parsed.get('max.compaction.lag.ms') as bigint;
  if (minLag > maxLag) {
    return `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`;
  }
  if (parsed.get('remote.storage.enable') === true) {
    // remote.log.storage.system.enable defaults to false.
    return 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.';
  }
  return null;
}

/** A stored topic config value as LogConfig parses it and DescribeConfigs prints it. */
export function normalizedTopicValue(key: TopicConfigKey, raw: string): string {
  const p = parseType(key.name, raw, key.type);
  return 'error' in p ? raw : convertToString(p.value, key.type);
}
