// JoinGroup: validation, the KIP-394 two-step join, every version's answer shape, protocols,
// session-timeout bounds, unknown members and group.max.size. Names follow Kafka 3.9's
// GroupCoordinatorTest (core/src/test/scala/unit/kafka/coordinator/group/) where there is one.
import type { Scenario, Step } from '../runner.js';
import {
  E,
  collect,
  commit,
  createTopic,
  describeGroups,
  dynamicJoinAndSync,
  err,
  fetchOffsets,
  heartbeat,
  join,
  joined,
  leave,
  length,
  notSame,
  parked,
  ref,
  same,
  scenario,
  send,
  sync,
  unordered,
  hex,
  subscription,
} from './dsl.js';

/** Versions of the other group APIs a client speaking JoinGroup vN uses alongside it. */
const CLIENT_PROFILE: Record<number, { sync: number; hb: number; leave: number; commit: number; fetch: number; describe: number }> = {
  0: { sync: 0, hb: 0, leave: 0, commit: 2, fetch: 1, describe: 0 },
  1: { sync: 0, hb: 0, leave: 0, commit: 2, fetch: 2, describe: 0 },
  2: { sync: 1, hb: 1, leave: 1, commit: 3, fetch: 3, describe: 1 },
  3: { sync: 2, hb: 2, leave: 2, commit: 4, fetch: 4, describe: 2 },
  4: { sync: 2, hb: 2, leave: 2, commit: 5, fetch: 5, describe: 3 },
  5: { sync: 3, hb: 3, leave: 3, commit: 7, fetch: 5, describe: 4 },
  6: { sync: 4, hb: 4, leave: 4, commit: 8, fetch: 6, describe: 5 },
  7: { sync: 5, hb: 4, leave: 4, commit: 8, fetch: 7, describe: 5 },
  8: { sync: 5, hb: 4, leave: 5, commit: 8, fetch: 8, describe: 5 },
  9: { sync: 5, hb: 4, leave: 5, commit: 9, fetch: 9, describe: 5 },
};

/** A whole dynamic-member life at JoinGroup vN (testValidJoinGroup and friends, per version). */
function versionLife(v: number): Scenario {
  const p = CLIENT_PROFILE[v];
  const steps: Step[] = [createTopic('a', 'x')];
  if (v >= 4) steps.push(join('a', { v, expect: err(E.MEMBER_ID_REQUIRED, { generationId: -1, memberId: notSame('nothing') }) }));
  steps.push(
    join('a', { v, member: ref('a', ''), reason: v >= 8 ? 'conformance' : null, expect: joined(1, { leader: same('a'), memberId: same('a'), members: length(1) }) }),
    sync('a', { v: p.sync, assign: ['a'], expect: err(E.NONE, { assignment: hex('asg:a') }) }),
    heartbeat('a', { v: p.hb, expect: err(E.NONE) }),
    commit('a', { v: p.commit, topic: 'x', offsets: [[0, 7]], expect: { topics: [{ partitions: [{ errorCode: 0 }] }] } }),
    fetchOffsets('a', { v: p.fetch, topics: [{ topic: 'x', partitions: [0] }] }),
    describeGroups('a', { v: p.describe, expect: { groups: [{ errorCode: 0, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', members: length(1) }] } }),
    leave('a', { v: p.leave }),
    describeGroups('a', { v: p.describe, expect: { groups: [{ errorCode: 0, groupState: 'Empty', members: [] }] } }),
  );
  return scenario(`testValidJoinGroup_v${v}`, {
    mirrors: 'GroupCoordinatorTest.testValidJoinGroup',
    description: `a dynamic member's whole life at JoinGroup v${v} (Sync v${p.sync}, Heartbeat v${p.hb}, OffsetCommit v${p.commit}, OffsetFetch v${p.fetch}, DescribeGroups v${p.describe}, LeaveGroup v${p.leave})`,
    steps,
  });
}

export const groupJoinScenarios: Scenario[] = [
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(versionLife),

  scenario('testJoinGroupSecondJoinInconsistentProtocol', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupSecondJoinInconsistentProtocol',
    description: 'KIP-394: MEMBER_ID_REQUIRED, then a rejoin with no protocols is INCONSISTENT_GROUP_PROTOCOL, then a valid rejoin completes after the initial delay',
    steps: [
      join('a', { v: 5, expect: err(E.MEMBER_ID_REQUIRED, { generationId: -1 }) }),
      join('a', { v: 5, member: ref('a'), protocols: [], expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      join('a', { v: 5, member: ref('a'), wait: false }),
      parked('a', 40),
      collect('a', joined(1, { leader: same('a') })),
    ],
  }),

  scenario('testJoinGroupUnknownConsumerNewGroup', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupUnknownConsumerNewGroup',
    description: 'a join with a member id to a group that does not exist is UNKNOWN_MEMBER_ID (dynamic and static) and does not create it',
    steps: [
      join('a', { v: 5, member: 'memberId', expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 5, member: 'memberId', instance: 'group-instance-id', expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 1, member: 'memberId', expect: err(E.UNKNOWN_MEMBER_ID) }),
      describeGroups('a', { expect: { groups: [{ errorCode: 0, groupState: 'Dead' }] } }),
    ],
  }),

  scenario('testJoinGroupSessionTimeoutTooSmall', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupSessionTimeoutTooSmall',
    description: 'session timeout below group.min.session.timeout.ms (10) is INVALID_SESSION_TIMEOUT; exactly the minimum is accepted',
    steps: [
      join('a', { v: 5, session: 9, expect: err(E.INVALID_SESSION_TIMEOUT) }),
      join('a', { v: 0, session: 9, expect: err(E.INVALID_SESSION_TIMEOUT) }),
      join('a', { v: 5, session: 9, instance: 'i', expect: err(E.INVALID_SESSION_TIMEOUT) }),
      join('a', { v: 5, session: 10, expect: err(E.MEMBER_ID_REQUIRED) }),
    ],
  }),

  scenario('testJoinGroupSessionTimeoutTooLarge', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupSessionTimeoutTooLarge',
    description: 'session timeout above group.max.session.timeout.ms (600000) is INVALID_SESSION_TIMEOUT; exactly the maximum is accepted; the rebalance timeout is not range-checked',
    steps: [
      join('a', { v: 5, session: 600001, expect: err(E.INVALID_SESSION_TIMEOUT) }),
      join('a', { v: 9, session: 600001, member: 'x', expect: err(E.INVALID_SESSION_TIMEOUT) }),
      join('a', { v: 5, session: 600000, rebalance: 1, expect: err(E.MEMBER_ID_REQUIRED) }),
    ],
  }),

  scenario('testInvalidGroupId', {
    mirrors: 'GroupCoordinatorTest.testInvalidGroupId',
    description: 'an empty group id is INVALID_GROUP_ID for JoinGroup, SyncGroup, Heartbeat and LeaveGroup',
    steps: [
      join('a', { v: 5, groupId: '', expect: err(E.INVALID_GROUP_ID) }),
      join('a', { v: 0, groupId: '', expect: err(E.INVALID_GROUP_ID) }),
      send('a', 14, 3, { groupId: '', generationId: 1, memberId: 'm', assignments: [] }, { expect: err(E.INVALID_GROUP_ID) }),
      send('a', 12, 3, { groupId: '', generationId: 1, memberId: 'm' }, { expect: err(E.INVALID_GROUP_ID) }),
      send('a', 13, 0, { groupId: '', memberId: 'm' }, { expect: err(E.INVALID_GROUP_ID) }),
      send('a', 13, 3, { groupId: '', members: [{ memberId: 'm' }] }, { expect: err(E.INVALID_GROUP_ID, { members: [] }) }),
    ],
  }),

  scenario('testJoinGroupWithEmptyProtocolType', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupWithEmptyProtocolType',
    description: 'ProtocolType "" on a new group is INCONSISTENT_GROUP_PROTOCOL for dynamic and static members (before MEMBER_ID_REQUIRED); what the group looks like afterwards',
    steps: [
      join('a', { v: 5, protocolType: '', expect: err(E.INCONSISTENT_GROUP_PROTOCOL, { memberId: '' }) }),
      join('a', { v: 7, protocolType: '', instance: 'i', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      join('a', { v: 3, protocolType: '', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      describeGroups('a'),
      { op: 'send', conn: 'a', api: 16, version: 4, body: { statesFilter: [], typesFilter: [] }, label: 'list-groups' },
    ],
  }),

  scenario('testJoinGroupWithEmptyGroupProtocol', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupWithEmptyGroupProtocol',
    description: 'an empty protocol list on a new group is INCONSISTENT_GROUP_PROTOCOL for dynamic and static members',
    steps: [
      join('a', { v: 5, protocols: [], expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      join('a', { v: 9, protocols: [], instance: 'i', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
    ],
  }),

  scenario('testJoinGroupInconsistentProtocolType', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupInconsistentProtocolType',
    description: 'after a "consumer" member joined (parked), a "connect" member gets INCONSISTENT_GROUP_PROTOCOL at once',
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, protocolType: 'connect', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      join('c', { v: 5, protocolType: 'connect', expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      collect('a', joined(1, { members: length(1) })),
    ],
  }),

  scenario('testJoinGroupInconsistentGroupProtocol', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupInconsistentGroupProtocol',
    description: 'member A offers only "range" (parked); member B offers only "roundrobin" → INCONSISTENT_GROUP_PROTOCOL at once; A completes after the delay',
    steps: [
      join('a', { v: 3, protocols: ['range'], wait: false }),
      join('b', { v: 3, protocols: ['roundrobin'], expect: err(E.INCONSISTENT_GROUP_PROTOCOL) }),
      join('c', { v: 3, protocols: ['roundrobin', 'range'], wait: false }),
      collect('a', joined(1, { protocolName: 'range', members: length(2) })),
      collect('c', joined(1, { protocolName: 'range' })),
    ],
  }),

  scenario('testJoinGroupUnknownConsumerExistingGroup', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupUnknownConsumerExistingGroup',
    description: 'a join with an unknown non-empty member id to an existing group is UNKNOWN_MEMBER_ID, in CompletingRebalance and in Stable',
    steps: [
      join('a', { v: 3, expect: joined(1) }),
      join('b', { v: 5, member: 'memberId', expect: err(E.UNKNOWN_MEMBER_ID) }),
      sync('a', { assign: ['a'] }),
      join('b', { v: 5, member: 'memberId', expect: err(E.UNKNOWN_MEMBER_ID) }),
      join('b', { v: 7, member: 'memberId', instance: 'unknown-instance', expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testJoinGroupReturnsTheProtocolType', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupReturnsTheProtocolType / testJoinGroupProtocolTypeIsNotProvidedWhenAnErrorOccurs',
    description: 'v7+ answers carry ProtocolType on success and null on errors',
    steps: [
      join('a', { v: 7, expect: err(E.MEMBER_ID_REQUIRED, { protocolType: null, protocolName: null }) }),
      join('b', { v: 7, member: 'unknown', expect: err(E.UNKNOWN_MEMBER_ID, { protocolType: null }) }),
      join('a', { v: 7, member: ref('a'), expect: joined(1, { protocolName: 'range' }) }),
      join('a', { v: 9, member: ref('a'), protocolType: 'connect', expect: err(E.INCONSISTENT_GROUP_PROTOCOL, { protocolType: null, protocolName: null }) }),
    ],
  }),

  scenario('staticMemberJoinAsFirstMember', {
    mirrors: 'GroupCoordinatorTest.staticMemberJoinAsFirstMember',
    description: 'a static member joining with "" gets no MEMBER_ID_REQUIRED at any version ≥ 5; its id starts with the instance id',
    steps: [
      join('a', { v: 5, instance: 'inst-a', wait: false }),
      parked('a', 40),
      collect('a', joined(1, { leader: same('a'), memberId: same('a') })),
      join('b', { v: 9, instance: 'inst-b', group: 'h', expect: joined(1) }),
    ],
    groups: ['g', 'h'],
  }),

  scenario('testJoinGroupFromUnchangedFollowerDoesNotRebalance', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupFromUnchangedFollowerDoesNotRebalance',
    description: 'in Stable, a follower rejoining with the same metadata gets the current generation at once (no rebalance)',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('b', { v: 5, member: ref('b'), expect: joined(1, { leader: same('a'), members: [] }) }),
      heartbeat('a', { expect: err(E.NONE) }),
      describeGroups('a', { expect: { groups: [{ groupState: 'Stable' }] } }),
    ],
  }),

  scenario('testJoinGroupFromUnchangedLeaderShouldRebalance', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupFromUnchangedLeaderShouldRebalance',
    description: 'in Stable, the leader rejoining with the same metadata starts a rebalance (next generation)',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('a', { v: 5, member: ref('a'), wait: false }),
      parked('a'),
      heartbeat('b', { expect: err(E.REBALANCE_IN_PROGRESS) }),
      describeGroups('c', { expect: { groups: [{ groupState: 'PreparingRebalance' }] } }),
      join('b', { v: 5, member: ref('b'), expect: joined(2, { leader: same('a'), members: [] }) }),
      collect('a', joined(2, { leader: same('a'), members: length(2) })),
    ],
  }),

  scenario('testJoinGroupExistingMemberUpdatedMetadataTriggersRebalance', {
    mirrors: 'GroupMetadataManagerTest.testJoinGroupAsExistingMemberWithUpdatedMetadataTriggersRebalanceInStableState',
    description: 'a follower rejoining with changed metadata in Stable starts a rebalance',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('b', { v: 5, member: ref('b'), protocols: [{ name: 'range', metadata: subscription(['t', 'u']) }], wait: false }),
      parked('b'),
      join('a', { v: 5, member: ref('a'), expect: joined(2, { members: length(2) }) }),
      collect('b', joined(2, { members: [] })),
    ],
  }),

  scenario('testJoinGroupCompletionWithUnparseableConsumerMetadata', {
    mirrors: 'GroupMetadata.computeSubscribedTopics (3.9 parses "consumer" metadata when a join phase completes)',
    description:
      'protocol type "consumer" with member metadata that is not a ConsumerProtocolSubscription ("changed"): Kafka 3.9 fails the completing JoinGroup with UNKNOWN_SERVER_ERROR and never answers the other parked join',
    steps: [
      ...dynamicJoinAndSync(['a', 'b']),
      join('b', { v: 5, member: ref('b'), protocols: [{ name: 'range', metadata: Buffer.from('changed') }], wait: false }),
      // What kmock answers instead of copying the defect (asserted: causes.ts consumer-metadata-parse-failure).
      join('a', { v: 5, member: ref('a'), timeoutMs: 1500, expect: joined(2, { leader: same('a'), members: length(2) }) }),
      collect('b', joined(2, { leader: same('a'), members: [] }), 300),
    ],
  }),

  scenario('testRejoinInCompletingRebalanceSameProtocols', {
    mirrors: 'GroupMetadataManagerTest (classicGroupJoinExistingMember, CompletingRebalance)',
    description: 'in CompletingRebalance a rejoin with byte-identical protocols returns the generation at once (leader gets the members); changed protocols start a new rebalance and fail the parked follower sync',
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      join('a', { v: 3, member: ref('a'), expect: joined(1, { leader: same('a'), members: length(2) }) }),
      join('b', { v: 3, member: ref('b'), expect: joined(1, { leader: same('a'), members: [] }) }),
      sync('b', { wait: false }),
      parked('b'),
      join('a', { v: 3, member: ref('a'), protocols: ['roundrobin', 'range'], wait: false }),
      collect('b', err(E.REBALANCE_IN_PROGRESS)),
      join('b', { v: 3, member: ref('b'), protocols: ['roundrobin', 'range'], expect: joined(2, { protocolName: 'roundrobin' }) }),
      collect('a', joined(2, { protocolName: 'roundrobin' })),
    ],
  }),

  scenario('testGenerationIdIncrementsOnRebalance', {
    mirrors: 'GroupCoordinatorTest.testGenerationIdIncrementsOnRebalance',
    description: 'each completed rebalance bumps the generation',
    steps: [
      join('a', { v: 3, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      join('a', { v: 3, member: ref('a'), expect: joined(2) }),
      sync('a', { assign: ['a'] }),
      join('a', { v: 3, member: ref('a'), expect: joined(3) }),
      heartbeat('a', { expect: err(E.NONE) }),
    ],
  }),

  // --- group.max.size (3 here; Kafka's fixture uses 4) ------------------------------------
  scenario('testJoinGroupShouldReceiveErrorIfGroupOverMaxSize', {
    mirrors: 'GroupCoordinatorTest.testJoinGroupShouldReceiveErrorIfGroupOverMaxSize',
    description: 'max size 3: three members complete; a 4th new join in Stable is GROUP_MAX_SIZE_REACHED with MemberId ""',
    settings: { 'group.max.size': 3 },
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      join('c', { v: 3, wait: false }),
      collect('a', joined(1)),
      collect('b', joined(1)),
      collect('c', joined(1)),
      join('d', { v: 3, expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      sync('a', { assign: ['a', 'b', 'c'] }),
      join('d', { v: 5, expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      join('e', { v: 5, instance: 'inst-e', expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
    ],
  }),

  scenario('testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember', {
    mirrors: 'GroupCoordinatorTest.testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember',
    description: 'max size 3, four members do the two-step join: 3 NONE, the last GROUP_MAX_SIZE_REACHED; rejoining in CompletingRebalance gives the same per-member results',
    settings: { 'group.max.size': 3 },
    steps: [
      ...['a', 'b', 'c', 'd'].map((n) => join(n, { v: 5, expect: err(E.MEMBER_ID_REQUIRED) })),
      ...['a', 'b', 'c'].map((n) => join(n, { v: 5, member: ref(n), wait: false })),
      join('d', { v: 5, member: ref('d'), expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      ...['a', 'b', 'c'].map((n) => collect(n, joined(1))),
      ...['a', 'b', 'c'].map((n) => join(n, { v: 5, member: ref(n), expect: joined(1) })),
      join('d', { v: 5, member: ref('d'), expect: err(E.GROUP_MAX_SIZE_REACHED) }),
    ],
  }),

  scenario('testDynamicMembersJoinGroupWithMaxSize', {
    mirrors: 'GroupCoordinatorTest.testDynamicMembersJoinGroupWithMaxSize',
    description: 'max size 3, four v3 members (no member id required): the 4th joiner is GROUP_MAX_SIZE_REACHED',
    settings: { 'group.max.size': 3 },
    steps: [
      ...['a', 'b', 'c'].map((n) => join(n, { v: 3, wait: false })),
      join('d', { v: 3, expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      ...['a', 'b', 'c'].map((n) => collect(n, joined(1))),
    ],
  }),

  scenario('testStaticMembersJoinGroupWithMaxSize', {
    mirrors: 'GroupCoordinatorTest.testStaticMembersJoinGroupWithMaxSize',
    description: 'max size 3, four instance ids: 3 NONE and the last GROUP_MAX_SIZE_REACHED; rejoins give the same',
    settings: { 'group.max.size': 3 },
    steps: [
      ...['a', 'b', 'c'].map((n) => join(n, { v: 5, instance: `inst-${n}`, wait: false })),
      join('d', { v: 5, instance: 'inst-d', expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      ...['a', 'b', 'c'].map((n) => collect(n, joined(1))),
      ...['a', 'b', 'c'].map((n) => join(n, { v: 5, instance: `inst-${n}`, member: ref(n), expect: joined(1) })),
      join('d', { v: 5, instance: 'inst-d', expect: err(E.GROUP_MAX_SIZE_REACHED) }),
    ],
  }),

  scenario('testDynamicMembersCanReJoinGroupWithMaxSizeWhileRebalancing', {
    mirrors: 'GroupCoordinatorTest.testDynamicMembersCanReJoinGroupWithMaxSizeWhileRebalancing / testLastJoiningMembersAreKickedOutWhenReJoiningGroupWithMaxSize',
    description: 'max size 3, full and Stable; the leader rejoins; a new member is accepted while few have rejoined (numAwaiting < max), so the last existing member to rejoin is kicked out',
    settings: { 'group.max.size': 3 },
    steps: [
      ...['a', 'b', 'c'].map((n) => join(n, { v: 3, wait: false })),
      ...['a', 'b', 'c'].map((n) => collect(n, joined(1))),
      sync('a', { assign: ['a', 'b', 'c'] }),
      join('a', { v: 3, member: ref('a'), wait: false }),
      join('d', { v: 3, wait: false }),
      join('b', { v: 3, member: ref('b'), wait: false }),
      join('c', { v: 3, member: ref('c'), expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      collect('a', joined(2, { members: length(3) })),
      collect('d', joined(2)),
      collect('b', joined(2)),
      heartbeat('c', { generation: 1, expect: err(E.UNKNOWN_MEMBER_ID) }),
    ],
  }),

  scenario('testPendingMemberCountsTowardsMaxSize', {
    mirrors: 'GroupCoordinator.acceptJoiningMember (PreparingRebalance: numAwaiting)',
    description: 'max size 3: pending (MEMBER_ID_REQUIRED) members are not counted; awaiting members are',
    settings: { 'group.max.size': 3 },
    steps: [
      join('a', { v: 3, wait: false }),
      join('b', { v: 3, wait: false }),
      ...['c', 'd'].map((n) => join(n, { v: 5, expect: err(E.MEMBER_ID_REQUIRED) })),
      join('c', { v: 5, member: ref('c'), wait: false }),
      join('d', { v: 5, member: ref('d'), expect: err(E.GROUP_MAX_SIZE_REACHED, { memberId: '' }) }),
      collect('a', joined(1, { members: length(3) })),
      collect('b', joined(1)),
      collect('c', joined(1)),
    ],
  }),
];

void unordered;
