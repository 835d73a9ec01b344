// SyncGroup, Heartbeat, session expiry and the pending-sync (rebalance) timeout.

import { describe, expect, it } from 'vitest';
import { GroupMember } from '../../../src/broker/group/member.js';
import type { JoinGroupResponse } from '../../../src/broker/group/types.js';
import {
  DefaultRebalanceTimeout,
  DefaultSessionTimeout,
  GroupInitialRebalanceDelay,
  Harness,
  followerInstanceId,
  groupId,
  leaderInstanceId,
  protocolName,
  protocolSuperset,
  protocolType,
  protocols,
} from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

/** One member joined and synced: Stable at generation 1. */
function stableSingleMember(h: Harness, o: { sessionTimeout?: number; rebalanceTimeout?: number } = {}): JoinGroupResponse {
  const r = h.dynamicJoinGroup(o);
  expect(r.errorCode).toBe(ErrorCode.NONE);
  expect(h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
  return r;
}

/** Stable single member, then a second member joins and the first rejoins: CompletingRebalance gen 2. */
function twoMembersCompleting(h: Harness): { leader: JoinGroupResponse; follower: JoinGroupResponse } {
  const first = stableSingleMember(h);
  const other = h.sendJoinGroup();
  const join = h.sendJoinGroup({ memberId: first.memberId });
  expect(join.result.errorCode).toBe(ErrorCode.NONE);
  expect(other.result.errorCode).toBe(ErrorCode.NONE);
  expect(join.result.generationId).toBe(other.result.generationId);
  expect(join.result.leader).toBe(first.memberId);
  expect(other.result.leader).toBe(first.memberId);
  return { leader: join.result, follower: other.result };
}

/** KIP-394 joins of n members completing the initial rebalance (Kafka's joinWithNMembers). */
function joinWithNMembers(h: Harness, n: number): JoinGroupResponse[] {
  const ids = Array.from({ length: n }, () => h.sendJoinGroup({ version: 4 }).result.memberId);
  const futures = ids.map((memberId) => h.sendJoinGroup({ version: 4, memberId }));
  h.advance(GroupInitialRebalanceDelay + 1);
  h.advance(GroupInitialRebalanceDelay + 1);
  return futures.map((f) => f.result);
}

describe('SyncGroup', () => {
  it('testSyncGroupEmptyAssignment', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    const sync = h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(sync.assignment.length).toBe(0);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('testSyncGroupFromUnknownGroup', () => {
    const h = new Harness();
    expect(h.syncGroupFollower({ generationId: 1, memberId: 'memberId' }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testSyncGroupFromUnknownMember', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    expect(h.syncGroupFollower({ generationId: r.generationId, memberId: 'blah' }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testSyncGroupFromIllegalGeneration', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.syncGroupLeader({ generationId: r.generationId + 1, memberId: r.memberId, assignments: {} }).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('testSyncDeadGroup', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId: 'deadGroupId', topics: [] });
    h.group('deadGroupId').transitionTo('Dead', h.now);
    expect(h.syncGroupFollower({ groupId: 'deadGroupId', generationId: 1, memberId: 'memberId' }).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('an empty group id is INVALID_GROUP_ID', () => {
    const h = new Harness();
    expect(h.syncGroupFollower({ groupId: '', generationId: 1, memberId: 'm' }).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('SyncGroup during PreparingRebalance is REBALANCE_IN_PROGRESS', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.sendJoinGroup(); // a new member: PreparingRebalance
    expect(h.syncGroupFollower({ generationId: r.generationId, memberId: r.memberId }).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  describe('protocol type and name (v5)', () => {
    function syncWith(pt: string | null, pn: string | null, version: number) {
      const h = new Harness();
      const leader = h.sendJoinGroup({ protocols: protocolSuperset, groupInstanceId: leaderInstanceId });
      const follower = h.sendJoinGroup({ protocols: protocolSuperset, groupInstanceId: followerInstanceId });
      h.advance(GroupInitialRebalanceDelay + 1);
      h.advance(GroupInitialRebalanceDelay + 1);
      const gen = leader.result.generationId;
      const l = h.syncGroupLeader({
        generationId: gen,
        memberId: leader.result.memberId,
        assignments: { [leader.result.memberId]: Buffer.alloc(0) },
        protocolType: pt,
        protocolName: pn,
        version,
      });
      const f = h.syncGroupFollower({ generationId: gen, memberId: follower.result.memberId, protocolType: pt, protocolName: pn, version });
      return { l, f };
    }

    it('testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent', () => {
      const { l, f } = syncWith('whatever', protocolName, 5);
      for (const r of [l, f]) expect(r).toMatchObject({ errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, protocolType: null, protocolName: null });
    });

    it('testSyncGroupReturnsAnErrorWhenProtocolNameIsInconsistent', () => {
      const { l, f } = syncWith(protocolType, 'whatever', 5);
      for (const r of [l, f]) expect(r).toMatchObject({ errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, protocolType: null, protocolName: null });
    });

    it('testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided (below v5)', () => {
      const { l, f } = syncWith(null, null, 4);
      for (const r of [l, f]) expect(r).toMatchObject({ errorCode: ErrorCode.NONE, protocolType, protocolName });
    });

    it('testSyncGroupSucceedWhenProtocolTypeAndNameAreConsistent', () => {
      const { l, f } = syncWith(protocolType, protocolName, 5);
      for (const r of [l, f]) expect(r).toMatchObject({ errorCode: ErrorCode.NONE, protocolType, protocolName });
    });

    it('from v5 a null protocol type or name is INCONSISTENT_GROUP_PROTOCOL before anything else', () => {
      const h = new Harness();
      expect(h.syncGroupFollower({ groupId: '', generationId: 1, memberId: 'm', protocolType, protocolName: null, version: 5 }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(h.syncGroupFollower({ generationId: 1, memberId: 'm', protocolType: null, protocolName, version: 5 }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    });

    it('below v5 the protocol fields are ignored even if set', () => {
      const { l, f } = syncWith('whatever', 'whatever', 4);
      expect(l.errorCode).toBe(ErrorCode.NONE);
      expect(f.errorCode).toBe(ErrorCode.NONE);
    });
  });

  it('testSyncGroupFollowerAfterLeader', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const gen = leader.generationId;
    const leaderSync = h.syncGroupLeader({
      generationId: gen,
      memberId: leader.memberId,
      assignments: { [leader.memberId]: Buffer.from([0]), [follower.memberId]: Buffer.from([1]) },
    });
    expect(leaderSync.errorCode).toBe(ErrorCode.NONE);
    expect(leaderSync.assignment).toEqual(Buffer.from([0]));
    expect(h.state()).toBe('Stable');
    const followerSync = h.syncGroupFollower({ generationId: gen, memberId: follower.memberId });
    expect(followerSync.errorCode).toBe(ErrorCode.NONE);
    expect(followerSync.assignment).toEqual(Buffer.from([1]));
  });

  it('testSyncGroupLeaderAfterFollower: a follower sync is parked until the leader syncs', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const gen = leader.generationId;
    const followerSync = h.sendSyncGroup({ generationId: gen, memberId: follower.memberId, assignments: { [follower.memberId]: Buffer.from([9]) } });
    expect(followerSync.done).toBe(false);
    const leaderSync = h.syncGroupLeader({
      generationId: gen,
      memberId: leader.memberId,
      assignments: { [leader.memberId]: Buffer.from([0]), [follower.memberId]: Buffer.from([1]) },
    });
    expect(leaderSync.assignment).toEqual(Buffer.from([0]));
    // A follower's own Assignments field is ignored.
    expect(followerSync.result).toEqual({ errorCode: ErrorCode.NONE, protocolType, protocolName, assignment: Buffer.from([1]) });
  });

  it('members the leader leaves out get an empty assignment; unknown ids are ignored', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const followerSync = h.sendSyncGroup({ generationId: leader.generationId, memberId: follower.memberId });
    h.syncGroupLeader({ generationId: leader.generationId, memberId: leader.memberId, assignments: { [leader.memberId]: Buffer.from([5]), ghost: Buffer.from([6]) } });
    expect(followerSync.result.assignment.length).toBe(0);
    expect(h.group().get(leader.memberId).assignment).toEqual(Buffer.from([5]));
  });

  it('testLeaderFailureInSyncGroup: a parked follower sync is told to rejoin when the leader expires', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const followerSync = h.sendSyncGroup({ generationId: leader.generationId, memberId: follower.memberId });
    h.advance(DefaultSessionTimeout + 100);
    expect(followerSync.result.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(h.group().has(leader.memberId)).toBe(false);
  });

  it('a failed write of the assignment answers every parked sync with the mapped error and rebalances', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const followerSync = h.sendSyncGroup({ generationId: leader.generationId, memberId: follower.memberId });
    h.groupAppendError = ErrorCode.NOT_ENOUGH_REPLICAS;
    const leaderSync = h.syncGroupLeader({ generationId: leader.generationId, memberId: leader.memberId, assignments: { [follower.memberId]: Buffer.from([1]) } });
    expect(leaderSync).toEqual({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) });
    expect(followerSync.result.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)?.trigger).toBe('assignment-store-failed');
  });

  it('a second SyncGroup from the same member supersedes the parked one, which Kafka never answers', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    const first = h.sendSyncGroup({ generationId: leader.generationId, memberId: follower.memberId });
    const second = h.sendSyncGroup({ generationId: leader.generationId, memberId: follower.memberId });
    h.syncGroupLeader({ generationId: leader.generationId, memberId: leader.memberId, assignments: {} });
    expect(first.done).toBe(false);
    expect(second.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.eventsOf('callback-dropped')).toMatchObject([{ memberId: follower.memberId, api: 'SyncGroup' }]);
  });
});

describe('pending sync expiry (the rebalance timeout after the join phase)', () => {
  it('testRebalanceTimesOutWhenSyncRequestIsNotReceived', () => {
    const h = new Harness();
    const results = joinWithNMembers(h, 3);
    expect(new Set(results.map((r) => r.errorCode))).toEqual(new Set([ErrorCode.NONE]));
    h.advance(DefaultRebalanceTimeout / 2);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    h.advance(DefaultRebalanceTimeout / 2 + 1);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.eventsOf('member-removed').map((e) => e.cause)).toEqual(['sync-timeout', 'sync-timeout', 'sync-timeout']);
    expect(h.state()).toBe('Empty');
  });

  it('testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers', () => {
    const h = new Harness();
    const results = joinWithNMembers(h, 3);
    h.advance(DefaultRebalanceTimeout / 2);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    const [leader, ...followers] = results;
    expect(leader!.leader).toBe(leader!.memberId);
    const leaderSync = h.sendSyncGroup({
      generationId: leader!.generationId,
      memberId: leader!.memberId,
      protocolType,
      protocolName,
      version: 5,
      assignments: Object.fromEntries(results.map((r) => [r.memberId, Buffer.alloc(0)])),
    });
    expect(leaderSync.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.heartbeat(leader!.memberId, leader!.generationId)).toBe(ErrorCode.NONE);
    h.advance(DefaultRebalanceTimeout / 2 + 1);
    expect(h.heartbeat(leader!.memberId, leader!.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    for (const f of followers) expect(h.heartbeat(f.memberId, f.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders', () => {
    const h = new Harness();
    const results = joinWithNMembers(h, 3);
    h.advance(DefaultRebalanceTimeout / 2);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    const [leader, ...followers] = results;
    const followerSyncs = followers.map((f) =>
      h.sendSyncGroup({ generationId: f.generationId, memberId: f.memberId, protocolType, protocolName, version: 5 }),
    );
    h.advance(DefaultRebalanceTimeout / 2 + 1);
    expect(new Set(followerSyncs.map((s) => s.result.errorCode))).toEqual(new Set([ErrorCode.REBALANCE_IN_PROGRESS]));
    expect(h.heartbeat(leader!.memberId, leader!.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    for (const f of followers) expect(h.heartbeat(f.memberId, f.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('testRebalanceDoesNotTimeOutWhenAllSyncAreReceived', () => {
    const h = new Harness();
    const results = joinWithNMembers(h, 3);
    h.advance(DefaultRebalanceTimeout / 2);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    const [leader, ...followers] = results;
    expect(
      h.syncGroupLeader({
        generationId: leader!.generationId,
        memberId: leader!.memberId,
        assignments: Object.fromEntries(results.map((r) => [r.memberId, Buffer.alloc(0)])),
      }).errorCode,
    ).toBe(ErrorCode.NONE);
    for (const f of followers) expect(h.syncGroupFollower({ generationId: f.generationId, memberId: f.memberId }).errorCode).toBe(ErrorCode.NONE);
    expect(h.group().syncExpiration).toBeNull();
    h.advance(DefaultRebalanceTimeout / 2 + 1);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    h.advance(DefaultRebalanceTimeout / 2);
    for (const r of results) expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
  });
});

describe('Heartbeat', () => {
  it('testHeartbeatUnknownGroup', () => {
    const h = new Harness();
    expect(h.heartbeat('memberId', -1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('an empty group id is INVALID_GROUP_ID', () => {
    const h = new Harness();
    expect(h.heartbeat('memberId', -1, null, '')).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('testHeartbeatDeadGroup', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId: 'deadGroupId', topics: [] });
    h.group('deadGroupId').transitionTo('Dead', h.now);
    expect(h.heartbeat('memberId', 1, null, 'deadGroupId')).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('testHeartbeatEmptyGroup', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId, topics: [] }); // an Empty group
    h.group().add(
      new GroupMember({
        memberId: 'memberId',
        groupInstanceId: 'groupInstanceId',
        clientId: 'c',
        clientHost: 'h',
        rebalanceTimeoutMs: DefaultRebalanceTimeout,
        sessionTimeoutMs: DefaultSessionTimeout,
        protocolType,
        protocols: protocolSuperset,
      }),
      null,
    );
    expect(h.heartbeat('memberId', 0)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testHeartbeatUnknownConsumerExistingGroup', () => {
    const h = new Harness();
    stableSingleMember(h);
    expect(h.heartbeat('memberId', 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testHeartbeatRebalanceInProgress: CompletingRebalance answers NONE', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('testHeartbeatIllegalGeneration', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    expect(h.heartbeat(r.memberId, 2)).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('testValidHeartbeat', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('testHeartbeatDuringRebalanceCausesRebalanceInProgress', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    h.sendJoinGroup();
    expect(h.heartbeat(r.memberId, r.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('GroupInstanceId is ignored below Heartbeat v3', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    expect(h.coordinator.heartbeat(2, { groupId, memberId: r.memberId, generationId: 1, groupInstanceId: 'bogus' }).errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.heartbeat(3, { groupId, memberId: r.memberId, generationId: 1, groupInstanceId: 'bogus' }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('session timeout', () => {
  it('testSessionTimeout: no heartbeat for the session timeout removes the member', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.advance(DefaultSessionTimeout - 1);
    expect(h.group().has(r.memberId)).toBe(true);
    h.advance(1);
    expect(h.group().has(r.memberId)).toBe(false);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.state()).toBe('Empty');
    expect(h.group().generationId).toBe(2);
  });

  it('testHeartbeatMaintainsSession', () => {
    const h = new Harness();
    const sessionTimeout = 1000;
    const r = stableSingleMember(h, { sessionTimeout, rebalanceTimeout: sessionTimeout });
    h.advance(sessionTimeout / 2);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
    h.advance(sessionTimeout / 2 + 100);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('testCommitMaintainsSession', () => {
    const h = new Harness();
    const sessionTimeout = 1000;
    const r = stableSingleMember(h, { sessionTimeout, rebalanceTimeout: sessionTimeout });
    h.advance(sessionTimeout / 2);
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    h.advance(sessionTimeout / 2 + 100);
    expect(h.heartbeat(r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('testSessionTimeoutDuringRebalance', () => {
    const h = new Harness();
    const first = stableSingleMember(h, { rebalanceTimeout: 2000, sessionTimeout: 1000 });
    const other = h.sendJoinGroup();
    h.advance(500);
    expect(h.heartbeat(first.memberId, first.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    h.advance(1100);
    expect(h.heartbeat(first.memberId, first.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(other.result.errorCode).toBe(ErrorCode.NONE);
    expect(other.result.generationId).toBe(2);
  });

  it('a heartbeat while parked in JoinGroup leaves the member without a session deadline (3.9 quirk)', () => {
    const h = new Harness();
    const { leader, follower } = twoMembersCompleting(h);
    h.syncGroupLeader({ generationId: leader.generationId, memberId: leader.memberId, assignments: {} });
    h.syncGroupFollower({ generationId: leader.generationId, memberId: follower.memberId });
    h.sendJoinGroup({ memberId: leader.memberId }); // leader rejoins: PreparingRebalance
    expect(h.group().get(leader.memberId).heartbeatTimer).not.toBeNull();
    expect(h.heartbeat(leader.memberId, leader.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(h.group().get(leader.memberId).heartbeatTimer).toBeNull();
    // The follower keeps heartbeating but never rejoins: dropped at the rebalance timeout.
    h.advance(DefaultRebalanceTimeout / 2);
    expect(h.heartbeat(follower.memberId, follower.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    h.advance(DefaultRebalanceTimeout / 2);
    expect(h.group().memberIds()).toEqual([leader.memberId]);
    expect(h.group().get(leader.memberId).heartbeatTimer).not.toBeNull();
    expect(h.eventsOf('member-removed').at(-1)).toMatchObject({ memberId: follower.memberId, cause: 'rebalance-timeout' });
  });

  it('testCompleteHeartbeatWithGroupDead: deadlines of a Dead group remove nobody', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.group().transitionTo('Dead', h.now);
    h.advance(DefaultSessionTimeout * 3);
    expect(h.group().has(rr.leaderId)).toBe(true);
    expect(h.eventsOf('member-removed')).toEqual([]);
  });

  it('static members use their session timeout too (no separate static timeout)', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.advance(DefaultSessionTimeout - 1);
    expect(h.heartbeat(rr.leaderId, 1, leaderInstanceId)).toBe(ErrorCode.NONE);
    h.advance(1);
    expect(h.group().hasStaticMember(followerInstanceId)).toBe(false);
    expect(h.heartbeat(rr.leaderId, 1, leaderInstanceId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('joining with the same member id and different timeouts updates them', () => {
    const h = new Harness();
    const r = stableSingleMember(h);
    h.sendJoinGroup({ memberId: r.memberId, sessionTimeout: 2000, rebalanceTimeout: 3000, protocols });
    const m = h.group().get(r.memberId);
    expect(m.sessionTimeoutMs).toBe(2000);
    expect(m.rebalanceTimeoutMs).toBe(3000);
  });
});

