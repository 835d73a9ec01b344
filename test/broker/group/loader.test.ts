// Loading groups and offsets from __consumer_offsets (loader.ts, GroupCoordinator.loadFromLog):
// what Kafka 3.9.1 wrote (fixtures/) loads into kmock's coordinator as Kafka loads it, and a
// coordinator rebuilt from another's records has the same offsets, generations, members, pending
// transactional offsets and open transactions; loaded members' sessions run from the load.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../../../src/broker/group/coordinator.js';
import { readOffsetsPartition } from '../../../src/broker/group/loader.js';
import { OFFSETS_TOPIC } from '../../../src/broker/internal-topics.js';
import { writeMarker } from '../../../src/broker/txn/log-markers.js';
import type { RecordBatch } from '../../../src/codec/records/batch.js';
import { ErrorCode } from '../../../src/codec/index.js';
import { DefaultSessionTimeout, Harness } from './harness.js';
import { kafkaPartitions, OffsetsTopicEnv } from './offsets-topic-env.js';

function load(coordinator: GroupCoordinator, partitions: Map<number, RecordBatch[]>) {
  return [...partitions].map(([p, batches]) => coordinator.loadFromLog(p, batches));
}

function fetchAll(c: GroupCoordinator, groupId: string) {
  return c.offsetFetch({ groupId, topics: null, requireStable: false }).topics.flatMap((t) =>
    t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.metadata })),
  );
}

function view(c: GroupCoordinator) {
  return c.groupIds().sort().map((id) => {
    const g = c.group(id)!;
    return {
      id,
      state: g.state,
      generation: g.generationId,
      protocolType: g.protocolType,
      protocol: g.protocolName,
      leader: g.leaderId,
      members: g.allMembers().map((m) => ({ id: m.memberId, instance: m.groupInstanceId, session: m.sessionTimeoutMs, rebalance: m.rebalanceTimeoutMs, assignment: m.assignment.toString('hex') })),
      offsets: g.offsets.all().map((o) => ({ topic: o.topic, partition: o.partition, ...o.offset })).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
      pending: g.offsets.pendingTxnOffsets().map((o) => ({ producerId: o.producerId, topic: o.topic, partition: o.partition, ...o.offset })),
    };
  });
}

describe("loading what Kafka 3.9.1 wrote (doLoadGroupsAndOffsets)", () => {
  const h = new Harness({ offsetsRetentionCheckIntervalMs: 0 });
  const summaries = load(h.coordinator, kafkaPartitions(OFFSETS_TOPIC));

  it('groups with metadata come back at their generation (Empty: the last record had no members), groups with offsets only Empty at generation 0, deleted groups and removed offsets not at all', () => {
    const groups = Object.fromEntries(view(h.coordinator).map((g) => [g.id, g]));
    expect(Object.keys(groups).sort()).toEqual(['g-txn', 'g1', 'raw-v2', 'simple']);
    expect(groups['g1']).toMatchObject({ state: 'Empty', generation: 2, protocolType: 'consumer', protocol: null, leader: null, members: [] });
    expect(groups['simple']).toMatchObject({ state: 'Empty', generation: 2, protocolType: 'consumer' });
    expect(groups['g-txn']).toMatchObject({ state: 'Empty', generation: 0, protocolType: null });
    expect(groups['raw-v2']).toMatchObject({ state: 'Empty', generation: 0, protocolType: null });
    expect(summaries.flatMap((s) => s.groups).sort()).toEqual(['g-txn', 'g1', 'raw-v2', 'simple']);
  });

  it('committed offsets: the last commit of each partition; transactional ones as their markers decided (committed 5 and 6, aborted 7 and 8, committed 9)', () => {
    const g1 = fetchAll(h.coordinator, 'g1').sort((a, b) => a.partition - b.partition);
    expect(g1.map((o) => [o.topic, o.partition, o.offset])).toEqual([['t', 0, 5n], ['t', 1, 5n]]);
    expect(fetchAll(h.coordinator, 'simple').map((o) => [o.topic, o.partition, o.offset])).toEqual([['t', 0, 3n]]);
    const txn = fetchAll(h.coordinator, 'g-txn').sort((a, b) => a.partition - b.partition);
    expect(txn.map((o) => o.offset)).toEqual([9n, 6n]);
    expect(h.coordinator.pendingTransactionalOffsets('g-txn')).toEqual([]);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([]);
  });

  it('an offset committed with a retention time keeps its expire timestamp and metadata', () => {
    const o = h.group('raw-v2').offsets.get('u', 0)!;
    expect(o).toMatchObject({ offset: 11n, metadata: 'meta' });
    expect(o.expireTimestamp! - o.commitTimestamp).toBe(3_600_000);
  });
});

describe('a coordinator rebuilt from the records of another', () => {
  function story() {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = new Harness({ brokerClock: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0 });
    // A Stable group of two static members with assignments, and its commits.
    const r = h.staticMembersJoinAndRebalance();
    h.commitOffsets(r.leaderId, r.generation, [{ topic: 't', partition: 0, offset: 10n, leaderEpoch: 3, metadata: 'm' }, { topic: 't', partition: 1, offset: 11n }]);
    h.commitOffsets(r.followerId, r.generation, [{ topic: 't', partition: 0, offset: 12n }]);
    // A simple group, one of whose offsets was deleted; a deleted group.
    h.commitOffsets('', -1, [{ topic: 'a', partition: 0, offset: 1n }, { topic: 'a', partition: 1, offset: 2n }], null, 'simple');
    h.coordinator.offsetDelete({ groupId: 'simple', topics: [{ name: 'a', partitions: [{ partitionIndex: 1 }] }] });
    h.commitOffsets('', -1, [{ topic: 'a', partition: 0, offset: 1n }], null, 'deleted');
    h.coordinator.deleteGroups(['deleted']);
    // Transactions: one committed, one aborted, one still open (no marker: pending offsets, an open transaction).
    const txn = (producerId: bigint, groupId: string, offset: bigint) =>
      h.coordinator.txnOffsetCommit(3, { transactionalId: `tx-${producerId}`, groupId, producerId, producerEpoch: 2, generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'x', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    const marker = (producerId: bigint, groupId: string, result: 'COMMIT' | 'ABORT') =>
      writeMarker({ ...env.services, groups: h.coordinator }, { producerId, producerEpoch: 2, coordinatorEpoch: 0, result, partitions: [{ topic: OFFSETS_TOPIC, partition: h.coordinator.partitionFor(groupId) }] });
    txn(1n, 'eos', 100n);
    marker(1n, 'eos', 'COMMIT');
    txn(2n, 'eos', 200n);
    marker(2n, 'eos', 'ABORT');
    txn(3n, 'eos', 300n);
    txn(3n, 'simple', 301n);
    return { env, h, r };
  }

  it('the same groups (generation, protocol, leader, members with their instance ids, timeouts and assignments), committed offsets (positions, epochs, metadata), pending transactional offsets and open transactions', () => {
    const { env, h } = story();
    const reloaded = new Harness({ brokerClock: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0 });
    load(reloaded.coordinator, env.partitions(OFFSETS_TOPIC));
    const before = view(h.coordinator).filter((g) => g.id !== 'deleted');
    expect(view(reloaded.coordinator)).toEqual(before);
    expect(reloaded.coordinator.group('groupId')!.state).toBe('Stable');
    expect(reloaded.coordinator.pendingTransactionalOffsets('eos')).toEqual(h.coordinator.pendingTransactionalOffsets('eos'));
    expect(reloaded.coordinator.pendingTransactionalOffsets('eos').map((p) => [p.producerId, p.offset])).toEqual([[3n, 300n]]);
    expect(reloaded.coordinator.openOffsetsTransactions()).toEqual(h.coordinator.openOffsetsTransactions());
    expect(reloaded.coordinator.offsetFetch({ groupId: 'eos', topics: [{ name: 'x', partitionIndexes: [0] }], requireStable: true }).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    // The open transaction's marker, after the load, completes it there as it would have here.
    writeMarker({ ...env.services, groups: reloaded.coordinator }, { producerId: 3n, producerEpoch: 2, coordinatorEpoch: 0, result: 'COMMIT', partitions: [{ topic: OFFSETS_TOPIC, partition: reloaded.coordinator.partitionFor('eos') }] });
    expect(fetchAll(reloaded.coordinator, 'eos').map((o) => o.offset)).toEqual([300n]);
  });

  it('a loaded member that does not come back expires after its session timeout, from the load: the group rebalances to an Empty generation, written again', () => {
    const { env } = story();
    const reloaded = new Harness({ brokerClock: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0 });
    load(reloaded.coordinator, env.partitions(OFFSETS_TOPIC));
    const p = reloaded.coordinator.partitionFor('groupId');
    const end = env.topics.get(OFFSETS_TOPIC)!.partitions[p]!.logEndOffset;
    reloaded.advance(DefaultSessionTimeout - 1);
    expect(reloaded.state()).toBe('Stable');
    reloaded.advance(1);
    expect(reloaded.state()).not.toBe('Stable');
    reloaded.advance(1_000);
    expect(reloaded.state()).toBe('Empty');
    expect(reloaded.group().generationId).toBe(2);
    expect(env.topics.get(OFFSETS_TOPIC)!.partitions[p]!.logEndOffset).toBeGreaterThan(end);
    const again = new Harness({ brokerClock: env.clock, offsetsRetentionCheckIntervalMs: 0 });
    load(again.coordinator, env.partitions(OFFSETS_TOPIC));
    expect(again.group()).toMatchObject({ state: 'Empty', generationId: 2 });
  });

  it('a member that heartbeats with its member id and generation after the load carries on (the group stays Stable)', () => {
    const { env, r } = story();
    const reloaded = new Harness({ brokerClock: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0 });
    load(reloaded.coordinator, env.partitions(OFFSETS_TOPIC));
    for (let i = 0; i < 4; i++) {
      reloaded.advance(DefaultSessionTimeout / 2);
      expect(reloaded.heartbeat(r.leaderId, r.generation, 'leader')).toBe(ErrorCode.NONE);
      expect(reloaded.heartbeat(r.followerId, r.generation, 'follower')).toBe(ErrorCode.NONE);
    }
    expect(reloaded.state()).toBe('Stable');
  });

  it('a group over group.max.size after the load rebalances at once; a group already there is kept', () => {
    const { env } = story();
    const small = new Harness({ brokerClock: env.clock, groupMaxSize: 1, offsetsRetentionCheckIntervalMs: 0 });
    load(small.coordinator, env.partitions(OFFSETS_TOPIC));
    expect(small.state()).toBe('PreparingRebalance');
    expect(small.eventsOf('rebalance-started').at(-1)?.trigger).toBe('loaded-over-capacity');

    const busy = new Harness({ brokerClock: env.clock, offsetsRetentionCheckIntervalMs: 0 });
    busy.commitOffsets('', -1, [{ topic: 'mine', partition: 0, offset: 9n }], null, 'simple');
    const summary = load(busy.coordinator, env.partitions(OFFSETS_TOPIC));
    expect(summary.flatMap((s) => s.alreadyLoaded)).toEqual(['simple']);
    expect(fetchAll(busy.coordinator, 'simple').map((o) => [o.topic, o.offset])).toEqual([['mine', 9n]]);
  });

  it('readOffsetsPartition: a tombstone removes, the last record wins, an empty control batch (left by the cleaner) decides nothing', () => {
    const { env, h } = story();
    const p = h.coordinator.partitionFor('eos');
    const batches = env.partitions(OFFSETS_TOPIC).get(p)!;
    const contents = readOffsetsPartition(batches);
    expect(contents.pending.get(3n)?.map((o) => o.offset.offset)).toEqual([300n]);
    // The same log with the COMMIT marker of producer 1 emptied: its offsets stay pending.
    const emptied = batches.map((b) => (b.isControl && b.producerId === 1n ? { ...b, records: [] } : b));
    expect(readOffsetsPartition(emptied).pending.get(1n)?.map((o) => o.offset.offset)).toEqual([100n]);
  });

  it('a record that cannot be read (a value of an unknown version) loads nothing of its partition, as Kafka logs it and owns the partition without its groups; the others load', () => {
    const { env, h } = story();
    const partitions = env.partitions(OFFSETS_TOPIC);
    const p = h.coordinator.partitionFor('simple');
    const bad = partitions.get(p)!.map((b) => ({ ...b, records: b.records.map((r) => (r.value === null ? r : { ...r, value: Buffer.from([0, 9, ...r.value.subarray(2)]) })) }));
    partitions.set(p, bad);
    const reloaded = new Harness({ brokerClock: env.clock, offsetsRetentionCheckIntervalMs: 0 });
    const summaries = load(reloaded.coordinator, partitions);
    expect(summaries.find((s) => s.partition === p)).toMatchObject({ groups: [], error: 'Unknown offset message version: 9' });
    expect(reloaded.coordinator.group('simple')).toBeUndefined();
    // The consumer group lives in another partition, which loads.
    expect(reloaded.coordinator.partitionFor('groupId')).not.toBe(p);
    expect(reloaded.coordinator.group('groupId')?.state).toBe('Stable');
  });
});
