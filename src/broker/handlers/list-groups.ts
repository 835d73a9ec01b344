// ListGroups (16): v4+ filters by state, v5+ by type. Without DESCRIBE on the cluster only the
// groups the principal may DESCRIBE are listed (KafkaApis.handleListGroupsRequest).
import { defineHandler } from './types.js';
import { AclOperation, ResourceType } from '../../codec/index.js';
import { authorizedCluster, filterAuthorized } from '../security/authorizer/index.js';

export const listGroupsHandler = defineHandler({
  apiKey: 16,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const res = ctx.services.groups.listGroups({
      statesFilter: v >= 4 ? req.statesFilter : null,
      typesFilter: v >= 5 ? req.typesFilter : null,
    });
    if (authorizedCluster(ctx, AclOperation.DESCRIBE, false)) return { throttleTimeMs: 0, ...res };
    const describable = filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, res.groups.map((g) => g.groupId), false);
    return { throttleTimeMs: 0, ...res, groups: res.groups.filter((g) => describable.has(g.groupId)) };
  },
});
