// Group administration: DescribeGroups, ListGroups, DeleteGroups (Kafka 3.9's GroupCoordinator
// handleDescribeGroup / handleListGroups / handleDeleteGroups), and the control plane's operations
// on groups: force a rebalance, remove members (as Admin.removeMembersFromConsumerGroup does), the
// read model of a group, and the plug-ins' settings and operations. Each runs as one coordinator
// operation: responses and events it causes are delivered once it has finished.

import { isValidGroupId, type GroupKernel } from './kernel.js';
import { EMPTY_BUFFER } from './member.js';
import type { GroupMembership } from './membership.js';
import type { DraftPolicies } from './policies/index.js';
import type {
  ForceRebalanceResult,
  GroupDetail,
  MembershipChangeResult,
  OfflineStaticMember,
  PolicyConfig,
  PolicyUpdate,
  RemoveMembersResult,
  StaticMembershipOptions,
} from './policies/types.js';
import type { DeletableGroupResult, DescribedGroup, ListGroupsRequest, ListGroupsResponse } from './types.js';
import { AUTHORIZED_OPERATIONS_OMITTED, ErrorCode, errorName } from '../../codec/index.js';

/** Admin.removeMembersFromConsumerGroup's default reason (KIP-800). */
export const ADMIN_REMOVAL_REASON = 'member was removed by an admin';


export class GroupAdmin {
  constructor(
    private readonly kernel: GroupKernel,
    private readonly membership: GroupMembership,
    private readonly policies: DraftPolicies,
  ) {}

  private get settings() {
    return this.policies.settings;
  }

  // ==============================================================================================
  // DescribeGroups, ListGroups, DeleteGroups

  describeGroups(groupIds: readonly string[]): DescribedGroup[] {
    return this.kernel.run(() =>
      groupIds.map((groupId): DescribedGroup => {
        if (!isValidGroupId(groupId, true)) {
          return describedGroup(groupId, ErrorCode.INVALID_GROUP_ID, '', '', '');
        }
        const group = this.kernel.group(groupId);
        if (!group) return describedGroup(groupId, ErrorCode.NONE, 'Dead', '', '');
        return {
          ...describedGroup(groupId, ErrorCode.NONE, group.state, group.protocolType ?? '', group.is('Stable') ? (group.protocolName ?? '') : ''),
          members: group.describeMembers(),
        };
      }),
    );
  }

  listGroups(request: ListGroupsRequest = {}): ListGroupsResponse {
    return this.kernel.run(() => {
      const states = (request.statesFilter ?? []).map((s) => s.toLowerCase());
      const types = (request.typesFilter ?? []).map((s) => s.toLowerCase());
      // The old coordinator only has classic groups.
      if (types.length > 0 && !types.includes('classic')) return { errorCode: ErrorCode.NONE, groups: [] };
      const groups = this.kernel
        .allGroups()
        .filter((g) => states.length === 0 || states.includes(g.state.toLowerCase()))
        .map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType ?? '',
          groupState: g.state,
          groupType: 'classic',
        }));
      return { errorCode: ErrorCode.NONE, groups };
    });
  }

  deleteGroups(groupIds: readonly string[]): DeletableGroupResult[] {
    return this.kernel.run(() =>
      [...new Set(groupIds)].map((groupId) => {
        if (!isValidGroupId(groupId, true)) return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID };
        const group = this.kernel.group(groupId);
        if (!group || group.is('Dead')) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
        if (!group.is('Empty')) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
        // handleDeleteGroups: Dead first, then cleanupGroupMetadata with removeAllOffsets (their
        // tombstones, and the group's when it had a generation).
        this.kernel.engine.transition(group, 'Dead');
        this.kernel.cleanupGroup(group, group.offsets.removeAll(), 'delete-groups');
        return { groupId, errorCode: ErrorCode.NONE };
      }),
    );
  }

  // ==============================================================================================
  // The control plane's operations

  /** The control plane's "force a rebalance", for any group, whatever the policies. */
  forceRebalance(groupId: string, reason: string): ForceRebalanceResult {
    return this.kernel.run(() => {
      const group = this.kernel.group(groupId);
      if (!group || group.is('Dead')) {
        return {
          groupId,
          errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
          error: 'GROUP_ID_NOT_FOUND',
          rebalanced: false,
          state: 'Dead',
          generationId: -1,
          message: `unknown group "${groupId}"`,
        };
      }
      if (group.is('PreparingRebalance')) {
        return {
          groupId,
          errorCode: ErrorCode.NONE,
          error: null,
          rebalanced: false,
          state: group.state,
          generationId: group.generationId,
          message: 'a rebalance is already under way',
        };
      }
      const generationId = group.generationId;
      this.kernel.guard(groupId, () =>
        this.kernel.engine.prepareRebalance(group, {
          trigger: 'admin-forced',
          memberId: null,
          groupInstanceId: null,
          clientReason: reason,
          description: `Rebalance forced by the control plane; reason: ${reason}`,
        }),
      );
      return { groupId, errorCode: ErrorCode.NONE, error: null, rebalanced: true, state: group.state, generationId, message: 'rebalance started' };
    });
  }

  /**
   * Removes members as Admin.removeMembersFromConsumerGroup does: one batch LeaveGroup naming them
   * (static members by group.instance.id with MemberId "", others by member id), removal cause
   * `admin`. With no ids given, every member (and every JoinGroup a plug-in holds) goes.
   */
  removeMembers(groupId: string, ids: { memberIds?: string[]; groupInstanceIds?: string[] } = {}, reason = ADMIN_REMOVAL_REASON): RemoveMembersResult {
    return this.kernel.run(() => {
      const group = this.kernel.group(groupId);
      let identities = [
        ...(ids.memberIds ?? []).map((memberId) => ({ memberId, groupInstanceId: null, reason })),
        ...(ids.groupInstanceIds ?? []).map((groupInstanceId) => ({ memberId: '', groupInstanceId, reason })),
      ];
      if (identities.length === 0 && group) {
        const held = this.kernel.hooks.run('heldMembers', group);
        identities = [
          ...group.allMembers().map((m) =>
            m.groupInstanceId !== null ? { memberId: '', groupInstanceId: m.groupInstanceId, reason } : { memberId: m.memberId, groupInstanceId: null, reason },
          ),
          ...(held.kind === 'override' ? held.decision : []).map((h) => ({ memberId: '', groupInstanceId: h.groupInstanceId, reason })),
        ];
      }
      const res = this.kernel.guard(groupId, () => this.membership.removeMembers(groupId, identities, true));
      return {
        groupId,
        errorCode: res.errorCode,
        members: res.members.map((m) => ({ ...m, error: m.errorCode === ErrorCode.NONE ? null : errorName(m.errorCode) })),
      };
    });
  }

  /** The control plane's read model of a group; null for an unknown group. */
  describeGroupDetail(groupId: string): GroupDetail | null {
    const group = this.kernel.group(groupId);
    if (!group) return null;
    const selected = group.protocolName;
    return this.policies.describe(group, {
      groupId,
      state: group.state,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leaderId: group.leaderId,
      members: group.allMembers().map((m) => {
        const protocol = selected !== null && m.protocolNames.includes(selected) ? selected : m.protocolNames[0];
        return {
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          sessionTimeoutMs: m.sessionTimeoutMs,
          rebalanceTimeoutMs: m.rebalanceTimeoutMs,
          protocols: m.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
          metadata: protocol !== undefined ? m.metadata(protocol) : EMPTY_BUFFER,
          assignment: m.assignment,
          isLeader: group.isLeader(m.memberId),
          awaitingJoin: m.isAwaitingJoin,
          awaitingSync: m.isAwaitingSync,
        };
      }),
      pendingMemberIds: group.pendingMemberIds(),
      rebalances: group.rebalances.map((r) => ({ ...r })),
    });
  }

  // ==============================================================================================
  // The plug-ins' settings and operations (docs/policies.md)

  /** Changes broker-wide policies (a partial update). Throws PolicyError (a RangeError) on bad input. */
  setBrokerPolicies(update: PolicyUpdate): PolicyConfig {
    return this.kernel.run(() => {
      this.settings.setBroker(update);
      return this.settings.registry.brokerPolicies();
    });
  }

  /**
   * Changes one group's own policies, layered over the broker's (a partial update merged into the
   * group's earlier settings); null removes them. The group need not exist yet. Returns the effective
   * policies. Throws PolicyError (a RangeError) on bad input.
   */
  setGroupPolicies(groupId: string, update: PolicyUpdate | null): PolicyConfig {
    return this.kernel.run(() => {
      this.settings.setGroup(groupId, update);
      return this.settings.config(groupId);
    });
  }

  /** The effective policies of a group (existing or not). */
  policiesFor(groupId: string): PolicyConfig {
    return this.settings.registry.effective(groupId);
  }

  brokerPolicies(): PolicyConfig {
    return this.settings.registry.brokerPolicies();
  }

  /** The group's own policy settings, or null. */
  groupPolicies(groupId: string): PolicyUpdate | null {
    return this.settings.registry.groupOverride(groupId);
  }

  enableStaticMembership(groupId: string, options: StaticMembershipOptions = {}): MembershipChangeResult {
    return this.kernel.run(() => this.kernel.guard(groupId, () => this.policies.operations.enableStaticMembership(groupId, options)));
  }

  enableDynamicMembership(groupId: string): MembershipChangeResult {
    return this.kernel.run(() => this.kernel.guard(groupId, () => this.policies.operations.enableDynamicMembership(groupId)));
  }

  forceStaticRebalance(groupId: string): MembershipChangeResult {
    return this.kernel.run(() => this.kernel.guard(groupId, () => this.policies.operations.forceStaticRebalance(groupId)));
  }

  /** Static members kept while away, earliest first. */
  offlineStaticMembers(groupId: string): OfflineStaticMember[] {
    const group = this.kernel.group(groupId);
    return group ? this.policies.operations.offlineStaticMembers(group) : [];
  }
}

function describedGroup(groupId: string, errorCode: number, groupState: string, protocolType: string, protocolData: string): DescribedGroup {
  return { errorCode, groupId, groupState, protocolType, protocolData, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}
