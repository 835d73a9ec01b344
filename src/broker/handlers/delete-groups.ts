// DeleteGroups (42): duplicates in the request are answered once (KafkaApis takes `distinct`); the
// groups the principal may not DELETE are GROUP_AUTHORIZATION_FAILED, after the others.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { filterAuthorized } from '../security/authorizer/index.js';

export const deleteGroupsHandler = defineHandler({
  apiKey: 42,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const ids = [...new Set(req.groupsNames)];
    const deletable = filterAuthorized(ctx, AclOperation.DELETE, ResourceType.GROUP, ids);
    const denied = ids.filter((id) => !deletable.has(id)).map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }));
    return { throttleTimeMs: 0, results: [...ctx.services.groups.deleteGroups(ids.filter((id) => deletable.has(id))), ...denied] };
  },
});
