// LeaveGroup (13): v0-v2 one member by id; v3+ a batch by member id and/or instance id.
import { noteLeaveGroup } from '../strict/group-checks.js';
import { defineHandler } from './types.js';

export const leaveGroupHandler = defineHandler({
  apiKey: 13,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    if (ctx.services.clientFindings.enabled) noteLeaveGroup(ctx, req.groupId);
    return { throttleTimeMs: 0, ...ctx.services.groups.leaveGroup(ctx.apiVersion, req) };
  },
});
