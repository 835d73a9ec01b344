// membership-modes: the early KIP-345 draft's admin operations (enableStaticMembership,
// enableDynamicMembership, forceStaticRebalance, each answering a MembershipChangeResult) and its
// switch rule (once a group is stable, the first join decides the next round's mode).

import { describe, expect, it } from 'vitest';
import { ErrorCode, PolicyHarness, groupId } from '../../support/policies/harness.js';

const on = { 'membership-modes': { enabled: true } };

function stableDynamic(h: PolicyHarness) {
  const r = h.dynamicJoinGroup();
  expect(h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} }).errorCode).toBe(ErrorCode.NONE);
  return r;
}

describe('admin operations: the draft\'s errors', () => {
  it('policy off: MEMBERSHIP_MODES_DISABLED (UNSUPPORTED_VERSION, the draft\'s "broker on an old version")', () => {
    const h = new PolicyHarness();
    h.staticGroup(['A']);
    for (const r of [
      h.coordinator.enableStaticMembership(groupId, {}),
      h.coordinator.enableDynamicMembership(groupId),
      h.coordinator.forceStaticRebalance(groupId),
    ]) {
      expect(r).toMatchObject({ groupId, errorCode: ErrorCode.UNSUPPORTED_VERSION, error: 'MEMBERSHIP_MODES_DISABLED', mode: 'static', generationId: 1 });
    }
    expect(h.eventsOf('rebalance-started')).toHaveLength(1);
  });

  it('unknown group: GROUP_ID_NOT_FOUND', () => {
    const h = new PolicyHarness(on);
    for (const r of [h.coordinator.enableStaticMembership('nope'), h.coordinator.enableDynamicMembership('nope'), h.coordinator.forceStaticRebalance('nope')]) {
      expect(r).toMatchObject({ groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, error: 'GROUP_ID_NOT_FOUND', generationId: -1, members: [] });
    }
  });

  it('group rebalancing: REBALANCE_IN_PROGRESS', () => {
    const h = new PolicyHarness(on);
    h.sendJoinGroup({ groupInstanceId: 'A' });
    expect(h.state()).toBe('PreparingRebalance');
    for (const r of [h.coordinator.enableStaticMembership(groupId), h.coordinator.enableDynamicMembership(groupId), h.coordinator.forceStaticRebalance(groupId)]) {
      expect(r).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, error: 'REBALANCE_IN_PROGRESS' });
    }
  });

  it('wrong mode: enableDynamicMembership on a dynamic group, forceStaticRebalance on a dynamic group', () => {
    const h = new PolicyHarness(on);
    stableDynamic(h);
    expect(h.coordinator.enableDynamicMembership(groupId)).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, error: 'WRONG_MEMBERSHIP_MODE', mode: 'dynamic' });
    expect(h.coordinator.forceStaticRebalance(groupId)).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, error: 'WRONG_MEMBERSHIP_MODE', mode: 'dynamic' });
    expect(h.state()).toBe('Stable');
  });

  it('bad timeouts are refused as bad input (a RangeError)', () => {
    const h = new PolicyHarness(on);
    h.staticGroup(['A']);
    expect(() => h.coordinator.enableStaticMembership(groupId, { registrationTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => h.coordinator.enableStaticMembership(groupId, { expansionTimeoutMs: 1.5 })).toThrow(/expansionTimeoutMs/);
  });
});

describe('enableStaticMembership', () => {
  it('from then on a JoinGroup without group.instance.id is refused (INCONSISTENT_GROUP_PROTOCOL); static joins are fine', () => {
    const h = new PolicyHarness(on);
    const dyn = stableDynamic(h);
    const res = h.coordinator.enableStaticMembership(groupId, {});
    expect(res).toMatchObject({ groupId, errorCode: 0, error: null, mode: 'static', generationId: 1, members: [{ memberId: dyn.memberId, groupInstanceId: null }] });
    expect(h.eventsOf('membership-mode-changed')).toMatchObject([{ from: 'dynamic', to: 'static', pinned: true, cause: 'enableStaticMembership' }]);
    const refused = h.sendJoinGroup({ version: 9 }).result;
    expect(refused.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(h.eventsOf('join-refused')).toMatchObject([{ policy: 'membership-modes', errorCode: 23, errorName: 'INCONSISTENT_GROUP_PROTOCOL' }]);
    // Known dynamic members are refused too: the draft requires every joiner to be static.
    expect(h.sendJoinGroup({ memberId: dyn.memberId, version: 9 }).result.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(h.state()).toBe('Stable');
    const s = h.sendJoinGroup({ groupInstanceId: 'S', version: 9 });
    expect(h.state()).toBe('PreparingRebalance');
    h.advance(600);
    expect(s.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.describeGroupDetail(groupId)).toMatchObject({ mode: 'static', modePinned: true });
  });

  it('timeouts given turn their policies on for the group', () => {
    const h = new PolicyHarness(on);
    h.staticGroup(['A']);
    h.coordinator.enableStaticMembership(groupId, { registrationTimeoutMs: 900_000, expansionTimeoutMs: 20_000 });
    expect(h.coordinator.policiesFor(groupId)).toMatchObject({
      'registration-timeout': { enabled: true, registrationTimeoutMs: 900_000 },
      'expansion-timeout': { enabled: true, expansionTimeoutMs: 20_000 },
    });
    expect(h.coordinator.brokerPolicies()['registration-timeout'].enabled).toBe(false);
  });
});

describe('enableDynamicMembership', () => {
  it('drops the instance map: members carry on as dynamic members, instance ids are ignored', () => {
    const h = new PolicyHarness(on);
    const g = h.staticGroup(['A', 'B']);
    const res = h.coordinator.enableDynamicMembership(groupId);
    expect(res).toMatchObject({ errorCode: 0, mode: 'dynamic', members: [{ groupInstanceId: null }, { groupInstanceId: null }] });
    expect(h.group().staticInstanceIds()).toEqual([]);
    expect(h.eventsOf('membership-mode-changed').at(-1)).toMatchObject({ from: 'static', to: 'dynamic', pinned: true, cause: 'enableDynamicMembership' });
    // Clients still send their instance ids: read without them.
    expect(h.heartbeat(g.members.A!.memberId, g.generation, 'A')).toBe(ErrorCode.NONE);
    expect(h.commitOne(g.members.B!.memberId, g.generation, 'B')).toBe(ErrorCode.NONE);
    // A restart with MemberId "" and an instance id is a dynamic join now (KIP-394 first step).
    expect(h.sendJoinGroup({ groupInstanceId: 'A', version: 5 }).result.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    // Nothing to remove by instance id.
    expect(h.batchLeaveGroup([{ memberId: '', groupInstanceId: 'B' }]).members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // A rejoining dynamic member keeps working; a join with an instance id does not switch a pinned group.
    const r = h.sendJoinGroup({ memberId: g.members.B!.memberId, groupInstanceId: 'B', version: 9 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation });
    expect(h.coordinator.describeGroupDetail(groupId)!.mode).toBe('dynamic');
  });
});

describe('forceStaticRebalance', () => {
  it('starts one rebalance now', () => {
    const h = new PolicyHarness(on);
    const g = h.staticGroup(['A', 'B']);
    const res = h.coordinator.forceStaticRebalance(groupId);
    expect(res).toMatchObject({ errorCode: 0, error: null, mode: 'static', generationId: g.generation });
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'force-static-rebalance', generationId: g.generation });
    expect(h.completeRebalance()).toBe(g.generation + 1);
  });
});

describe('the switch rule: once a group is stable, the first join decides the next round\'s mode', () => {
  it('a join without an instance id turns a static group dynamic', () => {
    const h = new PolicyHarness(on);
    const g = h.staticGroup(['A', 'B']);
    expect(h.coordinator.describeGroupDetail(groupId)).toMatchObject({ mode: 'static', modePinned: false });
    const r = h.sendJoinGroup({ version: 5 }).result;
    expect(r.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.eventsOf('membership-mode-changed')).toMatchObject([{ from: 'static', to: 'dynamic', pinned: false, cause: 'first-join', groupInstanceId: null }]);
    expect(h.group().staticInstanceIds()).toEqual([]);
    // The static members carry on as dynamic members.
    expect(h.heartbeat(g.members.A!.memberId, g.generation, 'A')).toBe(ErrorCode.NONE);
    const second = h.sendJoinGroup({ memberId: r.memberId, version: 5 });
    expect(h.state()).toBe('PreparingRebalance');
    const a = h.rejoin('A');
    const b = h.rejoin('B');
    expect(second.result.errorCode).toBe(ErrorCode.NONE);
    expect(a.result.members.map((m) => m.groupInstanceId)).toEqual([null, null, null]);
    expect(b.result.errorCode).toBe(ErrorCode.NONE);
  });

  it('a join with an instance id turns a stable dynamic group static; during a round the mode holds', () => {
    const h = new PolicyHarness(on);
    stableDynamic(h);
    expect(h.coordinator.describeGroupDetail(groupId)!.mode).toBe('dynamic');
    h.sendJoinGroup({ groupInstanceId: 'S', version: 9 });
    expect(h.eventsOf('membership-mode-changed')).toMatchObject([{ from: 'dynamic', to: 'static', cause: 'first-join', groupInstanceId: 'S' }]);
    expect(h.state()).toBe('PreparingRebalance');
    // Mid-round, a dynamic newcomer does not switch the mode (and an unpinned static group accepts it).
    expect(h.sendJoinGroup({ version: 5 }).result.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.eventsOf('membership-mode-changed')).toHaveLength(1);
    expect(h.coordinator.describeGroupDetail(groupId)!.mode).toBe('static');
  });

  it('turning the policy off forgets the mode', () => {
    const h = new PolicyHarness(on);
    h.staticGroup(['A']);
    h.coordinator.enableStaticMembership(groupId);
    h.coordinator.setBrokerPolicies({ 'membership-modes': { enabled: false } });
    expect(h.coordinator.describeGroupDetail(groupId)).toMatchObject({ mode: null, modePinned: false });
    expect(h.sendJoinGroup({ version: 9 }).result.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  });
});
