// Heartbeat (12).
import { checkHeartbeatAnswer } from '../strict/group-checks.js';
import { defineHandler } from './types.js';

export const heartbeatHandler = defineHandler({
  apiKey: 12,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    const response = { throttleTimeMs: 0, ...ctx.services.groups.heartbeat(ctx.apiVersion, req) };
    if (ctx.services.clientFindings.enabled) checkHeartbeatAnswer(ctx, req, response.errorCode);
    return response;
  },
});
