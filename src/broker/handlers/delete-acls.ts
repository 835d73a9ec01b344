// DeleteAcls (31), v0-3: with no authorizer, one SECURITY_DISABLED result with "No Authorizer is
// configured." and no matching ACLs per filter, in request order (AclApis.handleDeleteAcls ->
// DeleteAclsRequest.getErrorResponse). A filter with an UNKNOWN (0) code closes the connection,
// as Kafka's request parse does (see acls.ts).
import { createDeleteAclsResponse, ErrorCode } from '../../codec/index.js';
import { ALTER_ACLS_DISABLED_MESSAGE, closeUnparsable, hasUnknownElement } from './acls.js';
import { defineHandler } from './types.js';

export const deleteAclsHandler = defineHandler({
  apiKey: 31,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const unknown = req.filters.some((f) =>
      hasUnknownElement({ resourceType: f.resourceTypeFilter, patternType: f.patternTypeFilter, operation: f.operation, permissionType: f.permissionType }),
    );
    if (unknown) return closeUnparsable(ctx, 'Filters contain UNKNOWN elements');
    return createDeleteAclsResponse({
      throttleTimeMs: 0,
      filterResults: req.filters.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_ACLS_DISABLED_MESSAGE, matchingAcls: [] })),
    });
  },
});
