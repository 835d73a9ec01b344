// ListGroups (16): v4+ filters by state, v5+ by type.
import { defineHandler } from './types.js';

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
    return { throttleTimeMs: 0, ...res };
  },
});
