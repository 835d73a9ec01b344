// Dynamic configs: what IncrementalAlterConfigs and AlterConfigs change at run time, kept apart
// from the static settings (BrokerConfig) as Kafka's KRaft metadata keeps ConfigRecords apart from
// server.properties: topic overrides (held by each Topic's configs), per-broker dynamic configs
// (resource name = this node's id: DYNAMIC_BROKER_CONFIG), the cluster default (empty resource
// name: DYNAMIC_DEFAULT_BROKER_CONFIG), client-metrics subscriptions, and the broker's loggers
// (BROKER_LOGGER, never persisted). A change to a broker config that is a topic config's synonym
// replaces services.logDefaults, so the log sees it at its next check (a new retention at the next
// retention check, as on Kafka). The data dir (storage) saves and loads `entries()`.
//
// The layers, as DynamicBrokerConfig.updateCurrentConfig builds the broker's current config: the
// static settings, then the cluster default over them, then the per-broker configs over both;
// each dynamic value first removes its synonyms from the layers under it (overrideProps), so a
// dynamic log.retention.ms beats a static log.retention.hours although .ms would beat .hours
// anyway, and a dynamic log.roll.hours (were it dynamic) would beat a static log.roll.ms.
// Follows core/.../kafka/server/DynamicBrokerConfig.scala (brokerConfigSynonyms, overrideProps,
// updateCurrentConfig) and KafkaConfig.extractLogConfigMap (topic-defaults.ts).
import type { BrokerConfig } from '../config.js';
import type { BrokerLogDefaults } from '../log/log-config.js';
import { KMOCK_BROKER_SETTINGS } from './broker-configs.js';
import { parseType } from './config-def.js';
import { BrokerLoggers } from './broker-loggers.js';
import { kmockStaticSettings } from './static-settings.js';
import { brokerTopicDefaults } from './topic-defaults.js';

/** Where a dynamic broker config applies. */
export type BrokerConfigScope = 'broker' | 'cluster-default';

/** What the data dir keeps of the dynamic configs (clientMetrics is optional, for older saves). */
export interface SavedDynamicConfigs {
  broker: Array<[string, string]>;
  clusterDefault: Array<[string, string]>;
  /** Client-metrics subscriptions: name -> their configs. */
  clientMetrics?: Array<[string, Array<[string, string]>]>;
}

/** `listener.name.<listener>.<config>` */
const LISTENER_CONFIG = /^listener\.name\.[^.]*\.(.*)$/;

/** DynamicBrokerConfig.ListenerMechanismConfigs: listener configs given as listener.name.L.<mechanism>.<config>. */
const LISTENER_MECHANISM_CONFIGS = [
  'sasl.jaas.config',
  'sasl.login.callback.handler.class',
  'sasl.login.class',
  'sasl.server.callback.handler.class',
  'connections.max.reauth.ms',
];

/** The base config a `listener.name.L.x` config overrides, or undefined for any other name. */
export function listenerBaseName(name: string): string | undefined {
  return LISTENER_CONFIG.exec(name)?.[1];
}

/**
 * DynamicBrokerConfig.brokerConfigSynonyms: the names that set the same config, in precedence
 * order (log.retention.ms, .minutes, .hours); with matchListenerOverride a listener config's
 * base config follows it.
 */
export function brokerConfigSynonyms(name: string, matchListenerOverride: boolean): string[] {
  switch (name) {
    case 'log.roll.ms':
    case 'log.roll.hours':
      return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms':
    case 'log.roll.jitter.hours':
      return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms':
      // log.flush.scheduler.interval.ms is its default.
      return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms':
    case 'log.retention.minutes':
    case 'log.retention.hours':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
  }
  const base = matchListenerOverride ? listenerBaseName(name) : undefined;
  if (base !== undefined) return [name, LISTENER_MECHANISM_CONFIGS.find((m) => base.endsWith(m)) ?? base];
  return [name];
}

/** DynamicBrokerConfig.overrideProps: puts `over` into `props`, each value removing its synonyms first. */
export function overrideProps(props: Map<string, string>, over: ReadonlyMap<string, string>): void {
  for (const [k, v] of over) {
    for (const s of brokerConfigSynonyms(k, false)) props.delete(s);
    props.set(k, v);
  }
}

/** kmock setting -> its Kafka name. */
const SETTING_NAMES: ReadonlyMap<keyof BrokerConfig, string> = new Map(KMOCK_BROKER_SETTINGS.map((k) => [k.setting, k.name]));

export class DynamicBrokerConfigs {
  /** name -> value as given, per-broker (DYNAMIC_BROKER_CONFIG). */
  readonly perBroker = new Map<string, string>();
  /** name -> value as given, cluster default (DYNAMIC_DEFAULT_BROKER_CONFIG). */
  readonly clusterDefault = new Map<string, string>();
  /**
   * Configs set on a BROKER resource that names this node otherwise than by its id ("01", "+1"):
   * Kafka's controller keeps them under that name, and its broker never applies them (it reads
   * only the resources named "" and its own id). Kept so that the next change of that resource
   * starts from them; never applied nor described.
   */
  readonly otherBrokerResources = new Map<string, Map<string, string>>();
  /** Client-metrics subscriptions (CLIENT_METRICS resources): name -> configs as given. */
  readonly clientMetrics = new Map<string, Map<string, string>>();
  /** The broker's loggers and their levels (BROKER_LOGGER resources; not persisted, as on Kafka). */
  readonly loggers = new BrokerLoggers();
  /** The static settings by Kafka name (those that differ from Kafka's defaults). */
  readonly staticSettings: ReadonlyMap<string, string>;
  private merged: Map<string, string>;
  private topicDefaults: Map<string, string>;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly config: BrokerConfig,
    private readonly logDefaults: BrokerLogDefaults,
  ) {
    this.staticSettings = kmockStaticSettings(config);
    this.merged = this.mergedWith();
    this.topicDefaults = brokerTopicDefaults((n) => this.merged.get(n));
  }

  /** The effective dynamic value of broker config `name` (per-broker over the cluster default), if any. */
  get(name: string): string | undefined {
    return this.perBroker.get(name) ?? this.clusterDefault.get(name);
  }

  /** One scope's configs as given. */
  layer(scope: BrokerConfigScope): ReadonlyMap<string, string> {
    return scope === 'broker' ? this.perBroker : this.clusterDefault;
  }

  /** Sets (value) or removes (null) one dynamic broker config; then recomputes the log defaults. */
  set(scope: BrokerConfigScope, name: string, value: string | null): void {
    const m = scope === 'broker' ? this.perBroker : this.clusterDefault;
    if (value === null) m.delete(name);
    else m.set(name, value);
    this.changed();
  }

  /** Replaces one scope's configs with `values` (what an accepted AlterConfigs leaves); one change. */
  replace(scope: BrokerConfigScope, values: ReadonlyMap<string, string>): void {
    const m = scope === 'broker' ? this.perBroker : this.clusterDefault;
    m.clear();
    for (const [k, v] of values) m.set(k, v);
    this.changed();
  }

  /** Sets one client-metrics subscription's configs (none left: the subscription is gone). */
  setClientMetrics(name: string, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.clientMetrics.delete(name);
    else this.clientMetrics.set(name, new Map(configs));
    this.changed();
  }

  /**
   * The broker's configs by Kafka name as its current KafkaConfig holds them (static settings,
   * the cluster default over them, the per-broker configs over both); absent: Kafka's default.
   */
  current(): ReadonlyMap<string, string> {
    return this.merged;
  }

  /**
   * What current() would be with `layer` as the configs of `scope` (DynamicBrokerConfig.
   * validatedKafkaProps, the config a change is validated against).
   */
  mergedWith(scope?: BrokerConfigScope, layer?: ReadonlyMap<string, string>): Map<string, string> {
    const props = new Map(this.staticSettings);
    overrideProps(props, scope === 'cluster-default' && layer ? layer : this.clusterDefault);
    overrideProps(props, scope === 'broker' && layer ? layer : this.perBroker);
    return props;
  }

  /**
   * A kmock setting as the broker's current config holds it: its dynamic value (per broker, else
   * the cluster default) when one is set for it, parsed to the setting's type, else the static
   * setting. For code that reads a setting Kafka lets change at run time
   * (transaction.partition.verification.enable, log.cleaner.backoff.ms, ...) each time it needs it;
   * the topic configs' synonyms reach the log through services.logDefaults already.
   */
  setting<K extends keyof BrokerConfig>(key: K): BrokerConfig[K] {
    const name = SETTING_NAMES.get(key);
    const dynamic = name === undefined ? undefined : this.get(name);
    if (name === undefined || dynamic === undefined) return this.config[key];
    const catalog = KMOCK_BROKER_SETTINGS.find((k) => k.name === name)!;
    const p = parseType(name, dynamic, catalog.type);
    if ('error' in p) return this.config[key];
    const v = p.value;
    return (typeof v === 'bigint' ? Number(v) : Array.isArray(v) ? v.join(',') : v) as BrokerConfig[K];
  }

  /** The broker's value of topic config `name` (KafkaConfig.extractLogConfigMap), as text. */
  topicDefault(name: string): string | undefined {
    return this.topicDefaults.get(name);
  }

  /** Every dynamic broker config, for the data dir. */
  entries(): SavedDynamicConfigs {
    return {
      broker: [...this.perBroker],
      clusterDefault: [...this.clusterDefault],
      clientMetrics: [...this.clientMetrics].map(([name, m]) => [name, [...m]]),
    };
  }

  /** Restores what entries() gave (a restart with a data dir). */
  load(saved: SavedDynamicConfigs): void {
    this.perBroker.clear();
    this.clusterDefault.clear();
    this.clientMetrics.clear();
    for (const [k, v] of saved.broker) this.perBroker.set(k, v);
    for (const [k, v] of saved.clusterDefault) this.clusterDefault.set(k, v);
    for (const [name, configs] of saved.clientMetrics ?? []) this.clientMetrics.set(name, new Map(configs));
    this.changed();
  }

  /** Called after every change (the data dir saves them). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    this.merged = this.mergedWith();
    this.topicDefaults = brokerTopicDefaults((n) => this.merged.get(n));
    this.logDefaults.replace(this.topicDefaults);
    for (const l of this.listeners) l();
  }
}
