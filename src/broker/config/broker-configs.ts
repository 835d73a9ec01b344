// The Kafka 3.9 broker configs kmock knows: a subset of KafkaConfig's ConfigDef (every setting kmock
// has, every broker synonym of a topic config, and common read-only ones), one entry each with its
// type, default, whether Kafka can change it at runtime, the kmock setting (BrokerConfig field)
// that holds it, and its documentation. The entries with a `setting` are kmock's one map from
// Kafka setting names to its own: config.ts derives KAFKA_SETTING_NAMES (`--set`, config files)
// from them and DescribeConfigs reads the broker's values through them.
// The keys, types, defaults and documentation strings are Kafka 3.9's (ServerConfigs,
// ServerLogConfigs, SocketServerConfigs, KRaftConfigs, ReplicationConfigs, GroupCoordinatorConfig,
// TransactionLogConfig, CleanerConfig, RemoteLogManagerConfig, DynamicBrokerConfig.AllDynamicConfigs
// for `dynamic`; Apache License 2.0).
import type { BrokerConfig } from '../config.js';
import type { ConfigType } from './config-def.js';

export interface BrokerConfigKey {
  name: string;
  type: ConfigType;
  /** KafkaConfig's default as text, or null when it has none. */
  defaultValue: string | null;
  /** In DynamicBrokerConfig.AllDynamicConfigs (then DescribeConfigs says readOnly=false). */
  dynamic: boolean;
  /** The BrokerConfig field that holds this setting in kmock, or null when kmock has no such setting. */
  setting: keyof BrokerConfig | null;
  documentation: string;
}

/** How kmock and Kafka treat a broker config besides its type and default. */
interface BrokerKeyTraits {
  dynamic?: boolean;
  setting?: keyof BrokerConfig;
}

/** Read-only in Kafka (changed only by a restart), not a kmock setting. */
const READ_ONLY: BrokerKeyTraits = {};
/** Dynamically updatable in Kafka, not a kmock setting. */
const DYNAMIC: BrokerKeyTraits = { dynamic: true };

function brokerKey(name: string, type: ConfigType, defaultValue: string | null, traits: BrokerKeyTraits, documentation: string): BrokerConfigKey {
  return { name, type, defaultValue, dynamic: traits.dynamic ?? false, setting: traits.setting ?? null, documentation };
}

/**
 * The broker configs kmock describes (a subset of KafkaConfig: every setting kmock has, every
 * broker synonym of a topic config, and common read-only ones), with Kafka 3.9 types and defaults.
 */
export const BROKER_CONFIGS: readonly BrokerConfigKey[] = [
  brokerKey("process.roles", 'LIST', "", READ_ONLY,
    "The roles that this process plays: 'broker', 'controller', or 'broker,controller' if it is both. This configuration is only applicable for clusters in KRaft (Kafka Raft) mode (instead of ZooKeeper). Leave this config undefined or empty for ZooKeeper clusters."),
  brokerKey("node.id", 'INT', "-1", { setting: 'nodeId' },
    "The node ID associated with the roles this process is playing when <code>process.roles</code> is non-empty. This is required configuration when running in KRaft mode."),
  brokerKey("broker.id", 'INT', "-1", READ_ONLY,
    "The broker id for this server. If unset, a unique broker id will be generated.To avoid conflicts between ZooKeeper generated broker id's and user configured broker id's, generated broker ids start from reserved.broker.max.id + 1."),
  brokerKey("listeners", 'STRING', "PLAINTEXT://:9092", DYNAMIC,
    "Listener List - Comma-separated list of URIs we will listen on and the listener names. If the listener name is not a security protocol, <code>listener.security.protocol.map</code> must also be set.\n Listener names and port numbers must be unique unless %n one listener is an IPv4 address and the other listener is %n an IPv6 address (for the same port).%n Specify hostname as 0.0.0.0 to bind to all interfaces.%n Leave hostname empty to bind to default interface.%n Examples of legal listener lists:%n <code>PLAINTEXT://myhost:9092,SSL://:9091</code>%n <code>CLIENT://0.0.0.0:9092,REPLICATION://localhost:9093</code>%n <code>PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092</code>%n"),
  brokerKey("advertised.listeners", 'STRING', null, DYNAMIC,
    "Listeners to publish to ZooKeeper for clients to use, if different than the <code>listeners</code> config property. In IaaS environments, this may need to be different from the interface to which the broker binds. If this is not set, the value for <code>listeners</code> will be used. Unlike <code>listeners</code>, it is not valid to advertise the 0.0.0.0 meta-address.\n Also unlike <code>listeners</code>, there can be duplicated ports in this property, so that one listener can be configured to advertise another listener's address. This can be useful in some cases where external load balancers are used."),
  brokerKey("listener.security.protocol.map", 'STRING', "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT", DYNAMIC,
    "Map between listener names and security protocols. This must be defined for the same security protocol to be usable in more than one port or IP. For example, internal and external traffic can be separated even if SSL is required for both. Concretely, the user could define listeners with names INTERNAL and EXTERNAL and this property as: <code>INTERNAL:SSL,EXTERNAL:SSL</code>. As shown, key and value are separated by a colon and map entries are separated by commas. Each listener name should only appear once in the map. Different security (SSL and SASL) settings can be configured for each listener by adding a normalised prefix (the listener name is lowercased) to the config name. For example, to set a different keystore for the INTERNAL listener, a config with name <code>listener.name.internal.ssl.keystore.location</code> would be set. If the config for the listener name is not set, the config will fallback to the generic config (i.e. <code>ssl.keystore.location</code>). Note that in KRaft a default mapping from the listener names defined by <code>controller.listener.names</code> to PLAINTEXT is assumed if no explicit mapping is provided and no other security protocol is in use."),
  brokerKey("broker.rack", 'STRING', null, { setting: 'rack' },
    "Rack of the broker. This will be used in rack aware replication assignment for fault tolerance. Examples: <code>RACK1</code>, <code>us-east-1d</code>"),
  brokerKey("socket.request.max.bytes", 'INT', "104857600", { setting: 'socketRequestMaxBytes' },
    "The maximum number of bytes in a socket request"),
  brokerKey("connections.max.idle.ms", 'LONG', "600000", { setting: 'connectionsMaxIdleMs' },
    "Idle connections timeout: the server socket processor threads close the connections that idle more than this"),
  brokerKey("socket.send.buffer.bytes", 'INT', "102400", READ_ONLY,
    "The SO_SNDBUF buffer of the socket server sockets. If the value is -1, the OS default will be used."),
  brokerKey("socket.receive.buffer.bytes", 'INT', "102400", READ_ONLY,
    "The SO_RCVBUF buffer of the socket server sockets. If the value is -1, the OS default will be used."),
  // Dynamic: DynamicThreadPool.ReconfigurableConfigs (num.io.threads, num.network.threads,
  // num.replica.fetchers, num.recovery.threads.per.data.dir, background.threads) is part of
  // DynamicBrokerConfig.AllDynamicConfigs, so ConfigHelper.createBrokerConfigEntry says readOnly=false.
  brokerKey("num.network.threads", 'INT', "3", DYNAMIC,
    "The number of threads that the server uses for receiving requests from the network and sending responses to the network. Noted: each listener (except for controller listener) creates its own thread pool."),
  brokerKey("num.io.threads", 'INT', "8", DYNAMIC,
    "The number of threads that the server uses for processing requests, which may include disk I/O"),
  brokerKey("queued.max.requests", 'INT', "500", READ_ONLY,
    "The number of queued requests allowed for data-plane, before blocking the network threads"),
  brokerKey("queued.max.request.bytes", 'LONG', "-1", { setting: 'queuedMaxRequestBytes' },
    "The number of queued bytes allowed before no more requests are read"),
  brokerKey("request.timeout.ms", 'INT', "30000", READ_ONLY,
    "The configuration controls the maximum amount of time the client will wait for the response of a request. If the response is not received before the timeout elapses the client will resend the request if necessary or fail the request if retries are exhausted."),
  brokerKey("background.threads", 'INT', "10", DYNAMIC,
    "The number of threads to use for various background processing tasks"),
  brokerKey("auto.create.topics.enable", 'BOOLEAN', "true", { setting: 'autoCreateTopicsEnable' },
    "Enable auto creation of topic on the server."),
  brokerKey("num.partitions", 'INT', "1", { setting: 'numPartitions' },
    "The default number of log partitions per topic"),
  brokerKey("default.replication.factor", 'INT', "1", { setting: 'defaultReplicationFactor' },
    "The replication factor for automatically created topics, and for topics created with -1 as the replication factor"),
  brokerKey("delete.topic.enable", 'BOOLEAN', "true", { setting: 'deleteTopicEnable' },
    "Enables delete topic. Delete topic through the admin tool will have no effect if this config is turned off"),
  brokerKey("group.initial.rebalance.delay.ms", 'INT', "3000", { setting: 'groupInitialRebalanceDelayMs' },
    "The amount of time the group coordinator will wait for more consumers to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances, but increases the time until processing begins."),
  brokerKey("group.min.session.timeout.ms", 'INT', "6000", { setting: 'groupMinSessionTimeoutMs' },
    "The minimum allowed session timeout for registered consumers. Shorter timeouts result in quicker failure detection at the cost of more frequent consumer heartbeating, which can overwhelm broker resources."),
  brokerKey("group.max.session.timeout.ms", 'INT', "1800000", { setting: 'groupMaxSessionTimeoutMs' },
    "The maximum allowed session timeout for registered consumers. Longer timeouts give consumers more time to process messages in between heartbeats at the cost of a longer time to detect failures."),
  brokerKey("group.max.size", 'INT', "2147483647", { setting: 'groupMaxSize' },
    "The maximum number of consumers that a single consumer group can accommodate."),
  brokerKey("offsets.retention.minutes", 'INT', "10080", { setting: 'offsetsRetentionMinutes' },
    "For subscribed consumers, committed offset of a specific partition will be expired and discarded when 1) this retention period has elapsed after the consumer group loses all its consumers (i.e. becomes empty); 2) this retention period has elapsed since the last time an offset is committed for the partition and the group is no longer subscribed to the corresponding topic. For standalone consumers (using manual assignment), offsets will be expired after this retention period has elapsed since the time of last commit. Note that when a group is deleted via the delete-group request, its committed offsets will also be deleted without extra retention period; also when a topic is deleted via the delete-topic request, upon propagated metadata update any group's committed offsets for that topic will also be deleted without extra retention period."),
  brokerKey("offsets.topic.replication.factor", 'SHORT', "3", READ_ONLY,
    "The replication factor for the offsets topic (set higher to ensure availability). Internal topic creation will fail until the cluster size meets this replication factor requirement."),
  brokerKey("offsets.topic.num.partitions", 'INT', "50", READ_ONLY,
    "The number of partitions for the offset commit topic (should not change after deployment)."),
  brokerKey("transaction.state.log.replication.factor", 'SHORT', "3", READ_ONLY,
    "The replication factor for the transaction topic (set higher to ensure availability). Internal topic creation will fail until the cluster size meets this replication factor requirement."),
  brokerKey("transaction.state.log.min.isr", 'INT', "2", READ_ONLY,
    "The minimum number of replicas that must acknowledge a write to transaction topic in order to be considered successful."),
  brokerKey("transaction.max.timeout.ms", 'INT', "900000", { setting: 'transactionMaxTimeoutMs' },
    "The maximum allowed timeout for transactions. If a client’s requested transaction time exceed this, then the broker will return an error in InitProducerIdRequest. This prevents a client from too large of a timeout, which can stall consumers reading from topics included in the transaction."),
  brokerKey("transactional.id.expiration.ms", 'INT', "604800000", { setting: 'transactionalIdExpirationMs' },
    "The time in ms that the transaction coordinator will wait without receiving any transaction status updates for the current transaction before expiring its transactional id. Transactional IDs will not expire while a the transaction is still ongoing."),
  brokerKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", 'INT', "10000", { setting: 'transactionAbortTimedOutTransactionCleanupIntervalMs' },
    "The interval at which to rollback transactions that have timed out"),
  brokerKey("transaction.remove.expired.transaction.cleanup.interval.ms", 'INT', "3600000", { setting: 'transactionRemoveExpiredTransactionCleanupIntervalMs' },
    "The interval at which to remove transactions that have expired due to <code>transactional.id.expiration.ms</code> passing"),
  brokerKey("transaction.partition.verification.enable", 'BOOLEAN', "true", { dynamic: true, setting: 'transactionPartitionVerificationEnable' },
    "Enable verification that checks that the partition has been added to the transaction before writing transactional records to the partition"),
  brokerKey("auto.leader.rebalance.enable", 'BOOLEAN', "true", READ_ONLY,
    "Enables auto leader balancing. A background thread checks the distribution of partition leaders at regular intervals, configurable by leader.imbalance.check.interval.seconds. If the leader imbalance exceeds leader.imbalance.per.broker.percentage, leader rebalance to the preferred leader for partitions is triggered."),
  brokerKey("replica.fetch.max.bytes", 'INT', "1048576", READ_ONLY,
    "The number of bytes of messages to attempt to fetch for each partition. This is not an absolute maximum, if the first record batch in the first non-empty partition of the fetch is larger than this value, the record batch will still be returned to ensure that progress can be made. The maximum record batch size accepted by the broker is defined via <code>message.max.bytes</code> (broker config) or <code>max.message.bytes</code> (topic config)."),
  brokerKey("message.max.bytes", 'INT', "1048588", { dynamic: true, setting: 'messageMaxBytes' },
    "The largest record batch size allowed by Kafka (after compression if compression is enabled). If this is increased and there are consumers older than 0.10.2, the consumers' fetch size must also be increased so that they can fetch record batches this large. In the latest message format version, records are always grouped into batches for efficiency. In previous message format versions, uncompressed records are not grouped into batches and this limit only applies to a single record in that case.This can be set per topic with the topic level <code>max.message.bytes</code> config."),
  brokerKey("min.insync.replicas", 'INT', "1", { dynamic: true, setting: 'minInsyncReplicas' },
    "When a producer sets acks to \"all\" (or \"-1\"), <code>min.insync.replicas</code> specifies the minimum number of replicas that must acknowledge a write for the write to be considered successful. If this minimum cannot be met, then the producer will raise an exception (either <code>NotEnoughReplicas</code> or <code>NotEnoughReplicasAfterAppend</code>).<br>When used together, <code>min.insync.replicas</code> and acks allow you to enforce greater durability guarantees. A typical scenario would be to create a topic with a replication factor of 3, set <code>min.insync.replicas</code> to 2, and produce with acks of \"all\". This will ensure that the producer raises an exception if a majority of replicas do not receive a write."),
  brokerKey("compression.type", 'STRING', "producer", { dynamic: true, setting: 'compressionType' },
    "Specify the final compression type for a given topic. This configuration accepts the standard compression codecs ('gzip', 'snappy', 'lz4', 'zstd'). It additionally accepts 'uncompressed' which is equivalent to no compression; and 'producer' which means retain the original compression codec set by the producer."),
  brokerKey("compression.gzip.level", 'INT', "-1", DYNAMIC,
    "The compression level to use if compression.type is set to 'gzip'."),
  brokerKey("compression.lz4.level", 'INT', "9", DYNAMIC,
    "The compression level to use if compression.type is set to 'lz4'."),
  brokerKey("compression.zstd.level", 'INT', "3", DYNAMIC,
    "The compression level to use if compression.type is set to 'zstd'."),
  brokerKey("unclean.leader.election.enable", 'BOOLEAN', "false", DYNAMIC,
    "Indicates whether to enable replicas not in the ISR set to be elected as leader as a last resort, even though doing so may result in data loss<p>Note: In KRaft mode, when enabling this config dynamically, it needs to wait for the unclean leader election thread to trigger election periodically (default is 5 minutes). Please run `kafka-leader-election.sh` with `unclean` option to trigger the unclean leader election immediately if needed.</p>"),
  brokerKey("log.dir", 'STRING', "/tmp/kafka-logs", { setting: 'logDir' },
    "The directory in which the log data is kept (supplemental for log.dirs property)"),
  brokerKey("log.dirs", 'STRING', null, { setting: 'logDirs' },
    "A comma-separated list of the directories where the log data is stored. If not set, the value in log.dir is used."),
  brokerKey("log.segment.bytes", 'INT', "1073741824", { dynamic: true, setting: 'logSegmentBytes' },
    "The maximum size of a single log file"),
  brokerKey("log.roll.ms", 'LONG', null, { dynamic: true, setting: 'logRollMs' },
    "The maximum time before a new log segment is rolled out (in milliseconds). If not set, the value in log.roll.hours is used"),
  brokerKey("log.roll.hours", 'INT', "168", { setting: 'logRollHours' },
    "The maximum time before a new log segment is rolled out (in hours), secondary to log.roll.ms property"),
  brokerKey("log.roll.jitter.ms", 'LONG', null, { dynamic: true, setting: 'logRollJitterMs' },
    "The maximum jitter to subtract from logRollTimeMillis (in milliseconds). If not set, the value in log.roll.jitter.hours is used"),
  brokerKey("log.roll.jitter.hours", 'INT', "0", { setting: 'logRollJitterHours' },
    "The maximum jitter to subtract from logRollTimeMillis (in hours), secondary to log.roll.jitter.ms property"),
  brokerKey("log.retention.ms", 'LONG', null, { dynamic: true, setting: 'logRetentionMs' },
    "The number of milliseconds to keep a log file before deleting it (in milliseconds), If not set, the value in log.retention.minutes is used. If set to -1, no time limit is applied."),
  brokerKey("log.retention.minutes", 'INT', null, { setting: 'logRetentionMinutes' },
    "The number of minutes to keep a log file before deleting it (in minutes), secondary to log.retention.ms property. If not set, the value in log.retention.hours is used"),
  brokerKey("log.retention.hours", 'INT', "168", { setting: 'logRetentionHours' },
    "The number of hours to keep a log file before deleting it (in hours), tertiary to log.retention.ms property"),
  brokerKey("log.retention.bytes", 'LONG', "-1", { dynamic: true, setting: 'logRetentionBytes' },
    "The maximum size of the log before deleting it"),
  brokerKey("log.retention.check.interval.ms", 'LONG', "300000", { setting: 'logRetentionCheckIntervalMs' },
    "The frequency in milliseconds that the log cleaner checks whether any log is eligible for deletion"),
  brokerKey("log.cleanup.policy", 'LIST', "delete", { dynamic: true, setting: 'logCleanupPolicy' },
    "The default cleanup policy for segments beyond the retention window. A comma separated list of valid policies. Valid policies are: \"delete\" and \"compact\""),
  brokerKey("log.index.size.max.bytes", 'INT', "10485760", { dynamic: true, setting: 'logIndexSizeMaxBytes' },
    "The maximum size in bytes of the offset index"),
  brokerKey("log.index.interval.bytes", 'INT', "4096", { dynamic: true, setting: 'logIndexIntervalBytes' },
    "The interval with which we add an entry to the offset index."),
  brokerKey("log.flush.interval.messages", 'LONG', "9223372036854775807", { dynamic: true, setting: 'logFlushIntervalMessages' },
    "The number of messages accumulated on a log partition before messages are flushed to disk."),
  brokerKey("log.flush.interval.ms", 'LONG', null, { dynamic: true, setting: 'logFlushIntervalMs' },
    "The maximum time in ms that a message in any topic is kept in memory before flushed to disk. If not set, the value in log.flush.scheduler.interval.ms is used"),
  brokerKey("log.flush.scheduler.interval.ms", 'LONG', "9223372036854775807", { setting: 'logFlushSchedulerIntervalMs' },
    "The frequency in ms that the log flusher checks whether any log needs to be flushed to disk"),
  brokerKey("log.segment.delete.delay.ms", 'LONG', "60000", { dynamic: true, setting: 'logSegmentDeleteDelayMs' },
    "The amount of time to wait before deleting a file from the filesystem. If the value is 0 and there is no file to delete, the system will wait 1 millisecond. Low value will cause busy waiting"),
  brokerKey("log.preallocate", 'BOOLEAN', "false", DYNAMIC,
    "Should pre allocate file when create new segment? If you are using Kafka on Windows, you probably need to set it to true."),
  brokerKey("log.message.format.version", 'STRING', "3.0-IV1", READ_ONLY,
    "Specify the message format version the broker will use to append messages to the logs. The value should be a valid MetadataVersion. Some examples are: 0.8.2, 0.9.0.0, 0.10.0, check MetadataVersion for more details. By setting a particular message format version, the user is certifying that all the existing messages on disk are smaller or equal than the specified version. Setting this value incorrectly will cause consumers with older versions to break as they will receive messages with a format that they don't understand."),
  brokerKey("log.message.timestamp.type", 'STRING', "CreateTime", { dynamic: true, setting: 'logMessageTimestampType' },
    "Define whether the timestamp in the message is message create time or log append time. The value should be either <code>CreateTime</code> or <code>LogAppendTime</code>."),
  brokerKey("log.message.timestamp.difference.max.ms", 'LONG', "9223372036854775807", DYNAMIC,
    "[DEPRECATED] The maximum difference allowed between the timestamp when a broker receives a message and the timestamp specified in the message. If log.message.timestamp.type=CreateTime, a message will be rejected if the difference in timestamp exceeds this threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime.The maximum timestamp difference allowed should be no greater than log.retention.ms to avoid unnecessarily frequent log rolling."),
  brokerKey("log.message.timestamp.before.max.ms", 'LONG', "9223372036854775807", DYNAMIC,
    "This configuration sets the allowable timestamp difference between the broker's timestamp and the message timestamp. The message timestamp can be earlier than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime."),
  brokerKey("log.message.timestamp.after.max.ms", 'LONG', "9223372036854775807", DYNAMIC,
    "This configuration sets the allowable timestamp difference between the message timestamp and the broker's timestamp. The message timestamp can be later than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime."),
  brokerKey("log.message.downconversion.enable", 'BOOLEAN', "true", DYNAMIC,
    "This configuration controls whether down-conversion of message formats is enabled to satisfy consume requests. When set to <code>false</code>, broker will not perform down-conversion for consumers expecting an older message format. The broker responds with <code>UNSUPPORTED_VERSION</code> error for consume requests from such older clients. This configurationdoes not apply to any message format conversion that might be required for replication to followers."),
  brokerKey("log.cleaner.enable", 'BOOLEAN', "true", { setting: 'logCleanerEnable' },
    "Enable the log cleaner process to run on the server. Should be enabled if using any topics with a cleanup.policy=compact including the internal offsets topic. If disabled those topics will not be compacted and continually grow in size."),
  brokerKey("log.cleaner.delete.retention.ms", 'LONG', "86400000", { dynamic: true, setting: 'logCleanerDeleteRetentionMs' },
    "The amount of time to retain tombstone message markers for log compacted topics. This setting also gives a bound on the time in which a consumer must complete a read if they begin from offset 0 to ensure that they get a valid snapshot of the final stage (otherwise  tombstones messages may be collected before a consumer completes their scan)."),
  brokerKey("log.cleaner.min.compaction.lag.ms", 'LONG', "0", { dynamic: true, setting: 'logCleanerMinCompactionLagMs' },
    "The minimum time a message will remain uncompacted in the log. Only applicable for logs that are being compacted."),
  brokerKey("log.cleaner.max.compaction.lag.ms", 'LONG', "9223372036854775807", { dynamic: true, setting: 'logCleanerMaxCompactionLagMs' },
    "The maximum time a message will remain ineligible for compaction in the log. Only applicable for logs that are being compacted."),
  brokerKey("log.cleaner.min.cleanable.ratio", 'DOUBLE', "0.5", { dynamic: true, setting: 'logCleanerMinCleanableRatio' },
    "The minimum ratio of dirty log to total log for a log to eligible for cleaning. If the log.cleaner.max.compaction.lag.ms or the log.cleaner.min.compaction.lag.ms configurations are also specified, then the log compactor considers the log eligible for compaction as soon as either: (i) the dirty ratio threshold has been met and the log has had dirty (uncompacted) records for at least the log.cleaner.min.compaction.lag.ms duration, or (ii) if the log has had dirty (uncompacted) records for at most the log.cleaner.max.compaction.lag.ms period."),
  brokerKey("log.cleaner.backoff.ms", 'LONG', "15000", { dynamic: true, setting: 'logCleanerBackoffMs' },
    "The amount of time to sleep when there are no logs to clean"),
  brokerKey("log.local.retention.ms", 'LONG', "-2", DYNAMIC,
    "The number of milliseconds to keep the local log segments before it gets eligible for deletion. Default value is -2, it represents `log.retention.ms` value is to be used. The effective value should always be less than or equal to `log.retention.ms` value."),
  brokerKey("log.local.retention.bytes", 'LONG', "-2", DYNAMIC,
    "The maximum size of local log segments that can grow for a partition before it gets eligible for deletion. Default value is -2, it represents `log.retention.bytes` value to be used. The effective value should always be less than or equal to `log.retention.bytes` value."),
  brokerKey("num.recovery.threads.per.data.dir", 'INT', "1", DYNAMIC,
    "The number of threads per data directory to be used for log recovery at startup and flushing at shutdown"),
];
const BROKER_KEYS = new Map(BROKER_CONFIGS.map((k) => [k.name, k]));

export function brokerConfigKey(name: string): BrokerConfigKey | undefined {
  return BROKER_KEYS.get(name);
}

/** The broker configs kmock has a setting for, in catalog order. */
export const KMOCK_BROKER_SETTINGS: ReadonlyArray<BrokerConfigKey & { setting: keyof BrokerConfig }> = BROKER_CONFIGS.filter(
  (k): k is BrokerConfigKey & { setting: keyof BrokerConfig } => k.setting !== null,
);
