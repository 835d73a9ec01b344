// The strict-clients checks of the classic group protocol, called by the JoinGroup, Heartbeat
// and LeaveGroup handlers while strict mode is on. What a correct client does is the Java
// client's AbstractCoordinator (Kafka 3.9):
//
// - MEMBER_ID_REQUIRED (KIP-394, JoinGroup v4+): JoinGroupResponseHandler takes the member id
//   from the answer and rejoins with it at once. An empty member id again on the same connection,
//   with the handed id unused, is a client that ignored it; Kafka's doNewMemberJoinGroup then
//   hands out yet another pending member id. Static members (group.instance.id) never get
//   MEMBER_ID_REQUIRED. The check is per connection, not per client id: clients share client ids
//   (kafkajs' default "kafkajs", librdkafka's "rdkafka"), so two members of one group with the
//   same client id would look like one member ignoring its id.
// - Heartbeat generation: a client heartbeats with the generation of its last successful
//   JoinGroup answer, and HeartbeatThread sends none while its own JoinGroup is under way
//   (MemberState PREPARING_REBALANCE, hasNotJoinedGroup). The broker handles one request at a time
//   per connection, and a member that does not rejoin in time is removed from the group (it then
//   gets UNKNOWN_MEMBER_ID), so every member of generation G was answered G before it could
//   heartbeat again. ILLEGAL_GENERATION, which GroupCoordinator.handleHeartbeat answers only to a
//   member id the group knows whose generation is not the group's, is therefore always a client
//   mistake: typically a heartbeat still carrying the generation from before a rebalance it was
//   told of (REBALANCE_IN_PROGRESS) and rejoined.
import { ErrorCode, type HeartbeatRequest, type JoinGroupRequest, type JoinGroupResponse } from '../../codec/index.js';
import type { RequestContext } from '../handlers/types.js';

/** Before a JoinGroup runs: an empty member id where the connection holds an unused handed one. */
export function checkJoinGroupRequest(ctx: RequestContext, req: JoinGroupRequest): void {
  const findings = ctx.services.clientFindings;
  if (req.memberId !== '') {
    findings.groups.clearPendingMemberId(ctx.connection, req.groupId);
    return;
  }
  if (ctx.apiVersion < 4 || (ctx.apiVersion >= 5 && (req.groupInstanceId ?? null) !== null)) return;
  const pending = findings.groups.pendingMemberId(ctx.connection, req.groupId);
  if (pending === undefined) return;
  findings.record(
    'member-id-required-ignored',
    ctx.connection,
    ctx.header,
    `group ${req.groupId}: an empty member id, though this connection's JoinGroup (correlation id ${pending.correlationId}) was answered MEMBER_ID_REQUIRED with member id ${pending.memberId}`,
  );
}

/** After a JoinGroup was answered: remember a MEMBER_ID_REQUIRED's member id for the connection. */
export function noteJoinGroupAnswer(ctx: RequestContext, req: JoinGroupRequest, res: JoinGroupResponse): void {
  if (req.memberId !== '') return;
  const groups = ctx.services.clientFindings.groups;
  if (res.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
    groups.setPendingMemberId(ctx.connection, req.groupId, { memberId: res.memberId, correlationId: ctx.header.correlationId });
  } else {
    groups.clearPendingMemberId(ctx.connection, req.groupId);
  }
}

/** A LeaveGroup gives up any handed member id: an empty one after it is a fresh member. */
export function noteLeaveGroup(ctx: RequestContext, groupId: string): void {
  ctx.services.clientFindings.groups.clearPendingMemberId(ctx.connection, groupId);
}

/** After a Heartbeat was answered: ILLEGAL_GENERATION (see above). */
export function checkHeartbeatAnswer(ctx: RequestContext, req: HeartbeatRequest, errorCode: number): void {
  if (errorCode !== ErrorCode.ILLEGAL_GENERATION) return;
  const group = ctx.services.groups.group(req.groupId);
  const now = group === undefined ? 'the group is gone' : `the group is at generation ${group.generationId} (${group.state})`;
  ctx.services.clientFindings.record(
    'heartbeat-stale-generation',
    ctx.connection,
    ctx.header,
    `group ${req.groupId}: member ${req.memberId} sent generation ${req.generationId}; ${now}`,
  );
}
