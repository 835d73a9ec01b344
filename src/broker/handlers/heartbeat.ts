// Heartbeat (12).
import { defineHandler } from './types.js';

export const heartbeatHandler = defineHandler({
  apiKey: 12,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    return { throttleTimeMs: 0, ...ctx.services.groups.heartbeat(ctx.apiVersion, req) };
  },
});
