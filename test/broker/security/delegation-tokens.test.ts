// The delegation token store (security/delegation-tokens.ts) on a clock it is given: lifetimes,
// renewal, expiry, the periodic removal, the HMAC Kafka derives, and the SCRAM credential a token
// logs in with.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { DelegationTokenStore } from '../../../src/broker/security/delegation-tokens.js';

const HOUR = 3_600_000;
const alice = { type: 'User', name: 'alice' };
const bob = { type: 'User', name: 'bob' };
const carol = { type: 'User', name: 'carol' };

function store(secret: string | null = 'secret') {
  let now = 1_000_000;
  const s = new DelegationTokenStore({ delegationTokenSecretKey: secret, delegationTokenMaxLifetimeMs: 7 * 24 * HOUR, delegationTokenExpiryTimeMs: 24 * HOUR }, () => now, pino({ level: 'silent' }));
  return { s, advance: (ms: number) => (now += ms), now: () => now };
}

describe('DelegationTokenStore', () => {
  it('is disabled without a secret key', () => {
    const { s } = store(null);
    expect(s.enabled).toBe(false);
    expect(s.create(alice, alice, [], -1)).toEqual({ errorCode: 61 });
    expect(s.renew(Buffer.from('x'), alice, -1)).toEqual({ errorCode: 61 });
  });

  it('creates with Kafka\'s lifetimes and HMAC, renews within the max, refuses strangers, expires', () => {
    const { s, advance, now } = store();
    const t = s.create(alice, alice, [bob], 2 * 24 * HOUR);
    if ('errorCode' in t) throw new Error('not created');
    expect(t.maxTimestamp - t.issueTimestamp).toBe(2 * 24 * HOUR);
    expect(t.expiryTimestamp - t.issueTimestamp).toBe(24 * HOUR);
    expect(t.hmac).toEqual(createHmac('sha512', 'secret').update(t.tokenId).digest());
    expect(s.create(alice, alice, [{ type: 'Group', name: 'g' }], -1)).toEqual({ errorCode: 67 });
    expect(s.renew(t.hmac, carol, -1)).toEqual({ errorCode: 63 });
    advance(23 * HOUR);
    expect(s.renew(t.hmac, bob, -1)).toEqual({ errorCode: 0, expiryTimestamp: t.issueTimestamp + 47 * HOUR });
    expect(s.renew(t.hmac, bob, 48 * HOUR)).toEqual({ errorCode: 0, expiryTimestamp: t.issueTimestamp + 47 * HOUR });
    expect(s.credential(t.tokenId, 'SCRAM-SHA-256')?.credential.iterations).toBe(4096);
    advance(26 * HOUR);
    expect(s.renew(t.hmac, alice, -1)).toEqual({ errorCode: 66 });
    s.removeExpired();
    expect(s.all()).toEqual([]);
    expect(s.expire(t.hmac, alice, -1)).toEqual({ errorCode: 62 });
    const u = s.create(alice, alice, [], -1);
    if ('errorCode' in u) throw new Error('not created');
    expect(s.expire(u.hmac, alice, HOUR)).toEqual({ errorCode: 0, expiryTimestamp: now() + HOUR });
    expect(s.expire(u.hmac, alice, -1)).toEqual({ errorCode: 0, expiryTimestamp: now() });
    expect(s.credential(u.tokenId, 'SCRAM-SHA-256')).toBeUndefined();
  });

  it('keeps tokens across a restart without their HMACs: they are derived again', () => {
    const { s } = store();
    const t = s.create(alice, alice, [], -1);
    if ('errorCode' in t) throw new Error('not created');
    const saved = JSON.parse(JSON.stringify(s.entries()));
    expect(JSON.stringify(saved)).not.toContain(t.hmac.toString('base64'));
    const { s: again } = store();
    again.load(saved);
    expect(again.all()[0]?.hmac).toEqual(t.hmac);
  });
});
