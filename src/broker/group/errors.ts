// How the group coordinator turns failed log appends into response errors (Kafka 3.9), on top of
// Kafka's error codes (the codec's table, src/codec/errors.ts: the one list of Kafka errors).
import { ErrorCode } from '../../codec/index.js';

/**
 * How GroupMetadataManager.storeGroup (3.9) turns a failed group-metadata append into the error a
 * JoinGroup/SyncGroup response carries. (4.x maps REQUEST_TIMED_OUT differently.)
 */
export function groupAppendErrorToResponseError(error: number): number {
  switch (error) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.REBALANCE_IN_PROGRESS;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return error;
  }
}

/** GroupMetadataManager.maybeConvertOffsetCommitError (3.9): a failed offset-commit append. */
export function offsetAppendErrorToResponseError(error: number): number {
  switch (error) {
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    default:
      return error;
  }
}
