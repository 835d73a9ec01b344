// What the partition log's operations answer (partition-log.ts re-exports all of it): Kafka's
// LogAppendInfo as a Produce partition needs it, FetchDataInfo, the transactional options of an
// append, a WriteTxnMarkers entry and its outcome, TimestampAndOffset.
import type { RecordError } from '../../codec/records/validate.js';
import { SENTINEL_GUARD, type VerificationGuard } from './producer-state.js';
import type { AbortedTxn } from './txn-index.js';

/** What Kafka's LogAppendResult turns into in a ProduceResponse partition. */
export interface AppendResult {
  errorCode: number;
  /** First offset of the batch (the original one for a duplicate); -1 on errors. */
  baseOffset: number;
  /** The append time under LogAppendTime; a duplicate's stored timestamp; else -1. */
  logAppendTime: number;
  /** -1 where Kafka answers with LogAppendInfo.UNKNOWN_LOG_APPEND_INFO. */
  logStartOffset: number;
  recordErrors: RecordError[];
  /** Only set where Kafka sets it (record-level validation failures). */
  errorMessage: string | null;
  /** Kafka's log message for the failure (not sent to clients unless errorMessage is set). */
  reason?: string;
  /** True when the batch was stored; false for errors and for duplicates. */
  appended: boolean;
}

export interface ReadResult {
  errorCode: number;
  /** The stored Buffers (the same objects); the last may be a view cut at the size limit. */
  records: Buffer[];
  bytes: number;
  /** LogSegment.read's firstEntryIncomplete: the first batch did not fit in the limit. */
  firstEntryIncomplete: boolean;
  /** Byte position the read started at (Kafka's LogOffsetMetadata.relativePositionInSegment). */
  startPosition: number;
  /** Base offset of the segment read (LogOffsetMetadata.segmentBaseOffset); -1 after an error. */
  startSegment: number;
  /** read_committed reads: the aborted transactions of the range (FetchDataInfo.abortedTransactions); else null. */
  abortedTransactions: AbortedTxn[] | null;
}

/** How a transactional batch is appended (ReplicaManager's verification guard and the broker setting). */
export interface TxnAppendOptions {
  /** transaction.partition.verification.enable (ProducerStateManagerConfig.transactionVerificationEnabled). */
  verificationEnabled: boolean;
  /** The guard PartitionLog.producers.maybeStartTransactionVerification gave, once the coordinator confirmed. */
  guard: VerificationGuard;
  /**
   * AppendOrigin: CLIENT (Produce, the default) or COORDINATOR (the group coordinator's records):
   * a coordinator's batch skips the duplicate and sequence checks (UnifiedLog.
   * analyzeAndValidateProducerState, ProducerAppendInfo.maybeValidateDataBatch).
   */
  origin?: 'client' | 'coordinator';
}

/** Kafka's default: verification on, no guard (a transactional batch starting a transaction is refused). */
export const NO_VERIFICATION: TxnAppendOptions = { verificationEnabled: true, guard: SENTINEL_GUARD };

/** One WriteTxnMarkers entry for this partition (WritableTxnMarker). */
export interface ControlMarker {
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  result: 'COMMIT' | 'ABORT';
}

export interface MarkerAppendResult {
  errorCode: number;
  /** The marker's offset; -1 on errors. */
  offset: number;
  /** Kafka's log message for a refusal. */
  reason?: string;
}

export interface TimestampAndOffset {
  timestamp: number;
  offset: number;
  /** Leader epoch of the batch holding the offset, or -1 when unknown. */
  leaderEpoch: number;
}

/** What one retention rule deleted (logged by the log manager). */
export interface RetentionDeletion {
  reason: 'log-start-offset' | 'retention.bytes' | 'retention.ms' | 'memory';
  segments: number;
  bytes: number;
  logStartOffset: number;
}
