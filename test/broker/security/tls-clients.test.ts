// TLS listeners with kafkajs: SSL trusting kmock's --tls CA, client certificates under
// ssl.client.auth=required (the principal is the certificate's DN, as Kafka maps it), and the
// wrong protocol on a port: one log line saying what happened, the connection closed.
import { connect as tlsConnect } from 'node:tls';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { makeClientCertificate, makeDevCertificate, type DevCertificate } from '../../../src/broker/security/tls/index.js';
import { recordingLogger, type LogLine } from '../../support/fuzz.js';
import { waitFor } from '../../support/clients/wait.js';

describe('SSL listeners with kafkajs', () => {
  let kmock: Kmock;
  let dev: DevCertificate;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    dev = await makeDevCertificate(['127.0.0.1'], null);
    kmock = await startKmock({
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0',
      listenerSecurityProtocolMap: 'PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL',
      sslKeystoreType: 'PEM',
      sslKeystoreKey: dev.keyPem,
      sslKeystoreCertificateChain: dev.certPem,
      sslTruststoreType: 'PEM',
      sslTruststoreCertificates: dev.caPem,
      listenerOverrides: { 'listener.name.mtls.ssl.client.auth': 'required' },
      logLevel: 'info',
      logger: recordingLogger(lines),
    });
  }, 30_000);
  afterAll(async () => kmock?.close());
  const addr = (name: string) => kmock.listeners.find((l) => l.name === name)!.bootstrapServers;

  it('produces over SSL, trusting the CA; Metadata names the SSL address', async () => {
    const kafka = new Kafka({ clientId: 'tls', brokers: [addr('SSL')], ssl: { ca: [dev.caPem] }, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    expect(`${cluster.brokers[0].host}:${cluster.brokers[0].port}`).toBe(addr('SSL'));
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'tls', messages: [{ value: 'over tls' }] });
    await producer.disconnect();
  });

  it('mTLS: a client certificate is required, and its DN is the principal', async () => {
    const client = await makeClientCertificate(dev, 'CN=alice,OU=eng,O=kmock');
    const kafka = new Kafka({ clientId: 'mtls', brokers: [addr('MTLS')], ssl: { ca: [dev.caPem], cert: client.certPem, key: client.keyPem }, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.listTopics();
    expect(kmock.control.connections().map((c) => c.principal)).toContain('User:CN=alice,OU=eng,O=kmock');
    await admin.disconnect();
    const without = new Kafka({ clientId: 'no-cert', brokers: [addr('MTLS')], ssl: { ca: [dev.caPem] }, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    await expect(without.connect()).rejects.toThrow();
  });

  it('TLS on the PLAINTEXT port: closed, with a line that says so', async () => {
    const [host, port] = addr('PLAINTEXT').split(':');
    const s = tlsConnect({ host, port: Number(port), rejectUnauthorized: false });
    await new Promise<void>((resolve) => {
      s.on('error', () => resolve());
      s.on('close', () => resolve());
    });
    await waitFor('the TLS-on-plaintext line', () => lines.some((l) => l.msg.startsWith('TLS handshake on the PLAINTEXT listener PLAINTEXT')), 5000);
  });

  it('plaintext on the SSL port: closed, with a line that says so', async () => {
    const [host, port] = addr('SSL').split(':');
    const s = connect({ host, port: Number(port) });
    s.on('error', () => undefined);
    s.write(Buffer.from([0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0]));
    await new Promise<void>((resolve) => s.on('close', () => resolve()));
    await waitFor('the plaintext-on-TLS line', () => lines.some((l) => /\(on the SSL listener SSL\); closing connection$/.test(l.msg)), 5000);
  });
});
