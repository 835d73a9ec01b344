// Delegation tokens with Kafka's own tools (3.9.1's org.apache.kafka.tools.DelegationTokenCommand,
// kafka-delegation-tokens.sh, from the jars scripts/kafka-reference caches): alice creates a token
// over SASL, describes it, a Java admin client logs in with it (SCRAM-SHA-256, tokenauth=true) and
// lists topics as alice, the token survives a restart on the same data dir, is renewed, expired,
// and then no longer logs in.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchReference } from '../../conformance/support/reference.js';
import { run } from '../../support/clients/processes.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';

const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
if (libs === undefined && required) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);

const scram = (user: string, password: string, token = false) =>
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}"${token ? ' tokenauth="true"' : ''};\n`;

describe.skipIf(libs === undefined)('kafka-delegation-tokens.sh and a token login', () => {
  let kmock: Kmock | undefined;
  afterEach(async () => {
    await kmock?.close();
    kmock = undefined;
  });

  const dir = mkdtempSync(join(tmpdir(), 'kmock-tokens-'));
  const options: KmockOptions = {
    listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
    saslEnabledMechanisms: 'SCRAM-SHA-256',
    saslUsers: 'alice:alice-secret',
    delegationTokenSecretKey: 'kmock-test-token-secret',
    logDirs: join(dir, 'data'),
  };
  const tool = (k: Kmock, cls: string, ...args: string[]) =>
    run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, cls, '--bootstrap-server', k.listeners[1]!.bootstrapServers, ...args], { timeoutMs: 90_000 });
  const tokens = (k: Kmock, ...args: string[]) => tool(k, 'org.apache.kafka.tools.DelegationTokenCommand', ...args, '--command-config', join(dir, 'alice.properties'));

  it('create, describe, log in with the token, restart, renew, expire', async () => {
    writeFileSync(join(dir, 'alice.properties'), scram('alice', 'alice-secret'));
    kmock = await startKmock(options);
    const created = await tokens(kmock, '--create', '--max-life-time-period', '-1', '--renewer-principal', 'User:bob');
    expect(created.code, created.stderr).toBe(0);
    const row = /\n(\S+)\s+(\S+)\s+User:alice\s+User:alice\s+\[User:bob\]/.exec(created.stdout);
    expect(row, created.stdout).not.toBeNull();
    const [, tokenId, hmac] = row!;
    expect(created.stdout).toContain(`Created delegation token with tokenId : ${tokenId}`);

    // The tool's "for current user" sends an empty owner list, which Kafka answers with no tokens.
    const mine = await tokens(kmock, '--describe');
    expect(mine.stdout).toContain('Total number of tokens : 0');
    const described = await tokens(kmock, '--describe', '--owner-principal', 'User:alice');
    expect(described.stdout).toContain('Total number of tokens : 1');
    expect(described.stdout).toContain(tokenId);

    writeFileSync(join(dir, 'token.properties'), scram(tokenId, hmac, true));
    const login = async (k: Kmock) => tool(k, 'org.apache.kafka.tools.TopicCommand', '--list', '--command-config', join(dir, 'token.properties'));
    const listed = await login(kmock);
    expect(listed.code, listed.stderr).toBe(0);

    await kmock.close();
    kmock = await startKmock(options);
    expect((await login(kmock)).code).toBe(0);

    const renewed = await tokens(kmock, '--renew', '--renew-time-period', '-1', '--hmac', hmac);
    expect(renewed.stdout).toContain('Completed renew operation.');
    const expired = await tokens(kmock, '--expire', '--expiry-time-period', '-1', '--hmac', hmac);
    expect(expired.stdout).toContain('Completed expire operation.');
    const refused = await tool(kmock, 'org.apache.kafka.tools.TopicCommand', '--list', '--command-config', join(dir, 'token.properties'));
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/Authentication failed/);
  }, 300_000);
});
