// CreateAcls (30), v0-3 (AclApis.handleCreateAcls; in KRaft the controller's AclControlManager
// stores them). A creation with an UNKNOWN (0) code closes the connection, as Kafka's request parse
// does (see acls.ts). Then ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED per creation.
// Without an authorizer: SECURITY_DISABLED with "No Authorizer is configured." per creation. With
// one: a creation with an ANY (or MATCH) code cannot become an AclBinding and fails the whole
// request (UNKNOWN_SERVER_ERROR, no message, for every creation; nothing is created); else per
// creation, in request order, success or INVALID_REQUEST with the validation's message
// (security/authorizer/acl.ts invalidNewAcl); an ACL that exists already is a success.
import { AclOperation, createCreateAclsResponse, ErrorCode } from '../../codec/index.js';
import { authorizedCluster, type AclBinding } from '../security/authorizer/index.js';
import { unbindable } from '../security/authorizer/acl.js';
import { ALTER_ACLS_DISABLED_MESSAGE, CLUSTER_AUTHORIZATION_MESSAGE, closeUnparsable, hasUnknownElement } from './acls.js';
import { defineHandler } from './types.js';

export const createAclsHandler = defineHandler({
  apiKey: 30,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    if (req.creations.some((c) => hasUnknownElement({ ...c, patternType: c.resourcePatternType }))) {
      return closeUnparsable(ctx, 'CreatableAcls contain unknown elements');
    }
    const all = (errorCode: number, errorMessage: string) => createCreateAclsResponse({ throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage })) });
    if (!authorizedCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_MESSAGE);
    const authorizer = ctx.services.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, ALTER_ACLS_DISABLED_MESSAGE);
    const bindings = req.creations.map(
      (c): AclBinding => ({
        resourceType: c.resourceType as AclBinding['resourceType'],
        resourceName: c.resourceName,
        patternType: c.resourcePatternType as AclBinding['patternType'],
        principal: c.principal,
        host: c.host,
        operation: c.operation as AclBinding['operation'],
        permissionType: c.permissionType as AclBinding['permissionType'],
      }),
    );
    if (bindings.some(unbindable)) return createCreateAclsResponse({ throttleTimeMs: 0, results: bindings.map(() => ({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null })) });
    const results = authorizer.createAcls(bindings);
    return createCreateAclsResponse({
      throttleTimeMs: 0,
      results: results.map((r) => (r.error === undefined ? { errorCode: ErrorCode.NONE, errorMessage: '' } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: r.error })),
    });
  },
});
