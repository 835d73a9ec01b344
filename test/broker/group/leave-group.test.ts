// LeaveGroup v0–v2 (single member) and v3+ (batch by member id and/or instance id, KIP-345),
// with KIP-800 reasons.

import { describe, expect, it } from 'vitest';
import { Harness, followerInstanceId, groupId, leaderInstanceId, protocolSuperset } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

describe('LeaveGroup', () => {
  it('testLeaveGroupUnknownGroup: NONE at the top, UNKNOWN_MEMBER_ID per member', () => {
    const h = new Harness();
    const r = h.singleLeaveGroup('memberId');
    expect(r).toEqual({ errorCode: ErrorCode.NONE, members: [{ memberId: 'memberId', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID }] });
  });

  it('an empty group id is a top-level INVALID_GROUP_ID with no members', () => {
    const h = new Harness();
    expect(h.singleLeaveGroup('m', null, '')).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, members: [] });
  });

  it('testLeaveGroupUnknownConsumerExistingGroup', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup().errorCode).toBe(ErrorCode.NONE);
    expect(h.singleLeaveGroup('consumerId').members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testSingleLeaveDeadGroup / testBatchLeaveDeadGroup: top-level COORDINATOR_NOT_AVAILABLE', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId: 'deadGroupId', topics: [] });
    h.group('deadGroupId').transitionTo('Dead', h.now);
    expect(h.singleLeaveGroup('memberId', null, 'deadGroupId')).toEqual({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] });
    expect(h.batchLeaveGroup([{ memberId: 'memberId' }, { memberId: 'memberId' }], 'deadGroupId')).toEqual({
      errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
      members: [],
    });
  });

  it('testValidLeaveGroup: the last member leaving empties the group and bumps the generation', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.singleLeaveGroup(r.memberId).members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Empty');
    expect(h.group().generationId).toBe(2);
    expect(h.group().leaderId).toBeNull();
    expect(h.group().protocolName).toBeNull();
  });

  it('testLeaveGroupWithFencedInstanceId', () => {
    const h = new Harness();
    expect(h.staticJoinGroup({ groupInstanceId: leaderInstanceId, protocols: protocolSuperset }).errorCode).toBe(ErrorCode.NONE);
    const r = h.singleLeaveGroup('some_member', leaderInstanceId);
    expect(r).toEqual({ errorCode: ErrorCode.NONE, members: [{ memberId: 'some_member', groupInstanceId: leaderInstanceId, errorCode: ErrorCode.FENCED_INSTANCE_ID }] });
    expect(h.eventsOf('member-fenced')).toMatchObject([{ operation: 'LeaveGroup', memberId: 'some_member' }]);
  });

  it('testLeaveGroupStaticMemberWithUnknownMemberId: removal by instance id', () => {
    const h = new Harness();
    expect(h.staticJoinGroup({ groupInstanceId: leaderInstanceId, protocols: protocolSuperset }).errorCode).toBe(ErrorCode.NONE);
    expect(h.singleLeaveGroup('', leaderInstanceId).members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.group().hasStaticMember(leaderInstanceId)).toBe(false);
  });

  it('an empty member id without an instance id is UNKNOWN_MEMBER_ID', () => {
    const h = new Harness();
    h.dynamicJoinGroup();
    expect(h.singleLeaveGroup('').members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testStaticMembersValidBatchLeaveGroup', () => {
    const h = new Harness();
    h.staticMembersJoinAndRebalance();
    const r = h.batchLeaveGroup([
      { memberId: '', groupInstanceId: leaderInstanceId },
      { memberId: '', groupInstanceId: followerInstanceId },
    ]);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.members.map((m) => m.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    expect(h.state()).toBe('Empty');
  });

  it('testStaticMembersUnknownGroupBatchLeaveGroup', () => {
    const h = new Harness();
    const r = h.batchLeaveGroup([
      { memberId: '', groupInstanceId: leaderInstanceId },
      { memberId: '', groupInstanceId: followerInstanceId },
    ]);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.members.map((m) => m.errorCode)).toEqual([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID]);
  });

  it('testStaticMembersFencedInstanceBatchLeaveGroup', () => {
    const h = new Harness();
    h.staticMembersJoinAndRebalance();
    const r = h.batchLeaveGroup([
      { memberId: '', groupInstanceId: leaderInstanceId },
      { memberId: 'invalid-member', groupInstanceId: followerInstanceId },
    ]);
    expect(r.members.map((m) => m.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.FENCED_INSTANCE_ID]);
    // The response echoes each identity as sent.
    expect(r.members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([
      ['', leaderInstanceId],
      ['invalid-member', followerInstanceId],
    ]);
  });

  it('testStaticMembersUnknownInstanceBatchLeaveGroup', () => {
    const h = new Harness();
    h.staticMembersJoinAndRebalance();
    const r = h.batchLeaveGroup([
      { memberId: '', groupInstanceId: 'unknown-instance' },
      { memberId: '', groupInstanceId: followerInstanceId },
    ]);
    expect(r.members.map((m) => m.errorCode)).toEqual([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.NONE]);
  });

  it('a leaving leader is replaced by the first remaining member; a Stable group rebalances', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.singleLeaveGroup(rr.leaderId, leaderInstanceId);
    expect(h.group().leaderId).toBe(rr.followerId);
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-removed', removalCause: 'leave', memberId: rr.leaderId });
  });

  it('a leave during PreparingRebalance completes the join phase when everyone left has rejoined', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const leaderJoin = h.sendJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, protocols: protocolSuperset });
    expect(leaderJoin.done).toBe(false);
    h.singleLeaveGroup(rr.followerId);
    expect(leaderJoin.result.errorCode).toBe(ErrorCode.NONE);
    expect(leaderJoin.result.generationId).toBe(2);
    expect(leaderJoin.result.members.map((m) => m.groupInstanceId)).toEqual([leaderInstanceId]);
  });

  it('an admin removal of a member whose JoinGroup is parked answers it UNKNOWN_MEMBER_ID', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    // The follower rejoins with new metadata: a rebalance starts and its join is parked.
    const followerJoin2 = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] });
    expect(h.state()).toBe('PreparingRebalance');
    expect(followerJoin2.done).toBe(false);
    h.batchLeaveGroup([{ memberId: '', groupInstanceId: followerInstanceId, reason: 'member was removed by an admin' }]);
    expect(followerJoin2.result).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: '', generationId: -1 });
    expect(h.eventsOf('member-removed').at(-1)).toMatchObject({
      memberId: rr.followerId,
      groupInstanceId: followerInstanceId,
      cause: 'admin',
      clientReason: 'member was removed by an admin',
    });
  });

  describe('versions', () => {
    it('v0–v2 take a single top-level MemberId and return one error, no member list', () => {
      const h = new Harness();
      const r = h.dynamicJoinGroup();
      expect(h.coordinator.leaveGroup(0, { groupId, memberId: 'nope' })).toEqual({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: [] });
      expect(h.coordinator.leaveGroup(2, { groupId, memberId: r.memberId })).toEqual({ errorCode: ErrorCode.NONE, members: [] });
      expect(h.coordinator.leaveGroup(1, { groupId: '', memberId: 'x' })).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, members: [] });
    });

    it('below v5 the per-member Reason is ignored', () => {
      const h = new Harness();
      const a = h.dynamicJoinGroup();
      h.coordinator.leaveGroup(4, { groupId, members: [{ memberId: a.memberId, reason: 'bye' }] });
      expect(h.eventsOf('member-removed').at(-1)?.clientReason).toBeNull();
      const b = h.dynamicJoinGroup();
      h.coordinator.leaveGroup(5, { groupId, members: [{ memberId: b.memberId, reason: 'bye' }] });
      expect(h.eventsOf('member-removed').at(-1)?.clientReason).toBe('bye');
    });
  });
});
