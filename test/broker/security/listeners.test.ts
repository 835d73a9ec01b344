// Kafka's listener settings as kmock reads them (security/listeners.ts): the parse and the
// refusals follow SocketServerConfigs.listenerListToEndPoints and CoreUtils' validation.
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig, applySetting, DEFAULT_CONFIG } from '../../../src/broker/config.js';
import { resolveListeners, parseProtocolMap } from '../../../src/broker/security/listeners.js';
import { listenerSettings } from '../../../src/broker/security/listener-settings.js';

describe('listeners', () => {
  it('defaults to one PLAINTEXT listener on host:port, SSL with --tls', () => {
    expect(resolveListeners(resolveConfig({ port: 9092 }))).toEqual([
      { name: 'PLAINTEXT', protocol: 'PLAINTEXT', host: '127.0.0.1', port: 9092, advertisedHost: '127.0.0.1', advertisedPort: undefined },
    ]);
    expect(resolveListeners(resolveConfig({ tls: true }))[0]).toMatchObject({ name: 'SSL', protocol: 'SSL' });
  });

  it('reads names, protocols and advertised addresses', () => {
    const c = resolveConfig({
      listeners: 'PLAINTEXT://127.0.0.1:9092, client://:9093,SASL_SSL://[::1]:9094',
      advertisedListeners: 'PLAINTEXT://kafka.local:19092,CLIENT://kafka.local:19093,SASL_SSL://kafka.local:19094',
      listenerSecurityProtocolMap: 'PLAINTEXT:PLAINTEXT,CLIENT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    });
    expect(resolveListeners(c)).toEqual([
      { name: 'PLAINTEXT', protocol: 'PLAINTEXT', host: '127.0.0.1', port: 9092, advertisedHost: 'kafka.local', advertisedPort: 19092 },
      { name: 'CLIENT', protocol: 'SASL_PLAINTEXT', host: '', port: 9093, advertisedHost: 'kafka.local', advertisedPort: 19093 },
      { name: 'SASL_SSL', protocol: 'SASL_SSL', host: '::1', port: 9094, advertisedHost: 'kafka.local', advertisedPort: 19094 },
    ]);
  });

  it('refuses what Kafka refuses, with its reason', () => {
    const bad = (o: Partial<typeof DEFAULT_CONFIG>) => () => resolveListeners(resolveConfig(o));
    expect(bad({ listeners: 'CLIENT://:9093' })).toThrow(/no security protocol defined for listener CLIENT/);
    expect(bad({ listeners: 'PLAINTEXT://x' })).toThrow(/unable to parse PLAINTEXT:\/\/x to a broker endpoint/);
    expect(bad({ listeners: 'PLAINTEXT://:9092,SSL://:9092' })).toThrow(/Each listener must have a different port/);
    expect(bad({ listeners: 'PLAINTEXT://:0,SSL://:0' })).not.toThrow();
    expect(bad({ listeners: 'PLAINTEXT://:1,PLAINTEXT://:2' })).toThrow(/Each listener must have a different name/);
    expect(bad({ listeners: 'PLAINTEXT://:1', advertisedListeners: 'PLAINTEXT://0.0.0.0:1' })).toThrow(/nonroutable meta-address/);
    expect(bad({ listeners: 'PLAINTEXT://:1', advertisedListeners: 'SSL://h:1' })).toThrow(/subset of the ones defined in listeners/);
    expect(() => parseProtocolMap('A:TLS')).toThrow(ConfigError);
  });

  it('takes listener.name.<l>.<key> over the broker setting, and the JAAS config per mechanism', () => {
    const c = { ...DEFAULT_CONFIG };
    applySetting(c, 'ssl.client.auth', 'requested');
    applySetting(c, 'listener.name.internal.ssl.client.auth', 'required');
    applySetting(c, 'listener.name.internal.plain.sasl.jaas.config', 'org.apache.kafka.common.security.plain.PlainLoginModule required user_a="b";');
    expect(listenerSettings(c, 'INTERNAL').get('ssl.client.auth')).toBe('required');
    expect(listenerSettings(c, 'EXTERNAL').get('ssl.client.auth')).toBe('requested');
    expect(listenerSettings(c, 'INTERNAL').getForMechanism('PLAIN', 'sasl.jaas.config')).toContain('user_a');
    expect(listenerSettings(c, 'EXTERNAL').getForMechanism('PLAIN', 'sasl.jaas.config')).toBeUndefined();
    expect(listenerSettings(c, 'INTERNAL').get('sasl.enabled.mechanisms')).toBe('GSSAPI');
    expect(() => applySetting(c, 'listener.name.x', 'y')).toThrow(ConfigError);
  });
});
