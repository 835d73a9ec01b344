// The differential conformance suite as vitest tests: every scenario (test/conformance/scenarios)
// and a set of seeded random group sequences, played on kmock and on a real Kafka broker when
// support/reference.ts can start one, transcripts compared field by field after normalisation.
// It fails exactly where `npm run conformance` (main.ts) fails: suite.ts's scenarioFails.
//
// - Against Kafka: a difference fails the scenario unless a cause whose kind accepts it explains
//   it (causes.ts: a known kmock bug never passes; a Kafka defect only where kmock meets the
//   scenario's written expectation).
// - Without Kafka (a local run with no Java; never under CI=true or KMOCK_REFERENCE=require):
//   both kmocks must agree, and kmock must meet every expectation written in the scenarios.
//
// Environment: KMOCK_CONFORMANCE_KAFKA (reference version, default 3.9.1),
// KMOCK_CONFORMANCE_REFERENCE=0 (skip the reference, kmock vs kmock), KMOCK_CONFORMANCE_RANDOM
// (number of random sequences, default 8), KMOCK_CONFORMANCE_FILTER (regexp on scenario names),
// KMOCK_CONFORMANCE_REPORT (write CONFORMANCE.md-style report to this path).
//
// Each scenario with `wait` steps is followed by its "[manual clock]" variant (suite.ts
// clockVariant): the same steps on a manual-clock kmock, each wait a clock.advance, compared with
// the reference transcript of the scenario's run, as main.ts does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiff, formatTranscript } from './runner.js';
import { generate, describeActions } from './random.js';
import { writeConformanceReport, type RandomResult } from './report.js';
import { ALL_SCENARIOS } from './scenarios/index.js';
import { manualClockKmockProvider } from './support/manual-clock.js';
import {
  CLOCK_VARIANT_SUFFIX,
  ClockedTargets,
  RANDOM_LENGTH,
  RANDOM_SEEDS,
  TargetPool,
  hasWaits,
  kmockProvider,
  referenceProvider,
  runClockVariantWithRetry,
  runPairWithRetry,
  runRandomSequence,
  unexplained,
  type ScenarioResult,
} from './suite.js';

const VERSION = process.env.KMOCK_CONFORMANCE_KAFKA ?? '3.9.1';
const RANDOM_COUNT = Number(process.env.KMOCK_CONFORMANCE_RANDOM ?? 8);
const FILTER = process.env.KMOCK_CONFORMANCE_FILTER ? new RegExp(process.env.KMOCK_CONFORMANCE_FILTER) : null;
const scenarios = ALL_SCENARIOS.filter((s) => FILTER === null || FILTER.test(s.name));
const seeds = RANDOM_SEEDS.slice(0, RANDOM_COUNT).filter(() => FILTER === null || FILTER.test('random'));

let pool: TargetPool;
const clocked = new ClockedTargets(manualClockKmockProvider());
const started = Date.now();
const results: ScenarioResult[] = [];
const randomResults: RandomResult[] = [];

beforeAll(async () => {
  const found = process.env.KMOCK_CONFORMANCE_REFERENCE === '0' ? { reason: 'KMOCK_CONFORMANCE_REFERENCE=0' } : await referenceProvider(VERSION);
  if ('reason' in found && process.env.CI === 'true') throw new Error(`reference Kafka ${VERSION} unavailable under CI: ${found.reason}`);
  const reference = 'reason' in found ? null : found;
  pool = new TargetPool([kmockProvider('kmock'), reference ?? kmockProvider('kmock-2')]);
  // A real broker takes seconds to start: start every settings set's pair up front.
  pool.prestart(scenarios);
  if ('reason' in found) console.info(`conformance: no reference Kafka ${VERSION} (${found.reason}); comparing kmock with a second kmock and the scenarios' expected codes`);
  else console.info(`conformance: kmock vs ${found.name}`);
}, 180_000);

afterAll(async () => {
  await pool?.close();
  await clocked.close();
  if (process.env.KMOCK_CONFORMANCE_REPORT) {
    await writeConformanceReport(
      { scenarios: results, random: randomResults, elapsedMs: Date.now() - started, notes: [`Random sequences: seeds ${seeds.join(', ')}, ${RANDOM_LENGTH} actions each.`] },
      process.env.KMOCK_CONFORMANCE_REPORT,
    );
  }
}, 60_000);

function record(r: ScenarioResult): void {
  const i = results.findIndex((x) => x.scenario.name === r.scenario.name);
  if (i >= 0) results[i] = r;
  else results.push(r);
}

function check(r: ScenarioResult): void {
  const text = (): string =>
    [
      `${r.scenario.name}: ${r.targets[0]} vs ${r.targets[1]}`,
      formatDiff(r.differences, r.transcripts[0], r.transcripts[1], r.targets),
      ...r.differences.filter((d) => d.cause).map((d) => `  cause ${d.cause!.id}: ${d.cause!.cause}`),
    ].join('\n');
  expect(r.errors, r.errors.join('\n')).toEqual([]);
  if (r.differences.length > 0) console.info(text());
  expect(unexplained(r).length, text()).toBe(0);
  if (r.mode === 'self') {
    const misses = r.expectationFailures[0];
    expect(misses.map((f) => f.what), `${r.scenario.name} (kmock)\n${formatTranscript(r.transcripts[0])}`).toEqual([]);
  } else {
    for (const [i, fs] of r.expectationFailures.entries()) {
      for (const f of fs) console.info(`${r.scenario.name}: expectation not met by ${r.targets[i]}: ${f.what}`);
    }
  }
}

describe('conformance scenarios', () => {
  for (const s of scenarios) {
    // Timer-driven scenarios can lose a race on a loaded machine: one retry before failing.
    it(s.name, { timeout: 90_000 }, async () => {
      const r = await runPairWithRetry(s, pool);
      record(r);
      check(r);
    });
    if (!hasWaits(s)) continue;
    it(`${s.name}${CLOCK_VARIANT_SUFFIX}`, { timeout: 90_000 }, async () => {
      // The reference transcript of the scenario's own run (played again if it did not run).
      const base = results.find((x) => x.scenario.name === s.name) ?? (await runPairWithRetry(s, pool));
      const r = await runClockVariantWithRetry(base, pool, clocked);
      record(r);
      check(r);
    });
  }
});

// Skipped, not empty, when KMOCK_CONFORMANCE_RANDOM=0 or the filter leaves none (vitest fails an empty suite).
describe.skipIf(seeds.length === 0)('random group sequences', () => {
  for (const seed of seeds) {
    it(`seed ${seed}`, { timeout: 150_000 }, async () => {
      const seq = generate(seed, { length: RANDOM_LENGTH });
      const rr = await runRandomSequence(seq, pool, { shrinkBudget: { maxEvaluations: 40, maxMs: 90_000 } });
      randomResults.push(rr);
      if (rr.shrunk) {
        console.info(`seed ${seed} differs; shrunk to ${rr.shrunk.actions.length} actions:\n${describeActions(seq, rr.shrunk.actions)}`);
      }
      check(rr.shrunk?.result ?? rr.result);
    });
  }
});

