// Dynamic broker configs: the layering DynamicBrokerConfig does (per-broker over the cluster
// default over the static settings over Kafka's defaults, a dynamic value removing its synonyms
// from the layers under it), what it hands the log (services.logDefaults, KafkaConfig.
// extractLogConfigMap), what the data dir saves, and the JVM iteration orders the validation
// copies to name the same first problem as Kafka.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type BrokerConfig } from '../../../src/broker/config.js';
import { DynamicBrokerConfigs, brokerConfigSynonyms, overrideProps } from '../../../src/broker/config/dynamic-configs.js';
import { kmockStaticSettings } from '../../../src/broker/config/static-settings.js';
import { brokerTopicDefaults, staticTopicDefaults } from '../../../src/broker/config/topic-defaults.js';
import { javaHashOrder, javaStringHash, scalaSetString } from '../../../src/broker/config/java-hash.js';
import { BrokerLoggers } from '../../../src/broker/config/broker-loggers.js';
import { BrokerLogDefaults, resolveLogConfig, TopicConfigMap } from '../../../src/broker/log/log-config.js';

function broker(overrides: Partial<BrokerConfig> = {}) {
  const config = { ...DEFAULT_CONFIG, ...overrides };
  const logDefaults = new BrokerLogDefaults(staticTopicDefaults(config));
  return { config, logDefaults, dynamic: new DynamicBrokerConfigs(config, logDefaults) };
}

describe('the static layer', () => {
  it('holds the settings that differ from Kafka\'s defaults, kmock\'s own default queued.max.request.bytes among them', () => {
    const s = kmockStaticSettings({ ...DEFAULT_CONFIG, logRetentionHours: 100 });
    expect(s.get('log.retention.hours')).toBe('100');
    // kmock bounds requests being read (256 MiB); Kafka's default is -1.
    expect(s.get('queued.max.request.bytes')).toBe('268435456');
    expect(s.get('node.id')).toBe('1');
    // Long.MAX_VALUE defaults are Kafka's, not a setting.
    expect(s.has('log.flush.interval.messages')).toBe(false);
    expect(s.has('message.max.bytes')).toBe(false);
  });
});

describe('layering (DynamicBrokerConfig.updateCurrentConfig)', () => {
  it('per broker over cluster default over static over default, for the topic defaults the log reads', () => {
    const { dynamic, logDefaults } = broker({ logRetentionHours: 100 });
    expect(dynamic.topicDefault('retention.ms')).toBe('360000000');
    const v0 = logDefaults.version;
    dynamic.set('cluster-default', 'log.retention.ms', ' 200000 ');
    expect(logDefaults.version).toBeGreaterThan(v0);
    expect(logDefaults.get('retention.ms')).toBe('200000');
    dynamic.set('broker', 'log.retention.ms', '100000');
    expect(logDefaults.get('retention.ms')).toBe('100000');
    expect(resolveLogConfig(new TopicConfigMap(), logDefaults).retentionMs).toBe(100000);
    // A topic override wins over all of them.
    const topic = new TopicConfigMap([['retention.ms', '5']]);
    expect(resolveLogConfig(topic, logDefaults).retentionMs).toBe(5);
    dynamic.set('broker', 'log.retention.ms', null);
    expect(logDefaults.get('retention.ms')).toBe('200000');
    dynamic.replace('cluster-default', new Map());
    expect(logDefaults.get('retention.ms')).toBe('360000000');
  });

  it('a dynamic value removes its synonyms from the layers under it (overrideProps)', () => {
    const props = new Map([['log.roll.ms', '1000'], ['log.segment.bytes', '2000']]);
    overrideProps(props, new Map([['log.roll.hours', '2']]));
    expect([...props]).toEqual([['log.segment.bytes', '2000'], ['log.roll.hours', '2']]);
    expect(brokerTopicDefaults((n) => props.get(n)).get('segment.ms')).toBe('7200000');
    expect(brokerConfigSynonyms('log.retention.minutes', false)).toEqual(['log.retention.ms', 'log.retention.minutes', 'log.retention.hours']);
    expect(brokerConfigSynonyms('listener.name.plaintext.max.connections', true)).toEqual(['listener.name.plaintext.max.connections', 'max.connections']);
    expect(brokerConfigSynonyms('listener.name.sasl_ssl.plain.sasl.jaas.config', true)).toEqual(['listener.name.sasl_ssl.plain.sasl.jaas.config', 'sasl.jaas.config']);
    expect(brokerConfigSynonyms('listener.name.plaintext.max.connections', false)).toEqual(['listener.name.plaintext.max.connections']);
  });

  it('hands the log every topic config with a broker synonym, parsed as LogConfig holds it', () => {
    const { dynamic, logDefaults } = broker();
    dynamic.replace('broker', new Map([['message.max.bytes', '2000'], ['log.cleaner.min.cleanable.ratio', '1e-1'], ['log.message.timestamp.type', 'LogAppendTime'], ['log.cleanup.policy', 'compact, delete']]));
    expect(logDefaults.get('max.message.bytes')).toBe('2000');
    expect(logDefaults.get('min.cleanable.dirty.ratio')).toBe('0.1');
    expect(logDefaults.get('cleanup.policy')).toBe('compact,delete');
    const c = resolveLogConfig(new TopicConfigMap(), logDefaults);
    expect(c).toMatchObject({ maxMessageBytes: 2000, timestampType: 'LogAppendTime', compact: true, delete: true, minCleanableDirtyRatio: 0.1 });
    // Kafka's defaults for the ones with no kmock setting.
    expect(logDefaults.get('message.timestamp.before.max.ms')).toBe('9223372036854775807');
    expect(logDefaults.get('local.retention.ms')).toBe('-2');
    expect(logDefaults.get('message.format.version')).toBe('3.0-IV1');
  });

  it('gives a kmock setting its dynamic value, typed as the setting (for settings read at run time)', () => {
    const { dynamic } = broker({ logCleanerBackoffMs: 20000 });
    expect(dynamic.setting('logCleanerBackoffMs')).toBe(20000);
    expect(dynamic.setting('transactionPartitionVerificationEnable')).toBe(true);
    dynamic.set('cluster-default', 'transaction.partition.verification.enable', 'false');
    dynamic.set('broker', 'log.cleaner.backoff.ms', ' 1000 ');
    expect(dynamic.setting('transactionPartitionVerificationEnable')).toBe(false);
    expect(dynamic.setting('logCleanerBackoffMs')).toBe(1000);
    expect(dynamic.setting('logCleanupPolicy')).toBe('delete');
  });

  it('saves and restores its configs (the data dir), client-metrics subscriptions too', () => {
    const a = broker().dynamic;
    a.replace('broker', new Map([['log.retention.ms', '1000']]));
    a.replace('cluster-default', new Map([['num.io.threads', '9']]));
    a.setClientMetrics('sub', new Map([['interval.ms', '1000']]));
    const saved = JSON.parse(JSON.stringify(a.entries()));
    const b = broker();
    let changes = 0;
    b.dynamic.onChange(() => changes++);
    b.dynamic.load(saved);
    expect(changes).toBe(1);
    expect([...b.dynamic.perBroker]).toEqual([['log.retention.ms', '1000']]);
    expect(b.dynamic.get('num.io.threads')).toBe('9');
    expect(b.logDefaults.get('retention.ms')).toBe('1000');
    expect([...b.dynamic.clientMetrics.get('sub')!]).toEqual([['interval.ms', '1000']]);
    // A save without client metrics (older format) loads too.
    b.dynamic.load({ broker: [], clusterDefault: [] });
    expect(b.dynamic.clientMetrics.size).toBe(0);
  });
});

describe('broker loggers (Log4jController)', () => {
  it('resolves a logger without a level of its own from its nearest configured ancestor', () => {
    const l = new BrokerLoggers();
    expect(new Map(l.all()).get('kafka.controller')).toBe('TRACE');
    l.setLevel('kafka', 'DEBUG');
    l.unsetLevel('kafka.controller');
    expect(new Map(l.all()).get('kafka.controller')).toBe('DEBUG');
    l.unsetLevel('kafka');
    expect(new Map(l.all()).get('kafka.controller')).toBe('INFO');
    l.unsetLevel('root');
    expect(new Map(l.all()).get('root')).toBe('INFO');
    expect(l.exists('no.such')).toBe(false);
  });
});

describe('JVM iteration orders', () => {
  it('String.hashCode', () => {
    expect(javaStringHash('')).toBe(0);
    // "retention.ms".hashCode() on OpenJDK 17.
    expect(javaStringHash('retention.ms')).toBe(-1339220362);
  });

  it('HashMap / Properties order, as printed by a JVM for the same keys', () => {
    // java.util.Properties and HashMap, keys put in this order, printed by OpenJDK 17.
    const keys = ['zzz', 'yyy', 'log.dirs', 'broker.id', 'retention.ms', 'segment.ms', 'cleanup.policy', 'a.b', 'c.d', 'e.f', 'g.h', 'i.j', 'k.l', 'm.n', 'o.p'];
    expect(javaHashOrder(keys)).toEqual(['g.h', 'i.j', 'k.l', 'm.n', 'o.p', 'cleanup.policy', 'a.b', 'broker.id', 'yyy', 'c.d', 'zzz', 'retention.ms', 'segment.ms', 'e.f', 'log.dirs']);
    expect(javaHashOrder(['log.dirs', 'broker.id'])).toEqual(['broker.id', 'log.dirs']);
    expect(javaHashOrder(['zzz', 'yyy'])).toEqual(['yyy', 'zzz']);
  });

  it('Scala sets print as Set(...) up to four, HashSet(...) beyond', () => {
    expect(scalaSetString(['a'])).toBe('Set(a)');
    expect(scalaSetString(['a', 'b', 'c', 'd', 'e'])).toBe('HashSet(a, b, c, d, e)');
  });
});
