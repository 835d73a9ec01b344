// The conformance gate can fail: a deliberately broken kmock (support/mutations.ts) makes the
// scenario that covers it fail at the broken field, and the cause rules cannot excuse a kmock bug,
// an unscoped difference or a Kafka defect whose kmock side is not asserted. No Kafka needed: the
// broken kmock is compared with a correct one here; main.ts runs the same mutations against the
// real reference in CI.
import { afterAll, describe, expect, it } from 'vitest';
import { CAUSES, assertScoped, classifyWith, closedLoopConsequences, isAccepted, staleCauses, type Cause, type ClassifiedDifference } from './causes.js';
import { CAUSES_4X } from './causes-4x.js';
import { normaliseTranscript, type Difference, type NormalisedTranscript, type Transcript } from './runner.js';
import { ALL_SCENARIOS } from './scenarios/index.js';
import { CLOCK_MUTATIONS, MUTATIONS, brokenClockKmockProvider, mutatedKmockProvider } from './support/mutations.js';
import { manualClockKmockProvider } from './support/manual-clock.js';
import { ClockedTargets, TargetPool, clockVariant, hasWaits, kmockProvider, runClockVariant, runPair, scenarioFails, unexplained } from './suite.js';

const pools: Array<TargetPool | ClockedTargets> = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

describe('a broken kmock fails the gate', () => {
  for (const m of MUTATIONS) {
    it(`${m.id}: ${m.describe} fails ${m.scenario}`, async () => {
      const scenario = ALL_SCENARIOS.find((s) => s.name === m.scenario)!;
      expect(scenario, `scenario ${m.scenario}`).toBeDefined();
      const pool = new TargetPool([mutatedKmockProvider(m), kmockProvider('kmock')]);
      pools.push(pool);
      const r = await runPair(scenario, pool);
      expect(scenarioFails(r)).toBe(true);
      expect(unexplained(r).map((d) => d.path)).toContainEqual(expect.stringMatching(m.path));
    });
  }

  it('the same scenarios pass when nothing is broken (the check is not vacuous)', async () => {
    const pool = new TargetPool([kmockProvider('kmock'), kmockProvider('kmock-2')]);
    pools.push(pool);
    for (const name of new Set(MUTATIONS.map((m) => m.scenario))) {
      const r = await runPair(ALL_SCENARIOS.find((s) => s.name === name)!, pool);
      expect(scenarioFails(r), name).toBe(false);
    }
  });
});

describe('a broken manual clock fails the "[manual clock]" variant', () => {
  for (const m of CLOCK_MUTATIONS) {
    it(`${m.id}: ${m.describe} fails ${m.scenario} [manual clock]`, async () => {
      const scenario = ALL_SCENARIOS.find((s) => s.name === m.scenario)!;
      expect(scenario, `scenario ${m.scenario}`).toBeDefined();
      expect(hasWaits(scenario), `${m.scenario} has wait steps (only those get a variant)`).toBe(true);
      const pool = new TargetPool([kmockProvider('kmock'), kmockProvider('kmock-2')]);
      const broken = new ClockedTargets(brokenClockKmockProvider(m));
      const sound = new ClockedTargets(manualClockKmockProvider());
      pools.push(pool, broken, sound);
      const base = await runPair(scenario, pool);
      expect(scenarioFails(base), 'the scenario itself passes').toBe(false);
      // Not vacuous: on a sound manual clock, the variant agrees with the real-time run.
      expect(scenarioFails(await runClockVariant(base, pool, sound)), 'the variant on a sound clock').toBe(false);
      const r = await runClockVariant(base, pool, broken);
      expect(r.scenario.causesOf).toBe(m.scenario);
      expect(scenarioFails(r)).toBe(true);
      expect(unexplained(r).map((d) => d.path)).toContainEqual(expect.stringMatching(m.path));
    });
  }
});

const diff = (over: Partial<Difference> = {}): Difference => ({
  event: 0,
  step: 0,
  conn: 'a',
  request: 'JoinGroup v5 (join a)',
  path: 'response.errorCode',
  a: 0,
  b: -1,
  messageOnly: false,
  ...over,
});

function transcript(expect: unknown, response: unknown): NormalisedTranscript {
  const t: Transcript = {
    scenario: 's',
    target: 'kmock',
    events: [{ step: 0, conn: 'a', kind: 'response', api: 'JoinGroup', version: 5, response: response as never, expect: expect as never }],
    vars: {},
    elapsedMs: 0,
  };
  return normaliseTranscript(t, { ns: '' });
}

describe('cause rules', () => {
  it('an entry without a path, or with neither a request, a scenario nor a condition, is refused', () => {
    expect(() => assertScoped([{ id: 'x', kind: 'deliberate', request: /^Fetch/, cause: '' }])).toThrow(/not scoped: no path/);
    expect(() => assertScoped([{ id: 'x', kind: 'deliberate', path: /errorCode/, cause: '' }])).toThrow(/not scoped/);
    expect(() => assertScoped([{ id: 'x', kind: 'deliberate', path: /a/, request: /b/, cause: '' }, { id: 'x', kind: 'deliberate', path: /a/, request: /b/, cause: '' }])).toThrow(/twice/);
  });

  it('a known kmock bug matches but is never accepted', () => {
    const bug: Cause = { id: 'b', kind: 'kmock-bug', request: /^JoinGroup/, path: /errorCode$/, cause: '' };
    const c = classifyWith([bug], 's', diff(), 'reference');
    expect(c?.cause?.id).toBe('b');
    expect(c?.accepted).toBe(false);
  });

  it("a Kafka defect is accepted only where kmock's side meets a written expectation", () => {
    const defect: Cause = { id: 'd', kind: 'kafka-defect', request: /^JoinGroup/, path: /errorCode$/, cause: '' };
    const kafka = transcript(undefined, { errorCode: -1 });
    expect(isAccepted(defect, diff(), { transcripts: [transcript(undefined, { errorCode: 0 }), kafka] })).toBe(false);
    expect(isAccepted(defect, diff(), { transcripts: [transcript({ errorCode: 0 }, { errorCode: 0 }), kafka] })).toBe(true);
    expect(isAccepted(defect, diff(), { transcripts: [transcript({ errorCode: 5 }, { errorCode: 0 }), kafka] })).toBe(false);
    expect(isAccepted(defect, diff(), {})).toBe(false);
  });

  it('a condition narrows an entry to the values it explains', () => {
    const c: Cause = { id: 'c', kind: 'deliberate', request: /^JoinGroup/, path: /errorCode$/, when: (d) => d.a === 70, cause: '' };
    expect(classifyWith([c], 's', diff(), 'reference')).toBeUndefined();
    expect(classifyWith([c], 's', diff({ a: 70 }), 'reference')?.accepted).toBe(true);
  });

  it('an entry no difference matched is stale', () => {
    const used: Cause = { id: 'used', kind: 'deliberate', request: /^JoinGroup/, path: /errorCode$/, cause: '' };
    const unused: Cause = { id: 'unused', kind: 'deliberate', request: /^Fetch/, path: /records$/, cause: '' };
    const seen = [classifyWith([used, unused], 's', diff(), 'reference')!];
    expect(staleCauses([used, unused], seen).map((c) => c.id)).toEqual(['unused']);
    expect(staleCauses([used, { ...unused, intermittent: 'depends on the run' }], seen)).toEqual([]);
  });

  it("a manual-clock variant takes exactly its scenario's causes, by name; no cause names a variant", () => {
    const varied = ALL_SCENARIOS.filter(hasWaits);
    expect(varied.length).toBeGreaterThan(0);
    for (const s of varied) {
      const v = clockVariant(s);
      expect(v.name).not.toBe(s.name);
      expect(v.causesOf).toBe(s.name);
      expect(v.steps).toBe(s.steps);
      for (const c of [...CAUSES, ...CAUSES_4X]) {
        if (c.scenario === undefined) continue;
        const names = typeof c.scenario === 'string' ? c.scenario === v.name : c.scenario.test(v.name);
        expect(names, `cause ${c.id} names ${v.name}`).toBe(false);
      }
    }
  });

  it('a closed-loop sequence accepts later differences only after an accepted first divergence', () => {
    const at = (event: number, accepted: boolean): ClassifiedDifference => ({ ...diff({ event }), accepted });
    expect(closedLoopConsequences([at(3, true), at(5, false), at(9, false)]).map((d) => [d.accepted, d.cause?.id])).toEqual([
      [true, undefined],
      [true, 'closed-loop-consequence'],
      [true, 'closed-loop-consequence'],
    ]);
    expect(closedLoopConsequences([at(3, true), at(3, false), at(5, false)]).map((d) => d.accepted)).toEqual([true, false, false]);
  });
});
