// The coordinator operations the control plane calls whatever the policies: forceRebalance,
// removeMembers, offlineStaticMembers and the describeGroupDetail read model.

import { describe, expect, it } from 'vitest';
import { ErrorCode, PolicyHarness, groupId } from '../../support/policies/harness.js';

describe('forceRebalance', () => {
  it('starts a rebalance of a Stable group, with the reason given; no policy needed', () => {
    const h = new PolicyHarness();
    const g = h.staticGroup(['A', 'B']);
    const r = h.coordinator.forceRebalance(groupId, 'testing');
    expect(r).toEqual({ groupId, errorCode: 0, error: null, rebalanced: true, state: 'PreparingRebalance', generationId: g.generation, message: 'rebalance started' });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'admin-forced', clientReason: 'testing', joinReason: null });
    expect(h.completeRebalance()).toBe(g.generation + 1);
  });

  it('is a no-op while a rebalance is under way, and GROUP_ID_NOT_FOUND for an unknown group', () => {
    const h = new PolicyHarness();
    h.sendJoinGroup({ groupInstanceId: 'A' });
    expect(h.coordinator.forceRebalance(groupId, 'x')).toMatchObject({ errorCode: 0, rebalanced: false, state: 'PreparingRebalance' });
    expect(h.coordinator.forceRebalance('nope', 'x')).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, error: 'GROUP_ID_NOT_FOUND', rebalanced: false });
  });

  it('fails the parked SyncGroups of a CompletingRebalance group with REBALANCE_IN_PROGRESS, as Kafka does', () => {
    const h = new PolicyHarness();
    const a = h.sendJoinGroup({ groupInstanceId: 'A' });
    const b = h.sendJoinGroup({ groupInstanceId: 'B' });
    h.advance(51);
    h.advance(51);
    const follower = [a.result, b.result].find((r) => r.members.length === 0)!;
    const sync = h.sendSyncGroup({ generationId: follower.generationId, memberId: follower.memberId });
    expect(sync.done).toBe(false);
    h.coordinator.forceRebalance(groupId, 'x');
    expect(sync.result.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });
});

describe('removeMembers', () => {
  it('removes by member id and by instance id in one batch, cause admin, per-member results', () => {
    const h = new PolicyHarness();
    const g = h.staticGroup(['A', 'B', 'C']);
    const res = h.coordinator.removeMembers(groupId, { memberIds: [g.members.A!.memberId, 'ghost'], groupInstanceIds: ['B', 'nobody'] });
    expect(res).toEqual({
      groupId,
      errorCode: 0,
      members: [
        { memberId: g.members.A!.memberId, groupInstanceId: null, errorCode: 0, error: null },
        { memberId: 'ghost', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, error: 'UNKNOWN_MEMBER_ID' },
        { memberId: '', groupInstanceId: 'B', errorCode: 0, error: null },
        { memberId: '', groupInstanceId: 'nobody', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, error: 'UNKNOWN_MEMBER_ID' },
      ],
    });
    expect(h.eventsOf('member-removed').map((e) => [e.groupInstanceId, e.cause, e.clientReason])).toEqual([
      ['A', 'admin', 'member was removed by an admin'],
      ['B', 'admin', 'member was removed by an admin'],
    ]);
    expect(h.group().memberIds()).toEqual([g.members.C!.memberId]);
    expect(h.eventsOf('rebalance-started').filter((e) => e.trigger === 'member-removed')).toHaveLength(1);
  });

  it('with no ids removes everyone (as the admin client does), with the reason given', () => {
    const h = new PolicyHarness();
    const r = h.dynamicJoinGroup();
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    const res = h.coordinator.removeMembers(groupId, {}, 'scale to zero');
    expect(res.members).toEqual([{ memberId: r.memberId, groupInstanceId: null, errorCode: 0, error: null }]);
    expect(h.eventsOf('member-removed').at(-1)).toMatchObject({ cause: 'admin', clientReason: 'scale to zero' });
    h.advance(1000);
    expect(h.state()).toBe('Empty');
  });

  it('an unknown group answers like LeaveGroup: every member UNKNOWN_MEMBER_ID', () => {
    const h = new PolicyHarness();
    expect(h.coordinator.removeMembers('nope', { groupInstanceIds: ['x'] }).members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('describeGroupDetail', () => {
  it('shows state, generation, protocol, leader, members with raw metadata and assignment, policies and mode', () => {
    const h = new PolicyHarness({ 'membership-modes': { enabled: true } });
    const g = h.staticGroup(['A', 'B']);
    h.sendJoinGroup({ version: 9 }); // MEMBER_ID_REQUIRED: a pending member (and the switch rule: dynamic)
    const d = h.coordinator.describeGroupDetail(groupId)!;
    expect(d).toMatchObject({
      groupId,
      state: 'Stable',
      generationId: g.generation,
      protocolType: 'consumer',
      protocolName: 'range',
      leaderId: g.leader.memberId,
      offlineStaticMembers: [],
      heldStaticMembers: [],
      mode: 'dynamic',
      modePinned: false,
      groupPolicies: null,
    });
    expect(d.pendingMemberIds).toHaveLength(1);
    expect(d.policies['membership-modes'].enabled).toBe(true);
    expect(d.members).toHaveLength(2);
    const a = d.members.find((m) => m.memberId === g.members.A!.memberId)!;
    expect(a).toMatchObject({ clientId: 'clientId', clientHost: '/127.0.0.1', sessionTimeoutMs: 500, rebalanceTimeoutMs: 500, isLeader: true, awaitingJoin: false, awaitingSync: false, offlineSince: null });
    expect(Buffer.isBuffer(a.metadata)).toBe(true);
    expect(a.assignment.toString()).toBe('A');
    expect(a.protocols).toEqual([{ name: 'range', metadata: Buffer.alloc(0) }]);
    expect(d.rebalances).toMatchObject([{ trigger: 'member-joined', generationId: 0 }]);
    expect(h.coordinator.describeGroupDetail('nope')).toBeNull();
  });

  it('offlineStaticMembers is empty while registration-timeout is off', () => {
    const h = new PolicyHarness();
    h.staticGroup(['A']);
    expect(h.coordinator.offlineStaticMembers(groupId)).toEqual([]);
    expect(h.coordinator.offlineStaticMembers('nope')).toEqual([]);
  });
});
