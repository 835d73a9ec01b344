// `kmock start --clock manual --deterministic` as a user runs it, driven by `kmock admin clock`
// from a second process: the clock stands still at the deterministic epoch until advanced.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { DETERMINISTIC_EPOCH_MS } from '../../src/broker/config.js';

const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;
const START_JS = new URL('../../dist/cli/start.js', import.meta.url);
const BUILT = existsSync(START_JS) && readFileSync(START_JS, 'utf8').includes('deterministic');
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

function admin(url: string, args: string[]): Promise<{ code: number | null; json: unknown; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'admin', '--url', url, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code, json: stdout ? JSON.parse(stdout) : undefined, stderr }));
  });
}

describe.skipIf(!BUILT)('kmock start --clock manual --deterministic (needs dist/: npm run build)', () => {
  it('starts at the deterministic epoch, moves only when `kmock admin clock` says, and logs on its clock', async () => {
    child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--admin-port', '0', '--clock', 'manual', '--deterministic', '--seed', '3'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no admin line; output: ${lines.join('\n')}`)), 15_000);
      let buf = '';
      child!.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
          const m = /^admin API on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[lines.length - 1]!);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        }
      });
      child!.once('exit', (code) => reject(new Error(`exited ${code}: ${lines.join('\n')}`)));
    });
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
    const started = lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : undefined)).find((l) => l?.msg === 'kmock started');
    expect(started).toMatchObject({ time: DETERMINISTIC_EPOCH_MS, clock: 'manual', deterministic: true, seed: 3 });
  });

  it('refuses a clock it does not know, before starting anything', async () => {
    const r = await runCli(['start', '--port', '0', '--clock', 'fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('kmock: --clock: clock must be system, manual or a speed such as 10x, got "fast"\n');
  });
});
