// CreatePartitions (37), v0-3: grows topics to a new partition count (INVALID_PARTITIONS unless
// it increases), with optional manual assignments checked against this one broker, or only
// validates with validateOnly. Kafka 3.9 forwards it to the controller
// (ControllerApis.createPartitions, ReplicationControlManager.createPartitions), which first
// answers the topics the principal may not ALTER with TOPIC_AUTHORIZATION_FAILED.
import { AclOperation, createCreatePartitionsResponse, ResourceType } from '../../codec/index.js';
import { createPartitions } from '../log/topic-admin.js';
import { filterAuthorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const createPartitionsHandler = defineHandler({
  apiKey: 37,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const alterable = ctx.services.authorizer === undefined ? undefined : filterAuthorized(ctx, AclOperation.ALTER, ResourceType.TOPIC, req.topics.map((t) => t.name));
    const results = createPartitions(ctx.services, req.topics, req.validateOnly, req.timeoutMs, alterable);
    return createCreatePartitionsResponse({
      throttleTimeMs: 0,
      results: results.map((r) => ({ name: r.name, errorCode: r.error.code, errorMessage: r.error.message })),
    });
  },
});
