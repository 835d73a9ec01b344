// SyncGroup and Heartbeat: unknown groups and members, illegal generations, protocol type/name
// checks (v5), follower/leader ordering, empty assignments, sync timeouts, heartbeat answers in
// every state. Names follow GroupCoordinatorTest (3.9).
import type { Scenario } from '../runner.js';
import {
  E,
  collect,
  commit,
  createTopic,
  dynamicJoinAndSync,
  err,
  heartbeat,
  hex,
  join,
  joined,
  length,
  parked,
  ref,
  same,
  scenario,
  send,
  sync,
  wait,
} from './dsl.js';

export const groupSyncHeartbeatScenarios: Scenario[] = [
  scenario('testSyncGroupErrors', {
    mirrors: 'GroupCoordinatorTest.testSyncGroupFromUnknownGroup / testSyncGroupFromUnknownMember / testSyncGroupFromIllegalGeneration',
    description: 'sync to an unknown group → UNKNOWN_MEMBER_ID; unknown member → UNKNOWN_MEMBER_ID; wrong generation → ILLEGAL_GENERATION; in PreparingRebalance → REBALANCE_IN_PROGRESS',
    steps: [
      sync('x', { member: 'm', generation: 1, group: 'nogroup', expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 3, expect: joined(1) }),
      sync('x', { member: 'unknown', generation: 1, expect: err(E.UNKNOWN_MEMBER_ID) }),
      sync('a', { generation: 2, expect: err(E.ILLEGAL_GENERATION) }),
      sync('a', { v: 0, generation: 0, expect: err(E.ILLEGAL_GENERATION) }),
      sync('a', { assign: ['a'], expect: err(E.NONE, { assignment: hex('asg:a') }) }),
      join('a', { v: 3, member: ref('a'), expect: joined(2) }),
      sync('a', { generation: 2, member: ref('a'), v: 1, expect: err(E.NONE, { assignment: '' }) }),
    ],
  }),

  scenario('testSyncGroupRebalanceInProgress', {
    mirrors: 'GroupCoordinator.doSyncGroup (PreparingRebalance → REBALANCE_IN_PROGRESS)',
    description: 'a follower syncing its current generation while the group prepares a rebalance gets REBALANCE_IN_PROGRESS',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('a', { v: 5, member: ref('a'), wait: false }),
      sync('b', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      join('b', { v: 5, member: ref('b'), expect: joined(2) }),
      collect('a', joined(2)),
    ],
  }),

  scenario('testSyncGroupProtocolTypeAndName', {
    mirrors:
      'GroupCoordinatorTest.testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent / …ProtocolNameIsInconsistent / testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided / …AreConsistent',
    description: 'SyncGroup v5 with ProtocolType or ProtocolName "whatever" → INCONSISTENT_GROUP_PROTOCOL; null at v5 → INCONSISTENT (KafkaApis); null at v4 → NONE; consistent → NONE with both echoed',
    steps: [
      join('a', { v: 7, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('a', { v: 7, member: ref('a'), expect: joined(1) }),
      sync('a', { v: 5, protocolType: 'whatever', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      sync('a', { v: 5, protocolName: 'whatever', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      sync('a', { v: 5, protocolType: null, expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      sync('a', { v: 5, protocolName: null, expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      sync('a', { v: 5, assign: ['a'], expect: err(E.NONE, { protocolType: 'consumer', protocolName: 'range', assignment: hex('asg:a') }) }),
      sync('a', { v: 4, expect: err(E.NONE, { assignment: hex('asg:a') }) }),
      sync('a', { v: 5, protocolType: 'consumer', protocolName: 'range', expect: err(E.NONE, { protocolType: 'consumer', protocolName: 'range' }) }),
    ],
  }),

  scenario('testSyncGroupEmptyAssignment', {
    mirrors: 'GroupCoordinatorTest.testSyncGroupEmptyAssignment',
    description: 'the leader leaves a member out of its assignments (and names a stranger): the follower gets an empty assignment',
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      collect('a', joined(1, { leader: same('a'), members: length(2) })),
      collect('b', joined(1, { leader: same('a'), members: [] })),
      { op: 'set', name: 'stranger', value: () => 'stranger-member' },
      sync('a', { assign: ['a', 'stranger'], expect: err(E.NONE, { assignment: hex('asg:a') }) }),
      sync('b', { expect: err(E.NONE, { assignment: '' }) }),
    ],
  }),

  scenario('testSyncGroupFollowerAfterLeader', {
    mirrors: 'GroupCoordinatorTest.testSyncGroupFollowerAfterLeader / testSyncGroupLeaderAfterFollower',
    description: 'a follower that syncs before the leader is parked until the leader syncs; one that syncs after gets its assignment at once',
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      join('c', { v: 3, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      collect('c', joined(1)),
      sync('b', { wait: false }),
      parked('b'),
      heartbeat('b2', { member: ref('b'), expect: err(E.NONE) }),
      sync('a', { assign: ['a', 'b', 'c'], expect: err(E.NONE, { assignment: hex('asg:a') }) }),
      collect('b', err(E.NONE, { assignment: hex('asg:b') })),
      sync('c', { expect: err(E.NONE, { assignment: hex('asg:c') }) }),
      sync('c', { expect: err(E.NONE, { assignment: hex('asg:c') }) }),
    ],
  }),

  scenario('testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers', {
    mirrors: 'GroupCoordinatorTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers',
    description: 'the leader syncs, the follower never does: at the rebalance timeout the follower is removed and a rebalance starts',
    steps: [
      join('a', { v: 3, rebalance: 300, wait: false }),
      join('b', { v: 3, rebalance: 300, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      sync('a', { assign: ['a', 'b'], expect: err(E.NONE) }),
      heartbeat('a', { expect: err(E.NONE) }),
      wait(450),
      heartbeat('a', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      heartbeat('b', { expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 3, member: ref('a'), rebalance: 300, expect: joined(2, { members: length(1) }) }),
    ],
  }),

  scenario('testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders', {
    mirrors: 'GroupCoordinatorTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders / testLeaderFailureInSyncGroup',
    description: 'the follower syncs (parked), the leader never does: at the rebalance timeout the leader is removed, the parked sync gets REBALANCE_IN_PROGRESS',
    steps: [
      join('a', { v: 3, rebalance: 300, wait: false }),
      join('b', { v: 3, rebalance: 300, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      sync('b', { wait: false }),
      parked('b', 100),
      collect('b', err(E.REBALANCE_IN_PROGRESS), 3000),
      heartbeat('a', { expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('b', { v: 3, member: ref('b'), rebalance: 300, expect: joined(2, { leader: same('b'), members: length(1) }) }),
    ],
  }),

  scenario('testRebalanceDoesNotTimeOutWhenAllSyncAreReceived', {
    mirrors: 'GroupCoordinatorTest.testRebalanceDoesNotTimeOutWhenAllSyncAreReceived',
    description: 'everyone syncs: nothing happens at the rebalance timeout',
    steps: [
      join('a', { v: 3, rebalance: 300, wait: false }),
      join('b', { v: 3, rebalance: 300, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      sync('a', { assign: ['a', 'b'] }),
      sync('b', { expect: err(E.NONE, { assignment: hex('asg:b') }) }),
      wait(450),
      heartbeat('a', { expect: err(E.NONE) }),
      heartbeat('b', { expect: err(E.NONE) }),
    ],
  }),

  scenario('testHeartbeatErrors', {
    mirrors:
      'GroupCoordinatorTest.testHeartbeatUnknownGroup / testHeartbeatEmptyGroup / testHeartbeatUnknownConsumerExistingGroup / testHeartbeatRebalanceInProgress / testHeartbeatIllegalGeneration / testValidHeartbeat',
    description: 'Heartbeat in every state: unknown group, Empty group, unknown member → UNKNOWN_MEMBER_ID; CompletingRebalance → NONE; wrong generation → ILLEGAL_GENERATION; PreparingRebalance → REBALANCE_IN_PROGRESS; Stable → NONE',
    steps: [
      createTopic('x'),
      heartbeat('x', { member: 'm', generation: 1, group: 'nogroup', expect: err(E.UNKNOWN_MEMBER_ID) }),
      commit('x', { member: '', generation: -1, group: 'empty', expect: { topics: [{ partitions: [{ errorCode: 0 }] }] } }),
      heartbeat('x', { member: 'm', generation: 1, group: 'empty', expect: err(E.UNKNOWN_MEMBER_ID) }),
      heartbeat('x', { member: '', generation: -1, group: 'empty', expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 3, expect: joined(1) }),
      heartbeat('a', { v: 0, expect: err(E.NONE) }),
      heartbeat('x', { member: 'unknown', generation: 1, expect: err(E.UNKNOWN_MEMBER_ID) }),
      heartbeat('a', { generation: 2, expect: err(E.ILLEGAL_GENERATION) }),
      heartbeat('a', { generation: -1, expect: err(E.ILLEGAL_GENERATION) }),
      sync('a', { assign: ['a'] }),
      heartbeat('a', { v: 1, expect: err(E.NONE) }),
      heartbeat('a', { v: 2, expect: err(E.NONE) }),
      heartbeat('a', { v: 4, expect: err(E.NONE) }),
      join('b', { v: 3, wait: false }),
      heartbeat('a', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      heartbeat('a', { generation: 0, expect: err(E.ILLEGAL_GENERATION) }),
      join('a', { v: 3, member: ref('a'), expect: joined(2) }),
      collect('b', joined(2)),
    ],
    groups: ['g', 'empty', 'nogroup'],
  }),
];
