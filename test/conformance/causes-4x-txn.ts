// Where Kafka 4.x answers the transaction scenarios (scenarios/transactions*.ts, random-txn.ts)
// differently from 3.9, with the 4.x source of each (kmock follows 3.9). Part of CAUSES_4X
// (causes-4x.ts), consulted only against a 4.x reference.
//
// Sources: apache/kafka 3.9 (core/src/main/scala/kafka/coordinator/transaction/
// TransactionMetadata.scala, TransactionCoordinator.scala, core/.../log/UnifiedLog.scala,
// ReplicaManager.scala) against the 4.4.0 jars' bytecode (javap -c -p):
// org.apache.kafka.coordinator.transaction.TransactionMetadata (kafka-transaction-coordinator,
// rewritten in Java), kafka.coordinator.transaction.TransactionCoordinator and kafka.cluster.Partition
// (kafka_2.13). Transaction version 2 (KIP-890 part 2) is finalized on a new 4.x cluster; kmock
// implements transaction version 1, as Kafka 3.9 does. `random-seed-1NNN` are the random
// transactional sequences (random-txn.ts, seeds from TXN_SEED_BASE).
import type { Cause } from './causes.js';

/** Kafka 3.9.1's version ranges of the transaction APIs (causes-4x.ts API_39; kmock advertises the same). */
export const API_39_TXN: Record<string, { key: number; min: number; max: number }> = {
  AddPartitionsToTxn: { key: 24, min: 0, max: 5 },
  AddOffsetsToTxn: { key: 25, min: 0, max: 4 },
  EndTxn: { key: 26, min: 0, max: 4 },
  WriteTxnMarkers: { key: 27, min: 0, max: 1 },
  TxnOffsetCommit: { key: 28, min: 0, max: 4 },
  DescribeProducers: { key: 61, min: 0, max: 0 },
  DescribeTransactions: { key: 65, min: 0, max: 0 },
  ListTransactions: { key: 66, min: 0, max: 1 },
};
/** KIP-896: the transaction API versions 4.0 removed (causes-4x.ts REMOVED_IN_4): WriteTxnMarkers v0. */
export const REMOVED_IN_4_TXN: Record<string, number> = { WriteTxnMarkers: 0 };

export const CAUSES_4X_TXN: Cause[] = [
  {
    id: 'kafka-4x-init-resets-txn-start-time',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^(shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState|random-seed-1\d{3})$/,
    request: /^DescribeTransactions v0 /,
    path: /^response\.transactionStates\[\d+\]\.transactionStartTimeMs$/,
    when: (d) => d.a === '<now>' && d.b === -1,
    cause:
      'DescribeTransactions of a transactional id re-initialised after a transaction (state Empty): Kafka 3.9\'s TransactionMetadata.completeTransitionTo, case Empty ("from initPid"), copies the timeout, epochs and producer ids of the transition but not its txnStartTimestamp (-1), so the last transaction\'s start time stays and is described; 4.x\'s Java TransactionMetadata.completeTransitionTo copies every field of the transition after validating it, so TransactionStartTimeMs is -1. kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-produce-verifies-another-epoch',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^(testFencingOnEveryApi|testTransactionalProduceVersions|random-seed-1\d{3})$/,
    request: /^Produce v\d+ /,
    path: /^response\.responses\[name=[^\]]+\]\.partitionResponses\[index=\d+\]\.(errorCode|logStartOffset)$/,
    when: (d) => (d.path.endsWith('errorCode') ? (d.a === 45 || d.a === 47) && d.b === 47 : typeof d.a === 'number' && d.a >= 0 && d.b === -1),
    cause:
      'Transactional Produce by a producer id that has an ongoing transaction on the partition, with another epoch (a fenced producer, or a higher epoch): Kafka 3.9 skips the KIP-890 verification when the partition has an ongoing transaction for the producer id (UnifiedLog.maybeStartTransactionVerification: hasOngoingTransaction(producerId)), so the log answers: INVALID_PRODUCER_EPOCH for an older epoch (with the log\'s LogStartOffset), OUT_OF_ORDER_SEQUENCE_NUMBER for a newer one whose sequence is not 0; 4.x checks the epoch too (Partition.hasOngoingTransaction(long producerId, short producerEpoch)), so the batch is verified with the coordinator, which answers PRODUCER_FENCED, sent as INVALID_PRODUCER_EPOCH before any append (LogStartOffset -1). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-timeout-abort-bumps-epoch-tv2',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch$/,
    request: /^InitProducerId v4 \(KIP-360 init with the aborted epoch\)$/,
    path: /^response\.(errorCode|producerId|producerEpoch)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === 90 && d.b === 0 : d.a === -1 && d.b !== -1),
    cause:
      'InitProducerId (KIP-360) with the epoch of a transaction the coordinator aborted on timeout: 4.x aborts timed-out transactions with the cluster\'s finalized transaction version (TransactionCoordinator.abortTimedOutTransactions passes txnManager.transactionVersionLevel to endTransaction), which is 2 on a new 4.x cluster, and TransactionMetadata.prepareAbortOrCommit with a version that supportsEpochBump keeps the aborted epoch as lastProducerEpoch, so the request is a retry of the bump (prepareIncrementProducerEpoch: expected == lastProducerEpoch) and answers NONE with the current epoch; Kafka 3.9 (transaction version 1) fences with lastProducerEpoch -1 (prepareFenceProducerEpoch, endTransaction isEpochFence) and answers PRODUCER_FENCED. kmock follows 3.9 (transaction version 1).',
  },
];
