// The broker's static configuration as Kafka names it: what a server.properties for the same
// broker would hold (DynamicBrokerConfig.staticBrokerConfigs, the STATIC_BROKER_CONFIG layer).
// kmock writes a setting there when its value differs from Kafka's catalog default: a setting the
// user gave, or one whose kmock default differs from Kafka's on purpose (queued.max.request.bytes:
// 256 MiB instead of -1), so DescribeConfigs reports the value kmock really uses, as a static one.
import type { BrokerConfig } from '../config.js';
import { KMOCK_BROKER_SETTINGS } from './broker-configs.js';

/** Long.MAX_VALUE as Kafka prints it (a JS number cannot hold it exactly). */
const LONG_MAX = '9223372036854775807';

/** A setting's value as the text a properties file would hold. */
export function settingText(v: unknown): string {
  if (typeof v === 'number' && v >= 9223372036854775807) return LONG_MAX;
  return String(v);
}

/** Kafka name -> text of every kmock setting whose value differs from Kafka's default. */
export function kmockStaticSettings(c: BrokerConfig): Map<string, string> {
  const m = new Map<string, string>();
  for (const { name, setting, defaultValue } of KMOCK_BROKER_SETTINGS) {
    const v = c[setting];
    if (v === null || v === undefined) continue;
    const t = settingText(v);
    if (t !== defaultValue) m.set(name, t);
  }
  return m;
}
