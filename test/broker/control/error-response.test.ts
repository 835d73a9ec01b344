// The generic error response (an injected error in the API's own shape): per API, the fields that
// carry the error and the identifying fields mirrored from the request, and every API at every
// version encodes and decodes back unchanged.
import { describe, expect, it } from 'vitest';
import { APIS, decodeResponse, encodeResponse, inRange, type ApiTypes, type StructSchema } from '../../../src/codec/index.js';
import { buildErrorResponse } from '../../../src/broker/control/error-response.js';
import { NO_RESPONSE } from '../../../src/broker/handlers/types.js';

const E = 6; // NOT_LEADER_OR_FOLLOWER
const UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** Builds the error response and passes it through the codec, as a client would see it. */
function errorResponse<K extends keyof ApiTypes>(apiKey: K, version: number, request: Partial<ApiTypes[K]['request']>, code = E): ApiTypes[K]['response'] {
  const req = Object.assign(APIS[apiKey].request.create(), request);
  const res = buildErrorResponse(apiKey, version, req, code);
  const frame = encodeResponse(apiKey, version, 7, res as ApiTypes[K]['response']);
  const decoded = decodeResponse(frame.subarray(4), apiKey, version);
  expect(decoded.trailingBytes).toBe(0);
  return decoded.body as ApiTypes[K]['response'];
}

describe('error responses per API', () => {
  it('Produce: every requested partition, with Kafka\'s "no offset" values', () => {
    const res = errorResponse(0, 9, {
      acks: -1,
      topicData: [
        { name: 'a', partitionData: [{ index: 0, records: null }, { index: 2, records: null }] },
        { name: 'b', partitionData: [{ index: 1, records: null }] },
      ],
    });
    expect(res.responses.map((t) => [t.name, t.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset, p.logStartOffset])])).toEqual([
      ['a', [[0, E, -1n, -1n], [2, E, -1n, -1n]]],
      ['b', [[1, E, -1n, -1n]]],
    ]);
  });

  it('Produce with acks=0 gets no response at all', () => {
    const req = Object.assign(APIS[0].request.create(), { acks: 0, topicData: [] });
    expect(buildErrorResponse(0, 9, req, E)).toBe(NO_RESPONSE);
  });

  it('Fetch: top-level error (v7+) and every requested partition, by name or by topic id', () => {
    const topics = [{ topic: 't', topicId: UUID, partitions: [{ partition: 3 } as never] }];
    const v4 = errorResponse(1, 4, { topics: topics as never });
    expect(v4.responses[0]!.topic).toBe('t');
    expect(v4.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark])).toEqual([[3, E, -1n]]);
    const v13 = errorResponse(1, 13, { topics: topics as never, forgottenTopicsData: [{ topic: 'x', topicId: UUID, partitions: [9] }] });
    expect(v13.errorCode).toBe(E);
    expect(v13.responses).toHaveLength(1);
    expect(v13.responses[0]!.topicId).toBe(UUID);
    expect(v13.responses[0]!.partitions[0]!.partitionIndex).toBe(3);
  });

  it('ListOffsets, OffsetCommit, DeleteRecords: topics and partitions mirrored', () => {
    const lo = errorResponse(2, 7, { topics: [{ name: 't', partitions: [{ partitionIndex: 4 } as never] }] as never });
    expect(lo.topics[0]!.partitions[0]).toMatchObject({ partitionIndex: 4, errorCode: E, offset: -1n, timestamp: -1n });
    const oc = errorResponse(8, 8, { topics: [{ name: 't', partitions: [{ partitionIndex: 1 } as never, { partitionIndex: 2 } as never] }] as never });
    expect(oc.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual([[1, E], [2, E]]);
    const dr = errorResponse(21, 2, { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 5n } as never] }] as never });
    expect(dr.topics[0]!.partitions[0]).toMatchObject({ partitionIndex: 0, errorCode: E, lowWatermark: -1n });
  });

  it('Metadata: each requested topic carries the error; no brokers', () => {
    const res = errorResponse(3, 12, { topics: [{ name: 'a', topicId: UUID } as never] });
    expect(res.brokers).toEqual([]);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([['a', E]]);
    // All topics requested (null): nothing to name, as in Kafka.
    expect(errorResponse(3, 12, { topics: null }).topics).toEqual([]);
  });

  it('OffsetFetch: partitions below v2, top level v2–v7, per group from v8', () => {
    const topics = [{ name: 't', partitionIndexes: [0, 3] }];
    const v1 = errorResponse(9, 1, { groupId: 'g', topics });
    expect(v1.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.committedOffset])).toEqual([[0, E, -1n], [3, E, -1n]]);
    expect(errorResponse(9, 5, { groupId: 'g', topics }).errorCode).toBe(E);
    const v8 = errorResponse(9, 8, { groups: [{ groupId: 'g1', topics } as never, { groupId: 'g2', topics: null } as never] });
    expect(v8.groups.map((g) => [g.groupId, g.errorCode, g.topics.length])).toEqual([['g1', E, 1], ['g2', E, 0]]);
  });

  it('FindCoordinator: top level below v4, per key from v4, no node', () => {
    expect(errorResponse(10, 3, { key: 'g' })).toMatchObject({ errorCode: E, nodeId: -1, host: '', port: -1 });
    const v4 = errorResponse(10, 4, { keyType: 0, coordinatorKeys: ['g1', 'g2'] }, 15);
    expect(v4.coordinators.map((c) => [c.key, c.errorCode, c.nodeId])).toEqual([['g1', 15, -1], ['g2', 15, -1]]);
  });

  it('JoinGroup, SyncGroup, Heartbeat: the top-level error; no member list', () => {
    const join = errorResponse(11, 9, { groupId: 'g', memberId: 'm-1', protocols: [] }, 27);
    expect(join).toMatchObject({ errorCode: 27, generationId: -1, memberId: '', leader: '', members: [] });
    expect(errorResponse(14, 5, { groupId: 'g' }, 27).errorCode).toBe(27);
    expect(errorResponse(12, 4, { groupId: 'g' }, 27).errorCode).toBe(27);
  });

  it('LeaveGroup: top level, and per member from v3', () => {
    expect(errorResponse(13, 2, { groupId: 'g', memberId: 'm' }).errorCode).toBe(E);
    const v5 = errorResponse(13, 5, { groupId: 'g', members: [{ memberId: '', groupInstanceId: 'i-1', reason: null }] });
    expect(v5.errorCode).toBe(E);
    expect(v5.members).toEqual([expect.objectContaining({ memberId: '', groupInstanceId: 'i-1', errorCode: E })]);
  });

  it('DescribeGroups and DeleteGroups: one entry per group id', () => {
    const dg = errorResponse(15, 5, { groups: ['a', 'b'] });
    expect(dg.groups.map((g) => [g.groupId, g.errorCode])).toEqual([['a', E], ['b', E]]);
    const del = errorResponse(42, 2, { groupsNames: ['x'] });
    expect(del.results).toEqual([expect.objectContaining({ groupId: 'x', errorCode: E })]);
  });

  it('ListGroups, ApiVersions, SaslHandshake, SaslAuthenticate, InitProducerId, DescribeCluster: the top-level error', () => {
    expect(errorResponse(16, 5, {}).errorCode).toBe(E);
    expect(errorResponse(18, 3, {})).toMatchObject({ errorCode: E, apiKeys: [] });
    expect(errorResponse(17, 1, { mechanism: 'PLAIN' })).toMatchObject({ errorCode: E, mechanisms: [] });
    expect(errorResponse(36, 2, {}).errorCode).toBe(E);
    expect(errorResponse(22, 4, {})).toMatchObject({ errorCode: E, producerId: -1n, producerEpoch: -1 });
    expect(errorResponse(60, 1, {})).toMatchObject({ errorCode: E, brokers: [] });
  });

  it('CreateTopics, DeleteTopics (by name, by id), CreatePartitions, DescribeConfigs: per topic/resource', () => {
    const ct = errorResponse(19, 7, { topics: [{ name: 'n', numPartitions: 3 } as never] });
    expect(ct.topics).toEqual([expect.objectContaining({ name: 'n', errorCode: E })]);
    expect(errorResponse(20, 5, { topicNames: ['a'] }).responses).toEqual([expect.objectContaining({ name: 'a', errorCode: E })]);
    expect(errorResponse(20, 6, { topics: [{ name: null, topicId: UUID }] }).responses).toEqual([
      expect.objectContaining({ name: null, topicId: UUID, errorCode: E }),
    ]);
    expect(errorResponse(37, 3, { topics: [{ name: 't', count: 4, assignments: null }] }).results).toEqual([
      expect.objectContaining({ name: 't', errorCode: E }),
    ]);
    const dc = errorResponse(32, 4, { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }] });
    expect(dc.results).toEqual([expect.objectContaining({ resourceType: 2, resourceName: 't', errorCode: E, configs: [] })]);
  });

  it('DescribeAcls: the top-level error; CreateAcls: one result per creation; DeleteAcls: one result per filter, no matching ACLs', () => {
    expect(errorResponse(29, 3, {})).toMatchObject({ errorCode: E, resources: [] });
    const acl = { resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:a', host: '*', operation: 3, permissionType: 3 };
    expect(errorResponse(30, 1, { creations: [acl, acl] }).results.map((r) => r.errorCode)).toEqual([E, E]);
    const filter = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };
    expect(errorResponse(31, 2, { filters: [filter] }).filterResults).toEqual([expect.objectContaining({ errorCode: E, matchingAcls: [] })]);
  });

  it('OffsetDelete: top level and per partition', () => {
    const res = errorResponse(47, 0, { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 2 }] }] });
    expect(res.errorCode).toBe(E);
    expect(res.topics[0]!.partitions).toEqual([expect.objectContaining({ partitionIndex: 2, errorCode: E })]);
  });

  it('transaction APIs: as Kafka 3.9\'s getErrorResponse builds them', () => {
    // InitProducerId: no producer id or epoch.
    expect(errorResponse(22, 5, { transactionalId: 't', transactionTimeoutMs: 60_000, producerId: 7n, producerEpoch: 3 }, 51)).toEqual({
      throttleTimeMs: 0, errorCode: 51, producerId: -1n, producerEpoch: -1,
    });
    // AddPartitionsToTxn v0-3 (clients): every requested partition, with PartitionErrorCode...
    const v3 = { v3AndBelowTransactionalId: 't', v3AndBelowProducerId: 7n, v3AndBelowProducerEpoch: 3, v3AndBelowTopics: [{ name: 'a', partitions: [0, 2] }, { name: 'b', partitions: [1] }] };
    for (const v of [0, 3]) {
      const res = errorResponse(24, v, v3, 51);
      expect(res.resultsByTopicV3AndBelow.map((t) => [t.name, t.resultsByPartition.map((p) => [p.partitionIndex, p.partitionErrorCode])])).toEqual([
        ['a', [[0, 51], [2, 51]]],
        ['b', [[1, 51]]],
      ]);
    }
    // ...v4+ (brokers' batches): only the top-level error, no per-transaction results.
    const batch = { transactions: [{ transactionalId: 't', producerId: 7n, producerEpoch: 3, verifyOnly: true, topics: [{ name: 'a', partitions: [0] }] }] };
    expect(errorResponse(24, 5, batch, 51)).toEqual({ throttleTimeMs: 0, errorCode: 51, resultsByTransaction: [], resultsByTopicV3AndBelow: [] });
    // AddOffsetsToTxn, EndTxn: the top-level error.
    expect(errorResponse(25, 4, { transactionalId: 't', producerId: 7n, producerEpoch: 3, groupId: 'g' }, 51)).toEqual({ throttleTimeMs: 0, errorCode: 51 });
    expect(errorResponse(26, 4, { transactionalId: 't', producerId: 7n, producerEpoch: 3, committed: true }, 51)).toEqual({ throttleTimeMs: 0, errorCode: 51 });
    // WriteTxnMarkers: per marker (its producer id copied), topic and partition.
    const markers = errorResponse(27, 1, { markers: [{ producerId: 7n, producerEpoch: 3, transactionResult: true, topics: [{ name: 'a', partitionIndexes: [0, 1] }], coordinatorEpoch: 0 }] });
    expect(markers).toEqual({ markers: [{ producerId: 7n, topics: [{ name: 'a', partitions: [{ partitionIndex: 0, errorCode: E }, { partitionIndex: 1, errorCode: E }] }] }] });
    // TxnOffsetCommit: per topic and partition.
    const toc = errorResponse(28, 4, { transactionalId: 't', groupId: 'g', producerId: 7n, producerEpoch: 3, topics: [{ name: 'a', partitions: [{ partitionIndex: 3, committedOffset: 10n, committedLeaderEpoch: -1, committedMetadata: null }] }] }, 16);
    expect(toc).toEqual({ throttleTimeMs: 0, topics: [{ name: 'a', partitions: [{ partitionIndex: 3, errorCode: 16 }] }] });
    // DescribeTransactions: one state per id, with only the id and the error (producer id/epoch 0).
    const dt = errorResponse(65, 0, { transactionalIds: ['t', 'u'] }, 15);
    expect(dt.transactionStates.map((s) => [s.transactionalId, s.errorCode, s.producerId, s.producerEpoch, s.transactionState])).toEqual([
      ['t', 15, 0n, 0, ''],
      ['u', 15, 0n, 0, ''],
    ]);
    // ListTransactions: the top-level error, nothing listed.
    expect(errorResponse(66, 1, { stateFilters: ['Ongoing'], producerIdFilters: [7n], durationFilter: -1n }, 15)).toEqual({
      throttleTimeMs: 0, errorCode: 15, unknownStateFilters: [], transactionStates: [],
    });
    // DescribeProducers: per partition.
    const dp = errorResponse(61, 0, { topics: [{ name: 'a', partitionIndexes: [0, 1] }] }, 15);
    expect(dp.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.activeProducers])).toEqual([[0, 15, []], [1, 15, []]]);
  });

  it('every API at every version: an encodable response whose error codes all carry the code', () => {
    for (const api of Object.values(APIS)) {
      for (let v = api.minVersion; v <= api.maxVersion; v++) {
        const res = errorResponse(api.key as keyof ApiTypes, v, (REQUESTS[api.key] ?? {}) as never, 58);
        const codes = collectErrorCodes(api.response.schema, v, res);
        expect(codes.length, `${api.name} v${v} has an error code`).toBeGreaterThan(0);
        expect(new Set(codes), `${api.name} v${v}`).toEqual(new Set([58]));
      }
    }
  });
});

/** One request per API naming something (fields a version lacks are ignored). */
const REQUESTS: Record<number, object> = {
  0: { acks: -1, topicData: [{ name: 't', partitionData: [{ index: 0, records: null }] }] },
  1: { topics: [{ topic: 't', topicId: UUID, partitions: [{ partition: 0 }] }] },
  2: { topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
  3: { topics: [{ name: 't', topicId: UUID }] },
  8: { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
  9: { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], groups: [{ groupId: 'g', topics: null }] },
  10: { key: 'g', coordinatorKeys: ['g'] },
  13: { groupId: 'g', memberId: 'm', members: [{ memberId: 'm', groupInstanceId: null }] },
  15: { groups: ['g'] },
  19: { topics: [{ name: 't', numPartitions: 1 }] },
  20: { topicNames: ['t'], topics: [{ name: 't', topicId: UUID }] },
  21: { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 0n }] }] },
  30: { creations: [{ resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:a', host: '*', operation: 3, permissionType: 3 }] },
  31: { filters: [{ resourceTypeFilter: 2, resourceNameFilter: 't', patternTypeFilter: 3, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] },
  32: { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }] },
  33: { resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', value: '1' }] }], validateOnly: false },
  44: { resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] }], validateOnly: false },
  37: { topics: [{ name: 't', count: 2, assignments: null }] },
  42: { groupsNames: ['g'] },
  47: { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
  24: { v3AndBelowTopics: [{ name: 't', partitions: [0] }], transactions: [{ transactionalId: 'x', producerId: 1n, producerEpoch: 0, verifyOnly: false, topics: [{ name: 't', partitions: [0] }] }] },
  27: { markers: [{ producerId: 1n, producerEpoch: 0, transactionResult: true, topics: [{ name: 't', partitionIndexes: [0] }], coordinatorEpoch: 0 }] },
  28: { transactionalId: 'x', groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] }] },
  61: { topics: [{ name: 't', partitionIndexes: [0] }] },
  50: { users: [{ name: 'u' }] },
  51: { deletions: [{ name: 'u', mechanism: 1 }], upsertions: [] },
  34: { dirs: [{ path: '/d', topics: [{ name: 't', partitions: [0, 1] }] }] },
  35: { topics: [{ topic: 't', partitions: [0] }] },
  48: { components: [{ entityType: 'user', matchType: 0, match: 'u' }], strict: false },
  49: { entries: [{ entity: [{ entityType: 'user', entityName: 'u' }], ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] }], validateOnly: false },
  65: { transactionalIds: ['x'] },
};

/** Values of every error code field (`errorCode`, AddPartitionsToTxn's `partitionErrorCode`) on the wire at `version`, at any depth. */
function collectErrorCodes(schema: StructSchema, version: number, value: unknown, out: number[] = []): number[] {
  const o = value as Record<string, unknown>;
  for (const f of schema.fields) {
    if (!inRange(version, f.versions)) continue;
    if (f.name === 'errorCode' || f.name === 'partitionErrorCode') out.push(o[f.name] as number);
    else if (f.struct) for (const x of f.array ? (o[f.name] as unknown[]) : [o[f.name]]) collectErrorCodes(f.struct, version, x, out);
  }
  return out;
}
