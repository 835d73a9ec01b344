// The client matrix's comparison must be able to fail: outcomes that differ, a step that fails on
// both brokers, steps not run after a failure, and a missing reference Kafka all fail it; only two
// equal outcomes, or a step the client cannot do at all, pass. No real Kafka or client is needed:
// the runs are made up here (runMatrix gets a stand-in for runApp).
import { describe, expect, it } from 'vitest';
import type { ClientApp } from './apps.js';
import { runApp, securityArgs, STEPS, type AppRun, type MatrixSecurity, type MatrixTarget, type StepName, type StepResult } from './driver.js';
import { compareRuns, matrixFails, matrixVerdict, missingReference, renderMatrix, runMatrix, SASL_SSL_PASS, SASL_SSL_STEPS, type MatrixBroker } from './matrix.js';
import type { FindingsSummary } from '../../../src/broker/strict/findings.js';

const app: ClientApp = {
  id: 'fake',
  label: 'a made-up client',
  staticMembership: false,
  describe: false,
  remove: false,
  transactions: true,
  resolve: async () => ({ argv: ['false'] }),
};

/** What a correct broker gives this client: every step ok, the client-less ones n/a. */
function goodSteps(): StepResult[] {
  return STEPS.map((step): StepResult => {
    if (step === 'describe' || step === 'static-restart' || step === 'fence' || step === 'remove') return { step, outcome: null, skipped: 'the client cannot', ms: 1 };
    return { step, outcome: { generationChange: 1, delivered: { 0: '0:k0 1:k3' } }, ms: 1 };
  });
}

function run(broker: string, edit: (steps: StepResult[]) => void = () => undefined): AppRun {
  const steps = goodSteps();
  edit(steps);
  return { app: app.id, broker, steps, transcript: '', ms: 1 };
}

const at = (steps: StepResult[], name: StepName) => steps.findIndex((s) => s.step === name);

/** What the driver records after `name` failed: that step failed, every later one not run
 *  (but those the client cannot do at all stay n/a). */
function failFrom(name: StepName, message = 'timed out after 60000 ms waiting for c1 alone holding the 3 partitions') {
  return (steps: StepResult[]) => {
    const i = at(steps, name);
    steps[i] = { step: name, outcome: null, failed: message, ms: 1 };
    for (let j = i + 1; j < steps.length; j++) if (steps[j].skipped === undefined) steps[j] = { step: steps[j].step, outcome: null, notRunBecause: name, ms: 0 };
  };
}

describe('client matrix comparison', () => {
  it('passes equal outcomes, with the steps the client cannot do as n/a', () => {
    const c = compareRuns(app, run('kmock'), run('kafka-3.9.1'));
    expect(c.steps.map((s) => s.verdict)).toEqual(['agree', 'agree', 'n/a', 'n/a', 'n/a', 'agree', 'agree', 'n/a', 'agree']);
    expect(matrixFails(c, false)).toBe(false);
    expect(matrixVerdict(c)).toBe('agree');
  });

  it('fails when an outcome differs', () => {
    const kmock = run('kmock', (s) => (s[at(s, 'leave')].outcome = { generationChange: 2, delivered: { 0: '0:k0 1:k3' } }));
    const c = compareRuns(app, kmock, run('kafka-3.9.1'));
    expect(c.steps.find((s) => s.step === 'leave')?.verdict).toBe('differ');
    expect(matrixFails(c, false)).toBe(true);
    expect(matrixVerdict(c)).toBe('differ (unexplained)');
  });

  it('compares outcomes whatever their key order', () => {
    const kmock = run('kmock', (s) => (s[at(s, 'leave')].outcome = { delivered: { 0: '0:k0 1:k3' }, generationChange: 1 }));
    expect(matrixFails(compareRuns(app, kmock, run('kafka-3.9.1')), false)).toBe(false);
  });

  it('fails when a step fails on one broker only, and the steps after it are not run', () => {
    const c = compareRuns(app, run('kmock', failFrom('group')), run('kafka-3.9.1'));
    const v = Object.fromEntries(c.steps.map((s) => [s.step, s.verdict]));
    expect(v.group).toBe('differ');
    // Not "n/a": they were not run because "group" failed.
    expect(v.resume).toBe('not run');
    expect(v.leave).toBe('not run');
    expect(c.steps.find((s) => s.step === 'resume')?.kmock).toBe('not run: "group" failed');
    // The steps the client cannot do at all are still n/a.
    expect(v.describe).toBe('n/a');
    expect(v.remove).toBe('n/a');
    expect(matrixFails(c, false)).toBe(true);
    expect(matrixVerdict(c)).toBe('FAILED (differ: group; not run: resume,leave,transactions)');
  });

  it('fails a step that failed on both brokers, even with the same message, as "both failed"', () => {
    const c = compareRuns(app, run('kmock', failFrom('resume')), run('kafka-3.9.1', failFrom('resume')));
    const v = Object.fromEntries(c.steps.map((s) => [s.step, s.verdict]));
    expect(v.resume).toBe('both failed');
    expect(v.leave).toBe('not run');
    expect(v.produce).toBe('agree');
    expect(matrixFails(c, false)).toBe(true);
    expect(matrixVerdict(c)).toBe('FAILED (both failed: resume; not run: leave,transactions)');
  });

  it('fails a step skipped on one broker only (the client could not do it there)', () => {
    const kmock = run('kmock', (s) => (s[at(s, 'leave')] = { step: 'leave', outcome: null, skipped: 'unsupported', ms: 1 }));
    const c = compareRuns(app, kmock, run('kafka-3.9.1'));
    expect(c.steps.find((s) => s.step === 'leave')?.verdict).toBe('differ');
    expect(matrixFails(c, false)).toBe(true);
  });

  it('fails when a run ended before a step (the step is missing)', () => {
    const kmock = run('kmock', (s) => s.splice(at(s, 'resume')));
    const c = compareRuns(app, kmock, run('kafka-3.9.1'));
    expect(c.steps.find((s) => s.step === 'resume')?.verdict).toBe('not run');
    expect(matrixFails(c, false)).toBe(true);
  });
});

describe('client matrix runs', () => {
  const kmock: MatrixBroker = { name: 'kmock', bootstrap: 'kmock:9092', stop: async () => undefined };
  const kafka: MatrixBroker = { name: 'kafka-3.9.1', bootstrap: 'kafka:9092', stop: async () => undefined };
  const played: string[] = [];
  const play = async (_app: ClientApp, broker: { name: string }) => {
    played.push(broker.name);
    return run(broker.name);
  };

  it('agrees when both brokers give the same outcomes', async () => {
    const r = await runMatrix([app], [kmock, kafka], () => undefined, play);
    expect(r.comparisons.map((c) => matrixFails(c, false))).toEqual([false]);
  });

  it('fails without a reference Kafka: a reference that could not start', async () => {
    played.length = 0;
    const lines: string[] = [];
    const r = await runMatrix([app], [kmock, missingReference('3.9.1', 'no Java')], (l) => lines.push(l), play);
    expect(played).toEqual(['kmock']); // nothing is run on the missing broker
    expect(r.comparisons).toHaveLength(1);
    expect(r.comparisons[0].reference).toBe('kafka-3.9.1'); // what conformance/main.ts counts
    expect(r.comparisons[0].steps.every((s) => s.verdict === 'no reference')).toBe(true);
    expect(matrixFails(r.comparisons[0], false)).toBe(true);
    expect(lines.join('\n')).toMatch(/^FAILED \(no reference: produce,/);
    const md = renderMatrix({ ...r, brokers: ['kmock', 'kafka-3.9.1'], missing: [{ version: '3.9.1', reason: 'no Java' }] });
    expect(md).toContain('Kafka 3.9.1 not run: no Java');
    expect(md).toContain('Brokers: kmock (');
    expect(md).toContain('| no reference |');
  });

  it('fails without a reference Kafka: none given at all', async () => {
    const r = await runMatrix([app], [kmock], () => undefined, play);
    expect(r.comparisons).toHaveLength(1);
    expect(matrixFails(r.comparisons[0], false)).toBe(true);
  });

  it('replays an app once when a step fails, and reports the replay', async () => {
    let n = 0;
    const flaky = async (_app: ClientApp, broker: { name: string }) => {
      n++;
      return broker.name === 'kmock' && n <= 2 ? run('kmock', failFrom('leave')) : run(broker.name);
    };
    const lines: string[] = [];
    const r = await runMatrix([app], [kmock, kafka], (l) => lines.push(l), flaky);
    expect(n).toBe(4);
    expect(lines[0]).toMatch(/^replaying fake/);
    expect(matrixFails(r.comparisons[0], false)).toBe(false);
  });
});

describe('client matrix strict-clients findings', () => {
  const kafka: MatrixBroker = { name: 'kafka-3.9.1', bootstrap: 'kafka:9092', stop: async () => undefined };
  const finding: FindingsSummary = {
    total: 3,
    kinds: [
      {
        kind: 'heartbeat-stale-generation',
        description: 'a Heartbeat …',
        kafka: 'GroupCoordinator.handleHeartbeat …',
        count: 3,
        first: {
          kind: 'heartbeat-stale-generation',
          at: 0,
          api: 'Heartbeat',
          apiKey: 12,
          apiVersion: 4,
          correlationId: 17,
          clientId: 'app|1',
          connection: { id: 4, host: '127.0.0.1', port: 50000, softwareName: 'fake', softwareVersion: '1' },
          detail: 'group g: member m sent generation 1; the group is at generation 2 (Stable)',
        },
      },
    ],
  };
  const other: ClientApp = { ...app, id: 'other', label: 'another client' };

  it('reads each app\'s findings after resetting them before it is played, renders them, and never fails on them', async () => {
    const calls: string[] = [];
    let current: FindingsSummary = { total: 0, kinds: [] };
    const kmock: MatrixBroker = {
      name: 'kmock',
      bootstrap: 'kmock:9092',
      strictClients: { reset: () => void calls.push('reset'), read: () => current },
      stop: async () => undefined,
    };
    const play = async (a: ClientApp, broker: { name: string }) => {
      if (broker.name === 'kmock') {
        calls.push(`play ${a.id}`);
        current = a.id === 'fake' ? finding : { total: 0, kinds: [] };
      }
      return run(broker.name);
    };
    const r = await runMatrix([app, other], [kmock, kafka], () => undefined, play);
    expect(calls).toEqual(['reset', 'play fake', 'reset', 'play other']);
    expect(r.kmockRuns.map((k) => k.strictClients?.total)).toEqual([3, 0]);
    expect(r.comparisons.map((c) => matrixFails(c, false))).toEqual([false, false]);
    const md = renderMatrix({ ...r, brokers: ['kmock', 'kafka-3.9.1'], missing: [] });
    expect(md).toContain('### Strict-clients findings');
    expect(md).toContain(
      '| a made-up client | `heartbeat-stale-generation` | 3 | Heartbeat v4, correlation id 17, client id `app\\|1`: group g: member m sent generation 1; the group is at generation 2 (Stable) |',
    );
    expect(md).toContain('| another client | none | 0 | |');
  });

  it('renders no section when kmock was not in strict mode', async () => {
    const kmock: MatrixBroker = { name: 'kmock', bootstrap: 'kmock:9092', stop: async () => undefined };
    const r = await runMatrix([app], [kmock, kafka], () => undefined, async (_a, b) => run(b.name));
    expect(renderMatrix({ ...r, brokers: ['kmock', 'kafka-3.9.1'], missing: [] })).not.toContain('Strict-clients findings');
  });
});

describe('client matrix SASL_SSL pass', () => {
  const security: MatrixSecurity = { protocol: 'SASL_SSL', bootstrap: 'kmock:9095', username: 'matrix', password: 'matrix-secret', caFile: '/tmp/ca.pem' };

  it('gives every app the five security options, with its mechanism (SCRAM-SHA-256 unless it says otherwise)', () => {
    const opts = ['--security-protocol', 'SASL_SSL', '--sasl-username', 'matrix', '--sasl-password', 'matrix-secret', '--ssl-ca', '/tmp/ca.pem'];
    const scram = securityArgs(app, security);
    expect(Array.isArray(scram)).toBe(true);
    expect(scram).toEqual(expect.arrayContaining(opts));
    expect((scram as string[]).join(' ')).toContain('--sasl-mechanism SCRAM-SHA-256');
    expect((securityArgs({ ...app, saslSsl: { mechanism: 'PLAIN' } }, security) as string[]).join(' ')).toContain('--sasl-mechanism PLAIN');
    expect(securityArgs({ ...app, saslSsl: { cannot: 'no TLS' } }, security)).toEqual({ cannot: 'no TLS' });
  });

  it('plays a client that cannot connect to SASL_SSL as n/a on every step of the pass, with its reason', async () => {
    const cannot: ClientApp = { ...app, saslSsl: { cannot: 'the client has no TLS' } };
    const broker: MatrixTarget = { name: 'kmock', bootstrap: 'kmock:9092', security };
    const r = await runApp(cannot, broker, SASL_SSL_STEPS);
    expect(r.steps.map((s) => [s.step, s.skipped])).toEqual(SASL_SSL_STEPS.map((s) => [s, 'the client has no TLS']));
    const c = compareRuns(cannot, r, { ...r, broker: 'kafka-3.9.1' }, SASL_SSL_STEPS);
    expect(c.steps.every((s) => s.verdict === 'n/a')).toBe(true);
    expect(matrixFails(c, true)).toBe(false);
  });

  it('hands each broker\'s secured listener and the pass\'s steps to the driver, compares and renders only those steps, and fails on a difference', async () => {
    const kmock: MatrixBroker = { name: 'kmock', bootstrap: 'kmock:9092', security, stop: async () => undefined };
    const kafka: MatrixBroker = { name: 'kafka-3.9.1', bootstrap: 'kafka:9092', security: { ...security, bootstrap: 'kafka:9095' }, stop: async () => undefined };
    const seen: string[] = [];
    const only = (steps: StepResult[]) => steps.filter((s) => SASL_SSL_STEPS.includes(s.step));
    const play = async (_a: ClientApp, b: MatrixTarget, steps: readonly StepName[]) => {
      seen.push(`${b.name} ${b.bootstrap} ${b.security?.bootstrap} ${steps.join(',')}`);
      return run(b.name, (s) => {
        s.splice(0, s.length, ...only(s));
        if (b.name === 'kmock') s[at(s, 'transactions')].outcome = { readCommitted: [] };
      });
    };
    const r = await runMatrix([app], [kmock, kafka], () => undefined, play, SASL_SSL_STEPS);
    expect(seen.slice(0, 2)).toEqual(['kmock kmock:9092 kmock:9095 produce,group,describe,transactions', 'kafka-3.9.1 kafka:9092 kafka:9095 produce,group,describe,transactions']);
    const c = r.comparisons[0];
    expect(c.steps.map((s) => [s.step, s.verdict])).toEqual([['produce', 'agree'], ['group', 'agree'], ['describe', 'n/a'], ['transactions', 'differ']]);
    expect(matrixFails(c, true)).toBe(true);
    const md = renderMatrix({ ...r, brokers: ['kmock', 'kafka-3.9.1'], missing: [] }, SASL_SSL_PASS);
    expect(md).toContain('## Client matrix over SASL_SSL');
    expect(md).toContain('| client | vs | produce | group | describe | transactions |');
    expect(md).toContain('| a made-up client | kafka-3.9.1 | agree | agree | n/a | differ |');
    expect(md).toContain('### Client matrix over SASL_SSL differences and failures');
    expect(md).not.toContain('static-restart');
  });
});
