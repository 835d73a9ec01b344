// The draft policies against real clients: librdkafka 2.0.2 (python3-confluent-kafka 1.7.0) consumers
// with group.instance.id, unchanged, against a listening kmock (JoinGroup v5 / SyncGroup v3 /
// OffsetCommit v7 on the wire). Reuses test/support/clients (confluent_client.py `group`).
//
//  * registration-timeout: a static member down longer than its session timeout is kept offline
//    and comes back to its old assignment; the others never revoke.
//  * kip345-draft-errors: a second process with a live group.instance.id is refused (fatal
//    FENCED_INSTANCE_ID for the newcomer; Kafka would fence the running one instead), and a
//    restarted member gets its mapped member id back through MEMBER_ID_REQUIRED.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import type { PolicyUpdate } from '../../../src/broker/group/policies/types.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { ProcessSet, pythonModuleMissing, type ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { sleep, waitFor } from '../../support/clients/wait.js';

const CONFLUENT_MISSING = pythonModuleMissing('confluent_kafka', 'python3-confluent-kafka');
if (CONFLUENT_MISSING) console.warn(`[librdkafka-policies] skipping: ${CONFLUENT_MISSING}`);

const SCRIPT = 'confluent_client.py';
const GROUP = 'pg';
const TOPIC = 'pt';

let kmock: Kmock | undefined;
let trace: TraceCapture;
let events: GroupEvent[];
let procs: ProcessSet;

beforeEach((ctx) => {
  trace = captureTrace();
  events = [];
  procs = new ProcessSet();
  ctx.onTestFailed(() => {
    process.stderr.write(`${procs.describeAll()}\n--- kmock log (last lines) ---\n${trace.tail(80)}\n`);
  });
});

afterEach(async (ctx) => {
  await procs.killAll();
  await kmock?.close();
  kmock = undefined;
  dumpTraceIfAsked(trace, ctx.task.name);
});

async function start(policies: PolicyUpdate): Promise<Kmock> {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, numPartitions: 6, trace: true, logLevel: 'info', logger: trace.logger, policies });
  kmock.broker.groupEventListeners.add((e) => events.push(e));
  return kmock;
}

function member(instance: string, label: string, sessionTimeoutMs: number): ClientProcess {
  return procs.python(label, SCRIPT, [
    'group', '--bootstrap', kmock!.bootstrapServers, '--topic', TOPIC, '--group', GROUP, '--instance-id', instance,
    '--session-timeout', String(sessionTimeoutMs), '--heartbeat-interval', '500', '--strategy', 'range', '--max-seconds', '90',
  ]);
}

function lastAssignment(p: ClientProcess): number[] | undefined {
  const rebalance = p.events.filter((e) => e.event === 'assign' || e.event === 'revoke' || e.event === 'lost');
  const last = rebalance[rebalance.length - 1];
  return last?.event === 'assign' ? (last.partitions as number[]) : undefined;
}

function rebalanceCallbacksSince(p: ClientProcess, from: number): JsonEvent[] {
  return p.events.slice(from).filter((e) => e.event === 'assign' || e.event === 'revoke' || e.event === 'lost');
}

function memberIdOf(instance: string): string {
  return kmock!.broker.groups.describeGroups([GROUP])[0]!.members.find((m) => m.groupInstanceId === instance)!.memberId;
}

/** a, b and c in the group on a 6-partition topic, settled with 2 partitions each; a leads. */
async function staticGroup(sessionTimeoutMs: number): Promise<Record<'a' | 'b' | 'c', ClientProcess>> {
  for (let p = 0; p < 6; p++) {
    const prod = procs.python(`seed p${p}`, SCRIPT, ['produce', '--bootstrap', kmock!.bootstrapServers, '--topic', TOPIC, '--count', '1', '--partition', String(p)]);
    expect(await prod.waitForExit(30_000)).toBe(0);
  }
  const a = member('a', 'a', sessionTimeoutMs);
  await a.waitForEvent('first assignment', (e) => e.event === 'assign', 30_000);
  const b = member('b', 'b', sessionTimeoutMs);
  const c = member('c', 'c', sessionTimeoutMs);
  await waitFor('a, b, c settled with 2 partitions each', () => {
    const g = kmock!.broker.groups.group(GROUP);
    if (g?.state !== 'Stable' || g.size !== 3) return false;
    const parts = [a, b, c].map(lastAssignment);
    if (parts.some((p) => p === undefined || p.length !== 2)) return false;
    return parts.flat().sort().join() === '0,1,2,3,4,5';
  }, 30_000);
  return { a, b, c };
}

describe.skipIf(CONFLUENT_MISSING !== undefined)(`librdkafka with the draft policies${CONFLUENT_MISSING ? ` (skipped: ${CONFLUENT_MISSING})` : ''}`, () => {
  it('registration-timeout: a static member down longer than session.timeout.ms comes back to its old assignment; nobody revokes', async () => {
    const sessionTimeoutMs = 6000;
    await start({ 'registration-timeout': { enabled: true, registrationTimeoutMs: 60_000 } });
    const { a, b, c } = await staticGroup(sessionTimeoutMs);
    const generation = kmock!.broker.groups.group(GROUP)!.generationId;
    const bPartitions = lastAssignment(b)!;
    const bMemberId = memberIdOf('b');
    const aFrom = a.events.length;
    const cFrom = c.events.length;
    const eventsFrom = events.length;

    await b.kill('SIGKILL');
    const killedAt = Date.now();
    const offline = await waitFor('b marked offline', () => events.find((e) => e.type === 'member-offline' && e.memberId === bMemberId), sessionTimeoutMs + 5000);
    expect(offline).toMatchObject({ groupInstanceId: 'b', policy: 'registration-timeout' });
    expect(Date.now() - killedAt).toBeGreaterThan(sessionTimeoutMs - 1000);
    // Offline, b keeps its place: still three members, same generation, Stable.
    expect(kmock!.broker.groups.offlineStaticMembers(GROUP).map((m) => m.groupInstanceId)).toEqual(['b']);
    await sleep(2000);
    expect(kmock!.broker.groups.group(GROUP)!.size).toBe(3);

    const b2 = member('b', 'b (restarted)', sessionTimeoutMs);
    const assigned = await b2.waitForEvent('assignment after the restart', (e) => e.event === 'assign', 20_000);
    expect(Date.now() - killedAt, 'b was down longer than its session timeout').toBeGreaterThan(sessionTimeoutMs + 1000);
    expect(assigned.partitions).toEqual(bPartitions);

    await sleep(2000);
    expect(rebalanceCallbacksSince(a, aFrom)).toEqual([]);
    expect(rebalanceCallbacksSince(c, cFrom)).toEqual([]);
    const group = kmock!.broker.groups.group(GROUP)!;
    expect(group.state).toBe('Stable');
    expect(group.generationId).toBe(generation);
    const since = events.slice(eventsFrom);
    expect(since.filter((e) => e.type === 'rebalance-started' || e.type === 'member-removed')).toEqual([]);
    expect(since.filter((e) => e.type === 'member-online')).toMatchObject([{ memberId: bMemberId, groupInstanceId: 'b', via: 'JoinGroup' }]);
    expect(kmock!.broker.groups.offlineStaticMembers(GROUP)).toEqual([]);
    // The policy event reached the log (the same stream as the trace).
    expect(trace.lines.some((l) => (l.group as { type?: string } | undefined)?.type === 'member-offline')).toBe(true);
  });

  it('kip345-draft-errors: a second process with a live group.instance.id is refused (fatal FENCED_INSTANCE_ID); the running one keeps its partitions', async () => {
    await start({ 'kip345-draft-errors': { enabled: true } });
    const { a, b, c } = await staticGroup(10_000);
    const generation = kmock!.broker.groups.group(GROUP)!.generationId;
    const cPartitions = lastAssignment(c)!;
    const cMemberId = memberIdOf('c');
    const from = { a: a.events.length, b: b.events.length, c: c.events.length };
    const eventsFrom = events.length;

    const dup = member('c', 'c (duplicate)', 10_000);
    const fatal = await dup.waitForEvent('fatal error', (e) => e.event === 'fatal', 20_000);
    expect(fatal.name).toBe('_FATAL');
    expect(String(fatal.str)).toContain('Static consumer fenced by other consumer with same group.instance.id');
    expect(await dup.waitForExit(15_000)).toBe(3);
    expect(dup.ofType('assign')).toEqual([]);

    // The draft's names, in the events and the log; the real codes on the wire.
    const drafts = events.slice(eventsFrom).filter((e) => e.type === 'draft-error');
    expect(drafts.map((e) => e.type === 'draft-error' && [e.draftError, e.errorCode])).toEqual([
      ['MISSING_MEMBER_ID', 79],
      ['DUPLICATE_STATIC_MEMBER', 82],
    ]);
    const logged = trace.lines.filter((l) => (l.group as { type?: string } | undefined)?.type === 'draft-error').map((l) => (l.group as { draftError: string }).draftError);
    expect(logged).toEqual(['MISSING_MEMBER_ID', 'DUPLICATE_STATIC_MEMBER']);
    const dupJoins = trace.traffic('JoinGroup').filter((l) => l.client === 'kmock-confluent-c' && l.response !== null).slice(-2);
    expect(dupJoins.map((l) => [(l.request as { memberId: string }).memberId, (l.response as { errorCode: number; memberId: string }).errorCode])).toEqual([
      ['', 79],
      [cMemberId, 82],
    ]);
    expect((dupJoins[0]!.response as { memberId: string }).memberId).toBe(cMemberId);

    // The running c was not touched; nobody rebalanced.
    await sleep(1500);
    expect(c.running).toBe(true);
    expect(c.ofType('fatal')).toEqual([]);
    expect(lastAssignment(c)).toEqual(cPartitions);
    expect(rebalanceCallbacksSince(a, from.a)).toEqual([]);
    expect(rebalanceCallbacksSince(b, from.b)).toEqual([]);
    expect(rebalanceCallbacksSince(c, from.c)).toEqual([]);
    expect(kmock!.broker.groups.group(GROUP)!.generationId).toBe(generation);
    expect(memberIdOf('c')).toBe(cMemberId);
    expect(events.slice(eventsFrom).filter((e) => e.type === 'rebalance-started')).toEqual([]);
  });

  it('kip345-draft-errors: a restarted member is handed its mapped member id (MEMBER_ID_REQUIRED) and takes its old place once the old session lapses', async () => {
    const sessionTimeoutMs = 6000;
    await start({ 'kip345-draft-errors': { enabled: true } });
    const { a, b, c } = await staticGroup(sessionTimeoutMs);
    const generation = kmock!.broker.groups.group(GROUP)!.generationId;
    const cPartitions = lastAssignment(c)!;
    const cMemberId = memberIdOf('c');
    const from = { a: a.events.length, b: b.events.length };
    const eventsFrom = events.length;

    await c.kill('SIGKILL');
    await sleep(500);
    const c2 = member('c', 'c (restarted)', sessionTimeoutMs);
    const assigned = await c2.waitForEvent('assignment after the restart', (e) => e.event === 'assign', 20_000);
    expect(assigned.partitions).toEqual(cPartitions);
    expect(memberIdOf('c')).toBe(cMemberId);

    await sleep(1500);
    expect(rebalanceCallbacksSince(a, from.a)).toEqual([]);
    expect(rebalanceCallbacksSince(b, from.b)).toEqual([]);
    expect(kmock!.broker.groups.group(GROUP)!.generationId).toBe(generation);
    const since = events.slice(eventsFrom);
    expect(since.filter((e) => e.type === 'draft-error').map((e) => e.type === 'draft-error' && e.draftError)).toEqual(['MISSING_MEMBER_ID']);
    expect(since.filter((e) => e.type === 'rebalance-started' || e.type === 'member-removed' || e.type === 'member-replaced')).toEqual([]);
    expect(c2.ofType('fatal')).toEqual([]);
  });
});
