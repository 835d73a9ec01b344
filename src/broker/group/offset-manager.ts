// Committed offsets of the classic groups: OffsetCommit, OffsetFetch, OffsetDelete, offset expiry
// and the offsets of deleted partitions. Kafka 3.9's GroupCoordinator.handleCommitOffsets /
// handleFetchOffsets / handleDeleteOffsets and GroupMetadataManager.storeOffsets / getOffsets /
// cleanupGroupMetadata / handleDeletedPartitions (OffsetMetadataManager in 4.x). TxnOffsetCommit
// and the transaction markers that complete it are txn-offsets.ts; one group's offsets (committed
// and pending transactional) are stored by offsets.ts.
//
// Pending transactional offsets, as 3.9 treats them here: OffsetFetch never shows them (with
// RequireStable their partitions answer UNSTABLE_OFFSET_COMMIT); OffsetDelete and deleted topics
// remove them (the producer's entry stays until its marker, and keeps an Empty group alive);
// expiry never touches them (but may expire the committed offset of the same partition);
// DeleteGroups drops them with the group, so a later marker finds nothing to apply.

import type { TimerHandle } from './clock.js';
import { offsetAppendErrorToResponseError } from './errors.js';
import type { ClassicGroup } from './group.js';
import { isValidGroupId, type GroupKernel } from './kernel.js';
import type { OffsetsLog } from './offsets-log.js';
import type { StoredOffset, TopicPartitionOffset } from './offsets.js';
import type { GroupRecord } from './records.js';
import { commitResponse, dedupeCommits, dedupePartitions, groupByTopic, type PartitionCommit } from './offset-requests.js';
import { validateOffsetCommit } from './rules.js';
import { CONSUMER_PROTOCOL_TYPE } from './subscription.js';
import type {
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  OffsetFetchRequestGroup,
  OffsetFetchResponseGroup,
  OffsetFetchResponsePartition,
} from './types.js';
import { ErrorCode } from '../../codec/index.js';

export class OffsetManager {
  private cleanupTimer: TimerHandle | null = null;

  constructor(
    private readonly kernel: GroupKernel,
    private readonly log: OffsetsLog,
  ) {
    this.scheduleOffsetCleanup();
  }

  // ==============================================================================================
  // OffsetCommit

  offsetCommit(version: number, request: OffsetCommitRequest): OffsetCommitResponse {
    return this.kernel.run(() => {
      const now = this.kernel.clock.now();
      const generationId = version >= 1 ? (request.generationIdOrMemberEpoch ?? -1) : -1;
      const memberId = version >= 1 ? (request.memberId ?? '') : '';
      const groupInstanceId = version >= 7 ? (request.groupInstanceId ?? null) : null;
      const retentionTimeMs = version >= 2 && version <= 4 ? (request.retentionTimeMs ?? -1n) : -1n;
      const expireTimestamp = retentionTimeMs === -1n ? null : now + Number(retentionTimeMs);
      const commits = dedupeCommits(
        request.topics.flatMap((t) =>
          t.partitions.map((p) => ({
            topic: t.name,
            partition: p.partitionIndex,
            offset: {
              offset: p.committedOffset,
              leaderEpoch: version >= 6 ? (p.committedLeaderEpoch ?? -1) : -1,
              metadata: p.committedMetadata ?? '',
              commitTimestamp:
                version === 1 && p.commitTimestamp !== undefined && p.commitTimestamp !== -1n ? Number(p.commitTimestamp) : now,
              expireTimestamp,
            },
          })),
        ),
      );
      const errors = this.commitOffsets(request.groupId, generationId, memberId, groupInstanceId, commits, version >= 7);
      return { topics: commitResponse(commits, errors) };
    });
  }

  private commitOffsets(
    groupId: string,
    generationId: number,
    memberId: string,
    requestedInstanceId: string | null,
    commits: PartitionCommit[],
    canCarryInstanceId: boolean,
  ): number[] {
    const all = (code: number) => commits.map(() => code);
    if (!isValidGroupId(groupId, true)) return all(ErrorCode.INVALID_GROUP_ID);
    let group = this.kernel.group(groupId);
    if (!group) {
      // Without group management (generation -1) a commit creates a "simple" Empty group; with a
      // generation it comes from a stale member of a group that no longer exists.
      if (generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
      group = this.kernel.createGroup(groupId);
    }
    const groupInstanceId = this.kernel.instanceIdOf(group, requestedInstanceId);
    const asked = this.kernel.hooks.run('offsetCommit', group, { generationId, memberId, groupInstanceId, canCarryInstanceId, operation: 'OffsetCommit' });
    if (asked.kind === 'override') return all(asked.decision);
    const error = validateOffsetCommit(group, generationId, memberId, groupInstanceId, false);
    if (error === ErrorCode.FENCED_INSTANCE_ID) this.kernel.engine.fenced(group, memberId, groupInstanceId!, 'OffsetCommit');
    if (error !== ErrorCode.NONE) return all(error);
    if (group.has(memberId)) this.kernel.hooks.run('memberActive', group, memberId, 'OffsetCommit');
    switch (group.state) {
      case 'Empty':
        return this.storeOffsets(group, commits);
      case 'Stable':
      case 'PreparingRebalance':
        // Commits keep the session alive; during PreparingRebalance the previous generation may
        // still commit (it learns about the rebalance from its heartbeats).
        this.kernel.engine.completeAndScheduleNextHeartbeatExpiration(group, group.get(memberId));
        return this.storeOffsets(group, commits);
      case 'CompletingRebalance':
        // A member of the new generation that has not synced yet; make it finish the rebalance.
        return all(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Dead':
        return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  }

  /**
   * GroupMetadataManager.storeOffsets (no producer id): metadata size check, then one batch of
   * offset commit records for the valid partitions, applied once appended. Every record of the
   * batch has the batch's base offset as its position.
   */
  private storeOffsets(group: ClassicGroup, commits: PartitionCommit[]): number[] {
    const { offsetMetadataMaxSize } = this.kernel.config;
    const tooLarge = (c: PartitionCommit) => c.offset.metadata.length > offsetMetadataMaxSize;
    const valid = commits.filter((c) => !tooLarge(c));
    if (valid.length === 0) return commits.map(() => ErrorCode.OFFSET_METADATA_TOO_LARGE);
    const appended = this.kernel.appendRecords(group.groupId, 'offset-commit', offsetRecords(group.groupId, valid));
    const error = appended.errorCode === ErrorCode.NONE ? ErrorCode.NONE : offsetAppendErrorToResponseError(appended.errorCode);
    if (error === ErrorCode.NONE && !group.is('Dead')) {
      for (const c of valid) {
        const stored: StoredOffset = { ...c.offset, appendSeq: appended.baseOffset };
        group.offsets.put(c.topic, c.partition, stored);
      }
    }
    return commits.map((c) => (tooLarge(c) ? ErrorCode.OFFSET_METADATA_TOO_LARGE : error));
  }

  // ==============================================================================================
  // OffsetFetch

  /** One group of an OffsetFetch. Offsets are returned whatever the group's state. */
  offsetFetch(request: OffsetFetchRequestGroup): OffsetFetchResponseGroup {
    return this.kernel.run(() => {
      const requireStable = request.requireStable ?? false;
      if (!isValidGroupId(request.groupId, true)) {
        return { groupId: request.groupId, topics: [], errorCode: ErrorCode.INVALID_GROUP_ID };
      }
      const group = this.kernel.group(request.groupId);
      const requested = request.topics === null ? null : dedupePartitions(request.topics);
      const none = (partition: number): OffsetFetchResponsePartition => ({
        partitionIndex: partition,
        committedOffset: -1n,
        committedLeaderEpoch: -1,
        metadata: '',
        errorCode: ErrorCode.NONE,
      });
      let rows: { topic: string; partition: OffsetFetchResponsePartition }[];
      if (!group || group.is('Dead')) {
        rows = (requested ?? []).map(({ topic, partition }) => ({ topic, partition: none(partition) }));
      } else {
        const wanted = requested ?? group.offsets.all().map(({ topic, partition }) => ({ topic, partition }));
        rows = wanted.map(({ topic, partition }) => {
          if (requireStable && group.offsets.hasPendingCommit(topic, partition)) {
            return { topic, partition: { ...none(partition), errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT } };
          }
          const stored = group.offsets.get(topic, partition);
          return {
            topic,
            partition: stored
              ? {
                  partitionIndex: partition,
                  committedOffset: stored.offset,
                  committedLeaderEpoch: stored.leaderEpoch,
                  metadata: stored.metadata,
                  errorCode: ErrorCode.NONE,
                }
              : none(partition),
          };
        });
      }
      return { groupId: request.groupId, topics: groupByTopic(rows), errorCode: ErrorCode.NONE };
    });
  }

  // ==============================================================================================
  // OffsetDelete, deleted partitions, expiry

  offsetDelete(request: OffsetDeleteRequest): OffsetDeleteResponse {
    return this.kernel.run(() => {
      if (!isValidGroupId(request.groupId, false)) return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
      const group = this.kernel.group(request.groupId);
      if (!group || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
      const partitions = dedupePartitions(
        request.topics.map((t) => ({ name: t.name, partitionIndexes: t.partitions.map((p) => p.partitionIndex) })),
      );
      let errors: number[];
      if (group.is('Empty')) {
        errors = partitions.map(() => ErrorCode.NONE);
      } else if (group.protocolType === CONSUMER_PROTOCOL_TYPE || group.subscribedTopics !== undefined) {
        // Offsets of topics the group consumes must stay; unknown subscriptions protect everything.
        errors = partitions.map(({ topic }) =>
          group.isSubscribedToTopic(topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode.NONE,
        );
      } else {
        return { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] };
      }
      const eligible = partitions.filter((_, i) => errors[i] === ErrorCode.NONE);
      if (eligible.length > 0) this.kernel.cleanupGroup(group, group.offsets.remove(eligible), 'delete-groups');
      const rows = partitions.map(({ topic, partition }, i) => ({ topic, partition: { partitionIndex: partition, errorCode: errors[i]! } }));
      return { errorCode: ErrorCode.NONE, topics: groupByTopic(rows) };
    });
  }

  /** Topic partitions were deleted: their offsets go from every group (handleDeletedPartitions). */
  onPartitionsDeleted(partitions: readonly { topic: string; partition: number }[]): void {
    this.kernel.run(() => {
      for (const group of this.kernel.allGroups()) this.kernel.cleanupGroup(group, group.offsets.remove(partitions), 'delete-groups');
    });
  }

  /**
   * The periodic offsets.retention task (cleanupGroupMetadata): expire offsets, then delete Empty
   * groups that have none left. Runs every offsetsRetentionCheckIntervalMs; callable directly.
   */
  expireOffsets(): void {
    this.kernel.run(() => {
      const now = this.kernel.clock.now();
      const retention = this.kernel.config.offsetsRetentionMs;
      for (const group of this.kernel.allGroups()) {
        let expired: TopicPartitionOffset[] = [];
        if (group.protocolType !== null && group.is('Empty')) {
          // Nobody consumes: everything expires `retention` after the group became Empty (after
          // its commit when the group has no state timestamp: loaded from a v0/v1 record).
          const since = group.currentStateTimestamp;
          expired = group.offsets.removeExpired(now, retention, (o) => (since >= 0 ? since : o.commitTimestamp));
        } else if (group.subscribedTopics !== undefined && group.is('Stable')) {
          // Consumers exist: only offsets of topics nobody subscribes to expire, by commit time.
          expired = group.offsets.removeExpired(now, retention, (o) => o.commitTimestamp, group.subscribedTopics);
        } else if (group.protocolType === null) {
          // A simple (offset-storage-only) group.
          expired = group.offsets.removeExpired(now, retention, (o) => o.commitTimestamp);
        }
        this.kernel.cleanupGroup(group, expired, 'offsets-expired');
      }
    });
  }

  /** Stops the expiry task (the coordinator closes). */
  close(): void {
    this.cleanupTimer?.cancel();
    this.cleanupTimer = null;
  }

  private scheduleOffsetCleanup(): void {
    const interval = this.kernel.config.offsetsRetentionCheckIntervalMs;
    if (interval <= 0 || this.kernel.isClosed) return;
    this.cleanupTimer = this.kernel.timers.schedule(
      interval,
      () => {
        this.kernel.onTimer(() => this.expireOffsets())();
        this.scheduleOffsetCleanup();
      },
      { name: 'offsets expiration', housekeeping: true },
    );
  }
}

/** The offset commit records of a storeOffsets batch (generateOffsetRecords), in request order. */
export function offsetRecords(groupId: string, commits: readonly PartitionCommit[]): GroupRecord[] {
  return commits.map((c) => ({ type: 'offset', groupId, topic: c.topic, partition: c.partition, value: c.offset }));
}
