// expansion-timeout (the early KIP-345 draft's member.expansion.timeout.ms): a new static member
// joining a Stable static group is not added at once. Its JoinGroup is held; after the timeout all
// members held by then are admitted together, with one rebalance (a rebalance that starts earlier
// admits them too). Kafka 3.9 adds each new member at once (GroupCoordinator.doStaticNewMemberJoinGroup
// → addMemberAndRebalance), one rebalance per arrival.

import type { TimerHandle } from '../clock.js';
import type { ClassicGroup } from '../group.js';
import { ANSWERED, CONTINUE, override, type Answered, type Continue, type LeavingMember, type MemberJoinRequest, type Override, type GroupPlugin } from '../hooks.js';
import { joinError } from '../member.js';
import { newMemberParams } from '../membership.js';
import type { EventBase } from '../events.js';
import { declared, definePolicy } from './define.js';
import { DraftPolicy, PerGroup } from './host.js';
import type { GroupDetail, HeldStaticMember, PolicyConfig } from './types.js';
import { ErrorCode } from '../../../codec/index.js';

export const EXPANSION_TIMEOUT = definePolicy({
  name: 'expansion-timeout',
  summary: 'new static members are admitted in one rebalance',
  settings: {
    // The draft gives no number; a minute keeps a held JoinGroup well inside clients' request timeouts
    // (max.poll.interval.ms + a few seconds).
    expansionTimeoutMs: { kind: 'duration', default: 60_000, min: 0 },
  },
  text: { value: 'expansionTimeoutMs', aliases: ['member.expansion.timeout.ms'] },
  types: declared<{
    events: ExpansionTimeoutEvent;
    /** expansion-timeout: the held new static members were admitted. */
    rebalanceTriggers: 'expansion-timeout';
  }>(),
  create: (host) => new ExpansionTimeoutPolicy(host),
});

export type ExpansionTimeoutEvent =
  | (EventBase & {
      /** expansion-timeout: a new static member is held (its JoinGroup parked) instead of added. */
      type: 'member-held';
      policy: 'expansion-timeout';
      memberId: string;
      groupInstanceId: string;
      admitAt: number;
    })
  | (EventBase & {
      /** expansion-timeout: held members became members (a rebalance follows or is under way). */
      type: 'held-members-admitted';
      policy: 'expansion-timeout';
      memberIds: string[];
      cause: 'expansion-timeout' | 'rebalance' | 'policy-changed';
    });

/** A new static member waiting to be admitted. */
export interface HeldJoin extends MemberJoinRequest {
  /** The member id it gets when admitted (generated when it was held). */
  newMemberId: string;
  groupInstanceId: string;
  heldSince: number;
}

interface ExpansionState {
  /** Held members by instance id, in arrival order. */
  readonly held: Map<string, HeldJoin>;
  /** Admits the held members; runs from the first one's arrival. */
  expansion: { firstHeldAt: number; timer: TimerHandle } | null;
}

export class ExpansionTimeoutPolicy extends DraftPolicy<ExpansionState> implements GroupPlugin {
  readonly name = 'expansion-timeout' as const;
  protected readonly state = new PerGroup<ExpansionState>(() => ({ held: new Map(), expansion: null }));

  // --- hooks -----------------------------------------------------------------------------------

  /** A new static member joining a Stable static group is held. */
  newStaticMemberJoin(group: ClassicGroup, join: MemberJoinRequest, newMemberId: string): Continue | Answered {
    const instance = join.groupInstanceId;
    if (instance === null || !group.is('Stable') || !this.isStaticGroup(group)) return CONTINUE;
    const st = this.state.of(group);
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
      admitAt: st.expansion!.firstHeldAt + this.timeoutMs(group),
    });
    return ANSWERED;
  }

  /** A rebalance admits the held members (it is the rebalance they were waiting for). */
  rebalancePreparing(group: ClassicGroup): Continue {
    if ((this.state.peek(group)?.held.size ?? 0) > 0) this.admitHeld(group, 'rebalance');
    return CONTINUE;
  }

  /** LeaveGroup / removeMembers naming a held member: it is dropped and its JoinGroup answered. */
  leaveGroupMember(group: ClassicGroup, id: LeavingMember): Continue | Answered {
    const st = this.state.peek(group);
    if (!st) return CONTINUE;
    for (const [instance, h] of st.held) {
      if ((id.memberId !== '' && h.newMemberId === id.memberId) || (id.memberId === '' && id.groupInstanceId === instance)) {
        st.held.delete(instance);
        if (st.held.size === 0) {
          st.expansion?.timer.cancel();
          st.expansion = null;
        }
        h.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
        return ANSWERED;
      }
    }
    return CONTINUE;
  }

  heldMembers(group: ClassicGroup): Continue | Override<HeldStaticMember[]> {
    return (this.state.peek(group)?.held.size ?? 0) > 0 ? override(this.heldStaticMembers(group)) : CONTINUE;
  }

  describe(group: ClassicGroup, detail: GroupDetail): Continue {
    detail.heldStaticMembers = this.heldStaticMembers(group);
    return CONTINUE;
  }

  override settingsChanged(group: ClassicGroup, before: PolicyConfig, after: PolicyConfig): void {
    const st = this.state.peek(group);
    if (!after[this.name].enabled) {
      this.admitHeldAndRebalance(group, 'policy-changed');
    } else if (st?.expansion && before[this.name].expansionTimeoutMs !== after[this.name].expansionTimeoutMs) {
      this.scheduleExpansion(group, st.expansion.firstHeldAt);
    }
  }

  override stopTimers(group: ClassicGroup): void {
    const st = this.state.peek(group);
    if (!st) return;
    st.expansion?.timer.cancel();
    st.expansion = null;
  }

  // --- holding and admitting -------------------------------------------------------------------

  private timeoutMs(group: ClassicGroup): number {
    return this.config(group)['expansion-timeout'].expansionTimeoutMs;
  }

  /** Static groups: as membership decides (another plug-in may say), else "every member is static". */
  private isStaticGroup(group: ClassicGroup): boolean {
    const mode = this.host.hooks.run('membershipMode', group);
    if (mode.kind === 'override') return mode.decision === 'static';
    return group.size > 0 && group.allMembers().every((m) => m.isStatic);
  }

  private heldStaticMembers(group: ClassicGroup): HeldStaticMember[] {
    const st = this.state.peek(group);
    if (!st) return [];
    const admitAt = st.expansion ? st.expansion.firstHeldAt + this.timeoutMs(group) : 0;
    return [...st.held.values()].map((h) => ({
      memberId: h.newMemberId,
      groupInstanceId: h.groupInstanceId,
      clientId: h.client.clientId,
      clientHost: h.client.clientHost,
      heldSince: h.heldSince,
      admitAt,
    }));
  }

  private scheduleExpansion(group: ClassicGroup, firstHeldAt: number): void {
    const st = this.state.of(group);
    st.expansion?.timer.cancel();
    const at = firstHeldAt + this.timeoutMs(group);
    const timer = this.host.timers.schedule(
      at - this.host.clock.now(),
      this.host.onTimer(() => {
        if (st.expansion?.timer !== timer) return;
        st.expansion = null;
        this.admitHeldAndRebalance(group, 'expansion-timeout');
      }),
      { name: `expansion timeout ${group.groupId}` },
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
            ? `Admitting ${admitted.length} new static member(s) held for member.expansion.timeout.ms (${this.timeoutMs(group)}): ${admitted.join(', ')}`
            : `expansion-timeout turned off: admitting held member(s) ${admitted.join(', ')}`,
      });
    } else if (group.is('PreparingRebalance')) {
      this.host.engine.checkAndCompleteJoin(group);
    }
  }

  /** Makes every held member a member (no rebalance here). Returns their member ids. */
  private admitHeld(group: ClassicGroup, cause: 'expansion-timeout' | 'rebalance' | 'policy-changed'): string[] {
    const st = this.state.peek(group);
    if (!st || st.held.size === 0) return [];
    st.expansion?.timer.cancel();
    st.expansion = null;
    const held = [...st.held.values()];
    st.held.clear();
    const admitted: string[] = [];
    // A group on dynamic membership ignores instance ids: the held members join as dynamic members.
    const mode = this.host.hooks.run('membershipMode', group);
    const dynamic = mode.kind === 'override' && mode.decision === 'dynamic';
    for (const h of held) {
      if (!group.supportsProtocols(h.protocolType, h.protocols)) {
        h.callback(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        continue;
      }
      if (!dynamic && group.hasStaticMember(h.groupInstanceId)) {
        h.callback(joinError(h.newMemberId, ErrorCode.FENCED_INSTANCE_ID));
        continue;
      }
      this.host.engine.addMember(group, newMemberParams(h, h.newMemberId, dynamic ? null : h.groupInstanceId), h.callback, h.clientReason);
      admitted.push(h.newMemberId);
    }
    if (admitted.length > 0) {
      this.host.emit({ type: 'held-members-admitted', groupId: group.groupId, policy: 'expansion-timeout', memberIds: admitted, cause });
    }
    return admitted;
  }
}
