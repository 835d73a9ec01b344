// `kmock` as a user runs it: a child process of bin/kmock.js, for the CLI tests that need a real
// second process (a broker started by `kmock start`, driven by `kmock admin`).
import { spawn, type ChildProcess } from 'node:child_process';

export const BIN = new URL('../../bin/kmock.js', import.meta.url).pathname;

export interface StartedKmock {
  child: ChildProcess;
  /** Every stdout line so far (more arrive while it runs). */
  lines: string[];
  /** The groups of `until`'s match on the line that ended the wait. */
  match: RegExpExecArray;
}

/** Spawns `kmock ...args` and resolves once a stdout line matches `until` (rejects after 15 s or on exit). */
export function spawnKmock(args: string[], until: RegExp): Promise<StartedKmock> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${until}; output: ${lines.join('\n')}`)), 15_000);
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        const m = until.exec(lines[lines.length - 1]!);
        if (m) {
          clearTimeout(timer);
          resolve({ child, lines, match: m });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${lines.join('\n')}`)));
  });
}

/** Runs `kmock ...args` to its end. */
export function runKmock(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
