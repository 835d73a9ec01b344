// The classic group coordinator: Kafka 3.9's GroupCoordinator (plus the bits of KafkaApis,
// GroupCoordinatorAdapter and the request/response classes that shape group responses per
// version), as a pure state machine. No sockets, no codec: request handlers decode a request, call
// one method here, and encode what comes back.
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
// Where the reference notes (/work/shared/reference/kafka-group-protocol.md) disagree with the
// Kafka 3.9 sources, this module follows the sources:
//  * §5.5: on a failed persist after a Stable static-member replacement, 3.9 rolls back the member
//    id and the session/rebalance timeouts but NOT the protocols: it reads the "old" protocols after
//    updating them (updateStaticMemberAndRebalance), so the new protocols stay.
//  * §5.13 lists the 4.x append-error mapping; 3.9's storeGroup maps REQUEST_TIMED_OUT to
//    REBALANCE_IN_PROGRESS (not COORDINATOR_NOT_AVAILABLE) and NOT_ENOUGH_REPLICAS_AFTER_APPEND to
//    COORDINATOR_NOT_AVAILABLE.
//  * §6 item 48 ("all complete at 2×delay + 1") and similar +1 timings are artefacts of Kafka's
//    MockTimer, which fires only strictly after a deadline; real timers fire at the deadline.
//  * The task brief says DescribeGroups returns member metadata/assignments in Stable and
//    CompletingRebalance; 3.9 (GroupMetadata.summary, testDescribeGroupRebalancing) returns them,
//    and the protocol name, in Stable only. §3.6 of the notes is right.
//  * §5.6: a heartbeat (or any reschedule) while the member is parked in JoinGroup/SyncGroup leaves
//    it with no session deadline at all until the phase reschedules one; the notes do not say so.
//  * §5.9: a member removed while its SyncGroup is parked never gets a SyncGroup answer in 3.9.
//  * §5.4 step B: the group is created (Empty) before the protocol checks, so a rejected first join
//    still leaves an Empty group behind (until offset expiration deletes it).
//  * Not in the notes: selectProtocol ties are broken by Scala HashMap order (protocol-selection.ts);
//    OffsetDelete/DeleteGroups/offset expiry turn an Empty group without offsets into Dead and delete
//    it; OffsetCommit/Fetch store and return metadata null as "".

import { systemClock, systemTimers, type Clock, type TimerHandle, type Timers } from './clock.js';
import { defaultGroupCoordinatorConfig, type GroupCoordinatorConfig } from './config.js';
import { ErrorCode, errorName, offsetAppendErrorToResponseError } from './errors.js';
import type { GroupEvent, GroupEventListener } from './events.js';
import { ClassicGroup, GroupInvariantError } from './group.js';
import {
  EMPTY_BUFFER,
  joinError,
  syncError,
  type GroupMember,
  type JoinCallback,
  type JoinResult,
  type Protocol,
  type SyncCallback,
  type SyncResult,
} from './member.js';
import type { StoredOffset } from './offsets.js';
import { GroupPolicies } from './policies/runtime.js';
import type { ParkedJoin } from './policies/state.js';
import type {
  ForceRebalanceResult,
  GroupDetail,
  MembershipChangeResult,
  OfflineStaticMember,
  PolicyConfig,
  PolicyUpdate,
  RemoveMembersResult,
} from './policies/types.js';
import { RebalanceEngine, type GroupEventInput } from './rebalance.js';
import { acceptJoiningMember, decideKnownMemberJoin, validateCurrentMember, validateOffsetCommit } from './rules.js';
import { CONSUMER_PROTOCOL_TYPE } from './subscription.js';
import type {
  ClientContext,
  DeletableGroupResult,
  DescribedGroup,
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupMemberResponse,
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
  OffsetFetchResponsePartition,
  SyncGroupRequest,
  SyncGroupResponse,
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
} from './types.js';

export interface GroupCoordinatorOptions extends Partial<GroupCoordinatorConfig> {
  clock?: Clock;
  timers?: Timers;
  onEvent?: GroupEventListener;
  /** The draft policies, broker-wide (README, "Draft policies"). All off by default: Kafka's behaviour. */
  policies?: PolicyUpdate;
}

/** Admin.removeMembersFromConsumerGroup's default reason (KIP-800). */
const ADMIN_REMOVAL_REASON = 'member was removed by an admin';

/** DescribeGroups AuthorizedOperations default (Int.MinValue = "not requested"). */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

interface PartitionCommit {
  topic: string;
  partition: number;
  offset: Omit<StoredOffset, 'appendSeq'>;
}

export class GroupCoordinator {
  readonly config: Readonly<GroupCoordinatorConfig>;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly listener: GroupEventListener | undefined;
  private readonly engine: RebalanceEngine;
  /** The draft policies (policies/runtime.ts); inert while all are off. */
  private readonly policy: GroupPolicies;
  /** In creation order (ListGroups order). */
  private readonly groups = new Map<string, ClassicGroup>();
  /** Stand-in for the position of each record in __consumer_offsets. */
  private appendSeq = 0;
  private cleanupTimer: TimerHandle | null = null;
  private closed = false;

  private readonly outbox: (() => void)[] = [];
  private depth = 0;
  private flushing = false;

  constructor(options: GroupCoordinatorOptions = {}) {
    const { clock, timers, onEvent, policies, ...config } = options;
    this.config = { ...defaultGroupCoordinatorConfig, ...stripUndefined(config) };
    // A FakeTimers passed as `timers` is also the clock, unless a clock is given.
    this.clock = clock ?? (isClock(timers) ? timers : systemClock);
    this.timers = timers ?? systemTimers;
    this.listener = onEvent;
    this.engine = new RebalanceEngine({
      config: this.config,
      clock: this.clock,
      timers: this.timers,
      emit: (e) => this.emit(e),
      onTimer: (fn) => () => this.runTimer(fn),
      hooks: {
        onSessionExpired: (g, m) => this.policy.onSessionExpired(g, m),
        beforePrepareRebalance: (g) => this.policy.beforePrepareRebalance(g),
        onMemberRemoved: (g, m) => this.policy.onMemberRemoved(g, m),
      },
    });
    this.policy = new GroupPolicies(
      {
        clock: this.clock,
        timers: this.timers,
        engine: this.engine,
        emit: (e) => this.emit(e),
        onTimer: (fn) => () => this.runTimer(fn),
        groups: () => [...this.groups.values()],
        group: (id) => this.groups.get(id),
        resumeKnownMemberJoin: (g, p, returning) => this.resumeKnownMemberJoin(g, p, returning),
      },
      policies,
    );
    this.scheduleOffsetCleanup();
  }

  // ==============================================================================================
  // JoinGroup

  joinGroup(
    version: number,
    client: ClientContext,
    request: JoinGroupRequest,
    respond: (response: JoinGroupResponse) => void,
  ): void {
    const answer = this.once<JoinResult>((r) => respond(shapeJoinResponse(version, r)));
    this.run(() => {
      try {
        this.doJoinGroup(version, client, request, answer);
      } catch (e) {
        if (!(e instanceof GroupInvariantError)) throw e;
        this.emit({ type: 'internal-error', groupId: request.groupId, message: e.message });
        answer(joinError('', ErrorCode.UNKNOWN_SERVER_ERROR));
      }
    });
  }

  private doJoinGroup(version: number, client: ClientContext, req: JoinGroupRequest, answer: JoinCallback): void {
    let groupInstanceId = version >= 5 ? (req.groupInstanceId ?? null) : null;
    const rebalanceTimeoutMs = version >= 1 ? (req.rebalanceTimeoutMs ?? -1) : req.sessionTimeoutMs;
    const clientReason = version >= 8 ? (req.reason ?? null) : null;
    const supportSkippingAssignment = version >= 9;
    const protocols: Protocol[] = req.protocols.map((p) => ({ name: p.name, metadata: p.metadata }));
    const memberId = req.memberId;

    if (!isValidGroupId(req.groupId, false)) return answer(joinError(memberId, ErrorCode.INVALID_GROUP_ID));
    if (
      req.sessionTimeoutMs < this.config.groupMinSessionTimeoutMs ||
      req.sessionTimeoutMs > this.config.groupMaxSessionTimeoutMs
    ) {
      return answer(joinError(memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }

    const isUnknownMember = memberId === '';
    // The group is created only by a join without member id; a member id for a missing group is stale.
    const group = this.groups.get(req.groupId) ?? (isUnknownMember ? this.createGroup(req.groupId) : undefined);
    if (!group) return answer(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));

    // membership-modes (off: nothing changes): refuse, or read the join without its instance id.
    const modes = this.policy.beforeJoin(group, memberId, groupInstanceId, client.clientId);
    if ('refuse' in modes) return answer(joinError(memberId, modes.refuse));
    groupInstanceId = modes.groupInstanceId;
    // KIP-394: from v4 a dynamic member's first join only obtains a member id.
    const requireKnownMemberId = version >= 4 && groupInstanceId === null;

    const join: ParkedJoin = {
      version,
      client,
      memberId,
      groupInstanceId,
      protocolType: req.protocolType,
      protocols,
      rebalanceTimeoutMs,
      sessionTimeoutMs: req.sessionTimeoutMs,
      clientReason,
      callback: answer,
    };

    if (!acceptJoiningMember(group, memberId, this.config.groupMaxSize)) {
      const removed = group.remove(memberId);
      this.engine.cancelPendingMemberExpiration(group, memberId);
      if (removed) {
        this.engine.cancelHeartbeat(removed);
        this.engine.removed(group, removed, 'group-max-size', clientReason);
      }
      answer(joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
    } else if (isUnknownMember) {
      this.newMemberJoin(group, join, requireKnownMemberId, supportSkippingAssignment);
    } else {
      this.currentMemberJoin(group, join);
    }

    if (group.is('PreparingRebalance')) this.engine.checkAndCompleteJoin(group);
  }

  private newMemberJoin(group: ClassicGroup, p: ParkedJoin, requireKnownMemberId: boolean, supportSkippingAssignment: boolean): void {
    if (group.is('Dead')) return p.callback(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(p.protocolType, p.protocols)) {
      return p.callback(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    const newMemberId = `${p.groupInstanceId ?? p.client.clientId}-${this.config.generateUuid()}`;
    const memberParams = {
      memberId: newMemberId,
      groupInstanceId: p.groupInstanceId,
      clientId: p.client.clientId,
      clientHost: p.client.clientHost,
      rebalanceTimeoutMs: p.rebalanceTimeoutMs,
      sessionTimeoutMs: p.sessionTimeoutMs,
      protocolType: p.protocolType,
      protocols: p.protocols,
    };

    if (p.groupInstanceId !== null) {
      // Static members never get MEMBER_ID_REQUIRED. A known instance gets a new member id, and
      // whoever held the old one is fenced.
      const oldMemberId = group.currentStaticMemberId(p.groupInstanceId);
      if (oldMemberId !== undefined) {
        // kip345-draft-errors: MISSING_MEMBER_ID instead (the mapped id is handed back).
        if (this.policy.onStaticJoinWithoutMemberId(group, oldMemberId, p)) return;
        const old = group.get(oldMemberId);
        // registration-timeout: an offline member is back.
        this.policy.markOnline(group, old, 'JoinGroup');
        // kip423-join-reasons: decided before the replacement changes the member.
        const override = this.policy.decideStaticRejoin(group, old, p);
        this.engine.updateStaticMemberAndRebalance(
          group,
          oldMemberId,
          newMemberId,
          p.groupInstanceId,
          p.protocols,
          p.rebalanceTimeoutMs,
          p.sessionTimeoutMs,
          p.callback,
          p.clientReason,
          supportSkippingAssignment,
          override,
        );
      } else if (!this.policy.maybeHold(group, p, newMemberId)) {
        this.engine.addMemberAndRebalance(group, memberParams, p.callback, p.clientReason);
      }
    } else if (requireKnownMemberId) {
      group.addPendingMember(newMemberId);
      this.engine.addPendingMemberExpiration(group, newMemberId, p.sessionTimeoutMs);
      this.emit({ type: 'member-pending', groupId: group.groupId, memberId: newMemberId });
      p.callback(joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    } else {
      this.engine.addMemberAndRebalance(group, memberParams, p.callback, p.clientReason);
    }
  }

  private currentMemberJoin(group: ClassicGroup, p: ParkedJoin): void {
    const memberId = p.memberId;
    if (group.is('Dead')) return p.callback(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(p.protocolType, p.protocols)) {
      return p.callback(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (group.isPendingMember(memberId)) {
      // The second JoinGroup of KIP-394. Pending members are dynamic by construction.
      if (p.groupInstanceId !== null) {
        if (this.policy.onPendingMemberWithInstance(group, p)) return;
        throw new GroupInvariantError(
          `Received unexpected JoinGroup with groupInstanceId=${p.groupInstanceId} for pending member with memberId=${memberId}`,
        );
      }
      this.engine.addMemberAndRebalance(
        group,
        {
          memberId,
          groupInstanceId: null,
          clientId: p.client.clientId,
          clientHost: p.client.clientHost,
          rebalanceTimeoutMs: p.rebalanceTimeoutMs,
          sessionTimeoutMs: p.sessionTimeoutMs,
          protocolType: p.protocolType,
          protocols: p.protocols,
        },
        p.callback,
        p.clientReason,
      );
      return;
    }

    // kip345-draft-errors: a claimed id (parked), or a member id with an instance the group does not know.
    if (this.policy.interceptJoinWithMemberId(group, p)) return;

    const memberError = this.validateMember(group, memberId, p.groupInstanceId, 'JoinGroup');
    if (memberError !== ErrorCode.NONE) return p.callback(joinError(memberId, memberError));

    const member = group.get(memberId);
    if (member.offlineSince !== null) {
      // registration-timeout: an offline member is back, in place.
      this.policy.markOnline(group, member, 'JoinGroup');
      if (this.engine.rejoinStaticInPlace(group, member, p.protocols, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.callback, p.version >= 9)) return;
    }
    this.knownMemberJoin(group, member, p);
  }

  /** Kafka's doCurrentMemberJoinGroup after validation (with kip423-join-reasons' decisions). */
  private knownMemberJoin(group: ClassicGroup, member: GroupMember, p: ParkedJoin): void {
    const memberId = member.memberId;
    const decision = this.policy.decideKnownMemberJoin(group, member, p) ?? decideKnownMemberJoin(group, member, p.protocols);
    switch (decision.action) {
      case 'await-join-phase':
      case 'rebalance': {
        const trigger = decision.action === 'rebalance' ? decision.trigger : 'member-metadata-changed';
        const reason = p.clientReason ?? 'not provided';
        this.engine.updateMemberAndRebalance(group, member, p.protocols, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.callback, {
          trigger,
          memberId,
          groupInstanceId: member.groupInstanceId,
          clientReason: p.clientReason,
          description:
            trigger === 'leader-rejoined'
              ? `Leader ${memberId} re-joining group during ${group.state}; client reason: ${reason}`
              : trigger === 'topic-metadata-change'
                ? `Leader ${memberId} re-joining group during ${group.state} for a topic metadata change (kip423-join-reasons); client reason: ${reason}`
                : trigger === 'member-upgrade'
                  ? `Member ${memberId} re-joining group during ${group.state} for an upgrade (kip423-join-reasons); client reason: ${reason}`
                  : decision.action === 'await-join-phase'
                    ? `Member ${memberId} joining group during ${group.state}; client reason: ${reason}`
                    : `Updating metadata for member ${memberId} during ${group.state}; client reason: ${reason}`,
        });
        return;
      }
      case 'return-current-generation':
        p.callback({
          errorCode: ErrorCode.NONE,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leaderId: group.leaderId,
          skipAssignment: decision.skipAssignment ?? false,
          memberId,
          members: decision.includeMembers ? group.currentMemberMetadata() : [],
        });
        return;
      case 'error':
        p.callback(joinError(memberId, decision.errorCode));
        return;
    }
  }

  /** PolicyHost.resumeKnownMemberJoin: a claim was granted (kip345-draft-errors). */
  private resumeKnownMemberJoin(group: ClassicGroup, p: ParkedJoin, returning: boolean): void {
    if (!group.has(p.memberId) || group.is('Dead')) return p.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    const member = group.get(p.memberId);
    if (returning && this.engine.rejoinStaticInPlace(group, member, p.protocols, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.callback, p.version >= 9)) {
      return;
    }
    this.knownMemberJoin(group, member, p);
    if (group.is('PreparingRebalance')) this.engine.checkAndCompleteJoin(group);
  }
  // ==============================================================================================
  // SyncGroup

  syncGroup(version: number, request: SyncGroupRequest, respond: (response: SyncGroupResponse) => void): void {
    const answer = this.once<SyncResult>((r) => respond({ ...r }));
    this.run(() => {
      try {
        this.doSyncGroup(version, request, answer);
      } catch (e) {
        if (!(e instanceof GroupInvariantError)) throw e;
        this.emit({ type: 'internal-error', groupId: request.groupId, message: e.message });
        answer(syncError(ErrorCode.UNKNOWN_SERVER_ERROR));
      }
    });
  }

  private doSyncGroup(version: number, req: SyncGroupRequest, answer: SyncCallback): void {
    let groupInstanceId = version >= 3 ? (req.groupInstanceId ?? null) : null;
    const protocolType = version >= 5 ? (req.protocolType ?? null) : null;
    const protocolName = version >= 5 ? (req.protocolName ?? null) : null;
    // KafkaApis: from v5 both fields are mandatory.
    if (version >= 5 && (protocolType === null || protocolName === null)) {
      return answer(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (!isValidGroupId(req.groupId, false)) return answer(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.groups.get(req.groupId);
    if (!group) return answer(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    if (group.is('Dead')) return answer(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    groupInstanceId = this.policy.effectiveInstanceId(group, groupInstanceId);
    const memberError = this.validateMember(group, req.memberId, groupInstanceId, 'SyncGroup');
    if (memberError !== ErrorCode.NONE) return answer(syncError(memberError));
    this.policy.onMemberActivity(group, req.memberId, 'SyncGroup');
    if (req.generationId !== group.generationId) return answer(syncError(ErrorCode.ILLEGAL_GENERATION));
    // Null means "not provided" (below v5) and is accepted.
    if (protocolType !== null && group.protocolType !== protocolType) {
      return answer(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (protocolName !== null && group.protocolName !== protocolName) {
      return answer(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }

    const member = group.get(req.memberId);
    switch (group.state) {
      case 'Empty':
        return answer(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      case 'PreparingRebalance':
        return answer(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case 'CompletingRebalance': {
        if (member.awaitingSync) this.engine.callbackDropped(group, member.memberId, 'SyncGroup');
        member.awaitingSync = answer;
        this.engine.removePendingSyncMember(group, member.memberId);
        if (!group.isLeader(member.memberId)) return; // followers wait for the leader's assignment
        const assignment = new Map<string, Buffer>();
        for (const a of req.assignments) assignment.set(a.memberId, a.assignment);
        // Members the leader left out get an empty assignment.
        for (const id of group.memberIds()) if (!assignment.has(id)) assignment.set(id, Buffer.alloc(0));
        const error = this.engine.storeGroup(group, 'sync-assignment');
        if (group.is('CompletingRebalance') && req.generationId === group.generationId) {
          if (error !== ErrorCode.NONE) {
            this.engine.resetAndPropagateAssignmentError(group, error);
            this.engine.maybePrepareRebalance(group, {
              trigger: 'assignment-store-failed',
              memberId: member.memberId,
              groupInstanceId: member.groupInstanceId,
              clientReason: null,
              description: `Error ${error} when storing group assignment during SyncGroup (member: ${member.memberId})`,
            });
          } else {
            this.engine.setAndPropagateAssignment(group, assignment);
            this.engine.transition(group, 'Stable');
          }
        }
        return;
      }
      case 'Stable':
        // A late follower, or a replaced static member: hand out the stored assignment.
        this.engine.removePendingSyncMember(group, member.memberId);
        answer({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
        this.engine.completeAndScheduleNextHeartbeatExpiration(group, member);
        return;
      case 'Dead':
        throw new GroupInvariantError(`Reached unexpected condition for Dead group ${group.groupId}`);
    }
  }

  // ==============================================================================================
  // Heartbeat

  heartbeat(version: number, request: HeartbeatRequest): HeartbeatResponse {
    return this.run(() => ({ errorCode: this.doHeartbeat(version, request) }));
  }

  private doHeartbeat(version: number, req: HeartbeatRequest): number {
    let groupInstanceId = version >= 3 ? (req.groupInstanceId ?? null) : null;
    if (!isValidGroupId(req.groupId, false)) return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    groupInstanceId = this.policy.effectiveInstanceId(group, groupInstanceId);
    const memberError = this.validateMember(group, req.memberId, groupInstanceId, 'Heartbeat');
    if (memberError !== ErrorCode.NONE) return memberError;
    this.policy.onMemberActivity(group, req.memberId, 'Heartbeat');
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    switch (group.state) {
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'CompletingRebalance':
      case 'Stable':
        this.engine.completeAndScheduleNextHeartbeatExpiration(group, group.get(req.memberId));
        return ErrorCode.NONE;
      case 'PreparingRebalance':
        // Still keeps the session alive; the error tells the member to rejoin.
        this.engine.completeAndScheduleNextHeartbeatExpiration(group, group.get(req.memberId));
        return ErrorCode.REBALANCE_IN_PROGRESS;
      case 'Dead':
        return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
  }

  // ==============================================================================================
  // LeaveGroup

  leaveGroup(version: number, request: LeaveGroupRequest): LeaveGroupResponse {
    return this.run(() => {
      const identities =
        version >= 3
          ? (request.members ?? []).map((m) => ({
              memberId: m.memberId,
              groupInstanceId: m.groupInstanceId ?? null,
              reason: version >= 5 ? (m.reason ?? null) : null,
            }))
          : [{ memberId: request.memberId ?? '', groupInstanceId: null, reason: null }];
      const result = this.doLeaveGroup(request.groupId, identities);
      if (version >= 3) return result;
      // v0–v2 carry one error: the top-level one if set, else the member's.
      const errorCode = result.errorCode !== ErrorCode.NONE ? result.errorCode : (result.members[0]?.errorCode ?? ErrorCode.NONE);
      return { errorCode, members: [] };
    });
  }

  private doLeaveGroup(
    groupId: string,
    identities: { memberId: string; groupInstanceId: string | null; reason: string | null }[],
    byAdmin = false,
  ): LeaveGroupResponse {
    if (!isValidGroupId(groupId, false)) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.groups.get(groupId);
    const reply = (id: (typeof identities)[number], errorCode: number): LeaveGroupMemberResponse => ({
      memberId: id.memberId,
      groupInstanceId: id.groupInstanceId,
      errorCode,
    });
    if (!group) return { errorCode: ErrorCode.NONE, members: identities.map((id) => reply(id, ErrorCode.UNKNOWN_MEMBER_ID)) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };

    const members = identities.map((id) => {
      // expansion-timeout: a held (not yet admitted) member leaves before it ever joined.
      if (this.policy.removeHeld(group, id.memberId, id.groupInstanceId)) return reply(id, ErrorCode.NONE);
      const groupInstanceId = this.policy.effectiveInstanceId(group, id.groupInstanceId);
      if (id.memberId === '') {
        // Administrative removal by instance id (Admin.removeMembersFromConsumerGroup).
        const currentId = groupInstanceId !== null ? group.currentStaticMemberId(groupInstanceId) : undefined;
        if (currentId === undefined) return reply(id, ErrorCode.UNKNOWN_MEMBER_ID);
        this.engine.removeMemberAndUpdateGroup(group, group.get(currentId), 'admin', id.reason);
        return reply(id, ErrorCode.NONE);
      }
      if (group.isPendingMember(id.memberId)) {
        this.emit({
          type: 'member-removed',
          groupId,
          memberId: id.memberId,
          groupInstanceId: null,
          cause: 'leave',
          clientReason: id.reason,
        });
        this.engine.removePendingMemberAndUpdateGroup(group, id.memberId);
        return reply(id, ErrorCode.NONE);
      }
      const memberError = this.validateMember(group, id.memberId, groupInstanceId, 'LeaveGroup');
      if (memberError !== ErrorCode.NONE) return reply(id, memberError);
      this.engine.removeMemberAndUpdateGroup(group, group.get(id.memberId), byAdmin ? 'admin' : 'leave', id.reason);
      return reply(id, ErrorCode.NONE);
    });
    return { errorCode: ErrorCode.NONE, members };
  }

  // ==============================================================================================
  // OffsetCommit / TxnOffsetCommit

  offsetCommit(version: number, request: OffsetCommitRequest): OffsetCommitResponse {
    return this.run(() => {
      const now = this.clock.now();
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
    let group = this.groups.get(groupId);
    if (!group) {
      // Without group management (generation -1) a commit creates a "simple" Empty group; with a
      // generation it comes from a stale member of a group that no longer exists.
      if (generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
      group = this.createGroup(groupId);
    }
    const groupInstanceId = this.policy.effectiveInstanceId(group, requestedInstanceId);
    const draftError = this.policy.checkCommit(group, generationId, memberId, groupInstanceId, canCarryInstanceId, 'OffsetCommit');
    if (draftError !== null) return all(draftError);
    const error = validateOffsetCommit(group, generationId, memberId, groupInstanceId, false);
    if (error === ErrorCode.FENCED_INSTANCE_ID) this.engine.fenced(group, memberId, groupInstanceId!, 'OffsetCommit');
    if (error !== ErrorCode.NONE) return all(error);
    if (group.has(memberId)) this.policy.onMemberActivity(group, memberId, 'OffsetCommit');
    switch (group.state) {
      case 'Empty':
        return this.storeOffsets(group, commits, null);
      case 'Stable':
      case 'PreparingRebalance':
        // Commits keep the session alive; during PreparingRebalance the previous generation may
        // still commit (it learns about the rebalance from its heartbeats).
        this.engine.completeAndScheduleNextHeartbeatExpiration(group, group.get(memberId));
        return this.storeOffsets(group, commits, null);
      case 'CompletingRebalance':
        // A member of the new generation that has not synced yet; make it finish the rebalance.
        return all(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Dead':
        return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  }

  txnOffsetCommit(version: number, request: TxnOffsetCommitRequest): TxnOffsetCommitResponse {
    return this.run(() => {
      const now = this.clock.now();
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
      let errors: number[];
      if (!isValidGroupId(request.groupId, false)) {
        errors = commits.map(() => ErrorCode.INVALID_GROUP_ID);
      } else {
        const group = this.groups.get(request.groupId) ?? this.createGroup(request.groupId);
        const generationId = version >= 3 ? (request.generationId ?? -1) : -1;
        const memberId = version >= 3 ? (request.memberId ?? '') : '';
        const groupInstanceId = this.policy.effectiveInstanceId(group, version >= 3 ? (request.groupInstanceId ?? null) : null);
        const draftError = this.policy.checkCommit(group, generationId, memberId, groupInstanceId, version >= 3, 'TxnOffsetCommit');
        const error = draftError ?? validateOffsetCommit(group, generationId, memberId, groupInstanceId, true);
        if (error === ErrorCode.FENCED_INSTANCE_ID && draftError === null) this.engine.fenced(group, memberId, groupInstanceId!, 'TxnOffsetCommit');
        if (error === ErrorCode.NONE && group.has(memberId)) this.policy.onMemberActivity(group, memberId, 'TxnOffsetCommit');
        errors = error !== ErrorCode.NONE ? commits.map(() => error) : this.storeOffsets(group, commits, request.producerId);
      }
      // KafkaApis: clients before 2.0 (TxnOffsetCommit < v2) do not know COORDINATOR_LOAD_IN_PROGRESS.
      if (version < 2) {
        errors = errors.map((e) => (e === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.COORDINATOR_NOT_AVAILABLE : e));
      }
      return { topics: commitResponse(commits, errors) };
    });
  }

  /**
   * A transaction that wrote offsets through TxnOffsetCommit was committed or aborted (its marker
   * reached __consumer_offsets). Committed offsets become visible unless a plain commit for the
   * same partition was written after the transactional one.
   */
  completeTransaction(producerId: bigint, committed: boolean): void {
    this.run(() => {
      for (const group of this.groups.values()) {
        if (group.offsets.hasPendingTxnFrom(producerId)) group.offsets.completeTxn(producerId, committed);
      }
    });
  }

  /** GroupMetadataManager.storeOffsets: metadata size check, append, apply. */
  private storeOffsets(group: ClassicGroup, commits: PartitionCommit[], producerId: bigint | null): number[] {
    const tooLarge = (c: PartitionCommit) => c.offset.metadata.length > this.config.offsetMetadataMaxSize;
    const valid = commits.filter((c) => !tooLarge(c));
    if (valid.length === 0) return commits.map(() => ErrorCode.OFFSET_METADATA_TOO_LARGE);
    const raw = this.config.store.appendOffsets(group.groupId, producerId !== null);
    const error = raw === ErrorCode.NONE ? ErrorCode.NONE : offsetAppendErrorToResponseError(raw);
    if (error === ErrorCode.NONE && !group.is('Dead')) {
      for (const c of valid) {
        const stored: StoredOffset = { ...c.offset, appendSeq: ++this.appendSeq };
        if (producerId !== null) group.offsets.prepareTxn(producerId, c.topic, c.partition, stored);
        else group.offsets.put(c.topic, c.partition, stored);
      }
    }
    return commits.map((c) => (tooLarge(c) ? ErrorCode.OFFSET_METADATA_TOO_LARGE : error));
  }

  // ==============================================================================================
  // OffsetFetch

  /** One group of an OffsetFetch. Offsets are returned whatever the group's state. */
  offsetFetch(request: OffsetFetchRequestGroup): OffsetFetchResponseGroup {
    return this.run(() => {
      const requireStable = request.requireStable ?? false;
      if (!isValidGroupId(request.groupId, true)) {
        return { groupId: request.groupId, topics: [], errorCode: ErrorCode.INVALID_GROUP_ID };
      }
      const group = this.groups.get(request.groupId);
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
  // DescribeGroups, ListGroups, DeleteGroups, OffsetDelete

  describeGroups(groupIds: readonly string[]): DescribedGroup[] {
    return this.run(() =>
      groupIds.map((groupId): DescribedGroup => {
        if (!isValidGroupId(groupId, true)) {
          return describedGroup(groupId, ErrorCode.INVALID_GROUP_ID, '', '', '');
        }
        const group = this.groups.get(groupId);
        if (!group) return describedGroup(groupId, ErrorCode.NONE, 'Dead', '', '');
        return {
          ...describedGroup(
            groupId,
            ErrorCode.NONE,
            group.state,
            group.protocolType ?? '',
            group.is('Stable') ? (group.protocolName ?? '') : '',
          ),
          members: group.describeMembers(),
        };
      }),
    );
  }

  listGroups(request: ListGroupsRequest = {}): ListGroupsResponse {
    return this.run(() => {
      const states = (request.statesFilter ?? []).map((s) => s.toLowerCase());
      const types = (request.typesFilter ?? []).map((s) => s.toLowerCase());
      // The old coordinator only has classic groups.
      if (types.length > 0 && !types.includes('classic')) return { errorCode: ErrorCode.NONE, groups: [] };
      const groups = [...this.groups.values()]
        .filter((g) => states.length === 0 || states.includes(g.state.toLowerCase()))
        .map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType ?? '',
          groupState: g.state,
          groupType: 'classic',
        }));
      return { errorCode: ErrorCode.NONE, groups };
    });
  }

  deleteGroups(groupIds: readonly string[]): DeletableGroupResult[] {
    return this.run(() =>
      [...new Set(groupIds)].map((groupId) => {
        if (!isValidGroupId(groupId, true)) return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID };
        const group = this.groups.get(groupId);
        if (!group || group.is('Dead')) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
        if (!group.is('Empty')) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
        this.engine.transition(group, 'Dead');
        group.offsets.removeAll();
        this.dropGroup(group, 'delete-groups');
        return { groupId, errorCode: ErrorCode.NONE };
      }),
    );
  }

  offsetDelete(request: OffsetDeleteRequest): OffsetDeleteResponse {
    return this.run(() => {
      if (!isValidGroupId(request.groupId, false)) return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
      const group = this.groups.get(request.groupId);
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
      if (eligible.length > 0) {
        group.offsets.remove(eligible);
        this.maybeDropEmptyGroup(group);
      }
      const rows = partitions.map(({ topic, partition }, i) => ({ topic, partition: { partitionIndex: partition, errorCode: errors[i]! } }));
      return { errorCode: ErrorCode.NONE, topics: groupByTopic(rows) };
    });
  }

  /** Topic partitions were deleted: their offsets go from every group (handleDeletedPartitions). */
  onPartitionsDeleted(partitions: readonly { topic: string; partition: number }[]): void {
    this.run(() => {
      for (const group of [...this.groups.values()]) {
        group.offsets.remove(partitions);
        this.maybeDropEmptyGroup(group);
      }
    });
  }

  /**
   * The periodic offsets.retention task (cleanupGroupMetadata): expire offsets, then delete Empty
   * groups that have none left. Runs every offsetsRetentionCheckIntervalMs; callable directly.
   */
  expireOffsets(): void {
    this.run(() => {
      const now = this.clock.now();
      const retention = this.config.offsetsRetentionMs;
      for (const group of [...this.groups.values()]) {
        if (group.protocolType !== null && group.is('Empty')) {
          // Nobody consumes: everything expires `retention` after the group became Empty.
          group.offsets.removeExpired(now, retention, () => group.currentStateTimestamp);
        } else if (group.subscribedTopics !== undefined && group.is('Stable')) {
          // Consumers exist: only offsets of topics nobody subscribes to expire, by commit time.
          group.offsets.removeExpired(now, retention, (o) => o.commitTimestamp, group.subscribedTopics);
        } else if (group.protocolType === null) {
          // A simple (offset-storage-only) group.
          group.offsets.removeExpired(now, retention, (o) => o.commitTimestamp);
        }
        this.maybeDropEmptyGroup(group, 'offsets-expired');
      }
    });
  }

  // ==============================================================================================
  // The draft policies and the control plane's operations (README, "Draft policies"). Each runs as one
  // coordinator operation: responses and events it causes are delivered once it has finished.

  /** Changes broker-wide policies (a partial update). Throws PolicyError (a RangeError) on bad input. */
  setBrokerPolicies(update: PolicyUpdate): PolicyConfig {
    return this.run(() => {
      this.policy.setBroker(update);
      return this.policy.registry.brokerPolicies();
    });
  }

  /**
   * Changes one group's own policies, layered over the broker's (a partial update merged into the
   * group's earlier settings); null removes them. The group need not exist yet. Returns the effective
   * policies. Throws PolicyError (a RangeError) on bad input.
   */
  setGroupPolicies(groupId: string, update: PolicyUpdate | null): PolicyConfig {
    return this.run(() => {
      this.policy.setGroup(groupId, update);
      return this.policy.config(groupId);
    });
  }

  /** The effective policies of a group (existing or not). */
  policiesFor(groupId: string): PolicyConfig {
    return this.policy.registry.effective(groupId);
  }

  brokerPolicies(): PolicyConfig {
    return this.policy.registry.brokerPolicies();
  }

  /** The group's own policy settings, or null. */
  groupPolicies(groupId: string): PolicyUpdate | null {
    return this.policy.registry.groupOverride(groupId);
  }

  /**
   * The draft's enableStaticMembership (membership-modes): from now on a JoinGroup without
   * group.instance.id is refused. A timeout given also turns on its policy for the group.
   */
  enableStaticMembership(groupId: string, options: { registrationTimeoutMs?: number; expansionTimeoutMs?: number } = {}): MembershipChangeResult {
    return this.run(() => this.guard(groupId, () => this.policy.enableStaticMembership(groupId, options)));
  }

  /** The draft's enableDynamicMembership (membership-modes): the instance map is dropped. */
  enableDynamicMembership(groupId: string): MembershipChangeResult {
    return this.run(() => this.guard(groupId, () => this.policy.enableDynamicMembership(groupId)));
  }

  /** The draft's forceStaticRebalance (membership-modes): one rebalance of a static group, now. */
  forceStaticRebalance(groupId: string): MembershipChangeResult {
    return this.run(() => this.guard(groupId, () => this.policy.forceStaticRebalance(groupId)));
  }

  /** The control plane's "force a rebalance", for any group, whatever the policies. */
  forceRebalance(groupId: string, reason: string): ForceRebalanceResult {
    return this.run(() => {
      const group = this.groups.get(groupId);
      if (!group || group.is('Dead')) {
        return {
          groupId,
          errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
          error: 'GROUP_ID_NOT_FOUND',
          rebalanced: false,
          state: 'Dead',
          generationId: -1,
          message: `unknown group "${groupId}"`,
        };
      }
      if (group.is('PreparingRebalance')) {
        return {
          groupId,
          errorCode: ErrorCode.NONE,
          error: null,
          rebalanced: false,
          state: group.state,
          generationId: group.generationId,
          message: 'a rebalance is already under way',
        };
      }
      const generationId = group.generationId;
      this.guard(groupId, () =>
        this.engine.prepareRebalance(group, {
          trigger: 'admin-forced',
          memberId: null,
          groupInstanceId: null,
          clientReason: reason,
          description: `Rebalance forced by the control plane; reason: ${reason}`,
        }),
      );
      return { groupId, errorCode: ErrorCode.NONE, error: null, rebalanced: true, state: group.state, generationId, message: 'rebalance started' };
    });
  }

  /**
   * Removes members as Admin.removeMembersFromConsumerGroup does: one batch LeaveGroup naming them
   * (static members by group.instance.id with MemberId "", others by member id), removal cause
   * `admin`. With no ids given, every member (and every held member) goes. Per-member results.
   */
  removeMembers(groupId: string, ids: { memberIds?: string[]; groupInstanceIds?: string[] } = {}, reason = ADMIN_REMOVAL_REASON): RemoveMembersResult {
    return this.run(() => {
      const group = this.groups.get(groupId);
      let identities = [
        ...(ids.memberIds ?? []).map((memberId) => ({ memberId, groupInstanceId: null, reason })),
        ...(ids.groupInstanceIds ?? []).map((groupInstanceId) => ({ memberId: '', groupInstanceId, reason })),
      ];
      if (identities.length === 0 && group) {
        identities = [
          ...group.allMembers().map((m) =>
            m.groupInstanceId !== null ? { memberId: '', groupInstanceId: m.groupInstanceId, reason } : { memberId: m.memberId, groupInstanceId: null, reason },
          ),
          ...this.policy.heldStaticMembers(group).map((h) => ({ memberId: '', groupInstanceId: h.groupInstanceId, reason })),
        ];
      }
      const res = this.guard(groupId, () => this.doLeaveGroup(groupId, identities, true));
      return {
        groupId,
        errorCode: res.errorCode,
        members: res.members.map((m) => ({ ...m, error: m.errorCode === ErrorCode.NONE ? null : errorName(m.errorCode) })),
      };
    });
  }

  /** Static members kept offline by registration-timeout, earliest first. */
  offlineStaticMembers(groupId: string): OfflineStaticMember[] {
    const group = this.groups.get(groupId);
    return group ? this.policy.offlineStaticMembers(group) : [];
  }

  /** The control plane's read model of a group; null for an unknown group. */
  describeGroupDetail(groupId: string): GroupDetail | null {
    const group = this.groups.get(groupId);
    if (!group) return null;
    const selected = group.protocolName;
    return {
      groupId,
      state: group.state,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leaderId: group.leaderId,
      members: group.allMembers().map((m) => {
        const protocol = selected !== null && m.protocolNames.includes(selected) ? selected : m.protocolNames[0];
        return {
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          sessionTimeoutMs: m.sessionTimeoutMs,
          rebalanceTimeoutMs: m.rebalanceTimeoutMs,
          protocols: m.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
          metadata: protocol !== undefined ? m.metadata(protocol) : EMPTY_BUFFER,
          assignment: m.assignment,
          isLeader: group.isLeader(m.memberId),
          awaitingJoin: m.isAwaitingJoin,
          awaitingSync: m.isAwaitingSync,
          offlineSince: m.offlineSince,
        };
      }),
      pendingMemberIds: group.pendingMemberIds(),
      offlineStaticMembers: this.policy.offlineStaticMembers(group),
      heldStaticMembers: this.policy.heldStaticMembers(group),
      policies: this.policy.config(groupId),
      groupPolicies: this.policy.registry.groupOverride(groupId),
      mode: this.policy.modeOf(group),
      modePinned: this.policy.modePinned(group),
      rebalances: group.policy.rebalances.map((r) => ({ ...r })),
    };
  }

  /** An admin operation must never leave a group half-changed: a broken invariant is reported. */
  private guard<T>(groupId: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof GroupInvariantError) this.emit({ type: 'internal-error', groupId, message: e.message });
      throw e;
    }
  }

  // ==============================================================================================
  // Introspection and lifecycle

  /** The live group object, for tests and the control plane. Mutating it bypasses every rule. */
  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** Stops all timers. Parked requests stay unanswered, as on a broker shutdown. */
  close(): void {
    this.closed = true;
    this.cleanupTimer?.cancel();
    this.cleanupTimer = null;
    for (const group of this.groups.values()) {
      this.engine.cancelAllTimers(group);
      this.policy.cancelTimers(group);
    }
  }

  // ==============================================================================================
  // internals

  private createGroup(groupId: string): ClassicGroup {
    const group = new ClassicGroup(groupId, 'Empty', this.clock.now());
    this.groups.set(groupId, group);
    this.emit({ type: 'group-created', groupId });
    return group;
  }

  /** cleanupGroupMetadata's tail: an Empty group without offsets is dead and forgotten. */
  private maybeDropEmptyGroup(group: ClassicGroup, cause: 'delete-groups' | 'offsets-expired' = 'delete-groups'): void {
    if (!group.is('Empty') || group.offsets.hasOffsets()) return;
    this.engine.transition(group, 'Dead');
    this.dropGroup(group, cause);
  }

  private dropGroup(group: ClassicGroup, cause: 'delete-groups' | 'offsets-expired'): void {
    this.engine.cancelAllTimers(group);
    this.policy.cancelTimers(group);
    if (this.groups.get(group.groupId) === group) this.groups.delete(group.groupId);
    this.emit({ type: 'group-deleted', groupId: group.groupId, cause });
  }

  /** validateCurrentMember, reporting fenced instances. */
  private validateMember(
    group: ClassicGroup,
    memberId: string,
    groupInstanceId: string | null,
    operation: Extract<GroupEvent, { type: 'member-fenced' }>['operation'],
  ): number {
    const error = validateCurrentMember(group, memberId, groupInstanceId);
    if (error === ErrorCode.FENCED_INSTANCE_ID) {
      this.engine.fenced(group, memberId, groupInstanceId!, operation);
      this.policy.onFenced(group, memberId, groupInstanceId!, operation);
    }
    return error;
  }

  private scheduleOffsetCleanup(): void {
    const interval = this.config.offsetsRetentionCheckIntervalMs;
    if (interval <= 0 || this.closed) return;
    this.cleanupTimer = this.timers.schedule(interval, () => {
      this.runTimer(() => this.expireOffsets());
      this.scheduleOffsetCleanup();
    });
  }

  /** A response callback that is answered at most once, delivered after the current operation. */
  private once<R>(deliver: (result: R) => void): (result: R) => void {
    let answered = false;
    return (result: R) => {
      if (answered) return;
      answered = true;
      this.outbox.push(() => deliver(result));
    };
  }

  private emit(event: GroupEventInput): void {
    const listener = this.listener;
    if (!listener) return;
    const full = { ...event, at: this.clock.now() } as GroupEvent;
    this.outbox.push(() => listener(full));
  }

  /** Run one operation; flush queued responses and events when the outermost one finishes. */
  private run<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.depth === 0 && !this.flushing) this.flush();
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

// --- helpers -----------------------------------------------------------------------------------

/** Join/Sync/Heartbeat/Leave/OffsetDelete/TxnOffsetCommit need a non-empty id; OffsetCommit,
 *  OffsetFetch, DescribeGroups and DeleteGroups accept "" (but not null). */
function isValidGroupId(groupId: string | null | undefined, allowEmpty: boolean): groupId is string {
  return typeof groupId === 'string' && (allowEmpty || groupId !== '');
}

/** JoinGroupResponse(data, version): ProtocolName is "" below v7 and null instead of "" from v7. */
export function shapeJoinResponse(version: number, r: JoinResult): JoinGroupResponse {
  let protocolName = r.protocolName;
  if (version < 7 && protocolName === null) protocolName = '';
  if (version >= 7 && protocolName === '') protocolName = null;
  return {
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: r.protocolType,
    protocolName,
    leader: r.leaderId ?? '',
    skipAssignment: r.skipAssignment,
    memberId: r.memberId,
    members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata })),
  };
}

function describedGroup(
  groupId: string,
  errorCode: number,
  groupState: string,
  protocolType: string,
  protocolData: string,
): DescribedGroup {
  return { errorCode, groupId, groupState, protocolType, protocolData, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

/** A partition named twice in one request counts once, with its last value (Kafka builds a map). */
function dedupeCommits(commits: PartitionCommit[]): PartitionCommit[] {
  const byKey = new Map<string, PartitionCommit>();
  for (const c of commits) {
    const key = `${c.partition}:${c.topic}`;
    byKey.delete(key);
    byKey.set(key, c);
  }
  // Keep first-appearance order for the response while using the last value.
  const order = new Map<string, number>();
  commits.forEach((c, i) => {
    const key = `${c.partition}:${c.topic}`;
    if (!order.has(key)) order.set(key, i);
  });
  return [...byKey.entries()].sort((a, b) => order.get(a[0])! - order.get(b[0])!).map(([, c]) => c);
}

function dedupePartitions(topics: readonly { name: string; partitionIndexes: readonly number[] }[]): { topic: string; partition: number }[] {
  const seen = new Set<string>();
  const out: { topic: string; partition: number }[] = [];
  for (const t of topics) {
    for (const partition of t.partitionIndexes) {
      const key = `${partition}:${t.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ topic: t.name, partition });
    }
  }
  return out;
}

function groupByTopic<P>(rows: readonly { topic: string; partition: P }[]): { name: string; partitions: P[] }[] {
  const byTopic = new Map<string, P[]>();
  for (const { topic, partition } of rows) {
    const list = byTopic.get(topic);
    if (list) list.push(partition);
    else byTopic.set(topic, [partition]);
  }
  return [...byTopic].map(([name, partitions]) => ({ name, partitions }));
}

function commitResponse(commits: readonly PartitionCommit[], errors: readonly number[]): OffsetCommitResponse['topics'] {
  return groupByTopic(commits.map((c, i) => ({ topic: c.topic, partition: { partitionIndex: c.partition, errorCode: errors[i]! } })));
}

function isClock(x: unknown): x is Clock {
  return typeof x === 'object' && x !== null && typeof (x as { now?: unknown }).now === 'function';
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
