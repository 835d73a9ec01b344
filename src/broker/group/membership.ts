// Group membership: JoinGroup, SyncGroup, Heartbeat and LeaveGroup of the classic protocol, as
// Kafka 3.9's GroupCoordinator handles them (handleJoinGroup / doNewMemberJoinGroup /
// doStaticNewMemberJoinGroup / doCurrentMemberJoinGroup, handleSyncGroup, handleHeartbeat,
// handleLeaveGroup; GroupMetadataManager.classicGroupJoin… in 4.x). The rebalance itself (phases,
// timeouts, member add/update/replace/remove) is rebalance.ts; the decisions are rules.ts.
//
// Plug-ins (hooks.ts) are asked at fixed points; each question returns CONTINUE when nobody acts,
// and the code below then is Kafka's.

import { GroupInvariantError, type ClassicGroup } from './group.js';
import type { LeavingMember, MemberJoinRequest } from './hooks.js';
import { isValidGroupId, type GroupKernel } from './kernel.js';
import { joinError, syncError, type GroupMember, type JoinResult, type SyncCallback, type SyncResult } from './member.js';
import type { NewMemberParams } from './rebalance.js';
import { acceptJoiningMember, decideKnownMemberJoin } from './rules.js';
import { rejoinStaticInPlace, updateStaticMemberAndRebalance } from './static-rejoin.js';
import type {
  ClientContext,
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupMemberResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from './types.js';
import { ErrorCode } from '../../codec/index.js';

export class GroupMembership {
  constructor(private readonly kernel: GroupKernel) {}

  private get engine() {
    return this.kernel.engine;
  }

  private get hooks() {
    return this.kernel.hooks;
  }

  // ==============================================================================================
  // JoinGroup

  joinGroup(version: number, client: ClientContext, request: JoinGroupRequest, respond: (response: JoinGroupResponse) => void): void {
    const answer = this.kernel.once<JoinResult>((r) => respond(shapeJoinResponse(version, r)));
    this.kernel.run(() => {
      try {
        this.doJoinGroup(version, client, request, answer);
      } catch (e) {
        if (!(e instanceof GroupInvariantError)) throw e;
        this.kernel.emit({ type: 'internal-error', groupId: request.groupId, message: e.message });
        answer(joinError('', ErrorCode.UNKNOWN_SERVER_ERROR));
      }
    });
  }

  private doJoinGroup(version: number, client: ClientContext, req: JoinGroupRequest, answer: (r: JoinResult) => void): void {
    const memberId = req.memberId;
    if (!isValidGroupId(req.groupId, false)) return answer(joinError(memberId, ErrorCode.INVALID_GROUP_ID));
    const { groupMinSessionTimeoutMs, groupMaxSessionTimeoutMs, groupMaxSize } = this.kernel.config;
    if (req.sessionTimeoutMs < groupMinSessionTimeoutMs || req.sessionTimeoutMs > groupMaxSessionTimeoutMs) {
      return answer(joinError(memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }

    const isUnknownMember = memberId === '';
    // The group is created only by a join without member id; a member id for a missing group is stale.
    const group = this.kernel.group(req.groupId) ?? (isUnknownMember ? this.kernel.createGroup(req.groupId) : undefined);
    if (!group) return answer(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));

    const join: MemberJoinRequest = {
      version,
      client,
      memberId,
      groupInstanceId: version >= 5 ? (req.groupInstanceId ?? null) : null,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      // v0 has no rebalance timeout: Kafka uses the session timeout (JoinGroupRequest's constructor).
      rebalanceTimeoutMs: version >= 1 ? (req.rebalanceTimeoutMs ?? -1) : req.sessionTimeoutMs,
      sessionTimeoutMs: req.sessionTimeoutMs,
      clientReason: version >= 8 ? (req.reason ?? null) : null,
      callback: answer,
    };
    const start = this.hooks.run('joinGroup', group, join);
    if (start.kind === 'answered') return;
    if (start.kind === 'override') join.groupInstanceId = start.decision;

    if (!acceptJoiningMember(group, memberId, groupMaxSize)) {
      const removed = group.remove(memberId);
      this.engine.cancelPendingMemberExpiration(group, memberId);
      if (removed) {
        this.engine.cancelHeartbeat(removed);
        this.engine.removed(group, removed, 'group-max-size', join.clientReason);
      }
      answer(joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
    } else if (isUnknownMember) {
      this.newMemberJoin(group, join);
    } else {
      this.currentMemberJoin(group, join);
    }

    if (group.is('PreparingRebalance')) this.engine.checkAndCompleteJoin(group);
  }

  /** doNewMemberJoinGroup / doStaticNewMemberJoinGroup. */
  private newMemberJoin(group: ClassicGroup, p: MemberJoinRequest): void {
    if (group.is('Dead')) return p.callback(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(p.protocolType, p.protocols)) {
      return p.callback(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    const prefix = p.groupInstanceId ?? p.client.clientId;
    const newMemberId = `${prefix}-${this.kernel.config.generateUuid(group.groupId, prefix)}`;
    const memberParams = newMemberParams(p, newMemberId, p.groupInstanceId);

    if (p.groupInstanceId !== null) {
      // Static members never get MEMBER_ID_REQUIRED. A known instance gets a new member id, and
      // whoever held the old one is fenced.
      const oldMemberId = group.currentStaticMemberId(p.groupInstanceId);
      if (oldMemberId !== undefined) {
        const rejoin = this.hooks.run('staticMemberRejoin', group, group.get(oldMemberId), p);
        if (rejoin.kind === 'answered') return;
        updateStaticMemberAndRebalance(
          this.engine,
          group,
          oldMemberId,
          newMemberId,
          p.groupInstanceId,
          p.protocols,
          p.rebalanceTimeoutMs,
          p.sessionTimeoutMs,
          p.callback,
          p.clientReason,
          p.version >= 9,
          rejoin.kind === 'override' ? rejoin.decision : undefined,
        );
      } else if (this.hooks.run('newStaticMemberJoin', group, p, newMemberId).kind !== 'answered') {
        this.engine.addMemberAndRebalance(group, memberParams, p.callback, p.clientReason);
      }
    } else if (p.version >= 4) {
      // KIP-394: from v4 a dynamic member's first join only obtains a member id.
      group.addPendingMember(newMemberId);
      this.engine.addPendingMemberExpiration(group, newMemberId, p.sessionTimeoutMs);
      this.kernel.emit({ type: 'member-pending', groupId: group.groupId, memberId: newMemberId });
      p.callback(joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    } else {
      this.engine.addMemberAndRebalance(group, memberParams, p.callback, p.clientReason);
    }
  }

  /** doCurrentMemberJoinGroup. */
  private currentMemberJoin(group: ClassicGroup, p: MemberJoinRequest): void {
    const memberId = p.memberId;
    if (group.is('Dead')) return p.callback(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(p.protocolType, p.protocols)) {
      return p.callback(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (group.isPendingMember(memberId)) {
      // The second JoinGroup of KIP-394. Pending members are dynamic by construction.
      if (p.groupInstanceId !== null) {
        if (this.hooks.run('pendingMemberJoinWithInstanceId', group, p).kind === 'answered') return;
        throw new GroupInvariantError(
          `Received unexpected JoinGroup with groupInstanceId=${p.groupInstanceId} for pending member with memberId=${memberId}`,
        );
      }
      this.engine.addMemberAndRebalance(group, newMemberParams(p, memberId, null), p.callback, p.clientReason);
      return;
    }

    if (this.hooks.run('memberJoinWithId', group, p).kind === 'answered') return;
    const memberError = this.kernel.validateMember(group, memberId, p.groupInstanceId, 'JoinGroup');
    if (memberError !== ErrorCode.NONE) return p.callback(joinError(memberId, memberError));
    this.knownMemberJoin(group, group.get(memberId), p);
  }

  /** doCurrentMemberJoinGroup after validation: what the group's state says a rejoin does. */
  private knownMemberJoin(group: ClassicGroup, member: GroupMember, p: MemberJoinRequest): void {
    const memberId = member.memberId;
    const asked = this.hooks.run('currentMemberJoin', group, member, p);
    if (asked.kind === 'answered') return;
    const decision = asked.kind === 'override' ? asked.decision : decideKnownMemberJoin(group, member, p.protocols);
    switch (decision.action) {
      case 'await-join-phase':
      case 'rebalance': {
        const trigger = decision.action === 'rebalance' ? decision.trigger : 'member-metadata-changed';
        const reason = p.clientReason ?? 'not provided';
        const description =
          decision.action === 'rebalance' && decision.description !== undefined
            ? decision.description
            : trigger === 'leader-rejoined'
              ? `Leader ${memberId} re-joining group during ${group.state}; client reason: ${reason}`
              : decision.action === 'await-join-phase'
                ? `Member ${memberId} joining group during ${group.state}; client reason: ${reason}`
                : `Updating metadata for member ${memberId} during ${group.state}; client reason: ${reason}`;
        this.engine.updateMemberAndRebalance(group, member, p.protocols, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.callback, {
          trigger,
          memberId,
          groupInstanceId: member.groupInstanceId,
          clientReason: p.clientReason,
          byJoinGroup: true,
          description,
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

  /**
   * Carries on with a known member's JoinGroup that a plug-in held back. `inPlace`: the member was
   * gone and comes back with its own id (in Stable: the current generation, no rebalance).
   */
  resumeJoin(group: ClassicGroup, p: MemberJoinRequest, inPlace: boolean): void {
    if (!group.has(p.memberId) || group.is('Dead')) return p.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    const member = group.get(p.memberId);
    if (inPlace && rejoinStaticInPlace(this.engine, group, member, p.protocols, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.callback, p.version >= 9)) {
      return;
    }
    this.knownMemberJoin(group, member, p);
    if (group.is('PreparingRebalance')) this.engine.checkAndCompleteJoin(group);
  }

  // ==============================================================================================
  // SyncGroup

  syncGroup(version: number, request: SyncGroupRequest, respond: (response: SyncGroupResponse) => void): void {
    const answer = this.kernel.once<SyncResult>((r) => respond({ ...r }));
    this.kernel.run(() => {
      try {
        this.doSyncGroup(version, request, answer);
      } catch (e) {
        if (!(e instanceof GroupInvariantError)) throw e;
        this.kernel.emit({ type: 'internal-error', groupId: request.groupId, message: e.message });
        answer(syncError(ErrorCode.UNKNOWN_SERVER_ERROR));
      }
    });
  }

  private doSyncGroup(version: number, req: SyncGroupRequest, answer: SyncCallback): void {
    const protocolType = version >= 5 ? (req.protocolType ?? null) : null;
    const protocolName = version >= 5 ? (req.protocolName ?? null) : null;
    // KafkaApis: from v5 both fields are mandatory.
    if (version >= 5 && (protocolType === null || protocolName === null)) {
      return answer(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (!isValidGroupId(req.groupId, false)) return answer(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.kernel.group(req.groupId);
    if (!group) return answer(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    if (group.is('Dead')) return answer(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    const groupInstanceId = this.kernel.instanceIdOf(group, version >= 3 ? (req.groupInstanceId ?? null) : null);
    const memberError = this.kernel.validateMember(group, req.memberId, groupInstanceId, 'SyncGroup');
    if (memberError !== ErrorCode.NONE) return answer(syncError(memberError));
    this.hooks.run('memberActive', group, req.memberId, 'SyncGroup');
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
        const error = this.engine.storeGroup(group, 'sync-assignment', assignment);
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
    return this.kernel.run(() => ({ errorCode: this.doHeartbeat(version, request) }));
  }

  private doHeartbeat(version: number, req: HeartbeatRequest): number {
    if (!isValidGroupId(req.groupId, false)) return ErrorCode.INVALID_GROUP_ID;
    const group = this.kernel.group(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const groupInstanceId = this.kernel.instanceIdOf(group, version >= 3 ? (req.groupInstanceId ?? null) : null);
    const memberError = this.kernel.validateMember(group, req.memberId, groupInstanceId, 'Heartbeat');
    if (memberError !== ErrorCode.NONE) return memberError;
    this.hooks.run('memberActive', group, req.memberId, 'Heartbeat');
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
    return this.kernel.run(() => {
      const identities: LeavingMember[] =
        version >= 3
          ? (request.members ?? []).map((m) => ({
              memberId: m.memberId,
              groupInstanceId: m.groupInstanceId ?? null,
              reason: version >= 5 ? (m.reason ?? null) : null,
            }))
          : [{ memberId: request.memberId ?? '', groupInstanceId: null, reason: null }];
      const result = this.removeMembers(request.groupId, identities, false);
      if (version >= 3) return result;
      // v0–v2 carry one error: the top-level one if set, else the member's.
      const errorCode = result.errorCode !== ErrorCode.NONE ? result.errorCode : (result.members[0]?.errorCode ?? ErrorCode.NONE);
      return { errorCode, members: [] };
    });
  }

  /** handleLeaveGroup's body, also the admin's removeMembers (`byAdmin`: removal cause `admin`). */
  removeMembers(groupId: string, identities: LeavingMember[], byAdmin: boolean): LeaveGroupResponse {
    if (!isValidGroupId(groupId, false)) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.kernel.group(groupId);
    const reply = (id: LeavingMember, errorCode: number): LeaveGroupMemberResponse => ({
      memberId: id.memberId,
      groupInstanceId: id.groupInstanceId,
      errorCode,
    });
    if (!group) return { errorCode: ErrorCode.NONE, members: identities.map((id) => reply(id, ErrorCode.UNKNOWN_MEMBER_ID)) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };

    const members = identities.map((id) => {
      if (this.hooks.run('leaveGroupMember', group, id).kind === 'answered') return reply(id, ErrorCode.NONE);
      const groupInstanceId = this.kernel.instanceIdOf(group, id.groupInstanceId);
      if (id.memberId === '') {
        // Administrative removal by instance id (Admin.removeMembersFromConsumerGroup).
        const currentId = groupInstanceId !== null ? group.currentStaticMemberId(groupInstanceId) : undefined;
        if (currentId === undefined) return reply(id, ErrorCode.UNKNOWN_MEMBER_ID);
        this.engine.removeMemberAndUpdateGroup(group, group.get(currentId), 'admin', id.reason);
        return reply(id, ErrorCode.NONE);
      }
      if (group.isPendingMember(id.memberId)) {
        this.kernel.emit({
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
      const memberError = this.kernel.validateMember(group, id.memberId, groupInstanceId, 'LeaveGroup');
      if (memberError !== ErrorCode.NONE) return reply(id, memberError);
      this.engine.removeMemberAndUpdateGroup(group, group.get(id.memberId), byAdmin ? 'admin' : 'leave', id.reason);
      return reply(id, ErrorCode.NONE);
    });
    return { errorCode: ErrorCode.NONE, members };
  }
}

/** The member a JoinGroup adds, under `memberId` and `groupInstanceId`. */
export function newMemberParams(join: MemberJoinRequest, memberId: string, groupInstanceId: string | null): NewMemberParams {
  return {
    memberId,
    groupInstanceId,
    clientId: join.client.clientId,
    clientHost: join.client.clientHost,
    principal: join.client.principal ?? null,
    rebalanceTimeoutMs: join.rebalanceTimeoutMs,
    sessionTimeoutMs: join.sessionTimeoutMs,
    protocolType: join.protocolType,
    protocols: join.protocols,
  };
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
