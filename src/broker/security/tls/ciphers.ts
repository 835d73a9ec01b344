// ssl.cipher.suites and ssl.enabled.protocols in node:tls terms. Kafka passes both to the JSSE
// SSLEngine (DefaultSslEngineFactory.createSslEngine: setEnabledCipherSuites /
// setEnabledProtocols), so users write JSSE (IANA) suite names; OpenSSL names TLS 1.2 suites its
// own way, and node takes TLS 1.3 suites in `ciphers` under their IANA names.
import { getCiphers } from 'node:tls';
import type { SecureVersion } from 'node:tls';
import { ConfigError } from '../../config.js';

const TLS13 = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_CCM_SHA256', 'TLS_AES_128_CCM_8_SHA256']);
/** Signalling values JSSE lists among its suites; they are not ciphers, OpenSSL sends them itself. */
const SIGNALLING = new Set(['TLS_EMPTY_RENEGOTIATION_INFO_SCSV', 'TLS_FALLBACK_SCSV']);
const KEY_EXCHANGE: Record<string, string> = { ECDHE_RSA: 'ECDHE-RSA-', ECDHE_ECDSA: 'ECDHE-ECDSA-', DHE_RSA: 'DHE-RSA-', DHE_DSS: 'DHE-DSS-', RSA: '' };

/**
 * The OpenSSL name of a JSSE TLS 1.2 suite, by OpenSSL's naming scheme: key exchange (plain RSA
 * has none), cipher with the key size glued on, then the MAC; CBC suites drop "CBC" and the SHA-1
 * MAC keeps "SHA"; ChaCha20 suites drop the MAC (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 ->
 * ECDHE-RSA-AES128-GCM-SHA256, TLS_RSA_WITH_AES_256_CBC_SHA -> AES256-SHA,
 * TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 -> ECDHE-ECDSA-CHACHA20-POLY1305).
 */
export function opensslCipherName(jsse: string): string | undefined {
  const m = /^(?:TLS|SSL)_(\w+?)_WITH_(AES_128|AES_256|CHACHA20_POLY1305|CAMELLIA_128|CAMELLIA_256|ARIA_128|ARIA_256)_(GCM_|CBC_|CCM_8|CCM)?(SHA384|SHA256|SHA)?$/.exec(jsse);
  if (m === null) return undefined;
  const [, kx, cipher, mode = '', mac = ''] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const prefix = KEY_EXCHANGE[kx];
  if (prefix === undefined) return undefined;
  if (cipher === 'CHACHA20_POLY1305') return `${prefix}CHACHA20-POLY1305`;
  const c = cipher.replace('_', '');
  if (mode === 'GCM_') return `${prefix}${c}-GCM-${mac}`;
  if (mode.startsWith('CCM')) return `${prefix}${c}-${mode.replace('_', '')}`;
  return `${prefix}${c}-${mac}`;
}

/** node's `ciphers` for ssl.cipher.suites (empty: node's defaults). Throws ConfigError naming the unknown suites. */
export function nodeCiphers(listener: string, cipherSuites: string | undefined): string | undefined {
  const names = splitList(cipherSuites);
  if (names.length === 0) return undefined;
  const known = new Set(getCiphers().map((c) => c.toUpperCase()));
  const out: string[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    if (SIGNALLING.has(name)) continue;
    const openssl = TLS13.has(name) ? name : opensslCipherName(name);
    if (openssl === undefined || !known.has(openssl.toUpperCase())) unknown.push(name);
    else out.push(openssl);
  }
  if (unknown.length > 0) {
    throw new ConfigError(`listener ${listener}: ssl.cipher.suites has suites this broker (OpenSSL) does not know: ${unknown.join(', ')} (use JSSE/IANA names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_AES_128_GCM_SHA256)`);
  }
  if (out.length === 0) throw new ConfigError(`listener ${listener}: ssl.cipher.suites names no cipher`);
  return out.join(':');
}

const SERVABLE: readonly SecureVersion[] = ['TLSv1.2', 'TLSv1.3'];

/**
 * minVersion/maxVersion for ssl.enabled.protocols. OpenSSL 3 at its default security level will
 * not negotiate TLS 1.0/1.1, so those are dropped; a list with nothing servable is an error
 * rather than a listener no client can reach. Node takes a range, so TLSv1.2,TLSv1.3 is both.
 */
export function protocolRange(listener: string, enabledProtocols: string | undefined): { minVersion: SecureVersion; maxVersion: SecureVersion } {
  const names = splitList(enabledProtocols);
  if (names.length === 0) return { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' };
  const unknown = names.filter((n) => !['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3', 'SSLv3', 'SSLv2Hello', 'TLS'].includes(n));
  if (unknown.length > 0) throw new ConfigError(`listener ${listener}: ssl.enabled.protocols has unknown protocols: ${unknown.join(', ')} (TLSv1.2, TLSv1.3)`);
  const servable = SERVABLE.filter((v) => names.includes(v) || names.includes('TLS'));
  if (servable.length === 0) {
    throw new ConfigError(`listener ${listener}: ssl.enabled.protocols=${names.join(',')} has no protocol this broker can serve (TLSv1.2, TLSv1.3)`);
  }
  return { minVersion: servable[0] as SecureVersion, maxVersion: servable[servable.length - 1] as SecureVersion };
}

export function splitList(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}
