// Timers: session expiry (and what keeps a member alive), pending-member expiry, the rebalance
// timeout for dynamic members that do not rejoin, and the initial rebalance delay (KIP-134) with
// its extension. Timers are short (hundreds of ms) and the margins are ≥ 50 ms either side.
import type { Scenario } from '../runner.js';
import {
  E,
  INITIAL_DELAY,
  SETTLE,
  collect,
  commit,
  createTopic,
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
  same,
  scenario,
  sync,
  wait,
} from './dsl.js';

const D = INITIAL_DELAY;

export const groupTimerScenarios: Scenario[] = [
  scenario('testSessionTimeout', {
    mirrors: 'GroupCoordinatorTest.testSessionTimeout',
    description: 'no heartbeat for the session timeout (300 ms) → the member is removed and the group goes Empty',
    steps: [
      join('a', { v: 3, session: 300, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      wait(500),
      heartbeat('a', { expect: err(E.UNKNOWN_MEMBER_ID) }),
      describeGroups('a', { expect: { groups: [{ groupState: 'Empty', members: [] }] } }),
    ],
  }),

  scenario('testHeartbeatMaintainsSession', {
    mirrors: 'GroupCoordinatorTest.testHeartbeatMaintainsSession',
    description: 'heartbeats every 150 ms keep a 400 ms session alive for over a second',
    steps: [
      join('a', { v: 3, session: 400, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      ...[1, 2, 3, 4, 5, 6, 7].flatMap(() => [wait(150), heartbeat('a', { expect: err(E.NONE) })]),
    ],
  }),

  scenario('testCommitMaintainsSession', {
    mirrors: 'GroupCoordinatorTest.testCommitMaintainsSession',
    description: 'offset commits every 150 ms keep a 400 ms session alive',
    steps: [
      createTopic('a'),
      join('a', { v: 3, session: 400, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      ...[1, 2, 3, 4, 5].flatMap(() => [wait(150), commit('a', { v: 5, expect: { topics: [{ partitions: [{ errorCode: 0 }] }] } })]),
      heartbeat('a', { expect: err(E.NONE) }),
    ],
  }),

  scenario('testSyncMaintainsSession', {
    mirrors: 'GroupCoordinator.doSyncGroup (Stable: completeAndScheduleNextHeartbeatExpiration)',
    description: 'repeated SyncGroup calls in Stable also keep the session alive',
    steps: [
      join('a', { v: 3, session: 400, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      ...[1, 2, 3, 4, 5].flatMap(() => [wait(150), sync('a', { expect: err(E.NONE) })]),
      heartbeat('a', { expect: err(E.NONE) }),
    ],
  }),

  scenario('testSessionTimeoutDuringRebalance', {
    mirrors: 'GroupCoordinatorTest.testSessionTimeoutDuringRebalance',
    description: 'the leader rejoins; the follower heartbeats once (REBALANCE_IN_PROGRESS) then stops: its session expires and the leader alone completes gen 2',
    steps: [
      ...dynamicJoinAndSync(['a', 'b'], { session: 300 }),
      join('a', { v: 5, member: ref('a'), session: 300, rebalance: 5000, wait: false }),
      heartbeat('b', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      parked('a', 150),
      collect('a', joined(2, { members: length(1) }), 3000),
      heartbeat('b', { expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testMemberTimesOutWhileItsJoinIsParkedElsewhere', {
    mirrors: 'GroupCoordinatorTest.testSessionTimeoutDuringRebalance (member expiry while awaiting join does not happen)',
    description: 'a member whose JoinGroup is parked counts as alive: it is not expired by its session timeout while waiting for the others',
    steps: [
      ...dynamicJoinAndSync(['a', 'b'], { session: 200 }),
      join('a', { v: 5, member: ref('a'), session: 200, rebalance: 5000, wait: false }),
      ...[1, 2, 3].flatMap(() => [wait(100), heartbeat('b', { expect: err(E.REBALANCE_IN_PROGRESS) })]),
      parked('a'),
      join('b', { v: 5, member: ref('b'), session: 200, expect: joined(2) }),
      collect('a', joined(2, { members: length(2) })),
    ],
  }),

  scenario('testCompleteJoinRemoveNotYetRejoinedDynamicMembers', {
    mirrors: 'GroupMetadataManagerTest.testCompleteJoinRemoveNotYetRejoinedDynamicMembers',
    description: 'the leader rejoins, the dynamic follower keeps heartbeating but never rejoins: at the rebalance timeout it is removed and the leader completes gen 2 alone',
    steps: [
      ...dynamicJoinAndSync(['a', 'b'], { rebalance: 400 }),
      join('a', { v: 5, member: ref('a'), rebalance: 400, wait: false }),
      heartbeat('b', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      wait(150),
      heartbeat('b', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      collect('a', joined(2, { members: length(1) }), 3000),
      heartbeat('b', { expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testJoinGroupCompletionWhenPendingMemberTimesOut', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupCompletionWhenPendingMemberTimesOut / GroupMetadataManagerTest.testHeartbeatExpirationShouldRemovePendingMember',
    description: 'a pending (MEMBER_ID_REQUIRED) member blocks the join phase until it expires after its session timeout (300 ms)',
    steps: [
      ...dynamicJoinAndSync(['a']),
      join('p', { v: 5, session: 300, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('a', { v: 5, member: ref('a'), wait: false }),
      parked('a', 150),
      collect('a', joined(2, { members: length(1) }), 3000),
      join('p', { v: 5, member: ref('p'), expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testJoinGroupCompletionWhenPendingMemberJoins', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupCompletionWhenPendingMemberJoins',
    description: 'a pending member blocks the join phase until it rejoins with its id; then both get gen 2',
    steps: [
      ...dynamicJoinAndSync(['a']),
      join('p', { v: 5, session: 5000, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('a', { v: 5, member: ref('a'), wait: false }),
      parked('a', 100),
      join('p', { v: 5, member: ref('p'), expect: joined(2, { leader: same('a') }) }),
      collect('a', joined(2, { members: length(2) })),
    ],
  }),

  scenario('testNewMemberFailureAfterJoinGroupCompletion', {
    mirrors: 'GroupCoordinatorTest.testNewMemberFailureAfterJoinGroupCompletion / testNewMemberFailureAfterSyncGroupCompletion',
    description: 'a new member that joined (session 300 ms) but then goes silent is expired and the group rebalances without it',
    steps: [
      ...dynamicJoinAndSync(['a'], { session: 5000 }),
      join('b', { v: 5, session: 300, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('b', { v: 5, member: ref('b'), session: 300, wait: false }),
      join('a', { v: 5, member: ref('a'), session: 5000, expect: joined(2) }),
      collect('b', joined(2)),
      sync('a', { assign: ['a', 'b'] }),
      sync('b', { expect: err(E.NONE, { assignment: Buffer.from('asg:b').toString('hex') }) }),
      wait(500),
      heartbeat('a', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      join('a', { v: 5, member: ref('a'), session: 5000, expect: joined(3, { members: length(1) }) }),
    ],
  }),

  scenario('shouldDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup', {
    mirrors: 'GroupCoordinatorTest.shouldDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup',
    description: `a lone join completes only after the initial delay (${D} ms), not after half of it`,
    steps: [join('a', { v: 3, rebalance: 5000, wait: false }), parked('a', D / 2 - SETTLE), collect('a', joined(1), 2000)],
  }),

  scenario('shouldResetRebalanceDelayWhenNewMemberJoinsGroupInInitialRebalance', {
    mirrors: 'GroupCoordinatorTest.shouldResetRebalanceDelayWhenNewMemberJoinsGroupInInitialRebalance',
    description: 'a second joiner during the delay extends it by another delay: at 1.3×delay both are still parked; both complete at ≈2×delay',
    steps: [
      join('a', { v: 3, rebalance: 5000, wait: false }),
      wait(D * 0.6 - SETTLE),
      join('b', { v: 3, rebalance: 5000, wait: false }),
      parked('a', D * 0.95 - SETTLE),
      parked('b', 1),
      collect('a', joined(1, { members: length(2) }), 2000),
      collect('b', joined(1)),
    ],
  }),

  scenario('shouldDelayRebalanceUptoRebalanceTimeout', {
    mirrors: 'GroupCoordinatorTest.shouldDelayRebalanceUptoRebalanceTimeout',
    description: 'continuous joiners are capped by the rebalance timeout (2×delay): three joiners all complete at ≈2×delay, not 3×delay',
    steps: [
      join('a', { v: 3, rebalance: 2 * D, wait: false }),
      wait(D * 0.5 - SETTLE),
      join('b', { v: 3, rebalance: 2 * D, wait: false }),
      wait(D - SETTLE),
      join('c', { v: 3, rebalance: 2 * D, wait: false }),
      wait(D - SETTLE),
      collect('a', joined(1, { members: length(3) }), 10),
      collect('b', joined(1), 10),
      collect('c', joined(1), 10),
    ],
  }),

  scenario('testInitialDelayIsNotExtendedAfterTheGroupWasEmptyAtALaterGeneration', {
    mirrors: 'GroupCoordinator.addMemberAndRebalance (newMemberAdded only while generationId == 0, 3.x)',
    description: 'after a group emptied at generation 2, a new initial rebalance still waits the delay, but (3.x) a second joiner does not extend it: both complete at ≈1×delay',
    steps: [
      join('a', { v: 3, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      leave('a', { v: 1, expect: err(E.NONE) }),
      join('b', { v: 3, rebalance: 5000, wait: false }),
      wait(D * 0.5 - SETTLE),
      join('c', { v: 3, rebalance: 5000, wait: false }),
      wait(D - SETTLE),
      collect('b', joined(3, { members: length(2) }), 10),
      collect('c', joined(3), 2000),
    ],
  }),

  scenario('testInitialDelayAppliesOnlyFromEmpty', {
    mirrors: 'GroupCoordinator.prepareRebalance (InitialDelayedJoin only when the group is Empty)',
    description: 'a rebalance of a non-empty group completes as soon as everyone rejoined, without the initial delay',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('a', { v: 5, member: ref('a'), wait: false }),
      join('b', { v: 5, member: ref('b'), timeoutMs: 60, expect: joined(2) }),
      collect('a', joined(2), 60),
    ],
  }),
];

void leave;
