// ACL bindings and binding filters, as the Kafka client library defines them
// (org.apache.kafka.common.acl.AclBinding / AclBindingFilter, ResourcePatternFilter.matches,
// AccessControlEntryFilter.matches), and the checks a new ACL passes before it is stored
// (AclApis.handleCreateAcls, then AclControlManager.validateNewAcl in the KRaft controller).
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../../../codec/index.js';

/** The one name a CLUSTER resource has (org.apache.kafka.common.resource.Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** The resource name and host that match any (ResourcePattern.WILDCARD_RESOURCE, AclEntry.WILDCARD_HOST). */
export const WILDCARD = '*';
/** The principal that matches any user (AclEntry.WILDCARD_PRINCIPAL_STRING). */
export const WILDCARD_PRINCIPAL = 'User:*';

/** One ACL (StandardAcl): a resource pattern and an access control entry. */
export interface AclBinding {
  resourceType: ResourceType;
  resourceName: string;
  /** LITERAL or PREFIXED. */
  patternType: PatternType;
  /** "User:alice", or User:* for everyone. */
  principal: string;
  /** A client address, or * for any. */
  host: string;
  operation: AclOperation;
  /** ALLOW or DENY. */
  permissionType: AclPermissionType;
}

/** A filter over bindings (AclBindingFilter): null names, principals and hosts match any. */
export interface AclBindingFilter {
  resourceType: ResourceType;
  resourceName: string | null;
  /** ANY, MATCH (what would apply to the named resource), LITERAL or PREFIXED. */
  patternType: PatternType;
  principal: string | null;
  host: string | null;
  operation: AclOperation;
  permissionType: AclPermissionType;
}

/** ResourcePatternFilter.matches && AccessControlEntryFilter.matches. */
export function filterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== acl.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== acl.patternType) return false;
  if (f.resourceName !== null) {
    if (f.patternType === PatternType.ANY || f.patternType === acl.patternType) {
      if (f.resourceName !== acl.resourceName) return false;
    } else if (acl.patternType === PatternType.LITERAL) {
      // MATCH: the literal ACL on the name, or the wildcard one.
      if (f.resourceName !== acl.resourceName && acl.resourceName !== WILDCARD) return false;
    } else if (!f.resourceName.startsWith(acl.resourceName)) {
      return false;
    }
  }
  if (f.principal !== null && f.principal !== acl.principal) return false;
  if (f.host !== null && f.host !== acl.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== acl.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === acl.permissionType;
}

const RESOURCE_TYPE_NAMES = invert(ResourceType);
const PATTERN_TYPE_NAMES = invert(PatternType);
const OPERATION_NAMES = invert(AclOperation);
const PERMISSION_NAMES = invert(AclPermissionType);

function invert(o: Record<string, number>): Map<number, string> {
  return new Map(Object.entries(o).map(([k, v]) => [v, k]));
}

/**
 * Why Kafka refuses to store `acl` (an InvalidRequestException's message), or undefined. The
 * CLUSTER name and empty-name checks are AclApis.handleCreateAcls'; the rest are
 * AclControlManager.validateNewAcl's, in its order.
 */
export function invalidNewAcl(acl: AclBinding): string | undefined {
  if (acl.resourceType === ResourceType.CLUSTER && acl.resourceName !== CLUSTER_NAME) {
    return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  }
  if (acl.resourceName === '') return 'Invalid empty resource name';
  if (acl.resourceType === ResourceType.ANY || acl.resourceType === ResourceType.UNKNOWN) {
    return `Invalid resourceType ${RESOURCE_TYPE_NAMES.get(acl.resourceType)}`;
  }
  if (acl.patternType !== PatternType.LITERAL && acl.patternType !== PatternType.PREFIXED) {
    return `Invalid patternType ${PATTERN_TYPE_NAMES.get(acl.patternType) ?? acl.patternType}`;
  }
  if (acl.operation === AclOperation.ANY || acl.operation === AclOperation.UNKNOWN) {
    return `Invalid operation ${OPERATION_NAMES.get(acl.operation)}`;
  }
  if (acl.permissionType !== AclPermissionType.ALLOW && acl.permissionType !== AclPermissionType.DENY) {
    return `Invalid permissionType ${PERMISSION_NAMES.get(acl.permissionType) ?? acl.permissionType}`;
  }
  // StandardAcl.kafkaPrincipal (Kafka 3.9.1 answers it as INVALID_REQUEST with this text).
  if (!acl.principal.includes(':')) {
    return `Could not parse principal from \`${acl.principal}\` (no colon is present separating the principal type from the principal name)`;
  }
  return undefined;
}

/**
 * Whether a creation cannot even become an AclBinding: ResourcePattern and AccessControlEntry
 * refuse ANY (and MATCH) with an IllegalArgumentException, which fails the whole CreateAcls
 * request (KafkaApis.handleError: UNKNOWN_SERVER_ERROR for every creation, nothing created).
 */
export function unbindable(acl: AclBinding): boolean {
  return (
    acl.resourceType === ResourceType.ANY ||
    acl.patternType === PatternType.ANY ||
    acl.patternType === PatternType.MATCH ||
    acl.operation === AclOperation.ANY ||
    acl.permissionType === AclPermissionType.ANY
  );
}

/** The identity of a binding: two creations of the same ACL store it once (AclControlManager.existingAcls). */
export function aclKey(a: AclBinding): string {
  return JSON.stringify([a.resourceType, a.resourceName, a.patternType, a.principal, a.host, a.operation, a.permissionType]);
}

/** Kafka's ResourcePattern toString shape, for log lines: "Topic:LITERAL:orders". */
export function describeResource(resourceType: number, patternType: number, name: string): string {
  const type = RESOURCE_TYPE_NAMES.get(resourceType) ?? String(resourceType);
  const title = type === 'TRANSACTIONAL_ID' ? 'TransactionalId' : type === 'DELEGATION_TOKEN' ? 'DelegationToken' : type[0] + type.slice(1).toLowerCase();
  return `${title}:${PATTERN_TYPE_NAMES.get(patternType) ?? patternType}:${name}`;
}

/** An operation's name ("READ"), for log lines. */
export function operationName(op: number): string {
  return OPERATION_NAMES.get(op) ?? String(op);
}

/** Whether a principal string parses as Kafka's KafkaPrincipal ("Type:name", SecurityUtils.parseKafkaPrincipal, for super.users). */
export function isPrincipal(s: string): boolean {
  const i = s.indexOf(':');
  return i > 0 && i < s.length - 1;
}
