// What the three ACL APIs (DescribeAcls 29, CreateAcls 30, DeleteAcls 31) share. kmock has no
// authorizer, and neither has a Kafka 3.9 broker configured without `authorizer.class.name`: it
// still advertises the ACL APIs and answers them from AclApis with SECURITY_DISABLED (54) and a
// message -- DescribeAcls once for the request, CreateAcls once per creation, DeleteAcls once per
// filter. (In KRaft, CreateAcls and DeleteAcls are forwarded to the controller, whose AclApis has
// no authorizer either: the answer is the same.)
//
// Before that, Kafka parses the request (DescribeAclsRequest / CreateAclsRequest /
// DeleteAclsRequest constructors): a resource type, pattern type, operation or permission type of
// code 0 (UNKNOWN) makes the parse throw, and SocketServer closes the connection without an
// answer. A pattern type other than LITERAL at v0 cannot happen on the wire (v0 has no such
// field; it decodes as 3 = LITERAL).
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../../codec/index.js';
import { closeRequestConnection, NO_RESPONSE, type RequestContext } from './types.js';

/** AclApis.handleDescribeAcls, no authorizer. */
export const DESCRIBE_ACLS_DISABLED_MESSAGE = 'No Authorizer is configured on the broker';
/** AclApis.handleCreateAcls / handleDeleteAcls, no authorizer (a SecurityDisabledException's message). */
export const ALTER_ACLS_DISABLED_MESSAGE = 'No Authorizer is configured.';

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
