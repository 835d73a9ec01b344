// The extension points of the classic group coordinator: one typed table of the places where a
// plug-in (a draft policy, policies/) may act, and the chain that runs the plug-ins at each one.
//
// Kafka has no such table: its GroupMetadataManager is the whole rule book. kmock keeps Kafka's
// rules in the core (membership.ts, offset-manager.ts, rebalance.ts) and asks the chain at the few
// points where an opt-in rule may step in. With no plug-in enabled for a group every question gets
// `CONTINUE` and the core does exactly what Kafka 3.9 does.
//
// Every hook answers in the same shape:
//   CONTINUE            nothing to add: the next plug-in is asked, then the core goes on (Kafka's rules)
//   ANSWERED            the plug-in has answered the request (or kept the member) itself: the core stops
//   override(decision)  the plug-in decides in the core's place (a value the hook's type names)
// The first plug-in that does not continue ends the chain. Notifications only ever continue, so every
// enabled plug-in sees them. Plug-ins run in list order (policies/index.ts).

import type { ClassicGroup } from './group.js';
import type { GroupMember, JoinCallback, Protocol } from './member.js';
import type { GroupDetail, HeldStaticMember, MembershipMode } from './policies/types.js';
import type { KnownMemberJoinDecision, StaticReplacementDecision } from './rules.js';
import type { ClientContext } from './types.js';

export interface Continue {
  readonly kind: 'continue';
}
export interface Answered {
  readonly kind: 'answered';
}
export interface Override<D> {
  readonly kind: 'override';
  readonly decision: D;
}

export const CONTINUE: Continue = Object.freeze({ kind: 'continue' });
export const ANSWERED: Answered = Object.freeze({ kind: 'answered' });
export function override<D>(decision: D): Override<D> {
  return { kind: 'override', decision };
}

/** A JoinGroup as the coordinator reads it (fields normalised by request version), with its answer. */
export interface MemberJoinRequest {
  version: number;
  client: ClientContext;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Protocol[];
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  clientReason: string | null;
  callback: JoinCallback;
}

/** Requests a known member makes, as named in events. */
export type MemberOperation = 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'LeaveGroup';

/** Who an OffsetCommit/TxnOffsetCommit says it comes from (after the group was found or created). */
export interface CommitIdentity {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** The request version has a GroupInstanceId field (OffsetCommit v7+, TxnOffsetCommit v3+). */
  canCarryInstanceId: boolean;
  operation: 'OffsetCommit' | 'TxnOffsetCommit';
}

/** One member named by a LeaveGroup (or by an admin's removal). */
export interface LeavingMember {
  memberId: string;
  groupInstanceId: string | null;
  reason: string | null;
}

/**
 * The hook table. Each entry is called with the group first; a plug-in implements the ones it needs.
 * Grouped by where the core asks (the Kafka method in brackets).
 */
export interface GroupHooks {
  // --- JoinGroup (membership.ts), in the order a JoinGroup meets them ---------------------------------

  /** Any JoinGroup, once the group exists [doJoinGroup]. Answer it (refuse), or say which
   *  group.instance.id the join is read with. */
  joinGroup(group: ClassicGroup, join: MemberJoinRequest): Continue | Answered | Override<string | null>;
  /** MemberId "" for an instance the group knows, before Kafka replaces its member id
   *  [doStaticNewMemberJoinGroup → updateStaticMemberAndRebalance]. Answer it, or decide what follows. */
  staticMemberRejoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Continue | Answered | Override<StaticReplacementDecision>;
  /** MemberId "" with an instance the group does not know; `newMemberId` is the id it is about to get
   *  [doStaticNewMemberJoinGroup → addMemberAndRebalance]. */
  newStaticMemberJoin(group: ClassicGroup, join: MemberJoinRequest, newMemberId: string): Continue | Answered;
  /** A pending (MEMBER_ID_REQUIRED) member id comes back with an instance id: Kafka throws
   *  IllegalStateException (UNKNOWN_SERVER_ERROR) unless a plug-in answers. */
  pendingMemberJoinWithInstanceId(group: ClassicGroup, join: MemberJoinRequest): Continue | Answered;
  /** A JoinGroup with a member id, before member validation [doCurrentMemberJoinGroup]. */
  memberJoinWithId(group: ClassicGroup, join: MemberJoinRequest): Continue | Answered;
  /** A validated member rejoins [doCurrentMemberJoinGroup's state match]. Answer it, or decide. */
  currentMemberJoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Continue | Answered | Override<KnownMemberJoinDecision>;

  // --- any request of a known member ----------------------------------------------------------------

  /** Which group.instance.id a SyncGroup, Heartbeat, LeaveGroup or offset commit is read with. */
  requestInstanceId(group: ClassicGroup, groupInstanceId: string): Continue | Override<string | null>;
  /** validateCurrentMember answered FENCED_INSTANCE_ID (notification). */
  memberFenced(group: ClassicGroup, memberId: string, groupInstanceId: string, operation: MemberOperation): Continue;
  /** A SyncGroup, Heartbeat, OffsetCommit or TxnOffsetCommit of this member passed validation (notification). */
  memberActive(group: ClassicGroup, memberId: string, operation: Exclude<MemberOperation, 'JoinGroup' | 'LeaveGroup'>): Continue;
  /** An offset commit to an existing group, before validateOffsetCommit: override with the error to answer. */
  offsetCommit(group: ClassicGroup, commit: CommitIdentity): Continue | Override<number>;
  /** One member of a LeaveGroup, before Kafka looks it up: ANSWERED means it left (answered NONE). */
  leaveGroupMember(group: ClassicGroup, member: LeavingMember): Continue | Answered;

  // --- the rebalance engine (rebalance.ts) ------------------------------------------------------------

  /** A (not new) member's session expired [onExpireHeartbeat]. ANSWERED: a plug-in kept it. */
  sessionExpired(group: ClassicGroup, member: GroupMember): Continue | Answered;
  /** A rebalance is about to start; the group is still in its old state (notification). */
  rebalancePreparing(group: ClassicGroup): Continue;
  /** A member was taken out of the group, for any cause (notification). */
  memberRemoved(group: ClassicGroup, member: GroupMember): Continue;
  /**
   * Is this member away: kept in the group while its client is gone? Such a member has no session
   * deadline, the join phase does not wait for it and the sync phase does not expect it. Kafka has
   * no such members (default: no).
   */
  memberAway(group: ClassicGroup, member: GroupMember): Continue | Override<boolean>;

  // --- questions plug-ins ask each other, and the admin's -------------------------------------------

  /** Is the group on static or dynamic membership? Default: static when every member is. */
  membershipMode(group: ClassicGroup): Continue | Override<MembershipMode>;
  /** Every instance id is about to be forgotten (the group turns dynamic): drop what hangs on them. */
  staticMembershipDropping(group: ClassicGroup): Continue;
  /** JoinGroups held back outside the group (not members yet), for an admin's "remove everyone". */
  heldMembers(group: ClassicGroup): Continue | Override<HeldStaticMember[]>;
  /** The control plane's read model: fill in what the plug-in keeps (notification). */
  describe(group: ClassicGroup, detail: GroupDetail): Continue;
}

export type HookName = keyof GroupHooks;

/** A plug-in: the hooks it implements, and whether it acts on a group now. */
export type GroupPlugin = Partial<GroupHooks> & {
  /** A draft policy acts on the groups it is enabled for. */
  appliesTo(group: ClassicGroup): boolean;
  /** The group is gone or the coordinator closes: stop its timers (every plug-in, enabled or not). */
  stopTimers?(group: ClassicGroup): void;
};

/** Runs the plug-ins that apply to a group, in order, until one does not continue. */
export class HookChain {
  private plugins: readonly GroupPlugin[] = [];

  /** Installs the plug-ins (once, when the coordinator is assembled). */
  use(plugins: readonly GroupPlugin[]): void {
    this.plugins = plugins;
  }

  run<K extends HookName>(hook: K, ...args: Parameters<GroupHooks[K]>): ReturnType<GroupHooks[K]> {
    const group = args[0];
    for (const plugin of this.plugins) {
      const fn = plugin[hook] as ((...a: Parameters<GroupHooks[K]>) => ReturnType<GroupHooks[K]>) | undefined;
      if (fn === undefined || !plugin.appliesTo(group)) continue;
      const result = fn.apply(plugin, args);
      if (result.kind !== 'continue') return result;
    }
    return CONTINUE as ReturnType<GroupHooks[K]>;
  }

  /** The `memberAway` question as a boolean (no, unless a plug-in says so). */
  isAway(group: ClassicGroup, member: GroupMember): boolean {
    const r = this.run('memberAway', group, member);
    return r.kind === 'override' && r.decision;
  }

  stopTimers(group: ClassicGroup): void {
    for (const plugin of this.plugins) plugin.stopTimers?.(group);
  }
}
