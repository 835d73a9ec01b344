// The server and connection pipeline against hostile and unusual input: every bad frame ends
// in a clean disconnect of that connection only, and the broker goes on serving the others.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApiVersionsRequest,
  createCreateTopicsRequest,
  createJoinGroupRequest,
  createMetadataRequest,
  createOffsetCommitRequest,
  createOffsetFetchRequest,
  createProduceRequest,
  createSyncGroupRequest,
  decodeResponse,
  encodeRequest,
} from '../../src/codec/index.js';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { computeBatchCrc, encodeBatch } from '../../src/codec/records/index.js';
import { CRC_OFFSET, MAX_TIMESTAMP_OFFSET } from '../../src/codec/records/constants.js';
import { RawClient } from '../support/raw-client.js';

let kmock: Kmock;

beforeEach(async () => {
  kmock = await startKmock({ socketRequestMaxBytes: 64 * 1024 });
});
afterEach(async () => {
  await kmock.close();
});

function apiVersionsFrame(correlationId: number, version = 2): Buffer {
  return encodeRequest({ apiKey: 18, apiVersion: version, correlationId, clientId: 't' }, createApiVersionsRequest());
}

function metadataFrame(correlationId: number): Buffer {
  return encodeRequest({ apiKey: 3, apiVersion: 1, correlationId, clientId: 't' }, createMetadataRequest({ topics: null }));
}

/** The broker is still healthy: a fresh connection gets an answer. */
async function expectHealthy(): Promise<void> {
  const c = await RawClient.connect(kmock.bootstrapServers);
  const res = await c.request(18, 2, createApiVersionsRequest());
  expect(res.errorCode).toBe(0);
  c.close();
}

describe('framing', () => {
  it('answers pipelined requests in request order', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    c.sendRaw(Buffer.concat([metadataFrame(11), apiVersionsFrame(12), metadataFrame(13), apiVersionsFrame(14)]));
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push((await c.nextFrame()).readInt32BE(0));
    expect(ids).toEqual([11, 12, 13, 14]);
    c.close();
  });

  it('reassembles a frame delivered one byte at a time', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    const frame = apiVersionsFrame(42);
    for (const b of frame) {
      c.sendRaw(Buffer.from([b]));
      await new Promise((r) => setImmediate(r));
    }
    const res = await c.nextFrame();
    expect(res.readInt32BE(0)).toBe(42);
    const body = decodeResponse(res, 18, 2).body as { errorCode: number };
    expect(body.errorCode).toBe(0);
    c.close();
  });

  it('accepts a connection whose first request is not ApiVersions', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    const res = await c.request(3, 6, createMetadataRequest({ topics: null }));
    expect(res.brokers).toHaveLength(1);
    expect(res.brokers[0].port).toBe(kmock.port);
    c.close();
  });
});

describe('bad input closes only the offending connection', () => {
  const cases: Array<[string, () => Buffer]> = [
    ['a frame larger than socket.request.max.bytes', () => Buffer.from([0x00, 0x10, 0x00, 0x01])],
    ['a negative frame size', () => Buffer.from([0xff, 0xff, 0xff, 0xf0])],
    ['a frame too short for a request header', () => Buffer.from([0, 0, 0, 3, 0, 18, 0])],
    [
      'an unknown API key',
      () => {
        const f = apiVersionsFrame(1);
        f.writeInt16BE(9999, 4);
        return f;
      },
    ],
    [
      'an unsupported version of an API other than ApiVersions',
      () => {
        const f = metadataFrame(1);
        f.writeInt16BE(99, 6);
        return f;
      },
    ],
    [
      'a truncated body',
      () => {
        const f = metadataFrame(1);
        const cut = f.subarray(0, f.length - 2);
        cut.writeInt32BE(cut.length - 4, 0);
        return cut;
      },
    ],
  ];

  for (const [name, frame] of cases) {
    it(name, async () => {
      const bystander = await RawClient.connect(kmock.bootstrapServers);
      const c = await RawClient.connect(kmock.bootstrapServers);
      c.sendRaw(frame());
      expect(await c.waitForClose()).toBe(true);
      expect(bystander.isClosed).toBe(false);
      const res = await bystander.request(18, 1, createApiVersionsRequest());
      expect(res.errorCode).toBe(0);
      bystander.close();
      await expectHealthy();
    });
  }

  it('refuses an oversized frame before its bytes arrive', async () => {
    // Only the size prefix is sent: the broker must not wait for (or buffer) 1 MiB.
    const c = await RawClient.connect(kmock.bootstrapServers);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(1024 * 1024);
    c.sendRaw(prefix);
    expect(await c.waitForClose(2000)).toBe(true);
  });
});

describe('a request whose handling throws', () => {
  // A batch header whose maxTimestamp (Long.MAX_VALUE) is beyond what kmock holds as a number,
  // with a valid CRC: its handling throws. Only that connection may suffer.
  it('closes that connection only; the broker keeps serving', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    await c.request(19, 4, createCreateTopicsRequest({ topics: [{ name: 'ts', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }));
    const batch = encodeBatch({ records: [{ key: null, value: 'v' }] });
    batch.writeBigInt64BE(0x7fffffffffffffffn, MAX_TIMESTAMP_OFFSET);
    batch.writeUInt32BE(computeBatchCrc(batch), CRC_OFFSET);
    c.sendRaw(
      encodeRequest(
        { apiKey: 0, apiVersion: 9, correlationId: 7, clientId: 't' },
        createProduceRequest({ acks: -1, timeoutMs: 1000, topicData: [{ name: 'ts', partitionData: [{ index: 0, records: batch }] }] }),
      ),
    );
    expect(await c.waitForClose(5000)).toBe(true);
    await expectHealthy();
  });
});

describe('a client that leaves while its request is parked', () => {
  // Kafka mutes a channel while one of its requests is in flight, so it sees the end of the stream
  // only after answering: the one queued request it then reads is still handled, the rest dropped.
  it('handles the first request queued behind a parked JoinGroup and drops the rest', async () => {
    const k = await startKmock({ groupInitialRebalanceDelayMs: 0 });
    try {
      const join = (memberId: string) =>
        createJoinGroupRequest({
          groupId: 'g',
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 10_000,
          memberId,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
        });
      const commit = (group: string, offset: bigint) =>
        encodeRequest(
          { apiKey: 8, apiVersion: 7, correlationId: 100 + Number(offset), clientId: 'b' },
          createOffsetCommitRequest({
            groupId: group,
            topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null, commitTimestamp: -1n }] }],
          }),
        );
      const a = await RawClient.connect(k.bootstrapServers);
      await a.request(19, 4, createCreateTopicsRequest({ topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }));
      const first = await a.request(11, 3, join(''));
      expect(first.errorCode).toBe(0);
      await a.request(14, 1, createSyncGroupRequest({ groupId: 'g', generationId: first.generationId, memberId: first.memberId }));

      // b's JoinGroup parks (the group waits for a to rejoin); three commits queue behind it.
      const b = await RawClient.connect(k.bootstrapServers);
      b.sendRaw(encodeRequest({ apiKey: 11, apiVersion: 3, correlationId: 1, clientId: 'b' }, join('')));
      b.sendRaw(Buffer.concat([commit('h1', 11n), commit('h2', 12n), commit('h3', 13n)]));
      await new Promise((r) => setTimeout(r, 100));
      b.close();
      await new Promise((r) => setTimeout(r, 50));

      const second = await a.request(11, 3, join(first.memberId));
      expect(second.members).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 100));
      const fetched = await a.request(
        9,
        8,
        createOffsetFetchRequest({ groups: ['h1', 'h2', 'h3'].map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })) }),
      );
      const committed = fetched.groups.map((g) => [g.groupId, g.topics.flatMap((t) => t.partitions.map((p) => p.committedOffset))]);
      expect(committed).toEqual([
        ['h1', [11n]],
        ['h2', []],
        ['h3', []],
      ]);
      a.close();
    } finally {
      await k.close();
    }
  });
});

describe('ApiVersions', () => {
  it('answers an unknown version with UNSUPPORTED_VERSION in the v0 layout', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    const f = apiVersionsFrame(77, 3);
    f.writeInt16BE(127, 6); // a version from the future, flexible header: the broker must not parse it
    c.sendRaw(f);
    const res = await c.nextFrame();
    expect(res.readInt32BE(0)).toBe(77);
    const body = decodeResponse(res, 18, 0).body as { errorCode: number; apiKeys: Array<{ apiKey: number; minVersion: number; maxVersion: number }> };
    expect(body.errorCode).toBe(35);
    expect(body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
    // The connection stays usable for the retry.
    const again = await c.request(18, 2, createApiVersionsRequest());
    expect(again.errorCode).toBe(0);
    c.close();
  });

  it('advertises exactly the registered handlers', async () => {
    const c = await RawClient.connect(kmock.bootstrapServers);
    const res = await c.request(18, 3, createApiVersionsRequest({ clientSoftwareName: 'kmock-test', clientSoftwareVersion: '1.0' }));
    const keys = res.apiKeys.map((k) => k.apiKey);
    expect(keys).toEqual([...kmock.broker.handlers.keys()].sort((a, b) => a - b));
    expect(res.apiKeys.find((k) => k.apiKey === 18)).toMatchObject({ minVersion: 0, maxVersion: 4 });
    c.close();
  });
});

describe('lifecycle', () => {
  it('starts on an ephemeral port and reports it', () => {
    expect(kmock.port).toBeGreaterThan(0);
    expect(kmock.bootstrapServers).toBe(`127.0.0.1:${kmock.port}`);
  });

  it('closes idle connections after connections.max.idle.ms', async () => {
    const quick = await startKmock({ connectionsMaxIdleMs: 150 });
    try {
      const c = await RawClient.connect(quick.bootstrapServers);
      expect(await c.waitForClose(3000)).toBe(true);
    } finally {
      await quick.close();
    }
  });

  it('close() drops client connections and stops listening', async () => {
    const other = await startKmock();
    const c = await RawClient.connect(other.bootstrapServers);
    await other.close();
    expect(await c.waitForClose()).toBe(true);
    await expect(
      new Promise((resolve, reject) => {
        const s = connect({ host: '127.0.0.1', port: other.port });
        s.once('connect', () => resolve('connected'));
        s.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
