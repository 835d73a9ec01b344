// Transactional offset commits against Kafka 3.9 (issue #12): TxnOffsetCommit (pending until the
// transaction's marker, visible after a commit, dropped by an abort; KIP-890 verification of the
// group's offsets partition; the v3+ generation, member and instance checks of the group
// coordinator), OffsetFetch with RequireStable (UNSTABLE_OFFSET_COMMIT while a commit is pending),
// DescribeProducers, and the expiration of idle transactional ids. Named after GroupCoordinatorTest
// (3.9's classic coordinator, core/src/test/scala/unit/kafka/coordinator/group) and the
// TransactionsTest / TransactionStateManagerTest cases they mirror.
import type { Ctx, Scenario } from '../runner.js';
import { E, commit, createTopic, describeGroups, err, fetchOffsets, staticJoinAndRebalance, wait } from './dsl.js';
import { txnScenario } from './transactions.js';
import {
  addOffsets,
  addPartitions,
  awaitCompletion,
  describeProducers,
  describeTxns,
  endTxn,
  epochOf,
  findTxnCoordinator,
  initPid,
  initTransactional,
  listTxns,
  partitionsReady,
  produceTxn,
  txnCommit,
  TXN_SETTINGS,
} from './transactions-dsl.js';

const ok2 = { topics: [{ partitions: [err(E.NONE), err(E.NONE)] }] };
const fetchBoth = (conn: string, v: number, requireStable: boolean, label?: string) =>
  fetchOffsets(conn, { v, requireStable, topics: [{ partitions: [0, 1] }], label: label ?? `offset-fetch v${v}${requireStable ? ' requireStable' : ''}` });
const topicT2 = () => [createTopic('a', 't', 2), partitionsReady('a', 't', [0, 1])];

export const transactionOffsetScenarios: Scenario[] = [
  txnScenario('testFetchPendingTxnOffsetsWithCommit', {
    mirrors: 'GroupCoordinatorTest.testFetchPendingTxnOffsetsWithCommit / testBasicFetchTxnOffsets / TransactionsTest.testSendOffsetsWithGroupId (OffsetFetch RequireStable, KIP-447)',
    description:
      'AddOffsetsToTxn then TxnOffsetCommit v0-v3: while the transaction is open OffsetFetch v7/v8 with RequireStable answers UNSTABLE_OFFSET_COMMIT, without it the offsets are not there yet (-1), v5 has no RequireStable; after the commit the offsets (and metadata) are visible; the group exists (Empty) from the first TxnOffsetCommit',
    steps: [
      ...topicT2(),
      ...initTransactional('a'),
      addOffsets('a', { expect: err(E.NONE) }),
      ...[0, 1, 2, 3].map((v) => txnCommit('a', { v, offsets: [[0, 5 + v], [1, 7 + v]], expect: ok2 })),
      fetchBoth('x', 7, true),
      fetchBoth('x', 7, false),
      fetchBoth('x', 8, true),
      fetchBoth('x', 5, false),
      fetchOffsets('x', { v: 7, requireStable: true, topics: null, label: 'offset-fetch v7 requireStable, all topics' }),
      describeGroups('x', { v: 5 }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchBoth('x', 7, true),
      fetchBoth('x', 8, true),
      fetchOffsets('x', { v: 7, requireStable: true, topics: null, label: 'offset-fetch v7 requireStable, all topics' }),
    ],
  }),

  txnScenario('testFetchPendingTxnOffsetsWithAbort', {
    mirrors: 'GroupCoordinatorTest.testFetchPendingTxnOffsetsWithAbort / testFetchTxnOffsetsWithAbort / testFetchTxnOffsetsIgnoreSpuriousCommit',
    description:
      'offsets committed with OffsetCommit (3), then a transaction commits 9 transactionally and aborts: pending (UNSTABLE_OFFSET_COMMIT with RequireStable, the old offset without) until the abort, then the old offset; a spurious retried abort changes nothing; a second transaction commits 11',
    steps: [
      ...topicT2(),
      commit('x', { v: 8, member: '', generation: -1, offsets: [[0, 3], [1, 3]] }),
      ...initTransactional('a'),
      addOffsets('a'),
      txnCommit('a', { offsets: [[0, 9]], expect: { topics: [{ partitions: [err(E.NONE)] }] } }),
      fetchBoth('x', 7, true),
      fetchBoth('x', 7, false),
      endTxn('a', false, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchBoth('x', 7, true),
      endTxn('a', false, { label: 'the abort retried', expect: err(E.NONE) }),
      fetchBoth('x', 8, true),
      addOffsets('a'),
      txnCommit('a', { v: 2, offsets: [[0, 11], [1, 12]] }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchBoth('x', 7, true),
    ],
  }),

  txnScenario('testFetchTxnOffsetsMultipleProducersOneGroup', {
    mirrors: 'GroupCoordinatorTest.testFetchTxnOffsetsMultipleProducersOneGroup / testFetchTxnOffsetsOneProducerMultipleGroups',
    description:
      'two transactional producers commit offsets of one group (different partitions), one producer commits offsets of two groups: the first producer commits, the second aborts; RequireStable is unstable exactly for the partitions still pending',
    steps: [
      ...topicT2(),
      findTxnCoordinator('a', ['tx', 'tx2'], { v: 4 }),
      initPid('a', { tx: 'tx', expect: { errorCode: 0, producerEpoch: 0 } }),
      initPid('b', { tx: 'tx2', expect: { errorCode: 0, producerEpoch: 0 } }),
      addOffsets('a', { tx: 'tx' }),
      addOffsets('a', { tx: 'tx', group: 'g2' }),
      addOffsets('b', { tx: 'tx2' }),
      txnCommit('a', { tx: 'tx', offsets: [[0, 10]] }),
      txnCommit('a', { tx: 'tx', group: 'g2', offsets: [[0, 20], [1, 21]] }),
      txnCommit('b', { tx: 'tx2', offsets: [[1, 30]] }),
      fetchBoth('x', 7, true),
      endTxn('a', true, { tx: 'tx', expect: err(E.NONE) }),
      awaitCompletion('x', 'tx'),
      fetchBoth('x', 7, true),
      fetchOffsets('x', { v: 8, requireStable: true, groups: ['g', 'g2'], topics: [{ partitions: [0, 1] }], label: 'offset-fetch v8 requireStable, both groups' }),
      endTxn('b', false, { tx: 'tx2', expect: err(E.NONE) }),
      awaitCompletion('x', 'tx2'),
      fetchOffsets('x', { v: 8, requireStable: true, groups: ['g', 'g2'], topics: [{ partitions: [0, 1] }], label: 'offset-fetch v8 requireStable, both groups' }),
    ],
    groups: ['g', 'g2'],
  }),

  txnScenario('testTxnCommitOffsetGenerationAndMemberChecks', {
    mirrors:
      'GroupCoordinatorTest.testTxnCommitOffsetWithLegalGeneration / testTxnCommitOffsetWithIllegalGeneration / testTxnCommitOffsetWithInvalidMemberId / testTxnCommitOffsetWithKnownMemberId / testTxnCommitOffsetWithFencedInstanceId (validateOffsetCommit, isTransactional)',
    description:
      'a Stable group of two static members: TxnOffsetCommit v3 with the leader\'s generation and id (NONE), a wrong generation (ILLEGAL_GENERATION), an unknown member (UNKNOWN_MEMBER_ID), a known instance id with another member id (FENCED_INSTANCE_ID), no generation and no member (NONE: transactional commits from non-members are allowed), v2 (no such fields); then the pending offsets are committed',
    steps: [
      ...topicT2(),
      ...staticJoinAndRebalance(),
      ...initTransactional('a'),
      addOffsets('a'),
      txnCommit('a', { v: 3, generation: (c: Ctx) => c.v<number>('L.gen', -1), member: (c: Ctx) => c.v('L'), instance: 'inst-L', offsets: [[0, 1]], label: 'legal generation' }),
      txnCommit('a', { v: 3, generation: (c: Ctx) => c.v<number>('L.gen', -1) + 1, member: (c: Ctx) => c.v('L'), offsets: [[0, 2]], label: 'illegal generation' }),
      txnCommit('a', { v: 3, generation: (c: Ctx) => c.v<number>('L.gen', -1), member: () => 'unknown-member', offsets: [[0, 3]], label: 'unknown member' }),
      txnCommit('a', { v: 3, generation: (c: Ctx) => c.v<number>('F.gen', -1), member: (c: Ctx) => c.v('F'), instance: 'inst-L', offsets: [[0, 4]], label: 'fenced instance id' }),
      txnCommit('a', { v: 3, generation: () => -1, member: () => '', offsets: [[1, 5]], label: 'no generation, no member' }),
      txnCommit('a', { v: 3, generation: () => -1, member: (c: Ctx) => c.v('F'), offsets: [[1, 6]], label: 'member without a generation' }),
      txnCommit('a', { v: 2, offsets: [[1, 7]], label: 'v2 (no generation fields)' }),
      txnCommit('a', { v: 4, generation: (c: Ctx) => c.v<number>('F.gen', -1), member: (c: Ctx) => c.v('F'), instance: 'inst-F', offsets: [[1, 8]], label: 'v4 follower' }),
      fetchBoth('x', 7, true),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchBoth('x', 7, true),
      describeGroups('x', { v: 5 }),
    ],
    groups: ['g'],
  }),

  txnScenario('testVerificationErrorsForTxnOffsetCommits', {
    mirrors:
      'GroupCoordinatorTest.testVerificationErrorsForTxnOffsetCommits / testTxnOffsetMetadataTooLarge / KafkaApis.handleTxnOffsetCommitRequest (unknown topics and partitions)',
    description:
      'TxnOffsetCommit v0-v4 before AddOffsetsToTxn (the offsets partition is not in the transaction: INVALID_TXN_STATE below v4, TRANSACTION_ABORTABLE at v4), for an unknown transactional id and producer id, with a fenced epoch, for an unknown topic and partition, with metadata over offset.metadata.max.bytes; after AddOffsetsToTxn, NONE',
    steps: [
      ...topicT2(),
      ...initTransactional('a'),
      addPartitions('a'),
      ...[0, 2, 3, 4].map((v) => txnCommit('a', { v, label: `txn-offset-commit v${v} before add-offsets` })),
      txnCommit('a', { tx: 'unknown', label: 'an unknown transactional id' }),
      txnCommit('a', { pid: () => 987654321, label: 'another producer id' }),
      txnCommit('a', { epoch: epochOf('a', 1), label: 'the next epoch' }),
      txnCommit('a', { v: 4, epoch: epochOf('a', 1), label: 'the next epoch (v4)' }),
      txnCommit('a', { topic: 'missing', label: 'an unknown topic' }),
      txnCommit('a', { offsets: [[0, 1], [9, 1]], label: 'an unknown partition' }),
      txnCommit('a', { topics: ['t', 'missing'], offsets: [[0, 1], [7, 1]], label: 'a known and an unknown topic' }),
      addOffsets('a', { expect: err(E.NONE) }),
      txnCommit('a', { metadata: 'x'.repeat(4097), label: 'metadata too large' }),
      txnCommit('a', { v: 1, offsets: [[0, 4], [1, 5]], expect: ok2 }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchBoth('x', 7, true),
    ],
  }),

  txnScenario('testDescribeProducers', {
    mirrors: 'DescribeProducersRequestTest / KafkaApis.handleDescribeProducersRequest / ProducerStateManagerTest (active producers: epoch, last sequence, coordinator epoch, current transaction start offset)',
    description:
      'an idempotent and a transactional producer write to t/0: DescribeProducers v0 lists both (the open transaction\'s first offset), nothing for t/1, UNKNOWN_TOPIC_OR_PARTITION for an unknown partition and topic; after the commit the coordinator epoch of the marker and no open transaction',
    steps: [
      ...topicT2(),
      initPid('i', { tx: null, expect: { errorCode: 0, producerEpoch: 0 } }),
      produceTxn('i', { tx: null, transactional: false, n: 3 }),
      produceTxn('i', { tx: null, transactional: false, n: 2 }),
      ...initTransactional('a'),
      addPartitions('a'),
      produceTxn('a', { n: 2 }),
      describeProducers('x', [['t', [0, 1, 7]], ['missing', [0]]]),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      describeProducers('x', [['t', [0]]]),
      initPid('a', { expect: { errorCode: 0, producerEpoch: 1 } }),
      addPartitions('a'),
      produceTxn('a', { n: 1 }),
      describeProducers('x', [['t', [0]]]),
      endTxn('a', false, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      describeProducers('x', [['t', [0]]]),
    ],
  }),

  txnScenario('shouldRemoveEmptyExpiredTransactionalIds', {
    mirrors: 'TransactionStateManagerTest.shouldRemoveEmptyExpiredTransactionalIds / shouldRemoveCompleteCommitExpiredTransactionalIds (and an Ongoing id is kept; transactional.id.expiration.ms = 1000, removal every 200 ms)',
    description:
      'idle transactional ids in Empty and CompleteCommit are removed after transactional.id.expiration.ms (DescribeTransactions: TRANSACTIONAL_ID_NOT_FOUND, InitProducerId: a new producer id at epoch 0, the old producer: INVALID_PRODUCER_ID_MAPPING); an Ongoing one is not',
    settings: { ...TXN_SETTINGS, 'transactional.id.expiration.ms': 1000, 'transaction.remove.expired.transaction.cleanup.interval.ms': 200 },
    steps: [
      createTopic('a', 't', 1),
      partitionsReady('a', 't'),
      findTxnCoordinator('a', ['empty', 'done', 'open'], { v: 4 }),
      initPid('a', { tx: 'empty', expect: { errorCode: 0, producerEpoch: 0 } }),
      initPid('b', { tx: 'done', expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('b', { tx: 'done' }),
      endTxn('b', true, { tx: 'done', expect: err(E.NONE) }),
      awaitCompletion('x', 'done'),
      initPid('c', { tx: 'open', timeout: 600000, expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('c', { tx: 'open' }),
      wait(1000 + 200 + 600),
      describeTxns('x', ['empty', 'done', 'open']),
      listTxns('x', { v: 0 }),
      addPartitions('b', { tx: 'done', label: 'the expired producer' }),
      endTxn('a', true, { tx: 'empty', label: 'the expired producer', expect: err(E.INVALID_PRODUCER_ID_MAPPING) }),
      initPid('a', { tx: 'empty', expect: { errorCode: 0, producerEpoch: 0 } }),
      describeTxns('x', ['empty']),
      endTxn('c', false, { tx: 'open', expect: err(E.NONE) }),
      awaitCompletion('x', 'open'),
    ],
  }),
];
