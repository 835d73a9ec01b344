// Where Kafka 4.x answers the scenarios of configs that change at run time
// (scenarios/configs-alter.ts: IncrementalAlterConfigs, AlterConfigs, DescribeConfigs after them)
// differently from 3.9, with the 4.x source of each (kmock follows 3.9). Part of CAUSES_4X
// (causes-4x.ts), consulted only against a 4.x reference.
//
// Sources: apache/kafka 3.9 (core/.../kafka/server/ConfigAdminManager.scala, ConfigHelper.scala,
// DynamicBrokerConfig.scala, core/.../kafka/server/logger/RuntimeLoggerManager.java,
// metadata/.../controller/ConfigurationControlManager.java, server/.../metrics/
// ClientMetricsConfigs.java) against the 4.4.0 jars (kafka_2.13: kafka.server.ConfigAdminManager,
// kafka.server.ConfigHelper; kafka-server: org.apache.kafka.server.logger.RuntimeLoggerManager,
// org.apache.kafka.server.metrics.ClientMetricsConfigs; kafka-metadata:
// org.apache.kafka.controller.ConfigurationControlManager) and the apache/kafka pull requests named.
import type { Cause } from './causes.js';

/** `a` (kmock, Kafka 3.9's text) and `b` (Kafka 4.x's) say the same in 4.x's words (kafka-4x-config-message-texts). */
function messageChangedIn4x(a: string, b: string): boolean {
  const set = /^(.*): (?:Set|HashSet)\((.*)\)$/.exec(a);
  if (set !== null && b === `${set[1]}: [${set[2]}]`) return true;
  if (b === 'Cannot update these configs dynamically: [advertised.listeners]') {
    return /advertised listeners cannot be altered|Set\(advertised\.listeners\)$/i.test(a);
  }
  if (a.includes('Dynamic thread count update validation failed for num.replica.fetchers=0, value should be at least 1')) {
    return b === 'Invalid value 0 for configuration num.replica.fetchers: Value must be at least 1';
  }
  const segment = /^(Invalid value \S+ for configuration segment\.bytes: Value must be at least) 14$/.exec(a);
  if (segment !== null) return b === `${segment[1]} 1048576`;
  return /^Unexpected node id\. Expected (\d+), but received \1$/.test(a) && /^Unexpected node id\. Expected \d+, but received \d+$/.test(b);
}

/** Kafka 3.9.1's version ranges of the config-altering APIs (causes-4x.ts API_39; kmock advertises the same). */
export const API_39_CONFIGS: Record<string, { key: number; min: number; max: number }> = {
  AlterConfigs: { key: 33, min: 0, max: 2 },
  IncrementalAlterConfigs: { key: 44, min: 0, max: 1 },
};

export const CAUSES_4X_CONFIGS: Cause[] = [
  {
    id: 'kafka-4x-broker-config-authorized-by-broker',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testAuthorizerConfigs$/,
    request: /^IncrementalAlterConfigs v1 \(alice alters c, n, the broker\)$/,
    path: /^response\.responses\[2\]\.errorMessage$/,
    when: (d) => d.a === 'Cluster authorization failed.' && d.b === null,
    cause:
      'A BROKER resource the principal may not ALTER_CONFIGS: Kafka 3.9 forwards it and the controller answers new ApiError(CLUSTER_AUTHORIZATION_FAILED), the error\'s text ("Cluster authorization failed."; ControllerApis.authorizeAlterResource); 4.4.0\'s broker checks it first, in ConfigAdminManager.preprocess (javap of kafka_2.13-4.4.0.jar: authorize(CLUSTER, "kafka-cluster") for ConfigResource.Type.BROKER, else new ClusterAuthorizationException(Errors.CLUSTER_AUTHORIZATION_FAILED.message())), and ApiError.fromThrowable drops a message equal to the error\'s own: null. Same code; kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-config-message-texts',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^(testIncrementalAlterConfigs\w*|testAlterConfigs\w*)$/,
    request: /^(IncrementalAlterConfigs|AlterConfigs) v\d /,
    path: /^response\.responses\[\d+\]\.errorMessage$/,
    when: (d) => messageChangedIn4x(String(d.a), String(d.b)),
    cause:
      'Error texts 4.x words differently, with the same error codes: DynamicBrokerConfig.validateConfigs moved to Java (org.apache.kafka.server.config.DynamicBrokerConfig) and prints the names as a java.util Set ("[a, b]") where 3.9\'s Scala prints "Set(a, b)" / "HashSet(a)"; advertised.listeners is no longer dynamically updatable (KAFKA-18405, apache/kafka#18508), so it is refused as a non-dynamic config instead of by DynamicListenerConfig or at the cluster level; num.replica.fetchers got an atLeast(1) validator (ReplicationConfigs), so 0 fails ConfigDef instead of the thread-pool check; segment.bytes must be at least 1 MiB (KIP-1030); RuntimeLoggerManager prints the requested node id ("Unexpected node id. Expected 1, but received 2") where 3.9 prints its own twice. kmock keeps 3.9\'s texts.',
  },
  {
    id: 'kafka-4x-elr-broker-min-isr',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testIncrementalAlterConfigsForBrokerErrors$/,
    request: /^IncrementalAlterConfigs v1 \(broker-level min\.insync\.replicas \(validateOnly\)\)$/,
    path: /^response\.responses\[0\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === 0 && d.b === 40 : d.b === 'Broker-level min.insync.replicas cannot be altered while ELR is enabled.'),
    cause:
      'A broker-level min.insync.replicas: a 4.4.0 cluster is formatted with eligible.leader.replicas.version=1 (KIP-966, ELR), and with ELR on, 4.x\'s ConfigurationControlManager refuses a per-broker min.insync.replicas (INVALID_CONFIG "Broker-level min.insync.replicas cannot be altered while ELR is enabled.") and the removal of the cluster-level one it wrote when ELR was enabled (maybeGenerateElrSafetyRecords); Kafka 3.9 has no ELR and accepts it. (The scenarios keep a cluster-level min.insync.replicas=1 on both brokers for that reason.) kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-append-unknown-broker-config',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testIncrementalAlterConfigsForBrokerErrors$/,
    request: /^IncrementalAlterConfigs v1 \(APPEND to an unknown name\)$/,
    path: /^response\.responses\[0\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === -1 && d.b === 40 : d.a === null && d.b === 'Unknown config name: kmock.unknown'),
    cause:
      'APPEND/SUBTRACT on a broker config name KafkaConfig does not know: Kafka 3.9\'s ConfigAdminManager.prepareIncrementalConfigs looks the name up with configKeys(name) on a Scala map, which throws NoSuchElementException (UNKNOWN_SERVER_ERROR, no message); 4.x looks it up with configKeys.get and throws InvalidConfigurationException "Unknown config name: <name>" (KAFKA-20129, apache/kafka#21425). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-logger-unknown-operation',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testIncrementalAlterConfigsBrokerLoggers$/,
    request: /^IncrementalAlterConfigs v1 \(unknown operation\)$/,
    path: /^response\.responses\[0\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === -1 && d.b === 42 : d.a === null && d.b === 'Unknown operation type 9 is not allowed for the BROKER_LOGGER resource'),
    cause:
      'An unknown operation on a BROKER_LOGGER resource: Kafka 3.9\'s RuntimeLoggerManager.validateLogLevelConfigs switches on OpType.forId(id), null for an unknown id, and throws NullPointerException (UNKNOWN_SERVER_ERROR); 4.x checks for null first and throws InvalidRequestException "Unknown operation type N is not allowed for the BROKER_LOGGER resource" (org.apache.kafka.server.logger.RuntimeLoggerManager, KAFKA-19298, apache/kafka#22401). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-quota-configs-not-read-only',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testIncrementalAlterConfigsForBroker$/,
    request: /^DescribeConfigs v4 /,
    path: /^response\.results\[0\]\.configs\[name=(leader|follower)\.replication\.throttled\.rate\]\.readOnly$/,
    when: (d) => d.a === true && d.b === false,
    cause:
      'The broker quota configs (leader.replication.throttled.rate, follower.replication.throttled.rate, replica.alter.log.dirs.io.max.bytes.per.second) described once set: Kafka 3.9\'s ConfigHelper.createBrokerConfigEntry reports readOnly = !DynamicBrokerConfig.AllDynamicConfigs.contains(name), and they are not in it (they live in DynamicConfig.Broker only), so true; 4.x adds them to DynamicBrokerConfig (KAFKA-19984, apache/kafka#21131), so false. kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-client-metrics-described-with-defaults',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testAlterConfigsClientMetrics$/,
    request: /^DescribeConfigs v4 /,
    path: /^response\.results\[0\]\.configs\[name=(interval\.ms|metrics|match)\](\.(synonyms\[name=[^\]]+\]|synonyms\.length|configType|documentation))?$/,
    cause:
      'DescribeConfigs of a CLIENT_METRICS subscription: Kafka 3.9\'s ConfigHelper lists only the configs the subscription has, each with source CLIENT_METRICS_CONFIG, no synonyms, type UNKNOWN and the documentation field left at its default ""; 4.x describes every client-metrics config (kafka.server.ConfigHelper.createClientMetricsConfigEntry over ClientMetricsConfigs\' ConfigDef: interval.ms, match, metrics), the ones not set with their defaults and DEFAULT_CONFIG, the set ones with themselves as a CLIENT_METRICS_CONFIG synonym, their types (INT, LIST) and null documentation, whether or not the subscription still exists (the default configs KAFKA-17516 asked for). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-client-metrics-interval-parse',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testAlterConfigsClientMetrics$/,
    request: /^AlterConfigs v2 \(interval not a number\)$/,
    path: /^response\.responses\[0\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === -1 && d.b === 40 : d.a === null && d.b === 'Invalid value soon for configuration interval.ms: Not a number of type INT'),
    cause:
      'A client-metrics interval.ms that is not a number: Kafka 3.9\'s ClientMetricsConfigs.validateProperties calls Integer.parseInt on it, whose NumberFormatException the controller answers UNKNOWN_SERVER_ERROR; 4.x parses the properties with its ConfigDef first (org.apache.kafka.server.metrics.ClientMetricsConfigs.validate), a ConfigException answered INVALID_CONFIG "Invalid value soon for configuration interval.ms: Not a number of type INT". kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-group-configs-alterable',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testAlterConfigsUnknownResourceTypes$/,
    request: /^(IncrementalAlterConfigs v1 \(incremental\)|AlterConfigs v2 \(legacy\))$/,
    path: /^response\.responses\[\d\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === 42 && d.b === 0 : d.a === 'Unknown resource type 32' && d.b === null),
    cause:
      'IncrementalAlterConfigs/AlterConfigs on a GROUP resource (type 32): Kafka 3.9\'s ConfigResource.Type has no GROUP, so ConfigAdminManager.preprocess answers INVALID_REQUEST "Unknown resource type 32"; 4.x has group configs (KIP-848 and later: GroupConfig consumer.*, share.*, streams.*; kafka.server.ConfigAdminManager forwards GROUP resources, the controller validates them with GroupConfig) and accepts a valid one. kmock has no group configs and follows 3.9.',
  },
];
