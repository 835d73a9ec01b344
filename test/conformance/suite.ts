// Runs scenarios against two targets (kmock vs real Kafka, or kmock vs a second kmock when no
// Java/Kafka is available), one broker pair per distinct settings set, and compares transcripts.
import { KAFKA_INTERNAL_SETTING_NAMES, KAFKA_SECURITY_SETTING_NAMES, KAFKA_SETTING_NAMES, type BrokerConfig } from '../../src/broker/config.js';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import {
  checkExpectations,
  compareTranscripts,
  newNamespace,
  normaliseTranscript,
  runScenario,
  type Difference,
  type ExpectationFailure,
  type NormalisedTranscript,
  type Scenario,
  type Settings,
  type StrictFinding,
  type Target,
} from './runner.js';
import { BASE_SETTINGS } from './scenarios/dsl.js';
import { startReferenceKafka, startReferenceKafkaOrReason, type ReferenceKafka } from './support/reference.js';
import { closedLoopConsequences, type ClassifiedDifference } from './causes.js';
import { classifyFor } from './causes-4x.js';
import { shrink, toScenario, type RandomSequence } from './random.js';
import type { RandomResult } from './report.js';

export interface RunningTarget {
  target: Target;
  stop(): Promise<void>;
}

export interface TargetProvider {
  /** "kmock", "kmock-2", "kafka-3.9.1" … */
  name: string;
  kind: 'kmock' | 'kafka';
  start(settings: Settings, extra?: ListenerExtras): Promise<RunningTarget>;
  /** Releases anything started but not handed out (e.g. a probe broker). */
  dispose?(): Promise<void>;
}

/** A scenario's extra listeners and SCRAM credentials (Scenario.listeners, Scenario.addScram). */
export interface ListenerExtras {
  listeners?: string[];
  addScram?: string[];
}

/** kmock's settings for the extras: `listeners` on port 0, the protocol map, `sasl.users` from --add-scram. */
export function kmockListenerSettings(extra: ListenerExtras | undefined): Settings {
  if (extra?.listeners === undefined || extra.listeners.length === 0) return {};
  const names = extra.listeners.map((l) => l.split(':'));
  const users = (extra.addScram ?? []).map((a) => /name=([^,\]]+),password=([^\]]+)/.exec(a)).filter((m) => m !== null);
  const out: Settings = {
    listeners: ['PLAINTEXT://127.0.0.1:0', ...names.map(([n]) => `${n}://127.0.0.1:0`)].join(','),
    'listener.security.protocol.map': ['PLAINTEXT:PLAINTEXT', ...names.map(([n, p]) => `${n}:${p}`)].join(','),
  };
  if (users.length > 0) out['sasl.users'] = [...new Set(users.map((m) => `${m[1]}:${m[2]}`))].join(',');
  return out;
}

/** Settings kmock does not have (they only matter to a real broker) are left out for kmock. */
export function kmockOptions(settings: Settings): { options: Partial<BrokerConfig>; ignored: string[] } {
  const options: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(settings)) {
    // Kafka's settings, its internal ones (log.initial.task.delay.ms) included.
    const key = KAFKA_SETTING_NAMES[k] ?? KAFKA_INTERNAL_SETTING_NAMES[k] ?? KAFKA_SECURITY_SETTING_NAMES[k];
    if (key === undefined && k.startsWith('listener.name.')) {
      options.listenerOverrides = { ...(options.listenerOverrides as Record<string, string> | undefined), [k]: String(v) };
      continue;
    }
    if (key === undefined) {
      ignored.push(k);
      continue;
    }
    options[key] = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  }
  return { options: options as Partial<BrokerConfig>, ignored };
}

/** What a scenario's requests made kmock's strict-clients mode record (the report lists it). */
export function strictClientsOf(k: Kmock): NonNullable<Target['strictClients']> {
  return {
    reset: () => void k.control.resetStrictClients(),
    findings: () => k.control.strictClients().kinds.map((x) => ({ kind: x.kind, count: x.count, detail: x.first.detail })),
  };
}

export function kmockProvider(name = 'kmock'): TargetProvider {
  return {
    name,
    kind: 'kmock',
    async start(settings, extra) {
      // Strict-clients mode on: it only observes (docs/strict-clients.md), so every scenario also
      // checks that kmock answers as Kafka does with it on.
      const k = await startKmock({ ...kmockOptions({ ...settings, ...kmockListenerSettings(extra) }).options, strictClients: true });
      const target: Target = { name, bootstrapServers: k.bootstrapServers, nodeId: k.broker.config.nodeId, strictClients: strictClientsOf(k) };
      if (extra?.listeners?.length) target.listeners = Object.fromEntries(k.listeners.slice(1).map((l) => [l.name, l.bootstrapServers]));
      return {
        target,
        stop: () => k.close(),
      };
    },
  };
}

/**
 * A real Kafka per settings set (support/reference.ts), or `{reason}` when none is available here
 * (no Java, no Maven or artifacts, KMOCK_REFERENCE=off; with KMOCK_REFERENCE=require that throws
 * instead). Only a local run without a reference compares kmock with a second kmock, and says so.
 */
export async function referenceProvider(version: string): Promise<TargetProvider | { reason: string }> {
  // Probe with the base settings; the broker it starts serves the base settings set afterwards.
  // Only "not available here" (no Java, Maven or artifacts; KMOCK_REFERENCE=off) is a reason: a
  // Kafka that is there but fails to start is an error, never a quiet fallback.
  const r = await startReferenceKafkaOrReason({ version, settings: { ...BASE_SETTINGS, ...REFERENCE_ONLY_SETTINGS } });
  if (r.kafka === null) return { reason: r.reason };
  let probe: ReferenceKafka | null = r.kafka;
  const actual = probe.version;
  const name = `kafka-${actual}`;
  const baseKey = settingsKey({ ...BASE_SETTINGS, ...REFERENCE_ONLY_SETTINGS });
  return {
    name,
    kind: 'kafka',
    async start(settings, extra) {
      let running: ReferenceKafka;
      if (extra?.listeners?.length) {
        const r = await startReferenceKafka({ version: actual, settings: { ...REFERENCE_ONLY_SETTINGS, ...settings }, listeners: extra.listeners, addScram: extra.addScram });
        if (r === null) throw new Error(`reference Kafka ${actual} did not start with listeners ${extra.listeners.join(',')}`);
        const target: Target = { name, bootstrapServers: r.bootstrapServers, listeners: Object.fromEntries((r.listeners ?? []).map((l) => [l.name, l.bootstrapServers])) };
        return { target, stop: () => r.stop() };
      }
      if (probe !== null && settingsKey({ ...REFERENCE_ONLY_SETTINGS, ...settings }) === baseKey) {
        running = probe;
        probe = null;
      } else {
        const r = await startReferenceKafka({ version: actual, settings: { ...REFERENCE_ONLY_SETTINGS, ...settings } });
        if (r === null) throw new Error(`reference Kafka ${actual} did not start with ${settingsKey(settings)}`);
        running = r;
      }
      return { target: { name, bootstrapServers: running.bootstrapServers }, stop: () => running.stop() };
    },
    async dispose() {
      if (probe !== null) await probe.stop();
      probe = null;
    },
  };
}

/** Given to a real broker only (kmock has no such setting; they change nothing observable). */
export const REFERENCE_ONLY_SETTINGS: Settings = {};

export function settingsKey(s: Settings): string {
  return JSON.stringify(Object.keys(s).sort().map((k) => [k, String(s[k])]));
}

/** A scenario's extra listeners and SCRAM credentials, when it has any. */
export function extrasOf(s: Scenario): ListenerExtras | undefined {
  return s.listeners?.length ? { listeners: s.listeners, addScram: s.addScram } : undefined;
}

/** The ports of a target's extra listeners (normalised as its own, like its bootstrap port). */
function listenerPorts(t: Target): number[] {
  return Object.values(t.listeners ?? {}).map((a) => Number(a.slice(a.lastIndexOf(':') + 1)));
}

export function scenarioSettings(s: Scenario): Settings {
  return { ...BASE_SETTINGS, ...(s.settings ?? {}) };
}

/**
 * Lazily started target pairs, one per distinct settings set (and per `ownBrokers` key, for
 * scenarios that must not see what other scenarios left on a shared broker); reused across
 * scenarios.
 */
export class TargetPool {
  private readonly pairs = new Map<string, Promise<[RunningTarget, RunningTarget]>>();
  constructor(readonly providers: [TargetProvider, TargetProvider]) {}

  get(settings: Settings, ownBrokers?: string, extra?: ListenerExtras): Promise<[RunningTarget, RunningTarget]> {
    const key = `${settingsKey(settings)}${ownBrokers === undefined ? '' : `|own:${ownBrokers}`}${extra?.listeners?.length ? `|extra:${JSON.stringify(extra)}` : ''}`;
    let p = this.pairs.get(key);
    if (p === undefined) {
      p = Promise.all([this.providers[0].start(settings, extra), this.providers[1].start(settings, extra)]);
      this.pairs.set(key, p);
    }
    return p;
  }

  /** The pair a scenario plays on. */
  forScenario(s: Scenario): Promise<[RunningTarget, RunningTarget]> {
    return this.get(scenarioSettings(s), s.ownBrokers, extrasOf(s));
  }

  /** Starts the pairs these scenarios need in the background (a JVM takes seconds). */
  prestart(scenarios: readonly Scenario[]): void {
    for (const s of scenarios) void this.forScenario(s).catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.pairs.values()];
    this.pairs.clear();
    await Promise.all(this.providers.map((p) => p.dispose?.().catch(() => undefined)));
    await Promise.all(
      all.map(async (p) => {
        const pair = await p.catch(() => null);
        if (pair) await Promise.all(pair.map((t) => t.stop().catch(() => undefined)));
      }),
    );
  }
}

export interface ScenarioResult {
  scenario: Scenario;
  targets: [string, string];
  mode: 'reference' | 'self';
  transcripts: [NormalisedTranscript, NormalisedTranscript];
  differences: ClassifiedDifference[];
  /** Expectations written in the scenario that a target's transcript does not meet. */
  expectationFailures: [ExpectationFailure[], ExpectationFailure[]];
  elapsedMs: number;
  /** A runner error on either side. */
  errors: string[];
  /** The first attempt, when it failed and this result is the retry's (shown in the report). */
  firstAttempt?: ScenarioResult;
  /** What kmock's strict-clients mode recorded of the scenario's requests (facts, never a failure). */
  strictFindings?: StrictFinding[];
}

/** Plays one scenario on both targets at once (same namespace) and compares. */
export async function runPair(scenario: Scenario, pool: TargetPool): Promise<ScenarioResult> {
  const started = Date.now();
  const [a, b] = await pool.forScenario(scenario);
  const ns = newNamespace(scenario.name);
  // Scenarios play one at a time, so what strict mode records in between is this scenario's.
  a.target.strictClients?.reset();
  const [ta, tb] = await Promise.all([runScenario(scenario, a.target, { ns }), runScenario(scenario, b.target, { ns })]);
  const na = normaliseTranscript(ta, { ns, nodeId: a.target.nodeId, bootstrap: a.target.bootstrapServers, listenerPorts: listenerPorts(a.target) });
  const nb = normaliseTranscript(tb, { ns, nodeId: b.target.nodeId, bootstrap: b.target.bootstrapServers, listenerPorts: listenerPorts(b.target) });
  return { ...compared(scenario, pool.providers[1], [na, nb], [ta.error, tb.error], started), strictFindings: a.target.strictClients?.findings() };
}

/** The result of comparing two played transcripts of `scenario` (kmock's first). */
function compared(
  scenario: Scenario,
  referenceProvider: TargetProvider,
  [na, nb]: [NormalisedTranscript, NormalisedTranscript],
  errors: Array<string | undefined>,
  started: number,
): ScenarioResult {
  const diffs: Difference[] = compareTranscripts(na, nb);
  const mode = referenceProvider.kind === 'kafka' ? 'reference' : 'self';
  // The reference's name ("kafka-4.4.0") picks the causes: Kafka 4.x changes first against a 4.x
  // release (causes-4x.ts), causes.ts otherwise and as the fallback. A variant is classified under
  // the name of the scenario it varies (causesOf): it inherits that scenario's causes, no others.
  const reference = referenceProvider.name;
  const causesOf = scenario.causesOf ?? scenario.name;
  const classified = diffs.map((d) => classifyFor(reference, causesOf, d, mode, [na, nb]));
  return {
    scenario,
    targets: [na.target, nb.target],
    mode,
    transcripts: [na, nb],
    differences: scenario.tags?.includes('random') ? closedLoopConsequences(classified) : classified,
    expectationFailures: [checkExpectations(na), checkExpectations(nb)],
    elapsedMs: Date.now() - started,
    errors: errors.filter((e): e is string => e !== undefined),
  };
}

// ---------------------------------------------------------------------------------------------
// Manual-clock variants

/**
 * "Advancing kmock's manual clock answers as waiting on Kafka does." Every scenario with `wait`
 * steps gets a variant, `<name> [manual clock]`: the same steps on a kmock started with
 * `clock: 'manual'` (support/manual-clock.ts), where a wait is `kmock.clock.advance(ms)` (no real
 * sleep) and the clock follows real time in moves of a few ms between waits, so that settle
 * pauses, timeouts and round trips count for kmock as they do for Kafka: waits being jumps is the
 * only difference from the ordinary run. The variant is compared with the reference transcript of
 * the scenario's own run (the Kafka side waited in real time; it is not played again unless the
 * variant fails and is retried), and inherits exactly the scenario's causes (causesOf). Only
 * scenarios with waits get one: the others would play the same as on kmock's ordinary clock, and
 * the run time is kept small. The manual-clock kmocks are targets of their own (ClockedTargets),
 * never the pool's, so no ordinary scenario runs on one.
 */
export const CLOCK_VARIANT_SUFFIX = ' [manual clock]';

export function hasWaits(s: Scenario): boolean {
  return s.steps.some((step) => step.op === 'wait');
}

export function clockVariant(s: Scenario): Scenario {
  return {
    ...s,
    name: `${s.name}${CLOCK_VARIANT_SUFFIX}`,
    causesOf: s.name,
    description: `${s.description ?? s.name} (on kmock's manual clock: each wait is a clock.advance)`,
  };
}

/** One target per settings set (and `ownBrokers` key), as TargetPool keys its pairs, from one provider. */
export class ClockedTargets {
  private readonly targets = new Map<string, Promise<RunningTarget>>();
  constructor(readonly provider: TargetProvider) {}

  forScenario(s: Scenario): Promise<RunningTarget> {
    const key = `${settingsKey(scenarioSettings(s))}${s.ownBrokers === undefined ? '' : `|own:${s.ownBrokers}`}${extrasOf(s) ? `|extra:${JSON.stringify(extrasOf(s))}` : ''}`;
    let t = this.targets.get(key);
    if (t === undefined) {
      t = this.provider.start(scenarioSettings(s), extrasOf(s));
      this.targets.set(key, t);
    }
    return t;
  }

  async close(): Promise<void> {
    const all = [...this.targets.values()];
    this.targets.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => null))?.stop().catch(() => undefined)));
  }
}

/**
 * Plays the clock variant of `base.scenario` on its manual-clock kmock and compares it with the
 * reference transcript of `base` (that run's Kafka side, reused).
 */
export async function runClockVariant(base: ScenarioResult, pool: TargetPool, clocked: ClockedTargets): Promise<ScenarioResult> {
  const started = Date.now();
  const variant = clockVariant(base.scenario);
  const a = await clocked.forScenario(variant);
  const ns = base.transcripts[1].ns ?? newNamespace(variant.name);
  const ta = await runScenario(variant, a.target, { ns });
  const na = normaliseTranscript(ta, { ns, nodeId: a.target.nodeId, bootstrap: a.target.bootstrapServers, listenerPorts: listenerPorts(a.target) });
  return compared(variant, pool.providers[1], [na, base.transcripts[1]], [ta.error, base.transcripts[1].error], started);
}

/**
 * runClockVariant, and once more when it fails, then with both sides played afresh (the variant
 * on the manual-clock kmock and on the reference at once, as runPair does): a timer-driven
 * scenario can lose a race on either broker. The retry carries the first attempt for the report.
 */
export async function runClockVariantWithRetry(
  base: ScenarioResult,
  pool: TargetPool,
  clocked: ClockedTargets,
  fails: (r: ScenarioResult) => boolean = scenarioFails,
): Promise<ScenarioResult> {
  const first = await runClockVariant(base, pool, clocked);
  if (!fails(first)) return first;
  const started = Date.now();
  const variant = first.scenario;
  const [a, [, b]] = await Promise.all([clocked.forScenario(variant), pool.forScenario(variant)]);
  const ns = newNamespace(variant.name);
  const [ta, tb] = await Promise.all([runScenario(variant, a.target, { ns }), runScenario(variant, b.target, { ns })]);
  const na = normaliseTranscript(ta, { ns, nodeId: a.target.nodeId, bootstrap: a.target.bootstrapServers, listenerPorts: listenerPorts(a.target) });
  const nb = normaliseTranscript(tb, { ns, nodeId: b.target.nodeId, bootstrap: b.target.bootstrapServers, listenerPorts: listenerPorts(b.target) });
  return { ...compared(variant, pool.providers[1], [na, nb], [ta.error, tb.error], started), firstAttempt: first };
}

/** The differences that make a scenario fail: without a cause whose kind accepts them. */
export function unexplained(r: ScenarioResult): ClassifiedDifference[] {
  return r.differences.filter((d) => !d.accepted);
}

/**
 * Whether a scenario fails: a runner error, a difference no accepting cause explains (a known
 * kmock bug included), or, kmock against a second kmock, an expectation kmock does not meet.
 */
export function scenarioFails(r: ScenarioResult): boolean {
  return r.errors.length > 0 || unexplained(r).length > 0 || (r.mode === 'self' && r.expectationFailures[0].length > 0);
}

/**
 * Plays a scenario, and once more when it fails (a timer-driven scenario can lose a race on a
 * loaded machine). The retry's result carries the first attempt, so the report shows it.
 */
export async function runPairWithRetry(scenario: Scenario, pool: TargetPool, fails: (r: ScenarioResult) => boolean = scenarioFails): Promise<ScenarioResult> {
  const first = await runPair(scenario, pool);
  if (!fails(first)) return first;
  const again = await runPair(scenario, pool);
  return { ...again, firstAttempt: first };
}

// ---------------------------------------------------------------------------------------------
// Random sequences

/**
 * Fixed seeds, so every run replays the same sequences (add a seed to reproduce a finding): 1-100
 * are group sequences, 1001-1040 transactional ones (random.ts TXN_SEED_BASE, random-txn.ts).
 */
export const RANDOM_SEEDS = [...Array.from({ length: 100 }, (_, i) => i + 1), ...Array.from({ length: 40 }, (_, i) => 1001 + i)];
/** Actions after each member's opening step (random.ts generate's default). */
export const RANDOM_LENGTH = 30;

export async function runRandomSequence(
  seq: RandomSequence,
  pool: TargetPool,
  o: { shrink?: boolean; shrinkBudget?: { maxEvaluations?: number; maxMs?: number } } = {},
): Promise<RandomResult> {
  let result = await runPair(toScenario(seq), pool);
  if (unexplained(result).length === 0 || o.shrink === false) return { sequence: seq, result };
  // A difference that does not come back on a replay is a lost race, not a behaviour: keep the
  // replay (and the first run, for the report) and do not shrink.
  const replay = await runPair(toScenario(seq), pool);
  if (unexplained(replay).length === 0) return { sequence: seq, result: replay, flaky: result };
  result = replay;
  let last: ScenarioResult = result;
  const shrunk = await shrink(
    seq.actions,
    async (subset) => {
      const r = await runPair(toScenario(seq, subset), pool);
      // Keep subsets that still differ somewhere (not necessarily at the same field).
      const still = unexplained(r).length > 0;
      if (still) last = r;
      return still;
    },
    o.shrinkBudget,
  );
  return { sequence: seq, result, shrunk: { ...shrunk, result: last } };
}
