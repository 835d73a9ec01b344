// The transactional random generator (random-txn.ts, seeds from TXN_SEED_BASE) without a Kafka:
// plans are deterministic, a plan played on two kmocks gives the same transcripts, the shrinker
// works on its producers and actions, the coverage section counts it, and the scenario source
// written for a sequence replays the same requests open loop. Also: what normalisation keeps of a
// transactional answer (producer ids become symbols, epochs and offsets are compared).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTranscripts, formatDiff, newNamespace, normaliseTranscript, runScenario, type Scenario, type Transcript } from './runner.js';
import { TXN_SEED_BASE, describeActions, generate, scenarioSource, shrink, toScenario, type Action } from './random.js';
import { computeCoverage, coverageFailures, renderCoverage } from './random-coverage.js';
import { TargetPool, kmockProvider, runPair, scenarioSettings } from './suite.js';
import type { RandomResult } from './report.js';

describe('transactional plans', () => {
  it('start at TXN_SEED_BASE, are the same for the same seed, differ between seeds', () => {
    expect(generate(TXN_SEED_BASE - 1).txn).toBeUndefined();
    const s = generate(TXN_SEED_BASE + 3);
    expect(s.txn).toBeDefined();
    expect(s).toEqual(generate(TXN_SEED_BASE + 3));
    expect(s).not.toEqual(generate(TXN_SEED_BASE + 4));
  });

  it('have one or two producers, an opening step each, and only transactional actions', () => {
    for (let seed = TXN_SEED_BASE; seed < TXN_SEED_BASE + 200; seed++) {
      const s = generate(seed, { length: 20 });
      const n = s.txn!.producers.length;
      expect(n === 1 || n === 2).toBe(true);
      expect(s.members).toEqual([]);
      expect(s.actions.slice(0, n).map((a) => a.kind)).toEqual(s.txn!.producers.map(() => 'txn-step'));
      expect(s.actions.length).toBe(n + 20);
      expect(s.actions.every((a) => a.kind.startsWith('txn-'))).toBe(true);
    }
  });

  it('are described one line per action, naming the producer and its transactional id', () => {
    const s = generate(TXN_SEED_BASE);
    const lines = describeActions(s).split('\n');
    expect(lines).toHaveLength(s.actions.length);
    expect(lines[0]).toMatch(/^#0 txn-step p0\[tx0\]/);
  });

  it('shrink whole producers first, then chunks', async () => {
    const s = generate(TXN_SEED_BASE + 1, { length: 20 });
    const last = s.txn!.producers.length - 1;
    const fails = async (xs: Action[]) => xs.some((a) => a.kind === 'txn-step' && a.p === last) && xs.some((a) => a.kind === 'txn-describe' || a.kind === 'txn-fetch');
    if (!(await fails(s.actions))) return;
    const r = await shrink(s.actions, fails, { maxEvaluations: 200 });
    expect(r.actions).toHaveLength(2);
  });
});

describe('transactional closed-loop sequences on two kmocks', () => {
  let pool: TargetPool;
  const results: RandomResult[] = [];
  beforeAll(() => {
    pool = new TargetPool([kmockProvider('kmock'), kmockProvider('kmock-2')]);
  });
  afterAll(async () => {
    await pool.close();
  });

  for (const k of [0, 1, 2, 3, 4, 5]) {
    const seed = TXN_SEED_BASE + k;
    it(`seed ${seed}: both kmocks answer the same`, { timeout: 60_000 }, async () => {
      const seq = generate(seed, { length: 30 });
      const r = await runPair(toScenario(seq), pool);
      results.push({ sequence: seq, result: r });
      expect(r.errors).toEqual([]);
      expect(r.differences, formatDiff(r.differences, r.transcripts[0], r.transcripts[1])).toEqual([]);
    });
  }

  it('coverage: transactions commit, produces succeed, the group floor does not apply', () => {
    const cov = computeCoverage(results);
    expect(cov.groupSequences).toBe(0);
    expect(cov.txn.sequences).toBe(results.length);
    expect(cov.txn.commits).toBeGreaterThan(0);
    expect(cov.txn.produced).toBeGreaterThan(0);
    // Six sequences are below the size where every state and rare answer must show.
    expect(coverageFailures(cov, { minTxnAbortShare: 0, minTxnFenceShare: 0 })).toEqual([]);
    const md = renderCoverage(results);
    expect(md).toContain('Transactional sequences: 6');
    expect(md).toContain('| EndTxn |');
  });

  it('scenarioSource: the requests a run sent, replayed open loop, get the same answers', { timeout: 60_000 }, async () => {
    const seq = generate(TXN_SEED_BASE + 2, { length: 30 });
    const [target] = await pool.get(scenarioSettings(toScenario(seq)));
    const ns = newNamespace('txnsrc');
    const closed = await runScenario(toScenario(seq), target.target, { ns });
    expect(closed.error).toBeUndefined();
    const dir = await mkdtemp(joinPath(tmpdir(), 'kmock-random-txn-'));
    try {
      const here = resolve(import.meta.dirname);
      const src = scenarioSource(seq, seq.actions, closed)
        .replace(/from '\.\.\/(runner|random)\.js'/g, (_m, f: string) => `from '${pathToFileURL(joinPath(here, `${f}.ts`)).href}'`)
        .replace(/from '\.\/(dsl|transactions-dsl)\.js'/g, (_m, f: string) => `from '${pathToFileURL(joinPath(here, 'scenarios', `${f}.ts`)).href}'`);
      const file = joinPath(dir, 'replay.ts');
      await writeFile(file, src);
      const mod = (await import(pathToFileURL(file).href)) as Record<string, Scenario>;
      const replay = mod[`randomSeed${seq.seed}`];
      expect(replay.steps.some((s) => s.op === 'expand')).toBe(false);
      const ns2 = newNamespace('txnsrc2');
      const open = await runScenario(replay, target.target, { ns: ns2 });
      expect(open.error).toBeUndefined();
      const a = normaliseTranscript(closed, { ns, nodeId: target.target.nodeId });
      const b = normaliseTranscript(open, { ns: ns2, nodeId: target.target.nodeId });
      const diffs = compareTranscripts(a, b);
      expect(diffs, formatDiff(diffs, a, b)).toEqual([]);
      expect(scenarioSource(seq, seq.actions.slice(0, 4))).toContain('toScenario(plan');
      expect(scenarioSource(seq, seq.actions.slice(0, 4))).toContain('"txn"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('normalisation of transactional answers', () => {
  const transcript = (pid: number, epoch: number, offset: number): Transcript => ({
    scenario: 's',
    target: 't',
    ns: 'n.',
    vars: {},
    elapsedMs: 0,
    events: [
      { step: 0, conn: 'a', kind: 'response', api: 'InitProducerId', version: 4, response: { throttleTimeMs: 0, errorCode: 0, producerId: pid, producerEpoch: epoch } },
      { step: 1, conn: 'a', kind: 'response', api: 'ListTransactions', version: 1, response: { throttleTimeMs: 0, errorCode: 0, unknownStateFilters: [], transactionStates: [{ transactionalId: 'n.tx', producerId: pid, transactionState: 'Ongoing' }, { transactionalId: 'other.tx', producerId: 7, transactionState: 'Empty' }] } },
      { step: 2, conn: 'a', kind: 'response', api: 'Fetch', version: 12, response: { responses: [{ topic: 'n.t', partitions: [{ partitionIndex: 0, lastStableOffset: offset, abortedTransactions: [{ producerId: pid, firstOffset: offset }] }] }] } },
    ],
  });
  const diff = (a: Transcript, b: Transcript) => compareTranscripts(normaliseTranscript(a), normaliseTranscript(b)).map((d) => d.path);

  it('producer ids are symbols (and other runs\' transactions are dropped from ListTransactions)', () => {
    expect(diff(transcript(1000, 0, 5), transcript(42, 0, 5))).toEqual([]);
    expect(normaliseTranscript(transcript(1000, 0, 5)).events[1].response).toMatchObject({ transactionStates: [{ transactionalId: 'tx', producerId: 'producer#1' }] });
  });

  it('epochs and offsets are compared', () => {
    expect(diff(transcript(1000, 0, 5), transcript(1000, 1, 5))).toEqual(['response.producerEpoch']);
    expect(diff(transcript(1000, 0, 5), transcript(1000, 0, 6))).toEqual([
      'response.responses[topic=t].partitions[partitionIndex=0].lastStableOffset',
      'response.responses[topic=t].partitions[partitionIndex=0].abortedTransactions[0].firstOffset',
    ]);
  });
});
