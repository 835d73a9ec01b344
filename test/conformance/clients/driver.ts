// Plays the client-matrix app (PROTOCOL.md) of one client family against one broker, step by
// step, and reduces what the processes printed (and what the broker answers to a few raw
// requests) to a small outcome per step. An outcome holds what the *broker* decided (offsets,
// records delivered and how often, assignments, rebalances each member saw, generations, error
// names), never a constant that the driver's own waits already force; and only what is
// deterministic on a correct broker, so that the outcome on kmock can be compared with the one on
// a real Kafka. Timings go into `info`.
//
// Determinism is bought by ordering: members join one at a time (each join is exactly one
// rebalance), records are produced only while no rebalance can happen, and every member commits
// what it printed before the next rebalance, so a correct broker redelivers nothing. Where a
// count would still depend on timing (the rebalances while several members close at once, say)
// the outcome holds a difference around one event instead (the generations before and after a
// leave), or nothing.
import { randomBytes } from 'node:crypto';
import {
  createCreateTopicsRequest,
  createDescribeGroupsRequest,
  createListOffsetsRequest,
  createMetadataRequest,
  createOffsetCommitRequest,
  createOffsetFetchRequest,
  ZERO_UUID,
} from '../../../src/codec/index.js';
import { ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { logEnds } from '../../support/clients/txn.js';
import { sleep, waitFor } from '../../support/clients/wait.js';
import { RawClient } from '../../support/raw-client.js';
import type { ClientApp } from './apps.js';

export const PARTITIONS = 3;
/** Group timings given to the apps. Kafka's minimum session timeout is 6 s; heartbeats at S/10. */
export const SESSION_TIMEOUT_MS = 6000;
/** Broker settings both brokers get for the matrix (mirrored on kmock and Kafka). */
export const MATRIX_BROKER_SETTINGS = { 'group.initial.rebalance.delay.ms': 1000, 'auto.create.topics.enable': false };

/** The all-zero topic id (base64) of a Metadata request that names its topic. */

const WAIT_MS = Number(process.env.KMOCK_MATRIX_WAIT_MS ?? 60_000);

export type Outcome = Record<string, unknown>;

export interface StepResult {
  step: StepName;
  /** Compared between brokers. null when the step has no outcome (failed, n/a, not run). */
  outcome: Outcome | null;
  /** The step ran and failed: what it waited for in vain, or what went wrong. */
  failed?: string;
  /** The client cannot do this step (the only legitimate n/a): why. */
  skipped?: string;
  /** The step was not run because this earlier step failed. */
  notRunBecause?: StepName;
  /** Not compared: timings, … */
  info?: Record<string, unknown>;
  ms: number;
}

export const STEPS = ['produce', 'group', 'describe', 'static-restart', 'fence', 'resume', 'leave', 'remove', 'transactions'] as const;
export type StepName = (typeof STEPS)[number];

export const STEP_TITLES: Record<StepName, string> = {
  produce: 'produce 30 (acks=all, explicit partitions): the log end offsets',
  group: 'members join one at a time (1, 2, 3): records delivered and how often, committed offsets, assignments, rebalances per member, generations',
  describe: "the client's admin describes the group",
  'static-restart': 'a static member is killed and restarted with its instance id: no rebalance (generation unchanged), same partitions, nothing re-read',
  fence: 'a second process takes a live instance id: who is fenced, with which error, and no rebalance',
  resume: 'commit, close all, produce 6 more, a new member reads exactly those 6 (once each)',
  leave: 'one of 3 members closes: one rebalance, the other 2 cover every partition',
  remove: "a dead static member removed by instance id with the client's admin: one rebalance",
  transactions: 'a transactional producer commits 3 records and aborts 2: what a read_committed consumer reads, the log end and last stable offsets, the producer\'s errors',
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

async function createTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  await withClient(bootstrap, async (c) => {
    const res = await c.request(
      19,
      4,
      createCreateTopicsRequest({ topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 15_000 }),
    );
    const code = res.topics[0]?.errorCode;
    if (code !== 0) throw new Error(`CreateTopics ${topic}: error ${code}`);
    // A real broker needs a moment before every partition has a leader.
    await waitFor(`leaders for ${topic}`, async () => {
      const md = await c.request(3, 1, createMetadataRequest({ topics: [{ topicId: ZERO_UUID, name: topic }] }));
      const t = md.topics[0];
      return t !== undefined && t.errorCode === 0 && t.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0);
    }, 30_000, 100);
  });
}

/** The log end offset of every partition of the topic (ListOffsets, latest). */
async function endOffsets(bootstrap: string, topic: string): Promise<Record<number, number | string>> {
  return withClient(bootstrap, async (c) => {
    const res = await c.request(
      2,
      1,
      createListOffsetsRequest({
        replicaId: -1,
        topics: [{ name: topic, partitions: Array.from({ length: PARTITIONS }, (_, i) => ({ partitionIndex: i, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) }],
      }),
    );
    const parts = res.topics[0]?.partitions ?? [];
    return Object.fromEntries(parts.map((p) => [p.partitionIndex, p.errorCode === 0 ? Number(p.offset) : `error ${p.errorCode}`]));
  });
}

/** Committed offsets of `group` for the topic as the broker has them (partition → offset, -1 when none). */
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
  members: { memberId: string; clientId: string; instanceId: string | null }[];
}

async function describeOnce(c: RawClient, group: string): Promise<GroupView | undefined> {
  const res = await c.request(15, 4, createDescribeGroupsRequest({ groups: [group] }));
  const g = res.groups[0];
  if (g === undefined || g.errorCode !== 0) return undefined;
  return {
    state: g.groupState,
    protocol: g.protocolData,
    members: g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, instanceId: m.groupInstanceId })),
  };
}

async function describeRaw(bootstrap: string, group: string): Promise<GroupView> {
  return withClient(bootstrap, async (c) => waitFor(`DescribeGroups ${group}`, () => describeOnce(c, group), 30_000, 200));
}

const ILLEGAL_GENERATION = 22;

/**
 * The group's generation as the broker has it. No API tells it to a non-member, so the driver
 * asks the way a member would be judged: an OffsetCommit, in a member's name (from
 * DescribeGroups), for partition 0 of a probe topic no member consumes, with generation 1, 2, …:
 * the broker answers ILLEGAL_GENERATION to every generation but the current one, and commits the
 * probe offset (and counts it as the member's heartbeat: harmless while every member is alive,
 * which is the only time this is asked) for the current one. Waits for a Stable group first.
 * `prefer`: client ids to take the member from, in order (a live member, never a killed one).
 */
async function generationOf(bootstrap: string, group: string, probeTopic: string, prefer: string[]): Promise<number> {
  return withClient(bootstrap, async (c) =>
    waitFor(`the generation of ${group} (Stable)`, async () => {
      const view = await describeOnce(c, group);
      if (view === undefined || view.state !== 'Stable') return undefined;
      const m = prefer.map((id) => view.members.find((x) => x.clientId === id)).find((x) => x !== undefined);
      if (m === undefined) throw new Error(`none of ${prefer.join(', ')} is a member: ${view.members.map((x) => x.clientId).join(', ')}`);
      for (let generation = 1; generation <= 100; generation++) {
        const res = await c.request(
          8,
          8,
          createOffsetCommitRequest({
            groupId: group,
            generationIdOrMemberEpoch: generation,
            memberId: m.memberId,
            groupInstanceId: m.instanceId,
            topics: [{ name: probeTopic, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] }],
          }),
        );
        const code = res.topics[0]?.partitions[0]?.errorCode;
        if (code === 0) return generation;
        if (code !== ILLEGAL_GENERATION) return undefined; // a rebalance began, or the member went: look again
      }
      throw new Error('no generation from 1 to 100 accepted');
    }, WAIT_MS, 200),
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

/** `assigned` events of p at index >= from: the rebalances p took part in (eager: one each). */
function assignedSince(p: ClientProcess, from = 0): number {
  return p.events.slice(from).filter((e) => e.event === 'assigned').length;
}

/** Records p printed at index >= from. */
function messagesSince(p: ClientProcess, from = 0): JsonEvent[] {
  return p.events.slice(from).filter((e) => e.event === 'message');
}

function failure(p: ClientProcess): JsonEvent | undefined {
  return p.events.find((e) => e.event === 'fatal') ?? (p.exitCode === 3 ? { event: 'fatal', name: null } : undefined);
}

/** Do the running members' holdings partition {0..P-1}, each member holding at least one? */
function partitioned(ps: ClientProcess[]): boolean {
  const all = ps.flatMap(holding);
  return all.length === PARTITIONS && new Set(all).size === PARTITIONS && ps.every((p) => holding(p).length > 0);
}

/** The highest offset each partition was reported committed at by these members (their `committed` lines). */
function clientCommitted(ps: ClientProcess[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const p of ps) for (const e of p.ofType('committed')) for (const [k, v] of Object.entries(e.offsets as Record<string, number>)) out[Number(k)] = Math.max(out[Number(k)] ?? -1, v);
  return out;
}

function offsetsAre(o: Record<number, number>, each: number): boolean {
  return Array.from({ length: PARTITIONS }, (_, i) => o[i] === each).every(Boolean);
}

function keyRange(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `k${from + i}`);
}

const byKeyNumber = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1));

/** Every delivery, per partition in the order printed: "offset:key" (a redelivery shows twice). */
function deliveries(ps: ClientProcess[]): Record<string, string> {
  const out: Record<string, string[]> = {};
  for (const p of ps) for (const e of p.ofType('message')) (out[String(e.partition)] ??= []).push(`${e.offset}:${e.key}`);
  for (const list of Object.values(out)) list.sort((a, b) => Number(a.split(':')[0]) - Number(b.split(':')[0]));
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.join(' ')]));
}

/** Throws when a member has exited (so that a wait reports the exit, not just its timeout). */
function alive(ps: ClientProcess[]): void {
  for (const p of ps) if (!p.running) throw new Error(`${p.name} exited: ${p.describe().slice(-500)}`);
}

// ---- security --------------------------------------------------------------------------------------

/**
 * A secured listener for the apps (PROTOCOL.md's security options): they connect to `bootstrap`
 * with SASL over TLS, trusting the CA in `caFile`; the driver's own raw requests keep to the
 * broker's PLAINTEXT listener.
 */
export interface MatrixSecurity {
  protocol: 'SASL_SSL';
  bootstrap: string;
  username: string;
  password: string;
  caFile: string;
}

/** A broker as the driver plays an app against it. */
export interface MatrixTarget {
  name: string;
  /** The PLAINTEXT listener: the driver's raw admin requests, and the apps' unless `security`. */
  bootstrap: string;
  security?: MatrixSecurity;
}

/** The apps' security options for `app` on this listener, or why the client cannot connect to it. */
export function securityArgs(app: ClientApp, s: MatrixSecurity): string[] | { cannot: string } {
  const sasl = app.saslSsl ?? { mechanism: 'SCRAM-SHA-256' };
  if ('cannot' in sasl) return sasl;
  return ['--security-protocol', s.protocol, '--sasl-mechanism', sasl.mechanism, '--sasl-username', s.username, '--sasl-password', s.password, '--ssl-ca', s.caFile];
}

// ---- one run -------------------------------------------------------------------------------------

/**
 * Plays `app` against `broker`: the steps of `only` (default all; a subset must keep what a step
 * needs from the steps before it: describe needs group), each outcome as PROTOCOL.md describes.
 */
export async function runApp(app: ClientApp, broker: MatrixTarget, only: readonly StepName[] = STEPS): Promise<AppRun> {
  const started = Date.now();
  const resolved = await app.resolve();
  if ('unavailable' in resolved) return { app: app.id, broker: broker.name, steps: [], unavailable: resolved.unavailable, transcript: '', ms: 0 };
  const secured = broker.security === undefined ? [] : securityArgs(app, broker.security);
  if (!Array.isArray(secured)) {
    // The client cannot connect this way at all: every step n/a, with why.
    const steps = STEPS.filter((s) => only.includes(s)).map((step): StepResult => ({ step, outcome: null, skipped: secured.cannot, ms: 0 }));
    return { app: app.id, broker: broker.name, steps, transcript: '', ms: 0 };
  }
  const appBootstrap = broker.security?.bootstrap ?? broker.bootstrap;
  const argv = resolved.argv;
  const sessionMs = app.sessionTimeoutMs ?? SESSION_TIMEOUT_MS;
  const ns = `matrix-${app.id.replace(/\W/g, '')}-${randomBytes(3).toString('hex')}`;
  const topic = `${ns}-t`;
  const probeTopic = `${ns}-probe`;
  const group = `${ns}-g`;
  const bootstrap = broker.bootstrap;
  const processes: ClientProcess[] = [];
  const steps: StepResult[] = [];

  const launch = (name: string, role: string, args: string[]): ClientProcess => {
    const p = new ClientProcess(`${app.id}@${broker.name}:${name}`, argv[0], [...argv.slice(1), role, '--bootstrap', appBootstrap, ...args, ...secured]);
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
  const shortName = (p: ClientProcess) => p.name.replace(/^.*:/, '');
  /** Waits for `check`, failing at once when one of `members` exits. */
  const until = async <T>(what: string, members: ClientProcess[], check: () => T | undefined | false | Promise<T | undefined | false>, ms = WAIT_MS): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const dead = members.find((p) => !p.running);
      if (dead) throw new Error(`${shortName(dead)} exited (code ${dead.exitCode}) while waiting for ${what}`);
      const v = await check();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await sleep(100);
    }
  };
  const generation = (...prefer: string[]) => generationOf(bootstrap, group, probeTopic, prefer);
  /** Who holds what: per member where the client's assignor is deterministic, else only the sizes. */
  const assignment = (ps: ClientProcess[]): unknown =>
    app.assignmentFollowsBrokerOrder
      ? ps.map((p) => holding(p).length).sort((a, b) => a - b)
      : Object.fromEntries(ps.map((p) => [shortName(p), holding(p)]));
  /** Three heartbeat intervals (the apps heartbeat at a tenth of the session timeout): long enough for
   *  every member to hear of a rebalance, had there been one. */
  const heartbeats = () => sleep((3 * sessionMs) / 10);

  let blocked: StepName | undefined;
  /** `cannot`: why the client cannot do this step at all (n/a, even after an earlier step failed). */
  const step = async (name: StepName, body: () => Promise<{ outcome: Outcome; info?: Record<string, unknown> } | { skipped: string }>, cannot?: string) => {
    const t0 = Date.now();
    if (!only.includes(name)) return;
    if (cannot !== undefined) {
      steps.push({ step: name, outcome: null, skipped: cannot, ms: 0 });
      return;
    }
    if (blocked !== undefined) {
      steps.push({ step: name, outcome: null, notRunBecause: blocked, ms: 0 });
      return;
    }
    try {
      const r = await body();
      if ('skipped' in r) steps.push({ step: name, outcome: null, skipped: r.skipped, ms: Date.now() - t0 });
      else steps.push({ step: name, outcome: r.outcome, info: r.info, ms: Date.now() - t0 });
    } catch (e) {
      const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
      steps.push({ step: name, outcome: null, failed: message.replace(/ \(last error.*$/, '').replace(/matrix-\S+/g, 'X'), ms: Date.now() - t0 });
      blocked = name;
    }
  };

  let c1: ClientProcess, c2: ClientProcess, c3: ClientProcess;
  let c4: ClientProcess;
  const instance = (n: number) => (app.staticMembership ? `${ns}-i${n}` : undefined);
  try {
    await step('produce', async () => {
      await createTopic(bootstrap, topic, PARTITIONS);
      await createTopic(bootstrap, probeTopic, 1);
      await produce(0, 30);
      // What the broker appended: a broker that acknowledged records it did not keep (or put them in
      // the wrong partition) ends elsewhere than 10/10/10.
      return { outcome: { endOffsets: await endOffsets(bootstrap, topic) } };
    });

    await step('group', async () => {
      // c1 alone: it gets every partition and reads and commits all 30 before anyone else joins,
      // so that a correct broker redelivers nothing at the two rebalances that follow.
      c1 = consumer('c1', instance(1));
      await until('c1 alone holding the 3 partitions and reading every record', [c1], () =>
        holding(c1).length === PARTITIONS && keyRange(0, 30).every((k) => keysRead([c1]).includes(k)));
      await until('c1 reporting offsets 10/10/10 committed', [c1], () => offsetsAre(clientCommitted([c1]), 10));
      // What the broker stored of c1's commits (the wait above is on what c1 was told).
      const committedByBroker = await committed(bootstrap, group, topic);
      const generations = [await generation('c1')];
      const assignments: unknown[] = [assignment([c1])];
      // Then c2, then c3: each join is one rebalance, in which every member gets a new assignment.
      const join = async (newcomer: ClientProcess, members: ClientProcess[]) => {
        const marks = members.map((p) => p.events.length);
        await until(`${members.map(shortName).join(', ')} reassigned with ${shortName(newcomer)}`, [...members, newcomer], () =>
          members.every((p, i) => assignedSince(p, marks[i]) > 0) && assignedSince(newcomer) > 0 && partitioned([...members, newcomer]));
        generations.push(await generation('c1'));
        assignments.push(assignment([...members, newcomer]));
      };
      c2 = consumer('c2', instance(2));
      await join(c2, [c1]);
      c3 = consumer('c3', instance(3));
      await join(c3, [c1, c2]);
      // Rebalances are heard through heartbeats: give a broker that rebalances once too often the time to show it.
      await heartbeats();
      const group3 = [c1, c2, c3];
      const read = keysRead(group3);
      return {
        outcome: {
          // Which record each partition delivered at each offset, and every redelivery (none, as
          // everything was committed before each rebalance).
          delivered: deliveries(group3),
          redeliveries: read.length - new Set(read).size,
          committedByBroker,
          // One generation per join: 1, 2, 3 (a broker that bumps twice, or rebalances again, differs).
          generations,
          // Rebalances each member took part in: c1 all three, c2 two, c3 one.
          assignedEvents: Object.fromEntries(group3.map((p) => [shortName(p), assignedSince(p)])),
          // The assignment after each join (what SyncGroup handed to whom).
          assignments,
        },
        info: { deliveries: read.length },
      };
    });

    await step('describe', async () => {
      const r = await once('describe', 'describe', ['--group', group]);
      if (r.last?.event === 'unsupported') return { skipped: String(r.last.why ?? 'unsupported') };
      if (r.code !== 0 || r.last?.event !== 'group') throw new Error(`describe failed: ${JSON.stringify(r.last)} (exit ${r.code})`);
      const members = (r.last.members as { clientId: string; instanceId: string | null; partitions: number[] }[]) ?? [];
      return {
        outcome: {
          state: r.last.state,
          protocolType: r.last.protocolType,
          protocol: r.last.protocol,
          // Each member's assignment as the broker keeps it (the partitions themselves where the
          // client's assignor is deterministic).
          members: members
            .map((m) => `${m.clientId}${m.instanceId ? ' (static)' : ''}: ${app.assignmentFollowsBrokerOrder ? `${m.partitions.length} partition(s)` : JSON.stringify(m.partitions)}`)
            .sort(),
        },
      };
    }, app.describe ? undefined : `${app.label} has no describe-group admin call`);

    await step('static-restart', async () => {
      const before = holding(c2);
      const generationBefore = await generation('c1');
      const marks = [c1.events.length, c3.events.length];
      await c2.kill('SIGKILL');
      const t0 = Date.now();
      c2 = consumer('c2', instance(2));
      await c2.waitForEvent('assignment after restart', (e) => e.event === 'assigned', WAIT_MS);
      const restartMs = Date.now() - t0;
      await heartbeats();
      return {
        outcome: {
          // Kafka hands a static member that rejoins within its session its old assignment, at the
          // same generation, and tells no one else.
          samePartitions: JSON.stringify(holding(c2)) === JSON.stringify(before),
          generationChange: (await generation('c1')) - generationBefore,
          survivorsRebalanceEvents: { c1: c1.events.slice(marks[0]).filter(isRebalance).length, c3: c3.events.slice(marks[1]).filter(isRebalance).length },
          // From the committed offsets: nothing.
          reReadAfterRestart: c2.ofType('message').length,
        },
        info: { restartToAssignmentMs: restartMs },
      };
    }, app.staticMembership ? undefined : `${app.label} has no static membership`);

    await step('fence', async () => {
      const before = holding(c2);
      const generationBefore = await generation('c1');
      const marks = [c1.events.length, c3.events.length];
      const intruder = consumer('c2-dup', instance(2));
      const fenced = await waitFor('one of the two processes with the same instance id to fail', () => {
        const a = failure(c2);
        const b = failure(intruder);
        if (a) return { who: 'the running member', name: a.name ?? null };
        if (b) return { who: 'the new process', name: b.name ?? null };
        return undefined;
      }, WAIT_MS).catch(() => ({ who: 'neither', name: null }));
      // The one that did not fail keeps serving (the failed one may not have exited yet: it is not
      // asked whether it runs). Neither failed: both run on, c2 stays the one followed.
      const survivor = fenced.who === 'the running member' ? intruder : c2;
      if (fenced.who !== 'the new process') c2 = survivor;
      await until('the surviving holder of the instance id to hold partitions', [survivor], () => holding(survivor).length > 0);
      await heartbeats();
      return {
        outcome: {
          fenced: fenced.who,
          error: fenced.name,
          // The instance id's partitions stay with whoever holds it now, with no rebalance.
          survivorHoldsTheSamePartitions: JSON.stringify(holding(survivor)) === JSON.stringify(before),
          generationChange: (await generation('c1')) - generationBefore,
          othersRebalanceEvents: { c1: c1.events.slice(marks[0]).filter(isRebalance).length, c3: c3.events.slice(marks[1]).filter(isRebalance).length },
        },
      };
    }, app.staticMembership ? undefined : `${app.label} has no static membership`);

    await step('resume', async () => {
      const members = running();
      const marks = members.map((p) => p.events.length);
      await produce(30, 9);
      await until('the 9 new records read and reported committed at 13/13/13', members, () =>
        keyRange(30, 9).every((k) => keysRead(members).includes(k)) && offsetsAre(clientCommitted(members), 13));
      const committedAfterNine = await committed(bootstrap, group, topic);
      // The group is stable while the 9 are produced: each is delivered exactly once.
      const nineDelivered = members.reduce((n, p, i) => n + messagesSince(p, marks[i]).length, 0);
      await Promise.all(members.map(stop));
      const cleanCloses = members.filter((p) => p.ofType('closed').length > 0 && p.exitCode === 0).length;
      await sleep(500);
      // Dynamic members have left (Empty, no members); static ones have not (their sessions run on).
      const afterClose = await describeRaw(bootstrap, group);
      // (How many rebalances the closes cause depends on the order the members' LeaveGroups or
      // session expiries arrive in: the generation here is not compared.)
      const t0 = Date.now();
      await waitFor('the group to become Empty', async () => (await describeRaw(bootstrap, group)).state === 'Empty', sessionMs + WAIT_MS, 250);
      const emptyAfterMs = Date.now() - t0;
      await produce(39, 6);
      c4 = consumer('c4');
      await until('c4 reading the 6 new records and reporting 15/15/15 committed', [c4], () =>
        keyRange(39, 6).every((k) => keysRead([c4]).includes(k)) && offsetsAre(clientCommitted([c4]), 15));
      await sleep(300);
      return {
        outcome: {
          committedAfterNine,
          nineDelivered,
          closedCleanly: `${cleanCloses}/${members.length}`,
          membersRightAfterClose: afterClose.members.length,
          stateRightAfterClose: afterClose.state,
          // Every record c4 got, redeliveries included: from the committed offsets, exactly the 6 new ones.
          readAfterResume: keysRead([c4]).sort(byKeyNumber),
          committedAfterResume: await committed(bootstrap, group, topic),
        },
        info: { emptyAfterMs },
      };
    });

    await step('leave', async () => {
      const c4Mark = c4.events.length;
      const c5 = consumer('c5');
      const c6 = consumer('c6');
      // (c5 and c6 join together: whether that takes one rebalance or two is timing, not compared.)
      await until('c4, c5, c6 holding one partition each', [c4, c5, c6], () => partitioned([c4, c5, c6]));
      const generationBefore = await generation('c4', 'c6');
      const marks = [c4.events.length, c6.events.length];
      const t0 = Date.now();
      await stop(c5);
      await until('c4 and c6 reassigned and holding all partitions', [c4, c6], () =>
        assignedSince(c4, marks[0]) > 0 && assignedSince(c6, marks[1]) > 0 && partitioned([c4, c6]));
      const coveredMs = Date.now() - t0;
      const view = await waitFor('a Stable group', async () => {
        const v = await describeRaw(bootstrap, group);
        return v.state === 'Stable' ? v : undefined;
      }, WAIT_MS, 200);
      const generationAfter = await generation('c4', 'c6');
      await heartbeats();
      return {
        outcome: {
          leaverClosedCleanly: c5.ofType('closed').length > 0 && c5.exitCode === 0,
          membersAfter: view.members.length,
          // The LeaveGroup is one rebalance: one generation, one new assignment for each of the two.
          generationChange: generationAfter - generationBefore,
          survivorsAssignedEvents: { c4: assignedSince(c4, marks[0]), c6: assignedSince(c6, marks[1]) },
          assignment: assignment([c4, c6]),
          // Everything was committed: the newcomers and the rebalance redeliver nothing.
          delivered: messagesSince(c4, c4Mark).length + messagesSince(c5).length + messagesSince(c6).length,
        },
        info: { coveredAfterMs: coveredMs },
      };
    });

    await step('remove', async () => {
      const others = running();
      const c7 = consumer('c7', instance(7));
      await until('3 members holding one partition each', [...others, c7], () => partitioned([...others, c7]));
      const generationBefore = await generation(...others.map(shortName));
      const marks = others.map((p) => p.events.length);
      await c7.kill('SIGKILL');
      const t0 = Date.now();
      const removed = await once('remove', 'remove', ['--group', group, '--instance', instance(7)!]);
      if (removed.last?.event !== 'removed') throw new Error(`remove failed: ${JSON.stringify(removed.last)} (exit ${removed.code})`);
      await until('the other 2 reassigned and holding all partitions', others, () =>
        others.every((p, i) => assignedSince(p, marks[i]) > 0) && partitioned(others));
      const coveredMs = Date.now() - t0;
      const unknown = await once('remove-unknown', 'remove', ['--group', group, '--instance', `${ns}-nobody`]);
      const view = await describeRaw(bootstrap, group);
      const generationAfter = await generation(...others.map(shortName));
      return {
        outcome: {
          removeError: removed.last.error ?? null,
          // Faster than the dead member's session would have expired: the removal itself rebalanced.
          rebalancedBeforeSessionTimeout: coveredMs < sessionMs,
          generationChange: generationAfter - generationBefore,
          survivorsAssignedEvents: Object.fromEntries(others.map((p, i) => [shortName(p), assignedSince(p, marks[i])])),
          membersAfter: view.members.length,
          unknownInstanceError: unknown.last?.error ?? JSON.stringify(unknown.last),
        },
        info: { coveredAfterMs: coveredMs },
      };
    }, app.remove ? undefined : `${app.label} cannot remove members by instance id`);

    await step('transactions', async () => {
      // A topic of its own: 3 committed records (k0-k2, one per partition) in one transaction, then
      // 2 (k3, k4 to partitions 0 and 1) in a second, acknowledged, then aborted.
      const txnTopic = `${ns}-txn`;
      await createTopic(bootstrap, txnTopic, PARTITIONS);
      const producer = launch('transact', 'transact', [
        '--topic', txnTopic, '--from', '0', '--commit', '3', '--abort', '2', '--transactional-id', `${ns}-txn-id`, '--partitions', String(PARTITIONS),
      ]);
      await producer.waitForExit(WAIT_MS);
      if (producer.exitCode !== 0 && producer.exitCode !== 1) {
        throw new Error(`transact exited ${producer.exitCode}: ${JSON.stringify(producer.events[producer.events.length - 1])}`);
      }
      // Kafka writes the markers after EndTxn is answered: the offsets once every partition's last
      // stable offset has caught up with its log end (a broker that never gets there shows where it stayed).
      const t0 = Date.now();
      let ends = await logEnds(bootstrap, txnTopic, PARTITIONS);
      while (ends.stable.some((o, p) => o !== ends.end[p]) && Date.now() - t0 < 15_000) {
        await sleep(100);
        ends = await logEnds(bootstrap, txnTopic, PARTITIONS);
      }
      const stableAfterMs = Date.now() - t0;
      // Read under read_committed up to the last stable offsets.
      const reader = launch('read', 'read', ['--topic', txnTopic, '--until', ends.stable.map((o, p) => `${p}:${o}`).join(','), '--max-seconds', '60']);
      await reader.waitForExit(WAIT_MS + 30_000);
      const done = reader.ofType('read')[0];
      if (reader.exitCode !== 0 || done === undefined) throw new Error(`read failed: ${JSON.stringify(reader.events[reader.events.length - 1])} (exit ${reader.exitCode})`);
      const perPartition = (a: number[]) => Object.fromEntries(a.map((o, p) => [p, o]));
      return {
        outcome: {
          // What the producer was told: each transaction's end, and every error (with the call it came from).
          producer: {
            committed: producer.ofType('committed')[0]?.count ?? null,
            aborted: producer.ofType('aborted')[0]?.count ?? null,
            errors: producer.ofType('error').map((e) => `${String(e.during ?? '?')}: ${String(e.name)}`),
          },
          // Records and one marker per partition of each transaction: 4/4/2.
          logEnd: perPartition(ends.end),
          lastStable: perPartition(ends.stable),
          // Exactly the committed 3, at the offsets the broker gave them.
          readCommitted: reader
            .ofType('message')
            .map((e) => `${e.partition}@${e.offset}:${e.key}`)
            .sort(),
          readComplete: done.complete === true,
          readErrors: reader.ofType('error').map((e) => String(e.name)),
        },
        info: { stableAfterMs },
      };
    }, app.transactions ? undefined : `${app.label} has no transactional producer`);
  } finally {
    await Promise.all(processes.map((p) => p.kill('SIGKILL', 3000)));
  }
  return {
    app: app.id,
    broker: broker.name,
    steps,
    transcript: [`(the apps on ${appBootstrap}${secured.length > 0 ? `: ${secured.join(' ')}` : ''})`, ...processes.map((p) => p.describe())].join('\n'),
    ms: Date.now() - started,
  };
}

function isRebalance(e: JsonEvent): boolean {
  return e.event === 'assigned' || e.event === 'revoked' || e.event === 'lost';
}
