// kafkajs 2.2.4, unchanged, against a real listening kmock: producing with every acks setting,
// a consumer group rebalancing as members come and go, committed offsets surviving a restart
// (eachMessage and eachBatch), and the admin client's topic and group operations.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AssignerProtocol, type Admin, type Producer } from 'kafkajs';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import { KafkajsClients, brokerAssignments, settledAssignment, type TrackedConsumer } from '../../support/clients/kafkajs.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

let kmock: Kmock;
let clients: KafkajsClients;
let events: GroupEvent[];
let trace: TraceCapture;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, trace: true, logLevel: 'info', logger: trace.logger });
  // On failure, show the decoded traffic that led to it.
  ctx.onTestFailed(() => {
    process.stderr.write(`--- kmock trace (last lines) ---\n${trace.tail(80)}\n`);
  });
  events = [];
  kmock.broker.groupEventListeners.add((e) => events.push(e));
  clients = new KafkajsClients(kmock);
});

afterEach(async (ctx) => {
  await clients.closeAll();
  await kmock.close();
  dumpTraceIfAsked(trace, ctx.task.name);
});

async function createTopic(admin: Admin, topic: string, numPartitions: number): Promise<void> {
  expect(await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true })).toBe(true);
}

/** Produces `values` to one partition with acks -1 and returns the base offset. */
async function produceTo(producer: Producer, topic: string, partition: number, values: string[]): Promise<number> {
  const [res] = await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value, partition })) });
  expect(res?.errorCode).toBe(0);
  return Number(res?.baseOffset);
}

/** The partitions of a settled group, checked to be disjoint and to cover 0..n-1. */
function expectPartitionedExactly(split: Map<TrackedConsumer, number[]>, numPartitions: number): void {
  const all = [...split.values()].flat().sort((a, b) => a - b);
  expect(all).toEqual(Array.from({ length: numPartitions }, (_, i) => i));
}

describe('kafkajs producer', () => {
  it('stores what is produced with acks 0, 1 and -1, and a consumer reads it back in order', async () => {
    const admin = await clients.admin();
    await createTopic(admin, 'acks', 1);
    const producer = await clients.producer();

    const batches: Array<[0 | 1 | -1, string[]]> = [
      [0, ['a0-0', 'a0-1', 'a0-2']],
      [1, ['a1-0', 'a1-1', 'a1-2']],
      [-1, ['a-1-0', 'a-1-1', 'a-1-2']],
    ];
    for (const [acks, values] of batches) {
      const res = await producer.send({
        topic: 'acks',
        acks,
        messages: values.map((value, i) => ({ key: `k${i}`, value, headers: { acks: String(acks) } })),
      });
      if (acks === 0) {
        // No response is expected (nor sent) for acks 0: kafkajs resolves with nothing.
        expect(res).toEqual([]);
      } else {
        expect(res).toHaveLength(1);
        expect(res[0]).toMatchObject({ topicName: 'acks', partition: 0, errorCode: 0 });
      }
    }
    // On the wire: one Produce per send; the acks=0 one was served without any response frame.
    type ProduceJson = { responses: Array<{ name: string; partitionResponses: Array<{ errorCode: number; baseOffset: unknown }> }> };
    const produces = trace.traffic('Produce');
    expect(produces.map((l) => (l.request as { acks: number }).acks)).toEqual([0, 1, -1]);
    expect(produces[0]!.response).toBeNull();
    const answered = produces.slice(1).map((l) => (l.response as ProduceJson).responses[0]!.partitionResponses[0]!);
    expect(answered.map((r) => [r.errorCode, String(r.baseOffset)])).toEqual([[0, '3'], [0, '6']]);
    const expected = batches.flatMap(([, v]) => v);
    await waitFor('high watermark 9', async () => {
      const [p] = await admin.fetchTopicOffsets('acks');
      return p?.high === '9' && p.low === '0';
    });

    const c = clients.consumer('reader', 'acks-reader');
    await c.start('acks');
    await waitFor('9 messages consumed', () => c.consumed.length >= 9);
    expect(c.consumed.map((m) => m.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(c.values()).toEqual(expected);
    expect(c.consumed.map((m) => m.key)).toEqual(['k0', 'k1', 'k2', 'k0', 'k1', 'k2', 'k0', 'k1', 'k2']);
  });
});

describe('kafkajs consumer group', () => {
  it('splits 6 partitions 2/2/2 over 3 members, rebalances when a 4th joins and when one leaves', async () => {
    const admin = await clients.admin();
    await createTopic(admin, 'six', 6);
    const [c1, c2, c3] = ['c1', 'c2', 'c3'].map((n) => clients.consumer(n, 'six-g'));
    await Promise.all([c1!, c2!, c3!].map((c) => c.start('six')));

    // Three members: two partitions each, no overlap.
    const three = await waitFor('3 members settled', () => settledAssignment(kmock, 'six-g', 'six', [c1!, c2!, c3!]));
    expectPartitionedExactly(three, 6);
    expect([...three.values()].map((p) => p.length)).toEqual([2, 2, 2]);
    const leaders = [c1!, c2!, c3!].filter((c) => c.lastJoin?.isLeader);
    expect(leaders).toHaveLength(1);

    // Each member consumes exactly the partitions it was given.
    const producer = await clients.producer();
    for (let p = 0; p < 6; p++) await produceTo(producer, 'six', p, [`p${p}-a`, `p${p}-b`]);
    await waitFor('12 messages consumed', () => c1!.consumed.length + c2!.consumed.length + c3!.consumed.length >= 12);
    for (const c of [c1!, c2!, c3!]) {
      const mine = new Set(three.get(c));
      for (const m of c.consumed) expect(mine.has(m.partition)).toBe(true);
    }
    const allValues = [c1!, c2!, c3!].flatMap((c) => c.values()).sort();
    expect(allValues).toEqual(Array.from({ length: 6 }, (_, p) => [`p${p}-a`, `p${p}-b`]).flat().sort());

    // A 4th member: everyone rejoins, 4 members cover all 6 partitions.
    const genBefore = kmock.broker.groups.group('six-g')!.generationId;
    const c4 = clients.consumer('c4', 'six-g');
    await c4.start('six');
    const four = await waitFor('4 members settled', () => settledAssignment(kmock, 'six-g', 'six', [c1!, c2!, c3!, c4]));
    expectPartitionedExactly(four, 6);
    expect([...four.values()].map((p) => p.length).sort()).toEqual([1, 1, 2, 2]);
    expect(kmock.broker.groups.group('six-g')!.generationId).toBeGreaterThan(genBefore);
    expect(events).toContainEqual(expect.objectContaining({ type: 'rebalance-started', groupId: 'six-g', trigger: 'member-joined' }));

    // One leaves: disconnect sends LeaveGroup, the remaining three take over its partitions.
    const leaving = c2!;
    const leavingMemberId = leaving.lastJoin!.memberId;
    const orphaned = four.get(leaving)!;
    expect(orphaned.length).toBeGreaterThan(0);
    await leaving.stop();
    const leaves = trace.traffic('LeaveGroup');
    expect(leaves).toHaveLength(1);
    expect(leaves[0]!.response).toMatchObject({ errorCode: 0 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'member-removed', groupId: 'six-g', memberId: leavingMemberId, cause: 'leave' }),
    );
    const rest = [c1!, c3!, c4];
    const after = await waitFor('3 remaining members settled', () => settledAssignment(kmock, 'six-g', 'six', rest));
    expectPartitionedExactly(after, 6);
    expect([...after.values()].map((p) => p.length)).toEqual([2, 2, 2]);
    const nowOwned = new Set([...after.values()].flat());
    for (const p of orphaned) expect(nowOwned.has(p)).toBe(true);
    expect(brokerAssignments(kmock, 'six-g').has(leavingMemberId)).toBe(false);

    // The new owners of the orphaned partitions consume from them.
    for (const p of orphaned) await produceTo(producer, 'six', p, [`after-leave-${p}`]);
    await waitFor('orphaned partitions consumed by the new owners', () =>
      orphaned.every((p) => rest.some((c) => after.get(c)!.includes(p) && c.values().includes(`after-leave-${p}`))),
    );
    expect(leaving.values().some((v) => v.startsWith('after-leave'))).toBe(false);
    for (const c of [c1!, c3!, c4]) expect(c.crashes).toEqual([]);
  });

  it('eachMessage: committed offsets survive a restart; consumption resumes right after them', async () => {
    const admin = await clients.admin();
    await createTopic(admin, 'resume', 2);
    const producer = await clients.producer();
    await produceTo(producer, 'resume', 0, ['a0', 'a1', 'a2', 'a3', 'a4']);
    await produceTo(producer, 'resume', 1, ['b0', 'b1', 'b2', 'b3', 'b4']);

    // autoCommitThreshold 1: kafkajs commits after every batch in which anything was resolved.
    const first = clients.consumer('first', 'resume-g', {});
    await first.start('resume', { autoCommitThreshold: 1 });
    await waitFor('10 messages consumed', () => first.consumed.length >= 10);
    await waitFor('offsets 5/5 committed', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'resume-g', topics: ['resume'] });
      const offs = t!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
      return offs[0] === '5' && offs[1] === '5';
    });
    await first.stop();
    expect(first.values().sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4']);

    // While nobody consumes, more records arrive.
    await produceTo(producer, 'resume', 0, ['a5', 'a6']);
    await produceTo(producer, 'resume', 1, ['b5']);

    // fromBeginning would restart at 0 if the committed offsets were lost.
    const second = clients.consumer('second', 'resume-g');
    await second.start('resume', { autoCommitThreshold: 1 }, true);
    await waitFor('3 new messages consumed', () => second.consumed.length >= 3);
    // Give it a moment to (wrongly) deliver anything more.
    await new Promise((r) => setTimeout(r, 500));
    expect(second.consumed.map((m) => `${m.partition}@${m.offset}=${m.value}`).sort()).toEqual([
      '0@5=a5',
      '0@6=a6',
      '1@5=b5',
    ]);
    await waitFor('offsets 7/6 committed', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'resume-g', topics: ['resume'] });
      const offs = t!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
      return offs[0] === '7' && offs[1] === '6';
    });
  });

  it('eachBatch with manual commits: a restart resumes exactly at the last committed offset', async () => {
    const admin = await clients.admin();
    await createTopic(admin, 'batch', 1);
    const producer = await clients.producer();
    await produceTo(producer, 'batch', 0, ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']);

    // The first consumer processes everything but only commits up to and including m6.
    const first = clients.consumer('first', 'batch-g');
    const seenBatches: number[] = [];
    await first.start('batch', {
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        seenBatches.push(batch.messages.length);
        for (const m of batch.messages) {
          first.consumed.push({ topic: batch.topic, partition: batch.partition, offset: Number(m.offset), key: null, value: String(m.value) });
          resolveOffset(m.offset);
          if (Number(m.offset) <= 6) {
            await first.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(m.offset) + 1) }]);
          }
        }
        await heartbeat();
      },
    });
    await waitFor('10 messages consumed', () => first.consumed.length >= 10);
    expect(seenBatches.length).toBeGreaterThan(0);
    const [committed] = await admin.fetchOffsets({ groupId: 'batch-g', topics: ['batch'] });
    expect(committed!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '7' })]);
    await first.stop();
    // kafkajs (autoCommit false) commits nothing on its own when stopping.
    const [stillCommitted] = await admin.fetchOffsets({ groupId: 'batch-g', topics: ['batch'] });
    expect(stillCommitted!.partitions[0]!.offset).toBe('7');

    await produceTo(producer, 'batch', 0, ['m10']);
    const second = clients.consumer('second', 'batch-g');
    await second.start('batch', {
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          second.consumed.push({ topic: batch.topic, partition: batch.partition, offset: Number(m.offset), key: null, value: String(m.value) });
        }
      },
    });
    await waitFor('m7..m10 consumed', () => second.consumed.length >= 4);
    await new Promise((r) => setTimeout(r, 500));
    // At-least-once: m7..m9 were processed but not committed, so they come again; nothing before m7.
    expect(second.consumed.map((m) => m.offset)).toEqual([7, 8, 9, 10]);
    expect(second.values()).toEqual(['m7', 'm8', 'm9', 'm10']);
    // eachBatch with the default autoCommit commits after the batch.
    await waitFor('offset 11 committed', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'batch-g', topics: ['batch'] });
      return t!.partitions[0]!.offset === '11';
    });
  });
});

describe('kafkajs admin', () => {
  it("deleting a topic removes its committed offsets: created again, the group's offset is -1, as on Kafka 3.9", async () => {
    const admin = await clients.admin();
    await createTopic(admin, 'gone-t', 1);
    await admin.setOffsets({ groupId: 'gone-g', topic: 'gone-t', partitions: [{ partition: 0, offset: '5' }] });
    expect((await admin.fetchOffsets({ groupId: 'gone-g', topics: ['gone-t'] }))[0]!.partitions).toEqual([{ partition: 0, offset: '5', metadata: null }]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).toContain('gone-g');
    await admin.deleteTopics({ topics: ['gone-t'] });
    // The emptied group has no offsets left, so it is gone (GroupMetadataManager.cleanupGroupMetadata).
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('gone-g');
    await createTopic(admin, 'gone-t', 1);
    expect((await admin.fetchOffsets({ groupId: 'gone-g', topics: ['gone-t'] }))[0]!.partitions).toEqual([{ partition: 0, offset: '-1', metadata: null }]);
  });

  it('creates topics, fetches metadata, describes/lists groups, fetches/resets offsets and deletes groups', async () => {
    const admin = await clients.admin();
    expect(await admin.createTopics({ topics: [{ topic: 'adm', numPartitions: 3 }], waitForLeaders: true })).toBe(true);
    // Creating it again: TOPIC_ALREADY_EXISTS, which kafkajs reports as `false`.
    expect(await admin.createTopics({ topics: [{ topic: 'adm', numPartitions: 3 }] })).toBe(false);
    expect(await admin.listTopics()).toContain('adm');

    const { topics } = await admin.fetchTopicMetadata({ topics: ['adm'] });
    expect(topics).toHaveLength(1);
    expect(topics[0]!.name).toBe('adm');
    const parts = [...topics[0]!.partitions].sort((a, b) => a.partitionId - b.partitionId);
    expect(parts.map((p) => p.partitionId)).toEqual([0, 1, 2]);
    for (const p of parts) {
      expect(p).toMatchObject({ partitionErrorCode: 0, leader: 1, replicas: [1], isr: [1] });
    }

    const producer = await clients.producer();
    for (let p = 0; p < 3; p++) await produceTo(producer, 'adm', p, [`x${p}`, `y${p}`]);

    // A running group of two.
    const g1 = clients.consumer('g1', 'adm-g');
    const g2 = clients.consumer('g2', 'adm-g');
    await Promise.all([g1.start('adm', { autoCommitThreshold: 1 }), g2.start('adm', { autoCommitThreshold: 1 })]);
    await waitFor('2 members settled', () => settledAssignment(kmock, 'adm-g', 'adm', [g1, g2]));
    await waitFor('6 messages consumed', () => g1.consumed.length + g2.consumed.length >= 6);

    const described = await admin.describeGroups(['adm-g']);
    expect(described.groups).toHaveLength(1);
    const d = described.groups[0]!;
    expect(d).toMatchObject({ groupId: 'adm-g', state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner', errorCode: 0 });
    expect(d.members.map((m) => m.memberId).sort()).toEqual([g1.lastJoin!.memberId, g2.lastJoin!.memberId].sort());
    for (const m of d.members) {
      expect(m.clientId).toBe('kmock-kafkajs-test');
      expect(m.clientHost).toMatch(/127\.0\.0\.1/);
      const assignment = decodeAssignment(m.memberAssignment);
      const owner = [g1, g2].find((c) => c.lastJoin!.memberId === m.memberId)!;
      expect(assignment).toEqual(owner.lastJoin!.assignment);
    }

    const listed = await admin.listGroups();
    expect(listed.groups).toContainEqual({ groupId: 'adm-g', protocolType: 'consumer' });

    await waitFor('offsets 2/2/2 committed', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
      return t!.partitions.every((p) => p.offset === '2') && t!.partitions.length === 3;
    });

    // Members are in: DeleteGroups says NON_EMPTY_GROUP (and kafkajs does not retry that).
    const nonEmpty = await admin.deleteGroups(['adm-g']).then(
      () => undefined,
      (e: { name: string; groups?: Array<{ groupId: string; errorCode: number; error: { type: string } }> }) => e,
    );
    expect(nonEmpty?.name).toBe('KafkaJSDeleteGroupsError');
    expect(nonEmpty?.groups).toEqual([expect.objectContaining({ groupId: 'adm-g', errorCode: 68 })]);
    expect(nonEmpty?.groups?.[0]?.error.type).toBe('NON_EMPTY_GROUP');
    // ...and resetOffsets refuses to touch a running group (kafkajs checks DescribeGroups first).
    await expect(admin.resetOffsets({ groupId: 'adm-g', topic: 'adm', earliest: true })).rejects.toThrow(/no running instances/);

    await g1.stop();
    await g2.stop();
    await waitFor('group Empty', () => kmock.broker.groups.group('adm-g')?.state === 'Empty');
    expect((await admin.describeGroups(['adm-g'])).groups[0]).toMatchObject({ state: 'Empty', members: [] });

    // kafkajs's resetOffsets commits the sentinels -2 (earliest) / -1 (latest), which Kafka stores
    // verbatim; a kafkajs consumer treats a negative committed offset as "none" and then applies its
    // own fromBeginning. So "earliest" is observed with fromBeginning: true (without the reset, the
    // committed 2/2/2 would make it read nothing) and "latest" with fromBeginning: false.
    // Each resetOffsets takes ~5 s: kafkajs's internal seek consumer is paused and sleeps its default
    // maxWaitTimeInMs (5000, not configurable through admin) before its first FETCH event.
    await admin.resetOffsets({ groupId: 'adm-g', topic: 'adm', earliest: true });
    const [afterEarliest] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
    expect(afterEarliest!.partitions.map((p) => p.offset)).toEqual(['-2', '-2', '-2']);
    expect(kmock.broker.groups.group('adm-g')?.state).toBe('Empty');
    const again = clients.consumer('again', 'adm-g');
    await again.start('adm', { autoCommitThreshold: 1 }, true);
    await waitFor('6 messages re-consumed', () => again.consumed.length >= 6);
    expect(again.values().sort()).toEqual(['x0', 'x1', 'x2', 'y0', 'y1', 'y2']);
    await waitFor('offsets 2/2/2 committed again', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
      return t!.partitions.every((p) => p.offset === '2');
    });
    await again.stop();

    // Records produced while nobody consumes, then a reset to latest: they are skipped.
    await producer.send({ topic: 'adm', acks: -1, messages: [{ value: 'skipped0', partition: 0 }, { value: 'skipped1', partition: 1 }] });
    await admin.resetOffsets({ groupId: 'adm-g', topic: 'adm', earliest: false });
    const [afterLatest] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
    expect(afterLatest!.partitions.map((p) => p.offset)).toEqual(['-1', '-1', '-1']);
    const latest = clients.consumer('latest', 'adm-g');
    await latest.start('adm', { autoCommitThreshold: 1 }, false);
    await waitFor('latest consumer settled and fetching', () => settledAssignment(kmock, 'adm-g', 'adm', [latest]) && latest.fetches > 0);
    await producer.send({ topic: 'adm', acks: -1, messages: [{ value: 'new0', partition: 0 }, { value: 'new2', partition: 2 }] });
    await waitFor('2 new messages consumed', () => latest.consumed.length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(latest.values().sort()).toEqual(['new0', 'new2']);
    // Partition 1 received nothing after the reset: kafkajs has nothing to commit there, -1 stays.
    await waitFor('offsets 4/-1/3 committed', async () => {
      const [t] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
      return JSON.stringify(t!.partitions.map((p) => p.offset)) === '["4","-1","3"]';
    });
    await latest.stop();

    // Empty group: DeleteGroups succeeds, and the group (with its offsets) is gone.
    expect(await admin.deleteGroups(['adm-g'])).toEqual([expect.objectContaining({ groupId: 'adm-g', errorCode: 0 })]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('adm-g');
    expect((await admin.describeGroups(['adm-g'])).groups[0]).toMatchObject({ groupId: 'adm-g', state: 'Dead' });
    const [gone] = await admin.fetchOffsets({ groupId: 'adm-g', topics: ['adm'] });
    expect(gone!.partitions.map((p) => p.offset)).toEqual(['-1', '-1', '-1']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'group-deleted', groupId: 'adm-g', cause: 'delete-groups' }));
  });
});

function decodeAssignment(buf: Buffer): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [t, p] of Object.entries(AssignerProtocol.MemberAssignment.decode(buf)?.assignment ?? {})) {
    out[t] = [...p].sort((a, b) => a - b);
  }
  return out;
}
