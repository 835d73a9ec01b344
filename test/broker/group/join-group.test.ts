// JoinGroup: validation, KIP-394 two-step joins, protocol checks, group.max.size, the initial
// rebalance delay, new-member timeouts and per-version response shaping. Test names follow Kafka
// 3.9's GroupCoordinatorTest.

import { describe, expect, it } from 'vitest';
import type { JoinGroupResponse } from '../../../src/broker/group/types.js';
import {
  DefaultRebalanceTimeout,
  DefaultSessionTimeout,
  GroupInitialRebalanceDelay,
  GroupMaxSessionTimeout,
  GroupMaxSize,
  GroupMinSessionTimeout,
  Harness,
  NewMemberJoinTimeoutMs,
  groupId,
  metadata,
  protocolType,
  type Pending,
} from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

describe('JoinGroup validation', () => {
  it('testInvalidGroupId: an empty group id is INVALID_GROUP_ID', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup({ groupId: '' });
    expect(r.errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(h.coordinator.group('')).toBeUndefined();
  });

  it('testJoinGroupSessionTimeoutTooSmall', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ sessionTimeout: GroupMinSessionTimeout - 1 }).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
  });

  it('testJoinGroupSessionTimeoutTooLarge', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ sessionTimeout: GroupMaxSessionTimeout + 1 }).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
  });

  it('accepts session timeouts exactly at the configured bounds', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ sessionTimeout: GroupMinSessionTimeout }).errorCode).toBe(ErrorCode.NONE);
    const h2 = new Harness();
    expect(h2.dynamicJoinGroup({ sessionTimeout: GroupMaxSessionTimeout }).errorCode).toBe(ErrorCode.NONE);
  });

  it('uses the Kafka 3.9 broker defaults (6 s .. 30 min) when not configured', () => {
    const h = new Harness({ groupMinSessionTimeoutMs: undefined, groupMaxSessionTimeoutMs: undefined });
    expect(h.coordinator.config.groupMinSessionTimeoutMs).toBe(6000);
    expect(h.coordinator.config.groupMaxSessionTimeoutMs).toBe(1_800_000);
    expect(h.dynamicJoinGroup({ sessionTimeout: 5999 }).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(h.dynamicJoinGroup({ sessionTimeout: 1_800_001 }).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(h.dynamicJoinGroup({ sessionTimeout: 6000 }).errorCode).toBe(ErrorCode.NONE);
  });

  it('testJoinGroupUnknownConsumerNewGroup: a member id for a missing group is UNKNOWN_MEMBER_ID, group not created', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ memberId: 'memberId' }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.staticJoinGroup({ memberId: 'memberId', groupInstanceId: 'groupInstanceId' }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.coordinator.group(groupId)).toBeUndefined();
  });

  it('testValidJoinGroup', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.generationId).toBe(1);
    expect(r.leader).toBe(r.memberId);
    expect(r.memberId).toBe('clientId-uuid-1');
    expect(r.protocolName).toBe('range');
    expect(r.protocolType).toBe('consumer');
    expect(r.members).toEqual([{ memberId: r.memberId, groupInstanceId: null, metadata }]);
    expect(h.state()).toBe('CompletingRebalance');
  });

  it('testJoinGroupWithEmptyProtocolType: INCONSISTENT_GROUP_PROTOCOL for dynamic and static members', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ protocolType: '' }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const s = h.staticJoinGroup({ protocolType: '', groupInstanceId: 'groupInstanceId' });
    expect(s.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(s.memberId).toBe('');
    // Kafka creates the group before checking the protocols: an Empty group stays behind.
    expect(h.state()).toBe('Empty');
    expect(h.group().size).toBe(0);
  });

  it('testJoinGroupWithEmptyGroupProtocol', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup({ protocols: [] }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(h.staticJoinGroup({ protocols: [], groupInstanceId: 'i' }).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('testJoinGroupInconsistentProtocolType: a "connect" member cannot join a "consumer" group', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup().errorCode).toBe(ErrorCode.NONE);
    expect(h.sendJoinGroup({ protocolType: 'connect' }).result.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('testJoinGroupInconsistentGroupProtocol: no protocol shared with every member', () => {
    const h = new Harness();
    const first = h.sendJoinGroup({ protocols: [{ name: 'range', metadata }] });
    const other = h.dynamicJoinGroup({ protocols: [{ name: 'roundrobin', metadata }] });
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(other.memberId).toBe('');
    h.advance(GroupInitialRebalanceDelay + 1);
    expect(first.result.errorCode).toBe(ErrorCode.NONE);
  });

  it('testJoinGroupUnknownConsumerExistingGroup', () => {
    const h = new Harness();
    expect(h.dynamicJoinGroup().errorCode).toBe(ErrorCode.NONE);
    const r = h.sendJoinGroup({ memberId: 'memberId' }).result;
    expect(r.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(r.memberId).toBe('memberId');
  });

  it('testJoinGroupUnknownConsumerNewDeadGroup: a Dead group answers COORDINATOR_NOT_AVAILABLE', () => {
    const h = new Harness();
    h.coordinator.offsetCommit(2, { groupId: 'deadGroupId', topics: [] }); // creates the group
    const dead = h.group('deadGroupId');
    dead.transitionTo('Dead', h.now);
    expect(h.dynamicJoinGroup({ groupId: 'deadGroupId' }).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('testJoinGroupProtocolTypeIsNotProvidedWhenAnErrorOccurs', () => {
    const h = new Harness();
    const r = h.sendJoinGroup({ memberId: 'fake-id', groupInstanceId: 'leader' }).result;
    expect(r.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(r.protocolType).toBeNull();
    expect(r.generationId).toBe(-1);
    expect(r.leader).toBe('');
  });

  it('testJoinGroupReturnsTheProtocolType', () => {
    const h = new Harness();
    const leader = h.sendJoinGroup({ groupInstanceId: 'leader' });
    const follower = h.sendJoinGroup({ groupInstanceId: 'follower' });
    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(DefaultRebalanceTimeout + 1);
    expect(leader.result.errorCode).toBe(ErrorCode.NONE);
    expect(leader.result.protocolType).toBe(protocolType);
    expect(follower.result.errorCode).toBe(ErrorCode.NONE);
    expect(follower.result.protocolType).toBe(protocolType);
  });
});

describe('KIP-394 member id required (JoinGroup v4+)', () => {
  it('testJoinGroupSecondJoinInconsistentProtocol', () => {
    const h = new Harness();
    const first = h.sendJoinGroup({ version: 4 }).result;
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).toBe('clientId-uuid-1');
    expect(first.generationId).toBe(-1);
    expect(h.group().isPendingMember(first.memberId)).toBe(true);

    const inconsistent = h.sendJoinGroup({ version: 4, memberId: first.memberId, protocols: [] }).result;
    expect(inconsistent.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(inconsistent.memberId).toBe(first.memberId);

    const ok = h.sendJoinGroup({ version: 4, memberId: first.memberId });
    h.advance(GroupInitialRebalanceDelay + 1);
    expect(ok.result.errorCode).toBe(ErrorCode.NONE);
    expect(ok.result.memberId).toBe(first.memberId);
  });

  it('below v4 a dynamic member is added at once; a static member never gets MEMBER_ID_REQUIRED', () => {
    const h = new Harness();
    const v3 = h.sendJoinGroup({ version: 3 });
    expect(v3.done).toBe(false);
    expect(h.group().size).toBe(1);
    const staticV5 = h.sendJoinGroup({ version: 5, groupInstanceId: 'i' });
    expect(staticV5.done).toBe(false);
    expect(h.group().size).toBe(2);
  });

  it('staticMemberJoinAsFirstMember: NONE without MEMBER_ID_REQUIRED', () => {
    const h = new Harness();
    const r = h.staticJoinGroup({ groupInstanceId: 'groupInstanceId' });
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.memberId).toBe('groupInstanceId-uuid-1');
  });

  it('a pending member does not change the group state and expires after its session timeout', () => {
    const h = new Harness();
    const first = h.sendJoinGroup({ version: 4, sessionTimeout: 100 }).result;
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.state()).toBe('Empty');
    h.advance(99);
    expect(h.group().numPending).toBe(1);
    h.advance(1);
    expect(h.group().numPending).toBe(0);
    const late = h.sendJoinGroup({ version: 4, memberId: first.memberId }).result;
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('testSecondMemberPartiallyJoinAndTimeout: a pending member that never rejoins leaves a Stable group alone', () => {
    const h = new Harness();
    const first = h.dynamicJoinGroup();
    expect(h.syncGroupLeader({ generationId: first.generationId, memberId: first.memberId, assignments: { [first.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    h.advance(100);
    const g = h.group();
    expect(g.memberIds()).toEqual([first.memberId]);
    expect(g.numPending).toBe(0);
    expect(g.state).toBe('Stable');

    const second = h.sendJoinGroup({ version: 4 }).result;
    expect(second.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(g.numPending).toBe(1);
    expect(g.state).toBe('Stable');

    h.advance(300);
    expect(h.heartbeat(first.memberId, 1)).toBe(ErrorCode.NONE);
    h.advance(300);
    expect(g.memberIds()).toEqual([first.memberId]);
    expect(g.numPending).toBe(0);
    expect(g.state).toBe('Stable');
  });

  /** Stable group of two, then PreparingRebalance with one pending (MEMBER_ID_REQUIRED) member. */
  function setupGroupWithPendingMember(h: Harness): { pending: JoinGroupResponse; first: string; second: string } {
    const join1 = h.dynamicJoinGroup();
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.syncGroupLeader({ generationId: join1.generationId, memberId: join1.memberId, assignments: { [join1.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Stable');

    const secondJoin = h.sendJoinGroup();
    const firstJoin = h.sendJoinGroup({ memberId: join1.memberId });
    // The rebalance completes as soon as both have joined (no initial delay: not from Empty).
    expect(firstJoin.result.errorCode).toBe(ErrorCode.NONE);
    expect(secondJoin.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.syncGroupLeader({ generationId: firstJoin.result.generationId, memberId: join1.memberId, assignments: { [join1.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Stable');

    h.sendJoinGroup({ memberId: join1.memberId });
    expect(h.state()).toBe('PreparingRebalance');
    const pending = h.sendJoinGroup({ version: 4, sessionTimeout: 100 }).result;
    expect(pending.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.group().numPending).toBe(1);

    h.sendJoinGroup({ memberId: secondJoin.result.memberId });
    // Everyone rejoined, but the pending member blocks completion.
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.group().numPending).toBe(1);
    return { pending, first: join1.memberId, second: secondJoin.result.memberId };
  }

  it('testJoinGroupCompletionWhenPendingMemberJoins', () => {
    const h = new Harness();
    const { pending } = setupGroupWithPendingMember(h);
    const r = h.sendJoinGroup({ version: 4, memberId: pending.memberId });
    expect(r.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.group().size).toBe(3);
    expect(h.group().numPending).toBe(0);
  });

  it('testJoinGroupCompletionWhenPendingMemberTimesOut', () => {
    const h = new Harness();
    setupGroupWithPendingMember(h);
    h.advance(99);
    expect(h.state()).toBe('PreparingRebalance');
    h.advance(1);
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.group().size).toBe(2);
    expect(h.group().numPending).toBe(0);
  });

  it('testPendingMembersLeavesGroup', () => {
    const h = new Harness();
    const { pending } = setupGroupWithPendingMember(h);
    const leave = h.singleLeaveGroup(pending.memberId);
    expect(leave.errorCode).toBe(ErrorCode.NONE);
    expect(leave.members.map((m) => m.errorCode)).toEqual([ErrorCode.NONE]);
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.group().size).toBe(2);
    expect(h.group().numPending).toBe(0);
  });

  it('testPendingMemberBatchLeaveGroup', () => {
    const h = new Harness();
    const { pending } = setupGroupWithPendingMember(h);
    const leave = h.batchLeaveGroup([
      { memberId: '', groupInstanceId: 'unknown-instance' },
      { memberId: pending.memberId },
    ]);
    expect(leave.errorCode).toBe(ErrorCode.NONE);
    expect(leave.members.map((m) => m.errorCode)).toEqual([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.NONE]);
  });

  it('a pending member rejoining with a group instance id is an internal error (UNKNOWN_SERVER_ERROR)', () => {
    const h = new Harness();
    const first = h.sendJoinGroup({ version: 5 }).result;
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const r = h.sendJoinGroup({ version: 5, memberId: first.memberId, groupInstanceId: 'i' }).result;
    expect(r.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(r.memberId).toBe('');
    expect(h.group().isPendingMember(first.memberId)).toBe(true);
    expect(h.eventsOf('internal-error')).toHaveLength(1);
  });
});

describe('group.max.size', () => {
  it('testJoinGroupShouldReceiveErrorIfGroupOverMaxSize', () => {
    const h = new Harness();
    const rebalanceTimeout = GroupInitialRebalanceDelay * 2;
    const futures: Pending<JoinGroupResponse>[] = [];
    // Kafka advances by the full delay between joins; its MockTimer fires only strictly after a
    // deadline, so with timers that fire at the deadline the joins must come 1 ms earlier to land
    // in the same (extended) initial join phase.
    for (let i = 1; i <= GroupMaxSize; i++) {
      futures.push(h.sendJoinGroup({ rebalanceTimeout }));
      if (i !== 1) h.advance(GroupInitialRebalanceDelay - 1);
    }
    h.advance(GroupInitialRebalanceDelay + 1);
    for (const f of futures) expect(f.result.errorCode).toBe(ErrorCode.NONE);
    const error = h.sendJoinGroup({ rebalanceTimeout }).result;
    expect(error.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect(error.memberId).toBe('');
  });

  it('testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember', () => {
    const h = new Harness();
    const n = GroupMaxSize + 1;
    const memberIds = Array.from({ length: n }, () => h.sendJoinGroup({ version: 4 }).result.memberId);
    let futures = memberIds.map((memberId) => h.sendJoinGroup({ version: 4, memberId }));
    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(GroupInitialRebalanceDelay + 1);
    const errors = futures.map((f) => f.result.errorCode);
    expect(errors.filter((e) => e === ErrorCode.NONE)).toHaveLength(GroupMaxSize);
    expect(errors.filter((e) => e === ErrorCode.GROUP_MAX_SIZE_REACHED)).toHaveLength(n - GroupMaxSize);
    // The last one to rejoin was turned away.
    expect(errors[n - 1]).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);

    // While CompletingRebalance the accepted members can rejoin; the rejected one still cannot.
    futures = memberIds.map((memberId) => h.sendJoinGroup({ version: 4, memberId }));
    expect(futures.map((f) => f.result.errorCode)).toEqual(errors);
  });

  it('testDynamicMembersJoinGroupWithMaxSize', () => {
    const h = new Harness();
    const n = GroupMaxSize + 1;
    const futures = Array.from({ length: n }, () => h.sendJoinGroup({ version: 3 }));
    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(GroupInitialRebalanceDelay + 1);
    const results = futures.map((f) => f.result);
    const errors = results.map((r) => r.errorCode);
    expect(errors.filter((e) => e === ErrorCode.NONE)).toHaveLength(GroupMaxSize);
    expect(errors.filter((e) => e === ErrorCode.GROUP_MAX_SIZE_REACHED)).toHaveLength(1);
    // While CompletingRebalance, accepted members can rejoin; the rejected one ("" id) is still
    // rejected because the group is full.
    const rejoin = results.map((r) => h.sendJoinGroup({ version: 3, memberId: r.memberId }).result.errorCode);
    expect(rejoin).toEqual(errors);
  });

  it('testStaticMembersJoinGroupWithMaxSize', () => {
    const h = new Harness();
    const instanceIds = Array.from({ length: GroupMaxSize + 1 }, (_, i) => `instance-id-${i + 1}`);
    const futures = instanceIds.map((groupInstanceId) => h.sendJoinGroup({ groupInstanceId }));
    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(GroupInitialRebalanceDelay + 1);
    const results = futures.map((f) => f.result);
    const errors = results.map((r) => r.errorCode);
    expect(errors.filter((e) => e === ErrorCode.NONE)).toHaveLength(GroupMaxSize);
    expect(errors.filter((e) => e === ErrorCode.GROUP_MAX_SIZE_REACHED)).toHaveLength(1);
    const rejoin = instanceIds.map((groupInstanceId, i) => h.sendJoinGroup({ groupInstanceId, memberId: results[i]!.memberId }).result.errorCode);
    expect(rejoin).toEqual(errors);
  });

  it('testDynamicMembersCanReJoinGroupWithMaxSizeWhileRebalancing', () => {
    const h = new Harness();
    const n = GroupMaxSize + 1;
    const memberIds = Array.from({ length: n }, () => h.sendJoinGroup({ version: 4 }).result.memberId);
    memberIds.forEach((memberId) => h.sendJoinGroup({ version: 4, memberId }));
    const futures = memberIds.map((memberId) => h.sendJoinGroup({ version: 4, memberId }));
    h.advance(GroupInitialRebalanceDelay + 1);
    h.advance(GroupInitialRebalanceDelay + 1);
    const errors = futures.map((f) => f.result.errorCode);
    expect(errors.filter((e) => e === ErrorCode.NONE)).toHaveLength(GroupMaxSize);
    expect(errors.filter((e) => e === ErrorCode.GROUP_MAX_SIZE_REACHED)).toHaveLength(1);
  });

  it('testLastJoiningMembersAreKickedOutWhenReJoiningGroupWithMaxSize', () => {
    // A Stable group of 6 whose max size is then lowered to 4 (built with a larger limit).
    const h = new Harness({ groupMaxSize: 100 });
    const ids: string[] = [];
    const futures = Array.from({ length: GroupMaxSize + 2 }, () => h.sendJoinGroup({ sessionTimeout: GroupMaxSessionTimeout }));
    h.advance(GroupInitialRebalanceDelay);
    h.advance(DefaultRebalanceTimeout);
    for (const f of futures) ids.push(f.result.memberId);
    expect(h.syncGroupLeader({ generationId: 1, memberId: ids[0]!, assignments: {} }).errorCode).toBe(ErrorCode.NONE);
    (h.coordinator.config as { groupMaxSize: number }).groupMaxSize = GroupMaxSize;

    // Force a rebalance with the leader's join, then everyone else rejoins in order.
    const rejoins = ids.map((memberId) => h.sendJoinGroup({ memberId, sessionTimeout: GroupMaxSessionTimeout }));
    // Removing the last two completes the join phase at once: everyone left has rejoined.
    expect(h.state()).toBe('CompletingRebalance');
    const errors = rejoins.map((f) => f.result.errorCode);
    expect(errors.slice(0, GroupMaxSize)).toEqual(Array(GroupMaxSize).fill(ErrorCode.NONE));
    expect(errors.slice(GroupMaxSize)).toEqual([ErrorCode.GROUP_MAX_SIZE_REACHED, ErrorCode.GROUP_MAX_SIZE_REACHED]);
    for (const id of ids.slice(GroupMaxSize)) expect(h.group().has(id)).toBe(false);
    expect(h.group().size).toBe(GroupMaxSize);
    expect(h.eventsOf('member-removed').filter((e) => e.cause === 'group-max-size').map((e) => e.memberId)).toEqual(ids.slice(GroupMaxSize));
  });
});

describe('rebalances triggered by rejoins', () => {
  function stableSingleMember(h: Harness): JoinGroupResponse {
    const r = h.dynamicJoinGroup();
    expect(h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    return r;
  }

  it('testJoinGroupFromUnchangedFollowerDoesNotRebalance', () => {
    const h = new Harness();
    const first = stableSingleMember(h);
    const other = h.sendJoinGroup();
    const join = h.sendJoinGroup({ memberId: first.memberId });
    expect(join.result.errorCode).toBe(ErrorCode.NONE);
    expect(other.result.errorCode).toBe(ErrorCode.NONE);
    expect(join.result.generationId).toBe(other.result.generationId);
    expect(join.result.leader).toBe(first.memberId);
    expect(other.result.leader).toBe(first.memberId);
    const next = join.result.generationId;
    // Follower rejoins with unchanged metadata while CompletingRebalance: answered at once.
    const follower = h.sendJoinGroup({ memberId: other.result.memberId }).result;
    expect(follower.errorCode).toBe(ErrorCode.NONE);
    expect(follower.generationId).toBe(next);
    expect(follower.members).toEqual([]);
    expect(h.state()).toBe('CompletingRebalance');
  });

  it('an unchanged follower rejoining a Stable group gets the current generation without a rebalance', () => {
    const h = new Harness();
    const first = stableSingleMember(h);
    const other = h.sendJoinGroup();
    h.sendJoinGroup({ memberId: first.memberId });
    const gen = other.result.generationId;
    h.syncGroupLeader({ generationId: gen, memberId: first.memberId, assignments: {} });
    h.syncGroupFollower({ generationId: gen, memberId: other.result.memberId });
    expect(h.state()).toBe('Stable');
    const r = h.sendJoinGroup({ memberId: other.result.memberId }).result;
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.generationId).toBe(gen);
    expect(r.leader).toBe(first.memberId);
    expect(r.members).toEqual([]);
    expect(h.state()).toBe('Stable');
    // With changed metadata the same follower triggers a rebalance.
    h.sendJoinGroup({ memberId: other.result.memberId, protocols: [{ name: 'range', metadata: Buffer.from([1]) }] });
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)?.trigger).toBe('member-metadata-changed');
  });

  it('testJoinGroupFromUnchangedLeaderShouldRebalance', () => {
    const h = new Harness();
    const first = stableSingleMember(h);
    const second = h.sendJoinGroup({ memberId: first.memberId }).result; // completes at once: everyone joined
    expect(second.errorCode).toBe(ErrorCode.NONE);
    expect(second.generationId).toBe(2);
    expect(h.eventsOf('rebalance-started').at(-1)?.trigger).toBe('leader-rejoined');
  });

  it('testGenerationIdIncrementsOnRebalance', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(r.generationId).toBe(1);
    h.syncGroupLeader({ generationId: 1, memberId: r.memberId, assignments: {} });
    expect(h.sendJoinGroup({ memberId: r.memberId }).result.generationId).toBe(2);
  });

  it('a member changing metadata during CompletingRebalance cancels parked syncs with REBALANCE_IN_PROGRESS', () => {
    const h = new Harness();
    const first = stableSingleMember(h);
    const other = h.sendJoinGroup();
    h.sendJoinGroup({ memberId: first.memberId });
    const gen = other.result.generationId;
    const followerSync = h.sendSyncGroup({ generationId: gen, memberId: other.result.memberId });
    expect(followerSync.done).toBe(false);
    h.sendJoinGroup({ memberId: other.result.memberId, protocols: [{ name: 'range', metadata: Buffer.from([7]) }] });
    expect(followerSync.result.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(followerSync.result.protocolType).toBeNull();
    expect(h.state()).toBe('PreparingRebalance');
  });
});

describe('initial rebalance delay (KIP-134)', () => {
  it('shouldDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup', () => {
    const h = new Harness();
    const f = h.sendJoinGroup();
    h.advance(GroupInitialRebalanceDelay / 2);
    expect(f.done).toBe(false);
    h.advance(GroupInitialRebalanceDelay / 2 - 1);
    expect(f.done).toBe(false);
    h.advance(1);
    expect(f.result.errorCode).toBe(ErrorCode.NONE);
  });

  it('an initial rebalance never completes early even when every member has joined', () => {
    const h = new Harness();
    const f = h.sendJoinGroup();
    expect(h.group().hasAllMembersJoined).toBe(true);
    expect(f.done).toBe(false);
  });

  it('shouldResetRebalanceDelayWhenNewMemberJoinsGroupInInitialRebalance', () => {
    const h = new Harness();
    const rebalanceTimeout = GroupInitialRebalanceDelay * 3;
    const first = h.sendJoinGroup({ rebalanceTimeout });
    h.advance(GroupInitialRebalanceDelay - 1);
    const second = h.sendJoinGroup({ rebalanceTimeout });
    h.advance(2); // the first delay expires at 50 and is re-armed until 100
    h.advance(GroupInitialRebalanceDelay / 2 + 1); // t = 77
    expect(first.done).toBe(false);
    expect(second.done).toBe(false);
    h.advance(GroupInitialRebalanceDelay / 2 - 3); // t = 99
    expect(first.done).toBe(false);
    h.advance(1); // t = 100
    expect(first.result.errorCode).toBe(ErrorCode.NONE);
    expect(second.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.eventsOf('join-phase-extended')).toMatchObject([{ reason: 'initial-delay', delayMs: 50 }]);
  });

  it('shouldDelayRebalanceUptoRebalanceTimeout: extensions stop at the rebalance timeout', () => {
    // Kafka's version completes at 2×delay + 1 because its MockTimer fires strictly after deadlines.
    const h = new Harness();
    const rebalanceTimeout = GroupInitialRebalanceDelay * 2;
    const first = h.sendJoinGroup({ rebalanceTimeout });
    const second = h.sendJoinGroup({ rebalanceTimeout });
    h.advance(GroupInitialRebalanceDelay); // t=50: re-armed for 50 more, remaining 0
    const third = h.sendJoinGroup({ rebalanceTimeout });
    h.advance(GroupInitialRebalanceDelay - 1); // t=99
    expect([first.done, second.done, third.done]).toEqual([false, false, false]);
    h.advance(1); // t=100: no further extension even though a member arrived
    expect([first, second, third].map((f) => f.result.errorCode)).toEqual([0, 0, 0]);
  });

  it('the initial delay applies even when the rebalance timeout is shorter than it', () => {
    const h = new Harness();
    const f = h.sendJoinGroup({ rebalanceTimeout: 10, sessionTimeout: 10 });
    h.advance(GroupInitialRebalanceDelay - 1);
    expect(f.done).toBe(false);
    h.advance(1);
    expect(f.result.errorCode).toBe(ErrorCode.NONE);
  });

  it('only the first rebalance of a group (generation 0) is extended by late joiners', () => {
    const h = new Harness();
    const a = h.dynamicJoinGroup();
    expect(h.singleLeaveGroup(a.memberId).errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('Empty');
    expect(h.group().generationId).toBe(2);
    const b = h.sendJoinGroup({ rebalanceTimeout: 1000 });
    h.advance(10);
    const c = h.sendJoinGroup({ rebalanceTimeout: 1000 });
    h.advance(GroupInitialRebalanceDelay - 10);
    expect(b.result.generationId).toBe(3);
    expect(c.result.generationId).toBe(3);
  });

  it('uses group.initial.rebalance.delay.ms = 3000 by default', () => {
    const h = new Harness({ groupInitialRebalanceDelayMs: undefined });
    const f = h.sendJoinGroup({ sessionTimeout: 10_000, rebalanceTimeout: 60_000 });
    h.advance(2999);
    expect(f.done).toBe(false);
    h.advance(1);
    expect(f.result.errorCode).toBe(ErrorCode.NONE);
  });
});

describe('new-member join timeout', () => {
  it('testNewMemberTimeoutCompletion: after its first join phase a member follows its session timeout', () => {
    const h = new Harness();
    const sessionTimeout = NewMemberJoinTimeoutMs + 5000;
    const f = h.sendJoinGroup({ sessionTimeout });
    h.advance(GroupInitialRebalanceDelay + 1);
    const r = f.result;
    expect(r.errorCode).toBe(ErrorCode.NONE);
    const g = h.group();
    expect(g.allMembers().filter((m) => m.isNew)).toHaveLength(0);
    expect(h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
    expect(g.size).toBe(1);
    h.advance(NewMemberJoinTimeoutMs + 100);
    expect(g.size).toBe(1);
    h.advance(sessionTimeout + 100);
    expect(g.size).toBe(0);
    expect(h.eventsOf('member-removed').map((e) => e.cause)).toEqual(['session-timeout']);
  });

  it('testNewMemberJoinExpiration: a new member parked past 5 minutes gets UNKNOWN_MEMBER_ID', () => {
    const h = new Harness();
    const sessionTimeout = NewMemberJoinTimeoutMs + 5000;
    const rebalanceTimeout = NewMemberJoinTimeoutMs * 2;
    const first = h.dynamicJoinGroup({ sessionTimeout, rebalanceTimeout });
    expect(first.errorCode).toBe(ErrorCode.NONE);
    expect(first.leader).toBe(first.memberId);
    const g = h.group();
    expect(g.allMembers().filter((m) => m.isNew)).toHaveLength(0);

    const f = h.sendJoinGroup({ sessionTimeout, rebalanceTimeout });
    expect(f.done).toBe(false);
    expect(g.size).toBe(2);
    const newMember = g.allMembers().find((m) => m.isNew)!;
    expect(newMember.memberId).not.toBe(first.memberId);

    h.advance(NewMemberJoinTimeoutMs - 1);
    expect(f.done).toBe(false);
    h.advance(1);
    expect(f.result.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(f.result.memberId).toBe('');
    expect(g.memberIds()).toEqual([first.memberId]);
    expect(g.allMembers().filter((m) => m.isNew)).toHaveLength(0);
    expect(h.eventsOf('member-removed').map((e) => e.cause)).toEqual(['join-timeout']);
  });

  it('testNewMemberFailureAfterJoinGroupCompletion / testNewMemberFailureAfterSyncGroupCompletion', () => {
    for (const syncFirst of [false, true]) {
      const h = new Harness();
      const first = h.dynamicJoinGroup();
      expect(h.syncGroupLeader({ generationId: first.generationId, memberId: first.memberId, assignments: { [first.memberId]: Buffer.alloc(0) } }).errorCode).toBe(ErrorCode.NONE);
      const other = h.sendJoinGroup();
      const join = h.sendJoinGroup({ memberId: first.memberId });
      expect(join.result.errorCode).toBe(ErrorCode.NONE);
      expect(other.result.errorCode).toBe(ErrorCode.NONE);
      if (syncFirst) {
        const gen = join.result.generationId;
        h.sendSyncGroup({ generationId: gen, memberId: other.result.memberId });
        expect(h.syncGroupLeader({ generationId: gen, memberId: first.memberId, assignments: {} }).errorCode).toBe(ErrorCode.NONE);
      }
      // verifySessionExpiration
      h.advance(DefaultSessionTimeout + 1);
      expect(h.state()).toBe('Empty');
      expect(h.group().size).toBe(0);
    }
  });
});

describe('per-version request handling and response shaping', () => {
  it('JoinGroup v0 uses the session timeout as the rebalance timeout', () => {
    const h = new Harness();
    const f = h.sendJoinGroup({ version: 0, sessionTimeout: 1234, rebalanceTimeout: 99_999 });
    expect(h.group().allMembers()[0]!.rebalanceTimeoutMs).toBe(1234);
    h.advance(GroupInitialRebalanceDelay);
    expect(f.result.errorCode).toBe(ErrorCode.NONE);
  });

  it('GroupInstanceId is ignored below v5 and Reason below v8', () => {
    const h = new Harness();
    const f = h.sendJoinGroup({ version: 4, groupInstanceId: 'i', reason: 'why' });
    expect(f.result.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.group().hasStaticMember('i')).toBe(false);
    h.sendJoinGroup({ version: 7, groupInstanceId: 'a', reason: 'ignored' });
    h.sendJoinGroup({ version: 8, groupInstanceId: 'b', reason: 'kept' });
    expect(h.eventsOf('member-joined').map((e) => e.clientReason)).toEqual([null, 'kept']);
  });

  it('ProtocolName is "" below v7 and null from v7 on error responses; never null below v7', () => {
    const h = new Harness();
    const old = h.sendJoinGroup({ version: 6, memberId: 'x' }).result;
    expect(old.protocolName).toBe('');
    const v7 = h.sendJoinGroup({ version: 7, memberId: 'x' }).result;
    expect(v7.protocolName).toBeNull();
    const ok = h.sendJoinGroup({ version: 6, groupInstanceId: 'i6' });
    h.advance(GroupInitialRebalanceDelay);
    expect(ok.result.protocolName).toBe('range');
  });

  it('SkipAssignment is never set below v9', () => {
    const h = new Harness();
    const r = h.sendJoinGroup({ version: 8, groupInstanceId: 'i8' });
    h.advance(GroupInitialRebalanceDelay);
    expect(r.result.skipAssignment).toBe(false);
  });

  it('member ids are <clientId>-<uuid> for dynamic members and <instanceId>-<uuid> for static ones', () => {
    const h = new Harness();
    expect(h.sendJoinGroup({ version: 4, clientId: 'my-client' }).result.memberId).toBe('my-client-uuid-1');
    expect(h.sendJoinGroup({ version: 4, clientId: '' }).result.memberId).toBe('-uuid-2');
    h.sendJoinGroup({ groupInstanceId: 'inst' });
    expect(h.group().currentStaticMemberId('inst')).toBe('inst-uuid-3');
  });

  it('default member ids embed a random UUID', () => {
    const h = new Harness({ generateUuid: undefined });
    const id = h.sendJoinGroup({ version: 4 }).result.memberId;
    expect(id).toMatch(/^clientId-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
