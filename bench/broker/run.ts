// Broker benchmarks: kmock against librdkafka's own mock cluster, in the same run, interleaved.
//
//   npx tsx bench/broker/run.ts            full run  → bench/results/broker.md
//   npx tsx bench/broker/run.ts --quick    smoke run, printed only (not for quoting)
//   npx tsx bench/broker/run.ts --only start [--start-runs 30]   only part 1 below, printed only
//
// Options: --out FILE, --kmock-dist cache|repo (default cache: build the current src/ like `npm run build` into
// ${XDG_CACHE_HOME:-~/.cache}/kmock-bench/; repo: use bin/kmock.js with the repo's dist/),
// --start-runs N, --reps N, --messages N, --joins N, --kafka VERSION.
//
// Measured, for kmock (a separate `node bin/kmock.js start --port 0 --log-level silent` process)
// and librdkafka's mock cluster (bench/broker/rdkafka-mock.c, 1 broker):
//  1. process start → first ApiVersions answer (spawn, read `listening on`, connect, send, receive),
//     median and p90; a bare `node -e "net.createServer()..."` as the floor; kmock in-process too;
//  2. kafkajs producer msgs/s (acks=1, sequential sends of one batch each), then one kafkajs
//     consumer reading everything back, msgs/s from its GROUP_JOIN to the last message;
//  3. time from starting 10 kafkajs consumers of one group until all 10 have emitted GROUP_JOIN
//     (kmock with group.initial.rebalance.delay.ms=0; librdkafka 2.0.2's mock has a fixed 3000 ms
//     first-join delay that cannot be changed);
//  4. VmRSS of the broker process: idle after start, after the produce run, at the end.
// Ratios are kmock / librdkafka mock from numbers of this one run. Two references put the produce
// and join targets in scale: the produce workload against the replay broker (replay.ts: answers
// recorded from kmock, replayed at no cost: the most any broker can give this client), and with
// --kafka VERSION the produce and join workloads against Apache Kafka itself (initial delay 0).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, release, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import {
  bareSpec,
  buildKmock,
  buildRdkafkaMock,
  CACHE_ROOT,
  cliEntry,
  cpuMsOf,
  kmockSpec,
  rdkafkaCreateTopic,
  rdkafkaSpec,
  REPO,
  rssOf,
  spawnBroker,
  type BrokerProcess,
  type KmockBuild,
  type SpawnSpec,
} from './peers.js';
import { probeApiVersions } from './wire.js';
import { buildReplayBroker, freePort, recordResponses, replayNodeSpecOf, replaySpec } from './replay.js';
import {
  consumeRun,
  joinRun,
  kafkajsCreateTopic,
  produceOnFreshBroker,
  produceRun,
  retainedMessages,
  type JoinResult,
  type ProduceOptions,
  type ProduceSample,
} from './workloads.js';

interface Args {
  quick: boolean;
  /** Only part 1 (start → first answer, its breakdown, in-process start): no workloads; written only with --out. */
  onlyStart: boolean;
  out?: string;
  kmockDist: 'cache' | 'repo';
  startRuns: number;
  reps: number;
  messages: number;
  joins: number;
  /** Also run the produce and join workloads against this Apache Kafka release (scripts/kafka-reference). */
  kafka?: string;
}

/** The produce workload alone against a replay broker (it can answer nothing else usefully). */
async function replayProduceOnce(spec: SpawnSpec, tag: string, rep: number, produceOpts: ProduceOptions): Promise<ProduceSample> {
  const s = await produceOnFreshBroker(spec, DATA_TOPIC, produceOpts);
  progress(`${tag}#${rep + 1}: produce ${Math.round(s.msgsPerSec)} msgs/s (broker CPU ${s.brokerCpuPerK.toFixed(1)} ms per 1,000 messages)`);
  return s;
}

function parseArgs(argv: string[]): Args {
  const quick = argv.includes('--quick');
  const a: Args = {
    quick,
    onlyStart: false,
    kmockDist: 'cache',
    startRuns: quick ? 3 : 15,
    reps: quick ? 1 : 3,
    messages: quick ? 5_000 : 50_000,
    joins: quick ? 1 : 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${s} takes a positive integer`);
      return v;
    };
    if (s === '--quick') continue;
    else if (s === '--only') {
      const v = argv[++i];
      if (v !== 'start') throw new Error('--only takes start');
      a.onlyStart = true;
    } else if (s === '--out') a.out = argv[++i];
    else if (s === '--kmock-dist') {
      const v = argv[++i];
      if (v !== 'cache' && v !== 'repo') throw new Error('--kmock-dist takes cache or repo');
      a.kmockDist = v;
    } else if (s === '--start-runs') a.startRuns = num();
    else if (s === '--reps') a.reps = num();
    else if (s === '--messages') a.messages = num();
    else if (s === '--joins') a.joins = num();
    else if (s === '--kafka') a.kafka = argv[++i];
    else if (s === '--help' || s === '-h') {
      console.log('usage: tsx bench/broker/run.ts [--quick] [--only start] [--out FILE] [--kmock-dist cache|repo] [--start-runs N] [--reps N] [--messages N] [--joins N] [--kafka VERSION]');
      process.exit(0);
    } else throw new Error(`unknown argument ${s}`);
  }
  return a;
}

// ---- statistics ----------------------------------------------------------------------------------

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  // nearest rank
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p90 = (xs: number[]) => quantile(xs, 0.9);

function progress(msg: string): void {
  process.stderr.write(`[bench/broker] ${msg}\n`);
}

function rotate<T>(xs: T[], r: number): T[] {
  const k = r % xs.length;
  return [...xs.slice(k), ...xs.slice(0, k)];
}

// ---- 1. start → first answer ---------------------------------------------------------------------

interface StartSample {
  listenMs: number;
  answerMs: number;
  apiCount: number;
  /** CPU time (user + sys, all threads) the process had used when its answer arrived. */
  cpuMs: number;
}

async function startOnce(spec: SpawnSpec): Promise<StartSample> {
  const p = await spawnBroker(spec);
  try {
    const r = await probeApiVersions(p.host, p.port);
    const cpuMs = cpuMsOf(p.pid);
    return { listenMs: p.listeningAt - p.spawnedAt, answerMs: r.answeredAt - p.spawnedAt, apiCount: r.apiCount, cpuMs };
  } finally {
    await p.stop();
  }
}

/** In the benchmark process, modules already loaded: startKmock() → first answer. */
async function inProcessOnce(startKmock: (o: object) => Promise<{ host: string; port: number; close(): Promise<void> }>): Promise<number> {
  const t0 = performance.now();
  const k = await startKmock({ port: 0 });
  try {
    const r = await probeApiVersions(k.host, k.port);
    return r.answeredAt - t0;
  } finally {
    await k.close();
  }
}

/**
 * Where a cold kmock process spends its start, from marks a `--require` preload sets in a real
 * `node bin/kmock.js start` run: node's bootstrap (until the preload runs), bin/kmock.js until it
 * compiles the bundle (loading bin/kmock.js as an ES module, reading the bundle and its code
 * cache), compiling it (vm.Script, with the code cache when there is one), evaluating it (the
 * bundle's top level: node:net and the other modules it requires), then `main(['start', ...])`
 * until it prints `listening on`. Without a bundle (dist/cli/main.js), only boot and the total are marked.
 */
interface Breakdown {
  boot: number;
  beforeCompile?: number;
  compile?: number;
  evaluate?: number;
  start?: number;
  listening: number;
  cache?: 'used' | 'rejected' | 'none';
}
const BREAKDOWN_PRELOAD = `
const { performance } = require('node:perf_hooks');
const vm = require('node:vm');
const m = { boot: performance.now() };
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    const t = performance.now();
    super(code, options);
    m.beforeCompile = t - m.boot;
    m.compile = performance.now() - t;
    m.cache = options?.cachedData === undefined ? 'none' : this.cachedDataRejected ? 'rejected' : 'used';
  }
  runInThisContext(...args) {
    const fn = super.runInThisContext(...args);
    return function (...a) {
      const t = performance.now();
      const r = fn.apply(this, a);
      m.evaluate = performance.now() - t;
      m.evaluatedAt = performance.now();
      return r;
    };
  }
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (s, ...rest) => {
  if (!String(s).startsWith('listening on')) return write(s, ...rest);
  m.listening = performance.now();
  if (m.evaluatedAt !== undefined) m.start = m.listening - m.evaluatedAt;
  write(JSON.stringify(m) + '\\n', () => process.exit(0));
  return true;
};
`;
function breakdownOnce(build: KmockBuild): Breakdown {
  const preload = join(CACHE_ROOT, 'breakdown-preload.cjs');
  if (!existsSync(preload) || readFileSync(preload, 'utf8') !== BREAKDOWN_PRELOAD) {
    mkdirSync(CACHE_ROOT, { recursive: true });
    writeFileSync(preload, BREAKDOWN_PRELOAD);
  }
  const out = execFileSync(process.execPath, ['--require', preload, build.bin, 'start', '--port', '0', '--log-level', 'silent'], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Breakdown;
}
function bareBootOnce(): number {
  const out = execFileSync(process.execPath, ['-e', 'console.log(performance.now())'], { encoding: 'utf8' });
  return Number(out.trim());
}

// ---- 2-4. workloads ------------------------------------------------------------------------------

interface WorkloadSample {
  rssStart: number;
  rssAfterProduce: number;
  rssEnd: number;
  hwmEnd: number;
  produce: number;
  produceMs: number;
  /** Broker CPU ms (user + sys) per 1,000 messages during the timed produce run. */
  produceCpuPerK: number;
  /** The client's (kafkajs, this process) CPU ms per 1,000 messages during the timed produce run. */
  produceClientCpuPerK: number;
  /** Messages the broker still held for the consumer (librdkafka's mock drops beyond 5 MiB). */
  retained: number;
  consume: number;
  consumeJoinMs: number;
  /** Broker CPU ms per 1,000 messages during the consume run (join included). */
  consumeCpuPerK: number;
  consumeClientCpuPerK: number;
  joins: JoinResult[];
  /** Join runs that failed (a consumer crashed), by message; retried up to 3× the number of runs. */
  joinFailures: string[];
}

const DATA_TOPIC = 'bench-data';
const JOIN_TOPIC = 'bench-join';
const JOIN_PARTITIONS = 10;
const CONSUMERS = 10;

async function workloadOnce(spec: SpawnSpec, a: Args, rep: number, produceOpts: ProduceOptions): Promise<WorkloadSample> {
  const p: BrokerProcess = await spawnBroker(spec);
  const tag = `${spec.kind}#${rep + 1}`;
  let cpu0 = 0;
  let cpu1 = 0;
  try {
    await probeApiVersions(p.host, p.port);
    await sleep(1000);
    const rssStart = rssOf(p.pid).rss;
    if (spec.kind === 'rdkafka') {
      await rdkafkaCreateTopic(p, DATA_TOPIC, 1);
      await rdkafkaCreateTopic(p, JOIN_TOPIC, JOIN_PARTITIONS);
    } else {
      await kafkajsCreateTopic(p.bootstrap, DATA_TOPIC, 1);
      await kafkajsCreateTopic(p.bootstrap, JOIN_TOPIC, JOIN_PARTITIONS);
    }
    const prod = await produceRun(p.bootstrap, DATA_TOPIC, produceOpts, {
      before: () => (cpu0 = cpuMsOf(p.pid)),
      after: () => (cpu1 = cpuMsOf(p.pid)),
    });
    const produceCpuPerK = ((cpu1 - cpu0) / prod.messages) * 1000;
    progress(`${tag}: produce ${Math.round(prod.msgsPerSec)} msgs/s (${prod.messages} in ${prod.ms.toFixed(0)} ms; broker CPU ${(cpu1 - cpu0).toFixed(0)} ms)`);
    await sleep(1000);
    const rssAfterProduce = rssOf(p.pid).rss;
    const retained = await retainedMessages(p.bootstrap, DATA_TOPIC);
    if (retained !== prod.total) progress(`${tag}: the broker holds ${retained} of the ${prod.total} messages produced`);
    cpu0 = cpuMsOf(p.pid);
    const cons = await consumeRun(p.bootstrap, DATA_TOPIC, `bench-read-${rep}`, retained);
    const consumeCpuPerK = ((cpuMsOf(p.pid) - cpu0) / cons.messages) * 1000;
    progress(`${tag}: consume ${Math.round(cons.msgsPerSec)} msgs/s (${cons.messages} in ${cons.ms.toFixed(0)} ms after a ${cons.joinMs.toFixed(0)} ms join)`);
    const joins: WorkloadSample['joins'] = [];
    const joinFailures: string[] = [];
    for (let j = 0, attempt = 0; j < a.joins && attempt < a.joins * 3; attempt++) {
      await sleep(200);
      try {
        const r = await joinRun(p.bootstrap, JOIN_TOPIC, `bench-join-${rep}-${attempt}`, CONSUMERS);
        progress(
          `${tag}: ${CONSUMERS} consumers joined in ${r.ms.toFixed(0)} ms (last first JoinGroup sent at ${r.lastFirstJoinMs.toFixed(0)} ms; ${r.joinRequests} JoinGroup requests, ${r.joinEvents} GROUP_JOIN events, ${r.members} members)`,
        );
        joins.push(r);
        j++;
      } catch (e) {
        // e.g. librdkafka 2.0.2's mock answers a SyncGroup that arrives after the group went Up
        // with INVALID_REQUEST, which kafkajs treats as fatal: the run is recorded as failed.
        const msg = (e as Error).message.split('\n')[0];
        progress(`${tag}: join run failed: ${msg}`);
        joinFailures.push(msg);
      }
    }
    await sleep(1000);
    const end = rssOf(p.pid);
    return {
      rssStart,
      rssAfterProduce,
      rssEnd: end.rss,
      hwmEnd: end.hwm,
      produce: prod.msgsPerSec,
      produceMs: prod.ms,
      produceCpuPerK,
      produceClientCpuPerK: (prod.clientCpuMs / prod.messages) * 1000,
      retained,
      consume: cons.msgsPerSec,
      consumeJoinMs: cons.joinMs,
      consumeCpuPerK,
      consumeClientCpuPerK: (cons.clientCpuMs / cons.messages) * 1000,
      joins,
      joinFailures,
    };
  } finally {
    await p.stop();
  }
}

interface KafkaSample {
  version: string;
  produce: number[];
  joins: JoinResult[];
}

/**
 * The produce and join workloads against Apache Kafka (KRaft, scripts/kafka-reference) with
 * group.initial.rebalance.delay.ms=0: what the rules kmock follows give with the same client.
 * One broker for all repetitions (a JVM start costs seconds); its first produce run warms it up.
 */
async function kafkaWorkloads(version: string, a: Args, produceOpts: ProduceOptions): Promise<KafkaSample | undefined> {
  const script = join(REPO, 'scripts', 'kafka-reference');
  let out: string;
  try {
    out = execFileSync(script, ['start', version, '--set', 'group.initial.rebalance.delay.ms=0'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    progress(`Kafka ${version}: not started (${(e as Error).message.split('\n')[0]}); no Kafka rows`);
    return undefined;
  }
  const m = /listening on (\S+)/.exec(out);
  if (!m) throw new Error(`kafka-reference start printed no address: ${out}`);
  const bootstrap = m[1];
  const port = bootstrap.split(':')[1];
  const sample: KafkaSample = { version, produce: [], joins: [] };
  try {
    await kafkajsCreateTopic(bootstrap, DATA_TOPIC, 1);
    await kafkajsCreateTopic(bootstrap, JOIN_TOPIC, JOIN_PARTITIONS);
    await produceRun(bootstrap, DATA_TOPIC, produceOpts); // untimed: the JVM's warm-up
    for (let r = 0; r < a.reps; r++) {
      const prod = await produceRun(bootstrap, DATA_TOPIC, produceOpts);
      sample.produce.push(prod.msgsPerSec);
      progress(`Kafka ${version}#${r + 1}: produce ${Math.round(prod.msgsPerSec)} msgs/s`);
      for (let j = 0; j < a.joins; j++) {
        await sleep(200);
        const jr = await joinRun(bootstrap, JOIN_TOPIC, `bench-join-kafka-${r}-${j}`, CONSUMERS);
        progress(`Kafka ${version}#${r + 1}: ${CONSUMERS} consumers joined in ${jr.ms.toFixed(0)} ms (${jr.joinRequests} JoinGroup requests)`);
        sample.joins.push(jr);
      }
    }
    return sample;
  } finally {
    execFileSync(script, ['stop', '--port', port], { stdio: 'ignore' });
  }
}

// ---- report --------------------------------------------------------------------------------------

const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '—');

interface Row {
  metric: string;
  kmock: string;
  peer: string;
  ratio: string;
  target: string;
  met: string;
}

function table(rows: Row[]): string {
  const lines = [
    '| metric | kmock | librdkafka mock | kmock / librdkafka | target | met? |',
    '|---|---:|---:|---:|---|:---:|',
  ];
  for (const r of rows) lines.push(`| ${r.metric} | ${r.kmock} | ${r.peer} | ${r.ratio} | ${r.target} | ${r.met} |`);
  return lines.join('\n');
}

function gitInfo(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO, encoding: 'utf8' }).trim();
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const kmock = buildKmock(a.kmockDist);
  const rdk = buildRdkafkaMock();
  const kafkajsVersion = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'kafkajs', 'package.json'), 'utf8')) as { version: string }).version;
  const startedAt = new Date();
  const loadStart = loadavg()[0].toFixed(2);
  progress(`kmock from ${kmock.source === 'cache' ? `${kmock.dist} (src hash ${kmock.hash})` : 'repo dist/'}; librdkafka ${rdk.librdkafkaVersion} runner ${rdk.bin}`);

  // 1. start → first answer, interleaved (one untimed warm-up of each first: file cache).
  const specs = { kmock: kmockSpec(kmock), rdkafka: rdkafkaSpec(rdk), bare: bareSpec() };
  for (const s of Object.values(specs)) await startOnce(s);
  const starts: Record<keyof typeof specs, StartSample[]> = { kmock: [], rdkafka: [], bare: [] };
  const kinds = Object.keys(specs) as (keyof typeof specs)[];
  for (let r = 0; r < a.startRuns; r++) {
    for (const k of rotate(kinds, r)) starts[k].push(await startOnce(specs[k]));
  }
  progress(`start → first answer (median ms): kmock ${f1(median(starts.kmock.map((s) => s.answerMs)))}, librdkafka mock ${f1(median(starts.rdkafka.map((s) => s.answerMs)))}, bare node ${f1(median(starts.bare.map((s) => s.answerMs)))}`);

  const breakdowns: Breakdown[] = [];
  const bareBoots: number[] = [];
  for (let r = 0; r < a.startRuns; r++) {
    breakdowns.push(breakdownOnce(kmock));
    bareBoots.push(bareBootOnce());
  }

  const mod = (await import(pathToFileURL(join(kmock.dist, 'index.js')).href)) as {
    startKmock: (o: object) => Promise<{ host: string; port: number; close(): Promise<void> }>;
  };
  const inProc: number[] = [];
  const inProcFirst = await inProcessOnce(mod.startKmock);
  for (let r = 0; r < a.startRuns; r++) inProc.push(await inProcessOnce(mod.startKmock));

  // 2-4. workloads, a fresh broker process per repetition, order alternating.
  const produceOpts: ProduceOptions = { messages: a.messages, batchSize: 100, valueBytes: 100, warmupBatches: 20 };
  const work: Record<'kmock' | 'rdkafka', WorkloadSample[]> = { kmock: [], rdkafka: [] };
  const workSpecs = { kmock: kmockSpec(kmock, ['--initial-rebalance-delay-ms', '0']), rdkafka: rdkafkaSpec(rdk) };
  // The floor for the produce row: the replay broker, answers recorded from kmock for this workload.
  const replay: ProduceSample[] = [];
  const replayNode: ProduceSample[] = [];
  let replaySpecs: SpawnSpec | undefined;
  let replayNodeSpec: SpawnSpec | undefined;
  if (!a.onlyStart) {
    const port = await freePort();
    const file = join(tmpdir(), `kmock-bench-replay-${process.pid}.bin`);
    await recordResponses(kmock, port, file, async (bootstrap) => {
      await kafkajsCreateTopic(bootstrap, DATA_TOPIC, 1);
      await produceRun(bootstrap, DATA_TOPIC, { ...produceOpts, messages: produceOpts.batchSize * 5, warmupBatches: 1 });
    });
    replaySpecs = replaySpec(buildReplayBroker(), port, file);
    replayNodeSpec = replayNodeSpecOf(port, file);
  }
  for (let r = 0; r < (a.onlyStart ? 0 : a.reps); r++) {
    for (const k of rotate(['kmock', 'rdkafka', 'replay', 'replay-node'] as const, r)) {
      if (k === 'replay') replay.push(await replayProduceOnce(replaySpecs!, 'replay', r, produceOpts));
      else if (k === 'replay-node') replayNode.push(await replayProduceOnce(replayNodeSpec!, 'replay-node', r, produceOpts));
      else work[k].push(await workloadOnce(workSpecs[k], a, r, produceOpts));
    }
  }
  const kafka = a.kafka !== undefined && !a.onlyStart ? await kafkaWorkloads(a.kafka, a, produceOpts) : undefined;

  // ---- the table --------------------------------------------------------------------------------
  const km = starts.kmock.map((s) => s.answerMs);
  const rk = starts.rdkafka.map((s) => s.answerMs);
  const bare = starts.bare.map((s) => s.answerMs);
  const med = (k: 'kmock' | 'rdkafka', f: (w: WorkloadSample) => number) => median(work[k].map(f));
  const joinsOf = (k: 'kmock' | 'rdkafka') => work[k].flatMap((w) => w.joins.map((j) => j.ms));
  const prodK = med('kmock', (w) => w.produce);
  const prodR = med('rdkafka', (w) => w.produce);
  const joinK = median(joinsOf('kmock'));
  const joinR = median(joinsOf('rdkafka'));
  const rssK = med('kmock', (w) => w.rssStart);
  const rssR = med('rdkafka', (w) => w.rssStart);
  const replayMed = median(replay.map((x) => x.msgsPerSec));
  const replayNodeMed = median(replayNode.map((x) => x.msgsPerSec));
  const yes = (b: boolean) => (b ? '✅' : '❌');
  // kmock and bare Node ran in the same rounds (interleaved): one ratio per round.
  const perRound = km.map((k, r) => k / bare[r]);
  const startRows: Row[] = [
    {
      metric: 'process start → first ApiVersions answer, median (ms)',
      kmock: f1(median(km)),
      peer: f1(median(rk)),
      ratio: ratio(median(km), median(rk)),
      target: '≤ 100 ms',
      met: yes(median(km) <= 100),
    },
    { metric: '… p90 (ms)', kmock: f1(p90(km)), peer: f1(p90(rk)), ratio: ratio(p90(km), p90(rk)), target: '', met: '' },
    {
      metric: '… CPU time the broker process had used by then, median (ms)',
      kmock: f0(median(starts.kmock.map((s) => s.cpuMs))),
      peer: f0(median(starts.rdkafka.map((s) => s.cpuMs))),
      ratio: ratio(median(starts.kmock.map((s) => s.cpuMs)), median(starts.rdkafka.map((s) => s.cpuMs))),
      target: '',
      met: '',
    },
    {
      metric: '… of which spawn → `listening on` line, median (ms)',
      kmock: f1(median(starts.kmock.map((s) => s.listenMs))),
      peer: f1(median(starts.rdkafka.map((s) => s.listenMs))),
      ratio: ratio(median(starts.kmock.map((s) => s.listenMs)), median(starts.rdkafka.map((s) => s.listenMs))),
      target: '',
      met: '',
    },
    {
      metric: 'bare Node TCP server, start → first answer, median / p90 (ms), for scale; its CPU by then, median (ms)',
      kmock: `${f1(median(bare))} / ${f1(p90(bare))}; ${f0(median(starts.bare.map((s) => s.cpuMs)))}`,
      peer: '',
      ratio: '',
      target: '',
      met: '',
    },
    {
      metric: 'kmock start ÷ bare Node start (medians, same run; less load-sensitive)',
      kmock: `${(median(km) / median(bare)).toFixed(2)}×`,
      peer: '',
      ratio: '',
      target: '≤ 1.54× (100 ms at a 65 ms bare Node)',
      met: yes(median(km) / median(bare) <= 1.54),
    },
    { metric: '… median of the per-round ratios (kmock and bare Node started in the same round)', kmock: `${median(perRound).toFixed(2)}×`, peer: '', ratio: '', target: '', met: '' },
    { metric: 'kmock in-process: `startKmock()` → first answer, median (ms)', kmock: `${f1(median(inProc))}`, peer: '', ratio: '', target: '', met: '' },
  ];
  const workRows: Row[] = [
    {
      metric: `kafkajs produce, ${f0(a.messages)} × ${produceOpts.valueBytes} B, batches of ${produceOpts.batchSize}, acks=1 (msgs/s)`,
      kmock: f0(prodK),
      peer: f0(prodR),
      ratio: ratio(prodK, prodR),
      target: '≥ 1.2× librdkafka mock',
      met: yes(prodK / prodR >= 1.2),
    },
    {
      metric: '… broker CPU per 1,000 produced messages (ms)',
      kmock: f1(med('kmock', (w) => w.produceCpuPerK)),
      peer: f1(med('rdkafka', (w) => w.produceCpuPerK)),
      ratio: ratio(med('kmock', (w) => w.produceCpuPerK), med('rdkafka', (w) => w.produceCpuPerK)),
      target: '',
      met: '',
    },
    {
      metric: '… client (kafkajs) CPU per 1,000 produced messages (ms)',
      kmock: f1(med('kmock', (w) => w.produceClientCpuPerK)),
      peer: f1(med('rdkafka', (w) => w.produceClientCpuPerK)),
      ratio: ratio(med('kmock', (w) => w.produceClientCpuPerK), med('rdkafka', (w) => w.produceClientCpuPerK)),
      target: '',
      met: '',
    },
    {
      metric: '… the floor: the same client against a broker that answers at no cost (replay-broker.c, replaying kmock\'s recorded answers) (msgs/s); its ratio to the librdkafka mock',
      kmock: f0(replayMed),
      peer: '',
      ratio: ratio(replayMed, prodR),
      target: 'no broker can pass this',
      met: '',
    },
    { metric: '… kmock ÷ that floor', kmock: ratio(prodK, replayMed), peer: '', ratio: '', target: '', met: '' },
    {
      metric: '… the same replay as a Node server (replay-broker-node.cjs: node:net, nothing else) (msgs/s); its ratio to the librdkafka mock',
      kmock: f0(replayNodeMed),
      peer: '',
      ratio: ratio(replayNodeMed, prodR),
      target: '',
      met: '',
    },
    {
      metric: '… broker CPU per 1,000 produced messages: replay broker; Node replay (ms)',
      kmock: `${f1(median(replay.map((x) => x.brokerCpuPerK)))}; ${f1(median(replayNode.map((x) => x.brokerCpuPerK)))}`,
      peer: '',
      ratio: '',
      target: '',
      met: '',
    },
    ...(kafka === undefined
      ? []
      : [{ metric: `… Apache Kafka ${kafka.version} (the same workload, one JVM warmed up by an untimed run) (msgs/s)`, kmock: f0(median(kafka.produce)), peer: '', ratio: ratio(median(kafka.produce), prodR), target: '', met: '' }]),
    {
      metric: 'kafkajs consume, all of it back, one consumer (msgs/s)',
      kmock: f0(med('kmock', (w) => w.consume)),
      peer: f0(med('rdkafka', (w) => w.consume)),
      ratio: ratio(med('kmock', (w) => w.consume), med('rdkafka', (w) => w.consume)),
      target: '',
      met: '',
    },
    {
      metric: '… broker CPU per 1,000 consumed messages (ms)',
      kmock: f1(med('kmock', (w) => w.consumeCpuPerK)),
      peer: f1(med('rdkafka', (w) => w.consumeCpuPerK)),
      ratio: ratio(med('kmock', (w) => w.consumeCpuPerK), med('rdkafka', (w) => w.consumeCpuPerK)),
      target: '',
      met: '',
    },
    {
      metric: '… client (kafkajs) CPU per 1,000 consumed messages (ms)',
      kmock: f1(med('kmock', (w) => w.consumeClientCpuPerK)),
      peer: f1(med('rdkafka', (w) => w.consumeClientCpuPerK)),
      ratio: ratio(med('kmock', (w) => w.consumeClientCpuPerK), med('rdkafka', (w) => w.consumeClientCpuPerK)),
      target: '',
      met: '',
    },
    {
      metric: `${CONSUMERS} kafkajs consumers in one group: start → all joined, median (ms)`,
      kmock: f0(joinK),
      peer: f0(joinR),
      ratio: ratio(joinK, joinR),
      target: '≤ 300 ms (kmock, initial delay 0)',
      met: yes(joinK <= 300),
    },
    {
      metric: `… runs with all ${CONSUMERS} joined within 300 ms`,
      kmock: `${joinsOf('kmock').filter((x) => x <= 300).length} of ${joinsOf('kmock').length}`,
      peer: `${joinsOf('rdkafka').filter((x) => x <= 300).length} of ${joinsOf('rdkafka').length}`,
      ratio: '',
      target: '',
      met: '',
    },
    ...(kafka === undefined
      ? []
      : [
          {
            metric: `… Apache Kafka ${kafka.version} with group.initial.rebalance.delay.ms=0, the same workload: median (ms); runs within 300 ms`,
            kmock: `${f0(median(kafka.joins.map((j) => j.ms)))}; ${kafka.joins.filter((j) => j.ms <= 300).length} of ${kafka.joins.length}`,
            peer: '',
            ratio: '',
            target: '',
            met: '',
          },
        ]),
    {
      metric: '… of which until the last consumer sent its first JoinGroup (client side), median (ms)',
      kmock: f0(median(work.kmock.flatMap((w) => w.joins.map((j) => j.lastFirstJoinMs)))),
      peer: f0(median(work.rdkafka.flatMap((w) => w.joins.map((j) => j.lastFirstJoinMs)))),
      ratio: '',
      target: '',
      met: '',
    },
    { metric: 'idle RSS after start (MB)', kmock: f1(rssK), peer: f1(rssR), ratio: ratio(rssK, rssR), target: '≤ 60 MB', met: yes(rssK <= 60) },
    {
      metric: 'idle RSS after the produce run (MB)',
      kmock: f1(med('kmock', (w) => w.rssAfterProduce)),
      peer: f1(med('rdkafka', (w) => w.rssAfterProduce)),
      ratio: ratio(med('kmock', (w) => w.rssAfterProduce), med('rdkafka', (w) => w.rssAfterProduce)),
      target: '',
      met: '',
    },
    {
      metric: 'RSS at the end (after consume + joins) / peak (MB)',
      kmock: `${f1(med('kmock', (w) => w.rssEnd))} / ${f1(med('kmock', (w) => w.hwmEnd))}`,
      peer: `${f1(med('rdkafka', (w) => w.rssEnd))} / ${f1(med('rdkafka', (w) => w.hwmEnd))}`,
      ratio: '',
      target: '',
      met: '',
    },
  ];
  const rows = a.onlyStart ? startRows : [...startRows, ...workRows];

  const cpu = cpus();
  const list = (xs: number[], f: (x: number) => string = f1) => xs.map(f).join(', ');
  const failuresText = (ws: WorkloadSample[]) => {
    const all = ws.flatMap((w) => w.joinFailures);
    if (all.length === 0) return 'none';
    const counts = new Map<string, number>();
    for (const m of all) {
      const k = m.replace(/consumer \d+/, 'consumer N');
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return [...counts].map(([k, n]) => `${n} × "${k}"`).join('; ');
  };
  const joinText = (j: JoinResult) => `${f0(j.ms)} (${f0(j.lastFirstJoinMs)}; ${j.joinRequests}; ${j.joinEvents})`;
  const W = (line: string): string[] => (a.onlyStart ? [] : [line]);
  const medOf = (bs: Breakdown[], f: (b: Breakdown) => number | undefined) => median(bs.map(f).filter((x): x is number => x !== undefined));
  const md = [
    `# Broker benchmarks${a.quick ? ' (quick smoke run: not for quoting)' : ''}`,
    '',
    `Generated by \`npx tsx bench/broker/run.ts${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\` on ${startedAt.toISOString()}.`,
    '',
    `- Node ${process.version} (${arch()}), ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Linux ${release()}; 1-minute load average ${loadStart} at the start, ${loadavg()[0].toFixed(2)} at the end (other work on the machine slows every contender; the CPU-time rows are less sensitive to it than the wall-clock rows)`,
    `- kmock: ${gitInfo()}, ${kmock.source === 'cache' ? `src/ built like \`npm run build\` into the bench cache (hash ${kmock.hash})${kmock.tscErrors ? ', **tsc reported type errors**' : ''}` : "the repo's dist/"}, CLI entry \`${relative(join(kmock.dist, '..'), cliEntry(kmock))}\`; run as \`node bin/kmock.js start --port 0 --log-level silent\` (workloads add \`--initial-rebalance-delay-ms 0\`)`,
    `- librdkafka ${rdk.librdkafkaVersion} (Debian librdkafka-dev) mock cluster, 1 broker: \`bench/broker/rdkafka-mock.c\` built with gcc -O2 into ${relative(REPO, rdk.bin).startsWith('..') ? '`' + rdk.bin.replace(process.env.HOME ?? '\0', '~') + '`' : rdk.bin}`,
    ...W(`- client: kafkajs ${kafkajsVersion}, in the benchmark process; each broker is its own process. Ratios are kmock / librdkafka mock from this one run.`),
    `- ${a.startRuns} start runs per contender (interleaved, after one untimed warm-up each, which also writes kmock's V8 code cache)${a.onlyStart ? ' (`--only start`: no workloads)' : `; ${a.reps} workload repetition(s) per broker (fresh process each, alternating order), ${a.joins} join run(s) per repetition`}.`,
    '',
    table(rows),
    '',
    '## How each row is measured',
    '',
    '- **start → first answer**: from `spawn()` in the benchmark process to the complete response to a hand-written ApiVersions v2 request on a fresh TCP connection (the port is read from the `listening on HOST:PORT` line, so that line is on the clock). The bare Node server answers any frame with a minimal ApiVersions response.',
    ...W(`- **produce**: one kafkajs producer, topic \`${DATA_TOPIC}\` with 1 partition created beforehand (kmock: kafkajs admin → CreateTopics; librdkafka mock: \`rd_kafka_mock_topic_create\`), ${produceOpts.warmupBatches} untimed warm-up batches, then sequential \`producer.send()\` calls of ${produceOpts.batchSize} null-key ${produceOpts.valueBytes}-byte messages, acks=1, no compression.`),
    ...W(`- **the floor** (replay broker): \`bench/broker/replay-broker.c\`, a single-threaded C program that answers every request with a response recorded from kmock beforehand for the same API key and version (through a proxy, with kmock advertising the replay broker's port), changing only the correlation id. It does no work, so kafkajs against it shows what the client alone allows; the produce workload runs against it in every repetition, interleaved with the others. Its answers say every batch landed at the same offset, which kafkajs does not check. \`replay-broker-node.cjs\` is the same program in Node (node:net, one \`data\` handler, one \`write\` per answer): what Node's socket path alone costs.`),
    ...(a.kafka === undefined ? [] : W(`- **Apache Kafka**: \`scripts/kafka-reference start ${a.kafka} --set group.initial.rebalance.delay.ms=0\` (KRaft, one node, JVM heap 512 MB), started once after the other workloads; one untimed produce run first (JIT warm-up), then per repetition one produce run and ${a.joins} join run(s), as above.`)),
    ...W('- **consume**: one kafkajs consumer in a fresh group, `fromBeginning`, `eachBatch`; msgs/s from its `GROUP_JOIN` to the last message (the join itself is excluded: librdkafka\'s mock always waits 3 s there). It reads what the broker holds (high watermark − log start offset by ListOffsets): **librdkafka\'s mock keeps at most 5 MiB (or 100,000 batches) per partition and drops the oldest batches beyond that** (`rdkafka_mock.c`, `mpart->max_size`), so it serves fewer messages than were produced; msgs/s stays comparable.'),
    ...W('- **client CPU**: `process.cpuUsage()` of the benchmark process (where kafkajs runs) over the same timed part: the share of each message that is kafkajs\'s own work, whatever the broker.'),
    ...W(`- **${CONSUMERS} consumers joined**: ${CONSUMERS} consumers of a fresh group on a ${JOIN_PARTITIONS}-partition topic are created and started at once (connect, subscribe, run); the time until each has emitted \`consumer.events.GROUP_JOIN\` at least once. kmock runs with \`group.initial.rebalance.delay.ms=0\`. **librdkafka 2.0.2's mock has no such setting: it always waits 3000 ms before completing the first join of an empty group** (\`rd_kafka_mock_cgrp_rebalance\`, "First join, low timeout"; the setter \`rd_kafka_mock_group_initial_rebalance_delay_ms\` arrived in v2.6.0), so its row is dominated by that fixed delay and the ratio says little. A run in which a consumer crashes is recorded as failed and retried: librdkafka 2.0.2\'s mock answers a SyncGroup that arrives after the leader\'s has moved the group to Up with INVALID_REQUEST (\`rd_kafka_mock_cgrp_check_state\`), which kafkajs treats as fatal.`),
    ...W('- **broker CPU**: user + system time of the broker process (all threads) from `/proc/<pid>/stat` (10 ms ticks), read around the timed part.'),
    ...W('- **RSS**: `VmRSS` from `/proc/<pid>/status` of the broker process, 1 s after its first answer, 1 s after the produce run, and 1 s after the last join run (with `VmHWM`, the peak).'),
    '',
    '## Raw numbers',
    '',
    `- start → first answer (ms), kmock: ${list(km)}`,
    `- start → first answer (ms), librdkafka mock: ${list(rk)}`,
    `- start → first answer (ms), bare node: ${list(bare)}`,
    `- kmock ÷ bare Node per round: ${list(perRound, (x) => x.toFixed(2))}`,
    `- CPU by the first answer (ms, 10 ms ticks), bare node: ${list(starts.bare.map((s) => s.cpuMs), f0)}`,
    `- kmock cold start breakdown (${breakdowns.length} separate \`node --require <preload> bin/kmock.js start\` runs, medians; the preload marks the phases): node bootstrap ${f1(medOf(breakdowns, (b) => b.boot))} ms (bare \`node -e\`: ${f1(median(bareBoots))} ms); bin/kmock.js up to compiling the bundle (loading bin/kmock.js as an ES module, reading the bundle and its code cache) ${f1(medOf(breakdowns, (b) => b.beforeCompile))} ms; compiling ${relative(join(kmock.dist, '..'), cliEntry(kmock))} (code cache used in ${breakdowns.filter((b) => b.cache === 'used').length} of ${breakdowns.length} runs) ${f1(medOf(breakdowns, (b) => b.compile))} ms; evaluating it ${f1(medOf(breakdowns, (b) => b.evaluate))} ms; then \`main([\'start\', ...])\` until it prints \`listening on\` ${f1(medOf(breakdowns, (b) => b.start))} ms; \`listening on\` at ${f1(medOf(breakdowns, (b) => b.listening))} ms after process start`,
    `- kmock in-process \`startKmock()\` → first answer (ms): first ${f1(inProcFirst)}, then ${list(inProc)}`,
    ...W(`- produce msgs/s, kmock: ${list(work.kmock.map((w) => w.produce), f0)}; librdkafka mock: ${list(work.rdkafka.map((w) => w.produce), f0)}`),
    ...W(`- produce msgs/s, replay broker (the floor): ${list(replay.map((x) => x.msgsPerSec), f0)}; its broker CPU per 1,000 messages (ms): ${list(replay.map((x) => x.brokerCpuPerK))}; client CPU: ${list(replay.map((x) => x.clientCpuPerK))}`),
    ...W(`- produce msgs/s, Node replay: ${list(replayNode.map((x) => x.msgsPerSec), f0)}; its broker CPU per 1,000 messages (ms): ${list(replayNode.map((x) => x.brokerCpuPerK))}; client CPU: ${list(replayNode.map((x) => x.clientCpuPerK))}`),
    ...(kafka === undefined
      ? []
      : W(`- Apache Kafka ${kafka.version}: produce msgs/s ${list(kafka.produce, f0)}; ${CONSUMERS} consumers joined, ms (…): ${kafka.joins.map(joinText).join(', ')}`)),
    ...W(`- consume msgs/s, kmock: ${list(work.kmock.map((w) => w.consume), f0)}; librdkafka mock: ${list(work.rdkafka.map((w) => w.consume), f0)}`),
    ...W(`- messages held by the broker after the produce run (of ${f0(a.messages + produceOpts.warmupBatches * produceOpts.batchSize)} produced), kmock: ${list(work.kmock.map((w) => w.retained), f0)}; librdkafka mock: ${list(work.rdkafka.map((w) => w.retained), f0)}`),
    ...W(`- consumer join before reading (ms), kmock: ${list(work.kmock.map((w) => w.consumeJoinMs), f0)}; librdkafka mock: ${list(work.rdkafka.map((w) => w.consumeJoinMs), f0)}`),
    ...W(`- ${CONSUMERS} consumers joined, ms (last first JoinGroup sent at ms; JoinGroup requests; GROUP_JOIN events), kmock: ${work.kmock.flatMap((w) => w.joins.map(joinText)).join(', ')}`),
    ...W(`- ${CONSUMERS} consumers joined, ms (…), librdkafka mock: ${work.rdkafka.flatMap((w) => w.joins.map(joinText)).join(', ')}`),
    ...W(`- failed join runs (retried; not in the medians), kmock: ${failuresText(work.kmock)}; librdkafka mock: ${failuresText(work.rdkafka)}`),
    ...W(`- broker CPU per 1,000 produced / consumed messages (ms), kmock: ${work.kmock.map((w) => `${f1(w.produceCpuPerK)} / ${f1(w.consumeCpuPerK)}`).join('; ')}; librdkafka mock: ${work.rdkafka.map((w) => `${f1(w.produceCpuPerK)} / ${f1(w.consumeCpuPerK)}`).join('; ')}`),
    `- broker CPU by the first answer (ms), kmock: ${list(starts.kmock.map((s) => s.cpuMs), f0)}; librdkafka mock: ${list(starts.rdkafka.map((s) => s.cpuMs), f0)}`,
    ...W(`- RSS after start / after produce / end (MB), kmock: ${work.kmock.map((w) => `${f1(w.rssStart)} / ${f1(w.rssAfterProduce)} / ${f1(w.rssEnd)}`).join('; ')}`),
    ...W(`- RSS after start / after produce / end (MB), librdkafka mock: ${work.rdkafka.map((w) => `${f1(w.rssStart)} / ${f1(w.rssAfterProduce)} / ${f1(w.rssEnd)}`).join('; ')}`),
    '',
  ].join('\n');

  console.log(md);
  // A quick or start-only run only prints (not a full report) unless --out names a file.
  const out = a.out ?? (a.quick || a.onlyStart ? undefined : join(REPO, 'bench', 'results', 'broker.md'));
  if (out !== undefined) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, md);
    progress(`wrote ${relative(process.cwd(), out)}`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench/broker: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
