// DescribeGroups (15), as KafkaApis.handleDescribeGroupsRequest: a group the principal may not
// DESCRIBE is GROUP_AUTHORIZATION_FAILED (DescribeGroupsResponse.groupError: empty state, protocol
// and members), listed before the described groups. v3+ with IncludeAuthorizedOperations reports
// the principal's group operations (READ, DELETE, DESCRIBE; all three without an authorizer) on
// each group answered without error.
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized, authorizedOperations } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const describeGroupsHandler = defineHandler({
  apiKey: 15,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const withOps = ctx.apiVersion >= 3 && req.includeAuthorizedOperations;
    const allowed: string[] = [];
    const denied = [];
    for (const groupId of req.groups) {
      if (authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
      else denied.push({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED });
    }
    const described = ctx.services.groups.describeGroups(allowed).map((g) => ({
      ...g,
      authorizedOperations: withOps && g.errorCode === 0 ? authorizedOperations(ctx, ResourceType.GROUP, g.groupId) : AUTHORIZED_OPERATIONS_OMITTED,
    }));
    return { throttleTimeMs: 0, groups: [...denied, ...described] };
  },
});
