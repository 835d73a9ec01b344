// `kmock start` as a user runs it: a separate process that prints `listening on HOST:PORT` once
// it accepts connections, honours settings from flags, --set and a properties file, and exits 0
// on SIGINT or SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiVersionsRequest, createMetadataRequest, createDescribeConfigsRequest, encodeRequest } from '../../src/codec/index.js';
import { RawClient } from '../support/raw-client.js';

const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;
const BUILT = existsSync(new URL('../../dist/cli/main.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

/** Starts `kmock start ...args` and resolves with the port from its `listening on` line. */
function start(args: string[]): Promise<{ port: number; lines: string[] }> {
  child = spawn(process.execPath, [BIN, 'start', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; output: ${lines.join('\n')}`)), 15_000);
    let buf = '';
    child!.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        const m = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve({ port: Number(m[1]), lines });
        }
      }
    });
    child!.stderr!.on('data', (d: Buffer) => lines.push(`stderr: ${d}`));
    child!.once('exit', (code) => reject(new Error(`exited ${code}: ${lines.join('\n')}`)));
  });
}

function exitCode(p: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => p.once('exit', (code) => resolve(code)));
}

describe.skipIf(!BUILT)(`kmock start (needs dist/: npm run build)`, () => {
  it('prints the listening line first, serves, and exits 0 on SIGTERM', async () => {
    const { port, lines } = await start(['--log-level', 'info']);
    expect(lines[0]).toBe(`listening on 127.0.0.1:${port}`);
    const c = await RawClient.connect(`127.0.0.1:${port}`);
    const md = await c.request(3, 9, createMetadataRequest({ topics: null }));
    expect(md.brokers[0].port).toBe(port);
    c.close();
    const done = exitCode(child!);
    child!.kill('SIGTERM');
    expect(await done).toBe(0);
  });

  it('exits 0 on SIGINT', async () => {
    await start([]);
    const done = exitCode(child!);
    child!.kill('SIGINT');
    expect(await done).toBe(0);
  });

  it('takes settings from a properties file, --set and dedicated flags, in that order of precedence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-cli-'));
    const file = join(dir, 'broker.properties');
    writeFileSync(file, '# a Kafka-style file\nnum.partitions=3\ngroup.max.size=7\nauto.create.topics.enable=true\n');
    const { port } = await start(['--config', file, '--set', 'group.max.size=9', '--partitions', '5']);
    const c = await RawClient.connect(`127.0.0.1:${port}`);
    const res = await c.request(
      32,
      1,
      createDescribeConfigsRequest({
        resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['num.partitions', 'group.max.size'] }],
        includeSynonyms: false,
      }),
    );
    const values = Object.fromEntries(res.results[0].configs.map((cfg) => [cfg.name, cfg.value]));
    expect(values).toEqual({ 'num.partitions': '5', 'group.max.size': '9' });
    c.close();
  });

  it('--strict-clients: a warn line per finding, with the request, and the summary at shutdown', async () => {
    const { port, lines } = await start(['--strict-clients', '--log-level', 'warn']);
    const c = await RawClient.connect(`127.0.0.1:${port}`);
    // ApiVersions v2 with one stray 0 byte after its body (an empty tagged-field section)
    const frame = Buffer.concat([encodeRequest({ apiKey: 18, apiVersion: 2, correlationId: 5, clientId: 'cli-test' }, createApiVersionsRequest({})), Buffer.from([0])]);
    frame.writeInt32BE(frame.length - 4, 0);
    c.sendRaw(frame);
    await c.nextFrame();
    c.close();
    const done = exitCode(child!);
    child!.kill('SIGINT');
    expect(await done).toBe(0);
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
    expect(json.find((l) => l.msg === 'strict-clients: tagged-fields-in-non-flexible-version')).toMatchObject({
      level: 40,
      strictClients: { api: 'ApiVersions', apiVersion: 2, correlationId: 5, clientId: 'cli-test' },
    });
    expect(json.find((l) => l.msg === 'strict-clients summary: tagged-fields-in-non-flexible-version x1')).toMatchObject({ count: 1 });
  });

  it('refuses an unknown setting with one line on stderr and a non-zero exit', async () => {
    const p = spawn(process.execPath, [BIN, 'start', '--port', '0', '--set', 'no.such.setting=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exitCode(p)).not.toBe(0);
    expect(err.trim().split('\n')).toEqual(['kmock: unknown setting "no.such.setting"']);
  });
});
