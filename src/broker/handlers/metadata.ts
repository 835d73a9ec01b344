// Metadata (3): one broker that leads every partition. Unknown topics are auto-created when
// both the broker (auto.create.topics.enable) and the request (v4+ AllowAutoTopicCreation) allow
// it; like Kafka, the call that triggers the creation answers LEADER_NOT_AVAILABLE and the topic
// is there on the client's retry.
import type { MetadataResponseTopic } from '../../codec/index.js';
import { ErrorCode } from '../errors.js';
import { checkTopicName, ZERO_UUID, type Topic } from '../log/topics.js';
import { defineHandler } from './types.js';

/** Kafka's "authorized operations not requested" marker. */
const OPERATIONS_NOT_REQUESTED = -2147483648;

export const metadataHandler = defineHandler({
  apiKey: 3,
  minVersion: 0,
  maxVersion: 12,
  handle(ctx, req) {
    const b = ctx.broker;
    const v = ctx.apiVersion;
    const allowAutoCreate = b.config.autoCreateTopicsEnable && (v < 4 || req.allowAutoTopicCreation);
    const allTopics = req.topics === null || (v === 0 && req.topics.length === 0);
    const topics: MetadataResponseTopic[] = [];
    if (allTopics) {
      for (const t of b.topics.all()) topics.push(describeTopic(t, b.config.nodeId));
    } else {
      for (const rt of req.topics!) {
        if (rt.name === null) {
          const byId = b.topics.getById(rt.topicId);
          topics.push(byId ? describeTopic(byId, b.config.nodeId) : topicError(null, ErrorCode.UNKNOWN_TOPIC_ID, rt.topicId));
          continue;
        }
        const t = b.topics.get(rt.name);
        if (t) {
          topics.push(describeTopic(t, b.config.nodeId));
        } else if (checkTopicName(rt.name) !== 0) {
          topics.push(topicError(rt.name, ErrorCode.INVALID_TOPIC_EXCEPTION));
        } else if (allowAutoCreate && !b.topics.collision(rt.name)) {
          b.topics.create(rt.name, b.config.numPartitions, b.config.defaultReplicationFactor);
          b.log.info({ topic: rt.name, partitions: b.config.numPartitions }, 'topic auto-created');
          topics.push(topicError(rt.name, ErrorCode.LEADER_NOT_AVAILABLE));
        } else {
          topics.push(topicError(rt.name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        }
      }
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: b.config.nodeId, host: b.advertisedHost, port: b.advertisedPort, rack: b.config.rack }],
      clusterId: b.config.clusterId,
      controllerId: b.config.nodeId,
      topics,
      clusterAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
    };
  },
});

export function describeTopic(t: Topic, nodeId: number): MetadataResponseTopic {
  return {
    errorCode: 0,
    name: t.name,
    topicId: t.id,
    isInternal: t.isInternal,
    partitions: t.partitions.map((p) => ({
      errorCode: 0,
      partitionIndex: p.index,
      leaderId: nodeId,
      leaderEpoch: 0,
      replicaNodes: [nodeId],
      isrNodes: [nodeId],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

function topicError(name: string | null, errorCode: number, topicId = ZERO_UUID): MetadataResponseTopic {
  return {
    errorCode,
    name,
    topicId,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}
