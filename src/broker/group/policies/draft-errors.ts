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

import { ErrorCode } from '../errors.js';
import type { DraftErrorName } from './types.js';

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
