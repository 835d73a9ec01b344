// The draft-protocol policies: opt-in rules from the early KIP-345 draft and the KIP-423 draft,
// layered on Kafka 3.9's coordinator. Every policy is off by default, so default behaviour stays
// Apache Kafka's. Set per broker (flag, config file, startKmock option) and per group at run time.
//
// This file is the contract between the coordinator (which applies policies) and the control
// plane (which sets and shows them).

export const POLICY_NAMES = [
  'kip345-draft-errors',
  'registration-timeout',
  'expansion-timeout',
  'membership-modes',
  'kip423-join-reasons',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

export interface PolicyConfig {
  /** Draft error names (MISSING_MEMBER_ID, DUPLICATE_STATIC_MEMBER, NO_STATIC_MEMBER_INFO_SET) mapped onto real codes. */
  'kip345-draft-errors': { enabled: boolean };
  /** registration.timeout.ms: offline static members keep their place until this passes. */
  'registration-timeout': { enabled: boolean; registrationTimeoutMs: number };
  /** member.expansion.timeout.ms: new static members are held and admitted together. */
  'expansion-timeout': { enabled: boolean; expansionTimeoutMs: number };
  /** enableStaticMembership / enableDynamicMembership / forceStaticRebalance and the mode switch rule. */
  'membership-modes': { enabled: boolean };
  /** JoinGroup v8+ Reason read as the draft's JoinReason enum. */
  'kip423-join-reasons': { enabled: boolean };
}

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
}

/** A static member that stopped heartbeating but keeps its place (registration-timeout). */
export interface OfflineStaticMember {
  memberId: string;
  groupInstanceId: string;
  /** Clock time (ms) when its session expired. */
  offlineSince: number;
}
