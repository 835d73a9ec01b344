// The draft policies at work: the coordinator (coordinator.ts) and the rebalance engine
// (rebalance.ts, through EngineHooks) call in here at fixed points; with every policy off each call
// returns at once and Kafka's behaviour is untouched. Per-group state lives on `group.policy`
// (state.ts). See README, "Draft policies" for the rules as users see them.

import type { Clock, Timers } from '../clock.js';
import { ErrorCode, errorName } from '../errors.js';
import type { ClassicGroup } from '../group.js';
import { joinError, type GroupMember } from '../member.js';
import type { EngineHooks, GroupEventInput, RebalanceEngine } from '../rebalance.js';
import type { KnownMemberJoinDecision, StaticReplacementDecision } from '../rules.js';
import { PolicyError, PolicyRegistry, policiesEqual, validatePolicyUpdate, MAX_POLICY_TIMEOUT_MS } from './config.js';
import { checkStaticCommit, DRAFT_ERROR_CODES } from './draft-errors.js';
import { classifyJoinReason } from './join-reasons.js';
import type { Claim, ParkedJoin } from './state.js';
import type {
  DraftErrorName,
  HeldStaticMember,
  MembershipChangeResult,
  MembershipMode,
  OfflineStaticMember,
  PolicyConfig,
  PolicyName,
  PolicyUpdate,
} from './types.js';

export type MemberOperation = 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'LeaveGroup';

/** What the policies need from the coordinator. */
export interface PolicyHost {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly engine: RebalanceEngine;
  emit(event: GroupEventInput): void;
  /** Wraps a timer callback as a coordinator operation. */
  onTimer(fn: () => void): () => void;
  groups(): ClassicGroup[];
  group(groupId: string): ClassicGroup | undefined;
  /**
   * Carries on with a known member's JoinGroup that a policy held back (a granted claim).
   * `returning`: the member was gone and comes back in place (no rebalance in Stable).
   */
  resumeKnownMemberJoin(group: ClassicGroup, join: ParkedJoin, returning: boolean): void;
}

/** The outcome of the membership-modes check at the start of a JoinGroup. */
export type BeforeJoin = { refuse: number } | { groupInstanceId: string | null };

export class GroupPolicies implements EngineHooks {
  readonly registry: PolicyRegistry;
  private readonly cache = new Map<string, PolicyConfig>();

  constructor(
    private readonly host: PolicyHost,
    initial?: PolicyUpdate,
  ) {
    this.registry = new PolicyRegistry(initial);
  }

  // ==============================================================================================
  // settings

  config(groupId: string): PolicyConfig {
    let c = this.cache.get(groupId);
    if (!c) {
      c = this.registry.effective(groupId);
      this.cache.set(groupId, c);
    }
    return c;
  }

  on(group: ClassicGroup | string, name: PolicyName): boolean {
    return this.config(typeof group === 'string' ? group : group.groupId)[name].enabled;
  }

  setBroker(update: PolicyUpdate): void {
    const clean = validatePolicyUpdate(update);
    const before = new Map(this.host.groups().map((g) => [g.groupId, this.config(g.groupId)]));
    this.registry.setBroker(clean);
    this.cache.clear();
    this.host.emit({ type: 'policies-changed', groupId: '', scope: 'broker', policies: this.registry.brokerPolicies() });
    for (const g of this.host.groups()) this.reconcile(g, before.get(g.groupId)!, this.config(g.groupId));
  }

  setGroup(groupId: string, update: PolicyUpdate | null): void {
    const clean = update === null ? null : validatePolicyUpdate(update);
    const before = this.config(groupId);
    this.registry.setGroup(groupId, clean);
    this.cache.delete(groupId);
    const after = this.config(groupId);
    this.host.emit({ type: 'policies-changed', groupId, scope: 'group', policies: after });
    const group = this.host.group(groupId);
    if (group) this.reconcile(group, before, after);
  }

  /** Brings a group's policy state in line with changed settings. */
  private reconcile(group: ClassicGroup, before: PolicyConfig, after: PolicyConfig): void {
    if (policiesEqual(before, after) || group.is('Dead')) return;
    const st = group.policy;
    if (!after['kip345-draft-errors'].enabled) this.closeClaims(group);
    if (!after['registration-timeout'].enabled) {
      for (const m of group.offlineMembers()) this.markOnline(group, m, 'policy-changed');
    }
    this.scheduleRegistrationCheck(group);
    if (!after['expansion-timeout'].enabled) {
      this.admitHeldAndRebalance(group, 'policy-changed');
    } else if (st.expansion && before['expansion-timeout'].expansionTimeoutMs !== after['expansion-timeout'].expansionTimeoutMs) {
      const firstHeldAt = st.expansion.firstHeldAt;
      this.scheduleExpansion(group, firstHeldAt);
    }
    if (!after['membership-modes'].enabled) st.mode = null;
  }

  // ==============================================================================================
  // EngineHooks

  onSessionExpired(group: ClassicGroup, member: GroupMember): boolean {
    const instance = member.groupInstanceId;
    if (instance === null) return false;
    const claim = group.policy.claims.get(instance);
    if (claim && claim.memberId === member.memberId) {
      this.deleteClaim(group, claim);
      if (claim.reclaim) {
        // The running incarnation stayed silent for a whole session: it is gone, and the claimant
        // (a restart, after all) takes its place.
        this.host.resumeKnownMemberJoin(group, claim.reclaim, true);
        return true;
      }
    }
    if (this.on(group, 'registration-timeout')) {
      this.markOffline(group, member);
      return true;
    }
    return false;
  }

  beforePrepareRebalance(group: ClassicGroup): void {
    // During a rebalance the running incarnation sends JoinGroups too, so a claim whose claimant
    // has not come back yet can no longer be told apart: drop it.
    for (const claim of [...group.policy.claims.values()]) if (claim.reclaim === null) this.deleteClaim(group, claim);
    if (group.policy.held.size > 0) this.admitHeld(group, 'rebalance');
  }

  onMemberRemoved(group: ClassicGroup, member: GroupMember): void {
    const instance = member.groupInstanceId;
    if (instance !== null) {
      const claim = group.policy.claims.get(instance);
      if (claim && claim.memberId === member.memberId) {
        this.deleteClaim(group, claim);
        // The member it claimed is gone: the claimant starts over (MemberId "", a new instance).
        claim.reclaim?.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
      }
    }
    if (member.offlineSince !== null) this.scheduleRegistrationCheck(group);
  }

  // ==============================================================================================
  // any request of a known member

  /** A Heartbeat/SyncGroup/OffsetCommit/TxnOffsetCommit/LeaveGroup passed member validation. */
  onMemberActivity(group: ClassicGroup, memberId: string, op: Exclude<MemberOperation, 'JoinGroup'>): void {
    if (!group.has(memberId)) return;
    const member = group.get(memberId);
    if (member.offlineSince !== null && op !== 'LeaveGroup') this.markOnline(group, member, op);
    const instance = member.groupInstanceId;
    if (instance === null) return;
    const claim = group.policy.claims.get(instance);
    if (!claim || claim.memberId !== memberId) return;
    // The running incarnation is alive: whoever claimed its id is a second process.
    if (claim.reclaim) {
      this.deleteClaim(group, claim);
      this.refuseDuplicate(group, claim.reclaim, `a ${op} from the running member arrived while its JoinGroup was held`);
    } else {
      claim.oldAlive = true;
    }
  }

  // ==============================================================================================
  // membership-modes

  /** The group's mode, null while the policy is off for it. */
  modeOf(group: ClassicGroup): MembershipMode | null {
    return this.modeState(group)?.mode ?? null;
  }

  modePinned(group: ClassicGroup): boolean {
    return this.modeState(group)?.pinned ?? false;
  }

  private modeState(group: ClassicGroup, initial?: MembershipMode): { mode: MembershipMode; pinned: boolean } | null {
    if (!this.on(group, 'membership-modes')) return null;
    if (group.policy.mode === null) {
      group.policy.mode = { mode: initial ?? (group.allMembers().some((m) => m.isStatic) ? 'static' : 'dynamic'), pinned: false };
    }
    return group.policy.mode;
  }

  /** In dynamic mode instance ids are not tracked: requests are read without them. */
  effectiveInstanceId(group: ClassicGroup, groupInstanceId: string | null): string | null {
    if (groupInstanceId === null) return null;
    return this.modeOf(group) === 'dynamic' ? null : groupInstanceId;
  }

  /**
   * The start of every JoinGroup. Unpinned (no admin call yet): once the group is Stable (or
   * Empty), the join decides the next round's mode. Pinned static: joins without an instance id are
   * refused. Dynamic: the instance id is ignored.
   */
  beforeJoin(group: ClassicGroup, memberId: string, groupInstanceId: string | null, clientId: string): BeforeJoin {
    if (!this.on(group, 'membership-modes')) return { groupInstanceId };
    const wanted: MembershipMode = groupInstanceId !== null ? 'static' : 'dynamic';
    const st = this.modeState(group, group.size === 0 ? wanted : undefined)!;
    if (!st.pinned && (group.is('Stable') || group.is('Empty')) && st.mode !== wanted) {
      this.switchMode(group, wanted, false, 'first-join', memberId === '' ? null : memberId, groupInstanceId);
    }
    if (st.mode === 'static' && st.pinned && groupInstanceId === null) {
      const errorCode = ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
      this.host.emit({
        type: 'join-refused',
        groupId: group.groupId,
        policy: 'membership-modes',
        memberId,
        clientId,
        errorCode,
        errorName: errorName(errorCode),
        description: `group ${group.groupId} is in static membership mode (enableStaticMembership): a JoinGroup needs a group.instance.id`,
      });
      return { refuse: errorCode };
    }
    return { groupInstanceId: st.mode === 'dynamic' ? null : groupInstanceId };
  }

  private switchMode(
    group: ClassicGroup,
    to: MembershipMode,
    pinned: boolean,
    cause: 'enableStaticMembership' | 'enableDynamicMembership' | 'first-join',
    memberId: string | null,
    groupInstanceId: string | null,
  ): void {
    const st = this.modeState(group)!;
    const from = st.mode;
    if (to === 'dynamic' && from !== 'dynamic') this.dropStaticMembership(group);
    st.mode = to;
    if (pinned) st.pinned = true;
    this.host.emit({
      type: 'membership-mode-changed',
      groupId: group.groupId,
      policy: 'membership-modes',
      from,
      to,
      pinned: st.pinned,
      cause,
      memberId,
      groupInstanceId,
    });
  }

  /** Dynamic mode: forget instance ids; members carry on as dynamic members. */
  private dropStaticMembership(group: ClassicGroup): void {
    this.closeClaims(group);
    for (const m of group.offlineMembers()) this.markOnline(group, m, 'membership-mode-changed');
    group.dropStaticMembership();
    this.scheduleRegistrationCheck(group);
  }

  enableStaticMembership(groupId: string, options: { registrationTimeoutMs?: number; expansionTimeoutMs?: number } = {}): MembershipChangeResult {
    const reg = timeoutOption(options.registrationTimeoutMs, 'registrationTimeoutMs', 1);
    const exp = timeoutOption(options.expansionTimeoutMs, 'expansionTimeoutMs', 0);
    const refused = this.checkAdmin(groupId, 'enableStaticMembership');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    const st = this.modeState(group)!;
    if (st.mode !== 'static' || !st.pinned) this.switchMode(group, 'static', true, 'enableStaticMembership', null, null);
    // The draft's enableStaticMembership sets the static group's timeouts; a timeout given here
    // turns its policy on for the group.
    const update: PolicyUpdate = {};
    if (reg !== undefined) update['registration-timeout'] = { enabled: true, registrationTimeoutMs: reg };
    if (exp !== undefined) update['expansion-timeout'] = { enabled: true, expansionTimeoutMs: exp };
    if (Object.keys(update).length > 0) this.setGroup(groupId, update);
    return this.membershipResult(groupId, ErrorCode.NONE, null, 'group is in static membership mode: JoinGroups without group.instance.id are refused');
  }

  enableDynamicMembership(groupId: string): MembershipChangeResult {
    const refused = this.checkAdmin(groupId, 'enableDynamicMembership');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    if (this.modeOf(group) === 'dynamic') {
      return this.membershipResult(groupId, ErrorCode.INVALID_REQUEST, 'WRONG_MEMBERSHIP_MODE', 'group is already on dynamic membership');
    }
    this.switchMode(group, 'dynamic', true, 'enableDynamicMembership', null, null);
    return this.membershipResult(groupId, ErrorCode.NONE, null, 'instance map dropped: members carry on as dynamic members');
  }

  forceStaticRebalance(groupId: string): MembershipChangeResult {
    const refused = this.checkAdmin(groupId, 'forceStaticRebalance');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    if (this.modeOf(group) !== 'static') {
      return this.membershipResult(groupId, ErrorCode.INVALID_REQUEST, 'WRONG_MEMBERSHIP_MODE', 'group is on dynamic membership');
    }
    const generationId = group.generationId;
    this.host.engine.prepareRebalance(group, {
      trigger: 'force-static-rebalance',
      memberId: null,
      groupInstanceId: null,
      clientReason: null,
      description: `forceStaticRebalance of static group ${groupId} (membership-modes)`,
    });
    return { ...this.membershipResult(groupId, ErrorCode.NONE, null, 'rebalance started'), generationId };
  }

  /** The errors all three admin operations share, in the draft's order. */
  private checkAdmin(groupId: string, op: string): MembershipChangeResult | null {
    if (!this.on(groupId, 'membership-modes')) {
      return this.membershipResult(groupId, ErrorCode.UNSUPPORTED_VERSION, 'MEMBERSHIP_MODES_DISABLED', `${op} needs the membership-modes policy on for group "${groupId}"`);
    }
    const group = this.host.group(groupId);
    if (!group || group.is('Dead')) {
      return this.membershipResult(groupId, ErrorCode.GROUP_ID_NOT_FOUND, 'GROUP_ID_NOT_FOUND', `unknown group "${groupId}"`);
    }
    if (group.is('PreparingRebalance') || group.is('CompletingRebalance')) {
      return this.membershipResult(groupId, ErrorCode.REBALANCE_IN_PROGRESS, 'REBALANCE_IN_PROGRESS', `group "${groupId}" is ${group.state}`);
    }
    return null;
  }

  private membershipResult(groupId: string, errorCode: number, error: string | null, message: string): MembershipChangeResult {
    const group = this.host.group(groupId);
    const live = group && !group.is('Dead') ? group : undefined;
    return {
      groupId,
      errorCode,
      error,
      mode: (live && this.modeOf(live)) ?? (live?.allMembers().some((m) => m.isStatic) ? 'static' : 'dynamic'),
      generationId: live?.generationId ?? -1,
      members: live ? live.allMembers().map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId })) : [],
      message,
    };
  }

  // ==============================================================================================
  // kip345-draft-errors

  private draftError(
    group: ClassicGroup,
    draftError: DraftErrorName,
    op: MemberOperation,
    memberId: string,
    groupInstanceId: string | null,
    mappedMemberId: string | null,
    description: string,
  ): void {
    const errorCode = DRAFT_ERROR_CODES[draftError];
    this.host.emit({
      type: 'draft-error',
      groupId: group.groupId,
      policy: 'kip345-draft-errors',
      draftError,
      errorCode,
      errorName: errorName(errorCode),
      operation: op,
      memberId,
      groupInstanceId,
      mappedMemberId,
      description,
    });
  }

  /**
   * MISSING_MEMBER_ID: a JoinGroup with MemberId "" for a mapped instance gets MEMBER_ID_REQUIRED
   * with the mapped member id. Returns false when the policy is off (Kafka replaces the member).
   */
  onStaticJoinWithoutMemberId(group: ClassicGroup, mappedMemberId: string, join: ParkedJoin): boolean {
    if (!this.on(group, 'kip345-draft-errors')) return false;
    const instance = join.groupInstanceId!;
    const member = group.get(mappedMemberId);
    this.draftError(group, 'MISSING_MEMBER_ID', 'JoinGroup', '', instance, mappedMemberId, `group.instance.id ${instance} is mapped to ${mappedMemberId}: rejoin with it`);
    if (member.offlineSince === null && group.is('Stable')) {
      const prev = group.policy.claims.get(instance);
      if (prev) {
        this.deleteClaim(group, prev);
        if (prev.reclaim) this.refuseDuplicate(group, prev.reclaim, 'another process claimed the same instance');
      }
      const claim: Claim = { groupInstanceId: instance, memberId: mappedMemberId, openedAt: this.host.clock.now(), oldAlive: prev?.oldAlive ?? false, reclaim: null, timer: null };
      // A claimant that does not come back within its session timeout has given up.
      claim.timer = this.host.timers.schedule(
        join.sessionTimeoutMs,
        this.host.onTimer(() => {
          if (group.policy.claims.get(instance) === claim && claim.reclaim === null) group.policy.claims.delete(instance);
        }),
      );
      group.policy.claims.set(instance, claim);
    }
    join.callback(joinError(mappedMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    return true;
  }

  /**
   * A JoinGroup with a member id and an instance id, before Kafka's member validation. Returns true
   * when the policy answered or parked it.
   */
  interceptJoinWithMemberId(group: ClassicGroup, join: ParkedJoin): boolean {
    const instance = join.groupInstanceId;
    if (instance === null || !this.on(group, 'kip345-draft-errors')) return false;
    const claim = group.policy.claims.get(instance);
    if (claim && claim.memberId === join.memberId) {
      if (claim.reclaim === null) {
        if (claim.oldAlive) {
          this.deleteClaim(group, claim);
          this.refuseDuplicate(group, join, 'the running member made a request after the id was handed out');
          return true;
        }
        // Parked until the running incarnation proves alive or its session expires.
        claim.reclaim = join;
        claim.timer?.cancel();
        claim.timer = null;
        return true;
      }
      // A second JoinGroup under the claimed id: the running incarnation is alive and rejoining.
      this.deleteClaim(group, claim);
      this.refuseDuplicate(group, claim.reclaim, 'the running member sent a JoinGroup too');
      return false;
    }
    if (!group.hasStaticMember(instance)) {
      this.duplicate(group, 'JoinGroup', join.memberId, instance, null, `JoinGroup with member id ${join.memberId} but group.instance.id ${instance} is new`);
      join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
      return true;
    }
    return false;
  }

  /** A pending (MEMBER_ID_REQUIRED) member id with an instance id: Kafka throws; the draft calls it a duplicate. */
  onPendingMemberWithInstance(group: ClassicGroup, join: ParkedJoin): boolean {
    if (!this.on(group, 'kip345-draft-errors')) {
      if (!this.on(group, 'membership-modes')) return false;
      // membership-modes: the pending id was handed out while the group's dynamic mode made the
      // instance id count for nothing; the group is static now, so that id means nothing either
      // (Kafka never hands a pending id to a static join). The id is dropped and the client told
      // to start over, which it does with MemberId "" and its instance id.
      this.host.engine.removePendingMemberAndUpdateGroup(group, join.memberId);
      join.callback(joinError(join.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return true;
    }
    this.duplicate(group, 'JoinGroup', join.memberId, join.groupInstanceId, group.currentStaticMemberId(join.groupInstanceId!) ?? null, `JoinGroup with the pending dynamic member id ${join.memberId} and group.instance.id ${join.groupInstanceId}`);
    join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
    return true;
  }

  /** Kafka answered FENCED_INSTANCE_ID (ids disagree with the map): name it as the draft does. */
  onFenced(group: ClassicGroup, memberId: string, groupInstanceId: string, op: MemberOperation): void {
    if (!this.on(group, 'kip345-draft-errors')) return;
    const mapped = group.currentStaticMemberId(groupInstanceId) ?? null;
    this.draftError(group, 'DUPLICATE_STATIC_MEMBER', op, memberId, groupInstanceId, mapped, `${op} from member ${memberId} with group.instance.id ${groupInstanceId}, which is mapped to ${mapped ?? 'nobody'}`);
  }

  /** The draft's commit rules; returns the error to answer, or null for Kafka's own checks. */
  checkCommit(
    group: ClassicGroup,
    generationId: number,
    memberId: string,
    groupInstanceId: string | null,
    canCarryInstanceId: boolean,
    op: 'OffsetCommit' | 'TxnOffsetCommit',
  ): number | null {
    if (!this.on(group, 'kip345-draft-errors') || group.is('Dead')) return null;
    if (generationId < 0 && group.is('Empty')) return null; // admin/manual commit: no member checks
    if (!(generationId >= 0 || memberId !== '' || groupInstanceId !== null)) return null;
    const found = checkStaticCommit(
      {
        currentStaticMemberId: (i) => group.currentStaticMemberId(i),
        instanceOf: (m) => (group.has(m) ? group.get(m).groupInstanceId : undefined),
      },
      memberId,
      groupInstanceId,
      canCarryInstanceId,
    );
    if (!found) return null;
    this.draftError(group, found.draftError, op, memberId, groupInstanceId, found.mappedMemberId, found.description);
    if (found.errorCode === ErrorCode.FENCED_INSTANCE_ID && groupInstanceId !== null) {
      this.host.engine.fenced(group, memberId, groupInstanceId, op);
    }
    return found.errorCode;
  }

  private duplicate(group: ClassicGroup, op: MemberOperation, memberId: string, instance: string | null, mapped: string | null, description: string): void {
    this.draftError(group, 'DUPLICATE_STATIC_MEMBER', op, memberId, instance, mapped, description);
    if (instance !== null) this.host.engine.fenced(group, memberId, instance, op);
  }

  /** The claimant turned out to be a second process: DUPLICATE_STATIC_MEMBER → FENCED_INSTANCE_ID. */
  private refuseDuplicate(group: ClassicGroup, join: ParkedJoin, evidence: string): void {
    const instance = join.groupInstanceId!;
    this.duplicate(group, 'JoinGroup', join.memberId, instance, group.currentStaticMemberId(instance) ?? null, `group.instance.id ${instance} is held by a live member (${evidence}): the newcomer is a duplicate`);
    join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
  }

  private deleteClaim(group: ClassicGroup, claim: Claim): void {
    claim.timer?.cancel();
    claim.timer = null;
    if (group.policy.claims.get(claim.groupInstanceId) === claim) group.policy.claims.delete(claim.groupInstanceId);
  }

  /** Ends every claim; parked claimants start over (UNKNOWN_MEMBER_ID → they rejoin with MemberId ""). */
  private closeClaims(group: ClassicGroup): void {
    for (const claim of [...group.policy.claims.values()]) {
      this.deleteClaim(group, claim);
      claim.reclaim?.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  // ==============================================================================================
  // registration-timeout

  private markOffline(group: ClassicGroup, member: GroupMember): void {
    member.offlineSince = this.host.clock.now();
    this.host.engine.cancelHeartbeat(member);
    this.host.engine.removePendingSyncMember(group, member.memberId);
    const earliest = Math.min(...group.offlineMembers().map((m) => m.offlineSince!));
    this.host.emit({
      type: 'member-offline',
      groupId: group.groupId,
      policy: 'registration-timeout',
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId!,
      offlineSince: member.offlineSince,
      removeAt: earliest + this.config(group.groupId)['registration-timeout'].registrationTimeoutMs,
    });
    this.scheduleRegistrationCheck(group);
    if (group.is('PreparingRebalance')) this.host.engine.checkAndCompleteJoin(group);
  }

  /** An offline member is back (or no longer kept offline): it gets a session again. */
  markOnline(
    group: ClassicGroup,
    member: GroupMember,
    via: 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'policy-changed' | 'membership-mode-changed',
  ): void {
    const since = member.offlineSince;
    if (since === null) return;
    member.offlineSince = null;
    this.host.emit({
      type: 'member-online',
      groupId: group.groupId,
      policy: 'registration-timeout',
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      offlineSince: since,
      via,
    });
    this.host.engine.completeAndScheduleNextHeartbeatExpiration(group, member);
    this.scheduleRegistrationCheck(group);
  }

  /** One timer per group, at the earliest offline member's drop time + the registration timeout. */
  private scheduleRegistrationCheck(group: ClassicGroup): void {
    const st = group.policy;
    st.registrationTimer?.timer.cancel();
    st.registrationTimer = null;
    if (!this.on(group, 'registration-timeout')) return;
    const offline = group.offlineMembers();
    if (offline.length === 0) return;
    const at = Math.min(...offline.map((m) => m.offlineSince!)) + this.config(group.groupId)['registration-timeout'].registrationTimeoutMs;
    const timer = this.host.timers.schedule(
      at - this.host.clock.now(),
      this.host.onTimer(() => {
        if (st.registrationTimer?.timer !== timer) return;
        st.registrationTimer = null;
        this.expireOfflineMembers(group);
      }),
    );
    st.registrationTimer = { at, timer };
  }

  /** One rebalance removes every member offline longer than the registration timeout. */
  private expireOfflineMembers(group: ClassicGroup): void {
    if (this.host.group(group.groupId) !== group || group.is('Dead')) return;
    const timeoutMs = this.config(group.groupId)['registration-timeout'].registrationTimeoutMs;
    const now = this.host.clock.now();
    const expired = group.offlineMembers().filter((m) => now - m.offlineSince! >= timeoutMs);
    if (expired.length > 0) {
      const engine = this.host.engine;
      for (const m of expired) {
        group.remove(m.memberId);
        engine.cancelHeartbeat(m);
        engine.removed(group, m, 'registration-timeout', null);
      }
      const only = expired.length === 1 ? expired[0]! : null;
      const cause = {
        trigger: 'registration-timeout' as const,
        memberId: only?.memberId ?? null,
        groupInstanceId: only?.groupInstanceId ?? null,
        clientReason: null,
        removalCause: 'registration-timeout' as const,
        description: `Removing static members ${expired.map((m) => `${m.groupInstanceId} (${m.memberId})`).join(', ')} offline longer than registration.timeout.ms (${timeoutMs})`,
      };
      if (group.is('Stable') || group.is('CompletingRebalance')) engine.prepareRebalance(group, cause);
      else if (group.is('PreparingRebalance')) engine.checkAndCompleteJoin(group);
    }
    this.scheduleRegistrationCheck(group);
  }

  offlineStaticMembers(group: ClassicGroup): OfflineStaticMember[] {
    return group
      .offlineMembers()
      .map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? '', offlineSince: m.offlineSince! }))
      .sort((a, b) => a.offlineSince - b.offlineSince);
  }

  // ==============================================================================================
  // expansion-timeout

  /** Static groups: the membership-modes mode when that policy is on, else "every member is static". */
  private isStaticGroup(group: ClassicGroup): boolean {
    const mode = this.modeOf(group);
    if (mode !== null) return mode === 'static';
    return group.size > 0 && group.allMembers().every((m) => m.isStatic);
  }

  /** A new static member joining a Stable static group is held. Returns false when it is not. */
  maybeHold(group: ClassicGroup, join: ParkedJoin, newMemberId: string): boolean {
    const instance = join.groupInstanceId;
    if (instance === null || !this.on(group, 'expansion-timeout') || !group.is('Stable') || !this.isStaticGroup(group)) return false;
    const st = group.policy;
    const prev = st.held.get(instance);
    if (prev) {
      // The newest JoinGroup for an instance wins, as for a static member (Kafka).
      st.held.delete(instance);
      this.host.engine.fenced(group, prev.newMemberId, instance, 'JoinGroup');
      prev.callback(joinError(prev.newMemberId, ErrorCode.FENCED_INSTANCE_ID));
    }
    const now = this.host.clock.now();
    st.held.set(instance, { ...join, newMemberId, groupInstanceId: instance, heldSince: now });
    if (!st.expansion) this.scheduleExpansion(group, now);
    this.host.emit({
      type: 'member-held',
      groupId: group.groupId,
      policy: 'expansion-timeout',
      memberId: newMemberId,
      groupInstanceId: instance,
      admitAt: st.expansion!.firstHeldAt + this.config(group.groupId)['expansion-timeout'].expansionTimeoutMs,
    });
    return true;
  }

  private scheduleExpansion(group: ClassicGroup, firstHeldAt: number): void {
    const st = group.policy;
    st.expansion?.timer.cancel();
    const at = firstHeldAt + this.config(group.groupId)['expansion-timeout'].expansionTimeoutMs;
    const timer = this.host.timers.schedule(
      at - this.host.clock.now(),
      this.host.onTimer(() => {
        if (st.expansion?.timer !== timer) return;
        st.expansion = null;
        this.admitHeldAndRebalance(group, 'expansion-timeout');
      }),
    );
    st.expansion = { firstHeldAt, timer };
  }

  private admitHeldAndRebalance(group: ClassicGroup, cause: 'expansion-timeout' | 'policy-changed'): void {
    if (this.host.group(group.groupId) !== group) return;
    const admitted = this.admitHeld(group, cause);
    if (admitted.length === 0) return;
    if (group.canRebalance) {
      this.host.engine.prepareRebalance(group, {
        trigger: 'expansion-timeout',
        memberId: admitted.length === 1 ? admitted[0]! : null,
        groupInstanceId: null,
        clientReason: null,
        description:
          cause === 'expansion-timeout'
            ? `Admitting ${admitted.length} new static member(s) held for member.expansion.timeout.ms (${this.config(group.groupId)['expansion-timeout'].expansionTimeoutMs}): ${admitted.join(', ')}`
            : `expansion-timeout turned off: admitting held member(s) ${admitted.join(', ')}`,
      });
    } else if (group.is('PreparingRebalance')) {
      this.host.engine.checkAndCompleteJoin(group);
    }
  }

  /** Makes every held member a member (no rebalance here). Returns their member ids. */
  private admitHeld(group: ClassicGroup, cause: 'expansion-timeout' | 'rebalance' | 'policy-changed'): string[] {
    const st = group.policy;
    if (st.held.size === 0) return [];
    st.expansion?.timer.cancel();
    st.expansion = null;
    const held = [...st.held.values()];
    st.held.clear();
    const admitted: string[] = [];
    const dynamic = this.modeOf(group) === 'dynamic';
    for (const h of held) {
      if (!group.supportsProtocols(h.protocolType, h.protocols)) {
        h.callback(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        continue;
      }
      if (!dynamic && group.hasStaticMember(h.groupInstanceId)) {
        h.callback(joinError(h.newMemberId, ErrorCode.FENCED_INSTANCE_ID));
        continue;
      }
      this.host.engine.addMember(
        group,
        {
          memberId: h.newMemberId,
          groupInstanceId: dynamic ? null : h.groupInstanceId,
          clientId: h.client.clientId,
          clientHost: h.client.clientHost,
          rebalanceTimeoutMs: h.rebalanceTimeoutMs,
          sessionTimeoutMs: h.sessionTimeoutMs,
          protocolType: h.protocolType,
          protocols: h.protocols,
        },
        h.callback,
        h.clientReason,
      );
      admitted.push(h.newMemberId);
    }
    if (admitted.length > 0) {
      this.host.emit({ type: 'held-members-admitted', groupId: group.groupId, policy: 'expansion-timeout', memberIds: admitted, cause });
    }
    return admitted;
  }

  /** LeaveGroup / removeMembers naming a held member: it is dropped and its JoinGroup answered. */
  removeHeld(group: ClassicGroup, memberId: string, groupInstanceId: string | null): boolean {
    const st = group.policy;
    for (const [instance, h] of st.held) {
      if ((memberId !== '' && h.newMemberId === memberId) || (memberId === '' && groupInstanceId === instance)) {
        st.held.delete(instance);
        if (st.held.size === 0) {
          st.expansion?.timer.cancel();
          st.expansion = null;
        }
        h.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
        return true;
      }
    }
    return false;
  }

  heldStaticMembers(group: ClassicGroup): HeldStaticMember[] {
    const st = group.policy;
    const admitAt = st.expansion ? st.expansion.firstHeldAt + this.config(group.groupId)['expansion-timeout'].expansionTimeoutMs : 0;
    return [...st.held.values()].map((h) => ({
      memberId: h.newMemberId,
      groupInstanceId: h.groupInstanceId,
      clientId: h.client.clientId,
      clientHost: h.client.clientHost,
      heldSince: h.heldSince,
      admitAt,
    }));
  }

  // ==============================================================================================
  // kip423-join-reasons

  private reasonEvent(
    group: ClassicGroup,
    join: ParkedJoin,
    memberId: string,
    cls: ReturnType<typeof classifyJoinReason>,
    decision: 'no-rebalance' | 'rebalance' | 'kafka-rules',
    description: string,
  ): void {
    this.host.emit({
      type: 'join-reason',
      groupId: group.groupId,
      policy: 'kip423-join-reasons',
      memberId,
      groupInstanceId: join.groupInstanceId,
      clientReason: join.clientReason,
      joinReason: cls.reason,
      matched: cls.matched,
      decision,
      description,
    });
  }

  /** A known member id rejoins: the draft's rules for a Stable group, or null for Kafka's. */
  decideKnownMemberJoin(group: ClassicGroup, member: GroupMember, join: ParkedJoin): KnownMemberJoinDecision | null {
    if (!this.on(group, 'kip423-join-reasons')) return null;
    const cls = classifyJoinReason(join.version >= 8 ? join.clientReason : null);
    const id = member.memberId;
    if (join.version < 8) {
      this.reasonEvent(group, join, id, cls, 'kafka-rules', 'JoinGroup below v8 carries no reason: Kafka\'s rules');
      return null;
    }
    if (!group.is('Stable')) {
      this.reasonEvent(group, join, id, cls, 'kafka-rules', `group is ${group.state}: Kafka's rules`);
      return null;
    }
    if (!member.matches(join.protocols)) {
      this.reasonEvent(group, join, id, cls, 'rebalance', 'protocols changed: a rebalance, whatever the reason');
      return null; // Kafka rebalances on changed metadata too
    }
    const isLeader = group.isLeader(id);
    switch (cls.reason) {
      case 'restart':
        this.reasonEvent(group, join, id, cls, 'no-rebalance', `restart of a known ${isLeader ? 'leader' : 'follower'} with unchanged protocols: current generation, no rebalance`);
        return { action: 'return-current-generation', includeMembers: isLeader, skipAssignment: isLeader && join.version >= 9 };
      case 'topic_metadata_change':
        if (isLeader) {
          this.reasonEvent(group, join, id, cls, 'rebalance', 'topic_metadata_change from the leader: rebalance');
          return { action: 'rebalance', trigger: 'topic-metadata-change' };
        }
        this.reasonEvent(group, join, id, cls, 'kafka-rules', 'topic_metadata_change from a follower: treated as unknown');
        return null;
      case 'upgrade':
        this.reasonEvent(group, join, id, cls, 'rebalance', 'upgrade: the member needs a rebalance');
        return { action: 'rebalance', trigger: 'member-upgrade' };
      case 'unknown':
        this.reasonEvent(group, join, id, cls, 'kafka-rules', 'unknown reason: Kafka\'s rules');
        return null;
    }
  }

  /**
   * A known instance rejoins with MemberId "" (Kafka replaces its member id): the draft's rules for
   * a Stable group, decided before the replacement; undefined for Kafka's.
   */
  decideStaticRejoin(group: ClassicGroup, member: GroupMember, join: ParkedJoin): StaticReplacementDecision | undefined {
    if (!this.on(group, 'kip423-join-reasons')) return undefined;
    const cls = classifyJoinReason(join.version >= 8 ? join.clientReason : null);
    const id = member.memberId;
    if (join.version < 8 || cls.reason === 'unknown') {
      this.reasonEvent(group, join, id, cls, 'kafka-rules', join.version < 8 ? 'JoinGroup below v8 carries no reason: Kafka\'s rules' : 'unknown reason: Kafka\'s rules');
      return undefined;
    }
    if (!group.is('Stable')) {
      this.reasonEvent(group, join, id, cls, 'kafka-rules', `group is ${group.state}: Kafka's rules`);
      return undefined;
    }
    if (!member.matches(join.protocols)) {
      this.reasonEvent(group, join, id, cls, 'rebalance', 'protocols changed: a rebalance, whatever the reason');
      return { action: 'rebalance', trigger: 'member-metadata-changed' };
    }
    switch (cls.reason) {
      case 'restart':
        this.reasonEvent(group, join, id, cls, 'no-rebalance', 'restart of a known instance with unchanged protocols: current generation, no rebalance');
        return { action: 'keep-generation' };
      case 'topic_metadata_change':
        if (group.isLeader(id)) {
          this.reasonEvent(group, join, id, cls, 'rebalance', 'topic_metadata_change from the leader: rebalance');
          return { action: 'rebalance', trigger: 'topic-metadata-change' };
        }
        this.reasonEvent(group, join, id, cls, 'kafka-rules', 'topic_metadata_change from a follower: treated as unknown');
        return undefined;
      case 'upgrade':
        this.reasonEvent(group, join, id, cls, 'rebalance', 'upgrade: the member needs a rebalance');
        return { action: 'rebalance', trigger: 'member-upgrade' };
    }
  }

  // ==============================================================================================
  // lifecycle

  /** Stops a group's policy timers (the group is gone or the coordinator closes). */
  cancelTimers(group: ClassicGroup): void {
    const st = group.policy;
    st.registrationTimer?.timer.cancel();
    st.registrationTimer = null;
    st.expansion?.timer.cancel();
    st.expansion = null;
    for (const c of st.claims.values()) {
      c.timer?.cancel();
      c.timer = null;
    }
  }
}

function timeoutOption(v: unknown, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > MAX_POLICY_TIMEOUT_MS) {
    throw new PolicyError(`${name} must be an integer number of ms from ${min} to ${MAX_POLICY_TIMEOUT_MS}`);
  }
  return v;
}
