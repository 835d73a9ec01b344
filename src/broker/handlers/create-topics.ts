// CreateTopics (19), v0-7: Kafka 3.9 in KRaft mode forwards it to the controller, which checks
// the names (legal, no '.'/'_' collision, not existing), the configs (known topic configs with
// valid values) and the partitions/replication (this cluster has one broker), then creates the
// topics -- or only validates them with validateOnly. v5+ answers with the partition count,
// replication factor and effective configs; v7 with the topic id. The rules are in
// log/topic-admin.ts (ControllerApis.createTopics, ReplicationControlManager.createTopics), with
// what the principal may do as ControllerApis.handleCreateTopics checks it: CREATE on the cluster
// or on each topic, DESCRIBE_CONFIGS on each topic for the v5+ details.
import { AclOperation, createCreateTopicsResponse, ResourceType, type CreateTopicsResponse } from '../../codec/index.js';
import { createTopics, type CreateTopicsAccess } from '../log/topic-admin.js';
import { authorizedCluster, filterAuthorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const createTopicsHandler = defineHandler({
  apiKey: 19,
  minVersion: 0,
  maxVersion: 7,
  handle(ctx, req) {
    let access: CreateTopicsAccess | undefined;
    if (ctx.services.authorizer !== undefined) {
      const names = req.topics.map((t) => t.name);
      access = {
        creatable: authorizedCluster(ctx, AclOperation.CREATE, false) ? new Set(names) : filterAuthorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, names),
        describable: filterAuthorized(ctx, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, names, false),
      };
    }
    const results = createTopics(ctx.services, req.topics, req.validateOnly, req.timeoutMs, access);
    return createCreateTopicsResponse({
      throttleTimeMs: 0,
      topics: results.map(
        (r): CreateTopicsResponse.CreatableTopicResult => ({
          name: r.name,
          topicId: r.topicId,
          errorCode: r.error.code,
          errorMessage: r.error.message,
          topicConfigErrorCode: r.topicConfigErrorCode,
          numPartitions: r.numPartitions,
          replicationFactor: r.replicationFactor,
          configs: r.configs,
        }),
      ),
    });
  },
});
