// kafka-configs.sh (Kafka 3.9.1's kafka.admin.ConfigCommand, from the jars scripts/kafka-reference
// caches) creating, describing and deleting SCRAM users on kmock as an operator does, and the user
// then logging in with kafkajs over SASL_PLAINTEXT; and the same tool setting and describing
// client quotas (AlterClientQuotas / DescribeClientQuotas).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { fetchReference } from '../../conformance/support/reference.js';
import { run } from '../../support/clients/processes.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';

const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
if (libs === undefined && required) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);

describe.skipIf(libs === undefined)('kafka-configs.sh --entity-type users (SCRAM credentials, quotas)', () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock({ listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-256,SCRAM-SHA-512' });
  });
  afterAll(async () => kmock?.close());

  const configs = (...args: string[]) =>
    run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.ConfigCommand', '--bootstrap-server', kmock.listeners[0]!.bootstrapServers, ...args], { timeoutMs: 90_000 });

  const login = async (mechanism: 'scram-sha-256' | 'scram-sha-512', password: string): Promise<boolean> => {
    const admin = new Kafka({ clientId: 'tool', brokers: [kmock.listeners[1]!.bootstrapServers], sasl: { mechanism, username: 'erin', password } as SASLOptions, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect();
    }
  };

  it('--alter --add-config creates the user (one mechanism per request), --delete-config removes one', async () => {
    // One mechanism per command: Kafka 3.9's controller refuses a user twice in one request
    // (ScramControlManager.alterCredentials: "A user credential cannot be altered twice in the
    // same request"), and so the tool's two-mechanism form fails there too.
    const both = await configs('--alter', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=erin-secret],SCRAM-SHA-512=[password=erin-secret]', '--entity-type', 'users', '--entity-name', 'erin');
    expect(both.code).toBe(1);
    expect(both.stdout + both.stderr).toContain('A user credential cannot be altered twice in the same request');
    for (const config of ['SCRAM-SHA-256=[iterations=8192,password=erin-secret]', 'SCRAM-SHA-512=[password=erin-secret]']) {
      const add = await configs('--alter', '--add-config', config, '--entity-type', 'users', '--entity-name', 'erin');
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain('Completed updating config for user erin.');
    }
    const described = await configs('--describe', '--entity-type', 'users', '--entity-name', 'erin');
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toContain("SCRAM credential configs for user-principal 'erin' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096");
    expect(await login('scram-sha-256', 'erin-secret')).toBe(true);
    expect(await login('scram-sha-512', 'erin-secret')).toBe(true);
    expect(await login('scram-sha-256', 'not-it')).toBe(false);
    const del = await configs('--alter', '--delete-config', 'SCRAM-SHA-256', '--entity-type', 'users', '--entity-name', 'erin');
    expect(del.code, del.stderr).toBe(0);
    expect(await login('scram-sha-256', 'erin-secret')).toBe(false);
    expect(await login('scram-sha-512', 'erin-secret')).toBe(true);
  }, 240_000);

  it('--alter --add-config sets user and default quotas, --describe shows them with the credentials, bad values fail with Kafka\'s text', async () => {
    const set = await configs('--alter', '--add-config', 'producer_byte_rate=1048576,consumer_byte_rate=2097152', '--entity-type', 'users', '--entity-name', 'quinn');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Completed updating config for user quinn.');
    const dflt = await configs('--alter', '--add-config', 'request_percentage=50', '--entity-type', 'users', '--entity-default');
    expect(dflt.code, dflt.stderr).toBe(0);
    const both = await configs('--alter', '--add-config', 'controller_mutation_rate=2.5', '--entity-type', 'users', '--entity-name', 'quinn', '--entity-type', 'clients', '--entity-name', 'app');
    expect(both.code, both.stderr).toBe(0);
    const one = await configs('--describe', '--entity-type', 'users', '--entity-name', 'quinn');
    expect(one.stdout).toContain("Quota configs for user-principal 'quinn' are consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0");
    const all = await configs('--describe', '--entity-type', 'users');
    expect(all.stdout).toContain('Quota configs for the default user-principal are request_percentage=50.0');
    const pair = await configs('--describe', '--entity-type', 'users', '--entity-name', 'quinn', '--entity-type', 'clients', '--entity-name', 'app');
    expect(pair.stdout).toContain("Quota configs for user-principal 'quinn', client-id 'app' are controller_mutation_rate=2.5");
    const bad = await configs('--alter', '--add-config', 'producer_byte_rate=1.5', '--entity-type', 'users', '--entity-name', 'quinn');
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toContain('InvalidRequestException: producer_byte_rate cannot be a fractional value.');
    const removed = await configs('--alter', '--delete-config', 'producer_byte_rate,consumer_byte_rate', '--entity-type', 'users', '--entity-name', 'quinn');
    expect(removed.code, removed.stderr).toBe(0);
    const after = await configs('--describe', '--entity-type', 'users', '--entity-name', 'quinn');
    expect(after.stdout).not.toContain('Quota configs for user-principal');
  }, 240_000);
});
