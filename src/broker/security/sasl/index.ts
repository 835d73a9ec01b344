// The SASL mechanisms of a broker's listeners (Kafka's SaslChannelBuilder + per-mechanism server
// callback handlers): a listener's sasl.enabled.mechanisms minus GSSAPI, which kmock cannot serve.
import type { BrokerConfig } from '../../config.js';
import { listenerSettings } from '../listener-settings.js';
import { jaasOption, parseJaasConfig, type JaasEntry } from './jaas.js';
import type { SaslMechanismDeps, SaslMechanisms, SaslServer } from './mechanism.js';
import { createOAuthBearerServer, unsecuredValidatorOptions } from './oauthbearer.js';
import { createPlainServer } from './plain.js';
import { createScramServer } from './scram.js';
import { parseSaslUsers, type ScramMechanism } from './scram-credentials.js';

const UNSERVABLE = new Set(['GSSAPI']);
const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';

function listed(config: BrokerConfig, listenerName: string): string[] {
  const text = listenerSettings(config, listenerName).get('sasl.enabled.mechanisms') ?? '';
  return text.split(',').map((m) => m.trim().toUpperCase()).filter((m) => m !== '');
}

/** The mechanisms each listener names that kmock drops (GSSAPI), for one warning at start. */
export function unservableMechanisms(config: BrokerConfig, listenerNames: readonly string[]): Array<{ listener: string; mechanism: string }> {
  return listenerNames.flatMap((l) => listed(config, l).filter((m) => UNSERVABLE.has(m)).map((mechanism) => ({ listener: l, mechanism })));
}

export function createSaslMechanisms(deps: SaslMechanismDeps): SaslMechanisms {
  const { config, scram, tokens, now, log } = deps;
  scram.addUsers(config.saslUsers);
  const kmockUsers = new Map(parseSaslUsers(config.saslUsers).map((u) => [u.name, u.password]));
  const jaasCache = new Map<string, JaasEntry[]>();
  const jaas = (listener: string, mechanism: string): JaasEntry[] => {
    const key = `${listener}/${mechanism}`;
    let e = jaasCache.get(key);
    if (e === undefined) {
      const text = listenerSettings(config, listener).getForMechanism(mechanism, 'sasl.jaas.config');
      e = text === undefined ? [] : parseJaasConfig(text);
      jaasCache.set(key, e);
    }
    return e;
  };
  const enabled = (l: string): string[] => listed(config, l).filter((m) => !UNSERVABLE.has(m));
  return {
    enabled,
    create(listenerName: string, mechanism: string): SaslServer | undefined {
      const m = mechanism.toUpperCase();
      if (!enabled(listenerName).includes(m)) return undefined;
      switch (m) {
        case 'PLAIN': {
          const entries = jaas(listenerName, 'plain');
          return createPlainServer((user) => jaasOption(entries, `user_${user}`, PLAIN_LOGIN_MODULE) ?? kmockUsers.get(user));
        }
        case 'SCRAM-SHA-256':
        case 'SCRAM-SHA-512':
          return createScramServer(m as ScramMechanism, scram, tokens);
        case 'OAUTHBEARER': {
          const entries = jaas(listenerName, 'oauthbearer');
          const options = unsecuredValidatorOptions((k) => jaasOption(entries, k));
          return createOAuthBearerServer(options, now, (reason) => log.debug({ listener: listenerName, reason }, 'OAUTHBEARER token rejected'));
        }
        default:
          return undefined;
      }
    },
  };
}
