// The classic group coordinator: Kafka 3.9's GroupCoordinator (plus the bits of KafkaApis,
// GroupCoordinatorAdapter and the request/response classes that shape group responses per
// version), as a pure state machine. No sockets, no codec: request handlers decode a request, call
// one method here, and encode what comes back.
//
// This file only assembles the pieces and is the API the handlers, the control plane and the tests
// call. The pieces, split as Kafka splits its group coordinator:
//   kernel.ts          the group registry, the outbox, timers as operations, member validation
//   membership.ts      JoinGroup, SyncGroup, Heartbeat, LeaveGroup        (GroupMetadataManager)
//   offset-manager.ts  OffsetCommit, OffsetFetch, OffsetDelete, expiry, deleted partitions
//                                                                          (OffsetMetadataManager)
//   txn-offsets.ts     TxnOffsetCommit and the transaction markers that complete it
//   offsets-log.ts     partitionFor, which producers have a transaction open in each
//                      __consumer_offsets partition
//   records.ts         the __consumer_offsets records and the GroupRecordSink they go through
//                      (config.records; the broker's appends them to the log: offsets-topic.ts)
//   loader.ts          loadFromLog: groups and offsets rebuilt from those records
//   admin.ts           DescribeGroups, ListGroups, DeleteGroups and the control plane's operations
//   rebalance.ts       the join and sync phases and every timeout; rules.ts the decisions
//   hooks.ts           where the draft policies (policies/) plug in
//
// Operations that can wait (JoinGroup, SyncGroup) take a `respond` callback; everything else returns
// its response. Responses and events are queued while an operation (or a timer) mutates state and
// delivered, in order, right after it finishes; so a callback may call straight back in.
//
// Left to the request handlers (KafkaApis territory, needs broker state the coordinator lacks):
// authorization; UNKNOWN_TOPIC_OR_PARTITION for commits/deletes of unknown topics (KafkaApis drops
// them before the coordinator is called); OffsetCommit/OffsetFetch v0, which 3.9 serves from
// ZooKeeper (UNSUPPORTED_VERSION on a KRaft broker); the v8+ multi-group OffsetFetch fan-out and the
// pre-v8 OffsetFetch response layout (error copied to partitions below v2); DescribeGroups
// AuthorizedOperations; throttling. JoinGroup's ProtocolName null/"" normalisation and the
// single-member LeaveGroup v0–v2 response are done here.
//
// Kafka 3.9 behaviour that is easy to get wrong (each checked against the 3.9 sources and tests):
//  * On a failed persist after a Stable static-member replacement, 3.9 rolls back the member id and
//    the session/rebalance timeouts but NOT the protocols: it reads the "old" protocols after
//    updating them (updateStaticMemberAndRebalance), so the new protocols stay (static-rejoin.ts).
//  * 3.9's storeGroup maps REQUEST_TIMED_OUT to REBALANCE_IN_PROGRESS (4.x: COORDINATOR_NOT_AVAILABLE)
//    and NOT_ENOUGH_REPLICAS_AFTER_APPEND to COORDINATOR_NOT_AVAILABLE (errors.ts).
//  * The "+1" timings of Kafka's GroupCoordinatorTest ("all complete at 2×delay + 1") are artefacts
//    of its MockTimer, which fires only strictly after a deadline; real timers fire at the deadline.
//  * DescribeGroups returns member metadata and assignments, and the protocol name, in Stable only
//    (GroupMetadata.summary, testDescribeGroupRebalancing), not in CompletingRebalance.
//  * A heartbeat (or any reschedule) while the member is parked in JoinGroup/SyncGroup leaves it with
//    no session deadline at all until the phase reschedules one (rebalance.ts).
//  * A member removed while its SyncGroup is parked never gets a SyncGroup answer.
//  * The group is created (Empty) before the protocol checks, so a rejected first join still leaves
//    an Empty group behind (until offset expiration deletes it).
//  * selectProtocol ties are broken by Scala HashMap order (protocol-selection.ts); OffsetDelete,
//    DeleteGroups and offset expiry turn an Empty group without offsets into Dead and delete it;
//    OffsetCommit/Fetch store and return metadata null as "".


import { systemClock, systemTimers, type Clock, type Timers } from './clock.js';
import { defaultGroupCoordinatorConfig, type GroupCoordinatorConfig } from './config.js';
import { CountingGroupRecordSink } from './records.js';
import type { GroupEventListener } from './events.js';
import type { ClassicGroup } from './group.js';
import { GroupAdmin, ADMIN_REMOVAL_REASON } from './admin.js';
import { GroupKernel } from './kernel.js';
import { GroupMembership } from './membership.js';
import { OffsetManager } from './offset-manager.js';
import { OffsetsLog, type OpenOffsetsTransaction } from './offsets-log.js';
import { loadOffsetsPartition, readOffsetsPartition, type GroupLoadSummary } from './loader.js';
import type { RecordBatch } from '../../codec/records/batch.js';
import { TxnOffsetManager, type PendingTxnOffset, type TransactionResult, type VerifyOffsetsPartition } from './txn-offsets.js';
import { classifyJoinReason } from './policies/join-reasons.js';
import { DraftPolicies, type DraftPolicy, type PolicyHost } from './policies/index.js';
import { PolicySettings } from './policies/settings.js';
import type {
  ForceRebalanceResult,
  GroupDetail,
  MembershipChangeResult,
  OfflineStaticMember,
  PolicyConfig,
  PolicyUpdate,
  RemoveMembersResult,
  StaticMembershipOptions,
} from './policies/types.js';
import type {
  ClientContext,
  DeletableGroupResult,
  DescribedGroup,
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  ListGroupsRequest,
  ListGroupsResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  OffsetFetchRequestGroup,
  OffsetFetchResponseGroup,
  SyncGroupRequest,
  SyncGroupResponse,
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
} from './types.js';

export { shapeJoinResponse } from './membership.js';

export interface GroupCoordinatorOptions extends Partial<GroupCoordinatorConfig> {
  clock?: Clock;
  timers?: Timers;
  onEvent?: GroupEventListener;
  /** The draft policies, broker-wide (docs/policies.md). All off by default: Kafka's behaviour. */
  policies?: PolicyUpdate;
  /**
   * KIP-890 part 1: TxnOffsetCommit asks whether the group's __consumer_offsets partition is in the
   * transaction (txn-offsets.ts). Without it nothing is verified, as with
   * transaction.partition.verification.enable=false; Kafka 3.9's default verifies.
   */
  verifyOffsetsPartition?: VerifyOffsetsPartition;
}

export class GroupCoordinator {
  readonly config: Readonly<GroupCoordinatorConfig>;
  private readonly kernel: GroupKernel;
  private readonly membership: GroupMembership;
  private readonly offsets: OffsetManager;
  private readonly txnOffsets: TxnOffsetManager;
  private readonly offsetsLog: OffsetsLog;
  private readonly admin: GroupAdmin;
  private readonly policies: DraftPolicies;

  constructor(options: GroupCoordinatorOptions = {}) {
    const { clock, timers, onEvent, policies, verifyOffsetsPartition, ...config } = options;
    // Each coordinator counts its own offsets unless given a sink.
    this.config = { ...defaultGroupCoordinatorConfig, records: new CountingGroupRecordSink(), ...stripUndefined(config) };
    // A FakeTimers passed as `timers` is also the clock, unless a clock is given.
    const theClock = clock ?? (isClock(timers) ? timers : systemClock);
    const kernel = new GroupKernel({
      config: this.config,
      clock: theClock,
      timers: timers ?? systemTimers,
      listener: onEvent,
      readJoinReason: (reason) => classifyJoinReason(reason).reason,
    });
    this.kernel = kernel;
    this.membership = new GroupMembership(kernel);
    const settings = new PolicySettings(
      { emit: (e) => kernel.emit(e), groups: () => kernel.allGroups(), group: (id) => kernel.group(id) },
      policies,
    );
    const host: PolicyHost = {
      clock: kernel.clock,
      timers: kernel.timers,
      engine: kernel.engine,
      hooks: kernel.hooks,
      settings,
      emit: (e) => kernel.emit(e),
      onTimer: (fn) => kernel.onTimer(fn),
      group: (id) => kernel.group(id),
      resumeJoin: (group, join, inPlace) => this.membership.resumeJoin(group, join, inPlace),
    };
    this.policies = new DraftPolicies(host);
    kernel.hooks.use(this.policies.list);
    this.admin = new GroupAdmin(kernel, this.membership, this.policies);
    this.offsetsLog = new OffsetsLog(this.config.offsetsTopicPartitions);
    this.offsets = new OffsetManager(kernel, this.offsetsLog);
    this.txnOffsets = new TxnOffsetManager(kernel, this.offsetsLog, verifyOffsetsPartition);
  }

  // --- membership (membership.ts) -----------------------------------------------------------------

  joinGroup(version: number, client: ClientContext, request: JoinGroupRequest, respond: (response: JoinGroupResponse) => void): void {
    this.membership.joinGroup(version, client, request, respond);
  }

  syncGroup(version: number, request: SyncGroupRequest, respond: (response: SyncGroupResponse) => void): void {
    this.membership.syncGroup(version, request, respond);
  }

  heartbeat(version: number, request: HeartbeatRequest): HeartbeatResponse {
    return this.membership.heartbeat(version, request);
  }

  leaveGroup(version: number, request: LeaveGroupRequest): LeaveGroupResponse {
    return this.membership.leaveGroup(version, request);
  }

  // --- offsets (offset-manager.ts) ------------------------------------------------------------------

  offsetCommit(version: number, request: OffsetCommitRequest): OffsetCommitResponse {
    return this.offsets.offsetCommit(version, request);
  }

  // --- transactional offsets (txn-offsets.ts) ----------------------------------------------------------

  /** TxnOffsetCommit v0–v4 (known partitions only: KafkaApis answers unknown ones itself). */
  txnOffsetCommit(version: number, request: TxnOffsetCommitRequest): TxnOffsetCommitResponse {
    return this.txnOffsets.txnOffsetCommit(version, request);
  }

  /**
   * A producer's COMMIT or ABORT marker was written to these __consumer_offsets partitions
   * (WriteTxnMarkers; Kafka's GroupCoordinator.onTransactionCompleted): its pending TxnOffsetCommit
   * offsets in the groups of those partitions are materialized or dropped.
   */
  onTransactionCompleted(producerId: bigint, offsetsPartitions: Iterable<number>, result: TransactionResult): void {
    this.txnOffsets.onTransactionCompleted(producerId, offsetsPartitions, result);
  }

  // --- loading (loader.ts) -------------------------------------------------------------------------

  /**
   * Rebuilds the groups and offsets of one __consumer_offsets partition from its log, read from
   * the log start offset to its end, in order (GroupMetadataManager.doLoadGroupsAndOffsets, then
   * onGroupLoaded for each group): committed offsets, pending transactional offsets resolved by the
   * markers found (those without one stay pending, their producers' transactions open), group
   * metadata (Empty, or Stable with its members, at its generation). Groups already here are kept.
   * Called once per partition at broker start, before any request. A record that cannot be read
   * loads nothing of the partition (`error` says why), as Kafka's loadGroupsAndOffsets logs the
   * error and owns the partition without its groups.
   */
  loadFromLog(partition: number, batches: Iterable<RecordBatch>): GroupLoadSummary {
    let contents: ReturnType<typeof readOffsetsPartition>;
    try {
      contents = readOffsetsPartition(batches);
    } catch (e) {
      return { partition, groups: [], offsets: 0, pendingOffsets: 0, alreadyLoaded: [], unknownKeys: 0, error: e instanceof Error ? e.message : String(e) };
    }
    return this.kernel.run(() => loadOffsetsPartition(this.kernel, this.offsetsLog, partition, contents));
  }

  /** GroupCoordinator.partitionFor: the group's __consumer_offsets partition. */
  partitionFor(groupId: string): number {
    return this.offsetsLog.partitionFor(groupId);
  }

  /** The group's TxnOffsetCommit offsets still waiting for their marker (the read model). */
  pendingTransactionalOffsets(groupId: string): PendingTxnOffset[] {
    return this.txnOffsets.pendingOffsets(groupId);
  }

  /** Producers with a transaction open in a __consumer_offsets partition (a TxnOffsetCommit, no marker yet). */
  openOffsetsTransactions(): OpenOffsetsTransaction[] {
    return this.offsetsLog.openTransactions();
  }

  /**
   * One group of an OffsetFetch. Offsets are returned whatever the group's state; with RequireStable
   * a partition with a pending transactional offset answers UNSTABLE_OFFSET_COMMIT (partition level).
   */
  offsetFetch(request: OffsetFetchRequestGroup): OffsetFetchResponseGroup {
    return this.offsets.offsetFetch(request);
  }

  offsetDelete(request: OffsetDeleteRequest): OffsetDeleteResponse {
    return this.offsets.offsetDelete(request);
  }

  /** Topic partitions were deleted: their offsets go from every group (handleDeletedPartitions). */
  onPartitionsDeleted(partitions: readonly { topic: string; partition: number }[]): void {
    this.offsets.onPartitionsDeleted(partitions);
  }

  /** The periodic offsets.retention task; runs every offsetsRetentionCheckIntervalMs, callable directly. */
  expireOffsets(): void {
    this.offsets.expireOffsets();
  }

  // --- administration (admin.ts) ----------------------------------------------------------------------

  describeGroups(groupIds: readonly string[]): DescribedGroup[] {
    return this.admin.describeGroups(groupIds);
  }

  listGroups(request: ListGroupsRequest = {}): ListGroupsResponse {
    return this.admin.listGroups(request);
  }

  deleteGroups(groupIds: readonly string[]): DeletableGroupResult[] {
    return this.admin.deleteGroups(groupIds);
  }

  /** The control plane's "force a rebalance", for any group, whatever the policies. */
  forceRebalance(groupId: string, reason: string): ForceRebalanceResult {
    return this.admin.forceRebalance(groupId, reason);
  }

  /** Admin.removeMembersFromConsumerGroup; with no ids, every member (and every held member) goes. */
  removeMembers(groupId: string, ids: { memberIds?: string[]; groupInstanceIds?: string[] } = {}, reason = ADMIN_REMOVAL_REASON): RemoveMembersResult {
    return this.admin.removeMembers(groupId, ids, reason);
  }

  /** The control plane's read model of a group; null for an unknown group. */
  describeGroupDetail(groupId: string): GroupDetail | null {
    return this.admin.describeGroupDetail(groupId);
  }

  /** Changes broker-wide policies (a partial update). Throws PolicyError (a RangeError) on bad input. */
  setBrokerPolicies(update: PolicyUpdate): PolicyConfig {
    return this.admin.setBrokerPolicies(update);
  }

  /** Changes one group's own policies (merged into its earlier ones; null removes them). Throws PolicyError. */
  setGroupPolicies(groupId: string, update: PolicyUpdate | null): PolicyConfig {
    return this.admin.setGroupPolicies(groupId, update);
  }

  /** The effective policies of a group (existing or not). */
  policiesFor(groupId: string): PolicyConfig {
    return this.admin.policiesFor(groupId);
  }

  brokerPolicies(): PolicyConfig {
    return this.admin.brokerPolicies();
  }

  /** The group's own policy settings, or null. */
  groupPolicies(groupId: string): PolicyUpdate | null {
    return this.admin.groupPolicies(groupId);
  }

  /** The draft's enableStaticMembership: from now on a JoinGroup without group.instance.id is refused. */
  enableStaticMembership(groupId: string, options: StaticMembershipOptions = {}): MembershipChangeResult {
    return this.admin.enableStaticMembership(groupId, options);
  }

  /** The draft's enableDynamicMembership: the instance map is dropped. */
  enableDynamicMembership(groupId: string): MembershipChangeResult {
    return this.admin.enableDynamicMembership(groupId);
  }

  /** The draft's forceStaticRebalance: one rebalance of a static group, now. */
  forceStaticRebalance(groupId: string): MembershipChangeResult {
    return this.admin.forceStaticRebalance(groupId);
  }

  /** Static members kept offline, earliest first. */
  offlineStaticMembers(groupId: string): OfflineStaticMember[] {
    return this.admin.offlineStaticMembers(groupId);
  }

  // --- introspection and lifecycle ----------------------------------------------------------------

  /** The live group object, for tests and the control plane. Mutating it bypasses every rule. */
  group(groupId: string): ClassicGroup | undefined {
    return this.kernel.group(groupId);
  }

  groupIds(): string[] {
    return this.kernel.groupIds();
  }

  /** One installed policy, by class (tests read its per-group state with `stateOf`). */
  draftPolicy<P extends DraftPolicy>(type: abstract new (host: PolicyHost) => P): P {
    return this.policies.get(type);
  }

  /** Stops all timers. Parked requests stay unanswered, as on a broker shutdown. */
  close(): void {
    this.kernel.close();
    this.offsets.close();
  }
}

function isClock(x: unknown): x is Clock {
  return typeof x === 'object' && x !== null && typeof (x as { now?: unknown }).now === 'function';
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
