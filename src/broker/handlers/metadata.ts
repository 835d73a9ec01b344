// Metadata (3): one broker that leads every partition, answered as a Kafka 3.9 KRaft broker does
// (KafkaApis.handleTopicMetadataRequest). Unknown topics are auto-created when both the broker
// (auto.create.topics.enable) and the request (v4+ AllowAutoTopicCreation) allow it; a KRaft
// broker forwards the creation to the controller and answers UNKNOWN_TOPIC_OR_PARTITION meanwhile
// (LEADER_NOT_AVAILABLE is the ZooKeeper-mode answer), so clients retry and find the topic.
//
// With an authorizer: a topic the principal may not DESCRIBE is left out of an all-topics answer
// and is TOPIC_AUTHORIZATION_FAILED (zero topic id, nothing else disclosed) when named; a missing
// topic is auto-created only with CREATE on the cluster or on the topic, else it too is
// TOPIC_AUTHORIZATION_FAILED. Those answers come after the others, and KIP-430's topic bit field is
// set only on the authorized topics' entries, as handleTopicMetadataRequest builds them.
import { AclOperation, type MetadataResponse, ErrorCode, ResourceType, ZERO_UUID, AUTHORIZED_OPERATIONS_OMITTED } from '../../codec/index.js';
import { checkTopicName, isInternalTopicName, type Topic } from '../log/topics.js';
import { authorizedCluster, authorizedOperations, filterAuthorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const metadataHandler = defineHandler({
  apiKey: 3,
  minVersion: 0,
  maxVersion: 12,
  handle(ctx, req): MetadataResponse {
    const b = ctx.services;
    const v = ctx.apiVersion;
    const allTopics = req.topics === null || (v === 0 && req.topics.length === 0);

    // Versions 10 and 11 carry topic ids in the schema but refuse them (and null names).
    if (!allTopics && v < 12) {
      for (const t of req.topics!) {
        if (t.name === null || t.topicId !== ZERO_UUID) return errorResponse(req.topics!, ErrorCode.INVALID_REQUEST);
      }
    }
    // v12+ lets a name be null, meant for topics asked for by id. With no non-zero id in the
    // request the names are used, and Kafka 3.9 reaches Topic.validate(null) (getTopicMetadata,
    // or AutoTopicCreationManager.filterCreatableTopics when auto-creation applies) before it
    // creates anything: a NullPointerException that KafkaApis.handleError answers with
    // MetadataRequest.getErrorResponse, UNKNOWN_SERVER_ERROR for every requested topic.
    if (!allTopics && v >= 12 && req.topics!.some((t) => t.name === null) && req.topics!.every((t) => t.topicId === ZERO_UUID)) {
      b.log.warn({ connection: ctx.connection.id, apiVersion: v }, 'Metadata names a topic with a null name and no topic id; answering UNKNOWN_SERVER_ERROR as Kafka does');
      return errorResponse(req.topics!, ErrorCode.UNKNOWN_SERVER_ERROR);
    }

    const topics: MetadataResponse.Topic[] = [];
    let names: string[];
    const ids = allTopics ? [] : unique(req.topics!.map((t) => t.topicId).filter((id) => id !== ZERO_UUID));
    if (allTopics) {
      names = b.topics.all().map((t) => t.name);
    } else if (ids.length > 0) {
      // Once any id is given, names are ignored; unknown ids come first in the answer.
      names = [];
      for (const id of ids) {
        const t = b.topics.getById(id);
        if (t) names.push(t.name);
        else topics.push(topicError(null, ErrorCode.UNKNOWN_TOPIC_ID, id));
      }
    } else {
      names = unique(req.topics!.map((t) => t.name!));
    }

    // Names the principal may DESCRIBE; the others are answered last, or not at all.
    const describable = filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names, !allTopics);
    const unauthorized = names.filter((n) => !describable.has(n));
    names = names.filter((n) => describable.has(n));
    const allowAutoCreate = b.config.autoCreateTopicsEnable && req.allowAutoTopicCreation && !allTopics;
    let mayNotCreate: string[] = [];
    if (allowAutoCreate && !authorizedCluster(ctx, AclOperation.CREATE, false)) {
      const missingNames = names.filter((n) => b.topics.get(n) === undefined);
      const creatable = filterAuthorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, missingNames);
      mayNotCreate = missingNames.filter((n) => !creatable.has(n));
      names = names.filter((n) => !mayNotCreate.includes(n));
    }

    const existing: MetadataResponse.Topic[] = [];
    const missing: MetadataResponse.Topic[] = [];
    for (const name of names) {
      const t = b.topics.get(name);
      if (t) {
        existing.push(describeTopic(t, b.config.nodeId));
      } else if (checkTopicName(name) !== 0) {
        missing.push(topicError(name, ErrorCode.INVALID_TOPIC_EXCEPTION));
      } else {
        if (allowAutoCreate && !b.topics.collision(name)) {
          b.topics.create(name, b.config.numPartitions, b.config.defaultReplicationFactor);
          b.log.info({ topic: name, partitions: b.config.numPartitions }, 'topic auto-created');
        }
        missing.push(topicError(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
      }
    }
    if (v >= 8 && req.includeTopicAuthorizedOperations) {
      for (const t of [...existing, ...missing]) t.topicAuthorizedOperations = authorizedOperations(ctx, ResourceType.TOPIC, t.name ?? '');
    }
    topics.push(...existing, ...missing);
    for (const name of mayNotCreate) topics.push(topicError(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
    // Not even whether they exist: no id (unless asked by id: ids are not secret) and not internal.
    if (!allTopics) {
      for (const name of unauthorized) {
        const t = topicError(ids.length > 0 ? null : name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, ids.length > 0 ? (b.topics.get(name)?.id ?? ZERO_UUID) : ZERO_UUID);
        t.isInternal = false;
        topics.push(t);
      }
    }

    // v8-10: 0 when the principal may not DESCRIBE the cluster, else its operations.
    let clusterAuthorizedOperations = AUTHORIZED_OPERATIONS_OMITTED;
    if (v >= 8 && v <= 10 && req.includeClusterAuthorizedOperations) {
      clusterAuthorizedOperations = authorizedCluster(ctx, AclOperation.DESCRIBE) ? authorizedOperations(ctx, ResourceType.CLUSTER, 'kafka-cluster') : 0;
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: b.config.nodeId, host: ctx.listener.advertised.host, port: ctx.listener.advertised.port, rack: b.config.rack }],
      clusterId: b.clusterId,
      controllerId: b.config.nodeId,
      topics,
      clusterAuthorizedOperations,
    };
  },
});

export function describeTopic(t: Topic, nodeId: number): MetadataResponse.Topic {
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
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

function topicError(name: string | null, errorCode: number, topicId = ZERO_UUID): MetadataResponse.Topic {
  return {
    errorCode,
    name,
    topicId,
    isInternal: name !== null && isInternalTopicName(name),
    partitions: [],
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

/**
 * MetadataRequest.getErrorResponse: every requested topic (in request order, duplicates kept, a
 * null name as "") with the error, no brokers, no cluster id, controller -1.
 */
function errorResponse(requested: Array<{ name: string | null; topicId: string }>, errorCode: number): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: requested.map((t) => ({
      errorCode,
      name: t.name ?? '',
      topicId: t.topicId,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    })),
    clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
