// Starting with an authorizer: the class names kmock serves, a clear refusal for others and for
// malformed super.users, and a data dir whose saved ACLs are damaged (the start stops: silently
// dropping a DENY would open what it closed).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../../src/broker/server.js';
import { STANDARD_AUTHORIZER } from '../../../../src/broker/security/authorizer/index.js';
import { RawClient } from '../../../support/raw-client.js';
import { createCreateAclsRequest, createDescribeAclsRequest } from '../../../../src/codec/index.js';

const running: Kmock[] = [];
afterEach(async () => {
  for (const k of running.splice(0)) await k.close();
});

async function start(o: Parameters<typeof startKmock>[0]): Promise<Kmock> {
  const k = await startKmock(o);
  running.push(k);
  return k;
}

const CREATE = createCreateAclsRequest({
  creations: [{ resourceType: 2, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 2 }],
});

describe('authorizer.class.name at start', () => {
  it('serves StandardAuthorizer and the ZooKeeper-era AclAuthorizer, refuses other classes', async () => {
    for (const name of [STANDARD_AUTHORIZER, 'kafka.security.authorizer.AclAuthorizer']) {
      const k = await start({ authorizerClassName: name, superUsers: 'User:ANONYMOUS' });
      const c = await RawClient.connect(k.bootstrapServers);
      const res = await c.request(30, 3, CREATE);
      c.close();
      expect(res.results).toEqual([{ errorCode: 0, errorMessage: '' }]);
    }
    await expect(startKmock({ authorizerClassName: 'com.example.MyAuthorizer' })).rejects.toThrow(/kmock has no authorizer "com\.example\.MyAuthorizer"/);
    await expect(startKmock({ authorizerClassName: STANDARD_AUTHORIZER, superUsers: 'alice' })).rejects.toThrow(/super\.users: "alice" is not a principal/);
  });

  it('an anonymous client that is not a super user gets CLUSTER_AUTHORIZATION_FAILED from the ACL APIs', async () => {
    const k = await start({ authorizerClassName: STANDARD_AUTHORIZER });
    const c = await RawClient.connect(k.bootstrapServers);
    const created = await c.request(30, 3, CREATE);
    const described = await c.request(29, 3, createDescribeAclsRequest({ resourceTypeFilter: 1, patternTypeFilter: 1, operation: 1, permissionType: 1 }));
    c.close();
    expect(created.results).toEqual([{ errorCode: 31, errorMessage: 'Cluster authorization failed.' }]);
    expect(described).toMatchObject({ errorCode: 31, resources: [] });
  });
});

describe('ACLs in the data dir', () => {
  it('are saved, kept without an authorizer, and a damaged entry stops the start with the file named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-acls-'));
    let k = await start({ logDirs: dir, authorizerClassName: STANDARD_AUTHORIZER, superUsers: 'User:ANONYMOUS' });
    const c = await RawClient.connect(k.bootstrapServers);
    expect((await c.request(30, 3, CREATE)).results[0].errorCode).toBe(0);
    c.close();
    await k.close();
    running.length = 0;
    const file = join(dir, 'kmock-topics.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.acls).toEqual([{ resourceType: 2, resourceName: 'orders', patternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 2 }]);

    // Started once without an authorizer: the ACLs stay in the file.
    k = await start({ logDirs: dir });
    await k.close();
    running.length = 0;
    expect(JSON.parse(readFileSync(file, 'utf8')).acls).toEqual(saved.acls);

    writeFileSync(file, JSON.stringify({ ...saved, acls: [{ ...saved.acls[0], operation: 1 }] }));
    await expect(startKmock({ logDirs: dir, authorizerClassName: STANDARD_AUTHORIZER })).rejects.toThrow(/kmock-topics\.json: the saved ACLs are not valid \(entry 0: .*Invalid operation ANY/);
  });
});
