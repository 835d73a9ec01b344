// librdkafka (kcat 1.7.1 and python3-confluent-kafka 1.7.0 on librdkafka 2.0.2), unchanged, against
// a real listening kmock: produce/consume round trips, and static group membership (KIP-345):
// a static member that restarts within its session timeout gets its partitions back without a
// rebalance, and a second process with a taken group.instance.id fences the first one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import { commandMissing, ProcessSet, pythonModuleMissing, run, type ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { sleep, waitFor } from '../../support/clients/wait.js';

const CONFLUENT_MISSING = pythonModuleMissing('confluent_kafka', 'python3-confluent-kafka');
const KCAT_MISSING = commandMissing('kcat', 'kcat');
if (CONFLUENT_MISSING) console.warn(`[librdkafka-static] skipping the confluent_kafka tests: ${CONFLUENT_MISSING}`);
if (KCAT_MISSING) console.warn(`[librdkafka-static] skipping the kcat tests: ${KCAT_MISSING}`);

const SCRIPT = 'confluent_client.py';
const SESSION_TIMEOUT_MS = 10_000;

let kmock: Kmock;
let trace: TraceCapture;
let events: GroupEvent[];
let procs: ProcessSet;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({
    groupInitialRebalanceDelayMs: 0,
    numPartitions: 6,
    trace: true,
    logLevel: 'info',
    logger: trace.logger,
  });
  events = [];
  kmock.broker.groupEventListeners.add((e) => events.push(e));
  procs = new ProcessSet();
  ctx.onTestFailed(() => {
    process.stderr.write(`${procs.describeAll()}\n--- kmock trace (last lines) ---\n${trace.tail(60)}\n`);
  });
});

afterEach(async (ctx) => {
  await procs.killAll();
  await kmock.close();
  dumpTraceIfAsked(trace, ctx.task.name);
});

/** kcat -P: one record per line, `key:value`. */
async function kcatProduce(topic: string, lines: string[], extra: string[] = []): Promise<void> {
  const r = await run('kcat', ['-b', kmock.bootstrapServers, '-P', '-t', topic, '-K', ':', ...extra], { stdin: lines.join('\n') + '\n' });
  expect(r.code, r.stderr).toBe(0);
}

interface KcatRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

/** kcat -C -o beginning -e: everything in the topic, then exit. */
async function kcatConsumeAll(topic: string): Promise<KcatRecord[]> {
  const r = await run('kcat', ['-b', kmock.bootstrapServers, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%p\t%o\t%k\t%s\n']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, k, v] = l.split('\t');
      return { partition: Number(p), offset: Number(o), key: k!, value: v! };
    });
}

/** Offsets within each partition are 0..n-1, in order. */
function expectContiguousOffsets(records: Array<{ partition: number; offset: number }>): void {
  const byPartition = new Map<number, number[]>();
  for (const r of records) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r.offset]);
  for (const offsets of byPartition.values()) expect(offsets).toEqual(offsets.map((_, i) => i));
}

describe.skipIf(KCAT_MISSING !== undefined)(`kcat${KCAT_MISSING ? ` (skipped: ${KCAT_MISSING})` : ''}`, () => {
  it('produces with -P and reads everything back with -C -o beginning -e', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `key${i}:value-${i}`);
    await kcatProduce('kcat-topic', lines);
    const records = await kcatConsumeAll('kcat-topic');
    expect(records.map((r) => `${r.key}:${r.value}`).sort()).toEqual([...lines].sort());
    expectContiguousOffsets(records);
    // The default (consistent_random) partitioner spreads the keys: more than one partition used.
    expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(1);
    expect(kmock.broker.topics.get('kcat-topic')?.partitions.length).toBe(6);
  });

  it('writes to an explicit partition and reads a single partition from an offset', async () => {
    await kcatProduce('kcat-p', ['a:1', 'b:2', 'c:3', 'd:4'], ['-p', '2']);
    const r = await run('kcat', ['-b', kmock.bootstrapServers, '-C', '-t', 'kcat-p', '-p', '2', '-o', '1', '-e', '-q', '-f', '%o=%s\n']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['1=2', '2=3', '3=4']);
  });
});

describe.skipIf(CONFLUENT_MISSING !== undefined)(
  `confluent_kafka${CONFLUENT_MISSING ? ` (skipped: ${CONFLUENT_MISSING})` : ''}`,
  () => {
    it('Producer (acks all, 1, 0) output is read back by a confluent_kafka Consumer and by kcat', async () => {
      const produced: JsonEvent[] = [];
      for (const [acks, prefix] of [['all', 'all-'], ['1', 'one-'], ['0', 'zero-']] as const) {
        const p = procs.python(`produce acks=${acks}`, SCRIPT, [
          'produce', '--bootstrap', kmock.bootstrapServers, '--topic', 'ck', '--count', '10', '--prefix', prefix, '--acks', acks,
        ]);
        const done = await p.waitForEvent('done', (e) => e.event === 'done', 30_000);
        expect(done).toMatchObject({ delivered: 10, errors: [], unflushed: 0 });
        expect(await p.waitForExit()).toBe(0);
        produced.push(...p.ofType('delivered'));
      }
      // With acks=0 librdkafka learns no offset (Message.offset() is None); the others have offsets.
      expect(produced.filter((e) => String(e.value).startsWith('zero-')).every((e) => e.offset === null)).toBe(true);
      expect(produced.filter((e) => !String(e.value).startsWith('zero-')).every((e) => Number(e.offset) >= 0)).toBe(true);
      // acks=0 requests got no response frame.
      const produceLines = trace.traffic('Produce');
      expect(produceLines.filter((l) => (l.request as { acks: number }).acks === 0).every((l) => l.response === null)).toBe(true);
      expect(produceLines.filter((l) => (l.request as { acks: number }).acks !== 0).every((l) => l.response !== null)).toBe(true);

      const expected = [...Array(10).keys()].flatMap((i) => [`all-${i}`, `one-${i}`, `zero-${i}`]).sort();
      const reader = procs.python('reader', SCRIPT, [
        'read', '--bootstrap', kmock.bootstrapServers, '--topic', 'ck', '--partitions', '6', '--expect', '30', '--timeout', '20',
      ]);
      await reader.waitForEvent('done', (e) => e.event === 'done', 30_000);
      const messages = reader.ofType('message');
      expect(messages.map((m) => String(m.value)).sort()).toEqual(expected);
      expectContiguousOffsets(messages.map((m) => ({ partition: Number(m.partition), offset: Number(m.offset) })));
      // Same key, same partition (librdkafka's consistent_random partitioner) across all three runs.
      for (const m of messages) {
        const sameKey = messages.filter((o) => o.key === m.key);
        expect(new Set(sameKey.map((o) => o.partition)).size).toBe(1);
      }

      if (!KCAT_MISSING) {
        const viaKcat = await kcatConsumeAll('ck');
        expect(viaKcat.map((r) => r.value).sort()).toEqual(expected);
      }
    });
  },
);

/** The most recent assign/revoke/lost event of a group consumer process. */
function lastAssignment(p: ClientProcess): number[] | undefined {
  const rebalance = p.events.filter((e) => e.event === 'assign' || e.event === 'revoke' || e.event === 'lost');
  const last = rebalance[rebalance.length - 1];
  return last?.event === 'assign' ? (last.partitions as number[]) : undefined;
}

/** Rebalance callbacks of `p` after event index `from`. */
function rebalanceCallbacksSince(p: ClientProcess, from: number): JsonEvent[] {
  return p.events.slice(from).filter((e) => e.event === 'assign' || e.event === 'revoke' || e.event === 'lost');
}

describe.skipIf(CONFLUENT_MISSING !== undefined)(
  `librdkafka static membership${CONFLUENT_MISSING ? ` (skipped: ${CONFLUENT_MISSING})` : ''}`,
  () => {
    function startMember(instance: string, label = instance, sessionTimeoutMs = SESSION_TIMEOUT_MS): ClientProcess {
      return procs.python(label, SCRIPT, [
        'group', '--bootstrap', kmock.bootstrapServers, '--topic', 'st', '--group', 'g', '--instance-id', instance,
        '--session-timeout', String(sessionTimeoutMs), '--heartbeat-interval', '500', '--strategy', 'range', '--max-seconds', '90',
      ]);
    }

    /** a, b and c in group g on the 6-partition topic st, settled; a (first in) is the leader. */
    async function startStaticGroup(sessionTimeoutMs = SESSION_TIMEOUT_MS): Promise<Record<'a' | 'b' | 'c', ClientProcess>> {
      await kcatOrPythonCreateTopic();
      const a = startMember('a', 'a', sessionTimeoutMs);
      await a.waitForEvent('first assignment', (e) => e.event === 'assign', 30_000);
      const b = startMember('b', 'b', sessionTimeoutMs);
      const c = startMember('c', 'c', sessionTimeoutMs);
      await waitFor('a, b, c settled with 2 partitions each', () => {
        const group = kmock.broker.groups.group('g');
        if (group?.state !== 'Stable') return false;
        const described = kmock.broker.groups.describeGroups(['g'])[0]!;
        if (described.members.map((m) => m.groupInstanceId).sort().join() !== 'a,b,c') return false;
        const parts = [a, b, c].map(lastAssignment);
        if (parts.some((p) => p === undefined || p.length !== 2)) return false;
        return parts.flat().sort().join() === '0,1,2,3,4,5';
      }, 30_000);
      return { a, b, c };
    }

    /** Creates st (6 partitions) with one record per partition, through librdkafka. */
    async function kcatOrPythonCreateTopic(): Promise<void> {
      for (let p = 0; p < 6; p++) {
        const prod = procs.python(`seed p${p}`, SCRIPT, [
          'produce', '--bootstrap', kmock.bootstrapServers, '--topic', 'st', '--count', '1', '--prefix', `seed-p${p}-`, '--partition', String(p),
        ]);
        expect(await prod.waitForExit(30_000)).toBe(0);
        if (p === 0) expect(kmock.broker.topics.get('st')?.partitions.length).toBe(6);
      }
    }

    it('a static member killed and restarted within session.timeout.ms gets its partitions back; nobody is revoked', async () => {
      const { a, b, c } = await startStaticGroup();
      const leader = kmock.broker.groups.group('g')!.leaderId;
      expect(leader?.startsWith('a-')).toBe(true);
      const generation = kmock.broker.groups.group('g')!.generationId;
      const bPartitions = lastAssignment(b)!;
      const bMemberId = kmock.broker.groups.describeGroups(['g'])[0]!.members.find((m) => m.groupInstanceId === 'b')!.memberId;
      const aFrom = a.events.length;
      const cFrom = c.events.length;
      const eventsFrom = events.length;
      const stateLog: string[] = [];
      kmock.broker.groupEventListeners.add((e) => {
        if (e.type === 'state-changed') stateLog.push(`${e.from}->${e.to}`);
      });

      // Crash b: no LeaveGroup (SIGKILL; a closing static member would not send one either).
      await b.kill('SIGKILL');
      await sleep(500);
      const restartedAt = Date.now();
      const b2 = startMember('b', 'b (restarted)');
      const assigned = await b2.waitForEvent('assignment after restart', (e) => e.event === 'assign', 15_000);
      expect(Date.now() - restartedAt).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(assigned.partitions).toEqual(bPartitions);

      // Give a and c several heartbeats to hear of any rebalance: none must come.
      await sleep(2000);
      expect(rebalanceCallbacksSince(a, aFrom)).toEqual([]);
      expect(rebalanceCallbacksSince(c, cFrom)).toEqual([]);
      expect(rebalanceCallbacksSince(b2, 0)).toEqual([{ event: 'assign', partitions: bPartitions }]);

      // The broker side: Stable throughout, same generation, b's member id replaced.
      const group = kmock.broker.groups.group('g')!;
      expect(group.state).toBe('Stable');
      expect(group.generationId).toBe(generation);
      expect(stateLog).toEqual([]);
      const since = events.slice(eventsFrom);
      expect(since.filter((e) => e.type === 'rebalance-started' || e.type === 'generation-bumped')).toEqual([]);
      const replaced = since.filter((e) => e.type === 'member-replaced');
      expect(replaced).toEqual([expect.objectContaining({ groupInstanceId: 'b', oldMemberId: bMemberId })]);
      const described = kmock.broker.groups.describeGroups(['g'])[0]!;
      expect(described.groupState).toBe('Stable');
      expect(described.members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b', 'c']);
      expect(described.members.find((m) => m.groupInstanceId === 'b')!.memberId).not.toBe(bMemberId);

      // On the wire: the restarted b joined with MemberId "" and got the same generation back.
      const joins = trace
        .traffic('JoinGroup')
        .filter((l) => (l.request as { groupInstanceId?: string }).groupInstanceId === 'b' && l.response !== null);
      const lastJoin = joins[joins.length - 1]!;
      expect((lastJoin.request as { memberId: string }).memberId).toBe('');
      expect(lastJoin.response).toMatchObject({ errorCode: 0, generationId: generation });

      // The restarted b really consumes its partitions.
      const target = bPartitions[0]!;
      const prod = procs.python('produce to b', SCRIPT, [
        'produce', '--bootstrap', kmock.bootstrapServers, '--topic', 'st', '--count', '1', '--prefix', 'for-b-', '--partition', String(target),
      ]);
      expect(await prod.waitForExit(30_000)).toBe(0);
      await b2.waitForEvent('record produced after the restart', (e) => e.event === 'message' && e.value === 'for-b-0', 15_000);
    });

    it('a static member that stays away longer than session.timeout.ms is removed and the others take its partitions', async () => {
      // The counterpart of the restart test: without a rejoin, the session timeout (6 s, the broker
      // minimum, to keep this short) removes b and the group rebalances (eager: a and c revoke all).
      const sessionTimeoutMs = 6000;
      const { a, b, c } = await startStaticGroup(sessionTimeoutMs);
      const generation = kmock.broker.groups.group('g')!.generationId;
      const bMemberId = kmock.broker.groups.describeGroups(['g'])[0]!.members.find((m) => m.groupInstanceId === 'b')!.memberId;
      const aFrom = a.events.length;
      const cFrom = c.events.length;
      await b.kill('SIGKILL');
      const killedAt = Date.now();

      const removed = await waitFor(
        'b removed by its session timeout',
        () => events.find((e) => e.type === 'member-removed' && e.memberId === bMemberId),
        sessionTimeoutMs + 5000,
      );
      const waited = Date.now() - killedAt;
      expect(removed).toMatchObject({ groupInstanceId: 'b', cause: 'session-timeout' });
      // Not before the session timeout (less the last heartbeat interval) has passed.
      expect(waited).toBeGreaterThan(sessionTimeoutMs - 1000);

      await waitFor('a and c settled with 3 partitions each', () => {
        const g = kmock.broker.groups.group('g');
        if (g?.state !== 'Stable' || g.size !== 2) return false;
        const pa = lastAssignment(a);
        const pc = lastAssignment(c);
        return pa?.length === 3 && pc?.length === 3 && [...pa, ...pc].sort().join() === '0,1,2,3,4,5';
      }, 15_000);
      expect(kmock.broker.groups.group('g')!.generationId).toBe(generation + 1);
      expect(rebalanceCallbacksSince(a, aFrom).map((e) => e.event)).toEqual(['revoke', 'assign']);
      expect(rebalanceCallbacksSince(c, cFrom).map((e) => e.event)).toEqual(['revoke', 'assign']);
      expect(events).toContainEqual(expect.objectContaining({ type: 'rebalance-started', trigger: 'member-removed', removalCause: 'session-timeout' }));
    });

    it('a second process with a taken group.instance.id fences the first (fatal FENCED_INSTANCE_ID) and takes its partitions', async () => {
      const { a, b, c } = await startStaticGroup();
      const generation = kmock.broker.groups.group('g')!.generationId;
      const cPartitions = lastAssignment(c)!;
      const cMemberId = kmock.broker.groups.describeGroups(['g'])[0]!.members.find((m) => m.groupInstanceId === 'c')!.memberId;
      const aFrom = a.events.length;
      const bFrom = b.events.length;
      const eventsFrom = events.length;

      const c2 = startMember('c', 'c (second process)');
      const assigned = await c2.waitForEvent('assignment', (e) => e.event === 'assign', 15_000);
      expect(assigned.partitions).toEqual(cPartitions);

      // librdkafka 2.0.2 raises a fatal error on the old c (a consumer poll error with code _FATAL
      // whose text names the broker error); the script then closes it and exits with code 3.
      const fatal = await c.waitForEvent('fatal error', (e) => e.event === 'fatal', 15_000);
      expect(fatal.name).toBe('_FATAL');
      expect(String(fatal.str)).toContain('Static consumer fenced by other consumer with same group.instance.id');
      expect(await c.waitForExit(15_000)).toBe(3);

      // The broker answered the old member FENCED_INSTANCE_ID (82).
      const fenced = events.slice(eventsFrom).filter((e) => e.type === 'member-fenced');
      expect(fenced.length).toBeGreaterThan(0);
      expect(fenced[0]).toMatchObject({ memberId: cMemberId, groupInstanceId: 'c' });
      const fencedOnWire = trace
        .traffic()
        .filter((l) => (l.request as { memberId?: string } | undefined)?.memberId === cMemberId)
        .filter((l) => (l.response as { errorCode?: number } | null)?.errorCode === 82);
      expect(fencedOnWire.length).toBeGreaterThan(0);

      // Nobody else rebalanced; the group kept its generation; c2 keeps consuming c's partitions.
      await sleep(1500);
      expect(rebalanceCallbacksSince(a, aFrom)).toEqual([]);
      expect(rebalanceCallbacksSince(b, bFrom)).toEqual([]);
      const group = kmock.broker.groups.group('g')!;
      expect(group.state).toBe('Stable');
      expect(group.generationId).toBe(generation);
      const described = kmock.broker.groups.describeGroups(['g'])[0]!;
      expect(described.members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b', 'c']);
      expect(described.members.find((m) => m.groupInstanceId === 'c')!.memberId).not.toBe(cMemberId);
      expect(c2.running).toBe(true);
      expect(c2.ofType('fatal')).toEqual([]);
    });
  },
);
