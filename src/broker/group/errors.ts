// The Kafka error codes (clients/.../common/protocol/Errors.java, 3.9) that the group coordinator
// returns, plus the raw log-append errors it maps. Only the codes this module needs are listed.

export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  UNSUPPORTED_VERSION: 35,
  KAFKA_STORAGE_ERROR: 56,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  MEMBER_ID_REQUIRED: 79,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  UNSTABLE_OFFSET_COMMIT: 88,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const names = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** `errorName(79) === "MEMBER_ID_REQUIRED"`; unknown codes render as `ERROR_<code>`. */
export function errorName(code: number): string {
  return names.get(code) ?? `ERROR_${code}`;
}

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
