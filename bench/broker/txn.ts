// Transactions benchmark: kmock against Apache Kafka 3.9.1 in the same run, with the same clients.
//
//   npx tsx bench/broker/txn.ts                 → bench/results/transactions.md
//   npx tsx bench/broker/txn.ts --quick         smoke run, printed only (not for quoting)
//
// Options: --out FILE, --reps N (default 3), --kafka VERSION (default 3.9.1), --no-java,
// --kmock-dist cache|repo (as bench/broker/run.ts).
//
// Workloads, each on a fresh topic, on kmock (a separate `kmock start` process) and on Kafka
// (KRaft, scripts/kafka-reference), each started once and warmed up by the same untimed round,
// interleaved rep by rep:
//  1. kafkajs 2.2.4 transactional produce: transactions of 100 records (one send each) and of
//     10,000 records (20 sends of 500), acks=all (kafkajs's transactional default), 100-byte values;
//  2. the same with Java kafka-clients 3.9.1 (test/support/clients/TxnBench.java: linger.ms=5);
//  3. read_committed consume of what 1 and 2 wrote: a kafkajs consumer (READ_COMMITTED is its
//     default) and a Java consumer with isolation.level=read_committed, in a fresh group; msgs/s
//     from consumer.run() / subscribe() to the last record, the group join included (initial
//     rebalance delay 0 on both brokers): a few thousand records fit in one fetch.
// Reported: msgs/s and transactions/s per broker, kmock / Kafka as ratios of this run's medians,
// and kmock's broker CPU per 1,000 messages (its process, /proc). Noisy shared machine: only the
// ratios are meaningful, never the absolute numbers.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import kafkajs, { type Kafka as KafkaT } from 'kafkajs';
import { buildKmock, cpuMsOf, kmockSpec, REPO, spawnBroker } from './peers.js';
import { buildJavaProgram } from '../../test/support/clients/java.js';
import { run } from '../../test/support/clients/processes.js';

const { Kafka, logLevel } = kafkajs;

interface Args {
  quick: boolean;
  out?: string;
  reps: number;
  kafka: string;
  java: boolean;
  kmockDist: 'cache' | 'repo';
}

function parseArgs(argv: string[]): Args {
  const a: Args = { quick: false, reps: 3, kafka: '3.9.1', java: true, kmockDist: 'cache' };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    if (s === '--quick') a.quick = true;
    else if (s === '--out') a.out = argv[++i];
    else if (s === '--reps') a.reps = Number(argv[++i]);
    else if (s === '--kafka') a.kafka = argv[++i]!;
    else if (s === '--no-java') a.java = false;
    else if (s === '--kmock-dist') a.kmockDist = argv[++i] as 'cache' | 'repo';
    else throw new Error(`unknown argument ${s}`);
  }
  if (a.quick) a.reps = 1;
  return a;
}

const progress = (msg: string): void => void process.stderr.write(`[txn-bench] ${msg}\n`);

/** One workload's shape: records per transaction, transactions, records per send (kafkajs). */
interface Shape {
  name: string;
  txnSize: number;
  txns: number;
  perSend: number;
}

function shapes(quick: boolean): Shape[] {
  return quick
    ? [{ name: '100', txnSize: 100, txns: 10, perSend: 100 }, { name: '10,000', txnSize: 10_000, txns: 1, perSend: 500 }]
    : [{ name: '100', txnSize: 100, txns: 100, perSend: 100 }, { name: '10,000', txnSize: 10_000, txns: 5, perSend: 500 }];
}

type Sample = { msgsPerSec: number; txnsPerSec: number; brokerCpuPerK?: number };
type Results = Map<string, { kmock: Sample[]; kafka: Sample[] }>;

function record(results: Results, key: string, side: 'kmock' | 'kafka', s: Sample): void {
  const r = results.get(key) ?? { kmock: [], kafka: [] };
  results.set(key, r);
  r[side].push(s);
}

function client(bootstrap: string): KafkaT {
  return new Kafka({ clientId: 'txn-bench', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8 } });
}

async function createTopic(bootstrap: string, topic: string): Promise<void> {
  const admin = client(bootstrap).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/** kafkajs: `shape.txns` transactions after one untimed warm-up transaction. */
async function kafkajsProduce(bootstrap: string, topic: string, shape: Shape, tid: string): Promise<Sample> {
  const producer = client(bootstrap).producer({ transactionalId: tid, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const value = Buffer.alloc(100, 0x61);
  const batch = Array.from({ length: shape.perSend }, () => ({ value }));
  const one = async () => {
    const tx = await producer.transaction();
    for (let sent = 0; sent < shape.txnSize; sent += shape.perSend) await tx.send({ topic, messages: batch });
    await tx.commit();
  };
  try {
    await one();
    const t0 = performance.now();
    for (let t = 0; t < shape.txns; t++) await one();
    const s = (performance.now() - t0) / 1000;
    return { msgsPerSec: (shape.txns * shape.txnSize) / s, txnsPerSec: shape.txns / s };
  } finally {
    await producer.disconnect();
  }
}

/** A kafkajs consumer (READ_COMMITTED, its default) reads `expected` records from the beginning. */
async function kafkajsConsume(bootstrap: string, topic: string, group: string, expected: number): Promise<Sample> {
  const consumer = client(bootstrap).consumer({ groupId: group });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let count = 0;
  try {
    const t0 = performance.now();
    const end = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kafkajs read ${count}/${expected}`)), 120_000);
      void consumer.run({
        eachBatch: async ({ batch }) => {
          count += batch.messages.length;
          if (count >= expected) {
            clearTimeout(timer);
            resolve(performance.now());
          }
        },
      });
    });
    if (count !== expected) throw new Error(`kafkajs read ${count} records, ${expected} committed`);
    return { msgsPerSec: (count / (end - t0)) * 1000, txnsPerSec: NaN };
  } finally {
    await consumer.disconnect();
  }
}

async function javaRun(argv: string[], args: string[]): Promise<{ records: number; ms: number; txns?: number }> {
  const [cmd, ...rest] = argv;
  const r = await run(cmd!, [...rest, ...args], { timeoutMs: 300_000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(line || '{}') as { records?: number; ms?: number; txns?: number; error?: string; message?: string };
  if (r.code !== 0 || parsed.error !== undefined || parsed.ms === undefined) {
    throw new Error(`TxnBench ${args[0]} failed (${r.code}): ${line} ${r.stderr.slice(-800)}`);
  }
  return { records: parsed.records!, ms: parsed.ms, txns: parsed.txns };
}

/** Every workload once on one broker; `cpu` reads the broker's CPU ms (kmock only). */
async function workloads(side: 'kmock' | 'kafka', bootstrap: string, rep: number, a: Args, java: string[] | undefined, results: Results, cpu?: () => number): Promise<void> {
  for (const shape of shapes(a.quick)) {
    const topic = `txn-bench-${side}-${rep}-${shape.txnSize}`;
    await createTopic(bootstrap, topic);
    const c0 = cpu?.();
    const p = await kafkajsProduce(bootstrap, topic, shape, `txn-bench-${side}-${rep}-${shape.txnSize}`);
    if (c0 !== undefined) p.brokerCpuPerK = ((cpu!() - c0) / ((shape.txns + 1) * shape.txnSize)) * 1000;
    record(results, `kafkajs produce, transactions of ${shape.name}`, side, p);
    progress(`${side}#${rep + 1} kafkajs produce ×${shape.name}: ${Math.round(p.msgsPerSec)} msgs/s, ${p.txnsPerSec.toFixed(1)} txns/s`);
    const expected = (shape.txns + 1) * shape.txnSize;
    const c = await kafkajsConsume(bootstrap, topic, `g-${topic}`, expected);
    record(results, `kafkajs read_committed consume (transactions of ${shape.name})`, side, c);
    progress(`${side}#${rep + 1} kafkajs consume ×${shape.name}: ${Math.round(c.msgsPerSec)} msgs/s`);
    if (java) {
      const jt = `${topic}-java`;
      await createTopic(bootstrap, jt);
      const jc0 = cpu?.();
      const jp = await javaRun(java, ['produce', '--bootstrap', bootstrap, '--topic', jt, '--transactional-id', `${jt}-tid`, '--txn-size', String(shape.txnSize), '--txns', String(shape.txns)]);
      const js: Sample = { msgsPerSec: (jp.records / jp.ms) * 1000, txnsPerSec: (shape.txns / jp.ms) * 1000 };
      if (jc0 !== undefined) js.brokerCpuPerK = ((cpu!() - jc0) / ((shape.txns + 1) * shape.txnSize)) * 1000;
      record(results, `Java produce, transactions of ${shape.name}`, side, js);
      progress(`${side}#${rep + 1} Java produce ×${shape.name}: ${Math.round(js.msgsPerSec)} msgs/s`);
      const jr = await javaRun(java, ['consume', '--bootstrap', bootstrap, '--topic', jt, '--group', `g-${jt}`, '--expected', String(expected)]);
      if (jr.records !== expected) throw new Error(`Java read ${jr.records}, ${expected} committed`);
      record(results, `Java read_committed consume (transactions of ${shape.name})`, side, { msgsPerSec: (jr.records / jr.ms) * 1000, txnsPerSec: NaN });
    }
  }
}

const median = (xs: number[]): number => {
  const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const ratio = (x: number, y: number) => (Number.isFinite(x) && Number.isFinite(y) && y !== 0 ? `${(x / y).toFixed(2)}×` : '—');

function report(results: Results, a: Args, meta: string[]): string {
  const lines = [
    '# Transactions benchmark: kmock vs Apache Kafka',
    '',
    '`npx tsx bench/broker/txn.ts` (bench/broker/txn.ts). Medians of the repetitions; ratios from this one run.',
    'The machine is shared and noisy: compare the ratios, not the absolute figures.',
    '',
    ...meta.map((m) => `- ${m}`),
    '',
    `| workload | kmock msgs/s | Kafka ${a.kafka} msgs/s | kmock / Kafka | kmock txns/s | Kafka txns/s | kmock broker CPU per 1,000 msgs |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, r] of results) {
    const km = median(r.kmock.map((s) => s.msgsPerSec));
    const ka = median(r.kafka.map((s) => s.msgsPerSec));
    const kt = median(r.kmock.map((s) => s.txnsPerSec));
    const at = median(r.kafka.map((s) => s.txnsPerSec));
    const cpu = median(r.kmock.map((s) => s.brokerCpuPerK ?? NaN));
    lines.push(`| ${name} | ${f0(km)} | ${f0(ka)} | ${ratio(km, ka)} | ${f1(kt)} | ${f1(at)} | ${Number.isFinite(cpu) ? `${cpu.toFixed(1)} ms` : '—'} |`);
  }
  lines.push('', 'Per repetition (msgs/s):', '');
  for (const [name, r] of results) lines.push(`- ${name}: kmock ${r.kmock.map((s) => f0(s.msgsPerSec)).join(', ')}; Kafka ${r.kafka.map((s) => f0(s.msgsPerSec)).join(', ')}`);
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const kmock = buildKmock(a.kmockDist);
  let java: string[] | undefined;
  if (a.java) {
    const built = await buildJavaProgram('TxnBench.java', a.kafka);
    if ('argv' in built) java = built.argv;
    else progress(`Java: ${'unavailable' in built ? built.unavailable : built.failed}; no Java rows`);
  }
  const script = join(REPO, 'scripts', 'kafka-reference');
  const out = execFileSync(script, ['start', a.kafka, '--set', 'group.initial.rebalance.delay.ms=0'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const m = /listening on (\S+)/.exec(out);
  if (!m) throw new Error(`kafka-reference start printed no address: ${out}`);
  const kafkaBootstrap = m[1]!;
  const results: Results = new Map();
  const load0 = loadavg()[0].toFixed(2);
  try {
    // Both brokers run for the whole benchmark and get the same untimed warm-up round first (a
    // cold process's first group join and first transaction would otherwise be timed on kmock
    // only: Kafka's JVM is started once).
    const p = await spawnBroker(kmockSpec(kmock, ['--set', 'group.initial.rebalance.delay.ms=0']));
    try {
      progress(`kmock at ${p.bootstrap}, Kafka ${a.kafka} at ${kafkaBootstrap}: untimed warm-up`);
      await workloads('kmock', p.bootstrap, -1, { ...a, quick: true }, java, new Map());
      await workloads('kafka', kafkaBootstrap, -1, { ...a, quick: true }, java, new Map());
      for (let rep = 0; rep < a.reps; rep++) {
        await workloads('kmock', p.bootstrap, rep, a, java, results, () => cpuMsOf(p.pid));
        await workloads('kafka', kafkaBootstrap, rep, a, java, results);
      }
    } finally {
      await p.stop();
    }
  } finally {
    execFileSync(script, ['stop', '--port', kafkaBootstrap.split(':')[1]!], { stdio: 'ignore' });
  }
  const kafkajsVersion = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'kafkajs', 'package.json'), 'utf8')) as { version: string }).version;
  const text = report(results, a, [
    `${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${load0} → ${loadavg()[0].toFixed(2)}, ${a.reps} repetitions`,
    `kmock ${kmock.source === 'cache' ? `src hash ${kmock.hash}` : 'repo dist/'}; kafkajs ${kafkajsVersion}; Java kafka-clients ${a.kafka}${java ? '' : ' (not run)'}; Kafka ${a.kafka} KRaft, one broker, group.initial.rebalance.delay.ms=0 on both`,
  ]);
  process.stdout.write(text);
  if (!a.quick) {
    const file = a.out ?? join(REPO, 'bench', 'results', 'transactions.md');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    progress(`wrote ${relative(REPO, file)}`);
  }
}

await main();
