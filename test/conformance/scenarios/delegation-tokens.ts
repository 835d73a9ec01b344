// Delegation tokens (KIP-48): CreateDelegationToken (38), RenewDelegationToken (39),
// ExpireDelegationToken (40), DescribeDelegationToken (41) as a Kafka 3.9 KRaft broker answers
// them (KafkaApis.handleCreateTokenRequest / handleDescribeTokensRequest, ControllerApis,
// DelegationTokenControlManager; DelegationTokenRequestsTest, DelegationTokenEndToEndAuthorizationTest),
// and a login with a token (SCRAM with the tokenauth=true extension, ScramSaslServer). The
// connections authenticate with SASL PLAIN on a SASL_PLAINTEXT listener, as in security.ts.
// A token's id and HMAC are random on each broker (normalised to <token-id> / <hmac>); its
// timestamps are within the hour (<now>).
import type { Ctx, Scenario, Settings, Step } from '../runner.js';
import { clientFinal, clientFirst } from '../support/scram-client.js';
import { E, scenario, send } from './dsl.js';

const L = 'SASL_PLAINTEXT';
const JAAS_PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_bob="bob-secret" user_carol="carol-secret";';
const JAAS_SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const SASL: Settings = {
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS_PLAIN,
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': JAAS_SCRAM,
};
const ENABLED: Settings = { ...SASL, 'delegation.token.secret.key': 'kmock-conformance-token-secret' };
const HOUR = 3_600_000;

function dt(name: string, o: Omit<Scenario, 'name'>, settings: Settings = ENABLED): Scenario {
  return scenario(name, {
    ...o,
    tags: ['security', 'delegation-tokens'],
    groups: [],
    settings: { ...settings, ...(o.settings ?? {}) },
    listeners: [`${L}:SASL_PLAINTEXT`],
    connListeners: { a: L, b: L, c: L, d: L },
  });
}

function login(conn: string, user: string): Step[] {
  return [
    send(conn, 17, 1, { mechanism: 'PLAIN' }, { label: `${conn} handshake`, expect: { errorCode: 0 } }),
    send(conn, 36, 2, { authBytes: Buffer.from(`\u0000${user}\u0000${user}-secret`) }, { label: `${conn} login as ${user}`, expect: { errorCode: 0 } }),
  ];
}

const create = (conn: string, o: { renewers?: string[]; label: string; expect?: unknown; capture?: string; v?: number; maxLifetimeMs?: number }) =>
  send(conn, 38, o.v ?? 3, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: (o.renewers ?? []).map((n) => ({ principalType: 'User', principalName: n })), maxLifetimeMs: BigInt(o.maxLifetimeMs ?? HOUR) }, {
    label: o.label,
    expect: o.expect as never,
    capture:
      o.capture === undefined
        ? undefined
        : (res, c: Ctx) => {
            const r = res as { hmac?: Buffer; tokenId?: string };
            if (r.hmac !== undefined) c.set(`${o.capture}.hmac`, Buffer.from(r.hmac));
            if (r.tokenId !== undefined) c.set(`${o.capture}.id`, r.tokenId);
          },
  });
const hmacOf = (name: string) => (c: Ctx) => c.v<Buffer>(`${name}.hmac`, Buffer.from('no-such-token'));
const renew = (conn: string, token: string, label: string, expect: unknown, renewPeriodMs = HOUR) =>
  send(conn, 39, 2, (c: Ctx) => ({ hmac: hmacOf(token)(c), renewPeriodMs: BigInt(renewPeriodMs) }), { label, expect: expect as never });
const expire = (conn: string, token: string, label: string, expect: unknown, periodMs = -1) =>
  send(conn, 40, 2, (c: Ctx) => ({ hmac: hmacOf(token)(c), expiryTimePeriodMs: BigInt(periodMs) }), { label, expect: expect as never });
const describe = (conn: string, owners: string[] | null, label: string, expect: unknown, v = 3) =>
  send(conn, 41, v, { owners: owners === null ? null : owners.map((n) => ({ principalType: 'User', principalName: n })) }, { label, expect: expect as never });

export const delegationTokenScenarios: Scenario[] = [
  dt(
    'testDelegationTokensDisabled',
    {
      mirrors: 'DelegationTokenControlManager.isEnabled (no delegation.token.secret.key: DELEGATION_TOKEN_AUTH_DISABLED) / KafkaApis.allowTokenRequests (a PLAINTEXT connection: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)',
      description: 'without delegation.token.secret.key: alice (SASL) gets DELEGATION_TOKEN_AUTH_DISABLED from all four APIs; a PLAINTEXT connection gets DELEGATION_TOKEN_REQUEST_NOT_ALLOWED',
      steps: [
        ...login('a', 'alice'),
        create('a', { label: 'create', expect: { errorCode: E.DELEGATION_TOKEN_AUTH_DISABLED } }),
        renew('a', 'none', 'renew', { errorCode: E.DELEGATION_TOKEN_AUTH_DISABLED }),
        expire('a', 'none', 'expire', { errorCode: E.DELEGATION_TOKEN_AUTH_DISABLED }),
        describe('a', null, 'describe', { errorCode: E.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [] }),
        create('p', { label: 'plaintext create', expect: { errorCode: E.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED } }),
        describe('p', null, 'plaintext describe', { errorCode: E.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, tokens: [] }),
        renew('p', 'none', 'plaintext renew', { errorCode: E.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED }),
      ],
    },
    SASL,
  ),
  dt('testDelegationTokenLifecycle', {
    mirrors: 'DelegationTokenControlManager.createDelegationToken / renewDelegationToken / expireDelegationToken, DelegationTokenManager.filterToken (DelegationTokenRequestsTest)',
    description:
      'alice creates a token with bob as renewer (max lifetime 1 h); alice, bob and (without an authorizer) carol see it in DescribeDelegationToken, an owner filter matches owners and renewers; carol cannot renew it (DELEGATION_TOKEN_OWNER_MISMATCH), bob can; a renewer of another principal type is INVALID_PRINCIPAL_TYPE; an unknown HMAC DELEGATION_TOKEN_NOT_FOUND; alice expires it at once, then it is gone and renewing it is DELEGATION_TOKEN_NOT_FOUND',
    steps: [
      ...login('a', 'alice'),
      ...login('b', 'bob'),
      ...login('c', 'carol'),
      create('a', { renewers: ['bob'], label: 'alice creates', capture: 't', expect: { errorCode: 0, principalType: 'User', principalName: 'alice', tokenRequesterPrincipalName: 'alice' } }),
      send('a', 38, 3, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: [{ principalType: 'Group', principalName: 'ops' }], maxLifetimeMs: -1n }, { label: 'a Group renewer', expect: { errorCode: E.INVALID_PRINCIPAL_TYPE } }),
      // The broker's token cache learns of the token from the controller's record.
      { op: 'poll', forMs: 500 },
      describe('a', null, 'alice describes all', { errorCode: 0, tokens: [{ principalName: 'alice', renewers: [{ principalType: 'User', principalName: 'bob' }] }] }),
      describe('b', null, 'bob (renewer) describes all', { errorCode: 0, tokens: [{ principalName: 'alice' }] }),
      // Not hers, but DESCRIBE on the token is allowed without an authorizer (filterToken).
      describe('c', null, 'carol describes all', { errorCode: 0, tokens: [{ principalName: 'alice' }] }),
      describe('c', ['carol'], 'carol, owner carol', { errorCode: 0, tokens: [] }),
      describe('c', ['bob'], 'carol, owner bob (a renewer counts)', { errorCode: 0, tokens: [{ principalName: 'alice' }] }),
      describe('a', [], 'alice, an empty owner list', { errorCode: 0, tokens: [] }),
      describe('a', ['alice'], 'alice, owner alice', { errorCode: 0, tokens: [{ principalName: 'alice' }] }, 1),
      renew('c', 't', 'carol renews', { errorCode: E.DELEGATION_TOKEN_OWNER_MISMATCH }),
      renew('b', 't', 'bob renews', { errorCode: 0 }, 60_000),
      { op: 'poll', forMs: 500 },
      renew('b', 'none', 'an unknown HMAC', { errorCode: E.DELEGATION_TOKEN_NOT_FOUND }),
      expire('c', 't', 'carol expires', { errorCode: E.DELEGATION_TOKEN_OWNER_MISMATCH }),
      expire('a', 't', 'alice expires it now', { errorCode: 0 }),
      { op: 'poll', forMs: 500 },
      describe('a', null, 'gone', { errorCode: 0, tokens: [] }),
      renew('a', 't', 'renew after expiry', { errorCode: E.DELEGATION_TOKEN_NOT_FOUND }),
    ],
  }),
  dt('testDelegationTokenLogin', {
    mirrors: 'ScramSaslServer (tokenauth=true: the token id as user name, base64(HMAC) as password, the owner as principal) / KafkaApis.allowTokenRequests (a token-authenticated session may not ask for tokens) (DelegationTokenEndToEndAuthorizationTest)',
    description:
      'alice creates a token; a new connection logs in with SCRAM-SHA-256 and tokenauth=true (the token id, base64 of the HMAC): authenticated, Metadata answered, and its CreateDelegationToken is DELEGATION_TOKEN_REQUEST_NOT_ALLOWED; a wrong token password fails; alice expires the token',
    steps: [
      ...login('a', 'alice'),
      create('a', { label: 'alice creates', capture: 't', expect: { errorCode: 0 } }),
      { op: 'poll', forMs: 500 },
      send('d', 17, 1, { mechanism: 'SCRAM-SHA-256' }, { expect: { errorCode: 0 } }),
      send('d', 36, 2, (c: Ctx) => ({ authBytes: Buffer.from(clientFirst(c.v<string>('t.id', 'none'), undefined, { tokenauth: 'true' })) }), {
        label: 'token client-first',
        capture: (res, c: Ctx) => c.set('serverFirst', Buffer.from((res as { authBytes: Buffer }).authBytes).toString('latin1')),
      }),
      send('d', 36, 2, (c: Ctx) => ({ authBytes: Buffer.from(clientFinal('sha256', c.v<string>('t.id', 'none'), hmacOf('t')(c).toString('base64'), c.v<string>('serverFirst', ''), undefined, { tokenauth: 'true' }).message) }), {
        label: 'token client-final',
        expect: { errorCode: 0 },
      }),
      send('d', 3, 1, { topics: [] }, { label: 'token session: Metadata', expect: { topics: [] } }),
      create('d', { label: 'token session: create', expect: { errorCode: E.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED } }),
      send('b', 17, 1, { mechanism: 'SCRAM-SHA-256' }, { expect: { errorCode: 0 } }),
      send('b', 36, 2, (c: Ctx) => ({ authBytes: Buffer.from(clientFirst(c.v<string>('t.id', 'none'), undefined, { tokenauth: 'true' })) }), {
        label: 'wrong token password: client-first',
        capture: (res, c: Ctx) => c.set('serverFirst2', Buffer.from((res as { authBytes: Buffer }).authBytes).toString('latin1')),
      }),
      send('b', 36, 2, (c: Ctx) => ({ authBytes: Buffer.from(clientFinal('sha256', c.v<string>('t.id', 'none'), 'not-the-hmac', c.v<string>('serverFirst2', ''), undefined, { tokenauth: 'true' }).message) }), {
        label: 'wrong token password: client-final',
        expect: { errorCode: E.SASL_AUTHENTICATION_FAILED },
      }),
      expire('a', 't', 'alice expires it', { errorCode: 0 }),
    ],
  }),
];
