// The events of the draft policies, part of the coordinator's event stream (../events.ts). Never
// emitted while every policy is off; each names its policy (`policy`), so a listener can tell them
// from Kafka's (isPolicyEvent). Also the rebalance triggers and the removal cause the policies add.

import type { EventBase } from '../events.js';
import type { DraftErrorName, JoinReasonName, MembershipMode, PolicyConfig } from './types.js';

/** Why a policy took a member out of its group. */
export type PolicyRemovalCause =
  /** registration-timeout: a static member offline longer than registration.timeout.ms. */
  'registration-timeout';

/** Which policy rule started a rebalance. */
export type PolicyRebalanceTrigger =
  /** registration-timeout: the members offline longer than the timeout were removed. */
  | 'registration-timeout'
  /** expansion-timeout: the held new static members were admitted. */
  | 'expansion-timeout'
  /** kip423-join-reasons: the leader joined with reason topic_metadata_change. */
  | 'topic-metadata-change'
  /** kip423-join-reasons: a known member joined with reason upgrade. */
  | 'member-upgrade'
  /** membership-modes: the draft's forceStaticRebalance. */
  | 'force-static-rebalance';

export type PolicyEvent =
  (EventBase & {
      /** Policies changed: `scope` broker (groupId "") or one group; `policies` is the new effective set. */
      type: 'policies-changed';
      scope: 'broker' | 'group';
      policies: PolicyConfig;
    })
  | (EventBase & {
      /** kip345-draft-errors: a request met one of the draft's errors; `errorCode` is what was answered. */
      type: 'draft-error';
      policy: 'kip345-draft-errors';
      draftError: DraftErrorName;
      errorCode: number;
      errorName: string;
      operation: 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'LeaveGroup';
      memberId: string;
      groupInstanceId: string | null;
      /** The member id the instance is mapped to, when it is. */
      mappedMemberId: string | null;
      description: string;
    })
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
    })
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
    })
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
    })
  | (EventBase & {
      /** kip423-join-reasons: how a known member's JoinGroup was judged. */
      type: 'join-reason';
      policy: 'kip423-join-reasons';
      memberId: string;
      groupInstanceId: string | null;
      clientReason: string | null;
      joinReason: JoinReasonName;
      /** The table row that matched (keyword or Java client string), if any. */
      matched: string | null;
      decision: 'no-rebalance' | 'rebalance' | 'kafka-rules';
      description: string;
    });
