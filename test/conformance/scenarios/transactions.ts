// The transaction coordinator, request for request against Kafka 3.9 (issue #12): FindCoordinator
// for transactional ids, InitProducerId (new ids, epoch bumps, KIP-360, fencing), AddPartitionsToTxn
// v0-v5, AddOffsetsToTxn, EndTxn, and the state each leaves (DescribeTransactions). Each scenario is
// named after the Kafka test it mirrors (TransactionCoordinatorTest, TransactionsTest, KafkaApisTest;
// core/src/test/scala/... at 3.9). The log side (transactional Produce, markers, Fetch, ListOffsets,
// WriteTxnMarkers, DescribeProducers, timeouts) is in transactions-data.ts, the group side
// (TxnOffsetCommit, RequireStable) in transactions-offsets.ts.
//
// Kafka answers EndTxn once PrepareCommit/PrepareAbort is in its transaction log and writes the
// markers afterwards: a scenario that goes on after an EndTxn (or a fencing InitProducerId) waits
// for the completion (awaitCompletion), so that nothing depends on how fast the markers were written.
import type { Scenario } from '../runner.js';
import { E, createTopic, err, scenario } from './dsl.js';
import {
  TXN_SETTINGS,
  addOffsets,
  addPartitions,
  addPartitionsBatched,
  awaitCompletion,
  describeTxns,
  endTxn,
  epochOf,
  fetchRecords,
  findTxnCoordinator,
  initPid,
  initTransactional,
  partitionsReady,
  pidOf,
  produceTxn,
  txnCommit,
} from './transactions-dsl.js';

/** A transaction scenario: its own broker settings (the timed-out transaction sweep), no groups to warm up. */
export function txnScenario(name: string, o: Omit<Scenario, 'name'>): Scenario {
  return { ...scenario(name, o), tags: ['txn'], settings: { ...TXN_SETTINGS, ...(o.settings ?? {}) }, groups: o.groups ?? [] };
}

const state = (transactionState: string, extra: Record<string, unknown> = {}) => ({ transactionStates: [{ errorCode: 0, transactionState, ...extra }] });
const fencedByVersion = (v: number, since: number) => err(v < since ? E.INVALID_PRODUCER_EPOCH : E.PRODUCER_FENCED);
const topicT = (partitions = 1) => [createTopic('a', 't', partitions), partitionsReady('a', 't', Array.from({ length: partitions }, (_, i) => i))];

export const transactionScenarios: Scenario[] = [
  txnScenario('testFindCoordinatorForTransactionalIds', {
    mirrors: 'KafkaApisTest.testFindCoordinatorAutoTopicCreationForTxnCoordinator / testFindCoordinatorTooOldForBatching (KafkaApis.getCoordinator, key type 1)',
    description:
      'FindCoordinator key type 1: the first lookup on a broker without __transaction_state creates it (COORDINATOR_NOT_AVAILABLE), then v1-v3 and batched v4-v6 (two ids, and the empty id) find this node; v0 has no key type (not sent)',
    steps: [
      // The answer depends on whether an earlier scenario on this broker pair created the topic; both
      // brokers of the pair have played the same scenarios, so the answers are the same.
      findTxnCoordinator('a', ['tx'], { v: 1, retry: false, label: 'first lookup (may create __transaction_state)' }),
      findTxnCoordinator('a', ['tx'], { v: 1, label: 'v1, retried until the coordinator is up' }),
      findTxnCoordinator('a', ['tx'], { v: 0, retry: false, label: 'v0 has no key type', expect: 'not-sent' }),
      ...[1, 2, 3].map((v) => findTxnCoordinator('a', ['tx2'], { v, retry: false, expect: err(E.NONE) })),
      ...[4, 5, 6].map((v) => findTxnCoordinator('a', ['tx', 'tx2'], { v, retry: false, expect: { coordinators: [err(E.NONE), err(E.NONE)] } })),
      findTxnCoordinator('a', [''], { v: 3, retry: false, label: 'empty transactional id (v3)' }),
      findTxnCoordinator('a', ['', 'tx'], { v: 4, retry: false, label: 'empty transactional id (v4, batched)' }),
    ],
  }),

  txnScenario('shouldInitPidWithEpochZeroForNewTransactionalId', {
    mirrors:
      'TransactionCoordinatorTest.shouldInitPidWithEpochZeroForNewTransactionalId / shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingEmptyTransaction',
    description: 'InitProducerId v0-v5 for one transactional id: epoch 0, then one bump per init with the same producer id; the timeout of the last init is the one DescribeTransactions shows',
    steps: [
      findTxnCoordinator('a'),
      initPid('a', { v: 0, timeout: 10000, expect: { errorCode: 0, producerEpoch: 0 } }),
      describeTxns('a', ['tx'], { expect: state('Empty', { producerEpoch: 0, transactionTimeoutMs: 10000, transactionStartTimeMs: -1, topics: [] }) }),
      ...[1, 2, 3, 4, 5].map((v, i) => initPid('a', { v, timeout: 20000 + v, expect: { errorCode: 0, producerEpoch: i + 1 } })),
      describeTxns('a', ['tx'], { expect: state('Empty', { producerEpoch: 5, transactionTimeoutMs: 20005 }) }),
      initPid('b', { tx: 'other', v: 4, expect: { errorCode: 0, producerEpoch: 0 }, label: 'another transactional id: a new producer id' }),
      initPid('c', { tx: null, v: 4, expect: { errorCode: 0, producerEpoch: 0 } }),
      describeTxns('a', ['tx', 'other']),
    ],
  }),

  txnScenario('shouldReturnInvalidTransactionTimeout', {
    mirrors:
      'TransactionCoordinatorTest.shouldReturnInvalidRequestWhenTransactionalIdIsEmpty / TransactionStateManager.validateTransactionTimeoutMs / KafkaApis.handleInitProducerIdRequest (producer id and epoch pairing)',
    description:
      'InitProducerId with a transaction timeout above transaction.max.timeout.ms (900000), of 0 and negative (INVALID_TRANSACTION_TIMEOUT), exactly the maximum (NONE), an empty transactional id (INVALID_REQUEST), a producer id without an epoch and an epoch without a producer id (INVALID_REQUEST)',
    steps: [
      findTxnCoordinator('a'),
      initPid('a', { v: 4, timeout: 900001, expect: err(E.INVALID_TRANSACTION_TIMEOUT, { producerId: -1, producerEpoch: -1 }) }),
      initPid('a', { v: 0, timeout: 900001, label: 'above the maximum (v0)', expect: err(E.INVALID_TRANSACTION_TIMEOUT) }),
      initPid('a', { v: 4, timeout: 0, expect: err(E.INVALID_TRANSACTION_TIMEOUT) }),
      initPid('a', { v: 2, timeout: -1, expect: err(E.INVALID_TRANSACTION_TIMEOUT) }),
      describeTxns('a', ['tx'], { label: 'nothing created by the refused inits', expect: { transactionStates: [err(E.TRANSACTIONAL_ID_NOT_FOUND)] } }),
      initPid('a', { v: 4, timeout: 900000, expect: { errorCode: 0, producerEpoch: 0 } }),
      initPid('a', { v: 5, tx: '', label: 'empty transactional id', expect: err(E.INVALID_REQUEST) }),
      initPid('a', { v: 4, pid: pidOf('a'), epoch: () => -1, label: 'producer id without an epoch', expect: err(E.INVALID_REQUEST) }),
      initPid('a', { v: 4, pid: () => -1, epoch: () => 0, label: 'epoch without a producer id', expect: err(E.INVALID_REQUEST) }),
      initPid('a', { v: 3, timeout: 900001, pid: pidOf('a'), epoch: epochOf('a'), label: 'KIP-360 fields and a bad timeout', expect: err(E.INVALID_TRANSACTION_TIMEOUT) }),
      describeTxns('a', ['tx'], { expect: state('Empty', { producerEpoch: 0, transactionTimeoutMs: 900000 }) }),
    ],
  }),

  txnScenario('testInitProducerIdWithCurrentEpochProvided', {
    mirrors:
      'TransactionCoordinatorTest.testInitProducerIdWithCurrentEpochProvided / testInitProducerIdStaleCurrentEpochProvided / testFenceProducerWhenMappingExistsWithDifferentProducerId / shouldGenerateNewProducerIdIfNoStateAndProducerIdAndEpochProvided (KIP-360)',
    description:
      'InitProducerId v3-v5 with the producer id and epoch: the current epoch bumps it; the same request again (the previous epoch) answers the same epoch; an older epoch is fenced (INVALID_PRODUCER_EPOCH at v3, PRODUCER_FENCED at v4+); another producer id is fenced; a new transactional id with a producer id and epoch given gets a new id at epoch 0',
    steps: [
      ...initTransactional('a'),
      initPid('a', { v: 3, pid: pidOf('a'), epoch: epochOf('a'), label: 'current epoch 0', expect: { errorCode: 0, producerEpoch: 1 } }),
      initPid('a', { v: 4, pid: pidOf('a'), epoch: () => 0, label: 'retry with the previous epoch 0', expect: { errorCode: 0, producerEpoch: 1 } }),
      initPid('a', { v: 5, pid: pidOf('a'), epoch: epochOf('a'), label: 'current epoch 1', expect: { errorCode: 0, producerEpoch: 2 } }),
      initPid('a', { v: 3, pid: pidOf('a'), epoch: () => 0, noCapture: true, label: 'stale epoch 0 (v3)', expect: err(E.INVALID_PRODUCER_EPOCH) }),
      initPid('a', { v: 4, pid: pidOf('a'), epoch: () => 0, noCapture: true, label: 'stale epoch 0 (v4)', expect: err(E.PRODUCER_FENCED) }),
      initPid('a', { v: 4, pid: pidOf('a'), epoch: () => 7, noCapture: true, label: 'a future epoch 7', expect: err(E.PRODUCER_FENCED) }),
      initPid('a', { v: 4, pid: () => 987654321, epoch: () => 0, noCapture: true, label: 'another producer id', expect: err(E.PRODUCER_FENCED) }),
      initPid('a', { v: 3, pid: () => 987654321, epoch: () => 0, noCapture: true, label: 'another producer id (v3)', expect: err(E.INVALID_PRODUCER_EPOCH) }),
      describeTxns('a', ['tx'], { expect: state('Empty', { producerEpoch: 2 }) }),
      initPid('b', { tx: 'fresh', v: 4, pid: () => 987654321, epoch: () => 5, label: 'new id with a producer id and epoch', expect: { errorCode: 0, producerEpoch: 0 } }),
      describeTxns('a', ['fresh']),
    ],
  }),

  txnScenario('shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState', {
    mirrors:
      'TransactionCoordinatorTest.shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState / TransactionsTest.testFencingOnAddPartitions / testBumpTransactionalEpoch',
    description:
      'a second producer initialising the transactional id of an Ongoing transaction: CONCURRENT_TRANSACTIONS while the coordinator aborts it with a bumped epoch, then the retry bumps the epoch a second time; the abort marker is in the partition',
    steps: [
      ...topicT(),
      ...initTransactional('a'),
      addPartitions('a', { expect: { resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionErrorCode: 0 }] }] } }),
      produceTxn('a', { expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] } }),
      describeTxns('x', ['tx'], { expect: state('Ongoing', { producerEpoch: 0 }) }),
      initPid('b', { v: 4, label: 'init by a second producer (fences the first)', expect: err(E.CONCURRENT_TRANSACTIONS, { producerId: -1, producerEpoch: -1 }) }),
      awaitCompletion('x'),
      initPid('b', { v: 4, label: 'the retry', expect: { errorCode: 0, producerEpoch: 2 } }),
      describeTxns('x', ['tx'], { expect: state('Empty', { producerEpoch: 2, topics: [] }) }),
      // The abort marker (epoch 1) after the producer's batch: read_uncommitted shows both.
      fetchRecords('x', { v: 12, isolation: 0, label: 'fetch read_uncommitted: the batch and the abort marker' }),
    ],
  }),

  txnScenario('testFencingOnEveryApi', {
    mirrors:
      'TransactionsTest.testFencingOnCommit / testFencingOnSendOffsets / testFencingOnAddPartitions / testFencingOnSend; KafkaApis (PRODUCER_FENCED → INVALID_PRODUCER_EPOCH below AddPartitionsToTxn/AddOffsetsToTxn/EndTxn v2 and InitProducerId v4)',
    description:
      'producer a (epoch 0) fenced by producer b (epoch 1): a\'s AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and EndTxn at every version, its InitProducerId with its old epoch, its transactional Produce v3-v11',
    steps: [
      ...topicT(),
      ...initTransactional('a'),
      initPid('b', { v: 4, expect: { errorCode: 0, producerEpoch: 1 } }),
      ...[0, 1, 2, 3].map((v) => addPartitions('a', { v, expect: { resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionErrorCode: v < 2 ? E.INVALID_PRODUCER_EPOCH : E.PRODUCER_FENCED }] }] } })),
      ...[0, 1, 2, 3, 4].map((v) => addOffsets('a', { v, expect: fencedByVersion(v, 2) })),
      ...[0, 1, 2, 3, 4].map((v) => txnCommit('a', { v, label: `txn-offset-commit v${v} by the fenced producer` })),
      ...[0, 1, 2, 3, 4].map((v) => endTxn('a', true, { v, expect: fencedByVersion(v, 2) })),
      ...[3, 4, 5].map((v) => initPid('a', { v, pid: pidOf('a'), epoch: () => 0, noCapture: true, label: `init v${v} with the fenced epoch`, expect: fencedByVersion(v, 4) })),
      ...[3, 5, 7, 9, 10, 11].map((v) => produceTxn('a', { v, keepSeq: true, label: `produce v${v} by the fenced producer` })),
      addPartitions('b', { expect: { resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionErrorCode: 0 }] }] } }),
      produceTxn('b', { expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] } }),
      ...[3, 11].map((v) => produceTxn('a', { v, keepSeq: true, label: `produce v${v} by the fenced producer to b's partition` })),
      endTxn('b', true, { expect: err(E.NONE) }),
      awaitCompletion('b'),
      describeTxns('b', ['tx'], { expect: state('CompleteCommit', { producerEpoch: 1 }) }),
    ],
    groups: ['g'],
  }),

  txnScenario('shouldRespondWithInvalidPidMappingWhenTransactionalIdNotPresent', {
    mirrors:
      'TransactionCoordinatorTest.shouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent / shouldReplyWithInvalidPidMappingOnEndTxnWhenTxnIdDoesntExist / shouldReplyWithInvalidPidMappingOnEndTxnWhenPidDosentMatchMapped / shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsEmpty',
    description:
      'AddPartitionsToTxn, AddOffsetsToTxn and EndTxn for an unknown transactional id and with another producer id (INVALID_PRODUCER_ID_MAPPING); with an empty transactional id (INVALID_REQUEST); DescribeTransactions of an unknown and an empty id',
    steps: [
      ...topicT(),
      ...initTransactional('a'),
      addPartitions('a', { tx: 'unknown', label: 'add-partitions unknown id' }),
      addPartitions('a', { pid: () => 987654321, label: 'add-partitions another producer id' }),
      addPartitions('a', { tx: '', v: 1, label: 'add-partitions empty id' }),
      addOffsets('a', { tx: 'unknown', label: 'add-offsets unknown id', expect: err(E.INVALID_PRODUCER_ID_MAPPING) }),
      addOffsets('a', { pid: () => 987654321, label: 'add-offsets another producer id', expect: err(E.INVALID_PRODUCER_ID_MAPPING) }),
      endTxn('a', true, { tx: 'unknown', label: 'end-txn unknown id', expect: err(E.INVALID_PRODUCER_ID_MAPPING) }),
      endTxn('a', false, { pid: () => 987654321, label: 'end-txn another producer id', expect: err(E.INVALID_PRODUCER_ID_MAPPING) }),
      endTxn('a', true, { tx: '', label: 'end-txn empty id', expect: err(E.INVALID_REQUEST) }),
      addOffsets('a', { tx: '', v: 0, label: 'add-offsets empty id' }),
      describeTxns('a', ['unknown', '', 'tx']),
    ],
  }),

  txnScenario('testAddPartitionsToTxnVersions', {
    mirrors:
      'AddPartitionsToTxnRequestServerTest.shouldReceiveOperationNotAttemptedWhenOtherPartitionHasError / TransactionCoordinatorTest.shouldRespondWithErrorsNoneOnAddPartitionWhenNoErrorsAndPartitionsTheSame / shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteCommit',
    description:
      'AddPartitionsToTxn v0-v3: an unknown topic or partition fails the request (UNKNOWN_TOPIC_OR_PARTITION for it, OPERATION_NOT_ATTEMPTED for the others, nothing added); partitions of two topics; adding the same partitions again (NONE); adding after a commit starts a new transaction',
    steps: [
      createTopic('a', 't', 3),
      createTopic('a', 'u', 1),
      partitionsReady('a', 't', [0, 1, 2]),
      ...initTransactional('a'),
      addPartitions('a', { v: 0, topics: [['t', [0, 1]], ['missing', [0]]], label: 'an unknown topic (v0)' }),
      addPartitions('a', { v: 2, topics: [['t', [0, 9]]], label: 'an unknown partition (v2)' }),
      describeTxns('a', ['tx'], { label: 'nothing added', expect: state('Empty', { topics: [] }) }),
      addPartitions('a', { v: 1, topics: [['t', [0, 2]], ['u', [0]]] }),
      describeTxns('a', ['tx'], { expect: state('Ongoing') }),
      addPartitions('a', { v: 3, topics: [['t', [2, 0]]], label: 'the same partitions again' }),
      addPartitions('a', { v: 3, topics: [['t', [1]], ['u', [0]]], label: 'one more' }),
      addPartitions('a', { v: 3, topics: [['t', [1]], ['missing', [0, 1]]], label: 'an unknown topic while Ongoing' }),
      describeTxns('a', ['tx']),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      addPartitions('a', { v: 3, topics: [['u', [0]]], label: 'after the commit: a new transaction' }),
      describeTxns('a', ['tx'], { expect: state('Ongoing') }),
      endTxn('a', false, { expect: err(E.NONE) }),
      awaitCompletion('a'),
    ],
  }),

  txnScenario('testAddPartitionsToTxnBatchedAndVerifyOnly', {
    mirrors:
      'AddPartitionsToTxnRequestServerTest.testOneSuccessOneErrorInBatchedRequest / testVerifyOnly / TransactionCoordinatorTest.testVerifyPartitionHandling / shouldRespondWithInvalidTxnStateWhenVerifyOnlyAndPartitionNotPresent',
    description:
      'AddPartitionsToTxn v4/v5 (the broker-to-coordinator form): two transactions in one request, one of them VerifyOnly; VerifyOnly of an added partition (NONE), of a partition not added (TRANSACTION_ABORTABLE), with a wrong epoch (PRODUCER_FENCED), for an unknown id (INVALID_PRODUCER_ID_MAPPING); an unknown topic in a batched request',
    steps: [
      createTopic('a', 't', 2),
      partitionsReady('a', 't', [0, 1]),
      findTxnCoordinator('a', ['tx', 'tx2'], { v: 4 }),
      initPid('a', { tx: 'tx', expect: { errorCode: 0, producerEpoch: 0 } }),
      initPid('b', { tx: 'tx2', expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitionsBatched('x', [
        { tx: 'tx', as: 'a', topics: [['t', [0]]] },
        { tx: 'tx2', as: 'b', topics: [['t', [0, 1]]] },
      ]),
      describeTxns('x', ['tx', 'tx2']),
      addPartitionsBatched(
        'x',
        [
          { tx: 'tx', as: 'a', verifyOnly: true, topics: [['t', [0, 1]]] },
          { tx: 'tx2', as: 'b', verifyOnly: true, topics: [['t', [1]]] },
        ],
        { v: 5 },
      ),
      addPartitionsBatched('x', [{ tx: 'tx', as: 'a', verifyOnly: true, epoch: epochOf('a', 1), topics: [['t', [0]]] }], { label: 'verify with a wrong epoch' }),
      addPartitionsBatched('x', [{ tx: 'unknown', as: 'a', verifyOnly: true, topics: [['t', [0]]] }], { label: 'verify an unknown id' }),
      addPartitionsBatched('x', [{ tx: 'tx', as: 'a', verifyOnly: true, pid: () => 987654321, topics: [['t', [0]]] }], { label: 'verify another producer id' }),
      addPartitionsBatched('x', [{ tx: 'tx', as: 'a', topics: [['t', [1]], ['missing', [0]]] }], { label: 'an unknown topic, batched' }),
      addPartitionsBatched('x', [{ tx: 'tx', as: 'a', epoch: epochOf('a', 1), topics: [['t', [1]]] }], { label: 'add with a wrong epoch, batched' }),
      describeTxns('x', ['tx', 'tx2']),
      endTxn('a', true, { tx: 'tx', expect: err(E.NONE) }),
      awaitCompletion('a', 'tx'),
      addPartitionsBatched('x', [{ tx: 'tx', as: 'a', verifyOnly: true, topics: [['t', [0]]] }], { label: 'verify after the commit' }),
      // Kafka 3.9 never answers this one (KafkaApis answers when the last transaction's result is
      // added, and there is none); kmock answers at once with no results (causes.ts:
      // add-partitions-v4-empty-never-answered).
      { ...addPartitionsBatched('x', [], { label: 'no transactions', expect: { errorCode: 0, resultsByTransaction: [] } }), timeoutMs: 1000 },
    ],
  }),

  txnScenario('testAddOffsetsToTxn', {
    mirrors: 'TransactionsTest.testSendOffsetsWithGroupId (KafkaApis.handleAddOffsetsToTxnRequest: the group\'s __consumer_offsets partition joins the transaction)',
    description:
      'AddOffsetsToTxn v0-v4: NONE, the group\'s offsets partition shows in DescribeTransactions, again for the same group (NONE), for a second group; EndTxn commit completes with markers to __consumer_offsets',
    steps: [
      ...initTransactional('a'),
      ...[0, 1].map((v) => addOffsets('a', { v, expect: err(E.NONE) })),
      describeTxns('a', ['tx'], { expect: state('Ongoing') }),
      ...[2, 3, 4].map((v) => addOffsets('a', { v, group: 'g2', expect: err(E.NONE) })),
      describeTxns('a', ['tx']),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      addOffsets('a', { v: 3, epoch: epochOf('a', 1), label: 'add-offsets with the next epoch', expect: err(E.PRODUCER_FENCED) }),
      describeTxns('a', ['tx'], { expect: state('CompleteCommit', { producerEpoch: 0 }) }),
    ],
    groups: ['g', 'g2'],
  }),

  txnScenario('testEndTxnStateTransitions', {
    mirrors:
      'TransactionCoordinatorTest.shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit / shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteCommitAndResultIsNotCommit / shouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbort / shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteAbortAndResultIsNotAbort / shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger / ...IsSmaller (state Empty: INVALID_TXN_STATE)',
    description:
      'EndTxn v0-v4 through Empty (INVALID_TXN_STATE), Ongoing → commit, the retried commit (NONE), abort after commit (INVALID_TXN_STATE), a new transaction aborted, commit after abort (INVALID_TXN_STATE), the retried abort (NONE), larger and smaller epochs (PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH below)',
    steps: [
      ...topicT(),
      ...initTransactional('a'),
      ...[0, 4].map((v) => endTxn('a', true, { v, label: `end-txn v${v} commit in Empty`, expect: err(E.INVALID_TXN_STATE) })),
      endTxn('a', false, { v: 2, label: 'end-txn abort in Empty', expect: err(E.INVALID_TXN_STATE) }),
      addPartitions('a'),
      produceTxn('a'),
      endTxn('a', true, { v: 1, epoch: epochOf('a', 1), label: 'commit with a larger epoch (v1)', expect: err(E.INVALID_PRODUCER_EPOCH) }),
      endTxn('a', true, { v: 2, epoch: epochOf('a', 1), label: 'commit with a larger epoch (v2)', expect: err(E.PRODUCER_FENCED) }),
      endTxn('a', true, { v: 4, epoch: epochOf('a', -1), label: 'commit with a smaller epoch (v4)', expect: err(E.PRODUCER_FENCED) }),
      endTxn('a', true, { v: 0, expect: err(E.NONE) }),
      awaitCompletion('a'),
      describeTxns('a', ['tx'], { expect: state('CompleteCommit', { topics: [] }) }),
      endTxn('a', true, { v: 1, label: 'the commit retried', expect: err(E.NONE) }),
      endTxn('a', false, { v: 3, label: 'abort after the commit', expect: err(E.INVALID_TXN_STATE) }),
      addPartitions('a', { v: 2 }),
      produceTxn('a', { v: 11 }),
      endTxn('a', false, { v: 4, expect: err(E.NONE) }),
      awaitCompletion('a'),
      describeTxns('a', ['tx'], { expect: state('CompleteAbort') }),
      endTxn('a', true, { v: 3, label: 'commit after the abort', expect: err(E.INVALID_TXN_STATE) }),
      endTxn('a', false, { v: 2, label: 'the abort retried', expect: err(E.NONE) }),
      initPid('a', { v: 4, expect: { errorCode: 0, producerEpoch: 1 } }),
      endTxn('a', false, { v: 4, label: 'abort in Empty after a re-init', expect: err(E.INVALID_TXN_STATE) }),
      fetchRecords('x', { v: 12, isolation: 0, label: 'fetch read_uncommitted: the committed batch, its marker, the aborted batch, its marker' }),
    ],
  }),
];

