// ListOffsets (2), versions 0-9, as Kafka 3.9's KafkaApis.handleListOffsetRequest,
// Partition.fetchOffsetForTimestamp and UnifiedLog.fetchOffsetByTimestamp answer it.
//
// v0 (handleListOffsetRequestV0, UnifiedLog.legacyFetchOffsetsBefore): "old style" offsets from
// the segment table: the log start offset stamped with the segment's mtime and, once the log
// holds data, the log end offset stamped now; up to max_num_offsets of those at or before the
// timestamp, newest first. Timestamps below -2 are UNSUPPORTED_VERSION.
// v1+: -1 latest, -2 earliest (log start offset), -3 max timestamp (v7+), -4 earliest local (v8+,
// = earliest without tiered storage), -5 latest tiered (v9+, -1 without tiered storage); other
// negative values and values before their version are UNSUPPORTED_VERSION; a timestamp finds the
// first record at or after the log start offset whose timestamp is >= it, else -1/-1 with no
// error. A partition named twice gets INVALID_REQUEST for each occurrence.
//
// Isolation (Partition.fetchOffsetForTimestamp's lastFetchableOffset): a consumer's request
// (replica id -1) reads up to the last stable offset under read_committed (isolation_level 1,
// v2+) and up to the high watermark under read_uncommitted; any other replica id (a follower, or
// -2 for debugging) up to the log end offset. "Latest" answers that offset; every lookup other than
// latest and earliest (timestamps, max timestamp, latest tiered) is dropped (-1/-1, no error) when
// the offset it finds is not below it. Markers are records of the log like any other here: the
// segment's timestamp search and max timestamp include them, as Kafka's do.
import { AclOperation, type ListOffsetsResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { filterAuthorized } from '../security/authorizer/index.js';
import { LEADER_EPOCH, type PartitionLog, type TimestampAndOffset } from '../log/partition-log.js';
import { defineHandler } from './types.js';

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;
const LATEST_TIERED = -5;

/** ListOffsetsRequest: the first version that understands each special timestamp. */
const MIN_VERSION_OF: ReadonlyMap<number, number> = new Map([
  [EARLIEST, 1],
  [LATEST, 1],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL, 8],
  [LATEST_TIERED, 9],
]);

export const listOffsetsHandler = defineHandler({
  apiKey: 2,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const b = ctx.services;

    const seen = new Set<string>();
    const duplicates = new Set<string>();
    if (v >= 1) {
      for (const t of req.topics) {
        for (const p of t.partitions) {
          const key = `${t.name}\0${p.partitionIndex}`;
          if (seen.has(key)) duplicates.add(key);
          else seen.add(key);
        }
      }
    }

    // DESCRIBE on the topic (partitionSeqByAuthorized): the others answer TOPIC_AUTHORIZATION_FAILED, after the rest.
    const describable = filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, req.topics.map((t) => t.name));
    const unauthorized = req.topics
      .filter((t) => !describable.has(t.name))
      .map((t) => ({ name: t.name, partitions: t.partitions.map((p) => failure(p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED)) }));
    const topics: ListOffsetsResponse.TopicResponse[] = req.topics.filter((t) => describable.has(t.name)).map((t) => {
      const topic = b.topics.get(t.name);
      const partitions = t.partitions.map((p): ListOffsetsResponse.PartitionResponse => {
        const log: PartitionLog | undefined = topic?.partitions[p.partitionIndex];
        const ts = Number(p.timestamp);
        if (v === 0) {
          if (ts < EARLIEST) return v0(p.partitionIndex, ErrorCode.UNSUPPORTED_VERSION, []);
          if (log === undefined) return v0(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []);
          try {
            return v0(p.partitionIndex, 0, log.legacyOffsetsBefore(ts, p.maxNumOffsets, b.clock.now()).map(BigInt));
          } catch {
            // Kafka allocates an array of size min(maxNumOffsets, n): negative sizes throw.
            return v0(p.partitionIndex, ErrorCode.UNKNOWN_SERVER_ERROR, []);
          }
        }
        if (duplicates.has(`${t.name}\0${p.partitionIndex}`)) return failure(p.partitionIndex, ErrorCode.INVALID_REQUEST);
        if (ts < 0) {
          const min = MIN_VERSION_OF.get(ts);
          if (min === undefined || v < min) return failure(p.partitionIndex, ErrorCode.UNSUPPORTED_VERSION);
        }
        if (log === undefined) return failure(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        // Partition.localLogWithEpochOrThrow: -1 means "not given"; the leader epoch is 0.
        if (p.currentLeaderEpoch !== -1) {
          if (p.currentLeaderEpoch < LEADER_EPOCH) return failure(p.partitionIndex, ErrorCode.FENCED_LEADER_EPOCH);
          if (p.currentLeaderEpoch > LEADER_EPOCH) return failure(p.partitionIndex, ErrorCode.UNKNOWN_LEADER_EPOCH);
        }
        const found = lookup(log, ts, lastFetchableOffset(log, req.replicaId, req.isolationLevel));
        if (found === null) return failure(p.partitionIndex, 0);
        return {
          partitionIndex: p.partitionIndex,
          errorCode: 0,
          oldStyleOffsets: [],
          timestamp: BigInt(found.timestamp),
          offset: BigInt(found.offset),
          leaderEpoch: v >= 4 ? found.leaderEpoch : -1,
        };
      });
      return { name: t.name, partitions };
    });
    return { throttleTimeMs: 0, topics: [...topics, ...unauthorized] };
  },
});

/** ListOffsetsRequest.CONSUMER_REPLICA_ID. */
const CONSUMER_REPLICA_ID = -1;
const READ_COMMITTED = 1;

/** KafkaApis (isolation level only for consumers) and Partition.fetchOffsetForTimestamp's lastFetchableOffset. */
function lastFetchableOffset(log: PartitionLog, replicaId: number, isolationLevel: number): number {
  if (replicaId !== CONSUMER_REPLICA_ID) return log.logEndOffset;
  return isolationLevel === READ_COMMITTED ? log.lastStableOffset : log.highWatermark;
}

/** Partition.fetchOffsetForTimestamp on a leader with one replica and no tiered storage. */
function lookup(log: PartitionLog, ts: number, lastFetchable: number): TimestampAndOffset | null {
  let found: TimestampAndOffset | null;
  switch (ts) {
    case LATEST:
      return { timestamp: -1, offset: lastFetchable, leaderEpoch: LEADER_EPOCH };
    case EARLIEST:
    case EARLIEST_LOCAL:
      return { timestamp: -1, offset: log.logStartOffset, leaderEpoch: LEADER_EPOCH };
    case LATEST_TIERED:
      found = { timestamp: -1, offset: -1, leaderEpoch: -1 };
      break;
    case MAX_TIMESTAMP:
      found = log.maxTimestampOffset();
      break;
    default:
      found = log.offsetForTimestamp(ts);
  }
  // getOffsetByTimestamp.filter(_.offset < lastFetchableOffset)
  return found !== null && found.offset < lastFetchable ? found : null;
}

function v0(partitionIndex: number, errorCode: number, offsets: bigint[]): ListOffsetsResponse.PartitionResponse {
  return { partitionIndex, errorCode, oldStyleOffsets: offsets, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
}

/** buildErrorResponse: also the "not found" answer (error NONE, -1/-1). */
function failure(partitionIndex: number, errorCode: number): ListOffsetsResponse.PartitionResponse {
  return { partitionIndex, errorCode, oldStyleOffsets: [], timestamp: -1n, offset: -1n, leaderEpoch: -1 };
}
