// One classic consumer group: its members, state and generation (Kafka 3.9 GroupMetadata).
//
// This module only keeps the group's data consistent (membership, the static-instance map, the
// awaiting-join counter, protocol support counts, legal state transitions). *When* to rebalance is
// decided in rules.ts and carried out by rebalance.ts.

import type { TimerHandle } from './clock.js';
import { EMPTY_BUFFER, GroupMember, type JoinCallback, type JoinResult, type Protocol, type SyncResult } from './member.js';
import { GroupOffsets } from './offsets.js';
import { selectProtocol } from './protocol-selection.js';
import type { RebalanceRecord } from './policies/types.js';
import type { DescribedGroupMember, GroupState } from './types.js';

/** How many rebalances a group remembers for the control plane. */
export const MAX_REBALANCE_RECORDS = 50;

/** For each state, the states it may be entered from. */
const VALID_PREVIOUS_STATES: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** A broken internal invariant (Kafka throws IllegalStateException). Answered UNKNOWN_SERVER_ERROR. */
export class GroupInvariantError extends Error {}

/** The join phase's pending completion (Kafka's DelayedJoin / InitialDelayedJoin in the purgatory). */
export type JoinPhaseTimer =
  | { kind: 'delayed-join'; timer: TimerHandle }
  | { kind: 'initial-delay'; timer: TimerHandle; delayMs: number; remainingMs: number };

export class ClassicGroup {
  readonly groupId: string;
  private _state: GroupState;
  /** When the group entered its current state (used by offset expiration of Empty groups). */
  currentStateTimestamp: number;
  protocolType: string | null = null;
  protocolName: string | null = null;
  generationId = 0;
  leaderId: string | null = null;

  /** In join order; where Kafka's choice depends on hash order of random member ids, the first wins. */
  private readonly members = new Map<string, GroupMember>();
  /** group.instance.id → current member id. */
  private readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not rejoined yet. */
  private readonly pendingMembers = new Set<string>();
  /** Members of the current generation that have not sent SyncGroup yet. */
  private readonly pendingSyncMembers = new Set<string>();
  private numMembersAwaitingJoin = 0;
  /** Protocol name → number of (member, protocol-entry) pairs offering it. */
  private readonly supportedProtocols = new Map<string, number>();

  /** During the initial rebalance of a new group: another member arrived, so delay once more. */
  newMemberAdded = false;
  /** Union of the members' subscribed topics, computed at each new generation; undefined = unknown. */
  subscribedTopics: ReadonlySet<string> | undefined = undefined;

  readonly offsets = new GroupOffsets();

  /** The last rebalances with their causes, oldest first (the control plane's timeline; not Kafka's). */
  readonly rebalances: RebalanceRecord[] = [];

  // Outstanding delayed operations; rebalance.ts owns them.
  joinPhaseTimer: JoinPhaseTimer | null = null;
  syncExpiration: { generationId: number; timer: TimerHandle } | null = null;
  readonly pendingMemberTimers = new Map<string, TimerHandle>();

  constructor(groupId: string, initialState: GroupState, now: number) {
    this.groupId = groupId;
    this._state = initialState;
    this.currentStateTimestamp = now;
  }

  get state(): GroupState {
    return this._state;
  }

  is(state: GroupState): boolean {
    return this._state === state;
  }

  /** Moves to `target`, enforcing Kafka's transition table. Returns the previous state. */
  transitionTo(target: GroupState, now: number): GroupState {
    const from = this._state;
    if (!VALID_PREVIOUS_STATES[target].includes(from)) {
      throw new GroupInvariantError(
        `Group ${this.groupId} should be in the ${VALID_PREVIOUS_STATES[target].join(',')} states before moving to ${target} state. Instead it is in ${from} state`,
      );
    }
    this._state = target;
    this.currentStateTimestamp = now;
    return from;
  }

  /** May a rebalance start from the current state? (Stable, CompletingRebalance or Empty.) */
  get canRebalance(): boolean {
    return VALID_PREVIOUS_STATES.PreparingRebalance.includes(this._state);
  }

  // --- membership --------------------------------------------------------------------------------

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): GroupMember {
    const m = this.members.get(memberId);
    if (!m) throw new GroupInvariantError(`Member ${memberId} is not in group ${this.groupId}`);
    return m;
  }

  get size(): number {
    return this.members.size;
  }

  allMembers(): GroupMember[] {
    return [...this.members.values()];
  }

  memberIds(): string[] {
    return [...this.members.keys()];
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  get numAwaitingJoin(): number {
    return this.numMembersAwaitingJoin;
  }

  /** Adds a member; its JoinGroup is parked on `callback` if given. The first member sets the
   *  group's protocol type; the first member of an empty group becomes leader. */
  add(member: GroupMember, callback: JoinCallback | null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) {
        throw new GroupInvariantError(
          `Static member with groupInstanceId=${member.groupInstanceId} cannot be added to group ${this.groupId} since it is already a member`,
        );
      }
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.incSupportedProtocols(member);
    member.awaitingJoin = callback;
    if (member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    this.pendingMembers.delete(member.memberId);
  }

  /**
   * Removes a member or pending member id. Does not answer its parked requests. If it was the
   * leader, the first remaining member becomes leader (Kafka picks the first key of its hash map).
   */
  remove(memberId: string): GroupMember | undefined {
    const member = this.members.get(memberId);
    if (member) {
      this.members.delete(memberId);
      this.decSupportedProtocols(member);
      if (member.isAwaitingJoin) this.numMembersAwaitingJoin--;
      if (member.groupInstanceId !== null) this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const first = this.members.keys().next();
      this.leaderId = first.done ? null : first.value;
    }
    this.pendingMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    return member;
  }

  /**
   * Replaces the protocols and timeouts of a member and parks (or, with null, un-parks) its
   * JoinGroup. Returns a previously parked callback that the new one supersedes: Kafka silently
   * drops it (the client has given up on that request).
   */
  updateMember(
    member: GroupMember,
    protocols: Protocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: JoinCallback | null,
  ): JoinCallback | null {
    this.decSupportedProtocols(member);
    member.supportedProtocols = protocols;
    this.incSupportedProtocols(member);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    const superseded = callback !== null ? member.awaitingJoin : null;
    if (callback !== null && !member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    else if (callback === null && member.isAwaitingJoin) this.numMembersAwaitingJoin--;
    member.awaitingJoin = callback;
    return superseded;
  }

  /** Answers the member's parked JoinGroup, if any. */
  maybeInvokeJoinCallback(member: GroupMember, result: JoinResult): boolean {
    const callback = member.awaitingJoin;
    if (!callback) return false;
    member.awaitingJoin = null;
    this.numMembersAwaitingJoin--;
    callback(result);
    return true;
  }

  /** Answers the member's parked SyncGroup, if any. */
  maybeInvokeSyncCallback(member: GroupMember, result: SyncResult): boolean {
    const callback = member.awaitingSync;
    if (!callback) return false;
    member.awaitingSync = null;
    callback(result);
    return true;
  }

  // --- static membership -------------------------------------------------------------------------

  currentStaticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  hasStaticMember(groupInstanceId: string): boolean {
    return this.staticMembers.has(groupInstanceId);
  }

  staticInstanceIds(): string[] {
    return [...this.staticMembers.keys()];
  }

  /**
   * Forget every instance id (the map and the members' own), so the members carry on as dynamic
   * members under their member ids (a plug-in turning the group dynamic; Kafka never does). Returns
   * the members that were static.
   */
  dropStaticMembership(): GroupMember[] {
    const dropped = this.allMembers().filter((m) => m.groupInstanceId !== null);
    for (const m of dropped) m.groupInstanceId = null;
    this.staticMembers.clear();
    return dropped;
  }

  /**
   * Gives a static member a new member id, keeping everything else. Any JoinGroup or SyncGroup still
   * parked under the old id belongs to a duplicate (or a dead incarnation) of the instance: it is
   * answered FENCED_INSTANCE_ID at once. Returns the member and which parked requests were fenced.
   */
  replaceStaticMember(
    groupInstanceId: string,
    oldMemberId: string,
    newMemberId: string,
    fencedJoin: JoinResult,
    fencedSync: SyncResult,
  ): { member: GroupMember; fencedJoin: boolean; fencedSync: boolean } {
    const member = this.members.get(oldMemberId);
    if (!member) throw new GroupInvariantError(`Cannot replace non-existing member id ${oldMemberId}`);
    this.members.delete(oldMemberId);
    const joinFenced = this.maybeInvokeJoinCallback(member, fencedJoin);
    const syncFenced = this.maybeInvokeSyncCallback(member, fencedSync);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    return { member, fencedJoin: joinFenced, fencedSync: syncFenced };
  }

  // --- pending (MEMBER_ID_REQUIRED) members --------------------------------------------------------

  isPendingMember(memberId: string): boolean {
    return this.pendingMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.has(memberId)) {
      throw new GroupInvariantError(`Attempt to add pending member ${memberId} which is already a stable member of the group`);
    }
    this.pendingMembers.add(memberId);
  }

  get numPending(): number {
    return this.pendingMembers.size;
  }

  pendingMemberIds(): string[] {
    return [...this.pendingMembers];
  }

  // --- pending SyncGroup ---------------------------------------------------------------------------

  addPendingSyncMember(memberId: string): void {
    if (!this.has(memberId)) {
      throw new GroupInvariantError(`Attempt to add a pending sync for member ${memberId} which is not a member of the group`);
    }
    this.pendingSyncMembers.add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    if (!this.has(memberId)) {
      throw new GroupInvariantError(`Attempt to remove a pending sync for member ${memberId} which is not a member of the group`);
    }
    this.pendingSyncMembers.delete(memberId);
  }

  get hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  allPendingSyncMembers(): string[] {
    return [...this.pendingSyncMembers];
  }

  clearPendingSyncMembers(): void {
    this.pendingSyncMembers.clear();
  }

  // --- join phase ------------------------------------------------------------------------------------

  /** Kafka's hasAllMembersJoined: every member has rejoined and no MEMBER_ID_REQUIRED member is still expected. */
  get hasAllMembersJoined(): boolean {
    return this.hasAllMembersJoinedExcept(() => false);
  }

  /**
   * hasAllMembersJoined, not waiting for the members `excused` from the join phase (a plug-in's away
   * members; Kafka has none). A join phase in which only excused members are missing and nobody has
   * rejoined is not complete: it waits, as for absent static members.
   */
  hasAllMembersJoinedExcept(excused: (member: GroupMember) => boolean): boolean {
    let notWaitedFor = 0;
    for (const m of this.members.values()) if (!m.isAwaitingJoin && excused(m)) notWaitedFor++;
    if (notWaitedFor > 0 && this.numMembersAwaitingJoin === 0) return false;
    return this.members.size - notWaitedFor === this.numMembersAwaitingJoin && this.pendingMembers.size === 0;
  }

  recordRebalance(r: RebalanceRecord): void {
    this.rebalances.push(r);
    if (this.rebalances.length > MAX_REBALANCE_RECORDS) this.rebalances.shift();
  }

  notYetRejoinedMembers(): GroupMember[] {
    return this.allMembers().filter((m) => !m.isAwaitingJoin);
  }

  /** The group's rebalance timeout: the largest of its members'. 0 for an empty group. */
  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /**
   * Keeps the leader if it rejoined, otherwise promotes any rejoined member. False when there is no
   * leader (empty group) or nobody rejoined.
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader?.isAwaitingJoin) return true;
    const joined = this.allMembers().find((m) => m.isAwaitingJoin);
    if (!joined) return false;
    this.leaderId = joined.memberId;
    return true;
  }

  /** Starts the next generation: CompletingRebalance with a selected protocol, or Empty. */
  initNextGeneration(now: number, computeSubscribedTopics: (g: ClassicGroup) => ReadonlySet<string> | undefined): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = computeSubscribedTopics(this);
      this.transitionTo('CompletingRebalance', now);
    } else {
      this.protocolName = null;
      this.subscribedTopics = computeSubscribedTopics(this);
      this.transitionTo('Empty', now);
    }
    this.clearPendingSyncMembers();
  }

  /** Member list for the leader's JoinGroup response, with metadata for the selected protocol. */
  currentMemberMetadata(): JoinResult['members'] {
    if (this.is('Dead') || this.is('PreparingRebalance') || this.protocolName === null) {
      throw new GroupInvariantError(`Cannot obtain member metadata for group in state ${this._state}`);
    }
    const protocol = this.protocolName;
    return this.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(protocol),
    }));
  }

  // --- protocols ---------------------------------------------------------------------------------

  /** Names offered by every member (Kafka counts protocol entries, duplicates included). */
  candidateProtocols(): Set<string> {
    const n = this.members.size;
    const out = new Set<string>();
    for (const [name, count] of this.supportedProtocols) if (count === n) out.add(name);
    return out;
  }

  selectProtocol(): string {
    try {
      return selectProtocol(
        this.allMembers().map((m) => ({ protocolNames: m.protocolNames })),
        this.candidateProtocols(),
      );
    } catch (e) {
      // Only reachable with degenerate input (e.g. a member listing one protocol twice, which Kafka
      // counts twice); Kafka throws here as well.
      throw new GroupInvariantError(`Group ${this.groupId}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /**
   * Can a member with these protocols join? An empty group only needs a non-empty protocol type and
   * at least one protocol; otherwise the type must match and one of the names must be supported by
   * every current member.
   */
  supportsProtocols(memberProtocolType: string, memberProtocols: readonly Protocol[]): boolean {
    if (this.is('Empty')) return memberProtocolType !== '' && memberProtocols.length > 0;
    const n = this.members.size;
    return (
      this.protocolType === memberProtocolType &&
      memberProtocols.some((p) => (this.supportedProtocols.get(p.name) ?? 0) === n)
    );
  }

  private incSupportedProtocols(member: GroupMember): void {
    for (const p of member.supportedProtocols) {
      this.supportedProtocols.set(p.name, (this.supportedProtocols.get(p.name) ?? 0) + 1);
    }
  }

  private decSupportedProtocols(member: GroupMember): void {
    for (const p of member.supportedProtocols) {
      const n = (this.supportedProtocols.get(p.name) ?? 0) - 1;
      if (n <= 0) this.supportedProtocols.delete(p.name);
      else this.supportedProtocols.set(p.name, n);
    }
  }

  // --- subscriptions -------------------------------------------------------------------------------

  /** Unknown subscriptions count as subscribed to everything (the safe answer). */
  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics === undefined || this.subscribedTopics.has(topic);
  }

  // --- views ---------------------------------------------------------------------------------------

  /** DescribeGroups: member metadata and assignments, and the protocol name, only when Stable. */
  describeMembers(): DescribedGroupMember[] {
    const stable = this.is('Stable') && this.protocolName !== null;
    return this.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? m.metadata(this.protocolName!) : EMPTY_BUFFER,
      memberAssignment: stable ? m.assignment : EMPTY_BUFFER,
    }));
  }
}
