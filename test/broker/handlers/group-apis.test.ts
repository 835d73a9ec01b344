// The group APIs over the wire: what KafkaApis does around the coordinator (version shaping,
// unknown topics, ZooKeeper-only versions on a KRaft broker, coordinator lookup) and that a
// parked JoinGroup holds the connection's later requests, as Kafka's muted channel does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCreateTopicsRequest,
  createDescribeGroupsRequest,
  createFindCoordinatorRequest,
  createHeartbeatRequest,
  createJoinGroupRequest,
  createListGroupsRequest,
  createDeleteGroupsRequest,
  createOffsetCommitRequest,
  createOffsetDeleteRequest,
  createOffsetFetchRequest,
  createSyncGroupRequest,
  decodeResponse,
  encodeRequest,
  ErrorCode,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;
let c: RawClient;

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0 });
  c = await RawClient.connect(kmock.bootstrapServers);
  const created = await c.request(
    19,
    4,
    createCreateTopicsRequest({
      topics: [{ name: 't', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
    }),
  );
  expect(created.topics[0].errorCode).toBe(0);
});
afterEach(async () => {
  c.close();
  await kmock.close();
});

const protocols = [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0]) }];

/** Joins a fresh single-member group at v5 (MEMBER_ID_REQUIRED round trip) and syncs. */
async function joinAndSync(groupId: string, rebalanceTimeoutMs = 10000): Promise<{ memberId: string; generationId: number }> {
  const join = (memberId: string) =>
    c.request(
      11,
      5,
      createJoinGroupRequest({ groupId, sessionTimeoutMs: 10000, rebalanceTimeoutMs, memberId, protocolType: 'consumer', protocols }),
    );
  const first = await join('');
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  expect(first.memberId).toMatch(/^kmock-raw-client-/);
  const second = await join(first.memberId);
  expect(second.errorCode).toBe(0);
  expect(second.leader).toBe(first.memberId);
  const sync = await c.request(
    14,
    3,
    createSyncGroupRequest({
      groupId,
      generationId: second.generationId,
      memberId: first.memberId,
      assignments: [{ memberId: first.memberId, assignment: Buffer.from('a') }],
    }),
  );
  expect(sync.errorCode).toBe(0);
  expect(sync.assignment.toString()).toBe('a');
  return { memberId: first.memberId, generationId: second.generationId };
}

describe('FindCoordinator', () => {
  it('answers COORDINATOR_NOT_AVAILABLE first (creating __consumer_offsets), then this broker', async () => {
    const first = await c.request(10, 2, createFindCoordinatorRequest({ key: 'g', keyType: 0 }));
    expect(first).toMatchObject({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, nodeId: -1, host: '', port: -1 });
    expect(first.errorMessage).toBe('The coordinator is not available.');
    expect(kmock.broker.topics.get('__consumer_offsets')?.partitions).toHaveLength(50);
    const second = await c.request(10, 2, createFindCoordinatorRequest({ key: 'g', keyType: 0 }));
    expect(second).toMatchObject({ errorCode: 0, errorMessage: 'NONE', nodeId: 1, port: kmock.port });
  });

  it('answers batched keys from v4', async () => {
    await c.request(10, 4, createFindCoordinatorRequest({ keyType: 0, coordinatorKeys: ['a'] }));
    const res = await c.request(10, 4, createFindCoordinatorRequest({ keyType: 0, coordinatorKeys: ['a', 'b'] }));
    expect(res.coordinators.map((k) => [k.key, k.errorCode, k.nodeId, k.port])).toEqual([
      ['a', 0, 1, kmock.port],
      ['b', 0, 1, kmock.port],
    ]);
  });

  // Kafka 3.9.1 answers [] and then 15, 15, 15 here (checked with a raw client against scripts/kafka-reference).
  it('a first batched lookup answers every key COORDINATOR_NOT_AVAILABLE (the topic it creates is not there yet for the others); no keys, no topic', async () => {
    const none = await c.request(10, 4, createFindCoordinatorRequest({ keyType: 1, coordinatorKeys: [] }));
    expect(none.coordinators).toEqual([]);
    expect(kmock.broker.topics.get('__transaction_state')).toBeUndefined();
    const first = await c.request(10, 4, createFindCoordinatorRequest({ keyType: 1, coordinatorKeys: ['t1', 't2', 't3'] }));
    expect(first.coordinators.map((x: { key: string; errorCode: number }) => [x.key, x.errorCode])).toEqual([
      ['t1', ErrorCode.COORDINATOR_NOT_AVAILABLE],
      ['t2', ErrorCode.COORDINATOR_NOT_AVAILABLE],
      ['t3', ErrorCode.COORDINATOR_NOT_AVAILABLE],
    ]);
    const then = await c.request(10, 4, createFindCoordinatorRequest({ keyType: 1, coordinatorKeys: ['t1', 't2'] }));
    expect(then.coordinators.map((x: { errorCode: number }) => x.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
  });

  it('refuses an unknown key type with INVALID_REQUEST', async () => {
    const res = await c.request(10, 1, createFindCoordinatorRequest({ key: 'x', keyType: 7 }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });
});

describe('JoinGroup / SyncGroup / Heartbeat', () => {
  it('runs the KIP-394 member id round trip and a one-member rebalance', async () => {
    const { memberId, generationId } = await joinAndSync('g1');
    const hb = await c.request(12, 3, createHeartbeatRequest({ groupId: 'g1', generationId, memberId }));
    expect(hb.errorCode).toBe(0);
    const wrongGen = await c.request(12, 3, createHeartbeatRequest({ groupId: 'g1', generationId: generationId + 1, memberId }));
    expect(wrongGen.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('v0 joins directly (no member id round trip) with the session timeout as rebalance timeout', async () => {
    const res = await c.request(11, 0, createJoinGroupRequest({ groupId: 'g0', sessionTimeoutMs: 10000, memberId: '', protocolType: 'consumer', protocols }));
    expect(res.errorCode).toBe(0);
    const member = kmock.broker.groups.group('g0')?.get(res.memberId);
    expect(member?.rebalanceTimeoutMs).toBe(10000);
  });

  it('a parked JoinGroup holds the requests pipelined behind it on the same connection', async () => {
    await joinAndSync('g2', 300);
    // A second member joins: the group rebalances and waits for the first member to rejoin, so the
    // newcomer's JoinGroup parks; a Heartbeat pipelined behind it must not be answered before it.
    const other = await RawClient.connect(kmock.bootstrapServers);
    const joinFrame = encodeRequest(
      { apiKey: 11, apiVersion: 3, correlationId: 100, clientId: 'x' },
      createJoinGroupRequest({ groupId: 'g2', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 2000, memberId: '', protocolType: 'consumer', protocols }),
    );
    const hbFrame = encodeRequest({ apiKey: 12, apiVersion: 3, correlationId: 101, clientId: 'x' }, createHeartbeatRequest({ groupId: 'g2', generationId: 1, memberId: 'nobody' }));
    other.sendRaw(Buffer.concat([joinFrame, hbFrame]));
    const firstAnswer = await other.nextFrame(10_000);
    expect(firstAnswer.readInt32BE(0)).toBe(100);
    const secondAnswer = await other.nextFrame(10_000);
    expect(secondAnswer.readInt32BE(0)).toBe(101);
    expect((decodeResponse(secondAnswer, 12, 3).body as { errorCode: number }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    other.close();
  });
});

describe('OffsetCommit / OffsetFetch', () => {
  it('answers unknown topics and partitions itself and commits the rest', async () => {
    const res = await c.request(
      8,
      2,
      createOffsetCommitRequest({
        groupId: 'simple',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] },
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: 'm' },
              { partitionIndex: 9, committedOffset: 5n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null },
            ],
          },
        ],
      }),
    );
    expect(res.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode])])).toEqual([
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ['t', [[9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], [0, 0]]],
    ]);
    const fetched = await c.request(9, 1, createOffsetFetchRequest({ groupId: 'simple', topics: [{ name: 't', partitionIndexes: [0, 1] }] }));
    expect(fetched.topics[0].partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata, p.errorCode])).toEqual([
      [0, 5n, 'm', 0],
      [1, -1n, '', 0],
    ]);
  });

  it('version 0 (ZooKeeper-only) is answered UNSUPPORTED_VERSION as on a KRaft broker', async () => {
    const commit = await c.request(
      8,
      0,
      createOffsetCommitRequest({
        groupId: 'z',
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] }],
      }),
    );
    expect(commit.topics[0].partitions[0].errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    const fetch = await c.request(9, 0, createOffsetFetchRequest({ groupId: 'z', topics: [{ name: 't', partitionIndexes: [0] }] }));
    expect(fetch.topics[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, committedOffset: -1n });
  });

  it('v8+ fetches several groups at once; null topics means all', async () => {
    const { memberId, generationId } = await joinAndSync('gm');
    const commit = await c.request(
      8,
      8,
      createOffsetCommitRequest({
        groupId: 'gm',
        generationIdOrMemberEpoch: generationId,
        memberId,
        topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 42n, committedLeaderEpoch: 0, commitTimestamp: -1n, committedMetadata: null }] }],
      }),
    );
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    const res = await c.request(
      9,
      8,
      createOffsetFetchRequest({
        groups: [
          { groupId: 'gm', memberId: null, memberEpoch: -1, topics: null },
          { groupId: 'nobody', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] },
        ],
      }),
    );
    expect(res.groups.map((g) => g.groupId)).toEqual(['gm', 'nobody']);
    expect(res.groups[0].topics[0].partitions[0]).toMatchObject({ partitionIndex: 1, committedOffset: 42n, committedLeaderEpoch: 0 });
    expect(res.groups[1].topics[0].partitions[0]).toMatchObject({ committedOffset: -1n, errorCode: 0 });
  });
});

describe('DescribeGroups / ListGroups / DeleteGroups / OffsetDelete', () => {
  it('describes a stable group with its member and the authorized operations when asked', async () => {
    const { memberId } = await joinAndSync('gd');
    const res = await c.request(15, 5, createDescribeGroupsRequest({ groups: ['gd', 'unknown'], includeAuthorizedOperations: true }));
    expect(res.groups[0]).toMatchObject({ groupId: 'gd', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', authorizedOperations: 328 });
    expect(res.groups[0].members[0]).toMatchObject({ memberId, clientId: 'kmock-raw-client', clientHost: '/127.0.0.1' });
    expect(res.groups[1]).toMatchObject({ groupId: 'unknown', groupState: 'Dead', errorCode: 0 });
    const plain = await c.request(15, 2, createDescribeGroupsRequest({ groups: ['gd'] }));
    expect(plain.groups[0].authorizedOperations).toBe(-2147483648);
  });

  it('lists groups with a state filter (v4) and deletes only empty ones, once per name', async () => {
    await joinAndSync('busy');
    await c.request(8, 2, createOffsetCommitRequest({
      groupId: 'idle',
      generationIdOrMemberEpoch: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] }],
    }));
    const stable = await c.request(16, 4, createListGroupsRequest({ statesFilter: ['Stable'] }));
    expect(stable.groups.map((g) => g.groupId)).toEqual(['busy']);
    const all = await c.request(16, 0, createListGroupsRequest());
    expect(all.groups.map((g) => g.groupId).sort()).toEqual(['busy', 'idle']);
    const del = await c.request(42, 1, createDeleteGroupsRequest({ groupsNames: ['busy', 'idle', 'idle', 'missing'] }));
    expect(del.results.map((r) => [r.groupId, r.errorCode])).toEqual([
      ['busy', ErrorCode.NON_EMPTY_GROUP],
      ['idle', 0],
      ['missing', ErrorCode.GROUP_ID_NOT_FOUND],
    ]);
  });

  it('OffsetDelete answers unknown topics itself and deletes committed offsets of an empty group', async () => {
    await c.request(8, 2, createOffsetCommitRequest({
      groupId: 'od',
      generationIdOrMemberEpoch: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] }],
    }));
    const res = await c.request(
      47,
      0,
      createOffsetDeleteRequest({ groupId: 'od', topics: [{ name: 'gone', partitions: [{ partitionIndex: 0 }] }, { name: 't', partitions: [{ partitionIndex: 0 }] }] }),
    );
    expect(res.errorCode).toBe(0);
    expect(res.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)])).toEqual([
      ['gone', [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
      ['t', [0]],
    ]);
    const after = await c.request(9, 5, createOffsetFetchRequest({ groupId: 'od', topics: [{ name: 't', partitionIndexes: [0] }] }));
    expect(after.topics[0].partitions[0].committedOffset).toBe(-1n);
  });
});
