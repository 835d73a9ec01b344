// DeleteAcls (31), v0-3 (AclApis.handleDeleteAcls; in KRaft the controller's
// AclControlManager.deleteAcls). A filter with an UNKNOWN (0) code closes the connection, as
// Kafka's request parse does (see acls.ts). Then ALTER on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED per filter. Without an authorizer: SECURITY_DISABLED with "No
// Authorizer is configured." and no matching ACLs per filter. With one: per filter, the ACLs it
// removed (every filter matches against the ACLs as they were before the request), each with
// error 0 and a null message (ApiError.NONE.message()).
import { AclOperation, createDeleteAclsResponse, ErrorCode } from '../../codec/index.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { ALTER_ACLS_DISABLED_MESSAGE, CLUSTER_AUTHORIZATION_MESSAGE, closeUnparsable, hasUnknownElement, toFilter } from './acls.js';
import { defineHandler } from './types.js';

export const deleteAclsHandler = defineHandler({
  apiKey: 31,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const filters = req.filters.map(toFilter);
    if (filters.some(hasUnknownElement)) return closeUnparsable(ctx, 'Filters contain UNKNOWN elements');
    const all = (errorCode: number, errorMessage: string) =>
      createDeleteAclsResponse({ throttleTimeMs: 0, filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })) });
    if (!authorizedCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_MESSAGE);
    const authorizer = ctx.services.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, ALTER_ACLS_DISABLED_MESSAGE);
    return createDeleteAclsResponse({
      throttleTimeMs: 0,
      filterResults: authorizer.deleteAcls(filters).map((removed) => ({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: removed.map((a) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...a })),
      })),
    });
  },
});
