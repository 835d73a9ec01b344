// DescribeConfigs (32) against a listening kmock, over raw frames: topic and broker resources as
// Kafka 3.9's ConfigHelper describes them, per version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCreateTopicsRequest,
  createDescribeConfigsRequest,
  type DescribeConfigsResponse,
  type DescribeConfigsRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const INVALID_REQUEST_MESSAGE =
  'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.';

/** Kafka 3.9's topic configs (LogConfig). */
const TOPIC_CONFIG_NAMES = [
  'cleanup.policy', 'compression.gzip.level', 'compression.lz4.level', 'compression.type', 'compression.zstd.level',
  'delete.retention.ms', 'file.delete.delay.ms', 'flush.messages', 'flush.ms', 'follower.replication.throttled.replicas',
  'index.interval.bytes', 'leader.replication.throttled.replicas', 'local.retention.bytes', 'local.retention.ms',
  'max.compaction.lag.ms', 'max.message.bytes', 'message.downconversion.enable', 'message.format.version',
  'message.timestamp.after.max.ms', 'message.timestamp.before.max.ms', 'message.timestamp.difference.max.ms',
  'message.timestamp.type', 'min.cleanable.dirty.ratio', 'min.compaction.lag.ms', 'min.insync.replicas', 'preallocate',
  'remote.log.copy.disable', 'remote.log.delete.on.disable', 'remote.storage.enable', 'retention.bytes', 'retention.ms',
  'segment.bytes', 'segment.index.bytes', 'segment.jitter.ms', 'segment.ms', 'unclean.leader.election.enable',
];

let kmock: Kmock;
let client: RawClient;

async function start(options: KmockOptions = {}): Promise<void> {
  kmock = await startKmock(options);
  client = await RawClient.connect(kmock.bootstrapServers);
  const res = await client.request(
    19,
    7,
    createCreateTopicsRequest({
      topics: [
        {
          name: 'orders',
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: [
            { name: 'retention.ms', value: ' 86400000 ' },
            { name: 'cleanup.policy', value: 'compact , delete' },
            { name: 'min.cleanable.dirty.ratio', value: '0.250' },
            { name: 'unclean.leader.election.enable', value: 'TRUE' },
          ],
        },
      ],
      timeoutMs: 30000,
    }),
  );
  expect(res.topics[0].errorCode).toBe(0);
}

beforeEach(async () => start());
afterEach(async () => {
  client.close();
  await kmock.close();
});

function resource(resourceType: number, resourceName: string, configurationKeys: string[] | null = null): DescribeConfigsRequest.Resource {
  return { resourceType, resourceName, configurationKeys };
}

function describeConfigs(
  resources: DescribeConfigsRequest.Resource[],
  version = 4,
  opts: { includeSynonyms?: boolean; includeDocumentation?: boolean } = {},
): Promise<DescribeConfigsResponse> {
  return client.request(32, version, createDescribeConfigsRequest({ resources, ...opts }));
}

describe('DescribeConfigs: topics', () => {
  for (let v = 0; v <= 4; v++) {
    it(`v${v}: every topic config, overrides as TOPIC_CONFIG, the rest as DEFAULT_CONFIG`, async () => {
      const res = await describeConfigs([resource(TOPIC, 'orders')], v, { includeSynonyms: v >= 1, includeDocumentation: v >= 3 });
      const [r] = res.results;
      expect([r.errorCode, r.errorMessage, r.resourceType, r.resourceName]).toEqual([0, '', TOPIC, 'orders']);
      expect(r.configs.map((c) => c.name)).toEqual(TOPIC_CONFIG_NAMES);
      const byName = new Map(r.configs.map((c) => [c.name, c]));
      const retention = byName.get('retention.ms')!;
      expect(retention.value).toBe('86400000');
      expect(retention.readOnly).toBe(false);
      expect(retention.isSensitive).toBe(false);
      expect(byName.get('cleanup.policy')!.value).toBe('compact,delete');
      expect(byName.get('min.cleanable.dirty.ratio')!.value).toBe('0.25');
      expect(byName.get('unclean.leader.election.enable')!.value).toBe('true');
      expect(byName.get('segment.bytes')!.value).toBe('1073741824');
      expect(byName.get('max.message.bytes')!.value).toBe('1048588');
      expect(byName.get('message.timestamp.type')!.value).toBe('CreateTime');
      expect(byName.get('compression.type')!.value).toBe('producer');
      expect(byName.get('min.insync.replicas')!.value).toBe('1');
      if (v === 0) {
        // Kafka 3.9 never sets IsDefault: v0 says false for every entry.
        for (const c of r.configs) expect(c.isDefault).toBe(false);
      } else {
        expect(retention.configSource).toBe(1);
        expect(retention.synonyms).toEqual([{ name: 'retention.ms', value: '86400000', source: 1 }]);
        const segment = byName.get('segment.bytes')!;
        expect(segment.configSource).toBe(5);
        expect(segment.synonyms).toEqual([{ name: 'log.segment.bytes', value: '1073741824', source: 5 }]);
        // log.retention.ms has no default (log.retention.hours gives it): no synonym, DEFAULT_CONFIG.
        expect(byName.get('segment.ms')).toMatchObject({ value: '604800000', configSource: 5, synonyms: [] });
        expect(byName.get('remote.storage.enable')).toMatchObject({ value: 'false', configSource: 5, synonyms: [] });
      }
      if (v >= 3) {
        expect(retention.configType).toBe(5);
        expect(byName.get('cleanup.policy')!.configType).toBe(7);
        expect(byName.get('segment.bytes')!.configType).toBe(3);
        expect(byName.get('min.cleanable.dirty.ratio')!.configType).toBe(6);
        expect(byName.get('preallocate')!.configType).toBe(1);
        expect(byName.get('compression.type')!.configType).toBe(2);
        expect(retention.documentation).toMatch(/^This configuration controls the maximum time we will retain a log/);
      }
    });
  }

  it('synonyms and documentation only when asked', async () => {
    const res = await describeConfigs([resource(TOPIC, 'orders', ['retention.ms', 'segment.bytes'])], 4);
    expect(res.results[0].configs.map((c) => [c.name, c.configSource, c.synonyms, c.documentation])).toEqual([
      ['retention.ms', 1, [], null],
      ['segment.bytes', 5, [], null],
    ]);
  });

  it('only the requested keys (unknown ones are ignored); null or empty means all', async () => {
    const res = await describeConfigs([
      resource(TOPIC, 'orders', ['max.message.bytes', 'no.such.config']),
      resource(TOPIC, 'orders', []),
    ]);
    expect(res.results[0].configs.map((c) => c.name)).toEqual(['max.message.bytes']);
    expect(res.results[1].configs).toHaveLength(TOPIC_CONFIG_NAMES.length);
  });

  it('prints values as Java does (Double.toString, Long, trimmed strings)', async () => {
    const res = await client.request(
      19,
      7,
      createCreateTopicsRequest({
        topics: [
          {
            name: 'java-values',
            numPartitions: 1,
            replicationFactor: 1,
            assignments: [],
            configs: [
              { name: 'min.cleanable.dirty.ratio', value: '0.00001' },
              { name: 'max.compaction.lag.ms', value: '+9223372036854775807' },
              { name: 'compression.type', value: ' lz4 ' },
              { name: 'follower.replication.throttled.replicas', value: '*' },
            ],
          },
        ],
        timeoutMs: 30000,
      }),
    );
    expect(res.topics[0].errorCode).toBe(0);
    const d = await describeConfigs([
      resource(TOPIC, 'java-values', ['min.cleanable.dirty.ratio', 'max.compaction.lag.ms', 'compression.type', 'follower.replication.throttled.replicas']),
    ]);
    expect(d.results[0].configs.map((c) => [c.name, c.value])).toEqual([
      ['compression.type', 'lz4'],
      ['follower.replication.throttled.replicas', '*'],
      ['max.compaction.lag.ms', '9223372036854775807'],
      ['min.cleanable.dirty.ratio', '1.0E-5'],
    ]);
  });

  it('a broker setting shows through as STATIC_BROKER_CONFIG', async () => {
    client.close();
    await kmock.close();
    await start({ logMessageTimestampType: 'LogAppendTime' });
    const res = await describeConfigs([resource(TOPIC, 'orders', ['message.timestamp.type'])], 4, { includeSynonyms: true });
    expect(res.results[0].configs[0]).toMatchObject({
      value: 'LogAppendTime',
      configSource: 4,
      synonyms: [
        { name: 'log.message.timestamp.type', value: 'LogAppendTime', source: 4 },
        { name: 'log.message.timestamp.type', value: 'CreateTime', source: 5 },
      ],
    });
  });

  it('UNKNOWN_TOPIC_OR_PARTITION (empty message, as 3.9.1) for a missing topic, INVALID_TOPIC_EXCEPTION for an illegal name', async () => {
    const res = await describeConfigs([resource(TOPIC, 'missing'), resource(TOPIC, 'bad name'), resource(TOPIC, '')]);
    expect(res.results.map((r) => [r.resourceName, r.errorCode, r.errorMessage, r.configs.length])).toEqual([
      ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '', 0],
      ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", 0],
      ['', ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name is invalid: the empty string is not allowed', 0],
    ]);
  });
});

describe('DescribeConfigs: the broker', () => {
  it('describes this node by id: values, readOnly, sources and synonyms', async () => {
    const res = await describeConfigs([resource(BROKER, '1')], 4, { includeSynonyms: true, includeDocumentation: true });
    const [r] = res.results;
    expect([r.errorCode, r.errorMessage]).toEqual([0, '']);
    const byName = new Map(r.configs.map((c) => [c.name, c]));
    for (const name of [
      'num.partitions', 'auto.create.topics.enable', 'default.replication.factor', 'delete.topic.enable',
      'group.initial.rebalance.delay.ms', 'group.min.session.timeout.ms', 'group.max.session.timeout.ms', 'group.max.size',
      'offsets.retention.minutes', 'log.retention.hours', 'message.max.bytes', 'node.id', 'broker.id', 'process.roles',
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get('num.partitions')).toMatchObject({
      value: '1',
      readOnly: true,
      configSource: 5,
      isSensitive: false,
      synonyms: [{ name: 'num.partitions', value: '1', source: 5 }],
      configType: 3,
    });
    expect(byName.get('num.partitions')!.documentation).toBe('The default number of log partitions per topic');
    expect(byName.get('node.id')).toMatchObject({
      value: '1',
      configSource: 4,
      synonyms: [
        { name: 'node.id', value: '1', source: 4 },
        { name: 'node.id', value: '-1', source: 5 },
      ],
    });
    expect(byName.get('group.max.size')).toMatchObject({ value: '2147483647', configSource: 5 });
    expect(byName.get('message.max.bytes')).toMatchObject({ value: '1048588', readOnly: false });
    expect(byName.get('log.retention.ms')).toMatchObject({ value: null, configSource: 5, synonyms: [] });
    expect(byName.get('log.retention.hours')).toMatchObject({
      value: '168',
      configSource: 5,
      synonyms: [{ name: 'log.retention.hours', value: '168', source: 5 }],
    });
    expect(byName.get('listeners')!.value).toBe(`PLAINTEXT://127.0.0.1:${kmock.port}`);
  });

  it('says readOnly=false for the thread pools Kafka resizes at runtime (DynamicThreadPool.ReconfigurableConfigs)', async () => {
    // Kafka 3.9.1 answers num.network.threads readOnly=false like the other pool sizes
    // (conformance run testDescribeConfigsForBrokerV2V3); kmock said true.
    const keys = ['num.network.threads', 'num.io.threads', 'background.threads', 'num.recovery.threads.per.data.dir', 'socket.send.buffer.bytes'];
    const res = await describeConfigs([resource(BROKER, '1', keys)], 3);
    expect(res.results[0].configs.map((c) => [c.name, c.value, c.readOnly])).toEqual([
      ['background.threads', '10', false],
      ['num.io.threads', '8', false],
      ['num.network.threads', '3', false],
      ['num.recovery.threads.per.data.dir', '1', false],
      ['socket.send.buffer.bytes', '102400', true],
    ]);
  });

  it('reports kmock settings that differ from Kafka defaults as STATIC_BROKER_CONFIG', async () => {
    client.close();
    await kmock.close();
    await start({ numPartitions: 3, autoCreateTopicsEnable: false, nodeId: 7 });
    const res = await describeConfigs([resource(BROKER, '7', ['num.partitions', 'auto.create.topics.enable'])], 2, { includeSynonyms: true });
    expect(res.results[0].configs.map((c) => [c.name, c.value, c.configSource, c.synonyms])).toEqual([
      ['auto.create.topics.enable', 'false', 4, [{ name: 'auto.create.topics.enable', value: 'false', source: 4 }, { name: 'auto.create.topics.enable', value: 'true', source: 5 }]],
      ['num.partitions', '3', 4, [{ name: 'num.partitions', value: '3', source: 4 }, { name: 'num.partitions', value: '1', source: 5 }]],
    ]);
  });

  it('"" is the cluster default resource (no dynamic defaults); another id or a non-number is INVALID_REQUEST', async () => {
    const res = await describeConfigs([resource(BROKER, ''), resource(BROKER, '2'), resource(BROKER, 'one')], 1);
    expect(res.results.map((r) => [r.resourceName, r.errorCode, r.errorMessage, r.configs.length])).toEqual([
      ['', 0, '', 0],
      ['2', ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1 or empty string, but received 2', 0],
      ['one', ErrorCode.INVALID_REQUEST, 'Broker id must be an integer, but it is: one', 0],
    ]);
  });

  it('broker loggers of this node', async () => {
    const res = await describeConfigs([resource(BROKER_LOGGER, '1', ['root']), resource(BROKER_LOGGER, ''), resource(BROKER_LOGGER, '3')]);
    // ConfigHelper leaves a logger's documentation at the field's default, "" (as Kafka 3.9.1 sends it).
    expect(res.results[0].configs).toEqual([
      { name: 'root', value: 'INFO', readOnly: false, isDefault: false, configSource: 6, isSensitive: false, synonyms: [], configType: 0, documentation: '' },
    ]);
    expect(res.results.slice(1).map((r) => [r.errorCode, r.errorMessage])).toEqual([
      [ErrorCode.INVALID_REQUEST, 'Broker id must not be empty'],
      [ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1 but received 3'],
    ]);
  });
});

describe('DescribeConfigs: unknown resource types', () => {
  it('fail the whole request: INVALID_REQUEST with the default message for every resource', async () => {
    for (const v of [0, 4]) {
      const res = await describeConfigs([resource(TOPIC, 'orders'), resource(3, 'group'), resource(BROKER, '1')], v);
      expect(res.results.map((r) => [r.resourceType, r.resourceName, r.errorCode, r.errorMessage, r.configs])).toEqual([
        [TOPIC, 'orders', ErrorCode.INVALID_REQUEST, INVALID_REQUEST_MESSAGE, []],
        [3, 'group', ErrorCode.INVALID_REQUEST, INVALID_REQUEST_MESSAGE, []],
        [BROKER, '1', ErrorCode.INVALID_REQUEST, INVALID_REQUEST_MESSAGE, []],
      ]);
    }
  });
});
