// DescribeUserScramCredentials (50) and AlterUserScramCredentials (51) on a real kmock over a raw client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../../src/broker/server.js';
import { RawClient } from '../../../support/raw-client.js';

let kmock: Kmock;
let c: RawClient;
beforeAll(async () => {
  kmock = await startKmock({ saslUsers: 'alice:alice-secret' });
  c = await RawClient.connect(kmock.bootstrapServers);
});
afterAll(async () => {
  c.close();
  await kmock.close();
});

describe('SCRAM credential APIs', () => {
  it('describes sasl.users, a missing user and a duplicate', async () => {
    const all = await c.request(50, 0, { users: null });
    expect(all.results).toEqual([{ user: 'alice', errorCode: 0, errorMessage: '', credentialInfos: [{ mechanism: 1, iterations: 4096 }, { mechanism: 2, iterations: 4096 }] }]);
    const named = await c.request(50, 0, { users: [{ name: 'bob' }, { name: 'carol' }, { name: 'carol' }] });
    expect(named.results).toEqual([
      { user: 'bob', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist: bob', credentialInfos: [] },
      { user: 'carol', errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request: carol', credentialInfos: [] },
    ]);
  });

  it('upserts, validates and deletes with Kafka texts', async () => {
    const salt = Buffer.from('salt');
    const salted = Buffer.alloc(32, 7);
    const r = await c.request(51, 0, {
      deletions: [{ name: 'nobody', mechanism: 1 }],
      upsertions: [
        { name: 'bob', mechanism: 1, iterations: 8192, salt, saltedPassword: salted },
        { name: 'low', mechanism: 1, iterations: 100, salt, saltedPassword: salted },
        { name: 'high', mechanism: 2, iterations: 20000, salt, saltedPassword: salted },
        { name: 'odd', mechanism: 9, iterations: 4096, salt, saltedPassword: salted },
        { name: 'dup', mechanism: 1, iterations: 4096, salt, saltedPassword: salted },
        { name: 'dup', mechanism: 2, iterations: 4096, salt, saltedPassword: salted },
      ],
    });
    const byUser = Object.fromEntries(r.results.map((x) => [x.user, [x.errorCode, x.errorMessage]]));
    expect(byUser).toEqual({
      bob: [0, null],
      nobody: [ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      low: [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      high: [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      odd: [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      dup: [ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
    });
    const d = await c.request(50, 0, { users: [{ name: 'bob' }] });
    expect(d.results[0]!.credentialInfos).toEqual([{ mechanism: 1, iterations: 8192 }]);
    const del = await c.request(51, 0, { deletions: [{ name: 'bob', mechanism: 1 }], upsertions: [] });
    expect(del.results).toEqual([{ user: 'bob', errorCode: 0, errorMessage: null }]);
    expect((await c.request(50, 0, { users: [{ name: 'bob' }] })).results[0]!.errorCode).toBe(ErrorCode.RESOURCE_NOT_FOUND);
  });
});
