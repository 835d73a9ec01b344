// A listener's tls.createServer options from Kafka's ssl.* settings, following
// DefaultSslEngineFactory: the keystore (PEM file, inline PEM, PKCS12; JKS refused with the
// keytool line that converts it), the truststore (PEM file, inline PEM, PKCS12),
// ssl.client.auth, ssl.enabled.protocols and ssl.cipher.suites.
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext, type TlsOptions } from 'node:tls';
import { ConfigError } from '../../config.js';
import type { ListenerSettings } from '../listener-settings.js';
import { nodeCiphers, protocolRange } from './ciphers.js';
import { pkcs12Certificates, pkcs12KeyAndChain } from './pkcs12-certificates.js';
import type { DevCertificate } from './dev-certificate.js';

export function tlsServerOptions(settings: ListenerSettings, dev: DevCertificate | undefined): TlsOptions {
  const name = settings.listenerName;
  const options: TlsOptions = { ...keystoreOptions(settings, dev), ...protocolRange(name, settings.get('ssl.enabled.protocols')) };
  const ciphers = nodeCiphers(name, settings.get('ssl.cipher.suites'));
  if (ciphers !== undefined) {
    // Node (like JSSE) keeps the TLS 1.3 and TLS 1.2 suites apart: with none of a version's suites
    // that version can't be negotiated, and a listener left with no version could never handshake.
    const has13 = ciphers.split(':').some((c) => c.startsWith('TLS_'));
    const has12 = ciphers.split(':').some((c) => !c.startsWith('TLS_'));
    const usable = (has13 && options.maxVersion === 'TLSv1.3') || (has12 && options.minVersion === 'TLSv1.2');
    if (!usable) throw new ConfigError(`listener ${name}: none of ssl.cipher.suites is usable with ssl.enabled.protocols ${options.minVersion === options.maxVersion ? options.minVersion : `${options.minVersion}-${options.maxVersion}`} (TLS 1.3 suites are TLS_AES_*/TLS_CHACHA20_*, the others are TLS 1.2's)`);
    options.ciphers = ciphers;
  }
  const ca = truststore(settings, dev);
  if (ca !== undefined) options.ca = ca;
  Object.assign(options, clientAuth(name, settings.get('ssl.client.auth')));
  return options;
}

/**
 * ssl.client.auth as the SSLEngine takes it (SslFactory / DefaultSslEngineFactory.createSslEngine):
 * required is setNeedClientAuth (no or a bad certificate fails the handshake), requested is
 * setWantClientAuth (none is fine, a bad one still fails: node only reports it, so the server
 * must check `requestedClientCertError` after the handshake), none asks for nothing.
 */
export function clientAuth(listener: string, value: string | undefined): Pick<TlsOptions, 'requestCert' | 'rejectUnauthorized'> {
  switch ((value ?? 'none').trim().toLowerCase()) {
    case 'required':
      return { requestCert: true, rejectUnauthorized: true };
    case 'requested':
      return { requestCert: true, rejectUnauthorized: false };
    case 'none':
      return { requestCert: false, rejectUnauthorized: false };
    default:
      throw new ConfigError(`listener ${listener}: ssl.client.auth=${value} (none, requested or required)`);
  }
}

function keystoreOptions(settings: ListenerSettings, dev: DevCertificate | undefined): Pick<TlsOptions, 'key' | 'cert' | 'pfx' | 'passphrase'> {
  const name = settings.listenerName;
  let type = (settings.get('ssl.keystore.type') ?? 'JKS').trim().toUpperCase();
  const location = settings.get('ssl.keystore.location');
  const inlineKey = settings.get('ssl.keystore.key');
  const inlineChain = settings.get('ssl.keystore.certificate.chain');
  const keyPassword = settings.get('ssl.key.password');
  const storePassword = settings.get('ssl.keystore.password');
  if (location === undefined && inlineKey === undefined && inlineChain === undefined) {
    if (dev !== undefined) return { key: dev.keyPem, cert: dev.certPem };
    const lower = name.toLowerCase();
    throw new ConfigError(`listener ${name} (SSL) has no keystore: set ssl.keystore.location (or listener.name.${lower}.ssl.keystore.location), or start with --tls`);
  }
  if (inlineKey !== undefined || inlineChain !== undefined) {
    // Kafka: ssl.keystore.key/certificate.chain are PEM only and exclude ssl.keystore.location.
    if (inlineKey === undefined || inlineChain === undefined) throw new ConfigError(`listener ${name}: ssl.keystore.key and ssl.keystore.certificate.chain go together`);
    if (location !== undefined) throw new ConfigError(`listener ${name}: ssl.keystore.location and ssl.keystore.key both set: use one`);
    if (type !== 'PEM') throw new ConfigError(`listener ${name}: ssl.keystore.key needs ssl.keystore.type=PEM (it is ${type})`);
    return pemKeystore(name, inlineKey, inlineChain, keyPassword, 'ssl.keystore.key');
  }
  const path = location as string;
  const bytes = readStore(name, 'ssl.keystore.location', path);
  type = jksOrPkcs12(name, 'keystore', type, path, bytes);
  if (type === 'PEM') {
    // Kafka's PEM keystore file holds the private key and the certificate chain together.
    const text = bytes.toString('utf8');
    return pemKeystore(name, text, text, keyPassword, `ssl.keystore.location ${path}`);
  }
  if (type === 'PKCS12') {
    // Node's pfx takes one passphrase for the store and its key (keytool's PKCS12 uses the store
    // password for both); a key under its own ssl.key.password is decrypted separately.
    const passphrase = storePassword ?? keyPassword;
    try {
      createSecureContext({ pfx: bytes, passphrase }); // a wrong password or a keyless store shows at start
      return { pfx: bytes, passphrase };
    } catch (e) {
      if (keyPassword !== undefined && keyPassword !== passphrase) {
        try {
          return pkcs12KeyAndChain(bytes, storePassword ?? '', keyPassword);
        } catch {
          // report the plain failure below
        }
      }
      throw new ConfigError(`listener ${name}: cannot read the PKCS12 keystore ${path}: ${(e as Error).message} (ssl.keystore.password, ssl.key.password)`);
    }
  }
  throw new ConfigError(`listener ${name}: ssl.keystore.type=${type} (PEM, PKCS12)`);
}

function pemKeystore(listener: string, keyText: string, chainText: string, password: string | undefined, where: string): { key: string; cert: string } {
  const found = /-----BEGIN (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----/.exec(keyText)?.[0];
  const keyPem = found === undefined ? undefined : rewrapPem(found);
  if (keyPem === undefined) throw new ConfigError(`listener ${listener}: ${where} holds no PEM private key`);
  const certs = pemCertificates(chainText);
  if (certs.length === 0) throw new ConfigError(`listener ${listener}: ${where} holds no PEM certificate`);
  let key: string;
  try {
    // Decrypting here turns a wrong ssl.key.password into a ConfigError at start, not a handshake failure.
    key = createPrivateKey({ key: keyPem, format: 'pem', ...(password !== undefined ? { passphrase: password } : {}) }).export({ type: 'pkcs8', format: 'pem' }) as string;
  } catch (e) {
    const hint = keyPem.includes('ENCRYPTED') ? (password === undefined ? ' (it is encrypted: set ssl.key.password)' : ' (wrong ssl.key.password?)') : '';
    throw new ConfigError(`listener ${listener}: cannot read the private key of ${where}: ${(e as Error).message}${hint}`);
  }
  return { key, cert: certs.join('\n') };
}

export function pemCertificates(text: string): string[] {
  return (text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(rewrapPem);
}

/**
 * One PEM block with its base64 body in 64-character lines. Kafka's PEM reader
 * (DefaultSslEngineFactory.PemStore) ignores the whitespace in the body, so a key or certificate
 * written on one line (spaces for newlines, as KIP-651 shows in server.properties) works there;
 * OpenSSL needs the lines.
 */
function rewrapPem(block: string): string {
  const m = /^(-----BEGIN [^-]+-----)([\s\S]*?)(-----END [^-]+-----)$/.exec(block.trim());
  if (m === null) return block;
  const [, begin, body, end] = m;
  // An encrypted PKCS#1 key carries "Proc-Type:"/"DEK-Info:" headers: those stay as they are.
  if (body.includes(':')) return block;
  const b64 = body.replace(/\s+/g, '');
  return `${begin}\n${b64.match(/.{1,64}/g)?.join('\n') ?? ''}\n${end}\n`;
}

function truststore(settings: ListenerSettings, dev: DevCertificate | undefined): string[] | undefined {
  const name = settings.listenerName;
  const type = (settings.get('ssl.truststore.type') ?? 'JKS').trim().toUpperCase();
  const location = settings.get('ssl.truststore.location');
  const inline = settings.get('ssl.truststore.certificates');
  if (inline !== undefined) {
    if (location !== undefined) throw new ConfigError(`listener ${name}: ssl.truststore.location and ssl.truststore.certificates both set: use one`);
    return checkedCerts(name, pemCertificates(inline), 'ssl.truststore.certificates');
  }
  // No truststore: the JVM's default CAs in Kafka; here the dev CA (mTLS with --tls certificates) else node's defaults.
  if (location === undefined) return dev !== undefined ? [dev.caPem] : undefined;
  const bytes = readStore(name, 'ssl.truststore.location', location);
  const resolved = jksOrPkcs12(name, 'truststore', type, location, bytes);
  if (resolved === 'PEM') return checkedCerts(name, pemCertificates(bytes.toString('utf8')), `ssl.truststore.location ${location}`);
  if (resolved === 'PKCS12') {
    try {
      return checkedCerts(name, pkcs12Certificates(bytes, settings.get('ssl.truststore.password') ?? ''), `ssl.truststore.location ${location}`);
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError(`listener ${name}: cannot read the PKCS12 truststore ${location}: ${(e as Error).message}`);
    }
  }
  throw new ConfigError(`listener ${name}: ssl.truststore.type=${type} (PEM, PKCS12)`);
}

function checkedCerts(listener: string, certs: string[], where: string): string[] {
  if (certs.length === 0) throw new ConfigError(`listener ${listener}: ${where} holds no PEM certificate`);
  for (const c of certs) {
    try {
      new X509Certificate(c);
    } catch (e) {
      throw new ConfigError(`listener ${listener}: ${where} has a certificate that does not parse: ${(e as Error).message}`);
    }
  }
  return certs;
}

const JKS_MAGIC = [0xfeedfeed, 0xcececece]; // JKS, JCEKS

/**
 * JKS (Kafka's default store type) is not readable here. But a JVM's "JKS" KeyStore also loads
 * PKCS12 files (keystore.type.compat, Java 9+), so a PKCS12 file under the default type works in
 * Kafka: it does here too; a real JKS file gets the keytool line that converts it.
 */
function jksOrPkcs12(listener: string, store: 'keystore' | 'truststore', type: string, path: string, bytes: Buffer): string {
  if (type !== 'JKS') return type;
  if (bytes.length >= 4 && !JKS_MAGIC.includes(bytes.readUInt32BE(0)) && bytes[0] === 0x30) return 'PKCS12';
  throw new ConfigError(`listener ${listener}: ssl.${store}.type JKS is not supported; convert the ${store} to PKCS12 with \`keytool -importkeystore -srckeystore ${path} -destkeystore ${path.replace(/\.jks$/i, '')}.p12 -deststoretype PKCS12\` and set ssl.${store}.type=PKCS12`);
}

function readStore(listener: string, setting: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new ConfigError(`listener ${listener}: ${setting}=${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

