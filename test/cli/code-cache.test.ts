// bin/kmock.js compiles the bundled CLI (dist/kmock.cjs) with a V8 code cache: written after a
// run without a usable one, reused by the next, rewritten when it does not fit, never written
// with KMOCK_CACHE=off, and never a reason for the command to fail.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;
const BUNDLED = existsSync(new URL('../../dist/kmock.cjs', import.meta.url));

function kmock(cache: string, args: string[] = ['--help']): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, KMOCK_CACHE: cache }, timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function cacheFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.v8cache'));
}

describe.skipIf(!BUNDLED)('the V8 code cache of the bundled CLI', () => {
  it('is written by a first run and reused, unchanged, by the next', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-cache-'));
    const first = kmock(dir);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('usage:');
    const files = cacheFiles(dir);
    expect(files).toEqual([`kmock.cjs.${process.version}-${process.arch}.v8cache`]);
    const file = join(dir, files[0]);
    expect(readFileSync(file).toString('latin1', 0, 15)).toBe('kmock-v8-cache ');
    const written = statSync(file).mtimeMs;

    const second = kmock(dir);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(statSync(file).mtimeMs).toBe(written); // accepted by V8: not rewritten
  });

  it('is rewritten when it belongs to another build, and the command still works', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-cache-'));
    const file = join(dir, `kmock.cjs.${process.version}-${process.arch}.v8cache`);
    writeFileSync(file, 'kmock-v8-cache 1 0000000000000000 v0 x\nnot bytecode');
    const r = kmock(dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage:');
    expect(readFileSync(file).toString('latin1').startsWith('kmock-v8-cache 1 0000000000000000')).toBe(false);
  });

  it('is neither read nor written with KMOCK_CACHE=off', () => {
    const home = mkdtempSync(join(tmpdir(), 'kmock-home-'));
    const r = spawnSync(process.execPath, [BIN, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, KMOCK_CACHE: 'off', XDG_CACHE_HOME: home },
      timeout: 20_000,
    });
    expect(r.status).toBe(0);
    expect(readdirSync(home)).toEqual([]);
  });

  it('does not make the command fail when its directory cannot be written', () => {
    const r = kmock('/proc/kmock-cannot-write-here');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage:');
  });
});
