// registration-timeout (the early KIP-345 draft's registration.timeout.ms): a static member whose
// session expires is not removed. It goes offline: it keeps its place and its assignment, has no
// session deadline, and neither the join phase nor the sync phase waits for it. It comes back with
// any request under its member id (a JoinGroup in Stable gets the current generation, no rebalance),
// or, after registration.timeout.ms offline, it is removed, with one rebalance for all who expired.
// Kafka 3.9 has no such state: GroupCoordinator.onExpireHeartbeat removes the member at once.

import type { TimerHandle } from '../clock.js';
import type { ClassicGroup } from '../group.js';
import { ANSWERED, CONTINUE, override, type Answered, type Continue, type MemberJoinRequest, type MemberOperation, type Override, type GroupPlugin } from '../hooks.js';
import type { GroupMember } from '../member.js';
import { rejoinStaticInPlace } from '../static-rejoin.js';
import type { EventBase } from '../events.js';
import { declared, definePolicy } from './define.js';
import { DraftPolicy, PerGroup } from './host.js';
import type { GroupDetail, OfflineStaticMember, PolicyConfig } from './types.js';

export const REGISTRATION_TIMEOUT = definePolicy({
  name: 'registration-timeout',
  summary: 'offline static members keep their place for a while',
  settings: {
    // The draft suggests 15-30 minutes.
    registrationTimeoutMs: { kind: 'duration', default: 15 * 60_000, min: 1 },
  },
  text: { value: 'registrationTimeoutMs', aliases: ['registration.timeout.ms'] },
  types: declared<{
    events: RegistrationTimeoutEvent;
    /** registration-timeout: the members offline longer than the timeout were removed. */
    rebalanceTriggers: 'registration-timeout';
    /** registration-timeout: a static member offline longer than registration.timeout.ms. */
    removalCauses: 'registration-timeout';
  }>(),
  create: (host) => new RegistrationTimeoutPolicy(host),
});

export type RegistrationTimeoutEvent =
  | (EventBase & {
      /** registration-timeout: a static member's session expired; it keeps its place and assignment. */
      type: 'member-offline';
      policy: 'registration-timeout';
      memberId: string;
      groupInstanceId: string;
      offlineSince: number;
      /** When the earliest offline member will have been gone registration.timeout.ms. */
      removeAt: number;
    })
  | (EventBase & {
      /** registration-timeout: an offline member came back (or the policy was turned off). */
      type: 'member-online';
      policy: 'registration-timeout';
      memberId: string;
      groupInstanceId: string | null;
      offlineSince: number;
      via: 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'policy-changed' | 'membership-mode-changed';
    });

interface RegistrationState {
  /** Offline members and when their session expired. */
  readonly offline: Map<GroupMember, number>;
  /** One timer per group: removes the members offline longer than the timeout. */
  timer: { at: number; timer: TimerHandle } | null;
}

type OnlineVia = Exclude<MemberOperation, 'LeaveGroup'> | 'policy-changed' | 'membership-mode-changed';

export class RegistrationTimeoutPolicy extends DraftPolicy<RegistrationState> implements GroupPlugin {
  readonly name = 'registration-timeout' as const;
  protected readonly state = new PerGroup<RegistrationState>(() => ({ offline: new Map(), timer: null }));

  // --- hooks -----------------------------------------------------------------------------------

  sessionExpired(group: ClassicGroup, member: GroupMember): Continue | Answered {
    if (member.groupInstanceId === null) return CONTINUE;
    this.markOffline(group, member);
    return ANSWERED;
  }

  memberAway(group: ClassicGroup, member: GroupMember): Continue | Override<boolean> {
    return this.state.peek(group)?.offline.has(member) ? override(true) : CONTINUE;
  }

  memberRemoved(group: ClassicGroup, member: GroupMember): Continue {
    if (this.state.peek(group)?.offline.delete(member)) this.scheduleRegistrationCheck(group);
    return CONTINUE;
  }

  memberActive(group: ClassicGroup, memberId: string, operation: Exclude<MemberOperation, 'JoinGroup' | 'LeaveGroup'>): Continue {
    if (group.has(memberId)) this.markOnline(group, group.get(memberId), operation);
    return CONTINUE;
  }

  /** A known instance rejoins with MemberId "": it is back (Kafka then replaces its member id). */
  staticMemberRejoin(group: ClassicGroup, member: GroupMember): Continue {
    this.markOnline(group, member, 'JoinGroup');
    return CONTINUE;
  }

  /** An offline member rejoins with its member id: back in place when nothing changed. */
  currentMemberJoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Continue | Answered {
    if (!this.state.peek(group)?.offline.has(member)) return CONTINUE;
    this.markOnline(group, member, 'JoinGroup');
    const inPlace = rejoinStaticInPlace(this.host.engine, group, member, join.protocols, join.rebalanceTimeoutMs, join.sessionTimeoutMs, join.callback, join.version >= 9);
    return inPlace ? ANSWERED : CONTINUE;
  }

  /** The group turns dynamic: every offline member is back (instance ids are about to go). */
  staticMembershipDropping(group: ClassicGroup): Continue {
    for (const m of this.offlineMembers(group)) this.markOnline(group, m, 'membership-mode-changed');
    return CONTINUE;
  }

  describe(group: ClassicGroup, detail: GroupDetail): Continue {
    const offline = this.state.peek(group)?.offline;
    if (!offline || offline.size === 0) return CONTINUE;
    for (const m of detail.members) {
      const member = group.has(m.memberId) ? group.get(m.memberId) : undefined;
      m.offlineSince = (member && offline.get(member)) ?? null;
    }
    detail.offlineStaticMembers = this.offlineStaticMembers(group);
    return CONTINUE;
  }

  override settingsChanged(group: ClassicGroup, _before: PolicyConfig, after: PolicyConfig): void {
    if (!after[this.name].enabled) {
      for (const m of this.offlineMembers(group)) this.markOnline(group, m, 'policy-changed');
    }
    this.scheduleRegistrationCheck(group);
  }

  override stopTimers(group: ClassicGroup): void {
    const st = this.state.peek(group);
    if (!st) return;
    st.timer?.timer.cancel();
    st.timer = null;
  }

  // --- the control plane -----------------------------------------------------------------------

  /** Offline members, earliest first. */
  offlineStaticMembers(group: ClassicGroup): OfflineStaticMember[] {
    const offline = this.state.peek(group)?.offline;
    return this.offlineMembers(group)
      .map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? '', offlineSince: offline!.get(m)! }))
      .sort((a, b) => a.offlineSince - b.offlineSince);
  }

  // --- offline and back ------------------------------------------------------------------------

  /** In the group's member order. */
  private offlineMembers(group: ClassicGroup): GroupMember[] {
    const offline = this.state.peek(group)?.offline;
    if (!offline || offline.size === 0) return [];
    return group.allMembers().filter((m) => offline.has(m));
  }

  private markOffline(group: ClassicGroup, member: GroupMember): void {
    const st = this.state.of(group);
    const now = this.host.clock.now();
    st.offline.set(member, now);
    this.host.engine.cancelHeartbeat(member);
    this.host.engine.removePendingSyncMember(group, member.memberId);
    const earliest = Math.min(...this.offlineMembers(group).map((m) => st.offline.get(m)!));
    this.host.emit({
      type: 'member-offline',
      groupId: group.groupId,
      policy: 'registration-timeout',
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId!,
      offlineSince: now,
      removeAt: earliest + this.config(group)['registration-timeout'].registrationTimeoutMs,
    });
    this.scheduleRegistrationCheck(group);
    if (group.is('PreparingRebalance')) this.host.engine.checkAndCompleteJoin(group);
  }

  /** An offline member is back (or no longer kept offline): it gets a session again. */
  private markOnline(group: ClassicGroup, member: GroupMember, via: OnlineVia): void {
    const offline = this.state.peek(group)?.offline;
    const since = offline?.get(member);
    if (since === undefined) return;
    offline!.delete(member);
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
    const st = this.state.of(group);
    st.timer?.timer.cancel();
    st.timer = null;
    if (!this.host.settings.on(group, this.name)) return;
    const offline = this.offlineMembers(group);
    if (offline.length === 0) return;
    const at = Math.min(...offline.map((m) => st.offline.get(m)!)) + this.config(group)['registration-timeout'].registrationTimeoutMs;
    const timer = this.host.timers.schedule(
      at - this.host.clock.now(),
      this.host.onTimer(() => {
        if (st.timer?.timer !== timer) return;
        st.timer = null;
        this.expireOfflineMembers(group);
      }),
      { name: `registration timeout ${group.groupId}` },
    );
    st.timer = { at, timer };
  }

  /** One rebalance removes every member offline longer than the registration timeout. */
  private expireOfflineMembers(group: ClassicGroup): void {
    if (this.host.group(group.groupId) !== group || group.is('Dead')) return;
    const timeoutMs = this.config(group)['registration-timeout'].registrationTimeoutMs;
    const now = this.host.clock.now();
    const st = this.state.of(group);
    const expired = this.offlineMembers(group).filter((m) => now - st.offline.get(m)! >= timeoutMs);
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
}
