// Smaller checks around the main paths: the internal offsets topic, topic configs, idempotent
// producers, fetch sessions, SASL on a PLAINTEXT listener, DescribeCluster, simple groups that
// later get members, static members leaving through LeaveGroup v0.
import type { Ctx, Scenario } from '../runner.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { E, commit, createTopic, describeGroups, err, fetchOffsets, heartbeat, join, joined, leave, ref, scenario, send, staticJoinAndRebalance, sync } from './dsl.js';

const T0 = 1_700_000_000_000;
const tag = (tags: string[]) => (s: Scenario): Scenario => ({ ...s, tags });

function idempotentBatch(c: Ctx, seq: number, n: number): Buffer {
  return encodeBatch({
    baseTimestamp: T0,
    producerId: BigInt(c.v<number>('pid', -1)),
    producerEpoch: c.v<number>('epoch', 0),
    baseSequence: seq,
    records: Array.from({ length: n }, (_, i) => ({ key: `k${seq + i}`, value: `v${seq + i}`, timestampDelta: i })),
  });
}
const idempotentProduce = (seq: number, n = 2) => (c: Ctx) => ({
  transactionalId: null,
  acks: -1,
  timeoutMs: 5000,
  topicData: [{ name: c.t(), partitionData: [{ index: 0, records: idempotentBatch(c, seq, n) }] }],
});

const fetch = (sessionId: number | ((c: Ctx) => number), epoch: number, partitions: boolean, offset = 0) => (c: Ctx) => ({
  replicaId: -1,
  maxWaitMs: 0,
  minBytes: 0,
  maxBytes: 1048576,
  isolationLevel: 0,
  sessionId: typeof sessionId === 'function' ? sessionId(c) : sessionId,
  sessionEpoch: epoch,
  topics: partitions
    ? [{ topic: c.t(), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }] }]
    : [],
  forgottenTopicsData: [],
  rackId: '',
});

export const miscScenarios: Scenario[] = [
  tag(['admin'])(
    scenario('testInternalOffsetsTopicMetadata', {
      mirrors: 'MetadataRequestTest.testIsInternal',
      description: 'Metadata for __consumer_offsets (created by the first FindCoordinator): internal flag, partition count',
      steps: [
        send('a', 3, 1, { topics: [{ name: '__consumer_offsets' }] }),
        send('a', 3, 9, { topics: [{ name: '__consumer_offsets' }], allowAutoTopicCreation: false }),
      ],
    }),
  ),
  tag(['admin'])(
    scenario('testDescribeTopicConfigs', {
      mirrors: 'DescribeConfigsRequest for a topic (KafkaApis.handleDescribeConfigsRequest / ConfigHelper)',
      description: 'DescribeConfigs of a topic with one override: every topic config, sources, read-only and sensitive flags, synonyms (v1+), documentation (v3+), one key, unknown topic',
      steps: [
        send('a', 19, 5, (c) => ({ topics: [{ name: c.t(), numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '12345' }] }], timeoutMs: 5000 }), {
          expect: { topics: [{ errorCode: 0 }] },
          awaitTopics: true,
        }),
        send('a', 32, 0, (c) => ({ resources: [{ resourceType: 2, resourceName: c.t(), configurationKeys: null }] })),
        send('a', 32, 1, (c) => ({ resources: [{ resourceType: 2, resourceName: c.t(), configurationKeys: ['retention.ms', 'cleanup.policy'] }], includeSynonyms: true })),
        send('a', 32, 4, (c) => ({ resources: [{ resourceType: 2, resourceName: c.t(), configurationKeys: ['retention.ms'] }], includeSynonyms: true, includeDocumentation: true })),
        send('a', 32, 4, (c) => ({ resources: [{ resourceType: 2, resourceName: c.t('missing'), configurationKeys: null }] })),
      ],
      groups: [],
    }),
  ),
  tag(['data'])(
    scenario('testIdempotentProducer', {
      mirrors: 'ProducerIdsIntegrationTest / ProduceRequestTest (idempotent producer: sequence checks)',
      description: 'InitProducerId (no transactional id), then sequences 0, 2 (in order), a duplicate of 0 (answered with the original offset), a gap (OUT_OF_ORDER_SEQUENCE_NUMBER), an unknown producer epoch',
      steps: [
        createTopic('a'),
        send('a', 22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }, {
          capture: (r, c) => {
            c.set('pid', Number(r.producerId));
            c.set('epoch', r.producerEpoch);
          },
          expect: { errorCode: 0, producerEpoch: 0 },
          // A broker that just started has no producer-id block yet: COORDINATOR_LOAD_IN_PROGRESS, retried.
          retry: { while: (r) => r.errorCode === 14, delayMs: 200, max: 50 },
        }),
        send('a', 0, 9, idempotentProduce(0)),
        send('a', 0, 9, idempotentProduce(2)),
        send('a', 0, 9, idempotentProduce(0), { label: 'duplicate of sequence 0' }),
        send('a', 0, 9, idempotentProduce(9), { label: 'sequence gap' }),
        send('a', 0, 9, (c) => ({ ...idempotentProduce(4)(c), topicData: [{ name: c.t(), partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: T0, producerId: BigInt(c.v<number>('pid', -1)), producerEpoch: 5, baseSequence: 4, records: [{ value: 'x' }] }) }] }] }), { label: 'producer epoch 5' }),
        send('a', 0, 9, (c) => ({ ...idempotentProduce(0)(c), topicData: [{ name: c.t(), partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: T0, producerId: 999999n, producerEpoch: 0, baseSequence: 0, records: [{ value: 'x' }] }) }] }] }), { label: 'unknown producer id' }),
        send('a', 2, 7, (c) => ({ replicaId: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, timestamp: -1 }] }] })),
      ],
      groups: [],
    }),
  ),
  tag(['data'])(
    scenario('testFetchSessionsWithoutSessionSlots', {
      mirrors: 'FetchSessionTest (max.incremental.fetch.session.cache.slots=0: what kmock emulates)',
      description: 'the fetch-session sequence below against a Kafka whose session cache has no slots (kmock\'s documented model): they must agree',
      settings: { 'max.incremental.fetch.session.cache.slots': 0 },
      steps: [
        createTopic('a'),
        send('a', 0, 9, (c) => ({ acks: -1, timeoutMs: 5000, topicData: [{ name: c.t(), partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: T0, records: [{ value: 'a' }, { value: 'b' }] }) }] }] })),
        send('a', 1, 12, fetch(0, 0, true), { capture: (r, c) => c.set('session', r.sessionId) }),
        send('a', 1, 12, fetch((c) => c.v<number>('session', 0), 1, false)),
        send('a', 1, 12, fetch(123456789, 1, false), { label: 'unknown session' }),
        send('a', 1, 12, fetch(0, -1, true, 1), { label: 'sessionless full fetch' }),
      ],
      groups: [],
    }),
  ),
  tag(['data'])(
    scenario('testFetchSessions', {
      mirrors: 'FetchSessionTest / FetchRequestTest.testFetchSession (KIP-227 incremental fetch sessions)',
      description: 'a full fetch asking for a session (epoch 0), then an incremental fetch with the session (epoch 1, no partitions), an unknown session id, a bad epoch, closing the session (epoch -1)',
      steps: [
        createTopic('a'),
        send('a', 0, 9, (c) => ({ acks: -1, timeoutMs: 5000, topicData: [{ name: c.t(), partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: T0, records: [{ value: 'a' }, { value: 'b' }] }) }] }] })),
        send('a', 1, 12, fetch(0, 0, true), { capture: (r, c) => c.set('session', r.sessionId) }),
        send('a', 1, 12, fetch((c) => c.v<number>('session', 0), 1, false)),
        send('a', 1, 12, fetch(123456789, 1, false), { label: 'unknown session' }),
        send('a', 1, 12, fetch((c) => c.v<number>('session', 0), 7, false), { label: 'wrong epoch' }),
        send('a', 1, 12, fetch(0, -1, true, 1), { label: 'sessionless full fetch' }),
      ],
      groups: [],
    }),
  ),
  tag(['api'])(
    scenario('testSaslHandshakeOnPlaintext', {
      mirrors: 'SaslServerAuthenticator / KafkaApis.handleSaslHandshakeRequest on a PLAINTEXT listener',
      description: 'SaslHandshake v0/v1 and SaslAuthenticate on a PLAINTEXT listener',
      steps: [
        send('a', 17, 1, { mechanism: 'PLAIN' }),
        send('b', 17, 0, { mechanism: 'SCRAM-SHA-256' }),
        send('c', 36, 2, { authBytes: Buffer.from('\u0000user\u0000pass') }),
        send('a', 3, 1, { topics: [] }, { label: 'the connection still works' }),
      ],
      groups: [],
    }),
  ),
  tag(['api'])(
    scenario('testDescribeCluster', {
      mirrors: 'DescribeClusterRequestTest',
      description: 'DescribeCluster v0 and v1 (endpoint type broker and controller), with and without authorized operations',
      steps: [
        send('a', 60, 0, { includeClusterAuthorizedOperations: false }),
        send('a', 60, 0, { includeClusterAuthorizedOperations: true }),
        send('a', 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 }),
        send('a', 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 }),
      ],
      groups: [],
    }),
  ),
  scenario('testJoinSimpleGroupAfterManualCommits', {
    mirrors: 'GroupCoordinatorTest.testCommitOffsetWithDefaultGeneration + testValidJoinGroup (a "simple" group gaining members)',
    description: 'offsets committed with generation -1 create an Empty group without protocol type; consumers can then join it (gen 1) and the offsets survive',
    steps: [
      createTopic('x'),
      commit('x', { v: 7, member: '', generation: -1, offsets: [[0, 5]] }),
      join('a', { v: 5, expect: err(E.MEMBER_ID_REQUIRED) }),
      join('a', { v: 5, member: ref('a'), expect: joined(1) }),
      sync('a', { assign: ['a'] }),
      fetchOffsets('a', { v: 7 }),
      describeGroups('x', { expect: { groups: [{ groupState: 'Stable', protocolType: 'consumer' }] } }),
    ],
  }),
  scenario('testStaticMemberLeavesWithV0ByMemberId', {
    mirrors: 'GroupCoordinator.validateCurrentMember (no instance id: member id only)',
    description: 'a static member leaving through LeaveGroup v0 (no instance id field) by its member id is accepted; a heartbeat without its instance id is validated by member id only',
    steps: [
      ...staticJoinAndRebalance(),
      heartbeat('F', { v: 2, expect: err(E.NONE) }),
      leave('F', { v: 0, member: ref('F'), expect: err(E.NONE) }),
      heartbeat('L', { instance: 'inst-L', expect: err(E.REBALANCE_IN_PROGRESS) }),
      join('L', { v: 5, instance: 'inst-L', member: ref('L'), expect: joined(2) }),
    ],
  }),
];
