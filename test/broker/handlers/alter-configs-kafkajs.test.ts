// AlterConfigs and DescribeConfigs through an unmodified kafkajs 2.2.4 admin client: a topic's
// configs replaced, the broker's changed, each described with its source and synonyms; and the
// change taking effect: a message.max.bytes lowered at run time refuses a batch the topic
// accepted a moment before. (kafkajs refuses an empty resource name, so the cluster default is
// set through the same AlterConfigs request sent by a raw client; kafkajs reports an error by its
// type, with Errors.java's default text rather than the broker's message.)
import { ConfigResourceTypes, ConfigSource, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let admin: Admin;
let producer: Producer;

beforeAll(async () => {
  kmock = await startKmock();
  const kafka = new Kafka({ clientId: 'kmock-alter-configs-test', brokers: [kmock.bootstrapServers], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer();
  await producer.connect();
});
afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
  await kmock.close();
});

/** The cluster-wide default configs replaced with `configs` (AlterConfigs v0, resource ""). */
async function setClusterDefault(configs: Record<string, string>): Promise<void> {
  const raw = await RawClient.connect(kmock.bootstrapServers);
  try {
    const res = await raw.request(33, 0, {
      validateOnly: false,
      resources: [{ resourceType: 4, resourceName: '', configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    });
    expect(res.responses).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 4, resourceName: '' }]);
  } finally {
    raw.close();
  }
}

/** One config of a DescribeConfigs answer, as kafkajs gives it. */
async function described(type: ConfigResourceTypes, name: string, configName: string) {
  const { resources } = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type, name, configNames: [configName] }] });
  return resources[0].configEntries[0];
}

describe('kafkajs admin.alterConfigs / describeConfigs', () => {
  it('replaces a topic\'s configs (those not given are removed) and describes the overrides', async () => {
    await admin.createTopics({ topics: [{ topic: 'kjs-alter', configEntries: [{ name: 'retention.ms', value: '3600000' }] }] });
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs-alter', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
    });
    expect(await described(ConfigResourceTypes.TOPIC, 'kjs-alter', 'cleanup.policy')).toMatchObject({
      configValue: 'compact',
      configSource: ConfigSource.TOPIC_CONFIG,
      configSynonyms: [
        { configName: 'cleanup.policy', configValue: 'compact', configSource: ConfigSource.TOPIC_CONFIG },
        { configName: 'log.cleanup.policy', configValue: 'delete', configSource: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    // retention.ms was not given: back to the broker's value.
    expect(await described(ConfigResourceTypes.TOPIC, 'kjs-alter', 'retention.ms')).toMatchObject({
      configValue: '604800000',
      configSource: ConfigSource.DEFAULT_CONFIG,
    });
  });

  it('refuses an unknown topic config and an unknown topic with Kafka\'s errors', async () => {
    await expect(
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs-alter', configEntries: [{ name: 'no.such.config', value: '1' }] }] }),
    ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });
    await expect(
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs-missing', configEntries: [{ name: 'retention.ms', value: '1' }] }] }),
    ).rejects.toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });

  it('changes broker 1 (and the cluster default); the topic follows them, layer by layer', async () => {
    await setClusterDefault({ 'log.retention.ms': '200000' });
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'log.retention.ms', value: '100000' }] }],
    });
    expect(await described(ConfigResourceTypes.BROKER, '1', 'log.retention.ms')).toMatchObject({
      configValue: '100000',
      readOnly: false,
      configSource: ConfigSource.DYNAMIC_BROKER_CONFIG,
      configSynonyms: [
        { configName: 'log.retention.ms', configValue: '100000', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG },
        { configName: 'log.retention.ms', configValue: '200000', configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG },
        { configName: 'log.retention.hours', configValue: '168', configSource: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(await described(ConfigResourceTypes.TOPIC, 'kjs-alter', 'retention.ms')).toMatchObject({ configValue: '100000', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG });
    // Broker 1's configs replaced with none: the cluster default shows through.
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [] }] });
    expect(await described(ConfigResourceTypes.TOPIC, 'kjs-alter', 'retention.ms')).toMatchObject({
      configValue: '200000',
      configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    });
    await setClusterDefault({});
    expect(kmock.broker.logDefaults.get('retention.ms')).toBe('604800000');
  });

  it('refuses a broker config that cannot change at run time', async () => {
    await expect(
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'log.retention.hours', value: '1' }] }] }),
    ).rejects.toMatchObject({ type: 'INVALID_REQUEST' });
  });

  it('a broker message.max.bytes lowered at run time refuses what it accepted before', async () => {
    await admin.createTopics({ topics: [{ topic: 'kjs-max-bytes' }] });
    const big = { topic: 'kjs-max-bytes', messages: [{ value: 'x'.repeat(5000) }] };
    await producer.send(big);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'message.max.bytes', value: '1000' }] }] });
    await expect(producer.send(big)).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
    // A topic override wins over the broker's value.
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'kjs-max-bytes', configEntries: [{ name: 'max.message.bytes', value: '100000' }] }],
    });
    await producer.send(big);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [] }] });
  });
});
