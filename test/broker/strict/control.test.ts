// Strict-clients mode's switches and outputs: the control plane (on/off at run time, findings,
// reset, a listener), the HTTP API and `kmock admin strict-clients`, the warn line per finding and
// the summary lines at shutdown.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { createApiVersionsRequest } from '../../../src/codec/index.js';
import type { ClientFinding } from '../../../src/broker/strict/index.js';
import { runCli } from '../../support/cli.js';
import { RawClient } from '../../support/raw-client.js';
import { answerTo, frameOf, withTrailing } from './helpers.js';

let kmock: Kmock | undefined;
afterEach(async () => {
  await kmock?.close();
  kmock = undefined;
});

/** An ApiVersions v2 with one stray byte: a tagged-fields-in-non-flexible-version finding when on. */
async function strayByte(k: Kmock, correlationId: number): Promise<void> {
  const c = await RawClient.connect(k.bootstrapServers);
  try {
    const frame = withTrailing(frameOf(18, 2, correlationId, createApiVersionsRequest({})), Buffer.from([0]));
    expect(await answerTo(c, frame)).not.toBe('closed');
  } finally {
    c.close();
  }
}

describe('the control plane', () => {
  it('switches strict mode at run time, lists findings, tells listeners and resets', async () => {
    kmock = await startKmock();
    expect(kmock.control.strictClients()).toEqual({ enabled: false, total: 0, kinds: [] });
    await strayByte(kmock, 1);
    expect(kmock.control.strictClients().total).toBe(0);

    const heard: ClientFinding[] = [];
    const unsubscribe = kmock.control.subscribeStrictClients((f) => heard.push(f));
    expect(kmock.control.setStrictClients(true)).toMatchObject({ enabled: true, total: 0 });
    await strayByte(kmock, 2);
    await strayByte(kmock, 3);
    const view = kmock.control.strictClients();
    expect(view).toMatchObject({ enabled: true, total: 2, kinds: [{ kind: 'tagged-fields-in-non-flexible-version', count: 2, first: { correlationId: 2 } }] });
    expect(view.kinds[0]!.description).toMatch(/tagged-field section/);
    expect(view.kinds[0]!.kafka).toMatch(/Data\.read/);
    expect(heard.map((f) => f.correlationId)).toEqual([2, 3]);
    unsubscribe();

    expect(kmock.control.setStrictClients(false)).toMatchObject({ enabled: false, total: 2 });
    await strayByte(kmock, 4);
    expect(kmock.control.strictClients().total).toBe(2);
    expect(heard).toHaveLength(2);
    expect(kmock.control.resetStrictClients()).toEqual({ enabled: false, total: 0, kinds: [] });
    expect(() => kmock!.control.setStrictClients('yes' as unknown as boolean)).toThrow(/enabled must be true or false/);
  });

  it('a throwing listener does not disturb the request', async () => {
    kmock = await startKmock({ strictClients: true });
    kmock.control.subscribeStrictClients(() => {
      throw new Error('listener bug');
    });
    await strayByte(kmock, 1);
    expect(kmock.control.strictClients().total).toBe(1);
  });
});

describe('the HTTP API and kmock admin', () => {
  it('GET, PUT and POST reset /strict-clients; the admin command does the same', async () => {
    kmock = await startKmock({ adminPort: 0 });
    const url = kmock.adminUrl!;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, { method, headers: body === undefined ? undefined : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect(await call('GET', '/strict-clients')).toEqual({ status: 200, body: { enabled: false, total: 0, kinds: [] } });
    expect(await call('PUT', '/strict-clients', { enabled: true })).toMatchObject({ status: 200, body: { enabled: true } });
    await strayByte(kmock, 9);
    const got = await call('GET', '/strict-clients');
    expect(got.body).toMatchObject({ enabled: true, total: 1, kinds: [{ kind: 'tagged-fields-in-non-flexible-version', count: 1, first: { api: 'ApiVersions', correlationId: 9 } }] });
    expect(await call('PUT', '/strict-clients', { enabled: 'on' })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/enabled/) } });
    expect(await call('PUT', '/strict-clients', { enabled: true, extra: 1 })).toMatchObject({ status: 400 });

    const admin = (...args: string[]) => runCli(['admin', '--url', url, 'strict-clients', ...args]);
    const shown = await admin();
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ enabled: true, total: 1 });
    expect(JSON.parse((await admin('reset')).stdout)).toEqual({ enabled: true, total: 0, kinds: [] });
    expect(JSON.parse((await admin('off')).stdout)).toMatchObject({ enabled: false });
    expect(kmock.control.strictClients().enabled).toBe(false);
    expect(JSON.parse((await admin('on')).stdout)).toMatchObject({ enabled: true });
    // Findings as they are made: `strict-clients events --count 1` ends at the first one.
    // (Findings made before the stream is subscribed are not in it: send until one arrives.)
    let done = false;
    const watching = admin('events', '--count', '1', '--timeout-ms', '10000', '--type', 'tagged-fields-in-non-flexible-version').finally(() => (done = true));
    for (let id = 100; !done; id++) {
      await strayByte(kmock, id);
      await new Promise((r) => setTimeout(r, 20));
    }
    const watched = await watching;
    expect(watched.code).toBe(0);
    expect(watched.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(watched.stdout)).toMatchObject({ kind: 'tagged-fields-in-non-flexible-version', api: 'ApiVersions' });
    const bad = await admin('maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown strict-clients command "maybe"/);
  });

  it('GET /strict-clients/events streams each finding as a server-sent event named by its kind', async () => {
    kmock = await startKmock({ adminPort: 0, strictClients: true });
    const res = await fetch(`${kmock.adminUrl!}/strict-clients/events`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await readUntil(': subscribed');
    await strayByte(kmock, 5);
    await readUntil('event: tagged-fields-in-non-flexible-version');
    await readUntil('}\n\n');
    const data = /data: (.*)\n/.exec(text.slice(text.indexOf('event: tagged-fields')))![1]!;
    expect(JSON.parse(data)).toMatchObject({ kind: 'tagged-fields-in-non-flexible-version', api: 'ApiVersions', correlationId: 5 });
    await reader.cancel();
    expect((await fetch(`${kmock.adminUrl!}/strict-clients/events?x=1`)).status).toBe(400);
  });

  it('is a setting like any other (--set strictClients=true); kmock start --strict-clients: test/cli/start.test.ts', async () => {
    const { START_USAGE } = await import('../../../src/cli/start.js');
    expect(START_USAGE).toContain('--strict-clients');
    const { applySetting, DEFAULT_CONFIG } = await import('../../../src/broker/config.js');
    expect(DEFAULT_CONFIG.strictClients).toBe(false);
    const config = { ...DEFAULT_CONFIG };
    applySetting(config, 'strictClients', 'true');
    expect(config.strictClients).toBe(true);
  });
});

describe('the log', () => {
  it('a warn line per finding with the request, and a summary line per kind at shutdown', async () => {
    const lines: Array<Record<string, any>> = [];
    const logger = pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    kmock = await startKmock({ strictClients: true, logger });
    await strayByte(kmock, 5);
    await strayByte(kmock, 6);
    const warn = lines.filter((l) => l.msg === 'strict-clients: tagged-fields-in-non-flexible-version');
    expect(warn).toHaveLength(2);
    expect(warn[0]).toMatchObject({ level: 40, strictClients: { api: 'ApiVersions', apiVersion: 2, correlationId: 5, clientId: 'kmock-raw-client' } });
    await kmock.close();
    kmock = undefined;
    const summary = lines.filter((l) => String(l.msg).startsWith('strict-clients summary'));
    expect(summary).toEqual([
      expect.objectContaining({ level: 40, msg: 'strict-clients summary: tagged-fields-in-non-flexible-version x2', kind: 'tagged-fields-in-non-flexible-version', count: 2, first: expect.objectContaining({ correlationId: 5 }) }),
    ]);
  });

  it('no summary lines when nothing was found', async () => {
    const lines: Array<Record<string, any>> = [];
    const logger = pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    kmock = await startKmock({ strictClients: true, logger });
    await kmock.close();
    kmock = undefined;
    expect(lines.filter((l) => String(l.msg).startsWith('strict-clients'))).toEqual([]);
  });
});
