// CreatePartitions (37) against a listening kmock, over raw frames: Kafka 3.9's rules
// (ControllerApis.createPartitions, ReplicationControlManager.createPartitions) per version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCreatePartitionsRequest,
  createCreateTopicsRequest,
  createMetadataRequest,
  type CreatePartitionsResponse,
  type CreatePartitionsRequest,
  ErrorCode,
  ZERO_UUID,
} from '../../../src/codec/index.js';
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

async function createTopic(name: string, numPartitions = 1): Promise<void> {
  const res = await client.request(
    19,
    4,
    createCreateTopicsRequest({ topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000 }),
  );
  expect(res.topics[0].errorCode).toBe(0);
}

async function partitionCount(name: string): Promise<number> {
  const md = await client.request(3, 12, createMetadataRequest({ topics: [{ name, topicId: ZERO_UUID }], allowAutoTopicCreation: false }));
  return md.topics[0].partitions.length;
}

function grow(
  topics: CreatePartitionsRequest.Topic[],
  version = 3,
  opts: { validateOnly?: boolean; timeoutMs?: number } = {},
): Promise<CreatePartitionsResponse> {
  return client.request(37, version, createCreatePartitionsRequest({ topics, timeoutMs: 30000, ...opts }));
}

describe('CreatePartitions', () => {
  for (let v = 0; v <= 3; v++) {
    it(`v${v}: grows a topic`, async () => {
      await createTopic('grow');
      const res = await grow([{ name: 'grow', count: 3, assignments: null }], v);
      expect(res.results).toEqual([{ name: 'grow', errorCode: 0, errorMessage: null }]);
      expect(await partitionCount('grow')).toBe(3);
    });
  }

  it('INVALID_PARTITIONS unless the count increases', async () => {
    await createTopic('fixed', 2);
    const res = await grow([
      { name: 'fixed', count: 2, assignments: null },
    ]);
    expect(res.results).toEqual([{ name: 'fixed', errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Topic already has 2 partition(s).' }]);
    const less = await grow([{ name: 'fixed', count: 1, assignments: null }]);
    expect(less.results).toEqual([
      {
        name: 'fixed',
        errorCode: ErrorCode.INVALID_PARTITIONS,
        errorMessage: 'The topic fixed currently has 2 partition(s); 1 would not be an increase.',
      },
    ]);
    expect(await partitionCount('fixed')).toBe(2);
  });

  it('UNKNOWN_TOPIC_OR_PARTITION (no message) for a topic that does not exist', async () => {
    const res = await grow([{ name: 'nope', count: 2, assignments: null }]);
    expect(res.results).toEqual([{ name: 'nope', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null }]);
  });

  it('takes manual assignments on this broker; INVALID_REPLICA_ASSIGNMENT for wrong ones', async () => {
    await createTopic('manual');
    const ok = await grow([{ name: 'manual', count: 3, assignments: [{ brokerIds: [1] }, { brokerIds: [1] }] }]);
    expect(ok.results[0].errorCode).toBe(0);
    expect(await partitionCount('manual')).toBe(3);
    const cases: Array<[CreatePartitionsRequest.Topic, string]> = [
      [{ name: 'manual', count: 5, assignments: [{ brokerIds: [1] }] }, 'Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.'],
      [{ name: 'manual', count: 4, assignments: [{ brokerIds: [7] }] }, 'The manual partition assignment includes broker 7, but no such broker is registered.'],
      [{ name: 'manual', count: 4, assignments: [{ brokerIds: [1, 1] }] }, 'The manual partition assignment includes the broker 1 more than once.'],
      [{ name: 'manual', count: 4, assignments: [{ brokerIds: [] }] }, 'The manual partition assignment includes an empty replica list.'],
    ];
    for (const [t, message] of cases) {
      const res = await grow([t]);
      expect(res.results).toEqual([{ name: 'manual', errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: message }]);
    }
    expect(await partitionCount('manual')).toBe(3);
  });

  it('INVALID_REQUEST for a name given twice (first), the others are answered', async () => {
    await createTopic('one');
    await createTopic('two');
    const res = await grow([
      { name: 'one', count: 2, assignments: null },
      { name: 'two', count: 2, assignments: null },
      { name: 'one', count: 3, assignments: null },
    ]);
    expect(res.results).toEqual([
      { name: 'one', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' },
      { name: 'two', errorCode: 0, errorMessage: null },
    ]);
    expect(await partitionCount('one')).toBe(1);
    expect(await partitionCount('two')).toBe(2);
  });

  it('validateOnly checks and answers but adds nothing', async () => {
    await createTopic('dry');
    const res = await grow([{ name: 'dry', count: 5, assignments: null }], 3, { validateOnly: true });
    expect(res.results[0].errorCode).toBe(0);
    expect(await partitionCount('dry')).toBe(1);
    const bad = await grow([{ name: 'dry', count: 1, assignments: null }], 3, { validateOnly: true });
    expect(bad.results[0].errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
  });

  it('timeoutMs <= 0: REQUEST_TIMED_OUT for every entry, nothing added', async () => {
    await createTopic('late');
    const res = await grow(
      [
        { name: 'late', count: 2, assignments: null },
        { name: 'missing', count: 2, assignments: null },
      ],
      3,
      { timeoutMs: 0 },
    );
    expect(res.results).toEqual([
      { name: 'late', errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: null },
      { name: 'missing', errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: null },
    ]);
    expect(await partitionCount('late')).toBe(1);
  });
});
