// OffsetCommit, OffsetFetch, OffsetDelete and offset expiration (TxnOffsetCommit: txn-offsets.test.ts).

import { describe, expect, it } from 'vitest';
import type { OffsetFetchResponseGroup } from '../../../src/broker/group/types.js';
import { encodeSubscription } from './consumer-protocol.js';
import { Harness, followerInstanceId, groupId } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

function fetch(h: Harness, partitions: [string, number][] | null, id = groupId, requireStable = false): OffsetFetchResponseGroup {
  const topics =
    partitions === null
      ? null
      : [...new Set(partitions.map(([t]) => t))].map((name) => ({
          name,
          partitionIndexes: partitions.filter(([t]) => t === name).map(([, p]) => p),
        }));
  return h.coordinator.offsetFetch({ groupId: id, topics, requireStable });
}

/** The committed offset of one partition as OffsetFetch reports it. */
function committed(h: Harness, topic: string, partition: number, id = groupId, requireStable = false) {
  return fetch(h, [[topic, partition]], id, requireStable).topics[0]!.partitions[0]!;
}

function stableSingleMember(h: Harness, protocolType = 'consumer', metadata: Buffer = Buffer.alloc(0), sessionTimeout?: number) {
  const r = h.dynamicJoinGroup({ protocolType, protocols: [{ name: 'range', metadata }], sessionTimeout });
  expect(r.errorCode).toBe(ErrorCode.NONE);
  expect(h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} }).errorCode).toBe(ErrorCode.NONE);
  return r;
}

describe('OffsetCommit validation', () => {
  it('testCommitOffsetFromUnknownGroup: generation >= 0 for a missing group is ILLEGAL_GENERATION', () => {
    const h = new Harness();
    expect(h.commitOne('memberId', 1)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(h.coordinator.group(groupId)).toBeUndefined();
    // Kafka 3.9's old coordinator answers the same for v9 (GROUP_ID_NOT_FOUND is 4.x behaviour).
    const v9 = h.commitOffsets('memberId', 1, [{ topic: 't', partition: 0, offset: 1n }], null, groupId, 9);
    expect(v9.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('testCommitOffsetWithDefaultGeneration: a simple commit creates an Empty group without protocol type', () => {
    const h = new Harness();
    expect(h.commitOne('', -1)).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Empty');
    expect(h.group().protocolType).toBeNull();
    expect(committed(h, 'topic', 0).committedOffset).toBe(0n);
  });

  it('testCommitOffsetsAfterGroupIsEmpty', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.singleLeaveGroup(r.memberId).members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.commitOne('', -1)).toBe(ErrorCode.NONE);
    expect(committed(h, 'topic', 0)).toMatchObject({ committedOffset: 0n, errorCode: ErrorCode.NONE });
  });

  it('testManualCommitOffsetShouldNotValidateMemberIdAndInstanceId', () => {
    const h = new Harness();
    expect(h.commitOne('', -1, 'instance-id')).toBe(ErrorCode.NONE);
    expect(h.commitOne('unknown', -1)).toBe(ErrorCode.NONE);
  });

  it('testCommitOffsetInCompletingRebalance: REBALANCE_IN_PROGRESS', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('testCommitOffsetInCompletingRebalanceFromUnknownMemberId', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.commitOne('', r.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testCommitOffsetInCompletingRebalanceFromIllegalGeneration', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.commitOne(r.memberId, r.generationId + 1)).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('testOffsetCommitDeadGroup', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId: 'deadGroupId', topics: [] });
    h.group('deadGroupId').transitionTo('Dead', h.now);
    expect(h.commitOne('memberId', 1, null, 'deadGroupId')).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('only members may commit to a non-empty group', () => {
    const h = new Harness();
    stableSingleMember(h);
    expect(h.commitOne('', -1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('commits from the current generation are accepted during PreparingRebalance', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.sendJoinGroup(); // PreparingRebalance
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
  });

  it('stores offset, leader epoch, metadata (null as "") and the commit timestamp per partition', () => {
    const h = new Harness();
    const r = h.commitOffsets('', -1, [
      { topic: 'a', partition: 0, offset: 97n, metadata: 'some metadata', leaderEpoch: 15 },
      { topic: 'a', partition: 1, offset: 5n, metadata: null },
      { topic: 'b', partition: 3, offset: 7n },
    ]);
    expect(r).toEqual({
      topics: [
        { name: 'a', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 0 }] },
        { name: 'b', partitions: [{ partitionIndex: 3, errorCode: 0 }] },
      ],
    });
    // testFetchOffsets
    expect(committed(h, 'a', 0)).toEqual({ partitionIndex: 0, committedOffset: 97n, committedLeaderEpoch: 15, metadata: 'some metadata', errorCode: 0 });
    expect(committed(h, 'a', 1)).toMatchObject({ committedOffset: 5n, committedLeaderEpoch: -1, metadata: '' });
    const stored = h.group().offsets.get('a', 0)!;
    expect(stored.commitTimestamp).toBe(h.now);
    expect(stored.expireTimestamp).toBeNull();
  });

  it('version-specific fields: v1 commit timestamp, v2–v4 retention, leader epoch from v6, instance id from v7', () => {
    const h = new Harness();
    const commit = (version: number, extra: object, partition: object) =>
      h.coordinator.offsetCommit(version, {
        groupId: 'g',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: 'x',
        ...extra,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: 'm', committedLeaderEpoch: 9, ...partition }] }],
      });
    commit(1, {}, { commitTimestamp: 12345n });
    expect(h.group('g').offsets.get('t', 0)).toMatchObject({ commitTimestamp: 12345, leaderEpoch: -1 });
    commit(1, {}, { commitTimestamp: -1n });
    expect(h.group('g').offsets.get('t', 0)!.commitTimestamp).toBe(h.now);
    commit(3, { retentionTimeMs: 1000n }, { commitTimestamp: 5n });
    expect(h.group('g').offsets.get('t', 0)).toMatchObject({ commitTimestamp: h.now, expireTimestamp: h.now + 1000, leaderEpoch: -1 });
    commit(5, { retentionTimeMs: 1000n }, {});
    expect(h.group('g').offsets.get('t', 0)).toMatchObject({ expireTimestamp: null, leaderEpoch: -1 });
    commit(6, {}, {});
    expect(h.group('g').offsets.get('t', 0)!.leaderEpoch).toBe(9);
  });

  it('a partition listed twice counts once with its last value', () => {
    const h = new Harness();
    const r = h.commitOffsets('', -1, [
      { topic: 't', partition: 0, offset: 1n },
      { topic: 't', partition: 0, offset: 2n },
    ]);
    expect(r.topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
    expect(committed(h, 't', 0).committedOffset).toBe(2n);
  });

  it('metadata longer than offset.metadata.max.bytes is OFFSET_METADATA_TOO_LARGE; the rest is stored', () => {
    const h = new Harness();
    const big = 's'.repeat(4097);
    const r = h.commitOffsets('', -1, [
      { topic: 't', partition: 0, offset: 1n, metadata: big },
      { topic: 't', partition: 1, offset: 1n, metadata: 's'.repeat(4096) },
    ]);
    expect(r.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.NONE]);
    expect(committed(h, 't', 0).committedOffset).toBe(-1n);
    expect(committed(h, 't', 1).committedOffset).toBe(1n);
  });

  it('a failed append is mapped (MESSAGE_TOO_LARGE -> INVALID_COMMIT_OFFSET_SIZE) and nothing is stored', () => {
    const h = new Harness();
    h.offsetAppendError = ErrorCode.MESSAGE_TOO_LARGE;
    expect(h.commitOne('', -1)).toBe(ErrorCode.INVALID_COMMIT_OFFSET_SIZE);
    h.offsetAppendError = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    expect(h.commitOne('', -1)).toBe(ErrorCode.NOT_COORDINATOR);
    expect(committed(h, 'topic', 0).committedOffset).toBe(-1n);
  });

  it('testCommitAndFetchOffsetsWithEmptyGroup: the "" group id is valid for commit, fetch, describe, delete', () => {
    const h = new Harness();
    expect(h.commitOne('', -1, null, '')).toBe(ErrorCode.NONE);
    expect(committed(h, 'topic', 0, '')).toMatchObject({ committedOffset: 0n, errorCode: 0 });
    expect(h.coordinator.describeGroups([''])[0]).toMatchObject({ errorCode: 0, groupState: 'Empty' });
    expect(h.coordinator.deleteGroups([''])).toEqual([{ groupId: '', errorCode: ErrorCode.NONE }]);
    expect(committed(h, 'topic', 0, '')).toMatchObject({ committedOffset: -1n, errorCode: 0 });
  });
});

describe('OffsetFetch', () => {
  it('a missing group returns -1 for the requested partitions and nothing for "all"', () => {
    const h = new Harness();
    expect(fetch(h, [['t', 0], ['t', 1], ['u', 0]])).toEqual({
      groupId,
      errorCode: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
            { partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
          ],
        },
        { name: 'u', partitions: [{ partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }] },
      ],
    });
    expect(fetch(h, null)).toEqual({ groupId, errorCode: 0, topics: [] });
  });

  it('null topics return every committed partition of the group', () => {
    const h = new Harness();
    h.commitOffsets('', -1, [
      { topic: 'a', partition: 1, offset: 10n },
      { topic: 'b', partition: 0, offset: 20n },
      { topic: 'a', partition: 0, offset: 30n },
    ]);
    const all = fetch(h, null);
    expect(all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])])).toEqual([
      ['a', [[1, 10n], [0, 30n]]],
      ['b', [[0, 20n]]],
    ]);
  });

  it('offsets are returned whatever the group state', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    h.sendJoinGroup({ memberId: r.memberId });
    h.sendJoinGroup();
    expect(h.state()).toBe('PreparingRebalance');
    expect(committed(h, 'topic', 0).committedOffset).toBe(0n);
  });
});

describe('OffsetDelete', () => {
  const del = (h: Harness, parts: [string, number][], id = groupId) =>
    h.coordinator.offsetDelete({
      groupId: id,
      topics: [...new Set(parts.map(([t]) => t))].map((name) => ({
        name,
        partitions: parts.filter(([t]) => t === name).map(([, partitionIndex]) => ({ partitionIndex })),
      })),
    });

  it('testDeleteOffsetOfNonExistingGroup', () => {
    const h = new Harness();
    expect(del(h, [['foo', 0]])).toEqual({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] });
  });

  it('an empty group id is INVALID_GROUP_ID', () => {
    const h = new Harness();
    expect(del(h, [['foo', 0]], '')).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] });
  });

  it('testDeleteOffsetOfNonEmptyNonConsumerGroup', () => {
    const h = new Harness();
    h.dynamicJoinGroup({ protocolType: 'My Protocol' });
    expect(del(h, [['foo', 0]])).toEqual({ errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] });
  });

  it('testDeleteOffsetOfEmptyNonConsumerGroup', () => {
    const h = new Harness();
    const r = stableSingleMember(h, 'My Protocol');
    h.commitOffsets(r.memberId, r.generationId, [
      { topic: 'foo', partition: 0, offset: 37n },
      { topic: 'bar', partition: 0, offset: 37n },
    ]);
    h.singleLeaveGroup(r.memberId);
    expect(h.state()).toBe('Empty');
    expect(del(h, [['foo', 0]])).toEqual({ errorCode: 0, topics: [{ name: 'foo', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    expect(committed(h, 'foo', 0).committedOffset).toBe(-1n);
    expect(committed(h, 'bar', 0).committedOffset).toBe(37n);
  });

  it('testDeleteOffsetOfConsumerGroupWithUnparsableProtocol: unknown subscriptions protect every topic', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.commitOffsets(r.memberId, r.generationId, [{ topic: 'foo', partition: 0, offset: 37n }]);
    expect(del(h, [['foo', 0]]).topics).toEqual([{ name: 'foo', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] }]);
  });

  it('testDeleteOffsetOfDeadConsumerGroup', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId, topics: [] });
    h.group().transitionTo('Dead', h.now);
    expect(del(h, [['foo', 0]]).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('testDeleteOffsetOfEmptyConsumerGroup', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.commitOffsets(r.memberId, r.generationId, [
      { topic: 'foo', partition: 0, offset: 37n },
      { topic: 'bar', partition: 0, offset: 37n },
    ]);
    h.singleLeaveGroup(r.memberId);
    expect(del(h, [['foo', 0]]).topics).toEqual([{ name: 'foo', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
    expect(committed(h, 'foo', 0).committedOffset).toBe(-1n);
    expect(committed(h, 'bar', 0).committedOffset).toBe(37n);
  });

  it('testDeleteOffsetOfStableConsumerGroup: GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics only', () => {
    const h = new Harness();
    const r = stableSingleMember(h, 'consumer', encodeSubscription({ version: 3, topics: ['bar'], rackId: 'r1' }));
    h.commitOffsets(r.memberId, r.generationId, [
      { topic: 'foo', partition: 0, offset: 37n },
      { topic: 'bar', partition: 0, offset: 37n },
    ]);
    expect(h.state()).toBe('Stable');
    expect(del(h, [['foo', 0], ['bar', 0]]).topics).toEqual([
      { name: 'foo', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      { name: 'bar', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] },
    ]);
    expect(committed(h, 'foo', 0).committedOffset).toBe(-1n);
    expect(committed(h, 'bar', 0).committedOffset).toBe(37n);
  });

  it('a custom subscribedTopics hook makes other protocol types subscription-aware', () => {
    const h = new Harness({ subscribedTopics: (type, _name, md) => (type === 'connect' ? md.toString().split(',') : undefined) });
    const r = stableSingleMember(h, 'connect', Buffer.from('a,b'));
    h.commitOffsets(r.memberId, r.generationId, [{ topic: 'a', partition: 0, offset: 1n }, { topic: 'c', partition: 0, offset: 1n }]);
    expect(del(h, [['a', 0], ['c', 0]]).topics.map((t) => t.partitions[0]!.errorCode)).toEqual([ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, 0]);
  });

  it('deleting the last offsets of an Empty group deletes the group', () => {
    const h = new Harness();
    h.commitOne('', -1);
    expect(del(h, [['topic', 0]]).errorCode).toBe(0);
    expect(h.coordinator.group(groupId)).toBeUndefined();
    expect(h.eventsOf('group-deleted')).toMatchObject([{ groupId }]);
  });

  it('deleted topic partitions lose their offsets in every group', () => {
    const h = new Harness();
    h.commitOffsets('', -1, [{ topic: 'x', partition: 0, offset: 1n }, { topic: 'y', partition: 0, offset: 1n }]);
    h.commitOffsets('', -1, [{ topic: 'x', partition: 0, offset: 1n }], null, 'other');
    h.coordinator.onPartitionsDeleted([{ topic: 'x', partition: 0 }]);
    expect(committed(h, 'x', 0).committedOffset).toBe(-1n);
    expect(committed(h, 'y', 0).committedOffset).toBe(1n);
    expect(h.coordinator.group('other')).toBeUndefined();
  });
});

describe('offset expiration (offsets.retention.minutes)', () => {
  const retention = 10_000;
  const interval = 1_000;
  const make = () => new Harness({ offsetsRetentionMs: retention, offsetsRetentionCheckIntervalMs: interval });

  it('a simple group loses offsets `retention` after their commit, then the group itself', () => {
    const h = make();
    h.commitOne('', -1);
    h.advance(retention - 1);
    expect(committed(h, 'topic', 0).committedOffset).toBe(0n);
    h.advance(interval);
    expect(h.coordinator.group(groupId)).toBeUndefined();
    expect(h.coordinator.describeGroups([groupId])[0]!.groupState).toBe('Dead');
    expect(h.eventsOf('group-deleted')).toMatchObject([{ cause: 'offsets-expired' }]);
  });

  it('an Empty consumer group expires everything `retention` after it became Empty', () => {
    const h = make();
    const r = stableSingleMember(h, 'consumer', Buffer.alloc(0), 60_000);
    h.commitOne(r.memberId, r.generationId);
    h.advance(retention / 2);
    expect(h.heartbeat(r.memberId, r.generationId)).toBe(0);
    h.singleLeaveGroup(r.memberId);
    const emptySince = h.now;
    h.advance(retention - interval);
    expect(committed(h, 'topic', 0).committedOffset).toBe(0n);
    h.advance(emptySince + retention + interval - h.now);
    expect(h.coordinator.group(groupId)).toBeUndefined();
  });

  it('a Stable consumer group keeps offsets of subscribed topics and expires the others', () => {
    const h = make();
    const r = stableSingleMember(h, 'consumer', encodeSubscription({ version: 0, topics: ['bar'] }), 60_000);
    h.commitOffsets(r.memberId, r.generationId, [
      { topic: 'foo', partition: 0, offset: 1n },
      { topic: 'bar', partition: 0, offset: 2n },
    ]);
    for (let i = 0; i < 15; i++) {
      h.advance(interval);
      expect(h.heartbeat(r.memberId, r.generationId)).toBe(0);
    }
    expect(committed(h, 'foo', 0).committedOffset).toBe(-1n);
    expect(committed(h, 'bar', 0).committedOffset).toBe(2n);
  });

  it('an explicit v2–v4 retention time expires the offset at that time', () => {
    const h = make();
    h.coordinator.offsetCommit(2, {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      retentionTimeMs: 2500n,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: null }] }],
    });
    h.advance(2 * interval);
    expect(committed(h, 't', 0).committedOffset).toBe(3n);
    h.advance(interval);
    expect(h.coordinator.group(groupId)).toBeUndefined();
  });

  it('a group whose first join was rejected stays Empty until the expiration task removes it', () => {
    const h = make();
    expect(h.dynamicJoinGroup({ protocols: [] }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(h.coordinator.listGroups().groups.map((g) => g.groupState)).toEqual(['Empty']);
    h.advance(interval);
    expect(h.coordinator.listGroups().groups).toEqual([]);
  });
});

describe('static member commits', () => {
  it('a static member commits with its instance id; a wrong member id for the instance is fenced', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.commitOne(rr.followerId, rr.generation, followerInstanceId)).toBe(ErrorCode.NONE);
    expect(h.commitOne(rr.leaderId, rr.generation, followerInstanceId)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.commitOne(rr.followerId, rr.generation, 'nobody')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // Below v7 the instance id is not sent.
    expect(h.commitOffsets(rr.leaderId, rr.generation, [{ topic: 't', partition: 0, offset: 1n }], followerInstanceId, groupId, 6).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  });
});
