// AlterClientQuotas (49), v0-1. A Kafka 3.9 KRaft broker forwards it to the controller
// (ControllerApis.handleAlterClientQuotas): ALTER_CONFIGS on the cluster, else every entry
// CLUSTER_AUTHORIZATION_FAILED with the error's text (AlterClientQuotasRequest.getErrorResponse);
// then ClientQuotaControlManager validates and applies each entity (quotas/client-quotas.ts), one
// result per distinct entity. Each entity's EntityData list becomes a map, as
// AlterClientQuotasRequest.entries builds it: a type given twice keeps its last name.
import { AclOperation, createAlterClientQuotasResponse, ErrorCode } from '../../codec/index.js';
import { entityOrder, type QuotaEntity } from '../quotas/client-quotas.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const alterClientQuotasHandler = defineHandler({
  apiKey: 49,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    if (!authorizedCluster(ctx, AclOperation.ALTER_CONFIGS)) {
      return createAlterClientQuotasResponse({
        throttleTimeMs: 0,
        entries: req.entries.map((e) => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', entity: e.entity })),
      });
    }
    const alterations = req.entries.map((e) => ({
      entity: new Map(e.entity.map((d) => [d.entityType, d.entityName])) as QuotaEntity,
      ops: e.ops.map((o) => ({ key: o.key, value: o.remove ? null : o.value })),
    }));
    const results = ctx.services.clientQuotas.alter(alterations, req.validateOnly);
    return createAlterClientQuotasResponse({
      throttleTimeMs: 0,
      // AlterClientQuotasResponse.fromQuotaEntities: each entity as its map (the request's
      // new HashMap<>(entity count)) iterates.
      entries: results.map((r) => ({
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        entity: entityOrder(r.entity).map((entityType) => ({ entityType, entityName: r.entity.get(entityType) ?? null })),
      })),
    });
  },
});
