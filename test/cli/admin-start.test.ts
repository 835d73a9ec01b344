// `kmock start --admin-port` as a user runs it: the admin API's URL is printed after the listening
// line, `kmock admin` (a second process) drives it, and the broker still exits 0 on SIGTERM.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { runKmock as run, spawnKmock } from '../support/kmock-process.js';
const START_JS = new URL('../../dist/cli/start.js', import.meta.url);
/** dist/ must be built from sources that know --admin-port. */
const BUILT = existsSync(START_JS) && readFileSync(START_JS, 'utf8').includes('admin-port');
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

describe.skipIf(!BUILT)('kmock start --admin-port (needs dist/: npm run build)', () => {
  it('prints the admin URL, serves `kmock admin`, and exits 0 on SIGTERM', async () => {
    const started = await spawnKmock(['start', '--port', '0', '--admin-port', '0', '--log-level', 'silent'], /^admin API on (http:\/\/127\.0\.0\.1:\d+)$/);
    child = started.child;
    const { lines } = started;
    const url = started.match[1]!;
    expect(lines[0]).toMatch(/^listening on 127\.0\.0\.1:\d+$/);

    const groups = await run(['admin', '--url', url, 'groups']);
    expect(groups).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    const bad = await run(['admin', '--url', url, 'latency', 'Fetch', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^kmock: MS must be an integer[^\n]*\n$/);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('kmock start --admin-port: bad values', () => {
  it('refuses a port that is not a number or out of range, before starting anything', async () => {
    for (const bad of ['eighty', '1.5', '65536', '']) {
      const r = await runCli(['start', '--port', '0', '--admin-port', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toBe(`kmock: --admin-port must be a port number (0-65535), got "${bad}"\n`);
    }
  });
});
