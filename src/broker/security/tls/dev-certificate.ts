// kmock's `--tls` certificates: a CA and a server certificate for the advertised hosts, made at
// start with @peculiar/x509 on node's WebCrypto (node:crypto makes keys but not certificates).
// Written to a dir (ca.pem for clients to trust) and reused while still good, so a client that
// trusts ca.pem keeps trusting it across restarts. ECDSA P-256: quick to make, and every Kafka
// client's TLS stack accepts it.
import { X509Certificate, createPrivateKey, type webcrypto as WebCrypto } from 'node:crypto';

// Node's global WebCrypto (the same object as node:crypto's webcrypto), read here rather than
// imported so that the CLI bundle's lazy node:crypto stand-in (scripts/bundle.mjs) is not in the way.
const webcrypto = globalThis.crypto as unknown as WebCrypto.Crypto;
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';

/** kmock's `--tls` certificate: a CA and a server certificate for the advertised hosts. */
export interface DevCertificate {
  /** The dir holding ca.pem, server.pem (the chain) and server.key. */
  dir: string;
  caPath: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  /** The CA's key (ca.key beside ca.pem): signs client certificates for mTLS tests and reuse. */
  caKeyPem: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

let loaded: Promise<typeof X509> | undefined;
/**
 * @peculiar/x509, loaded on first use: it is large and only `--tls` needs it, so a start without
 * it does not pay for it. It resolves its algorithms through tsyringe, which needs the Reflect
 * metadata API first.
 */
function x509Lib(): Promise<typeof X509> {
  loaded ??= (async () => {
    await import('reflect-metadata');
    const lib = await import('@peculiar/x509');
    lib.cryptoProvider.set(webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
    return lib;
  })();
  return loaded;
}

export async function makeDevCertificate(hosts: readonly string[], dir: string | null): Promise<DevCertificate> {
  const all = [...new Set([...hosts.filter((h) => h !== ''), 'localhost', '127.0.0.1'])];
  const target = dir ?? (await mkdtemp(join(tmpdir(), 'kmock-tls-')));
  await mkdir(target, { recursive: true });
  const reused = await reusable(target, all);
  if (reused !== undefined) return reused;
  const x509 = await x509Lib();
  const now = Date.now();
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as WebCrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: asn1Order(x509, 'CN=kmock development CA,O=kmock'),
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 825 * DAY_MS),
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const caPem = ca.toString('pem');
  const caKeyPem = await pkcs8Pem(x509, caKeys.privateKey);
  const server = await issue(x509, { caPem, caKeyPem }, 'CN=kmock', [
    new x509.SubjectAlternativeNameExtension(all.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }))),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ]);
  const out: DevCertificate = { dir: target, caPath: join(target, 'ca.pem'), caPem, caKeyPem, certPem: `${server.certPem}\n${caPem}`, keyPem: server.keyPem };
  await writeFile(out.caPath, caPem);
  await writeFile(join(target, 'server.pem'), out.certPem);
  await writeSecret(join(target, 'server.key'), out.keyPem);
  await writeSecret(join(target, 'ca.key'), caKeyPem);
  return out;
}

/** A client certificate signed by the dev CA (mTLS tests). `subject`: a CN, or a whole DN like "CN=alice,OU=eng,O=kmock,C=US". */
export async function makeClientCertificate(ca: Pick<DevCertificate, 'caPem' | 'caKeyPem'>, subject: string): Promise<{ certPem: string; keyPem: string }> {
  const name = subject.includes('=') ? subject : `CN=${escapeCn(subject)}`;
  const x509 = await x509Lib();
  return issue(x509, ca, name, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
}

async function issue(x509: typeof X509, ca: Pick<DevCertificate, 'caPem' | 'caKeyPem'>, subject: string, extensions: X509.Extension[]): Promise<{ certPem: string; keyPem: string }> {
  const caCert = new x509.X509Certificate(ca.caPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(ca.caKeyPem).export({ type: 'pkcs8', format: 'der' }), ALG, false, ['sign']);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as WebCrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: asn1Order(x509, subject),
    issuer: caCert.subjectName,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(Math.min(now + 397 * DAY_MS, caCert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ...extensions,
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await pkcs8Pem(x509, keys.privateKey) };
}

/** The certificates in `dir` when they are still good for `hosts` for more than a day, else undefined. */
async function reusable(dir: string, hosts: readonly string[]): Promise<DevCertificate | undefined> {
  try {
    const [caPem, certPem, keyPem, caKeyPem] = await Promise.all(['ca.pem', 'server.pem', 'server.key', 'ca.key'].map((f) => readFile(join(dir, f), 'utf8')));
    const ca = new X509Certificate(caPem as string);
    const server = new X509Certificate(certPem as string);
    const soon = Date.now() + DAY_MS;
    const good =
      ca.ca && server.checkIssued(ca) && server.verify(ca.publicKey) &&
      new Date(ca.validTo).getTime() > soon && new Date(server.validTo).getTime() > soon &&
      server.checkPrivateKey(createPrivateKey(keyPem as string)) &&
      ca.checkPrivateKey(createPrivateKey(caKeyPem as string)) &&
      hosts.every((h) => (isIP(h) ? server.checkIP(h) : server.checkHost(h, { wildcards: false })) !== undefined);
    if (!good) return undefined;
    return { dir, caPath: join(dir, 'ca.pem'), caPem: caPem as string, certPem: certPem as string, keyPem: keyPem as string, caKeyPem: caKeyPem as string };
  } catch {
    return undefined; // missing or unreadable: make new ones
  }
}

async function pkcs8Pem(x509: typeof X509, key: WebCrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

async function writeSecret(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600); // writeFile's mode applies only when it creates the file
}

function serial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = (b[0] as number) & 0x7f; // a positive INTEGER
  return Buffer.from(b).toString('hex');
}

/**
 * A Name for an RFC 2253 string: RFC 2253 writes the most specific RDN first, X.509 encodes it
 * last (as Java's X500Principal does); @peculiar/x509 keeps the string's order, so reverse it.
 */
function asn1Order(x509: typeof X509, dn: string): X509.Name {
  return new x509.Name(new x509.Name(dn).toJSON().reverse());
}

function escapeCn(cn: string): string {
  return cn.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`);
}
