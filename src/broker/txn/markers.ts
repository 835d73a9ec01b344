// Writing the COMMIT/ABORT markers of a transaction, modelled on Kafka 3.9's
// TransactionMarkerChannelManager (addTxnMarkersToSend, maybeWriteTxnCompletion, removeMarkersForTxn)
// and TransactionMarkerRequestCompletionHandler (what each per-partition error means), only as far
// as the coordinator's state machine needs it: the partitions still waiting for a marker are the
// metadata's topicPartitions; when the last one is written the coordinator appends the
// CompleteCommit/CompleteAbort transition.
//
// The log side is a `MarkerWriter` (to be built with the partition log): it may call `done`
// synchronously from `write` or at any later time.

import type { TopicPartition, TransactionResult } from './types.js';
import { ErrorCode } from '../../codec/index.js';

/** One WriteTxnMarkers entry (WriteTxnMarkersRequest.WritableTxnMarker). */
export interface TxnMarkerRequest {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  result: TransactionResult;
  partitions: TopicPartition[];
}

export interface MarkerPartitionResult {
  topic: string;
  partition: number;
  errorCode: number;
}

export interface MarkerWriter {
  /** Write `request.result`'s marker to every partition; answer one result per partition. */
  write(request: TxnMarkerRequest, done: (results: MarkerPartitionResult[]) => void): void;
}

/** A writer that writes every marker at once, successfully (the default until the log side exists). */
export const immediateMarkerWriter: MarkerWriter = {
  write(request, done) {
    done(request.partitions.map((tp) => ({ ...tp, errorCode: ErrorCode.NONE })));
  },
};

/** What TransactionMarkerRequestCompletionHandler does with a partition's error. */
export type MarkerOutcome =
  /** The marker is written (or can never be: the producer could not have written there either). */
  | 'done'
  /** Re-enqueued for the partition's (possibly new) leader. */
  | 'retry'
  /** The producer or coordinator epoch changed: this transaction's markers are dropped. */
  | 'abort-sending'
  /** Kafka throws IllegalStateException (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, ... or any unexpected code). */
  | 'fatal';

export function markerOutcome(errorCode: number): MarkerOutcome {
  switch (errorCode) {
    case ErrorCode.NONE:
    case ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT:
    case ErrorCode.UNSUPPORTED_VERSION:
      return 'done';
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return 'retry';
    case ErrorCode.INVALID_PRODUCER_EPOCH:
    case ErrorCode.TRANSACTION_COORDINATOR_FENCED:
      return 'abort-sending';
    default:
      return 'fatal';
  }
}

/**
 * Kafka re-sends retriable markers and completion writes on its marker channel's next send loop;
 * kmock, having no network loop, waits this long on the coordinator's clock (so that a writer that
 * always fails cannot spin a fake clock forever).
 */
export const MARKER_RETRY_BACKOFF_MS = 100;
