// The closed-loop random generator without a Kafka: plans are deterministic, a plan played on two
// kmocks gives the same transcripts, the coverage section reads them, and the scenario source
// written for a sequence (scenarioSource) replays the same requests open loop.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTranscripts, formatDiff, normaliseTranscript, runScenario, newNamespace, type Scenario } from './runner.js';
import { describeActions, generate, scenarioSource, shrink, toScenario, type Action } from './random.js';
import { computeCoverage, coverageFailures, renderCoverage } from './random-coverage.js';
import { TargetPool, kmockProvider, runPair } from './suite.js';
import type { RandomResult } from './report.js';

describe('random plans', () => {
  it('are the same for the same seed and options', () => {
    expect(generate(7)).toEqual(generate(7));
    expect(generate(7, { length: 12 })).toEqual(generate(7, { length: 12 }));
    expect(generate(7)).not.toEqual(generate(8));
  });

  it('have 2-5 members, an opening step each, and at most one expiry (of the mortal member)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const s = generate(seed, { length: 20 });
      expect(s.members.length).toBeGreaterThanOrEqual(2);
      expect(s.members.length).toBeLessThanOrEqual(5);
      expect(s.actions.slice(0, s.members.length).map((a) => a.kind)).toEqual(s.members.map(() => 'step'));
      const expiries = s.actions.filter((a) => a.kind === 'expire');
      expect(expiries.length).toBeLessThanOrEqual(1);
      for (const e of expiries) expect(s.members[(e as { m: number }).m].mortal).toBe(true);
      expect(s.actions.length).toBe(s.members.length + 20);
    }
  });

  it('describes every action on one line', () => {
    const s = generate(3);
    expect(describeActions(s).split('\n')).toHaveLength(s.actions.length);
  });

  it('shrinks whole members first, then chunks (ddmin)', async () => {
    const s = generate(11, { members: 4, length: 20 });
    // "Fails" while member 1 has a step and some produce is left.
    const fails = async (xs: Action[]) => xs.some((a) => a.kind === 'step' && a.m === 1) && xs.some((a) => a.kind === 'produce');
    if (!(await fails(s.actions))) return;
    const r = await shrink(s.actions, fails, { maxEvaluations: 200 });
    expect(r.actions).toHaveLength(2);
  });
});

describe('closed-loop sequences on two kmocks', () => {
  let pool: TargetPool;
  const results: RandomResult[] = [];
  beforeAll(() => {
    pool = new TargetPool([kmockProvider('kmock'), kmockProvider('kmock-2')]);
  });
  afterAll(async () => {
    await pool.close();
  });

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: both kmocks answer the same`, { timeout: 60_000 }, async () => {
      const seq = generate(seed, { length: 24, expireShare: 0 });
      const r = await runPair(toScenario(seq), pool);
      results.push({ sequence: seq, result: r });
      expect(r.errors).toEqual([]);
      expect(r.differences, formatDiff(r.differences, r.transcripts[0], r.transcripts[1])).toEqual([]);
    });
  }

  it('coverage: groups form, syncs succeed, UNKNOWN_MEMBER_ID stays a minority', () => {
    const cov = computeCoverage(results);
    expect(cov.sequences).toBe(results.length);
    expect(cov.successfulSyncs).toBeGreaterThan(0);
    expect(coverageFailures(cov, { states: [] })).toEqual([]);
    const md = renderCoverage(results);
    expect(md).toContain('## Random sequence coverage');
    expect(md).toContain('| JoinGroup |');
  });

  it('scenarioSource: the requests a run sent, replayed open loop, get the same answers', { timeout: 60_000 }, async () => {
    const seq = generate(4, { length: 20, expireShare: 0 });
    const [target] = await pool.get((await import('./suite.js')).scenarioSettings(toScenario(seq)));
    const ns = newNamespace('src');
    const closed = await runScenario(toScenario(seq), target.target, { ns });
    expect(closed.error).toBeUndefined();
    const dir = await mkdtemp(joinPath(tmpdir(), 'kmock-random-'));
    try {
      const here = resolve(import.meta.dirname);
      const src = scenarioSource(seq, seq.actions, closed)
        .replace(/from '\.\.\/(runner|random)\.js'/g, (_m, f: string) => `from '${pathToFileURL(joinPath(here, `${f}.ts`)).href}'`)
        .replace(/from '\.\/dsl\.js'/g, `from '${pathToFileURL(joinPath(here, 'scenarios', 'dsl.ts')).href}'`);
      const file = joinPath(dir, 'replay.ts');
      await writeFile(file, src);
      const mod = (await import(pathToFileURL(file).href)) as Record<string, Scenario>;
      const replay = mod[`randomSeed${seq.seed}`];
      expect(replay.steps.some((s) => s.op === 'expand')).toBe(false);
      const ns2 = newNamespace('src2');
      const open = await runScenario(replay, target.target, { ns: ns2 });
      expect(open.error).toBeUndefined();
      const a = normaliseTranscript(closed, { ns, nodeId: target.target.nodeId });
      const b = normaliseTranscript(open, { ns: ns2, nodeId: target.target.nodeId });
      const diffs = compareTranscripts(a, b);
      expect(diffs, formatDiff(diffs, a, b)).toEqual([]);
      // Without a transcript: the plan, replayed closed loop.
      expect(scenarioSource(seq, seq.actions.slice(0, 5))).toContain('toScenario(plan');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
