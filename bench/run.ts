// Runs every codec benchmark and writes a markdown report.
//
//   npm run bench                      full run → bench/results/codec.md (overwritten)
//   npm run bench -- --quick           smoke run (seconds) → bench/results/codec.quick.md
//   npm run bench -- --filter 'v5'     only ops whose name matches the regex (no file written
//                                      unless --out is given)
//   npm run bench -- --out FILE        write the report to FILE instead
//   npm run bench -- --clock wall      time with performance.now() instead of process CPU time
//   npm run bench -- --no-records      leave out bench/records.bench.ts's record-batch cases
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, arch } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCases, v5Truncation } from './codec.bench.js';
import {
  baselineOf,
  CheckError,
  clockTotals,
  FULL,
  fmtOps,
  fmtRatio,
  gcAvailable,
  QUICK,
  runCase,
  setClock,
  targetOutcome,
  type Clock,
  type BenchCase,
  type CaseResult,
  type HarnessOptions,
  type TargetOutcome,
} from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));

interface Args {
  quick: boolean;
  filter?: RegExp;
  out?: string;
  clock: Clock;
  noRecords: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { quick: false, clock: 'cpu', noRecords: false };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    if (s === '--quick') a.quick = true;
    else if (s === '--filter') a.filter = new RegExp(argv[++i]);
    else if (s === '--out') a.out = argv[++i];
    else if (s === '--no-records') a.noRecords = true;
    else if (s === '--clock') {
      const c = argv[++i];
      if (c !== 'cpu' && c !== 'wall') throw new Error('--clock takes cpu or wall');
      a.clock = c;
    }
    else if (s === '--help' || s === '-h') {
      console.log('usage: tsx bench/run.ts [--quick] [--filter REGEX] [--out FILE] [--clock cpu|wall] [--no-records]');
      process.exit(0);
    } else throw new Error(`unknown argument ${s}`);
  }
  return a;
}

/**
 * bench/records.bench.ts (the record-batch module's own benchmarks, same harness) when it exists
 * and loads; src/codec/records is being written concurrently, so a failure to load only warns.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function recordCases(): Promise<BenchCase<any>[]> {
  try {
    const mod = (await import('./records.bench.js')) as { buildRecordCases?: () => BenchCase<never>[] | Promise<BenchCase<never>[]> };
    if (typeof mod.buildRecordCases !== 'function') return [];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (await mod.buildRecordCases()) as unknown as BenchCase<any>[];
  } catch (e) {
    console.error(`(record-batch cases skipped: bench/records.bench.ts did not load: ${(e as Error).message.split('\n')[0]})`);
    return [];
  }
}

function pkgVersion(name: string): string {
  const p = join(here, '..', 'node_modules', ...name.split('/'), 'package.json');
  return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
}

function describeOptions(o: HarnessOptions, quick: boolean): string {
  return (
    `${quick ? '**quick (smoke) mode — not for quoting**' : 'full'}: warm-up ${fmtOps(o.warmupIterations)} calls or ${o.warmupMaxMs} ms per contender, ` +
    `${o.rounds} interleaved rounds of ≤ ${fmtOps(o.maxIterations)} calls (fewer for slow contenders, ~${o.roundMs} ms a round), median ops/s`
  );
}

function resultsTable(results: CaseResult[]): string {
  const out: string[] = [];
  let section = '';
  let notes: string[] = [];
  const flush = () => {
    if (notes.length > 0) out.push('', ...notes.map((n) => `- ${n}`));
    notes = [];
  };
  for (const r of results) {
    if (r.section !== section) {
      flush();
      section = r.section;
      out.push('', `### ${section}`, '', '| op | contender | ops/s | spread | vs kafkajs | vs platformatic |', '|---|---|---:|---:|---:|---:|');
    }
    const kjs = baselineOf(r, 'kafkajs');
    const plt = baselineOf(r, 'platformatic');
    for (const x of r.results) {
      const mark = x.baseline && (x === kjs || x === plt) ? ' *(baseline)*' : '';
      out.push(
        `| ${r.op} | ${x.name}${mark} | ${fmtOps(x.median)} | ${(x.spread * 100).toFixed(1)}% | ${kjs ? fmtRatio(x.median / kjs.median) : '—'} | ${plt ? fmtRatio(x.median / plt.median) : '—'} |`,
      );
    }
    if (r.note !== undefined && !notes.includes(r.note)) notes.push(r.note);
  }
  flush();
  return out.join('\n');
}

function targetsSection(outcomes: TargetOutcome[]): string {
  const out: string[] = [
    '| target | op | kmock ops/s | kafkajs baseline (fastest kafkajs row) | kafkajs ops/s | ratio | per-round ratio | result |',
    '|---|---|---:|---|---:|---:|---:|---|',
  ];
  for (const t of outcomes) {
    out.push(
      `| ${t.label} | ${t.op} | ${fmtOps(t.ours)} | ${t.baseName} | ${fmtOps(t.base)} | ${fmtRatio(t.ratio)} | ${fmtRatio(t.paired)} | ${t.met ? 'met' : '**MISSED**'} |`,
    );
  }
  const labels = [...new Set(outcomes.map((t) => t.label))];
  out.push('');
  for (const l of labels) {
    const xs = outcomes.filter((t) => t.label === l);
    const met = xs.filter((t) => t.met).length;
    const worst = xs.reduce((a, b) => (b.ratio < a.ratio ? b : a));
    out.push(`- **${l}: ${met}/${xs.length} met** (lowest ${fmtRatio(worst.ratio)} at ${worst.op.replace(/^JoinGroup /, '')})`);
  }
  const met = outcomes.filter((t) => t.met).length;
  out.push(`- **All targets: ${met}/${outcomes.length} met, ${outcomes.length - met} missed.**`);
  return out.join('\n');
}

function binaryParserSection(results: CaseResult[]): string {
  const r = results.find((x) => x.op === 'JoinGroup request decode v5');
  if (r === undefined) return '_Not run (filtered out)._';
  const ours = r.results[0];
  const kjs = baselineOf(r, 'kafkajs');
  const raw = r.results.find((x) => x.name.startsWith('binary-parser') && x.name.includes('raw'));
  const shaped = r.results.find((x) => x.name.startsWith('binary-parser') && x.name.includes('reshape'));
  if (raw === undefined || shaped === undefined) return '_binary-parser rows missing._';
  const t = v5Truncation;
  const lines = [
    '| decoder (JoinGroup v5 request body, same bytes) | ops/s | kmock ÷ this |',
    '|---|---:|---:|',
    `| ${ours.name} (generated, bounds-checked) | ${fmtOps(ours.median)} | 1.00× |`,
    `| ${raw.name} | ${fmtOps(raw.median)} | ${fmtRatio(ours.median / raw.median)} |`,
    `| ${shaped.name} | ${fmtOps(shaped.median)} | ${fmtRatio(ours.median / shaped.median)} |`,
  ];
  if (kjs !== undefined) lines.push(`| ${kjs.name} | ${fmtOps(kjs.median)} | ${fmtRatio(ours.median / kjs.median)} |`);
  lines.push('');
  if (t !== undefined) {
    lines.push(
      `Truncation probe (every proper prefix of the ${t.prefixes}-byte body): kmock threw on ${t.oursThrew}/${t.prefixes}; ` +
        `binary-parser threw on ${t.bpThrew}/${t.prefixes} and **returned a (wrong) result without error on ${t.bpReturnedSilently}**.`,
      '',
    );
  }
  const faster = ours.median > raw.median;
  lines.push(
    faster
      ? `**Decision: do not use binary-parser.** The generated decoder is ${fmtRatio(ours.median / raw.median)} faster than binary-parser's raw parse ` +
          `(${fmtRatio(ours.median / shaped.median)} once its result is reshaped into the message), it checks bounds` +
          (t !== undefined && t.bpReturnedSilently > 0 ? ` (binary-parser silently accepted ${t.bpReturnedSilently} truncated inputs)` : '') +
          `, and binary-parser cannot encode, has no varint type (every flexible version would need the per-byte array idiom) and needs one parser per version. ` +
          `It stays a dev-dependency for this benchmark only.`
      : `**binary-parser was faster in this run** (${fmtRatio(raw.median / ours.median)}); reconsider, but note it does not bounds-check strings/buffers` +
          (t !== undefined ? ` (${t.bpReturnedSilently} truncated inputs accepted)` : '') +
          ' and cannot encode.',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const opts = args.quick ? QUICK : FULL;
  setClock(args.clock);
  const started = new Date();
  const load0 = loadavg();
  const all = await buildCases();
  if (!args.noRecords) all.push(...(await recordCases()));
  const cases = args.filter === undefined ? all : all.filter((c) => args.filter!.test(c.op));
  console.error(`kmock codec bench: ${cases.length} cases, ${args.quick ? 'quick' : 'full'} mode, gc between blocks: ${gcAvailable ? 'yes' : 'no'}`);
  const results: CaseResult[] = [];
  const failures: { section: string; op: string; message: string }[] = [];
  for (const c of cases) {
    try {
      results.push(await runCase(c, opts, (s) => console.error(s)));
    } catch (e) {
      if (!(e instanceof CheckError)) throw e;
      // A contender disagreed or a verification failed: no numbers for this case, keep going.
      console.error(`\nCHECK FAILED (case not timed): ${e.message}\n`);
      failures.push({ section: c.section, op: c.op, message: e.message.split('\n')[0] });
      process.exitCode = 1;
    }
  }
  const load1 = loadavg();
  const outcomes = results.map(targetOutcome).filter((t): t is TargetOutcome => t !== undefined);
  const cpu = cpus();
  const md = [
    '# kmock codec benchmarks',
    '',
    `- Date: ${started.toISOString()}`,
    `- Node ${process.version} (V8 ${process.versions.v8}), ${platform()} ${arch()}, ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}; load average ${load0[0].toFixed(2)} at start, ${load1[0].toFixed(2)} at end`,
    `- kafkajs ${pkgVersion('kafkajs')}, @platformatic/kafka ${pkgVersion('@platformatic/kafka')}, binary-parser ${pkgVersion('binary-parser')}; kmock from src/ via tsx`,
    `- Method: ${describeOptions(opts, args.quick)}; GC before every timed block: ${gcAvailable ? 'yes' : 'no'}; every contender's result checked equal before timing.`,
    `- Clock: ${args.clock === 'cpu' ? 'process CPU time (user+system, `process.cpuUsage()`), so that other processes on this shared machine do not count against whoever is running' : 'wall time (`performance.now()`)'}. ` +
      `Over all timed blocks this process got ${((100 * clockTotals.cpuMs) / clockTotals.wallMs).toFixed(0)}% of a core (CPU ÷ wall); near 100% means an uncontended run.`,
    '- Ratios compare numbers from this one run (not timed tests). "spread" = (max − min) / median over the rounds. Where a library has several rows marked as candidates, the **fastest** is the baseline (conservative for kmock).',
    '- A target counts as met when ratio (of the medians) ≥ the target; "per-round ratio" (median over rounds of kmock ÷ baseline, the two blocks of a round being close in time) is a cross-check against noise.',
    '- Produced by `npm run bench` (bench/run.ts); overwritten on every full run.',
    '',
    '## Targets',
    '',
    outcomes.length > 0 ? targetsSection(outcomes) : '_No target cases in this run._',
    '',
    '## Results',
    resultsTable(results),
    '',
    ...(failures.length > 0
      ? ['## Cases not timed because a check failed', '', ...failures.map((f) => `- ${f.section} / ${f.op}: ${f.message}`), '']
      : []),
    '## binary-parser 2.3.0 as a JoinGroup v5 decoder',
    '',
    binaryParserSection(results),
    '',
  ].join('\n');
  console.log(md);
  let out = args.out;
  if (out === undefined && args.filter === undefined) out = join(here, 'results', args.quick ? 'codec.quick.md' : 'codec.md');
  if (out !== undefined) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, md);
    console.error(`\nwritten to ${out}`);
  }
}

await main();
