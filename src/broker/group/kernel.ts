// The coordinator's kernel: what membership.ts, offset-manager.ts and admin.ts share. It owns the
// group registry (creation and removal), the outbox that delivers responses and events once an
// operation has finished, timer callbacks run as operations, and member validation.
//
// Kafka splits the same job between GroupCoordinatorShard (the shard's timer and the records an
// operation produces, replayed once it completes) and GroupMetadataManager (the group map,
// getOrMaybeCreateClassicGroup, removeGroup, validateCurrentMember's callers). Everything else imports
// this module, and it imports none of them: the pieces never import each other in a circle.

import type { Clock, Timers } from './clock.js';
import type { GroupCoordinatorConfig } from './config.js';
import type { GroupEvent, GroupEventListener } from './events.js';
import { ClassicGroup, GroupInvariantError } from './group.js';
import { HookChain, type MemberOperation } from './hooks.js';
import { RebalanceEngine, type GroupEventInput } from './rebalance.js';
import { validateCurrentMember } from './rules.js';
import { offsetsPartitionFor } from './offsets-log.js';
import type { TopicPartitionOffset } from './offsets.js';
import type { GroupAppendResult, GroupRecord, GroupRecordCause } from './records.js';
import type { JoinReasonName } from './policies/types.js';
import { ErrorCode } from '../../codec/index.js';

/** RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH / NO_SEQUENCE. */
const NO_PRODUCER_ID = -1n;
const NO_PRODUCER_EPOCH = -1;
const NO_SEQUENCE = -1;

export interface KernelOptions {
  config: Readonly<GroupCoordinatorConfig>;
  clock: Clock;
  timers: Timers;
  listener: GroupEventListener | undefined;
  /** How a JoinGroup's Reason is read for the rebalance history (policies/join-reasons.ts). */
  readJoinReason: (clientReason: string | null) => JoinReasonName;
}

export class GroupKernel {
  readonly config: Readonly<GroupCoordinatorConfig>;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly engine: RebalanceEngine;
  /** The plug-ins' hook table (hooks.ts); empty until the coordinator installs the policies. */
  readonly hooks = new HookChain();
  private readonly listener: GroupEventListener | undefined;
  /** In creation order (ListGroups order). */
  private readonly groups = new Map<string, ClassicGroup>();
  private closed = false;

  private readonly outbox: (() => void)[] = [];
  private depth = 0;
  private flushing = false;

  constructor(options: KernelOptions) {
    this.config = options.config;
    this.clock = options.clock;
    this.timers = options.timers;
    this.listener = options.listener;
    this.engine = new RebalanceEngine({
      config: this.config,
      clock: this.clock,
      timers: this.timers,
      emit: (e) => this.emit(e),
      onTimer: (fn) => this.onTimer(fn),
      hooks: this.hooks,
      readJoinReason: options.readJoinReason,
      appendRecords: (groupId, cause, records) => this.appendRecords(groupId, cause, records),
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  // --- the group registry ----------------------------------------------------------------------------

  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** Every group, in creation order (a copy: callers may drop groups while iterating). */
  allGroups(): ClassicGroup[] {
    return [...this.groups.values()];
  }

  createGroup(groupId: string): ClassicGroup {
    const group = new ClassicGroup(groupId, 'Empty', this.clock.now());
    this.groups.set(groupId, group);
    this.emit({ type: 'group-created', groupId });
    return group;
  }

  /**
   * GroupMetadataManager.addGroup, for a group loaded from __consumer_offsets: kept unless a group
   * of that id is already there (then that one is returned, as Kafka keeps the cached group).
   */
  addLoadedGroup(group: ClassicGroup): ClassicGroup {
    const current = this.groups.get(group.groupId);
    if (current !== undefined) return current;
    this.groups.set(group.groupId, group);
    this.emit({ type: 'group-created', groupId: group.groupId });
    return group;
  }

  /**
   * GroupMetadataManager.cleanupGroupMetadata for one group, once its selector has removed
   * `removed` (expired, deleted or all offsets): an Empty group without offsets is Dead and
   * forgotten; one batch of tombstones goes to the group's __consumer_offsets partition, for the
   * removed offsets and, for a dead group that had a generation, its metadata ("we avoid writing
   * the tombstone when the generationId is 0, since this group is only using Kafka for offset
   * storage"). Nothing is written when there is nothing to delete; a failed append is ignored, as
   * Kafka logs it and writes the tombstones again at the next purge.
   */
  cleanupGroup(group: ClassicGroup, removed: readonly TopicPartitionOffset[], cause: 'delete-groups' | 'offsets-expired'): void {
    if (group.is('Empty') && !group.offsets.hasOffsets()) this.engine.transition(group, 'Dead');
    const tombstones: GroupRecord[] = removed.map(({ topic, partition }) => ({ type: 'offset', groupId: group.groupId, topic, partition, value: null }));
    const generation = group.generationId;
    if (group.is('Dead') && this.groups.get(group.groupId) === group) {
      this.dropGroup(group, cause);
      if (generation > 0) tombstones.push({ type: 'group', groupId: group.groupId, value: null });
    }
    if (tombstones.length > 0) this.appendRecords(group.groupId, 'tombstones', tombstones);
  }

  // --- records (the GroupRecordSink: __consumer_offsets) ---------------------------------------

  /** GroupMetadataManager.partitionFor. */
  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.config.offsetsTopicPartitions);
  }

  /**
   * One batch of the group's records into its __consumer_offsets partition, stamped with the
   * clock's time; a TxnOffsetCommit's is transactional with the producer's id and epoch. Returns
   * the sink's raw answer.
   */
  appendRecords(groupId: string, cause: GroupRecordCause, records: GroupRecord[], producer?: { producerId: bigint; producerEpoch: number }): GroupAppendResult {
    const isOffsetCommit = cause === 'offset-commit' || cause === 'txn-offset-commit';
    return this.config.records.append({
      partition: this.partitionFor(groupId),
      cause,
      records,
      timestamp: this.clock.now(),
      producerId: producer?.producerId ?? NO_PRODUCER_ID,
      producerEpoch: producer?.producerEpoch ?? NO_PRODUCER_EPOCH,
      baseSequence: isOffsetCommit ? 0 : NO_SEQUENCE,
      transactional: producer !== undefined,
    });
  }

  /** removeGroup: stops the group's timers (the plug-ins' too) and forgets it. */
  dropGroup(group: ClassicGroup, cause: 'delete-groups' | 'offsets-expired'): void {
    this.engine.cancelAllTimers(group);
    this.hooks.stopTimers(group);
    if (this.groups.get(group.groupId) === group) this.groups.delete(group.groupId);
    this.emit({ type: 'group-deleted', groupId: group.groupId, cause });
  }

  // --- member validation ---------------------------------------------------------------------------

  /** validateCurrentMember, reporting fenced instances. */
  validateMember(group: ClassicGroup, memberId: string, groupInstanceId: string | null, operation: MemberOperation): number {
    const error = validateCurrentMember(group, memberId, groupInstanceId);
    if (error === ErrorCode.FENCED_INSTANCE_ID) {
      this.engine.fenced(group, memberId, groupInstanceId!, operation);
      this.hooks.run('memberFenced', group, memberId, groupInstanceId!, operation);
    }
    return error;
  }

  /** The group.instance.id a request is read with (a plug-in may read it differently). */
  instanceIdOf(group: ClassicGroup, groupInstanceId: string | null): string | null {
    if (groupInstanceId === null) return null;
    const r = this.hooks.run('requestInstanceId', group, groupInstanceId);
    return r.kind === 'override' ? r.decision : groupInstanceId;
  }

  // --- operations and the outbox -------------------------------------------------------------------

  /** A response callback that is answered at most once, delivered after the current operation. */
  once<R>(deliver: (result: R) => void): (result: R) => void {
    let answered = false;
    return (result: R) => {
      if (answered) return;
      answered = true;
      this.outbox.push(() => deliver(result));
    };
  }

  emit(event: GroupEventInput): void {
    const listener = this.listener;
    if (!listener) return;
    const full = { ...event, at: this.clock.now() } as GroupEvent;
    this.outbox.push(() => listener(full));
  }

  /** Run one operation; flush queued responses and events when the outermost one finishes. */
  run<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.depth === 0 && !this.flushing) this.flush();
    }
  }

  /** An admin operation must never leave a group half-changed: a broken invariant is reported. */
  guard<T>(groupId: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof GroupInvariantError) this.emit({ type: 'internal-error', groupId, message: e.message });
      throw e;
    }
  }

  /** Wraps a timer callback as an operation. */
  onTimer(fn: () => void): () => void {
    return () => this.runTimer(fn);
  }

  /** Stops every group's timers. Parked requests stay unanswered, as on a broker shutdown. */
  close(): void {
    this.closed = true;
    for (const group of this.groups.values()) {
      this.engine.cancelAllTimers(group);
      this.hooks.stopTimers(group);
    }
  }

  private flush(): void {
    this.flushing = true;
    let firstError: unknown;
    let failed = false;
    try {
      for (let thunk = this.outbox.shift(); thunk; thunk = this.outbox.shift()) {
        try {
          thunk();
        } catch (e) {
          if (!failed) {
            failed = true;
            firstError = e;
          }
        }
      }
    } finally {
      this.flushing = false;
    }
    if (failed) throw firstError;
  }

  /** Timer callbacks must never throw into the timer service: report instead. */
  private runTimer(fn: () => void): void {
    if (this.closed) return;
    try {
      this.run(fn);
    } catch (e) {
      try {
        this.listener?.({ type: 'internal-error', groupId: '', at: this.clock.now(), message: String(e instanceof Error ? e.message : e) });
      } catch {
        // a failing listener has nowhere left to report to
      }
    }
  }
}

/** Join/Sync/Heartbeat/Leave/OffsetDelete/TxnOffsetCommit need a non-empty id; OffsetCommit,
 *  OffsetFetch, DescribeGroups and DeleteGroups accept "" (but not null). */
export function isValidGroupId(groupId: string | null | undefined, allowEmpty: boolean): groupId is string {
  return typeof groupId === 'string' && (allowEmpty || groupId !== '');
}
