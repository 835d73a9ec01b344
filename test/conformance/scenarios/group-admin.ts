// DescribeGroups, ListGroups, DeleteGroups and FindCoordinator: every version's shape, group
// summaries in each state, filters, deletion rules. Names follow GroupCoordinatorTest (3.9).
import type { Scenario } from '../runner.js';
import {
  E,
  collect,
  commit,
  createTopic,
  deleteGroups,
  describeGroups,
  dynamicJoinAndSync,
  err,
  fetchOffsets,
  join,
  joined,
  leave,
  length,
  listGroups,
  parked,
  ref,
  scenario,
  send,
  staticJoinAndRebalance,
  sync,
} from './dsl.js';

export const groupAdminScenarios: Scenario[] = [
  scenario('testDescribeGroupStableForDynamicMember', {
    mirrors: 'GroupCoordinatorTest.testDescribeGroupStableForDynamicMember',
    description: 'DescribeGroups v0-v5 of a Stable group: state, protocol type, protocol data, members with client id, host, metadata and assignment',
    steps: [
      ...dynamicJoinAndSync(['a']),
      ...[0, 1, 2, 3, 4, 5].map((v) => describeGroups('x', { v, expect: { groups: [{ errorCode: 0, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', members: length(1) }] } })),
      describeGroups('x', { v: 3, authorizedOperations: true }),
      describeGroups('x', { v: 5, authorizedOperations: true }),
    ],
  }),

  scenario('testDescribeGroupStableForStaticMember', {
    mirrors: 'GroupCoordinatorTest.testDescribeGroupStableForStaticMember',
    description: 'DescribeGroups v4+ of a Stable static group shows each GroupInstanceId',
    steps: [...staticJoinAndRebalance(), describeGroups('X', { v: 4 }), describeGroups('X', { v: 3 })],
  }),

  scenario('testDescribeGroupRebalancing', {
    mirrors: 'GroupCoordinatorTest.testDescribeGroupRebalancing',
    description: 'PreparingRebalance and CompletingRebalance: ProtocolData "" and members without metadata or assignment',
    steps: [
      join('a', { v: 3, wait: false }),
      describeGroups('x', { expect: { groups: [{ groupState: 'PreparingRebalance', protocolData: '' }] } }),
      collect('a', joined(1)),
      describeGroups('x', { expect: { groups: [{ groupState: 'CompletingRebalance', protocolData: '', members: [{ memberMetadata: '', memberAssignment: '' }] }] } }),
      describeGroups('x', { v: 0 }),
    ],
  }),

  scenario('testDescribeGroupInactiveGroup', {
    mirrors: 'GroupCoordinatorTest.testDescribeGroupInactiveGroup',
    description: 'an unknown group is described as Dead with errorCode NONE (3.9; DescribeGroups v6 / GROUP_ID_NOT_FOUND is 4.0+); "" likewise; several groups in one request',
    steps: [
      ...[0, 1, 2, 3, 4, 5].map((v) => describeGroups('x', { v, groups: ['nothing'], expect: { groups: [{ errorCode: 0, groupState: 'Dead', members: [] }] } })),
      send('x', 15, 5, { groups: [''], includeAuthorizedOperations: false }, { label: 'describe ""' }),
      join('a', { v: 3, expect: joined(1) }),
      describeGroups('x', { groups: ['g', 'nothing', 'g'] }),
    ],
    groups: ['g', 'nothing'],
  }),

  scenario('testListGroups', {
    mirrors: 'GroupCoordinatorTest.testListGroups / KafkaApis.handleListGroupsRequest (v4 states filter, v5 types filter)',
    description: 'ListGroups v0-v5 with the scenario\'s groups in several states; v4 states filter (case-insensitive); v5 types filter (classic / consumer)',
    steps: [
      createTopic('x'),
      ...dynamicJoinAndSync(['a'], { group: 'stable' }),
      join('b', { v: 3, group: 'completing', expect: joined(1) }),
      commit('x', { v: 7, group: 'simple', member: '', generation: -1 }),
      ...[0, 1, 2, 3, 4, 5].map((v) => listGroups('x', { v })),
      listGroups('x', { v: 4, states: ['Stable'] }),
      listGroups('x', { v: 4, states: ['empty', 'COMPLETINGREBALANCE'] }),
      listGroups('x', { v: 4, states: ['Dead'] }),
      listGroups('x', { v: 5, types: ['classic'] }),
      listGroups('x', { v: 5, types: ['consumer'] }),
      listGroups('x', { v: 5, types: ['Classic'], states: ['Stable'] }),
    ],
    groups: ['stable', 'completing', 'simple'],
  }),

  scenario('testDeleteGroups', {
    mirrors: 'GroupCoordinatorTest.testDeleteNonEmptyGroup / testDeleteGroupWithInvalidGroupId / testDeleteEmptyGroup / testDeleteEmptyGroupWithStoredOffsets',
    description: 'DeleteGroups: unknown → GROUP_ID_NOT_FOUND; "" → GROUP_ID_NOT_FOUND; active → NON_EMPTY_GROUP; Empty (with offsets) → NONE, after which it is Dead and its offsets gone',
    steps: [
      createTopic('x'),
      ...dynamicJoinAndSync(['a']),
      commit('a', { v: 7, offsets: [[0, 3]] }),
      commit('x', { v: 7, group: 'e', member: '', generation: -1, offsets: [[0, 4]] }),
      deleteGroups('x', { v: 0, groups: ['nothing'], expect: { results: [{ errorCode: E.GROUP_ID_NOT_FOUND }] } }),
      send('x', 42, 1, { groupsNames: [''] }, { label: 'delete ""' }),
      deleteGroups('x', { v: 2, groups: ['g', 'e'], expect: { results: [{ groupId: 'e', errorCode: 0 }, { groupId: 'g', errorCode: E.NON_EMPTY_GROUP }] } }),
      describeGroups('x', { groups: ['e'], expect: { groups: [{ groupState: 'Dead' }] } }),
      fetchOffsets('x', { v: 5, group: 'e' }),
      deleteGroups('x', { v: 1, groups: ['e'], expect: { results: [{ errorCode: E.GROUP_ID_NOT_FOUND }] } }),
      leave('a', { v: 3, expect: err(E.NONE) }),
      deleteGroups('x', { v: 2, groups: ['g', 'g'] }),
      fetchOffsets('x', { v: 5 }),
      join('b', { v: 3, expect: joined(1) }),
    ],
    groups: ['g', 'e', 'nothing'],
  }),

  scenario('testFindCoordinatorVersions', {
    mirrors: 'KafkaApis.handleFindCoordinatorRequest (v0-v6, batched keys v4+, transaction keys)',
    description: 'FindCoordinator v0-v6 for a group; batched keys at v4+; key type 1 (transactions)',
    steps: [
      ...[0, 1, 2, 3].map((v) => send('x', 10, v, (c) => ({ key: c.g(), keyType: 0 }), { expect: { errorCode: 0 } })),
      ...[4, 5, 6].map((v) => send('x', 10, v, (c) => ({ keyType: 0, coordinatorKeys: [c.g(), c.g('h')] }))),
      send('x', 10, 1, { key: 'txn-id', keyType: 1 }, { label: 'transaction key' }),
      send('x', 10, 1, { key: 'k', keyType: 5 }, { label: 'bad key type' }),
    ],
    groups: ['g', 'h'],
  }),

  scenario('testGroupLifecycleInListAndDescribe', {
    mirrors: 'GroupMetadata.overview / summary across states',
    description: 'one group seen by ListGroups and DescribeGroups through PreparingRebalance → CompletingRebalance → Stable → PreparingRebalance → Empty',
    steps: [
      join('a', { v: 3, wait: false }),
      listGroups('x', { v: 4 }),
      collect('a', joined(1)),
      listGroups('x', { v: 4 }),
      sync('a', { assign: ['a'] }),
      listGroups('x', { v: 4 }),
      describeGroups('x'),
      join('b', { v: 3, wait: false }),
      parked('b'),
      describeGroups('x', { expect: { groups: [{ groupState: 'PreparingRebalance', members: length(2) }] } }),
      join('a', { v: 3, member: ref('a'), expect: joined(2) }),
      collect('b', joined(2)),
      leave('a', { v: 3 }),
      leave('b', { v: 3 }),
      listGroups('x', { v: 4 }),
      describeGroups('x', { expect: { groups: [{ groupState: 'Empty', protocolType: 'consumer', protocolData: '' }] } }),
    ],
  }),
];
