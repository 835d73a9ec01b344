// Request and response shapes for the coordinator's operations. They mirror the Kafka message specs
// (clients/src/main/resources/common/message/*.json) with lowerCamelCase field names, so the codec
// layer can hand decoded messages over almost unchanged. ThrottleTimeMs is absent everywhere:
// throttling is not the coordinator's business.
//
// Fields that only exist from some version on are optional here; the coordinator ignores them below
// that version (e.g. a GroupInstanceId on JoinGroup v4 is treated as null), exactly as Kafka never
// sees them on the wire.

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** Who sent the request. `clientHost` is shown verbatim by DescribeGroups; Kafka renders it as
 *  `InetAddress.toString()`, i.e. with a leading slash: "/127.0.0.1". */
export interface ClientContext {
  clientId: string;
  clientHost: string;
  /** The connection's authenticated principal ("User:alice"), for the event stream; absent in unit tests. */
  principal?: string;
}

// ---------------------------------------------------------------------------------------------
// JoinGroup (API key 11), v0–v9

export interface JoinGroupRequestProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  /** v1+. At v0 Kafka uses the session timeout instead. */
  rebalanceTimeoutMs?: number;
  /** "" = unknown member. */
  memberId: string;
  /** v5+. */
  groupInstanceId?: string | null;
  protocolType: string;
  protocols: JoinGroupRequestProtocol[];
  /** v8+ (KIP-800). Informational only. */
  reason?: string | null;
}

export interface JoinGroupResponseMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResponse {
  errorCode: number;
  generationId: number;
  /** v7+ on the wire. */
  protocolType: string | null;
  /** Normalised per version by the coordinator: "" below v7, null instead of "" from v7. */
  protocolName: string | null;
  leader: string;
  /** v9+; always false below v9. */
  skipAssignment: boolean;
  memberId: string;
  /** Only the leader receives the member list. */
  members: JoinGroupResponseMember[];
}

// ---------------------------------------------------------------------------------------------
// SyncGroup (API key 14), v0–v5

export interface SyncGroupRequestAssignment {
  memberId: string;
  assignment: Buffer;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  /** v3+. */
  groupInstanceId?: string | null;
  /** v5+; mandatory (non-null) from v5. */
  protocolType?: string | null;
  /** v5+; mandatory (non-null) from v5. */
  protocolName?: string | null;
  assignments: SyncGroupRequestAssignment[];
}

export interface SyncGroupResponse {
  errorCode: number;
  /** v5+ on the wire. */
  protocolType: string | null;
  /** v5+ on the wire. */
  protocolName: string | null;
  assignment: Buffer;
}

// ---------------------------------------------------------------------------------------------
// Heartbeat (API key 12), v0–v4

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  /** v3+. */
  groupInstanceId?: string | null;
}

export interface HeartbeatResponse {
  errorCode: number;
}

// ---------------------------------------------------------------------------------------------
// LeaveGroup (API key 13), v0–v5

export interface LeaveGroupMemberIdentity {
  memberId: string;
  groupInstanceId?: string | null;
  /** v5+ (KIP-800). Informational only. */
  reason?: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  /** v0–v2 only. */
  memberId?: string;
  /** v3+ only. */
  members?: LeaveGroupMemberIdentity[];
}

export interface LeaveGroupMemberResponse {
  memberId: string;
  groupInstanceId: string | null;
  errorCode: number;
}

export interface LeaveGroupResponse {
  /** Below v3 this carries the single member's error when there is no top-level error. */
  errorCode: number;
  /** Empty below v3. */
  members: LeaveGroupMemberResponse[];
}

// ---------------------------------------------------------------------------------------------
// OffsetCommit (API key 8), v1–v9 (v0 is a ZooKeeper path in Kafka 3.9, handled by KafkaApis)

export interface OffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: bigint;
  /** v6+; -1 = none. */
  committedLeaderEpoch?: number;
  /** v1 only; -1 = "now". */
  commitTimestamp?: bigint;
  committedMetadata: string | null;
}

export interface OffsetCommitRequestTopic {
  name: string;
  partitions: OffsetCommitRequestPartition[];
}

export interface OffsetCommitRequest {
  groupId: string;
  /** v1+; -1 = not a group member (simple/admin commit). */
  generationIdOrMemberEpoch?: number;
  /** v1+. */
  memberId?: string;
  /** v7+. */
  groupInstanceId?: string | null;
  /** v2–v4; -1 = broker default. */
  retentionTimeMs?: bigint;
  topics: OffsetCommitRequestTopic[];
}

export interface OffsetCommitResponsePartition {
  partitionIndex: number;
  errorCode: number;
}

export interface OffsetCommitResponseTopic {
  name: string;
  partitions: OffsetCommitResponsePartition[];
}

export interface OffsetCommitResponse {
  topics: OffsetCommitResponseTopic[];
}

// ---------------------------------------------------------------------------------------------
// TxnOffsetCommit (API key 28): member validation is shared with OffsetCommit, and the pending
// transactional offsets are what OffsetFetch's RequireStable reports as UNSTABLE_OFFSET_COMMIT.

export interface TxnOffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch?: number;
  committedMetadata: string | null;
}

export interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  producerId: bigint;
  producerEpoch: number;
  /** v3+. */
  generationId?: number;
  /** v3+. */
  memberId?: string;
  /** v3+. */
  groupInstanceId?: string | null;
  topics: { name: string; partitions: TxnOffsetCommitRequestPartition[] }[];
}

export type TxnOffsetCommitResponse = OffsetCommitResponse;

// ---------------------------------------------------------------------------------------------
// OffsetFetch (API key 9): one group (the v8+ `Groups[]` element; v0–v7 requests map onto it).

export interface OffsetFetchRequestTopic {
  name: string;
  partitionIndexes: number[];
}

export interface OffsetFetchRequestGroup {
  groupId: string;
  /** null = all committed partitions of the group (v2+). */
  topics: OffsetFetchRequestTopic[] | null;
  /** v7+. */
  requireStable?: boolean;
}

export interface OffsetFetchResponsePartition {
  partitionIndex: number;
  /** -1 = no committed offset. */
  committedOffset: bigint;
  /** -1 = none. */
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponseTopic {
  name: string;
  partitions: OffsetFetchResponsePartition[];
}

export interface OffsetFetchResponseGroup {
  groupId: string;
  topics: OffsetFetchResponseTopic[];
  errorCode: number;
}

// ---------------------------------------------------------------------------------------------
// DescribeGroups (API key 15), ListGroups (16), DeleteGroups (42), OffsetDelete (47)

export interface DescribedGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberMetadata: Buffer;
  memberAssignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: DescribedGroupMember[];
  /** Filled in by the request handler when IncludeAuthorizedOperations is set. */
  authorizedOperations: number;
}

export interface ListGroupsRequest {
  /** v4+; case-insensitive state names. */
  statesFilter?: string[] | null;
  /** v5+; case-insensitive group types ("classic"). */
  typesFilter?: string[] | null;
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  /** v4+ on the wire. */
  groupState: string;
  /** v5+ on the wire. */
  groupType: string;
}

export interface ListGroupsResponse {
  errorCode: number;
  groups: ListedGroup[];
}

export interface DeleteGroupsRequest {
  groupsNames: string[];
}

export interface DeletableGroupResult {
  groupId: string;
  errorCode: number;
}

export interface DeleteGroupsResponse {
  results: DeletableGroupResult[];
}

export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitions: { partitionIndex: number }[] }[];
}

export interface OffsetDeleteResponse {
  errorCode: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}
