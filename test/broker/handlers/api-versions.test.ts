// ApiVersions (18) against a listening kmock, over raw frames: every version, the KIP-511 answer
// to a version kmock does not speak, and the v3+ client software checks (ApiVersionsRequest.isValid).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiVersionsRequest, decodeResponse, encodeRequest, type ApiVersionsResponse, ErrorCode } from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
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

const software = { clientSoftwareName: 'kmock-test', clientSoftwareVersion: '1.2.3' };

describe('ApiVersions', () => {
  for (let v = 0; v <= 4; v++) {
    it(`v${v}: lists every API kmock serves, ApiVersions 0-4 and Metadata 0-12 among them`, async () => {
      const res = await client.request(18, v, createApiVersionsRequest(v >= 3 ? software : {}));
      expect(res.errorCode).toBe(0);
      const byKey = new Map(res.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
      expect(byKey.get(18)).toEqual([0, 4]);
      expect(byKey.get(3)).toEqual([0, 12]);
      const keys = res.apiKeys.map((k) => k.apiKey);
      expect(keys).toEqual([...keys].sort((a, b) => a - b));
      expect(res.apiKeys).toEqual(kmock.broker.services.apis);
      if (v >= 1) expect(res.throttleTimeMs).toBe(0);
    });
  }

  it('records the client software name and version (v3+)', async () => {
    await client.request(18, 3, createApiVersionsRequest(software));
    const [conn] = [...kmock.broker.connections];
    expect([conn.info.clientSoftwareName, conn.info.clientSoftwareVersion]).toEqual(['kmock-test', '1.2.3']);
  });

  it('v3+: INVALID_REQUEST and no API list for a software name or version that breaks the KIP-511 pattern', async () => {
    const bad: Array<[string, string]> = [
      ['bad name', '1.0'],
      ['name', 'v1.0-'],
      ['', '1.0'],
      ['-name', '1.0'],
      ['name', ''],
    ];
    for (const [clientSoftwareName, clientSoftwareVersion] of bad) {
      for (const v of [3, 4]) {
        const res = await client.request(18, v, createApiVersionsRequest({ clientSoftwareName, clientSoftwareVersion }));
        expect(res.errorCode, `${clientSoftwareName}/${clientSoftwareVersion}`).toBe(ErrorCode.INVALID_REQUEST);
        expect(res.apiKeys).toEqual([]);
      }
    }
    // The connection is still usable.
    expect((await client.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'a', clientSoftwareVersion: '1' }))).errorCode).toBe(0);
  });

  it('an unsupported version gets UNSUPPORTED_VERSION in the v0 layout with the ApiVersions range', async () => {
    for (const version of [5, 100]) {
      const frame = encodeRequest({ apiKey: 18, apiVersion: 4, correlationId: 9, clientId: 'raw' }, createApiVersionsRequest(software));
      frame.writeInt16BE(version, 6);
      client.sendRaw(frame);
      const res = await client.nextFrame();
      const decoded = decodeResponse(res, 18, 0);
      expect(decoded.correlationId).toBe(9);
      expect(decoded.trailingBytes).toBe(0);
      const body = decoded.body as ApiVersionsResponse;
      expect(body.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
      expect(body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
    }
    expect(client.isClosed).toBe(false);
    expect((await client.request(18, 4, createApiVersionsRequest(software))).errorCode).toBe(0);
  });
});
