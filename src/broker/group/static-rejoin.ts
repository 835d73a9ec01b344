// A static member coming back: Kafka 3.9's updateStaticMemberAndRebalance (a known group.instance.id
// rejoins with MemberId "" and gets a new member id; KAFKA-8500, KAFKA-9801, KAFKA-10284), and the
// in-place return a plug-in grants a member it kept. Both carried out with the rebalance engine's
// operations (rebalance.ts); the decision is rules.ts's decideStaticReplacement unless a plug-in made it.

import { GroupInvariantError, type ClassicGroup } from './group.js';
import { joinError, syncError, type GroupMember, type JoinCallback, type Protocol } from './member.js';
import { reasonText, type RebalanceCause, type RebalanceEngine } from './rebalance.js';
import { decideStaticReplacement, type StaticReplacementDecision } from './rules.js';
import { ErrorCode } from '../../codec/index.js';

/**
 * A known static instance rejoined with MemberId "": give it `newMemberId`, fence whatever is
 * parked under the old id, then follow decideStaticReplacement.
 */
export function updateStaticMemberAndRebalance(
  engine: RebalanceEngine,
  group: ClassicGroup,
  oldMemberId: string,
  newMemberId: string,
  groupInstanceId: string,
  protocols: Protocol[],
  rebalanceTimeoutMs: number,
  sessionTimeoutMs: number,
  callback: JoinCallback,
  clientReason: string | null,
  supportSkippingAssignment: boolean,
  /** A plug-in's decision, made before the replacement (hooks.ts `staticMemberRejoin`); else Kafka's. */
  decisionOverride?: StaticReplacementDecision,
): void {
  const leaderBeforeReplacement = group.leaderId;
  const replaced = group.replaceStaticMember(
    groupInstanceId,
    oldMemberId,
    newMemberId,
    joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID),
    syncError(ErrorCode.FENCED_INSTANCE_ID),
  );
  const member = replaced.member;
  engine.replaced(group, groupInstanceId, oldMemberId, newMemberId);
  if (replaced.fencedJoin) engine.fenced(group, oldMemberId, groupInstanceId, 'JoinGroup');
  if (replaced.fencedSync) engine.fenced(group, oldMemberId, groupInstanceId, 'SyncGroup');
  // The old id's deadline dies with it; the new id starts a fresh session.
  engine.completeAndScheduleNextHeartbeatExpiration(group, member);

  const oldRebalanceTimeoutMs = member.rebalanceTimeoutMs;
  const oldSessionTimeoutMs = member.sessionTimeoutMs;
  group.updateMember(member, protocols, rebalanceTimeoutMs, sessionTimeoutMs, callback);

  const decision = decisionOverride ?? decideStaticReplacement(group);
  switch (decision.action) {
    case 'keep-generation': {
      // The members' current assignments (group.allMemberMetadata.map(m => m.memberId -> m.assignment)).
      const error = engine.storeGroup(group, 'static-member-replaced', new Map(group.allMembers().map((m) => [m.memberId, m.assignment])));
      if (error !== ErrorCode.NONE) {
        // Roll back so the old member id keeps working. Kafka 3.9 restores the timeouts but not
        // the protocols: it captures the "old" protocols after updating them.
        group.updateMember(member, member.supportedProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
        group.replaceStaticMember(
          groupInstanceId,
          newMemberId,
          oldMemberId,
          joinError(newMemberId, ErrorCode.FENCED_INSTANCE_ID),
          syncError(ErrorCode.FENCED_INSTANCE_ID),
        );
        engine.replaced(group, groupInstanceId, newMemberId, oldMemberId);
        engine.completeAndScheduleNextHeartbeatExpiration(group, member);
        callback({
          errorCode: error,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leaderId: leaderBeforeReplacement,
          skipAssignment: false,
          memberId: '',
          members: [],
        });
      } else if (supportSkippingAssignment) {
        // JoinGroup v9+ (KIP-814): tell a returning leader it leads, but that the assignor must not
        // run — the group is Stable and would ignore a new assignment anyway.
        const isLeader = group.isLeader(newMemberId);
        group.maybeInvokeJoinCallback(member, {
          errorCode: ErrorCode.NONE,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leaderId: group.leaderId,
          skipAssignment: isLeader,
          memberId: newMemberId,
          members: isLeader ? group.currentMemberMetadata() : [],
        });
      } else {
        // Below v9: report the leader id from before the replacement, so a returning leader sees
        // itself as a follower and does not run a trivial assignment (KAFKA-8500).
        group.maybeInvokeJoinCallback(member, {
          errorCode: ErrorCode.NONE,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leaderId: leaderBeforeReplacement,
          skipAssignment: false,
          memberId: newMemberId,
          members: [],
        });
      }
      return;
    }
    case 'rebalance': {
      const cause: RebalanceCause = {
        trigger: decision.trigger,
        memberId: newMemberId,
        groupInstanceId,
        clientReason,
        byJoinGroup: true,
        description:
          decision.trigger === 'static-member-replaced'
            ? `Updating metadata for static member ${newMemberId} with instance id ${groupInstanceId}; client reason: ${reasonText(clientReason)}`
            : decision.trigger === 'static-member-protocol-changed'
              ? `Group's selectedProtocol will change because static member ${newMemberId} with instance id ${groupInstanceId} joined with change of protocol; client reason: ${reasonText(clientReason)}`
              : `Static member ${newMemberId} with instance id ${groupInstanceId} rejoined (${decision.trigger}); client reason: ${reasonText(clientReason)}`,
      };
      if (decision.trigger === 'static-member-replaced') engine.prepareRebalance(group, cause);
      else engine.maybePrepareRebalance(group, cause);
      return;
    }
    case 'await-join-phase':
      return;
    case 'invariant-violation':
      throw new GroupInvariantError(
        `Group ${group.groupId} was not supposed to be in the state ${group.state} when the unknown static member ${groupInstanceId} rejoins.`,
      );
  }
}

/**
 * Plug-ins only (Kafka never does this): a static member that was gone comes back with its own
 * member id (a member kept while away, or one whose id a plug-in handed back). Like a static member's
 * return with MemberId "" (updateStaticMemberAndRebalance) but without a new id: in Stable, with the
 * selected protocol unchanged, it gets the current generation back and no rebalance happens; it
 * then fetches its old assignment with SyncGroup. Returns false (nothing done) in other states or
 * when the selected protocol would change: the caller applies Kafka's known-member rules.
 */
export function rejoinStaticInPlace(
  engine: RebalanceEngine,
  group: ClassicGroup,
  member: GroupMember,
  protocols: Protocol[],
  rebalanceTimeoutMs: number,
  sessionTimeoutMs: number,
  callback: JoinCallback,
  supportSkippingAssignment: boolean,
): boolean {
  if (!group.is('Stable')) return false;
  const oldProtocols = member.supportedProtocols;
  const oldRebalanceTimeoutMs = member.rebalanceTimeoutMs;
  const oldSessionTimeoutMs = member.sessionTimeoutMs;
  group.updateMember(member, protocols, rebalanceTimeoutMs, sessionTimeoutMs, callback);
  if (group.protocolName !== group.selectProtocol()) {
    group.updateMember(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
    return false;
  }
  const isLeader = group.isLeader(member.memberId);
  group.maybeInvokeJoinCallback(member, {
    errorCode: ErrorCode.NONE,
    generationId: group.generationId,
    protocolType: group.protocolType,
    protocolName: group.protocolName,
    leaderId: group.leaderId,
    // As for a returning static leader (KIP-814): it leads, but must not run the assignor.
    skipAssignment: isLeader && supportSkippingAssignment,
    memberId: member.memberId,
    members: isLeader ? group.currentMemberMetadata() : [],
  });
  engine.completeAndScheduleNextHeartbeatExpiration(group, member);
  return true;
}
