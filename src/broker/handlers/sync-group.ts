// SyncGroup (14): followers wait here for the leader's assignment.
import { defineHandler } from './types.js';

export const syncGroupHandler = defineHandler({
  apiKey: 14,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    return new Promise((resolve) => {
      ctx.services.groups.syncGroup(ctx.apiVersion, req, (res) => resolve({ throttleTimeMs: 0, ...res }));
    });
  },
});
