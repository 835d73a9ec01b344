// DeleteTopics (20) against a listening kmock, over raw frames: by name (v0-6) and by topic id
// (v6), with Kafka 3.9's error codes (ControllerApis.deleteTopics).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCreateTopicsRequest,
  createDeleteTopicsRequest,
  createMetadataRequest,
  type DeleteTopicsResponse,
  ErrorCode,
  ZERO_UUID,
} from '../../../src/codec/index.js';
import { partitionKey } from '../../../src/broker/log/fetch-waiters.js';
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

/** Creates topics; returns their ids. */
async function createTopics(...names: string[]): Promise<string[]> {
  const res = await client.request(
    19,
    7,
    createCreateTopicsRequest({
      topics: names.map((name) => ({ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 30000,
    }),
  );
  for (const t of res.topics) expect(t.errorCode).toBe(0);
  return res.topics.map((t) => t.topicId);
}

async function exists(name: string): Promise<boolean> {
  const md = await client.request(3, 12, createMetadataRequest({ topics: [{ name, topicId: ZERO_UUID }], allowAutoTopicCreation: false }));
  return md.topics[0].errorCode === 0;
}

function deleteByName(names: string[], version: number, timeoutMs = 30000): Promise<DeleteTopicsResponse> {
  const body =
    version >= 6
      ? createDeleteTopicsRequest({ topics: names.map((name) => ({ name, topicId: ZERO_UUID })), timeoutMs })
      : createDeleteTopicsRequest({ topicNames: names, timeoutMs });
  return client.request(20, version, body);
}

describe('DeleteTopics by name', () => {
  for (let v = 0; v <= 6; v++) {
    it(`v${v}: deletes existing topics, UNKNOWN_TOPIC_OR_PARTITION for the others`, async () => {
      await createTopics('a', 'b');
      const res = await deleteByName(['a', 'missing', 'b'], v);
      expect(res.responses.map((r) => [r.name, r.errorCode])).toEqual([
        ['a', 0],
        ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ['b', 0],
      ]);
      // Kafka 3.9.1 (conformance run): success has no message; an unknown topic carries the error's text.
      if (v >= 5) {
        expect(res.responses.map((r) => r.errorMessage)).toEqual([null, 'This server does not host this topic-partition.', null]);
      }
      expect(await exists('a')).toBe(false);
      expect(await exists('b')).toBe(false);
    });
  }

  it('INVALID_REQUEST for a name given twice; the others are deleted', async () => {
    await createTopics('twice', 'once');
    const res = await deleteByName(['twice', 'once', 'twice'], 5);
    expect(res.responses.map((r) => [r.name, r.errorCode, r.errorMessage])).toEqual([
      ['twice', ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'],
      ['once', 0, null],
    ]);
    expect(await exists('twice')).toBe(true);
  });

  it('drops the partitions, wakes fetches waiting on them, tells the deletion hooks, and frees the name', async () => {
    const [oldId] = await createTopics('gone');
    const topic = kmock.broker.topics.get('gone')!;
    const woken: string[] = [];
    const waiter = { interest: new Set([partitionKey('gone', 1)]), wake: () => woken.push('gone-1') };
    kmock.broker.fetchWaiters.add(waiter);
    const deleted: unknown[] = [];
    kmock.broker.topicDeletions.onDeleted((partitions) => deleted.push(...partitions));
    const res = await deleteByName(['gone'], 4);
    expect(res.responses[0].errorCode).toBe(0);
    expect(topic.partitions).toHaveLength(0);
    expect(woken).toEqual(['gone-1']);
    expect(deleted).toEqual([
      { topic: 'gone', partition: 0 },
      { topic: 'gone', partition: 1 },
    ]);
    expect(kmock.broker.topics.getById(oldId)).toBeUndefined();
    kmock.broker.fetchWaiters.remove(waiter);
    const [newId] = await createTopics('gone');
    expect(newId).not.toBe(oldId);
  });
});

describe('DeleteTopics by id (v6)', () => {
  it('deletes by id and names the topic; UNKNOWN_TOPIC_ID for an unknown id', async () => {
    const [id] = await createTopics('by-id');
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAQ';
    const res = await client.request(
      20,
      6,
      createDeleteTopicsRequest({
        topics: [
          { name: null, topicId: id },
          { name: null, topicId: unknown },
        ],
        timeoutMs: 30000,
      }),
    );
    expect(res.responses.map((r) => [r.name, r.topicId, r.errorCode, r.errorMessage])).toEqual([
      ['by-id', id, 0, null],
      [null, unknown, ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.'],
    ]);
    expect(await exists('by-id')).toBe(false);
  });

  it('INVALID_REQUEST for neither or both of name and id, and for an id given twice', async () => {
    const [id] = await createTopics('x');
    const res = await client.request(
      20,
      6,
      createDeleteTopicsRequest({
        topics: [
          { name: null, topicId: ZERO_UUID },
          { name: 'x', topicId: id },
          { name: null, topicId: id },
          { name: null, topicId: id },
        ],
        timeoutMs: 30000,
      }),
    );
    expect(res.responses.map((r) => [r.name, r.topicId, r.errorCode, r.errorMessage])).toEqual([
      [null, ZERO_UUID, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'],
      ['x', id, ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'],
      [null, id, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'],
    ]);
    expect(await exists('x')).toBe(true);
  });

  it('INVALID_REQUEST when a name maps to an id also given (and nothing else for that id)', async () => {
    const [id] = await createTopics('both-ways');
    const res = await client.request(
      20,
      6,
      createDeleteTopicsRequest({
        topics: [
          { name: null, topicId: id },
          { name: 'both-ways', topicId: ZERO_UUID },
        ],
        timeoutMs: 30000,
      }),
    );
    expect(res.responses.map((r) => [r.name, r.topicId, r.errorCode, r.errorMessage])).toEqual([
      ['both-ways', id, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'],
    ]);
    expect(await exists('both-ways')).toBe(true);
  });
});

describe('DeleteTopics refused', () => {
  it('delete.topic.enable=false: INVALID_REQUEST before v3, TOPIC_DELETION_DISABLED from v3, no message', async () => {
    client.close();
    await kmock.close();
    await start({ deleteTopicEnable: false });
    await createTopics('kept');
    for (let v = 0; v <= 6; v++) {
      const res = await deleteByName(['kept', 'missing'], v);
      const code = v < 3 ? ErrorCode.INVALID_REQUEST : ErrorCode.TOPIC_DELETION_DISABLED;
      expect(res.responses.map((r) => [r.name, r.errorCode])).toEqual([
        ['kept', code],
        ['missing', code],
      ]);
      if (v >= 5) for (const r of res.responses) expect(r.errorMessage).toBeNull();
    }
    expect(await exists('kept')).toBe(true);
  });

  it('timeoutMs <= 0: REQUEST_TIMED_OUT for every topic, nothing deleted', async () => {
    await createTopics('slow');
    const res = await deleteByName(['slow', 'missing'], 5, 0);
    expect(res.responses.map((r) => [r.name, r.errorCode, r.errorMessage])).toEqual([
      ['slow', ErrorCode.REQUEST_TIMED_OUT, null],
      ['missing', ErrorCode.REQUEST_TIMED_OUT, null],
    ]);
    expect(await exists('slow')).toBe(true);
  });
});
