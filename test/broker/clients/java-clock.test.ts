// The Java kafka-clients consumer (the reference client; classic group protocol), unchanged,
// against a kmock whose clock only the test moves (clock: 'manual'). The broker clock never
// follows real time in these tests: every second of session timeout is one clock.advance(), and
// the only other moves answer a consumer's parked Fetch long poll (≤ fetch.max.wait.ms each) when
// the test needs that Fetch back, as waiting for it would have.
//
// - A consumer whose session lapses because the test advanced the clock past it sees what it
//   would after waiting that long on Kafka: its next heartbeat is answered UNKNOWN_MEMBER_ID, Java
//   resets its generation and gives its partitions away as lost (onPartitionsLost), joins again as
//   a new member (new member id, new generation), gets the partitions back and goes on consuming
//   from the offsets it had committed.
// - Static members (group.instance.id): Java sends no LeaveGroup when one closes; restarted after
//   less than its session timeout it takes its member's place without a rebalance (same
//   generation, same partitions); away longer, it is removed and the other member takes its
//   partitions in a new generation.
//
// The consumer is test/support/clients/ClockConsumer.java (JSON lines on stdout, the coordinator's
// INFO log on stderr), compiled by test/support/clients/java.ts on the client matrix's build
// (test/conformance/clients/java/build.sh). KMOCK_JAVA_CLIENTS=3.9.1,4.4.0 picks the kafka-clients
// versions (default 4.4.0). Without Java or the jars the tests are skipped, except under CI.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import type { GroupView } from '../../../src/broker/control/index.js';
import { KafkajsClients } from '../../support/clients/kafkajs.js';
import { buildJavaProgram } from '../../support/clients/java.js';
import { ProcessSet, type ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
const VERSIONS = (process.env.KMOCK_JAVA_CLIENTS ?? '4.4.0').split(',').filter(Boolean);

const programs = await Promise.all(VERSIONS.map((v) => buildJavaProgram('ClockConsumer.java', v)));
for (const p of programs) {
  if ('unavailable' in p) {
    if (CI) throw new Error(`${p.unavailable}: Java kafka-clients must run under CI`);
    console.warn(`[java-clock] skipping: ${p.unavailable}`);
  }
}

/** Session timeout of every consumer here (the broker's minimum is 6 s). */
const SESSION_MS = 10_000;
/** Real-time waits for the JVMs: starting one on a loaded 2-core machine takes seconds. */
const JVM_WAIT_MS = 90_000;
const TEST_TIMEOUT_MS = 240_000;

let kmock: Kmock;
let clients: KafkajsClients;
let procs: ProcessSet;
let events: GroupEvent[];
let trace: TraceCapture;
/** How far the test moved the clock to answer parked long polls (answerParkedFetch). */
let answeredMs: number;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({ clock: 'manual', groupInitialRebalanceDelayMs: 0, trace: true, logLevel: 'info', logger: trace.logger });
  events = [];
  answeredMs = 0;
  kmock.control.subscribe((e) => events.push(e));
  clients = new KafkajsClients(kmock);
  procs = new ProcessSet();
  ctx.onTestFailed(() => {
    process.stderr.write(`${procs.describeAll()}\n--- kmock clock ---\n${JSON.stringify(kmock.clock.view())}\n--- kmock trace (last lines) ---\n${trace.tail(80)}\n`);
  });
});

afterEach(async (ctx) => {
  await procs?.killAll();
  await clients?.closeAll();
  await kmock?.close();
  if (trace) dumpTraceIfAsked(trace, ctx.task.name);
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const num = (v: unknown) => v as number;

for (const [i, version] of VERSIONS.entries()) {
  const program = programs[i]!;
  const unavailable = 'unavailable' in program ? program.unavailable : undefined;

  describe.skipIf(unavailable !== undefined)(`Java kafka-clients ${version} on a manual clock${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    function consumer(name: string, o: { topic: string; group: string; instance?: string }): ClientProcess {
      if (!('argv' in program)) throw new Error(`ClockConsumer.java could not be built: ${'failed' in program ? program.failed : '?'}`);
      const [java, ...jvm] = program.argv;
      const args = ['--bootstrap', kmock.bootstrapServers, '--topic', o.topic, '--group', o.group, '--client-id', name];
      if (o.instance !== undefined) args.push('--instance', o.instance);
      args.push('--session-timeout-ms', String(SESSION_MS), '--heartbeat-interval-ms', '500');
      return procs.start(name, java!, [...jvm, ...args]);
    }

    /** Resolves once `memberId` has heartbeated since the clock last moved: its session starts over. */
    const heartbeatFrom = (group: string, memberId: string) =>
      kmock.clock.waitForTimer((t) => t.name === `session timeout ${group}/${memberId}` && t.dueInMs === SESSION_MS, { timeoutMs: 30_000 });

    /** The group if it is Stable (no join or sync parked) and `pred` holds. */
    function stableNow(groupId: string, pred: (g: GroupView) => boolean): GroupView | undefined {
      if (!kmock.control.groups().some((g) => g.groupId === groupId)) return undefined;
      const g = kmock.control.group(groupId);
      return g.state === 'Stable' && g.members.every((m) => !m.awaitingJoin && !m.awaitingSync) && pred(g) ? g : undefined;
    }

    const stableGroup = (groupId: string, pred: (g: GroupView) => boolean): Promise<GroupView> =>
      waitFor(`${groupId} Stable as wanted`, () => stableNow(groupId, pred), JVM_WAIT_MS);

    /**
     * Answers `p`'s parked Fetch long polls the way waiting for them would: advances the clock to
     * the deadline of the first one (at most fetch.max.wait.ms, 500 ms, away). Returns the ms it
     * moved the clock (added to `answeredMs`).
     */
    function answerParkedFetch(p: ClientProcess): number {
      const mine = new Set(kmock.control.connections().filter((c) => c.clientId === p.name).map((c) => c.id));
      const due = kmock.clock
        .view()
        .pending.filter((t) => mine.has(Number(/^fetch max wait \(connection (\d+)\)$/.exec(t.name)?.[1] ?? NaN)))
        .map((t) => t.dueInMs);
      if (due.length === 0) return 0;
      const moved = kmock.clock.advance(Math.min(...due)).advancedMs;
      answeredMs += moved;
      return moved;
    }

    /**
     * Waits for `check`, answering `p`'s parked long polls every quarter of a second meanwhile (so
     * the broker clock runs at most twice as fast as real time: the members' real-time heartbeats
     * keep up with it).
     */
    function whileAnswering<T>(what: string, p: ClientProcess, check: () => T | undefined | false): Promise<T> {
      return waitFor(
        what,
        () => {
          const v = check();
          if (v !== undefined && v !== false) return v;
          answerParkedFetch(p);
          return undefined;
        },
        JVM_WAIT_MS,
        250,
      );
    }

    /**
     * SIGTERM: the app's consumer.close() (default timeout). Java's close waits for the consumer's
     * in-flight Fetch, which on a manual clock stays parked until the clock passes its max wait:
     * the clock is moved for it, as waiting would have.
     */
    async function close(p: ClientProcess): Promise<void> {
      const killed = p.kill('SIGTERM', JVM_WAIT_MS);
      // Only once the app stopped polling (no new Fetch from then on): its last one is answered.
      await p.waitForEvent('stopping', (e) => e.event === 'stopping', JVM_WAIT_MS);
      await whileAnswering(`${p.name} to close`, p, () => !p.running);
      await killed;
      expect(p.exitCode).toBe(0);
      expect(p.ofType('closed')).toHaveLength(1);
    }

    /** The last "assigned" event of `p` at or after `from`, once there is one for `generationId`. */
    const assignedIn = (p: ClientProcess, generationId: number, from = 0) =>
      p.waitForEvent(`assigned in generation ${generationId}`, (e) => e.event === 'assigned' && e.generationId === generationId, JVM_WAIT_MS, from);

    it('a session that lapses because the clock was advanced: UNKNOWN_MEMBER_ID, onPartitionsLost, a new member and generation, consuming again', async () => {
      const admin = await clients.admin();
      await admin.createTopics({ topics: [{ topic: 'ticks', numPartitions: 2 }], waitForLeaders: true });
      const producer = await clients.producer();
      await producer.send({ topic: 'ticks', messages: [{ value: 'before', partition: 0 }] });
      const clockStart = kmock.clock.now();

      const c = consumer('java-c', { topic: 'ticks', group: 'clocked' });
      const first = await c.waitForEvent('first assignment', (e) => e.event === 'assigned', JVM_WAIT_MS);
      expect(first.partitions).toEqual([0, 1]);
      const oldMember = String(first.memberId);
      const oldGeneration = num(first.generationId);
      expect(oldMember).not.toBe('');
      await c.waitForEvent('"before" consumed', (e) => e.event === 'record' && e.value === 'before', JVM_WAIT_MS);
      await c.waitForEvent('"before" committed', (e) => e.event === 'committed' && (e.offsets as Record<string, number>)['0'] === 1, JVM_WAIT_MS);
      expect(kmock.control.group('clocked')).toMatchObject({ state: 'Stable', generationId: oldGeneration, members: [{ memberId: oldMember }] });

      // The member heartbeats on its own (real-time) thread; from a fresh heartbeat on, its
      // session has SESSION_MS of broker time left.
      await heartbeatFrom('clocked', oldMember);
      kmock.clock.advance(SESSION_MS - 1_000);
      expect(events.filter((e) => e.type === 'member-removed')).toEqual([]);
      // Past the session timeout, with no heartbeat in between (no await: none can come in):
      // exactly what Kafka does after SESSION_MS without one.
      kmock.clock.advance(1_001);
      const removed = events.filter((e) => e.type === 'member-removed');
      expect(removed).toMatchObject([{ groupId: 'clocked', memberId: oldMember, cause: 'session-timeout' }]);
      expect(kmock.control.group('clocked')).toMatchObject({ state: 'Empty', members: [] });

      // The clock stays where it is. Java's next heartbeat (its own timer) learns that the member
      // is gone; it gives the partitions away as lost and joins again from scratch.
      const lostAt = c.events.length;
      const lost = await c.waitForEvent('partitions lost', (e) => e.event === 'lost', JVM_WAIT_MS, lostAt);
      // groupMetadata() still names the member and generation that were lost (Java refreshes it
      // only when a join completes).
      expect(lost).toMatchObject({ partitions: [0, 1], memberId: oldMember, generationId: oldGeneration });
      const again = await c.waitForEvent('assigned again', (e) => e.event === 'assigned', JVM_WAIT_MS, lostAt);
      expect(again.partitions).toEqual([0, 1]);
      const newMember = String(again.memberId);
      expect(newMember).not.toBe(oldMember);
      expect(newMember).not.toBe('');
      expect(num(again.generationId)).toBeGreaterThan(oldGeneration);
      const group = await stableGroup('clocked', (g) => g.members.length === 1);
      expect(group).toMatchObject({ generationId: again.generationId, members: [{ memberId: newMember }] });

      // It goes on consuming: from the committed offset (so "before" is not read twice).
      await producer.send({ topic: 'ticks', messages: [{ value: 'after', partition: 0 }, { value: 'after-1', partition: 1 }] });
      // A Fetch parked on a partition with nothing new holds the connection (Java sends one Fetch
      // per broker at a time): its max wait passes on the broker clock.
      const after = await whileAnswering('"after" consumed', c, () => c.ofType('record').find((e) => e.value === 'after'));
      expect(after).toMatchObject({ partition: 0, offset: 1, memberId: newMember, generationId: again.generationId });
      await whileAnswering('"after-1" consumed', c, () => c.ofType('record').find((e) => e.value === 'after-1'));
      expect(c.ofType('record').map((e) => e.value).sort()).toEqual(['after', 'after-1', 'before']);
      expect([...c.ofType('error'), ...c.ofType('commit-failed'), ...c.ofType('fatal')]).toEqual([]);

      // The protocol, as the broker saw it: the heartbeat of the dead member answered
      // UNKNOWN_MEMBER_ID (25), then a JoinGroup without a member id answered MEMBER_ID_REQUIRED (79).
      const heartbeats = trace.traffic('Heartbeat').map((l) => ({
        memberId: (l.request as { memberId: string }).memberId,
        errorCode: (l.response as { errorCode: number }).errorCode,
      }));
      const firstRefused = heartbeats.findIndex((h) => h.errorCode !== 0);
      expect(heartbeats[firstRefused]).toEqual({ memberId: oldMember, errorCode: 25 });
      expect(heartbeats.slice(0, firstRefused).every((h) => h.memberId === oldMember && h.errorCode === 0)).toBe(true);
      const joins = trace.traffic('JoinGroup').map((l) => ({
        memberId: (l.request as { memberId: string }).memberId,
        errorCode: (l.response as { errorCode: number }).errorCode,
        answeredId: (l.response as { memberId: string }).memberId,
      }));
      expect(joins.slice(-2)).toEqual([
        { memberId: '', errorCode: 79, answeredId: newMember },
        { memberId: newMember, errorCode: 0, answeredId: newMember },
      ]);

      // The client's own account (its coordinator's INFO log).
      expect(c.stderr).toMatch(new RegExp(`Attempt to heartbeat with Generation\\{generationId=${oldGeneration}, memberId='${escapeRegExp(oldMember)}'.* failed due to UNKNOWN_MEMBER_ID, resetting generation`));
      expect(c.stderr).toContain('Giving away all assigned partitions as lost since generation/memberID has been reset');

      // The broker clock moved only by the two jumps (and the long polls' max waits): no real
      // second of session timeout was waited.
      expect(kmock.clock.now() - clockStart).toBe(SESSION_MS + 1 + answeredMs);
      expect(kmock.clock.view().mode).toBe('manual');
    }, TEST_TIMEOUT_MS);

    it('static members: no LeaveGroup on close; back within the session timeout, the same generation; away longer, removed', async () => {
      const admin = await clients.admin();
      await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true });
      const clockStart = kmock.clock.now();

      const a = consumer('java-a', { topic: 'orders', group: 'statics', instance: 'a' });
      let b = consumer('java-b', { topic: 'orders', group: 'statics', instance: 'b' });
      const instances = (g: GroupView) => g.members.map((m) => m.groupInstanceId).sort().join();
      const before = await stableGroup('statics', (g) => instances(g) === 'a,b');
      const aAssigned = await assignedIn(a, before.generationId);
      const bAssigned = await assignedIn(b, before.generationId);
      // RangeAssignor over the instance ids: a gets 0, b gets 1.
      expect(aAssigned.partitions).toEqual([0]);
      expect(bAssigned.partitions).toEqual([1]);
      const memberA = before.members.find((m) => m.groupInstanceId === 'a')!.memberId;
      const oldB = before.members.find((m) => m.groupInstanceId === 'b')!.memberId;
      expect(aAssigned.memberId).toBe(memberA);
      expect(bAssigned.memberId).toBe(oldB);
      const aEventsBefore = a.events.length;

      // b closes cleanly: consumer.close() of a static member sends no LeaveGroup.
      await close(b);
      expect(trace.traffic('LeaveGroup')).toEqual([]);
      expect(answeredMs).toBeLessThan(2_000);
      expect(kmock.control.group('statics')).toMatchObject({ state: 'Stable', generationId: before.generationId });

      // 5 s of broker time away (and the max wait of its last Fetch): within b's 10 s session.
      await heartbeatFrom('statics', memberA);
      kmock.clock.advance(5_000);
      expect(events.filter((e) => e.type === 'member-removed')).toEqual([]);
      b = consumer('java-b2', { topic: 'orders', group: 'statics', instance: 'b' });
      const back = await stableGroup('statics', (g) => instances(g) === 'a,b' && !g.members.some((m) => m.memberId === oldB));
      expect(back.generationId).toBe(before.generationId); // no rebalance
      const newB = back.members.find((m) => m.groupInstanceId === 'b')!.memberId;
      expect(back.members.find((m) => m.memberId === memberA)).toBeDefined();
      const bBack = await assignedIn(b, before.generationId);
      expect(bBack).toMatchObject({ partitions: [1], memberId: newB, generationId: before.generationId });
      expect(events.filter((e) => e.type === 'rebalance-started')).toEqual(
        events.filter((e) => e.type === 'rebalance-started' && e.generationId < before.generationId),
      );
      expect(events.filter((e) => e.type === 'member-replaced')).toMatchObject([{ groupId: 'statics', groupInstanceId: 'b', oldMemberId: oldB, newMemberId: newB }]);
      // a saw nothing: no revocation, no new assignment.
      expect(a.events.slice(aEventsBefore).filter((e) => ['assigned', 'revoked', 'lost'].includes(String(e.event)))).toEqual([]);

      // b closes again and stays away: a heartbeats between the jumps (each shorter than a
      // session timeout), b cannot; 12 s or more after its last heartbeat it is removed.
      const answeredBefore = answeredMs;
      await close(b);
      expect(trace.traffic('LeaveGroup')).toEqual([]);
      expect(answeredMs - answeredBefore).toBeLessThan(2_000); // so b's session lapses in the second jump, not the first
      await heartbeatFrom('statics', memberA);
      kmock.clock.advance(6_000);
      expect(events.filter((e) => e.type === 'member-removed')).toEqual([]);
      await heartbeatFrom('statics', memberA);
      kmock.clock.advance(6_000);
      expect(events.filter((e) => e.type === 'member-removed')).toMatchObject([{ groupId: 'statics', memberId: newB, cause: 'session-timeout' }]);

      // a rejoins the rebalance (learnt from its heartbeat) and gets both partitions.
      // (Whether Java rejoins with a Fetch parked or not, the wait answers it.)
      const after = await whileAnswering('statics with a alone', a, () => stableNow('statics', (g) => instances(g) === 'a'));
      expect(after.generationId).toBe(before.generationId + 1);
      expect(after.members).toMatchObject([{ memberId: memberA, groupInstanceId: 'a' }]);
      const aAll = await whileAnswering('a assigned both partitions', a, () =>
        a.events.slice(aEventsBefore).find((e) => e.event === 'assigned' && e.generationId === before.generationId + 1),
      );
      expect(aAll).toMatchObject({ partitions: [0, 1], memberId: memberA });
      expect(a.events.slice(aEventsBefore).filter((e: JsonEvent) => e.event === 'revoked')).toMatchObject([{ partitions: [0], generationId: before.generationId }]);
      expect([...a.ofType('error'), ...a.ofType('fatal')]).toEqual([]);

      expect(kmock.clock.now() - clockStart).toBe(17_000 + answeredMs);
    }, TEST_TIMEOUT_MS);
  });
}
