// DescribeGroups (15). Without an authorizer Kafka grants every group operation, so v3+ with
// IncludeAuthorizedOperations reports READ, DELETE and DESCRIBE.
import { AclOperation, authorizedOperations, AUTHORIZED_OPERATIONS_OMITTED } from '../../codec/index.js';
import { defineHandler } from './types.js';

const ALL_GROUP_OPERATIONS = authorizedOperations([AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE]);

export const describeGroupsHandler = defineHandler({
  apiKey: 15,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const withOps = ctx.apiVersion >= 3 && req.includeAuthorizedOperations;
    const groups = ctx.services.groups.describeGroups(req.groups).map((g) => ({
      ...g,
      authorizedOperations: withOps && g.errorCode === 0 ? ALL_GROUP_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED,
    }));
    return { throttleTimeMs: 0, groups };
  },
});
