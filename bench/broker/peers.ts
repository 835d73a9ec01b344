// The broker processes the broker benchmarks talk to, and how they are built and started:
//
// - kmock, as a separate process: `node bin/kmock.js start --port 0 ...`. By default the current
//   src/ is built like `npm run build` does (tsc with tsconfig.build.json, then scripts/bundle.mjs
//   when it exists) into a private cache folder keyed by the hash of src/ + configs + scripts, so the numbers are for the code in the tree and a concurrent `npm run build`
//   (which rewrites dist/) cannot pull files out from under a running benchmark. `--kmock-dist repo`
//   uses the repo's own bin/kmock.js + dist/ instead.
// - librdkafka's mock cluster: bench/broker/rdkafka-mock.c, compiled with gcc against Debian's
//   librdkafka-dev into the same cache, keyed by the hash of the source (never committed).
// - a bare Node TCP server (`node -e "net.createServer()..."`), the floor for "process start to
//   first answer" on this machine.
//
// Every process prints `listening on HOST:PORT` once it accepts connections.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = join(HERE, '..', '..');
export const CACHE_ROOT = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kmock-bench');

function log(msg: string): void {
  process.stderr.write(`[bench/broker] ${msg}\n`);
}

function sha256(parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(typeof p === 'string' ? Buffer.from(p) : p);
    h.update('\0');
  }
  return h.digest('hex');
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Builds into `<final>.tmp-<pid>` and renames, so a concurrent run never sees half a build. */
function publish(tmp: string, final: string): void {
  try {
    renameSync(tmp, final);
  } catch (e) {
    // Someone else published the same hash meanwhile: theirs is as good as ours.
    if (existsSync(final)) rmSync(tmp, { recursive: true, force: true });
    else throw e;
  }
}

/** Keeps the `keep` most recent `<prefix><hash>` folders of the cache (src/ changes often). */
function pruneOldBuilds(prefix: string, keep: number): void {
  const dirs = readdirSync(CACHE_ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith(prefix) && !e.name.includes('.tmp-'))
    .map((e) => ({ path: join(CACHE_ROOT, e.name), mtime: statSync(join(CACHE_ROOT, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const d of dirs.slice(keep)) rmSync(d.path, { recursive: true, force: true });
}

// ---- librdkafka mock runner ----------------------------------------------------------------------

export interface RdkafkaBuild {
  bin: string;
  hash: string;
  built: boolean;
  librdkafkaVersion: string;
}

export function buildRdkafkaMock(): RdkafkaBuild {
  const src = join(HERE, 'rdkafka-mock.c');
  const source = readFileSync(src);
  const gccVersion = spawnSync('gcc', ['-dumpfullversion'], { encoding: 'utf8' }).stdout.trim();
  const flags = ['-O2', '-Wall', '-Wextra'];
  const libs = ['-lrdkafka'];
  const hash = sha256([source, gccVersion, flags.join(' '), libs.join(' ')]).slice(0, 16);
  const dir = join(CACHE_ROOT, `rdkafka-mock-${hash}`);
  const bin = join(dir, 'rdkafka-mock');
  let built = false;
  if (!existsSync(bin)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    log(`building ${relative(REPO, src)} -> ${bin}`);
    const r = spawnSync('gcc', [...flags, '-o', join(tmp, 'rdkafka-mock'), src, ...libs], { encoding: 'utf8' });
    if (r.status !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`gcc failed (is librdkafka-dev installed?):\n${r.stderr}`);
    }
    publish(tmp, dir);
    built = true;
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return { bin, hash, built, librdkafkaVersion: v.status === 0 ? v.stdout.trim() : 'unknown' };
}

// ---- kmock ---------------------------------------------------------------------------------------

export interface KmockBuild {
  /** bin/kmock.js to run with node. */
  bin: string;
  /** The dist/ folder (import `${dist}/index.js` for the in-process numbers). */
  dist: string;
  /** 'cache' (compiled from the current src/) or 'repo' (the repo's dist/). */
  source: 'cache' | 'repo';
  hash: string;
  built: boolean;
  /** tsc exited non-zero (type errors) but emitted; the numbers are still for the current src/. */
  tscErrors?: string;
}

/**
 * What `bin/kmock.js` runs: the esbuild bundle (CommonJS, compiled with a V8 code cache) when the
 * build made one, else the compiled modules' dist/cli/main.js.
 */
export function cliEntry(build: KmockBuild): string {
  const bundle = join(build.dist, 'kmock.cjs');
  return existsSync(bundle) ? bundle : join(build.dist, 'cli', 'main.js');
}

export function buildKmock(source: 'cache' | 'repo' = 'cache'): KmockBuild {
  if (source === 'repo') {
    const dist = join(REPO, 'dist');
    if (!existsSync(join(dist, 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` or use --kmock-dist cache');
    const newest = Math.max(...listFiles(join(REPO, 'src')).map((f) => statSync(f).mtimeMs));
    if (newest > statSync(join(dist, 'index.js')).mtimeMs) log('warning: src/ is newer than dist/ (dist is stale)');
    return { bin: join(REPO, 'bin', 'kmock.js'), dist, source, hash: 'repo-dist', built: false };
  }
  const inputs = [
    ...listFiles(join(REPO, 'src')),
    join(REPO, 'tsconfig.json'),
    join(REPO, 'tsconfig.build.json'),
    join(REPO, 'package.json'),
    join(REPO, 'bin', 'kmock.js'),
    ...(existsSync(join(REPO, 'bin', 'package.json')) ? [join(REPO, 'bin', 'package.json')] : []),
    ...(existsSync(join(REPO, 'scripts', 'bundle.mjs')) ? [join(REPO, 'scripts', 'bundle.mjs')] : []),
  ];
  const hash = sha256(inputs.flatMap((f) => [relative(REPO, f), readFileSync(f)])).slice(0, 16);
  const dir = join(CACHE_ROOT, `kmock-${hash}`);
  const result: KmockBuild = { bin: join(dir, 'bin', 'kmock.js'), dist: join(dir, 'dist'), source, hash, built: false };
  const marker = join(dir, 'build.json');
  if (existsSync(marker)) {
    const info = JSON.parse(readFileSync(marker, 'utf8')) as { tscErrors?: string };
    if (info.tscErrors) result.tscErrors = info.tscErrors;
    return result;
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'bin'), { recursive: true });
  log(`compiling src/ (hash ${hash}) -> ${dir} (tsc, about a minute)`);
  const t0 = performance.now();
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(
    process.execPath,
    [tsc, '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(tmp, 'dist'), '--declaration', 'false', '--incremental', 'false'],
    { encoding: 'utf8', cwd: REPO },
  );
  if (!existsSync(join(tmp, 'dist', 'cli', 'main.js'))) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`tsc emitted nothing:\n${r.stdout}\n${r.stderr}`);
  }
  let tscErrors: string | undefined;
  if (r.status !== 0) {
    tscErrors = (r.stdout + r.stderr).split('\n').filter(Boolean).slice(0, 5).join('\n');
    log(`warning: tsc reported errors (emitted anyway):\n${tscErrors}`);
  }
  // `npm run build` = tsc + scripts/bundle.mjs (dist/kmock.cjs, which bin/kmock.js prefers); the
  // bundle script works on ./dist, so it runs with the cache folder as its working directory.
  // bin/kmock.js writes the bundle's V8 code cache into that dist/ on the first run.
  symlinkSync(join(REPO, 'node_modules'), join(tmp, 'node_modules'), 'dir');
  const bundleScript = join(REPO, 'scripts', 'bundle.mjs');
  if (existsSync(bundleScript)) {
    const b = spawnSync(process.execPath, [bundleScript], { encoding: 'utf8', cwd: tmp });
    if (b.status !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`scripts/bundle.mjs failed:\n${b.stdout}\n${b.stderr}`);
    }
  }
  // The same shim as the repo's bin/kmock.js, next to a dist/ and a package.json ("type": "module"),
  // with node_modules linked to the repo's.
  copyFileSync(join(REPO, 'bin', 'kmock.js'), join(tmp, 'bin', 'kmock.js'));
  // bin/package.json makes bin/kmock.js CommonJS inside an ES-module package.
  if (existsSync(join(REPO, 'bin', 'package.json'))) copyFileSync(join(REPO, 'bin', 'package.json'), join(tmp, 'bin', 'package.json'));
  copyFileSync(join(REPO, 'package.json'), join(tmp, 'package.json'));
  writeFileSync(join(tmp, 'build.json'), JSON.stringify({ hash, from: REPO, at: new Date().toISOString(), tscErrors }, null, 2));
  publish(tmp, dir);
  log(`compiled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  pruneOldBuilds('kmock-', 4);
  result.built = true;
  if (tscErrors) result.tscErrors = tscErrors;
  return result;
}

// ---- processes -----------------------------------------------------------------------------------

export type BrokerKind = 'kmock' | 'rdkafka' | 'bare' | 'replay';

export interface BrokerProcess {
  kind: BrokerKind;
  child: ChildProcess;
  pid: number;
  host: string;
  port: number;
  bootstrap: string;
  /** performance.now() just before spawn(). */
  spawnedAt: number;
  /** performance.now() when the `listening on` line arrived. */
  listeningAt: number;
  /** The next stdout line (after `listening on`). */
  nextLine(timeoutMs?: number): Promise<string>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  stop(): Promise<void>;
}

export interface SpawnSpec {
  kind: BrokerKind;
  command: string;
  args: string[];
  cwd?: string;
  /** How to stop it: SIGTERM (kmock, bare) or closing stdin (the C runner; SIGTERM also works). */
  stopBy: 'sigterm' | 'stdin';
  /** Added to the benchmark's own environment. */
  env?: Record<string, string>;
}

/** Spawns and resolves once the process has printed `listening on HOST:PORT`. */
export function spawnBroker(spec: SpawnSpec, timeoutMs = 15_000): Promise<BrokerProcess> {
  const spawnedAt = performance.now();
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd ?? REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: spec.env === undefined ? process.env : { ...process.env, ...spec.env },
  });
  // Never leave a broker behind when the benchmark exits early (an error, a closed pipe).
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  let buffered = '';
  let stderr = '';
  const lines: string[] = [];
  let lineWaiter: ((l: string) => void) | undefined;
  return new Promise<BrokerProcess>((resolve, reject) => {
    let listening = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${spec.kind}: no "listening on" within ${timeoutMs} ms; stderr: ${stderr.slice(0, 2000)}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      if (!listening) {
        clearTimeout(timer);
        reject(new Error(`${spec.kind} exited (${code ?? signal}) before listening; stderr: ${stderr.slice(0, 2000)}`));
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      if (stderr.length < 100_000) stderr += s;
    });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (s: string) => {
      const now = performance.now();
      buffered += s;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!listening) {
          const m = /^listening on (\S+):(\d+)\s*$/.exec(line);
          if (!m) continue;
          listening = true;
          clearTimeout(timer);
          const host = m[1];
          const port = Number(m[2]);
          const exited = new Promise<void>((r) => {
            if (child.exitCode !== null || child.signalCode !== null) r();
            else child.once('exit', () => r());
          });
          resolve({
            kind: spec.kind,
            child,
            pid: child.pid!,
            host,
            port,
            bootstrap: `${host}:${port}`,
            spawnedAt,
            listeningAt: now,
            nextLine(ms = 10_000) {
              const l = lines.shift();
              if (l !== undefined) return Promise.resolve(l);
              return new Promise<string>((res, rej) => {
                const t = setTimeout(() => {
                  lineWaiter = undefined;
                  rej(new Error(`${spec.kind}: no output line within ${ms} ms`));
                }, ms);
                lineWaiter = (x) => {
                  clearTimeout(t);
                  lineWaiter = undefined;
                  res(x);
                };
              });
            },
            send(l: string) {
              child.stdin!.write(l + '\n');
            },
            async stop() {
              if (child.exitCode !== null || child.signalCode !== null) return;
              if (spec.stopBy === 'stdin') child.stdin!.end();
              else child.kill('SIGTERM');
              const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
              await exited;
              clearTimeout(killer);
            },
          });
        } else if (lineWaiter) {
          lineWaiter(line);
        } else {
          lines.push(line);
        }
      }
    });
  });
}

export function kmockSpec(build: KmockBuild, extraArgs: string[] = []): SpawnSpec {
  return {
    kind: 'kmock',
    command: process.execPath,
    args: [build.bin, 'start', '--port', '0', '--log-level', 'silent', ...extraArgs],
    stopBy: 'sigterm',
  };
}

export function rdkafkaSpec(build: RdkafkaBuild): SpawnSpec {
  return { kind: 'rdkafka', command: build.bin, args: ['--brokers', '1'], stopBy: 'stdin' };
}

/**
 * A bare Node TCP server: answers every request frame with a minimal ApiVersions v0-v2 response
 * (error 0, no APIs), so the same probe works against it.
 */
export const BARE_NODE_SCRIPT = [
  "const net = require('node:net');",
  'const s = net.createServer((c) => c.on("data", (d) => {',
  '  const r = Buffer.alloc(18); r.writeInt32BE(14, 0); r.writeInt32BE(d.readInt32BE(8), 4); c.write(r);',
  '}));',
  "s.listen(0, '127.0.0.1', () => console.log('listening on 127.0.0.1:' + s.address().port));",
  "process.on('SIGTERM', () => process.exit(0));",
].join('\n');

export function bareSpec(): SpawnSpec {
  return { kind: 'bare', command: process.execPath, args: ['-e', BARE_NODE_SCRIPT], stopBy: 'sigterm' };
}

/** Creates a topic on the librdkafka mock through the runner's stdin. */
export async function rdkafkaCreateTopic(p: BrokerProcess, topic: string, partitions: number): Promise<void> {
  p.send(`topic ${topic} ${partitions}`);
  const line = await p.nextLine();
  if (line !== `ok topic ${topic}`) throw new Error(`rdkafka mock: ${line}`);
}

/** VmRSS (and VmHWM) of a process, in MiB. */
export function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

let clkTck: number | undefined;
/** User + system CPU time of a process so far, in ms (from /proc/<pid>/stat; 1/CLK_TCK resolution). */
export function cpuMsOf(pid: number): number {
  clkTck ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / clkTck;
}
