// The authorizer seam and the checks handlers make through it (Kafka's AuthHelper.scala).
// `authorizer.class.name` naming Kafka's StandardAuthorizer (or the ZooKeeper-era AclAuthorizer,
// which kmock serves with the same rules) gives an Authorizer; an empty one gives none: every check
// passes and the ACL APIs answer SECURITY_DISABLED, as on a Kafka without an authorizer.
import type { Logger } from 'pino';
import { AclOperation, authorizedOperations as toBitField, ResourceType } from '../../../codec/index.js';
import type { BrokerConfig } from '../../config.js';
import type { RequestContext } from '../../handlers/types.js';
import { CLUSTER_NAME, describeResource, operationName, type AclBinding, type AclBindingFilter } from './acl.js';
import { parseSuperUsers, StandardAuthorizer, type AclCreateResult } from './standard-authorizer.js';

export { CLUSTER_NAME, type AclBinding, type AclBindingFilter } from './acl.js';
export type { AclCreateResult } from './standard-authorizer.js';

/** One thing a request wants to do (org.apache.kafka.server.authorizer.Action). */
export interface Action {
  operation: AclOperation;
  resourceType: ResourceType;
  resourceName: string;
}

/** What kmock needs of an authorizer (org.apache.kafka.server.authorizer.Authorizer). */
export interface Authorizer {
  /** One answer per action, in order: true when allowed (Authorizer.authorize). */
  authorize(principal: string, host: string, actions: readonly Action[]): boolean[];
  /** Whether the principal may do `op` on some resource of the type (Authorizer.authorizeByResourceType). */
  authorizeByResourceType(principal: string, host: string, op: AclOperation, resourceType: ResourceType): boolean;
  /** The stored ACLs `filter` matches. */
  acls(filter: AclBindingFilter): AclBinding[];
  /** Stores ACLs; one result per creation. */
  createAcls(acls: readonly AclBinding[]): AclCreateResult[];
  /** Removes the ACLs each filter matches; per filter, what it removed. */
  deleteAcls(filters: readonly AclBindingFilter[]): AclBinding[][];
  /** Every stored ACL, and a way to put saved ones back (the data dir). */
  entries(): AclBinding[];
  load(acls: readonly AclBinding[]): void;
  onChange(fn: () => void): void;
}

export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const ACL_AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';

/** The authorizer `config` asks for, or undefined (none configured). Throws for a class kmock has not. */
export function createAuthorizer(config: BrokerConfig, log: Logger): Authorizer | undefined {
  const name = config.authorizerClassName.trim();
  if (name === '') return undefined;
  if (name !== STANDARD_AUTHORIZER && name !== ACL_AUTHORIZER) {
    throw new Error(`authorizer.class.name: kmock has no authorizer "${name}" (it serves ${STANDARD_AUTHORIZER}, and ${ACL_AUTHORIZER} with the same rules)`);
  }
  const superUsers = parseSuperUsers(config.superUsers);
  log.info({ superUsers: [...superUsers], allowEveryoneIfNoAclFound: config.allowEveryoneIfNoAclFound }, `authorizer ${name}`);
  return new StandardAuthorizer(superUsers, config.allowEveryoneIfNoAclFound, log);
}

/**
 * Whether the request's principal may do `operation` on the resource; true without an authorizer.
 * A denial is logged as Kafka's authorizer logger does (StandardAuthorizerData.logAuditMessage),
 * unless `logIfDenied` is false (checks whose denial is not an error, like filtering a list).
 */
export function authorized(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType, resourceName: string, logIfDenied = true): boolean {
  const a = ctx.services.authorizer;
  if (a === undefined) return true;
  const ok = a.authorize(ctx.connection.principal, ctx.connection.clientHost, [{ operation, resourceType, resourceName }])[0] ?? false;
  if (!ok && logIfDenied) logDenied(ctx, operation, resourceType, resourceName);
  return ok;
}

/** authorized(..., CLUSTER, kafka-cluster): AuthHelper.authorize on the cluster resource. */
export function authorizedCluster(ctx: RequestContext, operation: AclOperation, logIfDenied = true): boolean {
  return authorized(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME, logIfDenied);
}

/** The names of `names` the principal may do `operation` on (AuthHelper.filterByAuthorized). */
export function filterAuthorized(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType, names: Iterable<string>, logIfDenied = true): Set<string> {
  const a = ctx.services.authorizer;
  const unique = [...new Set(names)];
  if (a === undefined) return new Set(unique);
  const answers = a.authorize(ctx.connection.principal, ctx.connection.clientHost, unique.map((resourceName) => ({ operation, resourceType, resourceName })));
  if (logIfDenied) unique.forEach((n, i) => answers[i] || logDenied(ctx, operation, resourceType, n));
  return new Set(unique.filter((_, i) => answers[i]));
}

/** AuthHelper.authorizeByResourceType: may the principal do `operation` on any resource of the type. */
export function authorizedByResourceType(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType): boolean {
  const a = ctx.services.authorizer;
  if (a === undefined) return true;
  return a.authorizeByResourceType(ctx.connection.principal, ctx.connection.clientHost, operation, resourceType);
}

/** The operations each resource type supports (AclEntry.supportedOperations), for KIP-430 bit fields. */
const SUPPORTED_OPERATIONS: Record<number, AclOperation[]> = {
  [ResourceType.TOPIC]: [AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS],
  [ResourceType.GROUP]: [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE],
  [ResourceType.CLUSTER]: [AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE],
  [ResourceType.TRANSACTIONAL_ID]: [AclOperation.DESCRIBE, AclOperation.WRITE],
  [ResourceType.DELEGATION_TOKEN]: [AclOperation.DESCRIBE],
  [ResourceType.USER]: [AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS],
};

/** KIP-430's authorized-operations bit field for one resource (AuthHelper.authorizedOperations). */
export function authorizedOperations(ctx: RequestContext, resourceType: ResourceType, resourceName: string): number {
  const ops = SUPPORTED_OPERATIONS[resourceType] ?? [];
  const a = ctx.services.authorizer;
  if (a === undefined) return toBitField(ops);
  const answers = a.authorize(ctx.connection.principal, ctx.connection.clientHost, ops.map((operation) => ({ operation, resourceType, resourceName })));
  return toBitField(ops.filter((_, i) => answers[i]));
}

function logDenied(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType, resourceName: string): void {
  const c = ctx.connection;
  ctx.services.log.info(
    { connection: c.id, principal: c.principal, host: c.clientHost, operation: operationName(operation), resource: describeResource(resourceType, 3, resourceName), apiKey: ctx.header.apiKey },
    `Principal = ${c.principal} is Denied operation = ${operationName(operation)} from host = ${c.clientHost} on resource = ${describeResource(resourceType, 3, resourceName)}`,
  );
}

/**
 * `operation` (DESCRIBE_CONFIGS or ALTER_CONFIGS) on a config resource: a topic's on the topic, the
 * broker's, loggers' and client metrics' on the cluster (ConfigHelper, ControllerApis.authorizeAlterResource).
 */
export function configAccess(ctx: RequestContext, operation: AclOperation): (topic: string | null) => boolean {
  return (topic) => (topic === null ? authorizedCluster(ctx, operation) : authorized(ctx, operation, ResourceType.TOPIC, topic));
}
