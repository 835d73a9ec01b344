// The draft-protocol policies: opt-in rules from the early KIP-345 draft and the KIP-423 draft,
// layered on Kafka 3.9's coordinator. Every policy is off by default, so default behaviour stays
// Apache Kafka's. Set per broker (flag, config file, startKmock option) and per group at run time.
//
// This file is the contract between the coordinator (which applies policies) and the control
// plane (which sets and shows them). Names exported here are stable; new fields are only added.
// The names and the settings' shapes are derived from the list of policies (list.ts): each policy
// file declares its own (definePolicy, define.ts).

import type { GroupState } from '../types.js';
import type { ConfigOf, NamesOf } from './define.js';
import { POLICIES } from './list.js';

/** Every policy's definition (a union). */
export type PolicyDefinitions = (typeof POLICIES)[number];

/** The policies' names, in list order, e.g. `registration-timeout`. */
export const POLICY_NAMES = POLICIES.map((p) => p.name) as unknown as NamesOf<typeof POLICIES>;
export type PolicyName = (typeof POLICY_NAMES)[number];

/**
 * Every policy's settings, keyed by its name: `enabled` and what its definition declares, e.g.
 * `'registration-timeout': { enabled: boolean; registrationTimeoutMs: number }`.
 */
export type PolicyConfig = ConfigOf<PolicyDefinitions>;

/** A partial update: only the named policies change; unnamed settings keep their values. */
export type PolicyUpdate = { [K in PolicyName]?: Partial<PolicyConfig[K]> };

/** The draft's MembershipChangeResult (enableStaticMembership, enableDynamicMembership, forceStaticRebalance). */
export interface MembershipChangeResult {
  groupId: string;
  /** 0 on success, else a Kafka error code; `error` names the draft's error when there is one. */
  errorCode: number;
  error: string | null;
  /** The group's mode after the call. */
  mode: 'static' | 'dynamic';
  generationId: number;
  members: Array<{ memberId: string; groupInstanceId: string | null }>;
  /** Why the call failed (or what it did), in words. */
  message?: string;
}

/** enableStaticMembership's options: a timeout given also turns its policy on for the group. */
export interface StaticMembershipOptions {
  registrationTimeoutMs?: number;
  expansionTimeoutMs?: number;
}

/** A static member that stopped heartbeating but keeps its place (registration-timeout). */
export interface OfflineStaticMember {
  memberId: string;
  groupInstanceId: string;
  /** Clock time (ms) when its session expired. */
  offlineSince: number;
}

// ---- added with the coordinator's implementation ---------------------------------------------------

/** The early KIP-345 draft's error names (they never got Kafka error codes). */
export type DraftErrorName = 'MISSING_MEMBER_ID' | 'DUPLICATE_STATIC_MEMBER' | 'NO_STATIC_MEMBER_INFO_SET';

/** The KIP-423 draft's JoinReason values, plus `unknown` (no reason, or one kmock cannot classify). */
export type JoinReasonName = 'restart' | 'topic_metadata_change' | 'upgrade' | 'unknown';

export type MembershipMode = 'static' | 'dynamic';

/** A new static member held by expansion-timeout: not a member yet, its JoinGroup parked. */
export interface HeldStaticMember {
  /** The member id it will get when admitted. */
  memberId: string;
  groupInstanceId: string;
  clientId: string;
  clientHost: string;
  heldSince: number;
  /** When the held members are admitted (one rebalance), unless a rebalance starts earlier. */
  admitAt: number;
}

/** Result of `forceRebalance` (the control plane's "force a rebalance"). */
export interface ForceRebalanceResult {
  groupId: string;
  /** 0, or GROUP_ID_NOT_FOUND (69) for an unknown group. */
  errorCode: number;
  error: string | null;
  /** True when a rebalance was started (false when one was already under way). */
  rebalanced: boolean;
  state: GroupState | 'Dead';
  generationId: number;
  message: string;
}

/** Result of `removeMembers`: one entry per member named (or per member, when none is named). */
export interface RemoveMembersResult {
  groupId: string;
  errorCode: number;
  members: Array<{ memberId: string; groupInstanceId: string | null; errorCode: number; error: string | null }>;
}

/** One member as `describeGroupDetail` shows it. Buffers are raw; the control plane decodes them. */
export interface GroupMemberDetail {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Protocols offered, in preference order, with their metadata. */
  protocols: Array<{ name: string; metadata: Buffer }>;
  /** Metadata for the selected protocol (else the first offered one). */
  metadata: Buffer;
  /** The assignment of the current generation (empty before the leader's SyncGroup). */
  assignment: Buffer;
  isLeader: boolean;
  awaitingJoin: boolean;
  awaitingSync: boolean;
  /** registration-timeout: when its session expired, if it is offline. */
  offlineSince: number | null;
}

/** One rebalance as recorded by the coordinator (the draft's "timeline of rebalance causes"). */
export interface RebalanceRecord {
  at: number;
  /** The generation being left behind. */
  generationId: number;
  trigger: string;
  memberId: string | null;
  groupInstanceId: string | null;
  /** KIP-800 Reason as sent (JoinGroup v8+, LeaveGroup v5+), or the admin's reason. */
  clientReason: string | null;
  /** The Reason read as the KIP-423 draft's JoinReason, for rebalances a JoinGroup started. */
  joinReason: JoinReasonName | null;
  description: string;
}

/** The control plane's read model of one group. */
export interface GroupDetail {
  groupId: string;
  state: GroupState;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leaderId: string | null;
  members: GroupMemberDetail[];
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not rejoined yet. */
  pendingMemberIds: string[];
  offlineStaticMembers: OfflineStaticMember[];
  heldStaticMembers: HeldStaticMember[];
  /** Effective policies of the group (broker's, overlaid with the group's own). */
  policies: PolicyConfig;
  /** The group's own policy settings (null when it has none). */
  groupPolicies: PolicyUpdate | null;
  /** membership-modes: the group's mode; null when the policy is off for the group. */
  mode: MembershipMode | null;
  /** membership-modes: true once enableStaticMembership/enableDynamicMembership fixed the mode. */
  modePinned: boolean;
  /** The last rebalances, oldest first (at most 50). */
  rebalances: RebalanceRecord[];
}

/** The part of GroupDetail that is Kafka's (the coordinator fills it in; the policies add the rest). */
export type KafkaGroupDetail = Omit<
  GroupDetail,
  'members' | 'offlineStaticMembers' | 'heldStaticMembers' | 'policies' | 'groupPolicies' | 'mode' | 'modePinned'
> & { members: Omit<GroupMemberDetail, 'offlineSince'>[] };
