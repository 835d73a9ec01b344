// `npm run conformance` (suggested script: "tsx test/conformance/main.ts"): runs every scenario and
// the seeded random sequences against kmock and the reference Kafka (or a second kmock), prints a
// line per scenario and writes CONFORMANCE.md. Exit code 1 when a difference is unexplained, or
// (with --strict) when any non-accepted difference remains.
//
//   tsx test/conformance/main.ts [--out CONFORMANCE.md] [--filter REGEXP] [--random N]
//                                [--kafka VERSION] [--no-reference] [--strict]
//                                [--seeds 1,2,3 | --seeds 100-160] [--len N] [--static]
//                                [--also-kafka 4.4.0] [--no-clients | --clients kafkajs,java-3.9.1]
//                                [--clients-kafka 3.9.1,4.4.0]
//
// --also-kafka V: the scenarios are played against Kafka V as well, its report written to
// CONFORMANCE-kafka-V.md and summarised in CONFORMANCE.md (informational: kmock follows 3.9).
// The client matrix (clients/, PROTOCOL.md) runs after the scenarios unless --no-clients, against
// kmock and the --clients-kafka releases (default: --kafka and --also-kafka).
//
// Exploring with more random sequences than the suite runs (only those, no scenarios):
//   tsx test/conformance/main.ts --filter random --seeds 100-160 --len 30 --static --out /tmp/x.md
import { describeActions, generate } from './random.js';
import { writeConformanceReport, verdict, type RandomResult } from './report.js';
import { CLIENT_APPS } from './clients/apps.js';
import { matrixFails, renderMatrix, runMatrix, startMatrixBrokers, type MatrixResult } from './clients/matrix.js';
import { ALL_SCENARIOS } from './scenarios/index.js';
import {
  RANDOM_LENGTH,
  RANDOM_SEEDS,
  TargetPool,
  kmockProvider,
  referenceProvider,
  runPair,
  runRandomSequence,
  scenarioSettings,
  type ScenarioResult,
} from './suite.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = arg('--out') ?? 'CONFORMANCE.md';
const filter = arg('--filter') ? new RegExp(arg('--filter')!) : null;
const version = arg('--kafka') ?? process.env.KMOCK_CONFORMANCE_KAFKA ?? '3.9.1';
const strict = process.argv.includes('--strict');
function parseSeeds(text: string): number[] {
  return text.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    return to === undefined ? [from] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}
const seeds = arg('--seeds') ? parseSeeds(arg('--seeds')!) : RANDOM_SEEDS.slice(0, Number(arg('--random') ?? 8));
const length = Number(arg('--len') ?? RANDOM_LENGTH);
const staticShare = process.argv.includes('--static') ? 0.85 : 0.5;
const alsoVersions = (arg('--also-kafka') ?? process.env.KMOCK_CONFORMANCE_ALSO_KAFKA ?? '').split(',').filter(Boolean);
const clientFilter = arg('--clients')?.split(',');
// A --filter run is about scenarios: the matrix joins it only when asked for with --clients.
const clientsWanted =
  !process.argv.includes('--no-clients') && process.env.KMOCK_CONFORMANCE_CLIENTS !== '0' && (filter === null || clientFilter !== undefined);
const clientVersions = (arg('--clients-kafka') ?? [version, ...alsoVersions].join(',')).split(',').filter(Boolean);

const started = Date.now();
const found = process.argv.includes('--no-reference') ? { reason: '--no-reference' } : await referenceProvider(version);
const reference = 'reason' in found ? null : found;
const pool = new TargetPool([kmockProvider('kmock'), reference ?? kmockProvider('kmock-2')]);
const scenarios = ALL_SCENARIOS.filter((s) => filter === null || filter.test(s.name));
pool.prestart([...new Map(scenarios.map((s) => [JSON.stringify(scenarioSettings(s)), scenarioSettings(s)])).values()]);
console.log('reason' in found ? `no reference Kafka ${version} (${found.reason}): kmock vs kmock` : `kmock vs ${found.name}`);

const results: ScenarioResult[] = [];
let failing = 0;
/** Scenarios, random sequences and client-matrix comparisons: each counts as one test. */
let total = 0;
const failed = (r: ScenarioResult) =>
  r.errors.length > 0 ||
  r.differences.some((d) => !d.accepted && (strict || d.cause === undefined)) ||
  (r.mode === 'self' && r.expectationFailures[0].length > 0);
try {
  for (const s of scenarios) {
    let r = await runPair(s, pool);
    if (failed(r)) r = await runPair(s, pool); // one retry, as in the vitest suite
    results.push(r);
    if (failed(r)) failing++;
    console.log(`${verdict(r).padEnd(34)} ${s.name} (${r.elapsedMs} ms)`);
  }
  const random: RandomResult[] = [];
  if (filter === null || filter.test('random')) {
    for (const seed of seeds) {
      const seq = generate(seed, { length, staticShare });
      const rr = await runRandomSequence(seq, pool);
      random.push(rr);
      if (failed(rr.shrunk?.result ?? rr.result)) failing++;
      console.log(`${verdict(rr.result).padEnd(34)} random seed ${seed} (${rr.result.elapsedMs} ms)`);
      if (rr.shrunk) console.log(describeActions(seq, rr.shrunk.actions).replace(/^/gm, '    '));
    }
  }
  await pool.close();
  const sections: string[] = [];
  for (const other of alsoVersions) sections.push(await runOtherRelease(other));
  if (clientsWanted) {
    const matrix = await runClientMatrix();
    sections.push(renderMatrix(matrix));
  }
  await writeConformanceReport(
    {
      scenarios: results,
      random,
      elapsedMs: Date.now() - started,
      notes: [`Random sequences: seeds ${seeds.join(', ')}, ${length} actions each${staticShare > 0.5 ? ', mostly static members' : ''}.`],
      sections,
    },
    out,
  );
  console.log(`${results.length} scenarios, ${random.length} random sequences, ${failing} failing; ${((Date.now() - started) / 1000).toFixed(1)} s; report in ${out}`);
  // The plain closing line CI reads: each scenario and random sequence counts as one test.
  total += results.length + random.length;
  console.log(`conformance: ${total - failing} passed, ${failing} failed`);
} finally {
  await pool.close();
}
process.exit(failing > 0 ? 1 : 0);

/** The scenarios against another Kafka release: its own report file, a summary for CONFORMANCE.md. */
async function runOtherRelease(other: string): Promise<string> {
  const file = out.replace(/(\.md)?$/, `-kafka-${other}.md`);
  const provider = await referenceProvider(other);
  if ('reason' in provider) {
    console.log(`no Kafka ${other} (${provider.reason})`);
    return `## Kafka ${other}\n\nNot run: ${provider.reason}\n`;
  }
  const otherPool = new TargetPool([kmockProvider('kmock'), provider]);
  const t0 = Date.now();
  const otherResults: ScenarioResult[] = [];
  try {
    otherPool.prestart([...new Map(scenarios.map((s) => [JSON.stringify(scenarioSettings(s)), scenarioSettings(s)])).values()]);
    for (const s of scenarios) {
      let r = await runPair(s, otherPool);
      if (r.errors.length > 0 || r.differences.some((d) => d.cause === undefined)) r = await runPair(s, otherPool);
      otherResults.push(r);
      console.log(`${verdict(r).padEnd(34)} ${s.name} vs ${provider.name} (${r.elapsedMs} ms)`);
    }
  } finally {
    await otherPool.close();
  }
  await writeConformanceReport({ scenarios: otherResults, elapsedMs: Date.now() - t0, notes: [`kmock follows Kafka 3.9; this run shows where ${provider.name} answers differently, and why.`] }, file);
  const counts = new Map<string, number>();
  for (const r of otherResults) counts.set(verdict(r), (counts.get(verdict(r)) ?? 0) + 1);
  const differing = otherResults.filter((r) => r.differences.length > 0 || r.errors.length > 0);
  const lines = [
    `## The same scenarios against ${provider.name}`,
    '',
    `kmock follows Kafka 3.9. Against ${provider.name}: ${[...counts].map(([v, n]) => `${n} ${v}`).join(', ')}. Details in [${file}](${file.replace(/^.*\//, '')}).`,
    '',
    '| scenario | result | causes |',
    '|---|---|---|',
    ...differing.map((r) => `| ${r.scenario.name} | ${verdict(r)} | ${[...new Set(r.differences.map((d) => d.cause?.id ?? 'UNEXPLAINED'))].join(', ')} |`),
    '',
  ];
  return lines.join('\n');
}

/** The client matrix against kmock and the reference releases; differences vs `version` count as failures. */
async function runClientMatrix(): Promise<MatrixResult> {
  const apps = CLIENT_APPS.filter((a) => clientFilter === undefined || clientFilter.includes(a.id));
  const { brokers, missing } = await startMatrixBrokers(clientVersions);
  try {
    console.log(`client matrix: ${brokers.map((b) => b.name).join(', ')}${missing.map((m) => `; no Kafka ${m.version}: ${m.reason}`).join('')}`);
    const r = await runMatrix(apps, brokers, console.log);
    for (const c of r.comparisons) {
      const counts = c.reference === `kafka-${version}` || c.reference.startsWith(`kafka-${version}`);
      const fails = counts && matrixFails(c, strict);
      if (fails) failing++;
      total++;
    }
    return { ...r, brokers: brokers.map((b) => b.name), missing };
  } finally {
    await Promise.all(brokers.map((b) => b.stop().catch(() => undefined)));
  }
}
