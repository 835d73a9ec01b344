// `kmock admin ...` against a real listening kmock with its admin API on: every command prints the
// API's JSON answer; refused requests exit 1 with one stderr line, usage errors exit 2. In-process
// (main() with a fake io); the process-level check runs when dist/ is built.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { createMetadataRequest } from '../../src/codec/index.js';
import { runCli, type CliResult } from '../support/cli.js';
import { RawClient } from '../support/raw-client.js';
import { waitFor } from '../support/clients/wait.js';
import { joinStatic, produce, stableGroup } from '../broker/control/helpers.js';

let kmock: Kmock;
const clients: RawClient[] = [];

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, adminPort: 0 });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await kmock.close();
});

const admin = (...args: string[]): Promise<CliResult> => runCli(['admin', '--url', kmock.adminUrl!, ...args]);

/** Exit 0, nothing on stderr, JSON on stdout. */
async function ok(...args: string[]): Promise<any> {
  const r = await admin(...args);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return JSON.parse(r.stdout);
}

/** Exit `code` with exactly one line on stderr. */
async function fails(code: number, ...args: string[]): Promise<string> {
  const r = await admin(...args);
  expect(r.code, args.join(' ')).toBe(code);
  expect(r.stdout, args.join(' ')).toBe('');
  expect(r.stderr, args.join(' ')).toMatch(/^kmock: [^\n]+\n$/);
  return r.stderr;
}

describe('kmock admin: read', () => {
  it('groups, group, topics, connections, policies, faults', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    clients.push(c);
    await produce(c, 'orders', 0, 2);
    const j = await stableGroup(kmock.bootstrapServers, 'billing', 'node-1', { orders: [0] });
    clients.push(j.client);

    expect(await ok('groups')).toEqual([expect.objectContaining({ groupId: 'billing', state: 'Stable', members: 1, leader: j.memberId })]);
    const g = await ok('group', 'billing');
    expect(g.members[0]).toMatchObject({ groupInstanceId: 'node-1', subscription: { topics: ['orders'] }, assignment: { assignedPartitions: [{ topic: 'orders', partitions: [0] }] } });
    // (the group's commits created __consumer_offsets: the non-internal topics here)
    expect(((await ok('topics')) as Array<{ internal: boolean }>).filter((t) => !t.internal)).toEqual([expect.objectContaining({ name: 'orders', partitions: [expect.objectContaining({ logEndOffset: 2 })] })]);
    expect((await ok('connections')).length).toBeGreaterThanOrEqual(2);
    expect((await ok('policies')).broker['registration-timeout']).toEqual({ enabled: false, registrationTimeoutMs: 900_000 });
    expect((await ok('policies', '--group', 'billing'))['kip345-draft-errors']).toEqual({ enabled: false });
    expect(await ok('faults')).toEqual({ errors: [], latency: [], injected: [] });
  });
});

describe('kmock admin: act', () => {
  it('policies set/clear, static, dynamic, force-static-rebalance, rebalance, remove', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'app', 'node-1', { t: [0] });
    clients.push(j.client);

    expect((await ok('policies', 'set', 'kip423-join-reasons', 'registration-timeout=20m'))['registration-timeout']).toEqual({
      enabled: true,
      registrationTimeoutMs: 1_200_000,
    });
    expect((await ok('policies', 'set', '--group', 'app', 'membership-modes=on'))['membership-modes']).toEqual({ enabled: true });
    expect(await ok('static', 'app', '--registration-timeout-ms', '600000', '--expansion-timeout-ms', '0')).toMatchObject({
      groupId: 'app',
      errorCode: 0,
      mode: 'static',
      members: [{ memberId: j.memberId, groupInstanceId: 'node-1' }],
    });
    expect(await ok('dynamic', 'app')).toMatchObject({ errorCode: 0, mode: 'dynamic' });
    expect(await fails(1, 'dynamic', 'app')).toMatch(/WRONG_MEMBERSHIP_MODE.*\(HTTP 409\)/);
    await ok('static', 'app');
    expect(await ok('force-static-rebalance', 'app')).toMatchObject({ errorCode: 0, mode: 'static' });
    expect((await ok('policies', 'clear', '--group', 'app'))['membership-modes']).toEqual({ enabled: false });

    const j2 = await stableGroup(kmock.bootstrapServers, 'app2', 'node-2', { t: [0] });
    clients.push(j2.client);
    expect(await ok('rebalance', 'app2', '--reason', 'cli test')).toMatchObject({ rebalanced: true });
    expect(kmock.control.group('app2').rebalances.at(-1)).toMatchObject({ trigger: 'admin-forced', clientReason: 'cli test' });
    expect(await ok('remove', 'app2', '--instance', 'node-2')).toMatchObject({ errorCode: 0, members: [{ groupInstanceId: 'node-2', errorCode: 0 }] });
    expect(kmock.control.group('app2').members).toEqual([]);

    const j3 = await stableGroup(kmock.bootstrapServers, 'app3', 'node-3', { t: [0] });
    clients.push(j3.client);
    expect(await ok('remove', 'app3', '--all', '--reason', 'scale to zero')).toMatchObject({ errorCode: 0, members: [{ groupInstanceId: 'node-3' }] });
    expect(kmock.control.group('app3').state).toBe('Empty');
  });

  it('inject-errors, latency, clear-faults, drop-connections', async () => {
    expect((await ok('inject-errors', 'Produce', 'NOT_LEADER_OR_FOLLOWER', '3')).errors).toEqual([
      { apiKey: 0, api: 'Produce', remaining: [{ code: 6, name: 'NOT_LEADER_OR_FOLLOWER', count: 3 }] },
    ]);
    expect((await ok('inject-errors', '3', '8')).errors).toContainEqual({ apiKey: 3, api: 'Metadata', remaining: [{ code: 8, name: 'BROKER_NOT_AVAILABLE', count: 1 }] });
    expect((await ok('latency', 'Fetch', '150')).latency).toEqual([{ apiKey: 1, api: 'Fetch', ms: 150 }]);
    expect(await ok('clear-faults')).toEqual({ errors: [], latency: [], injected: [] });

    const a = await RawClient.connect(kmock.bootstrapServers);
    a.clientId = 'svc-a';
    const b = await RawClient.connect(kmock.bootstrapServers);
    b.clientId = 'svc-b';
    clients.push(a, b);
    for (const c of [a, b]) await c.request(3, 9, createMetadataRequest({ topics: [] }));
    expect(await ok('drop-connections', '--client-id', 'svc-a')).toEqual({ dropped: 1 });
    expect(await a.waitForClose()).toBe(true);
    expect(b.isClosed).toBe(false);
    expect(await ok('drop-connections')).toEqual({ dropped: 1 });
    expect(await b.waitForClose()).toBe(true);
  });
});

describe('kmock admin: events', () => {
  it('prints group events as JSON lines until --count, filtered by --group and --type', async () => {
    const before = kmock.broker.groupEventListeners.size;
    const run = admin('events', '--group', 'watched', '--type', 'rebalance-started', '--count', '1');
    await waitFor('the SSE subscription', () => kmock.broker.groupEventListeners.size > before);
    const other = await joinStatic(kmock.bootstrapServers, { groupId: 'ignored', instanceId: 'x' });
    const j = await joinStatic(kmock.bootstrapServers, { groupId: 'watched', instanceId: 'y' });
    clients.push(other.client, j.client);
    const r = await run;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ type: 'rebalance-started', groupId: 'watched', trigger: 'member-joined', groupInstanceId: 'y' })]);
    await waitFor('unsubscribed', () => kmock.broker.groupEventListeners.size === before);
  });

  it('exits 1 when --count events do not come within --timeout-ms', async () => {
    expect(await fails(1, 'events', '--count', '1', '--timeout-ms', '300')).toMatch(/timed out after 300 ms with 0 of 1 events/);
  });
});

describe('kmock admin: errors', () => {
  it('refused requests: exit 1 and one stderr line with the API\'s message', async () => {
    expect(await fails(1, 'group', 'missing')).toBe('kmock: no group "missing" (HTTP 404)\n');
    expect(await fails(1, 'rebalance', 'missing')).toMatch(/HTTP 404/);
    expect(await fails(1, 'inject-errors', 'Produce', 'NO_SUCH_ERROR')).toMatch(/unknown Kafka error "NO_SUCH_ERROR" \(HTTP 400\)/);
    expect(await fails(1, 'inject-errors', '4', '6')).toMatch(/not served.*HTTP 400/);
    expect(await fails(1, 'policies', 'set', 'warp-drive=on')).toMatch(/unknown policy "warp-drive".*HTTP 400/);
    expect(await fails(1, 'static', 'missing')).toMatch(/MEMBERSHIP_MODES_DISABLED.*HTTP 409/);
    expect(await fails(1, 'remove', 'missing', '--member', 'm-1')).toMatch(/HTTP 404/);
  });

  it('usage errors: exit 2', async () => {
    expect(await fails(2, 'frobnicate')).toMatch(/unknown admin command "frobnicate"/);
    expect(await fails(2, 'group')).toMatch(/usage: kmock admin group ID/);
    expect(await fails(2, 'remove', 'g')).toMatch(/--instance X, --member Y or --all/);
    expect(await fails(2, 'remove', 'g', '--all', '--member', 'm')).toMatch(/--all or ids, not both/);
    expect(await fails(2, 'inject-errors', '0', '6', 'many')).toMatch(/COUNT must be an integer/);
    expect(await fails(2, 'latency', '0')).toMatch(/usage: kmock admin latency API_KEY MS/);
    expect(await fails(2, 'groups', '--client-id', 'x')).toMatch(/groups does not take --client-id/);
    expect(await fails(2, 'policies', 'clear')).toMatch(/--group ID/);
    expect(await fails(2, 'groups', '--bogus')).toMatch(/bogus/);
    const r = await runCli(['admin', '--url', 'ftp://x', 'groups']);
    expect(r.code).toBe(2);
  });

  it('an unreachable admin API: exit 1 and one line naming the URL', async () => {
    const port = kmock.adminPort!;
    await kmock.close();
    const r = await runCli(['admin', '--url', `http://127.0.0.1:${port}`, 'groups']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^kmock: cannot reach the admin API at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED\\n$`));
  });

  it('takes the URL from KMOCK_ADMIN_URL; --help lists the commands', async () => {
    const saved = process.env.KMOCK_ADMIN_URL;
    process.env.KMOCK_ADMIN_URL = kmock.adminUrl;
    try {
      const r = await runCli(['admin', 'groups']);
      expect(r).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    } finally {
      if (saved === undefined) delete process.env.KMOCK_ADMIN_URL;
      else process.env.KMOCK_ADMIN_URL = saved;
    }
    const help = await runCli(['admin', '--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['groups', 'group ID', 'topics', 'policies', 'rebalance ID', 'remove ID', 'static ID', 'dynamic ID', 'force-static-rebalance ID', 'inject-errors API_KEY CODE', 'latency API_KEY MS', 'clear-faults', 'drop-connections', 'events']) {
      expect(help.stdout).toContain(cmd);
    }
    expect((await runCli(['admin'])).code).toBe(2);
  });
});

const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;
const BUILT = existsSync(new URL('../../dist/cli/admin.js', import.meta.url));

describe.skipIf(!BUILT)('kmock admin as a process (needs dist/: npm run build)', () => {
  it('prints JSON and exits 0; exits 1 with one stderr line when refused', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, [BIN, 'admin', '--url', kmock.adminUrl!, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d) => (stdout += d));
        p.stderr.on('data', (d) => (stderr += d));
        p.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const good = await run(['inject-errors', 'Fetch', 'REQUEST_TIMED_OUT']);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout).errors[0]).toMatchObject({ apiKey: 1 });
    const bad = await run(['group', 'nope']);
    expect(bad).toEqual({ code: 1, stdout: '', stderr: 'kmock: no group "nope" (HTTP 404)\n' });
  });
});
