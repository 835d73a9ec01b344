// SASL on a SASL_PLAINTEXT listener, handshake by handshake and error by error, as Kafka's
// SaslServerAuthenticator answers (clients/.../security/authenticator/SaslServerAuthenticator.java,
// SaslAuthenticatorTest). Both targets open an extra listener SASL_PLAINTEXT (kmock: `listeners`
// on port 0; Kafka: `scripts/kafka-reference start --listener`), with PLAIN logins from the JAAS
// config and SCRAM-SHA-256 credentials (kmock: `sasl.users`; Kafka: StorageTool `--add-scram`).
// The SCRAM client is support/scram-client.ts (fixed client nonce; server nonce, salt and
// signature are normalised).
import type { Ctx, Scenario, Settings, Step } from '../runner.js';
import { clientFinal, clientFirst } from '../support/scram-client.js';
import { E, expectClosed, scenario, send } from './dsl.js';

const L = 'SASL_PLAINTEXT';
const JAAS_PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";';
const JAAS_SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const SETTINGS: Settings = {
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS_PLAIN,
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': JAAS_SCRAM,
  'connection.failed.authentication.delay.ms': 300,
};
const SCRAM = ['SCRAM-SHA-256=[name=alice,password=alice-secret]'];
const software = { clientSoftwareName: 'kmock-conformance', clientSoftwareVersion: '1.0.0' };

/** Every connection of the scenario on the SASL listener, unless it says otherwise. */
function sec(name: string, o: Omit<Scenario, 'name'>, conns = ['a', 'b', 'c']): Scenario {
  return scenario(name, {
    ...o,
    tags: ['security'],
    groups: [],
    settings: { ...SETTINGS, ...(o.settings ?? {}) },
    listeners: [`${L}:SASL_PLAINTEXT`],
    addScram: SCRAM,
    connListeners: Object.fromEntries(conns.map((c) => [c, L])),
  });
}

const plain = (user: string, pw: string): Buffer => Buffer.from(`\u0000${user}\u0000${pw}`);

/** A v0-handshake raw token: a size-prefixed frame with no Kafka header. */
function rawToken(token: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(token.length);
  return Buffer.concat([size, token]);
}

function scramSteps(conn: string, password: string): Step[] {
  return [
    send(conn, 18, 3, software, { expect: { errorCode: 0 } }),
    send(conn, 17, 1, { mechanism: 'SCRAM-SHA-256' }, { expect: { errorCode: 0 } }),
    send(conn, 36, 2, { authBytes: Buffer.from(clientFirst('alice')) }, {
      label: 'client-first',
      capture: (res, c: Ctx) => c.set('serverFirst', Buffer.from(res.authBytes).toString('latin1')),
    }),
    send(conn, 36, 2, (c: Ctx) => ({ authBytes: Buffer.from(clientFinal('sha256', 'alice', password, c.v<string>('serverFirst', '')).message) }), { label: 'client-final' }),
  ];
}

export const securityScenarios: Scenario[] = [
  sec('testSaslPlainGoodPassword', {
    mirrors: 'SaslAuthenticatorTest.testValidSaslPlainOverPlaintext',
    description: 'ApiVersions v3, SaslHandshake v1 PLAIN (mechanisms listed), SaslAuthenticate v2 with the right password (no error, sessionLifetimeMs 0), then Metadata is answered',
    steps: [
      send('a', 18, 3, software, { expect: { errorCode: 0 } }),
      send('a', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('a', 36, 2, { authBytes: plain('alice', 'alice-secret') }, { expect: { errorCode: 0, sessionLifetimeMs: 0 } }),
      send('a', 3, 1, { topics: [] }, { label: 'authenticated' }),
    ],
  }),
  sec('testSaslPlainWrongPassword', {
    mirrors: 'SaslAuthenticatorTest.testInvalidPasswordSaslPlain / SaslServerAuthenticator.handleSaslToken (AuthenticationException)',
    description: 'a wrong password: SASL_AUTHENTICATION_FAILED "Authentication failed: Invalid username or password", then the broker closes the connection after connection.failed.authentication.delay.ms',
    steps: [
      send('a', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('a', 36, 2, { authBytes: plain('alice', 'wrong') }, { expect: { errorCode: E.SASL_AUTHENTICATION_FAILED } }),
      expectClosed('a', 3000),
      send('b', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('b', 36, 1, { authBytes: plain('nobody', 'x') }, { label: 'unknown user', expect: { errorCode: E.SASL_AUTHENTICATION_FAILED } }),
      expectClosed('b', 3000),
    ],
  }),
  sec('testSaslUnsupportedMechanism', {
    mirrors: 'SaslAuthenticatorTest.testUnauthenticatedApiVersionsRequest… / SaslServerAuthenticator.handleHandshakeRequest (UnsupportedSaslMechanismException)',
    description: 'SaslHandshake v1 GSSAPI (not enabled): UNSUPPORTED_SASL_MECHANISM with the enabled mechanisms, then the connection closes; the same with handshake v0',
    steps: [
      send('a', 17, 1, { mechanism: 'GSSAPI' }, { expect: { errorCode: E.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] } }),
      expectClosed('a', 3000),
      send('b', 17, 0, { mechanism: 'SCRAM-SHA-512' }, { expect: { errorCode: E.UNSUPPORTED_SASL_MECHANISM } }),
      expectClosed('b', 3000),
    ],
  }),
  sec('testSaslRequestBeforeAuthentication', {
    mirrors: 'SaslServerAuthenticator.handleKafkaRequest (a request other than ApiVersions/SaslHandshake before authenticating: IllegalSaslStateException, closed)',
    description: 'Metadata before any handshake: no answer, the connection closes; Metadata after the handshake but before SaslAuthenticate: the same',
    steps: [
      send('a', 3, 1, { topics: [] }, { expect: 'closed' }),
      send('b', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('b', 3, 1, { topics: [] }, { expect: 'closed' }),
    ],
  }),
  sec('testSaslSecondApiVersions', {
    mirrors: 'SaslServerAuthenticator.handleKafkaRequest (ApiVersions in state HANDSHAKE_REQUEST: a second one is illegal)',
    description: 'ApiVersions twice before the handshake: the second closes the connection',
    steps: [send('a', 18, 3, software, { expect: { errorCode: 0 } }), send('a', 18, 3, software, { expect: 'closed' })],
  }),
  sec('testSaslHandshakeV0RawToken', {
    mirrors: 'SaslAuthenticatorTest.testUnauthenticatedApiVersionsRequestOverPlaintextHandshakeVersion0 / SaslServerAuthenticator (v0: raw tokens without a Kafka header)',
    description: 'SaslHandshake v0 PLAIN, then the PLAIN token as a raw frame: the broker answers with an empty raw frame (read here as undecodable), then Metadata is answered; a wrong password as a raw token closes the connection',
    steps: [
      send('a', 17, 0, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      { op: 'raw', conn: 'a', bytes: () => rawToken(plain('alice', 'alice-secret')), label: 'raw PLAIN token' } as Step,
      send('a', 3, 1, { topics: [] }, { label: 'first frame: the empty token answer' }),
      { op: 'collect', conn: 'a', timeoutMs: 3000 },
      send('b', 17, 0, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      { op: 'raw', conn: 'b', bytes: () => rawToken(plain('alice', 'wrong')), label: 'raw PLAIN token, wrong password' } as Step,
      expectClosed('b', 3000),
    ],
  }),
  sec('testSaslAuthenticateVersions', {
    mirrors: 'SaslAuthenticateRequest/Response v0-v2 (v1: sessionLifetimeMs, v2: flexible)',
    description: 'the same good PLAIN authentication at SaslAuthenticate v0, v1 and v2 on three connections',
    steps: [0, 1, 2].flatMap((v) => {
      const c = ['a', 'b', 'c'][v];
      return [
        send(c, 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
        send(c, 36, v, { authBytes: plain('alice', 'alice-secret') }, { expect: { errorCode: 0 } }),
        send(c, 3, 1, { topics: [] }, { label: `authenticated at v${v}` }),
      ];
    }),
  }),
  sec('testSaslReauthSessionLifetime', {
    mirrors: 'SaslServerAuthenticator (KIP-368: connections.max.reauth.ms) / SaslAuthenticatorTest.testCannotReauthenticate…',
    description: 'connections.max.reauth.ms 1500: SaslAuthenticate v1 answers sessionLifetimeMs 1500; v0 says nothing; a request after the session expired closes the connection',
    settings: { 'connections.max.reauth.ms': 1500 },
    steps: [
      send('a', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('a', 36, 1, { authBytes: plain('alice', 'alice-secret') }, { expect: { errorCode: 0, sessionLifetimeMs: 1500 } }),
      send('a', 3, 1, { topics: [] }, { label: 'within the session' }),
      // A real-time pause (poll), not a `wait`: no manual-clock variant (its kmock has no extra listeners).
      { op: 'poll', forMs: 2000 },
      send('a', 3, 1, { topics: [] }, { label: 'after the session expired', expect: 'closed' }),
    ],
  }),
  sec('testSaslScramSha256', {
    mirrors: 'SaslAuthenticatorTest.testValidSaslScramSha256 / testInvalidPasswordSaslScram',
    description: 'SCRAM-SHA-256: client-first, server-first (nonce extended, salt, 4096 iterations), client-final with the right proof (server signature) then Metadata; with a wrong password SASL_AUTHENTICATION_FAILED and close',
    steps: [
      ...scramSteps('a', 'alice-secret'),
      send('a', 3, 1, { topics: [] }, { label: 'authenticated' }),
      ...scramSteps('b', 'wrong-secret'),
      expectClosed('b', 3000),
    ],
  }),
  sec('testSaslHandshakeAfterAuthentication', {
    mirrors: 'KafkaApis.handleSaslHandshakeRequest (after authentication: ILLEGAL_SASL_STATE, connection stays open)',
    description: 'after a good PLAIN authentication, SaslHandshake v1 and SaslAuthenticate v2 answer ILLEGAL_SASL_STATE and the connection still works',
    steps: [
      send('a', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: 0 } }),
      send('a', 36, 2, { authBytes: plain('alice', 'alice-secret') }, { expect: { errorCode: 0 } }),
      send('a', 17, 1, { mechanism: 'PLAIN' }, { label: 'handshake again', expect: { errorCode: E.ILLEGAL_SASL_STATE } }),
      send('a', 3, 1, { topics: [] }, { label: 'still works' }),
    ],
  }),
];
