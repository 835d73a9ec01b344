// DescribeAcls (29), CreateAcls (30), DeleteAcls (31) against a listening kmock, over raw frames,
// as a Kafka 3.9 broker without an authorizer answers them (AclApis, authorizer None): advertised
// at v0-3, SECURITY_DISABLED (54) with "No Authorizer is configured on the broker" for
// DescribeAcls and "No Authorizer is configured." per creation / per filter for CreateAcls and
// DeleteAcls, throttle time 0; an UNKNOWN (0) enum code fails Kafka's request parse, which closes
// the connection. Then kafkajs 2.2.4's admin client, unchanged, sees the same errors, and
// kafka-python 2.0.2 guesses the broker version as 2.5 (it probes for DescribeAcls v2), as it
// does against Kafka 3.9.1.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApiVersionsRequest,
  createCreateAclsRequest,
  createDeleteAclsRequest,
  createDescribeAclsRequest,
  type DescribeAclsRequest,
  CreateAclsRequest,
  DeleteAclsRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { PYTHON, pythonModuleMissing } from '../../support/clients/processes.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let client: RawClient;

beforeEach(async () => {
  kmock = await startKmock();
  client = await RawClient.connect(kmock.bootstrapServers);
});
afterEach(async () => {
  client.close();
  await kmock.close();
});

const DESCRIBE_MESSAGE = 'No Authorizer is configured on the broker';
const ALTER_MESSAGE = 'No Authorizer is configured.';
const VERSIONS = [0, 1, 2, 3];

// ResourceType / PatternType / AclOperation / AclPermissionType codes.
const ANY = 1;
const TOPIC = 2;
const CLUSTER = 4;
const USER = 7;
const LITERAL = 3;
const PREFIXED = 4;
const READ = 3;
const ALLOW = 3;

/** A match-anything filter (v0 has no pattern type: it reads as LITERAL). */
function anyFilter(v: number): DescribeAclsRequest {
  return createDescribeAclsRequest({
    resourceTypeFilter: ANY,
    resourceNameFilter: null,
    patternTypeFilter: v === 0 ? LITERAL : ANY,
    principalFilter: null,
    hostFilter: null,
    operation: ANY,
    permissionType: ANY,
  });
}

function deleteFilter(v: number, o: Partial<DeleteAclsRequest.Filter> = {}): DeleteAclsRequest.Filter {
  return DeleteAclsRequest.createFilter({ ...anyFilter(v), ...o });
}

function creation(o: Partial<CreateAclsRequest.AclCreation> = {}): CreateAclsRequest.AclCreation {
  return CreateAclsRequest.createAclCreation({
    resourceType: TOPIC,
    resourceName: 'acl-topic',
    resourcePatternType: LITERAL,
    principal: 'User:alice',
    host: '*',
    operation: READ,
    permissionType: ALLOW,
    ...o,
  });
}

describe('ApiVersions', () => {
  it('advertises DescribeAcls, CreateAcls and DeleteAcls at v0-3, as Kafka 3.9', async () => {
    const res = await client.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'kmock-test', clientSoftwareVersion: '1' }));
    expect(res.apiKeys.filter((k) => k.apiKey >= 29 && k.apiKey <= 31)).toEqual([
      { apiKey: 29, minVersion: 0, maxVersion: 3 },
      { apiKey: 30, minVersion: 0, maxVersion: 3 },
      { apiKey: 31, minVersion: 0, maxVersion: 3 },
    ]);
  });
});

describe('DescribeAcls', () => {
  for (const v of VERSIONS) {
    it(`v${v}: SECURITY_DISABLED, "${DESCRIBE_MESSAGE}", no resources`, async () => {
      expect(await client.request(29, v, anyFilter(v))).toEqual({
        throttleTimeMs: 0,
        errorCode: ErrorCode.SECURITY_DISABLED,
        errorMessage: DESCRIBE_MESSAGE,
        resources: [],
      });
    });
  }

  it('the same answer whatever the filter, out-of-range codes included (only 0 is rejected)', async () => {
    const filters: DescribeAclsRequest[] = [
      { ...anyFilter(1), resourceTypeFilter: TOPIC, resourceNameFilter: 'acl-', patternTypeFilter: PREFIXED, principalFilter: 'User:a', hostFilter: '10.0.0.1', operation: READ, permissionType: ALLOW },
      { ...anyFilter(3), resourceTypeFilter: USER, resourceNameFilter: 'User:bob' },
      { ...anyFilter(3), resourceTypeFilter: 99, patternTypeFilter: 55, operation: 77, permissionType: -1 },
    ];
    for (const f of filters) {
      const res = await client.request(29, 3, f);
      expect([res.errorCode, res.errorMessage, res.resources]).toEqual([ErrorCode.SECURITY_DISABLED, DESCRIBE_MESSAGE, []]);
    }
  });
});

describe('CreateAcls', () => {
  for (const v of VERSIONS) {
    it(`v${v}: one SECURITY_DISABLED result with "${ALTER_MESSAGE}" per creation`, async () => {
      const res = await client.request(30, v, createCreateAclsRequest({ creations: [creation(), creation({ principal: 'User:bob' })] }));
      expect(res).toEqual({
        throttleTimeMs: 0,
        results: [
          { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_MESSAGE },
          { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_MESSAGE },
        ],
      });
    });
  }

  it('no validation of the ACLs themselves without an authorizer: a bad cluster name or an empty name are SECURITY_DISABLED too', async () => {
    const res = await client.request(
      30,
      3,
      createCreateAclsRequest({ creations: [creation({ resourceType: CLUSTER, resourceName: 'not-kafka-cluster' }), creation({ resourceName: '' })] }),
    );
    expect(res.results.map((r) => [r.errorCode, r.errorMessage])).toEqual([
      [ErrorCode.SECURITY_DISABLED, ALTER_MESSAGE],
      [ErrorCode.SECURITY_DISABLED, ALTER_MESSAGE],
    ]);
  });

  it('no creations, no results', async () => {
    expect(await client.request(30, 2, createCreateAclsRequest({ creations: [] }))).toEqual({ throttleTimeMs: 0, results: [] });
  });
});

describe('DeleteAcls', () => {
  for (const v of VERSIONS) {
    it(`v${v}: one SECURITY_DISABLED result with "${ALTER_MESSAGE}" and no matching ACLs per filter`, async () => {
      const res = await client.request(31, v, createDeleteAclsRequest({ filters: [deleteFilter(v), deleteFilter(v, { resourceTypeFilter: TOPIC, resourceNameFilter: 't' })] }));
      expect(res).toEqual({
        throttleTimeMs: 0,
        filterResults: [
          { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_MESSAGE, matchingAcls: [] },
          { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: ALTER_MESSAGE, matchingAcls: [] },
        ],
      });
    });
  }

  it('no filters, no results', async () => {
    expect(await client.request(31, 1, createDeleteAclsRequest({ filters: [] }))).toEqual({ throttleTimeMs: 0, filterResults: [] });
  });
});

describe('an UNKNOWN (0) code fails the parse: the connection is closed without an answer', () => {
  const describeFields = ['resourceTypeFilter', 'patternTypeFilter', 'operation', 'permissionType'] as const;
  for (const field of describeFields) {
    it(`DescribeAcls ${field} = 0`, async () => {
      const v = field === 'patternTypeFilter' ? 1 : 0;
      await expect(client.request(29, v, { ...anyFilter(v), [field]: 0 })).rejects.toThrow(/closed/);
      expect(client.isClosed).toBe(true);
    });
  }

  const creationFields = ['resourceType', 'resourcePatternType', 'operation', 'permissionType'] as const;
  for (const field of creationFields) {
    it(`CreateAcls ${field} = 0 (in the second creation)`, async () => {
      const req = createCreateAclsRequest({ creations: [creation(), creation({ [field]: 0 })] });
      await expect(client.request(30, 2, req)).rejects.toThrow(/closed/);
      expect(client.isClosed).toBe(true);
    });
  }

  for (const field of describeFields) {
    it(`DeleteAcls ${field} = 0 (in the second filter)`, async () => {
      const req = createDeleteAclsRequest({ filters: [deleteFilter(3), deleteFilter(3, { [field]: 0 })] });
      await expect(client.request(31, 3, req)).rejects.toThrow(/closed/);
      expect(client.isClosed).toBe(true);
    });
  }

  it('other connections are unaffected', async () => {
    const other = await RawClient.connect(kmock.bootstrapServers);
    try {
      await expect(client.request(31, 1, createDeleteAclsRequest({ filters: [deleteFilter(1, { operation: 0 })] }))).rejects.toThrow(/closed/);
      expect((await other.request(29, 1, anyFilter(1))).errorCode).toBe(ErrorCode.SECURITY_DISABLED);
    } finally {
      other.close();
    }
  });
});

describe('kafkajs 2.2.4 admin', () => {
  it('describeAcls, createAcls and deleteAcls reject with SECURITY_DISABLED', async () => {
    const kafka = new Kafka({ clientId: 'kmock-acl-test', brokers: [kmock.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const filter = {
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      };
      const acl = {
        resourceType: AclResourceTypes.TOPIC,
        resourceName: 'acl-topic',
        resourcePatternType: ResourcePatternTypes.LITERAL,
        principal: 'User:alice',
        host: '*',
        operation: AclOperationTypes.READ,
        permissionType: AclPermissionTypes.ALLOW,
      };
      await expect(admin.describeAcls(filter)).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
      await expect(admin.createAcls({ acl: [acl] })).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
      await expect(admin.deleteAcls({ filters: [filter] })).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
    } finally {
      await admin.disconnect();
    }
  });
});

const PYTHON_MISSING = pythonModuleMissing('kafka', 'python3-kafka');

describe.skipIf(PYTHON_MISSING !== undefined)(`kafka-python 2.0.2${PYTHON_MISSING ? ` (skipped: ${PYTHON_MISSING})` : ''}`, () => {
  it('guesses the broker version as (2, 5, 0), as against Kafka 3.9.1 (DescribeAcls v2 is its 2.5 probe)', async () => {
    const script = [
      'import sys',
      'from kafka import KafkaAdminClient',
      'a = KafkaAdminClient(bootstrap_servers=sys.argv[1])',
      'print(a.config["api_version"])',
      'a.close()',
    ].join('\n');
    const { stdout } = await promisify(execFile)(PYTHON, ['-c', script, kmock.bootstrapServers], { timeout: 30_000 });
    expect(stdout.trim()).toBe('(2, 5, 0)');
  });
});
