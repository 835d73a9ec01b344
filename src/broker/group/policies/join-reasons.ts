// kip423-join-reasons: reading a JoinGroup's KIP-800 `Reason` (v8+) as the KIP-423 draft's
// JoinReason enum, and the draft's rules for a Stable group.
//
// The draft (KIP-423, "Add JoinReason to Consumer Join Group Protocol", never adopted) proposed
//   RESTART("restart")                      join request from a restarted / newly started consumer
//                                           (first named BLIND("blind"))
//   TOPIC_METADATA_CHANGE("topic_metadata_change")   the topic metadata changed (must be from the leader)
//   UPGRADE("upgrade")                      the client is doing an upgrade that requires a rebalance
// and: a member joining with a known identity (member id or group.instance.id) and reason RESTART
// does not make a Stable group rebalance; only TOPIC_METADATA_CHANGE from the leader does; a join with
// an unknown member id still rebalances. Kafka instead shipped KIP-800: a free-form, log-only Reason.
//
// Besides the draft's keywords, the standard reason strings of the Java client (Kafka 3.9,
// AbstractCoordinator / ConsumerCoordinator / ClassicKafkaConsumer / WorkerCoordinator) are
// classified; see JAVA_CLIENT_REASONS.

import type { ClassicGroup } from '../group.js';
import { CONTINUE, override, type Continue, type MemberJoinRequest, type Override, type GroupPlugin } from '../hooks.js';
import type { GroupMember } from '../member.js';
import type { KnownMemberJoinDecision, StaticReplacementDecision } from '../rules.js';
import type { EventBase } from '../events.js';
import { declared, definePolicy } from './define.js';
import { DraftPolicy, PerGroup } from './host.js';
import type { JoinReasonName } from './types.js';

export const JOIN_REASONS = definePolicy({
  name: 'kip423-join-reasons',
  summary: "a JoinGroup's Reason decides whether it rebalances",
  settings: {},
  types: declared<{
    events: JoinReasonEvent;
    rebalanceTriggers:
      /** kip423-join-reasons: the leader joined with reason topic_metadata_change. */
      | 'topic-metadata-change'
      /** kip423-join-reasons: a known member joined with reason upgrade. */
      | 'member-upgrade';
  }>(),
  create: (host) => new JoinReasonsPolicy(host),
});

export type JoinReasonEvent = EventBase & {
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
};

export interface JoinReasonClassification {
  reason: JoinReasonName;
  /** Where the classification came from. */
  source: 'draft-keyword' | 'java-client' | 'none';
  /** The table row that matched (the keyword or the Java client's string), for events and docs. */
  matched: string | null;
}

/** The draft's keywords, case-insensitive, whole reason (trimmed). */
export const DRAFT_KEYWORDS: Readonly<Record<string, JoinReasonName>> = {
  restart: 'restart',
  blind: 'restart',
  blindrestart: 'restart',
  topic_metadata_change: 'topic_metadata_change',
  upgrade: 'upgrade',
};

/**
 * The Java client's own reasons (Kafka 3.9) and what each means in the draft's terms. `prefix`
 * rows match the start of the reason (the rest is a member id, an error, a class name...).
 * Only two of them carry the draft's meaning; every other one is `unknown` (Kafka's rules apply).
 */
export const JAVA_CLIENT_REASONS: ReadonlyArray<{
  text: string;
  match: 'exact' | 'prefix';
  reason: JoinReasonName;
  where: string;
  why: string;
}> = [
  {
    text: '',
    match: 'exact',
    reason: 'restart',
    where: 'AbstractCoordinator.rejoinReason (initial value)',
    why: 'the first JoinGroup of a consumer since it started: the draft\'s "newly started consumer"',
  },
  {
    text: 'need to re-join with the given member-id: ',
    match: 'prefix',
    reason: 'restart',
    where: 'AbstractCoordinator.JoinGroupResponseHandler (MEMBER_ID_REQUIRED)',
    why: 'second step of a starting consumer\'s KIP-394 join',
  },
  {
    text: 'cached metadata has changed',
    match: 'exact',
    reason: 'topic_metadata_change',
    where: 'ConsumerCoordinator.rejoinNeededOrPending',
    why: 'only the leader keeps an assignment snapshot, so only the leader sends it: the draft\'s TOPIC_METADATA_CHANGE',
  },
  {
    text: 'subscription has changed',
    match: 'exact',
    reason: 'unknown',
    where: 'ConsumerCoordinator.rejoinNeededOrPending',
    why: 'a protocol (metadata) change, which rebalances anyway',
  },
  {
    text: 'rebalance enforced by user',
    match: 'exact',
    reason: 'unknown',
    where: 'ClassicKafkaConsumer.DEFAULT_REASON (enforceRebalance())',
    why: 'no draft counterpart; Kafka\'s rules (a leader rejoin rebalances)',
  },
  {
    text: 'group is already rebalancing',
    match: 'exact',
    reason: 'unknown',
    where: 'AbstractCoordinator.HeartbeatResponseHandler (REBALANCE_IN_PROGRESS)',
    why: 'rejoining a rebalance already under way',
  },
  {
    text: 'offset commit failed since group is already rebalancing',
    match: 'exact',
    reason: 'unknown',
    where: 'ConsumerCoordinator.OffsetCommitResponseHandler',
    why: 'rejoining a rebalance already under way',
  },
  {
    text: 'encountered ',
    match: 'prefix',
    reason: 'unknown',
    where: 'AbstractCoordinator.resetStateOnResponseError ("encountered <ERROR> from <API> response")',
    why: 'error recovery; the member id is usually reset, so it joins as an unknown member',
  },
  {
    text: 'rebalance failed due to ',
    match: 'prefix',
    reason: 'unknown',
    where: 'AbstractCoordinator.joinGroupIfNeeded',
    why: 'error recovery',
  },
  {
    text: 'rebalance failed since the generation/state was modified by heartbeat thread',
    match: 'prefix',
    reason: 'unknown',
    where: 'AbstractCoordinator.joinGroupIfNeeded',
    why: 'error recovery',
  },
  {
    text: 'consumer pro-actively leaving the group',
    match: 'exact',
    reason: 'unknown',
    where: 'AbstractCoordinator.resetGenerationOnLeaveGroup',
    why: 'a dynamic member rejoining after LeaveGroup (unknown member id)',
  },
  {
    text: 'received assignment does not match the current subscription',
    match: 'exact',
    reason: 'unknown',
    where: 'ConsumerCoordinator.onJoinComplete',
    why: 'a subscription change',
  },
  {
    text: 'need to revoke partitions and re-join',
    match: 'exact',
    reason: 'unknown',
    where: 'ConsumerCoordinator.onJoinComplete (cooperative protocol)',
    why: 'the cooperative second round; owned partitions changed, so the metadata changed',
  },
  {
    text: 'connect worker requested rejoin',
    match: 'exact',
    reason: 'unknown',
    where: 'WorkerGroupMember.requestRejoin (Kafka Connect)',
    why: 'no draft counterpart',
  },
];

/**
 * Reads a JoinGroup's Reason. `reason` is what the coordinator saw: null below v8 (the field does not
 * exist) or when the client sent null. Case-insensitive; surrounding blanks ignored.
 */
export function classifyJoinReason(reason: string | null | undefined): JoinReasonClassification {
  if (reason === null || reason === undefined) return { reason: 'unknown', source: 'none', matched: null };
  const text = reason.trim().toLowerCase();
  const keyword = DRAFT_KEYWORDS[text];
  if (keyword !== undefined) return { reason: keyword, source: 'draft-keyword', matched: text };
  for (const row of JAVA_CLIENT_REASONS) {
    if (row.match === 'exact' ? text === row.text : text.startsWith(row.text)) {
      return { reason: row.reason, source: 'java-client', matched: row.text };
    }
  }
  return { reason: 'unknown', source: 'none', matched: null };
}

// ---- the policy ------------------------------------------------------------------------------------

/**
 * The draft's rules for a Stable group, where Kafka's doCurrentMemberJoinGroup (a known member id)
 * and updateStaticMemberAndRebalance (a known instance with MemberId "") decide by state and
 * protocols alone. Outside Stable, below v8, or for a reason that means nothing to the draft,
 * Kafka's rules apply. Keeps no state.
 */
export class JoinReasonsPolicy extends DraftPolicy<Record<string, never>> implements GroupPlugin {
  readonly name = 'kip423-join-reasons' as const;
  protected readonly state = new PerGroup<Record<string, never>>(() => ({}));

  /** A known member id rejoins. */
  currentMemberJoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Continue | Override<KnownMemberJoinDecision> {
    const cls = classifyJoinReason(join.version >= 8 ? join.clientReason : null);
    const id = member.memberId;
    const event = (decision: JoinReasonDecision, description: string) => this.reasonEvent(group, join, id, cls, decision, description);
    if (join.version < 8) {
      event('kafka-rules', 'JoinGroup below v8 carries no reason: Kafka\'s rules');
      return CONTINUE;
    }
    if (!group.is('Stable')) {
      event('kafka-rules', `group is ${group.state}: Kafka's rules`);
      return CONTINUE;
    }
    if (!member.matches(join.protocols)) {
      event('rebalance', 'protocols changed: a rebalance, whatever the reason');
      return CONTINUE; // Kafka rebalances on changed metadata too
    }
    const isLeader = group.isLeader(id);
    const reason = join.clientReason ?? 'not provided';
    switch (cls.reason) {
      case 'restart':
        event('no-rebalance', `restart of a known ${isLeader ? 'leader' : 'follower'} with unchanged protocols: current generation, no rebalance`);
        return override({ action: 'return-current-generation', includeMembers: isLeader, skipAssignment: isLeader && join.version >= 9 });
      case 'topic_metadata_change':
        if (isLeader) {
          event('rebalance', 'topic_metadata_change from the leader: rebalance');
          return override({
            action: 'rebalance',
            trigger: 'topic-metadata-change',
            description: `Leader ${id} re-joining group during ${group.state} for a topic metadata change (kip423-join-reasons); client reason: ${reason}`,
          });
        }
        event('kafka-rules', 'topic_metadata_change from a follower: treated as unknown');
        return CONTINUE;
      case 'upgrade':
        event('rebalance', 'upgrade: the member needs a rebalance');
        return override({
          action: 'rebalance',
          trigger: 'member-upgrade',
          description: `Member ${id} re-joining group during ${group.state} for an upgrade (kip423-join-reasons); client reason: ${reason}`,
        });
      case 'unknown':
        event('kafka-rules', 'unknown reason: Kafka\'s rules');
        return CONTINUE;
    }
  }

  /** A known instance rejoins with MemberId "" (Kafka replaces its member id): decided before the replacement. */
  staticMemberRejoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Continue | Override<StaticReplacementDecision> {
    const cls = classifyJoinReason(join.version >= 8 ? join.clientReason : null);
    const id = member.memberId;
    const event = (decision: JoinReasonDecision, description: string) => this.reasonEvent(group, join, id, cls, decision, description);
    if (join.version < 8 || cls.reason === 'unknown') {
      event('kafka-rules', join.version < 8 ? 'JoinGroup below v8 carries no reason: Kafka\'s rules' : 'unknown reason: Kafka\'s rules');
      return CONTINUE;
    }
    if (!group.is('Stable')) {
      event('kafka-rules', `group is ${group.state}: Kafka's rules`);
      return CONTINUE;
    }
    if (!member.matches(join.protocols)) {
      event('rebalance', 'protocols changed: a rebalance, whatever the reason');
      return override({ action: 'rebalance', trigger: 'member-metadata-changed' });
    }
    switch (cls.reason) {
      case 'restart':
        event('no-rebalance', 'restart of a known instance with unchanged protocols: current generation, no rebalance');
        return override({ action: 'keep-generation' });
      case 'topic_metadata_change':
        if (group.isLeader(id)) {
          event('rebalance', 'topic_metadata_change from the leader: rebalance');
          return override({ action: 'rebalance', trigger: 'topic-metadata-change' });
        }
        event('kafka-rules', 'topic_metadata_change from a follower: treated as unknown');
        return CONTINUE;
      case 'upgrade':
        event('rebalance', 'upgrade: the member needs a rebalance');
        return override({ action: 'rebalance', trigger: 'member-upgrade' });
    }
  }

  private reasonEvent(group: ClassicGroup, join: MemberJoinRequest, memberId: string, cls: JoinReasonClassification, decision: JoinReasonDecision, description: string): void {
    this.host.emit({
      type: 'join-reason',
      groupId: group.groupId,
      policy: 'kip423-join-reasons',
      memberId,
      groupInstanceId: join.groupInstanceId,
      clientReason: join.clientReason,
      joinReason: cls.reason,
      matched: cls.matched,
      decision,
      description,
    });
  }
}

type JoinReasonDecision = 'no-rebalance' | 'rebalance' | 'kafka-rules';
