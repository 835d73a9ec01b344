// DeleteRecords (21), versions 0-2, as Kafka 3.9's KafkaApis.handleDeleteRecordsRequest,
// ReplicaManager.deleteRecordsOnLocalLog and Partition.deleteRecordsOnLeader answer it:
// - a topic the principal may not DELETE: TOPIC_AUTHORIZATION_FAILED, low watermark -1;
// - unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION, low watermark -1;
// - internal topics: INVALID_TOPIC_EXCEPTION; cleanup.policy without "delete": POLICY_VIOLATION;
// - offset -1 means the high watermark; other negative offsets and offsets past the high
//   watermark: OFFSET_OUT_OF_RANGE; otherwise the log start offset moves up (never down) and the
//   answer is the new low watermark. With one replica the low watermark is reached at once, so
//   the request never waits for timeout_ms.
// A partition named twice is answered once, with the last offset asked (Kafka keys a map by it).
import { AclOperation, type DeleteRecordsResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { filterAuthorized } from '../security/authorizer/index.js';
import { resolveLogConfig } from '../log/partition-log.js';
import { defineHandler } from './types.js';

export const deleteRecordsHandler = defineHandler({
  apiKey: 21,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const b = ctx.services;
    const asked = new Map<string, { topic: string; partition: number; offset: number }>();
    for (const t of req.topics) {
      for (const p of t.partitions) {
        asked.set(`${t.name}\0${p.partitionIndex}`, { topic: t.name, partition: p.partitionIndex, offset: Number(p.offset) });
      }
    }
    const deletable = filterAuthorized(ctx, AclOperation.DELETE, ResourceType.TOPIC, req.topics.map((t) => t.name));
    const byTopic = new Map<string, DeleteRecordsResponse.PartitionResult[]>();
    for (const { topic: name, partition, offset } of asked.values()) {
      let list = byTopic.get(name);
      if (list === undefined) {
        list = [];
        byTopic.set(name, list);
      }
      const topic = b.topics.get(name);
      const log = topic?.partitions[partition];
      let errorCode = 0;
      let lowWatermark = -1;
      if (!deletable.has(name)) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (topic === undefined || log === undefined) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (topic.isInternal) errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
      else if (!resolveLogConfig(topic.configs, b.logDefaults).delete) errorCode = ErrorCode.POLICY_VIOLATION;
      else {
        const r = log.deleteRecords(offset);
        errorCode = r.errorCode;
        lowWatermark = r.lowWatermark;
        if (errorCode === 0) b.log.debug({ topic: name, partition, logStartOffset: lowWatermark }, 'records deleted');
      }
      list.push({ partitionIndex: partition, lowWatermark: BigInt(lowWatermark), errorCode });
    }
    return {
      throttleTimeMs: 0,
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    };
  },
});
