// Where kmock's time and memory go, for the broker benchmarks' targets (bench/broker/run.ts):
//
//   npx tsx bench/broker/profile.ts start [--runs N]     CPU profile of `kmock start` up to the first answer
//   npx tsx bench/broker/profile.ts produce [--messages N] [--batch N]  CPU profile of the broker during the kafkajs produce run
//   npx tsx bench/broker/profile.ts join [--runs N] [--delay MS] [--retry-ms MS] [--timeline]
//                                                        10 kafkajs consumers joining: times, and with --timeline
//                                                        every client request and broker group event
//   npx tsx bench/broker/profile.ts rss                  RSS / heap of a started kmock, and what each import adds
//   npx tsx bench/broker/profile.ts whatif [--runs N]    start time and idle RSS of the built kmock without its
//                                                        code cache, at --log-level info, as the earlier ES
//                                                        module bundle, and unbundled
//
// Profiles (.cpuprofile, open in Chrome DevTools) are kept in ${XDG_CACHE_HOME:-~/.cache}/kmock-bench/profiles/.
// Positions in kmock's compiled dist/ are mapped back to src/*.ts through the source maps.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import { bareSpec, buildKmock, CACHE_ROOT, cpuMsOf, kmockSpec, REPO, rssOf, spawnBroker, type KmockBuild, type SpawnSpec } from './peers.js';
import { probeApiVersions } from './wire.js';
import { kafkajsCreateTopic, produceRun } from './workloads.js';

const PROFILES = join(CACHE_ROOT, 'profiles');

// ---- .cpuprofile summaries -----------------------------------------------------------------------

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const maps = new Map<string, SourceMap | null>();
function mapPosition(url: string, line: number, col: number): string | null {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return null;
  let m = maps.get(url);
  if (m === undefined) {
    const file = fileURLToPath(url) + '.map';
    m = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    maps.set(url, m);
  }
  if (m === null) return null;
  const e = m.findEntry(line, col) as { originalSource?: string; originalLine?: number };
  if (!e.originalSource) return null;
  const src = e.originalSource.replace(/^.*?\/src\//, 'src/');
  return `${src}:${(e.originalLine ?? 0) + 1}`;
}

function where(f: CallFrame): string {
  if (f.url === '') return '';
  const mapped = mapPosition(f.url, f.lineNumber, f.columnNumber);
  if (mapped) return mapped;
  return f.url.replace(/^file:\/\/.*?\/node_modules\//, 'node_modules/').replace(/^file:\/\/.*?\/dist\//, 'dist/') + `:${f.lineNumber + 1}`;
}

/** Coarse owner of a frame: a src/ folder, an npm package, node internals, or a V8 pseudo-frame. */
function category(f: CallFrame): string {
  if (f.url === '') return f.functionName.startsWith('(') ? f.functionName : '(native)';
  if (f.url.startsWith('node:')) {
    if (/node:internal\/modules\//.test(f.url)) return 'node: module loader (resolve, load, compile, link)';
    if (/node:internal\/(bootstrap|main)\//.test(f.url)) return 'node: bootstrap';
    if (/node:(net|internal\/(stream|streams|net|tcp|timers|process|async_hooks)|stream|events|internal\/event)/.test(f.url)) return 'node: net/streams/events/timers';
    return 'node: other internals';
  }
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f.url);
  if (pkg) return `npm: ${pkg[1]}`;
  const mapped = mapPosition(f.url, f.lineNumber, f.columnNumber);
  if (mapped) {
    const file = mapped.replace(/:\d+$/, '');
    if (file.startsWith('src/codec/generated/')) return 'src/codec/generated/*';
    return file;
  }
  return f.url.replace(/^file:\/\/.*?\/dist\//, 'dist/');
}

interface Summary {
  totalMs: number;
  idleMs: number;
  byCategory: [string, number][];
  bySelf: [string, number][];
  /** Inclusive time of each module's top-level code (its evaluation). */
  moduleEval: [string, number][];
}

function summarize(p: CpuProfile, rootFn?: string): Summary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const cat = new Map<string, number>();
  const self = new Map<string, number>();
  const modEval = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(p.samples[i])!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    if (rootFn !== undefined) {
      let under = false;
      for (let j: number | undefined = leaf.id; j !== undefined; j = parent.get(j)) {
        if (byId.get(j)!.callFrame.functionName === rootFn) {
          under = true;
          break;
        }
      }
      if (!under) continue;
    }
    total += dt;
    const c = category(leaf.callFrame);
    cat.set(c, (cat.get(c) ?? 0) + dt);
    const label = `${leaf.callFrame.functionName || '(anonymous)'} ${where(leaf.callFrame)}`.trim();
    self.set(label, (self.get(label) ?? 0) + dt);
    // module top-levels on the stack (anonymous frame at line 0 of a file URL)
    const seen = new Set<string>();
    for (let j: number | undefined = leaf.id; j !== undefined; j = parent.get(j)) {
      const f = byId.get(j)!.callFrame;
      if (f.functionName === '' && f.lineNumber === 0 && f.url.startsWith('file://')) {
        const m = category(f) === 'src/codec/generated/*' ? 'src/codec/generated/* (each)' : where(f).replace(/:\d+$/, '');
        if (!seen.has(m)) {
          seen.add(m);
          modEval.set(m, (modEval.get(m) ?? 0) + dt);
        }
      }
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { totalMs: total, idleMs: idle, byCategory: sorted(cat), bySelf: sorted(self), moduleEval: sorted(modEval) };
}

function mergeSummaries(ss: Summary[]): Summary {
  const avg = (pick: (s: Summary) => [string, number][]) => {
    const m = new Map<string, number>();
    for (const s of ss) for (const [k, v] of pick(s)) m.set(k, (m.get(k) ?? 0) + v / ss.length);
    return [...m].sort((a, b) => b[1] - a[1]);
  };
  return {
    totalMs: ss.reduce((a, s) => a + s.totalMs, 0) / ss.length,
    idleMs: ss.reduce((a, s) => a + s.idleMs, 0) / ss.length,
    byCategory: avg((s) => s.byCategory),
    bySelf: avg((s) => s.bySelf),
    moduleEval: avg((s) => s.moduleEval),
  };
}

function printSummary(title: string, s: Summary, top = 25): void {
  const pct = (v: number) => `${((v / s.totalMs) * 100).toFixed(1).padStart(5)}%`;
  const row = (k: string, v: number) => `  ${v.toFixed(1).padStart(8)} ms ${pct(v)}  ${k}`;
  console.log(`\n## ${title}: ${s.totalMs.toFixed(1)} ms on the main thread (plus ${s.idleMs.toFixed(1)} ms idle)\n`);
  console.log('By owner (self time):');
  for (const [k, v] of s.byCategory.slice(0, top)) console.log(row(k, v));
  console.log('\nTop functions (self time):');
  for (const [k, v] of s.bySelf.slice(0, top)) console.log(row(k, v));
  if (s.moduleEval.length > 0 && s.moduleEval[0][1] > s.totalMs * 0.05) {
    console.log('\nModule top-level evaluation (inclusive):');
    for (const [k, v] of s.moduleEval.slice(0, 15)) console.log(row(k, v));
  }
}

function newestProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const file = join(dir, files.sort().pop()!);
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

function profiledSpec(build: KmockBuild, dir: string, extra: string[] = [], intervalUs = 100): SpawnSpec {
  const spec = kmockSpec(build, extra);
  return { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${intervalUs}`, ...spec.args] };
}

// ---- start ----------------------------------------------------------------------------------------

async function profileStart(build: KmockBuild, runs: number): Promise<void> {
  // One unprofiled run first: it writes the bundle's V8 code cache if the build has none yet
  // (--cpu-prof is a Node flag, not a V8 one, so the profiled runs accept that cache).
  const warm = await spawnBroker(kmockSpec(build));
  await probeApiVersions(warm.host, warm.port);
  await warm.stop();
  const summaries: Summary[] = [];
  for (let r = 0; r < runs; r++) {
    const dir = join(PROFILES, `start-${r}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const p = await spawnBroker(profiledSpec(build, dir));
    const a = await probeApiVersions(p.host, p.port);
    console.log(`run ${r + 1}: first answer after ${(a.answeredAt - p.spawnedAt).toFixed(1)} ms (profiled), CPU ${cpuMsOf(p.pid)} ms`);
    await p.stop();
    summaries.push(summarize(newestProfile(dir)));
  }
  printSummary(`kmock start → first answer, mean of ${runs} profiled runs`, mergeSummaries(summaries));
  console.log(`\nprofiles: ${PROFILES}/start-*`);
}

// ---- produce --------------------------------------------------------------------------------------

async function profileProduce(build: KmockBuild, messages: number, batchSize: number): Promise<void> {
  const dir = join(PROFILES, 'produce');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const p = await spawnBroker(profiledSpec(build, dir, [], 200));
  let cpu0 = 0;
  let cpu1 = 0;
  try {
    await kafkajsCreateTopic(p.bootstrap, 'bench-data', 1);
    const r = await produceRun(
      p.bootstrap,
      'bench-data',
      { messages, batchSize, valueBytes: 100, warmupBatches: 20 },
      { before: () => (cpu0 = cpuMsOf(p.pid)), after: () => (cpu1 = cpuMsOf(p.pid)) },
    );
    console.log(`produce: ${Math.round(r.msgsPerSec)} msgs/s (profiled), broker CPU ${(cpu1 - cpu0).toFixed(0)} ms for ${r.messages / batchSize} requests = ${(((cpu1 - cpu0) / (r.messages / batchSize)) * 1000).toFixed(0)} µs per request`);
  } finally {
    await p.stop();
  }
  const prof = newestProfile(dir);
  printSummary('kmock during the produce run (all non-idle samples, start-up included)', summarize(prof), 30);
  // Only what happens under the socket 'data' handler: the request path.
  printSummary('… of which under Connection.onData (request path)', summarize(prof, 'onData'), 30);
  console.log(`\nprofile: ${dir}`);
}

// ---- join -----------------------------------------------------------------------------------------

async function profileJoin(build: KmockBuild, runs: number, delayMs: number, timeline: boolean, retryMs?: number): Promise<void> {
  const { Kafka, logLevel } = kafkajs;
  // The broker logs every group event as a JSON line (pino, `time` in epoch ms) at debug level.
  const p = await spawnBroker({ ...kmockSpec(build), args: [build.bin, 'start', '--port', '0', '--log-level', 'debug', '--initial-rebalance-delay-ms', String(delayMs)] });
  const totals: number[] = [];
  const brokerLines: string[] = [];
  p.child.stdout!.on('data', (s: string) => brokerLines.push(...s.split('\n').filter(Boolean)));
  try {
    await kafkajsCreateTopic(p.bootstrap, 'bench-join', 10);
    for (let r = 0; r < runs; r++) {
      brokerLines.length = 0;
      const events: { t: number; who: string; what: string }[] = [];
      const kafka = new Kafka({
        clientId: 'bench-join',
        brokers: [p.bootstrap],
        logLevel: logLevel.NOTHING,
        ...(retryMs !== undefined ? { retry: { initialRetryTime: retryMs } } : {}),
      });
      const t0 = Date.now();
      const t0p = performance.now();
      const consumers = Array.from({ length: 10 }, () => kafka.consumer({ groupId: `profile-join-${r}` }));
      let joined = 0;
      const all = new Promise<void>((resolve) => {
        consumers.forEach((c, i) => {
          c.on(c.events.REQUEST, (e) => {
            if (['JoinGroup', 'SyncGroup', 'Heartbeat', 'FindCoordinator', 'Metadata'].includes(e.payload.apiName)) {
              events.push({ t: e.payload.createdAt - t0, who: `c${i}`, what: `${e.payload.apiName} sent (answered after ${e.payload.duration} ms)` });
            }
          });
          c.on(c.events.GROUP_JOIN, (e) => {
            events.push({ t: Date.now() - t0, who: `c${i}`, what: `GROUP_JOIN leader=${e.payload.isLeader} (kafkajs join+sync ${e.payload.duration} ms)` });
            if (++joined === 10) resolve();
          });
          void (async () => {
            await c.connect();
            events.push({ t: Date.now() - t0, who: `c${i}`, what: 'connected' });
            await c.subscribe({ topic: 'bench-join' });
            await c.run({ eachBatch: async () => {} });
          })();
        });
      });
      await all;
      const ms = performance.now() - t0p;
      await sleep(50);
      for (const l of brokerLines) {
        try {
          const j = JSON.parse(l) as { time?: number; msg?: string; group?: { type?: string; memberId?: string; generationId?: number; to?: string; trigger?: string } };
          if (j.msg === 'group event' && j.time !== undefined && j.group) {
            const g = j.group;
            events.push({ t: j.time - t0, who: 'broker', what: `${g.type}${g.to ? ` → ${g.to}` : ''}${g.generationId !== undefined ? ` gen ${g.generationId}` : ''}${g.trigger ? ` (${g.trigger})` : ''}` });
          }
        } catch {
          /* not JSON */
        }
      }
      events.sort((a, b) => a.t - b.t);
      const generations = events.filter((e) => e.what.startsWith('generation-bumped')).length;
      totals.push(ms);
      console.log(`run ${r + 1}: all 10 joined after ${ms.toFixed(0)} ms (${generations} generations)`);
      if (timeline) {
        console.log('');
        for (const e of events) console.log(`${String(e.t).padStart(6)} ms  ${e.who.padEnd(7)} ${e.what}`);
        console.log('');
      }
      await Promise.all(consumers.map((c) => c.disconnect()));
    }
    const sorted = [...totals].sort((a, b) => a - b);
    console.log(
      `initial delay ${delayMs} ms${retryMs !== undefined ? `, kafkajs initialRetryTime ${retryMs} ms` : ''}: median ${sorted[sorted.length >> 1].toFixed(0)} ms, min ${sorted[0].toFixed(0)}, max ${sorted[sorted.length - 1].toFixed(0)} over ${runs} runs`,
    );
  } finally {
    await p.stop();
  }
}

// ---- rss ------------------------------------------------------------------------------------------

function profileRss(build: KmockBuild): void {
  const steps: [string, string][] = [
    ['node -e (nothing imported)', ''],
    ['+ pino', 'pino'],
    ['+ @node-rs/crc32', '@node-rs/crc32'],
    ['+ snappy', 'snappy'],
    ['+ lz4-napi', 'lz4-napi'],
    ['+ @bokuweb/zstd-wasm', '@bokuweb/zstd-wasm'],
    ['+ dist/codec/index.js', './dist/codec/index.js'],
    ['+ dist/broker/server.js', './dist/broker/server.js'],
    ['+ dist/cli/main.js', './dist/cli/main.js'],
  ];
  const script = (mods: string[], start: boolean) => `
    import { readFileSync } from 'node:fs';
    import v8 from 'node:v8';
    for (const m of ${JSON.stringify(mods)}) await import(m);
    let k;
    if (${start}) { const { startKmock } = await import('./dist/broker/server.js'); k = await startKmock({ port: 0 }); }
    await new Promise((r) => setTimeout(r, 500));
    const st = readFileSync('/proc/self/status', 'utf8');
    const kb = (n) => Number(new RegExp(n + ':\\\\s+(\\\\d+)').exec(st)[1]) / 1024;
    const mu = process.memoryUsage();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, +(s.space_used_size / 1048576).toFixed(1)]));
    console.log(JSON.stringify({ rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), threads: kb('Threads') * 1024, heapTotal: mu.heapTotal / 1048576, heapUsed: mu.heapUsed / 1048576, external: mu.external / 1048576, spaces }));
    if (k) await k.close();`;
  const run = (mods: string[], start = false, flags: string[] = []) =>
    JSON.parse(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script(mods, start)], { cwd: join(build.dist, '..'), encoding: 'utf8' }).trim().split('\n').pop()!) as {
      rss: number;
      anon: number;
      file: number;
      threads: number;
      heapTotal: number;
      heapUsed: number;
      external: number;
      spaces: Record<string, number>;
    };
  console.log('\n## RSS of a fresh node process after importing (cumulative), 500 ms idle\n');
  console.log('| step | RSS MB | anon | file | threads | V8 heap total / used MB |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const mods: string[] = [];
  for (const [label, m] of steps) {
    if (m) mods.push(m);
    const r = run(mods);
    console.log(`| ${label} | ${r.rss.toFixed(1)} | ${r.anon.toFixed(1)} | ${r.file.toFixed(1)} | ${r.threads} | ${r.heapTotal.toFixed(1)} / ${r.heapUsed.toFixed(1)} |`);
  }
  const started = run(['./dist/cli/main.js'], true);
  console.log(`| + startKmock() listening | ${started.rss.toFixed(1)} | ${started.anon.toFixed(1)} | ${started.file.toFixed(1)} | ${started.threads} | ${started.heapTotal.toFixed(1)} / ${started.heapUsed.toFixed(1)} |`);
  for (const [label, m] of steps.slice(1)) {
    const r = run([m]);
    console.log(`| only ${label.slice(2)} | ${r.rss.toFixed(1)} | ${r.anon.toFixed(1)} | ${r.file.toFixed(1)} | ${r.threads} | ${r.heapTotal.toFixed(1)} / ${r.heapUsed.toFixed(1)} |`);
  }
  console.log(`\nV8 heap spaces used (MB) after startKmock(): ${JSON.stringify(started.spaces)}`);
  for (const flags of [['--max-semi-space-size=1'], ['--max-semi-space-size=1', '--max-old-space-size=64']]) {
    try {
      const r = run(['./dist/cli/main.js'], true, flags);
      console.log(`with ${flags.join(' ')}: RSS ${r.rss.toFixed(1)} MB (anon ${r.anon.toFixed(1)}, heap total ${r.heapTotal.toFixed(1)})`);
    } catch (e) {
      console.log(`with ${flags.join(' ')}: failed (${(e as Error).message.split('\n')[0]})`);
    }
  }
}

// ---- what if -------------------------------------------------------------------------------------

// The built kmock started in other ways, and copies of it changed in one way each, started like the
// real one (interleaved, with a bare Node server as the floor). The native libraries are not
// touched (they already load on first use).
const NATIVE_DEPS = ['snappy', 'lz4-napi', '@bokuweb/zstd-wasm', '@node-rs/crc32'];

interface Variant {
  name: string;
  /**
   * as-built: the build's own bin/kmock.js + dist/ (the CommonJS bundle and its V8 code cache);
   * none: dist/kmock.cjs removed, so bin/kmock.js imports the compiled modules; esm: an ES module
   * bundle (dist/kmock.mjs, minified, imported without a code cache), as builds before the code
   * cache made it.
   */
  bundle: 'as-built' | 'none' | 'esm';
  env?: Record<string, string>;
  /** Replaces `--log-level silent`. */
  logLevel?: string;
}

async function makeVariant(build: KmockBuild, v: Variant): Promise<KmockBuild> {
  if (v.bundle === 'as-built') return build;
  const dir = join(CACHE_ROOT, 'whatif', `${build.hash}-${v.name.replace(/[^a-z0-9]+/gi, '-')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const root = join(build.dist, '..');
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'bin', 'kmock.js'), join(dir, 'bin', 'kmock.js'));
  cpSync(build.dist, join(dir, 'dist'), { recursive: true });
  for (const f of readdirSync(join(dir, 'dist'))) if (f.startsWith('kmock.')) rmSync(join(dir, 'dist', f), { force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const dep of [...NATIVE_DEPS, 'pino']) {
    const target = join(dir, 'node_modules', dep);
    mkdirSync(join(target, '..'), { recursive: true });
    // pino's own dependencies resolve from its real path, so a symlink is enough.
    symlinkSync(join(REPO, 'node_modules', dep), target, 'dir');
  }
  if (v.bundle === 'esm') {
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: [join(dir, 'dist', 'cli', 'main.js')],
      outfile: join(dir, 'dist', 'kmock.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      external: NATIVE_DEPS,
      minify: true,
      banner: { js: "import { createRequire as __kmockCreateRequire } from 'node:module'; const require = __kmockCreateRequire(import.meta.url);" },
      logLevel: 'error',
    });
    writeFileSync(
      join(dir, 'bin', 'kmock.js'),
      `#!/usr/bin/env node
const { main } = await import(new URL('../dist/kmock.mjs', import.meta.url).href);
main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
`,
    );
  }
  return { ...build, bin: join(dir, 'bin', 'kmock.js'), dist: join(dir, 'dist') };
}

async function profileWhatIf(build: KmockBuild, runs: number): Promise<void> {
  rmSync(join(CACHE_ROOT, 'whatif'), { recursive: true, force: true });
  const hasBundle = existsSync(join(build.dist, 'kmock.cjs'));
  const variants: Variant[] = [
    { name: hasBundle ? 'as built (dist/kmock.cjs + V8 code cache)' : 'as built (compiled modules)', bundle: 'as-built' },
    ...(hasBundle
      ? ([
          { name: 'as built, KMOCK_CACHE=off (no code cache)', bundle: 'as-built', env: { KMOCK_CACHE: 'off' } },
          { name: 'as built, --log-level info (pino loaded)', bundle: 'as-built', logLevel: 'info' },
          { name: 'ES module bundle, no code cache (the earlier build)', bundle: 'esm' },
          { name: 'compiled modules, no bundle', bundle: 'none' },
        ] as Variant[])
      : []),
  ];
  const builds = await Promise.all(variants.map((v) => makeVariant(build, v)));
  const specs: SpawnSpec[] = [
    ...builds.map((b, i) => {
      const spec = kmockSpec(b);
      const v = variants[i];
      const args = v.logLevel === undefined ? spec.args : spec.args.map((a, k) => (spec.args[k - 1] === '--log-level' ? v.logLevel! : a));
      return { ...spec, args, env: v.env };
    }),
    bareSpec(),
  ];
  const names = [...variants.map((v) => v.name), 'bare node TCP server'];
  const wall: number[][] = specs.map(() => []);
  const cpu: number[][] = specs.map(() => []);
  const rss: number[][] = specs.map(() => []);
  for (const s of specs) {
    // one untimed run each (file cache; writes the code cache of a build that has none)
    const p = await spawnBroker(s);
    await probeApiVersions(p.host, p.port);
    await p.stop();
  }
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < specs.length; k++) {
      const i = (k + r) % specs.length;
      const p = await spawnBroker(specs[i]);
      try {
        const a = await probeApiVersions(p.host, p.port);
        wall[i].push(a.answeredAt - p.spawnedAt);
        cpu[i].push(cpuMsOf(p.pid));
        if (r < 3) {
          await sleep(1000);
          rss[i].push(rssOf(p.pid).rss);
        }
      } finally {
        await p.stop();
      }
    }
  }
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const bare = med(wall[specs.length - 1]);
  console.log(`\n## what if: ${runs} interleaved runs each, 1-minute load average ${loadavg()[0].toFixed(2)}\n`);
  console.log('| variant | start → first answer, median ms | ÷ bare Node | CPU by then, median ms | idle RSS after 1 s, median MB |');
  console.log('|---|---:|---:|---:|---:|');
  for (let i = 0; i < specs.length; i++) {
    console.log(`| ${names[i]} | ${med(wall[i]).toFixed(1)} | ${(med(wall[i]) / bare).toFixed(2)}× | ${med(cpu[i]).toFixed(0)} | ${med(rss[i]).toFixed(1)} |`);
  }
  console.log(`\ncopies: ${join(CACHE_ROOT, 'whatif')}`);
}

// ---- main -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const [what, ...rest] = process.argv.slice(2);
  const opt = (name: string, dflt: number) => {
    const i = rest.indexOf(name);
    return i >= 0 ? Number(rest[i + 1]) : dflt;
  };
  const dist = rest.includes('--kmock-dist') ? (rest[rest.indexOf('--kmock-dist') + 1] as 'cache' | 'repo') : 'cache';
  const build = buildKmock(dist);
  mkdirSync(PROFILES, { recursive: true });
  switch (what) {
    case 'start':
      return profileStart(build, opt('--runs', 5));
    case 'produce':
      return profileProduce(build, opt('--messages', 50_000), opt('--batch', 100));
    case 'join':
      return profileJoin(build, opt('--runs', 5), opt('--delay', 0), rest.includes('--timeline'), rest.includes('--retry-ms') ? opt('--retry-ms', 300) : undefined);
    case 'rss':
      return profileRss(build);
    case 'whatif':
      return profileWhatIf(build, opt('--runs', 9));
    default:
      console.log('usage: tsx bench/broker/profile.ts start|produce|join|rss|whatif [--runs N] [--messages N] [--kmock-dist cache|repo]');
      process.exitCode = 2;
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
