import { describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeClientCertificate, makeDevCertificate, tlsServerOptions } from '../../../../src/broker/security/tls/index.js';
import { handshake, settingsOf } from './helpers.js';

describe('makeDevCertificate', () => {
  it('makes a CA and a server certificate for every host plus localhost and 127.0.0.1', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'kmock-tls-test-')), 'certs');
    const dev = await makeDevCertificate(['broker.example', '10.1.2.3'], dir);
    expect(dev.dir).toBe(dir);
    expect(await readFile(join(dir, 'ca.pem'), 'utf8')).toBe(dev.caPem);
    expect((await stat(join(dir, 'server.key'))).mode & 0o777).toBe(0o600);
    const server = new X509Certificate(dev.certPem);
    expect(server.subjectAltName).toContain('DNS:broker.example');
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(server.checkIssued(new X509Certificate(dev.caPem))).toBe(true);
    // A client trusting only ca.pem connects, checking the host name.
    const pair = await handshake(tlsServerOptions(settingsOf({}), dev), { ca: dev.caPem, servername: 'broker.example' });
    expect(pair.clientError).toBeUndefined();
    expect(pair.clientAuthorized).toBe(true);
  });

  it('reuses the certificates in dir while they cover the hosts, else makes new ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kmock-tls-test-'));
    const first = await makeDevCertificate(['a.example'], dir);
    const again = await makeDevCertificate(['a.example', 'localhost'], dir);
    expect(again.caPem).toBe(first.caPem);
    expect(again.certPem).toBe(first.certPem);
    const other = await makeDevCertificate(['b.example'], dir);
    expect(other.caPem).not.toBe(first.caPem);
    await writeFile(join(dir, 'server.pem'), 'garbage');
    const fixed = await makeDevCertificate(['b.example'], dir);
    expect(fixed.certPem).not.toBe('garbage');
  });

  it('makes a temp dir named kmock-tls-* when dir is null', async () => {
    const dev = await makeDevCertificate([], null);
    expect(dev.dir.startsWith(join(tmpdir(), 'kmock-tls-'))).toBe(true);
  });

  it('signs client certificates with the subject given', async () => {
    const dev = await makeDevCertificate([], null);
    const alice = await makeClientCertificate(dev, 'CN=alice,OU=eng,O=kmock,C=US');
    const cert = new X509Certificate(alice.certPem);
    expect(cert.checkIssued(new X509Certificate(dev.caPem))).toBe(true);
    expect(cert.subject).toContain('CN=alice');
  });
});
