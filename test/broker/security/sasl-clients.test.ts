// SASL listeners with a real client (kafkajs 2.2.4): PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and
// OAUTHBEARER (Kafka's unsecured JWS tokens) on SASL_PLAINTEXT; a wrong password refused with
// Kafka's message; nothing served before authentication; KIP-368 re-authentication when
// connections.max.reauth.ms is set; the principal in the control plane's connection list and in
// the event stream's member-joined events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';
import { createMetadataRequest } from '../../../src/codec/index.js';

const USERS = 'alice:alice-secret,bob:bob-secret';

function unsecuredJws(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

function saslListener(kmock: Kmock) {
  return kmock.listeners.find((l) => l.protocol === 'SASL_PLAINTEXT')!;
}

describe('SASL_PLAINTEXT with kafkajs', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock({
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
      saslUsers: USERS,
      connectionFailedAuthenticationDelayMs: 10,
      groupInitialRebalanceDelayMs: 0,
    });
    kmock.control.subscribe((e) => {
      if (e.type === 'member-joined') joined.push({ groupId: e.groupId, principal: e.principal });
    });
  });
  afterAll(async () => kmock?.close());
  const joined: Array<{ groupId: string; principal: string | null }> = [];

  const client = (sasl: SASLOptions, clientId = 'sasl-test', retries = 5) =>
    new Kafka({ clientId, brokers: [saslListener(kmock).bootstrapServers], sasl, logLevel: logLevel.NOTHING, retry: { retries, initialRetryTime: 50 } });

  for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
    it(`${mechanism}: produces and consumes as alice`, async () => {
      const kafka = client({ mechanism, username: 'alice', password: 'alice-secret' } as SASLOptions, `c-${mechanism}`);
      const topic = `t-${mechanism}`;
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'k', value: `hello ${mechanism}` }] });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: `g-${mechanism}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const got = await new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) }));
      await consumer.disconnect();
      expect(got).toBe(`hello ${mechanism}`);
      // The event stream names who joined.
      expect(joined.filter((e) => e.groupId === `g-${mechanism}`).map((e) => e.principal)).toContain('User:alice');
      // Metadata answered with the SASL listener's own address, not the PLAINTEXT one.
      const admin = kafka.admin();
      await admin.connect();
      const cluster = await admin.describeCluster();
      await admin.disconnect();
      expect(`${cluster.brokers[0].host}:${cluster.brokers[0].port}`).toBe(saslListener(kmock).bootstrapServers);
    });

    it(`${mechanism}: a wrong password is refused with Kafka's answer`, async () => {
      const admin = client({ mechanism, username: 'alice', password: 'wrong' } as SASLOptions, 'wrong', 0).admin();
      const err = await admin.connect().then(() => undefined, (e: Error) => e);
      expect(err).toBeDefined();
      expect(String(err?.message)).toMatch(mechanism === 'plain' ? /Invalid username or password/ : /SASL SCRAM|Authentication failed/);
    });
  }

  it('oauthbearer: an unsecured JWS token authenticates as its subject', async () => {
    const now = Date.now() / 1000;
    const kafka = client({ mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJws({ sub: 'carol', iat: now, exp: now + 3600 }) }) });
    const admin = kafka.admin();
    await admin.connect();
    await admin.listTopics();
    expect(kmock.control.connections().some((c) => c.principal === 'User:carol')).toBe(true);
    await admin.disconnect();
  });

  it('an expired OAUTHBEARER token is refused', async () => {
    const now = Date.now() / 1000;
    // Kafka answers an invalid token with RFC 7628's JSON error challenge (errorCode 0): kafkajs
    // takes that for success, and its next request fails the authentication (ILLEGAL_SASL_STATE).
    const admin = client({ mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJws({ sub: 'carol', iat: now - 7200, exp: now - 3600 }) }) }, 'expired', 0).admin();
    await expect(admin.connect().then(() => admin.listTopics())).rejects.toThrow();
    await admin.disconnect();
  });

  it('serves nothing before authentication: Metadata first closes the connection', async () => {
    const raw = await RawClient.connect(saslListener(kmock).bootstrapServers);
    const answer = raw.request(3, 1, createMetadataRequest({ topics: [] }));
    await expect(answer).rejects.toThrow();
    expect(raw.isClosed).toBe(true);
  });

  it('offers the enabled mechanisms to a client asking for another', async () => {
    const raw = await RawClient.connect(saslListener(kmock).bootstrapServers);
    const r = await raw.request(17, 1, { mechanism: 'GSSAPI' });
    expect(r).toMatchObject({ errorCode: 33, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] });
  });
});

describe('KIP-368 re-authentication', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock({
      listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
      saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256',
      saslUsers: USERS,
      connectionsMaxReauthMs: 1500,
      groupInitialRebalanceDelayMs: 0,
    });
  });
  afterAll(async () => kmock?.close());

  it('a kafkajs producer re-authenticates within the session lifetime and keeps its connection', async () => {
    // kafkajs re-authenticates reauthenticationThreshold ms before the session ends (default 10 s,
    // more than this session: it would try on every request, and a broker refuses a second
    // re-authentication within a second, as Kafka's KafkaChannel does).
    const kafka = new Kafka({ clientId: 'reauth', brokers: [kmock.bootstrapServers], sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' }, logLevel: logLevel.NOTHING, reauthenticationThreshold: 400 });
    const producer = kafka.producer();
    await producer.connect();
    const opened = kmock.broker.stats.connectionsOpened;
    for (let i = 0; i < 8; i++) {
      await producer.send({ topic: 'reauth', messages: [{ value: String(i) }] });
      await new Promise((r) => setTimeout(r, 400));
    }
    await producer.disconnect();
    // 3.2 s with 1.5 s sessions: kafkajs re-authenticated on the same connections (no new ones for the producer's broker).
    expect(kmock.broker.stats.connectionsOpened).toBe(opened);
    const end = await kafka.admin();
    await end.connect();
    const offsets = await end.fetchTopicOffsets('reauth');
    await end.disconnect();
    expect(offsets[0].high).toBe('8');
  });
});

describe('secrets stay out of the log', () => {
  it('--trace shows SASL tokens by size only; no password or SCRAM proof in any line', async () => {
    const lines: string[] = [];
    const { default: pino } = await import('pino');
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) });
    const kmock = await startKmock({
      listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
      saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-512',
      saslUsers: 'alice:very-secret-pw',
      trace: true,
      logLevel: 'debug',
      logger,
    });
    try {
      for (const mechanism of ['plain', 'scram-sha-512'] as const) {
        const admin = new Kafka({ clientId: 'secrets', brokers: [kmock.bootstrapServers], sasl: { mechanism, username: 'alice', password: 'very-secret-pw' } as SASLOptions, logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        await admin.listTopics();
        await admin.disconnect();
      }
      const bad = new Kafka({ clientId: 'secrets', brokers: [kmock.bootstrapServers], sasl: { mechanism: 'plain', username: 'alice', password: 'wrong-secret-pw' }, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      await bad.connect().catch(() => undefined);
    } finally {
      await kmock.close();
    }
    const all = lines.join('');
    expect(all).toContain('"api":"SaslAuthenticate"');
    expect(all).toContain('<redacted');
    for (const secret of ['very-secret-pw', 'wrong-secret-pw', Buffer.from('very-secret-pw').toString('base64'), Buffer.from('very-secret-pw').toString('hex')]) expect(all).not.toContain(secret);
  });
});

describe('SCRAM credentials in a data dir', () => {
  it('a user AlterUserScramCredentials created logs in after a restart', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { saltedPassword } = await import('../../../src/broker/security/sasl/scram-credentials.js');
    const dir = mkdtempSync(join(tmpdir(), 'kmock-scram-dir-'));
    const options = { listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-256', logDirs: dir };
    try {
      let kmock = await startKmock(options);
      const raw = await RawClient.connect(kmock.listeners[0]!.bootstrapServers);
      const salt = Buffer.from('0123456789abcdef');
      const r = await raw.request(51, 0, { deletions: [], upsertions: [{ name: 'dave', mechanism: 1, iterations: 4096, salt, saltedPassword: saltedPassword('dave-secret', salt, 4096, 'SCRAM-SHA-256') }] } as never);
      expect(r).toMatchObject({ results: [{ user: 'dave', errorCode: 0 }] });
      raw.close();
      await kmock.close();
      kmock = await startKmock(options);
      try {
        const admin = new Kafka({ clientId: 'dave', brokers: [kmock.listeners[1]!.bootstrapServers], sasl: { mechanism: 'scram-sha-256', username: 'dave', password: 'dave-secret' }, logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        await admin.listTopics();
        await admin.disconnect();
      } finally {
        await kmock.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
