// The README's quick start, in a clone of this repository: `npm start` runs `kmock start` (npx
// does not resolve a package's own bin), which prints its listening line, and Ctrl-C (SIGINT to
// the terminal's process group) stops it with exit code 0. `npm install` and `npm test`, the
// other two commands, are what .ci/run itself runs.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const BUILT = existsSync(new URL('../../dist/cli/start.js', import.meta.url));

describe('the quick start', () => {
  it('README.md shows npm install && npm start, then npm test; package.json runs kmock start', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const quick = /## Quick start\n[\s\S]*?```sh[^\n]*\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(quick.split('\n').filter(Boolean).map((l) => l.replace(/\s+#.*$/, ''))).toEqual(['npm install && npm start', 'npm test']);
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node bin/kmock.js start');
  });

  it.skipIf(!BUILT)('npm start serves until Ctrl-C, then stops (needs dist/: npm run build)', async () => {
    const npm = spawn('npm', ['start', '-s', '--', '--port', '0', '--log-level', 'silent'], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (out += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
        npm.stdout.on('data', () => {
          if (/^listening on 127\.0\.0\.1:\d+$/m.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then((e) => reject(new Error(`npm start exited ${e.code ?? e.signal}: ${out}`)));
      });
    } finally {
      process.kill(-npm.pid!, 'SIGINT'); // what Ctrl-C sends: the whole foreground process group
    }
    // npm itself ends by the SIGINT (or with 0); the broker under it must be gone: its port closed.
    const e = await exited;
    expect(e.code === 0 || e.signal === 'SIGINT', `npm start ended with ${e.code ?? e.signal}: ${out}`).toBe(true);
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(out)![1]);
    const refused = async (): Promise<boolean> =>
      new Promise((resolve) => {
        const s = connect({ host: '127.0.0.1', port });
        s.once('connect', () => (s.destroy(), resolve(false)));
        s.once('error', () => resolve(true));
      });
    for (let i = 0; i < 50 && !(await refused()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await refused(), 'the broker still listens after Ctrl-C').toBe(true);
  }, 30_000);
});
