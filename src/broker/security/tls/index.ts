// TLS for SSL and SASL_SSL listeners: node:tls server options from Kafka's ssl.* settings, the
// principal of a client certificate (ssl.principal.mapping.rules), kmock's development
// certificate (`--tls`), and what a failed handshake means in words.
import type { TlsOptions, TLSSocket } from 'node:tls';
import type { ListenerSettings } from '../listener-settings.js';
import { ANONYMOUS, type PrincipalName } from '../types.js';

/** kmock's `--tls` certificate: a CA and a server certificate for the advertised hosts. */
export interface DevCertificate {
  /** The dir holding ca.pem, server.pem (the chain) and server.key. */
  dir: string;
  caPath: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * The tls.createServer options of one SSL / SASL_SSL listener from its settings (keystore,
 * truststore, ssl.client.auth, ssl.enabled.protocols, ssl.cipher.suites). A listener with no
 * keystore uses `dev` when given. Throws ConfigError saying what is wrong.
 */
export function tlsServerOptions(settings: ListenerSettings, dev: DevCertificate | undefined): TlsOptions {
  void settings;
  if (dev === undefined) throw new Error('TLS is not implemented yet');
  return { key: dev.keyPem, cert: dev.certPem };
}

/** The principal of a TLS connection: from its client certificate's DN by the mapping rules, else ANONYMOUS. */
export function sslPrincipal(socket: TLSSocket, mappingRules: string): PrincipalName {
  void socket;
  void mappingRules;
  return ANONYMOUS;
}

/** Makes (or reuses, when `dir` holds one) a CA and a certificate for `hosts`; writes them to `dir` (null: a new temp dir). */
export async function makeDevCertificate(hosts: readonly string[], dir: string | null): Promise<DevCertificate> {
  void hosts;
  void dir;
  throw new Error('--tls is not implemented yet');
}

/** A failed TLS handshake in words, for the one log line ("plaintext bytes on the SSL listener"). */
export function describeTlsClientError(err: Error & { code?: string }): string {
  return err.code ?? err.message;
}
