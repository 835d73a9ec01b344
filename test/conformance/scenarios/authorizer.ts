// The ACL authorizer (KRaft's StandardAuthorizer) as Kafka 3.9 enforces it: the ACL APIs with an
// authorizer (AclApis.scala on the controller: CreateAcls/DeleteAcls are forwarded there;
// AclControlManager validates; DescribeAcls is answered by the broker's StandardAuthorizerData),
// and the authorization checks of KafkaApis / ControllerApis / AuthHelper / ConfigHelper on
// Metadata, Produce, Fetch, ListOffsets, the group APIs, InitProducerId, the admin APIs and the
// SCRAM credential APIs (AuthorizerIntegrationTest).
//
// Every scenario runs on a broker with `authorizer.class.name` = StandardAuthorizer and
// `super.users` = User:ANONYMOUS: connection "p" on the PLAINTEXT listener (the principal of the
// KRaft controller and inter-broker traffic as well) is a super user and sets things up (topics,
// ACLs, groups); connections "a" and "c" (User:alice) and "b" (User:bob) authenticate with SASL/PLAIN on
// a SASL_PLAINTEXT listener first, then send the requests under test. Resource names are in the
// run's namespace; ACLs on the CLUSTER and on the "*" wildcard resource are global, and
// authorizeByResourceType looks at every ACL of a principal, so every scenario ends by deleting
// all ACLs of User:alice, User:bob and User:* (its own: the one before did the same).
//
// A new ACL reaches the broker's authorizer when the broker's metadata publisher has applied the
// record the controller committed, a moment after CreateAcls/DeleteAcls answers (Kafka's tests
// wait for it too: TestUtils.waitAndVerifyAcls): a real-time pause (poll) follows each change.
// No `wait` steps: the manual-clock kmock has no extra listeners.
import type { Ctx, Dyn, ExpectValue, Scenario, Settings, Step } from '../runner.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { E, anything, close, collect, commit, createTopic, deleteGroups, describeGroups, err, fetchOffsets, heartbeat, join, joined, listGroups, ref, scenario, send, sync, unordered } from './dsl.js';

const L = 'SASL_PLAINTEXT';
const JAAS_PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_bob="bob-secret";';
const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const SETTINGS: Settings = {
  'authorizer.class.name': AUTHORIZER,
  'super.users': 'User:ANONYMOUS',
  'sasl.enabled.mechanisms': 'PLAIN',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS_PLAIN,
};
const ALICE = 'User:alice';
const BOB = 'User:bob';
const EVERYONE = 'User:*';
/** How long an ACL change takes to reach the broker's authorizer (see the header). */
const ACL_PROPAGATION_MS = 500;

// ResourceType, PatternType, AclOperation, AclPermissionType codes (org.apache.kafka.common.*).
const R = { ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, USER: 7 } as const;
const P = { ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
const OP = { ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9, DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12 } as const;
const DENY = 2;
const ALLOW = 3;
const ANY_PERMISSION = 1;
const unknownError = { errorCode: E.UNKNOWN_SERVER_ERROR, errorMessage: null };
const CLUSTER_NAME = 'kafka-cluster';

/** Utils.to32BitField of the operations (AuthHelper.authorizedOperations). */
const bits = (...ops: number[]): number => ops.reduce((a, o) => a | (1 << o), 0);
/** Every operation AclEntry.supportedOperations(TOPIC) lists. */
const TOPIC_OPS = [OP.READ, OP.WRITE, OP.CREATE, OP.DELETE, OP.ALTER, OP.DESCRIBE, OP.DESCRIBE_CONFIGS, OP.ALTER_CONFIGS];
/** AclEntry.supportedOperations(CLUSTER). */
const CLUSTER_OPS = [OP.CREATE, OP.CLUSTER_ACTION, OP.DESCRIBE_CONFIGS, OP.ALTER_CONFIGS, OP.IDEMPOTENT_WRITE, OP.ALTER, OP.DESCRIBE];
/** AclEntry.supportedOperations(GROUP). */
const GROUP_OPS = [OP.READ, OP.DESCRIBE, OP.DELETE];

// Resource names in the run's namespace.
const T = (name: string) => (c: Ctx) => c.t(name);
const G = (name: string) => (c: Ctx) => c.g(name);
const TX = (name: string) => (c: Ctx) => `${c.ns}${name}`;
const NS = (c: Ctx) => c.ns;
const at = <T>(v: Dyn<T>, c: Ctx): T => (typeof v === 'function' ? (v as (c: Ctx) => T)(c) : v);

interface AclSpec {
  rt?: number;
  name: Dyn<string>;
  pattern?: number;
  principal?: string;
  host?: string;
  op: number;
  perm?: number;
}
const creation = (s: AclSpec, c: Ctx) => ({
  resourceType: s.rt ?? R.TOPIC,
  resourceName: at(s.name, c),
  resourcePatternType: s.pattern ?? P.LITERAL,
  principal: s.principal ?? ALICE,
  host: s.host ?? '*',
  operation: s.op,
  permissionType: s.perm ?? ALLOW,
});
/** A creation's or a request's success: error code 0, and the message the schema's default (""). */
const ok = { errorCode: 0, errorMessage: '' };

const settle = (ms = ACL_PROPAGATION_MS): Step => ({ op: 'poll', forMs: ms });

/** CreateAcls v3 as the super user, every creation answered without error, then the pause. */
function grant(specs: AclSpec[], label?: string, conn = 'p'): Step[] {
  return [
    send(conn, 30, 3, (c: Ctx) => ({ creations: specs.map((s) => creation(s, c)) }), { label: label ?? 'grant', expect: { results: specs.map(() => ok) } }),
    settle(),
  ];
}

interface FilterSpec {
  rt?: number;
  name?: Dyn<string | null>;
  pattern?: number;
  principal?: string | null;
  host?: string | null;
  op?: number;
  perm?: number;
}
const filter = (f: FilterSpec, c: Ctx) => ({
  resourceTypeFilter: f.rt ?? R.ANY,
  resourceNameFilter: f.name === undefined ? null : at(f.name, c),
  patternTypeFilter: f.pattern ?? P.ANY,
  principalFilter: f.principal === undefined ? null : f.principal,
  hostFilter: f.host === undefined ? null : f.host,
  operation: f.op ?? OP.ANY,
  permissionType: f.perm ?? ANY_PERMISSION,
});

/** DeleteAcls v3 as the super user (the answer lists what each filter deleted), then the pause. */
function revoke(filters: FilterSpec[], expect?: ExpectValue, label = 'revoke'): Step[] {
  return [send('p', 31, 3, (c: Ctx) => ({ filters: filters.map((f) => filter(f, c)) }), { label, expect }), settle()];
}

/** Every ACL of alice, bob and User:* (the scenario's own): deleted at the end of each scenario. */
const cleanup = (): Step[] => revoke([{ principal: ALICE }, { principal: BOB }, { principal: EVERYONE }], undefined, 'cleanup: every ACL of alice, bob, User:*');

/** DescribeAcls; a successful answer's errorMessage is the schema default "" (checked too). */
const describeAcls = (conn: string, f: FilterSpec, o: { v?: number; label?: string; expect?: Record<string, ExpectValue> } = {}): Step =>
  send(conn, 29, o.v ?? 3, (c: Ctx) => filter(f, c), {
    label: o.label,
    expect: o.expect !== undefined && o.expect.errorCode === 0 && !('errorMessage' in o.expect) ? { ...o.expect, errorMessage: '' } : o.expect,
  });

const plain = (user: string, pw: string): Buffer => Buffer.from(`\u0000${user}\u0000${pw}`);

/** SaslHandshake v1 PLAIN + SaslAuthenticate v2 on the SASL listener. */
function login(conn: string, user: 'alice' | 'bob'): Step[] {
  return [
    send(conn, 17, 1, { mechanism: 'PLAIN' }, { label: `handshake ${user}`, expect: { errorCode: 0 } }),
    send(conn, 36, 2, { authBytes: plain(user, `${user}-secret`) }, { label: `login ${user}`, expect: { errorCode: 0 } }),
  ];
}

/**
 * A scenario on the authorizer broker: connections "a" (alice) and "b" (bob) on the SASL
 * listener, "p" (super user) on PLAINTEXT; the ACL cleanup appended.
 */
function authz(name: string, o: Omit<Scenario, 'name'>): Scenario {
  return scenario(name, {
    ...o,
    tags: ['security', 'acl', 'authorizer'],
    groups: o.groups ?? [],
    settings: { ...SETTINGS, ...(o.settings ?? {}) },
    listeners: [`${L}:SASL_PLAINTEXT`],
    connListeners: { a: L, b: L, c: L },
    steps: [...o.steps, ...cleanup()],
  });
}

// Requests.
const metadata = (conn: string, v: number, topics: Array<(c: Ctx) => string> | null, o: { auto?: boolean; topicOps?: boolean; clusterOps?: boolean; label?: string; expect?: ExpectValue } = {}): Step =>
  send(
    conn,
    3,
    v,
    (c: Ctx) => ({
      topics: topics === null ? null : topics.map((t) => ({ name: t(c) })),
      // v0-v3 cannot say "no auto-creation"; v11+ has no includeClusterAuthorizedOperations.
      allowAutoTopicCreation: v < 4 ? true : (o.auto ?? false),
      includeClusterAuthorizedOperations: v >= 8 && v <= 10 ? (o.clusterOps ?? false) : false,
      includeTopicAuthorizedOperations: v >= 8 ? (o.topicOps ?? false) : false,
    }),
    { label: o.label, expect: o.expect },
  );

const T0 = 1_700_000_000_000;
const records = (n: number, base = 0): Buffer =>
  encodeBatch({ baseTimestamp: T0 + base, records: Array.from({ length: n }, (_, i) => ({ key: `k${base + i}`, value: `v${base + i}`, timestampDelta: i, headers: [] })) });

/** Produce v9, acks=1, one small batch per topic (partition 0). */
const produce = (conn: string, topics: string[], o: { label?: string; expect?: ExpectValue; base?: number } = {}): Step =>
  send(
    conn,
    0,
    9,
    (c: Ctx) => ({ transactionalId: null, acks: 1, timeoutMs: 5000, topicData: topics.map((t) => ({ name: c.t(t), partitionData: [{ index: 0, records: records(2, o.base ?? 0) }] })) }),
    { label: o.label, expect: o.expect },
  );

const fetch = (conn: string, topics: string[], o: { label?: string; expect?: ExpectValue } = {}): Step =>
  send(
    conn,
    1,
    12,
    (c: Ctx) => ({
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1048576,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: topics.map((t) => ({
        topic: c.t(t),
        partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }],
      })),
      forgottenTopicsData: [],
      rackId: '',
    }),
    { label: o.label, expect: o.expect },
  );

const listOffsets = (conn: string, topics: string[], o: { label?: string; expect?: ExpectValue } = {}): Step =>
  send(
    conn,
    2,
    7,
    (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: topics.map((t) => ({ name: c.t(t), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] })) }),
    { label: o.label, expect: o.expect },
  );

const initProducerId = (conn: string, txnId: ((c: Ctx) => string) | null, o: { label?: string; expect?: ExpectValue } = {}): Step =>
  send(conn, 22, 4, (c: Ctx) => ({ transactionalId: txnId === null ? null : txnId(c), transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }), {
    label: o.label,
    expect: o.expect,
    // A transaction coordinator that is still loading its partition answers a retriable error.
    retry: { while: (r) => r.errorCode === E.COORDINATOR_LOAD_IN_PROGRESS || r.errorCode === E.COORDINATOR_NOT_AVAILABLE || r.errorCode === E.NOT_COORDINATOR, delayMs: 200, max: 50 },
  });

const TAF = E.TOPIC_AUTHORIZATION_FAILED;
const GAF = E.GROUP_AUTHORIZATION_FAILED;
const CAF = E.CLUSTER_AUTHORIZATION_FAILED;
const TXAF = E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;

const topicResult = (name: string, errorCode: number, extra: Record<string, ExpectValue> = {}) => ({ name, errorCode, ...extra });
const partitionError = (errorCode: number) => ({ partitions: [{ errorCode }] });

export const authorizerScenarios: Scenario[] = [
  // ---------------------------------------------------------------------------------------------
  // The ACL APIs with an authorizer
  authz('testAuthorizerAclCreateDescribeDelete', {
    mirrors: 'AclApis.handleCreateAcls / handleDescribeAcls / handleDeleteAcls, AclControlManager.createAcls / deleteAcls, StandardAuthorizerData.acls, ResourcePatternFilter.matches / AccessControlEntryFilter.matches (DescribeAclsRequestTest, AuthorizerIntegrationTest)',
    description:
      'the super user creates literal, prefixed and "*" ACLs (ALLOW and DENY, topic, group, cluster, specific host), then DescribeAcls with filters (MATCH includes the prefixed and wildcard ACLs, LITERAL and PREFIXED match exactly, ANY pattern, by principal, by host, by operation, by permission, v0 and v1), DeleteAcls with a filter matching one ACL and one matching none, then describe again',
    steps: [
      ...grant(
        [
          { name: T('t-1'), op: OP.READ },
          { name: T('t-'), pattern: P.PREFIXED, op: OP.WRITE },
          { name: '*', principal: BOB, op: OP.DELETE, perm: DENY },
          { rt: R.GROUP, name: G('g'), principal: EVERYONE, host: '10.0.0.1', op: OP.DESCRIBE },
          { rt: R.CLUSTER, name: CLUSTER_NAME, principal: BOB, op: OP.IDEMPOTENT_WRITE },
          { rt: R.TRANSACTIONAL_ID, name: TX('txn'), op: OP.WRITE, perm: DENY },
        ],
        'create six ACLs',
      ),
      describeAcls('p', { rt: R.TOPIC, name: T('t-1'), pattern: P.MATCH }, {
        label: 'topic t-1 MATCH: literal, prefixed t- and the wildcard',
        expect: {
          errorCode: 0,
          resources: unordered([
            { resourceType: R.TOPIC, resourceName: 't-1', patternType: P.LITERAL, acls: [{ principal: ALICE, host: '*', operation: OP.READ, permissionType: ALLOW }] },
            { resourceType: R.TOPIC, resourceName: 't-', patternType: P.PREFIXED, acls: [{ principal: ALICE, host: '*', operation: OP.WRITE, permissionType: ALLOW }] },
            { resourceType: R.TOPIC, resourceName: '*', patternType: P.LITERAL, acls: [{ principal: BOB, host: '*', operation: OP.DELETE, permissionType: DENY }] },
          ]),
        },
      }),
      describeAcls('p', { rt: R.TOPIC, name: T('t-1'), pattern: P.LITERAL }, { label: 'topic t-1 LITERAL', expect: { errorCode: 0, resources: [{ resourceName: 't-1', patternType: P.LITERAL }] } }),
      describeAcls('p', { rt: R.TOPIC, name: T('t-1'), pattern: P.ANY }, { label: 'topic t-1 ANY pattern: the exact name only', expect: { errorCode: 0, resources: [{ resourceName: 't-1' }] } }),
      describeAcls('p', { rt: R.ANY, name: T('t-'), pattern: P.PREFIXED }, { v: 1, label: 'v1 any type, t- PREFIXED', expect: { errorCode: 0, resources: [{ resourceName: 't-', patternType: P.PREFIXED }] } }),
      describeAcls('p', { rt: R.TOPIC, name: T('t-1'), pattern: P.PREFIXED }, { label: 'topic t-1 PREFIXED: no prefixed ACL named t-1', expect: { errorCode: 0, resources: [] } }),
      describeAcls('p', { principal: ALICE }, { label: 'principal alice', expect: { errorCode: 0, resources: unordered([{ resourceName: 't-1' }, { resourceName: 't-' }, { resourceName: 'txn' }]) } }),
      describeAcls('p', { host: '10.0.0.1' }, { label: 'host 10.0.0.1', expect: { errorCode: 0, resources: [{ resourceType: R.GROUP, resourceName: 'g', acls: [{ principal: EVERYONE, host: '10.0.0.1' }] }] } }),
      describeAcls('p', { op: OP.IDEMPOTENT_WRITE }, { label: 'operation IDEMPOTENT_WRITE', expect: { errorCode: 0, resources: [{ resourceType: R.CLUSTER, resourceName: CLUSTER_NAME, patternType: P.LITERAL }] } }),
      describeAcls('p', { rt: R.TRANSACTIONAL_ID, perm: DENY }, { label: 'transactional ids, DENY', expect: { errorCode: 0, resources: [{ resourceType: R.TRANSACTIONAL_ID, resourceName: 'txn' }] } }),
      describeAcls('q', { rt: R.GROUP, name: G('g'), pattern: P.LITERAL }, { v: 0, label: 'v0 group g (its own connection: Kafka 4.x removed v0 and closes it)', expect: { errorCode: 0, resources: [{ resourceType: R.GROUP, resourceName: 'g' }] } }),
      describeAcls('p', { rt: R.GROUP, name: G('other'), pattern: P.MATCH }, { label: 'a group without ACLs', expect: { errorCode: 0, errorMessage: '', resources: [] } }),
      ...revoke(
        [
          { rt: R.TOPIC, name: T('t-1'), pattern: P.LITERAL, principal: ALICE, op: OP.READ, perm: ALLOW },
          { rt: R.TOPIC, name: T('nothing'), pattern: P.LITERAL },
        ],
        {
          filterResults: [
            { errorCode: 0, matchingAcls: [{ errorCode: 0, resourceType: R.TOPIC, resourceName: 't-1', patternType: P.LITERAL, principal: ALICE, host: '*', operation: OP.READ, permissionType: ALLOW }] },
            { errorCode: 0, matchingAcls: [] },
          ],
        },
        'delete t-1 READ; a filter matching nothing',
      ),
      describeAcls('p', { rt: R.TOPIC, name: T('t-1'), pattern: P.MATCH }, { label: 'topic t-1 MATCH after the delete', expect: { errorCode: 0, resources: unordered([{ resourceName: 't-' }, { resourceName: '*' }]) } }),
      ...revoke([{ rt: R.ANY, name: '*', pattern: P.LITERAL }], { filterResults: [{ errorCode: 0, matchingAcls: [{ resourceName: '*', principal: BOB }] }] }, 'delete the wildcard ACLs'),
    ],
  }),
  authz('testAuthorizerAclCreateValidation', {
    mirrors: 'AclApis.handleCreateAcls (CLUSTER name, empty name) / CreateAclsRequest.aclBinding (ResourcePattern, AccessControlEntry constructors) / AclControlManager.validateNewAcl and createAcls (a duplicate is a success)',
    description:
      'CreateAcls v3: a CLUSTER ACL not named kafka-cluster and an empty resource name fail with INVALID_REQUEST per creation, next to a valid one; ANY operation, MATCH and ANY pattern types, ANY resource type, ANY permission in a creation: the whole request fails with UNKNOWN_SERVER_ERROR (a valid creation next to one is not made either); a principal without a type INVALID_REQUEST; the same ACL twice in one request and again in a second request: success, one ACL',
    steps: [
      send(
        'p',
        30,
        3,
        (c: Ctx) => ({
          creations: [
            creation({ name: T('v'), op: OP.READ }, c),
            creation({ rt: R.CLUSTER, name: 'not-kafka-cluster', op: OP.ALTER }, c),
            creation({ name: '', op: OP.READ }, c),
          ],
        }),
        { label: 'valid, bad cluster name, empty name', expect: { results: [ok, err(E.INVALID_REQUEST), err(E.INVALID_REQUEST)] } },
      ),
      // The AclBinding built from a creation refuses ANY/MATCH (ResourcePattern, AccessControlEntry
      // constructors: IllegalArgumentException) before any validation: the whole request fails
      // (handleError -> getErrorResponse: UNKNOWN_SERVER_ERROR, no message, for every creation).
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('v'), op: OP.ANY }, c)] }), { label: 'ANY operation', expect: { results: [unknownError] } }),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('v'), pattern: P.MATCH, op: OP.READ }, c)] }), { label: 'MATCH pattern type', expect: { results: [unknownError] } }),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('v'), pattern: P.ANY, op: OP.READ }, c)] }), { label: 'ANY pattern type', expect: { results: [unknownError] } }),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ rt: R.ANY, name: T('v'), op: OP.READ }, c)] }), { label: 'ANY resource type', expect: { results: [unknownError] } }),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('v'), op: OP.READ, perm: ANY_PERMISSION }, c)] }), { label: 'ANY permission type', expect: { results: [unknownError] } }),
      send('p', 30, 2, (c: Ctx) => ({ creations: [creation({ name: T('w'), op: OP.READ }, c), creation({ name: T('w'), op: OP.ANY }, c)] }), {
        label: 'a valid creation next to an ANY operation: both fail, nothing created',
        expect: { results: [unknownError, unknownError] },
      }),
      // AclControlManager (StandardAcl.fromAclBinding parses the principal): INVALID_REQUEST for that creation.
      send('p', 30, 1, (c: Ctx) => ({ creations: [creation({ name: T('v'), op: OP.WRITE, principal: 'alice' }, c)] }), { label: 'principal without a type', expect: { results: [err(E.INVALID_REQUEST)] } }),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('dup'), op: OP.READ }, c), creation({ name: T('dup'), op: OP.READ }, c)] }), { label: 'the same ACL twice', expect: { results: [ok, ok] } }),
      settle(),
      send('p', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('dup'), op: OP.READ }, c)] }), { label: 'the same ACL again', expect: { results: [ok] } }),
      settle(),
      describeAcls('p', { rt: R.TOPIC, name: T('dup'), pattern: P.LITERAL }, { label: 'one ACL on dup', expect: { errorCode: 0, resources: [{ resourceName: 'dup', acls: [{ principal: ALICE, operation: OP.READ }] }] } }),
      describeAcls('p', { rt: R.CLUSTER }, { label: 'no cluster ACL was created', expect: { errorCode: 0, resources: [] } }),
      describeAcls('p', { rt: R.TOPIC, name: T('v'), pattern: P.LITERAL }, { label: 'v: only the first valid creation', expect: { errorCode: 0, resources: [{ resourceName: 'v', acls: [{ operation: OP.READ }] }] } }),
      describeAcls('p', { rt: R.TOPIC, name: T('w'), pattern: P.LITERAL }, { label: 'w: nothing (its request failed whole)', expect: { errorCode: 0, resources: [] } }),
    ],
  }),
  authz('testAuthorizerAclApisNotAuthorizedForAlice', {
    mirrors: 'AclApis: authHelper.authorizeClusterOperation(DESCRIBE) for DescribeAcls, (ALTER) for CreateAcls/DeleteAcls -> ClusterAuthorizationException -> getErrorResponse (AuthorizerIntegrationTest.testCreateAclsWithoutClusterAlter…)',
    description:
      'alice without cluster ACLs: DescribeAcls CLUSTER_AUTHORIZATION_FAILED, CreateAcls one CLUSTER_AUTHORIZATION_FAILED per creation, DeleteAcls one per filter; with DESCRIBE on the cluster DescribeAcls answers (CreateAcls still fails); with ALTER on the cluster she creates and deletes an ACL herself',
    steps: [
      ...login('a', 'alice'),
      describeAcls('a', { rt: R.TOPIC, name: T('x'), pattern: P.LITERAL }, { label: 'alice DescribeAcls', expect: { errorCode: CAF, resources: [] } }),
      send('a', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('x'), op: OP.READ }, c), creation({ rt: R.GROUP, name: G('g'), op: OP.READ }, c)] }), {
        label: 'alice CreateAcls',
        expect: { results: [err(CAF), err(CAF)] },
      }),
      send('a', 31, 3, (c: Ctx) => ({ filters: [filter({ principal: ALICE }, c), filter({ rt: R.TOPIC, name: T('x'), pattern: P.LITERAL }, c)] }), {
        label: 'alice DeleteAcls',
        expect: { filterResults: [{ errorCode: CAF, matchingAcls: [] }, { errorCode: CAF, matchingAcls: [] }] },
      }),
      describeAcls('a', { rt: R.TOPIC, name: T('x'), pattern: P.LITERAL }, { v: 1, label: 'alice DescribeAcls v1', expect: { errorCode: CAF } }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.DESCRIBE }], 'alice may DESCRIBE the cluster'),
      describeAcls('a', { rt: R.CLUSTER, pattern: P.ANY }, { label: 'alice DescribeAcls cluster', expect: { errorCode: 0, resources: [{ resourceType: R.CLUSTER, acls: [{ principal: ALICE, operation: OP.DESCRIBE }] }] } }),
      send('a', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('x'), op: OP.READ }, c)] }), { label: 'alice CreateAcls with DESCRIBE only', expect: { results: [err(CAF)] } }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.ALTER }], 'alice may ALTER the cluster'),
      send('a', 30, 3, (c: Ctx) => ({ creations: [creation({ name: T('x'), op: OP.READ, principal: BOB }, c)] }), { label: 'alice CreateAcls with ALTER', expect: { results: [ok] } }),
      settle(),
      send('a', 31, 3, (c: Ctx) => ({ filters: [filter({ rt: R.TOPIC, name: T('x'), pattern: P.LITERAL }, c)] }), {
        label: 'alice DeleteAcls with ALTER',
        expect: { filterResults: [{ errorCode: 0, matchingAcls: [{ resourceName: 'x', principal: BOB }] }] },
      }),
      settle(),
    ],
  }),

  // ---------------------------------------------------------------------------------------------
  // Metadata
  authz('testAuthorizerMetadataTopicDescribe', {
    mirrors: 'KafkaApis.handleTopicMetadataRequest (filterByAuthorized DESCRIBE: all-topics hides, named topics TOPIC_AUTHORIZATION_FAILED) / StandardAuthorizerData.findResult (READ implies DESCRIBE; a DENY READ does not deny DESCRIBE; DENY wins; host)',
    description:
      'topics r (alice READ), d (DESCRIBE), n (none), x (ALLOW READ + DENY READ), y (ALLOW DESCRIBE + DENY ALL), z (ALLOW ALL + DENY DESCRIBE from host 10.0.0.1): all-topics Metadata v12 and v1 as alice list r, d, x, z; named r, n, y and a missing topic: r answered, the others TOPIC_AUTHORIZATION_FAILED with no partitions and a zero topic id; the super user sees every topic',
    steps: [
      ...['r', 'd', 'n', 'x', 'y', 'z'].map((t) => createTopic('p', t, 1)),
      ...grant([
        { name: T('r'), op: OP.READ },
        { name: T('d'), op: OP.DESCRIBE },
        { name: T('x'), op: OP.READ },
        { name: T('x'), op: OP.READ, perm: DENY },
        { name: T('y'), op: OP.DESCRIBE },
        { name: T('y'), op: OP.ALL, perm: DENY },
        { name: T('z'), op: OP.ALL },
        { name: T('z'), op: OP.DESCRIBE, perm: DENY, host: '10.0.0.1' },
      ]),
      ...login('a', 'alice'),
      metadata('a', 12, null, {
        label: 'alice all topics v12',
        expect: { topics: [{ name: 'd', errorCode: 0 }, { name: 'r', errorCode: 0 }, { name: 'x', errorCode: 0 }, { name: 'z', errorCode: 0 }] },
      }),
      metadata('a', 1, null, { label: 'alice all topics v1', expect: { topics: [{ name: 'd' }, { name: 'r' }, { name: 'x' }, { name: 'z' }] } }),
      metadata('a', 12, [T('r'), T('n'), T('y'), T('missing')], {
        label: 'alice named topics v12',
        expect: {
          topics: [
            { name: 'missing', errorCode: TAF, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [] },
            { name: 'n', errorCode: TAF, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [] },
            { name: 'r', errorCode: 0 },
            { name: 'y', errorCode: TAF, partitions: [] },
          ],
        },
      }),
      metadata('a', 4, [T('n'), T('d')], { label: 'alice named topics v4', expect: { topics: [{ name: 'd', errorCode: 0 }, { name: 'n', errorCode: TAF }] } }),
      metadata('p', 12, [T('n'), T('y'), T('missing')], {
        label: 'super user named topics',
        expect: { topics: [{ name: 'missing', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }, { name: 'n', errorCode: 0 }, { name: 'y', errorCode: 0 }] },
      }),
    ],
  }),
  authz('testAuthorizerMetadataPrefixedAndWildcardPrincipal', {
    mirrors: 'StandardAuthorizerData.findAclRule / checkSection (PREFIXED ACLs, a LITERAL ACL whose name is a prefix does not match) / matchingPrincipals (User:*)',
    description:
      'a PREFIXED DESCRIBE ACL on "pre-" for alice shows pre-1 and pre-2 but not pr; a LITERAL ACL named "pr" does not match topic pr-x; a User:* READ ACL on topic all lets alice and bob see it; a PREFIXED DENY for bob on "pre-" overrides the User:* ALLOW on pre-2',
    steps: [
      ...['pre-1', 'pre-2', 'pr', 'pr-x', 'all'].map((t) => createTopic('p', t, 1)),
      ...grant([
        { name: T('pre-'), pattern: P.PREFIXED, op: OP.DESCRIBE },
        { name: T('pr'), op: OP.DESCRIBE, principal: BOB },
        { name: T('all'), op: OP.READ, principal: EVERYONE },
        { name: T('pre-2'), op: OP.READ, principal: EVERYONE },
        { name: T('pre-'), pattern: P.PREFIXED, op: OP.DESCRIBE, principal: BOB, perm: DENY },
      ]),
      ...login('a', 'alice'),
      ...login('b', 'bob'),
      metadata('a', 12, null, { label: 'alice all topics', expect: { topics: [{ name: 'all' }, { name: 'pre-1' }, { name: 'pre-2' }] } }),
      metadata('b', 12, null, { label: 'bob all topics', expect: { topics: [{ name: 'all' }, { name: 'pr' }] } }),
      metadata('b', 12, [T('pr-x'), T('pre-2'), T('pr')], {
        label: 'bob named: pr-x (literal pr does not match), pre-2 (denied by prefix), pr',
        expect: { topics: [{ name: 'pr', errorCode: 0 }, { name: 'pr-x', errorCode: TAF }, { name: 'pre-2', errorCode: TAF }] },
      }),
    ],
  }),
  authz('testAuthorizerMetadataWildcardResource', {
    mirrors: 'StandardAuthorizerData.findAclRule (the "*" LITERAL section is searched after the resource\'s own; a DENY found first wins)',
    description:
      'a "*" topic DESCRIBE ACL for bob: bob sees any named topic (an existing one answered, a missing one UNKNOWN_TOPIC_OR_PARTITION); a "*" DENY DESCRIBE for alice beats her literal ALLOW READ on topic w',
    steps: [
      createTopic('p', 'w', 1),
      ...grant([
        { name: '*', op: OP.DESCRIBE, principal: BOB },
        { name: T('w'), op: OP.READ },
        { name: '*', op: OP.DESCRIBE, perm: DENY },
      ]),
      ...login('a', 'alice'),
      ...login('b', 'bob'),
      metadata('b', 12, [T('w'), T('missing')], { label: 'bob named topics', expect: { topics: [{ name: 'missing', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }, { name: 'w', errorCode: 0 }] } }),
      metadata('a', 12, [T('w')], { label: 'alice: wildcard DENY', expect: { topics: [{ name: 'w', errorCode: TAF }] } }),
      ...revoke([{ rt: R.TOPIC, name: '*', pattern: P.LITERAL }], { filterResults: [{ errorCode: 0, matchingAcls: unordered([{ principal: BOB }, { principal: ALICE }]) }] }, 'delete the wildcard ACLs'),
      metadata('a', 12, [T('w')], { label: 'alice after the wildcard DENY is gone', expect: { topics: [{ name: 'w', errorCode: 0 }] } }),
    ],
  }),
  authz('testAuthorizerMetadataAutoCreate', {
    mirrors: 'KafkaApis.handleTopicMetadataRequest (auto-creation needs CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED; CREATE does not imply DESCRIBE) / AuthorizerIntegrationTest.testCreatePermissionOnTopicToReadFromNonExistentTopic',
    description:
      'Metadata v12 with allowAutoTopicCreation for missing topics: with DESCRIBE only TOPIC_AUTHORIZATION_FAILED (not created); with CREATE only TOPIC_AUTHORIZATION_FAILED (no DESCRIBE); with DESCRIBE and CREATE the topic is created; with CREATE on the cluster and DESCRIBE by prefix any topic is',
    steps: [
      ...grant([
        { name: T('m1'), op: OP.DESCRIBE },
        { name: T('m2'), op: OP.CREATE },
        { name: T('m3'), op: OP.DESCRIBE },
        { name: T('m3'), op: OP.CREATE },
      ]),
      ...login('a', 'alice'),
      metadata('a', 12, [T('m1'), T('m2'), T('m3')], {
        auto: true,
        label: 'alice auto-create m1 (DESCRIBE), m2 (CREATE), m3 (both)',
        expect: { topics: [{ name: 'm1', errorCode: TAF }, { name: 'm2', errorCode: TAF }, { name: 'm3' }] },
      }),
      settle(1000),
      metadata('p', 12, [T('m1'), T('m3')], { label: 'super user: m1 not created, m3 created', expect: { topics: [{ name: 'm1', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }, { name: 'm3', errorCode: 0 }] } }),
      ...grant([
        { rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.CREATE },
        { name: T('m'), pattern: P.PREFIXED, op: OP.DESCRIBE },
      ]),
      metadata('a', 12, [T('m4')], { auto: true, label: 'alice auto-create m4 with cluster CREATE', expect: { topics: [{ name: 'm4' }] } }),
      settle(1000),
      metadata('a', 12, [T('m1'), T('m4')], { label: 'alice: m1 missing, m4 created', expect: { topics: [{ name: 'm1', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }, { name: 'm4', errorCode: 0 }] } }),
    ],
  }),
  authz('testAuthorizerMetadataAuthorizedOperations', {
    mirrors: 'KafkaApis.handleTopicMetadataRequest (v8+: includeTopicAuthorizedOperations; v8-v10: includeClusterAuthorizedOperations, 0 without cluster DESCRIBE) / AuthHelper.authorizedOperations / KafkaApis.handleDescribeCluster',
    description:
      'topic r (READ: READ+DESCRIBE bits), a (ALL: every topic operation), w (WRITE + DESCRIBE_CONFIGS, DENY DELETE): topicAuthorizedOperations at v8 and v12; cluster operations 0 without cluster DESCRIBE (v8, v10; v11+ does not carry it), then with cluster ALTER and IDEMPOTENT_WRITE; the super user gets every bit; DescribeCluster v0 the same',
    steps: [
      ...['r', 'a', 'w'].map((t) => createTopic('p', t, 1)),
      ...grant([
        { name: T('r'), op: OP.READ },
        { name: T('a'), op: OP.ALL },
        { name: T('w'), op: OP.WRITE },
        { name: T('w'), op: OP.DESCRIBE_CONFIGS },
        { name: T('w'), op: OP.DELETE, perm: DENY },
      ]),
      ...login('a', 'alice'),
      metadata('a', 8, [T('r'), T('a'), T('w')], {
        topicOps: true,
        clusterOps: true,
        label: 'alice v8 topic and cluster operations',
        expect: {
          clusterAuthorizedOperations: 0,
          topics: [
            { name: 'a', topicAuthorizedOperations: bits(...TOPIC_OPS) },
            { name: 'r', topicAuthorizedOperations: bits(OP.READ, OP.DESCRIBE) },
            { name: 'w', topicAuthorizedOperations: bits(OP.WRITE, OP.DESCRIBE, OP.DESCRIBE_CONFIGS) },
          ],
        },
      }),
      metadata('a', 12, [T('r')], { topicOps: true, clusterOps: true, label: 'alice v12', expect: { topics: [{ name: 'r', topicAuthorizedOperations: bits(OP.READ, OP.DESCRIBE) }] } }),
      metadata('a', 10, [T('r')], { topicOps: false, clusterOps: false, label: 'alice v10 without the flags', expect: { clusterAuthorizedOperations: -2147483648, topics: [{ name: 'r', topicAuthorizedOperations: -2147483648 }] } }),
      send('a', 60, 0, { includeClusterAuthorizedOperations: true }, { label: 'alice DescribeCluster', expect: { errorCode: 0, clusterAuthorizedOperations: 0 } }),
      ...grant([
        { rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.ALTER },
        { rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.IDEMPOTENT_WRITE },
      ]),
      metadata('a', 10, [], { clusterOps: true, label: 'alice v10 cluster operations with ALTER', expect: { clusterAuthorizedOperations: bits(OP.ALTER, OP.IDEMPOTENT_WRITE, OP.DESCRIBE) } }),
      send('a', 60, 0, { includeClusterAuthorizedOperations: true }, { label: 'alice DescribeCluster with ALTER', expect: { errorCode: 0, clusterAuthorizedOperations: bits(OP.ALTER, OP.IDEMPOTENT_WRITE, OP.DESCRIBE) } }),
      metadata('p', 10, [T('r')], { topicOps: true, clusterOps: true, label: 'super user v10', expect: { clusterAuthorizedOperations: bits(...CLUSTER_OPS), topics: [{ topicAuthorizedOperations: bits(...TOPIC_OPS) }] } }),
    ],
  }),
  authz('testAuthorizerAllowEveryoneIfNoAclFound', {
    mirrors: 'StandardAuthorizer (allow.everyone.if.no.acl.found: the no-ACL rule ALLOWs) / StandardAuthorizerData.MatchingRuleBuilder (any ACL on the resource, for anyone, makes the default DENY) / Authorizer.authorizeByResourceType ("hardcode" resource)',
    description:
      'allow.everyone.if.no.acl.found=true: alice sees (all-topics Metadata includes __consumer_offsets) and writes a topic without ACLs, not a topic whose only ACL is bob\'s; a group without ACLs is hers; idempotent InitProducerId is allowed with no ACL at all; cluster operations without any cluster ACL',
    settings: { 'allow.everyone.if.no.acl.found': true },
    groups: ['g'],
    steps: [
      createTopic('p', 'open', 1),
      createTopic('p', 'bobs', 1),
      ...grant([{ name: T('bobs'), op: OP.READ, principal: BOB }]),
      ...login('a', 'alice'),
      // Nobody has an ACL on __consumer_offsets either (this broker's only topics besides these two).
      metadata('a', 12, null, { label: 'alice all topics', expect: { topics: unordered([{ name: '__consumer_offsets', isInternal: true }, { name: 'open', errorCode: 0 }]) } }),
      metadata('a', 12, [T('open'), T('bobs')], { label: 'alice named topics', expect: { topics: [{ name: 'bobs', errorCode: TAF }, { name: 'open', errorCode: 0 }] } }),
      produce('a', ['open'], { label: 'alice produces to open', expect: { responses: [{ name: 'open', partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] } }),
      produce('a', ['bobs'], { label: 'alice produces to bobs', expect: { responses: [{ name: 'bobs', partitionResponses: [{ errorCode: TAF }] }] } }),
      send('a', 10, 3, (c: Ctx) => ({ key: c.g(), keyType: 0 }), { label: 'alice FindCoordinator g', expect: { errorCode: 0 } }),
      initProducerId('a', null, { label: 'alice idempotent InitProducerId', expect: { errorCode: 0 } }),
      metadata('a', 10, [], { clusterOps: true, label: 'alice cluster operations', expect: { clusterAuthorizedOperations: bits(...CLUSTER_OPS) } }),
    ],
  }),

  // ---------------------------------------------------------------------------------------------
  // Produce, Fetch, ListOffsets
  authz('testAuthorizerProduce', {
    mirrors: 'KafkaApis.handleProduceRequest (filterByAuthorized WRITE; TOPIC_AUTHORIZATION_FAILED before UNKNOWN_TOPIC_OR_PARTITION) / AuthorizerIntegrationTest.testProduceWithTopicWrite / testProduceWithNoTopicAccess / testProduceWithTopicDescribe',
    description:
      'Produce v9 acks=1 as alice: to w (WRITE) offset 0 then 2; to r (READ, DESCRIBE) and to a missing topic without ACLs TOPIC_AUTHORIZATION_FAILED; to a missing topic she may WRITE UNKNOWN_TOPIC_OR_PARTITION; one request with w and r: w written, r denied',
    steps: [
      createTopic('p', 'w', 1),
      createTopic('p', 'r', 1),
      ...grant([
        { name: T('w'), op: OP.WRITE },
        { name: T('r'), op: OP.READ },
        { name: T('r'), op: OP.DESCRIBE },
        { name: T('gone'), op: OP.WRITE },
      ]),
      ...login('a', 'alice'),
      produce('a', ['w'], { label: 'alice produces to w', expect: { responses: [{ name: 'w', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 0 }] }] } }),
      produce('a', ['r'], { label: 'alice produces to r', expect: { responses: [{ name: 'r', partitionResponses: [{ index: 0, errorCode: TAF, baseOffset: -1 }] }] } }),
      produce('a', ['missing'], { label: 'alice produces to a missing topic', expect: { responses: [{ name: 'missing', partitionResponses: [{ errorCode: TAF }] }] } }),
      produce('a', ['gone'], { label: 'alice produces to a missing topic she may write', expect: { responses: [{ name: 'gone', partitionResponses: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] }] } }),
      produce('a', ['w', 'r'], {
        base: 2,
        label: 'alice produces to w and r',
        expect: { responses: [{ name: 'r', partitionResponses: [{ errorCode: TAF }] }, { name: 'w', partitionResponses: [{ errorCode: 0, baseOffset: 2 }] }] },
      }),
    ],
  }),
  authz('testAuthorizerFetchListOffsets', {
    mirrors: 'KafkaApis.handleFetchRequest (filterByAuthorized READ) / handleListOffsetRequest (DESCRIBE: WRITE implies it) / AuthorizerIntegrationTest.testFetchFollowerRequest… / testListOffsetsWithTopicDescribe',
    description:
      'the super user produces to r and w; alice (READ on r, WRITE on w) fetches r (records) and w (TOPIC_AUTHORIZATION_FAILED, no records) in one Fetch v12 and a topic without ACLs; ListOffsets v7 latest: r and w answered (WRITE implies DESCRIBE), n (none) TOPIC_AUTHORIZATION_FAILED',
    steps: [
      createTopic('p', 'r', 1),
      createTopic('p', 'w', 1),
      createTopic('p', 'n', 1),
      produce('p', ['r', 'w'], { label: 'super user produces', expect: { responses: [{ partitionResponses: [{ errorCode: 0 }] }, { partitionResponses: [{ errorCode: 0 }] }] } }),
      ...grant([
        { name: T('r'), op: OP.READ },
        { name: T('w'), op: OP.WRITE },
      ]),
      ...login('a', 'alice'),
      fetch('a', ['r', 'w', 'n'], {
        label: 'alice fetches r, w, n',
        expect: {
          errorCode: 0,
          responses: [
            { topic: 'r', partitions: [{ errorCode: 0, highWatermark: 2 }] },
            { topic: 'w', partitions: [{ errorCode: TAF, highWatermark: -1, records: { batches: [] } }] },
            { topic: 'n', partitions: [{ errorCode: TAF }] },
          ],
        },
      }),
      listOffsets('a', ['r', 'w', 'n'], {
        label: 'alice ListOffsets latest',
        expect: { topics: [{ name: 'n', ...partitionError(TAF) }, { name: 'r', partitions: [{ errorCode: 0, offset: 2 }] }, { name: 'w', partitions: [{ errorCode: 0, offset: 2 }] }] },
      }),
    ],
  }),

  // ---------------------------------------------------------------------------------------------
  // Groups
  authz('testAuthorizerFindCoordinator', {
    mirrors: 'KafkaApis.getCoordinator (GROUP: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED; TRANSACTION: DESCRIBE on the transactional id, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED) / AuthorizerIntegrationTest.testFindCoordinatorWithoutDescribeGroup…',
    description:
      'FindCoordinator as alice: v3 group g without ACLs GROUP_AUTHORIZATION_FAILED (no node); v4 keys g and h with READ on h (implies DESCRIBE): g denied, h answered; key type 1 without an ACL TRANSACTIONAL_ID_AUTHORIZATION_FAILED, with DESCRIBE on the transactional id answered (v3 and v4)',
    groups: ['g', 'h'],
    steps: [
      ...login('a', 'alice'),
      send('a', 10, 3, (c: Ctx) => ({ key: c.g('g'), keyType: 0 }), { label: 'alice FindCoordinator g v3', expect: { errorCode: GAF, nodeId: -1, host: '', port: -1 } }),
      send('a', 10, 1, (c: Ctx) => ({ key: c.g('g'), keyType: 0 }), { label: 'alice FindCoordinator g v1', expect: { errorCode: GAF } }),
      ...grant([
        { rt: R.GROUP, name: G('h'), op: OP.READ },
        { rt: R.TRANSACTIONAL_ID, name: TX('txn'), op: OP.DESCRIBE },
      ]),
      send('a', 10, 4, (c: Ctx) => ({ keyType: 0, coordinatorKeys: [c.g('g'), c.g('h')] }), {
        label: 'alice FindCoordinator v4 g, h',
        expect: { coordinators: [{ key: 'g', errorCode: GAF, nodeId: -1 }, { key: 'h', errorCode: 0 }] },
      }),
      send('a', 10, 3, (c: Ctx) => ({ key: `${c.ns}other-txn`, keyType: 1 }), { label: 'alice FindCoordinator transaction other-txn', expect: { errorCode: TXAF } }),
      send('a', 10, 3, (c: Ctx) => ({ key: `${c.ns}txn`, keyType: 1 }), {
        label: 'alice FindCoordinator transaction txn',
        expect: { errorCode: 0 },
        retry: { while: (r) => r.errorCode === E.COORDINATOR_NOT_AVAILABLE, delayMs: 200, max: 50 },
      }),
      send('a', 10, 4, (c: Ctx) => ({ keyType: 1, coordinatorKeys: [`${c.ns}txn`, `${c.ns}other-txn`] }), {
        label: 'alice FindCoordinator v4 transactions',
        expect: { coordinators: [{ key: 'txn', errorCode: 0 }, { key: 'other-txn', errorCode: TXAF }] },
      }),
    ],
  }),
  authz('testAuthorizerJoinSyncHeartbeat', {
    mirrors: 'KafkaApis.handleJoinGroupRequest / handleSyncGroupRequest / handleHeartbeatRequest / handleLeaveGroupRequest (READ on the group, else GROUP_AUTHORIZATION_FAILED) / AuthorizerIntegrationTest.testJoinGroupWithoutGroupRead…',
    description:
      'alice JoinGroup v5 on g without ACLs: GROUP_AUTHORIZATION_FAILED; with READ on g: MEMBER_ID_REQUIRED, join (generation 1), sync, heartbeat; bob (no ACL) heartbeat, sync and leave on g: GROUP_AUTHORIZATION_FAILED; alice with only DESCRIBE on group d: JoinGroup denied',
    groups: ['g', 'd'],
    steps: [
      ...login('a', 'alice'),
      ...login('b', 'bob'),
      join('a', { expect: err(GAF, { generationId: -1 }), label: 'alice join without ACL' }),
      ...grant([
        { rt: R.GROUP, name: G('g'), op: OP.READ },
        { rt: R.GROUP, name: G('d'), op: OP.DESCRIBE },
      ]),
      join('a', { expect: err(E.MEMBER_ID_REQUIRED), label: 'alice join with READ' }),
      join('a', { member: ref('a', ''), wait: false, label: 'alice join with her member id' }),
      collect('a', joined(1)),
      sync('a', { assign: ['a'], expect: err(E.NONE) }),
      heartbeat('a', { expect: err(E.NONE) }),
      heartbeat('b', { member: ref('a'), generation: 1, expect: err(GAF), label: 'bob heartbeat' }),
      sync('b', { member: ref('a'), generation: 1, expect: err(GAF), label: 'bob sync' }),
      send('b', 13, 3, (c: Ctx) => ({ groupId: c.g(), members: [{ memberId: c.v('a'), groupInstanceId: null }] }), { label: 'bob leave', expect: { errorCode: GAF } }),
      join('a', { group: 'd', expect: err(GAF), label: 'alice join d (DESCRIBE only)' }),
      send('a', 13, 3, (c: Ctx) => ({ groupId: c.g(), members: [{ memberId: c.v('a'), groupInstanceId: null }] }), { label: 'alice leave', expect: { errorCode: 0 } }),
    ],
  }),
  authz('testAuthorizerOffsetCommitFetch', {
    mirrors: 'KafkaApis.handleOffsetCommitRequest (READ on the group, then READ per topic) / handleOffsetFetchRequest (DESCRIBE on the group; per topic DESCRIBE; all-topics answers drop undescribable topics) / AuthorizerIntegrationTest.testCommitWithTopicWrite / testOffsetFetchWithNoAccess',
    description:
      'alice commits to group o (READ) offsets of tr (READ), tw (WRITE only), tn (no ACL): tr committed, tw and tn TOPIC_AUTHORIZATION_FAILED; to group x (no ACL): GROUP_AUTHORIZATION_FAILED; the super user commits tw too; OffsetFetch v7 of o: tr and tw (WRITE implies DESCRIBE) answered, tn TOPIC_AUTHORIZATION_FAILED; all topics: tr and tw; of x: GROUP_AUTHORIZATION_FAILED; OffsetFetch v8 o and x in one request',
    groups: ['o', 'x'],
    steps: [
      createTopic('p', 'tr', 1),
      createTopic('p', 'tw', 1),
      createTopic('p', 'tn', 1),
      ...grant([
        { rt: R.GROUP, name: G('o'), op: OP.READ },
        { name: T('tr'), op: OP.READ },
        { name: T('tw'), op: OP.WRITE },
      ]),
      ...login('a', 'alice'),
      send(
        'a',
        8,
        7,
        (c: Ctx) => ({
          groupId: c.g('o'),
          generationIdOrMemberEpoch: -1,
          memberId: '',
          groupInstanceId: null,
          topics: ['tr', 'tw', 'tn'].map((t) => ({ name: c.t(t), partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: '' }] })),
        }),
        {
          label: 'alice commits tr, tw, tn to o',
          expect: { topics: [{ name: 'tn', ...partitionError(TAF) }, { name: 'tr', ...partitionError(0) }, { name: 'tw', ...partitionError(TAF) }] },
        },
      ),
      commit('a', { group: 'x', topic: 'tr', offsets: [[0, 3]], expect: { topics: [{ name: 'tr', ...partitionError(GAF) }] }, label: 'alice commits to x' }),
      commit('p', { group: 'o', topic: 'tw', offsets: [[0, 7]], expect: { topics: [{ name: 'tw', ...partitionError(0) }] }, label: 'super user commits tw to o' }),
      fetchOffsets('a', {
        group: 'o',
        topics: [{ topic: 'tr', partitions: [0] }, { topic: 'tw', partitions: [0] }, { topic: 'tn', partitions: [0] }],
        label: 'alice fetches o: tr, tw, tn',
        expect: { errorCode: 0, topics: [{ name: 'tn', partitions: [{ errorCode: TAF, committedOffset: -1 }] }, { name: 'tr', partitions: [{ errorCode: 0, committedOffset: 5 }] }, { name: 'tw', partitions: [{ errorCode: 0, committedOffset: 7 }] }] },
      }),
      fetchOffsets('a', { group: 'o', topics: null, label: 'alice fetches o: all topics', expect: { errorCode: 0, topics: [{ name: 'tr' }, { name: 'tw' }] } }),
      fetchOffsets('a', { group: 'x', label: 'alice fetches x', expect: { errorCode: GAF } }),
      fetchOffsets('a', {
        v: 8,
        groups: ['o', 'x'],
        topics: [{ topic: 'tr', partitions: [0] }, { topic: 'tn', partitions: [0] }],
        label: 'alice fetches o and x (v8)',
        expect: { groups: [{ groupId: 'o', errorCode: 0 }, { groupId: 'x', errorCode: GAF, topics: [] }] },
      }),
    ],
  }),
  authz('testAuthorizerDescribeListDeleteGroups', {
    mirrors: 'KafkaApis.handleDescribeGroupsRequest (DESCRIBE per group; authorizedOperations v3+) / handleListGroupsRequest (cluster DESCRIBE lists all, else only describable groups) / handleDeleteGroupsRequest (DELETE per group) / AuthorizerIntegrationTest.testListGroupApiWithAndWithoutListGroupAcls',
    description:
      'the super user commits offsets to g1, g2, g3 (Empty groups); alice has DESCRIBE on g1, READ and DELETE on g3: DescribeGroups v5 with authorized operations: g1 (DESCRIBE bit), g2 GROUP_AUTHORIZATION_FAILED, g3 (READ, DESCRIBE, DELETE); ListGroups v4: g1 and g3; with cluster DESCRIBE: all three; DeleteGroups v2 g1 (no DELETE) GROUP_AUTHORIZATION_FAILED, g3 deleted',
    groups: ['g1', 'g2', 'g3'],
    steps: [
      createTopic('p', 't', 1),
      ...['g1', 'g2', 'g3'].map((g) => commit('p', { group: g, offsets: [[0, 1]], expect: { topics: [{ ...partitionError(0) }] }, label: `super user commits to ${g}` })),
      ...grant([
        { rt: R.GROUP, name: G('g1'), op: OP.DESCRIBE },
        { rt: R.GROUP, name: G('g3'), op: OP.READ },
        { rt: R.GROUP, name: G('g3'), op: OP.DELETE },
      ]),
      ...login('a', 'alice'),
      describeGroups('a', {
        groups: ['g1', 'g2', 'g3'],
        authorizedOperations: true,
        label: 'alice describes g1, g2, g3',
        expect: {
          groups: [
            { groupId: 'g2', errorCode: GAF },
            { groupId: 'g1', errorCode: 0, groupState: 'Empty', authorizedOperations: bits(OP.DESCRIBE) },
            { groupId: 'g3', errorCode: 0, authorizedOperations: bits(...GROUP_OPS) },
          ],
        },
      }),
      describeGroups('a', { v: 2, groups: ['g1'], label: 'alice describes g1 v2', expect: { groups: [{ groupId: 'g1', errorCode: 0 }] } }),
      listGroups('a', { label: 'alice lists groups', expect: { errorCode: 0, groups: [{ groupId: 'g1' }, { groupId: 'g3' }] } }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.DESCRIBE }]),
      listGroups('a', { label: 'alice lists groups with cluster DESCRIBE', expect: { errorCode: 0, groups: [{ groupId: 'g1' }, { groupId: 'g2' }, { groupId: 'g3' }] } }),
      deleteGroups('a', { groups: ['g1', 'g3'], label: 'alice deletes g1, g3', expect: { results: [{ groupId: 'g1', errorCode: GAF }, { groupId: 'g3', errorCode: 0 }] } }),
      deleteGroups('a', { groups: ['g2'], label: 'alice deletes g2', expect: { results: [{ groupId: 'g2', errorCode: GAF }] } }),
    ],
  }),

  // ---------------------------------------------------------------------------------------------
  // Transactions and idempotence
  authz('testAuthorizerInitProducerIdTransactional', {
    mirrors: 'KafkaApis.handleInitProducerIdRequest (a transactional id needs WRITE on TRANSACTIONAL_ID, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED) / AuthorizerIntegrationTest.testInitTransactionsWithoutTransactionalIdWrite',
    description:
      'alice InitProducerId v4 with transactional id txn: no ACL TRANSACTIONAL_ID_AUTHORIZATION_FAILED; DESCRIBE only: the same; WRITE (by prefix "tx"): a producer id, epoch 0; DENY WRITE on the literal id: denied again',
    steps: [
      ...login('a', 'alice'),
      initProducerId('a', TX('txn'), { label: 'alice init txn without ACL', expect: { errorCode: TXAF, producerId: -1, producerEpoch: -1 } }),
      ...grant([{ rt: R.TRANSACTIONAL_ID, name: TX('txn'), op: OP.DESCRIBE }]),
      initProducerId('a', TX('txn'), { label: 'alice init txn with DESCRIBE', expect: { errorCode: TXAF } }),
      ...grant([{ rt: R.TRANSACTIONAL_ID, name: TX('tx'), pattern: P.PREFIXED, op: OP.WRITE }]),
      initProducerId('a', TX('txn'), { label: 'alice init txn with WRITE by prefix', expect: { errorCode: 0, producerEpoch: 0 } }),
      ...grant([{ rt: R.TRANSACTIONAL_ID, name: TX('txn'), op: OP.WRITE, perm: DENY }]),
      initProducerId('a', TX('txn'), { label: 'alice init txn with a DENY', expect: { errorCode: TXAF } }),
    ],
  }),
  authz('testAuthorizerInitProducerIdIdempotent', {
    mirrors: 'KafkaApis.handleInitProducerIdRequest (no transactional id: IDEMPOTENT_WRITE on the cluster or authorizeByResourceType(WRITE, TOPIC), else CLUSTER_AUTHORIZATION_FAILED) / Authorizer.authorizeByResourceType / AuthorizerIntegrationTest.testIdempotentProducerNoIdempotentWriteAclInInitProducerId',
    description:
      'alice idempotent InitProducerId v4: no ACL CLUSTER_AUTHORIZATION_FAILED; READ on a topic: the same (only WRITE or ALL count); WRITE on a topic by prefix: allowed; a DENY WRITE on a shorter prefix dominates it: denied; a literal WRITE on another topic: allowed again; bob with IDEMPOTENT_WRITE on the cluster: allowed',
    steps: [
      ...login('a', 'alice'),
      ...login('b', 'bob'),
      initProducerId('a', null, { label: 'alice idempotent without ACL', expect: { errorCode: CAF, producerId: -1 } }),
      ...grant([{ name: T('r'), op: OP.READ }]),
      initProducerId('a', null, { label: 'alice idempotent with topic READ', expect: { errorCode: CAF } }),
      ...grant([{ name: T('pre-'), pattern: P.PREFIXED, op: OP.WRITE }]),
      initProducerId('a', null, { label: 'alice idempotent with a prefixed topic WRITE', expect: { errorCode: 0, producerEpoch: 0 } }),
      ...grant([{ name: T('pre'), pattern: P.PREFIXED, op: OP.WRITE, perm: DENY }]),
      initProducerId('a', null, { label: 'alice idempotent, the WRITE dominated by a DENY prefix', expect: { errorCode: CAF } }),
      ...grant([{ name: T('other'), op: OP.ALL }]),
      initProducerId('a', null, { label: 'alice idempotent with ALL on another topic', expect: { errorCode: 0 } }),
      initProducerId('b', null, { label: 'bob idempotent without ACL', expect: { errorCode: CAF } }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.IDEMPOTENT_WRITE, principal: BOB }]),
      initProducerId('b', null, { label: 'bob idempotent with IDEMPOTENT_WRITE', expect: { errorCode: 0 } }),
    ],
  }),

  // ---------------------------------------------------------------------------------------------
  // Admin APIs
  authz('testAuthorizerCreateTopics', {
    mirrors: 'ControllerApis.createTopics (CREATE on the cluster or per topic, else TOPIC_AUTHORIZATION_FAILED "Authorization failed."; without DESCRIBE_CONFIGS topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED) / AuthorizerIntegrationTest.testCreateTopicAuthorizationWithClusterCreate / testCreateTopicsResponseConfigsWithoutDescribeConfigs',
    description:
      'alice CreateTopics v5: c1 without CREATE TOPIC_AUTHORIZATION_FAILED; c2 with CREATE: created, topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED and no configs; c3 with CREATE and DESCRIBE_CONFIGS: created with its configs; with cluster CREATE c4 is created too; validateOnly for c5 without CREATE: denied',
    steps: [
      ...login('a', 'alice'),
      ...grant([
        { name: T('c2'), op: OP.CREATE },
        { name: T('c3'), op: OP.CREATE },
        { name: T('c3'), op: OP.DESCRIBE_CONFIGS },
      ]),
      send(
        'a',
        19,
        5,
        (c: Ctx) => ({ topics: ['c1', 'c2'].map((t) => ({ name: c.t(t), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 5000, validateOnly: false }),
        {
          label: 'alice creates c1, c2',
          awaitTopics: true,
          expect: {
            topics: [
              { name: 'c1', errorCode: TAF, errorMessage: 'Authorization failed.', numPartitions: -1, replicationFactor: -1, configs: [] },
              { name: 'c2', errorCode: 0, topicConfigErrorCode: TAF, numPartitions: -1, replicationFactor: -1, configs: [] },
            ],
          },
        },
      ),
      send('a', 19, 5, (c: Ctx) => ({ topics: [{ name: c.t('c3'), numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '3600000' }] }], timeoutMs: 5000, validateOnly: false }), {
        label: 'alice creates c3',
        awaitTopics: true,
        expect: { topics: [{ name: 'c3', errorCode: 0, topicConfigErrorCode: 0, numPartitions: 2, replicationFactor: 1, configs: anything }] },
      }),
      send('a', 19, 4, (c: Ctx) => ({ topics: [{ name: c.t('c5'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }), {
        label: 'alice validates c5 (v4)',
        expect: { topics: [{ name: 'c5', errorCode: TAF }] },
      }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.CREATE }]),
      send('a', 19, 5, (c: Ctx) => ({ topics: [{ name: c.t('c4'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }), {
        label: 'alice creates c4 with cluster CREATE',
        awaitTopics: true,
        expect: { topics: [{ name: 'c4', errorCode: 0, topicConfigErrorCode: TAF, numPartitions: -1, configs: [] }] },
      }),
      metadata('p', 12, [T('c1'), T('c2'), T('c4')], { label: 'super user: c2 and c4 exist, c1 does not', expect: { topics: [{ name: 'c1', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }, { name: 'c2', errorCode: 0 }, { name: 'c4', errorCode: 0 }] } }),
    ],
  }),
  authz('testAuthorizerDeleteTopicsCreatePartitions', {
    mirrors: 'ControllerApis.deleteTopics (DESCRIBE, then DELETE per topic: TOPIC_AUTHORIZATION_FAILED; a missing describable topic UNKNOWN_TOPIC_OR_PARTITION) / ControllerApis.createPartitions (ALTER per topic) / AuthorizerIntegrationTest.testDeleteTopicsWithWildCardAuth / testCreatePartitionsWithWildCardAuth',
    description:
      'alice DeleteTopics v4: d1 (DELETE) deleted, d2 (DESCRIBE only) and d3 (none) TOPIC_AUTHORIZATION_FAILED, a missing topic she may DELETE UNKNOWN_TOPIC_OR_PARTITION; CreatePartitions v3 to 2 partitions: p1 (ALTER) grown, p2 (READ only) TOPIC_AUTHORIZATION_FAILED',
    steps: [
      ...['d1', 'd2', 'd3', 'p1', 'p2'].map((t) => createTopic('p', t, 1)),
      ...grant([
        { name: T('d1'), op: OP.DELETE },
        { name: T('d2'), op: OP.DESCRIBE },
        { name: T('dm'), op: OP.DELETE },
        { name: T('p1'), op: OP.ALTER },
        { name: T('p2'), op: OP.READ },
      ]),
      ...login('a', 'alice'),
      send('a', 20, 4, (c: Ctx) => ({ topicNames: ['d1', 'd2', 'd3', 'dm'].map((t) => c.t(t)), timeoutMs: 5000 }), {
        label: 'alice deletes d1, d2, d3, dm',
        expect: { responses: [{ name: 'd1', errorCode: 0 }, { name: 'd2', errorCode: TAF }, { name: 'd3', errorCode: TAF }, { name: 'dm', errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] },
      }),
      send('a', 37, 3, (c: Ctx) => ({ topics: ['p1', 'p2'].map((t) => ({ name: c.t(t), count: 2, assignments: null })), timeoutMs: 5000, validateOnly: false }), {
        label: 'alice grows p1, p2',
        expect: { results: [{ name: 'p1', errorCode: 0 }, { name: 'p2', errorCode: TAF }] },
      }),
    ],
  }),
  authz('testAuthorizerConfigs', {
    mirrors: 'ConfigHelper.handleDescribeConfigsRequest (DESCRIBE_CONFIGS on the topic or the cluster; authorized results first) / KafkaApis.handleIncrementalAlterConfigsRequest + ControllerApis.authorizeAlterResource (ALTER_CONFIGS) / AuthorizerIntegrationTest.testDescribeConfigsWithDescribeConfigs…',
    description:
      'alice DescribeConfigs v4: the broker (CLUSTER_AUTHORIZATION_FAILED), topic n (none: TOPIC_AUTHORIZATION_FAILED) and topic c (ALTER_CONFIGS implies DESCRIBE_CONFIGS: retention.ms) in one request; IncrementalAlterConfigs v1: c (ALTER_CONFIGS) set, n TOPIC_AUTHORIZATION_FAILED, the cluster-wide broker config CLUSTER_AUTHORIZATION_FAILED; then DescribeConfigs c shows the new value',
    steps: [
      createTopic('p', 'c', 1),
      createTopic('p', 'n', 1),
      ...grant([{ name: T('c'), op: OP.ALTER_CONFIGS }]),
      ...login('a', 'alice'),
      send(
        'a',
        32,
        4,
        (c: Ctx) => ({
          resources: [
            { resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] },
            { resourceType: 2, resourceName: c.t('n'), configurationKeys: ['retention.ms'] },
            { resourceType: 2, resourceName: c.t('c'), configurationKeys: ['retention.ms'] },
          ],
          includeSynonyms: false,
          includeDocumentation: false,
        }),
        {
          label: 'alice describes the broker, n, c',
          expect: {
            results: [
              { resourceName: 'c', resourceType: 2, errorCode: 0 },
              { resourceName: '', resourceType: 4, errorCode: CAF, errorMessage: 'Cluster authorization failed.', configs: [] },
              { resourceName: 'n', resourceType: 2, errorCode: TAF, errorMessage: 'Topic authorization failed.', configs: [] },
            ],
          },
        },
      ),
      send(
        'a',
        44,
        1,
        (c: Ctx) => ({
          resources: [
            { resourceType: 2, resourceName: c.t('c'), configs: [{ name: 'retention.ms', configOperation: 0, value: '7200000' }] },
            { resourceType: 2, resourceName: c.t('n'), configs: [{ name: 'retention.ms', configOperation: 0, value: '7200000' }] },
            { resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '7200000' }] },
          ],
          validateOnly: false,
        }),
        {
          label: 'alice alters c, n, the broker',
          expect: {
            responses: [
              { resourceName: 'c', errorCode: 0, errorMessage: null },
              { resourceName: 'n', errorCode: TAF, errorMessage: 'Topic authorization failed.' },
              { resourceName: '', errorCode: CAF, errorMessage: 'Cluster authorization failed.' },
            ],
          },
        },
      ),
      settle(),
      send('a', 32, 4, (c: Ctx) => ({ resources: [{ resourceType: 2, resourceName: c.t('c'), configurationKeys: ['retention.ms'] }] }), {
        label: 'alice describes c',
        expect: { results: [{ errorCode: 0, configs: [{ name: 'retention.ms', value: '7200000' }] }] },
      }),
    ],
  }),
  authz('testAuthorizerDeleteRecords', {
    mirrors: 'KafkaApis.handleDeleteRecordsRequest (DELETE per topic, else TOPIC_AUTHORIZATION_FAILED) / AuthorizerIntegrationTest.testDeleteRecordsWithoutDescribe / testDeleteRecordsWithDescribe',
    description: 'the super user produces two records to d and k; alice (DELETE on d, READ on k) DeleteRecords v2 before offset 1: d low watermark 1, k TOPIC_AUTHORIZATION_FAILED; a missing topic without ACLs TOPIC_AUTHORIZATION_FAILED',
    steps: [
      createTopic('p', 'd', 1),
      createTopic('p', 'k', 1),
      produce('p', ['d', 'k'], { label: 'super user produces' }),
      ...grant([
        { name: T('d'), op: OP.DELETE },
        { name: T('k'), op: OP.READ },
      ]),
      ...login('a', 'alice'),
      send('a', 21, 2, (c: Ctx) => ({ topics: ['d', 'k', 'missing'].map((t) => ({ name: c.t(t), partitions: [{ partitionIndex: 0, offset: 1 }] })), timeoutMs: 5000 }), {
        label: 'alice deletes records of d, k, missing',
        expect: {
          topics: [
            { name: 'd', partitions: [{ errorCode: 0, lowWatermark: 1 }] },
            { name: 'k', partitions: [{ errorCode: TAF, lowWatermark: -1 }] },
            { name: 'missing', partitions: [{ errorCode: TAF }] },
          ],
        },
      }),
    ],
  }),
  authz('testAuthorizerScramCredentials', {
    mirrors: 'KafkaApis.handleDescribeUserScramCredentialsRequest (DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED) / ControllerApis.handleAlterUserScramCredentials (authorizeClusterOperation ALTER -> AlterUserScramCredentialsRequest.getErrorResponse: every user, sorted) / DescribeUserScramCredentialsRequest.getErrorResponse (users null: NullPointerException) / DescribeUserScramCredentialsRequestNotAuthorizedTest',
    description:
      'alice DescribeUserScramCredentials v0 of carol and AlterUserScramCredentials v0 (an upsertion for carol, a deletion for dave): CLUSTER_AUTHORIZATION_FAILED (the alter answers each user, sorted by name); with DESCRIBE on the cluster the describe answers (carol: RESOURCE_NOT_FOUND), the alter still fails; with ALTER the upsertion is made, then carol is described; lastly, on a new connection without cluster DESCRIBE, a describe of every user (users null) gets no answer at all from Kafka 3.9 (the error response it builds walks the null user list and throws; the connection stays muted), and CLUSTER_AUTHORIZATION_FAILED with no results from kmock',
    steps: [
      ...login('a', 'alice'),
      send('a', 50, 0, { users: [{ name: 'carol' }] }, { label: 'alice describes carol', expect: { errorCode: CAF, errorMessage: null, results: [{ user: '', errorCode: CAF, errorMessage: null }] } }),
      send(
        'a',
        51,
        0,
        {
          deletions: [{ name: 'dave', mechanism: 1 }],
          upsertions: [{ name: 'carol', mechanism: 1, iterations: 4096, salt: Buffer.from('salt-salt-salt'), saltedPassword: Buffer.alloc(32, 7) }],
        },
        { label: 'alice alters carol and dave', expect: { results: [{ user: 'carol', errorCode: CAF }, { user: 'dave', errorCode: CAF }] } },
      ),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.DESCRIBE }]),
      send('a', 50, 0, { users: [{ name: 'carol' }] }, { label: 'alice describes carol with DESCRIBE', expect: { errorCode: 0, results: [{ user: 'carol', errorCode: E.RESOURCE_NOT_FOUND }] } }),
      send('a', 51, 0, { deletions: [], upsertions: [{ name: 'carol', mechanism: 1, iterations: 4096, salt: Buffer.from('salt-salt-salt'), saltedPassword: Buffer.alloc(32, 7) }] }, {
        label: 'alice upserts carol with DESCRIBE',
        expect: { results: [{ user: 'carol', errorCode: CAF }] },
      }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.ALTER }]),
      send('a', 51, 0, { deletions: [], upsertions: [{ name: 'carol', mechanism: 1, iterations: 4096, salt: Buffer.from('salt-salt-salt'), saltedPassword: Buffer.alloc(32, 7) }] }, {
        label: 'alice upserts carol with ALTER',
        expect: { results: [{ user: 'carol', errorCode: 0 }] },
      }),
      settle(),
      send('a', 50, 0, { users: [{ name: 'carol' }] }, { label: 'alice describes carol', expect: { errorCode: 0, results: [{ user: 'carol', errorCode: 0, credentialInfos: [{ mechanism: 1, iterations: 4096 }] }] } }),
      send('p', 51, 0, { deletions: [{ name: 'carol', mechanism: 1 }], upsertions: [] }, { label: 'super user deletes carol', expect: { results: [{ user: 'carol', errorCode: 0 }] } }),
      ...revoke([{ rt: R.CLUSTER, principal: ALICE }], { filterResults: [{ errorCode: 0, matchingAcls: [{ operation: OP.ALTER }, { operation: OP.DESCRIBE }] }] }, 'revoke alice\'s cluster ACLs'),
      ...login('c', 'alice'),
      // Kafka never answers this (causes.ts describe-scram-all-users-not-authorized-never-answered);
      // the expectation is kmock's answer, the error for the request with no results.
      send('c', 50, 0, { users: null }, { label: 'alice describes every user without DESCRIBE', timeoutMs: 2000, expect: { errorCode: CAF, errorMessage: null, results: [] } }),
      close('c'),
    ],
  }),
  authz('testAuthorizerClientQuotas', {
    mirrors: 'KafkaApis.handleDescribeClientQuotasRequest (DESCRIBE_CONFIGS on the cluster, else getErrorResponse: no message, null entries) / ControllerApis.handleAlterClientQuotas (authorizeClusterOperation ALTER_CONFIGS -> AlterClientQuotasRequest.getErrorResponse: every entry, the error\'s text)',
    description:
      'alice DescribeClientQuotas v1 and AlterClientQuotas v1 without cluster ACLs: CLUSTER_AUTHORIZATION_FAILED; with DESCRIBE_CONFIGS she describes (ALTER_CONFIGS implies it too) but still cannot alter; with ALTER_CONFIGS she sets and removes a quota',
    steps: [
      ...login('a', 'alice'),
      send('a', 48, 1, (c: Ctx) => ({ components: [{ entityType: 'user', matchType: 0, match: c.t('q') }], strict: false }), { label: 'alice describes', expect: { errorCode: CAF, errorMessage: null, entries: null } }),
      send('a', 49, 1, (c: Ctx) => ({ entries: [{ entity: [{ entityType: 'user', entityName: c.t('q') }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: false }), {
        label: 'alice alters',
        expect: { entries: [{ errorCode: CAF, errorMessage: 'Cluster authorization failed.' }] },
      }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.DESCRIBE_CONFIGS }]),
      send('a', 48, 1, (c: Ctx) => ({ components: [{ entityType: 'user', matchType: 0, match: c.t('q') }], strict: false }), { label: 'alice describes with DESCRIBE_CONFIGS', expect: { errorCode: 0, entries: [] } }),
      send('a', 49, 1, (c: Ctx) => ({ entries: [{ entity: [{ entityType: 'user', entityName: c.t('q') }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: false }), {
        label: 'alice alters with DESCRIBE_CONFIGS',
        expect: { entries: [{ errorCode: CAF }] },
      }),
      ...grant([{ rt: R.CLUSTER, name: CLUSTER_NAME, op: OP.ALTER_CONFIGS }]),
      send('a', 49, 1, (c: Ctx) => ({ entries: [{ entity: [{ entityType: 'user', entityName: c.t('q') }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: false }), {
        label: 'alice alters with ALTER_CONFIGS',
        expect: { entries: [{ errorCode: 0, errorMessage: null }] },
      }),
      settle(),
      send('a', 48, 1, (c: Ctx) => ({ components: [{ entityType: 'user', matchType: 0, match: c.t('q') }], strict: false }), { label: 'alice describes her quota', expect: { errorCode: 0, entries: [{ values: [{ key: 'producer_byte_rate', value: 1024 }] }] } }),
      send('a', 49, 1, (c: Ctx) => ({ entries: [{ entity: [{ entityType: 'user', entityName: c.t('q') }], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }], validateOnly: false }), {
        label: 'alice removes it',
        expect: { entries: [{ errorCode: 0 }] },
      }),
      ...revoke([{ rt: R.CLUSTER, principal: ALICE }], { filterResults: [{ errorCode: 0 }] }, 'revoke alice\'s cluster ACLs'),
    ],
  }),
];
