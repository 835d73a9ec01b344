// The client matrix: every client app (apps.ts) played by the driver against kmock and against
// each reference Kafka, its outcomes compared step by step, and rendered for CONFORMANCE.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { makeDevCertificate, type DevCertificate } from '../../../src/broker/security/tls/index.js';
import type { Settings } from '../runner.js';
import { kmockListenerSettings, kmockOptions } from '../suite.js';
import { startReferenceKafkaOrReason } from '../support/reference.js';
import type { ClientApp } from './apps.js';
import { MATRIX_BROKER_SETTINGS, runApp, STEP_TITLES, STEPS, type AppRun, type MatrixSecurity, type MatrixTarget, type StepName, type StepResult } from './driver.js';
import { CLIENT_CAUSES, type ClientCause } from './causes.js';
import type { FindingsSummary } from '../../../src/broker/strict/findings.js';
import { renderStrictFindings } from './strict-findings.js';

export interface MatrixBroker {
  name: string;
  bootstrap: string;
  /** A reference Kafka that could not be started: why. Nothing runs on it; every comparison with it fails. */
  missing?: string;
  /**
   * kmock runs in strict-clients mode (docs/strict-clients.md): what each app's clients did that a
   * correct client does not. Reset before each app is played, read after. Findings are facts
   * about the clients, reported with the matrix; they never fail it.
   */
  strictClients?: { reset(): void; read(): FindingsSummary };
  /** The secured listener the apps connect to (the SASL_SSL pass); `bootstrap` stays the PLAINTEXT one. */
  security?: MatrixSecurity;
  stop(): Promise<void>;
}

/**
 * - agree: both brokers' outcomes are equal;
 * - differ: they are not (or the step failed, or was skipped, on one broker only);
 * - both failed: the step failed on both brokers (nothing was compared: a failure, never agree);
 * - not run: an earlier step failed on one broker or both, so this one never ran (a failure);
 * - n/a: the client cannot do the step at all (skipped on both for that reason: the only pass without a comparison);
 * - no reference: there was no reference Kafka to compare with (a failure).
 */
export type StepVerdict = 'agree' | 'differ' | 'both failed' | 'not run' | 'n/a' | 'no reference';

/** Verdicts that fail the matrix whatever the causes say. */
const FAILING: ReadonlySet<StepVerdict> = new Set(['both failed', 'not run', 'no reference']);

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
  /** Every app's run on kmock (also when no reference Kafka ran), with its strict-clients findings. */
  kmockRuns: { app: ClientApp; run: AppRun; strictClients?: FindingsSummary }[];
  /** Apps that cannot run on this machine, with why. */
  unavailable: { app: ClientApp; reason: string }[];
  elapsedMs: number;
}

export async function startMatrixBrokers(versions: string[]): Promise<{ brokers: MatrixBroker[]; missing: { version: string; reason: string }[] }> {
  const kmock = await startKmock({ ...kmockOptions(MATRIX_BROKER_SETTINGS).options, strictClients: true });
  const brokers: MatrixBroker[] = [
    {
      name: 'kmock',
      bootstrap: kmock.bootstrapServers,
      strictClients: { reset: () => kmock.control.resetStrictClients(), read: () => kmock.control.strictClients() },
      stop: () => kmock.close(),
    },
  ];
  const missing: { version: string; reason: string }[] = [];
  const started = await Promise.all(versions.map((version) => startReferenceKafkaOrReason({ version, settings: MATRIX_BROKER_SETTINGS })));
  started.forEach((r, i) => {
    if (r.kafka === null) {
      missing.push({ version: versions[i], reason: r.reason });
      // Kept in the list, so that runMatrix reports every app against it as "no reference" (a
      // failure) instead of leaving kmock compared with nothing.
      brokers.push(missingReference(versions[i], r.reason));
    } else brokers.push({ name: `kafka-${r.kafka.version}`, bootstrap: r.kafka.bootstrapServers, stop: () => r.kafka!.stop() });
  });
  return { brokers, missing };
}

/** The steps of the SASL_SSL pass: a secured produce, group (joins, fetches, commits), the admin's describe, a transaction. */
export const SASL_SSL_STEPS: readonly StepName[] = ['produce', 'group', 'describe', 'transactions'];

const SASL_LISTENER = 'SASL_SSL';
/** The user of the SASL_SSL pass: a PLAIN login (JAAS) and SCRAM-SHA-256 credentials on both brokers. */
const SASL_USER = { username: 'matrix', password: 'matrix-secret' };

/**
 * The SASL_SSL listener's settings, by Kafka's names, for both brokers: PLAIN and SCRAM-SHA-256,
 * the PLAIN user in the listener's JAAS config, the keystore inline as PEM (key and chain).
 * `pem`: how a PEM value is written (Kafka reads server.properties, where a newline is `\n`).
 */
function saslSslSettings(cert: { certPem: string; keyPem: string }, pem: (text: string) => string): Settings {
  const l = `listener.name.${SASL_LISTENER.toLowerCase()}`;
  return {
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
    [`${l}.plain.sasl.jaas.config`]: `org.apache.kafka.common.security.plain.PlainLoginModule required user_${SASL_USER.username}="${SASL_USER.password}";`,
    [`${l}.scram-sha-256.sasl.jaas.config`]: 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    [`${l}.ssl.keystore.type`]: 'PEM',
    [`${l}.ssl.keystore.key`]: pem(cert.keyPem),
    [`${l}.ssl.keystore.certificate.chain`]: pem(cert.certPem),
  };
}

/** A value as java.util.Properties reads it back: backslashes and newlines escaped. */
const propertiesValue = (text: string) => text.trim().replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

const SASL_LISTENERS = [`${SASL_LISTENER}:SASL_SSL`];
const SASL_SCRAM = [`SCRAM-SHA-256=[name=${SASL_USER.username},password=${SASL_USER.password}]`];

/** The run's CA and server certificate for 127.0.0.1/localhost, in a temp dir (`remove` deletes it). */
export async function makeMatrixCertificate(): Promise<DevCertificate & { remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'kmock-matrix-tls-'));
  const cert = await makeDevCertificate(['127.0.0.1', 'localhost'], dir);
  return { ...cert, remove: () => rm(dir, { recursive: true, force: true }) };
}

function saslSecurity(bootstrap: string, cert: DevCertificate): MatrixSecurity {
  return { protocol: 'SASL_SSL', bootstrap, ...SASL_USER, caFile: cert.caPath };
}

/** kmock with the SASL_SSL pass's listeners and settings (saslSslSettings) on top of `settings`, and where its apps connect. */
export async function startSaslSslKmock(cert: DevCertificate, settings: Settings = MATRIX_BROKER_SETTINGS): Promise<{ kmock: Kmock; security: MatrixSecurity }> {
  const kmock = await startKmock({
    ...kmockOptions({ ...settings, ...saslSslSettings(cert, (t) => t), ...kmockListenerSettings({ listeners: SASL_LISTENERS, addScram: SASL_SCRAM }) }).options,
    strictClients: true,
  });
  const l = kmock.listeners.find((x) => x.name === SASL_LISTENER);
  if (l === undefined) {
    await kmock.close();
    throw new Error(`kmock has no ${SASL_LISTENER} listener`);
  }
  return { kmock, security: saslSecurity(l.bootstrapServers, cert) };
}

/**
 * The brokers of the SASL_SSL pass: kmock and Kafka `version`, each with a PLAINTEXT listener
 * (the driver's raw requests) and a SASL_SSL one (the apps), configured alike: one CA and server
 * certificate for 127.0.0.1/localhost made for the run (written to a temp dir, removed at stop),
 * the same settings (saslSslSettings), and the SCRAM-SHA-256 credentials (kmock: sasl.users;
 * Kafka: StorageTool --add-scram).
 */
export async function startSaslSslMatrixBrokers(version: string): Promise<{ brokers: MatrixBroker[]; missing: { version: string; reason: string }[] }> {
  const cert = await makeMatrixCertificate();
  let started: Awaited<ReturnType<typeof startSaslSslKmock>>;
  try {
    started = await startSaslSslKmock(cert);
  } catch (e) {
    await cert.remove();
    throw e;
  }
  const k = started.kmock;
  const brokers: MatrixBroker[] = [
    {
      name: 'kmock',
      bootstrap: k.bootstrapServers,
      security: started.security,
      strictClients: { reset: () => k.control.resetStrictClients(), read: () => k.control.strictClients() },
      stop: () => k.close().finally(cert.remove),
    },
  ];
  const missing: { version: string; reason: string }[] = [];
  const kafkaSettings = { ...MATRIX_BROKER_SETTINGS, ...saslSslSettings(cert, propertiesValue) };
  const r = await startReferenceKafkaOrReason({ version, settings: kafkaSettings, listeners: SASL_LISTENERS, addScram: SASL_SCRAM }).catch(
    async (e: unknown) => {
      await brokers[0].stop();
      throw e;
    },
  );
  const kafkaSasl = r.kafka?.listeners?.find((l) => l.name === SASL_LISTENER);
  if (r.kafka === null) {
    missing.push({ version, reason: r.reason });
    brokers.push(missingReference(version, r.reason));
  } else if (kafkaSasl === undefined) {
    await r.kafka.stop();
    // (Counted as missing: the pass fails "no reference", as for a Kafka that could not start.)
    missing.push({ version, reason: `Kafka ${version} started without its ${SASL_LISTENER} listener` });
    brokers.push(missingReference(version, missing[0].reason));
  } else brokers.push({ name: `kafka-${r.kafka.version}`, bootstrap: r.kafka.bootstrapServers, security: saslSecurity(kafkaSasl.bootstrapServers, cert), stop: () => r.kafka!.stop() });
  return { brokers, missing };
}

/** The stand-in for a reference Kafka that could not be started. */
export function missingReference(version: string, reason: string): MatrixBroker {
  return { name: `kafka-${version}`, bootstrap: '', missing: reason, stop: async () => undefined };
}

/** A JSON form with sorted keys, so that equal outcomes compare equal whatever their key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );
}

function stepState(s: StepResult | undefined): string {
  if (s === undefined) return 'not run: the run ended before this step';
  if (s.notRunBecause !== undefined) return `not run: "${s.notRunBecause}" failed`;
  if (s.failed !== undefined) return `failed: ${s.failed}`;
  if (s.skipped !== undefined) return `n/a: ${s.skipped}`;
  return 'ok';
}

/** One step's verdict from its result on kmock and on the reference (the rules at StepVerdict). */
export function compareStep(app: ClientApp, step: StepName, a: StepResult | undefined, b: StepResult | undefined, reference: string): StepComparison {
  const shown = (s: StepResult | undefined) => (s?.outcome != null ? s.outcome : stepState(s));
  const base = { step, kmock: shown(a), kafka: shown(b) };
  const notRun = (s: StepResult | undefined) => s === undefined || s.notRunBecause !== undefined;
  if (notRun(a) || notRun(b)) return { ...base, verdict: 'not run' };
  if (a!.failed !== undefined && b!.failed !== undefined) return { ...base, verdict: 'both failed' };
  if (a!.skipped !== undefined && b!.skipped !== undefined) return { ...base, verdict: 'n/a' };
  const verdict = a!.outcome !== null && b!.outcome !== null && canonical(a!.outcome) === canonical(b!.outcome) ? 'agree' : 'differ';
  const cause = verdict === 'differ' ? CLIENT_CAUSES.find((c) => c.app.test(app.id) && c.step === step && c.reference.test(reference)) : undefined;
  return { ...base, verdict, cause };
}

export function compareRuns(app: ClientApp, kmockRun: AppRun, kafkaRun: AppRun, only: readonly StepName[] = STEPS): MatrixComparison {
  const steps = STEPS.filter((s) => only.includes(s)).map((step) =>
    compareStep(app, step, kmockRun.steps.find((s) => s.step === step), kafkaRun.steps.find((s) => s.step === step), kafkaRun.broker),
  );
  return { app, reference: kafkaRun.broker, steps, kmockRun, kafkaRun };
}

/** kmock's run with no reference to compare it with: every step "no reference" (a failure). */
export function noReferenceComparison(app: ClientApp, kmockRun: AppRun, reference: string, reason: string, only: readonly StepName[] = STEPS): MatrixComparison {
  const kafkaRun: AppRun = { app: app.id, broker: reference, steps: [], unavailable: reason, transcript: '', ms: 0 };
  const steps = STEPS.filter((s) => only.includes(s)).map((step): StepComparison => {
    const a = kmockRun.steps.find((s) => s.step === step);
    return { step, verdict: 'no reference', kmock: a?.outcome ?? stepState(a), kafka: `no reference: ${reason}` };
  });
  return { app, reference, steps, kmockRun, kafkaRun };
}

/**
 * Runs every app against every broker (the runs of one app on different brokers in parallel:
 * they share nothing but the machine) and compares each Kafka's outcomes with kmock's.
 */
export async function runMatrix(
  apps: ClientApp[],
  brokers: MatrixBroker[],
  log: (line: string) => void = () => undefined,
  play: (app: ClientApp, broker: MatrixTarget, only: readonly StepName[]) => Promise<AppRun> = runApp,
  /** The steps played and compared (default all; the SASL_SSL pass: SASL_SSL_STEPS). */
  only: readonly StepName[] = STEPS,
): Promise<Omit<MatrixResult, 'missing' | 'brokers'>> {
  const started = Date.now();
  const comparisons: MatrixComparison[] = [];
  const unavailable: { app: ClientApp; reason: string }[] = [];
  const kmockRuns: MatrixResult['kmockRuns'] = [];
  const [kmock, ...references] = brokers;
  const kafkas = references.filter((b) => b.missing === undefined);
  for (const app of apps) {
    // The strict-clients findings of the last play are this app's (apps are played one at a time).
    const playAll = () => {
      kmock.strictClients?.reset();
      return Promise.all([kmock, ...kafkas].map((b) => play(app, { name: b.name, bootstrap: b.bootstrap, security: b.security }, only)));
    };
    let runs = await playAll();
    // Real clients on a busy machine: one replay of an app with a failing step (outcomes differ,
    // a step failed, steps not run), as the scenarios get one; the replay's outcomes are the ones
    // reported.
    if (runs[0].unavailable === undefined && kafkas.some((_k, i) => matrixFails(compareRuns(app, runs[0], runs[i + 1], only), false))) {
      // What failed the first time, so that a flake that the replay hides can still be looked into.
      const firstTime = kafkas.map((k, i) => {
        const c = compareRuns(app, runs[0], runs[i + 1], only);
        const bad = c.steps.filter((x) => x.verdict !== 'agree' && x.verdict !== 'n/a' && x.verdict !== 'not run');
        return `vs ${k.name}: ${matrixVerdict(c)}${bad.map((x) => `; ${x.step}: kmock ${show(x.kmock)} / ${k.name} ${show(x.kafka)}`).join('')}`;
      });
      log(`replaying ${app.id}: ${firstTime.join(' | ')}`);
      runs = await playAll();
    }
    if (runs[0].unavailable !== undefined) {
      unavailable.push({ app, reason: runs[0].unavailable });
      log(`unavailable                        ${app.id}: ${runs[0].unavailable}`);
      continue;
    }
    kmockRuns.push({ app, run: runs[0], strictClients: kmock.strictClients?.read() });
    for (const ref of references) {
      const i = kafkas.indexOf(ref);
      const c = i < 0 ? noReferenceComparison(app, runs[0], ref.name, ref.missing ?? 'not started', only) : compareRuns(app, runs[0], runs[i + 1], only);
      comparisons.push(c);
      const summary = c.steps.map((s) => `${s.step}:${s.verdict}`).join(' ');
      const times = i < 0 ? `kmock ${runs[0].ms} ms, ${ref.name} not running` : `kmock ${runs[0].ms} ms, ${ref.name} ${runs[i + 1].ms} ms`;
      log(`${matrixVerdict(c).padEnd(34)} ${app.id} vs ${ref.name} (${times}): ${summary}`);
    }
    // No reference at all: kmock is compared with nothing, which is a failure, never "agree".
    if (references.length === 0) {
      const c = noReferenceComparison(app, runs[0], 'no reference Kafka', 'the matrix was given no reference Kafka', only);
      comparisons.push(c);
      log(`${matrixVerdict(c).padEnd(34)} ${app.id} on kmock only: ${runs[0].steps.map((s) => `${s.step}:${stepState(s)}`).join(' ')}`);
    }
  }
  return { comparisons, kmockRuns, unavailable, elapsedMs: Date.now() - started };
}

export function matrixVerdict(c: MatrixComparison): string {
  const failing = c.steps.filter((s) => FAILING.has(s.verdict) || (s.verdict === 'differ' && c.steps.some((x) => FAILING.has(x.verdict))));
  if (failing.length > 0) {
    const kinds = [...new Set(failing.map((s) => s.verdict))];
    return `FAILED (${kinds.map((k) => `${k}: ${failing.filter((s) => s.verdict === k).map((s) => s.step).join(',')}`).join('; ')})`;
  }
  const differ = c.steps.filter((s) => s.verdict === 'differ');
  if (differ.length === 0) return 'agree';
  if (differ.every((s) => s.cause?.accepted)) return 'differ (explained, accepted)';
  if (differ.some((s) => s.cause === undefined)) return 'differ (unexplained)';
  return 'differ (known)';
}

/**
 * Does this comparison fail the run? A step that failed on both brokers, a step not run because an
 * earlier one failed, a missing reference; and differences that no accepted cause explains (with
 * `strict`, any difference not accepted).
 */
export function matrixFails(c: MatrixComparison, strict: boolean): boolean {
  return c.steps.some((s) => FAILING.has(s.verdict) || (s.verdict === 'differ' && (s.cause === undefined || (strict && !s.cause.accepted))));
}

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function show(v: unknown): string {
  return typeof v === 'string' ? v : canonical(v);
}

/** A pass of the matrix other than the plaintext one: its title, what it is, its steps. */
export interface MatrixPass {
  title: string;
  intro: string;
  steps: readonly StepName[];
}

/** The SASL_SSL pass as CONFORMANCE.md shows it. */
export const SASL_SSL_PASS: MatrixPass = {
  title: 'Client matrix over SASL_SSL',
  intro:
    'The same apps and driver, the apps connected to a SASL_SSL listener (PROTOCOL.md, "Security options"): TLS with one CA and server certificate made for the run (127.0.0.1, localhost), ' +
    'SASL SCRAM-SHA-256 (every family; PLAIN is enabled too), configured alike on kmock and on Kafka (a PEM keystore inline, the PLAIN user in the listener\'s JAAS config, SCRAM credentials: kmock sasl.users, Kafka StorageTool --add-scram); ' +
    "the driver's own raw requests go to each broker's PLAINTEXT listener. Fewer steps than the plaintext pass (those a secured connection changes: produce, the group's fetches and commits, the admin, a transaction); the same verdicts, and a difference fails the gate alike.",
  steps: SASL_SSL_STEPS,
};

export function renderMatrix(result: MatrixResult, pass?: MatrixPass): string {
  const out: string[] = [];
  const steps = pass?.steps ?? STEPS;
  const title = pass?.title ?? 'Client matrix';
  out.push(`## ${title}`);
  out.push('');
  if (pass !== undefined) out.push(`${pass.intro} Brokers: ${result.brokers.filter((b) => !result.missing.some((m) => b === `kafka-${m.version}`)).join(', ')}. Run time ${(result.elapsedMs / 1000).toFixed(0)} s.`);
  else out.push(
    'The same small app (test/conformance/clients/PROTOCOL.md), written once per client family, played by `clients/driver.ts` against kmock and against each real Kafka; ' +
      'each step reduces what the app printed (and what the broker answers to a few raw requests) to an outcome that holds what the broker decided and does not depend on timing, and the outcomes are compared; ' +
      'a difference, a step failed on both brokers, steps not run after a failure, and a missing reference Kafka fail the matrix (PROTOCOL.md). ' +
      `Brokers: ${result.brokers.filter((b) => !result.missing.some((m) => b === `kafka-${m.version}`)).join(', ')} (group.initial.rebalance.delay.ms=1000; consumers' session timeout 6 s, 20 s for @platformatic/kafka, whose start-up is slow). Run time ${(result.elapsedMs / 1000).toFixed(0)} s.`,
  );
  out.push('');
  for (const m of result.missing) out.push(`- **Kafka ${m.version} not run: ${m.reason}**: every client's comparison with it fails ("no reference").`);
  for (const u of result.unavailable) out.push(`- ${u.app.label} not run: ${u.reason}`);
  if (result.missing.length + result.unavailable.length > 0) out.push('');
  out.push(`| client | vs | ${steps.join(' | ')} |`);
  out.push(`|---|---|${steps.map(() => '---').join('|')}|`);
  for (const c of result.comparisons) {
    out.push(`| ${esc(c.app.label)} | ${c.reference} | ${c.steps.map((s) => (s.verdict === 'differ' && s.cause ? `differ (${s.cause.id})` : s.verdict)).join(' | ')} |`);
  }
  out.push('');
  out.push('Steps: ' + steps.map((s) => `**${s}**: ${STEP_TITLES[s]}`).join('; ') + '.');
  out.push('');
  const shownVerdicts: ReadonlySet<StepVerdict> = new Set(['differ', 'both failed', 'not run']);
  const differing = result.comparisons.filter((c) => c.steps.some((s) => shownVerdicts.has(s.verdict)));
  if (differing.length > 0) {
    out.push(`### ${title} differences and failures`);
    out.push('');
    for (const c of differing) {
      for (const s of c.steps.filter((x) => shownVerdicts.has(x.verdict))) {
        const why =
          s.verdict === 'both failed'
            ? '**failed on both brokers** (nothing compared)'
            : s.verdict === 'not run'
              ? '**not run** (an earlier step failed)'
              : s.cause
                ? `\`${s.cause.id}\` (${s.cause.kind}${s.cause.accepted ? ', accepted' : ''}): ${s.cause.cause}`
                : '**unexplained**';
        out.push(`- **${esc(c.app.label)}, ${s.step}, vs ${c.reference}**: ${why}`);
        const info = (run: AppRun) => run.steps.find((x) => x.step === s.step)?.info;
        out.push(`  - kmock: \`${esc(show(s.kmock))}\`${info(c.kmockRun) ? ` (${esc(show(info(c.kmockRun)))})` : ''}`);
        out.push(`  - ${c.reference}: \`${esc(show(s.kafka))}\`${info(c.kafkaRun) ? ` (${esc(show(info(c.kafkaRun)))})` : ''}`);
      }
    }
    out.push('');
  }
  if (pass === undefined) out.push(...renderStrictFindings(result.kmockRuns));
  out.push(`<details><summary>outcomes per client (kmock${pass === undefined ? '' : `, ${title}`})</summary>`);
  out.push('');
  for (const c of result.kmockRuns) {
    out.push(`- ${esc(c.app.label)}: ${c.run.steps.map((s) => `${s.step} \`${esc(show(s.outcome ?? stepState(s)))}\``).join('; ')}`);
  }
  out.push('');
  out.push('</details>');
  out.push('');
  return out.join('\n');
}
