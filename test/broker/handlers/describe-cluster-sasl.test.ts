// DescribeCluster (60), SaslHandshake (17) and SaslAuthenticate (36) against a listening kmock,
// over raw frames, as a Kafka 3.9 broker answers them on a PLAINTEXT listener.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApiVersionsRequest,
  createDescribeClusterRequest,
  createSaslAuthenticateRequest,
  createSaslHandshakeRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let client: RawClient;

beforeEach(async () => {
  kmock = await startKmock({ clusterId: 'test-cluster-id-00000000', nodeId: 3, rack: 'rack-a' });
  client = await RawClient.connect(kmock.bootstrapServers);
});
afterEach(async () => {
  client.close();
  await kmock.close();
});

describe('DescribeCluster', () => {
  for (const v of [0, 1]) {
    it(`v${v}: this broker, the cluster id, this node as controller`, async () => {
      const res = await client.request(60, v, createDescribeClusterRequest({ includeClusterAuthorizedOperations: false }));
      expect(res).toMatchObject({
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        clusterId: 'test-cluster-id-00000000',
        controllerId: 3,
        brokers: [{ brokerId: 3, host: '127.0.0.1', port: kmock.port, rack: 'rack-a' }],
        clusterAuthorizedOperations: -2147483648,
      });
      if (v >= 1) expect(res.endpointType).toBe(1);
    });
  }

  it('cluster authorized operations when asked (no authorizer: every cluster operation)', async () => {
    const res = await client.request(60, 1, createDescribeClusterRequest({ includeClusterAuthorizedOperations: true }));
    // CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE
    expect(res.clusterAuthorizedOperations).toBe(8096);
  });

  it('v1: controllers endpoint is MISMATCHED_ENDPOINT_TYPE, an unknown one UNSUPPORTED_ENDPOINT_TYPE', async () => {
    const mismatched = await client.request(60, 1, createDescribeClusterRequest({ endpointType: 2 }));
    expect([mismatched.errorCode, mismatched.errorMessage]).toEqual([
      ErrorCode.MISMATCHED_ENDPOINT_TYPE,
      'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER',
    ]);
    expect(mismatched.brokers).toEqual([]);
    for (const t of [0, 3]) {
      const unsupported = await client.request(60, 1, createDescribeClusterRequest({ endpointType: t }));
      expect([unsupported.errorCode, unsupported.errorMessage]).toEqual([ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, `Unsupported endpoint type ${t}`]);
    }
  });
});

describe('SASL on a PLAINTEXT listener', () => {
  for (const v of [0, 1]) {
    it(`SaslHandshake v${v}: ILLEGAL_SASL_STATE, no mechanisms, connection kept`, async () => {
      const res = await client.request(17, v, createSaslHandshakeRequest({ mechanism: 'PLAIN' }));
      expect(res).toEqual({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
      expect((await client.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'kmock-test', clientSoftwareVersion: '1.0' }))).errorCode).toBe(0);
    });
  }

  for (const v of [0, 1, 2]) {
    it(`SaslAuthenticate v${v}: ILLEGAL_SASL_STATE with Kafka's message, connection kept`, async () => {
      const res = await client.request(36, v, createSaslAuthenticateRequest({ authBytes: Buffer.from('\0user\0secret') }));
      expect(res.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
      expect(res.errorMessage).toBe('SaslAuthenticate request received after successful authentication');
      expect(res.authBytes.length).toBe(0);
      if (v >= 1) expect(res.sessionLifetimeMs).toBe(0n);
      expect(client.isClosed).toBe(false);
    });
  }
});

describe('ApiVersions advertises the admin APIs at the versions Kafka 3.9 serves', () => {
  it('17 0-1, 19 0-7, 20 0-6, 32 0-4, 36 0-2, 37 0-3, 60 0-1', async () => {
    const res = await client.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'kmock-test', clientSoftwareVersion: '1.0' }));
    const byKey = new Map(res.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(byKey.get(17)).toEqual([0, 1]);
    expect(byKey.get(19)).toEqual([0, 7]);
    expect(byKey.get(20)).toEqual([0, 6]);
    expect(byKey.get(32)).toEqual([0, 4]);
    expect(byKey.get(36)).toEqual([0, 2]);
    expect(byKey.get(37)).toEqual([0, 3]);
    expect(byKey.get(60)).toEqual([0, 1]);
  });
});
