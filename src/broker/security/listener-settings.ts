// Kafka's per-listener settings: `listener.name.<listener, lower case>.<key>` wins over `<key>`
// (KafkaConfig.valuesWithPrefixOverride), and for SASL the JAAS config and callback handlers take
// the mechanism too: `listener.name.<listener>.<mechanism, lower case>.sasl.jaas.config`
// (JaasContext.loadServerContext; a broker has no unprefixed server JAAS config).
import type { BrokerConfig } from '../config.js';
import { settingText } from '../config/static-settings.js';
import { KMOCK_BROKER_SETTINGS } from '../config/broker-configs.js';

/** The settings of one listener: what its TLS and SASL code read. */
export interface ListenerSettings {
  readonly listenerName: string;
  /** `listener.name.<l>.<key>`, else the broker setting `<key>` (unset: undefined). */
  get(key: string): string | undefined;
  /** `listener.name.<l>.<mechanism>.<key>` only (the JAAS config has no broker-wide fallback). */
  getForMechanism(mechanism: string, key: string): string | undefined;
}

const SETTING_OF = new Map(KMOCK_BROKER_SETTINGS.map((k) => [k.name, k.setting]));

export function listenerSettings(config: BrokerConfig, listenerName: string): ListenerSettings {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const overrides = config.listenerOverrides;
  const broker = (key: string): string | undefined => {
    const setting = SETTING_OF.get(key);
    if (setting === undefined) return undefined;
    const v = config[setting];
    return v === null || v === undefined ? undefined : settingText(v);
  };
  return {
    listenerName,
    get: (key) => (Object.hasOwn(overrides, prefix + key) ? overrides[prefix + key] : broker(key)),
    getForMechanism: (mechanism, key) => {
      const k = `${prefix}${mechanism.toLowerCase()}.${key}`;
      return Object.hasOwn(overrides, k) ? overrides[k] : undefined;
    },
  };
}
