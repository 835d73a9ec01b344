// The control plane over HTTP, end to end: a listening kmock with `adminPort: 0`, every route, the
// 4xx answers to bad input, server-sent events carrying a rebalance, and shutdown.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { createMetadataRequest } from '../../../src/codec/index.js';
import { RawClient } from '../../support/raw-client.js';
import { waitFor } from '../../support/clients/wait.js';
import { joinStatic, produce, stableGroup } from './helpers.js';

let kmock: Kmock;
const clients: RawClient[] = [];

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, adminPort: 0 });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await kmock.close();
});

async function http(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(kmock.adminUrl + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : JSON.parse(text) };
}

/** An SSE subscription: resolves once the server confirmed it; collects parsed events. */
async function subscribe(path = '/events'): Promise<{ events: Array<{ event: string; data: any }>; close: () => void }> {
  const ac = new AbortController();
  const res = await fetch(kmock.adminUrl + path, { signal: ac.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: Array<{ event: string; data: any }> = [];
  let subscribed!: () => void;
  const ready = new Promise<void>((r) => (subscribed = r));
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (block.startsWith(': subscribed')) subscribed();
          const ev = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (ev && data) events.push({ event: ev, data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
  })();
  await ready;
  return { events, close: () => ac.abort() };
}

describe('admin HTTP API', () => {
  it('listens on 127.0.0.1 with the bound port reported on the Kmock object; off unless asked', async () => {
    expect(kmock.adminPort).toBeGreaterThan(0);
    expect(kmock.adminUrl).toBe(`http://127.0.0.1:${kmock.adminPort}`);
    const plain = await startKmock();
    expect(plain.adminPort).toBeUndefined();
    expect(plain.adminUrl).toBeUndefined();
    expect(plain.control).toBeDefined();
    await plain.close();
  });

  it('fails to start when the admin port is taken, leaving nothing listening', async () => {
    await expect(startKmock({ adminPort: kmock.adminPort })).rejects.toThrow(/EADDRINUSE/);
    expect((await http('GET', '/groups')).status).toBe(200);
  });

  it('reads groups, one group (decoded members), topics, connections, policies and faults', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    clients.push(c);
    await produce(c, 't', 0, 4);
    const j = await stableGroup(kmock.bootstrapServers, 'g/1 x', 'inst-a', { t: [0] });
    clients.push(j.client);

    const groups = await http('GET', '/groups');
    expect(groups).toEqual({ status: 200, json: [expect.objectContaining({ groupId: 'g/1 x', state: 'Stable', generationId: 1, members: 1 })] });
    const group = await http('GET', `/groups/${encodeURIComponent('g/1 x')}`);
    expect(group.status).toBe(200);
    expect(group.json.members[0]).toMatchObject({
      memberId: j.memberId,
      groupInstanceId: 'inst-a',
      subscription: { topics: ['t'] },
      assignment: { assignedPartitions: [{ topic: 't', partitions: [0] }] },
    });
    expect(group.json.rebalances).toHaveLength(1);
    const topics = await http('GET', '/topics');
    expect(topics.json.filter((t: { internal: boolean }) => !t.internal)).toEqual([expect.objectContaining({ name: 't', partitions: [expect.objectContaining({ partition: 0, logStartOffset: 0, logEndOffset: 4, highWatermark: 4, lastStableOffset: 4, segments: 1 })] })]);
    expect((await http('GET', '/connections')).json.length).toBeGreaterThanOrEqual(2);
    expect((await http('GET', '/policies')).json.broker['kip423-join-reasons']).toEqual({ enabled: false });
    expect((await http('GET', `/groups/${encodeURIComponent('g/1 x')}/policies`)).json['membership-modes']).toEqual({ enabled: false });
    expect(await http('GET', '/faults')).toEqual({ status: 200, json: { errors: [], latency: [], injected: [] } });
  });

  it('acts: policies, rebalance, member removal, the draft admin operations', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'act', 'inst-a', { t: [0] });
    clients.push(j.client);

    const put = await http('PUT', '/policies', { 'kip423-join-reasons': { enabled: true } });
    expect(put.status).toBe(200);
    expect(put.json['kip423-join-reasons']).toEqual({ enabled: true });
    const text = await http('PUT', '/policies', '"kip423-join-reasons=off"');
    expect(text.json['kip423-join-reasons']).toEqual({ enabled: false });
    const gp = await http('PUT', '/groups/act/policies', { 'membership-modes': true });
    expect(gp.json['membership-modes']).toEqual({ enabled: true });

    const st = await http('POST', '/groups/act/static-membership', { registrationTimeoutMs: 900000 });
    expect(st).toMatchObject({ status: 200, json: { groupId: 'act', errorCode: 0, mode: 'static' } });
    const dyn = await http('POST', '/groups/act/dynamic-membership');
    expect(dyn).toMatchObject({ status: 200, json: { errorCode: 0, mode: 'dynamic' } });
    const wrong = await http('POST', '/groups/act/dynamic-membership');
    expect(wrong.status).toBe(409);
    expect(wrong.json).toMatchObject({ error: expect.stringMatching(/WRONG_MEMBERSHIP_MODE/), result: { errorCode: expect.any(Number), mode: 'dynamic' } });
    expect((await http('POST', '/groups/act/static-membership')).status).toBe(200);
    const fsr = await http('POST', '/groups/act/force-static-rebalance');
    expect(fsr).toMatchObject({ status: 200, json: { errorCode: 0, mode: 'static' } });
    expect((await http('DELETE', '/groups/act/policies')).json['membership-modes']).toEqual({ enabled: false });

    const j2 = await stableGroup(kmock.bootstrapServers, 'act2', 'inst-b', { t: [0] });
    clients.push(j2.client);
    const rb = await http('POST', '/groups/act2/rebalance', { reason: 'from http' });
    expect(rb).toMatchObject({ status: 200, json: { rebalanced: true, errorCode: 0 } });
    const rm = await http('POST', '/groups/act2/members/remove', { groupInstanceIds: ['inst-b'], reason: 'bye' });
    expect(rm).toMatchObject({ status: 200, json: { groupId: 'act2', errorCode: 0, members: [{ groupInstanceId: 'inst-b', errorCode: 0, error: null }] } });
    expect((await http('GET', '/groups/act2')).json.members).toEqual([]);
  });

  it('acts: faults and connections', async () => {
    const inj = await http('POST', '/faults/errors', { apiKey: 'Metadata', errorCode: 'BROKER_NOT_AVAILABLE', count: 2 });
    expect(inj.json.errors).toEqual([{ apiKey: 3, api: 'Metadata', remaining: [{ code: 8, name: 'BROKER_NOT_AVAILABLE', count: 2 }] }]);
    const lat = await http('POST', '/faults/latency', { apiKey: 1, ms: 50 });
    expect(lat.json.latency).toEqual([{ apiKey: 1, api: 'Fetch', ms: 50 }]);
    const c = await RawClient.connect(kmock.bootstrapServers);
    c.clientId = 'doomed';
    clients.push(c);
    const md = await c.request(3, 9, createMetadataRequest({ topics: [{ name: 'x' }] as never }));
    expect(md.topics[0]!.errorCode).toBe(8);
    expect((await http('GET', '/faults')).json.injected).toEqual([{ apiKey: 3, api: 'Metadata', count: 1 }]);
    expect((await http('DELETE', '/faults')).json).toEqual({ errors: [], latency: [], injected: [] });

    expect(await http('POST', '/connections/drop', { clientId: 'doomed' })).toEqual({ status: 200, json: { dropped: 1 } });
    expect(await c.waitForClose()).toBe(true);
  });

  it('answers bad input with 4xx and a message; unknown routes 404, wrong methods 405', async () => {
    const cases: Array<[string, string, unknown, number]> = [
      ['GET', '/nope', undefined, 404],
      ['GET', '/groups/missing', undefined, 404],
      ['GET', '/groups/a/b/c', undefined, 404],
      ['POST', '/groups', undefined, 405],
      ['DELETE', '/topics', undefined, 405],
      ['PUT', '/policies', '{not json', 400],
      ['PUT', '/policies', { 'no-such-policy': true }, 400],
      ['PUT', '/policies', [1, 2], 400],
      ['PUT', '/groups/g/policies', undefined, 400],
      ['POST', '/groups/missing/rebalance', {}, 404],
      ['POST', '/groups/missing/rebalance', { reason: 5 }, 400],
      ['POST', '/groups/missing/rebalance', { why: 'x' }, 400],
      ['POST', '/groups/missing/members/remove', {}, 400],
      ['POST', '/groups/missing/static-membership', { registrationTimeoutMs: -1 }, 400],
      ['POST', '/groups/missing/static-membership', {}, 409], // membership-modes is off
      ['POST', '/groups/missing/dynamic-membership', { x: 1 }, 400],
      ['POST', '/faults/errors', { apiKey: 'Produce' }, 400],
      ['POST', '/faults/errors', { apiKey: 'Produce', errorCode: 'NOPE' }, 400],
      ['POST', '/faults/errors', { apiKey: 12345, errorCode: 6 }, 400],
      ['POST', '/faults/errors', '"just a string"', 400],
      ['POST', '/faults/latency', { apiKey: 0, ms: -5 }, 400],
      ['DELETE', '/faults', { all: true }, 400],
      ['POST', '/connections/drop', { clientId: 42 }, 400],
      ['GET', '/groups/%E0%A4%A', undefined, 400],
      ['GET', '/events?topic=x', undefined, 400],
    ];
    for (const [method, path, body, status] of cases) {
      const res = await http(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(typeof res.json.error, `${method} ${path}`).toBe('string');
    }
    const big = await http('PUT', '/policies', JSON.stringify({ pad: 'x'.repeat(70_000) }));
    expect(big.status).toBe(413);
    // Chunked, without a Content-Length: cut off while reading.
    const chunked = await fetch(`${kmock.adminUrl}/policies`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(8192)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: 'request body larger than 65536 bytes' });
    // Nothing was changed by any of it.
    expect((await http('GET', '/faults')).json).toEqual({ errors: [], latency: [], injected: [] });
    expect((await http('GET', '/policies')).json.broker['kip345-draft-errors']).toEqual({ enabled: false });
  });

  it("refuses what a web page can send: Origin null, a text/plain change, a cross-site fetch (the issue's attack installs no fault)", async () => {
    const attack = await fetch(kmock.adminUrl + '/faults/errors', { method: 'POST', headers: { origin: 'null', 'content-type': 'text/plain' }, body: JSON.stringify({ apiKey: 0, errorCode: 6 }) });
    expect(attack.status).toBe(403);
    const plain = await fetch(kmock.adminUrl + '/faults/errors', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ apiKey: 0, errorCode: 6 }) });
    expect(plain.status).toBe(415);
    const form = await fetch(kmock.adminUrl + '/faults/errors', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'apiKey=0&errorCode=6' });
    expect(form.status).toBe(415);
    expect((await http('GET', '/groups', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await http('GET', '/faults')).json).toMatchObject({ errors: [] });
  });

  it('off loopback it needs a token, and then every request must carry it', async () => {
    const { startAdminServer } = await import('../../../src/broker/control/http.js');
    await expect(startAdminServer(kmock.control, 0, '0.0.0.0')).rejects.toThrow(/needs a token/);
    const admin = await startAdminServer(kmock.control, 0, '0.0.0.0', { token: 's3cret' });
    try {
      const url = `http://127.0.0.1:${admin.port}/groups`;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    } finally {
      await admin.close();
    }
  });

  it('refuses browsers: a foreign Origin or a non-loopback Host gets 403', async () => {
    expect((await http('GET', '/groups', undefined, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await http('POST', '/faults/errors', { apiKey: 0, errorCode: 6 }, { origin: 'https://evil.example' })).status).toBe(403);
    // Host can only be set on a raw request (fetch forbids it).
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(kmock.adminPort!, '127.0.0.1', () => s.end('GET /groups HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n'));
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 403/);
    expect((await http('GET', '/groups', undefined, { origin: `http://127.0.0.1:${kmock.adminPort}` })).status).toBe(200);
    expect((await http('GET', '/faults')).json.errors).toEqual([]);
  });

  /** A raw HTTP/1.1 request (fetch forbids setting Host); the whole answer as text. */
  const raw = (text: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const s = connect(kmock.adminPort!, '127.0.0.1', () => s.end(text));
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });

  it("the issue's attack, as a raw request: Origin null, text/plain, POST /faults/errors → 403 with a JSON error, no fault", async () => {
    const body = JSON.stringify({ apiKey: 0, errorCode: 6, count: 5 });
    const out = await raw(`POST /faults/errors HTTP/1.1\r\nHost: 127.0.0.1:${kmock.adminPort}\r\nOrigin: null\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(out).toMatch(/^HTTP\/1\.1 403/);
    expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)).error).toMatch(/Origin null/);
    expect(kmock.control.faultsView().errors).toEqual([]);
    // Origin null is refused on reads too, and with a JSON body.
    expect((await http('GET', '/faults', undefined, { origin: 'null' })).status).toBe(403);
    expect((await http('POST', '/faults/errors', { apiKey: 0, errorCode: 6 }, { origin: 'null' })).status).toBe(403);
    expect(kmock.control.faultsView().errors).toEqual([]);
  });

  it("only the API's own origin passes: another port, https, localhost's other ports and same-site fetches are refused", async () => {
    const p = kmock.adminPort!;
    for (const origin of [`http://localhost:${p}`, `http://127.0.0.1:${p}`, `http://[::1]:${p}`]) {
      expect((await http('GET', '/groups', undefined, { origin })).status, origin).toBe(200);
    }
    for (const origin of [`http://localhost:${p + 1}`, `https://127.0.0.1:${p}`, 'http://localhost', `http://127.0.0.1:${p}/`, 'file://', `http://evil.example:${p}`]) {
      const r = await http('POST', '/faults/errors', { apiKey: 0, errorCode: 6 }, { origin });
      expect(r.status, origin).toBe(403);
      expect(r.json.error, origin).toMatch(/refused/);
    }
    expect((await http('GET', '/groups', undefined, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await http('GET', '/groups', undefined, { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await http('GET', '/groups', undefined, { 'sec-fetch-site': 'none' })).status).toBe(200);
    expect(kmock.control.faultsView().errors).toEqual([]);
  });

  it('on loopback the Host must be a loopback name with the port (DNS rebinding)', async () => {
    const p = kmock.adminPort!;
    const get = (host: string) => raw(`GET /groups HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`]) expect(await get(host), host).toMatch(/^HTTP\/1\.1 200/);
    for (const host of ['evil.example', `evil.example:${p}`, 'localhost', `127.0.0.1:${p + 1}`, `localhost.evil.example:${p}`]) {
      expect(await get(host), host).toMatch(/^HTTP\/1\.1 403/);
    }
  });

  it('changes need Content-Type: application/json; a body-less DELETE or POST may send none', async () => {
    const send = (method: string, path: string, type: string | undefined, body?: string) =>
      fetch(kmock.adminUrl + path, { method, headers: type === undefined ? {} : { 'content-type': type }, body });
    expect((await send('PUT', '/strict-clients', 'text/plain', '{"enabled": true}')).status).toBe(415);
    expect((await send('POST', '/clock/advance', 'multipart/form-data; boundary=x', '{"ms": 5}')).status).toBe(415);
    expect((await send('DELETE', '/faults', 'text/plain')).status).toBe(415);
    const bad = await send('POST', '/connections/drop', 'text/plain', '{}');
    expect(bad.status).toBe(415);
    expect(((await bad.json()) as { error: string }).error).toMatch(/application\/json/);
    expect((await send('PUT', '/strict-clients', 'application/json; charset=utf-8', '{"enabled": true}')).status).toBe(200);
    expect((await send('PUT', '/strict-clients', 'Application/JSON', '{"enabled": false}')).status).toBe(200);
    // The API has body-less changes (DELETE /faults, DELETE /groups/:id/policies, POST .../rebalance).
    expect((await send('DELETE', '/faults', undefined)).status).toBe(200);
    expect((await send('POST', '/strict-clients/reset', undefined)).status).toBe(200);
    // Reads need no content type.
    expect((await send('GET', '/faults', undefined)).status).toBe(200);
  });

  it('binds where told; a token makes every request carry it; a wrong one gets 401 with a JSON error', async () => {
    const { startAdminServer } = await import('../../../src/broker/control/http.js');
    await expect(startAdminServer(kmock.control, 0, '0.0.0.0', {})).rejects.toThrow(/not loopback.*needs a token/);
    await expect(startAdminServer(kmock.control, 0, '::')).rejects.toThrow(/needs a token/);
    const local = await startAdminServer(kmock.control, 0, '127.0.0.1', { token: 'tok' });
    try {
      expect(local.url).toBe(`http://127.0.0.1:${local.port}`);
      const r = await fetch(`${local.url}/faults/errors`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tokk' }, body: '{"apiKey": 0, "errorCode": 6}' });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await r.json()) as { error: string }).error).toMatch(/token/);
      expect((await fetch(`${local.url}/faults`, { headers: { authorization: 'Basic dG9r' } })).status).toBe(401);
      expect((await fetch(`${local.url}/faults`, { headers: { authorization: 'Bearer ' } })).status).toBe(401);
      expect((await fetch(`${local.url}/events`, { headers: { authorization: 'bearer x' } })).status).toBe(401);
      expect(kmock.control.faultsView().errors).toEqual([]);
      expect((await fetch(`${local.url}/faults`, { headers: { authorization: 'Bearer tok' } })).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  it('never serves secrets: no answer holds a configured password or key', async () => {
    const secret = 'pw-SECRET-9f3c';
    const k = await startKmock({ adminPort: 0, saslUsers: `alice:${secret}`, sslKeystorePassword: secret, sslKeyPassword: secret, sslTruststorePassword: secret } as never);
    try {
      for (const path of ['/groups', '/topics', '/policies', '/faults', '/clock', '/strict-clients', '/transactions', '/connections']) {
        const text = await (await fetch(k.adminUrl + path)).text();
        expect(text, path).not.toContain(secret);
      }
      const bad = await (await fetch(k.adminUrl + '/nope')).text();
      expect(bad).not.toContain(secret);
    } finally {
      await k.close();
    }
  });

  it('streams group events as server-sent events: a join\'s rebalance and a forced one, filtered by group', async () => {
    const all = await subscribe();
    const only = await subscribe('/events?group=sse');
    const j = await joinStatic(kmock.bootstrapServers, { groupId: 'sse', instanceId: 'a' });
    clients.push(j.client);
    const other = await joinStatic(kmock.bootstrapServers, { groupId: 'other', instanceId: 'b' });
    clients.push(other.client);
    await waitFor('the join rebalance', () => only.events.find((e) => e.event === 'rebalance-started'));
    expect(only.events.find((e) => e.event === 'rebalance-started')!.data).toMatchObject({
      type: 'rebalance-started',
      groupId: 'sse',
      trigger: 'member-joined',
      groupInstanceId: 'a',
      generationId: 0,
    });
    await waitFor('the other group on the unfiltered stream', () => all.events.some((e) => e.data.groupId === 'other'));
    expect(only.events.every((e) => e.data.groupId === 'sse')).toBe(true);

    // The group waits for the leader's SyncGroup (CompletingRebalance); a forced rebalance starts from there.
    const n = only.events.length;
    expect((await http('POST', '/groups/sse/rebalance', { reason: 'watch me' })).json).toMatchObject({ rebalanced: true });
    const forced = await waitFor('the forced rebalance', () =>
      only.events.slice(n).find((e) => e.event === 'rebalance-started' && e.data.trigger === 'admin-forced'),
    );
    expect(forced.data).toMatchObject({ groupId: 'sse', clientReason: 'watch me', generationId: 1 });
    expect(only.events.slice(n).map((e) => e.event)).toContain('state-changed');
    all.close();
    only.close();
  });

  it('close() ends event streams and stops listening', async () => {
    const s = await subscribe();
    const port = kmock.adminPort!;
    await kmock.close();
    s.close();
    const refused = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(false);
      });
      sock.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
