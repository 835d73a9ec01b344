// The coordinator's decisions, as small pure functions over a group's current data. They say *what*
// Kafka 3.9 does in each situation; rebalance.ts, membership.ts and offset-manager.ts carry it out.
// A plug-in (hooks.ts) may override a decision with one of the same type.

import type { ClassicGroup } from './group.js';
import type { GroupMember, Protocol } from './member.js';
import type { RebalanceTrigger } from './events.js';
import { ErrorCode } from '../../codec/index.js';

/**
 * group.max.size gate for a JoinGroup (GroupCoordinator.acceptJoiningMember). While rebalancing,
 * the number of members that already rejoined is what counts: the group may be over the limit
 * (the limit was lowered) and the *last* members to rejoin are the ones turned away.
 */
export function acceptJoiningMember(group: ClassicGroup, memberId: string, groupMaxSize: number): boolean {
  switch (group.state) {
    case 'Empty':
    case 'Dead':
      return true;
    case 'PreparingRebalance':
      return (group.has(memberId) && group.get(memberId).isAwaitingJoin) || group.numAwaitingJoin < groupMaxSize;
    case 'CompletingRebalance':
    case 'Stable':
      return group.has(memberId) || group.size < groupMaxSize;
  }
}

/**
 * validateCurrentMember: a GroupInstanceId, when given, must map to this member id (otherwise the
 * request comes from a fenced incarnation), and the member id must be in the group.
 */
export function validateCurrentMember(
  group: ClassicGroup,
  memberId: string,
  groupInstanceId: string | null,
): typeof ErrorCode.NONE | typeof ErrorCode.UNKNOWN_MEMBER_ID | typeof ErrorCode.FENCED_INSTANCE_ID {
  if (groupInstanceId !== null) {
    const current = group.currentStaticMemberId(groupInstanceId);
    if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    return ErrorCode.NONE;
  }
  return group.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
}

/** What to do with a JoinGroup from a member already in the group (doCurrentMemberJoinGroup). */
export type KnownMemberJoinDecision =
  /** Park the join until the current join phase completes. */
  | { action: 'await-join-phase' }
  /** Update the member and start a rebalance. `description`: a plug-in's words for the rebalance. */
  | { action: 'rebalance'; trigger: RebalanceTrigger; description?: string }
  /** Nothing changed: answer with the current generation at once (members only for the leader).
   *  `skipAssignment` (JoinGroup v9+): only policies set it, for a leader that must not reassign. */
  | { action: 'return-current-generation'; includeMembers: boolean; skipAssignment?: boolean }
  | { action: 'error'; errorCode: number };

export function decideKnownMemberJoin(
  group: ClassicGroup,
  member: GroupMember,
  protocols: readonly Protocol[],
): KnownMemberJoinDecision {
  switch (group.state) {
    case 'PreparingRebalance':
      return { action: 'await-join-phase' };
    case 'CompletingRebalance':
      // Same metadata: the member probably lost the JoinGroup response; resend it.
      return member.matches(protocols)
        ? { action: 'return-current-generation', includeMembers: group.isLeader(member.memberId) }
        : { action: 'rebalance', trigger: 'member-metadata-changed' };
    case 'Stable':
      // A leader's JoinGroup always rebalances: it is how a leader asks for a new assignment when
      // something outside the member metadata (e.g. topic metadata) changed.
      if (group.isLeader(member.memberId)) return { action: 'rebalance', trigger: 'leader-rejoined' };
      if (!member.matches(protocols)) return { action: 'rebalance', trigger: 'member-metadata-changed' };
      return { action: 'return-current-generation', includeMembers: false };
    case 'Empty':
    case 'Dead':
      return { action: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
  }
}

/**
 * What to do after a known static instance rejoined with MemberId "" and was given a new member id
 * (updateStaticMemberAndRebalance; KAFKA-8500, KAFKA-9801, KAFKA-10284).
 */
export type StaticReplacementDecision =
  /** Stable and the selected protocol stays: persist and answer with the current generation. */
  | { action: 'keep-generation' }
  | { action: 'rebalance'; trigger: RebalanceTrigger }
  /** PreparingRebalance: the join just stays parked until the phase completes. */
  | { action: 'await-join-phase' }
  | { action: 'invariant-violation' };

export function decideStaticReplacement(group: ClassicGroup): StaticReplacementDecision {
  switch (group.state) {
    case 'Stable':
      return group.protocolName === group.selectProtocol()
        ? { action: 'keep-generation' }
        : { action: 'rebalance', trigger: 'static-member-protocol-changed' };
    case 'CompletingRebalance':
      // The leader may already be computing an assignment for the old member id, which the new id
      // would never receive: start over.
      return { action: 'rebalance', trigger: 'static-member-replaced' };
    case 'PreparingRebalance':
      return { action: 'await-join-phase' };
    case 'Empty':
    case 'Dead':
      return { action: 'invariant-violation' };
  }
}

/**
 * group.initial.rebalance.delay.ms (KIP-134) for a rebalance that starts from Empty: wait one delay,
 * keeping `remainingMs` of the rebalance timeout for extensions.
 */
export function initialJoinDelay(
  configuredDelayMs: number,
  groupRebalanceTimeoutMs: number,
): { delayMs: number; remainingMs: number } {
  return {
    delayMs: configuredDelayMs,
    remainingMs: Math.max(groupRebalanceTimeoutMs - configuredDelayMs, 0),
  };
}

/**
 * When an initial delay expires (InitialDelayedJoin.onComplete): if members arrived during it and
 * time remains, wait again — another delay, capped by what remains of the rebalance timeout.
 * Note Kafka subtracts the delay that just expired, not the new one, from the remaining time.
 */
export function nextInitialDelay(
  newMemberAdded: boolean,
  configuredDelayMs: number,
  expiredDelayMs: number,
  remainingMs: number,
): { delayMs: number; remainingMs: number } | null {
  if (!newMemberAdded || remainingMs === 0) return null;
  return {
    delayMs: Math.min(configuredDelayMs, remainingMs),
    remainingMs: Math.max(remainingMs - expiredDelayMs, 0),
  };
}

/**
 * OffsetCommit / TxnOffsetCommit member validation (GroupCoordinator.validateOffsetCommit).
 * Generation < 0 on an Empty group is an admin or manual commit: no member check at all.
 */
export function validateOffsetCommit(
  group: ClassicGroup,
  generationId: number,
  memberId: string,
  groupInstanceId: string | null,
  isTransactional: boolean,
): number {
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
  if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
    const memberError = validateCurrentMember(group, memberId, groupInstanceId);
    if (memberError !== ErrorCode.NONE) return memberError;
    return generationId !== group.generationId ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.NONE;
  }
  // Only members may commit to a non-empty group. Transactional commits are exempt: older
  // TxnOffsetCommit versions carry no member id or generation.
  if (!isTransactional && !group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
  return ErrorCode.NONE;
}
