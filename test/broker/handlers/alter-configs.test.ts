// IncrementalAlterConfigs (44) and AlterConfigs (33) against a listening kmock, over raw frames:
// what each change leaves behind (Topic.configs, the dynamic broker layers, the loggers,
// client-metrics subscriptions) and the answers to the validation cases. Every answer asserted
// here is the one Kafka 3.9.1 gives (checked by scenarios/configs-alter.ts against a real broker).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCreateTopicsRequest, ErrorCode } from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const CLIENT_METRICS = 16;
const [SET, DELETE, APPEND, SUBTRACT] = [0, 1, 2, 3];

let kmock: Kmock;
let client: RawClient;

beforeEach(async () => {
  kmock = await startKmock({ logRetentionHours: 100, logRollHours: 100 });
  client = await RawClient.connect(kmock.bootstrapServers);
  const created = await client.request(
    19,
    7,
    createCreateTopicsRequest({ topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '3600000' }] }], timeoutMs: 5000 }),
  );
  expect(created.topics[0].errorCode).toBe(0);
});
afterEach(async () => {
  client.close();
  await kmock.close();
});

type Inc = [type: number, name: string, configs: Array<[string, number, string | null]>];
type Alt = [type: number, name: string, configs: Array<[string, string | null]>];

async function inc(resources: Inc[], validateOnly = false): Promise<Array<[number, string | null]>> {
  const r = await client.request(44, 1, {
    validateOnly,
    resources: resources.map(([resourceType, resourceName, configs]) => ({
      resourceType,
      resourceName,
      configs: configs.map(([name, configOperation, value]) => ({ name, configOperation, value })),
    })),
  });
  return r.responses.map((x, i) => {
    expect([x.resourceType, x.resourceName]).toEqual([resources[i][0], resources[i][1]]);
    return [x.errorCode, x.errorMessage];
  });
}

async function alt(resources: Alt[], validateOnly = false, version = 2): Promise<Array<[number, string | null]>> {
  const r = await client.request(33, version, {
    validateOnly,
    resources: resources.map(([resourceType, resourceName, configs]) => ({ resourceType, resourceName, configs: configs.map(([name, value]) => ({ name, value })) })),
  });
  return r.responses.map((x) => [x.errorCode, x.errorMessage]);
}

async function describeConfigs(type: number, name: string, keys: string[] | null) {
  const r = await client.request(32, 4, { resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
  return r.results[0];
}

const topicConfigs = () => Object.fromEntries(kmock.broker.topics.get('t')!.configs);
const OK: [number, null] = [0, null];

describe('topics', () => {
  it('SET, APPEND, SUBTRACT, DELETE change Topic.configs (stored as LogConfig parses them); validateOnly changes nothing', async () => {
    expect(await inc([[TOPIC, 't', [['segment.bytes', SET, ' 2000000 '], ['cleanup.policy', APPEND, 'compact'], ['retention.ms', DELETE, null]]]])).toEqual([OK]);
    expect(topicConfigs()).toEqual({ 'segment.bytes': '2000000', 'cleanup.policy': 'delete,compact' });
    expect(await inc([[TOPIC, 't', [['cleanup.policy', SUBTRACT, 'delete,other']]]])).toEqual([OK]);
    expect(topicConfigs()['cleanup.policy']).toBe('compact');
    expect(await inc([[TOPIC, 't', [['segment.bytes', DELETE, null], ['retention.ms', SET, '5']]]], true)).toEqual([OK]);
    expect(topicConfigs()).toEqual({ 'segment.bytes': '2000000', 'cleanup.policy': 'compact' });
  });

  it('AlterConfigs replaces the topic\'s configs', async () => {
    expect(await alt([[TOPIC, 't', [['cleanup.policy', 'compact']]]], false, 0)).toEqual([OK]);
    expect(topicConfigs()).toEqual({ 'cleanup.policy': 'compact' });
    expect(await alt([[TOPIC, 't', []]])).toEqual([OK]);
    expect(topicConfigs()).toEqual({});
  });

  it('refuses as the controller does', async () => {
    expect(await inc([[TOPIC, 't', [['retention.ms', APPEND, '1']]]])).toEqual([[ErrorCode.INVALID_CONFIG, "Can't APPEND to key retention.ms because its type is not LIST."]]);
    expect(await inc([[TOPIC, 't', [['zzz', SET, '1'], ['yyy', SET, '2']]]])).toEqual([[ErrorCode.INVALID_CONFIG, 'Unknown topic config name: yyy']]);
    expect(await inc([[TOPIC, 'missing', [['retention.ms', SET, '1']]]])).toEqual([[ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing' does not exist."]]);
    expect(await inc([[TOPIC, 'missing', [['retention.ms', SET, 'x']]]])).toEqual([
      [ErrorCode.INVALID_CONFIG, 'Invalid value x for configuration retention.ms: Not a number of type LONG'],
    ]);
    expect(await inc([[TOPIC, '', []]])).toEqual([[ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.']]);
    expect(await inc([[TOPIC, 't', [['retention.ms', SET, '1'], ['retention.ms', SET, '2']]]])).toEqual([[ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys']]);
    expect(await inc([[TOPIC, 't', [['retention.ms', SET, null]]]])).toEqual([[ErrorCode.INVALID_REQUEST, 'Null value not supported for : retention.ms']]);
    expect(await inc([[TOPIC, 't', [['min.compaction.lag.ms', SET, '10'], ['max.compaction.lag.ms', SET, '5']]]])).toEqual([
      [ErrorCode.INVALID_CONFIG, 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)'],
    ]);
    expect(topicConfigs()).toEqual({ 'retention.ms': '3600000' });
  });

  it('an unknown operation fails every resource the controller gets, and changes nothing', async () => {
    expect(
      await inc([
        [TOPIC, 't', [['retention.ms', 7, '1']]],
        [BROKER, '', [['log.segment.bytes', SET, '50000000']]],
        [BROKER_LOGGER, '1', [['root', SET, 'WARN']]],
      ]),
    ).toEqual([[ErrorCode.UNKNOWN_SERVER_ERROR, null], [ErrorCode.UNKNOWN_SERVER_ERROR, null], OK]);
    expect(kmock.broker.dynamicConfigs.clusterDefault.size).toBe(0);
  });

  it('a resource given twice is refused, and AlterConfigs answers it (Kafka 3.9.1 never does)', async () => {
    const dup: [number, string] = [ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.'];
    expect(await inc([[TOPIC, 't', []], [TOPIC, 't', []]])).toEqual([dup, dup]);
    expect(await alt([[TOPIC, 't', []], [BROKER, '1', []], [TOPIC, 't', []]])).toEqual([dup, OK, dup]);
  });
});

describe('brokers', () => {
  it('broker "1" and the cluster default "" are the two dynamic layers; "01" names this broker but is never applied', async () => {
    expect(await inc([[BROKER, '1', [['log.retention.ms', SET, '100000']]], [BROKER, '', [['log.retention.ms', SET, '200000']]]])).toEqual([OK, OK]);
    const dynamic = kmock.broker.dynamicConfigs;
    expect([...dynamic.perBroker]).toEqual([['log.retention.ms', '100000']]);
    expect([...dynamic.clusterDefault]).toEqual([['log.retention.ms', '200000']]);
    expect(kmock.broker.logDefaults.get('retention.ms')).toBe('100000');
    expect(await inc([[BROKER, '01', [['message.max.bytes', SET, '2000']]]])).toEqual([OK]);
    expect(dynamic.perBroker.has('message.max.bytes')).toBe(false);
    expect(kmock.broker.logDefaults.get('max.message.bytes')).toBe('1048588');
    const described = await describeConfigs(BROKER, '01', ['message.max.bytes']);
    expect(described.configs[0]).toMatchObject({ value: '1048588', configSource: 5 });
  });

  it('AlterConfigs replaces a layer; the one under it shows through', async () => {
    expect(await alt([[BROKER, '1', [['log.retention.ms', '5000']]], [BROKER, '', [['log.retention.ms', '7000'], ['num.io.threads', '9']]]])).toEqual([OK, OK]);
    expect(await alt([[BROKER, '1', [['log.segment.bytes', '100000001']]]])).toEqual([OK]);
    expect((await describeConfigs(BROKER, '1', ['log.retention.ms'])).configs[0]).toMatchObject({
      value: '7000',
      configSource: 3,
      synonyms: [
        { name: 'log.retention.ms', value: '7000', source: 3 },
        { name: 'log.retention.hours', value: '100', source: 4 },
        { name: 'log.retention.hours', value: '168', source: 5 },
      ],
    });
    expect((await describeConfigs(BROKER, '', null)).configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['log.retention.ms', '7000', 3],
      ['num.io.threads', '9', 3],
    ]);
  });

  it('CreateTopics v5 effective configs follow the layers, hours converted to ms', async () => {
    expect(await inc([[BROKER, '1', [['log.retention.ms', SET, '100000']]], [BROKER, '', [['compression.type', SET, 'gzip']]]])).toEqual([OK, OK]);
    const r = await client.request(19, 5, createCreateTopicsRequest({ topics: [{ name: 'n', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }));
    const configs = new Map(r.topics[0].configs!.map((c) => [c.name, [c.value, c.configSource]]));
    expect(configs.get('retention.ms')).toEqual(['100000', 2]);
    expect(configs.get('compression.type')).toEqual(['gzip', 3]);
    expect(configs.get('segment.ms')).toEqual(['360000000', 4]);
    expect(configs.get('segment.bytes')).toEqual(['1073741824', 5]);
  });

  it('refuses as the broker does (INVALID_REQUEST with the ConfigException\'s text)', async () => {
    const refused = (message: string): [number, string] => [ErrorCode.INVALID_REQUEST, message];
    const wrapped = (m: string) => refused(`Invalid value org.apache.kafka.common.config.ConfigException: ${m} for configuration Invalid dynamic configuration`);
    expect(await inc([[BROKER, '2', []]])).toEqual([refused('Unexpected broker id, expected 1, but received 2')]);
    expect(await inc([[BROKER, '1', [['log.retention.hours', SET, '1']]]])).toEqual([refused('Cannot update these configs dynamically: Set(log.retention.hours)')]);
    expect(await inc([[BROKER, '', [['listeners', SET, 'PLAINTEXT://:9092']]]])).toEqual([
      refused('Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)'),
    ]);
    expect(await inc([[BROKER, '1', [['message.max.bytes', APPEND, '1']]]])).toEqual([[ErrorCode.INVALID_CONFIG, 'Config value append is not allowed for config key: message.max.bytes']]);
    expect(await inc([[BROKER, '1', [['kmock.unknown', APPEND, '1']]]])).toEqual([[ErrorCode.UNKNOWN_SERVER_ERROR, null]]);
    expect(await inc([[BROKER, '1', [['log.roll.ms', SET, '0']]]])).toEqual([refused('requirement failed: log.roll.ms must be greater than or equal to 1')]);
    expect(await inc([[BROKER, '1', [['log.cleaner.threads', SET, '0']]]])).toEqual([refused('/ by zero')]);
    expect(await inc([[BROKER, '1', [['num.io.threads', SET, '100']]]])).toEqual([
      wrapped('Dynamic thread count update validation failed for num.io.threads=100, value should not be greater than double the current value 8'),
    ]);
    expect(await inc([[BROKER, '1', [['log.local.retention.ms', SET, '-1']]]])).toEqual([
      wrapped('Invalid value -1 for configuration log.local.retention.ms: Value must not be -1 as log.retention.ms value is set as 360000000.'),
    ]);
    // The thread count is checked against the current value, dynamic layers included.
    expect(await inc([[BROKER, '', [['num.io.threads', SET, '16']]]])).toEqual([OK]);
    expect(await inc([[BROKER, '1', [['num.io.threads', SET, '32']]]])).toEqual([OK]);
    expect(await inc([[BROKER, '1', [['num.io.threads', SET, '7']]]])).toEqual([
      wrapped('Dynamic thread count update validation failed for num.io.threads=7, value should be at least half the current value 32'),
    ]);
    // Configs Kafka accepts but kmock does not apply are kept and described.
    expect(await inc([[BROKER, '1', [['leader.replication.throttled.rate', SET, '1000'], ['kmock.custom', SET, 'x']]]])).toEqual([OK]);
    const described = await describeConfigs(BROKER, '1', ['leader.replication.throttled.rate', 'kmock.custom']);
    expect(described.configs.map((c) => [c.name, c.value, c.readOnly, c.isSensitive, c.configType])).toEqual([
      ['kmock.custom', null, true, true, 0],
      ['leader.replication.throttled.rate', '1000', true, false, 5],
    ]);
  });
});

describe('broker loggers and client metrics', () => {
  it('sets and unsets a logger level; refuses a level Kafka does not know', async () => {
    expect(await inc([[BROKER_LOGGER, '1', [['kafka', SET, 'DEBUG'], ['kafka.controller', DELETE, null]]]])).toEqual([OK]);
    const r = await describeConfigs(BROKER_LOGGER, '1', ['kafka', 'kafka.controller']);
    expect(r.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['kafka', 'DEBUG', 6],
      ['kafka.controller', 'DEBUG', 6],
    ]);
    expect(await inc([[BROKER_LOGGER, '1', [['kafka', SET, 'debug']]]])).toEqual([
      [ErrorCode.INVALID_CONFIG, 'Cannot set the log level of kafka to debug as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN'],
    ]);
    expect(await alt([[BROKER_LOGGER, '1', []]])).toEqual([[ErrorCode.INVALID_REQUEST, 'Unknown resource type 8']]);
  });

  it('keeps client-metrics subscriptions and describes them', async () => {
    expect(await alt([[CLIENT_METRICS, 'sub', [['interval.ms', '1000'], ['match', 'client_id=x.*']]]])).toEqual([OK]);
    expect((await describeConfigs(CLIENT_METRICS, 'sub', ['match'])).configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['interval.ms', '1000', 7],
      ['match', 'client_id=x.*', 7],
    ]);
    expect(await alt([[CLIENT_METRICS, 'sub', [['interval.ms', '50']]]])).toEqual([
      [ErrorCode.INVALID_REQUEST, 'Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)'],
    ]);
    expect(await inc([[CLIENT_METRICS, 'sub', [['interval.ms', DELETE, null], ['match', DELETE, null]]]])).toEqual([OK]);
    expect(kmock.broker.dynamicConfigs.clientMetrics.has('sub')).toBe(false);
  });
});
