// Kafka's StandardAuthorizer (metadata/src/main/java/org/apache/kafka/metadata/authorizer/
// StandardAuthorizer.java, StandardAuthorizerData.java): ACLs kept in memory, a super user allowed
// everything, and for anyone else the ACLs whose resource pattern applies to the resource:
//   - a LITERAL ACL on the same name, a LITERAL ACL on "*", a PREFIXED ACL whose name starts the
//     resource's name;
//   - of those, the ones for the principal (or User:*) and the client's host (or *) whose operation
//     is the one asked for or ALL; an ALLOW ACL for READ, WRITE, DELETE or ALTER also allows
//     DESCRIBE, and one for ALTER_CONFIGS also DESCRIBE_CONFIGS (a DENY never implies anything);
//   - a matching DENY wins; else a matching ALLOW allows; else, when the resource has ACLs (for
//     anyone), the answer is DENIED; when it has none, allow.everyone.if.no.acl.found decides.
// authorizeByResourceType is the Authorizer interface's default method (Authorizer.java), which
// StandardAuthorizer does not override.
//
// In KRaft the controller stores ACLs as records and the brokers' authorizers replay them; kmock
// is both, so creation and deletion change this store directly. What AclControlManager does on the
// way is kept: validation (acl.ts), the same ACL stored once, a delete matching by filter.
import type { Logger } from 'pino';
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../../../codec/index.js';
import { aclKey, filterMatches, invalidNewAcl, isPrincipal, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding, type AclBindingFilter } from './acl.js';
import type { Action, Authorizer } from './index.js';

const IMPLIES_DESCRIBE: ReadonlySet<number> = new Set([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<number> = new Set([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);

/** One creation's outcome: undefined, or the InvalidRequestException message. */
export type AclCreateResult = { error?: string };

/** Parses super.users ("User:a;User:b"), as StandardAuthorizer.getConfiguredSuperUsers. */
export function parseSuperUsers(value: string): Set<string> {
  const out = new Set<string>();
  for (const part of value.split(';')) {
    const v = part.trim();
    if (v === '') continue;
    if (!isPrincipal(v)) throw new Error(`super.users: "${v}" is not a principal of the form Type:name (e.g. User:alice)`);
    out.add(v);
  }
  return out;
}

/** Java's InetAddress.getHostAddress for a Node remote address: an IPv4-mapped IPv6 address is the IPv4 one. */
export function hostAddress(remote: string): string {
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}

export class StandardAuthorizer implements Authorizer {
  /** The ACLs by resource type, each list in creation order. */
  private readonly byType = new Map<number, AclBinding[]>();
  /** aclKey → ACL: one copy of each. */
  private readonly byKey = new Map<string, AclBinding>();
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly superUsers: ReadonlySet<string>,
    /** allow.everyone.if.no.acl.found: the answer for a resource that has no ACLs. */
    private readonly allowIfNoAcl: boolean,
    private readonly log: Logger,
  ) {}

  authorize(principal: string, host: string, actions: readonly Action[]): boolean[] {
    return actions.map((a) => this.authorizeOne(principal, hostAddress(host), a));
  }

  private authorizeOne(principal: string, host: string, action: Action): boolean {
    if (this.superUsers.has(principal)) return true;
    let hasResourceAcls = false;
    let allowed = false;
    for (const acl of this.byType.get(action.resourceType) ?? []) {
      if (!appliesTo(acl, action.resourceName)) continue;
      hasResourceAcls = true;
      const result = aclResult(acl, principal, host, action.operation);
      if (result === 'deny') return false;
      if (result === 'allow') allowed = true;
    }
    return allowed || (!hasResourceAcls && this.allowIfNoAcl);
  }

  /**
   * Whether `principal` may do `op` on at least one resource of the type (Authorizer's default
   * authorizeByResourceType): a super user, or a name with no ACLs under allow.everyone, or an
   * ALLOW (the wildcard, or a literal or prefix that no DENY literal or shorter prefix covers).
   */
  authorizeByResourceType(principal: string, remoteHost: string, op: AclOperation, resourceType: ResourceType): boolean {
    const host = hostAddress(remoteHost);
    if (this.authorizeOne(principal, host, { operation: op, resourceType, resourceName: 'hardcode' })) return true;
    const deny = { literal: new Set<string>(), prefixed: new Set<string>() };
    const allow = { literal: new Set<string>(), prefixed: new Set<string>() };
    let wildcardAllow = false;
    for (const acl of this.byType.get(resourceType) ?? []) {
      if (acl.host !== host && acl.host !== WILDCARD) continue;
      if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) continue;
      if (acl.operation !== op && acl.operation !== AclOperation.ALL) continue;
      const literal = acl.patternType === PatternType.LITERAL;
      if (acl.permissionType === AclPermissionType.DENY) {
        if (literal && acl.resourceName === WILDCARD) return false;
        (literal ? deny.literal : deny.prefixed).add(acl.resourceName);
      } else if (literal && acl.resourceName === WILDCARD) {
        wildcardAllow = true;
      } else {
        (literal ? allow.literal : allow.prefixed).add(acl.resourceName);
      }
    }
    if (wildcardAllow) return true;
    const dominated = (name: string) => {
      for (let i = 1; i <= name.length; i++) if (deny.prefixed.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allow.literal) if (!deny.literal.has(name) && !dominated(name)) return true;
    for (const name of allow.prefixed) if (!dominated(name)) return true;
    return false;
  }

  /** The ACLs `filter` matches (StandardAuthorizer.acls), in creation order. */
  acls(filter: AclBindingFilter): AclBinding[] {
    return [...this.byKey.values()].filter((acl) => filterMatches(filter, acl));
  }

  /** Stores each valid ACL once; one result per creation, in order. */
  createAcls(acls: readonly AclBinding[]): AclCreateResult[] {
    let changed = false;
    const results = acls.map((acl): AclCreateResult => {
      const error = invalidNewAcl(acl);
      if (error !== undefined) return { error };
      const key = aclKey(acl);
      if (!this.byKey.has(key)) {
        this.add(key, { ...acl });
        changed = true;
        this.log.info({ acl }, 'ACL created');
      }
      return {};
    });
    if (changed) this.changed();
    return results;
  }

  /** Removes the ACLs each filter matches; per filter, the ACLs it removed (AclControlManager.deleteAcls). */
  deleteAcls(filters: readonly AclBindingFilter[]): AclBinding[][] {
    // Every filter sees the ACLs as they were before the request (the controller applies the
    // removal records after matching all filters): an ACL two filters match is listed by both.
    const before = [...this.byKey.entries()];
    const removed = new Set<string>();
    const results = filters.map((f) => {
      const out: AclBinding[] = [];
      for (const [key, acl] of before) {
        if (!filterMatches(f, acl)) continue;
        out.push(acl);
        removed.add(key);
      }
      return out;
    });
    for (const key of removed) this.remove(key);
    if (removed.size > 0) {
      this.log.info({ count: removed.size }, 'ACLs deleted');
      this.changed();
    }
    return results;
  }

  /** Every ACL (for the data dir). */
  entries(): AclBinding[] {
    return [...this.byKey.values()].map((a) => ({ ...a }));
  }

  /** Replaces the store's ACLs with saved ones (at start; no change event). */
  load(acls: readonly AclBinding[]): void {
    this.byKey.clear();
    this.byType.clear();
    for (const acl of acls) this.add(aclKey(acl), { ...acl });
  }

  /** Calls `fn` after every change (the broker saves the data dir). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private add(key: string, acl: AclBinding): void {
    this.byKey.set(key, acl);
    let list = this.byType.get(acl.resourceType);
    if (list === undefined) this.byType.set(acl.resourceType, (list = []));
    list.push(acl);
  }

  private remove(key: string): void {
    const acl = this.byKey.get(key);
    if (acl === undefined) return;
    this.byKey.delete(key);
    const list = this.byType.get(acl.resourceType) ?? [];
    list.splice(list.indexOf(acl), 1);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** Whether the ACL's resource pattern covers `name` (checkSection's match). */
function appliesTo(acl: AclBinding, name: string): boolean {
  if (acl.patternType === PatternType.PREFIXED) return name.startsWith(acl.resourceName);
  return acl.resourceName === name || acl.resourceName === WILDCARD;
}

/** StandardAuthorizerData.findResult: 'allow', 'deny', or undefined when the ACL does not apply. */
function aclResult(acl: AclBinding, principal: string, host: string, op: AclOperation): 'allow' | 'deny' | undefined {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return undefined;
  if (acl.host !== WILDCARD && acl.host !== host) return undefined;
  const allowAcl = acl.permissionType === AclPermissionType.ALLOW;
  if (acl.operation !== AclOperation.ALL) {
    if (!allowAcl) {
      if (op !== acl.operation) return undefined;
    } else if (op === AclOperation.DESCRIBE) {
      if (!IMPLIES_DESCRIBE.has(acl.operation)) return undefined;
    } else if (op === AclOperation.DESCRIBE_CONFIGS) {
      if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return undefined;
    } else if (op !== acl.operation) {
      return undefined;
    }
  }
  return allowAcl ? 'allow' : 'deny';
}
