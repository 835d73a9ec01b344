// Static membership (KIP-345, KAFKA-8500/9801/10284, KIP-814): replacement with MemberId "",
// fencing of the old id on Join/Sync/Heartbeat/Commit/Leave, the static leader rejoin on v8 vs v9
// (SkipAssignment), protocol changes, and static members that do not rejoin before the rebalance
// timeout. Names follow GroupCoordinatorTest (3.9).
import type { Scenario } from '../runner.js';
import {
  E,
  collect,
  commit,
  createTopic,
  describeGroups,
  err,
  heartbeat,
  hex,
  join,
  joined,
  leave,
  length,
  notSame,
  parked,
  ref,
  same,
  scenario,
  staticJoinAndRebalance,
  sync,
  wait,
} from './dsl.js';

const SUPERSET = ['range', 'roundrobin'];

const leaderRejoinUnknownId = (v: 8 | 9): Scenario =>
  scenario(`staticMemberRejoinWithLeaderIdAndUnknownMemberId_v${v}`, {
    mirrors: `GroupCoordinatorTest.staticMemberRejoinWithLeaderIdAndUnknownMemberId(supportSkippingAssignment=${v >= 9})`,
    description:
      v >= 9
        ? 'v9: the static leader rejoining with "" gets SkipAssignment=true, Leader = its new id and every member; the old id is fenced on Join/Sync; no rebalance'
        : 'v8: the static leader rejoining with "" gets Leader = the OLD leader id and no members (acts as a follower); the old id is fenced; no rebalance',
    steps: [
      ...staticJoinAndRebalance({ v, syncV: 5 }),
      join('L', {
        v,
        instance: 'inst-L',
        as: 'L2',
        expect:
          v >= 9
            ? joined(1, { memberId: same('L2'), leader: same('L2'), skipAssignment: true, members: length(2) })
            : joined(1, { memberId: same('L2'), leader: same('L'), members: [] }),
      }),
      join('X', { v, member: ref('L'), instance: 'inst-L', expect: err(E.FENCED_INSTANCE_ID) }),
      sync('X', { v: 5, member: ref('L'), generation: 1, instance: 'inst-L', expect: err(E.FENCED_INSTANCE_ID) }),
      sync('X', { v: 5, member: ref('L'), generation: 1, expect: err(E.UNKNOWN_MEMBER_ID) }),
      sync('L', { v: 5, member: ref('L2'), generation: 1, instance: 'inst-L', expect: err(E.NONE, { assignment: hex('asg:L') }) }),
      heartbeat('F', { v: 4, instance: 'inst-F', expect: err(E.NONE) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Stable', members: length(2) }] } }),
    ],
  });

export const groupStaticScenarios: Scenario[] = [
  scenario('staticMemberReJoinWithExplicitUnknownMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberReJoinWithExplicitUnknownMemberId',
    description: 'the same instance id joining with a member id the group does not know is FENCED_INSTANCE_ID',
    steps: [
      join('L', { v: 5, instance: 'inst-L', expect: joined(1) }),
      join('X', { v: 5, instance: 'inst-L', member: 'unknown_member', expect: err(E.FENCED_INSTANCE_ID) }),
    ],
  }),

  scenario('staticMemberRejoinWithKnownMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithKnownMemberId',
    description: 'in CompletingRebalance a static rejoin with its id and the same protocols returns at once; the leader sync makes it Stable',
    steps: [
      join('L', { v: 5, instance: 'inst-L', expect: joined(1) }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), expect: joined(1, { leader: same('L'), memberId: same('L'), members: length(1) }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance' }] } }),
      sync('L', { instance: 'inst-L', assign: ['L'], expect: err(E.NONE, { assignment: hex('asg:L') }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Stable' }] } }),
    ],
  }),

  scenario('staticMemberRejoinAsFollowerWithUnknownMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinAsFollowerWithUnknownMemberId',
    description: 'Stable gen 1: the follower instance rejoins with "" → same generation, a new id, no members, no rebalance; its sync returns the old assignment; the old id is fenced',
    steps: [
      ...staticJoinAndRebalance(),
      join('F', { v: 5, instance: 'inst-F', as: 'F2', expect: joined(1, { memberId: notSame('F'), leader: same('L'), members: [] }) }),
      sync('F', { member: ref('F2'), instance: 'inst-F', expect: err(E.NONE, { assignment: hex('asg:F') }) }),
      heartbeat('X', { member: ref('F'), generation: 1, instance: 'inst-F', expect: err(E.FENCED_INSTANCE_ID) }),
      heartbeat('L', { instance: 'inst-L', expect: err(E.NONE) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Stable', members: length(2) }] } }),
    ],
  }),

  scenario('staticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange',
    description: 'the follower rejoins with its current id and unchanged protocols → NONE, gen 1, Stable, same id, no rebalance',
    steps: [
      ...staticJoinAndRebalance(),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), expect: joined(1, { memberId: same('F'), leader: same('L'), members: [] }) }),
      heartbeat('L', { instance: 'inst-L', expect: err(E.NONE) }),
    ],
  }),

  leaderRejoinUnknownId(8),
  leaderRejoinUnknownId(9),

  scenario('staticMemberRejoinWithLeaderIdAndKnownMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithLeaderIdAndKnownMemberId',
    description: 'the leader rejoins with its id → rebalance; the follower does not rejoin and its session (300 ms) expires → gen 2 with the leader alone',
    steps: [
      ...staticJoinAndRebalance({ session: 300, rebalance: 3000 }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), session: 300, rebalance: 3000, wait: false }),
      parked('L', 100),
      collect('L', joined(2, { leader: same('L'), memberId: same('L'), members: length(1) }), 5000),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(1) }] } }),
    ],
  }),

  scenario('staticMemberRejoinWithLeaderIdAndUnexpectedEmptyGroup', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithLeaderIdAndUnexpectedEmptyGroup (reached over the wire: both instances removed by an admin LeaveGroup)',
    description: 'after a batch leave by instance id empties the group, the old leader id with its instance id is UNKNOWN_MEMBER_ID',
    steps: [
      ...staticJoinAndRebalance(),
      leave('X', { v: 3, members: [{ member: '', instance: 'inst-L' }, { member: '', instance: 'inst-F' }], expect: err(E.NONE, { members: [{ errorCode: 0 }, { errorCode: 0 }] }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Empty', members: [] }] } }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), expect: err(E.UNKNOWN_MEMBER_ID) }),
      heartbeat('F', { instance: 'inst-F', expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('staticMemberRejoinWithFollowerIdAndChangeOfProtocol', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithFollowerIdAndChangeOfProtocol',
    description: 'the follower rejoins with its id offering only "roundrobin" → rebalance; the leader (static, long session) does not rejoin and is kept; the follower becomes leader at gen 2',
    steps: [
      ...staticJoinAndRebalance({ protocols: SUPERSET, rebalance: 400 }),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), protocols: ['roundrobin'], rebalance: 400, wait: false }),
      parked('F', 100),
      collect('F', joined(2, { leader: same('F'), memberId: same('F'), protocolName: 'roundrobin', members: length(2) }), 5000),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(2) }] } }),
    ],
  }),

  scenario('staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged',
    description: 'the follower rejoins with "" offering only "roundrobin", which changes the selected protocol → rebalance; its new id leads gen 2 with "roundrobin"',
    steps: [
      ...staticJoinAndRebalance({ protocols: SUPERSET, rebalance: 400 }),
      join('F', { v: 5, instance: 'inst-F', protocols: ['roundrobin'], rebalance: 400, as: 'F2', wait: false }),
      parked('F', 100),
      heartbeat('L', { instance: 'inst-L', expect: err(E.REBALANCE_IN_PROGRESS) }),
      collect('F', joined(2, { leader: same('F2'), memberId: same('F2'), protocolName: 'roundrobin' }), 5000),
    ],
  }),

  scenario('staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged',
    description: 'the follower rejoins with "" offering only the selected protocol → no rebalance, new id; the old id is fenced on Join and Sync; the new id syncs the old assignment',
    steps: [
      ...staticJoinAndRebalance({ protocols: SUPERSET }),
      join('F', { v: 5, instance: 'inst-F', protocols: ['range'], as: 'F2', expect: joined(1, { memberId: same('F2'), leader: same('L'), members: [] }) }),
      join('X', { v: 5, instance: 'inst-F', member: ref('F'), protocols: ['range'], expect: err(E.FENCED_INSTANCE_ID) }),
      sync('X', { member: ref('F'), generation: 1, instance: 'inst-F', expect: err(E.FENCED_INSTANCE_ID) }),
      sync('F', { member: ref('F2'), instance: 'inst-F', expect: err(E.NONE, { assignment: hex('asg:F') }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Stable' }] } }),
    ],
  }),

  scenario('staticMemberRejoinWithUpdatedSessionAndRebalanceTimeoutsAndPersistChange', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithUpdatedSessionAndRebalanceTimeoutsAndPersistChange',
    description: 'v9: follower then leader rejoin with "" and doubled timeouts → both NONE gen 1 Stable; the leader gets SkipAssignment and both members',
    steps: [
      ...staticJoinAndRebalance({ v: 9, syncV: 5 }),
      join('F', { v: 9, instance: 'inst-F', session: 20000, rebalance: 20000, as: 'F2', expect: joined(1, { leader: same('L'), members: [], skipAssignment: false }) }),
      join('L', { v: 9, instance: 'inst-L', session: 20000, rebalance: 20000, as: 'L2', expect: joined(1, { leader: same('L2'), skipAssignment: true, members: length(2) }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'Stable', members: length(2) }] } }),
    ],
  }),

  scenario('staticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeofProtocol', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeofProtocol',
    description: 'leader and follower rejoin with known ids → gen 2; the follower then rejoins with changed protocols during CompletingRebalance → rebalance; the leader does not rejoin; gen 3 led by the follower',
    steps: [
      ...staticJoinAndRebalance({ protocols: SUPERSET, rebalance: 400 }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), protocols: SUPERSET, rebalance: 400, wait: false }),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), protocols: SUPERSET, rebalance: 400, expect: joined(2, { leader: same('L') }) }),
      collect('L', joined(2, { leader: same('L'), members: length(2) })),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), protocols: ['roundrobin'], rebalance: 400, wait: false }),
      describeGroups('X', { expect: { groups: [{ groupState: 'PreparingRebalance' }] } }),
      collect('F', joined(3, { leader: same('F'), protocolName: 'roundrobin', members: length(2) }), 5000),
    ],
  }),

  scenario('staticMemberFenceDuplicateRejoinedFollower', {
    mirrors: 'GroupCoordinatorTest.staticMemberFenceDuplicateRejoinedFollower',
    description: 'a new member starts a rebalance; the follower rejoins (parked); a duplicate joins with "" and the same instance id → the parked old join gets FENCED_INSTANCE_ID at once',
    steps: [
      ...staticJoinAndRebalance(),
      join('C', { v: 3, wait: false }),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), wait: false }),
      parked('F'),
      join('F2', { v: 5, instance: 'inst-F', wait: false }),
      collect('F', err(E.FENCED_INSTANCE_ID, { generationId: -1 })),
      parked('F2'),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), expect: joined(2, { leader: same('L'), members: length(3) }) }),
      collect('F2', joined(2, { memberId: same('F2'), leader: same('L') })),
      collect('C', joined(2)),
    ],
  }),

  scenario('staticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged', {
    mirrors: 'GroupCoordinatorTest.staticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged',
    description: 'gen 2 CompletingRebalance; the old follower sync is parked; a duplicate joins with "" → the parked sync gets FENCED_INSTANCE_ID and a rebalance starts; the duplicate leads gen 3',
    steps: [
      ...staticJoinAndRebalance({ rebalance: 400 }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), rebalance: 400, wait: false }),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), rebalance: 400, expect: joined(2) }),
      collect('L', joined(2, { leader: same('L') })),
      sync('F', { instance: 'inst-F', wait: false }),
      parked('F'),
      join('F2', { v: 5, instance: 'inst-F', rebalance: 400, wait: false }),
      collect('F', err(E.FENCED_INSTANCE_ID)),
      describeGroups('X', { expect: { groups: [{ groupState: 'PreparingRebalance' }] } }),
      collect('F2', joined(3, { leader: same('F2'), memberId: same('F2') }), 5000),
    ],
  }),

  scenario('staticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged', {
    mirrors: 'GroupCoordinatorTest.staticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged',
    description: 'the leader rejoins (rebalance); a duplicate follower joins with "" (replacement while PreparingRebalance completes the join); the old follower id is then fenced',
    steps: [
      ...staticJoinAndRebalance(),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), wait: false }),
      join('F2', { v: 5, instance: 'inst-F', wait: false }),
      collect('L', joined(2, { leader: same('L'), members: length(2) })),
      collect('F2', joined(2, { leader: same('L'), memberId: same('F2') })),
      join('F', { v: 5, instance: 'inst-F', member: ref('F'), expect: err(E.FENCED_INSTANCE_ID) }),
    ],
  }),

  scenario('testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance', {
    mirrors: 'GroupMetadataManagerTest.testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance (KAFKA-9801)',
    description: 'a static replacement during CompletingRebalance always starts a new rebalance',
    steps: [
      join('L', { v: 5, instance: 'inst-L', wait: false }),
      join('F', { v: 5, instance: 'inst-F', wait: false }),
      collect('L', joined(1)),
      collect('F', joined(1)),
      join('F2', { v: 5, instance: 'inst-F', wait: false }),
      parked('F2'),
      describeGroups('X', { expect: { groups: [{ groupState: 'PreparingRebalance' }] } }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), expect: joined(2, { leader: same('L') }) }),
      collect('F2', joined(2, { memberId: same('F2') })),
    ],
  }),

  scenario('staticMemberRejoinWithMismatchedMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberRejoinAsFollowerWithMismatchedMemberId / staticMemberRejoinAsLeaderWithMismatchedMemberId',
    description: "the follower's id with the leader's instance id (and the reverse) is FENCED_INSTANCE_ID",
    steps: [
      ...staticJoinAndRebalance(),
      join('X', { v: 5, member: ref('F'), instance: 'inst-L', expect: err(E.FENCED_INSTANCE_ID) }),
      join('X', { v: 5, member: ref('L'), instance: 'inst-F', expect: err(E.FENCED_INSTANCE_ID) }),
      heartbeat('L', { instance: 'inst-L', expect: err(E.NONE) }),
    ],
  }),

  scenario('staticMemberJoinWithUnknownInstanceIdAndKnownMemberId', {
    mirrors: 'GroupCoordinatorTest.staticMemberJoinWithUnknownInstanceIdAndKnownMemberId',
    description: "the leader's valid member id with an unknown instance id is UNKNOWN_MEMBER_ID",
    steps: [...staticJoinAndRebalance(), join('X', { v: 5, member: ref('L'), instance: 'unknown_instance', expect: err(E.UNKNOWN_MEMBER_ID) })],
  }),

  scenario('staticMemberFencingOnEveryApi', {
    mirrors:
      'GroupCoordinatorTest.staticMemberSyncAsLeaderWithInvalidMemberId / staticMemberHeartbeatLeaderWithInvalidMemberId / staticMemberCommitOffsetWithInvalidMemberId / testLeaveGroupWithFencedInstanceId',
    description: 'SyncGroup, Heartbeat, OffsetCommit and LeaveGroup with "invalidMember" plus the leader instance id → FENCED_INSTANCE_ID; the valid id → NONE',
    steps: [
      createTopic('X'),
      ...staticJoinAndRebalance(),
      sync('X', { member: 'invalidMember', generation: 1, instance: 'inst-L', expect: err(E.FENCED_INSTANCE_ID) }),
      sync('L', { expect: err(E.NONE, { assignment: hex('asg:L') }) }),
      heartbeat('X', { member: 'invalidMember', generation: 1, instance: 'inst-L', expect: err(E.FENCED_INSTANCE_ID) }),
      heartbeat('L', { expect: err(E.NONE) }),
      commit('X', { member: 'invalidMember', generation: 1, instance: 'inst-L', expect: { topics: [{ partitions: [{ errorCode: E.FENCED_INSTANCE_ID }] }] } }),
      commit('L', { instance: 'inst-L', expect: { topics: [{ partitions: [{ errorCode: 0 }] }] } }),
      commit('X', { v: 9, member: 'invalidMember', generation: 1, instance: 'inst-L', expect: { topics: [{ partitions: [{ errorCode: E.FENCED_INSTANCE_ID }] }] } }),
      leave('X', { v: 3, members: [{ member: 'some_member', instance: 'inst-L' }], expect: err(E.NONE, { members: [{ errorCode: E.FENCED_INSTANCE_ID }] }) }),
      leave('X', { v: 5, members: [{ member: 'some_member', instance: 'inst-L', reason: 'test' }], expect: err(E.NONE, { members: [{ errorCode: E.FENCED_INSTANCE_ID }] }) }),
      heartbeat('L', { v: 4, instance: 'inst-L', expect: err(E.NONE) }),
    ],
  }),

  scenario('shouldGetDifferentStaticMemberIdAfterEachRejoin', {
    mirrors: 'GroupCoordinatorTest.shouldGetDifferentStaticMemberIdAfterEachRejoin',
    description: 'five successive rejoins with "" in Stable give five distinct ids starting with the instance id; the generation stays 1',
    steps: [
      join('L', { v: 5, instance: 'inst-L', expect: joined(1) }),
      sync('L', { instance: 'inst-L', assign: ['L'] }),
      ...[1, 2, 3, 4, 5].map((i) => join('L', { v: 5, instance: 'inst-L', as: `L${i}`, expect: joined(1, { memberId: notSame(i === 1 ? 'L' : `L${i - 1}`) }) })),
      sync('L', { member: ref('L5'), instance: 'inst-L', expect: err(E.NONE, { assignment: hex('asg:L') }) }),
    ],
  }),

  scenario('testJoinGroupExistingPendingMemberWithGroupInstanceIdThrowsException', {
    mirrors: 'GroupMetadataManagerTest.testJoinGroupExistingPendingMemberWithGroupInstanceIdThrowsException / GroupCoordinator.doCurrentMemberJoinGroup',
    description: 'a pending (MEMBER_ID_REQUIRED) member id rejoining with an instance id: the coordinator throws IllegalStateException, which KafkaApis answers as UNKNOWN_SERVER_ERROR',
    steps: [
      join('a', { v: 5, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('a', { v: 5, member: ref('a'), instance: 'inst-a', expect: err(E.UNKNOWN_SERVER_ERROR) }),
      join('a', { v: 5, member: ref('a'), expect: joined(1) }),
    ],
  }),

  scenario('testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout', {
    mirrors: 'GroupCoordinatorTest.testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout',
    description: 'a new static member starts a rebalance, the leader rejoins, the follower never does: after the rebalance timeout gen 2 keeps all three static members',
    steps: [
      ...staticJoinAndRebalance({ rebalance: 400 }),
      join('C', { v: 5, instance: 'inst-C', rebalance: 400, wait: false }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), rebalance: 400, wait: false }),
      parked('L', 100),
      collect('L', joined(2, { leader: same('L'), members: length(3) }), 5000),
      collect('C', joined(2, { leader: same('L') })),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(3) }] } }),
    ],
  }),

  scenario('testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout', {
    mirrors: 'GroupCoordinatorTest.testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout',
    description: 'a new static member starts a rebalance; neither leader nor follower rejoins: after the timeout the only rejoined member leads gen 2 and all three are kept',
    steps: [
      ...staticJoinAndRebalance({ rebalance: 400 }),
      join('C', { v: 5, instance: 'inst-C', rebalance: 400, wait: false }),
      parked('C', 100),
      collect('C', joined(2, { leader: same('C'), members: length(3) }), 5000),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(3) }] } }),
    ],
  }),

  scenario('testLeaderFailToRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout', {
    mirrors: 'GroupCoordinatorTest.testLeaderFailToRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout / GroupMetadataManagerTest.testCompleteJoinPhaseNoMembersRejoinedExtendsJoinPhase',
    description: 'the follower leaves; the static leader never rejoins: the join phase is extended (no member rejoined) until its session expires; the group is then Empty and the next joiner gets gen 3',
    steps: [
      ...staticJoinAndRebalance({ session: 900, rebalance: 300 }),
      leave('F', { v: 3, members: [{ member: ref('F'), instance: 'inst-F' }], expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      heartbeat('L', { instance: 'inst-L', expect: err(E.REBALANCE_IN_PROGRESS) }),
      wait(450),
      describeGroups('X', { expect: { groups: [{ groupState: 'PreparingRebalance', members: length(1) }] } }),
      wait(900),
      describeGroups('X', { expect: { groups: [{ groupState: 'Empty', members: [] }] } }),
      join('N', { v: 3, expect: joined(3) }),
    ],
  }),

  scenario('testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout', {
    mirrors: 'GroupCoordinatorTest.testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout',
    description: 'the follower leaves; the join phase is extended; the static leader then rejoins with "" → it alone completes gen 2',
    steps: [
      ...staticJoinAndRebalance({ session: 900, rebalance: 300 }),
      leave('F', { v: 3, members: [{ member: ref('F'), instance: 'inst-F' }], expect: err(E.NONE, { members: [{ errorCode: 0 }] }) }),
      wait(450),
      join('L', { v: 5, instance: 'inst-L', session: 900, rebalance: 300, as: 'L2', expect: joined(2, { leader: same('L2'), memberId: same('L2'), members: length(1) }) }),
      describeGroups('X', { expect: { groups: [{ groupState: 'CompletingRebalance', members: length(1) }] } }),
    ],
  }),
];
