// The admin APIs through an unmodified kafkajs 2.2.4 admin client.
import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';

let kmock: Kmock;
let admin: Admin;

beforeAll(async () => {
  kmock = await startKmock({ clusterId: 'kafkajs-admin-cluster-01' });
  const kafka = new Kafka({
    clientId: 'kmock-admin-test',
    brokers: [kmock.bootstrapServers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 50 },
  });
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.disconnect();
  await kmock.close();
});

describe('kafkajs admin', () => {
  it('createTopics: true when created, false when the topic already exists', async () => {
    expect(await admin.createTopics({ topics: [{ topic: 'kjs-orders', numPartitions: 3 }] })).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic: 'kjs-orders', numPartitions: 3 }] })).toBe(false);
    expect(await admin.listTopics()).toContain('kjs-orders');
  });

  it('createTopics validateOnly creates nothing', async () => {
    // waitForLeaders would wait for a topic that validateOnly does not create (as with Kafka).
    expect(await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'kjs-dry-run' }] })).toBe(true);
    expect(await admin.listTopics()).not.toContain('kjs-dry-run');
  });

  it('createTopics rejects with the Kafka error for a bad config or replication factor', async () => {
    await expect(
      admin.createTopics({ topics: [{ topic: 'kjs-bad', configEntries: [{ name: 'no.such.config', value: '1' }] }] }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
    await expect(admin.createTopics({ topics: [{ topic: 'kjs-bad', replicationFactor: 3 }] })).rejects.toMatchObject({
      errors: [expect.objectContaining({ type: 'INVALID_REPLICATION_FACTOR' })],
    });
  });

  it('fetchTopicMetadata shows the partitions, led by this broker', async () => {
    const { topics } = await admin.fetchTopicMetadata({ topics: ['kjs-orders'] });
    expect(topics).toHaveLength(1);
    expect(topics[0].name).toBe('kjs-orders');
    expect(topics[0].partitions.map((p) => [p.partitionId, p.leader, p.replicas, p.isr]).sort()).toEqual([
      [0, 1, [1], [1]],
      [1, 1, [1], [1]],
      [2, 1, [1], [1]],
    ]);
  });

  it('createPartitions grows a topic; a decrease is INVALID_PARTITIONS', async () => {
    await admin.createPartitions({ topicPartitions: [{ topic: 'kjs-orders', count: 5 }] });
    const { topics } = await admin.fetchTopicMetadata({ topics: ['kjs-orders'] });
    expect(topics[0].partitions).toHaveLength(5);
    await expect(admin.createPartitions({ topicPartitions: [{ topic: 'kjs-orders', count: 2 }] })).rejects.toMatchObject({
      type: 'INVALID_PARTITIONS',
    });
  });

  it('describeConfigs for a topic and for the broker', async () => {
    await admin.createTopics({
      topics: [{ topic: 'kjs-compacted', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
    });
    const res = await admin.describeConfigs({
      includeSynonyms: true,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: 'kjs-compacted', configNames: ['cleanup.policy', 'retention.ms'] },
        { type: ConfigResourceTypes.BROKER, name: '1', configNames: ['num.partitions', 'auto.create.topics.enable'] },
      ],
    });
    const topic = res.resources.find((r) => r.resourceType === ConfigResourceTypes.TOPIC)!;
    expect(topic.errorCode).toBe(0);
    const entries = new Map(topic.configEntries.map((e) => [e.configName, e]));
    expect(entries.get('cleanup.policy')).toMatchObject({ configValue: 'compact', isDefault: false, readOnly: false, configSource: 1 });
    expect(entries.get('retention.ms')).toMatchObject({ configValue: '604800000', isDefault: true, configSource: 5 });
    const broker = res.resources.find((r) => r.resourceType === ConfigResourceTypes.BROKER)!;
    expect(broker.configEntries.map((e) => [e.configName, e.configValue, e.readOnly]).sort()).toEqual([
      ['auto.create.topics.enable', 'true', true],
      ['num.partitions', '1', true],
    ]);
  });

  it('describeConfigs rejects for a topic that does not exist', async () => {
    await expect(
      admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs-missing' }] }),
    ).rejects.toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });

  it('describeCluster: this broker, its id as controller, the cluster id', async () => {
    const cluster = await admin.describeCluster();
    expect(cluster).toEqual({
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: kmock.port }],
      controller: 1,
      clusterId: 'kafkajs-admin-cluster-01',
    });
  });

  it('deleteTopics removes topics; deleting an unknown topic fails with UNKNOWN_TOPIC_OR_PARTITION', async () => {
    await admin.createTopics({ topics: [{ topic: 'kjs-temp' }] });
    await admin.deleteTopics({ topics: ['kjs-temp'] });
    expect(await admin.listTopics()).not.toContain('kjs-temp');
    // The error is retriable, so kafkajs retries it before giving up.
    await expect(admin.deleteTopics({ topics: ['kjs-temp'] })).rejects.toMatchObject({
      name: 'KafkaJSNumberOfRetriesExceeded',
      cause: { type: 'UNKNOWN_TOPIC_OR_PARTITION' },
    });
  });
});
