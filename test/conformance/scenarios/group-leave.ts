// LeaveGroup v0-v5: single and batch (KIP-345) leaves, by member id and by instance id, pending
// members, unknown groups, fencing. Names follow GroupCoordinatorTest (3.9).
import type { Scenario } from '../runner.js';
import {
  E,
  collect,
  describeGroups,
  dynamicJoinAndSync,
  err,
  heartbeat,
  join,
  joined,
  leave,
  length,
  parked,
  ref,
  scenario,
  send,
  staticJoinAndRebalance,
  close,
  commit,
  createTopic,
  fetchOffsets,
  wait,
} from './dsl.js';

export const groupLeaveScenarios: Scenario[] = [
  scenario('testLeaveGroupUnknownGroup', {
    mirrors: 'GroupCoordinatorTest.testLeaveGroupUnknownGroup / testStaticMembersUnknownGroupBatchLeaveGroup',
    description: 'unknown group: v0-2 answer UNKNOWN_MEMBER_ID; v3+ answer NONE with UNKNOWN_MEMBER_ID per member',
    steps: [
      ...[0, 1, 2].map((v) => leave('a', { v, member: 'm', expect: err(E.UNKNOWN_MEMBER_ID) })),
      leave('a', { v: 3, members: [{ member: 'm' }, { member: '', instance: 'i' }], expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }, { errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      leave('a', { v: 4, members: [{ member: '', instance: 'i' }], expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      leave('a', { v: 5, members: [{ member: 'm', reason: 'bye' }], expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      leave('a', { v: 3, members: [], expect: err(E.NONE, { members: [] }) }),
    ],
  }),

  scenario('testLeaveGroupUnknownConsumerExistingGroup', {
    mirrors: 'GroupCoordinatorTest.testLeaveGroupUnknownConsumerExistingGroup',
    description: 'an unknown member id leaving an existing group → UNKNOWN_MEMBER_ID (v0 top level, v3 per member); "" with no instance id → UNKNOWN_MEMBER_ID',
    steps: [
      join('a', { v: 3, expect: joined(1) }),
      leave('x', { v: 0, member: 'unknown', expect: err(E.UNKNOWN_MEMBER_ID) }),
      leave('x', { v: 3, members: [{ member: 'unknown' }], expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      leave('x', { v: 3, members: [{ member: '' }], expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      leave('x', { v: 1, member: '', expect: err(E.UNKNOWN_MEMBER_ID) }),
      heartbeat('a', { expect: err(E.NONE) }),
    ],
  }),

  scenario('testValidLeaveGroup', {
    mirrors: 'GroupCoordinatorTest.testValidLeaveGroup',
    description: 'the only member leaves (v0): NONE, the group is Empty; a second leave is UNKNOWN_MEMBER_ID',
    steps: [
      join('a', { v: 3, expect: joined(1) }),
      sync('a'),
      leave('a', { v: 0, expect: err(E.NONE) }),
      describeGroups('a', { expect: { groups: [{ groupState: 'Empty' }] } }),
      leave('a', { v: 0, expect: err(E.UNKNOWN_MEMBER_ID) }),
      heartbeat('a', { expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testLeaveGroupFollowerTriggersRebalance', {
    mirrors: 'GroupCoordinator.removeMemberAndUpdateGroup (Stable → PreparingRebalance)',
    description: 'a follower leaving a Stable group starts a rebalance the leader sees as REBALANCE_IN_PROGRESS; the leader alone completes the next generation at once',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      leave('b', { v: 4, expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      heartbeat('a', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      join('a', { v: 5, member: ref('a'), expect: joined(2, { members: length(1) }) }),
    ],
  }),

  scenario('testLeaveGroupLeaderWhileCompletingRebalance', {
    mirrors: 'GroupCoordinator.removeMemberAndUpdateGroup (CompletingRebalance: parked syncs fail)',
    description: 'the leader leaves while a follower sync is parked in CompletingRebalance: the sync gets REBALANCE_IN_PROGRESS',
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      sync('b', { wait: false }),
      parked('b'),
      leave('a', { v: 2, expect: err(E.NONE) }),
      collect('b', err(E.REBALANCE_IN_PROGRESS)),
      join('b', { v: 3, member: ref('b'), expect: joined(2, { members: length(1) }) }),
    ],
  }),

  scenario('testLeaveGroupWhileJoinParked', {
    mirrors: 'GroupCoordinator.removeCurrentMemberFromGroup (a parked join of the leaving member)',
    description: "a member leaves on another connection while its own JoinGroup is parked: the parked join is answered UNKNOWN_MEMBER_ID and the rebalance completes without it",
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('a', { v: 5, member: ref('a'), wait: false }),
      join('b', { v: 5, member: ref('b'), protocols: [{ name: 'range', metadata: Buffer.from('new') }], wait: false }),
      collect('a', joined(2)),
      collect('b', joined(2)),
      join('b', { v: 5, member: ref('b'), protocols: [{ name: 'range', metadata: Buffer.from('newer') }], wait: false }),
      parked('b'),
      leave('b2', { v: 3, members: [{ member: ref('b') }], expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      collect('b', err(E.UNKNOWN_MEMBER_ID, { memberId: '' })),
      join('a', { v: 5, member: ref('a'), expect: joined(3, { members: length(1) }) }),
    ],
  }),

  scenario('testStaticMembersBatchLeaveGroup', {
    mirrors:
      'GroupCoordinatorTest.testStaticMembersValidBatchLeaveGroup / testStaticMembersFencedInstanceBatchLeaveGroup / testStaticMembersUnknownInstanceBatchLeaveGroup / testLeaveGroupStaticMemberWithUnknownMemberId',
    description: 'batch leave by instance id: [leader, (follower, "invalid-member")] → [NONE, FENCED]; [unknown-instance, follower] → [UNKNOWN, NONE]; member ids are echoed',
    steps: [
      ...staticJoinAndRebalance(),
      leave('X', {
        v: 3,
        members: [{ member: '', instance: 'inst-L' }, { member: 'invalid-member', instance: 'inst-F' }],
        expect: err(E.NONE, { members: [{ memberId: '', groupInstanceId: 'inst-L', errorCode: 0 }, { memberId: 'invalid-member', groupInstanceId: 'inst-F', errorCode: E.FENCED_INSTANCE_ID }] }),
      }),
      leave('X', {
        v: 5,
        members: [{ member: '', instance: 'unknown-instance' }, { member: '', instance: 'inst-F', reason: 'member was removed by an admin' }],
        expect: err(E.NONE, { members: [{ errorCode: E.UNKNOWN_MEMBER_ID }, { errorCode: 0 }] }),
      }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Empty', members: [] }] } }),
    ],
  }),

  scenario('testStaticMembersValidBatchLeaveGroupOneByOne', {
    mirrors: 'GroupCoordinatorTest.testStaticMembersValidBatchLeaveGroup / testLeaveGroupStaticMemberWithUnknownMemberId',
    description: 'single identities: ("", leader instance) → [NONE]; then the follower by its own member id and instance id → [NONE]',
    steps: [
      ...staticJoinAndRebalance(),
      leave('X', { v: 3, members: [{ member: '', instance: 'inst-L' }], expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      heartbeat('F', { instance: 'inst-F', expect: err(E.REBALANCE_IN_PROGRESS) }),
      leave('F', { v: 4, members: [{ member: ref('F'), instance: 'inst-F' }], expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Empty' }] } }),
    ],
  }),

  scenario('testPendingMembersLeavesGroup', {
    mirrors: 'GroupCoordinatorTest.testPendingMembersLeavesGroup / testPendingMemberBatchLeaveGroup',
    description: 'a pending (MEMBER_ID_REQUIRED) member leaves → NONE, and its id is then unknown; a batch [pending id, unknown instance] → [NONE, UNKNOWN_MEMBER_ID]',
    steps: [
      ...dynamicJoinAndSync(['a']),
      join('p', { v: 5, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('q', { v: 5, expect: err(E.MEMBER_ID_REQUIRED) }),
      leave('p', { v: 2, member: ref('p'), expect: err(E.NONE) }),
      join('p', { v: 5, member: ref('p'), expect: err(E.UNKNOWN_MEMBER_ID) }),
      leave('q', { v: 3, members: [{ member: ref('q') }, { member: '', instance: 'unknown-instance' }], expect: err(E.NONE, { members: [{ errorCode: 0 }, { errorCode: E.UNKNOWN_MEMBER_ID }] }) }),
      heartbeat('a', { expect: err(E.NONE) }),
    ],
  }),

  scenario('testJoinedMemberPendingMemberBatchLeaveGroup', {
    mirrors: 'GroupMetadataManagerTest.testJoinedMemberPendingMemberBatchLeaveGroup / …WithUnknownMember',
    description: 'one batch removes a joined member, a pending member and names an unknown one → [NONE, NONE, UNKNOWN_MEMBER_ID]; the group rebalances',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('p', { v: 5, expect: err(E.MEMBER_ID_REQUIRED) }),
      leave('x', {
        v: 3,
        members: [{ member: ref('b') }, { member: ref('p') }, { member: 'unknown' }],
        expect: err(E.NONE, { members: [{ errorCode: 0 }, { errorCode: 0 }, { errorCode: E.UNKNOWN_MEMBER_ID }] }),
      }),
      heartbeat('a', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      join('a', { v: 5, member: ref('a'), expect: joined(2, { members: length(1) }) }),
    ],
  }),

  scenario('testQueuedRequestsDroppedWhenClientDisconnectsBehindParkedJoin', {
    mirrors: 'SocketServer (a muted channel: requests behind a parked JoinGroup are not read; closing the connection discards them)',
    description:
      'member b\'s JoinGroup parks; three OffsetCommits (simple groups h, h2, h3) are queued behind it on the same connection; the client disconnects; the rebalance completes with b: Kafka then reads and handles the first queued request, fails to answer it on the closed socket and drops the rest',
    steps: [
      createTopic('x'),
      join('a', { v: 3, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      join('b', { v: 3, wait: false }),
      commit('b', { v: 7, group: 'h', member: '', generation: -1, offsets: [[0, 99]], wait: false }),
      commit('b', { v: 7, group: 'h2', member: '', generation: -1, offsets: [[0, 98]], wait: false }),
      commit('b', { v: 7, group: 'h3', member: '', generation: -1, offsets: [[0, 97]], wait: false }),
      close('b'),
      join('a', { v: 3, member: ref('a'), expect: joined(2, { members: length(2) }) }),
      wait(100),
      fetchOffsets('x', { v: 8, groups: ['h', 'h2', 'h3'] }),
      describeGroups('x', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(2) }] } }),
    ],
    groups: ['g', 'h', 'h2', 'h3'],
  }),

  scenario('testLeaveGroupVersions', {
    mirrors: 'KafkaApis.handleLeaveGroupRequest (v0-2 single member, v3+ batch)',
    description: 'the answer shape of every LeaveGroup version (v1+ throttle time, v3+ members, v5 reason)',
    steps: [
      ...[0, 1, 2, 3, 4, 5].flatMap((v) => [
        join(`m${v}`, { v: 3, group: `g${v}`, expect: joined(1) }),
        leave(`m${v}`, { v, group: `g${v}`, expect: err(E.NONE) }),
      ]),
      send('x', 13, 5, (c) => ({ groupId: c.g('g5'), members: [{ memberId: 'a', groupInstanceId: null, reason: null }] }), { label: 'leave null reason' }),
    ],
    groups: ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'],
  }),
];

import { sync } from './dsl.js';
