// The ACL authorizer (authorizer.class.name = Kafka's StandardAuthorizer, super.users,
// allow.everyone.if.no.acl.found=false) with real clients, answering as Kafka 3.9 does:
//  1. kafkajs 2.2.4's admin ACL API as the super user (CreateAcls literal + prefixed, ALLOW and
//     DENY; DescribeAcls filters; DeleteAcls; creations Kafka refuses) and as a user without
//     ALTER/DESCRIBE on the cluster (CLUSTER_AUTHORIZATION_FAILED);
//  2. producing, consuming and listing as users with and without ACLs (TOPIC_ and
//     GROUP_AUTHORIZATION_FAILED, prefixed ALLOW, DENY winning over ALLOW, CREATE for auto-creation,
//     InitProducerId's IDEMPOTENT_WRITE-or-WRITE-on-any-topic, Metadata hiding what a user cannot
//     describe, a deleted ACL no longer allowing);
//  3. kafka-acls.sh (Kafka 3.9.1's kafka.admin.AclCommand, from the jars scripts/kafka-reference
//     caches) with --bootstrap-server: --add / --list / --remove --force, a SASL --command-config,
//     and --add --producer;
//  4. ACLs in a data dir (log.dirs) surviving restarts;
//  5. librdkafka (python3-confluent-kafka) over SASL_PLAINTEXT PLAIN: a denied topic's delivery
//     report says TOPIC_AUTHORIZATION_FAILED, an allowed topic's is delivered.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AclOperationTypes as Op,
  AclPermissionTypes as Perm,
  AclResourceTypes as Res,
  Kafka,
  logLevel,
  ResourcePatternTypes as Pattern,
  type AclEntry,
  type AclFilter,
  type LogEntry,
} from 'kafkajs';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { PYTHON, pythonModuleMissing, run } from '../../support/clients/processes.js';
import { fetchReference } from '../../conformance/support/reference.js';

const CI = process.env.CI === 'true';
const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
if (libs === undefined && (CI || process.env.KMOCK_REFERENCE === 'require')) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);
const CONFLUENT = pythonModuleMissing('confluent_kafka', 'python3-confluent-kafka');
if (CI && CONFLUENT !== undefined) throw new Error(`confluent-kafka must run under CI: ${CONFLUENT}`);

const AUTHORIZED: KmockOptions = {
  authorizerClassName: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  superUsers: 'User:admin',
  allowEveryoneIfNoAclFound: false,
  listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
  saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256',
  saslUsers: 'admin:admin-secret,alice:alice-secret,bob:bob-secret',
  groupInitialRebalanceDelayMs: 0,
};

type User = 'admin' | 'alice' | 'bob';

function saslBootstrap(kmock: Kmock): string {
  return kmock.listeners.find((l) => l.protocol === 'SASL_PLAINTEXT')!.bootstrapServers;
}

/** A kafkajs client logged in as `user` over SASL_PLAINTEXT (admin with SCRAM-SHA-256, the others PLAIN); kafkajs's error log lines land in `logs`. */
function kafkaAs(kmock: Kmock, user: User, logs: string[] = []): Kafka {
  const sasl = user === 'admin' ? ({ mechanism: 'scram-sha-256', username: user, password: `${user}-secret` } as const) : ({ mechanism: 'plain', username: user, password: `${user}-secret` } as const);
  return new Kafka({
    clientId: `acl-${user}`,
    brokers: [saslBootstrap(kmock)],
    sasl,
    logLevel: logLevel.ERROR,
    logCreator: () => (e: LogEntry) => void logs.push(`${String(e.log.message)}: ${String((e.log as { error?: unknown }).error)}`),
    retry: { retries: 2, initialRetryTime: 50 },
  });
}

/** The error and its causes, outermost first, as { name, type } (kafkajs wraps a broker's error in KafkaJSNonRetriableError etc.). */
function errorChain(e: unknown): Array<{ name: string; type?: string }> {
  if (e === undefined) return [];
  if (typeof e !== 'object' || e === null) return [{ name: String(e) }];
  const out: Array<{ name: string; type?: string }> = [];
  const seen = new Set<unknown>();
  let cur = e as { name?: string; type?: string; cause?: unknown; originalError?: unknown } | undefined;
  while (cur && typeof cur === 'object' && !seen.has(cur)) {
    seen.add(cur);
    out.push(cur.type === undefined ? { name: String(cur.name) } : { name: String(cur.name), type: cur.type });
    cur = (cur.cause ?? cur.originalError) as typeof cur;
  }
  return out;
}

/** The broker error types in an error chain ("NO ERROR" when the call succeeded). */
function errorTypes(e: unknown): string[] {
  if (e === undefined) return ['NO ERROR'];
  return errorChain(e).flatMap((x) => (x.type === undefined ? [] : [x.type]));
}

/** What a promise rejected with, or undefined when it resolved. */
async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function withAdmin<T>(kafka: Kafka, f: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await f(admin);
  } finally {
    await admin.disconnect();
  }
}

/** connect + send of one record with a fresh producer: undefined when delivered, else the error. */
async function sendError(kafka: Kafka, topic: string, value = 'v', idempotent = false): Promise<unknown> {
  const producer = kafka.producer({ allowAutoTopicCreation: true, idempotent });
  try {
    return await failure(producer.connect().then(() => producer.send({ topic, messages: [{ key: 'k', value }] })));
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
}

interface Consumed {
  values: string[];
  /** undefined when `want` records arrived; 'timeout' when neither they nor an error came. */
  error: unknown;
}

/**
 * A fresh consumer in `groupId` reading `topic` from the beginning until `want` records arrive, the
 * consumer crashes (not restarted) or subscribe fails, bounded by `timeoutMs`.
 */
async function consume(kafka: Kafka, groupId: string, topic: string, want: number, timeoutMs = 20_000): Promise<Consumed> {
  const consumer = kafka.consumer({ groupId, retry: { retries: 5, initialRetryTime: 100, restartOnFailure: async () => false } });
  const values: string[] = [];
  try {
    await consumer.connect();
    const crashed = new Promise<unknown>((resolve) => consumer.on(consumer.events.CRASH, (ev) => resolve(ev.payload.error)));
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done!: () => void;
    const got = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(String(message.value));
        if (values.length >= want) done();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const error = await Promise.race([got.then(() => undefined), crashed, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)))]);
    clearTimeout(timer);
    return { values, error };
  } catch (error) {
    return { values, error };
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}

interface Binding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

const entry = (b: Binding): AclEntry => ({
  resourceType: b.resourceType,
  resourceName: b.resourceName,
  resourcePatternType: b.patternType,
  principal: b.principal,
  host: b.host,
  operation: b.operation,
  permissionType: b.permissionType,
} as AclEntry);

const byKey = (a: Binding, b: Binding) => JSON.stringify(Object.values(a)).localeCompare(JSON.stringify(Object.values(b)));

/** DescribeAcls's resources flattened to bindings, sorted. */
async function described(admin: ReturnType<Kafka['admin']>, filter: Partial<AclFilter> = {}): Promise<Binding[]> {
  const r = await admin.describeAcls({
    resourceType: Res.ANY,
    resourcePatternType: Pattern.ANY,
    operation: Op.ANY,
    permissionType: Perm.ANY,
    ...filter,
  } as AclFilter);
  // (kafkajs's admin.describeAcls answers { resources } only: a broker error is thrown.)
  return r.resources
    .flatMap((res) =>
      res.acls.map((acl) => ({
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        patternType: (res as { resourcePatternType?: number }).resourcePatternType ?? -1,
        principal: acl.principal,
        host: acl.host,
        operation: acl.operation,
        permissionType: acl.permissionType,
      })),
    )
    .sort(byKey);
}

const sorted = (bs: Binding[]) => [...bs].sort(byKey);

const allowAlice = (resourceType: number, resourceName: string, patternType: number, operation: number): Binding => ({
  resourceType,
  resourceName,
  patternType,
  principal: 'User:alice',
  host: '*',
  operation,
  permissionType: Perm.ALLOW,
});

// ---------------------------------------------------------------------------------------------
describe('1. kafkajs admin: CreateAcls / DescribeAcls / DeleteAcls', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock(AUTHORIZED);
  });
  afterAll(async () => kmock?.close());

  const A1: Binding = allowAlice(Res.TOPIC, 'payments', Pattern.LITERAL, Op.READ);
  const A2: Binding = allowAlice(Res.TOPIC, 'pay', Pattern.PREFIXED, Op.WRITE);
  const A3: Binding = { resourceType: Res.GROUP, resourceName: 'g1', patternType: Pattern.LITERAL, principal: 'User:bob', host: '*', operation: Op.READ, permissionType: Perm.DENY };
  const A4: Binding = { resourceType: Res.TOPIC, resourceName: 'pay', patternType: Pattern.PREFIXED, principal: 'User:bob', host: '127.0.0.1', operation: Op.DESCRIBE, permissionType: Perm.DENY };

  it('the super user creates literal and prefixed ALLOW and DENY ACLs, describes them through filters, deletes them', async () => {
    await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => {
      expect(await described(admin)).toEqual([]);
      await expect(admin.createAcls({ acl: [A1, A2, A3, A4].map(entry) })).resolves.toBe(true);
      // Creating an existing binding again is no error and adds nothing (AclControlManager).
      await expect(admin.createAcls({ acl: [entry(A1)] })).resolves.toBe(true);

      expect(await described(admin)).toEqual(sorted([A1, A2, A3, A4]));
      expect(await described(admin, { resourceType: Res.TOPIC, resourcePatternType: Pattern.PREFIXED })).toEqual(sorted([A2, A4]));
      expect(await described(admin, { resourceType: Res.TOPIC, resourceName: 'payments', resourcePatternType: Pattern.LITERAL })).toEqual([A1]);
      // MATCH: the literal name, and every prefixed pattern that is a prefix of it.
      expect(await described(admin, { resourceType: Res.TOPIC, resourceName: 'payments', resourcePatternType: Pattern.MATCH })).toEqual(sorted([A1, A2, A4]));
      expect(await described(admin, { principal: 'User:bob' })).toEqual(sorted([A3, A4]));
      expect(await described(admin, { permissionType: Perm.DENY })).toEqual(sorted([A3, A4]));
      expect(await described(admin, { operation: Op.READ })).toEqual(sorted([A1, A3]));
      expect(await described(admin, { host: '127.0.0.1' })).toEqual([A4]);
      expect(await described(admin, { resourceType: Res.GROUP })).toEqual([A3]);
      expect(await described(admin, { resourceType: Res.CLUSTER })).toEqual([]);

      const del = await admin.deleteAcls({ filters: [{ resourceType: Res.TOPIC, resourceName: 'pay', resourcePatternType: Pattern.PREFIXED, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter] });
      expect(del.filterResponses).toHaveLength(1);
      expect(del.filterResponses[0]!.errorCode).toBe(0);
      const deleted = del.filterResponses[0]!.matchingAcls.map((m) => ({
        resourceType: m.resourceType,
        resourceName: m.resourceName,
        patternType: (m as { resourcePatternType?: number }).resourcePatternType ?? -1,
        principal: m.principal,
        host: m.host,
        operation: m.operation,
        permissionType: m.permissionType,
      }));
      expect(sorted(deleted)).toEqual(sorted([A2, A4]));
      expect(del.filterResponses[0]!.matchingAcls.every((m) => m.errorCode === 0)).toBe(true);
      expect(await described(admin)).toEqual(sorted([A1, A3]));

      const rest = await admin.deleteAcls({ filters: [{ resourceType: Res.ANY, resourcePatternType: Pattern.ANY, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter] });
      expect(rest.filterResponses[0]!.matchingAcls).toHaveLength(2);
      expect(await described(admin)).toEqual([]);
    });
  });

  it('a CLUSTER ACL not on kafka-cluster answers INVALID_REQUEST and the valid creation beside it is made; a MATCH pattern fails the whole request', async () => {
    const valid = allowAlice(Res.TOPIC, 'valid', Pattern.LITERAL, Op.READ);
    const anyFilter = { resourceType: Res.ANY, resourcePatternType: Pattern.ANY, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter;
    await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => {
      // AclApis.handleCreateAcls: "The only valid name for the CLUSTER resource is kafka-cluster", per creation.
      const badName = await failure(admin.createAcls({ acl: [entry(valid), entry(allowAlice(Res.CLUSTER, 'my-cluster', Pattern.LITERAL, Op.DESCRIBE))] }));
      expect(errorChain(badName)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'INVALID_REQUEST' });
      expect(await described(admin)).toEqual([valid]);
      await admin.deleteAcls({ filters: [anyFilter] });

      // CreateAclsRequest.aclBinding: ResourcePattern refuses MATCH (IllegalArgumentException), so
      // the request fails as a whole: UNKNOWN_SERVER_ERROR (kafkajs: type UNKNOWN) for every
      // creation, and nothing is created.
      const match = await failure(admin.createAcls({ acl: [entry(valid), entry({ ...valid, resourceName: 'bad', patternType: Pattern.MATCH })] }));
      expect(errorChain(match)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'UNKNOWN' });
      expect(await described(admin)).toEqual([]);
    });
  });

  it('alice (no ALTER / DESCRIBE on the cluster) gets CLUSTER_AUTHORIZATION_FAILED from all three ACL APIs', async () => {
    await withAdmin(kafkaAs(kmock, 'alice'), async (admin) => {
      const describeErr = await failure(admin.describeAcls({ resourceType: Res.ANY, resourcePatternType: Pattern.ANY, operation: Op.ANY, permissionType: Perm.ANY }));
      expect(errorTypes(describeErr)).toContain('CLUSTER_AUTHORIZATION_FAILED');
      expect(errorChain(describeErr)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'CLUSTER_AUTHORIZATION_FAILED' });
      const createErr = await failure(admin.createAcls({ acl: [entry(allowAlice(Res.TOPIC, '*', Pattern.LITERAL, Op.ALL))] }));
      expect(errorChain(createErr)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'CLUSTER_AUTHORIZATION_FAILED' });
      const deleteErr = await failure(admin.deleteAcls({ filters: [{ resourceType: Res.ANY, resourcePatternType: Pattern.ANY, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter] }));
      expect(errorChain(deleteErr)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'CLUSTER_AUTHORIZATION_FAILED' });
    });
    // Her CreateAcls created nothing.
    await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => expect(await described(admin, { principal: 'User:alice', resourceType: Res.TOPIC, resourceName: '*', resourcePatternType: Pattern.LITERAL })).toEqual([]));
  });
});

// ---------------------------------------------------------------------------------------------
describe('2. producing, consuming and listing as users with and without ACLs', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock(AUTHORIZED);
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) =>
      admin.createTopics({ topics: ['orders-1', 'orders-secret', 'private-1'].map((topic) => ({ topic, numPartitions: 1 })), waitForLeaders: true }),
    );
  });
  afterAll(async () => kmock?.close());

  it('alice without ACLs: producer.send fails with TOPIC_AUTHORIZATION_FAILED, a consumer in group g with a topic or group authorization failure', async () => {
    const alice = kafkaAs(kmock, 'alice');
    const sent = await sendError(alice, 'orders-1');
    expect(errorChain(sent)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
    const consumed = await consume(alice, 'g', 'orders-1', 1);
    expect(consumed.values).toEqual([]);
    expect(errorTypes(consumed.error).some((t) => t === 'TOPIC_AUTHORIZATION_FAILED' || t === 'GROUP_AUTHORIZATION_FAILED')).toBe(true);
  });

  it('with topic READ but no ACL on the group, FindCoordinator answers GROUP_AUTHORIZATION_FAILED', async () => {
    // Granted here for this test and the next: WRITE and READ on the topics prefixed orders-.
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) =>
      admin.createAcls({ acl: [allowAlice(Res.TOPIC, 'orders-', Pattern.PREFIXED, Op.WRITE), allowAlice(Res.TOPIC, 'orders-', Pattern.PREFIXED, Op.READ)].map(entry) }),
    );
    const logs: string[] = [];
    const consumed = await consume(kafkaAs(kmock, 'alice', logs), 'g', 'orders-1', 1);
    expect(consumed.values).toEqual([]);
    // kafkajs tries every broker for the coordinator, swallows each answer and reports
    // KafkaJSGroupCoordinatorNotFound; the broker's answer is in its error log.
    expect(errorChain(consumed.error).map((x) => x.name)).toContain('KafkaJSGroupCoordinatorNotFound');
    expect(logs.some((l) => l.startsWith('Response GroupCoordinator') && l.includes('Group authorization failed')), logs.join('\n')).toBe(true);
  });

  it('granted WRITE on prefix orders- and READ on group g and the topics: alice produces to orders-1 and consumes it back', async () => {
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.createAcls({ acl: [entry(allowAlice(Res.GROUP, 'g', Pattern.LITERAL, Op.READ))] }));
    const alice = kafkaAs(kmock, 'alice');
    expect(await sendError(alice, 'orders-1', 'from alice')).toBeUndefined();
    const consumed = await consume(alice, 'g', 'orders-1', 1);
    expect(consumed.error).toBeUndefined();
    expect(consumed.values).toEqual(['from alice']);
    // Her group's offset was committed (OffsetCommit: READ on the group and on the topic).
    const offsets = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.fetchOffsets({ groupId: 'g', topics: ['orders-1'] }));
    expect(offsets).toEqual([{ topic: 'orders-1', partitions: [expect.objectContaining({ partition: 0, offset: '1' })] }]);
  });

  it('a DENY READ on orders-secret wins over the prefixed ALLOW READ (WRITE, not denied, still works)', async () => {
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) =>
      admin.createAcls({ acl: [entry({ ...allowAlice(Res.TOPIC, 'orders-secret', Pattern.LITERAL, Op.READ), permissionType: Perm.DENY })] }),
    );
    const alice = kafkaAs(kmock, 'alice');
    expect(await sendError(alice, 'orders-secret', 'secret')).toBeUndefined();
    const consumed = await consume(alice, 'g', 'orders-secret', 1);
    expect(consumed.values).toEqual([]);
    expect(errorChain(consumed.error)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
    // The prefixed ALLOW still serves her other orders- topics.
    expect(await sendError(alice, 'orders-1', 'again')).toBeUndefined();
  });

  it('WRITE without CREATE: producing to an orders- topic that does not exist fails with TOPIC_AUTHORIZATION_FAILED and creates nothing', async () => {
    // KafkaApis.handleTopicMetadataRequest: a topic to auto-create needs CREATE on the cluster or on it.
    expect(errorChain(await sendError(kafkaAs(kmock, 'alice'), 'orders-new'))).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
    expect(await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.listTopics())).not.toContain('orders-new');
  });

  it('bob, with no ACLs, still fails: produce gets TOPIC_AUTHORIZATION_FAILED and he sees no topic; the super user needs none', async () => {
    const bob = kafkaAs(kmock, 'bob');
    expect(errorChain(await sendError(bob, 'orders-1'))).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
    expect(await withAdmin(bob, (admin) => admin.listTopics())).toEqual([]);
    expect(await sendError(kafkaAs(kmock, 'admin'), 'private-1', 'by admin')).toBeUndefined();
  });

  it('an idempotent producer: alice (WRITE on some topic, KIP-679) gets a producer id and sends; bob gets CLUSTER_AUTHORIZATION_FAILED', async () => {
    // KafkaApis.handleInitProducerIdRequest: IDEMPOTENT_WRITE on the cluster, or WRITE on any
    // topic (authorizeByResourceType).
    expect(await sendError(kafkaAs(kmock, 'alice'), 'orders-1', 'idempotent', true)).toBeUndefined();
    const err = await sendError(kafkaAs(kmock, 'bob'), 'orders-1', 'idempotent', true);
    expect(errorTypes(err)).toContain('CLUSTER_AUTHORIZATION_FAILED');
  });

  it('listTopics as alice shows only the topics she may describe; naming another fails with TOPIC_AUTHORIZATION_FAILED', async () => {
    const admins = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.listTopics());
    expect(admins).toEqual(expect.arrayContaining(['orders-1', 'orders-secret', 'private-1']));
    await withAdmin(kafkaAs(kmock, 'alice'), async (admin) => {
      expect((await admin.listTopics()).sort()).toEqual(['orders-1', 'orders-secret']);
      const err = await failure(admin.fetchTopicMetadata({ topics: ['private-1'] }));
      expect(errorTypes(err)).toContain('TOPIC_AUTHORIZATION_FAILED');
    });
  });

  it("deleting alice's prefixed WRITE revokes it at once: Produce itself answers TOPIC_AUTHORIZATION_FAILED (READ still lets her describe the topic)", async () => {
    const del = await withAdmin(kafkaAs(kmock, 'admin'), (admin) =>
      admin.deleteAcls({ filters: [{ resourceType: Res.TOPIC, resourceName: 'orders-', resourcePatternType: Pattern.PREFIXED, principal: 'User:alice', operation: Op.WRITE, permissionType: Perm.ALLOW } as AclFilter] }),
    );
    expect(del.filterResponses[0]!.matchingAcls).toHaveLength(1);
    const logs: string[] = [];
    const err = await sendError(kafkaAs(kmock, 'alice', logs), 'orders-1');
    expect(errorChain(err)).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
    // Metadata passed (DESCRIBE, implied by her READ); the Produce request was refused.
    expect(logs.some((l) => l.startsWith('Response Produce') && l.includes('Topic authorization failed')), logs.join('\n')).toBe(true);
    expect(logs.some((l) => l.startsWith('Response Metadata'))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
describe.skipIf(libs === undefined)('3. kafka-acls.sh (kafka.admin.AclCommand) --bootstrap-server', () => {
  let kmock: Kmock;
  let dir: string;
  beforeAll(async () => {
    // The tool connects to the PLAINTEXT listener, as User:ANONYMOUS: a super user here.
    kmock = await startKmock({ ...AUTHORIZED, superUsers: 'User:admin;User:ANONYMOUS' });
    dir = mkdtempSync(join(tmpdir(), 'kmock-acl-tool-'));
  });
  afterAll(async () => {
    await kmock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const acls = (...args: string[]) =>
    run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.AclCommand', '--bootstrap-server', kmock.listeners[0]!.bootstrapServers, ...args], { timeoutMs: 90_000 });
  /** The tool on the SASL_PLAINTEXT listener as `user`, with a --command-config file. */
  const aclsAs = (user: User, ...args: string[]) => {
    const props = join(dir, `${user}.properties`);
    writeFileSync(
      props,
      ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${user}-secret";`].join('\n'),
    );
    return run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.AclCommand', '--bootstrap-server', saslBootstrap(kmock), '--command-config', props, ...args], { timeoutMs: 90_000 });
  };
  const TOPIC_T = 'ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)';
  const ALICE_READ = '(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)';

  it('--add, --list and --remove --force an ACL on topic t', async () => {
    const add = await acls('--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 't');
    expect(add.code, add.stdout + add.stderr).toBe(0);
    expect(add.stdout).toContain(`Adding ACLs for resource \`${TOPIC_T}\`:`);
    expect(add.stdout).toContain(ALICE_READ);

    const list = await acls('--list', '--topic', 't');
    expect(list.code, list.stdout + list.stderr).toBe(0);
    expect(list.stdout).toContain(`Current ACLs for resource \`${TOPIC_T}\`:`);
    expect(list.stdout).toContain(ALICE_READ);
    expect(list.stdout.match(/\(principal=/g)).toHaveLength(1);

    const all = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => described(admin));
    expect(all).toEqual([allowAlice(Res.TOPIC, 't', Pattern.LITERAL, Op.READ)]);

    const remove = await acls('--remove', '--force', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 't');
    expect(remove.code, remove.stdout + remove.stderr).toBe(0);
    const after = await acls('--list', '--topic', 't');
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).not.toContain('principal=User:alice');
    expect(await withAdmin(kafkaAs(kmock, 'admin'), (admin) => described(admin))).toEqual([]);
  }, 300_000);

  it('with a SASL --command-config: admin lists the ACLs; alice (not a super user) gets ClusterAuthorizationException', async () => {
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.createAcls({ acl: [entry(allowAlice(Res.GROUP, 'tool-g', Pattern.LITERAL, Op.READ))] }));
    const asAdmin = await aclsAs('admin', '--list', '--group', 'tool-g');
    expect(asAdmin.code, asAdmin.stdout + asAdmin.stderr).toBe(0);
    expect(asAdmin.stdout).toContain('Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=tool-g, patternType=LITERAL)`:');
    expect(asAdmin.stdout).toContain(ALICE_READ);
    const asAlice = await aclsAs('alice', '--list', '--group', 'tool-g');
    expect(asAlice.code, asAlice.stdout + asAlice.stderr).toBe(1);
    expect(asAlice.stdout).toContain('Error while executing ACL command: org.apache.kafka.common.errors.ClusterAuthorizationException');
    expect(asAlice.stdout).not.toContain('Current ACLs');
    await withAdmin(kafkaAs(kmock, 'admin'), (admin) =>
      admin.deleteAcls({ filters: [{ resourceType: Res.GROUP, resourceName: 'tool-g', resourcePatternType: Pattern.LITERAL, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter] }),
    );
  }, 180_000);

  it('--add --producer --topic x gives alice WRITE, DESCRIBE and CREATE on x: her kafkajs producer then sends', async () => {
    const alice = kafkaAs(kmock, 'alice');
    expect(errorChain(await sendError(alice, 'x'))).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });

    const add = await acls('--add', '--producer', '--topic', 'x', '--allow-principal', 'User:alice');
    expect(add.code, add.stdout + add.stderr).toBe(0);
    expect(add.stdout).toContain('Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=x, patternType=LITERAL)`:');
    for (const op of ['WRITE', 'DESCRIBE', 'CREATE']) expect(add.stdout).toContain(`(principal=User:alice, host=*, operation=${op}, permissionType=ALLOW)`);

    const onX = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => described(admin, { resourceType: Res.TOPIC, resourceName: 'x', resourcePatternType: Pattern.LITERAL }));
    expect(onX).toEqual(sorted([Op.WRITE, Op.DESCRIBE, Op.CREATE].map((op) => allowAlice(Res.TOPIC, 'x', Pattern.LITERAL, op))));

    // x does not exist yet: CREATE on it lets her Metadata create it, WRITE lets her produce.
    expect(await sendError(alice, 'x', 'via kafka-acls')).toBeUndefined();
    const offsets = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.fetchTopicOffsets('x'));
    expect(offsets.map((o) => o.high)).toEqual(['1']);
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------
describe('4. ACLs in a data dir survive a restart', () => {
  it('created ACLs are there (and enforced) after close and a new start on the same dir; a deletion is kept too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-acl-dir-'));
    // The data dir is log.dirs (`--data-dir`); BrokerConfig has no `dataDir`.
    const options: KmockOptions = { ...AUTHORIZED, logDirs: dir };
    const P1 = allowAlice(Res.TOPIC, 'persist-', Pattern.PREFIXED, Op.WRITE);
    const P2: Binding = { resourceType: Res.GROUP, resourceName: 'pg', patternType: Pattern.LITERAL, principal: 'User:bob', host: '*', operation: Op.READ, permissionType: Perm.DENY };
    const P3 = allowAlice(Res.CLUSTER, 'kafka-cluster', Pattern.LITERAL, Op.DESCRIBE);
    let kmock: Kmock | undefined;
    try {
      kmock = await startKmock(options);
      await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => {
        await admin.createTopics({ topics: [{ topic: 'persist-1', numPartitions: 1 }], waitForLeaders: true });
        await admin.createAcls({ acl: [P1, P2, P3].map(entry) });
        expect(await described(admin)).toEqual(sorted([P1, P2, P3]));
      });
      await kmock.close();
      kmock = undefined;

      kmock = await startKmock(options);
      await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => {
        expect(await described(admin)).toEqual(sorted([P1, P2, P3]));
        await admin.deleteAcls({ filters: [{ resourceType: Res.GROUP, resourceName: 'pg', resourcePatternType: Pattern.LITERAL, operation: Op.ANY, permissionType: Perm.ANY } as AclFilter] });
      });
      // The authorizer enforces them, not only lists them: alice's prefixed WRITE, her DESCRIBE on
      // the cluster (what DescribeAcls asks for); bob has nothing.
      expect(await sendError(kafkaAs(kmock, 'alice'), 'persist-1')).toBeUndefined();
      expect(await withAdmin(kafkaAs(kmock, 'alice'), (admin) => described(admin))).toEqual(sorted([P1, P3]));
      expect(errorChain(await sendError(kafkaAs(kmock, 'bob'), 'persist-1'))).toContainEqual({ name: 'KafkaJSProtocolError', type: 'TOPIC_AUTHORIZATION_FAILED' });
      await kmock.close();
      kmock = undefined;

      kmock = await startKmock(options);
      await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => expect(await described(admin)).toEqual(sorted([P1, P3])));
    } finally {
      await kmock?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
const CONFLUENT_PRODUCE = `
import json, sys
from confluent_kafka import Producer
bootstrap, topic = sys.argv[1:3]
errors = []
p = Producer({'bootstrap.servers': bootstrap, 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanisms': 'PLAIN',
              'sasl.username': 'alice', 'sasl.password': 'alice-secret', 'message.timeout.ms': 15000,
              'error_cb': lambda e: errors.append(e.name())})
out = {}
def report(err, msg):
    out['report'] = {'error': err.name() if err else None, 'code': err.code() if err else 0,
                     'partition': msg.partition(), 'offset': msg.offset()}
p.produce(topic, b'from librdkafka', on_delivery=report)
out['left'] = p.flush(30)
out['errors'] = errors
print(json.dumps(out))
`;

describe.skipIf(CONFLUENT !== undefined)('5. librdkafka (confluent-kafka) as alice over SASL_PLAINTEXT PLAIN', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock(AUTHORIZED);
    await withAdmin(kafkaAs(kmock, 'admin'), async (admin) => {
      await admin.createTopics({ topics: [{ topic: 'py-allowed', numPartitions: 1 }, { topic: 'py-denied', numPartitions: 1 }], waitForLeaders: true });
      await admin.createAcls({ acl: [entry(allowAlice(Res.TOPIC, 'py-allowed', Pattern.LITERAL, Op.WRITE))] });
    });
  });
  afterAll(async () => kmock?.close());

  const produce = async (topic: string) => {
    const r = await run(PYTHON, ['-c', CONFLUENT_PRODUCE, saslBootstrap(kmock), topic], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`python exited ${r.code}: ${r.stderr.slice(-2000)}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { left: number; errors: string[]; report?: { error: string | null; code: number; partition: number; offset: number } };
  };

  it('producing to a topic alice may not write reports TOPIC_AUTHORIZATION_FAILED', async () => {
    const out = await produce('py-denied');
    expect(out.left).toBe(0);
    expect(out.report).toMatchObject({ error: 'TOPIC_AUTHORIZATION_FAILED', code: 29 });
  });

  it('producing to a topic she may write is delivered', async () => {
    const out = await produce('py-allowed');
    expect(out).toMatchObject({ left: 0, report: { error: null, code: 0, partition: 0, offset: 0 } });
    const offsets = await withAdmin(kafkaAs(kmock, 'admin'), (admin) => admin.fetchTopicOffsets('py-allowed'));
    expect(offsets.map((o) => o.high)).toEqual(['1']);
  });
});
