// Transactions in the log, against Kafka 3.9 (issue #12): transactional Produce (KIP-890 part 1
// verification: "partition not added" per Produce version, epoch and producer-id checks), markers
// and what read_committed sees (Fetch LastStableOffset, AbortedTransactions and control batches;
// ListOffsets latest = LSO), a topic whose min.insync.replicas exceeds its replicas, the transaction
// timeout, WriteTxnMarkers sent directly (`kafka-transactions.sh abort`), DescribeTransactions and
// ListTransactions filters.
//
// Not here: CONCURRENT_TRANSACTIONS for a request that reaches Kafka between EndTxn's answer and the
// markers' completion (PrepareCommit/PrepareAbort). Kafka answers EndTxn before it writes the
// markers (TransactionMarkerChannelManager, over its inter-broker connection), so whether the next
// request sees the Prepare state is a race: a commit pipelined right behind a commit on the same
// connection got CONCURRENT_TRANSACTIONS 11 times out of 12 on Kafka 3.9.1 here, NONE once. No
// request makes the window deterministic on one broker (a marker Kafka cannot write is retried,
// but every reason it retries needs a second broker or a failing disk: a min.insync.replicas above
// the replication factor does not, see testIsUnderMinIsrCappedByReplicationFactor). kmock writes its
// markers before it answers EndTxn, so it answers as Kafka does when the markers won the race.
// The Prepare states' answers are checked where they are deterministic: the coordinator's unit
// tests (test/broker/txn).
import type { Ctx, Expectation, Scenario } from '../runner.js';
import { E, createTopic, err, send, wait } from './dsl.js';
import { txnScenario } from './transactions.js';
import {
  ABORT_SWEEP_MS,
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
  listOffsetsIso,
  listTxns,
  partitionsReady,
  pidOf,
  produceTxn,
  writeMarkers,
} from './transactions-dsl.js';

const produced = (baseOffset: number) => ({ responses: [{ partitionResponses: [{ errorCode: 0, baseOffset }] }] });
const produceError = (code: number) => ({ responses: [{ partitionResponses: [{ errorCode: code }] }] });
/** A plain (non-idempotent) batch of 2 records to t/<partition>. */
const plainProduce = (conn: string, partition = 0, expect?: Expectation) =>
  produceTxn(conn, { tx: null, as: 'plain', transactional: false, pid: () => -1, epoch: () => -1, seq: () => -1, partition, label: `produce plain t/${partition}`, expect });
/** CreateTopics with topic configs (the dsl's createTopic has none). */
const createTopicWith = (name: string, partitions: number, configs: Record<string, string>) =>
  send('a', 19, 5, (c: Ctx) => ({ topics: [{ name: c.t(name), numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: v })) }], timeoutMs: 5000 }), {
    label: `create-topic ${name} ${JSON.stringify(configs)}`,
    expect: { topics: [{ errorCode: 0 }] },
    awaitTopics: true,
  });
/** Fetch read_committed of t/0, resent until the last stable offset reached `lso` (a marker Kafka writes asynchronously). */
const fetchOnceStable = (conn: string, lso: number, v = 12) => ({
  ...fetchRecords(conn, { v, isolation: 1, label: `fetch v${v} read_committed t/0 @0 (once the LSO is ${lso})` }),
  retry: { while: (r: { responses: Array<{ partitions: Array<{ lastStableOffset: bigint | number }> }> }) => Number(r.responses[0]?.partitions[0]?.lastStableOffset ?? -1) < lso, delayMs: 20, max: 250 },
});

export const transactionDataScenarios: Scenario[] = [
  txnScenario('testTransactionalProduceVersions', {
    mirrors:
      'TransactionsTest.testBasicTransactions / ProduceRequestTest / ReplicaManager.handleProduceAppend (KIP-890 verification: INVALID_TXN_STATE "Partition was not added to the transaction" below Produce v11, TRANSACTION_ABORTABLE at v11) / KafkaApis.handleProduceRequest (transactional records need a transactional id)',
    description:
      'transactional Produce v3-v11 to an added partition (sequences continue, offsets), to a partition not added (every version), with the transactional id of another producer and an unknown one, without a transactional id, with a wrong epoch, a sequence gap, a duplicate, a non-transactional batch of the same producer; commit',
    steps: [
      createTopic('a', 't', 2),
      partitionsReady('a', 't', [0, 1]),
      ...initTransactional('a'),
      initPid('b', { tx: 'other', expect: { errorCode: 0, producerEpoch: 0 } }),
      ...[3, 4, 5, 6, 7, 8, 9, 10, 11].map((v) => produceTxn('a', { v, partition: 0, keepSeq: true, label: `produce v${v} before AddPartitionsToTxn` })),
      addPartitions('a', { expect: { resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionErrorCode: 0 }] }] } }),
      ...[3, 4, 5, 6, 7, 8, 9, 10, 11].map((v, i) => produceTxn('a', { v, expect: produced(2 * i) })),
      ...[3, 10, 11].map((v) => produceTxn('a', { v, partition: 1, keepSeq: true, label: `produce v${v} to t/1, not added` })),
      produceTxn('a', { tx: 'other', keepSeq: true, label: 'the transactional id of another producer' }),
      produceTxn('a', { tx: 'other', partition: 1, keepSeq: true, label: 'the transactional id of another producer, t/1' }),
      produceTxn('a', { tx: 'unknown', partition: 1, keepSeq: true, label: 'an unknown transactional id, t/1' }),
      produceTxn('a', { tx: null, keepSeq: true, label: 'no transactional id' }),
      produceTxn('a', { epoch: epochOf('a', 1), keepSeq: true, label: 'the next epoch' }),
      produceTxn('a', { epoch: epochOf('a', 1), partition: 1, keepSeq: true, label: 'the next epoch, t/1 (not added)' }),
      produceTxn('a', { seq: (c) => 100, label: 'a sequence gap' }),
      produceTxn('a', { seq: () => 0, label: 'a duplicate of sequence 0' }),
      produceTxn('a', { transactional: false, keepSeq: true, label: 'a non-transactional batch of the producer' }),
      produceTxn('a', { v: 9, expect: produced(18) }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      produceTxn('a', { v: 9, keepSeq: true, label: 'after the commit, not added again' }),
      fetchRecords('x', { v: 12, isolation: 1 }),
    ],
  }),

  txnScenario('testReadCommittedFetchAndLastStableOffset', {
    mirrors:
      'TransactionsTest.testReadCommittedConsumerShouldNotSeeUndecidedData / testDelayedFetchIncludesAbortedTransaction / FetchRequestTest (read_committed: LastStableOffset, AbortedTransactions) / ListOffsetsRequestTest (isolation level)',
    description:
      'a plain batch, then transaction a (open: read_committed stops at the LSO; read_uncommitted sees everything), a commits, a second transaction of a aborts, transaction b stays open: Fetch v4, v7, v11, v12, v15, v17 read_committed and read_uncommitted (LSO, aborted transactions, control batches), Fetch v3 (down-converted), ListOffsets v2/v5/v7 latest and earliest under both isolation levels',
    steps: [
      createTopic('a', 't', 1),
      partitionsReady('a', 't'),
      plainProduce('a', 0, produced(0)),
      ...initTransactional('a'),
      addPartitions('a'),
      produceTxn('a', { expect: produced(2) }),
      fetchRecords('x', { v: 4, isolation: 1, label: 'open: read_committed v4' }),
      fetchRecords('x', { v: 4, isolation: 0, label: 'open: read_uncommitted v4' }),
      fetchRecords('x', { v: 11, isolation: 1, offset: 2, label: 'open: read_committed v11 at the LSO' }),
      ...[2, 5, 7].flatMap((v) => [listOffsetsIso('x', { v, isolation: 1 }), listOffsetsIso('x', { v, isolation: 0 })]),
      listOffsetsIso('x', { v: 7, isolation: 1, timestamp: -3 }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      fetchRecords('x', { v: 12, isolation: 1, label: 'committed: read_committed v12' }),
      addPartitions('a'),
      produceTxn('a', { expect: produced(5) }),
      endTxn('a', false, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      findTxnCoordinator('b', ['tx2']),
      initPid('b', { tx: 'tx2', expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('b', { tx: 'tx2' }),
      produceTxn('b', { tx: 'tx2', expect: produced(8) }),
      fetchRecords('x', { v: 15, isolation: 1, label: 'aborted + open: read_committed v15' }),
      fetchRecords('x', { v: 17, isolation: 1, offset: 5, label: 'read_committed v17 from the aborted batch' }),
      fetchRecords('x', { v: 7, isolation: 1, offset: 7, label: 'read_committed v7 from the abort marker' }),
      fetchRecords('x', { v: 17, isolation: 0, label: 'read_uncommitted v17' }),
      fetchRecords('x', { v: 3, isolation: 0, label: 'v3 (down-converted)' }),
      listOffsetsIso('x', { v: 7, isolation: 1 }),
      listOffsetsIso('x', { v: 7, isolation: 0 }),
      listOffsetsIso('x', { v: 7, isolation: 1, timestamp: -2 }),
      endTxn('b', true, { tx: 'tx2', expect: err(E.NONE) }),
      awaitCompletion('b', 'tx2'),
      fetchRecords('x', { v: 12, isolation: 1, offset: 7, label: 'all decided: read_committed v12 from offset 7' }),
      fetchRecords('x', { v: 4, isolation: 1, label: 'all decided: read_committed v4' }),
      listOffsetsIso('x', { v: 5, isolation: 1 }),
    ],
  }),

  txnScenario('testIsUnderMinIsrCappedByReplicationFactor', {
    mirrors:
      'PartitionTest.testIsUnderMinIsr / Partition.appendRecordsToLeader (effectiveMinIsr = min(min.insync.replicas, replicas): NOT_ENOUGH_REPLICAS only when the ISR is below both) / TransactionMarkerChannelManager',
    description:
      'a topic with min.insync.replicas=2 and one replica: Produce acks=-1 (plain, idempotent and transactional) is written, acks=1 too; a transaction over it and another topic commits (its marker is written: the transaction does not stay in PrepareCommit) and a second one aborts',
    steps: [
      createTopic('a', 't', 1),
      createTopicWith('isr2', 1, { 'min.insync.replicas': '2' }),
      partitionsReady('a', 't'),
      partitionsReady('a', 'isr2'),
      produceTxn('a', { tx: null, as: 'plain', transactional: false, pid: () => -1, epoch: () => -1, seq: () => -1, topic: 'isr2', label: 'produce plain acks=-1 to isr2' }),
      produceTxn('a', { tx: null, as: 'plain', transactional: false, pid: () => -1, epoch: () => -1, seq: () => -1, topic: 'isr2', acks: 1, label: 'produce plain acks=1 to isr2' }),
      initPid('i', { tx: null, expect: { errorCode: 0, producerEpoch: 0 } }),
      produceTxn('i', { tx: null, transactional: false, topic: 'isr2', label: 'produce idempotent acks=-1 to isr2' }),
      ...initTransactional('a'),
      addPartitions('a', { topics: [['t', [0]], ['isr2', [0]]] }),
      produceTxn('a', { expect: produced(0) }),
      produceTxn('a', { topic: 'isr2', label: 'produce transactional acks=-1 to isr2' }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchRecords('x', { v: 12, isolation: 1, topic: 'isr2' }),
      addPartitions('a', { topics: [['isr2', [0]]] }),
      produceTxn('a', { topic: 'isr2', label: 'produce transactional acks=-1 to isr2 (second transaction)' }),
      endTxn('a', false, { expect: err(E.NONE) }),
      awaitCompletion('x'),
      fetchRecords('x', { v: 12, isolation: 1, topic: 'isr2' }),
      listOffsetsIso('x', { v: 7, isolation: 1, topic: 'isr2' }),
    ],
  }),

  txnScenario('shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch', {
    mirrors:
      'TransactionCoordinatorTest.shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch / TransactionsTest.testFencingOnTransactionExpiration (transaction.abort.timed.out.transaction.cleanup.interval.ms = 100)',
    description:
      'a transaction with a 500 ms timeout is left open: the coordinator aborts it with a bumped epoch; the producer\'s EndTxn, AddPartitionsToTxn, Produce and InitProducerId (KIP-360, its old epoch) are fenced (INVALID_PRODUCER_EPOCH / PRODUCER_FENCED by version); read_committed sees the abort; a plain re-init gets the next epoch',
    steps: [
      createTopic('a', 't', 1),
      partitionsReady('a', 't'),
      ...initTransactional('a', { timeout: 500 }),
      addPartitions('a'),
      produceTxn('a', { expect: produced(0) }),
      describeTxns('x', ['tx'], { expect: { transactionStates: [{ errorCode: 0, transactionState: 'Ongoing', producerEpoch: 0, transactionTimeoutMs: 500 }] } }),
      wait(500 + ABORT_SWEEP_MS + 400),
      awaitCompletion('x'),
      endTxn('a', true, { v: 1, expect: err(E.INVALID_PRODUCER_EPOCH) }),
      endTxn('a', true, { v: 3, expect: err(E.PRODUCER_FENCED) }),
      addPartitions('a', { v: 1 }),
      addPartitions('a', { v: 3 }),
      produceTxn('a', { keepSeq: true, label: 'produce with the aborted epoch' }),
      fetchRecords('x', { v: 12, isolation: 1 }),
      initPid('a', { v: 4, pid: pidOf('a'), epoch: epochOf('a'), noCapture: true, label: 'KIP-360 init with the aborted epoch', expect: err(E.PRODUCER_FENCED) }),
      initPid('a', { v: 4, expect: { errorCode: 0, producerEpoch: 2 } }),
      listTxns('x', { v: 0 }),
    ],
  }),

  txnScenario('testWriteTxnMarkersSentDirectly', {
    mirrors:
      'KafkaApisTest.shouldRespondWithUnknownTopicWhenPartitionIsNotHosted / testWriteTxnMarkersRequest... (KafkaApis.handleWriteTxnMarkersRequest) / ProducerStateManagerTest.testAppendEndTxnMarkerWithOlderEpoch / testCoordinatorFencedAfterReload (kafka-transactions.sh abort)',
    description:
      'a hanging transaction aborted by a WriteTxnMarkers the way kafka-transactions.sh abort sends it (v1): read_committed moves on while the coordinator still has the transaction Ongoing; markers for a partition the producer never wrote, an unknown topic and partition (UNKNOWN_TOPIC_OR_PARTITION), an older producer epoch, an older coordinator epoch, two producers in one request (v0), no markers; then the producer commits through the coordinator',
    steps: [
      createTopic('a', 't', 2),
      partitionsReady('a', 't', [0, 1]),
      ...initTransactional('a'),
      initPid('a', { expect: { errorCode: 0, producerEpoch: 1 } }),
      addPartitions('a'),
      produceTxn('a', { expect: produced(0) }),
      writeMarkers('x', [{ as: 'a', commit: false, topics: [['t', [0]]] }], { label: 'abort the hanging transaction' }),
      fetchRecords('x', { v: 12, isolation: 1 }),
      describeTxns('x', ['tx'], { label: 'the coordinator does not know', expect: { transactionStates: [{ errorCode: 0, transactionState: 'Ongoing' }] } }),
      writeMarkers('x', [{ as: 'a', commit: true, topics: [['t', [1]]] }], { label: 'commit marker where the producer never wrote' }),
      writeMarkers('x', [{ as: 'a', commit: false, topics: [['t', [0, 9]], ['missing', [0]]] }], { label: 'an unknown partition and topic' }),
      writeMarkers('x', [{ as: 'a', commit: false, epoch: epochOf('a', -1), topics: [['t', [0]]] }], { label: 'an older producer epoch' }),
      writeMarkers('x', [{ as: 'a', commit: false, coordinatorEpoch: 5, topics: [['t', [1]]] }], { label: 'coordinator epoch 5' }),
      writeMarkers('x', [{ as: 'a', commit: false, coordinatorEpoch: 4, topics: [['t', [1]]] }], { label: 'an older coordinator epoch' }),
      findTxnCoordinator('b', ['tx2']),
      initPid('b', { tx: 'tx2', expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('b', { tx: 'tx2', topics: [['t', [0, 1]]] }),
      produceTxn('b', { tx: 'tx2', partition: 0 }),
      produceTxn('b', { tx: 'tx2', partition: 1 }),
      writeMarkers(
        'x',
        [
          { as: 'b', commit: true, topics: [['t', [0]]] },
          { as: 'a', commit: false, topics: [['t', [0]]] },
        ],
        { v: 0, label: 'two producers (v0)' },
      ),
      writeMarkers('x', [], { label: 'no markers' }),
      fetchRecords('x', { v: 12, isolation: 1 }),
      fetchRecords('x', { v: 12, isolation: 1, partition: 1 }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      endTxn('b', false, { tx: 'tx2', expect: err(E.NONE) }),
      awaitCompletion('b', 'tx2'),
      fetchRecords('x', { v: 12, isolation: 0 }),
      fetchRecords('x', { v: 12, isolation: 1, partition: 1 }),
    ],
  }),

  txnScenario('testWriteTxnMarkersWithNegativeProducerIdOrEpoch', {
    mirrors: 'KafkaApis.handleWriteTxnMarkersRequest (MemoryRecords.withEndTransactionMarker throws IllegalArgumentException for a negative producer id or epoch: the request fails as a whole)',
    description:
      'WriteTxnMarkers whose marker has producer epoch -1, or producer id -1, for a partition this broker has: Kafka fails the whole request (UNKNOWN_SERVER_ERROR for every partition of every marker), also when an earlier marker of the request was valid or named an unknown partition',
    steps: [
      createTopic('a', 't', 2),
      partitionsReady('a', 't', [0, 1]),
      ...initTransactional('a'),
      addPartitions('a', { topics: [['t', [0, 1]]] }),
      produceTxn('a', { partition: 0 }),
      writeMarkers('x', [{ as: 'a', commit: false, epoch: () => -1, topics: [['t', [0]]] }], { label: 'producer epoch -1' }),
      writeMarkers('x', [{ as: 'a', commit: true, pid: () => -1, epoch: () => -1, topics: [['t', [1]]] }], { label: 'producer id -1' }),
      writeMarkers(
        'x',
        [
          { as: 'a', commit: false, topics: [['missing', [0]]] },
          { as: 'a', commit: false, epoch: () => -1, pid: () => 987654321, topics: [['t', [1]]] },
        ],
        { label: 'an unknown partition, then epoch -1' },
      ),
      writeMarkers('x', [{ as: 'a', commit: false, epoch: () => -1, topics: [['missing', [0]]] }], { label: 'epoch -1 for an unknown partition only' }),
      fetchRecords('x', { v: 12, isolation: 1 }),
      endTxn('a', true, { expect: err(E.NONE) }),
      awaitCompletion('a'),
      fetchRecords('x', { v: 12, isolation: 1 }),
    ],
  }),

  txnScenario('testDescribeAndListTransactions', {
    mirrors:
      'TransactionCoordinatorTest.testDescribeTransactions / TransactionStateManagerTest.testListTransactionsFiltering / KafkaApis.handleListTransactionsRequest (unknown state filters, producer id filters, v1 duration filter)',
    description:
      'four transactional ids in Empty, Ongoing (two topics), CompleteCommit and CompleteAbort: DescribeTransactions of all of them at once, an unknown and the empty id; ListTransactions v0 without filters, by state (and unknown state names), by producer id, both; v1 with a duration filter',
    steps: [
      createTopic('a', 't', 2),
      createTopic('a', 'u', 1),
      partitionsReady('a', 't', [0, 1]),
      findTxnCoordinator('a', ['tx1', 'tx2', 'tx3', 'tx4'], { v: 4 }),
      initPid('a', { tx: 'tx1', expect: { errorCode: 0, producerEpoch: 0 } }),
      initPid('b', { tx: 'tx2', timeout: 45000, expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('b', { tx: 'tx2', topics: [['t', [1, 0]], ['u', [0]]] }),
      initPid('c', { tx: 'tx3', expect: { errorCode: 0, producerEpoch: 0 } }),
      addPartitions('c', { tx: 'tx3', topics: [['t', [0]]] }),
      produceTxn('c', { tx: 'tx3' }),
      endTxn('c', true, { tx: 'tx3', expect: err(E.NONE) }),
      awaitCompletion('c', 'tx3'),
      initPid('d', { tx: 'tx4', expect: { errorCode: 0, producerEpoch: 0 } }),
      addOffsets('d', { tx: 'tx4' }),
      endTxn('d', false, { tx: 'tx4', expect: err(E.NONE) }),
      awaitCompletion('d', 'tx4'),
      describeTxns('x', ['tx1', 'tx2', 'tx3', 'tx4', 'unknown', '']),
      describeTxns('x', [], { label: 'no ids' }),
      listTxns('x', { v: 0 }),
      listTxns('x', { v: 0, states: ['Ongoing'] }),
      listTxns('x', { v: 1, states: ['Empty', 'CompleteCommit', 'CompleteAbort'] }),
      listTxns('x', { v: 0, states: ['Bogus', 'ongoing', 'Ongoing', 'PrepareCommit', 'Dead', 'PrepareEpochFence'] }),
      listTxns('x', { v: 0, pids: [pidOf('b')] }),
      listTxns('x', { v: 1, pids: [pidOf('b'), pidOf('c')], states: ['CompleteCommit'] }),
      listTxns('x', { v: 0, pids: [() => 987654321] }),
      listTxns('x', { v: 1, duration: 3_600_000 }),
      listTxns('x', { v: 1, duration: -1 }),
      listTxns('x', { v: 1, duration: 3_600_000, states: ['Empty'] }),
    ],
  }),
];
