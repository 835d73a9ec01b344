// LeaveGroup (13): v0-v2 one member by id; v3+ a batch by member id and/or instance id. READ on
// the group, else GROUP_AUTHORIZATION_FAILED for the request, no members (LeaveGroupRequest.getErrorResponse).
import { noteLeaveGroup } from '../strict/group-checks.js';
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const leaveGroupHandler = defineHandler({
  apiKey: 13,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    if (ctx.services.clientFindings.enabled) noteLeaveGroup(ctx, req.groupId);
    return { throttleTimeMs: 0, ...ctx.services.groups.leaveGroup(ctx.apiVersion, req) };
  },
});
