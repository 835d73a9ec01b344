// The StandardAuthorizer's rules, case by case, as StandardAuthorizerTest and AuthorizerTest
// (metadata/src/test/java/org/apache/kafka/metadata/authorizer/, core/src/test/scala/unit/kafka/
// security/authorizer/) pin them down; plus the ACL store's create/delete/filter answers.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res } from '../../../../src/codec/index.js';
import { parseSuperUsers, StandardAuthorizer } from '../../../../src/broker/security/authorizer/standard-authorizer.js';
import { filterMatches, type AclBinding, type AclBindingFilter } from '../../../../src/broker/security/authorizer/acl.js';

const log = pino({ level: 'silent' });
const HOST = '127.0.0.1';

function acl(o: Partial<AclBinding>): AclBinding {
  return { resourceType: Res.TOPIC, resourceName: 'foo', patternType: Pat.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permissionType: Perm.ALLOW, ...o };
}

function authorizer(acls: AclBinding[], o: { superUsers?: string; allowIfNoAcl?: boolean } = {}): StandardAuthorizer {
  const a = new StandardAuthorizer(parseSuperUsers(o.superUsers ?? ''), o.allowIfNoAcl ?? false, log);
  expect(a.createAcls(acls).every((r) => r.error === undefined)).toBe(true);
  return a;
}

function may(a: StandardAuthorizer, principal: string, operation: Op, resourceName: string, resourceType: Res = Res.TOPIC, host = HOST): boolean {
  return a.authorize(principal, host, [{ operation, resourceType, resourceName }])[0];
}

describe('StandardAuthorizer.authorize', () => {
  it('a super user is allowed everything, even against a DENY', () => {
    const a = authorizer([acl({ principal: 'User:root', permissionType: Perm.DENY, operation: Op.ALL })], { superUsers: 'User:root; User:ops' });
    expect(may(a, 'User:root', Op.READ, 'foo')).toBe(true);
    expect(may(a, 'User:ops', Op.ALTER, 'kafka-cluster', Res.CLUSTER)).toBe(true);
  });

  it('no ACL on the resource: allow.everyone.if.no.acl.found decides', () => {
    expect(may(authorizer([]), 'User:alice', Op.READ, 'foo')).toBe(false);
    expect(may(authorizer([], { allowIfNoAcl: true }), 'User:alice', Op.READ, 'foo')).toBe(true);
  });

  it('an ACL for someone else on the resource denies, even with allow.everyone.if.no.acl.found', () => {
    const a = authorizer([acl({ principal: 'User:bob' })], { allowIfNoAcl: true });
    expect(may(a, 'User:alice', Op.READ, 'foo')).toBe(false);
    expect(may(a, 'User:alice', Op.READ, 'other')).toBe(true);
  });

  it('literal, prefixed and wildcard patterns', () => {
    const a = authorizer([
      acl({ resourceName: 'foo' }),
      acl({ resourceName: 'pre-', patternType: Pat.PREFIXED, operation: Op.WRITE }),
      acl({ resourceName: '*', operation: Op.DESCRIBE_CONFIGS }),
    ]);
    expect(may(a, 'User:alice', Op.READ, 'foo')).toBe(true);
    // A literal ACL on "foo" says nothing about "foobar".
    expect(may(a, 'User:alice', Op.READ, 'foobar')).toBe(false);
    expect(may(a, 'User:alice', Op.WRITE, 'pre-1')).toBe(true);
    expect(may(a, 'User:alice', Op.WRITE, 'pre')).toBe(false);
    expect(may(a, 'User:alice', Op.DESCRIBE_CONFIGS, 'anything')).toBe(true);
    // The same names on another resource type are other resources.
    expect(may(a, 'User:alice', Op.READ, 'foo', Res.GROUP)).toBe(false);
  });

  it('User:* matches every principal; a host ACL only that client address (IPv4-mapped addresses as IPv4)', () => {
    const a = authorizer([acl({ principal: 'User:*' }), acl({ resourceName: 'h', host: '10.0.0.1' })]);
    expect(may(a, 'User:anyone', Op.READ, 'foo')).toBe(true);
    expect(may(a, 'User:alice', Op.READ, 'h', Res.TOPIC, '10.0.0.1')).toBe(true);
    expect(may(a, 'User:alice', Op.READ, 'h', Res.TOPIC, '::ffff:10.0.0.1')).toBe(true);
    expect(may(a, 'User:alice', Op.READ, 'h', Res.TOPIC, '10.0.0.2')).toBe(false);
  });

  it('ALLOW READ, WRITE, DELETE or ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; a DENY implies nothing', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER]) {
      expect(may(authorizer([acl({ operation: op })]), 'User:alice', Op.DESCRIBE, 'foo')).toBe(true);
    }
    expect(may(authorizer([acl({ operation: Op.CREATE })]), 'User:alice', Op.DESCRIBE, 'foo')).toBe(false);
    expect(may(authorizer([acl({ operation: Op.ALTER_CONFIGS })]), 'User:alice', Op.DESCRIBE_CONFIGS, 'foo')).toBe(true);
    expect(may(authorizer([acl({ operation: Op.READ })]), 'User:alice', Op.WRITE, 'foo')).toBe(false);
    const denyRead = authorizer([acl({ operation: Op.DESCRIBE }), acl({ operation: Op.READ, permissionType: Perm.DENY })]);
    expect(may(denyRead, 'User:alice', Op.DESCRIBE, 'foo')).toBe(true);
    expect(may(denyRead, 'User:alice', Op.READ, 'foo')).toBe(false);
  });

  it('ALL matches every operation, for ALLOW and DENY', () => {
    expect(may(authorizer([acl({ operation: Op.ALL })]), 'User:alice', Op.ALTER_CONFIGS, 'foo')).toBe(true);
    const a = authorizer([acl({ operation: Op.READ }), acl({ operation: Op.ALL, permissionType: Perm.DENY, resourceName: 'f', patternType: Pat.PREFIXED })]);
    expect(may(a, 'User:alice', Op.READ, 'foo')).toBe(false);
  });

  it('a DENY wins over any ALLOW, whatever the patterns', () => {
    const a = authorizer([
      acl({ resourceName: 'orders-', patternType: Pat.PREFIXED }),
      acl({ resourceName: 'orders-secret', permissionType: Perm.DENY }),
      acl({ resourceName: '*', principal: 'User:*', operation: Op.ALL, permissionType: Perm.ALLOW }),
    ]);
    expect(may(a, 'User:alice', Op.READ, 'orders-1')).toBe(true);
    expect(may(a, 'User:alice', Op.READ, 'orders-secret')).toBe(false);
  });
});

describe('StandardAuthorizer.authorizeByResourceType (Authorizer.authorizeByResourceType)', () => {
  const by = (a: StandardAuthorizer, principal = 'User:alice') => a.authorizeByResourceType(principal, HOST, Op.WRITE, Res.TOPIC);
  it('allowed by any literal or prefixed ALLOW not covered by a DENY', () => {
    expect(by(authorizer([]))).toBe(false);
    expect(by(authorizer([], { allowIfNoAcl: true }))).toBe(true);
    expect(by(authorizer([acl({ operation: Op.WRITE, resourceName: 't-', patternType: Pat.PREFIXED })]))).toBe(true);
    expect(by(authorizer([acl({ operation: Op.WRITE }), acl({ operation: Op.WRITE, permissionType: Perm.DENY })]))).toBe(false);
    // A shorter DENY prefix dominates the ALLOW.
    expect(by(authorizer([acl({ operation: Op.WRITE, resourceName: 'abc', patternType: Pat.PREFIXED }), acl({ operation: Op.WRITE, resourceName: 'a', patternType: Pat.PREFIXED, permissionType: Perm.DENY })]))).toBe(false);
    expect(by(authorizer([acl({ operation: Op.WRITE, resourceName: '*' })]))).toBe(true);
    expect(by(authorizer([acl({ operation: Op.WRITE, resourceName: '*' }), acl({ operation: Op.WRITE, resourceName: '*', permissionType: Perm.DENY })]))).toBe(false);
    // Another operation or principal does not count.
    expect(by(authorizer([acl({ operation: Op.READ })]))).toBe(false);
    expect(by(authorizer([acl({ operation: Op.WRITE, principal: 'User:bob' })]))).toBe(false);
    expect(by(authorizer([], { superUsers: 'User:alice' }))).toBe(true);
  });
});

describe('the ACL store', () => {
  it('refuses invalid ACLs with Kafka\'s messages and stores a duplicate once', () => {
    const a = authorizer([]);
    const results = a.createAcls([
      acl({ resourceType: Res.CLUSTER, resourceName: 'other' }),
      acl({ resourceName: '' }),
      acl({ resourceType: Res.ANY }),
      acl({ patternType: Pat.MATCH }),
      acl({ operation: Op.ANY }),
      acl({ permissionType: Perm.ANY }),
      acl({}),
      acl({}),
    ]);
    expect(results.map((r) => r.error)).toEqual([
      'The only valid name for the CLUSTER resource is kafka-cluster',
      'Invalid empty resource name',
      'Invalid resourceType ANY',
      'Invalid patternType MATCH',
      'Invalid operation ANY',
      'Invalid permissionType ANY',
      undefined,
      undefined,
    ]);
    expect(a.entries()).toEqual([acl({})]);
  });

  it('filters as AclBindingFilter.matches, MATCH finding what applies to a name', () => {
    const literal = acl({ resourceName: 'foo-1' });
    const prefixed = acl({ resourceName: 'foo-', patternType: Pat.PREFIXED });
    const wildcard = acl({ resourceName: '*' });
    const group = acl({ resourceType: Res.GROUP, resourceName: 'foo-1' });
    const f = (o: Partial<AclBindingFilter>): AclBindingFilter => ({ resourceType: Res.ANY, resourceName: null, patternType: Pat.ANY, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY, ...o });
    const all = [literal, prefixed, wildcard, group];
    const match = (o: Partial<AclBindingFilter>) => all.filter((a) => filterMatches(f(o), a));
    expect(match({})).toEqual(all);
    expect(match({ resourceType: Res.TOPIC, resourceName: 'foo-1', patternType: Pat.MATCH })).toEqual([literal, prefixed, wildcard]);
    expect(match({ resourceName: 'foo-1', patternType: Pat.ANY })).toEqual([literal, group]);
    expect(match({ patternType: Pat.PREFIXED })).toEqual([prefixed]);
    expect(match({ principal: 'User:bob' })).toEqual([]);
    expect(match({ operation: Op.WRITE })).toEqual([]);
  });

  it('deletes by filter; an ACL two filters match is listed by both, removed once; changes are announced', () => {
    const a = authorizer([acl({}), acl({ resourceName: 'bar' })]);
    let changes = 0;
    a.onChange(() => changes++);
    const any: AclBindingFilter = { resourceType: Res.ANY, resourceName: null, patternType: Pat.ANY, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY };
    const removed = a.deleteAcls([{ ...any, resourceName: 'foo' }, any]);
    expect(removed).toEqual([[acl({})], [acl({}), acl({ resourceName: 'bar' })]]);
    expect(a.entries()).toEqual([]);
    expect(changes).toBe(1);
    expect(a.deleteAcls([any])).toEqual([[]]);
    expect(changes).toBe(1);
  });

  it('super.users must be principals', () => {
    expect(() => parseSuperUsers('User:a;alice')).toThrow(/not a principal/);
    expect([...parseSuperUsers(' User:a ;;User:b')]).toEqual(['User:a', 'User:b']);
  });
});
