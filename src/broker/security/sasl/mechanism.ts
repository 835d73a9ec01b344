// The contract between a connection's SASL authenticator (../sasl-authenticator.ts, Kafka's
// SaslServerAuthenticator) and the mechanisms (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER), each a
// javax.security.sasl.SaslServer in Kafka.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config.js';
import type { ScramCredential, ScramCredentialStore, ScramMechanism } from './scram-credentials.js';

/** What a SCRAM server asks of the delegation tokens (DelegationTokenCache). */
export interface TokenCredentials {
  credential(tokenId: string, mechanism: ScramMechanism): { credential: ScramCredential; token: { owner: { name: string }; expiryTimestamp: number } } | undefined;
}

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
  /** OAUTHBEARER, or a delegation token's SCRAM login: when the credential expires (epoch ms on the broker clock), once complete. */
  readonly credentialExpiresAtMs?: number;
  /** SCRAM with tokenauth=true: the login was a delegation token's (KafkaPrincipal.tokenAuthenticated). */
  readonly tokenAuthenticated?: boolean;
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
  /** Delegation tokens' SCRAM credentials (tokenauth=true logins). */
  tokens?: TokenCredentials;
  /** The broker clock's now() (OAUTHBEARER's exp/iat checks). */
  now(): number;
  log: Logger;
}
