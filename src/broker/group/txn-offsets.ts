// Transactional offset commits: TxnOffsetCommit, and the transaction markers that complete it.
// Kafka 3.9's old (Scala) group coordinator, which a 3.9 KRaft broker runs for classic groups by
// default (group.coordinator.new.enable=false, group.coordinator.rebalance.protocols=classic):
// GroupCoordinator.handleTxnCommitOffsets / doTxnCommitOffsets / scheduleHandleTxnCompletion,
// GroupMetadataManager.storeOffsets with a producer id / handleTxnCompletion, GroupMetadata
// prepareTxnOffsetCommit / onTxnOffsetCommitAppend / failPendingTxnOffsetCommit /
// completePendingTxnOffsetCommit, and the KIP-890 part 1 verification ReplicaManager and
// AddPartitionsToTxnManager do before the append.
//
// A TxnOffsetCommit, in 3.9's order:
//  1. an empty group id is INVALID_GROUP_ID;
//  2. a missing group is created, Empty (it stays even if what follows fails, until offset
//     expiry finds it without offsets);
//  3. unless the producer already has a transaction open in the group's __consumer_offsets
//     partition (offsets-log.ts), the transaction coordinator is asked whether that partition is in
//     the transaction (AddOffsetsToTxn added it). Its answer is mapped as AddPartitionsToTxnManager
//     maps it: PRODUCER_FENCED → INVALID_PRODUCER_EPOCH (every version), TRANSACTION_ABORTABLE →
//     INVALID_TXN_STATE below v4; then as a failed offset append (maybeConvertOffsetCommitError:
//     NETWORK_EXCEPTION → COORDINATOR_LOAD_IN_PROGRESS, ...). A partition not in the transaction
//     thus answers INVALID_TXN_STATE (v0–v3) or TRANSACTION_ABORTABLE (v4);
//  4. member validation (validateOffsetCommit with isTransactional): v3+ requests carry
//     generation/member/instance; ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID; no
//     group-state check (CompletingRebalance is fine) and no heartbeat;
//  5. storeOffsets: partitions whose metadata is too large answer OFFSET_METADATA_TOO_LARGE, the
//     others are appended as one transactional batch (a batch with an older epoch than the
//     producer's open transaction there: INVALID_PRODUCER_EPOCH), then wait for the marker;
//  6. KafkaApis: below v2, COORDINATOR_LOAD_IN_PROGRESS is answered COORDINATOR_NOT_AVAILABLE.
//
// The marker (onTransactionCompleted) completes the producer's pending offsets in every group
// whose __consumer_offsets partition it reached, as the marker's partitions say; groups in other
// partitions keep theirs until their own marker arrives.

import { offsetAppendErrorToResponseError } from './errors.js';
import type { TxnOffsetEntry } from './events.js';
import type { ClassicGroup } from './group.js';
import { isValidGroupId, type GroupKernel } from './kernel.js';
import type { OffsetsLog } from './offsets-log.js';
import type { TopicPartitionOffset } from './offsets.js';
import { commitResponse, dedupeCommits, type PartitionCommit } from './offset-requests.js';
import { offsetRecords } from './offset-manager.js';
import { validateOffsetCommit } from './rules.js';
import type { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from './types.js';
import { ErrorCode } from '../../codec/index.js';

/**
 * KIP-890 part 1: is the group's __consumer_offsets partition in the producer's transaction? The
 * transaction coordinator's answer for that one partition (NONE, or its error: PRODUCER_FENCED,
 * INVALID_PRODUCER_ID_MAPPING, TRANSACTION_ABORTABLE, CONCURRENT_TRANSACTIONS, ...), unmapped.
 * Without one, nothing is verified (transaction.partition.verification.enable=false).
 */
export type VerifyOffsetsPartition = (transactionalId: string, producerId: bigint, producerEpoch: number, offsetsPartition: number) => number;

export type TransactionResult = 'COMMIT' | 'ABORT';

/** A pending transactional offset, for the read model. */
export interface PendingTxnOffset {
  producerId: bigint;
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
}

export class TxnOffsetManager {
  constructor(
    private readonly kernel: GroupKernel,
    private readonly log: OffsetsLog,
    private readonly verify: VerifyOffsetsPartition | undefined,
  ) {}

  txnOffsetCommit(version: number, request: TxnOffsetCommitRequest): TxnOffsetCommitResponse {
    return this.kernel.run(() => {
      const now = this.kernel.clock.now();
      const commits = dedupeCommits(
        request.topics.flatMap((t) =>
          t.partitions.map((p) => ({
            topic: t.name,
            partition: p.partitionIndex,
            offset: {
              offset: p.committedOffset,
              leaderEpoch: version >= 2 ? (p.committedLeaderEpoch ?? -1) : -1,
              metadata: p.committedMetadata ?? '',
              commitTimestamp: now,
              expireTimestamp: null,
            },
          })),
        ),
      );
      let errors = this.commit(version, request, commits);
      // KafkaApis: clients before 2.0 (TxnOffsetCommit < v2) do not know COORDINATOR_LOAD_IN_PROGRESS.
      if (version < 2) {
        errors = errors.map((e) => (e === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.COORDINATOR_NOT_AVAILABLE : e));
      }
      return { topics: commitResponse(commits, errors) };
    });
  }

  private commit(version: number, request: TxnOffsetCommitRequest, commits: PartitionCommit[]): number[] {
    const all = (code: number) => commits.map(() => code);
    if (!isValidGroupId(request.groupId, false)) return all(ErrorCode.INVALID_GROUP_ID);
    const group = this.kernel.group(request.groupId) ?? this.kernel.createGroup(request.groupId);
    const offsetsPartition = this.log.partitionFor(group.groupId);
    const { transactionalId, producerId, producerEpoch } = request;

    const verification = this.verifyPartition(version, transactionalId, producerId, producerEpoch, offsetsPartition);
    if (verification !== ErrorCode.NONE) return all(offsetAppendErrorToResponseError(verification));

    // Old versions carry no member data: generation -1, member "", no instance (the request defaults).
    const generationId = version >= 3 ? (request.generationId ?? -1) : -1;
    const memberId = version >= 3 ? (request.memberId ?? '') : '';
    const groupInstanceId = this.kernel.instanceIdOf(group, version >= 3 ? (request.groupInstanceId ?? null) : null);
    const asked = this.kernel.hooks.run('offsetCommit', group, { generationId, memberId, groupInstanceId, canCarryInstanceId: version >= 3, operation: 'TxnOffsetCommit' });
    const error = asked.kind === 'override' ? asked.decision : validateOffsetCommit(group, generationId, memberId, groupInstanceId, true);
    if (error === ErrorCode.FENCED_INSTANCE_ID && asked.kind !== 'override') this.kernel.engine.fenced(group, memberId, groupInstanceId!, 'TxnOffsetCommit');
    if (error !== ErrorCode.NONE) return all(error);
    if (group.has(memberId)) this.kernel.hooks.run('memberActive', group, memberId, 'TxnOffsetCommit');
    return this.storeTxnOffsets(group, offsetsPartition, transactionalId, producerId, producerEpoch, commits);
  }

  /**
   * ReplicaManager.maybeStartTransactionVerificationForPartition: skipped while the producer has a
   * transaction open in the partition; else the transaction coordinator's answer, mapped as
   * AddPartitionsToTxnManager maps it (TxnOffsetCommit v4+ is its `genericError` operation).
   */
  private verifyPartition(version: number, transactionalId: string, producerId: bigint, producerEpoch: number, offsetsPartition: number): number {
    if (this.verify === undefined || this.log.hasOngoingTransaction(offsetsPartition, producerId)) return ErrorCode.NONE;
    const code = this.verify(transactionalId, producerId, producerEpoch, offsetsPartition);
    if (code === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (code === ErrorCode.TRANSACTION_ABORTABLE && version < 4) return ErrorCode.INVALID_TXN_STATE;
    return code;
  }

  /** GroupMetadataManager.storeOffsets with a producer id. */
  private storeTxnOffsets(
    group: ClassicGroup,
    offsetsPartition: number,
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    commits: PartitionCommit[],
  ): number[] {
    const { offsetMetadataMaxSize } = this.kernel.config;
    const tooLarge = (c: PartitionCommit) => c.offset.metadata.length > offsetMetadataMaxSize;
    const valid = commits.filter((c) => !tooLarge(c));
    if (valid.length === 0) return commits.map(() => ErrorCode.OFFSET_METADATA_TOO_LARGE);
    let raw = this.log.checkProducerEpoch(offsetsPartition, producerId, producerEpoch);
    let baseOffset = -1;
    if (raw === ErrorCode.NONE) {
      // One transactional batch with the producer's id and epoch; the marker completes it.
      const appended = this.kernel.appendRecords(group.groupId, 'txn-offset-commit', offsetRecords(group.groupId, valid), { producerId, producerEpoch });
      raw = appended.errorCode;
      baseOffset = appended.baseOffset;
    }
    if (raw === ErrorCode.NONE) {
      this.log.appendTransactionalBatch(offsetsPartition, producerId, producerEpoch);
      if (!group.is('Dead')) {
        for (const c of valid) group.offsets.prepareTxn(producerId, c.topic, c.partition, { ...c.offset, appendSeq: baseOffset });
        this.kernel.emit({
          type: 'txn-offsets-pending',
          groupId: group.groupId,
          transactionalId,
          producerId,
          producerEpoch,
          offsetsPartition,
          offsets: valid.map((c) => ({ topic: c.topic, partition: c.partition, offset: c.offset.offset })),
        });
      }
    } else if (!group.is('Dead')) {
      group.offsets.failTxn(producerId, valid);
    }
    const error = raw === ErrorCode.NONE ? ErrorCode.NONE : offsetAppendErrorToResponseError(raw);
    return commits.map((c) => (tooLarge(c) ? ErrorCode.OFFSET_METADATA_TOO_LARGE : error));
  }

  /**
   * The producer's COMMIT or ABORT marker was written to these __consumer_offsets partitions
   * (GroupCoordinator.onTransactionCompleted → handleTxnCompletion): in every live group of those
   * partitions, the producer's pending offsets are materialized or dropped.
   */
  onTransactionCompleted(producerId: bigint, offsetsPartitions: Iterable<number>, result: TransactionResult): void {
    this.kernel.run(() => {
      const partitions = new Set(offsetsPartitions);
      for (const partition of partitions) this.log.appendMarker(partition, producerId);
      for (const group of this.kernel.allGroups()) {
        if (group.is('Dead')) continue;
        const offsetsPartition = this.log.partitionFor(group.groupId);
        if (!partitions.has(offsetsPartition)) continue;
        const outcome = group.offsets.completeTxn(producerId, result === 'COMMIT');
        if (!outcome) continue;
        this.kernel.emit({
          type: 'txn-offsets-completed',
          groupId: group.groupId,
          producerId,
          result,
          offsetsPartition,
          materialized: outcome.materialized.map(entry),
          discarded: outcome.discarded.map(entry),
        });
      }
    });
  }

  /** The group's pending transactional offsets, by producer; [] for an unknown group. */
  pendingOffsets(groupId: string): PendingTxnOffset[] {
    const group = this.kernel.group(groupId);
    if (!group) return [];
    return group.offsets.pendingTxnOffsets().map(({ producerId, topic, partition, offset }) => ({
      producerId,
      topic,
      partition,
      offset: offset.offset,
      leaderEpoch: offset.leaderEpoch,
      metadata: offset.metadata,
      commitTimestamp: offset.commitTimestamp,
    }));
  }
}

function entry(o: TopicPartitionOffset): TxnOffsetEntry {
  return { topic: o.topic, partition: o.partition, offset: o.offset.offset };
}
