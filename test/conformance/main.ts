// `npm run conformance`: runs every scenario and the seeded random sequences against kmock and the
// reference Kafka, prints a line per scenario and writes CONFORMANCE.md. Exit code 1 when any
// scenario fails: a difference that no accepting cause explains (a known kmock bug included), a
// runner error, a stale cause, or no reference Kafka where one is required.
//
//   tsx test/conformance/main.ts [--out CONFORMANCE.md] [--filter REGEXP] [--random N]
//                                [--kafka VERSION] [--no-reference]
//                                [--seeds 1,2,3 | --seeds 100-160] [--len N] [--static]
//                                [--also-kafka 4.4.0] [--no-clients | --clients kafkajs,java-3.9.1]
//                                [--clients-kafka 3.9.1,4.4.0] [--matrix-passes plaintext,sasl_ssl]
//
// The reference: without one (no Java or Maven here) a local run compares kmock with a second
// kmock and says so on every line; under CI=true or KMOCK_REFERENCE=require it fails instead, and
// --no-reference asks for the kmock-vs-kmock run explicitly.
// --also-kafka V: the scenarios and random sequences are played against Kafka V as well, its
// report written to CONFORMANCE-kafka-V.md and summarised in CONFORMANCE.md; kmock follows 3.9,
// so a difference there must be a sourced 4.x change (causes-4x.ts) or it fails.
// The client matrix (clients/, PROTOCOL.md) runs after the scenarios unless --no-clients, against
// kmock and the --clients-kafka releases (default: --kafka and --also-kafka), then its SASL_SSL pass
// (fewer steps, the apps on a SASL_SSL listener) against kmock and --kafka alone, one Kafka at a
// time; --matrix-passes picks the passes (default both).
//
// Every selected scenario with `wait` steps is followed by its "[manual clock]" variant (suite.ts
// clockVariant): the same steps on a kmock with a manual clock, each wait a clock.advance, compared
// with the reference transcript of the scenario's own run.
//
// Exploring with more random sequences than the suite runs (only those, no scenarios):
//   tsx test/conformance/main.ts --filter random --seeds 100-160 --len 30 --static --out /tmp/x.md
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeActions, generate, scenarioSource } from './random.js';
import { computeCoverage, coverageFailures, renderCoverage } from './random-coverage.js';
import { writeConformanceReport, verdict, type RandomResult } from './report.js';
import { CLIENT_APPS } from './clients/apps.js';
import type { StepName } from './clients/driver.js';
import {
  matrixFails,
  renderMatrix,
  runMatrix,
  SASL_SSL_PASS,
  startMatrixBrokers,
  startSaslSslMatrixBrokers,
  type MatrixBroker,
  type MatrixResult,
} from './clients/matrix.js';
import { ALL_SCENARIOS } from './scenarios/index.js';
import { CAUSES, staleCauses } from './causes.js';
import { CAUSES_4X } from './causes-4x.js';
import { formatDiff } from './runner.js';
import { CLOCK_MUTATIONS, MUTATIONS, brokenClockKmockProvider, mutatedKmockProvider } from './support/mutations.js';
import { manualClockKmockProvider } from './support/manual-clock.js';
import {
  ClockedTargets,
  RANDOM_LENGTH,
  RANDOM_SEEDS,
  TargetPool,
  hasWaits,
  kmockProvider,
  referenceProvider,
  runClockVariant,
  runClockVariantWithRetry,
  runPair,
  runPairWithRetry,
  runRandomSequence,
  scenarioFails,
  unexplained,
  type ScenarioResult,
  type TargetProvider,
} from './suite.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = arg('--out') ?? 'CONFORMANCE.md';
const filter = arg('--filter') ? new RegExp(arg('--filter')!) : null;
const version = arg('--kafka') ?? process.env.KMOCK_CONFORMANCE_KAFKA ?? '3.9.1';
function parseSeeds(text: string): number[] {
  return text.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    return to === undefined ? [from] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}
const seeds = arg('--seeds') ? parseSeeds(arg('--seeds')!) : RANDOM_SEEDS.slice(0, Number(arg('--random') ?? RANDOM_SEEDS.length));
const length = Number(arg('--len') ?? RANDOM_LENGTH);
const staticShare = process.argv.includes('--static') ? 0.85 : 0.5;
const alsoVersions = (arg('--also-kafka') ?? process.env.KMOCK_CONFORMANCE_ALSO_KAFKA ?? '').split(',').filter(Boolean);
const clientFilter = arg('--clients')?.split(',');
// A --filter run is about scenarios: the matrix joins it only when asked for with --clients.
const clientsWanted =
  !process.argv.includes('--no-clients') && process.env.KMOCK_CONFORMANCE_CLIENTS !== '0' && (filter === null || clientFilter !== undefined);
/**
 * Group states the random sequences must reach (random-coverage.ts's floor). Empty is not among
 * them yet: the closed-loop clients never describe a group after its last member left.
 */
const COVERAGE_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable'];
const clientVersions = (arg('--clients-kafka') ?? [version, ...alsoVersions].join(',')).split(',').filter(Boolean);
const matrixPasses = (arg('--matrix-passes') ?? 'plaintext,sasl_ssl').split(',').filter(Boolean);

const started = Date.now();
const referenceRequired = process.env.KMOCK_REFERENCE === 'require' || process.env.CI === 'true';
let found: Awaited<ReturnType<typeof referenceProvider>>;
try {
  found = process.argv.includes('--no-reference') ? { reason: '--no-reference' } : await referenceProvider(version);
} catch (e) {
  found = { reason: e instanceof Error ? e.message : String(e) };
}
if ('reason' in found && found.reason !== '--no-reference' && referenceRequired) {
  // CI compares with real Kafka or fails: a kmock-vs-kmock run proves nothing about conformance.
  console.error(`conformance: reference Kafka ${version} is required here (CI / KMOCK_REFERENCE=require) but unavailable: ${found.reason}`);
  console.log('conformance: 0 passed, 1 failed');
  process.exit(1);
}
const reference = 'reason' in found ? null : found;
const pool = new TargetPool([kmockProvider('kmock'), reference ?? kmockProvider('kmock-2')]);
/** The manual-clock kmocks of the "[manual clock]" variants: targets of their own, never the pool's. */
const clocked = new ClockedTargets(manualClockKmockProvider());
const scenarios = ALL_SCENARIOS.filter((s) => filter === null || filter.test(s.name));
const randomWanted = filter === null || filter.test('random');
pool.prestart(scenarios);
const selfNote = 'reason' in found ? ` [kmock vs kmock: NOT a conformance check (${found.reason})]` : '';
console.log('reason' in found ? `no reference Kafka ${version} (${found.reason}): kmock vs kmock, self-consistency only` : `kmock vs ${found.name}`);

const CLOCK_VARIANT_NOTE =
  'Each scenario with wait steps is also played as "<name> [manual clock]": on a kmock whose clock is manual, each wait a clock.advance (the clock follows real time in between), compared with the reference transcript of the scenario\'s run, with the scenario\'s causes.';
const results: ScenarioResult[] = [];
let failing = 0;
/** Scenarios, random sequences, stale-cause and gate checks, client-matrix comparisons: one test each. */
let total = 0;
try {
  for (const s of scenarios) {
    const r = await runPairWithRetry(s, pool);
    const played = hasWaits(s) ? [r, await runClockVariantWithRetry(r, pool, clocked)] : [r];
    for (const x of played) {
      results.push(x);
      if (scenarioFails(x)) failing++;
      console.log(`${verdict(x).padEnd(34)} ${x.scenario.name} (${x.elapsedMs} ms)${x.firstAttempt ? ` [retried: first attempt ${verdict(x.firstAttempt)}]` : ''}${selfNote}`);
      if (scenarioFails(x)) console.log(failureText(x));
    }
  }
  const random = randomWanted ? await runRandom(pool, '') : [];
  // A generator that stops exploring fails the run, as a scenario that stops checking would.
  const coverageFloor = { states: COVERAGE_STATES };
  if (random.length > 0) {
    const short = coverageFailures(computeCoverage(random), coverageFloor);
    total++;
    if (short.length > 0) failing++;
    console.log(short.length === 0 ? 'random sequence coverage: floor met' : `FAIL: random sequence coverage below the floor: ${short.join('; ')}`);
  }
  // Against the release kmock follows: a 4.x reference differs by design where the mutations are.
  if (reference !== null && /^kafka-3\.9\./.test(reference.name)) await runGateChecks();
  await pool.close();
  await clocked.close();
  // A cause no difference matched in a complete run against the release it was written for is
  // stale: kmock changed (remove it) or the scenario no longer shows it.
  const complete = filter === null && reference !== null && /^3\.9\./.test(reference.name.replace(/^kafka-/, ''));
  const stale = complete ? staleCauses(CAUSES, [...results, ...random.map((x) => x.result)].flatMap((r) => r.differences)) : [];
  if (complete) {
    total++;
    if (stale.length > 0) failing++;
    console.log(stale.length === 0 ? 'no stale causes' : `FAIL: stale causes (no difference matched them): ${stale.map((c) => c.id).join(', ')}`);
  }
  const sections: string[] = [];
  for (const other of alsoVersions) sections.push(await runOtherRelease(other));
  if (clientsWanted && matrixPasses.includes('plaintext')) sections.push(renderMatrix(await runClientMatrix(() => startMatrixBrokers(clientVersions))));
  if (clientsWanted && matrixPasses.includes('sasl_ssl')) {
    const t0 = Date.now();
    const sasl = await runClientMatrix(() => startSaslSslMatrixBrokers(version), SASL_SSL_PASS.steps, 'client matrix over SASL_SSL');
    console.log(`client matrix over SASL_SSL: ${((Date.now() - t0) / 1000).toFixed(1)} s, brokers' start and stop included`);
    sections.push(renderMatrix(sasl, SASL_SSL_PASS));
  }
  await writeConformanceReport(
    {
      scenarios: results,
      random,
      elapsedMs: Date.now() - started,
      notes: [`Random sequences: seeds ${describeSeeds(seeds)}, ${length} actions each${staticShare > 0.5 ? ', mostly static members' : ''}.`, CLOCK_VARIANT_NOTE],
      sections,
      stale,
      randomCoverage: random.length > 0 ? renderCoverage(random, coverageFloor) : undefined,
    },
    out,
  );
  console.log(`${results.length} scenarios, ${random.length} random sequences, ${failing} failing; ${((Date.now() - started) / 1000).toFixed(1)} s; report in ${out}`);
  // The plain closing line CI reads: each scenario and random sequence counts as one test.
  total += results.length + random.length;
  console.log(`conformance: ${total - failing} passed, ${failing} failed`);
} finally {
  await pool.close();
  await clocked.close();
}
process.exit(failing > 0 ? 1 : 0);

/**
 * The gate's own check: each mutation (support/mutations.ts) is a deliberately broken kmock; its
 * scenario, played against it and the reference already running, must fail at the mutated field.
 * A mutation the gate lets through is a failure of the run.
 */
async function runGateChecks(): Promise<void> {
  for (const m of MUTATIONS) {
    const s = scenarios.find((x) => x.name === m.scenario);
    if (s === undefined) continue;
    const [, kafka] = await pool.forScenario(s);
    const running: TargetProvider = { name: pool.providers[1].name, kind: 'kafka', start: async () => ({ target: kafka.target, stop: async () => undefined }) };
    const mutated = new TargetPool([mutatedKmockProvider(m), running]);
    try {
      const r = await runPair(s, mutated);
      const caught = unexplained(r).filter((d) => m.path.test(d.path));
      total++;
      if (scenarioFails(r) && caught.length > 0) {
        console.log(`gate check: a kmock where ${m.describe} fails ${s.name} at ${caught[0].request} ${caught[0].path}`);
      } else {
        failing++;
        console.log(`FAIL: gate check: a kmock where ${m.describe} passes ${s.name} (${verdict(r)})`);
      }
    } finally {
      await mutated.close();
    }
  }
  // A broken manual clock: the scenario's "[manual clock]" variant, compared with the reference
  // transcript of the scenario's run above, must fail at the named field.
  for (const m of CLOCK_MUTATIONS) {
    const base = results.find((x) => x.scenario.name === m.scenario);
    if (base === undefined) continue;
    const broken = new ClockedTargets(brokenClockKmockProvider(m));
    try {
      const r = await runClockVariant(base, pool, broken);
      const caught = unexplained(r).filter((d) => m.path.test(d.path));
      total++;
      if (scenarioFails(r) && caught.length > 0) {
        console.log(`gate check: a kmock whose ${m.describe} fails ${r.scenario.name} at ${caught[0].request} ${caught[0].path}`);
      } else {
        failing++;
        console.log(`FAIL: gate check: a kmock whose ${m.describe} passes ${r.scenario.name} (${verdict(r)})`);
      }
    } finally {
      await broken.close();
    }
  }
}

/** The seeded random sequences on `p`; each failing one counts (`tag` names the release in the log). */
async function runRandom(p: TargetPool, tag: string): Promise<RandomResult[]> {
  const random: RandomResult[] = [];
  for (const seed of seeds) {
    const seq = generate(seed, { length, staticShare });
    const rr = await runRandomSequence(seq, p);
    random.push(rr);
    const r = rr.shrunk?.result ?? rr.result;
    if (scenarioFails(r)) failing++;
    console.log(`${verdict(rr.result).padEnd(34)} random seed ${seed}${tag} (${rr.result.elapsedMs} ms)${selfNote}`);
    if (rr.shrunk) console.log(describeActions(seq, rr.shrunk.actions).replace(/^/gm, '    '));
    if (scenarioFails(r)) {
      console.log(failureText(r));
      // The shrunk sequence as a scenario, ready to commit under scenarios/ once the cause is fixed.
      const file = join(dirname(out), `random-seed-${seed}${tag.replace(/[^a-z0-9.]+/gi, '-')}.scenario.ts`);
      await writeFile(file, scenarioSource(seq, rr.shrunk?.actions ?? seq.actions, r.transcripts[1]));
      console.log(`    shrunk sequence written as a scenario: ${file}`);
    }
  }
  return random;
}

/** What a failing scenario prints: the scenario, then each rejected difference's request and field. */
function failureText(r: ScenarioResult): string {
  const bad = unexplained(r);
  const lines = [`  FAILED ${r.scenario.name}: ${r.targets[0]} vs ${r.targets[1]}`];
  for (const e of r.errors) lines.push(`    runner error: ${e.split('\n')[0]}`);
  if (bad.length > 0) lines.push(formatDiff(bad, r.transcripts[0], r.transcripts[1], r.targets).replace(/^/gm, '    '));
  for (const c of new Set(bad.map((d) => d.cause).filter((c) => c !== undefined))) lines.push(`    cause ${c!.id} (${c!.kind}): not accepted`);
  if (r.mode === 'self') for (const f of r.expectationFailures[0]) lines.push(`    expectation: ${f.what}`);
  return lines.join('\n');
}

function describeSeeds(xs: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    runs.push(j > i ? `${xs[i]}-${xs[j]}` : String(xs[i]));
    i = j + 1;
  }
  return runs.join(', ');
}

/**
 * The scenarios and random sequences against another Kafka release: its own report file, a
 * summary for CONFORMANCE.md. kmock follows 3.9, so each difference must be a sourced 4.x change
 * (causes-4x.ts) or a 3.9 cause; anything else fails, and so does a 4.x cause no difference matched.
 */
async function runOtherRelease(other: string): Promise<string> {
  const file = out.replace(/(\.md)?$/, `-kafka-${other}.md`);
  let provider: Awaited<ReturnType<typeof referenceProvider>>;
  try {
    provider = await referenceProvider(other);
  } catch (e) {
    provider = { reason: e instanceof Error ? e.message : String(e) };
  }
  if ('reason' in provider) {
    console.log(`no Kafka ${other} (${provider.reason})`);
    total++;
    if (referenceRequired) {
      failing++;
      console.log(`FAIL: Kafka ${other} is required here but unavailable`);
    }
    return `## Kafka ${other}\n\nNot run: ${provider.reason}\n`;
  }
  const otherPool = new TargetPool([kmockProvider('kmock'), provider]);
  const otherClocked = new ClockedTargets(manualClockKmockProvider());
  const t0 = Date.now();
  const otherResults: ScenarioResult[] = [];
  let random: RandomResult[] = [];
  try {
    otherPool.prestart(scenarios);
    for (const s of scenarios) {
      const r = await runPairWithRetry(s, otherPool);
      const played = hasWaits(s) ? [r, await runClockVariantWithRetry(r, otherPool, otherClocked)] : [r];
      for (const x of played) {
        otherResults.push(x);
        total++;
        if (scenarioFails(x)) failing++;
        console.log(`${verdict(x).padEnd(34)} ${x.scenario.name} vs ${provider.name} (${x.elapsedMs} ms)${x.firstAttempt ? ` [retried: first attempt ${verdict(x.firstAttempt)}]` : ''}`);
        if (scenarioFails(x)) console.log(failureText(x));
      }
    }
    if (randomWanted) {
      random = await runRandom(otherPool, ` vs ${provider.name}`);
      total += random.length;
    }
  } finally {
    await otherPool.close();
    await otherClocked.close();
  }
  const stale = filter === null ? staleCauses(CAUSES_4X, [...otherResults, ...random.map((x) => x.result)].flatMap((r) => r.differences)) : [];
  if (filter === null) {
    total++;
    if (stale.length > 0) failing++;
    console.log(stale.length === 0 ? `no stale 4.x causes vs ${provider.name}` : `FAIL: stale 4.x causes vs ${provider.name}: ${stale.map((c) => c.id).join(', ')}`);
  }
  await writeConformanceReport(
    { scenarios: otherResults, random, elapsedMs: Date.now() - t0, stale, notes: [`kmock follows Kafka 3.9; this run shows where ${provider.name} answers differently, and why.`, CLOCK_VARIANT_NOTE] },
    file,
  );
  const counts = new Map<string, number>();
  for (const r of otherResults) counts.set(verdict(r), (counts.get(verdict(r)) ?? 0) + 1);
  const differing = otherResults.filter((r) => r.differences.length > 0 || r.errors.length > 0);
  const randomDiffering = random.filter((x) => x.result.differences.length > 0).length;
  const lines = [
    `## The same scenarios against ${provider.name}`,
    '',
    `kmock follows Kafka 3.9. Against ${provider.name}: ${[...counts].map(([v, n]) => `${n} ${v}`).join(', ')}; ${random.length} random sequences, ${randomDiffering} differing. Details in [${file}](${file.replace(/^.*\//, '')}).`,
    '',
    '| scenario | result | causes |',
    '|---|---|---|',
    ...differing.map((r) => `| ${r.scenario.name} | ${verdict(r)} | ${[...new Set(r.differences.map((d) => d.cause?.id ?? 'UNEXPLAINED'))].join(', ')} |`),
    '',
  ];
  return lines.join('\n');
}

/**
 * A pass of the client matrix against kmock and the reference releases `start` gives; differences
 * vs `version` count as failures.
 */
async function runClientMatrix(
  start: () => Promise<{ brokers: MatrixBroker[]; missing: { version: string; reason: string }[] }>,
  only?: readonly StepName[],
  what = 'client matrix',
): Promise<MatrixResult> {
  const apps = CLIENT_APPS.filter((a) => clientFilter === undefined || clientFilter.includes(a.id));
  const { brokers, missing } = await start();
  try {
    console.log(`${what}: ${brokers.map((b) => b.name).join(', ')}${missing.map((m) => `; no Kafka ${m.version}: ${m.reason}`).join('')}`);
    // Without its reference the matrix compares kmock with nothing: that is a failure, not a pass.
    for (const m of missing) {
      total++;
      failing++;
      console.log(`FAIL: ${what} has no Kafka ${m.version} to compare with (${m.reason})`);
    }
    const r = await runMatrix(apps, brokers, console.log, undefined, only);
    for (const c of r.comparisons) {
      const counts = c.reference === `kafka-${version}` || c.reference.startsWith(`kafka-${version}`);
      const fails = counts && matrixFails(c, true);
      if (fails) failing++;
      total++;
    }
    return { ...r, brokers: brokers.map((b) => b.name), missing };
  } finally {
    await Promise.all(brokers.map((b) => b.stop().catch(() => undefined)));
  }
}
