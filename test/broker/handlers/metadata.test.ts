// Metadata (3) against a listening kmock, over raw frames. Expectations are Kafka 3.9's
// (KafkaApis.handleTopicMetadataRequest, DefaultAutoTopicCreationManager in KRaft mode); where
// kmock's metadata handler differs, the test is marked `.fails` and says what Kafka does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCreateTopicsRequest, createMetadataRequest, type MetadataRequest, ErrorCode, ZERO_UUID } from '../../../src/codec/index.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';


let kmock: Kmock;
let client: RawClient;

async function start(options: KmockOptions = {}): Promise<void> {
  kmock = await startKmock(options);
  client = await RawClient.connect(kmock.bootstrapServers);
}

beforeEach(async () => start());
afterEach(async () => {
  client.close();
  await kmock.close();
});

/** Creates a topic with CreateTopics v7; returns its id. */
async function createTopic(name: string, numPartitions = 2): Promise<string> {
  const res = await client.request(
    19,
    7,
    createCreateTopicsRequest({ topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000 }),
  );
  expect(res.topics[0].errorCode).toBe(0);
  return res.topics[0].topicId;
}

const byName = (name: string): MetadataRequest.Topic => ({ name, topicId: ZERO_UUID });

describe('Metadata: all topics', () => {
  for (let v = 0; v <= 12; v++) {
    it(`v${v}: lists every topic with its partitions led by this broker`, async () => {
      const id = await createTopic('alpha', 2);
      await createTopic('beta', 1);
      const res = await client.request(3, v, createMetadataRequest({ topics: v === 0 ? [] : null }));
      expect(res.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: kmock.port, rack: null }]);
      if (v >= 1) expect(res.controllerId).toBe(1);
      if (v >= 2) expect(res.clusterId).toBe(kmock.broker.services.clusterId);
      const topics = [...res.topics].sort((a, b) => (a.name! < b.name! ? -1 : 1));
      expect(topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([
        ['alpha', 0, 2],
        ['beta', 0, 1],
      ]);
      const p = topics[0].partitions[1];
      expect([p.errorCode, p.partitionIndex, p.leaderId, p.replicaNodes, p.isrNodes]).toEqual([0, 1, 1, [1], [1]]);
      if (v >= 7) expect(p.leaderEpoch).toBe(0);
      if (v >= 10) expect(topics[0].topicId).toBe(id);
      else expect(topics[0].topicId).toBe(ZERO_UUID);
    });
  }

  it('v1+: an empty topic list asks for no topics', async () => {
    await createTopic('alpha');
    const res = await client.request(3, 1, createMetadataRequest({ topics: [] }));
    expect(res.topics).toEqual([]);
  });
});

describe('Metadata: auto-creation', () => {
  it('creates an unknown topic with num.partitions partitions: present on the next request', async () => {
    client.close();
    await kmock.close();
    await start({ numPartitions: 3 });
    const first = await client.request(3, 9, createMetadataRequest({ topics: [byName('auto')] }));
    expect(first.topics[0].name).toBe('auto');
    expect(first.topics[0].errorCode).not.toBe(0);
    expect(first.topics[0].partitions).toEqual([]);
    const second = await client.request(3, 9, createMetadataRequest({ topics: [byName('auto')], allowAutoTopicCreation: false }));
    expect([second.topics[0].errorCode, second.topics[0].partitions.length]).toEqual([0, 3]);
  });

  // Kafka 3.9 in KRaft mode: DefaultAutoTopicCreationManager is built without a ZK controller, so
  // it sends CreateTopics to the controller and answers UNKNOWN_TOPIC_OR_PARTITION
  // (sendCreateTopicRequest). LEADER_NOT_AVAILABLE is the ZooKeeper-mode answer (createTopicsInZk).
  // kmock's metadata.ts answers LEADER_NOT_AVAILABLE.
  it('the request that triggers the creation answers UNKNOWN_TOPIC_OR_PARTITION, as Kafka 3.9 KRaft', async () => {
    for (const v of [1, 4, 12]) {
      const res = await client.request(3, v, createMetadataRequest({ topics: [byName(`auto-${v}`)] }));
      expect(res.topics[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  });

  it('v0-3 always allow auto-creation', async () => {
    await client.request(3, 3, createMetadataRequest({ topics: [byName('old-client')] }));
    expect(kmock.broker.topics.get('old-client')).toBeDefined();
  });

  it('allowAutoTopicCreation=false: UNKNOWN_TOPIC_OR_PARTITION and nothing created', async () => {
    for (const v of [4, 9, 12]) {
      const res = await client.request(3, v, createMetadataRequest({ topics: [byName('nope')], allowAutoTopicCreation: false }));
      expect([res.topics[0].name, res.topics[0].errorCode, res.topics[0].partitions]).toEqual(['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []]);
    }
    expect(kmock.broker.topics.get('nope')).toBeUndefined();
  });

  it('auto.create.topics.enable=false: UNKNOWN_TOPIC_OR_PARTITION whatever the request says', async () => {
    client.close();
    await kmock.close();
    await start({ autoCreateTopicsEnable: false });
    const res = await client.request(3, 1, createMetadataRequest({ topics: [byName('nope')] }));
    expect(res.topics[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(kmock.broker.topics.get('nope')).toBeUndefined();
  });

  it('INVALID_TOPIC_EXCEPTION for an illegal name, with or without auto-creation', async () => {
    for (const allowAutoTopicCreation of [true, false]) {
      const res = await client.request(3, 9, createMetadataRequest({ topics: [byName('bad name')], allowAutoTopicCreation }));
      expect(res.topics[0].errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
    expect(kmock.broker.topics.all()).toEqual([]);
  });
});

describe('Metadata: topic ids', () => {
  it('v12: by topic id, the topic with its name; an unknown id is UNKNOWN_TOPIC_ID with a null name', async () => {
    const id = await createTopic('by-id', 3);
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAQ';
    const res = await client.request(
      3,
      12,
      createMetadataRequest({
        topics: [
          { name: null, topicId: id },
          { name: null, topicId: unknown },
        ],
      }),
    );
    const found = res.topics.find((t) => t.topicId === id)!;
    expect([found.name, found.errorCode, found.partitions.length]).toEqual(['by-id', 0, 3]);
    const missing = res.topics.find((t) => t.topicId === unknown)!;
    expect([missing.name, missing.errorCode, missing.partitions]).toEqual([null, ErrorCode.UNKNOWN_TOPIC_ID, []]);
  });

  // KafkaApis.handleTopicMetadataRequest: "Topic IDs are not supported for versions 10 and 11":
  // a null name below v12 fails the request (every topic INVALID_REQUEST). kmock's metadata.ts
  // looks the id up instead.
  it('v10/v11: a null topic name is INVALID_REQUEST, as Kafka 3.9', async () => {
    const id = await createTopic('old-ids');
    const res = await client.request(3, 10, createMetadataRequest({ topics: [{ name: null, topicId: id }] }));
    expect(res.topics[0].errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });
});

describe('Metadata: authorized operations', () => {
  it('not requested: the INT32 minimum marker', async () => {
    await createTopic('ops');
    const res = await client.request(3, 10, createMetadataRequest({ topics: [byName('ops')] }));
    expect(res.clusterAuthorizedOperations).toBe(-2147483648);
    expect(res.topics[0].topicAuthorizedOperations).toBe(-2147483648);
  });

  // With no authorizer Kafka answers every supported operation (AuthHelper.authorizedOperations):
  // topic READ..ALTER_CONFIGS = 3576, cluster CREATE..IDEMPOTENT_WRITE = 8096. kmock's metadata.ts
  // always answers the "not requested" marker.
  it('requested (v8-10): every operation, as Kafka 3.9 with no authorizer', async () => {
    await createTopic('ops');
    const res = await client.request(
      3,
      10,
      createMetadataRequest({ topics: [byName('ops')], includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true }),
    );
    expect(res.topics[0].topicAuthorizedOperations).toBe(3576);
    expect(res.clusterAuthorizedOperations).toBe(8096);
  });
});
