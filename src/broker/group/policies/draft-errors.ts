// kip345-draft-errors: the early KIP-345 draft's error names, which never got Kafka error codes,
// mapped onto the real codes that make real clients do what the draft intended.
//
// | draft name                | when (member carries a group.instance.id)                       | answered with            | what a client then does                                              |
// |---------------------------|-----------------------------------------------------------------|--------------------------|----------------------------------------------------------------------|
// | MISSING_MEMBER_ID         | JoinGroup with MemberId "" while the instance is mapped          | MEMBER_ID_REQUIRED (79)  | retries JoinGroup with the member id in the response: the mapped one |
// |                           |                                                                  | + the mapped member id   | (KIP-394 handling, librdkafka and Java alike)                        |
// | DUPLICATE_STATIC_MEMBER   | JoinGroup with a member id while the instance is new             | FENCED_INSTANCE_ID (82)  | fatal: the consumer stops (librdkafka: _FATAL/_FENCED; Java:          |
// |                           | (or the member id is a pending, dynamic one)                     |                          | FencedInstanceIdException)                                           |
// | DUPLICATE_STATIC_MEMBER   | a second process claims a live instance (see the claim below)    | FENCED_INSTANCE_ID (82)  | fatal, for the newcomer; the running member is untouched              |
// | DUPLICATE_STATIC_MEMBER   | any request whose ids disagree with the instance map            | FENCED_INSTANCE_ID (82)  | fatal (Kafka answers the same code; kmock adds the draft name)        |
// | NO_STATIC_MEMBER_INFO_SET | OffsetCommit/TxnOffsetCommit lacking the member id or the       | UNKNOWN_MEMBER_ID (25)   | the commit fails; the consumer drops its member id and rejoins with   |
// |                           | instance id of a static member                                  |                          | MemberId "" (which, under this policy, hands it its mapped id back)  |
//
// NO_STATIC_MEMBER_INFO_SET → UNKNOWN_MEMBER_ID: the draft renamed this error MISSING_MEMBER_ID, i.e.
// it is the commit-side twin of "you did not say who you are". UNKNOWN_MEMBER_ID is the only code
// both librdkafka and the Java consumer answer, on a commit, by forgetting the member id and
// rejoining, which under this policy walks the member through MISSING_MEMBER_ID back to its mapped
// identity. The alternatives do worse: FENCED_INSTANCE_ID is fatal (too harsh for a missing field),
// INVALID_REQUEST surfaces as a non-retriable KafkaException in the Java consumer, ILLEGAL_GENERATION
// would only make it rejoin with the same incomplete identity.
//
// The claim. Under the draft a restarted static member learns its old member id from
// MISSING_MEMBER_ID; but a second process configured with the same group.instance.id would learn it
// too, and two processes sharing one member id cannot be told apart afterwards. So when the mapped
// member is online and the group Stable, the id is handed out as a *claim*: the claimant's JoinGroup
// with that id is parked until either the running incarnation proves alive (any Heartbeat,
// SyncGroup, OffsetCommit or LeaveGroup under that member id, or a second JoinGroup with it): the
// claimant is a duplicate and is refused (DUPLICATE_STATIC_MEMBER → FENCED_INSTANCE_ID); or the
// member's session expires without a word from it: the old incarnation is gone and the claimant
// takes its place (its old assignment, no rebalance). An offline member (registration-timeout) is
// known to be gone: its id is handed back at once.

import type { TimerHandle } from '../clock.js';
import type { ClassicGroup } from '../group.js';
import {
  ANSWERED,
  CONTINUE,
  override,
  type Answered,
  type CommitIdentity,
  type Continue,
  type MemberJoinRequest,
  type MemberOperation,
  type Override,
  type GroupPlugin,
} from '../hooks.js';
import { joinError, type GroupMember } from '../member.js';
import type { EventBase } from '../events.js';
import { declared, definePolicy } from './define.js';
import { DraftPolicy, PerGroup } from './host.js';
import type { DraftErrorName, PolicyConfig } from './types.js';
import { ErrorCode, errorName } from '../../../codec/index.js';

export const DRAFT_ERRORS = definePolicy({
  name: 'kip345-draft-errors',
  summary: "the early KIP-345 draft's static-member errors",
  settings: {},
  types: declared<{ events: DraftErrorEvent }>(),
  create: (host) => new DraftErrorsPolicy(host),
});

export type DraftErrorEvent = EventBase & {
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
};

/** The real code each draft error is answered with. */
export const DRAFT_ERROR_CODES: Readonly<Record<DraftErrorName, number>> = {
  MISSING_MEMBER_ID: ErrorCode.MEMBER_ID_REQUIRED,
  DUPLICATE_STATIC_MEMBER: ErrorCode.FENCED_INSTANCE_ID,
  NO_STATIC_MEMBER_INFO_SET: ErrorCode.UNKNOWN_MEMBER_ID,
};

export interface CommitIdentityCheck {
  draftError: DraftErrorName;
  errorCode: number;
  mappedMemberId: string | null;
  description: string;
}

/** What the coordinator knows about static members, for the commit check. */
export interface StaticMap {
  /** Member id mapped to an instance id. */
  currentStaticMemberId(groupInstanceId: string): string | undefined;
  /** Instance id of a member, null for a dynamic member, undefined for an unknown member id. */
  instanceOf(memberId: string): string | null | undefined;
}

/**
 * The draft's commit rules, for a commit that Kafka would validate against the member list
 * (generation >= 0, or a member or instance id given). `canCarryInstanceId`: the request version has
 * the GroupInstanceId field (OffsetCommit v7+, TxnOffsetCommit v3+); below it, a missing instance id
 * is not the client's fault and Kafka's rules apply.
 */
export function checkStaticCommit(
  map: StaticMap,
  memberId: string,
  groupInstanceId: string | null,
  canCarryInstanceId: boolean,
): CommitIdentityCheck | null {
  if (groupInstanceId !== null && memberId === '') {
    return {
      draftError: 'NO_STATIC_MEMBER_INFO_SET',
      errorCode: DRAFT_ERROR_CODES.NO_STATIC_MEMBER_INFO_SET,
      mappedMemberId: map.currentStaticMemberId(groupInstanceId) ?? null,
      description: `commit with group.instance.id ${groupInstanceId} but no member id`,
    };
  }
  const memberInstance = map.instanceOf(memberId);
  if (groupInstanceId === null) {
    if (canCarryInstanceId && typeof memberInstance === 'string') {
      return {
        draftError: 'NO_STATIC_MEMBER_INFO_SET',
        errorCode: DRAFT_ERROR_CODES.NO_STATIC_MEMBER_INFO_SET,
        mappedMemberId: memberId,
        description: `commit from static member ${memberId} (instance ${memberInstance}) without its group.instance.id`,
      };
    }
    return null;
  }
  const mapped = map.currentStaticMemberId(groupInstanceId);
  if (mapped !== undefined && mapped !== memberId) {
    return {
      draftError: 'DUPLICATE_STATIC_MEMBER',
      errorCode: DRAFT_ERROR_CODES.DUPLICATE_STATIC_MEMBER,
      mappedMemberId: mapped,
      description: `commit from member ${memberId} with group.instance.id ${groupInstanceId}, which is mapped to ${mapped}`,
    };
  }
  if (typeof memberInstance === 'string' && memberInstance !== groupInstanceId) {
    return {
      draftError: 'DUPLICATE_STATIC_MEMBER',
      errorCode: DRAFT_ERROR_CODES.DUPLICATE_STATIC_MEMBER,
      mappedMemberId: memberId,
      description: `commit from member ${memberId} (instance ${memberInstance}) naming group.instance.id ${groupInstanceId}`,
    };
  }
  return null;
}

// ---- the policy ------------------------------------------------------------------------------------

/** A mapped member id handed to a JoinGroup with MemberId "" (MISSING_MEMBER_ID) while the member is online. */
export interface Claim {
  groupInstanceId: string;
  memberId: string;
  openedAt: number;
  /** The running incarnation sent a request after the id was handed out. */
  oldAlive: boolean;
  /** The claimant's JoinGroup with the handed-out id, parked until the claim is decided. */
  reclaim: MemberJoinRequest | null;
  /** Forgets a claim whose claimant never came back. */
  timer: TimerHandle | null;
}

interface ClaimsState {
  /** Open claims by instance id. */
  readonly claims: Map<string, Claim>;
}

export class DraftErrorsPolicy extends DraftPolicy<ClaimsState> implements GroupPlugin {
  readonly name = 'kip345-draft-errors' as const;
  protected readonly state = new PerGroup<ClaimsState>(() => ({ claims: new Map() }));

  // --- JoinGroup -------------------------------------------------------------------------------

  /**
   * MISSING_MEMBER_ID: a JoinGroup with MemberId "" for a mapped instance gets MEMBER_ID_REQUIRED
   * with the mapped member id (Kafka would replace the member).
   */
  staticMemberRejoin(group: ClassicGroup, member: GroupMember, join: MemberJoinRequest): Answered {
    const instance = join.groupInstanceId!;
    const mappedMemberId = member.memberId;
    this.draftError(group, 'MISSING_MEMBER_ID', 'JoinGroup', '', instance, mappedMemberId, `group.instance.id ${instance} is mapped to ${mappedMemberId}: rejoin with it`);
    if (!this.host.hooks.isAway(group, member) && group.is('Stable')) {
      const claims = this.state.of(group).claims;
      const prev = claims.get(instance);
      if (prev) {
        this.deleteClaim(group, prev);
        if (prev.reclaim) this.refuseDuplicate(group, prev.reclaim, 'another process claimed the same instance');
      }
      const claim: Claim = { groupInstanceId: instance, memberId: mappedMemberId, openedAt: this.host.clock.now(), oldAlive: prev?.oldAlive ?? false, reclaim: null, timer: null };
      // A claimant that does not come back within its session timeout has given up.
      claim.timer = this.host.timers.schedule(
        join.sessionTimeoutMs,
        this.host.onTimer(() => {
          if (claims.get(instance) === claim && claim.reclaim === null) claims.delete(instance);
        }),
        { name: `static member id claim ${instance}` },
      );
      claims.set(instance, claim);
    }
    join.callback(joinError(mappedMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    return ANSWERED;
  }

  /** A JoinGroup with a member id and an instance id, before Kafka's member validation. */
  memberJoinWithId(group: ClassicGroup, join: MemberJoinRequest): Continue | Answered {
    const instance = join.groupInstanceId;
    if (instance === null) return CONTINUE;
    const claim = this.state.peek(group)?.claims.get(instance);
    if (claim && claim.memberId === join.memberId) {
      if (claim.reclaim === null) {
        if (claim.oldAlive) {
          this.deleteClaim(group, claim);
          this.refuseDuplicate(group, join, 'the running member made a request after the id was handed out');
          return ANSWERED;
        }
        // Parked until the running incarnation proves alive or its session expires.
        claim.reclaim = join;
        claim.timer?.cancel();
        claim.timer = null;
        return ANSWERED;
      }
      // A second JoinGroup under the claimed id: the running incarnation is alive and rejoining.
      this.deleteClaim(group, claim);
      this.refuseDuplicate(group, claim.reclaim, 'the running member sent a JoinGroup too');
      return CONTINUE;
    }
    if (!group.hasStaticMember(instance)) {
      this.duplicate(group, 'JoinGroup', join.memberId, instance, null, `JoinGroup with member id ${join.memberId} but group.instance.id ${instance} is new`);
      join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
      return ANSWERED;
    }
    return CONTINUE;
  }

  /** A pending (MEMBER_ID_REQUIRED) member id with an instance id: Kafka throws; the draft calls it a duplicate. */
  pendingMemberJoinWithInstanceId(group: ClassicGroup, join: MemberJoinRequest): Answered {
    this.duplicate(group, 'JoinGroup', join.memberId, join.groupInstanceId, group.currentStaticMemberId(join.groupInstanceId!) ?? null, `JoinGroup with the pending dynamic member id ${join.memberId} and group.instance.id ${join.groupInstanceId}`);
    join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
    return ANSWERED;
  }

  // --- any request of a known member -------------------------------------------------------------

  /** Kafka answered FENCED_INSTANCE_ID (ids disagree with the map): name it as the draft does. */
  memberFenced(group: ClassicGroup, memberId: string, groupInstanceId: string, op: MemberOperation): Continue {
    const mapped = group.currentStaticMemberId(groupInstanceId) ?? null;
    this.draftError(group, 'DUPLICATE_STATIC_MEMBER', op, memberId, groupInstanceId, mapped, `${op} from member ${memberId} with group.instance.id ${groupInstanceId}, which is mapped to ${mapped ?? 'nobody'}`);
    return CONTINUE;
  }

  /** The running incarnation is alive: whoever claimed its id is a second process. */
  memberActive(group: ClassicGroup, memberId: string, op: Exclude<MemberOperation, 'JoinGroup' | 'LeaveGroup'>): Continue {
    if (!group.has(memberId)) return CONTINUE;
    const instance = group.get(memberId).groupInstanceId;
    if (instance === null) return CONTINUE;
    const claim = this.state.peek(group)?.claims.get(instance);
    if (!claim || claim.memberId !== memberId) return CONTINUE;
    if (claim.reclaim) {
      this.deleteClaim(group, claim);
      this.refuseDuplicate(group, claim.reclaim, `a ${op} from the running member arrived while its JoinGroup was held`);
    } else {
      claim.oldAlive = true;
    }
    return CONTINUE;
  }

  /** The draft's commit rules: the error to answer, or Kafka's own checks. */
  offsetCommit(group: ClassicGroup, c: CommitIdentity): Continue | Override<number> {
    if (group.is('Dead')) return CONTINUE;
    if (c.generationId < 0 && group.is('Empty')) return CONTINUE; // admin/manual commit: no member checks
    if (!(c.generationId >= 0 || c.memberId !== '' || c.groupInstanceId !== null)) return CONTINUE;
    const found = checkStaticCommit(
      {
        currentStaticMemberId: (i) => group.currentStaticMemberId(i),
        instanceOf: (m) => (group.has(m) ? group.get(m).groupInstanceId : undefined),
      },
      c.memberId,
      c.groupInstanceId,
      c.canCarryInstanceId,
    );
    if (!found) return CONTINUE;
    this.draftError(group, found.draftError, c.operation, c.memberId, c.groupInstanceId, found.mappedMemberId, found.description);
    if (found.errorCode === ErrorCode.FENCED_INSTANCE_ID && c.groupInstanceId !== null) {
      this.host.engine.fenced(group, c.memberId, c.groupInstanceId, c.operation);
    }
    return override(found.errorCode);
  }

  // --- the rebalance engine ----------------------------------------------------------------------

  /**
   * The claimed member's session expired: the running incarnation is gone, and the claimant (a
   * restart, after all) takes its place.
   */
  sessionExpired(group: ClassicGroup, member: GroupMember): Continue | Answered {
    const instance = member.groupInstanceId;
    if (instance === null) return CONTINUE;
    const claim = this.state.peek(group)?.claims.get(instance);
    if (!claim || claim.memberId !== member.memberId) return CONTINUE;
    this.deleteClaim(group, claim);
    if (!claim.reclaim) return CONTINUE;
    this.host.resumeJoin(group, claim.reclaim, true);
    return ANSWERED;
  }

  /**
   * During a rebalance the running incarnation sends JoinGroups too, so a claim whose claimant has
   * not come back yet can no longer be told apart: drop it.
   */
  rebalancePreparing(group: ClassicGroup): Continue {
    const claims = this.state.peek(group)?.claims;
    if (claims) for (const claim of [...claims.values()]) if (claim.reclaim === null) this.deleteClaim(group, claim);
    return CONTINUE;
  }

  /** The member it claimed is gone: the claimant starts over (MemberId "", a new instance). */
  memberRemoved(group: ClassicGroup, member: GroupMember): Continue {
    const instance = member.groupInstanceId;
    if (instance === null) return CONTINUE;
    const claim = this.state.peek(group)?.claims.get(instance);
    if (claim && claim.memberId === member.memberId) {
      this.deleteClaim(group, claim);
      claim.reclaim?.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    }
    return CONTINUE;
  }

  staticMembershipDropping(group: ClassicGroup): Continue {
    this.closeClaims(group);
    return CONTINUE;
  }

  override settingsChanged(group: ClassicGroup, _before: PolicyConfig, after: PolicyConfig): void {
    if (!after[this.name].enabled) this.closeClaims(group);
  }

  override stopTimers(group: ClassicGroup): void {
    for (const c of this.state.peek(group)?.claims.values() ?? []) {
      c.timer?.cancel();
      c.timer = null;
    }
  }

  // --- claims and draft errors -------------------------------------------------------------------

  private draftError(
    group: ClassicGroup,
    draftError: DraftErrorName,
    op: MemberOperation,
    memberId: string,
    groupInstanceId: string | null,
    mappedMemberId: string | null,
    description: string,
  ): void {
    const errorCode = DRAFT_ERROR_CODES[draftError];
    this.host.emit({
      type: 'draft-error',
      groupId: group.groupId,
      policy: 'kip345-draft-errors',
      draftError,
      errorCode,
      errorName: errorName(errorCode),
      operation: op,
      memberId,
      groupInstanceId,
      mappedMemberId,
      description,
    });
  }

  private duplicate(group: ClassicGroup, op: MemberOperation, memberId: string, instance: string | null, mapped: string | null, description: string): void {
    this.draftError(group, 'DUPLICATE_STATIC_MEMBER', op, memberId, instance, mapped, description);
    if (instance !== null) this.host.engine.fenced(group, memberId, instance, op);
  }

  /** The claimant turned out to be a second process: DUPLICATE_STATIC_MEMBER → FENCED_INSTANCE_ID. */
  private refuseDuplicate(group: ClassicGroup, join: MemberJoinRequest, evidence: string): void {
    const instance = join.groupInstanceId!;
    this.duplicate(group, 'JoinGroup', join.memberId, instance, group.currentStaticMemberId(instance) ?? null, `group.instance.id ${instance} is held by a live member (${evidence}): the newcomer is a duplicate`);
    join.callback(joinError(join.memberId, ErrorCode.FENCED_INSTANCE_ID));
  }

  private deleteClaim(group: ClassicGroup, claim: Claim): void {
    claim.timer?.cancel();
    claim.timer = null;
    const claims = this.state.of(group).claims;
    if (claims.get(claim.groupInstanceId) === claim) claims.delete(claim.groupInstanceId);
  }

  /** Ends every claim; parked claimants start over (UNKNOWN_MEMBER_ID → they rejoin with MemberId ""). */
  private closeClaims(group: ClassicGroup): void {
    for (const claim of [...(this.state.peek(group)?.claims.values() ?? [])]) {
      this.deleteClaim(group, claim);
      claim.reclaim?.callback(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }
}
