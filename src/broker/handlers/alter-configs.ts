// AlterConfigs (33), v0-2: replaces the configs of topics, of this broker (resource name = its
// node id), of the cluster default ("") and of client-metrics subscriptions with the ones given
// (those not given are removed), validated as a Kafka 3.9 KRaft broker+controller validates them
// (KafkaApis.handleAlterConfigsRequest, ConfigAdminManager, ControllerApis.handleLegacyAlterConfigs,
// ConfigurationControlManager.legacyAlterConfigs: config/alter-configs.ts). BROKER_LOGGER is not
// alterable here ("Unknown resource type 8"). One result per resource, in request order.
//
// A resource given twice: both get INVALID_REQUEST "Each resource must appear at most once.",
// which is what Kafka 3.9's broker decides; Kafka 3.9.1 then throws while counting the errors of
// its answer (AlterConfigsResponse.errorCounts collects them into a map keyed by resource) and
// never answers, leaving the connection waiting. kmock answers.
import { createAlterConfigsResponse } from '../../codec/index.js';
import { legacyAlterConfigs } from '../config/alter-configs.js';
import { defineHandler } from './types.js';
import { AclOperation } from '../../codec/index.js';
import { configAccess } from '../security/authorizer/index.js';

export const alterConfigsHandler = defineHandler({
  apiKey: 33,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const results = legacyAlterConfigs(ctx.services, req.resources, req.validateOnly, configAccess(ctx, AclOperation.ALTER_CONFIGS));
    return createAlterConfigsResponse({
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
