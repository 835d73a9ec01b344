// Running out of file descriptors is said, not silent: a `kmock start` under `ulimit -n 64`
// receives more connections than it can hold. libuv closes the ones past the limit as soon as they
// open (no error reaches Node), so kmock's own count must notice and log one line with the limit.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BIN } from '../../support/kmock-process.js';

describe.skipIf(process.platform !== 'linux')('out of file descriptors', () => {
  it('logs one line naming the limit, and keeps serving the connections it has', async () => {
    const child = spawn('bash', ['-c', `ulimit -n 64 && exec "${process.execPath}" "${BIN}" start --port 0 --log-level warn`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
          if (m) {
            clearTimeout(t);
            resolve(Number(m[1]));
          }
        });
      });
      const sockets: Socket[] = [];
      for (let i = 0; i < 100; i++) {
        const s = connect({ port, host: '127.0.0.1' });
        s.on('error', () => undefined);
        sockets.push(s);
      }
      await new Promise((r) => setTimeout(r, 1500));
      const lines = out.split('\n').filter((l) => l.includes('out of file descriptors'));
      expect(lines.length).toBe(1);
      expect(JSON.parse(lines[0]).openFilesLimit).toBe(64);
      for (const s of sockets) s.destroy();
    } finally {
      child.kill('SIGTERM');
    }
  }, 40_000);
});
