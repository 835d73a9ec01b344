// `kmock admin --token` / $KMOCK_ADMIN_TOKEN against an admin API that needs a token: the token goes
// in `Authorization: Bearer`, changes go as JSON, and without the token the command exits 1.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { startAdminServer, type AdminServer } from '../../src/broker/control/http.js';
import { adminCommand } from '../../src/cli/admin.js';

let kmock: Kmock;
let api: AdminServer;

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0 });
  api = await startAdminServer(kmock.control, 0, '127.0.0.1', { token: 'tok-123' });
});

afterEach(async () => {
  await api.close();
  await kmock.close();
});

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s) } as never;
  const code = await adminCommand(['--url', api.url, ...args], io, fetch, env);
  return { code, stdout, stderr };
}

it('sends --token or $KMOCK_ADMIN_TOKEN as a bearer token; without it the API answers 401', async () => {
  const none = await run(['faults']);
  expect(none.code).toBe(1);
  expect(none.stderr).toMatch(/token.*\(HTTP 401\)/);
  expect((await run(['--token', 'nope', 'faults'])).code).toBe(1);
  expect((await run(['--token', 'tok-123', 'inject-errors', 'Produce', 'NOT_LEADER_OR_FOLLOWER'])).code).toBe(0);
  const listed = await run(['faults'], { KMOCK_ADMIN_TOKEN: 'tok-123' });
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout).errors).toHaveLength(1);
  expect((await run(['clear-faults'], { KMOCK_ADMIN_TOKEN: 'tok-123' })).code).toBe(0);
  expect(kmock.control.faultsView().errors).toEqual([]);
});

it('sends changes with Content-Type: application/json and the token', async () => {
  const seen: Array<{ method: string; type: string | null; auth: string | null }> = [];
  const spy: typeof fetch = async (input, init) => {
    const h = new Headers(init?.headers);
    seen.push({ method: init?.method ?? 'GET', type: h.get('content-type'), auth: h.get('authorization') });
    return fetch(input, init);
  };
  let out = '';
  const io = { stdout: (s: string) => void (out += s), stderr: () => {} } as never;
  expect(await adminCommand(['--url', api.url, '--token', 'tok-123', 'latency', 'Fetch', '5'], io, spy, {})).toBe(0);
  expect(seen).toEqual([{ method: 'POST', type: 'application/json', auth: 'Bearer tok-123' }]);
  expect(JSON.parse(out).latency).toHaveLength(1);
});

it('refuses an empty token as a usage error', async () => {
  await expect(run(['--token', '', 'faults'])).rejects.toThrow(/token/);
});
