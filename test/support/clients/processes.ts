// Real client processes (Python scripts, kcat) driven from the tests: each prints JSON lines on
// stdout, which are parsed as they arrive; every wait is bounded; every process is killed at the
// end of the test that started it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

/** The Debian python3, where python3-confluent-kafka and python3-kafka are installed. */
export const PYTHON = '/usr/bin/python3';

export function scriptPath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

/** Does `python3 -c "import <module>"` work? Returns undefined if so, else why not. */
export function pythonModuleMissing(module: string, debianPackage: string): string | undefined {
  const r = spawnSync(PYTHON, ['-c', `import ${module}`], { encoding: 'utf8', timeout: 20_000 });
  if (r.error) return `${PYTHON} not runnable (${r.error.message}); install ${debianPackage}`;
  if (r.status !== 0) return `Python module "${module}" is not importable by ${PYTHON}; install the Debian package ${debianPackage}`;
  return undefined;
}

/** Is `cmd` on PATH? */
export function commandMissing(cmd: string, debianPackage: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `"${cmd}" is not on PATH; install the Debian package ${debianPackage}`;
}

export type JsonEvent = Record<string, unknown> & { event?: string };

/** One spawned process whose stdout is JSON lines. */
export class ClientProcess {
  readonly events: JsonEvent[] = [];
  readonly otherStdout: string[] = [];
  stderr = '';
  exitCode: number | null = null;
  signal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private partial = '';

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    stdin?: string,
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.signal = signal;
        resolve();
      });
      this.child.once('error', (err) => {
        this.stderr += `spawn error: ${err.message}\n`;
        resolve();
      });
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      if (this.stderr.length > 200_000) this.stderr = this.stderr.slice(-100_000);
    });
    if (stdin !== undefined) this.child.stdin!.end(stdin);
    else this.child.stdin!.end();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === null && this.signal === null;
  }

  private onStdout(text: string): void {
    this.partial += text;
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) >= 0) {
      const line = this.partial.slice(0, nl).trim();
      this.partial = this.partial.slice(nl + 1);
      if (line === '') continue;
      if (line.startsWith('{')) {
        try {
          this.events.push(JSON.parse(line) as JsonEvent);
          continue;
        } catch {
          // fall through: not JSON after all
        }
      }
      this.otherStdout.push(line);
    }
  }

  ofType(event: string): JsonEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  /** Waits for an event matching `pred` at index >= `from`; fails early if the process exits first. */
  async waitForEvent(what: string, pred: (e: JsonEvent) => boolean, timeoutMs = 20_000, from = 0): Promise<JsonEvent> {
    return waitFor(`${this.name}: ${what}`, () => {
      const found = this.events.slice(from).find(pred);
      if (found) return found;
      if (!this.running) throw new Error(`${this.name} exited (code ${this.exitCode}, signal ${this.signal}) before ${what}; stderr: ${this.stderr.slice(-2000)}`);
      return undefined;
    }, timeoutMs);
  }

  /** Waits for the process to exit by itself. */
  async waitForExit(timeoutMs = 20_000): Promise<number | null> {
    await waitFor(`${this.name} to exit`, () => !this.running, timeoutMs);
    return this.exitCode;
  }

  /** Sends `signal` and waits (bounded) for the exit; escalates to SIGKILL. Never throws. */
  async kill(signal: NodeJS.Signals = 'SIGKILL', graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    const timedOut = await Promise.race([this.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), graceMs))]);
    if (timedOut && this.running) {
      this.child.kill('SIGKILL');
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 2000))]);
    }
  }

  /** A summary for failure messages. */
  describe(): string {
    return `--- ${this.name} (pid ${this.pid}, exit ${this.exitCode}/${this.signal}) ---\nstdout events:\n${this.events
      .map((e) => JSON.stringify(e))
      .join('\n')}\nstderr (tail):\n${this.stderr.slice(-3000)}`;
  }
}

/** Every process a test started; `killAll` in afterEach. */
export class ProcessSet {
  private readonly all: ClientProcess[] = [];

  start(name: string, command: string, args: string[], stdin?: string): ClientProcess {
    const p = new ClientProcess(name, command, args, stdin);
    this.all.push(p);
    return p;
  }

  python(name: string, script: string, args: string[], stdin?: string): ClientProcess {
    return this.start(name, PYTHON, [scriptPath(script), ...args], stdin);
  }

  describeAll(): string {
    return this.all.map((p) => p.describe()).join('\n');
  }

  async killAll(): Promise<void> {
    await Promise.all(this.all.map((p) => p.kill('SIGKILL', 3000)));
    this.all.length = 0;
  }
}

/** Runs a command to completion (bounded) and returns its output. */
export async function run(
  command: string,
  args: string[],
  { stdin, timeoutMs = 30_000 }: { stdin?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}
