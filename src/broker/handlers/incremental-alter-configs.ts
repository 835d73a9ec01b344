// IncrementalAlterConfigs (44), v0-1: SET, DELETE, APPEND and SUBTRACT changes to the configs of
// topics, of this broker (resource name = its node id) and of the cluster default (""), to
// client-metrics subscriptions and to the broker's loggers (BROKER_LOGGER), validated and applied
// as a Kafka 3.9 KRaft broker+controller does (KafkaApis.handleIncrementalAlterConfigsRequest,
// ConfigAdminManager, ControllerApis, ConfigurationControlManager: config/alter-configs.ts). One
// result per resource, in request order; error messages null on success.
import { createIncrementalAlterConfigsResponse } from '../../codec/index.js';
import { incrementalAlterConfigs } from '../config/alter-configs.js';
import { defineHandler } from './types.js';
import { AclOperation } from '../../codec/index.js';
import { configAccess } from '../security/authorizer/index.js';

export const incrementalAlterConfigsHandler = defineHandler({
  apiKey: 44,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const results = incrementalAlterConfigs(ctx.services, req.resources, req.validateOnly, configAccess(ctx, AclOperation.ALTER_CONFIGS));
    return createIncrementalAlterConfigsResponse({
      throttleTimeMs: 0,
      responses: req.resources.map((r, i) => ({
        errorCode: results[i].code,
        errorMessage: results[i].message,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
      })),
    });
  },
});
