// The SASL authenticator's state machine (security/sasl-authenticator.ts), driven frame by frame
// with a stand-in mechanism and a fake connection: what Kafka's SaslServerAuthenticator answers,
// and when it closes, for each state.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createMetadataRequest, decodeResponse, encodeRequest, type ApiTypes } from '../../../src/codec/index.js';
import { SaslServerAuthenticator, type AuthenticatorIo } from '../../../src/broker/security/sasl-authenticator.js';
import { SaslAuthenticationError, type SaslMechanisms, type SaslServer } from '../../../src/broker/security/sasl/mechanism.js';

/** "user\0password" in one token, the password "ok". */
class OneShot implements SaslServer {
  readonly mechanism = 'PLAIN';
  complete = false;
  authorizationId = '';
  evaluate(token: Buffer): Buffer {
    const [user, pw] = token.toString().split('\0');
    if (pw !== 'ok') throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    this.authorizationId = user!;
    this.complete = true;
    return Buffer.alloc(0);
  }
}

const mechanisms: SaslMechanisms = { enabled: () => ['PLAIN'], create: () => new OneShot() };

function harness(opts: { reauthMs?: number; delayMs?: number } = {}) {
  const written: Buffer[][] = [];
  const timers: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
  let now = 1000;
  const closed: string[] = [];
  const principals: string[] = [];
  const io: AuthenticatorIo = {
    connectionId: 1,
    write: (c) => written.push(c),
    close: (why) => closed.push(why),
    apiVersions: () => written.push([Buffer.from('api-versions')]),
    apiVersionsMax: 4,
    schedule: (ms, run) => {
      const t = { at: now + ms, run, cancelled: false };
      timers.push(t);
      return { cancel: () => (t.cancelled = true) };
    },
    now: () => now,
    trace: () => undefined,
    authenticated: (p) => principals.push(p),
  };
  const auth = new SaslServerAuthenticator(io, { listenerName: 'SASL_PLAINTEXT', mechanisms, connectionsMaxReauthMs: opts.reauthMs ?? 0, failedAuthenticationDelayMs: opts.delayMs ?? 100, log: pino({ level: 'silent' }) });
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers) if (!t.cancelled && t.at <= now) (t.cancelled = true), t.run();
  };
  return { auth, written, closed, principals, advance };
}

let corr = 1;
function frame<K extends keyof ApiTypes>(apiKey: K, version: number, body: ApiTypes[K]['request']): Buffer {
  return encodeRequest({ apiKey, apiVersion: version, correlationId: corr++, clientId: 't' }, body).subarray(4);
}
function answer(chunks: Buffer[], apiKey: number, version: number): Record<string, unknown> {
  return decodeResponse(Buffer.concat(chunks).subarray(4), apiKey, version).body as Record<string, unknown>;
}

describe('SaslServerAuthenticator', () => {
  it('ApiVersions, handshake v1, SaslAuthenticate: authenticated as User:<id>', () => {
    const h = harness();
    h.auth.onFrame(frame(18, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }));
    h.auth.onFrame(frame(17, 1, { mechanism: 'PLAIN' }));
    expect(answer(h.written[1]!, 17, 1)).toMatchObject({ errorCode: 0, mechanisms: ['PLAIN'] });
    h.auth.onFrame(frame(36, 2, { authBytes: Buffer.from('alice\0ok') }));
    expect(answer(h.written[2]!, 36, 2)).toMatchObject({ errorCode: 0, sessionLifetimeMs: 0n });
    expect(h.auth.active).toBe(false);
    expect(h.principals).toEqual(['User:alice']);
  });

  it('a wrong password: the error answer and the close wait for the failed-authentication delay', () => {
    const h = harness();
    h.auth.onFrame(frame(17, 1, { mechanism: 'PLAIN' }));
    h.auth.onFrame(frame(36, 1, { authBytes: Buffer.from('alice\0bad') }));
    expect(h.written.length).toBe(1);
    expect(h.closed).toEqual([]);
    h.advance(100);
    expect(answer(h.written[1]!, 36, 1)).toMatchObject({ errorCode: 58, errorMessage: 'Authentication failed: Invalid username or password' });
    expect(h.closed).toEqual(['authentication failed']);
  });

  it('an unknown mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled list, then the close', () => {
    const h = harness({ delayMs: 0 });
    h.auth.onFrame(frame(17, 1, { mechanism: 'GSSAPI' }));
    expect(answer(h.written[0]!, 17, 1)).toMatchObject({ errorCode: 33, mechanisms: ['PLAIN'] });
    expect(h.closed.length).toBe(1);
  });

  it('any other request before the handshake fails the authentication with no answer', () => {
    const h = harness({ delayMs: 0 });
    h.auth.onFrame(frame(3, 1, createMetadataRequest({ topics: [] })));
    expect(h.written).toEqual([]);
    expect(h.closed.length).toBe(1);
  });

  it('a second ApiVersions closes at once', () => {
    const h = harness();
    h.auth.onFrame(frame(18, 0, {} as never));
    h.auth.onFrame(frame(18, 0, {} as never));
    expect(h.closed.length).toBe(1);
  });

  it('handshake v0: raw tokens in, raw (size-prefixed) tokens out', () => {
    const h = harness();
    h.auth.onFrame(frame(17, 0, { mechanism: 'PLAIN' }));
    h.auth.onFrame(Buffer.from('bob\0ok'));
    expect(Buffer.concat(h.written[1]!)).toEqual(Buffer.from([0, 0, 0, 0]));
    expect(h.principals).toEqual(['User:bob']);
  });

  it('KIP-368: the session lifetime is answered; re-authentication keeps the principal or fails', () => {
    const h = harness({ reauthMs: 5000, delayMs: 0 });
    h.auth.onFrame(frame(17, 1, { mechanism: 'PLAIN' }));
    h.auth.onFrame(frame(36, 1, { authBytes: Buffer.from('alice\0ok') }));
    expect(answer(h.written[1]!, 36, 1)).toMatchObject({ sessionLifetimeMs: 5000n });
    expect(h.auth.sessionExpired()).toBe(false);
    h.advance(5000);
    expect(h.auth.sessionExpired()).toBe(true);
    expect(h.auth.maybeBeginReauthentication(frame(17, 1, { mechanism: 'PLAIN' }))).toBe(true);
    h.auth.onFrame(frame(36, 1, { authBytes: Buffer.from('alice\0ok') }));
    expect(h.auth.active).toBe(false);
    expect(h.auth.sessionExpired()).toBe(false);
    // Not again within a second: the handshake goes to its handler.
    expect(h.auth.maybeBeginReauthentication(frame(17, 1, { mechanism: 'PLAIN' }))).toBe(false);
    h.advance(1000);
    expect(h.auth.maybeBeginReauthentication(frame(17, 1, { mechanism: 'PLAIN' }))).toBe(true);
    h.auth.onFrame(frame(36, 1, { authBytes: Buffer.from('mallory\0ok') }));
    expect(answer(h.written.at(-1)!, 36, 1)).toMatchObject({ errorCode: 58, errorMessage: 'Cannot change principals during re-authentication from User.alice: User.mallory' });
    expect(h.closed.length).toBe(1);
  });
});
