// The rebalance machinery of one coordinator: adding, updating and removing members, starting and
// completing join phases, propagating assignments, and every timeout (session, new-member join,
// pending member, initial delay, rebalance, pending sync). A static member's return (a new member id
// for a known instance) is static-rejoin.ts, built on the operations here.
//
// Kafka 3.9 drives these through "delayed operations" in purgatories: an operation is checked when
// some event might complete it and expires after its timeout. Here each outstanding operation is a
// timer handle on the group or member, and every place where Kafka calls `checkAndComplete` calls
// the matching `maybeComplete…`/`checkAndComplete…` method below, so completion happens at exactly
// the same points.

import type { Clock, Timers } from './clock.js';
import type { GroupCoordinatorConfig, GroupWriteCause } from './config.js';
import { groupAppendErrorToResponseError } from './errors.js';
import type { GroupEvent, RebalanceTrigger, RemovalCause } from './events.js';
import { ClassicGroup, GroupInvariantError } from './group.js';
import type { HookChain } from './hooks.js';
import {
  EMPTY_BUFFER,
  GroupMember,
  joinError,
  type JoinCallback,
  type JoinResult,
  type Protocol,
} from './member.js';
import type { JoinReasonName } from './policies/types.js';
import type { GroupAppendResult, GroupMetadataRecord, GroupRecord, GroupRecordCause } from './records.js';
import { initialJoinDelay, nextInitialDelay } from './rules.js';
import { CONSUMER_PROTOCOL_TYPE } from './subscription.js';
import type { GroupState } from './types.js';
import { ErrorCode } from '../../codec/index.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type GroupEventInput = DistributiveOmit<GroupEvent, 'at'>;

/** What the engine needs from its coordinator. */
export interface EngineContext {
  readonly config: GroupCoordinatorConfig;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Queue an event; it is delivered once the current operation has finished. */
  emit(event: GroupEventInput): void;
  /** Wrap a timer callback so it runs as a coordinator operation (queued deliveries, error capture). */
  onTimer(fn: () => void): () => void;
  /** The plug-ins' hook table (hooks.ts): `sessionExpired`, `rebalancePreparing`, `memberRemoved`, `memberAway`. */
  readonly hooks: HookChain;
  /** How the rebalance history reads a JoinGroup's Reason. */
  readJoinReason(clientReason: string | null): JoinReasonName;
  /** One batch of the group's records into __consumer_offsets (the kernel's GroupRecordSink). */
  appendRecords(groupId: string, cause: GroupRecordCause, records: GroupRecord[]): GroupAppendResult;
}

/** Why a rebalance is being prepared (KIP-800 reason included); becomes the `rebalance-started` event. */
export interface RebalanceCause {
  trigger: RebalanceTrigger;
  memberId: string | null;
  groupInstanceId: string | null;
  clientReason: string | null;
  removalCause?: RemovalCause;
  /** A JoinGroup started it: its Reason is read as a JoinReason for the history. */
  byJoinGroup?: boolean;
  description: string;
}

export interface NewMemberParams {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  principal?: string | null;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  protocols: Protocol[];
}

/** KIP-800's reason as Kafka logs it. */
export function reasonText(clientReason: string | null): string {
  return clientReason ?? 'not provided';
}

export class RebalanceEngine {
  constructor(private readonly ctx: EngineContext) {}

  private now(): number {
    return this.ctx.clock.now();
  }

  transition(group: ClassicGroup, to: GroupState): void {
    const from = group.transitionTo(to, this.now());
    this.ctx.emit({ type: 'state-changed', groupId: group.groupId, from, to, generationId: group.generationId });
  }

  // --- adding and updating members ---------------------------------------------------------------

  /** A new member (dynamic, static without a mapping, or a returning MEMBER_ID_REQUIRED id). */
  addMemberAndRebalance(
    group: ClassicGroup,
    params: NewMemberParams,
    callback: JoinCallback,
    clientReason: string | null,
  ): void {
    const member = this.addMember(group, params, callback, clientReason);
    this.maybePrepareRebalance(group, {
      trigger: 'member-joined',
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      clientReason,
      byJoinGroup: true,
      description: `Adding new member ${member.memberId} with group instance id ${member.groupInstanceId ?? 'None'}; client reason: ${reasonText(clientReason)}`,
    });
  }

  /** addMemberAndRebalance without the rebalance (a plug-in admitting several members, then rebalancing once). */
  addMember(group: ClassicGroup, params: NewMemberParams, callback: JoinCallback, clientReason: string | null): GroupMember {
    const member = new GroupMember(params);
    member.isNew = true;
    // Only during the very first rebalance of a group may new arrivals extend the initial delay.
    if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true;
    group.add(member, callback);
    this.cancelPendingMemberExpiration(group, member.memberId);
    this.ctx.emit({
      type: 'member-joined',
      groupId: group.groupId,
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      principal: member.principal,
      clientReason,
    });
    // Its session timeout cannot protect a member parked in its first JoinGroup (it cannot
    // heartbeat yet), so it gets the new-member join timeout instead.
    this.scheduleExpiration(group, member, this.ctx.config.newMemberJoinTimeoutMs);
    return member;
  }

  /** A known member rejoins: take its new protocols/timeouts, park its join, maybe rebalance. */
  updateMemberAndRebalance(
    group: ClassicGroup,
    member: GroupMember,
    protocols: Protocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: JoinCallback,
    cause: RebalanceCause,
  ): void {
    const superseded = group.updateMember(member, protocols, rebalanceTimeoutMs, sessionTimeoutMs, callback);
    if (superseded) this.callbackDropped(group, member.memberId, 'JoinGroup');
    this.maybePrepareRebalance(group, cause);
  }

  // --- starting a rebalance ----------------------------------------------------------------------

  maybePrepareRebalance(group: ClassicGroup, cause: RebalanceCause): void {
    if (group.canRebalance) this.prepareRebalance(group, cause);
  }

  /**
   * Enter PreparingRebalance. Parked SyncGroups are told REBALANCE_IN_PROGRESS. A group coming from
   * Empty waits group.initial.rebalance.delay.ms first (and never completes early); otherwise the
   * join phase ends when everyone has rejoined or after the group's rebalance timeout.
   */
  prepareRebalance(group: ClassicGroup, cause: RebalanceCause): void {
    this.ctx.hooks.run('rebalancePreparing', group);
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    const fromEmpty = group.is('Empty');
    const rebalanceTimeoutMs = group.rebalanceTimeoutMs;
    const joinReason = cause.byJoinGroup ? this.ctx.readJoinReason(cause.clientReason) : null;
    group.recordRebalance({
      at: this.now(),
      generationId: group.generationId,
      trigger: cause.trigger,
      memberId: cause.memberId,
      groupInstanceId: cause.groupInstanceId,
      clientReason: cause.clientReason,
      joinReason,
      description: cause.description,
    });
    this.ctx.emit({
      type: 'rebalance-started',
      groupId: group.groupId,
      generationId: group.generationId,
      trigger: cause.trigger,
      memberId: cause.memberId,
      groupInstanceId: cause.groupInstanceId,
      clientReason: cause.clientReason,
      removalCause: cause.removalCause ?? null,
      description: cause.description,
      joinReason,
    });
    this.transition(group, 'PreparingRebalance');
    if (fromEmpty) {
      const { delayMs, remainingMs } = initialJoinDelay(this.ctx.config.groupInitialRebalanceDelayMs, rebalanceTimeoutMs);
      this.scheduleInitialDelay(group, delayMs, remainingMs);
    } else {
      this.scheduleDelayedJoin(group, rebalanceTimeoutMs);
    }
  }

  // --- the join phase ------------------------------------------------------------------------------

  /** DelayedJoin: complete now if everyone has joined, else when the timeout fires. */
  private scheduleDelayedJoin(group: ClassicGroup, timeoutMs: number): void {
    this.cancelJoinPhaseTimer(group);
    if (this.hasAllMembersJoined(group)) {
      this.onCompleteJoin(group);
      return;
    }
    const timer = this.ctx.timers.schedule(
      timeoutMs,
      this.ctx.onTimer(() => {
        if (group.joinPhaseTimer?.timer !== timer) return;
        group.joinPhaseTimer = null;
        this.onCompleteJoin(group);
      }),
      { name: `rebalance timeout ${group.groupId}` },
    );
    group.joinPhaseTimer = { kind: 'delayed-join', timer };
  }

  /** InitialDelayedJoin: never completes early; on expiry either waits again or completes. */
  private scheduleInitialDelay(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    this.cancelJoinPhaseTimer(group);
    const timer = this.ctx.timers.schedule(
      delayMs,
      this.ctx.onTimer(() => {
        if (group.joinPhaseTimer?.timer !== timer) return;
        group.joinPhaseTimer = null;
        const next = nextInitialDelay(
          group.newMemberAdded,
          this.ctx.config.groupInitialRebalanceDelayMs,
          delayMs,
          remainingMs,
        );
        if (next) {
          group.newMemberAdded = false;
          this.ctx.emit({
            type: 'join-phase-extended',
            groupId: group.groupId,
            reason: 'initial-delay',
            delayMs: next.delayMs,
          });
          this.scheduleInitialDelay(group, next.delayMs, next.remainingMs);
        } else {
          this.onCompleteJoin(group);
        }
      }),
      { name: `initial rebalance delay ${group.groupId}` },
    );
    group.joinPhaseTimer = { kind: 'initial-delay', timer, delayMs, remainingMs };
  }

  /** Kafka's `checkAndComplete(GroupJoinKey)`: only a regular DelayedJoin can complete early. */
  checkAndCompleteJoin(group: ClassicGroup): void {
    const pending = group.joinPhaseTimer;
    if (pending?.kind !== 'delayed-join' || !this.hasAllMembersJoined(group)) return;
    pending.timer.cancel();
    group.joinPhaseTimer = null;
    this.onCompleteJoin(group);
  }

  /** Kafka's hasAllMembersJoined; members a plug-in keeps while away are not waited for. */
  private hasAllMembersJoined(group: ClassicGroup): boolean {
    return group.hasAllMembersJoinedExcept((m) => this.ctx.hooks.isAway(group, m));
  }

  private cancelJoinPhaseTimer(group: ClassicGroup): void {
    group.joinPhaseTimer?.timer.cancel();
    group.joinPhaseTimer = null;
  }

  /**
   * End of a join phase. Dynamic members that did not rejoin are dropped; static ones stay until
   * their session expires (KIP-345). If nobody rejoined, wait another rebalance timeout. Otherwise
   * start the next generation and answer every parked JoinGroup.
   */
  onCompleteJoin(group: ClassicGroup): void {
    for (const m of group.notYetRejoinedMembers()) {
      if (m.isStatic) continue;
      group.remove(m.memberId);
      this.cancelHeartbeat(m);
      this.removed(group, m, 'rebalance-timeout', null);
    }
    if (group.is('Dead')) return;

    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      const delayMs = group.rebalanceTimeoutMs;
      this.ctx.emit({ type: 'join-phase-extended', groupId: group.groupId, reason: 'no-member-rejoined', delayMs });
      this.scheduleDelayedJoin(group, delayMs);
      return;
    }

    const from = group.state;
    group.initNextGeneration(this.now(), (g) => this.computeSubscribedTopics(g));
    this.ctx.emit({ type: 'state-changed', groupId: group.groupId, from, to: group.state, generationId: group.generationId });
    this.ctx.emit({
      type: 'generation-bumped',
      groupId: group.groupId,
      generationId: group.generationId,
      protocolName: group.protocolName,
      leader: group.leaderId,
      memberIds: group.memberIds(),
    });

    if (group.is('Empty')) {
      // Kafka writes the empty group and only logs a failure.
      this.storeGroup(group, 'group-empty', new Map());
      return;
    }

    for (const member of group.allMembers()) {
      const result: JoinResult = {
        errorCode: ErrorCode.NONE,
        generationId: group.generationId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        leaderId: group.leaderId,
        skipAssignment: false,
        memberId: member.memberId,
        members: group.isLeader(member.memberId) ? group.currentMemberMetadata() : [],
      };
      group.maybeInvokeJoinCallback(member, result);
      this.completeAndScheduleNextHeartbeatExpiration(group, member);
      member.isNew = false;
      // A member kept while away (a plug-in's) cannot sync; it is not waited for.
      if (!this.ctx.hooks.isAway(group, member)) group.addPendingSyncMember(member.memberId);
    }
    this.schedulePendingSync(group);
  }

  // --- removing members ----------------------------------------------------------------------------

  /** Take a member out (leave, admin removal, expiry) and let the group react. */
  removeMemberAndUpdateGroup(
    group: ClassicGroup,
    member: GroupMember,
    cause: RemovalCause,
    clientReason: string | null,
  ): void {
    // A member can expire while its JoinGroup is parked: tell it to rejoin from scratch.
    group.maybeInvokeJoinCallback(member, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    if (member.isAwaitingSync) {
      // Kafka never answers a SyncGroup parked by a member that is removed: the request times out.
      member.awaitingSync = null;
      this.callbackDropped(group, member.memberId, 'SyncGroup');
    }
    group.remove(member.memberId);
    this.cancelHeartbeat(member);
    this.removed(group, member, cause, clientReason);

    switch (group.state) {
      case 'Dead':
      case 'Empty':
        return;
      case 'Stable':
      case 'CompletingRebalance':
        this.maybePrepareRebalance(group, {
          trigger: 'member-removed',
          memberId: member.memberId,
          groupInstanceId: member.groupInstanceId,
          clientReason,
          removalCause: cause,
          description:
            cause === 'leave' || cause === 'admin'
              ? `Removing member ${member.memberId} on LeaveGroup; client reason: ${reasonText(clientReason)}`
              : `removing member ${member.memberId} on heartbeat expiration`,
        });
        return;
      case 'PreparingRebalance':
        this.checkAndCompleteJoin(group);
        return;
    }
  }

  /** A MEMBER_ID_REQUIRED id leaves or expires; that may be all the join phase was waiting for. */
  removePendingMemberAndUpdateGroup(group: ClassicGroup, memberId: string): void {
    group.remove(memberId);
    this.cancelPendingMemberExpiration(group, memberId);
    if (group.is('PreparingRebalance')) this.checkAndCompleteJoin(group);
  }

  // --- liveness (session timeout, new-member join timeout, pending members) -----------------------

  completeAndScheduleNextHeartbeatExpiration(group: ClassicGroup, member: GroupMember): void {
    this.scheduleExpiration(group, member, member.sessionTimeoutMs);
  }

  /**
   * Replace the member's liveness deadline. As in Kafka, a member that is currently parked in
   * JoinGroup/SyncGroup (and not new) gets no deadline at all: the operation completes at once and
   * the join/sync phase schedules the next one.
   */
  private scheduleExpiration(group: ClassicGroup, member: GroupMember, timeoutMs: number): void {
    this.cancelHeartbeat(member);
    // A member kept while away (a plug-in's) has no session deadline until it comes back.
    if (member.hasSatisfiedHeartbeat || this.ctx.hooks.isAway(group, member)) return;
    const memberId = member.memberId;
    const timer = this.ctx.timers.schedule(
      timeoutMs,
      this.ctx.onTimer(() => {
        if (member.heartbeatTimer !== timer) return;
        member.heartbeatTimer = null;
        this.onExpireHeartbeat(group, memberId);
      }),
      { name: `session timeout ${group.groupId}/${memberId}` },
    );
    member.heartbeatTimer = timer;
  }

  cancelHeartbeat(member: GroupMember): void {
    member.heartbeatTimer?.cancel();
    member.heartbeatTimer = null;
  }

  private onExpireHeartbeat(group: ClassicGroup, memberId: string): void {
    if (group.is('Dead') || !group.has(memberId)) return;
    const member = group.get(memberId);
    if (member.hasSatisfiedHeartbeat) return;
    if (!member.isNew && this.ctx.hooks.run('sessionExpired', group, member).kind === 'answered') return;
    this.removeMemberAndUpdateGroup(group, member, member.isNew ? 'join-timeout' : 'session-timeout', null);
  }

  /** A MEMBER_ID_REQUIRED id must rejoin within the session timeout it asked for. */
  addPendingMemberExpiration(group: ClassicGroup, memberId: string, timeoutMs: number): void {
    this.cancelPendingMemberExpiration(group, memberId);
    const timer = this.ctx.timers.schedule(
      timeoutMs,
      this.ctx.onTimer(() => {
        if (group.pendingMemberTimers.get(memberId) !== timer) return;
        group.pendingMemberTimers.delete(memberId);
        if (group.is('Dead')) return;
        if (group.isPendingMember(memberId)) {
          this.ctx.emit({
            type: 'member-removed',
            groupId: group.groupId,
            memberId,
            groupInstanceId: null,
            cause: 'pending-expired',
            clientReason: null,
          });
        }
        this.removePendingMemberAndUpdateGroup(group, memberId);
      }),
      { name: `pending member ${group.groupId}/${memberId}` },
    );
    group.pendingMemberTimers.set(memberId, timer);
  }

  cancelPendingMemberExpiration(group: ClassicGroup, memberId: string): void {
    group.pendingMemberTimers.get(memberId)?.cancel();
    group.pendingMemberTimers.delete(memberId);
  }

  // --- the sync phase ------------------------------------------------------------------------------

  /** DelayedSync: members of the new generation must send SyncGroup within the rebalance timeout. */
  private schedulePendingSync(group: ClassicGroup): void {
    group.syncExpiration?.timer.cancel();
    const generationId = group.generationId;
    const timer = this.ctx.timers.schedule(
      group.rebalanceTimeoutMs,
      this.ctx.onTimer(() => {
        if (group.syncExpiration?.timer !== timer) return;
        group.syncExpiration = null;
        this.onExpirePendingSync(group, generationId);
      }),
      { name: `sync timeout ${group.groupId}` },
    );
    group.syncExpiration = { generationId, timer };
    this.maybeCompleteSyncExpiration(group);
  }

  removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.removePendingSyncMember(memberId);
    this.maybeCompleteSyncExpiration(group);
  }

  private removeSyncExpiration(group: ClassicGroup): void {
    group.clearPendingSyncMembers();
    this.maybeCompleteSyncExpiration(group);
  }

  /** Kafka's tryCompletePendingSync. */
  private maybeCompleteSyncExpiration(group: ClassicGroup): void {
    const pending = group.syncExpiration;
    if (!pending) return;
    const done =
      pending.generationId !== group.generationId ||
      group.is('Dead') ||
      group.is('Empty') ||
      group.is('PreparingRebalance') ||
      group.hasReceivedSyncFromAllMembers;
    if (!done) return;
    pending.timer.cancel();
    group.syncExpiration = null;
  }

  private onExpirePendingSync(group: ClassicGroup, generationId: number): void {
    if (generationId !== group.generationId) return;
    if (!group.is('CompletingRebalance') && !group.is('Stable')) return;
    if (group.hasReceivedSyncFromAllMembers) return;
    const laggards = group.allPendingSyncMembers();
    for (const memberId of laggards) {
      const member = group.remove(memberId);
      if (!member) continue;
      this.cancelHeartbeat(member);
      this.removed(group, member, 'sync-timeout', null);
    }
    this.prepareRebalance(group, {
      trigger: 'pending-sync-timeout',
      memberId: null,
      groupInstanceId: null,
      clientReason: null,
      description: `Removing ${laggards.join(', ')} on pending sync request expiration`,
    });
  }

  // --- assignments ---------------------------------------------------------------------------------

  setAndPropagateAssignment(group: ClassicGroup, assignment: ReadonlyMap<string, Buffer>): void {
    if (!group.is('CompletingRebalance')) throw new GroupInvariantError(`Group ${group.groupId} is not CompletingRebalance`);
    for (const m of group.allMembers()) m.assignment = assignment.get(m.memberId) ?? EMPTY_BUFFER;
    this.propagateAssignment(group, ErrorCode.NONE);
  }

  resetAndPropagateAssignmentError(group: ClassicGroup, error: number): void {
    if (!group.is('CompletingRebalance')) throw new GroupInvariantError(`Group ${group.groupId} is not CompletingRebalance`);
    for (const m of group.allMembers()) m.assignment = EMPTY_BUFFER;
    this.propagateAssignment(group, error);
  }

  /** Answer every parked SyncGroup; a member that got its answer starts a fresh session. */
  private propagateAssignment(group: ClassicGroup, error: number): void {
    const ok = error === ErrorCode.NONE;
    for (const member of group.allMembers()) {
      const answered = group.maybeInvokeSyncCallback(member, {
        errorCode: error,
        protocolType: ok ? group.protocolType : null,
        protocolName: ok ? group.protocolName : null,
        assignment: member.assignment,
      });
      if (answered) this.completeAndScheduleNextHeartbeatExpiration(group, member);
    }
  }

  // --- persistence and subscriptions ---------------------------------------------------------------

  /**
   * GroupMetadataManager.storeGroup: the group's metadata record (groupMetadataValue: protocol
   * type, generation, protocol, leader, the time it entered its state, and every member with its
   * metadata for the group's protocol and `assignment`'s entry, empty when it has none) in one
   * batch. Returns the error a response should carry (NONE on success).
   */
  storeGroup(group: ClassicGroup, cause: GroupWriteCause, assignment: ReadonlyMap<string, Buffer>): number {
    const value: GroupMetadataRecord = {
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: group.currentStateTimestamp,
      members: group.allMembers().map((m) => {
        if (group.protocolName === null) throw new GroupInvariantError('Attempted to write non-empty group metadata with no defined protocol.');
        return {
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rebalanceTimeoutMs: m.rebalanceTimeoutMs,
          sessionTimeoutMs: m.sessionTimeoutMs,
          subscription: m.metadata(group.protocolName),
          assignment: assignment.get(m.memberId) ?? EMPTY_BUFFER,
        };
      }),
    };
    const raw = this.ctx.appendRecords(group.groupId, cause, [{ type: 'group', groupId: group.groupId, value }]).errorCode;
    return raw === ErrorCode.NONE ? ErrorCode.NONE : groupAppendErrorToResponseError(raw);
  }

  /** GroupMetadata.computeSubscribedTopics, generalised to the configurable hook. */
  computeSubscribedTopics(group: ClassicGroup): ReadonlySet<string> | undefined {
    if (group.protocolType === null) return undefined;
    if (group.size === 0) return group.protocolType === CONSUMER_PROTOCOL_TYPE ? new Set() : undefined;
    if (group.protocolName === null) return undefined;
    const topics = new Set<string>();
    for (const m of group.allMembers()) {
      let memberTopics: string[] | undefined;
      try {
        memberTopics = this.ctx.config.subscribedTopics(group.protocolType, group.protocolName, m.metadata(group.protocolName));
      } catch {
        memberTopics = undefined;
      }
      if (memberTopics === undefined) return undefined;
      for (const t of memberTopics) topics.add(t);
    }
    return topics;
  }

  /** Stop every timer of a group that is going away. */
  cancelAllTimers(group: ClassicGroup): void {
    this.cancelJoinPhaseTimer(group);
    group.syncExpiration?.timer.cancel();
    group.syncExpiration = null;
    for (const t of group.pendingMemberTimers.values()) t.cancel();
    group.pendingMemberTimers.clear();
    for (const m of group.allMembers()) this.cancelHeartbeat(m);
  }

  // --- events --------------------------------------------------------------------------------------

  replaced(group: ClassicGroup, groupInstanceId: string, oldMemberId: string, newMemberId: string): void {
    this.ctx.emit({ type: 'member-replaced', groupId: group.groupId, groupInstanceId, oldMemberId, newMemberId });
  }

  fenced(
    group: ClassicGroup,
    memberId: string,
    groupInstanceId: string,
    operation: Extract<GroupEvent, { type: 'member-fenced' }>['operation'],
  ): void {
    this.ctx.emit({ type: 'member-fenced', groupId: group.groupId, memberId, groupInstanceId, operation });
  }

  removed(group: ClassicGroup, member: GroupMember, cause: RemovalCause, clientReason: string | null): void {
    this.ctx.hooks.run('memberRemoved', group, member);
    this.ctx.emit({
      type: 'member-removed',
      groupId: group.groupId,
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      cause,
      clientReason,
    });
  }

  callbackDropped(group: ClassicGroup, memberId: string, api: 'JoinGroup' | 'SyncGroup'): void {
    this.ctx.emit({ type: 'callback-dropped', groupId: group.groupId, memberId, api });
  }
}
