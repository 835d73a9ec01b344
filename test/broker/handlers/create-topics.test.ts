// CreateTopics (19) against a listening kmock, over raw frames: the error codes and messages of
// Kafka 3.9 in KRaft mode (ControllerApis.createTopics, ReplicationControlManager.createTopics,
// LogConfig.validate), per version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCreateTopicsRequest, createMetadataRequest, type CreateTopicsResponse, CreateTopicsRequest, ErrorCode, ZERO_UUID } from '../../../src/codec/index.js';
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

function topic(name: string, init: Partial<CreateTopicsRequest.CreatableTopic> = {}): CreateTopicsRequest.CreatableTopic {
  return CreateTopicsRequest.createCreatableTopic({ name, numPartitions: 1, replicationFactor: 1, ...init });
}

async function create(
  topics: CreateTopicsRequest.CreatableTopic[],
  version = 7,
  opts: { validateOnly?: boolean; timeoutMs?: number } = {},
): Promise<CreateTopicsResponse> {
  return client.request(19, version, createCreateTopicsRequest({ topics, timeoutMs: 30000, ...opts }));
}

async function createOne(t: CreateTopicsRequest.CreatableTopic, version = 7) {
  const res = await create([t], version);
  expect(res.topics).toHaveLength(1);
  return res.topics[0];
}

async function metadataTopic(name: string) {
  const md = await client.request(3, 12, createMetadataRequest({ topics: [{ name, topicId: ZERO_UUID }], allowAutoTopicCreation: false }));
  return md.topics[0];
}

describe('CreateTopics: success', () => {
  for (let v = 0; v <= 7; v++) {
    it(`creates a topic at v${v} and answers with the fields of v${v}`, async () => {
      const r = await createOne(topic(`topic-v${v}`, { numPartitions: 3, configs: [{ name: 'retention.ms', value: '1000' }] }), v);
      expect(r.name).toBe(`topic-v${v}`);
      expect(r.errorCode).toBe(0);
      if (v >= 1) expect(r.errorMessage).toBeNull();
      const md = await metadataTopic(`topic-v${v}`);
      expect(md.errorCode).toBe(0);
      expect(md.partitions).toHaveLength(3);
      if (v >= 5) {
        expect(r.numPartitions).toBe(3);
        expect(r.replicationFactor).toBe(1);
        expect(r.topicConfigErrorCode).toBe(0);
        const names = r.configs!.map((c) => c.name);
        expect(names).toEqual([...names].sort());
        expect(names).toHaveLength(36);
        expect(r.configs!.find((c) => c.name === 'retention.ms')).toEqual({
          name: 'retention.ms',
          value: '1000',
          readOnly: false,
          configSource: 1,
          isSensitive: false,
        });
        expect(r.configs!.find((c) => c.name === 'cleanup.policy')).toEqual({
          name: 'cleanup.policy',
          value: 'delete',
          readOnly: false,
          configSource: 5,
          isSensitive: false,
        });
      } else {
        expect(r.numPartitions).toBe(-1);
        expect(r.replicationFactor).toBe(-1);
      }
      if (v >= 7) {
        expect(r.topicId).not.toBe(ZERO_UUID);
        expect(r.topicId).toBe(md.topicId);
      } else {
        expect(r.topicId).toBe(ZERO_UUID);
      }
    });
  }

  it('uses num.partitions and default.replication.factor for -1', async () => {
    client.close();
    await kmock.close();
    await start({ numPartitions: 4 });
    const r = await createOne(topic('defaults', { numPartitions: -1, replicationFactor: -1 }));
    expect(r.errorCode).toBe(0);
    expect(r.numPartitions).toBe(4);
    expect(r.replicationFactor).toBe(1);
    expect((await metadataTopic('defaults')).partitions).toHaveLength(4);
  });

  it('creates from manual assignments (numPartitions and replicationFactor -1)', async () => {
    const r = await createOne(
      topic('assigned', {
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          { partitionIndex: 1, brokerIds: [1] },
          { partitionIndex: 0, brokerIds: [1] },
        ],
      }),
    );
    expect(r.errorCode).toBe(0);
    expect(r.numPartitions).toBe(2);
    expect(r.replicationFactor).toBe(1);
    expect((await metadataTopic('assigned')).partitions).toHaveLength(2);
  });

  it('returns the configs as given, and the broker static setting as STATIC_BROKER_CONFIG', async () => {
    client.close();
    await kmock.close();
    await start({ logMessageTimestampType: 'LogAppendTime' });
    const r = await createOne(topic('cfg', { configs: [{ name: 'cleanup.policy', value: 'compact, delete' }] }), 5);
    expect(r.errorCode).toBe(0);
    const byName = new Map(r.configs!.map((c) => [c.name, c]));
    expect(byName.get('cleanup.policy')).toMatchObject({ value: 'compact, delete', configSource: 1 });
    expect(byName.get('message.timestamp.type')).toMatchObject({ value: 'LogAppendTime', configSource: 4 });
    expect(byName.get('max.message.bytes')).toMatchObject({ value: '1048588', configSource: 5 });
    expect(byName.get('min.cleanable.dirty.ratio')).toMatchObject({ value: '0.5', configSource: 5 });
    expect(byName.get('leader.replication.throttled.replicas')).toMatchObject({ value: '', configSource: 5 });
  });

  it('validateOnly validates and answers like a creation, but creates nothing', async () => {
    const res = await create([topic('dry', { numPartitions: 2 })], 7, { validateOnly: true });
    const r = res.topics[0];
    expect(r.errorCode).toBe(0);
    expect(r.numPartitions).toBe(2);
    expect(r.topicId).not.toBe(ZERO_UUID);
    expect((await metadataTopic('dry')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const bad = await create([topic('dry', { numPartitions: 0 })], 7, { validateOnly: true });
    expect(bad.topics[0].errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
  });

  it('an empty request gets an empty answer', async () => {
    expect((await create([])).topics).toEqual([]);
  });
});

describe('CreateTopics: names', () => {
  it('TOPIC_ALREADY_EXISTS with Kafka message', async () => {
    await createOne(topic('exists'));
    for (const v of [0, 1, 4, 7]) {
      const r = await createOne(topic('exists'), v);
      expect(r.errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
      if (v >= 1) expect(r.errorMessage).toBe("Topic 'exists' already exists.");
      expect(r.topicId).toBe(ZERO_UUID);
      expect(r.numPartitions).toBe(-1);
    }
  });

  it('INVALID_TOPIC_EXCEPTION for illegal names, with Topic.validate messages', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Topic name is invalid: the empty string is not allowed'],
      ['.', "Topic name is invalid: '.' is not allowed"],
      ['..', "Topic name is invalid: '..' is not allowed"],
      ['has space', "Topic name is invalid: 'has space' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"],
      ['x'.repeat(250), `Topic name is invalid: the length of '${'x'.repeat(250)}' is longer than the max allowed length 249`],
    ];
    for (const [name, message] of cases) {
      const r = await createOne(topic(name));
      expect(r.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
      expect(r.errorMessage).toBe(message);
    }
    expect((await createOne(topic('x'.repeat(249)))).errorCode).toBe(0);
  });

  it("INVALID_TOPIC_EXCEPTION when the name collides with an existing one on '.' vs '_'", async () => {
    await createOne(topic('metrics.a'));
    const r = await createOne(topic('metrics_a'));
    expect(r.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(r.errorMessage).toBe("Topic 'metrics_a' collides with existing topic: metrics.a");
  });

  it('INVALID_REQUEST for a duplicate name (answered once, after the others) and for __cluster_metadata', async () => {
    const res = await create([topic('dup'), topic('solo'), topic('dup'), topic('__cluster_metadata')]);
    expect(res.topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([
      ['solo', 0, null],
      ['dup', ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'],
      ['__cluster_metadata', ErrorCode.INVALID_REQUEST, 'Creation of internal topic __cluster_metadata is prohibited.'],
    ]);
    expect((await metadataTopic('dup')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});

describe('CreateTopics: partitions and replication', () => {
  it('INVALID_PARTITIONS for 0 and below -1', async () => {
    for (const n of [0, -2, -100]) {
      const r = await createOne(topic(`p${n}`, { numPartitions: n }));
      expect(r.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
      expect(r.errorMessage).toBe('Number of partitions was set to an invalid non-positive value.');
    }
  });

  it('INVALID_REPLICATION_FACTOR for 0, below -1, and above the one broker', async () => {
    for (const rf of [0, -2]) {
      const r = await createOne(topic(`rf${rf}`, { replicationFactor: rf }));
      expect(r.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
      expect(r.errorMessage).toBe('Replication factor must be larger than 0, or -1 to use the default value.');
    }
    const r = await createOne(topic('rf3', { replicationFactor: 3 }));
    expect(r.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(r.errorMessage).toBe(
      'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered.',
    );
    // The replication factor is checked before the partition count.
    expect((await createOne(topic('both', { replicationFactor: 0, numPartitions: 0 }))).errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
  });

  it('INVALID_REPLICATION_FACTOR when default.replication.factor exceeds the broker count', async () => {
    client.close();
    await kmock.close();
    await start({ defaultReplicationFactor: 3 });
    const r = await createOne(topic('dflt', { replicationFactor: -1 }));
    expect(r.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(r.errorMessage).toContain('The target replication factor of 3 cannot be reached');
  });

  it('manual assignments: INVALID_REQUEST unless both counts are -1, INVALID_REPLICA_ASSIGNMENT for bad ones', async () => {
    const a = (partitionIndex: number, brokerIds: number[]) => ({ partitionIndex, brokerIds });
    const cases: Array<[Partial<CreateTopicsRequest.CreatableTopic>, number, string]> = [
      [{ numPartitions: 1, replicationFactor: -1, assignments: [a(0, [1])] }, ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.'],
      [{ numPartitions: -1, replicationFactor: 1, assignments: [a(0, [1])] }, ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replication factor was not set to -1.'],
      [{ numPartitions: -1, replicationFactor: -1, assignments: [a(0, [2])] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes broker 2, but no such broker is registered.'],
      [{ numPartitions: -1, replicationFactor: -1, assignments: [a(0, [1, 1])] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes the broker 1 more than once.'],
      [{ numPartitions: -1, replicationFactor: -1, assignments: [a(0, [])] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.'],
      [{ numPartitions: -1, replicationFactor: -1, assignments: [a(0, [1]), a(0, [1])] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Found multiple manual partition assignments for partition 0'],
      [{ numPartitions: -1, replicationFactor: -1, assignments: [a(0, [1]), a(2, [1])] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence'],
    ];
    let i = 0;
    for (const [init, code, message] of cases) {
      const r = await createOne(topic(`assign-${i++}`, init));
      expect([r.errorCode, r.errorMessage]).toEqual([code, message]);
    }
  });
});

describe('CreateTopics: configs', () => {
  const cases: Array<[string, string | null, string]> = [
    ['not.a.config', 'x', 'Unknown topic config name: not.a.config'],
    ['retention.ms', 'abc', 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
    ['segment.bytes', '1', 'Invalid value 1 for configuration segment.bytes: Value must be at least 14'],
    ['min.insync.replicas', '0', 'Invalid value 0 for configuration min.insync.replicas: Value must be at least 1'],
    ['cleanup.policy', 'compact,remove', 'Invalid value remove for configuration cleanup.policy: String must be one of: compact, delete'],
    ['compression.type', 'brotli', 'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer'],
    ['min.cleanable.dirty.ratio', '2', 'Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1'],
    ['unclean.leader.election.enable', 'yes', 'Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false'],
    ['message.format.version', 'invalid-value', 'Invalid value invalid-value for configuration message.format.version: Version invalid-value is not a valid version'],
    ['compression.gzip.level', '0', 'Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1'],
    ['max.message.bytes', '2147483648', 'Invalid value 2147483648 for configuration max.message.bytes: Not a number of type INT'],
    ['remote.storage.enable', 'true', 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.'],
    ['retention.bytes', null, 'Null value not supported for topic configs: retention.bytes'],
  ];
  for (const [name, value, message] of cases) {
    it(`INVALID_CONFIG for ${name}=${value}`, async () => {
      const r = await createOne(topic('bad-config', { configs: [{ name, value }] }));
      expect(r.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(r.errorMessage).toBe(message);
      expect((await metadataTopic('bad-config')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    });
  }

  it('INVALID_CONFIG when min.compaction.lag.ms exceeds max.compaction.lag.ms', async () => {
    const r = await createOne(
      topic('lag', {
        configs: [
          { name: 'min.compaction.lag.ms', value: '10' },
          { name: 'max.compaction.lag.ms', value: '5' },
        ],
      }),
    );
    expect(r.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(r.errorMessage).toBe('conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)');
  });

  it('accepts values the way ConfigDef parses them', async () => {
    const r = await createOne(
      topic('lenient', {
        configs: [
          { name: 'retention.ms', value: ' +1000 ' },
          { name: 'unclean.leader.election.enable', value: 'TRUE' },
          { name: 'message.format.version', value: '2.8.1' },
          { name: 'min.cleanable.dirty.ratio', value: '0.25d' },
          { name: 'cleanup.policy', value: '' },
          { name: 'leader.replication.throttled.replicas', value: '0:1, 1:1' },
        ],
      }),
    );
    expect([r.errorCode, r.errorMessage]).toEqual([0, null]);
  });

  it('config errors come after name errors, and before partition/replication errors', async () => {
    await createOne(topic('taken'));
    const res = await create([
      topic('taken', { configs: [{ name: 'nope', value: '1' }] }),
      topic('cfg-first', { numPartitions: 0, configs: [{ name: 'nope', value: '1' }] }),
      topic('fine'),
    ]);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['taken', ErrorCode.TOPIC_ALREADY_EXISTS],
      ['cfg-first', ErrorCode.INVALID_CONFIG],
      ['fine', 0],
    ]);
  });
});

describe('CreateTopics: controller limits', () => {
  it('timeoutMs <= 0: REQUEST_TIMED_OUT for every topic, nothing created', async () => {
    for (const timeoutMs of [0, -1]) {
      const res = await create([topic('late'), topic('late2'), topic('late2')], 7, { timeoutMs });
      expect(res.topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([
        ['late', ErrorCode.REQUEST_TIMED_OUT, null],
        ['late2', ErrorCode.REQUEST_TIMED_OUT, null],
        ['late2', ErrorCode.REQUEST_TIMED_OUT, null],
      ]);
    }
    expect((await metadataTopic('late')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('more than 10000 records in one request: POLICY_VIOLATION for every topic', async () => {
    const ok = await createOne(topic('big-ok', { numPartitions: 9999 }));
    expect(ok.errorCode).toBe(0);
    const res = await create([topic('big', { numPartitions: 9999 }), topic('small')]);
    expect(res.topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([
      ['big', ErrorCode.POLICY_VIOLATION, 'Unable to perform excessively large batch operation.'],
      ['small', ErrorCode.POLICY_VIOLATION, 'Unable to perform excessively large batch operation.'],
    ]);
    expect((await metadataTopic('small')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('answers each topic of a mixed request on its own', async () => {
    await createOne(topic('already'));
    const res = await create([
      topic('already'),
      topic('bad-partitions', { numPartitions: -2 }),
      topic('bad-replication', { replicationFactor: 2 }),
      topic('bad-assignment', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }] }),
      topic('good'),
    ]);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['already', ErrorCode.TOPIC_ALREADY_EXISTS],
      ['bad-partitions', ErrorCode.INVALID_PARTITIONS],
      ['bad-replication', ErrorCode.INVALID_REPLICATION_FACTOR],
      ['bad-assignment', ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      ['good', 0],
    ]);
  });
});
