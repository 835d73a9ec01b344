// `kmock start --policy TEXT`: the draft policies from the command line, in the text form of a
// properties file's `policies=` line, merged over the file's and --set's (later entries win);
// `--help` names every policy. In-process (startCommand with a fake io and signal emitter) for the
// rules, and once as a separate process, as a user runs it.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLICY_NAMES } from '../../src/broker/group/policies/types.js';
import { startCommand } from '../../src/cli/start.js';
import { runCli } from '../support/cli.js';

/** Runs `kmock start ARGS --port 0 --admin-port 0` in-process; GET /policies; stops it with SIGINT. */
async function brokerPolicies(args: string[]): Promise<Record<string, Record<string, unknown>>> {
  const signals = new EventEmitter();
  let out = '';
  let announced: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (announced = resolve));
  const io = {
    stdout: (s: string) => {
      out += s;
      const m = /admin API on (\S+)/.exec(out);
      if (m) announced(m[1]!);
    },
    stderr: () => undefined,
    readStdin: async () => '',
  };
  const exit = startCommand(['--port', '0', '--admin-port', '0', '--log-level', 'silent', ...args], io, signals);
  // startCommand resolves only at shutdown; a refused argument rejects before the admin line.
  const base = await Promise.race([url, exit.then(() => Promise.reject(new Error(`exited early: ${out}`)))]);
  try {
    const res = await fetch(`${base}/policies`);
    return ((await res.json()) as { broker: Record<string, Record<string, unknown>> }).broker;
  } finally {
    signals.emit('SIGINT');
    expect(await exit).toBe(0);
  }
}

describe('kmock start --policy', () => {
  it('turns policies on, with timeouts, in the properties-file text form', async () => {
    const p = await brokerPolicies(['--policy', 'kip345-draft-errors,registration-timeout=15m']);
    expect(p['kip345-draft-errors']).toEqual({ enabled: true });
    expect(p['registration-timeout']).toEqual({ enabled: true, registrationTimeoutMs: 900_000 });
    expect(p['expansion-timeout']!.enabled).toBe(false);
    expect(p['membership-modes']!.enabled).toBe(false);
  });

  it('is repeatable, space-separated entries work, later ones win', async () => {
    const p = await brokerPolicies(['--policy', 'all', '--policy', 'membership-modes=off expansion-timeout=30s']);
    expect(p['kip423-join-reasons']).toEqual({ enabled: true });
    expect(p['membership-modes']).toEqual({ enabled: false });
    expect(p['expansion-timeout']).toEqual({ enabled: true, expansionTimeoutMs: 30_000 });
  });

  it('is merged over a properties file and --set policies=', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-policy-'));
    try {
      const file = join(dir, 'server.properties');
      writeFileSync(file, 'policies=expansion-timeout=30s membership-modes\n');
      const p = await brokerPolicies(['--config', file, '--set', 'policies=kip423-join-reasons', '--policy', 'membership-modes=off']);
      expect(p['expansion-timeout']).toEqual({ enabled: true, expansionTimeoutMs: 30_000 });
      expect(p['kip423-join-reasons']).toEqual({ enabled: true });
      expect(p['membership-modes']).toEqual({ enabled: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown policy or a bad timeout with one line naming the policies, exit 2', async () => {
    const bad = await runCli(['start', '--port', '0', '--policy', 'no-such-policy']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`kmock: --policy unknown policy "no-such-policy" (policies: ${POLICY_NAMES.join(', ')}, or all/none)\n`);
    const timeout = await runCli(['start', '--port', '0', '--policy', 'registration-timeout=soon']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/^kmock: --policy "soon" is not a duration/);
  });

  it('--help names every policy and the text form', async () => {
    const r = await runCli(['start', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--policy TEXT/);
    for (const name of POLICY_NAMES) expect(r.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(r.stdout).toContain('registration-timeout=15m');
    expect(r.stdout).toContain('docs/policies.md');
  });
});

const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;
const START_JS = new URL('../../dist/cli/start.js', import.meta.url);

describe.skipIf(!existsSync(START_JS))('kmock start --policy as a process (needs dist/: npm run build)', () => {
  it('starts with the policies instead of refusing the flag', async () => {
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--log-level', 'info', '--policy', 'kip423-join-reasons'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}${err}`)), 15_000);
        child.stdout.on('data', (d) => {
          out += d;
          if (/^listening on /m.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then((code) => reject(new Error(`exited ${code}: ${out}${err}`)));
      });
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(err).toBe('');
  });
});
