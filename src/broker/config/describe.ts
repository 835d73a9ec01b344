// How Kafka 3.9 reports configs: the value each config has on this broker or topic, where it comes
// from (its ConfigSource) and the synonyms behind it, for DescribeConfigs and for the effective
// configs CreateTopics v5+ returns. The layers, first match wins: a topic's override
// (TOPIC_CONFIG), then the broker's static setting (STATIC_BROKER_CONFIG, what server.properties
// would hold), then Kafka's default (DEFAULT_CONFIG); kmock has no dynamic broker configs yet.
// Follows core/.../server/ConfigHelper.scala (createTopicConfigEntry, createBrokerConfigEntry,
// configSynonyms), DynamicBrokerConfig.brokerConfigSynonyms and metadata/.../KafkaConfigSchema.java
// (resolveEffectiveTopicConfigs).
import type { BrokerServices } from '../services.js';
import { DEFAULT_CONFIG } from '../config.js';
import type { Topic } from '../log/topics.js';
import { BROKER_CONFIGS, brokerConfigKey, KMOCK_BROKER_SETTINGS } from './broker-configs.js';
import type { ConfigType } from './config-def.js';
import { normalizedTopicValue, TOPIC_CONFIGS } from './topic-configs.js';

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

// ---- the broker's static configuration and the synonyms -------------------------------------------

/**
 * The broker's static configuration (what its server.properties would hold): the settings a
 * single-node KRaft broker must have (process.roles, node.id -- which Kafka copies to broker.id --,
 * listeners, and the internal topics' replication settings that make one node work, as in Kafka's
 * config/kraft/server.properties), plus every kmock setting that differs from Kafka's default.
 */
export function staticBrokerConfigs(broker: BrokerServices): Map<string, string> {
  const c = broker.config;
  const listenPort = c.port === 0 ? broker.advertised.port : c.port;
  const m = new Map<string, string>([
    ['process.roles', 'broker,controller'],
    ['node.id', String(c.nodeId)],
    ['broker.id', String(c.nodeId)],
    ['listeners', `PLAINTEXT://${c.host}:${listenPort}`],
    ['advertised.listeners', `PLAINTEXT://${broker.advertised.host}:${broker.advertised.port}`],
    ['offsets.topic.replication.factor', '1'],
    ['transaction.state.log.replication.factor', '1'],
    ['transaction.state.log.min.isr', '1'],
  ]);
  // (node.id is one of them: when it differs from the default it is written again, unchanged.)
  for (const { name, setting } of KMOCK_BROKER_SETTINGS) {
    const v = c[setting];
    if (v !== DEFAULT_CONFIG[setting] && v !== null && v !== undefined) m.set(name, String(v));
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
    const d = brokerConfigKey(n)?.defaultValue;
    if (d !== undefined && d !== null) all.push({ name: n, value: d, source: ConfigSource.DEFAULT_CONFIG });
  }
  const first = all.findIndex((s) => s.name === name);
  return first < 0 ? [] : all.slice(first);
}

// ---- DescribeConfigs entries -----------------------------------------------------------------------

/** The catalogs sorted by name, the order DescribeConfigs and CreateTopics answer configs in. */
const TOPIC_CONFIGS_BY_NAME = [...TOPIC_CONFIGS].sort((a, b) => (a.name < b.name ? -1 : 1));
const BROKER_CONFIGS_BY_NAME = [...BROKER_CONFIGS].sort((a, b) => (a.name < b.name ? -1 : 1));

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

/**
 * One DescribeConfigs entry: its source is that of the first synonym (DEFAULT_CONFIG when there is
 * none); synonyms and documentation only when asked for.
 */
function describedConfig(
  key: { name: string; type: ConfigType; documentation: string },
  value: string | null,
  readOnly: boolean,
  synonyms: ConfigSynonym[],
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig {
  return {
    name: key.name,
    value,
    readOnly,
    configSource: synonyms.length > 0 ? synonyms[0].source : ConfigSource.DEFAULT_CONFIG,
    isSensitive: key.type === 'PASSWORD',
    synonyms: includeSynonyms ? synonyms : [],
    configType: CONFIG_TYPE_ID[key.type],
    documentation: includeDocumentation ? key.documentation : null,
  };
}

/** The configurationKeys filter: null or empty asks for every config. */
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
  broker: BrokerServices,
  topic: Topic,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of TOPIC_CONFIGS_BY_NAME) {
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
    out.push(describedConfig(key, value, false, synonyms, includeSynonyms, includeDocumentation));
  }
  return out;
}

/**
 * The broker's own configs as ConfigHelper.createBrokerConfigEntry describes them (resource name =
 * this node's id): value, source from the synonyms, readOnly unless dynamically updatable.
 * kmock describes the settings it has plus the common ones admin tools read, not all of Kafka's.
 */
export function describeBrokerConfigs(
  broker: BrokerServices,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of BROKER_CONFIGS_BY_NAME) {
    if (!keep(key.name)) continue;
    const synonyms = configSynonyms(staticConfigs, key.name);
    // A sensitive (password) value is never sent (ConfigHelper.createBrokerConfigEntry).
    const value = key.type === 'PASSWORD' ? null : (staticConfigs.get(key.name) ?? key.defaultValue);
    out.push(describedConfig(key, value, !key.dynamic, synonyms, includeSynonyms, includeDocumentation));
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

// ---- CreateTopics' effective configs ------------------------------------------------------------

/** One entry of CreateTopicsResponse's configs (v5+). */
export interface EffectiveTopicConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
}

/**
 * A new topic's effective configs, sorted by name (KafkaConfigSchema.resolveEffectiveTopicConfigs):
 * the value given at creation (as given), else the broker's static setting, else the default.
 */
export function effectiveTopicConfigs(broker: BrokerServices, creation: Map<string, string>): EffectiveTopicConfig[] {
  const staticConfigs = staticBrokerConfigs(broker);
  return TOPIC_CONFIGS_BY_NAME.map((key) => {
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
