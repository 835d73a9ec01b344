// Dynamic configs: what IncrementalAlterConfigs and AlterConfigs change at run time, kept apart
// from the static settings (BrokerConfig) as Kafka's KRaft metadata keeps ConfigRecords apart from
// server.properties: topic overrides (held by each Topic's configs), per-broker dynamic configs
// (resource name = this node's id: DYNAMIC_BROKER_CONFIG) and the cluster default (empty resource
// name: DYNAMIC_DEFAULT_BROKER_CONFIG). A change to a broker config that is a topic config's
// synonym replaces services.logDefaults, so the log sees it at its next check (a new retention at
// the next retention check, as on Kafka). The data dir (storage) saves and loads `entries()`.
import type { BrokerConfig } from '../config.js';
import type { BrokerLogDefaults } from '../log/log-config.js';
import { staticTopicDefaults } from './topic-defaults.js';

/** Where a dynamic broker config applies. */
export type BrokerConfigScope = 'broker' | 'cluster-default';

export class DynamicBrokerConfigs {
  /** name -> value, per-broker (DYNAMIC_BROKER_CONFIG). */
  readonly perBroker = new Map<string, string>();
  /** name -> value, cluster default (DYNAMIC_DEFAULT_BROKER_CONFIG). */
  readonly clusterDefault = new Map<string, string>();
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly config: BrokerConfig,
    private readonly logDefaults: BrokerLogDefaults,
  ) {}

  /** The effective dynamic value of broker config `name` (per-broker over the cluster default), if any. */
  get(name: string): string | undefined {
    return this.perBroker.get(name) ?? this.clusterDefault.get(name);
  }

  /** Sets (value) or removes (null) one dynamic broker config; then recomputes the log defaults. */
  set(scope: BrokerConfigScope, name: string, value: string | null): void {
    const m = scope === 'broker' ? this.perBroker : this.clusterDefault;
    if (value === null) m.delete(name);
    else m.set(name, value);
    this.changed();
  }

  /** Every dynamic broker config, for the data dir. */
  entries(): { broker: Array<[string, string]>; clusterDefault: Array<[string, string]> } {
    return { broker: [...this.perBroker], clusterDefault: [...this.clusterDefault] };
  }

  /** Restores what entries() gave (a restart with a data dir). */
  load(saved: { broker: Array<[string, string]>; clusterDefault: Array<[string, string]> }): void {
    this.perBroker.clear();
    this.clusterDefault.clear();
    for (const [k, v] of saved.broker) this.perBroker.set(k, v);
    for (const [k, v] of saved.clusterDefault) this.clusterDefault.set(k, v);
    this.changed();
  }

  /** Called after every change (the data dir saves them). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    // TODO(dynamic configs): layer the dynamic synonyms over the static ones as
    // DynamicBrokerConfig does (log.retention.ms over .minutes over .hours, per-broker over default).
    this.logDefaults.replace(staticTopicDefaults(this.config));
    for (const l of this.listeners) l();
  }
}
