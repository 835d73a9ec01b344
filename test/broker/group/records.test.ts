// The group coordinator's records in __consumer_offsets (records.ts, offsets-topic.ts), against
// what Kafka 3.9.1 wrote for the same story (fixtures/record-kafka-segments.ts says what it is):
// the keys and values Kafka wrote read back and encode again to the same bytes; the coordinator,
// driven through the story at Kafka's own times, stores the same batches (byte for byte where the
// timestamps can be made to agree); the records of every write: OffsetCommit, TxnOffsetCommit and
// its marker, the group metadata of each generation, tombstones of deleted, expired and removed
// offsets and groups.
import { describe, expect, it } from 'vitest';
import { writeMarker } from '../../../src/broker/txn/log-markers.js';
import * as R from '../../../src/broker/group/records.js';
import { OFFSETS_TOPIC } from '../../../src/broker/internal-topics.js';
import type { RecordBatch } from '../../../src/codec/records/batch.js';
import { ErrorCode } from '../../../src/codec/index.js';
import { GroupInitialRebalanceDelay, Harness, protocolSuperset } from './harness.js';
import { expectSameRecords, kafkaBatches, kafkaPartitions, OffsetsTopicEnv, shape } from './offsets-topic-env.js';

function harness(env: OffsetsTopicEnv, options: ConstructorParameters<typeof Harness>[0] = {}): Harness {
  return new Harness({ brokerClock: env.clock, records: env.groupSink(), offsetsRetentionCheckIntervalMs: 0, ...options });
}

function at(h: Harness, ms: number): void {
  expect(ms).toBeGreaterThanOrEqual(h.now);
  h.advance(ms - h.now);
}

const value = (b: RecordBatch, i = 0) => b.records[i]!.value;

describe("Kafka 3.9.1's records, read and written by kmock", () => {
  const partitions = [...kafkaPartitions(OFFSETS_TOPIC).keys()].map((p) => `${OFFSETS_TOPIC}-${p}`);

  it('the fixture has the story: offsets, group metadata, tombstones, transactional batches and markers', () => {
    const all = partitions.flatMap((p) => kafkaBatches(p).map((b) => b.batch));
    expect(all.some((b) => b.isControl)).toBe(true);
    expect(all.some((b) => b.isTransactional && !b.isControl)).toBe(true);
    expect(all.some((b) => b.records.some((r) => r.value === null))).toBe(true);
  });

  it('every key and value reads back and encodes again to the same bytes (OffsetCommitKey v1, OffsetCommitValue v3 and v1, GroupMetadataKey v2, GroupMetadataValue v3)', () => {
    const seen = new Set<string>();
    for (const p of partitions) {
      for (const { batch } of kafkaBatches(p)) {
        if (batch.isControl) continue;
        for (const r of batch.records) {
          const key = R.readGroupRecordKey(r.key!);
          if (key.type === 'offset') {
            expect(R.offsetCommitKeyBytes(key.groupId, key.topic, key.partition)).toEqual(r.key);
            const v = R.readOffsetCommitValue(r.value);
            if (v !== null) {
              expect(R.offsetCommitValueBytes(v)).toEqual(r.value);
              seen.add(`offset key v${key.version} value v${r.value!.readInt16BE(0)}`);
            }
          } else if (key.type === 'group') {
            expect(R.groupMetadataKeyBytes(key.groupId)).toEqual(r.key);
            const v = R.readGroupMetadataValue(r.value);
            if (v !== null) {
              expect(R.groupMetadataValueBytes(v)).toEqual(r.value);
              seen.add(`group key v${key.version} value v${r.value!.readInt16BE(0)}`);
            }
          } else {
            throw new Error(`unknown key version ${key.version}`);
          }
        }
      }
    }
    expect([...seen].sort()).toEqual(['group key v2 value v3', 'offset key v1 value v1', 'offset key v1 value v3']);
  });

  it('partitionFor puts every group where Kafka did', () => {
    const h = new Harness();
    for (const p of partitions) {
      for (const { batch } of kafkaBatches(p)) {
        for (const r of batch.isControl ? [] : batch.records) {
          const key = R.readGroupRecordKey(r.key!);
          if (key.type !== 'unknown') expect(`${OFFSETS_TOPIC}-${h.coordinator.partitionFor(key.groupId)}`).toBe(p);
        }
      }
    }
  });
});

describe('the coordinator writes what Kafka 3.9.1 wrote', () => {
  it("g-del: the generation's metadata at SyncGroup, the member's commit, the Empty generation after it leaves, DeleteGroups' tombstones: the same batches, byte for byte", () => {
    const kafka = kafkaBatches('__consumer_offsets-47');
    expect(kafka).toHaveLength(4);
    const synced = R.readGroupMetadataValue(value(kafka[0]!.batch))!;
    const member = synced.members[0]!;
    const clientId = member.clientId;
    const env = new OffsetsTopicEnv(synced.currentStateTimestamp - GroupInitialRebalanceDelay);
    const h = harness(env, { generateUuid: () => member.memberId.slice(clientId.length + 1) });
    expect(h.coordinator.partitionFor('g-del')).toBe(47);

    // JoinGroup: the initial delay ends at the state timestamp Kafka recorded.
    const joined = h.dynamicJoinGroup({
      groupId: 'g-del',
      clientId,
      protocols: [{ name: synced.protocol!, metadata: member.subscription }],
      sessionTimeout: member.sessionTimeoutMs,
      rebalanceTimeout: member.rebalanceTimeoutMs,
    });
    expect(joined.memberId).toBe(member.memberId);
    at(h, kafka[0]!.batch.baseTimestamp);
    expect(h.syncGroupLeader({ groupId: 'g-del', generationId: 1, memberId: member.memberId, assignments: { [member.memberId]: member.assignment } }).errorCode).toBe(ErrorCode.NONE);

    // The commit (its commit timestamp is the request's: OffsetCommit v1 carries one).
    const commit = kafka[1]!.batch;
    const committed = R.readOffsetCommitValue(value(commit))!;
    at(h, commit.baseTimestamp);
    const key = R.readGroupRecordKey(commit.records[0]!.key!) as Extract<R.GroupRecordKey, { type: 'offset' }>;
    const answer = h.coordinator.offsetCommit(1, {
      groupId: 'g-del',
      generationIdOrMemberEpoch: 1,
      memberId: member.memberId,
      topics: [{ name: key.topic, partitions: [{ partitionIndex: key.partition, committedOffset: committed.offset, commitTimestamp: BigInt(committed.commitTimestamp), committedMetadata: committed.metadata }] }],
    });
    expect(answer.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    at(h, kafka[2]!.batch.baseTimestamp);
    expect(h.singleLeaveGroup(member.memberId, null, 'g-del').members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.state('g-del')).toBe('Empty');
    at(h, kafka[3]!.batch.baseTimestamp);
    expect(h.coordinator.deleteGroups(['g-del'])).toEqual([{ groupId: 'g-del', errorCode: ErrorCode.NONE }]);

    const ours = env.offsets(47);
    expect(ours.map((b) => b.bytes.toString('hex'))).toEqual(kafka.map((b) => b.bytes.toString('hex')));
  });

  it('raw-v8: OffsetCommit v8 with a leader epoch and metadata (OffsetCommitValue v3), then OffsetDelete of the simple group: its tombstone alone (no group tombstone at generation 0)', () => {
    const kafka = kafkaBatches('__consumer_offsets-7');
    expect(kafka).toHaveLength(2);
    const v = R.readOffsetCommitValue(value(kafka[0]!.batch))!;
    const env = new OffsetsTopicEnv(v.commitTimestamp);
    const h = harness(env);
    h.commitOffsets('', -1, [{ topic: 'u', partition: 0, offset: v.offset, leaderEpoch: v.leaderEpoch, metadata: v.metadata }], null, 'raw-v8', 8);
    at(h, kafka[1]!.batch.baseTimestamp);
    expect(h.coordinator.offsetDelete({ groupId: 'raw-v8', topics: [{ name: 'u', partitions: [{ partitionIndex: 0 }] }] }).errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('raw-v8')).toBeUndefined();
    const ours = env.offsets(7);
    expect(ours.map((b) => shape(b.batch))).toEqual(kafka.map((b) => shape(b.batch)));
    expectSameRecords(ours[0]!.batch, kafka[0]!.batch);
    // The tombstone was written at the time Kafka wrote it: the whole batch is the same.
    expect(ours[1]!.bytes.toString('hex')).toBe(kafka[1]!.bytes.toString('hex'));
  });

  it('raw-v2: OffsetCommit v2 with a retention time writes OffsetCommitValue v1 with the expire timestamp', () => {
    const kafka = kafkaBatches('__consumer_offsets-13');
    const v = R.readOffsetCommitValue(value(kafka[0]!.batch))!;
    expect(v.expireTimestamp).not.toBeNull();
    const env = new OffsetsTopicEnv(v.commitTimestamp);
    const h = harness(env);
    const r = h.coordinator.offsetCommit(2, {
      groupId: 'raw-v2',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      retentionTimeMs: BigInt(v.expireTimestamp! - v.commitTimestamp),
      topics: [{ name: 'u', partitions: [{ partitionIndex: 0, committedOffset: v.offset, committedMetadata: v.metadata }] }],
    });
    expect(r.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const ours = env.offsets(13);
    expect(ours.map((b) => shape(b.batch))).toEqual(kafka.map((b) => shape(b.batch)));
    expectSameRecords(ours[0]!.batch, kafka[0]!.batch);
    expect(value(ours[0]!.batch)!.readInt16BE(0)).toBe(1);
  });

  it('g-txn: TxnOffsetCommit is a transactional batch of the producer, completed by its marker in the same partition; an aborted transaction of two TxnOffsetCommits, then a committed one', () => {
    const kafka = kafkaBatches('__consumer_offsets-14');
    expect(kafka.map((b) => [b.batch.isTransactional, b.batch.isControl])).toEqual([
      [true, false], [true, true], [true, false], [true, false], [true, true], [true, false], [true, true],
    ]);
    const first = kafka[0]!.batch;
    const producerId = first.producerId;
    const producerEpoch = first.producerEpoch;
    const env = new OffsetsTopicEnv(R.readOffsetCommitValue(value(first))!.commitTimestamp);
    const h = harness(env);
    expect(h.coordinator.partitionFor('g-txn')).toBe(14);
    const txnCommit = (b: RecordBatch) => {
      const v0 = R.readOffsetCommitValue(value(b))!;
      at(h, v0.commitTimestamp);
      const offsets = b.records
        .map((r) => ({ key: R.readGroupRecordKey(r.key!) as Extract<R.GroupRecordKey, { type: 'offset' }>, v: R.readOffsetCommitValue(r.value)! }))
        .sort((a, b) => a.key.partition - b.key.partition);
      const res = h.coordinator.txnOffsetCommit(3, {
        transactionalId: 'tx-1',
        groupId: 'g-txn',
        producerId,
        producerEpoch,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [{ name: 't', partitions: offsets.map((o) => ({ partitionIndex: o.key.partition, committedOffset: o.v.offset, committedLeaderEpoch: -1, committedMetadata: o.v.metadata })) }],
      });
      for (const p of res.topics[0]!.partitions) expect(p.errorCode).toBe(ErrorCode.NONE);
    };
    const markerAt = (b: RecordBatch) => {
      at(h, b.baseTimestamp);
      const result = b.records[0]!.control!.type === 1 ? 'COMMIT' : 'ABORT';
      const written = writeMarker(
        { ...env.services, groups: h.coordinator },
        { producerId, producerEpoch, coordinatorEpoch: 0, result, partitions: [{ topic: OFFSETS_TOPIC, partition: 14 }] },
      );
      expect(written).toEqual([{ topic: OFFSETS_TOPIC, partition: 14, errorCode: ErrorCode.NONE }]);
    };
    for (const { batch } of kafka) (batch.isControl ? markerAt : txnCommit)(batch);

    const ours = env.offsets(14);
    expect(ours).toHaveLength(kafka.length);
    for (const [i, { batch }] of ours.entries()) {
      const theirs = kafka[i]!.batch;
      if (batch.isControl) {
        // Markers are written by the log as Kafka's (MemoryRecords.withEndTransactionMarker): the same bytes.
        expect(ours[i]!.bytes.toString('hex')).toBe(kafka[i]!.bytes.toString('hex'));
        continue;
      }
      // Kafka writes the coordinator's batches with base sequence 0 every time (origin
      // COORDINATOR); kmock's log applies a client's sequence checks, so from the producer's second
      // batch of an epoch the sequence goes on (offsets-topic.ts). Everything else is Kafka's.
      const kafkaShape = shape(theirs);
      expect(shape(batch)).toEqual(i === 0 ? kafkaShape : { ...kafkaShape, baseSequence: batch.baseSequence });
      expectSameRecords(batch, theirs);
    }
    // What came of it: 9 and 6 committed, nothing pending.
    expect(h.coordinator.offsetFetch({ groupId: 'g-txn', topics: [{ name: 't', partitionIndexes: [0, 1] }], requireStable: true }).topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([9n, 6n]);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([]);
  });
});

describe('the records of every write', () => {
  function stableGroup(h: Harness) {
    return h.staticMembersJoinAndRebalance();
  }

  it('a generation change writes the group with every member (static instance ids, timeouts, metadata, assignments); a static member back without a rebalance rewrites it with its new member id', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    const r = stableGroup(h);
    const p = h.coordinator.partitionFor('groupId');
    const groups = () => env.offsets(p).map((b) => b.batch).filter((b) => R.readGroupRecordKey(b.records[0]!.key!).type === 'group');
    expect(groups()).toHaveLength(1);
    const g1 = groups()[0]!;
    expect(shape(g1)).toMatchObject({ producerId: -1n, producerEpoch: -1, baseSequence: -1, isTransactional: false, records: 1 });
    const v1 = R.readGroupMetadataValue(value(g1))!;
    expect(v1).toMatchObject({ protocolType: 'consumer', generation: 1, protocol: 'range', leader: r.leaderId });
    expect(v1.members.map((m) => [m.memberId, m.groupInstanceId, m.sessionTimeoutMs, m.rebalanceTimeoutMs])).toEqual([
      [r.leaderId, 'leader', 500, 500],
      [r.followerId, 'follower', 500, 500],
    ]);
    // The time the group entered CompletingRebalance (the join's end), before the leader's SyncGroup wrote it.
    expect(v1.currentStateTimestamp).toBeGreaterThan(0);
    expect(v1.currentStateTimestamp).toBeLessThanOrEqual(g1.baseTimestamp);

    // The follower's instance comes back with a new member id: Stable, same protocols, no rebalance.
    const back = h.sendJoinGroup({ groupInstanceId: 'follower', protocols: protocolSuperset });
    expect(back.result.errorCode).toBe(ErrorCode.NONE);
    expect(groups()).toHaveLength(2);
    const v2 = R.readGroupMetadataValue(value(groups()[1]!))!;
    expect(v2.generation).toBe(1);
    expect(v2.members.map((m) => m.memberId)).toEqual([r.leaderId, back.result.memberId]);
  });

  it('OffsetCommit: one batch of the request\'s partitions, producer -1, base sequence 0; an oversized batch is refused by the log (max.message.bytes) and answered INVALID_COMMIT_OFFSET_SIZE, nothing stored', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    h.commitOffsets('', -1, [{ topic: 'a', partition: 0, offset: 5n }, { topic: 'b', partition: 1, offset: 6n }]);
    const p = h.coordinator.partitionFor('groupId');
    const [b] = env.offsets(p).map((s) => s.batch);
    expect(shape(b!)).toMatchObject({ producerId: -1n, producerEpoch: -1, baseSequence: 0, isTransactional: false, records: 2 });
    expect(b!.records.map((r) => R.readGroupRecordKey(r.key!))).toEqual([
      { type: 'offset', version: 1, groupId: 'groupId', topic: 'a', partition: 0 },
      { type: 'offset', version: 1, groupId: 'groupId', topic: 'b', partition: 1 },
    ]);
    const big = Array.from({ length: 300 }, (_, i) => ({ topic: 'c', partition: i, offset: 1n, metadata: 'x'.repeat(4000) }));
    const res = h.commitOffsets('', -1, big);
    expect(new Set(res.topics[0]!.partitions.map((x) => x.errorCode))).toEqual(new Set([ErrorCode.INVALID_COMMIT_OFFSET_SIZE]));
    expect(env.offsets(p)).toHaveLength(1);
    expect(h.group().offsets.get('c', 0)).toBeUndefined();
  });

  it('offsets are stored at their batch\'s offset: a transaction completing after a later plain commit does not replace it', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    const txn = (offset: bigint) =>
      h.coordinator.txnOffsetCommit(3, { transactionalId: 'tx', groupId: 'groupId', producerId: 5n, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    txn(10n);
    h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 20n }]);
    const p = h.coordinator.partitionFor('groupId');
    writeMarker({ ...env.services, groups: h.coordinator }, { producerId: 5n, producerEpoch: 0, coordinatorEpoch: 0, result: 'COMMIT', partitions: [{ topic: OFFSETS_TOPIC, partition: p }] });
    expect(h.group().offsets.get('t', 0)).toMatchObject({ offset: 20n, appendSeq: 1 });
    expect(env.offsets(p).map((s) => [Number(s.batch.baseOffset), s.batch.isTransactional, s.batch.isControl])).toEqual([[0, true, false], [1, false, false], [2, true, true]]);
  });

  it('offset expiry writes the expired offsets\' tombstones; an Empty group with a generation that loses its last offset gets its group tombstone too; a simple group (generation 0) none', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env, { offsetsRetentionMs: 1_000 });
    h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 1n }], null, 'simple');
    const r = h.dynamicJoinGroup({ groupId: 'consumers' });
    h.syncGroupLeader({ groupId: 'consumers', generationId: r.generationId, memberId: r.memberId, assignments: {} });
    h.commitOffsets(r.memberId, r.generationId, [{ topic: 't', partition: 3, offset: 7n }], null, 'consumers');
    h.singleLeaveGroup(r.memberId, null, 'consumers');
    h.advance(1_000);
    h.coordinator.expireOffsets();
    expect(h.coordinator.groupIds()).toEqual([]);
    const last = (group: string) => env.offsets(h.coordinator.partitionFor(group)).map((s) => s.batch).at(-1)!;
    const keys = (b: RecordBatch) => b.records.map((x) => ({ key: R.readGroupRecordKey(x.key!), tombstone: x.value === null }));
    expect(keys(last('simple'))).toEqual([{ key: { type: 'offset', version: 1, groupId: 'simple', topic: 't', partition: 0 }, tombstone: true }]);
    expect(keys(last('consumers'))).toEqual([
      { key: { type: 'offset', version: 1, groupId: 'consumers', topic: 't', partition: 3 }, tombstone: true },
      { key: { type: 'group', version: 2, groupId: 'consumers' }, tombstone: true },
    ]);
    expect(shape(last('consumers'))).toMatchObject({ producerId: -1n, baseSequence: -1 });
  });

  it('a deleted topic\'s offsets get their tombstones; DeleteGroups of a group without offsets or generation writes nothing', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    h.commitOffsets('', -1, [{ topic: 'gone', partition: 0, offset: 1n }, { topic: 'kept', partition: 0, offset: 2n }]);
    h.coordinator.onPartitionsDeleted([{ topic: 'gone', partition: 0 }]);
    const p = h.coordinator.partitionFor('groupId');
    const last = env.offsets(p).at(-1)!.batch;
    expect(last.records.map((x) => [R.readGroupRecordKey(x.key!), x.value])).toEqual([[{ type: 'offset', version: 1, groupId: 'groupId', topic: 'gone', partition: 0 }, null]]);
    h.coordinator.offsetCommit(8, { groupId: 'nothing', generationIdOrMemberEpoch: -1, memberId: '', topics: [] });
    const before = env.topics.get(OFFSETS_TOPIC)!.partitions.reduce((n, l) => n + l.logEndOffset, 0);
    expect(h.coordinator.deleteGroups(['nothing'])).toEqual([{ groupId: 'nothing', errorCode: ErrorCode.NONE }]);
    expect(env.topics.get(OFFSETS_TOPIC)!.partitions.reduce((n, l) => n + l.logEndOffset, 0)).toBe(before);
  });

  it('a group id too long for a record (over 32767 bytes) is answered UNKNOWN_SERVER_ERROR, as Kafka\'s serializer throws; nothing is stored', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    const id = 'g'.repeat(40_000);
    expect(h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 1n }], null, id).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(env.offsets(h.coordinator.partitionFor(id))).toEqual([]);
    expect(h.group(id).offsets.size).toBe(0);
  });

  it('the first write creates __consumer_offsets with Kafka\'s configs (offsetsTopicConfigs) when no FindCoordinator did', () => {
    const env = new OffsetsTopicEnv(1_000_000);
    const h = harness(env);
    expect(env.topics.get(OFFSETS_TOPIC)).toBeUndefined();
    h.commitOne('', -1);
    const topic = env.topics.get(OFFSETS_TOPIC)!;
    expect(topic.partitions).toHaveLength(50);
    expect(Object.fromEntries(topic.configs)).toEqual({ 'cleanup.policy': 'compact', 'segment.bytes': '104857600', 'compression.type': 'producer' });
  });
});
