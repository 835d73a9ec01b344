// How Kafka 3.9 reports configs: the value each config has on this broker or topic, where it comes
// from (its ConfigSource) and the synonyms behind it, for DescribeConfigs and for the effective
// configs CreateTopics v5+ returns. The layers, first match wins: a topic's override
// (TOPIC_CONFIG), then this broker's dynamic configs (DYNAMIC_BROKER_CONFIG), the cluster-wide
// dynamic defaults (DYNAMIC_DEFAULT_BROKER_CONFIG), the broker's static setting
// (STATIC_BROKER_CONFIG, what server.properties would hold), then Kafka's default (DEFAULT_CONFIG).
// Follows core/.../server/ConfigHelper.scala (createTopicConfigEntry, createBrokerConfigEntry,
// configSynonyms), DynamicBrokerConfig.brokerConfigSynonyms and metadata/.../KafkaConfigSchema.java
// (resolveEffectiveTopicConfigs).
import type { BrokerServices } from '../services.js';
import type { Topic } from '../log/topics.js';
import { BROKER_CONFIGS, brokerConfigKey, brokerQuotaConfigKey, kafkaConfigType, type BrokerConfigKey } from './broker-configs.js';
import { convertToString, parseType, type ConfigType } from './config-def.js';
import { javaTrim, parseJavaInteger } from './java-values.js';
import { brokerConfigSynonyms, overrideProps } from './dynamic-configs.js';
import { normalizedTopicValue, TOPIC_CONFIGS, type TopicConfigKey } from './topic-configs.js';

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

// ---- the layers and the synonyms ------------------------------------------------------------------

/**
 * The broker's static configuration (what its server.properties would hold): the settings a
 * single-node KRaft broker must have (process.roles, node.id -- which Kafka copies to broker.id --,
 * listeners, and the internal topics' replication settings that make one node work, as in Kafka's
 * config/kraft/server.properties), plus every kmock setting whose value differs from Kafka's
 * default (static-settings.ts).
 */
export function staticBrokerConfigs(broker: BrokerServices): Map<string, string> {
  const c = broker.config;
  const listenPort = c.port === 0 ? broker.advertised.port : c.port;
  const m = new Map<string, string>([
    ['process.roles', 'broker,controller'],
    ['node.id', String(c.nodeId)],
    ['broker.id', String(c.nodeId)],
    ['listeners', c.listeners ?? `PLAINTEXT://${c.host}:${listenPort}`],
    ['advertised.listeners', broker.listeners.map((l) => `${l.name}://${l.advertised.host}:${l.advertised.port}`).join(',')],
    ['offsets.topic.replication.factor', '1'],
    ['transaction.state.log.replication.factor', '1'],
    ['transaction.state.log.min.isr', '1'],
  ]);
  if (c.listeners !== null) m.set('listener.security.protocol.map', c.listenerSecurityProtocolMap);
  // (node.id is one of them: it is written again, unchanged.)
  for (const [k, v] of broker.dynamicConfigs.staticSettings) m.set(k, v);
  return m;
}

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/** The four layers ConfigHelper.configSynonyms reads, highest precedence first. */
interface Layers {
  perBroker: ReadonlyMap<string, string>;
  clusterDefault: ReadonlyMap<string, string>;
  static: ReadonlyMap<string, string>;
}

function layersOf(broker: BrokerServices): Layers {
  return {
    perBroker: broker.dynamicConfigs.perBroker,
    clusterDefault: broker.dynamicConfigs.clusterDefault,
    static: staticBrokerConfigs(broker),
  };
}

/** KafkaConfig.configType: a KafkaConfig key's type, a quota config's, a listener config's base type. */
function brokerConfigType(name: string): ConfigType | undefined {
  const exact = kafkaConfigType(name) ?? brokerQuotaConfigKey(name)?.type;
  if (exact !== undefined) return exact;
  for (const s of brokerConfigSynonyms(name, true)) {
    const t = kafkaConfigType(s);
    if (t !== undefined) return t;
  }
  return undefined;
}

/** KafkaConfig.maybeSensitive: a password, or a config whose type is unknown. */
function maybeSensitive(type: ConfigType | undefined): boolean {
  return type === undefined || type === 'PASSWORD';
}

/**
 * ConfigHelper.configSynonyms: for each layer (per-broker, cluster default, static, Kafka's
 * defaults) the synonyms of `name` set there, in `names` order; those before `name` itself
 * dropped (listener overrides, when describing a base config). Sensitive values are null.
 */
function configSynonyms(layers: Layers, name: string, names: readonly string[], sensitive: boolean): ConfigSynonym[] {
  const all: ConfigSynonym[] = [];
  const add = (map: ReadonlyMap<string, string | null>, source: number) => {
    for (const n of names) {
      if (!map.has(n)) continue;
      all.push({ name: n, value: sensitive ? null : (map.get(n) ?? null), source });
    }
  };
  add(layers.perBroker, ConfigSource.DYNAMIC_BROKER_CONFIG);
  add(layers.clusterDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
  add(layers.static, ConfigSource.STATIC_BROKER_CONFIG);
  add(KAFKA_DEFAULTS, ConfigSource.DEFAULT_CONFIG);
  const first = all.findIndex((s) => s.name === name);
  return first < 0 ? [] : all.slice(first);
}

/**
 * DynamicBrokerConfig.staticDefaultConfigs: KafkaConfig's defaults as text (a config without a
 * default, or with a null one, is not there).
 */
const KAFKA_DEFAULTS: ReadonlyMap<string, string> = new Map(
  BROKER_CONFIGS.filter((k) => k.defaultValue !== null).map((k) => [k.name, k.defaultValue as string]),
);

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
  isSensitive: boolean,
  synonyms: ConfigSynonym[],
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig {
  return {
    name: key.name,
    value,
    readOnly,
    configSource: synonyms.length > 0 ? synonyms[0].source : ConfigSource.DEFAULT_CONFIG,
    isSensitive,
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

/** The broker configs a value can be read from for topic config `key` (ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS, then brokerConfigSynonyms). */
function topicSynonymNames(key: TopicConfigKey): string[] {
  return key.serverSynonym === null ? [] : brokerConfigSynonyms(key.serverSynonym, true);
}

/**
 * A topic's configs as ConfigHelper.createTopicConfigEntry describes them: every topic config,
 * valued by the topic's override or else the broker's current value (KafkaConfig.
 * extractLogConfigMap over the static and dynamic layers), with the override first among the
 * synonyms, then the broker synonyms layer by layer, and the source of the first synonym
 * (DEFAULT_CONFIG when there is none).
 */
export function describeTopicConfigs(
  broker: BrokerServices,
  topic: Topic,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const layers = layersOf(broker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of TOPIC_CONFIGS_BY_NAME) {
    if (!keep(key.name)) continue;
    const override = topic.configs.get(key.name);
    const brokerValue = broker.dynamicConfigs.topicDefault(key.name);
    const sensitive = key.type === 'PASSWORD';
    const value = sensitive
      ? null
      : override !== undefined
        ? normalizedTopicValue(key, override)
        : brokerValue !== undefined
          ? normalizedTopicValue(key, brokerValue)
          : key.defaultValue;
    const synonyms = key.serverSynonym === null ? [] : configSynonyms(layers, key.serverSynonym, topicSynonymNames(key), sensitive);
    if (override !== undefined) synonyms.unshift({ name: key.name, value, source: ConfigSource.TOPIC_CONFIG });
    out.push(describedConfig(key, value, false, sensitive, synonyms, includeSynonyms, includeDocumentation));
  }
  return out;
}

/** One broker config entry (ConfigHelper.createBrokerConfigEntry). */
function brokerConfigEntry(
  layers: Layers,
  name: string,
  value: string | null,
  perBrokerConfig: boolean,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig {
  const type = brokerConfigType(name);
  const sensitive = maybeSensitive(type);
  const key = brokerConfigKey(name);
  const all = configSynonyms(layers, name, brokerConfigSynonyms(name, true), sensitive).filter(
    (s) => perBrokerConfig || s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
  );
  return {
    name,
    value: sensitive ? null : value,
    readOnly: !(key?.dynamic ?? false),
    configSource: all.length > 0 ? all[0].source : ConfigSource.DEFAULT_CONFIG,
    isSensitive: sensitive,
    synonyms: includeSynonyms ? all : [],
    configType: type === undefined ? 0 : CONFIG_TYPE_ID[type],
    documentation: includeDocumentation ? (key?.documentation ?? null) : null,
  };
}

/** A catalog config's current value as KafkaConfig holds it (parsed, then ConfigDef.convertToString). */
function currentValue(key: BrokerConfigKey, raw: string | undefined): string | null {
  const text = raw ?? key.defaultValue;
  if (text === null) return null;
  const p = parseType(key.name, text, key.type);
  return 'error' in p ? text : convertToString(p.value, key.type);
}

/**
 * The broker's own configs as ConfigHelper.createBrokerConfigEntry describes them (resource name =
 * this node's id): every catalog config valued as the broker's current config holds it (static
 * settings with the dynamic layers over them), plus the other configs set dynamically (broker
 * quotas, listener overrides, names Kafka does not know), as given; source from the synonyms,
 * readOnly unless dynamically updatable. kmock describes the settings it has, the dynamic ones and
 * the common ones admin tools read, not all of Kafka's.
 */
export function describeBrokerConfigs(
  broker: BrokerServices,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const layers = layersOf(broker);
  const current = new Map(layers.static);
  overrideProps(current, layers.clusterDefault);
  overrideProps(current, layers.perBroker);
  const keep = wanted(keys);
  const out: DescribedConfig[] = [];
  for (const key of BROKER_CONFIGS_BY_NAME) {
    if (!keep(key.name)) continue;
    out.push(brokerConfigEntry(layers, key.name, currentValue(key, current.get(key.name)), true, includeSynonyms, includeDocumentation));
  }
  for (const [name, value] of [...current].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (brokerConfigKey(name) !== undefined || !keep(name)) continue;
    out.push(brokerConfigEntry(layers, name, value, true, includeSynonyms, includeDocumentation));
  }
  return out;
}

/**
 * The cluster-wide defaults (resource name ""): only the configs set there, valued as given, with
 * only the DYNAMIC_DEFAULT_BROKER_CONFIG synonyms (ConfigHelper.describeConfigs, perBrokerConfig
 * false).
 */
export function describeClusterDefaultConfigs(
  broker: BrokerServices,
  keys: readonly string[] | null,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribedConfig[] {
  const layers = layersOf(broker);
  const keep = wanted(keys);
  return [...layers.clusterDefault]
    .filter(([name]) => keep(name))
    .map(([name, value]) => brokerConfigEntry(layers, name, value, false, includeSynonyms, includeDocumentation));
}

export { BROKER_LOGGERS } from './broker-loggers.js';

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
 * ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS: the broker configs a topic config falls
 * back to, in order, with the conversion of each (ConfigSynonym.HOURS_TO_MILLISECONDS, ...).
 */
function allTopicConfigSynonyms(key: TopicConfigKey): Array<{ name: string; convert: (v: string) => string }> {
  const same = (v: string) => v;
  const times = (factor: bigint) => (v: string) => {
    // ConfigSynonym.valueToInt: Integer.parseInt of the trimmed text, 0 when empty or unparsable.
    const n = parseJavaInteger(javaTrim(v), -2147483648n, 2147483647n) ?? 0n;
    return String(n * factor);
  };
  switch (key.name) {
    case 'segment.ms':
      return [{ name: 'log.roll.ms', convert: same }, { name: 'log.roll.hours', convert: times(3_600_000n) }];
    case 'segment.jitter.ms':
      return [{ name: 'log.roll.jitter.ms', convert: same }, { name: 'log.roll.jitter.hours', convert: times(3_600_000n) }];
    case 'flush.ms':
      return [{ name: 'log.flush.interval.ms', convert: same }, { name: 'log.flush.scheduler.interval.ms', convert: same }];
    case 'retention.ms':
      return [
        { name: 'log.retention.ms', convert: same },
        { name: 'log.retention.minutes', convert: times(60_000n) },
        { name: 'log.retention.hours', convert: times(3_600_000n) },
      ];
  }
  return key.serverSynonym === null ? [] : [{ name: key.serverSynonym, convert: same }];
}

/**
 * A new topic's effective configs, sorted by name (KafkaConfigSchema.resolveEffectiveTopicConfigs):
 * the value given at creation (as given), else the first synonym set on this node dynamically,
 * else in the cluster default, else statically (each converted), else Kafka's default.
 */
export function effectiveTopicConfigs(broker: BrokerServices, creation: Map<string, string>): EffectiveTopicConfig[] {
  const layers = layersOf(broker);
  const tiers: Array<[ReadonlyMap<string, string>, number]> = [
    [layers.perBroker, ConfigSource.DYNAMIC_BROKER_CONFIG],
    [layers.clusterDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG],
    [layers.static, ConfigSource.STATIC_BROKER_CONFIG],
  ];
  return TOPIC_CONFIGS_BY_NAME.map((key) => {
    const entry = (value: string | null, configSource: number): EffectiveTopicConfig => ({
      name: key.name,
      value,
      readOnly: false,
      configSource,
      isSensitive: key.type === 'PASSWORD',
    });
    const given = creation.get(key.name);
    if (given !== undefined) return entry(given, ConfigSource.TOPIC_CONFIG);
    const synonyms = allTopicConfigSynonyms(key);
    for (const [layer, source] of tiers) {
      for (const s of synonyms) {
        const v = layer.get(s.name);
        if (v !== undefined) return entry(s.convert(v), source);
      }
    }
    return entry(key.defaultValue, ConfigSource.DEFAULT_CONFIG);
  });
}
