// What the three ACL APIs (DescribeAcls 29, CreateAcls 30, DeleteAcls 31) share (AclApis.scala).
// First the principal must be allowed DESCRIBE (DescribeAcls) or ALTER (the other two) on the
// cluster (AuthHelper.authorizeClusterOperation), else CLUSTER_AUTHORIZATION_FAILED. Then, with an
// authorizer (security/authorizer), the ACLs are read or changed there. Without one -- kmock's
// default, and a Kafka 3.9 broker without `authorizer.class.name` -- the APIs are still advertised
// and answered with SECURITY_DISABLED (54) and a message: DescribeAcls once for the request,
// CreateAcls once per creation, DeleteAcls once per filter. (In KRaft, CreateAcls and DeleteAcls
// are forwarded to the controller, whose AclApis does the same; kmock is both.)
//
// Before that, Kafka parses the request (DescribeAclsRequest / CreateAclsRequest /
// DeleteAclsRequest constructors): a resource type, pattern type, operation or permission type of
// code 0 (UNKNOWN) makes the parse throw, and SocketServer closes the connection without an
// answer. A pattern type other than LITERAL at v0 cannot happen on the wire (v0 has no such
// field; it decodes as 3 = LITERAL).
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../../codec/index.js';
import type { AclBindingFilter } from '../security/authorizer/index.js';
import { closeRequestConnection, NO_RESPONSE, type RequestContext } from './types.js';

/** AclApis.handleDescribeAcls, no authorizer. */
export const DESCRIBE_ACLS_DISABLED_MESSAGE = 'No Authorizer is configured on the broker';
/** AclApis.handleCreateAcls / handleDeleteAcls, no authorizer (a SecurityDisabledException's message). */
export const ALTER_ACLS_DISABLED_MESSAGE = 'No Authorizer is configured.';

/**
 * The message of the ClusterAuthorizationException authorizeClusterOperation throws. Kafka's is
 * "Request <the request's toString> is not authorized." (connection ids, buffers: nothing a
 * client reads); kmock says the error's default text.
 */
export const CLUSTER_AUTHORIZATION_MESSAGE = 'Cluster authorization failed.';

/** The request's filter fields as the authorizer's filter (DescribeAclsRequest.filter / DeleteAclsRequest.filters). */
export function toFilter(f: { resourceTypeFilter: number; resourceNameFilter: string | null; patternTypeFilter: number; principalFilter: string | null; hostFilter: string | null; operation: number; permissionType: number }): AclBindingFilter {
  return {
    resourceType: f.resourceTypeFilter as ResourceType,
    resourceName: f.resourceNameFilter,
    patternType: f.patternTypeFilter as PatternType,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation as AclOperation,
    permissionType: f.permissionType as AclPermissionType,
  };
}

/** True when any of the four enum codes is UNKNOWN (0): Kafka's request parse rejects it. */
export function hasUnknownElement(e: { resourceType: number; patternType: number; operation: number; permissionType: number }): boolean {
  return (
    e.resourceType === ResourceType.UNKNOWN ||
    e.patternType === PatternType.UNKNOWN ||
    e.operation === AclOperation.UNKNOWN ||
    e.permissionType === AclPermissionType.UNKNOWN
  );
}

/** Kafka's answer to a request it cannot parse: the connection is closed, nothing is sent. */
export function closeUnparsable(ctx: RequestContext, why: string): typeof NO_RESPONSE {
  ctx.services.log.warn({ connection: ctx.connection.id, apiKey: ctx.header.apiKey, apiVersion: ctx.apiVersion, error: why }, 'invalid request; closing connection');
  closeRequestConnection(ctx, why);
  return NO_RESPONSE;
}
