// The contract between a connection's SASL authenticator (../sasl-authenticator.ts, Kafka's
// SaslServerAuthenticator) and the mechanisms (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER), each a
// javax.security.sasl.SaslServer in Kafka.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import type { ScramCredentialStore } from './scram-credentials.js';

/** One authentication exchange on one connection (a fresh one per handshake, re-authentication too). */
export interface SaslServer {
  readonly mechanism: string;
  /**
   * One client token in, the server's challenge out (an empty buffer when it has none). Throws
   * SaslAuthenticationError (its message goes to the client as Kafka's does) or SaslMechanismError
   * (the client gets Kafka's generic "Authentication failed during authentication due to invalid
   * credentials with SASL mechanism X", never the cause, which may say whether the user exists).
   */
  evaluate(token: Buffer): Buffer;
  /** True once the exchange succeeded. */
  readonly complete: boolean;
  /** The authenticated name once complete (the principal is `User:<name>`). */
  readonly authorizationId: string;
  /** OAUTHBEARER: when the token expires (epoch ms on the broker clock), once complete. */
  readonly credentialExpiresAtMs?: number;
}

/** Kafka's SaslAuthenticationException: the message is sent to the client. */
export class SaslAuthenticationError extends Error {
  override readonly name = 'SaslAuthenticationError';
}

/** Kafka's javax.security.sasl.SaslException: the client gets the generic message only. */
export class SaslMechanismError extends Error {
  override readonly name = 'SaslMechanismError';
}

/** The mechanisms of every SASL listener of a broker. */
export interface SaslMechanisms {
  /** The mechanisms a listener serves, in sasl.enabled.mechanisms order (the handshake's list). */
  enabled(listenerName: string): string[];
  /** A fresh server for one exchange; undefined when the mechanism is not enabled on the listener. */
  create(listenerName: string, mechanism: string): SaslServer | undefined;
}

export interface SaslMechanismDeps {
  config: BrokerConfig;
  scram: ScramCredentialStore;
  /** The broker clock's now() (OAUTHBEARER's exp/iat checks). */
  now(): number;
  log: Logger;
}
