// What the security code shares: the security protocols of Kafka's listeners, a listener as
// configured, and the principal a connection authenticated as.
//
// Kafka: org.apache.kafka.common.security.auth.SecurityProtocol, EndPoint (listener name,
// protocol, host, port), KafkaPrincipal ("User:alice"; ANONYMOUS on PLAINTEXT and on SSL without a
// client certificate).

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

export function isTlsProtocol(p: SecurityProtocol): boolean {
  return p === 'SSL' || p === 'SASL_SSL';
}

export function isSaslProtocol(p: SecurityProtocol): boolean {
  return p === 'SASL_PLAINTEXT' || p === 'SASL_SSL';
}

/** One entry of `listeners` with its protocol (listener.security.protocol.map) and advertised address. */
export interface ListenerSpec {
  /** The listener name, upper case as Kafka keeps it (PLAINTEXT, SASL_SSL, or a custom name like CLIENT). */
  name: string;
  protocol: SecurityProtocol;
  /** Where to bind ('' in `listeners` binds every interface, as Kafka's does). */
  host: string;
  /** 0: an ephemeral port (tests). */
  port: number;
  /** From advertised.listeners, else the bound host. */
  advertisedHost: string;
  /** From advertised.listeners; undefined: the bound port. */
  advertisedPort: number | undefined;
}

/** A principal as Kafka prints it: "User:alice". */
export type PrincipalName = string;

/** KafkaPrincipal.ANONYMOUS: what PLAINTEXT connections (and SSL without a client certificate) are. */
export const ANONYMOUS: PrincipalName = 'User:ANONYMOUS';

export function userPrincipal(name: string): PrincipalName {
  return `User:${name}`;
}
