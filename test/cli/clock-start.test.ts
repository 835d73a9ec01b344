// `kmock start --clock manual --deterministic` as a user runs it, driven by `kmock admin clock`
// from a second process: the clock stands still at the deterministic epoch until advanced.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { DETERMINISTIC_EPOCH_MS } from '../../src/broker/config.js';
import { runKmock, spawnKmock } from '../support/kmock-process.js';
const START_JS = new URL('../../dist/cli/start.js', import.meta.url);
const BUILT = existsSync(START_JS) && readFileSync(START_JS, 'utf8').includes('deterministic');
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

async function admin(url: string, args: string[]): Promise<{ code: number | null; json: unknown; stderr: string }> {
  const r = await runKmock(['admin', '--url', url, ...args]);
  return { code: r.code, json: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr };
}

describe.skipIf(!BUILT)('kmock start --clock manual --deterministic (needs dist/: npm run build)', () => {
  it('starts at the deterministic epoch, moves only when `kmock admin clock` says, and logs on its clock', async () => {
    const started = await spawnKmock(['start', '--port', '0', '--admin-port', '0', '--clock', 'manual', '--deterministic', '--seed', '3'], /^admin API on (http:\/\/127\.0\.0\.1:\d+)$/);
    child = started.child;
    const { lines } = started;
    const url = started.match[1]!;
    const view = await admin(url, ['clock']);
    expect(view).toMatchObject({ code: 0, json: { mode: 'manual', speed: 0, now: DETERMINISTIC_EPOCH_MS } });
    expect(await admin(url, ['clock', 'advance', '1500'])).toMatchObject({ code: 0, json: { advancedMs: 1500, now: DETERMINISTIC_EPOCH_MS + 1500 } });
    expect(await admin(url, ['clock', 'run-until-idle'])).toMatchObject({ code: 0, json: { advancedMs: 0, fired: 0 } });
    expect(await admin(url, ['clock', 'set', '10x'])).toMatchObject({ code: 0, json: { mode: 'scaled', speed: 10 } });
    const bad = await admin(url, ['clock', 'set', 'fast']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/clock must be system, manual or a speed such as 10x/);
    expect((await admin(url, ['clock', 'advance'])).code).toBe(2);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The started line is stamped with the clock's time, and says how the clock runs.
    const startedLine = lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : undefined)).find((l) => l?.msg === 'kmock started');
    expect(startedLine).toMatchObject({ time: DETERMINISTIC_EPOCH_MS, clock: 'manual', deterministic: true, seed: 3 });
  });

  it('refuses a clock it does not know, before starting anything', async () => {
    const r = await runCli(['start', '--port', '0', '--clock', 'fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('kmock: --clock: clock must be system, manual or a speed such as 10x, got "fast"\n');
  });
});
