// A small benchmark harness meant to be fair rather than clever:
//
// - every contender of a case gets the SAME input object/buffer;
// - before anything is timed, each contender runs once and its (normalised) result must equal
//   the first contender's, so nobody benchmarks a broken or short-cut path;
// - each contender is warmed up (default 50,000 calls or 2 s), then timed in interleaved rounds
//   (round r runs the contenders in an order rotated by r, so no one always goes first or last
//   after another's garbage); the reported number is the median ops/s over the rounds;
// - each contender runs in its own generated loop function, so its call site stays monomorphic
//   (a shared `for (...) c.fn(input)` loop would go megamorphic and penalise whoever runs later);
// - a full GC runs before every timed block (if it can be exposed), so one contender's garbage
//   is not collected on another's clock.
//
// Ratios are computed from numbers measured in the same process run; they are not timed tests.
import { isDeepStrictEqual, inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance } from 'node:perf_hooks';

export type Lib = 'kmock' | 'kafkajs' | 'platformatic' | 'binary-parser';

export interface Contender<I> {
  /** Row label, e.g. "kafkajs joinGroup/v5/request.js (await encode())". */
  name: string;
  lib: Lib;
  /** The operation; must return its result (kept in a sink so it cannot be optimised away). */
  fn: (input: I) => unknown;
  /** `fn` returns a promise and the timed loop awaits every call (how kafkajs's modules are used). */
  async?: boolean;
  /** Maps the result to a canonical form for the one-off equality check. Default: identity. */
  normalize?: (out: never) => unknown;
  /** This contender is the reference its library is compared against (ratio columns, targets). */
  baseline?: boolean;
  /** Excluded from the equality check against the first contender (then `verify` must check it). */
  skipEquality?: boolean;
}

export interface Target {
  /** ours / baseline of `against` must be at least `min`. */
  against: Lib;
  min: number;
  /** Target family, e.g. "JoinGroup encode ≥ 5× kafkajs". */
  label: string;
}

export interface BenchCase<I = unknown> {
  section: string;
  /** What is measured, e.g. "JoinGroup request encode v5". */
  op: string;
  input: I;
  /** The first contender is the reference for the equality check (kmock's, by convention). */
  contenders: Contender<I>[];
  /** Extra one-off checks (golden bytes, cross-decoding with another library); throw to fail. */
  verify?: () => void | Promise<void>;
  target?: Target;
  /** Free-text caveat printed under the table. */
  note?: string;
}

export interface HarnessOptions {
  warmupIterations: number;
  warmupMaxMs: number;
  rounds: number;
  /** Upper bound on iterations per round (the earlier experiment used 300,000 for everything). */
  maxIterations: number;
  /** A round aims at about this many ms for slow contenders (fewer iterations, same rounds). */
  roundMs: number;
  /** Lower bound on iterations per round. */
  minIterations: number;
}

export const FULL: HarnessOptions = { warmupIterations: 50_000, warmupMaxMs: 2_000, rounds: 5, maxIterations: 300_000, roundMs: 1_000, minIterations: 10 };
/** Smoke run: checks every path and prints numbers, but they are not warm and not for quoting. */
export const QUICK: HarnessOptions = { warmupIterations: 500, warmupMaxMs: 20, rounds: 2, maxIterations: 5_000, roundMs: 10, minIterations: 1 };

export interface ContenderResult {
  name: string;
  lib: Lib;
  baseline: boolean;
  iterations: number;
  /** ops/s of each round, in round order. */
  rounds: number[];
  median: number;
  /** (max - min) / median over the rounds. */
  spread: number;
}

export interface CaseResult {
  section: string;
  op: string;
  note?: string;
  target?: Target;
  results: ContenderResult[];
}

export class CheckError extends Error {
  override name = 'CheckError';
}

// ---- GC between timed blocks -------------------------------------------------------------------

let gcFn: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;
if (gcFn === undefined) {
  try {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  } catch {
    gcFn = undefined;
  }
}
export const gcAvailable = gcFn !== undefined;
function collect(): void {
  if (gcFn !== undefined) gcFn();
}

// ---- loops -------------------------------------------------------------------------------------

type Loop = (fn: (input: unknown) => unknown, input: unknown, n: number) => unknown;

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (...args: string[]) => Loop;

/** A fresh function per contender: its own feedback vector, so `fn` is monomorphic inside. */
function makeLoop(isAsync: boolean): Loop {
  const body = isAsync
    ? 'let r; for (let i = 0; i < n; i++) r = await fn(input); return r;'
    : 'let r; for (let i = 0; i < n; i++) r = fn(input); return r;';
  return isAsync ? new AsyncFunction('fn', 'input', 'n', body) : (new Function('fn', 'input', 'n', body) as Loop);
}

let sink: unknown;
/** Keeps the last result of each timed block reachable (so the work cannot be dropped). */
export function lastSink(): unknown {
  return sink;
}

/**
 * Which clock a block is timed with. 'cpu' (process user+system CPU time, so GC helper threads
 * count too) is the default because the machine this runs on is shared: with other processes
 * competing for the cores, wall time mostly measures the scheduler. 'wall' is performance.now().
 */
export type Clock = 'cpu' | 'wall';
let clock: Clock = 'cpu';
export function setClock(c: Clock): void {
  clock = c;
}
export function getClock(): Clock {
  return clock;
}

/** CPU time and wall time of all timed blocks so far (their ratio shows how contended the run was). */
export const clockTotals = { cpuMs: 0, wallMs: 0 };

function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function timeBlock(loop: Loop, c: Contender<unknown>, input: unknown, n: number): Promise<number> {
  const c0 = cpuNow();
  const t0 = performance.now();
  const r = c.async === true ? await (loop(c.fn, input, n) as Promise<unknown>) : loop(c.fn, input, n);
  const t1 = performance.now();
  const c1 = cpuNow();
  sink = r;
  clockTotals.cpuMs += c1 - c0;
  clockTotals.wallMs += t1 - t0;
  return clock === 'cpu' ? c1 - c0 : t1 - t0;
}

// ---- equality check ----------------------------------------------------------------------------

function show(v: unknown): string {
  return inspect(v, { depth: 8, maxArrayLength: 20, maxStringLength: 200, breakLength: 120 });
}

async function checkCase(c: BenchCase<unknown>): Promise<void> {
  const outs: unknown[] = [];
  for (const k of c.contenders) {
    let out: unknown;
    try {
      out = k.fn(c.input);
      if (k.async === true) out = await out;
    } catch (e) {
      throw new CheckError(`${c.op}: "${k.name}" threw before timing: ${(e as Error).stack ?? String(e)}`);
    }
    outs.push(k.normalize === undefined ? out : (k.normalize as (o: unknown) => unknown)(out));
  }
  const ref = outs[0];
  for (let i = 1; i < outs.length; i++) {
    if (c.contenders[i].skipEquality === true) continue;
    if (!isDeepStrictEqual(outs[i], ref)) {
      throw new CheckError(
        `${c.op}: "${c.contenders[i].name}" disagrees with "${c.contenders[0].name}"\n` +
          `--- ${c.contenders[0].name}\n${show(ref)}\n--- ${c.contenders[i].name}\n${show(outs[i])}`,
      );
    }
  }
  if (c.verify !== undefined) {
    try {
      await c.verify();
    } catch (e) {
      if (e instanceof CheckError) throw e;
      throw new CheckError(`${c.op}: verify failed: ${(e as Error).stack ?? String(e)}`);
    }
  }
}

// ---- running -----------------------------------------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Warms a contender up and returns its iterations per round. */
async function warmUp(loop: Loop, c: Contender<unknown>, input: unknown, o: HarnessOptions): Promise<number> {
  let done = 0;
  let spent = 0;
  let chunk = 16;
  let rate = 0;
  while (done < o.warmupIterations && spent < o.warmupMaxMs) {
    const n = Math.min(chunk, o.warmupIterations - done);
    const ms = await timeBlock(loop, c, input, n);
    done += n;
    spent += ms;
    if (ms > 0) rate = n / ms; // the last (largest, warmest) chunk wins
    chunk = Math.min(chunk * 2, 16_384);
  }
  const perRound = Math.round(rate * o.roundMs);
  return Math.max(o.minIterations, Math.min(o.maxIterations, perRound));
}

export async function runCase<I>(bc: BenchCase<I>, o: HarnessOptions, log: (s: string) => void = () => {}): Promise<CaseResult> {
  const c = bc as unknown as BenchCase<unknown>;
  await checkCase(c);
  const loops = c.contenders.map((k) => makeLoop(k.async === true));
  const iters: number[] = [];
  for (let i = 0; i < c.contenders.length; i++) {
    collect();
    iters.push(await warmUp(loops[i], c.contenders[i], c.input, o));
  }
  const rounds: number[][] = c.contenders.map(() => []);
  const k = c.contenders.length;
  for (let r = 0; r < o.rounds; r++) {
    for (let j = 0; j < k; j++) {
      const i = (j + r) % k;
      collect();
      const ms = await timeBlock(loops[i], c.contenders[i], c.input, iters[i]);
      rounds[i].push((iters[i] * 1000) / ms);
    }
  }
  const results = c.contenders.map((kk, i): ContenderResult => {
    const med = median(rounds[i]);
    return {
      name: kk.name,
      lib: kk.lib,
      baseline: kk.baseline === true,
      iterations: iters[i],
      rounds: rounds[i],
      median: med,
      spread: (Math.max(...rounds[i]) - Math.min(...rounds[i])) / med,
    };
  });
  log(`  ${c.op}: ` + results.map((x) => `${x.name} ${Math.round(x.median).toLocaleString('en-US')}`).join(' | '));
  return { section: c.section, op: c.op, note: c.note, target: c.target, results };
}

// ---- reporting helpers -------------------------------------------------------------------------

export function baselineOf(r: CaseResult, lib: Lib): ContenderResult | undefined {
  const flagged = r.results.filter((x) => x.lib === lib && x.baseline);
  if (flagged.length === 0) return undefined;
  // Several flagged baselines (e.g. kafkajs's async module and the same calls made sync): compare
  // against the FASTEST, which is the conservative choice for our ratio.
  return flagged.reduce((a, b) => (b.median > a.median ? b : a));
}

export interface TargetOutcome {
  op: string;
  label: string;
  ours: number;
  base: number;
  baseName: string;
  ratio: number;
  /** Median of the per-round ratios (see pairedRatio), as a cross-check of `ratio`. */
  paired: number;
  min: number;
  met: boolean;
}

export function targetOutcome(r: CaseResult): TargetOutcome | undefined {
  if (r.target === undefined) return undefined;
  const ours = r.results[0];
  const base = baselineOf(r, r.target.against);
  if (base === undefined) return undefined;
  const ratio = ours.median / base.median;
  return {
    op: r.op,
    label: r.target.label,
    ours: ours.median,
    base: base.median,
    baseName: base.name,
    ratio,
    paired: pairedRatio(ours, base),
    min: r.target.min,
    met: ratio >= r.target.min,
  };
}

/**
 * Median over rounds of a.rounds[r] / b.rounds[r]: the two blocks of one round ran close together
 * in time, so on a shared machine this ratio is steadier than the ratio of the two medians.
 */
export function pairedRatio(a: ContenderResult, b: ContenderResult): number {
  const n = Math.min(a.rounds.length, b.rounds.length);
  const rs: number[] = [];
  for (let r = 0; r < n; r++) rs.push(a.rounds[r] / b.rounds[r]);
  return median(rs);
}

export function fmtOps(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtRatio(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  return n >= 10 ? `${n.toFixed(1)}×` : `${n.toFixed(2)}×`;
}
