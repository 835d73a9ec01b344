// TxnOffsetCommit, the transaction markers that complete it (onTransactionCompleted), OffsetFetch
// RequireStable, and what the other offset operations do to pending transactional offsets.
// Mirrors Kafka 3.9's GroupCoordinatorTest (testBasicFetchTxnOffsets ... testTxnOffsetMetadataTooLarge,
// testVerificationErrorsForTxnOffsetCommits), GroupMetadataTest (testConsumerBeatsTransactionalOffsetCommit,
// testTransactionBeatsConsumerOffsetCommit, testTransactionalCommitIsAbortedAndConsumerCommitWins,
// testFailedTxnOffsetCommitLeavesNoPendingState) and GroupMetadataManagerTest
// (testTransactionalCommitOffset*), on the fake clock.

import { describe, expect, it } from 'vitest';
import { ClassicGroup } from '../../../src/broker/group/group.js';
import { offsetsPartitionFor } from '../../../src/broker/group/offsets-log.js';
import { validateOffsetCommit } from '../../../src/broker/group/rules.js';
import type { VerifyOffsetsPartition } from '../../../src/broker/group/txn-offsets.js';
import type { OffsetFetchResponseGroup, TxnOffsetCommitResponse } from '../../../src/broker/group/types.js';
import { Harness, groupId, leaderInstanceId } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

const otherGroupId = 'otherGroup';

interface TxnOptions {
  groupId?: string;
  transactionalId?: string;
  producerId?: bigint;
  producerEpoch?: number;
  memberId?: string;
  groupInstanceId?: string | null;
  generationId?: number;
  version?: number;
  offsets?: { topic: string; partition?: number; offset: bigint; metadata?: string | null }[];
}

function txnCommitResponse(h: Harness, o: TxnOptions = {}): TxnOffsetCommitResponse {
  const offsets = o.offsets ?? [{ topic: 'topic', offset: 0n }];
  const topics = [...new Set(offsets.map((x) => x.topic))].map((name) => ({
    name,
    partitions: offsets
      .filter((x) => x.topic === name)
      .map((x) => ({ partitionIndex: x.partition ?? 0, committedOffset: x.offset, committedLeaderEpoch: -1, committedMetadata: x.metadata === undefined ? '' : x.metadata })),
  }));
  return h.coordinator.txnOffsetCommit(o.version ?? 4, {
    transactionalId: o.transactionalId ?? 'dummy-txn-id',
    groupId: o.groupId ?? groupId,
    producerId: o.producerId ?? 1000n,
    producerEpoch: o.producerEpoch ?? 2,
    generationId: o.generationId ?? -1,
    memberId: o.memberId ?? '',
    groupInstanceId: o.groupInstanceId ?? null,
    topics,
  });
}

/** The error of a single-partition TxnOffsetCommit. */
function txnCommit(h: Harness, o: TxnOptions = {}): number {
  return txnCommitResponse(h, o).topics[0]!.partitions[0]!.errorCode;
}

/** The COMMIT/ABORT marker of `producerId` reaches the __consumer_offsets partitions of these groups. */
function marker(h: Harness, producerId: bigint, result: 'COMMIT' | 'ABORT', groups: string[] = [groupId]): void {
  h.coordinator.onTransactionCompleted(producerId, groups.map((g) => h.coordinator.partitionFor(g)), result);
}

function fetch(h: Harness, partitions: [string, number][] | null, id = groupId, requireStable = true): OffsetFetchResponseGroup {
  const topics =
    partitions === null
      ? null
      : [...new Set(partitions.map(([t]) => t))].map((name) => ({ name, partitionIndexes: partitions.filter(([t]) => t === name).map(([, p]) => p) }));
  return h.coordinator.offsetFetch({ groupId: id, topics, requireStable });
}

function committed(h: Harness, topic: string, partition = 0, id = groupId, requireStable = true) {
  return fetch(h, [[topic, partition]], id, requireStable).topics[0]!.partitions[0]!;
}

/** A verifier that records its calls and answers `answer`. */
function recordingVerifier(answer: () => number = () => ErrorCode.NONE): { verify: VerifyOffsetsPartition; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    verify: (...args) => {
      calls.push(args);
      return answer();
    },
  };
}

describe('partitionFor', () => {
  it('is Utils.abs(groupId.hashCode) % offsets.topic.num.partitions, Math.abs for negative hashes', () => {
    const h = new Harness();
    // "groupId".hashCode = 293428218; "otherGroup".hashCode = -204443313; "my-group" = -1906497762.
    expect(h.coordinator.partitionFor(groupId)).toBe(18);
    expect(h.coordinator.partitionFor(otherGroupId)).toBe(13);
    expect(h.coordinator.partitionFor('my-group')).toBe(12);
    // "polygenelubricants".hashCode is Integer.MIN_VALUE: Utils.abs answers 0.
    expect(h.coordinator.partitionFor('polygenelubricants')).toBe(0);
    expect(offsetsPartitionFor('my-group', 7)).toBe(1906497762 % 7);
    expect(new Harness({ offsetsTopicPartitions: 3 }).coordinator.partitionFor(groupId)).toBe(293428218 % 3);
  });
});

describe('TxnOffsetCommit then the marker', () => {
  it('testBasicFetchTxnOffsets: invisible until the COMMIT marker, then committed', () => {
    const h = new Harness();
    expect(txnCommit(h, { offsets: [{ topic: 'topic', offset: 0n }] })).toBe(ErrorCode.NONE);
    expect(committed(h, 'topic', 0, groupId, false)).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'topic', 0, groupId, false)).toMatchObject({ committedOffset: 0n, errorCode: ErrorCode.NONE });
    expect(h.state()).toBe('Empty');
  });

  it('testFetchTxnOffsetsWithAbort: the ABORT marker drops them', () => {
    const h = new Harness();
    expect(txnCommit(h)).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'ABORT');
    expect(committed(h, 'topic', 0, groupId, false)).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
    expect(h.coordinator.pendingTransactionalOffsets(groupId)).toEqual([]);
    expect(h.group().offsets.hasOffsets()).toBe(false);
  });

  it('testFetchPendingTxnOffsetsWithAbort: RequireStable answers UNSTABLE_OFFSET_COMMIT per partition until the marker', () => {
    const h = new Harness();
    expect(txnCommit(h)).toBe(ErrorCode.NONE);
    const r = fetch(h, [['topic', 0], ['non-exist-topic', 0]]);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.topics).toEqual([
      { name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }] },
      { name: 'non-exist-topic', partitions: [{ partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE }] },
    ]);
    marker(h, 1000n, 'ABORT');
    expect(committed(h, 'topic')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });

  it('testFetchPendingTxnOffsetsWithCommit: UNSTABLE_OFFSET_COMMIT, then stable with the offset after COMMIT', () => {
    const h = new Harness();
    expect(txnCommit(h, { offsets: [{ topic: 'offset', offset: 25n, metadata: 'md' }] })).toBe(ErrorCode.NONE);
    expect(committed(h, 'offset')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'offset')).toEqual({ partitionIndex: 0, committedOffset: 25n, committedLeaderEpoch: -1, metadata: 'md', errorCode: ErrorCode.NONE });
  });

  it('testFetchTxnOffsetsIgnoreSpuriousCommit: a COMMIT after the ABORT changes nothing', () => {
    const h = new Harness();
    expect(txnCommit(h)).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'ABORT');
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'topic')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });

  it('testFetchTxnOffsetsOneProducerMultipleGroups: a marker completes only the groups of its partitions', () => {
    const h = new Harness();
    expect(h.coordinator.partitionFor(groupId)).not.toBe(h.coordinator.partitionFor(otherGroupId));
    expect(txnCommit(h, { producerEpoch: 3, offsets: [{ topic: 'topic1', offset: 10n }] })).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { groupId: otherGroupId, producerEpoch: 3, offsets: [{ topic: 'topic2', offset: 15n }] })).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'COMMIT', [groupId]);
    expect(committed(h, 'topic1', 0, groupId).committedOffset).toBe(10n);
    expect(committed(h, 'topic2', 0, groupId).committedOffset).toBe(-1n);
    expect(committed(h, 'topic1', 0, otherGroupId).committedOffset).toBe(-1n);
    expect(committed(h, 'topic2', 0, otherGroupId)).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    marker(h, 1000n, 'COMMIT', [otherGroupId]);
    expect(committed(h, 'topic2', 0, otherGroupId)).toMatchObject({ committedOffset: 15n, errorCode: ErrorCode.NONE });
    expect(committed(h, 'topic2', 0, groupId).committedOffset).toBe(-1n);
  });

  it('testFetchTxnOffsetsMultipleProducersOneGroup: each producer\'s marker completes its own offsets', () => {
    const h = new Harness();
    expect(txnCommit(h, { producerId: 1000n, producerEpoch: 3, offsets: [{ topic: 'topic1', offset: 10n }] })).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { producerId: 1005n, producerEpoch: 4, offsets: [{ topic: 'topic2', offset: 15n }] })).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'topic1').committedOffset).toBe(10n);
    expect(committed(h, 'topic2')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    marker(h, 1005n, 'COMMIT');
    expect(committed(h, 'topic2')).toMatchObject({ committedOffset: 15n, errorCode: ErrorCode.NONE });
  });

  it('two producers pending on one partition: unstable until both complete; the record written later in the log wins', () => {
    const h = new Harness();
    expect(txnCommit(h, { producerId: 1n, offsets: [{ topic: 't', offset: 10n }] })).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { producerId: 2n, offsets: [{ topic: 't', offset: 20n }] })).toBe(ErrorCode.NONE);
    marker(h, 2n, 'COMMIT');
    expect(committed(h, 't', 0, groupId, false).committedOffset).toBe(20n);
    // Producer 1 still holds the partition.
    expect(committed(h, 't')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    // Producer 1's record is older in the log than producer 2's: committing it does not go back.
    marker(h, 1n, 'COMMIT');
    expect(committed(h, 't')).toMatchObject({ committedOffset: 20n, errorCode: ErrorCode.NONE });
    expect(h.eventsOf('txn-offsets-completed').map((e) => [e.producerId, e.materialized.length, e.discarded.length])).toEqual([
      [2n, 1, 0],
      [1n, 0, 1],
    ]);

    // In the other order each commit materializes.
    const k = new Harness();
    txnCommit(k, { producerId: 1n, offsets: [{ topic: 't', offset: 10n }] });
    txnCommit(k, { producerId: 2n, offsets: [{ topic: 't', offset: 20n }] });
    marker(k, 1n, 'COMMIT');
    expect(committed(k, 't', 0, groupId, false).committedOffset).toBe(10n);
    marker(k, 2n, 'COMMIT');
    expect(committed(k, 't').committedOffset).toBe(20n);
  });

  it('a later TxnOffsetCommit of the same transaction replaces the pending offset of its partition', () => {
    const h = new Harness();
    txnCommit(h, { offsets: [{ topic: 't', offset: 5n }, { topic: 't', partition: 1, offset: 6n }] });
    txnCommit(h, { offsets: [{ topic: 't', offset: 7n }] });
    marker(h, 1000n, 'COMMIT');
    expect(fetch(h, [['t', 0], ['t', 1]]).topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([7n, 6n]);
  });
});

describe('plain OffsetCommit vs a pending transactional commit (GroupMetadataTest)', () => {
  const plain = (h: Harness, offset: bigint) => h.commitOffsets('', -1, [{ topic: 'foo', partition: 0, offset }]).topics[0]!.partitions[0]!.errorCode;

  it('testConsumerBeatsTransactionalOffsetCommit: a plain commit written after the transactional one wins', () => {
    const h = new Harness();
    expect(txnCommit(h, { offsets: [{ topic: 'foo', offset: 37n }] })).toBe(ErrorCode.NONE);
    expect(plain(h, 57n)).toBe(ErrorCode.NONE);
    // The plain commit is visible at once; RequireStable still sees the pending transaction.
    expect(committed(h, 'foo', 0, groupId, false).committedOffset).toBe(57n);
    expect(committed(h, 'foo').errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'foo')).toMatchObject({ committedOffset: 57n, errorCode: ErrorCode.NONE });
  });

  it('testTransactionBeatsConsumerOffsetCommit: a transactional commit written after a plain one wins when it commits', () => {
    const h = new Harness();
    expect(plain(h, 57n)).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { offsets: [{ topic: 'foo', offset: 37n }] })).toBe(ErrorCode.NONE);
    expect(committed(h, 'foo', 0, groupId, false).committedOffset).toBe(57n);
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'foo').committedOffset).toBe(37n);
  });

  it('testTransactionalCommitIsAbortedAndConsumerCommitWins', () => {
    const h = new Harness();
    expect(plain(h, 57n)).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { offsets: [{ topic: 'foo', offset: 37n }] })).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'ABORT');
    expect(committed(h, 'foo')).toMatchObject({ committedOffset: 57n, errorCode: ErrorCode.NONE });
    expect(h.group().offsets.hasPendingTxnFrom(1000n)).toBe(false);
  });
});

describe('TxnOffsetCommit validation', () => {
  it('testTxnCommitOffsetWithFencedInstanceId', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    expect(txnCommit(h, { memberId: '', groupInstanceId: leaderInstanceId })).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(txnCommit(h, { memberId: 'invalid-member', groupInstanceId: leaderInstanceId })).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(txnCommit(h, { memberId: rr.leaderId, groupInstanceId: leaderInstanceId, generationId: rr.generation })).toBe(ErrorCode.NONE);
    expect(h.eventsOf('member-fenced').map((e) => e.operation)).toEqual(['TxnOffsetCommit', 'TxnOffsetCommit']);
  });

  it('testTxnCommitOffsetWithInvalidMemberId / KnownMemberId / IllegalGeneration / LegalGeneration (v3+)', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { memberId: 'invalid-member' })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(txnCommit(h, { memberId: r.memberId, generationId: r.generationId + 5 })).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(txnCommit(h, { memberId: r.memberId, generationId: r.generationId })).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { version: 3, memberId: r.memberId, generationId: r.generationId + 1 })).toBe(ErrorCode.ILLEGAL_GENERATION);
    // No member data (generation -1, member ""): transactional commits are exempt from "members only".
    expect(txnCommit(h, {})).toBe(ErrorCode.NONE);
    // The failed validations wrote nothing.
    expect(h.coordinator.pendingTransactionalOffsets(groupId).map((p) => p.offset)).toEqual([0n]);
  });

  it('v0–v2 carry no member data: generation, member and instance are not read', () => {
    const h = new Harness();
    h.dynamicJoinGroup();
    for (const version of [0, 1, 2]) {
      expect(txnCommit(h, { version, memberId: 'invalid-member', generationId: 42, groupInstanceId: 'nobody' })).toBe(ErrorCode.NONE);
    }
    expect(h.eventsOf('member-fenced')).toEqual([]);
  });

  it('no group-state rule: a member of a CompletingRebalance group may commit transactionally (OffsetCommit may not)', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup();
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.commitOne(r.memberId, r.generationId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(txnCommit(h, { memberId: r.memberId, generationId: r.generationId })).toBe(ErrorCode.NONE);
  });

  it('a missing group is created Empty, before the checks, and stays when they fail', () => {
    const h = new Harness();
    expect(txnCommit(h, { groupId: 'fresh', memberId: 'm', generationId: 3 })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.state('fresh')).toBe('Empty');
    expect(h.group('fresh').protocolType).toBeNull();
    expect(h.eventsOf('group-created').map((e) => e.groupId)).toEqual(['fresh']);
    // Offset expiry deletes it (Empty, no offsets).
    h.coordinator.expireOffsets();
    expect(h.coordinator.group('fresh')).toBeUndefined();
  });

  it('an empty group id is INVALID_GROUP_ID and creates nothing', () => {
    const h = new Harness();
    expect(txnCommit(h, { groupId: '' })).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(h.coordinator.groupIds()).toEqual([]);
  });

  it('a Dead group is COORDINATOR_NOT_AVAILABLE (validateOffsetCommit)', () => {
    const dead = new ClassicGroup('g', 'Dead', 0);
    expect(validateOffsetCommit(dead, -1, '', null, true)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(validateOffsetCommit(dead, 1, 'm', null, true)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('testTxnOffsetMetadataTooLarge: all too large → nothing pending', () => {
    const h = new Harness();
    expect(txnCommit(h, { offsets: [{ topic: 'foo', offset: 37n, metadata: 's'.repeat(4097) }] })).toBe(ErrorCode.OFFSET_METADATA_TOO_LARGE);
    expect(committed(h, 'foo').errorCode).toBe(ErrorCode.NONE);
    expect(h.group().offsets.hasOffsets()).toBe(false);
  });

  it('testTransactionalCommitOffsetWithOffsetMetadataTooLargePartialFailure: the others are written', () => {
    const h = new Harness();
    const r = txnCommitResponse(h, { offsets: [{ topic: 'foo', offset: 37n }, { topic: 'foo', partition: 1, offset: 38n, metadata: 's'.repeat(4097) }] });
    expect(r.topics).toEqual([{ name: 'foo', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }, { partitionIndex: 1, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE }] }]);
    expect(fetch(h, [['foo', 0], ['foo', 1]]).topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.UNSTABLE_OFFSET_COMMIT, ErrorCode.NONE]);
    // null metadata is stored as "".
    expect(txnCommit(h, { offsets: [{ topic: 'bar', offset: 1n, metadata: null }] })).toBe(ErrorCode.NONE);
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'bar')).toMatchObject({ committedOffset: 1n, metadata: '' });
  });

  it('testTransactionalCommitOffsetAppendFailure / testFailedTxnOffsetCommitLeavesNoPendingState', () => {
    const h = new Harness();
    h.offsetAppendError = ErrorCode.NOT_ENOUGH_REPLICAS;
    expect(txnCommit(h)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(h.group().offsets.hasOffsets()).toBe(false);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([]);
    h.offsetAppendError = ErrorCode.NONE;
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'topic')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });

  it('a failed append drops the producer\'s earlier pending offset of the same partition (prepare, then fail)', () => {
    const h = new Harness();
    expect(txnCommit(h, { offsets: [{ topic: 't', offset: 5n }, { topic: 't', partition: 1, offset: 6n }] })).toBe(ErrorCode.NONE);
    h.offsetAppendError = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    expect(txnCommit(h, { offsets: [{ topic: 't', offset: 9n }] })).toBe(ErrorCode.NOT_COORDINATOR);
    h.offsetAppendError = ErrorCode.NONE;
    expect(fetch(h, [['t', 0], ['t', 1]]).topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    marker(h, 1000n, 'COMMIT');
    expect(fetch(h, [['t', 0], ['t', 1]]).topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([-1n, 6n]);
  });

  it('below v2, COORDINATOR_LOAD_IN_PROGRESS is answered COORDINATOR_NOT_AVAILABLE (KafkaApis)', () => {
    const h = new Harness();
    h.offsetAppendError = ErrorCode.NETWORK_EXCEPTION;
    expect(txnCommit(h, { version: 2 })).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(txnCommit(h, { version: 1 })).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(txnCommit(h, { version: 0 })).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('leader epochs are read from v2', () => {
    const h = new Harness();
    const commit = (version: number, producerId: bigint) =>
      h.coordinator.txnOffsetCommit(version, {
        transactionalId: 't', groupId, producerId, producerEpoch: 0,
        topics: [{ name: `v${version}`, partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: 7, committedMetadata: '' }] }],
      });
    commit(1, 1n);
    commit(2, 2n);
    marker(h, 1n, 'COMMIT');
    marker(h, 2n, 'COMMIT');
    expect(committed(h, 'v1').committedLeaderEpoch).toBe(-1);
    expect(committed(h, 'v2').committedLeaderEpoch).toBe(7);
  });
});

describe('KIP-890 verification of the offsets partition', () => {
  it('asks once per transaction and offsets partition, with the group\'s partition, before the member checks', () => {
    const v = recordingVerifier();
    const h = new Harness({ verifyOffsetsPartition: v.verify });
    expect(txnCommit(h, { transactionalId: 'tx', producerEpoch: 4 })).toBe(ErrorCode.NONE);
    expect(v.calls).toEqual([['tx', 1000n, 4, 18]]);
    // The transaction is open in __consumer_offsets-18: no new verification.
    expect(txnCommit(h, { transactionalId: 'tx', producerEpoch: 4, offsets: [{ topic: 'x', offset: 1n }] })).toBe(ErrorCode.NONE);
    expect(v.calls).toHaveLength(1);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([{ partition: 18, producerId: 1000n, producerEpoch: 4 }]);
    // Another offsets partition is verified on its own.
    expect(txnCommit(h, { transactionalId: 'tx', producerEpoch: 4, groupId: otherGroupId })).toBe(ErrorCode.NONE);
    expect(v.calls.map((c) => c[3])).toEqual([18, 13]);
    // The marker closes the transaction in its partitions: the next one is verified again.
    marker(h, 1000n, 'COMMIT', [groupId]);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([{ partition: 13, producerId: 1000n, producerEpoch: 4 }]);
    expect(txnCommit(h, { transactionalId: 'tx', producerEpoch: 4 })).toBe(ErrorCode.NONE);
    expect(v.calls.map((c) => c[3])).toEqual([18, 13, 18]);
  });

  it('the open transaction belongs to the offsets partition, not the group', () => {
    const v = recordingVerifier();
    const h = new Harness({ verifyOffsetsPartition: v.verify, offsetsTopicPartitions: 1 });
    txnCommit(h, { groupId: 'a' });
    txnCommit(h, { groupId: 'b' });
    expect(v.calls).toEqual([['dummy-txn-id', 1000n, 2, 0]]);
    // One marker for partition 0 completes both groups.
    h.coordinator.onTransactionCompleted(1000n, [0], 'COMMIT');
    expect(committed(h, 'topic', 0, 'a').committedOffset).toBe(0n);
    expect(committed(h, 'topic', 0, 'b').committedOffset).toBe(0n);
  });

  it('testVerificationErrorsForTxnOffsetCommits: errors mapped as AddPartitionsToTxnManager and storeOffsets do', () => {
    let answer: number = ErrorCode.NONE;
    const h = new Harness({ verifyOffsetsPartition: () => answer });
    const both = (version = 4) => {
      const r = txnCommitResponse(h, { version, offsets: [{ topic: 'topic-1', offset: 0n }, { topic: 'topic-2', offset: 0n }] });
      const codes = r.topics.map((t) => t.partitions[0]!.errorCode);
      expect(codes[0]).toBe(codes[1]);
      return codes[0];
    };
    const cases: [number, number][] = [
      [ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING],
      [ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE],
      [ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS],
      [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS],
      // AddPartitionsToTxnManager: producers expect INVALID_PRODUCER_EPOCH, whatever the version.
      [ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH],
      // Not in the transaction (no AddOffsetsToTxn): TRANSACTION_ABORTABLE only for v4 (genericError).
      [ErrorCode.TRANSACTION_ABORTABLE, ErrorCode.TRANSACTION_ABORTABLE],
    ];
    for (const [verification, expected] of cases) {
      answer = verification;
      expect(both(), `verification ${verification}`).toBe(expected);
    }
    answer = ErrorCode.TRANSACTION_ABORTABLE;
    expect([0, 1, 2, 3].map(both)).toEqual([ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE]);
    answer = ErrorCode.PRODUCER_FENCED;
    expect([0, 2, 3].map(both)).toEqual([ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.INVALID_PRODUCER_EPOCH]);
    answer = ErrorCode.NETWORK_EXCEPTION;
    expect(both(1)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // Nothing was written, and nothing is open.
    expect(h.group().offsets.hasOffsets()).toBe(false);
    expect(h.coordinator.openOffsetsTransactions()).toEqual([]);
  });

  it('a failed verification answers before member validation, and the created group stays', () => {
    const h = new Harness({ verifyOffsetsPartition: () => ErrorCode.TRANSACTION_ABORTABLE });
    h.staticMembersJoinAndRebalance();
    expect(txnCommit(h, { memberId: 'invalid-member', groupInstanceId: leaderInstanceId })).toBe(ErrorCode.TRANSACTION_ABORTABLE);
    expect(h.eventsOf('member-fenced')).toEqual([]);
    expect(txnCommit(h, { groupId: 'fresh', version: 3 })).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(h.state('fresh')).toBe('Empty');
  });

  it('a batch with an older epoch than the producer\'s open transaction is INVALID_PRODUCER_EPOCH (the log\'s epoch check)', () => {
    const v = recordingVerifier();
    const h = new Harness({ verifyOffsetsPartition: v.verify });
    expect(txnCommit(h, { producerEpoch: 5, offsets: [{ topic: 'a', offset: 1n }] })).toBe(ErrorCode.NONE);
    expect(txnCommit(h, { producerEpoch: 4, offsets: [{ topic: 'b', offset: 1n }] })).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(v.calls).toHaveLength(1);
    expect(h.coordinator.pendingTransactionalOffsets(groupId).map((p) => p.topic)).toEqual(['a']);
  });
});

describe('OffsetFetch RequireStable', () => {
  it('is per partition, only where a transaction holds an offset; without RequireStable the committed offset shows', () => {
    const h = new Harness();
    h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 1n }, { topic: 't', partition: 1, offset: 2n }]);
    txnCommit(h, { offsets: [{ topic: 't', offset: 9n }] });
    const stable = fetch(h, [['t', 0], ['t', 1]]);
    expect(stable.errorCode).toBe(ErrorCode.NONE);
    expect(stable.topics[0]!.partitions).toEqual([
      { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT },
      { partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE },
    ]);
    expect(fetch(h, [['t', 0]], groupId, false).topics[0]!.partitions[0]).toMatchObject({ committedOffset: 1n, errorCode: ErrorCode.NONE });
  });

  it('all partitions (topics null) lists committed partitions only: a partition with only a pending offset is absent', () => {
    const h = new Harness();
    h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 1n }]);
    txnCommit(h, { offsets: [{ topic: 't', offset: 9n }, { topic: 'u', offset: 3n }] });
    const all = fetch(h, null);
    expect(all.topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }] }]);
    marker(h, 1000n, 'COMMIT');
    expect(fetch(h, null).topics.map((t) => [t.name, t.partitions[0]!.committedOffset, t.partitions[0]!.errorCode])).toEqual([
      ['t', 9n, ErrorCode.NONE],
      ['u', 3n, ErrorCode.NONE],
    ]);
  });

  it('an unknown group answers -1 and NONE, RequireStable or not', () => {
    const h = new Harness();
    expect(committed(h, 't', 0, 'nobody')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });
});

describe('pending transactional offsets and the other offset operations', () => {
  it('DeleteGroups drops them with the group: a later marker applies nothing to a group of the same id', () => {
    const h = new Harness();
    txnCommit(h, { producerId: 1n, offsets: [{ topic: 't', offset: 5n }] });
    expect(h.coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: ErrorCode.NONE }]);
    expect(h.coordinator.group(groupId)).toBeUndefined();
    // The same group id again, with another producer's pending offset.
    txnCommit(h, { producerId: 2n, offsets: [{ topic: 't', offset: 7n }] });
    marker(h, 1n, 'COMMIT');
    expect(committed(h, 't')).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    marker(h, 2n, 'COMMIT');
    expect(committed(h, 't').committedOffset).toBe(7n);
  });

  it('offset expiry keeps an Empty group that has pending offsets, and expires committed ones under them', () => {
    const h = new Harness();
    h.commitOffsets('', -1, [{ topic: 't', partition: 0, offset: 1n }]);
    txnCommit(h, { offsets: [{ topic: 't', offset: 9n }] });
    h.advance(h.coordinator.config.offsetsRetentionMs);
    h.coordinator.expireOffsets();
    expect(h.state()).toBe('Empty');
    expect(committed(h, 't', 0, groupId, false).committedOffset).toBe(-1n);
    expect(committed(h, 't').errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    expect(h.eventsOf('group-deleted')).toEqual([]);
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 't').committedOffset).toBe(9n);
  });

  it('after an ABORT an Empty group without offsets stays until the next expiry pass', () => {
    const h = new Harness();
    txnCommit(h);
    marker(h, 1000n, 'ABORT');
    expect(h.state()).toBe('Empty');
    h.coordinator.expireOffsets();
    expect(h.coordinator.group(groupId)).toBeUndefined();
    expect(h.eventsOf('group-deleted').map((e) => e.cause)).toEqual(['offsets-expired']);
  });

  it('deleted partitions lose their pending offsets; the producer keeps the group alive until its marker', () => {
    const h = new Harness();
    txnCommit(h, { offsets: [{ topic: 'gone', offset: 4n }] });
    h.coordinator.onPartitionsDeleted([{ topic: 'gone', partition: 0 }]);
    expect(committed(h, 'gone').errorCode).toBe(ErrorCode.NONE);
    // Kafka keeps the producer's (now empty) entry: the group still has "offsets".
    expect(h.state()).toBe('Empty');
    h.coordinator.expireOffsets();
    expect(h.state()).toBe('Empty');
    marker(h, 1000n, 'COMMIT');
    expect(committed(h, 'gone').committedOffset).toBe(-1n);
    expect(h.eventsOf('txn-offsets-completed')[0]).toMatchObject({ materialized: [], discarded: [] });
    h.coordinator.expireOffsets();
    expect(h.coordinator.group(groupId)).toBeUndefined();
  });

  it('OffsetDelete removes the pending offset of the partition it deletes', () => {
    const h = new Harness();
    txnCommit(h, { offsets: [{ topic: 't', offset: 4n }, { topic: 'u', offset: 5n }] });
    const r = h.coordinator.offsetDelete({ groupId, topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] });
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(fetch(h, [['t', 0], ['u', 0]]).topics.map((t) => t.partitions[0]!.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    marker(h, 1000n, 'COMMIT');
    expect(fetch(h, [['t', 0], ['u', 0]]).topics.map((t) => t.partitions[0]!.committedOffset)).toEqual([-1n, 5n]);
  });
});

describe('events and read model', () => {
  it('txn-offsets-pending on each written TxnOffsetCommit, txn-offsets-completed on its marker', () => {
    const h = new Harness();
    h.advance(5);
    txnCommit(h, { transactionalId: 'tx', producerEpoch: 3, offsets: [{ topic: 't', offset: 4n }, { topic: 't', partition: 1, offset: 5n }] });
    expect(h.eventsOf('txn-offsets-pending')).toEqual([
      {
        type: 'txn-offsets-pending',
        groupId,
        at: 1_000_005,
        transactionalId: 'tx',
        producerId: 1000n,
        producerEpoch: 3,
        offsetsPartition: 18,
        offsets: [
          { topic: 't', partition: 0, offset: 4n },
          { topic: 't', partition: 1, offset: 5n },
        ],
      },
    ]);
    expect(h.coordinator.pendingTransactionalOffsets(groupId)).toEqual([
      { producerId: 1000n, topic: 't', partition: 0, offset: 4n, leaderEpoch: -1, metadata: '', commitTimestamp: 1_000_005 },
      { producerId: 1000n, topic: 't', partition: 1, offset: 5n, leaderEpoch: -1, metadata: '', commitTimestamp: 1_000_005 },
    ]);
    marker(h, 1000n, 'ABORT');
    expect(h.eventsOf('txn-offsets-completed')).toEqual([
      {
        type: 'txn-offsets-completed',
        groupId,
        at: 1_000_005,
        producerId: 1000n,
        result: 'ABORT',
        offsetsPartition: 18,
        materialized: [],
        discarded: [
          { topic: 't', partition: 0, offset: 4n },
          { topic: 't', partition: 1, offset: 5n },
        ],
      },
    ]);
    // A marker of a producer with nothing pending emits nothing; failed commits emit nothing.
    marker(h, 1000n, 'COMMIT');
    h.offsetAppendError = ErrorCode.NOT_ENOUGH_REPLICAS;
    txnCommit(h);
    expect(h.eventsOf('txn-offsets-completed')).toHaveLength(1);
    expect(h.eventsOf('txn-offsets-pending')).toHaveLength(1);
    expect(h.coordinator.pendingTransactionalOffsets('nobody')).toEqual([]);
  });
});
