// kafka-python (python3-kafka 2.0.2), unchanged, against a real listening kmock: a KafkaConsumer
// in a group reads what a KafkaProducer wrote and commits; its offsets survive a restart; a
// second consumer joining splits the partitions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import { ProcessSet, pythonModuleMissing, type ClientProcess } from '../../support/clients/processes.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { sleep, waitFor } from '../../support/clients/wait.js';

const MISSING = pythonModuleMissing('kafka', 'python3-kafka');
if (MISSING) console.warn(`[kafka-python] skipping: ${MISSING}`);

const SCRIPT = 'kafka_python_client.py';

let kmock: Kmock;
let trace: TraceCapture;
let events: GroupEvent[];
let procs: ProcessSet;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, numPartitions: 4, trace: true, logLevel: 'info', logger: trace.logger });
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

async function produce(topic: string, count: number, prefix: string, partitions: number): Promise<void> {
  const p = procs.python(`produce ${prefix}`, SCRIPT, [
    'produce', '--bootstrap', kmock.bootstrapServers, '--topic', topic, '--count', String(count), '--prefix', prefix, '--partitions', String(partitions),
  ]);
  const done = await p.waitForEvent('done', (e) => e.event === 'done', 30_000);
  expect(done.sent).toBe(count);
  expect(await p.waitForExit()).toBe(0);
}

function consumer(name: string, topic: string, groupId: string): ClientProcess {
  return procs.python(name, SCRIPT, ['group', '--bootstrap', kmock.bootstrapServers, '--topic', topic, '--group', groupId, '--name', name]);
}

function lastAssignment(p: ClientProcess): number[] | undefined {
  const rebalance = p.events.filter((e) => e.event === 'assign' || e.event === 'revoke');
  const last = rebalance[rebalance.length - 1];
  return last?.event === 'assign' ? (last.partitions as number[]) : undefined;
}

function values(p: ClientProcess): string[] {
  return p.ofType('message').map((m) => String(m.value));
}

function committed(groupId: string, topic: string, partition: number): bigint | undefined {
  return kmock.broker.groups.group(groupId)?.offsets.get(topic, partition)?.offset;
}

describe.skipIf(MISSING !== undefined)(`kafka-python KafkaConsumer${MISSING ? ` (skipped: ${MISSING})` : ''}`, () => {
  it('reads produced records in a group, commits them, and resumes after them when restarted', async () => {
    await produce('kp', 10, 'v', 4);
    expect(kmock.broker.topics.get('kp')?.partitions.length).toBe(4);

    const one = consumer('one', 'kp', 'kp-g');
    await one.waitForEvent('assignment', (e) => e.event === 'assign' && (e.partitions as number[]).length === 4, 30_000);
    await waitFor('10 records read', () => one.ofType('message').length >= 10);
    expect(values(one).sort()).toEqual([...Array(10).keys()].map((i) => `v${i}`).sort());
    // kafka-python committed synchronously after each poll: 3/3/2/2 records went to partitions 0..3.
    await waitFor('offsets 3/3/2/2 committed', () =>
      [3n, 3n, 2n, 2n].every((o, p) => committed('kp-g', 'kp', p) === o),
    );
    const memberId = kmock.broker.groups.describeGroups(['kp-g'])[0]!.members[0]!.memberId;
    expect(kmock.broker.groups.describeGroups(['kp-g'])[0]).toMatchObject({ groupState: 'Stable', protocolType: 'consumer' });
    // kafka-python 2.0.2 speaks the classic protocol at its own versions.
    expect(new Set(trace.traffic('JoinGroup').map((l) => l.version))).toEqual(new Set([2]));
    expect(new Set(trace.traffic('OffsetCommit').map((l) => l.version))).toEqual(new Set([2]));

    // SIGTERM: the script close()s the consumer, which sends LeaveGroup.
    await one.kill('SIGTERM', 15_000);
    expect(one.ofType('closed')).toHaveLength(1);
    await waitFor('LeaveGroup processed', () =>
      events.some((e) => e.type === 'member-removed' && e.groupId === 'kp-g' && e.memberId === memberId && e.cause === 'leave'),
    );
    expect(kmock.broker.groups.group('kp-g')?.state).toBe('Empty');

    await produce('kp', 4, 'w', 4);
    const again = consumer('again', 'kp', 'kp-g');
    await waitFor('4 new records read', () => again.ofType('message').length >= 4, 30_000);
    await sleep(500);
    // Nothing before the committed offsets again, nothing lost.
    expect(values(again).sort()).toEqual(['w0', 'w1', 'w2', 'w3']);
    expect(again.ofType('message').map((m) => `${m.partition}@${m.offset}`).sort()).toEqual(['0@3', '1@3', '2@2', '3@2']);
    await waitFor('offsets 4/4/3/3 committed', () => [4n, 4n, 3n, 3n].every((o, p) => committed('kp-g', 'kp', p) === o));
    expect(again.ofType('error')).toEqual([]);
  });

  it('a second consumer joining splits the partitions between the two', async () => {
    await produce('split', 8, 'a', 4);
    const one = consumer('one', 'split', 'split-g');
    await one.waitForEvent('all 4 partitions', (e) => e.event === 'assign' && (e.partitions as number[]).length === 4, 30_000);
    await waitFor('8 records read by one', () => one.ofType('message').length >= 8);
    const generation = kmock.broker.groups.group('split-g')!.generationId;

    const two = consumer('two', 'split', 'split-g');
    const settled = await waitFor(
      'two members with 2 partitions each',
      () => {
        const g = kmock.broker.groups.group('split-g');
        if (g?.state !== 'Stable' || g.size !== 2) return undefined;
        const p1 = lastAssignment(one);
        const p2 = lastAssignment(two);
        if (!p1 || !p2 || p1.length !== 2 || p2.length !== 2) return undefined;
        return [p1, p2] as const;
      },
      30_000,
    );
    const [p1, p2] = settled;
    expect([...p1, ...p2].sort()).toEqual([0, 1, 2, 3]);
    expect(kmock.broker.groups.group('split-g')!.generationId).toBeGreaterThan(generation);
    // Eager protocol: one gave everything back before the new split.
    expect(one.ofType('revoke').some((e) => (e.partitions as number[]).length === 4)).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'rebalance-started', groupId: 'split-g', trigger: 'member-joined' }));

    // two starts where one committed: it re-reads nothing; new records go to their owners.
    const oneBefore = one.ofType('message').length;
    await produce('split', 8, 'b', 4);
    await waitFor('8 new records read', () => one.ofType('message').length - oneBefore + two.ofType('message').length >= 8, 30_000);
    await sleep(500);
    const newOnOne = one.ofType('message').slice(oneBefore);
    const onTwo = two.ofType('message');
    for (const m of newOnOne) expect(p1).toContain(m.partition);
    for (const m of onTwo) expect(p2).toContain(m.partition);
    expect([...newOnOne, ...onTwo].map((m) => String(m.value)).sort()).toEqual([...Array(8).keys()].map((i) => `b${i}`).sort());
    expect(onTwo.length).toBeGreaterThan(0);
    expect(newOnOne.length).toBeGreaterThan(0);

    const described = kmock.broker.groups.describeGroups(['split-g'])[0]!;
    expect(described.members.map((m) => m.clientId).sort()).toEqual(['kmock-kafka-python-one', 'kmock-kafka-python-two']);
    expect(described.protocolData).toBe('range');
  });
});
