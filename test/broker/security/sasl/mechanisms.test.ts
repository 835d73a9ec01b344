// The SASL mechanisms against Kafka's semantics: RFC 7677's vector, a full SCRAM exchange with an
// independent test-side client, PLAIN, OAUTHBEARER with unsecured JWTs, and the JAAS parser.
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseJaasConfig } from '../../../../src/broker/security/sasl/jaas.js';
import { SaslAuthenticationError, SaslMechanismError } from '../../../../src/broker/security/sasl/mechanism.js';
import { createOAuthBearerServer, unsecuredValidatorOptions } from '../../../../src/broker/security/sasl/oauthbearer.js';
import { createPlainServer } from '../../../../src/broker/security/sasl/plain.js';
import { createScramServer } from '../../../../src/broker/security/sasl/scram.js';
import { fromPassword, ScramCredentialStore } from '../../../../src/broker/security/sasl/scram-credentials.js';

// A separate SCRAM client: RFC 5802 section 3, written from the RFC, not from kmock's server.
function scramClient(hash: 'sha256' | 'sha512', user: string, password: string, cnonce: string) {
  const len = hash === 'sha256' ? 32 : 64;
  const bare = `n=${user},r=${cnonce}`;
  return {
    first: `n,,${bare}`,
    final(serverFirst: string): { message: string; expectedServerFinal: string } {
      const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)]));
      const salted = pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), len, hash);
      const clientKey = createHmac(hash, salted).update('Client Key').digest();
      const storedKey = createHash(hash).update(clientKey).digest();
      const withoutProof = `c=biws,r=${attrs.r}`;
      const auth = `${bare},${serverFirst},${withoutProof}`;
      const sig = createHmac(hash, storedKey).update(auth).digest();
      const proof = Buffer.from(clientKey.map((b, i) => b ^ sig[i]!));
      const serverKey = createHmac(hash, salted).update('Server Key').digest();
      return { message: `${withoutProof},p=${proof.toString('base64')}`, expectedServerFinal: `v=${createHmac(hash, serverKey).update(auth).digest('base64')}` };
    },
  };
}

describe('SCRAM', () => {
  it('reproduces RFC 7677 SCRAM-SHA-256 test vector', () => {
    const c = scramClient('sha256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
    const f = c.final(serverFirst);
    expect(f.message).toBe('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(f.expectedServerFinal).toBe('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    // kmock's credential derivation agrees with the vector's keys.
    const cred = fromPassword('pencil', 'SCRAM-SHA-256', 4096, Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'));
    const salted = pbkdf2Sync('pencil', cred.salt, 4096, 32, 'sha256');
    expect(cred.serverKey).toEqual(createHmac('sha256', salted).update('Server Key').digest());
  });

  for (const [mech, hash] of [['SCRAM-SHA-256', 'sha256'], ['SCRAM-SHA-512', 'sha512']] as const) {
    it(`${mech}: a full exchange succeeds and a wrong password fails`, () => {
      const store = new ScramCredentialStore();
      store.addUsers('alice:secret');
      const s = createScramServer(mech, store);
      const c = scramClient(hash, 'alice', 'secret', 'fyko+d2lbbFgONRv9qkxdawL');
      const serverFirst = s.evaluate(Buffer.from(c.first)).toString();
      expect(serverFirst).toMatch(/^r=fyko\+d2lbbFgONRv9qkxdawL[0-9a-z]+,s=.+,i=4096$/);
      const f = c.final(serverFirst);
      expect(s.evaluate(Buffer.from(f.message)).toString()).toBe(f.expectedServerFinal);
      expect(s.complete).toBe(true);
      expect(s.authorizationId).toBe('alice');

      const bad = createScramServer(mech, store);
      const c2 = scramClient(hash, 'alice', 'wrong', 'abc');
      const sf = bad.evaluate(Buffer.from(c2.first)).toString();
      expect(() => bad.evaluate(Buffer.from(c2.final(sf).message))).toThrow(new SaslMechanismError('Invalid client credentials'));
      expect(bad.complete).toBe(false);
    });
  }

  it('unknown user, malformed message, different authzid', () => {
    const store = new ScramCredentialStore();
    store.addUsers('alice:secret');
    expect(() => createScramServer('SCRAM-SHA-256', store).evaluate(Buffer.from('n,,n=bob,r=x'))).toThrow('Authentication failed: Invalid user credentials');
    expect(() => createScramServer('SCRAM-SHA-256', store).evaluate(Buffer.from('junk'))).toThrow('Invalid SCRAM client first message format: junk');
    expect(() => createScramServer('SCRAM-SHA-256', store).evaluate(Buffer.from('n,a=bob,n=alice,r=x'))).toThrow(SaslAuthenticationError);
  });

  it('store entries round-trip through load and notify onChange', () => {
    const a = new ScramCredentialStore();
    let changes = 0;
    a.onChange(() => changes++);
    a.addUsers('u:p');
    expect(changes).toBe(2);
    const b = new ScramCredentialStore();
    b.load(JSON.parse(JSON.stringify(a.entries())));
    expect(b.get('u', 'SCRAM-SHA-512')).toEqual(a.get('u', 'SCRAM-SHA-512'));
    expect(b.delete('u', 'SCRAM-SHA-256')).toBe(true);
    expect(b.mechanisms('u')).toEqual(['SCRAM-SHA-512']);
  });
});

describe('PLAIN', () => {
  const server = () => createPlainServer((u) => (u === 'alice' ? 'alice-secret' : undefined));
  it('accepts the right password', () => {
    const s = server();
    expect(s.evaluate(Buffer.from('\0alice\0alice-secret')).length).toBe(0);
    expect(s.complete && s.authorizationId).toBe('alice');
  });
  it('refuses a bad password and malformed tokens with Kafka texts', () => {
    expect(() => server().evaluate(Buffer.from('\0alice\0nope'))).toThrow('Authentication failed: Invalid username or password');
    expect(() => server().evaluate(Buffer.from('alice'))).toThrow('Invalid SASL/PLAIN response: expected 3 tokens, got 1');
    expect(() => server().evaluate(Buffer.from('\0\0x'))).toThrow('Authentication failed: username not specified');
    expect(() => server().evaluate(Buffer.from('bob\0alice\0alice-secret'))).toThrow('Authentication failed: Client requested an authorization id that is different from username');
  });
});

describe('OAUTHBEARER', () => {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const jwt = (claims: object) => `${b64({ alg: 'none' })}.${b64(claims)}.`;
  const initial = (token: string) => Buffer.from(`n,,\x01auth=Bearer ${token}\x01\x01`);
  const NOW = 1_700_000_000_000;

  it('accepts an unexpired unsecured token and reports its expiry', () => {
    const s = createOAuthBearerServer(unsecuredValidatorOptions(() => undefined), () => NOW);
    expect(s.evaluate(initial(jwt({ sub: 'alice', exp: NOW / 1000 + 60, iat: NOW / 1000 }))).length).toBe(0);
    expect(s.authorizationId).toBe('alice');
    expect(s.credentialExpiresAtMs).toBe(NOW + 60_000);
  });
  it('answers an expired token with invalid_token, then fails on %x01', () => {
    const s = createOAuthBearerServer(unsecuredValidatorOptions(() => undefined), () => NOW);
    expect(s.evaluate(initial(jwt({ sub: 'alice', exp: NOW / 1000 - 1 }))).toString()).toBe('{"status":"invalid_token"}');
    expect(() => s.evaluate(Buffer.from([1]))).toThrow(new SaslAuthenticationError('{"status":"invalid_token"}'));
  });
  it('clock skew option and a missing required scope', () => {
    const opts = unsecuredValidatorOptions((k) => ({ unsecuredValidatorAllowableClockSkewMs: '5000', unsecuredValidatorRequiredScope: 'write' })[k]);
    const s = createOAuthBearerServer(opts, () => NOW);
    expect(s.evaluate(initial(jwt({ sub: 'a', exp: NOW / 1000 - 1, scope: 'read' }))).toString()).toBe('{"status":"insufficient_scope", "scope":"[write]"}');
    const ok = createOAuthBearerServer(opts, () => NOW);
    expect(ok.evaluate(initial(jwt({ sub: 'a', exp: NOW / 1000 - 1, scope: ['write'] }))).length).toBe(0);
  });
  it('refuses a malformed initial response', () => {
    const s = createOAuthBearerServer(unsecuredValidatorOptions(() => undefined), () => NOW);
    expect(() => s.evaluate(Buffer.from('nope'))).toThrow('Invalid OAUTHBEARER client first message');
  });
});

describe('JAAS config', () => {
  it('parses modules, flags, quoted options, comments', () => {
    const e = parseJaasConfig(`org.apache.kafka.common.security.plain.PlainLoginModule required /* c */ username="admin" // x
      user_alice="a\\"b" user_$x='y';`);
    expect(e).toHaveLength(1);
    expect(e[0]!.flag).toBe('REQUIRED');
    expect(e[0]!.loginModule).toBe('org.apache.kafka.common.security.plain.PlainLoginModule');
    expect(Object.fromEntries(e[0]!.options)).toEqual({ username: 'admin', user_alice: 'a"b', user_$x: 'y' });
  });
  it("errors as Kafka's JaasConfig does", () => {
    expect(() => parseJaasConfig('')).toThrow('Login module not specified in JAAS config');
    expect(() => parseJaasConfig('M')).toThrow('Login module control flag not specified in JAAS config');
    expect(() => parseJaasConfig('M bogus;')).toThrow("Invalid login module control flag 'bogus' in JAAS config");
    expect(() => parseJaasConfig('M required k=123;')).toThrow("Value not specified for key 'k' in JAAS config");
    expect(() => parseJaasConfig('M required k="v"')).toThrow('JAAS config entry not terminated by semi-colon');
  });
});
