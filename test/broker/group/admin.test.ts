// DescribeGroups, ListGroups and DeleteGroups.

import { describe, expect, it } from 'vitest';
import { ClientHost, Harness, groupId, leaderInstanceId, protocolType } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

const ALL_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'];

describe('DescribeGroups', () => {
  it('testDescribeGroupInactiveGroup: an unknown group is Dead with no error', () => {
    const h = new Harness();
    expect(h.coordinator.describeGroups([groupId])).toEqual([
      {
        errorCode: ErrorCode.NONE,
        groupId,
        groupState: 'Dead',
        protocolType: '',
        protocolData: '',
        members: [],
        authorizedOperations: -2147483648,
      },
    ]);
  });

  it('testDescribeGroupStableForDynamicMember', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup({ clientId: 'consumer-1', protocols: [{ name: 'range', metadata: Buffer.from([1, 2]) }] });
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.from([3]) } });
    const [d] = h.coordinator.describeGroups([groupId]);
    expect(d).toMatchObject({ errorCode: 0, groupState: 'Stable', protocolType, protocolData: 'range' });
    expect(d!.members).toEqual([
      {
        memberId: r.memberId,
        groupInstanceId: null,
        clientId: 'consumer-1',
        clientHost: ClientHost,
        memberMetadata: Buffer.from([1, 2]),
        memberAssignment: Buffer.from([3]),
      },
    ]);
  });

  it('testDescribeGroupStableForStaticMember', () => {
    const h = new Harness();
    const r = h.staticJoinGroup({ groupInstanceId: leaderInstanceId });
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.alloc(0) } });
    const [d] = h.coordinator.describeGroups([groupId]);
    expect(d).toMatchObject({ protocolType, protocolData: 'range' });
    expect(d!.members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([[r.memberId, leaderInstanceId]]);
  });

  it('testDescribeGroupRebalancing: no protocol, metadata or assignment outside Stable', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup({ protocols: [{ name: 'range', metadata: Buffer.from([1]) }] });
    let [d] = h.coordinator.describeGroups([groupId]);
    expect(d).toMatchObject({ groupState: 'CompletingRebalance', protocolType, protocolData: '' });
    expect(d!.members.map((m) => m.memberId)).toContain(r.memberId);
    expect(d!.members.every((m) => m.memberMetadata.length === 0 && m.memberAssignment.length === 0)).toBe(true);

    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: { [r.memberId]: Buffer.from([4]) } });
    h.sendJoinGroup(); // PreparingRebalance
    [d] = h.coordinator.describeGroups([groupId]);
    expect(d).toMatchObject({ groupState: 'PreparingRebalance', protocolData: '' });
    expect(d!.members.every((m) => m.memberMetadata.length === 0 && m.memberAssignment.length === 0)).toBe(true);
  });

  it('describes several groups in request order, including Empty ones', () => {
    const h = new Harness();
    h.commitOne('', -1, null, 'simple');
    const r = h.dynamicJoinGroup();
    h.singleLeaveGroup(r.memberId);
    expect(h.coordinator.describeGroups(['simple', groupId, 'nope']).map((d) => [d.groupId, d.groupState, d.protocolType])).toEqual([
      ['simple', 'Empty', ''],
      [groupId, 'Empty', protocolType],
      ['nope', 'Dead', ''],
    ]);
  });
});

describe('ListGroups', () => {
  it('testListGroupsIncludesStableGroups / IncludesRebalancingGroups', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.coordinator.listGroups()).toEqual({
      errorCode: 0,
      groups: [{ groupId, protocolType, groupState: 'CompletingRebalance', groupType: 'classic' }],
    });
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    expect(h.coordinator.listGroups().groups).toEqual([{ groupId, protocolType, groupState: 'Stable', groupType: 'classic' }]);
  });

  it('testListGroupsWithStates (case-insensitive)', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    const count = (states: string[]) => h.coordinator.listGroups({ statesFilter: states }).groups.length;
    expect(count(['CompletingRebalance'])).toBe(1);
    expect(count(ALL_STATES.filter((s) => s !== 'CompletingRebalance'))).toBe(0);
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    expect(count(['stable'])).toBe(1);
    expect(count(ALL_STATES.filter((s) => s !== 'Stable'))).toBe(0);
    h.singleLeaveGroup(r.memberId);
    expect(count(['EMPTY'])).toBe(1);
    expect(count(ALL_STATES.filter((s) => s !== 'Empty'))).toBe(0);
    expect(count([])).toBe(1);
  });

  it('testListGroupsWithTypes: everything is "classic"', () => {
    const h = new Harness();
    h.dynamicJoinGroup();
    const types = (t: string[] | null) => h.coordinator.listGroups({ typesFilter: t }).groups.length;
    expect(types(['classic'])).toBe(1);
    expect(types(['Classic'])).toBe(1);
    expect(types(['consumer'])).toBe(0);
    expect(types(['Invalid'])).toBe(0);
    expect(types(null)).toBe(1);
  });
});

describe('DeleteGroups', () => {
  it('testDeleteNonEmptyGroup', () => {
    const h = new Harness();
    h.dynamicJoinGroup();
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.NON_EMPTY_GROUP }]);
  });

  it('testDeleteEmptyGroup', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    h.singleLeaveGroup(r.memberId);
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.NONE }]);
    expect(h.coordinator.group(groupId)).toBeUndefined();
    expect(h.eventsOf('state-changed').at(-1)).toMatchObject({ from: 'Empty', to: 'Dead' });
    expect(h.eventsOf('group-deleted')).toMatchObject([{ groupId, cause: 'delete-groups' }]);
  });

  it('testDeleteEmptyGroupWithStoredOffsets: offsets go with the group; it then describes as Dead', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.NONE);
    const [d] = h.coordinator.describeGroups([groupId]);
    expect(d!.groupState).toBe('Stable');
    expect(d!.members[0]!.memberId).toBe(r.memberId);
    h.singleLeaveGroup(r.memberId);
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.NONE }]);
    expect(h.coordinator.describeGroups([groupId])[0]!.groupState).toBe('Dead');
    expect(h.coordinator.offsetFetch({ groupId, topics: null }).topics).toEqual([]);
  });

  it('an unknown or already deleted group is GROUP_ID_NOT_FOUND; duplicates are answered once', () => {
    const h = new Harness();
    h.commitOne('', -1);
    expect(h.coordinator.deleteGroups([groupId, 'nope', groupId])).toEqual([
      { groupId, errorCode: ErrorCode.NONE },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND }]);
  });

  it('a Dead group still cached is GROUP_ID_NOT_FOUND', () => {
    const h = new Harness();
    h.commitOne('', -1);
    h.group().transitionTo('Dead', h.now);
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND }]);
  });

  it('a deleted group can be recreated by a new join', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    h.singleLeaveGroup(r.memberId);
    h.coordinator.deleteGroups([groupId]);
    const again = h.dynamicJoinGroup();
    expect(again.errorCode).toBe(ErrorCode.NONE);
    expect(again.generationId).toBe(1);
  });
});
