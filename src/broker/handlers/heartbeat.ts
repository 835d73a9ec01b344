// Heartbeat (12). READ on the group, else GROUP_AUTHORIZATION_FAILED (KafkaApis.handleHeartbeatRequest).
import { checkHeartbeatAnswer } from '../strict/group-checks.js';
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';

export const heartbeatHandler = defineHandler({
  apiKey: 12,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const response = { throttleTimeMs: 0, ...ctx.services.groups.heartbeat(ctx.apiVersion, req) };
    if (ctx.services.clientFindings.enabled) checkHeartbeatAnswer(ctx, req, response.errorCode);
    return response;
  },
});
