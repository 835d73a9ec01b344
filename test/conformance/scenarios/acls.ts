// DescribeAcls (29), CreateAcls (30), DeleteAcls (31) on a broker without an authorizer (kmock,
// and Kafka 3.9 without authorizer.class.name): the APIs are advertised and answered with
// SECURITY_DISABLED (54) -- DescribeAcls once for the request ("No Authorizer is configured on
// the broker"), CreateAcls once per creation and DeleteAcls once per filter ("No Authorizer is
// configured.") -- from AclApis.handleDescribeAcls / handleCreateAcls / handleDeleteAcls
// (core/src/main/scala/kafka/server/AclApis.scala; CreateAclsRequest / DeleteAclsRequest
// getErrorResponse). A resource type, pattern type, operation or permission type of code 0
// (UNKNOWN) fails the request parse (the request classes' normalizeAndValidate / validate), and
// the broker closes the connection.
import type { Scenario } from '../runner.js';
import { scenario, send } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['admin', 'acl'], groups: [] });

/** Errors.SECURITY_DISABLED. */
const SECURITY_DISABLED = 54;
const DESCRIBE_MESSAGE = 'No Authorizer is configured on the broker';
const ALTER_MESSAGE = 'No Authorizer is configured.';

// ResourceType, PatternType, AclOperation, AclPermissionType codes (org.apache.kafka.common.*).
const ANY = 1;
const TOPIC = 2;
const GROUP = 3;
const CLUSTER = 4;
const USER = 7;
const LITERAL = 3;
const PREFIXED = 4;
const MATCH = 2;
const READ = 3;
const WRITE = 4;
const ALLOW = 3;
const DENY = 2;

const disabled = (message: string) => ({ errorCode: SECURITY_DISABLED, errorMessage: message });

const anyFilter = (v: number) => ({
  resourceTypeFilter: ANY,
  resourceNameFilter: null,
  patternTypeFilter: v >= 1 ? ANY : LITERAL,
  principalFilter: null,
  hostFilter: null,
  operation: ANY,
  permissionType: ANY,
});

const creation = (o: Record<string, unknown> = {}) => ({
  resourceType: TOPIC,
  resourceName: 'acl-topic',
  resourcePatternType: LITERAL,
  principal: 'User:alice',
  host: '*',
  operation: READ,
  permissionType: ALLOW,
  ...o,
});

export const aclScenarios: Scenario[] = [
  tag(
    scenario('testDescribeAclsWithoutAuthorizer', {
      mirrors: 'AclApis.handleDescribeAcls (authorizer None) / DescribeAclsRequestTest',
      description:
        'DescribeAcls v0-v3 with a match-anything filter, a specific filter (topic, prefixed, user, host, read, allow), a user resource (v3) and an unknown resource type (99): SECURITY_DISABLED, its message, no resources',
      steps: [
        ...[0, 1, 2, 3].map((v) => send('a', 29, v, anyFilter(v), { expect: { ...disabled(DESCRIBE_MESSAGE), resources: [] } })),
        send(
          'a',
          29,
          1,
          { resourceTypeFilter: TOPIC, resourceNameFilter: 'acl-', patternTypeFilter: PREFIXED, principalFilter: 'User:alice', hostFilter: '10.0.0.1', operation: READ, permissionType: ALLOW },
          { label: 'DescribeAcls v1 specific filter', expect: { ...disabled(DESCRIBE_MESSAGE), resources: [] } },
        ),
        send('a', 29, 2, { ...anyFilter(2), patternTypeFilter: MATCH, resourceTypeFilter: GROUP, resourceNameFilter: 'g' }, { label: 'DescribeAcls v2 match group' }),
        send('a', 29, 3, { ...anyFilter(3), resourceTypeFilter: USER, resourceNameFilter: 'User:bob' }, { label: 'DescribeAcls v3 user resource' }),
        send('a', 29, 3, { ...anyFilter(3), resourceTypeFilter: 99, operation: 77, permissionType: 66, patternTypeFilter: 55 }, { label: 'DescribeAcls v3 out-of-range codes', expect: disabled(DESCRIBE_MESSAGE) }),
      ],
    }),
  ),
  tag(
    scenario('testCreateAclsWithoutAuthorizer', {
      mirrors: 'AclApis.handleCreateAcls (authorizer None) -> CreateAclsRequest.getErrorResponse',
      description:
        'CreateAcls v0-v3: one SECURITY_DISABLED result per creation, in order (also for a cluster ACL with a bad name, an empty resource name, a prefixed pattern); no creation, no result',
      steps: [
        ...[0, 1, 2, 3].map((v) => send('a', 30, v, { creations: [creation()] }, { expect: { results: [disabled(ALTER_MESSAGE)] } })),
        send(
          'a',
          30,
          3,
          {
            creations: [
              creation(),
              creation({ resourceType: CLUSTER, resourceName: 'not-kafka-cluster', operation: WRITE, permissionType: DENY }),
              creation({ resourceName: '' }),
              creation({ resourceType: GROUP, resourceName: 'grp-', resourcePatternType: PREFIXED, principal: 'User:*', host: '10.0.0.2' }),
            ],
          },
          { label: 'CreateAcls v3 four creations', expect: { results: [disabled(ALTER_MESSAGE), disabled(ALTER_MESSAGE), disabled(ALTER_MESSAGE), disabled(ALTER_MESSAGE)] } },
        ),
        send('a', 30, 1, { creations: [] }, { label: 'CreateAcls v1 no creations', expect: { results: [] } }),
        send('a', 30, 2, { creations: [creation({ resourceType: 99, resourcePatternType: 55, operation: 77, permissionType: 66 })] }, { label: 'CreateAcls v2 out-of-range codes' }),
      ],
    }),
  ),
  tag(
    scenario('testDeleteAclsWithoutAuthorizer', {
      mirrors: 'AclApis.handleDeleteAcls (authorizer None) -> DeleteAclsRequest.getErrorResponse',
      description: 'DeleteAcls v0-v3: one SECURITY_DISABLED result without matching ACLs per filter, in order; no filter, no result',
      steps: [
        ...[0, 1, 2, 3].map((v) =>
          send('a', 31, v, { filters: [anyFilter(v)] }, { expect: { filterResults: [{ ...disabled(ALTER_MESSAGE), matchingAcls: [] }] } }),
        ),
        send(
          'a',
          31,
          3,
          {
            filters: [
              anyFilter(3),
              { ...anyFilter(3), resourceTypeFilter: TOPIC, resourceNameFilter: 'acl-topic', patternTypeFilter: LITERAL, principalFilter: 'User:alice', operation: READ, permissionType: ALLOW },
              { ...anyFilter(3), resourceTypeFilter: USER, patternTypeFilter: MATCH },
            ],
          },
          { label: 'DeleteAcls v3 three filters' },
        ),
        send('a', 31, 1, { filters: [] }, { label: 'DeleteAcls v1 no filters', expect: { filterResults: [] } }),
        send('a', 31, 2, { filters: [{ ...anyFilter(2), resourceTypeFilter: 99, patternTypeFilter: 55, operation: 77, permissionType: 66 }] }, { label: 'DeleteAcls v2 out-of-range codes' }),
      ],
    }),
  ),
  tag(
    scenario('testAclRequestsWithUnknownElementsCloseConnection', {
      mirrors: 'DescribeAclsRequest / CreateAclsRequest / DeleteAclsRequest validation (IllegalArgumentException in the parse → SocketServer closes)',
      description:
        'an UNKNOWN (0) resource type, pattern type, operation or permission type in DescribeAcls, CreateAcls or DeleteAcls fails the parse: the connection is closed without an answer; a valid request on another connection is answered',
      steps: [
        send('a', 29, 1, { ...anyFilter(1), patternTypeFilter: 0 }, { label: 'DescribeAcls v1 pattern type UNKNOWN', expect: 'closed' }),
        send('b', 29, 0, { ...anyFilter(0), operation: 0 }, { label: 'DescribeAcls v0 operation UNKNOWN', expect: 'closed' }),
        send('c', 30, 2, { creations: [creation(), creation({ permissionType: 0 })] }, { label: 'CreateAcls v2 permission type UNKNOWN in the 2nd creation', expect: 'closed' }),
        send('d', 30, 0, { creations: [creation({ resourceType: 0 })] }, { label: 'CreateAcls v0 resource type UNKNOWN', expect: 'closed' }),
        send('e', 31, 3, { filters: [anyFilter(3), { ...anyFilter(3), resourceTypeFilter: 0 }] }, { label: 'DeleteAcls v3 resource type UNKNOWN in the 2nd filter', expect: 'closed' }),
        send('f', 31, 1, { filters: [{ ...anyFilter(1), patternTypeFilter: 0 }] }, { label: 'DeleteAcls v1 pattern type UNKNOWN', expect: 'closed' }),
        send('g', 29, 3, anyFilter(3), { expect: disabled(DESCRIBE_MESSAGE) }),
      ],
    }),
  ),
];
