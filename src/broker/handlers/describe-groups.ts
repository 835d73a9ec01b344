// DescribeGroups (15). Without an authorizer Kafka grants every group operation, so v3+ with
// IncludeAuthorizedOperations reports READ, DELETE and DESCRIBE.
import { defineHandler } from './types.js';

const NOT_REQUESTED = -2147483648;
/** AclOperation codes READ (3), DELETE (6), DESCRIBE (8) as a 32-bit field. */
const ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);

export const describeGroupsHandler = defineHandler({
  apiKey: 15,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const withOps = ctx.apiVersion >= 3 && req.includeAuthorizedOperations;
    const groups = ctx.broker.groups.describeGroups(req.groups).map((g) => ({
      ...g,
      authorizedOperations: withOps && g.errorCode === 0 ? ALL_GROUP_OPERATIONS : NOT_REQUESTED,
    }));
    return { throttleTimeMs: 0, groups };
  },
});
