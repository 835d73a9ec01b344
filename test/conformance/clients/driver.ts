// Plays the client-matrix app (PROTOCOL.md) of one client family against one broker, step by
// step, and reduces what the processes printed to a small outcome per step. The outcomes hold
// only what should not depend on timing (counts, keys, booleans, error names), so the outcome on
// kmock can be compared with the outcome on a real Kafka; timings go into `info`.
import { randomBytes } from 'node:crypto';
import {
  createCreateTopicsRequest,
  createDescribeGroupsRequest,
  createMetadataRequest,
  createMetadataRequestTopic,
  createOffsetFetchRequest,
} from '../../../src/codec/index.js';
import { ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { sleep, waitFor } from '../../support/clients/wait.js';
import { RawClient } from '../../support/raw-client.js';
import type { ClientApp } from './apps.js';

export const PARTITIONS = 3;
/** Group timings given to the apps. Kafka's minimum session timeout is 6 s; heartbeats at S/10. */
export const SESSION_TIMEOUT_MS = 6000;
/** Broker settings both brokers get for the matrix (mirrored on kmock and Kafka). */
export const MATRIX_BROKER_SETTINGS = { 'group.initial.rebalance.delay.ms': 1000, 'auto.create.topics.enable': false };

const WAIT_MS = Number(process.env.KMOCK_MATRIX_WAIT_MS ?? 60_000);

export type Outcome = Record<string, unknown>;

export interface StepResult {
  step: StepName;
  /** Compared between brokers. null when skipped. */
  outcome: Outcome | null;
  /** Why the step did not run (client cannot do it, an earlier step failed). */
  skipped?: string;
  /** Not compared: timings, duplicate deliveries after rebalances, … */
  info?: Record<string, unknown>;
  ms: number;
}

export const STEPS = ['produce', 'group', 'describe', 'static-restart', 'fence', 'resume', 'leave', 'remove'] as const;
export type StepName = (typeof STEPS)[number];

export const STEP_TITLES: Record<StepName, string> = {
  produce: 'produce 30 (acks=all, explicit partitions)',
  group: 'group of 3 consumes all 30, assignments partition the topic',
  describe: "the client's admin describes the group",
  'static-restart': 'a static member is killed and restarted with its instance id: no rebalance, same partitions',
  fence: 'a second process takes a live instance id: who is fenced',
  resume: 'commit, close all, produce 6 more, a new member reads exactly those 6',
  leave: 'one of 3 members closes: the other 2 cover every partition',
  remove: "a dead static member removed by instance id with the client's admin",
};

export interface AppRun {
  app: string;
  broker: string;
  steps: StepResult[];
  /** Set when the run could not start at all (app unavailable). */
  unavailable?: string;
  /** Every process's events and stderr tail, for the report when something differs. */
  transcript: string;
  ms: number;
}

// ---- raw admin through kmock's own codec (the same requests on both brokers) --------------------

async function withClient<T>(bootstrap: string, f: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(bootstrap);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

async function createTopic(bootstrap: string, topic: string): Promise<void> {
  await withClient(bootstrap, async (c) => {
    const res = await c.request(
      19,
      4,
      createCreateTopicsRequest({ topics: [{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 15_000 }),
    );
    const code = res.topics[0]?.errorCode;
    if (code !== 0) throw new Error(`CreateTopics ${topic}: error ${code}`);
    // A real broker needs a moment before every partition has a leader.
    await waitFor(`leaders for ${topic}`, async () => {
      const md = await c.request(3, 1, createMetadataRequest({ topics: [createMetadataRequestTopic({ name: topic })] }));
      const t = md.topics[0];
      return t !== undefined && t.errorCode === 0 && t.partitions.length === PARTITIONS && t.partitions.every((p) => p.leaderId >= 0);
    }, 30_000, 100);
  });
}

/** Committed offsets of `group` for the topic (partition → offset, -1 when none). */
async function committed(bootstrap: string, group: string, topic: string): Promise<Record<number, number>> {
  return withClient(bootstrap, async (c) =>
    waitFor(`committed offsets of ${group}`, async () => {
      const res = await c.request(9, 1, createOffsetFetchRequest({ groupId: group, topics: [{ name: topic, partitionIndexes: [0, 1, 2] }] }));
      const parts = res.topics[0]?.partitions ?? [];
      if (parts.some((p) => p.errorCode !== 0)) return undefined; // coordinator still loading
      return Object.fromEntries(parts.map((p) => [p.partitionIndex, Number(p.committedOffset)]));
    }, 30_000, 200),
  );
}

interface GroupView {
  state: string;
  protocol: string;
  members: { clientId: string; instanceId: string | null }[];
}

async function describeRaw(bootstrap: string, group: string): Promise<GroupView> {
  return withClient(bootstrap, async (c) =>
    waitFor(`DescribeGroups ${group}`, async () => {
      const res = await c.request(15, 4, createDescribeGroupsRequest({ groups: [group] }));
      const g = res.groups[0];
      if (g === undefined || g.errorCode !== 0) return undefined;
      return { state: g.groupState, protocol: g.protocolData, members: g.members.map((m) => ({ clientId: m.clientId, instanceId: m.groupInstanceId })) };
    }, 30_000, 200),
  );
}

// ---- reading the apps' events --------------------------------------------------------------------

/** The partitions a consumer holds after the events so far (eager: assigned replaces, revoked removes). */
function holding(p: ClientProcess): number[] {
  let held = new Set<number>();
  for (const e of p.events) {
    if (e.event === 'assigned') held = new Set(e.partitions as number[]);
    else if (e.event === 'revoked' || e.event === 'lost') for (const x of e.partitions as number[]) held.delete(x);
  }
  return [...held].sort((a, b) => a - b);
}

function keysRead(ps: ClientProcess[]): string[] {
  return ps.flatMap((p) => p.ofType('message').map((e) => String(e.key)));
}

function rebalanceEvents(p: ClientProcess, from: number): JsonEvent[] {
  return p.events.slice(from).filter((e) => e.event === 'assigned' || e.event === 'revoked' || e.event === 'lost');
}

function failure(p: ClientProcess): JsonEvent | undefined {
  return p.events.find((e) => e.event === 'fatal') ?? (p.exitCode === 3 ? { event: 'fatal', name: null } : undefined);
}

/** Do the running members' holdings partition {0..P-1}, each member holding at least one? */
function partitioned(ps: ClientProcess[]): boolean {
  const all = ps.flatMap(holding);
  return all.length === PARTITIONS && new Set(all).size === PARTITIONS && ps.every((p) => holding(p).length > 0);
}

function keyRange(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `k${from + i}`);
}

// ---- one run -------------------------------------------------------------------------------------

export async function runApp(app: ClientApp, broker: { name: string; bootstrap: string }): Promise<AppRun> {
  const started = Date.now();
  const resolved = await app.resolve();
  if ('unavailable' in resolved) return { app: app.id, broker: broker.name, steps: [], unavailable: resolved.unavailable, transcript: '', ms: 0 };
  const argv = resolved.argv;
  const sessionMs = app.sessionTimeoutMs ?? SESSION_TIMEOUT_MS;
  const ns = `matrix-${app.id.replace(/\W/g, '')}-${randomBytes(3).toString('hex')}`;
  const topic = `${ns}-t`;
  const group = `${ns}-g`;
  const bootstrap = broker.bootstrap;
  const processes: ClientProcess[] = [];
  const steps: StepResult[] = [];

  const launch = (name: string, role: string, args: string[]): ClientProcess => {
    const p = new ClientProcess(`${app.id}@${broker.name}:${name}`, argv[0], [...argv.slice(1), role, '--bootstrap', bootstrap, ...args]);
    processes.push(p);
    return p;
  };
  const consumer = (clientId: string, instance?: string): ClientProcess =>
    launch(clientId, 'consume', [
      '--topic', topic, '--group', group, '--client-id', clientId,
      '--session-timeout-ms', String(sessionMs), '--max-seconds', '240',
      ...(instance ? ['--instance', instance] : []),
    ]);
  /** A role that runs to completion: its last event, and the exit code. */
  const once = async (name: string, role: string, args: string[]): Promise<{ last: JsonEvent | undefined; code: number | null }> => {
    const p = launch(name, role, args);
    await p.waitForExit(WAIT_MS);
    return { last: p.events[p.events.length - 1], code: p.exitCode };
  };
  const produce = async (from: number, count: number): Promise<void> => {
    const r = await once(`produce-${from}`, 'produce', ['--topic', topic, '--from', String(from), '--count', String(count), '--partitions', String(PARTITIONS)]);
    if (r.code !== 0 || r.last?.event !== 'produced') throw new Error(`produce ${from}+${count} failed: ${JSON.stringify(r.last)} (exit ${r.code})`);
  };
  const running = () => processes.filter((p) => p.running && p.ofType('started').length > 0);
  const stop = async (p: ClientProcess): Promise<void> => {
    await p.kill('SIGTERM', 30_000);
  };

  let blocked: string | undefined;
  const step = async (name: StepName, body: () => Promise<{ outcome: Outcome; info?: Record<string, unknown> } | { skipped: string }>) => {
    const t0 = Date.now();
    if (blocked !== undefined) {
      steps.push({ step: name, outcome: null, skipped: blocked, ms: 0 });
      return;
    }
    try {
      const r = await body();
      if ('skipped' in r) steps.push({ step: name, outcome: null, skipped: r.skipped, ms: Date.now() - t0 });
      else steps.push({ step: name, outcome: r.outcome, info: r.info, ms: Date.now() - t0 });
    } catch (e) {
      const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
      // A failed step is an outcome too (it is compared): the text is reduced to what it waited for.
      steps.push({ step: name, outcome: { failed: message.replace(/ \(last error.*$/, '').replace(/matrix-\S+/g, 'X') }, ms: Date.now() - t0 });
      blocked = `"${name}" failed`;
    }
  };

  let c1: ClientProcess, c2: ClientProcess, c3: ClientProcess;
  let c4: ClientProcess;
  const instance = (n: number) => (app.staticMembership ? `${ns}-i${n}` : undefined);
  try {
    await createTopic(bootstrap, topic);

    await step('produce', async () => {
      await produce(0, 30);
      return { outcome: { produced: 30 } };
    });

    await step('group', async () => {
      c1 = consumer('c1', instance(1));
      c2 = consumer('c2', instance(2));
      c3 = consumer('c3', instance(3));
      const group3 = [c1, c2, c3];
      await waitFor('3 members holding the 3 partitions and every record read', () => {
        for (const p of group3) if (!p.running) throw new Error(`${p.name} exited: ${p.describe().slice(-500)}`);
        return partitioned(group3) && keyRange(0, 30).every((k) => keysRead(group3).includes(k));
      }, WAIT_MS);
      await waitFor('offsets 10/10/10 committed', async () => JSON.stringify(await committed(bootstrap, group, topic)) === JSON.stringify({ 0: 10, 1: 10, 2: 10 }), WAIT_MS, 250);
      const read = keysRead(group3);
      return {
        outcome: { members: 3, partitionsPerMember: group3.map((p) => holding(p).length).sort(), distinctRecordsRead: new Set(read).size, committed: '10/10/10' },
        info: { deliveries: read.length },
      };
    });

    await step('describe', async () => {
      if (!app.describe) return { skipped: `${app.label} has no describe-group admin call in this app` };
      const r = await once('describe', 'describe', ['--group', group]);
      if (r.last?.event === 'unsupported') return { skipped: String(r.last.why ?? 'unsupported') };
      if (r.code !== 0 || r.last?.event !== 'group') throw new Error(`describe failed: ${JSON.stringify(r.last)} (exit ${r.code})`);
      const members = (r.last.members as { clientId: string; instanceId: string | null; partitions: number[] }[]) ?? [];
      return {
        outcome: {
          state: r.last.state,
          protocolType: r.last.protocolType,
          protocol: r.last.protocol,
          members: members.map((m) => `${m.clientId}${m.instanceId ? ' (static)' : ''}: ${m.partitions.length} partition(s)`).sort(),
        },
      };
    });

    await step('static-restart', async () => {
      if (!app.staticMembership) return { skipped: `${app.label} has no static membership` };
      const before = holding(c2);
      const marks = [c1.events.length, c3.events.length];
      await c2.kill('SIGKILL');
      const t0 = Date.now();
      c2 = consumer('c2', instance(2));
      await c2.waitForEvent('assignment after restart', (e) => e.event === 'assigned', WAIT_MS);
      const restartMs = Date.now() - t0;
      // Long enough for the survivors to hear of a rebalance through a heartbeat, had there been one.
      // (three heartbeat intervals: the apps heartbeat at a tenth of the session timeout)
      await sleep((3 * sessionMs) / 10);
      return {
        outcome: {
          samePartitions: JSON.stringify(holding(c2)) === JSON.stringify(before),
          survivorsSawRebalance: rebalanceEvents(c1, marks[0]).length + rebalanceEvents(c3, marks[1]).length > 0,
          reReadAfterRestart: c2.ofType('message').length,
        },
        info: { restartToAssignmentMs: restartMs },
      };
    });

    await step('fence', async () => {
      if (!app.staticMembership) return { skipped: `${app.label} has no static membership` };
      const intruder = consumer('c2-dup', instance(2));
      const fenced = await waitFor('one of the two processes with the same instance id to fail', () => {
        const a = failure(c2);
        const b = failure(intruder);
        if (a) return { who: 'the running member', name: a.name ?? null };
        if (b) return { who: 'the new process', name: b.name ?? null };
        return undefined;
      }, WAIT_MS).catch(() => ({ who: 'neither', name: null }));
      // Whichever survives keeps serving; the failed one has exited.
      const survivor = [c2, intruder].find((p) => p.running);
      if (survivor) c2 = survivor;
      return { outcome: { fenced: fenced.who, error: fenced.name } };
    });

    await step('resume', async () => {
      await produce(30, 9);
      const members = running();
      await waitFor('the 9 new records read and offsets 13/13/13 committed', async () =>
        keyRange(30, 9).every((k) => keysRead(members).includes(k)) &&
        JSON.stringify(await committed(bootstrap, group, topic)) === JSON.stringify({ 0: 13, 1: 13, 2: 13 }), WAIT_MS, 250);
      await Promise.all(members.map(stop));
      const cleanCloses = members.filter((p) => p.ofType('closed').length > 0 && p.exitCode === 0).length;
      await sleep(500);
      const afterClose = await describeRaw(bootstrap, group);
      // Static members do not leave on close: the group empties when their sessions expire.
      const t0 = Date.now();
      await waitFor('the group to become Empty', async () => (await describeRaw(bootstrap, group)).state === 'Empty', sessionMs + WAIT_MS, 250);
      const emptyAfterMs = Date.now() - t0;
      await produce(39, 6);
      c4 = consumer('c4');
      await waitFor('the 6 new records read and offsets 15/15/15 committed', async () =>
        keyRange(39, 6).every((k) => keysRead([c4]).includes(k)) &&
        JSON.stringify(await committed(bootstrap, group, topic)) === JSON.stringify({ 0: 15, 1: 15, 2: 15 }), WAIT_MS, 250);
      await sleep(300);
      return {
        outcome: {
          closedCleanly: `${cleanCloses}/${members.length}`,
          membersRightAfterClose: afterClose.members.length,
          stateRightAfterClose: afterClose.state,
          readAfterResume: [...new Set(keysRead([c4]))].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
        },
        info: { emptyAfterMs },
      };
    });

    await step('leave', async () => {
      const c5 = consumer('c5');
      const c6 = consumer('c6');
      await waitFor('c4, c5, c6 holding one partition each', () => partitioned([c4, c5, c6]), WAIT_MS);
      const t0 = Date.now();
      await stop(c5);
      await waitFor('c4 and c6 holding all partitions', () => partitioned([c4, c6]), WAIT_MS);
      const view = await waitFor('a Stable group', async () => {
        const v = await describeRaw(bootstrap, group);
        return v.state === 'Stable' ? v : undefined;
      }, WAIT_MS, 200);
      return {
        outcome: { leaverClosedCleanly: c5.ofType('closed').length > 0 && c5.exitCode === 0, membersAfter: view.members.length, coveredByTheOtherTwo: true },
        info: { coveredAfterMs: Date.now() - t0 },
      };
    });

    await step('remove', async () => {
      if (!app.remove) return { skipped: `${app.label} cannot remove members by instance id` };
      const others = running();
      const c7 = consumer('c7', instance(7));
      await waitFor('3 members holding one partition each', () => partitioned([...others, c7]), WAIT_MS);
      await c7.kill('SIGKILL');
      const t0 = Date.now();
      const removed = await once('remove', 'remove', ['--group', group, '--instance', instance(7)!]);
      if (removed.last?.event !== 'removed') throw new Error(`remove failed: ${JSON.stringify(removed.last)} (exit ${removed.code})`);
      await waitFor('the other 2 holding all partitions', () => partitioned(others), WAIT_MS);
      const coveredMs = Date.now() - t0;
      const unknown = await once('remove-unknown', 'remove', ['--group', group, '--instance', `${ns}-nobody`]);
      const view = await describeRaw(bootstrap, group);
      return {
        outcome: {
          removeError: removed.last.error ?? null,
          // Faster than the dead member's session would have expired: the removal itself rebalanced.
          rebalancedBeforeSessionTimeout: coveredMs < sessionMs,
          membersAfter: view.members.length,
          unknownInstanceError: unknown.last?.error ?? JSON.stringify(unknown.last),
        },
        info: { coveredAfterMs: coveredMs },
      };
    });
  } finally {
    await Promise.all(processes.map((p) => p.kill('SIGKILL', 3000)));
  }
  return {
    app: app.id,
    broker: broker.name,
    steps,
    transcript: processes.map((p) => p.describe()).join('\n'),
    ms: Date.now() - started,
  };
}
