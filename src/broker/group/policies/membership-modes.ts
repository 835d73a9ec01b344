// membership-modes (the early KIP-345 draft's membership modes): a group is on static or dynamic
// membership. Until an admin call pins it, the mode follows the joins (the first JoinGroup after
// Stable or Empty decides the next round's); enableStaticMembership pins it static (a JoinGroup
// without group.instance.id is then refused), enableDynamicMembership pins it dynamic (instance ids
// are dropped and ignored from then on), forceStaticRebalance rebalances a static group once.
// Kafka 3.9 has no modes: every member is static or dynamic by its own JoinGroup.

import type { ClassicGroup } from '../group.js';
import { ANSWERED, CONTINUE, override, type Answered, type Continue, type MemberJoinRequest, type Override, type GroupPlugin } from '../hooks.js';
import { joinError } from '../member.js';
import type { EventBase } from '../events.js';
import { declared, definePolicy, MAX_POLICY_TIMEOUT_MS, PolicyError } from './define.js';
import { DraftPolicy, PerGroup } from './host.js';
import type { GroupDetail, MembershipChangeResult, MembershipMode, PolicyConfig, PolicyUpdate, StaticMembershipOptions } from './types.js';
import { ErrorCode, errorName } from '../../../codec/index.js';

export const MEMBERSHIP_MODES = definePolicy({
  name: 'membership-modes',
  summary: 'static/dynamic group modes and their admin operations',
  settings: {},
  types: declared<{
    events: MembershipModesEvent;
    /** membership-modes: the draft's forceStaticRebalance. */
    rebalanceTriggers: 'force-static-rebalance';
  }>(),
  create: (host) => new MembershipModesPolicy(host),
});

export type MembershipModesEvent =
  | (EventBase & {
      type: 'membership-mode-changed';
      policy: 'membership-modes';
      from: MembershipMode;
      to: MembershipMode;
      /** True when an admin operation fixed the mode (the switch rule no longer applies). */
      pinned: boolean;
      cause: 'enableStaticMembership' | 'enableDynamicMembership' | 'first-join';
      memberId: string | null;
      groupInstanceId: string | null;
    })
  | (EventBase & {
      /** membership-modes: a JoinGroup without group.instance.id refused by a static group. */
      type: 'join-refused';
      policy: 'membership-modes';
      memberId: string;
      clientId: string;
      errorCode: number;
      errorName: string;
      description: string;
    });

interface ModeState {
  /** Null until the policy first looks at the group. */
  current: { mode: MembershipMode; pinned: boolean } | null;
}

export class MembershipModesPolicy extends DraftPolicy<ModeState> implements GroupPlugin {
  readonly name = 'membership-modes' as const;
  protected readonly state = new PerGroup<ModeState>(() => ({ current: null }));

  // --- hooks -----------------------------------------------------------------------------------

  /**
   * The start of every JoinGroup. Unpinned (no admin call yet): once the group is Stable (or
   * Empty), the join decides the next round's mode. Pinned static: joins without an instance id are
   * refused. Dynamic: the instance id is ignored.
   */
  joinGroup(group: ClassicGroup, join: MemberJoinRequest): Answered | Override<string | null> {
    const { memberId, groupInstanceId } = join;
    const wanted: MembershipMode = groupInstanceId !== null ? 'static' : 'dynamic';
    const st = this.modeState(group, group.size === 0 ? wanted : undefined);
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
        clientId: join.client.clientId,
        errorCode,
        errorName: errorName(errorCode),
        description: `group ${group.groupId} is in static membership mode (enableStaticMembership): a JoinGroup needs a group.instance.id`,
      });
      join.callback(joinError(memberId, errorCode));
      return ANSWERED;
    }
    return override(st.mode === 'dynamic' ? null : groupInstanceId);
  }

  /** In dynamic mode instance ids are not tracked: requests are read without them. */
  requestInstanceId(group: ClassicGroup, groupInstanceId: string): Continue | Override<string | null> {
    return this.modeState(group).mode === 'dynamic' ? override(null) : CONTINUE;
  }

  membershipMode(group: ClassicGroup): Override<MembershipMode> {
    return override(this.modeState(group).mode);
  }

  /**
   * The pending id was handed out while the group's dynamic mode made the instance id count for
   * nothing; the group is static now, so that id means nothing either (Kafka never hands a pending
   * id to a static join). The id is dropped and the client told to start over, which it does with
   * MemberId "" and its instance id.
   */
  pendingMemberJoinWithInstanceId(group: ClassicGroup, join: MemberJoinRequest): Answered {
    this.host.engine.removePendingMemberAndUpdateGroup(group, join.memberId);
    join.callback(joinError(join.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    return ANSWERED;
  }

  describe(group: ClassicGroup, detail: GroupDetail): Continue {
    const st = this.modeState(group);
    detail.mode = st.mode;
    detail.modePinned = st.pinned;
    return CONTINUE;
  }

  override settingsChanged(group: ClassicGroup, _before: PolicyConfig, after: PolicyConfig): void {
    if (!after[this.name].enabled) this.state.of(group).current = null;
  }

  // --- the draft's admin operations --------------------------------------------------------------

  enableStaticMembership(groupId: string, options: StaticMembershipOptions = {}): MembershipChangeResult {
    const reg = timeoutOption(options.registrationTimeoutMs, 'registrationTimeoutMs', 1);
    const exp = timeoutOption(options.expansionTimeoutMs, 'expansionTimeoutMs', 0);
    const refused = this.checkAdmin(groupId, 'enableStaticMembership');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    const st = this.modeState(group);
    if (st.mode !== 'static' || !st.pinned) this.switchMode(group, 'static', true, 'enableStaticMembership', null, null);
    // The draft's enableStaticMembership sets the static group's timeouts; a timeout given here
    // turns its policy on for the group.
    const update: PolicyUpdate = {};
    if (reg !== undefined) update['registration-timeout'] = { enabled: true, registrationTimeoutMs: reg };
    if (exp !== undefined) update['expansion-timeout'] = { enabled: true, expansionTimeoutMs: exp };
    if (Object.keys(update).length > 0) this.host.settings.setGroup(groupId, update);
    return this.membershipResult(groupId, ErrorCode.NONE, null, 'group is in static membership mode: JoinGroups without group.instance.id are refused');
  }

  enableDynamicMembership(groupId: string): MembershipChangeResult {
    const refused = this.checkAdmin(groupId, 'enableDynamicMembership');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    if (this.modeState(group).mode === 'dynamic') {
      return this.membershipResult(groupId, ErrorCode.INVALID_REQUEST, 'WRONG_MEMBERSHIP_MODE', 'group is already on dynamic membership');
    }
    this.switchMode(group, 'dynamic', true, 'enableDynamicMembership', null, null);
    return this.membershipResult(groupId, ErrorCode.NONE, null, 'instance map dropped: members carry on as dynamic members');
  }

  forceStaticRebalance(groupId: string): MembershipChangeResult {
    const refused = this.checkAdmin(groupId, 'forceStaticRebalance');
    if (refused) return refused;
    const group = this.host.group(groupId)!;
    if (this.modeState(group).mode !== 'static') {
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

  // --- the mode ----------------------------------------------------------------------------------

  /** The group's mode, null while the policy is off for it. */
  private modeOf(group: ClassicGroup): MembershipMode | null {
    return this.appliesTo(group) ? this.modeState(group).mode : null;
  }

  /** The mode, decided on first look (static if any member is, or `initial`). Policy on only. */
  private modeState(group: ClassicGroup, initial?: MembershipMode): { mode: MembershipMode; pinned: boolean } {
    const st = this.state.of(group);
    if (st.current === null) {
      st.current = { mode: initial ?? (group.allMembers().some((m) => m.isStatic) ? 'static' : 'dynamic'), pinned: false };
    }
    return st.current;
  }

  private switchMode(
    group: ClassicGroup,
    to: MembershipMode,
    pinned: boolean,
    cause: 'enableStaticMembership' | 'enableDynamicMembership' | 'first-join',
    memberId: string | null,
    groupInstanceId: string | null,
  ): void {
    const st = this.modeState(group);
    const from = st.mode;
    if (to === 'dynamic' && from !== 'dynamic') {
      // Forget instance ids; members carry on as dynamic members.
      this.host.hooks.run('staticMembershipDropping', group);
      group.dropStaticMembership();
    }
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

  /** The errors all three admin operations share, in the draft's order. */
  private checkAdmin(groupId: string, op: string): MembershipChangeResult | null {
    if (!this.host.settings.on(groupId, this.name)) {
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
}

function timeoutOption(v: unknown, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > MAX_POLICY_TIMEOUT_MS) {
    throw new PolicyError(`${name} must be an integer number of ms from ${min} to ${MAX_POLICY_TIMEOUT_MS}`);
  }
  return v;
}
