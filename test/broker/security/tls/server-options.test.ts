import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../../src/broker/config.js';
import { makeClientCertificate, makeDevCertificate, pkcs12Certificates, pkcs12KeyAndChain, requestedClientCertError, sslPrincipal, tlsServerOptions, type DevCertificate } from '../../../../src/broker/security/tls/index.js';
import { handshake, settingsOf } from './helpers.js';

function has(tool: string): boolean {
  try {
    execFileSync(tool, tool === 'keytool' ? ['-help'] : ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_KEYTOOL = has('keytool');
const HAS_OPENSSL = has('openssl');

let dir: string;
let dev: DevCertificate;
let alice: { certPem: string; keyPem: string };
/** A second, unrelated CA and a client certificate it signed: what a truststore must refuse. */
let stranger: { certPem: string; keyPem: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kmock-tls-opts-'));
  dev = await makeDevCertificate([], join(dir, 'dev'));
  alice = await makeClientCertificate(dev, 'CN=alice,O=kmock');
  const other = await makeDevCertificate([], join(dir, 'other'));
  stranger = await makeClientCertificate(other, 'CN=mallory');
});

describe('PEM keystores', () => {
  it('reads the key and chain from one file at ssl.keystore.location', async () => {
    const path = join(dir, 'server-keystore.pem');
    await writeFile(path, `${dev.keyPem}\n${dev.certPem}`);
    const pair = await handshake(tlsServerOptions(settingsOf({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': path }), undefined), { ca: dev.caPem });
    expect(pair.clientError).toBeUndefined();
    expect(pair.clientAuthorized).toBe(true);
  });

  it('takes inline ssl.keystore.key + ssl.keystore.certificate.chain, with an encrypted PKCS#8 key and ssl.key.password', async () => {
    const encrypted = createPrivateKey(dev.keyPem).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'kpw' }) as string;
    const settings = { 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': encrypted, 'ssl.keystore.certificate.chain': dev.certPem, 'ssl.key.password': 'kpw' };
    const pair = await handshake(tlsServerOptions(settingsOf(settings), undefined), { ca: dev.caPem });
    expect(pair.clientAuthorized).toBe(true);
    expect(() => tlsServerOptions(settingsOf({ ...settings, 'ssl.key.password': 'nope' }), undefined)).toThrow(/wrong ssl.key.password/);
    const { 'ssl.key.password': _, ...noPassword } = settings;
    expect(() => tlsServerOptions(settingsOf(noPassword), undefined)).toThrow(/set ssl.key.password/);
  });

  it('takes an inline key and certificate written on one line (spaces for newlines, as KIP-651 shows them)', async () => {
    const oneLine = (pem: string) => pem.trim().replace(/\n/g, ' ');
    const settings = { 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': oneLine(dev.keyPem), 'ssl.keystore.certificate.chain': oneLine(dev.certPem) };
    const pair = await handshake(tlsServerOptions(settingsOf(settings), undefined), { ca: dev.caPem });
    expect(pair.clientError).toBeUndefined();
    expect(pair.clientAuthorized).toBe(true);
  });

  it('explains a missing keystore, JKS, a missing file and half an inline keystore', async () => {
    const jks = join(dir, 'server.jks');
    await writeFile(jks, Buffer.from('feedfeed00000002', 'hex'));
    expect(() => tlsServerOptions(settingsOf({ 'ssl.keystore.location': jks }), undefined)).toThrow(
      `keytool -importkeystore -srckeystore ${jks} -destkeystore ${join(dir, 'server')}.p12 -deststoretype PKCS12`,
    );
    expect(() => tlsServerOptions(settingsOf({ 'ssl.truststore.location': jks }), dev)).toThrow(/ssl.truststore.type JKS is not supported/);
    expect(() => tlsServerOptions(settingsOf({}, 'CLIENT'), undefined)).toThrow(
      'listener CLIENT (SSL) has no keystore: set ssl.keystore.location (or listener.name.client.ssl.keystore.location), or start with --tls',
    );
    expect(() => tlsServerOptions(settingsOf({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': join(dir, 'absent.pem') }), undefined)).toThrow(/ENOENT/);
    expect(() => tlsServerOptions(settingsOf({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': dev.keyPem }), undefined)).toThrow(ConfigError);
    expect(() => tlsServerOptions(settingsOf({ 'ssl.client.auth': 'sometimes' }), dev)).toThrow(/none, requested or required/);
  });
});

describe('ssl.client.auth', () => {
  const opts = (auth: string) => tlsServerOptions(settingsOf({ 'ssl.client.auth': auth, 'ssl.truststore.type': 'PEM', 'ssl.truststore.certificates': dev.caPem }), dev);
  const principal = (s: import('node:tls').TLSSocket) => ({ principal: sslPrincipal(s, 'DEFAULT'), error: requestedClientCertError(s) });

  it('required: a trusted certificate passes, none or an untrusted one fails the handshake', async () => {
    const ok = await handshake(opts('required'), { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, principal);
    expect(ok.seen).toEqual({ principal: 'User:CN=alice,O=kmock', error: null });
    const none = await handshake(opts('required'), { ca: dev.caPem });
    expect(none.server).toBeUndefined();
    expect(none.clientError ?? none.serverError).toBeDefined();
    const bad = await handshake(opts('required'), { ca: dev.caPem, cert: stranger.certPem, key: stranger.keyPem });
    expect(bad.seen).toBeUndefined();
  });

  it('requested: no certificate is ANONYMOUS, an untrusted one is reported for the server to close', async () => {
    const none = await handshake(opts('requested'), { ca: dev.caPem }, principal);
    expect(none.seen).toEqual({ principal: 'User:ANONYMOUS', error: null });
    const ok = await handshake(opts('requested'), { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, principal);
    expect(ok.seen).toEqual({ principal: 'User:CN=alice,O=kmock', error: null });
    const bad = await handshake(opts('requested'), { ca: dev.caPem, cert: stranger.certPem, key: stranger.keyPem }, principal);
    expect(bad.seen?.principal).toBe('User:ANONYMOUS');
    expect(bad.seen?.error).toMatch(/^UNABLE_TO_/);
  });

  it('none: a client certificate is not asked for', async () => {
    const pair = await handshake(opts('none'), { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, principal);
    expect(pair.seen).toEqual({ principal: 'User:ANONYMOUS', error: null });
  });
});

describe.skipIf(!HAS_OPENSSL)('PKCS12 stores made with openssl', () => {
  it('serves a PKCS12 keystore and trusts a keyless PKCS12 truststore', async () => {
    const ks = join(dir, 'openssl-ks.p12');
    const ts = join(dir, 'openssl-ts.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-in', join(dev.dir, 'server.pem'), '-inkey', join(dev.dir, 'server.key'), '-out', ks, '-passout', 'pass:storepw']);
    execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', dev.caPath, '-out', ts, '-passout', 'pass:trustpw']);
    expect(pkcs12Certificates(await readFile(ts), 'trustpw')).toEqual([dev.caPem.trim() + '\n']);
    const settings = {
      'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': ks, 'ssl.keystore.password': 'storepw',
      'ssl.truststore.type': 'PKCS12', 'ssl.truststore.location': ts, 'ssl.truststore.password': 'trustpw', 'ssl.client.auth': 'required',
    };
    const pair = await handshake(tlsServerOptions(settingsOf(settings), undefined), { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, (s) => sslPrincipal(s, 'DEFAULT'));
    expect(pair.seen).toBe('User:CN=alice,O=kmock');
    expect(() => tlsServerOptions(settingsOf({ ...settings, 'ssl.keystore.password': 'wrong' }), undefined)).toThrow(/cannot read the PKCS12 keystore/);
    // A PKCS12 file under the default type (JKS) loads, as a JVM's JKS KeyStore loads one.
    const { 'ssl.keystore.type': _k, 'ssl.truststore.type': _t, ...defaultTypes } = settings;
    const compat = await handshake(tlsServerOptions(settingsOf(defaultTypes), undefined), { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, (s) => sslPrincipal(s, 'DEFAULT'));
    expect(compat.seen).toBe('User:CN=alice,O=kmock');
    // The path for a key under its own ssl.key.password: the key and chain read apart from node's pfx.
    const ksBytes = await readFile(ks);
    const apart = pkcs12KeyAndChain(ksBytes, 'storepw', 'storepw');
    const served = await handshake({ key: apart.key, cert: apart.cert }, { ca: dev.caPem });
    expect(served.clientAuthorized).toBe(true);
    expect(() => pkcs12KeyAndChain(ksBytes, 'storepw', 'wrong')).toThrow();
    expect(() => pkcs12KeyAndChain(ksBytes, 'wrong', 'storepw')).toThrow(/wrong password/);
    expect(() => tlsServerOptions(settingsOf({ ...settings, 'ssl.truststore.password': 'wrong' }), undefined)).toThrow(/wrong password/);
  });
});

describe.skipIf(!HAS_KEYTOOL)('PKCS12 stores made with keytool', () => {
  it('serves a keytool keystore and trusts the client certificates of a keytool truststore', async () => {
    const kt = (...args: string[]) => execFileSync('keytool', args, { stdio: 'pipe' });
    const ks = join(dir, 'kafka.server.keystore.p12');
    const ts = join(dir, 'kafka.server.truststore.p12');
    const clientKs = join(dir, 'client.keystore.p12');
    const clientPem = join(dir, 'client.pem');
    kt('-genkeypair', '-alias', 'broker', '-keyalg', 'RSA', '-keysize', '2048', '-dname', 'CN=localhost,O=kmock', '-ext', 'SAN=dns:localhost,ip:127.0.0.1', '-validity', '2', '-storetype', 'PKCS12', '-keystore', ks, '-storepass', 'serverpw');
    kt('-genkeypair', '-alias', 'bob', '-keyalg', 'EC', '-groupname', 'secp256r1', '-dname', 'CN=bob,OU=ops,O=kmock,C=US', '-validity', '2', '-storetype', 'PKCS12', '-keystore', clientKs, '-storepass', 'clientpw');
    kt('-exportcert', '-alias', 'bob', '-keystore', clientKs, '-storepass', 'clientpw', '-rfc', '-file', clientPem);
    kt('-importcert', '-noprompt', '-alias', 'bob', '-file', clientPem, '-storetype', 'PKCS12', '-keystore', ts, '-storepass', 'trustpw');
    const serverPem = join(dir, 'broker.pem');
    kt('-exportcert', '-alias', 'broker', '-keystore', ks, '-storepass', 'serverpw', '-rfc', '-file', serverPem);
    const settings = {
      'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': ks, 'ssl.keystore.password': 'serverpw', 'ssl.key.password': 'serverpw',
      'ssl.truststore.type': 'PKCS12', 'ssl.truststore.location': ts, 'ssl.truststore.password': 'trustpw', 'ssl.client.auth': 'required',
    };
    const pair = await handshake(
      tlsServerOptions(settingsOf(settings), undefined),
      { ca: await readFile(serverPem, 'utf8'), pfx: await readFile(clientKs), passphrase: 'clientpw' },
      (s) => sslPrincipal(s, 'RULE:^CN=([^,]+),OU=([^,]+).*$/$1@$2/,DEFAULT'),
    );
    expect(pair.clientError).toBeUndefined();
    expect(pair.seen).toBe('User:bob@ops');
  });
});
