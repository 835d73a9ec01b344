// DescribeProducers (61), version 0, as Kafka 3.9's KafkaApis.handleDescribeProducersRequest,
// ReplicaManager.activeProducerState, Partition.activeProducerState and UnifiedLog.activeProducers
// answer it (what `kafka-transactions.sh describe-producers` shows).
//
// Per topic: an illegal name answers every requested partition INVALID_TOPIC_EXCEPTION with
// Topic.validate's message; an unknown topic UNKNOWN_TOPIC_OR_PARTITION with the error's default
// message (ApiError(Errors)); first, without READ on the topic, TOPIC_AUTHORIZATION_FAILED with
// its default message. Per partition of a known topic: a partition
// the topic lacks answers UNKNOWN_TOPIC_OR_PARTITION without a message (getPartitionOrError);
// else NONE and the producers the partition has state for (expired ones gone first, as Kafka's
// periodic check would have removed them): id, epoch, last sequence (-1 once a marker changed the
// epoch or before any data), last timestamp (the last batch's max timestamp or the last marker's),
// coordinator epoch (-1 before any marker) and the ongoing transaction's first offset (-1: none).
//
// Order: Kafka lists ProducerStateManager's java.util.HashMap<Long, ProducerStateEntry>, so the
// producers come in that map's iteration order: by bucket (the Long's hash, spread, masked by the
// table size, which grows from 16 by doubling when the map passes 3/4 full and never shrinks),
// insertion order within a bucket. (A bucket of 8+ producer ids in a table of 64+ becomes a tree
// whose order this does not follow; producer ids from one broker are consecutive, so that needs
// hundreds of producers on one partition.)
import { AclOperation, type DescribeProducersResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { invalidTopicNameMessage } from '../log/topic-admin.js';
import type { ProducerStateEntry } from '../log/producer-state.js';
import { defineHandler } from './types.js';

/** Errors.UNKNOWN_TOPIC_OR_PARTITION.message(). */
const UNKNOWN_TOPIC_MESSAGE = 'This server does not host this topic-partition.';
/** Errors.TOPIC_AUTHORIZATION_FAILED.message() (new ApiError(error).message falls back to it). */
const TOPIC_AUTHORIZATION_MESSAGE = 'Topic authorization failed.';

export const describeProducersHandler = defineHandler({
  apiKey: 61,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const b = ctx.services;
    const now = b.clock.now();
    const topics: DescribeProducersResponse.TopicResponse[] = req.topics.map((t) => {
      const invalid = invalidTopicNameMessage(t.name);
      const topic = invalid === null ? b.topics.get(t.name) : undefined;
      const topicError =
        invalid !== null
          ? { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: invalid }
          : !authorized(ctx, AclOperation.READ, ResourceType.TOPIC, t.name)
            ? { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: TOPIC_AUTHORIZATION_MESSAGE }
            : topic === undefined
              ? { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC_MESSAGE }
              : null;
      const partitions = t.partitionIndexes.map((index): DescribeProducersResponse.PartitionResponse => {
        if (topicError !== null) return { partitionIndex: index, ...topicError, activeProducers: [] };
        const log = topic!.partitions[index];
        if (log === undefined) return { partitionIndex: index, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] };
        const producers = log.producers.activeProducers(now);
        return {
          partitionIndex: index,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          activeProducers: javaHashMapOrder(producers, log.producers.peakProducerCount).map(producerState),
        };
      });
      return { name: t.name, partitions };
    });
    return { throttleTimeMs: 0, topics };
  },
});

function producerState(e: ProducerStateEntry): DescribeProducersResponse.ProducerState {
  return {
    producerId: e.producerId,
    producerEpoch: e.producerEpoch,
    lastSequence: e.lastSeq,
    lastTimestamp: BigInt(e.lastTimestamp),
    coordinatorEpoch: e.coordinatorEpoch,
    currentTxnStartOffset: BigInt(e.currentTxnFirstOffset),
  };
}

/**
 * The iteration order of a java.util.HashMap<Long, V> that was filled in `entries`' order (a JS
 * Map's insertion order) and once held `peakSize` entries.
 */
export function javaHashMapOrder<V>(entries: ReadonlyMap<bigint, V>, peakSize: number): V[] {
  let capacity = 16;
  while (peakSize > capacity * 0.75) capacity *= 2;
  const mask = capacity - 1;
  const keyed: Array<{ bucket: number; i: number; v: V }> = [];
  let i = 0;
  for (const [k, v] of entries) keyed.push({ bucket: spreadHash(k) & mask, i: i++, v });
  keyed.sort((a, b) => a.bucket - b.bucket || a.i - b.i);
  return keyed.map((e) => e.v);
}

/** HashMap.hash(Long.valueOf(k)): Long.hashCode (high ^ low 32 bits), then h ^ (h >>> 16). */
function spreadHash(k: bigint): number {
  const u = BigInt.asUintN(64, k);
  const h = (Number(u >> 32n) ^ Number(u & 0xffffffffn)) | 0;
  return h ^ (h >>> 16);
}
