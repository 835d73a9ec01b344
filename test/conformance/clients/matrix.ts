// The client matrix: every client app (apps.ts) played by the driver against kmock and against
// each reference Kafka, its outcomes compared step by step, and rendered for CONFORMANCE.md.
import { startKmock } from '../../../src/broker/server.js';
import { kmockOptions } from '../suite.js';
import { startReferenceKafkaOrReason } from '../support/reference.js';
import type { ClientApp } from './apps.js';
import { MATRIX_BROKER_SETTINGS, runApp, STEP_TITLES, STEPS, type AppRun, type StepName } from './driver.js';
import { CLIENT_CAUSES, type ClientCause } from './causes.js';

export interface MatrixBroker {
  name: string;
  bootstrap: string;
  stop(): Promise<void>;
}

export type StepVerdict = 'agree' | 'differ' | 'n/a' | 'not run';

export interface StepComparison {
  step: StepName;
  verdict: StepVerdict;
  kmock: unknown;
  kafka: unknown;
  cause?: ClientCause;
}

export interface MatrixComparison {
  app: ClientApp;
  reference: string;
  steps: StepComparison[];
  kmockRun: AppRun;
  kafkaRun: AppRun;
}

export interface MatrixResult {
  brokers: string[];
  /** Reference Kafkas that could not be started, with why. */
  missing: { version: string; reason: string }[];
  comparisons: MatrixComparison[];
  /** Every app's run on kmock (also when no reference Kafka ran). */
  kmockRuns: { app: ClientApp; run: AppRun }[];
  /** Apps that cannot run on this machine, with why. */
  unavailable: { app: ClientApp; reason: string }[];
  elapsedMs: number;
}

export async function startMatrixBrokers(versions: string[]): Promise<{ brokers: MatrixBroker[]; missing: { version: string; reason: string }[] }> {
  const kmock = await startKmock(kmockOptions(MATRIX_BROKER_SETTINGS).options);
  const brokers: MatrixBroker[] = [{ name: 'kmock', bootstrap: kmock.bootstrapServers, stop: () => kmock.close() }];
  const missing: { version: string; reason: string }[] = [];
  const started = await Promise.all(versions.map((version) => startReferenceKafkaOrReason({ version, settings: MATRIX_BROKER_SETTINGS })));
  started.forEach((r, i) => {
    if (r.kafka === null) missing.push({ version: versions[i], reason: r.reason });
    else brokers.push({ name: `kafka-${r.kafka.version}`, bootstrap: r.kafka.bootstrapServers, stop: () => r.kafka!.stop() });
  });
  return { brokers, missing };
}

/** A JSON form with sorted keys, so that equal outcomes compare equal whatever their key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );
}

export function compareRuns(app: ClientApp, kmockRun: AppRun, kafkaRun: AppRun): MatrixComparison {
  const steps = STEPS.map((step): StepComparison => {
    const a = kmockRun.steps.find((s) => s.step === step);
    const b = kafkaRun.steps.find((s) => s.step === step);
    if (a === undefined || b === undefined) return { step, verdict: 'not run', kmock: a?.outcome ?? null, kafka: b?.outcome ?? null };
    if (a.outcome === null && b.outcome === null) return { step, verdict: 'n/a', kmock: a.skipped, kafka: b.skipped };
    const verdict = canonical(a.outcome) === canonical(b.outcome) ? 'agree' : 'differ';
    const cause = verdict === 'differ' ? CLIENT_CAUSES.find((c) => c.app.test(app.id) && c.step === step && c.reference.test(kafkaRun.broker)) : undefined;
    return { step, verdict, kmock: a.outcome ?? a.skipped, kafka: b.outcome ?? b.skipped, cause };
  });
  return { app, reference: kafkaRun.broker, steps, kmockRun, kafkaRun };
}

/**
 * Runs every app against every broker (the runs of one app on different brokers in parallel:
 * they share nothing but the machine) and compares each Kafka's outcomes with kmock's.
 */
export async function runMatrix(
  apps: ClientApp[],
  brokers: MatrixBroker[],
  log: (line: string) => void = () => undefined,
): Promise<Omit<MatrixResult, 'missing' | 'brokers'>> {
  const started = Date.now();
  const comparisons: MatrixComparison[] = [];
  const unavailable: { app: ClientApp; reason: string }[] = [];
  const kmockRuns: { app: ClientApp; run: AppRun }[] = [];
  const kafkas = brokers.slice(1);
  for (const app of apps) {
    const play = () => Promise.all(brokers.map((b) => runApp(app, { name: b.name, bootstrap: b.bootstrap })));
    let runs = await play();
    // Real clients on a busy machine: one replay of an app whose outcomes differ anywhere, as the
    // scenarios get one; the replay's outcomes are the ones reported.
    if (runs[0].unavailable === undefined && kafkas.some((_k, i) => compareRuns(app, runs[0], runs[i + 1]).steps.some((s) => s.verdict === 'differ'))) {
      log(`replaying ${app.id}: outcomes differed`);
      runs = await play();
    }
    if (runs[0].unavailable !== undefined) {
      unavailable.push({ app, reason: runs[0].unavailable });
      log(`unavailable                        ${app.id}: ${runs[0].unavailable}`);
      continue;
    }
    kmockRuns.push({ app, run: runs[0] });
    kafkas.forEach((k, i) => {
      const c = compareRuns(app, runs[0], runs[i + 1]);
      comparisons.push(c);
      const summary = c.steps.map((s) => `${s.step}:${s.verdict}`).join(' ');
      log(`${matrixVerdict(c).padEnd(34)} ${app.id} vs ${k.name} (kmock ${runs[0].ms} ms, ${k.name} ${runs[i + 1].ms} ms): ${summary}`);
    });
    if (kafkas.length === 0) log(`${app.id} on kmock only: ${runs[0].steps.map((s) => `${s.step}:${s.outcome === null ? 'n/a' : 'failed' in s.outcome ? 'FAILED' : 'ok'}`).join(' ')}`);
  }
  return { comparisons, kmockRuns, unavailable, elapsedMs: Date.now() - started };
}

export function matrixVerdict(c: MatrixComparison): string {
  const differ = c.steps.filter((s) => s.verdict === 'differ');
  if (differ.length === 0) return 'agree';
  if (differ.every((s) => s.cause?.accepted)) return 'differ (explained, accepted)';
  if (differ.some((s) => s.cause === undefined)) return 'differ (unexplained)';
  return 'differ (known)';
}

/** Does this comparison fail the run? Differences against the 3.9 line that no accepted cause explains. */
export function matrixFails(c: MatrixComparison, strict: boolean): boolean {
  return c.steps.some((s) => s.verdict === 'differ' && (s.cause === undefined || (strict && !s.cause.accepted)));
}

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function show(v: unknown): string {
  return typeof v === 'string' ? v : canonical(v);
}

export function renderMatrix(result: MatrixResult): string {
  const out: string[] = [];
  out.push('## Client matrix');
  out.push('');
  out.push(
    'The same small app (test/conformance/clients/PROTOCOL.md), written once per client family, played by `clients/driver.ts` against kmock and against each real Kafka; ' +
      'each step reduces what the app printed to an outcome that does not depend on timing, and the outcomes are compared. ' +
      `Brokers: ${result.brokers.join(', ')} (group.initial.rebalance.delay.ms=1000; consumers' session timeout 6 s, 20 s for @platformatic/kafka, whose start-up is slow). Run time ${(result.elapsedMs / 1000).toFixed(0)} s.`,
  );
  out.push('');
  for (const m of result.missing) out.push(`- Kafka ${m.version} not run: ${m.reason}`);
  for (const u of result.unavailable) out.push(`- ${u.app.label} not run: ${u.reason}`);
  if (result.missing.length + result.unavailable.length > 0) out.push('');
  out.push(`| client | vs | ${STEPS.join(' | ')} |`);
  out.push(`|---|---|${STEPS.map(() => '---').join('|')}|`);
  for (const c of result.comparisons) {
    out.push(`| ${esc(c.app.label)} | ${c.reference} | ${c.steps.map((s) => (s.verdict === 'differ' && s.cause ? `differ (${s.cause.id})` : s.verdict)).join(' | ')} |`);
  }
  out.push('');
  out.push('Steps: ' + STEPS.map((s) => `**${s}**: ${STEP_TITLES[s]}`).join('; ') + '.');
  out.push('');
  const differing = result.comparisons.filter((c) => c.steps.some((s) => s.verdict === 'differ'));
  if (differing.length > 0) {
    out.push('### Client matrix differences');
    out.push('');
    for (const c of differing) {
      for (const s of c.steps.filter((x) => x.verdict === 'differ')) {
        out.push(`- **${esc(c.app.label)}, ${s.step}, vs ${c.reference}**: ${s.cause ? `\`${s.cause.id}\` (${s.cause.kind}${s.cause.accepted ? ', accepted' : ''}): ${s.cause.cause}` : '**unexplained**'}`);
        const info = (run: AppRun) => run.steps.find((x) => x.step === s.step)?.info;
        out.push(`  - kmock: \`${esc(show(s.kmock))}\`${info(c.kmockRun) ? ` (${esc(show(info(c.kmockRun)))})` : ''}`);
        out.push(`  - ${c.reference}: \`${esc(show(s.kafka))}\`${info(c.kafkaRun) ? ` (${esc(show(info(c.kafkaRun)))})` : ''}`);
      }
    }
    out.push('');
  }
  out.push('<details><summary>outcomes per client (kmock)</summary>');
  out.push('');
  for (const c of result.kmockRuns) {
    out.push(`- ${esc(c.app.label)}: ${c.run.steps.map((s) => `${s.step} \`${esc(show(s.outcome ?? `n/a: ${s.skipped}`))}\``).join('; ')}`);
  }
  out.push('');
  out.push('</details>');
  out.push('');
  return out.join('\n');
}
