// OffsetCommit / OffsetFetch / OffsetDelete: commits in every group state (Empty, PreparingRebalance,
// CompletingRebalance, Stable, unknown group), manual commits with generation -1, unknown topics
// and partitions, the ZooKeeper-only v0 on a KRaft broker, every version's answer shape.
import type { Scenario } from '../runner.js';
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
  listGroups,
  ref,
  scenario,
  send,
  subscription,
  sync,
} from './dsl.js';

const ok = { topics: [{ partitions: [{ errorCode: 0 }] }] };
const codeAll = (code: number) => ({ topics: [{ partitions: [{ errorCode: code }] }] });

export const groupOffsetScenarios: Scenario[] = [
  scenario('testOffsetsOfDeletedTopicAreRemoved', {
    mirrors: 'GroupCoordinator.onPartitionsDeleted -> GroupMetadataManager.cleanupGroupMetadata (KRaft: BrokerMetadataPublisher on topic deletion)',
    description:
      "a simple group's committed offsets, the topic deleted: OffsetFetch answers -1, the emptied group is gone from DescribeGroups and ListGroups; the topic created again still has no committed offsets",
    steps: [
      createTopic('x', 't', 2),
      commit('x', { v: 8, member: '', generation: -1, offsets: [[0, 5], [1, 7]], expect: { topics: [{ partitions: [{ errorCode: 0 }, { errorCode: 0 }] }] } }),
      fetchOffsets('x', { v: 7, topics: [{ partitions: [0, 1] }], expect: { topics: [{ partitions: [{ committedOffset: 5 }, { committedOffset: 7 }] }] } }),
      listGroups('x', { v: 4, label: 'list-groups before' }),
      describeGroups('x', { expect: { groups: [{ groupState: 'Empty' }] }, label: 'describe before' }),
      send('x', 20, 5, (c) => ({ topicNames: [c.t()], timeoutMs: 5000 }), { label: 'delete-topics t', expect: { responses: [{ errorCode: 0 }] } }),
      {
        // Kafka drops the offsets once its metadata publisher has seen the deletion (a moment after
        // DeleteTopics answers): retried, as a client would, until the commit is gone.
        ...fetchOffsets('x', { v: 7, topics: [{ partitions: [0, 1] }], label: 'offset-fetch after delete', expect: { topics: [{ partitions: [{ committedOffset: -1 }, { committedOffset: -1 }] }] } }),
        retry: { while: (r: { topics: Array<{ partitions: Array<{ committedOffset: bigint }> }> }) => r.topics.some((t) => t.partitions.some((p) => p.committedOffset !== -1n)), delayMs: 100, max: 50 },
      },
      describeGroups('x', { label: 'describe after delete' }),
      listGroups('x', { v: 4, label: 'list-groups after delete' }),
      createTopic('x', 't', 2, { label: 'create-topic t again' }),
      fetchOffsets('x', { v: 7, topics: [{ partitions: [0, 1] }], label: 'offset-fetch after re-create', expect: { topics: [{ partitions: [{ committedOffset: -1 }, { committedOffset: -1 }] }] } }),
      fetchOffsets('x', { v: 8, topics: null, label: 'offset-fetch all after re-create' }),
      describeGroups('x', { label: 'describe after re-create' }),
    ],
  }),

  scenario('testCommitOffsetFromUnknownGroup', {
    mirrors: 'GroupCoordinatorTest.testCommitOffsetFromUnknownGroup',
    description: 'a commit with generation ≥ 0 to an unknown group is ILLEGAL_GENERATION at every version (3.9; 4.x answers GROUP_ID_NOT_FOUND at v9)',
    steps: [
      createTopic('x'),
      ...[2, 3, 4, 5, 6, 7, 8, 9].map((v) => commit('x', { v, member: 'memberId', generation: 1, expect: codeAll(E.ILLEGAL_GENERATION) })),
      commit('x', { v: 1, member: 'memberId', generation: 1, expect: codeAll(E.ILLEGAL_GENERATION) }),
      describeGroups('x', { expect: { groups: [{ groupState: 'Dead' }] } }),
    ],
  }),

  scenario('testCommitOffsetWithDefaultGeneration', {
    mirrors: 'GroupCoordinatorTest.testCommitOffsetWithDefaultGeneration / testFetchOffsets',
    description: 'a commit with generation -1 to an unknown group creates a simple Empty group and is fetched back',
    steps: [
      createTopic('x', 't', 2),
      commit('x', { v: 2, member: '', generation: -1, offsets: [[0, 42], [1, 7]], expect: { topics: [{ partitions: [{ errorCode: 0 }, { errorCode: 0 }] }] } }),
      fetchOffsets('x', { v: 1, topics: [{ partitions: [0, 1] }] }),
      fetchOffsets('x', { v: 5, topics: [{ partitions: [0, 1, 2] }] }),
      describeGroups('x', { expect: { groups: [{ groupState: 'Empty', protocolType: '', members: [] }] } }),
      { op: 'send', conn: 'x', api: 16, version: 3, body: { statesFilter: [], typesFilter: [] }, label: 'list-groups v3' },
    ],
  }),

  scenario('testCommitOffsetsAfterGroupIsEmpty', {
    mirrors: 'GroupCoordinatorTest.testCommitOffsetsAfterGroupIsEmpty',
    description: 'after the only member leaves, a commit with the old member and generation is UNKNOWN_MEMBER_ID; generation -1 is accepted',
    steps: [
      createTopic('a'),
      join('a', { v: 3, expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      commit('a', { v: 5, offsets: [[0, 3]], expect: ok }),
      leave('a', { v: 1, expect: err(E.NONE) }),
      commit('a', { v: 5, offsets: [[0, 4]], expect: codeAll(E.UNKNOWN_MEMBER_ID) }),
      commit('a', { v: 5, member: '', generation: -1, offsets: [[0, 5]], expect: ok }),
      fetchOffsets('a', { v: 5 }),
    ],
  }),

  scenario('testCommitOffsetInCompletingRebalance', {
    mirrors:
      'GroupCoordinatorTest.testCommitOffsetInCompletingRebalance / testCommitOffsetInCompletingRebalanceFromUnknownMemberId / testCommitOffsetInCompletingRebalanceFromIllegalGeneration',
    description: 'during CompletingRebalance: the current generation → REBALANCE_IN_PROGRESS; unknown member → UNKNOWN_MEMBER_ID; wrong generation → ILLEGAL_GENERATION',
    steps: [
      createTopic('a'),
      join('a', { v: 3, expect: joined(1) }),
      commit('a', { v: 5, expect: codeAll(E.REBALANCE_IN_PROGRESS) }),
      commit('a', { v: 8, expect: codeAll(E.REBALANCE_IN_PROGRESS) }),
      commit('x', { v: 5, member: 'unknown', generation: 1, expect: codeAll(E.UNKNOWN_MEMBER_ID) }),
      commit('a', { v: 5, generation: 2, expect: codeAll(E.ILLEGAL_GENERATION) }),
      commit('x', { v: 5, member: '', generation: -1, expect: codeAll(E.UNKNOWN_MEMBER_ID) }),
      sync('a', { assign: ['a'] }),
      commit('a', { v: 5, expect: ok }),
    ],
  }),

  scenario('testCommitOffsetInEveryState', {
    mirrors: 'GroupCoordinator.validateOffsetCommit (Stable, PreparingRebalance: previous generation accepted)',
    description: 'Stable: current generation NONE, other generation ILLEGAL_GENERATION, generation -1 with a member id ILLEGAL_GENERATION, with no id UNKNOWN_MEMBER_ID; PreparingRebalance: the current generation is still accepted',
    steps: [
      createTopic('a'),
      ...dynamicJoinAndSync(['a', 'b']),
      commit('a', { v: 7, expect: ok }),
      commit('a', { v: 7, generation: 0, expect: codeAll(E.ILLEGAL_GENERATION) }),
      commit('a', { v: 7, generation: -1, expect: codeAll(E.ILLEGAL_GENERATION) }),
      commit('x', { v: 7, member: '', generation: -1, expect: codeAll(E.UNKNOWN_MEMBER_ID) }),
      join('a', { v: 5, member: ref('a'), wait: false }),
      commit('b', { v: 7, offsets: [[0, 9]], expect: ok }),
      commit('b', { v: 7, generation: 2, expect: codeAll(E.ILLEGAL_GENERATION) }),
      join('b', { v: 5, member: ref('b'), expect: joined(2) }),
      collect('a', joined(2)),
      commit('b', { v: 7, generation: 1, expect: codeAll(E.ILLEGAL_GENERATION) }),
      commit('b', { v: 7, generation: 2, expect: codeAll(E.REBALANCE_IN_PROGRESS) }),
      fetchOffsets('x', { v: 7 }),
    ],
  }),

  scenario('testManualCommitOffsetShouldNotValidateMemberIdAndInstanceId', {
    mirrors: 'GroupCoordinatorTest.testManualCommitOffsetShouldNotValidateMemberIdAndInstanceId',
    description: 'generation -1 against an Empty group succeeds even with bogus member and instance ids',
    steps: [
      createTopic('x'),
      commit('x', { v: 7, member: '', generation: -1, expect: ok }),
      commit('x', { v: 7, member: 'bogus-member', generation: -1, instance: 'bogus-instance', expect: ok }),
      commit('x', { v: 9, member: 'bogus-member', generation: -1, instance: 'bogus-instance', expect: ok }),
    ],
  }),

  scenario('testCommitUnknownTopicsAndPartitions', {
    mirrors: 'KafkaApis.handleOffsetCommitRequest (metadata cache check)',
    description: 'unknown topics and partitions are UNKNOWN_TOPIC_OR_PARTITION per partition; the known partition in the same request is committed',
    steps: [
      createTopic('x'),
      send('x', 8, 7, (c) => ({
        groupId: c.g(),
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          { name: c.t(), partitions: [{ partitionIndex: 0, committedOffset: 5 }, { partitionIndex: 3, committedOffset: 5 }] },
          { name: c.t('missing'), partitions: [{ partitionIndex: 0, committedOffset: 5 }] },
        ],
      })),
      send('x', 8, 2, (c) => ({ groupId: c.g('h'), generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: c.t('missing'), partitions: [{ partitionIndex: 0, committedOffset: 5 }] }] })),
      fetchOffsets('x', { v: 7, topics: [{ partitions: [0, 3] }, { topic: 'missing', partitions: [0] }] }),
      describeGroups('x', { groups: ['h'] }),
    ],
    groups: ['g', 'h'],
  }),

  scenario('testCommitOffsetMetadataTooLarge', {
    mirrors: 'GroupMetadataManager.storeOffsets (offset.metadata.max.bytes = 4096)',
    description: 'committed metadata longer than offset.metadata.max.bytes is OFFSET_METADATA_TOO_LARGE; 4096 characters are accepted',
    steps: [
      createTopic('x'),
      send('x', 8, 7, (c) => ({ groupId: c.g(), generationIdOrMemberEpoch: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: 'm'.repeat(4097) }] }] })),
      send('x', 8, 7, (c) => ({ groupId: c.g(), generationIdOrMemberEpoch: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, committedOffset: 2, committedMetadata: 'm'.repeat(4096) }] }] })),
      fetchOffsets('x', { v: 3 }),
    ],
  }),

  scenario('testOffsetCommitAndFetchV0OnKRaft', {
    mirrors: 'KafkaApis.handleOffsetCommitRequest / handleOffsetFetchRequest (version 0 stores in ZooKeeper)',
    description: 'OffsetCommit v0 and OffsetFetch v0 are ZooKeeper-only: what a KRaft broker answers; v1 (coordinator) works',
    steps: [
      createTopic('x'),
      send('x', 8, 0, (c) => ({ groupId: c.g(), topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, committedOffset: 11, committedMetadata: 'zk' }] }] })),
      send('x', 9, 0, (c) => ({ groupId: c.g(), topics: [{ name: c.t(), partitionIndexes: [0] }] })),
      send('x', 8, 1, (c) => ({ groupId: c.g(), generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, committedOffset: 12, commitTimestamp: -1 }] }] })),
      fetchOffsets('x', { v: 1 }),
      send('x', 9, 0, (c) => ({ groupId: c.g(), topics: [{ name: c.t(), partitionIndexes: [0] }] })),
    ],
  }),

  scenario('testOffsetFetchVersions', {
    mirrors: 'KafkaApis.handleOffsetFetchRequest (v1-v9, all topics, several groups, require stable)',
    description: 'unknown group → -1 offsets; all-topics (null) at v2+; v7 requireStable; v8 several groups (one unknown)',
    steps: [
      createTopic('x', 't', 2),
      createTopic('x', 'u', 1),
      ...[1, 2, 3, 4, 5, 6, 7].map((v) => fetchOffsets('x', { v, group: 'nothing', topics: [{ partitions: [0] }] })),
      commit('x', { v: 8, member: '', generation: -1, offsets: [[0, 10], [1, 11]] }),
      send('x', 8, 8, (c) => ({ groupId: c.g(), generationIdOrMemberEpoch: -1, topics: [{ name: c.t('u'), partitions: [{ partitionIndex: 0, committedOffset: 3, committedLeaderEpoch: 4, committedMetadata: null }] }] })),
      ...[2, 5, 6, 7].map((v) => fetchOffsets('x', { v, topics: null })),
      fetchOffsets('x', { v: 7, topics: null, requireStable: true }),
      fetchOffsets('x', { v: 8, topics: null, groups: ['g', 'nothing'] }),
      fetchOffsets('x', { v: 9, topics: [{ topic: 'u', partitions: [0] }], groups: ['g'] }),
      fetchOffsets('x', { v: 8, topics: [{ topic: 'missing', partitions: [0] }] }),
    ],
    groups: ['g', 'nothing'],
  }),

  scenario('testOffsetDelete', {
    mirrors: 'GroupCoordinatorTest.testDeleteOffsetOfNonEmptyNonConsumerGroup / testDeleteOffsetOfEmptyConsumerGroup / testDeleteOffsetOfStableConsumerGroupWithTopicSubscribed',
    description: 'OffsetDelete: unknown group → GROUP_ID_NOT_FOUND; Empty group → NONE; a Stable consumer group subscribed to the topic → GROUP_SUBSCRIBED_TO_TOPIC per partition; not subscribed → NONE',
    steps: [
      createTopic('x', 't', 1),
      createTopic('x', 'u', 1),
      send('x', 47, 0, (c) => ({ groupId: c.g('nothing'), topics: [{ name: c.t(), partitions: [{ partitionIndex: 0 }] }] })),
      commit('x', { v: 8, group: 'e', member: '', generation: -1, offsets: [[0, 5]] }),
      send('x', 47, 0, (c) => ({ groupId: c.g('e'), topics: [{ name: c.t(), partitions: [{ partitionIndex: 0 }] }] })),
      fetchOffsets('x', { v: 7, group: 'e' }),
      join('a', { v: 5, instance: 'inst-a', protocols: (c) => [{ name: 'range', metadata: subscription([c.t('t')]) }], expect: joined(1) }),
      sync('a', { instance: 'inst-a', assign: ['a'] }),
      commit('a', { v: 8, instance: 'inst-a', offsets: [[0, 6]] }),
      commit('a', { v: 8, instance: 'inst-a', topic: 'u', offsets: [[0, 6]] }),
      send('x', 47, 0, (c) => ({ groupId: c.g(), topics: [{ name: c.t(), partitions: [{ partitionIndex: 0 }] }, { name: c.t('u'), partitions: [{ partitionIndex: 0 }] }] })),
      fetchOffsets('x', { v: 7, topics: null }),
      heartbeat('a', { instance: 'inst-a', expect: err(E.NONE) }),
    ],
    groups: ['g', 'e', 'nothing'],
  }),
];
