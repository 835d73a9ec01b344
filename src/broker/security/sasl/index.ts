// The SASL mechanisms of a broker's SASL listeners: which ones each listener offers
// (sasl.enabled.mechanisms, per listener), and a fresh server per exchange with its users:
// PLAIN from the listener's PlainLoginModule JAAS config and `sasl.users`; SCRAM from the
// credential store (`sasl.users` at start, AlterUserScramCredentials at run time); OAUTHBEARER
// with the unsecured validator and the options of the listener's oauthbearer JAAS config.
import { ConfigError, type BrokerConfig } from '../../config.js';
import { listenerSettings } from '../listener-settings.js';
import { parseJaasConfig, plainUsers, type JaasEntry } from './jaas.js';
import type { SaslMechanismDeps, SaslMechanisms, SaslServer } from './mechanism.js';
import { OAuthBearerSaslServer, validatorOptions } from './oauthbearer.js';
import { PlainSaslServer } from './plain.js';
import { ScramSaslServer } from './scram.js';
import { credentialFromPassword, isScramMechanism, SCRAM_MECHANISMS } from './scram-credentials.js';

/** The mechanisms kmock can serve. */
export const SERVED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;

/** Iterations of the SCRAM credentials `sasl.users` creates (ScramMechanism's minimum). */
const SASL_USERS_ITERATIONS = 4096;

/** sasl.users: "name:password,..." (a password may hold ':' but not ','). */
export function parseSaslUsers(text: string | null): Map<string, string> {
  const users = new Map<string, string>();
  for (const entry of (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const i = entry.indexOf(':');
    if (i <= 0 || i === entry.length - 1) throw new ConfigError('sasl.users: each entry is name:password');
    users.set(entry.slice(0, i), entry.slice(i + 1));
  }
  return users;
}

function enabledOn(config: BrokerConfig, listener: string): string[] {
  const text = listenerSettings(config, listener).get('sasl.enabled.mechanisms') ?? '';
  return text.split(',').map((m) => m.trim().toUpperCase()).filter((m) => m !== '');
}

/** What the listeners enable that kmock cannot serve (GSSAPI, or any other name), for the one warning at start. */
export function unservableMechanisms(config: BrokerConfig, listeners: readonly string[]): string[] {
  const out = new Set<string>();
  for (const l of listeners) for (const m of enabledOn(config, l)) if (!(SERVED_MECHANISMS as readonly string[]).includes(m)) out.add(m);
  return [...out];
}

function jaasFor(config: BrokerConfig, listener: string, mechanism: string): JaasEntry[] {
  const setting = `listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config`;
  const text = listenerSettings(config, listener).getForMechanism(mechanism, 'sasl.jaas.config');
  return text === undefined ? [] : parseJaasConfig(text, setting);
}

export function createSaslMechanisms(deps: SaslMechanismDeps): SaslMechanisms {
  const { config, scram } = deps;
  const saslUsers = parseSaslUsers(config.saslUsers);
  for (const [user, password] of saslUsers) {
    for (const m of SCRAM_MECHANISMS) scram.set(user, m, credentialFromPassword(m, password, SASL_USERS_ITERATIONS));
  }
  // Each listener's offer and PLAIN users, read (and checked) once at start.
  const perListener = new Map<string, { enabled: string[]; plain: Map<string, string>; oauth: ReturnType<typeof validatorOptions> }>();
  const listenerOf = (name: string) => {
    let l = perListener.get(name);
    if (l === undefined) {
      const enabled = enabledOn(config, name).filter((m) => (SERVED_MECHANISMS as readonly string[]).includes(m));
      const plain = new Map([...saslUsers, ...plainUsers(jaasFor(config, name, 'PLAIN'))]);
      const oauth = validatorOptions(jaasFor(config, name, 'OAUTHBEARER')[0]?.options ?? new Map());
      perListener.set(name, (l = { enabled, plain, oauth }));
    }
    return l;
  };
  return {
    enabled: (listener) => listenerOf(listener).enabled,
    create: (listener, mechanism): SaslServer | undefined => {
      const l = listenerOf(listener);
      if (!l.enabled.includes(mechanism)) return undefined;
      if (mechanism === 'PLAIN') return new PlainSaslServer((user) => l.plain.get(user));
      if (isScramMechanism(mechanism)) return new ScramSaslServer(mechanism, (user) => scram.get(user, mechanism));
      if (mechanism === 'OAUTHBEARER') return new OAuthBearerSaslServer(l.oauth, deps.now);
      return undefined;
    },
  };
}
