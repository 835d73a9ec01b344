// DeleteGroups (42): duplicates in the request are answered once (KafkaApis takes `distinct`).
import { defineHandler } from './types.js';

export const deleteGroupsHandler = defineHandler({
  apiKey: 42,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const ids = [...new Set(req.groupsNames)];
    return { throttleTimeMs: 0, results: ctx.services.groups.deleteGroups(ids) };
  },
});
