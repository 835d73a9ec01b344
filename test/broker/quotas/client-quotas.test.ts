// The client quota store (quotas/client-quotas.ts): what AlterClientQuotas changes and refuses,
// DescribeClientQuotas' filters, and quotas kept in the data dir across a restart. The Kafka side
// of the same answers is pinned by test/conformance/scenarios/quotas.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientQuotaStore, QuotaFilterError, type QuotaEntity } from '../../../src/broker/quotas/client-quotas.js';
import { startKmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

const e = (o: Record<string, string | null>): QuotaEntity => new Map(Object.entries(o));

describe('ClientQuotaStore', () => {
  it('sets, changes and removes values; validateOnly changes nothing; a removal of nothing is a success', () => {
    const s = new ClientQuotaStore();
    let changes = 0;
    s.onChange(() => changes++);
    expect(s.alter([{ entity: e({ user: 'alice' }), ops: [{ key: 'producer_byte_rate', value: 1024 }] }], true)).toEqual([{ entity: e({ user: 'alice' }), errorCode: 0, errorMessage: null }]);
    expect(s.describe([], false)).toEqual([]);
    s.alter([{ entity: e({ user: 'alice' }), ops: [{ key: 'producer_byte_rate', value: 1024 }, { key: 'request_percentage', value: 12.5 }] }, { entity: e({ user: null }), ops: [{ key: 'consumer_byte_rate', value: 1 }] }], false);
    expect(changes).toBe(1);
    expect(s.describe([{ entityType: 'user', matchType: 0, match: 'alice' }], true)).toEqual([
      { entity: [{ entityType: 'user', entityName: 'alice' }], values: expect.arrayContaining([{ key: 'producer_byte_rate', value: 1024 }, { key: 'request_percentage', value: 12.5 }]) },
    ]);
    expect(s.describe([{ entityType: 'user', matchType: 1, match: null }], false)).toEqual([{ entity: [{ entityType: 'user', entityName: null }], values: [{ key: 'consumer_byte_rate', value: 1 }] }]);
    expect(s.describe([{ entityType: 'user', matchType: 2, match: null }], false)).toHaveLength(2);
    s.alter([{ entity: e({ user: 'bob' }), ops: [{ key: 'producer_byte_rate', value: null }] }], false);
    expect(changes).toBe(1);
    s.alter([{ entity: e({ user: 'alice' }), ops: [{ key: 'producer_byte_rate', value: null }, { key: 'request_percentage', value: null }] }], false);
    expect(s.describe([{ entityType: 'user', matchType: 0, match: 'alice' }], false)).toEqual([]);
  });

  it('refuses what ClientQuotaControlManager refuses, with its texts', () => {
    const s = new ClientQuotaStore();
    const one = (entity: QuotaEntity, key: string, value: number | null) => s.alter([{ entity, ops: [{ key, value }] }], false)[0].errorMessage;
    expect(one(e({}), 'producer_byte_rate', 1)).toBe('Invalid empty client quota entity');
    expect(one(e({ group: 'g' }), 'producer_byte_rate', 1)).toBe('Unhandled client quota entity type: group');
    expect(one(e({ user: '' }), 'producer_byte_rate', 1)).toBe('Empty user not supported');
    expect(one(e({ user: 'u', ip: '127.0.0.1' }), 'producer_byte_rate', 1)).toBe('Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId');
    expect(one(e({ ip: 'no such host' }), 'connection_creation_rate', 1)).toBe('no such host is not a valid IP or resolvable host.');
    expect(one(e({ user: 'u' }), 'connection_creation_rate', 1)).toBe('Invalid configuration key connection_creation_rate');
    expect(one(e({ user: 'u' }), 'producer_byte_rate', -1)).toBe('Quota producer_byte_rate must be greater than 0');
    expect(one(e({ user: 'u' }), 'producer_byte_rate', 2.5)).toBe('producer_byte_rate cannot be a fractional value.');
    expect(one(e({ ip: '127.0.0.1' }), 'connection_creation_rate', 3e9)).toBe('Proposed value for connection_creation_rate is too large for an INT.');
    const dup = s.alter([{ entity: e({ user: 'u' }), ops: [{ key: 'producer_byte_rate', value: 1 }, { key: 'producer_byte_rate', value: 2 }] }], false);
    expect(dup).toEqual([{ entity: e({ user: 'u' }), errorCode: 42, errorMessage: 'Ignoring duplicate entity ClientQuotaEntity(entries={user=u})' }]);
    expect(s.describe([], false)).toEqual([]);
  });

  it('refuses filters as ClientQuotasImage.describe does', () => {
    const s = new ClientQuotaStore();
    const err = (components: Array<{ entityType: string; matchType: number; match: string | null }>): [number, string] | undefined => {
      try {
        s.describe(components, false);
        return undefined;
      } catch (x) {
        if (x instanceof QuotaFilterError) return [x.errorCode, x.message];
        throw x;
      }
    };
    expect(err([{ entityType: 'group', matchType: 2, match: null }])).toEqual([35, 'Unsupported entity type group']);
    expect(err([{ entityType: 'user', matchType: 0, match: null }])).toEqual([42, 'Request specified MATCH_TYPE_EXACT, but set match string to null.']);
    expect(err([{ entityType: 'ip', matchType: 2, match: null }, { entityType: 'client-id', matchType: 2, match: null }])?.[0]).toBe(42);
  });
});

describe('client quotas on the wire and in the data dir', () => {
  it('AlterClientQuotas then DescribeClientQuotas, and the quotas after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-quotas-'));
    let k = await startKmock({ logDirs: dir });
    let c = await RawClient.connect(k.bootstrapServers);
    const set = await c.request(49, 1, { entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: 'app' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: false } as never);
    expect(set).toMatchObject({ entries: [{ errorCode: 0, errorMessage: null }] });
    c.close();
    await k.close();
    k = await startKmock({ logDirs: dir });
    c = await RawClient.connect(k.bootstrapServers);
    const got = await c.request(48, 1, { components: [{ entityType: 'user', matchType: 0, match: 'alice' }], strict: false } as never);
    c.close();
    await k.close();
    expect(got).toMatchObject({ errorCode: 0, entries: [{ values: [{ key: 'producer_byte_rate', value: 1024 }] }] });
    expect((got as { entries: Array<{ entity: unknown[] }> }).entries[0].entity).toHaveLength(2);
  });
});
