import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/broker/config.js';
import { describeTlsClientError, looksLikeTlsClientHello, makeDevCertificate, nodeCiphers, opensslCipherName, protocolRange, tlsServerOptions } from '../../../../src/broker/security/tls/index.js';
import { handshake, settingsOf } from './helpers.js';

describe('ssl.cipher.suites', () => {
  it('maps JSSE names to OpenSSL names', () => {
    expect(opensslCipherName('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')).toBe('ECDHE-RSA-AES128-GCM-SHA256');
    expect(opensslCipherName('TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384')).toBe('ECDHE-ECDSA-AES256-GCM-SHA384');
    expect(opensslCipherName('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256')).toBe('ECDHE-RSA-CHACHA20-POLY1305');
    expect(opensslCipherName('TLS_RSA_WITH_AES_256_CBC_SHA')).toBe('AES256-SHA');
    expect(opensslCipherName('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256')).toBe('ECDHE-RSA-AES128-SHA256');
    expect(opensslCipherName('TLS_DHE_RSA_WITH_AES_128_GCM_SHA256')).toBe('DHE-RSA-AES128-GCM-SHA256');
  });

  it('keeps TLS 1.3 names, drops signalling values, and lists unknown suites in the error', () => {
    expect(nodeCiphers('SSL', 'TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_EMPTY_RENEGOTIATION_INFO_SCSV')).toBe('TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256');
    expect(nodeCiphers('SSL', '')).toBeUndefined();
    expect(() => nodeCiphers('SSL', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_FOO_BAR,SSL_RSA_WITH_RC4_128_MD5')).toThrow(/TLS_FOO_BAR, SSL_RSA_WITH_RC4_128_MD5/);
  });

  it('refuses suites that no enabled protocol can use', async () => {
    const dev = await makeDevCertificate([], null);
    expect(() => tlsServerOptions(settingsOf({ 'ssl.cipher.suites': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ssl.enabled.protocols': 'TLSv1.3' }), dev)).toThrow(/none of ssl.cipher.suites is usable/);
  });

  it('a listener limited to one TLS 1.2 suite negotiates it, and a client without it fails', async () => {
    const dev = await makeDevCertificate([], null);
    const options = tlsServerOptions(settingsOf({ 'ssl.cipher.suites': 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'ssl.enabled.protocols': 'TLSv1.2' }), dev);
    const ok = await handshake(options, { ca: dev.caPem });
    expect(ok.clientCipher).toBe('ECDHE-ECDSA-AES256-GCM-SHA384');
    expect(ok.clientProtocol).toBe('TLSv1.2');
    const bad = await handshake(options, { ca: dev.caPem, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256', maxVersion: 'TLSv1.2' });
    expect(bad.serverError).toBeDefined();
    expect(describeTlsClientError(bad.serverError!)).toMatch(/no cipher suite in common/);
  });
});

describe('ssl.enabled.protocols', () => {
  it('becomes a version range, refusing lists with nothing node can serve', () => {
    expect(protocolRange('SSL', 'TLSv1.2,TLSv1.3')).toEqual({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' });
    expect(protocolRange('SSL', 'TLSv1.3')).toEqual({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
    expect(protocolRange('SSL', 'TLSv1.1,TLSv1.2')).toEqual({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
    expect(() => protocolRange('SSL', 'TLSv1.1')).toThrow(ConfigError);
    expect(() => protocolRange('SSL', 'TLSv9')).toThrow(/unknown protocols: TLSv9/);
  });

  it('a TLSv1.3-only listener refuses a TLSv1.2 client, in words', async () => {
    const dev = await makeDevCertificate([], null);
    const pair = await handshake(tlsServerOptions(settingsOf({ 'ssl.enabled.protocols': 'TLSv1.3' }), dev), { ca: dev.caPem, maxVersion: 'TLSv1.2' });
    expect(pair.serverError).toBeDefined();
    expect(describeTlsClientError(pair.serverError!)).toMatch(/no TLS version in common/);
  });
});

describe('describeTlsClientError and looksLikeTlsClientHello', () => {
  it('names plaintext Kafka bytes on a TLS port', async () => {
    const dev = await makeDevCertificate([], null);
    const { createServer } = await import('node:tls');
    const { connect } = await import('node:net');
    const server = createServer(tlsServerOptions(settingsOf({}), dev));
    const err = new Promise<Error>((r) => server.on('tlsClientError', r));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    // An ApiVersions request header as a PLAINTEXT Kafka client sends it first.
    const sock = connect(port, '127.0.0.1', () => sock.write(Buffer.from('0000001f0012000300000001000c6b61666b612d636c69656e7400', 'hex')));
    sock.on('error', () => undefined);
    expect(describeTlsClientError(await err)).toMatch(/plaintext/);
    sock.destroy();
    server.close();
  });

  it('words the common OpenSSL reasons', () => {
    expect(describeTlsClientError(Object.assign(new Error('x'), { code: 'ERR_SSL_HTTP_REQUEST' }))).toMatch(/HTTP/);
    expect(describeTlsClientError(Object.assign(new Error('x'), { code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA' }))).toMatch(/unknown CA/);
    expect(describeTlsClientError(Object.assign(new Error('x'), { code: 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE' }))).toMatch(/without a certificate/);
    expect(describeTlsClientError(Object.assign(new Error('odd'), { code: 'ERR_SSL_SOMETHING' }))).toMatch(/ERR_SSL_SOMETHING/);
  });

  it('knows a ClientHello record from Kafka bytes', () => {
    expect(looksLikeTlsClientHello(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]))).toBe(true);
    expect(looksLikeTlsClientHello(Buffer.from([0x16, 0x03, 0x05]))).toBe(false);
    expect(looksLikeTlsClientHello(Buffer.from([0x00, 0x00, 0x00, 0x1f]))).toBe(false);
    expect(looksLikeTlsClientHello(Buffer.from([0x16]))).toBe(false);
  });
});
