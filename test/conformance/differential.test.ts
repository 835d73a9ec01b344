// The differential conformance suite: every scenario (test/conformance/scenarios) and a set of
// seeded random group sequences, played on kmock and on a real Kafka broker when
// support/reference.ts can start one (else on kmock and a second kmock), transcripts compared
// field by field after normalisation.
//
// - Against Kafka: a difference fails the scenario unless causes.ts explains it. Known kmock bugs
//   (kind "kmock-bug") are reported but only fail with KMOCK_CONFORMANCE_STRICT=1, so a new
//   difference is what turns the suite red. Expectations written in the scenarios are reported
//   (a Kafka-side miss means the scenario or the reference notes are wrong), not asserted.
// - Without Kafka: both kmocks must agree, and kmock must meet every expectation written in the
//   scenarios (the expected codes from the reference notes, §6).
//
// Environment: KMOCK_CONFORMANCE_KAFKA (reference version, default 3.9.1),
// KMOCK_CONFORMANCE_REFERENCE=0 (skip the reference, kmock vs kmock), KMOCK_CONFORMANCE_RANDOM
// (number of random sequences, default 8), KMOCK_CONFORMANCE_FILTER (regexp on scenario names),
// KMOCK_CONFORMANCE_REPORT (write CONFORMANCE.md-style report to this path), KMOCK_CONFORMANCE_STRICT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiff, formatTranscript } from './runner.js';
import { generate, describeActions } from './random.js';
import { writeConformanceReport, type RandomResult } from './report.js';
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

const VERSION = process.env.KMOCK_CONFORMANCE_KAFKA ?? '3.9.1';
const STRICT = process.env.KMOCK_CONFORMANCE_STRICT === '1';
const RANDOM_COUNT = Number(process.env.KMOCK_CONFORMANCE_RANDOM ?? 8);
const FILTER = process.env.KMOCK_CONFORMANCE_FILTER ? new RegExp(process.env.KMOCK_CONFORMANCE_FILTER) : null;
const scenarios = ALL_SCENARIOS.filter((s) => FILTER === null || FILTER.test(s.name));
const seeds = RANDOM_SEEDS.slice(0, RANDOM_COUNT).filter(() => FILTER === null || FILTER.test('random'));

let pool: TargetPool;
let mode: 'reference' | 'self' = 'self';
const started = Date.now();
const results: ScenarioResult[] = [];
const randomResults: RandomResult[] = [];

beforeAll(async () => {
  const found = process.env.KMOCK_CONFORMANCE_REFERENCE === '0' ? { reason: 'KMOCK_CONFORMANCE_REFERENCE=0' } : await referenceProvider(VERSION);
  const reference = 'reason' in found ? null : found;
  mode = reference ? 'reference' : 'self';
  pool = new TargetPool([kmockProvider('kmock'), reference ?? kmockProvider('kmock-2')]);
  // A real broker takes seconds to start: start every settings set's pair up front.
  const sets = new Map(scenarios.map((s) => [JSON.stringify(scenarioSettings(s)), scenarioSettings(s)]));
  pool.prestart([...sets.values()]);
  if ('reason' in found) console.info(`conformance: no reference Kafka ${VERSION} (${found.reason}); comparing kmock with a second kmock and the scenarios' expected codes`);
  else console.info(`conformance: kmock vs ${found.name}`);
}, 180_000);

afterAll(async () => {
  await pool?.close();
  if (process.env.KMOCK_CONFORMANCE_REPORT) {
    await writeConformanceReport(
      { scenarios: results, random: randomResults, elapsedMs: Date.now() - started, notes: [`Random sequences: seeds ${seeds.join(', ')}, ${RANDOM_LENGTH} actions each.`] },
      process.env.KMOCK_CONFORMANCE_REPORT,
    );
  }
}, 60_000);

function check(r: ScenarioResult): void {
  const text = (): string =>
    [
      `${r.scenario.name}: ${r.targets[0]} vs ${r.targets[1]}`,
      formatDiff(r.differences, r.transcripts[0], r.transcripts[1], r.targets),
      ...r.differences.filter((d) => d.cause).map((d) => `  cause ${d.cause!.id}: ${d.cause!.cause}`),
    ].join('\n');
  expect(r.errors, r.errors.join('\n')).toEqual([]);
  const failing = r.differences.filter((d) => !d.accepted && (STRICT || d.cause === undefined || (d.cause.kind !== 'kmock-bug' && d.cause.kind !== 'kafka-defect')));
  if (r.differences.length > 0) console.info(text());
  expect(failing.length, text()).toBe(0);
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
    it(s.name, { retry: 1, timeout: 90_000 }, async () => {
      const r = await runPair(s, pool);
      const i = results.findIndex((x) => x.scenario.name === s.name);
      if (i >= 0) results[i] = r;
      else results.push(r);
      check(r);
    });
  }
});

describe('random group sequences', () => {
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

void mode;
