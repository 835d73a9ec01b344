// Events the coordinator emits through `onEvent`. A control plane streams them and policies react to
// them; they never influence the coordinator's own decisions (just as KIP-800 reasons are only
// logged by Kafka). Events are delivered after the operation that caused them has finished
// mutating state, in the order they happened, so a listener may call back into the coordinator.

import type { PolicyEvent, PolicyRebalanceTrigger, PolicyRemovalCause } from './policies/events.js';
import type { JoinReasonName } from './policies/types.js';
import type { GroupState } from './types.js';

/** Why a member was taken out of the group. */
export type RemovalCause =
  /** LeaveGroup naming the member by member id. */
  | 'leave'
  /** LeaveGroup with MemberId "" naming a GroupInstanceId (Admin.removeMembersFromConsumerGroup). */
  | 'admin'
  /** No heartbeat (or commit/sync) within its session timeout. */
  | 'session-timeout'
  /** A new member's first JoinGroup stayed parked longer than the new-member join timeout (5 min). */
  | 'join-timeout'
  /** A dynamic member did not rejoin before the rebalance timeout. */
  | 'rebalance-timeout'
  /** A member did not send SyncGroup within the rebalance timeout after the join phase. */
  | 'sync-timeout'
  /** Kicked out by group.max.size while rejoining. */
  | 'group-max-size'
  /** A MEMBER_ID_REQUIRED (pending) member that never rejoined within its session timeout. */
  | 'pending-expired'
  /** Removed by a draft policy (policies/events.ts). */
  | PolicyRemovalCause;

/** Which coordinator rule started a rebalance (see rebalance.ts for where each fires). */
export type RebalanceTrigger =
  /** A new member was added to the group. */
  | 'member-joined'
  /** A known member rejoined with different protocol metadata (CompletingRebalance or Stable). */
  | 'member-metadata-changed'
  /** The leader rejoined a Stable group; Kafka always rebalances then (it is how a leader asks for one). */
  | 'leader-rejoined'
  /** A static member rejoined with MemberId "" while Stable and the selected protocol would change. */
  | 'static-member-protocol-changed'
  /** A static member rejoined with MemberId "" during CompletingRebalance (KAFKA-9801). */
  | 'static-member-replaced'
  /** A member was removed from a Stable/CompletingRebalance group; see `removalCause`. */
  | 'member-removed'
  /** Persisting the leader's assignment failed. */
  | 'assignment-store-failed'
  /** Members did not send SyncGroup within the rebalance timeout. */
  | 'pending-sync-timeout'
  /** The control plane's "force a rebalance" (GroupCoordinator.forceRebalance). */
  | 'admin-forced'
  /** A group loaded from __consumer_offsets has more members than group.max.size (onGroupLoaded). */
  | 'loaded-over-capacity'
  /** Started by a draft policy (policies/events.ts). */
  | PolicyRebalanceTrigger;

/** One offset of a transactional offset commit (TxnOffsetCommit), as events show it. */
export interface TxnOffsetEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

export interface EventBase {
  groupId: string;
  /** Clock time at which it happened. */
  at: number;
}

export type GroupEvent =
  | (EventBase & { type: 'group-created' })
  | (EventBase & { type: 'group-deleted'; cause: 'delete-groups' | 'offsets-expired' })
  | (EventBase & { type: 'state-changed'; from: GroupState; to: GroupState; generationId: number })
  | (EventBase & {
      type: 'generation-bumped';
      generationId: number;
      protocolName: string | null;
      leader: string | null;
      memberIds: string[];
    })
  | (EventBase & {
      type: 'rebalance-started';
      /** The generation being left behind. */
      generationId: number;
      trigger: RebalanceTrigger;
      memberId: string | null;
      groupInstanceId: string | null;
      /** KIP-800 reason sent by the client (JoinGroup v8+, LeaveGroup v5+), if any. */
      clientReason: string | null;
      removalCause: RemovalCause | null;
      /** Human-readable, in the spirit of Kafka's "Preparing to rebalance" log line. */
      description: string;
      /** For a rebalance a JoinGroup started: its Reason read as a JoinReason (policies/join-reasons.ts),
       *  recorded whether or not a policy acts on it. */
      joinReason?: JoinReasonName | null;
    })
  | (EventBase & {
      type: 'join-phase-extended';
      /** `initial-delay`: group.initial.rebalance.delay.ms re-armed because new members arrived.
       *  `no-member-rejoined`: the rebalance timeout fired but nobody rejoined; wait another round. */
      reason: 'initial-delay' | 'no-member-rejoined';
      delayMs: number;
    })
  | (EventBase & {
      type: 'member-joined';
      memberId: string;
      groupInstanceId: string | null;
      clientId: string;
      clientHost: string;
      /** The authenticated principal of the joining connection (User:ANONYMOUS on PLAINTEXT). */
      principal: string | null;
      clientReason: string | null;
    })
  | (EventBase & { type: 'member-pending'; memberId: string })
  | (EventBase & { type: 'member-replaced'; groupInstanceId: string; oldMemberId: string; newMemberId: string })
  | (EventBase & {
      type: 'member-fenced';
      memberId: string;
      groupInstanceId: string;
      /** Which request was answered FENCED_INSTANCE_ID. */
      operation: 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'OffsetCommit' | 'TxnOffsetCommit' | 'LeaveGroup';
    })
  | (EventBase & {
      type: 'member-removed';
      memberId: string;
      groupInstanceId: string | null;
      cause: RemovalCause;
      clientReason: string | null;
    })
  | (EventBase & {
      /** A parked JoinGroup/SyncGroup that Kafka 3.9 never answers (superseded by a newer request of
       *  the same member, or the member was removed while its SyncGroup was parked). Kafka leaves
       *  such a request to the client's request timeout; so does kmock, but says so here. */
      type: 'callback-dropped';
      memberId: string;
      api: 'JoinGroup' | 'SyncGroup';
    })
  | (EventBase & {
      /** A TxnOffsetCommit was written: its offsets wait, invisible to OffsetFetch (RequireStable
       *  answers UNSTABLE_OFFSET_COMMIT), until the transaction's marker reaches the group's
       *  __consumer_offsets partition. */
      type: 'txn-offsets-pending';
      transactionalId: string;
      producerId: bigint;
      producerEpoch: number;
      /** The group's __consumer_offsets partition (GroupCoordinator.partitionFor). */
      offsetsPartition: number;
      offsets: TxnOffsetEntry[];
    })
  | (EventBase & {
      /** The transaction's COMMIT or ABORT marker reached the group's __consumer_offsets partition. */
      type: 'txn-offsets-completed';
      producerId: bigint;
      result: 'COMMIT' | 'ABORT';
      offsetsPartition: number;
      /** Now the committed offsets. */
      materialized: TxnOffsetEntry[];
      /** Dropped: every offset of an aborted transaction; of a committed one, those a plain
       *  OffsetCommit written later in the log had already superseded. */
      discarded: TxnOffsetEntry[];
    })
  | (EventBase & { type: 'internal-error'; message: string })
  // --- the draft policies (policies/events.ts); never emitted while every policy is off ---------
  | PolicyEvent;

export type GroupEventListener = (event: GroupEvent) => void;

/** Events of the draft policies (logged at info by the broker, so the draft names reach the log). */
export function isPolicyEvent(e: GroupEvent): boolean {
  return 'policy' in e || e.type === 'policies-changed';
}
