// Static membership (KIP-345, KAFKA-8500, KAFKA-9801, KAFKA-10284, KIP-814). Names follow Kafka
// 3.9's GroupCoordinatorTest; `staticMembersJoinAndRebalance` leaves a Stable generation-1 group with
// static leader "leader" and follower "follower".

import { describe, expect, it } from 'vitest';
import {
  DefaultRebalanceTimeout,
  DefaultSessionTimeout,
  GroupInitialRebalanceDelay,
  Harness,
  checkJoinGroupResult,
  followerInstanceId,
  invalidMemberId,
  leaderInstanceId,
  metadata,
  protocolName,
  protocolSuperset,
  protocolType,
  protocols,
} from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

describe('static member rejoins', () => {
  it('staticMemberReJoinWithExplicitUnknownMemberId: a made-up member id with a known instance is fenced', () => {
    const h = new Harness();
    expect(h.staticJoinGroup({ groupInstanceId: 'groupInstanceId' }).errorCode).toBe(ErrorCode.NONE);
    expect(h.staticJoinGroup({ groupInstanceId: 'groupInstanceId', memberId: 'unknown_member' }).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.eventsOf('member-fenced')).toMatchObject([{ memberId: 'unknown_member', groupInstanceId: 'groupInstanceId', operation: 'JoinGroup' }]);
  });

  it('staticMemberRejoinWithKnownMemberId: same metadata during CompletingRebalance is answered at once', () => {
    const h = new Harness();
    const first = h.staticJoinGroup({ groupInstanceId: 'groupInstanceId' });
    expect(first.errorCode).toBe(ErrorCode.NONE);
    const rejoin = h.sendJoinGroup({ memberId: first.memberId, groupInstanceId: 'groupInstanceId' });
    expect(rejoin.result.errorCode).toBe(ErrorCode.NONE);
    expect(rejoin.result.generationId).toBe(1);
    expect(rejoin.result.members).toHaveLength(1); // it is the leader
    expect(h.state()).toBe('CompletingRebalance');
    const sync = h.syncGroupLeader({
      generationId: 1,
      memberId: first.memberId,
      protocolType,
      protocolName,
      groupInstanceId: 'groupInstanceId',
      version: 5,
      assignments: { [first.memberId]: Buffer.alloc(0) },
    });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Stable');
  });

  for (const supportSkippingAssignment of [true, false]) {
    it(`staticMemberRejoinWithLeaderIdAndUnknownMemberId(supportSkippingAssignment=${supportSkippingAssignment})`, () => {
      const h = new Harness();
      const rr = h.staticMembersJoinAndRebalance();
      const join = h.sendJoinGroup({
        groupInstanceId: leaderInstanceId,
        protocols: protocolSuperset,
        version: supportSkippingAssignment ? 9 : 8,
      });
      h.advance(1);
      const r = join.result;
      checkJoinGroupResult(h, r, {
        error: ErrorCode.NONE,
        generation: rr.generation,
        instanceIds: supportSkippingAssignment ? [leaderInstanceId, followerInstanceId] : [],
        state: 'Stable',
        protocolType,
        // v9: the new id is told it leads (and must skip the assignor); below v9 the old leader id
        // is returned so the rejoined leader behaves as a follower.
        leaderId: supportSkippingAssignment ? r.memberId : rr.leaderId,
        skipAssignment: supportSkippingAssignment,
      });
      expect(r.memberId).not.toBe(rr.leaderId);
      expect(r.memberId.startsWith(`${leaderInstanceId}-`)).toBe(true);
      expect(h.group().leaderId).toBe(r.memberId);

      const oldLeaderJoin = h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, protocols: protocolSuperset, clockAdvance: 1 });
      expect(oldLeaderJoin.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
      const oldLeaderSync = h.syncGroupLeader({ generationId: rr.generation, memberId: rr.leaderId, groupInstanceId: leaderInstanceId });
      expect(oldLeaderSync.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
      const oldIdSync = h.syncGroupLeader({ generationId: rr.generation, memberId: rr.leaderId });
      expect(oldIdSync.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    });
  }

  it('staticMemberRejoinWithLeaderIdAndKnownMemberId: the leader rejoining with its id rebalances', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance(leaderInstanceId, followerInstanceId, DefaultRebalanceTimeout / 2);
    const r = h.staticJoinGroup({
      memberId: rr.leaderId,
      groupInstanceId: leaderInstanceId,
      protocols: protocolSuperset,
      clockAdvance: DefaultRebalanceTimeout + 1,
    });
    // The follower's session expired meanwhile.
    expect(h.group().hasStaticMember(followerInstanceId)).toBe(false);
    checkJoinGroupResult(h, r, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.leaderId,
    });
  });

  it('staticMemberRejoinWithLeaderIdAndUnexpectedDeadGroup', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.group().transitionTo('Dead', h.now);
    const r = h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, clockAdvance: 1 });
    expect(r.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('staticMemberRejoinWithLeaderIdAndUnexpectedEmptyGroup', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.group().transitionTo('PreparingRebalance', h.now);
    h.group().transitionTo('Empty', h.now);
    const r = h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, clockAdvance: 1 });
    expect(r.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('staticMemberReJoinWithIllegalStateAsUnknownMember: UNKNOWN_SERVER_ERROR and an internal-error event', () => {
    const h = new Harness();
    h.staticMembersJoinAndRebalance();
    h.group().transitionTo('PreparingRebalance', h.now);
    h.group().transitionTo('Empty', h.now);
    const r = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 });
    expect(r.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    const [err] = h.eventsOf('internal-error');
    expect(err?.message).toContain('groupId');
    expect(err?.message).toContain(followerInstanceId);
  });

  it('staticMemberRejoinWithFollowerIdAndChangeOfProtocol: the follower becomes leader when the leader does not rejoin', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance(leaderInstanceId, followerInstanceId, DefaultSessionTimeout * 2);
    const r = h.staticJoinGroup({
      memberId: rr.followerId,
      groupInstanceId: followerInstanceId,
      protocols: [{ name: 'roundrobin', metadata }],
      clockAdvance: DefaultSessionTimeout + 1,
    });
    expect(r.memberId).toBe(rr.followerId);
    expect(h.group().hasStaticMember(leaderInstanceId)).toBe(true);
    expect(h.group().isLeader(rr.followerId)).toBe(true);
    checkJoinGroupResult(h, r, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.followerId,
      memberId: rr.followerId,
    });
    expect(r.protocolName).toBe('roundrobin');
  });

  it('staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.group().selectProtocol()).toBe('range');
    const join = h.sendJoinGroup({ groupInstanceId: followerInstanceId, protocols: [{ name: 'roundrobin', metadata }] });
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)?.trigger).toBe('static-member-protocol-changed');
    // Kafka's test relies on its MockTimer firing the join before the leader's equal session
    // deadline; here the leader heartbeats once so the outcome does not hinge on a timer tie.
    h.advance(DefaultSessionTimeout / 2);
    expect(h.heartbeat(rr.leaderId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    h.advance(DefaultSessionTimeout / 2 + 1);
    const r = join.result;
    checkJoinGroupResult(h, r, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
    });
    expect(h.group().isLeader(r.memberId)).toBe(true);
    expect(r.memberId).not.toBe(rr.followerId);
    expect(r.protocolName).toBe('roundrobin');
  });

  it('staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const newProtocols = [{ name: h.group().selectProtocol(), metadata }];
    const r = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: newProtocols, clockAdvance: 1 });
    checkJoinGroupResult(h, r, { error: ErrorCode.NONE, generation: rr.generation, instanceIds: [], state: 'Stable', protocolType });
    expect(r.memberId).not.toBe(rr.followerId);
    expect(r.leader).toBe(rr.leaderId);

    const oldJoin = h.staticJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: newProtocols, clockAdvance: 1 });
    expect(oldJoin.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.syncGroupFollower({ generationId: rr.generation, memberId: rr.followerId, groupInstanceId: followerInstanceId }).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const sync = h.syncGroupFollower({ generationId: rr.generation, memberId: r.memberId, groupInstanceId: followerInstanceId });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(sync.assignment).toEqual(rr.followerAssignment);
  });

  it('staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchangedPersistenceFailure', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const newProtocols = [{ name: h.group().selectProtocol(), metadata }];
    h.groupAppendError = ErrorCode.MESSAGE_TOO_LARGE;
    const r = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: newProtocols, clockAdvance: 1 });
    h.groupAppendError = ErrorCode.NONE;
    checkJoinGroupResult(h, r, { error: ErrorCode.UNKNOWN_SERVER_ERROR, generation: rr.generation, instanceIds: [], state: 'Stable', protocolType });
    expect(r.memberId).toBe('');
    expect(r.leader).toBe(rr.leaderId);
    // The old id keeps working. It joins with the *new* protocols and is not rebalanced: Kafka 3.9
    // rolls back the timeouts but keeps the new protocols (see coordinator.ts).
    const oldJoin = h.staticJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: newProtocols, clockAdvance: 1 });
    expect(oldJoin.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Stable');
    expect(h.syncGroupFollower({ generationId: rr.generation, memberId: rr.followerId, groupInstanceId: followerInstanceId }).errorCode).toBe(ErrorCode.NONE);
  });

  it('a failed persist is mapped like 3.9 storeGroup (REQUEST_TIMED_OUT -> REBALANCE_IN_PROGRESS)', () => {
    const h = new Harness();
    h.staticMembersJoinAndRebalance();
    h.groupAppendError = ErrorCode.REQUEST_TIMED_OUT;
    const r = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 });
    expect(r.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    h.groupAppendError = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    expect(h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 }).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    h.groupAppendError = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    expect(h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 }).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('staticMemberRejoinWithUpdatedSessionAndRebalanceTimeoutsButCannotPersistChange', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.groupAppendError = ErrorCode.MESSAGE_TOO_LARGE;
    const r = h.staticJoinGroup({
      groupInstanceId: followerInstanceId,
      protocols: protocolSuperset,
      clockAdvance: 1,
      sessionTimeout: 2 * DefaultSessionTimeout,
      rebalanceTimeout: 2 * DefaultRebalanceTimeout,
    });
    checkJoinGroupResult(h, r, { error: ErrorCode.UNKNOWN_SERVER_ERROR, generation: rr.generation, instanceIds: [], state: 'Stable', protocolType });
    for (const m of h.group().allMembers()) {
      expect(m.sessionTimeoutMs).toBe(DefaultSessionTimeout);
      expect(m.rebalanceTimeoutMs).toBe(DefaultRebalanceTimeout);
    }
    expect(h.group().currentStaticMemberId(followerInstanceId)).toBe(rr.followerId);
  });

  it('staticMemberRejoinWithUpdatedSessionAndRebalanceTimeoutsAndPersistChange', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const timeouts = { sessionTimeout: 2 * DefaultSessionTimeout, rebalanceTimeout: 2 * DefaultRebalanceTimeout };
    const follower = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1, ...timeouts });
    checkJoinGroupResult(h, follower, { error: ErrorCode.NONE, generation: rr.generation, instanceIds: [], state: 'Stable', protocolType });
    const leader = h.staticJoinGroup({ groupInstanceId: leaderInstanceId, protocols: protocolSuperset, clockAdvance: 1, ...timeouts });
    checkJoinGroupResult(h, leader, {
      error: ErrorCode.NONE,
      generation: rr.generation,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'Stable',
      protocolType,
      leaderId: leader.memberId,
      memberId: leader.memberId,
      skipAssignment: true,
    });
    for (const m of h.group().allMembers()) {
      expect(m.sessionTimeoutMs).toBe(2 * DefaultSessionTimeout);
      expect(m.rebalanceTimeoutMs).toBe(2 * DefaultRebalanceTimeout);
    }
  });

  it('staticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeofProtocol', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const leaderRejoin = h.sendJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, protocols: protocolSuperset });
    const followerRejoin = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: protocolSuperset });
    h.advance(1);
    checkJoinGroupResult(h, leaderRejoin.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.leaderId,
    });
    checkJoinGroupResult(h, followerRejoin.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.followerId,
    });
    const changed = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols });
    expect(h.state()).toBe('PreparingRebalance');
    h.advance(DefaultRebalanceTimeout + 1);
    checkJoinGroupResult(h, changed.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 2,
      instanceIds: [followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.followerId,
      memberId: rr.followerId,
    });
  });

  it('staticMemberRejoinAsFollowerWithUnknownMemberId: a new id, same generation, same assignment', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const r = h.staticJoinGroup({ groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 });
    expect(h.group().hasStaticMember(leaderInstanceId)).toBe(true);
    checkJoinGroupResult(h, r, { error: ErrorCode.NONE, generation: rr.generation, instanceIds: [], state: 'Stable', protocolType });
    expect(r.memberId).not.toBe(rr.followerId);
    const sync = h.syncGroupFollower({ generationId: rr.generation, memberId: r.memberId });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(sync.assignment).toEqual(rr.followerAssignment);
    expect(h.eventsOf('member-replaced')).toMatchObject([{ groupInstanceId: followerInstanceId, oldMemberId: rr.followerId, newMemberId: r.memberId }]);
    expect(h.eventsOf('rebalance-started')).toHaveLength(1); // only the initial one
  });

  it('staticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const r = h.staticJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 });
    expect(h.group().hasStaticMember(leaderInstanceId)).toBe(true);
    checkJoinGroupResult(h, r, {
      error: ErrorCode.NONE,
      generation: rr.generation,
      instanceIds: [],
      state: 'Stable',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.followerId,
    });
  });

  it('staticMemberRejoinAsFollowerWithMismatchedMemberId / staticMemberRejoinAsLeaderWithMismatchedMemberId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.staticJoinGroup({ memberId: rr.followerId, groupInstanceId: leaderInstanceId, protocols: protocolSuperset, clockAdvance: 1 }).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: 1 }).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('staticMemberJoinWithUnknownInstanceIdAndKnownMemberId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: 'unknown_instance', protocols: protocolSuperset, clockAdvance: 1 }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('shouldGetDifferentStaticMemberIdAfterEachRejoin', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    let last = rr.leaderId;
    for (let i = 0; i < 5; i++) {
      const r = h.staticJoinGroup({ groupInstanceId: leaderInstanceId, protocols, clockAdvance: 1 });
      expect(r.errorCode).toBe(ErrorCode.NONE);
      expect(r.memberId.startsWith(leaderInstanceId)).toBe(true);
      expect(r.memberId).not.toBe(last);
      last = r.memberId;
    }
  });
});

describe('fencing of duplicate static members', () => {
  it('staticMemberFenceDuplicateRejoinedFollower: the parked join of the old id is fenced at once', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.sendJoinGroup(); // a third member triggers a rebalance
    h.advance(1);
    expect(h.state()).toBe('PreparingRebalance');
    h.advance(1);
    const oldFollower = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId });
    h.advance(1);
    const duplicate = h.sendJoinGroup({ groupInstanceId: followerInstanceId });
    h.advance(1);
    checkJoinGroupResult(h, oldFollower.result, {
      error: ErrorCode.FENCED_INSTANCE_ID,
      generation: -1,
      instanceIds: [],
      state: 'PreparingRebalance',
      protocolType: null,
    });
    expect(duplicate.done).toBe(false);
    expect(h.eventsOf('member-fenced')).toMatchObject([{ memberId: rr.followerId, operation: 'JoinGroup' }]);
  });

  it('staticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged: the parked sync is fenced and the group rebalances (KAFKA-9801)', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const leaderJoin = h.sendJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId });
    h.advance(1);
    expect(h.state()).toBe('PreparingRebalance');
    h.advance(1);
    const oldFollowerJoin = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId });
    h.advance(1);
    checkJoinGroupResult(h, leaderJoin.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.leaderId,
    });
    checkJoinGroupResult(h, oldFollowerJoin.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.followerId,
    });

    const oldFollowerSync = h.sendSyncGroup({
      generationId: oldFollowerJoin.result.generationId,
      memberId: rr.followerId,
      protocolType,
      protocolName,
      groupInstanceId: followerInstanceId,
      version: 5,
    });
    const duplicate = h.sendJoinGroup({ groupInstanceId: followerInstanceId });
    h.advance(1);
    expect(oldFollowerSync.result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)?.trigger).toBe('static-member-replaced');

    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(DefaultRebalanceTimeout + 1);
    checkJoinGroupResult(h, duplicate.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 2,
      instanceIds: [followerInstanceId], // the new leader; the old leader's session expired
      state: 'CompletingRebalance',
      protocolType,
      leaderId: duplicate.result.memberId,
    });
  });

  it('staticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    const leaderJoin = h.sendJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId });
    h.advance(1);
    expect(h.state()).toBe('PreparingRebalance');
    const duplicate = h.sendJoinGroup({ groupInstanceId: followerInstanceId });
    h.advance(1);
    const oldFollower = h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId });
    checkJoinGroupResult(h, leaderJoin.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId],
      state: 'CompletingRebalance',
      protocolType,
    });
    checkJoinGroupResult(h, duplicate.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType,
    });
    expect(duplicate.result.memberId).not.toBe(rr.followerId);
    checkJoinGroupResult(h, oldFollower.result, {
      error: ErrorCode.FENCED_INSTANCE_ID,
      generation: -1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType: null,
    });
  });

  it('staticMemberSyncAsLeaderWithInvalidMemberId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.syncGroupLeader({ generationId: rr.generation, memberId: 'invalid', groupInstanceId: leaderInstanceId }).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('staticMemberHeartbeatLeaderWithInvalidMemberId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.syncGroupLeader({ generationId: rr.generation, memberId: rr.leaderId }).errorCode).toBe(ErrorCode.NONE);
    expect(h.heartbeat(rr.leaderId, rr.generation)).toBe(ErrorCode.NONE);
    expect(h.heartbeat(invalidMemberId, rr.generation, leaderInstanceId)).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('staticMemberCommitOffsetWithInvalidMemberId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(h.syncGroupLeader({ generationId: rr.generation, memberId: rr.leaderId }).errorCode).toBe(ErrorCode.NONE);
    expect(h.commitOne(rr.leaderId, rr.generation)).toBe(ErrorCode.NONE);
    expect(h.commitOne(invalidMemberId, rr.generation, leaderInstanceId)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.eventsOf('member-fenced').at(-1)).toMatchObject({ memberId: invalidMemberId, operation: 'OffsetCommit' });
  });
});

describe('static members and the rebalance timeout (KAFKA-8220)', () => {
  /** A dynamic member joins (gen 2, it leads), the static follower leaves, the dynamic member is
   *  dropped at the rebalance timeout: only the static leader remains, stuck in PreparingRebalance. */
  function groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember(h: Harness) {
    const longSessionTimeout = DefaultSessionTimeout * 2;
    const rr = h.staticMembersJoinAndRebalance(leaderInstanceId, followerInstanceId, longSessionTimeout);
    const dynamicJoin = h.sendJoinGroup({ protocols: protocolSuperset, sessionTimeout: longSessionTimeout });
    h.advance(DefaultRebalanceTimeout + 1);
    const d = dynamicJoin.result;
    expect(d.leader).toBe(d.memberId);
    expect(d.errorCode).toBe(ErrorCode.NONE);
    expect(d.members).toHaveLength(3);
    expect(d.generationId).toBe(2);
    expect(h.state()).toBe('CompletingRebalance');
    expect(new Set(h.group().memberIds())).toEqual(new Set([rr.leaderId, rr.followerId, d.memberId]));
    expect(new Set(h.group().staticInstanceIds())).toEqual(new Set([leaderInstanceId, followerInstanceId]));

    const leave = h.singleLeaveGroup(rr.followerId);
    expect(leave.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('PreparingRebalance');

    h.advance(DefaultRebalanceTimeout + 1);
    expect(h.group().memberIds()).toEqual([rr.leaderId]);
    expect(h.group().generationId).toBe(2);
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('join-phase-extended').at(-1)?.reason).toBe('no-member-rejoined');
    return rr;
  }

  it('testLeaderFailToRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout', () => {
    const h = new Harness();
    groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember(h);
    h.advance(DefaultRebalanceTimeout + 1);
    expect(h.group().size).toBe(0);
    expect(h.group().leaderId).toBeNull();
    expect(h.group().generationId).toBe(3);
    expect(h.state()).toBe('Empty');
  });

  it('testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout', () => {
    const h = new Harness();
    groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember(h);
    const r = h.staticJoinGroup({ groupInstanceId: leaderInstanceId });
    checkJoinGroupResult(h, r, {
      error: ErrorCode.NONE,
      generation: 3,
      instanceIds: [leaderInstanceId],
      state: 'CompletingRebalance',
      protocolType,
    });
    expect(h.group().memberIds()).toEqual([r.memberId]);
    expect(h.group().leaderId).not.toBeNull();
    expect(h.group().generationId).toBe(3);
  });

  it('testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout: the static follower stays in the group', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance(leaderInstanceId, followerInstanceId, DefaultRebalanceTimeout * 2);
    const newMember = h.sendJoinGroup({ protocols: protocolSuperset, groupInstanceId: 'newMember' });
    expect(h.state()).toBe('PreparingRebalance');
    const leader = h.staticJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, protocols: protocolSuperset, clockAdvance: DefaultRebalanceTimeout + 1 });
    checkJoinGroupResult(h, leader, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId, 'newMember'],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
      memberId: rr.leaderId,
    });
    checkJoinGroupResult(h, newMember.result, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: rr.leaderId,
    });
  });

  it('testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout: a rejoined member is elected leader', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance(leaderInstanceId, followerInstanceId, DefaultRebalanceTimeout * 2);
    const newMember = h.sendJoinGroup({ protocols: protocolSuperset, groupInstanceId: 'newMember' });
    h.advance(1);
    expect(h.state()).toBe('PreparingRebalance');
    const follower = h.staticJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: protocolSuperset, clockAdvance: DefaultRebalanceTimeout + 1 });
    const [newLeader, newFollower] =
      follower.leader === follower.memberId ? [follower, newMember.result] : [newMember.result, follower];
    checkJoinGroupResult(h, newLeader, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [leaderInstanceId, followerInstanceId, 'newMember'],
      state: 'CompletingRebalance',
      protocolType,
    });
    checkJoinGroupResult(h, newFollower, {
      error: ErrorCode.NONE,
      generation: rr.generation + 1,
      instanceIds: [],
      state: 'CompletingRebalance',
      protocolType,
      leaderId: newLeader.memberId,
    });
    expect(newLeader.memberId).not.toBe(rr.leaderId);
  });

  it('testRebalanceCompletesBeforeMemberJoins: an unjoined static member stays until its session expires', () => {
    const h = new Harness();
    const first = h.staticJoinGroup({ groupInstanceId: leaderInstanceId, rebalanceTimeout: 1200, sessionTimeout: 1000 });
    expect(first.leader).toBe(first.memberId);
    expect(h.syncGroupLeader({ generationId: first.generationId, memberId: first.memberId, assignments: { [first.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    const t0 = h.now;
    const other = h.sendJoinGroup(); // dynamic, session 500; the group's rebalance timeout is 1200
    for (let i = 0; i < 2; i++) {
      h.advance(500);
      expect(h.heartbeat(first.memberId, first.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    }
    h.advance(500); // the join phase completed at t0 + 1200 without the static member
    const o = other.result;
    expect(o.errorCode).toBe(ErrorCode.NONE);
    expect(o.generationId).toBe(2);
    expect(h.syncGroupLeader({ generationId: o.generationId, memberId: o.memberId, assignments: { [o.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    expect(h.heartbeat(first.memberId, first.generationId)).toBe(ErrorCode.ILLEGAL_GENERATION);

    // The static member's session was restarted when the join phase completed (t0 + 1200).
    h.advance(300);
    expect(h.heartbeat(o.memberId, o.generationId)).toBe(ErrorCode.NONE);
    h.advance(t0 + 2199 - h.now);
    expect(h.heartbeat(o.memberId, o.generationId)).toBe(ErrorCode.NONE);
    h.advance(2);
    expect(h.eventsOf('member-removed').at(-1)).toMatchObject({ memberId: first.memberId, cause: 'session-timeout' });
    expect(h.heartbeat(o.memberId, o.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);

    const rejoin = h.sendJoinGroup({ memberId: o.memberId }).result;
    expect(rejoin.errorCode).toBe(ErrorCode.NONE);
    expect(h.syncGroupLeader({ generationId: rejoin.generationId, memberId: o.memberId, assignments: { [o.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    for (let i = 0; i < 20; i++) {
      h.advance(400);
      expect(h.heartbeat(o.memberId, rejoin.generationId)).toBe(ErrorCode.NONE);
    }
  });
});
