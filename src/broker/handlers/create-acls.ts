// CreateAcls (30), v0-3: with no authorizer, one SECURITY_DISABLED result with "No Authorizer is
// configured." per creation, in request order (AclApis.handleCreateAcls ->
// CreateAclsRequest.getErrorResponse). A creation with an UNKNOWN (0) code closes the connection,
// as Kafka's request parse does (see acls.ts).
import { createCreateAclsResponse, ErrorCode } from '../../codec/index.js';
import { ALTER_ACLS_DISABLED_MESSAGE, closeUnparsable, hasUnknownElement } from './acls.js';
import { defineHandler } from './types.js';

export const createAclsHandler = defineHandler({
  apiKey: 30,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    if (req.creations.some((c) => hasUnknownElement({ ...c, patternType: c.resourcePatternType }))) {
      return closeUnparsable(ctx, 'CreatableAcls contain unknown elements');
    }
    return createCreateAclsResponse({
      throttleTimeMs: 0,
      results: req.creations.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_ACLS_DISABLED_MESSAGE })),
    });
  },
});
