// The Kafka config catalog (src/broker/config/): the one map from Kafka setting names to kmock's
// settings, and that each entry is enough to look a config up, check a value and describe it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, KAFKA_SETTING_NAMES } from '../../../src/broker/config.js';
import { brokerConfigKey, BROKER_CONFIGS, KMOCK_BROKER_SETTINGS } from '../../../src/broker/config/broker-configs.js';
import { parseType } from '../../../src/broker/config/config-def.js';
import { javaDoubleToString, parseJavaInt } from '../../../src/broker/config/java-values.js';
import { parseTopicConfigValue, TOPIC_CONFIGS, topicConfigKey, validateTopicConfigs } from '../../../src/broker/config/topic-configs.js';

describe('the Kafka setting names kmock accepts', () => {
  it('are the catalog entries that name a BrokerConfig field, and nothing else', () => {
    expect(KAFKA_SETTING_NAMES).toEqual({
      'node.id': 'nodeId',
      'broker.rack': 'rack',
      'socket.request.max.bytes': 'socketRequestMaxBytes',
      'connections.max.idle.ms': 'connectionsMaxIdleMs',
      'auto.create.topics.enable': 'autoCreateTopicsEnable',
      'num.partitions': 'numPartitions',
      'default.replication.factor': 'defaultReplicationFactor',
      'log.message.timestamp.type': 'logMessageTimestampType',
      'delete.topic.enable': 'deleteTopicEnable',
      'group.initial.rebalance.delay.ms': 'groupInitialRebalanceDelayMs',
      'group.min.session.timeout.ms': 'groupMinSessionTimeoutMs',
      'group.max.session.timeout.ms': 'groupMaxSessionTimeoutMs',
      'group.max.size': 'groupMaxSize',
      'offsets.retention.minutes': 'offsetsRetentionMinutes',
      'transaction.max.timeout.ms': 'transactionMaxTimeoutMs',
      'transactional.id.expiration.ms': 'transactionalIdExpirationMs',
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': 'transactionAbortTimedOutTransactionCleanupIntervalMs',
      'transaction.remove.expired.transaction.cleanup.interval.ms': 'transactionRemoveExpiredTransactionCleanupIntervalMs',
      'transaction.partition.verification.enable': 'transactionPartitionVerificationEnable',
      'queued.max.request.bytes': 'queuedMaxRequestBytes',
      'message.max.bytes': 'messageMaxBytes',
      'min.insync.replicas': 'minInsyncReplicas',
      'compression.type': 'compressionType',
      'log.dir': 'logDir',
      'log.dirs': 'logDirs',
      'log.segment.bytes': 'logSegmentBytes',
      'log.roll.ms': 'logRollMs',
      'log.roll.hours': 'logRollHours',
      'log.roll.jitter.ms': 'logRollJitterMs',
      'log.roll.jitter.hours': 'logRollJitterHours',
      'log.retention.ms': 'logRetentionMs',
      'log.retention.minutes': 'logRetentionMinutes',
      'log.retention.hours': 'logRetentionHours',
      'log.retention.bytes': 'logRetentionBytes',
      'log.retention.check.interval.ms': 'logRetentionCheckIntervalMs',
      'log.cleanup.policy': 'logCleanupPolicy',
      'log.index.size.max.bytes': 'logIndexSizeMaxBytes',
      'log.index.interval.bytes': 'logIndexIntervalBytes',
      'log.flush.interval.messages': 'logFlushIntervalMessages',
      'log.flush.interval.ms': 'logFlushIntervalMs',
      'log.flush.scheduler.interval.ms': 'logFlushSchedulerIntervalMs',
      'log.segment.delete.delay.ms': 'logSegmentDeleteDelayMs',
      'log.cleaner.enable': 'logCleanerEnable',
      'log.cleaner.delete.retention.ms': 'logCleanerDeleteRetentionMs',
      'log.cleaner.min.compaction.lag.ms': 'logCleanerMinCompactionLagMs',
      'log.cleaner.max.compaction.lag.ms': 'logCleanerMaxCompactionLagMs',
      'log.cleaner.min.cleanable.ratio': 'logCleanerMinCleanableRatio',
      'log.cleaner.backoff.ms': 'logCleanerBackoffMs',
      // the listener security settings (security/): TLS and SASL
      'ssl.client.auth': 'sslClientAuth',
      'ssl.enabled.protocols': 'sslEnabledProtocols',
      'ssl.keystore.type': 'sslKeystoreType',
      'ssl.keystore.location': 'sslKeystoreLocation',
      'ssl.keystore.password': 'sslKeystorePassword',
      'ssl.key.password': 'sslKeyPassword',
      'ssl.keystore.key': 'sslKeystoreKey',
      'ssl.keystore.certificate.chain': 'sslKeystoreCertificateChain',
      'ssl.truststore.type': 'sslTruststoreType',
      'ssl.truststore.location': 'sslTruststoreLocation',
      'ssl.truststore.password': 'sslTruststorePassword',
      'ssl.truststore.certificates': 'sslTruststoreCertificates',
      'ssl.cipher.suites': 'sslCipherSuites',
      'sasl.enabled.mechanisms': 'saslEnabledMechanisms',
    });
    expect(Object.fromEntries(KMOCK_BROKER_SETTINGS.map((k) => [k.name, k.setting]))).toEqual(KAFKA_SETTING_NAMES);
  });

  it("keep Kafka's default wherever kmock has one of its own", () => {
    for (const { name, setting, defaultValue } of KMOCK_BROKER_SETTINGS) {
      // node.id (-1 in Kafka: required in KRaft) and broker.rack (null) have no usable Kafka default.
      if (name === 'node.id' || name === 'broker.rack') continue;
      // queued.max.request.bytes: kmock bounds what requests being read may hold (Kafka: -1, none).
      // log.dir: kmock keeps data in memory unless a data dir is given (Kafka: /tmp/kafka-logs).
      if (name === 'queued.max.request.bytes' || name === 'log.dir') continue;
      const v = DEFAULT_CONFIG[setting];
      const text = v === null ? null : typeof v === 'number' && v >= 9223372036854775807 ? '9223372036854775807' : String(v);
      expect(text, name).toBe(defaultValue);
    }
  });
});

describe('the catalog entries', () => {
  it('have unique names and defaults that parse as their type', () => {
    expect(new Set(TOPIC_CONFIGS.map((k) => k.name)).size).toBe(TOPIC_CONFIGS.length);
    expect(new Set(BROKER_CONFIGS.map((k) => k.name)).size).toBe(BROKER_CONFIGS.length);
    for (const k of TOPIC_CONFIGS) expect(parseTopicConfigValue(k, k.defaultValue), k.name).not.toHaveProperty('error');
    for (const k of BROKER_CONFIGS) {
      if (k.defaultValue !== null) expect(parseType(k.name, k.defaultValue, k.type), k.name).not.toHaveProperty('error');
    }
  });

  it('name broker synonyms the broker catalog describes', () => {
    for (const k of TOPIC_CONFIGS) if (k.serverSynonym !== null) expect(brokerConfigKey(k.serverSynonym), k.name).toBeDefined();
  });

  it('check a value from one entry as LogConfig does', () => {
    const segmentBytes = topicConfigKey('segment.bytes')!;
    expect(parseTopicConfigValue(segmentBytes, ' 1024 ')).toEqual({ value: 1024 });
    expect(parseTopicConfigValue(segmentBytes, '13')).toEqual({
      error: 'Invalid value 13 for configuration segment.bytes: Value must be at least 14',
    });
    expect(parseTopicConfigValue(topicConfigKey('cleanup.policy')!, 'compact , delete')).toEqual({ value: ['compact', 'delete'] });
    expect(validateTopicConfigs(new Map([['no.such.config', '1']]))).toBe('Unknown topic config name: no.such.config');
    expect(validateTopicConfigs(new Map([['min.compaction.lag.ms', '10'], ['max.compaction.lag.ms', '5']]))).toBe(
      'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)',
    );
    expect(validateTopicConfigs(new Map([['retention.ms', '1000']]))).toBeNull();
  });
});

describe('Java value semantics', () => {
  it('prints doubles as Double.toString and parses ints as Integer.parseInt', () => {
    expect([0.5, 1, 1e7, 1e-4, -0].map(javaDoubleToString)).toEqual(['0.5', '1.0', '1.0E7', '1.0E-4', '-0.0']);
    expect(parseJavaInt('+7')).toBe(7);
    expect(parseJavaInt('2147483648')).toBeUndefined();
    expect(parseJavaInt(' 1')).toBeUndefined();
  });
});
