// DescribeAcls (29), v0-3: with no authorizer, SECURITY_DISABLED and "No Authorizer is configured
// on the broker" for the whole request, no resources (AclApis.handleDescribeAcls). A filter with
// an UNKNOWN (0) code closes the connection, as Kafka's request parse does (see acls.ts).
import { createDescribeAclsResponse, ErrorCode } from '../../codec/index.js';
import { DESCRIBE_ACLS_DISABLED_MESSAGE, closeUnparsable, hasUnknownElement } from './acls.js';
import { defineHandler } from './types.js';

export const describeAclsHandler = defineHandler({
  apiKey: 29,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const filter = {
      resourceType: req.resourceTypeFilter,
      patternType: req.patternTypeFilter,
      operation: req.operation,
      permissionType: req.permissionType,
    };
    if (hasUnknownElement(filter)) return closeUnparsable(ctx, 'DescribeAclsRequest contains UNKNOWN elements');
    return createDescribeAclsResponse({
      throttleTimeMs: 0,
      errorCode: ErrorCode.SECURITY_DISABLED,
      errorMessage: DESCRIBE_ACLS_DISABLED_MESSAGE,
      resources: [],
    });
  },
});
