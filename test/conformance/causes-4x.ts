// Known differences between kmock and a Kafka 4.x reference broker, with their causes in Kafka's
// 4.x source. kmock's default behaviour is Kafka 3.9's (causes.ts explains every difference
// against 3.9.1); where 4.x changed the protocol or the group coordinator, kmock keeps 3.9's
// answer, and each entry here says what 4.x does instead, where, and why kmock does not follow.
//
// Used by suite.ts when the reference target is a kafka-4.* release: an entry here is tried
// first; a difference none of them explains falls back to causes.ts (error-message text, kmock's
// deliberate choices and known kmock bugs hold against both lines). Against Kafka 3.9 this list
// is never consulted, so a 3.9 run is classified exactly as before.
//
// Sources: apache/kafka at 3.9 (core/.../coordinator/group/GroupCoordinator.scala,
// GroupMetadata.scala, MemberMetadata.scala) vs trunk/4.x (group-coordinator/.../
// GroupMetadataManager.java, OffsetMetadataManager.java, GroupCoordinatorService.java,
// classic/ClassicGroupMember.java), checked against the 4.4.0 jars' bytecode; the message specs
// (clients/src/main/resources/common/message/*.json) of 3.9.1, 4.0.0 and 4.4.0.
import { assertScoped, classify, classifyWith, type Cause, type CauseContext, type ClassifiedDifference } from './causes.js';
import { API_39_TXN, CAUSES_4X_TXN, REMOVED_IN_4_TXN } from './causes-4x-txn.js';
import { API_39_CONFIGS, CAUSES_4X_CONFIGS } from './causes-4x-configs.js';
import type { Difference, Json, JsonObject, NormalisedTranscript, TranscriptEvent } from './runner.js';
import { canonical, resolve } from './transcript-paths.js';

export type { CauseContext };

/** A Cause with a `when` condition (the field lives on Cause now). */
export type Cause4x = Cause;

/** A reference target that is a Kafka 4.x release ("kafka-4.0.0", "kafka-4.4.0"). */
export function isKafka4x(reference: string | undefined): reference is string {
  return reference !== undefined && /^kafka-4\./.test(reference);
}

// ---------------------------------------------------------------------------------------------
// Protocol facts

/** Version ranges Kafka 3.9.1 advertises for the APIs kmock serves (kmock advertises the same). */
const API_39: Record<string, { key: number; min: number; max: number }> = {
  Produce: { key: 0, min: 0, max: 11 },
  Fetch: { key: 1, min: 0, max: 17 },
  ListOffsets: { key: 2, min: 0, max: 9 },
  Metadata: { key: 3, min: 0, max: 12 },
  OffsetCommit: { key: 8, min: 0, max: 9 },
  OffsetFetch: { key: 9, min: 0, max: 9 },
  FindCoordinator: { key: 10, min: 0, max: 6 },
  JoinGroup: { key: 11, min: 0, max: 9 },
  Heartbeat: { key: 12, min: 0, max: 4 },
  LeaveGroup: { key: 13, min: 0, max: 5 },
  SyncGroup: { key: 14, min: 0, max: 5 },
  DescribeGroups: { key: 15, min: 0, max: 5 },
  ListGroups: { key: 16, min: 0, max: 5 },
  SaslHandshake: { key: 17, min: 0, max: 1 },
  ApiVersions: { key: 18, min: 0, max: 4 },
  CreateTopics: { key: 19, min: 0, max: 7 },
  DeleteTopics: { key: 20, min: 0, max: 6 },
  DeleteRecords: { key: 21, min: 0, max: 2 },
  InitProducerId: { key: 22, min: 0, max: 5 },
  ...API_39_TXN,
  DescribeAcls: { key: 29, min: 0, max: 3 },
  CreateAcls: { key: 30, min: 0, max: 3 },
  DeleteAcls: { key: 31, min: 0, max: 3 },
  DescribeConfigs: { key: 32, min: 0, max: 4 },
  ...API_39_CONFIGS,
  AlterReplicaLogDirs: { key: 34, min: 0, max: 2 },
  DescribeLogDirs: { key: 35, min: 0, max: 4 },
  CreateDelegationToken: { key: 38, min: 0, max: 3 },
  RenewDelegationToken: { key: 39, min: 0, max: 2 },
  ExpireDelegationToken: { key: 40, min: 0, max: 2 },
  DescribeDelegationToken: { key: 41, min: 0, max: 3 },
  SaslAuthenticate: { key: 36, min: 0, max: 2 },
  CreatePartitions: { key: 37, min: 0, max: 3 },
  DeleteGroups: { key: 42, min: 0, max: 2 },
  OffsetDelete: { key: 47, min: 0, max: 0 },
  DescribeCluster: { key: 60, min: 0, max: 1 },
};
const API_39_BY_KEY = new Map(Object.values(API_39).map((r) => [r.key, r]));

/**
 * KIP-896: the highest version of each API (of those kmock serves) that Kafka 4.0 removed. A
 * request at such a version fails to parse on 4.x (RequestContext.parseRequest ->
 * InvalidRequestException) and the broker closes the connection.
 */
const REMOVED_IN_4: Record<string, number> = {
  Produce: 2,
  Fetch: 3,
  ListOffsets: 0,
  OffsetCommit: 1,
  OffsetFetch: 0,
  CreateTopics: 1,
  DeleteTopics: 0,
  DescribeAcls: 0,
  CreateAcls: 0,
  DeleteAcls: 0,
  DescribeConfigs: 0,
  AlterReplicaLogDirs: 0,
  DescribeLogDirs: 0,
  CreateDelegationToken: 0,
  RenewDelegationToken: 0,
  ExpireDelegationToken: 0,
  DescribeDelegationToken: 0,
  ...REMOVED_IN_4_TXN,
};

function removedIn4x(api: string | undefined, version: number | undefined, reference: string): boolean {
  if (api === undefined || version === undefined) return false;
  // 4.0.0 also removed JoinGroup v0-v1; 4.0.1 and 4.1.0 put them back (KAFKA-19444).
  if (api === 'JoinGroup' && reference === 'kafka-4.0.0') return version <= 1;
  const max = REMOVED_IN_4[api];
  return max !== undefined && version <= max;
}

function newerThan39(api: string | undefined, version: number | undefined): boolean {
  if (api === undefined || version === undefined) return false;
  const r = API_39[api];
  return r !== undefined && version > r.max;
}

/** Topic configs Kafka 3.9 describes and 4.0 removed from LogConfig (KIP-724, KIP-937). */
const TOPIC_CONFIGS_REMOVED_IN_4 = new Set(['message.downconversion.enable', 'message.format.version', 'message.timestamp.difference.max.ms']);
/** API keys Kafka 4.x added after 3.9 that a 4.4.0 broker listener serves (4.4.0's *Request.json specs). */
const API_KEYS_ADDED_IN_4X = new Set([76, 77, 78, 79, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94]);

/** Topic configs later 4.x releases added (present in 4.4.0's LogConfig, absent from 4.0.0's). */
const TOPIC_CONFIGS_ADDED_IN_4X = new Set([
  'errors.deadletterqueue.group.enable',
  'max.decompressed.message.bytes',
  'remote.copy.lag.bytes',
  'remote.copy.lag.ms',
]);
/** Per config name, the fields whose values legitimately differ (see kafka-4x-topic-configs). */
const TOPIC_CONFIG_FIELDS_CHANGED_IN_4X: Record<string, string[]> = {
  'message.timestamp.after.max.ms': ['value', 'synonyms'],
  'min.insync.replicas': ['configSource', 'synonyms'],
};

// ---------------------------------------------------------------------------------------------
// Transcript helpers

function events(ctx: CauseContext, i: number): [TranscriptEvent, TranscriptEvent] | undefined {
  const t = ctx.transcripts;
  if (t === undefined) return undefined;
  const a = t[0].events[i];
  const b = t[1].events[i];
  return a !== undefined && b !== undefined ? [a, b] : undefined;
}

/**
 * The first event on the difference's connection, up to the difference's own, where exactly
 * one side saw the connection closed: what closed it (later events on it are "already closed").
 */
function firstOneSidedClose(d: Difference, ctx: CauseContext): [TranscriptEvent, TranscriptEvent] | undefined {
  for (let i = 0; i <= d.event; i++) {
    const e = events(ctx, i);
    if (e === undefined || e[0].conn !== d.conn || e[1].conn !== d.conn) continue;
    if ((e[0].kind === 'closed') !== (e[1].kind === 'closed')) return e;
  }
  return undefined;
}

/** The difference is "one side closed, the other answered" (the kind or the missing response). */
function isCloseDifference(d: Difference, closedSide: 'kmock' | 'kafka'): boolean {
  const [closed, other] = closedSide === 'kafka' ? [d.b, d.a] : [d.a, d.b];
  if (d.path === 'kind') return closed === 'closed' && other !== 'closed';
  if (d.path === 'response') return closed === undefined && other !== undefined;
  return false;
}

/**
 * The first event of the run where Kafka closed the connection and kmock did not, on a request
 * at a version 4.x removed: from there on the two transcripts may also fall out of step (a
 * request parked on kmock is closed on Kafka, so later events are recorded in another order).
 */
function firstRemovedVersionClose(ctx: CauseContext): number | undefined {
  const t = ctx.transcripts;
  if (t === undefined) return undefined;
  for (let i = 0; i < Math.min(t[0].events.length, t[1].events.length); i++) {
    const [a, b] = [t[0].events[i]!, t[1].events[i]!];
    if (b.kind === 'closed' && a.kind !== 'closed' && a.conn === b.conn && removedIn4x(b.api, b.version, ctx.reference ?? '')) return i;
  }
  return undefined;
}

/** Kafka's side of the event has no answer to compare: closed, nothing outstanding, or absent. */
const UNANSWERED_KINDS = new Set(['closed', 'nothing-outstanding']);

/**
 * The topic a difference is about ("response.topics[name=off]…", "responses[topic=off]…") was
 * created on kmock but refused by 4.x because the request set a topic config 4.0 removed:
 * CreateTopics answered INVALID_CONFIG (40) "Unknown topic config name" on Kafka, NONE on kmock.
 */
function topicRefusedFor4xConfig(d: Difference, ctx: CauseContext): boolean {
  const t = ctx.transcripts;
  const m = /\[(?:name|topic)=([^\]]+)\]/.exec(d.path);
  if (t === undefined || m === null) return false;
  const topic = m[1]!;
  const entry = (r: Json | undefined, list: string) => {
    const l = r !== null && typeof r === 'object' && !Array.isArray(r) ? r[list] : undefined;
    return Array.isArray(l) ? l.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && x.name === topic) : undefined;
  };
  for (let i = 0; i <= d.event; i++) {
    const [a, b] = [t[0].events[i], t[1].events[i]];
    if (a?.api !== 'CreateTopics' || b?.api !== 'CreateTopics') continue;
    const req = entry(b.request, 'topics');
    const configs = req !== null && typeof req === 'object' && !Array.isArray(req) ? req.configs : undefined;
    const setsRemoved = Array.isArray(configs) && configs.some((c) => c !== null && typeof c === 'object' && !Array.isArray(c) && TOPIC_CONFIGS_REMOVED_IN_4.has(String(c.name)));
    const [ra, rb] = [entry(a.response, 'topics'), entry(b.response, 'topics')];
    const code = (r: Json | undefined) => (r !== null && typeof r === 'object' && !Array.isArray(r) ? r.errorCode : undefined);
    if (setsRemoved && code(ra) === 0 && code(rb) === 40) return true;
  }
  return false;
}

/**
 * A topic's config list (CreateTopics v5+ topics[].configs, DescribeConfigs results[].configs)
 * differs only by 4.x's config changes: drop the configs 4.0 removed from kmock's list and those
 * 4.x added from Kafka's, blank the fields 4.x changed (and documentation, free text), compare.
 */
function configListsDifferOnlyBy4x(d: Difference, ctx: CauseContext): boolean {
  const m = /^response(\..*\.configs)(?:\.length|\[.*)?$/.exec(d.path);
  const e = events(ctx, d.event);
  if (m === null || e === undefined) return false;
  const lists = [resolve(e[0].response, m[1]!), resolve(e[1].response, m[1]!)];
  if (!lists.every(Array.isArray)) return false;
  const norm = (list: Json[], drop: Set<string>) =>
    list
      .filter((c) => !(c !== null && typeof c === 'object' && !Array.isArray(c) && drop.has(String(c.name))))
      .map((c) => {
        if (c === null || typeof c !== 'object' || Array.isArray(c)) return canonical(c);
        const copy: JsonObject = { ...c };
        delete copy.documentation;
        for (const f of TOPIC_CONFIG_FIELDS_CHANGED_IN_4X[String(c.name)] ?? []) delete copy[f];
        return canonical(copy);
      });
  const a = norm(lists[0] as Json[], TOPIC_CONFIGS_REMOVED_IN_4);
  const b = norm(lists[1] as Json[], TOPIC_CONFIGS_ADDED_IN_4X);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// ---------------------------------------------------------------------------------------------
// Group helpers (LeaveGroup removals, pending members), read from the transcripts

function obj(v: Json | undefined): JsonObject | undefined {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

/** The step that sent the request an event answers (a parked request's answer is recorded later). */
function sentAt(e: TranscriptEvent): number {
  return e.sendStep ?? e.step;
}

function errorCodeOf(e: TranscriptEvent | undefined): Json | undefined {
  return e?.kind === 'response' ? obj(e.response)?.errorCode : undefined;
}

/**
 * The members a LeaveGroup answered with NONE, in request order: v0-v2 the one member of the
 * request (top-level NONE), v3+ each entry answered NONE (identified by memberId, or "" and its
 * groupInstanceId when removed by instance id). Undefined when the event is no answered LeaveGroup.
 */
function leaveRemovals(e: TranscriptEvent | undefined): Array<{ memberId: string; instance: string | null }> | undefined {
  if (e?.api !== 'LeaveGroup' || e.kind !== 'response') return undefined;
  const [req, res] = [obj(e.request), obj(e.response)];
  if (req === undefined || res === undefined || res.errorCode !== 0) return undefined;
  if (!Array.isArray(res.members)) return typeof req.memberId === 'string' ? [{ memberId: req.memberId, instance: null }] : undefined;
  return res.members
    .map(obj)
    .filter((m): m is JsonObject => m !== undefined && m.errorCode === 0)
    .map((m) => ({ memberId: String(m.memberId), instance: typeof m.groupInstanceId === 'string' ? m.groupInstanceId : null }));
}

/** Whether a removal names this member (by member id, or by instance id when removed by instance). */
function removalNames(r: { memberId: string; instance: string | null }, memberId: Json | undefined, instance: Json | undefined): boolean {
  return r.memberId !== '' ? r.memberId === memberId : r.instance !== null && r.instance === instance;
}

/**
 * Whether `memberId` is a pending member at event `at` of transcript `side`: a JoinGroup before it
 * handed the id out with MEMBER_ID_REQUIRED (79) and no JoinGroup with that id since was parked or
 * answered NONE (the member never joined).
 */
function pendingAt(ctx: CauseContext, side: 0 | 1, memberId: string, at: number): boolean {
  const list = ctx.transcripts![side].events;
  let pending = false;
  for (let i = 0; i < at; i++) {
    const e = list[i]!;
    if (e.api !== 'JoinGroup') continue;
    if (e.kind === 'response' && obj(e.response)?.errorCode === 79 && obj(e.response)?.memberId === memberId) pending = true;
    else if (obj(e.request)?.memberId === memberId && (e.kind === 'parked' || errorCodeOf(e) === 0)) pending = false;
  }
  return pending;
}

/**
 * The last LeaveGroup before event `before`, answered alike by both brokers, that removed a
 * pending member (a member id handed out with MEMBER_ID_REQUIRED that never joined), with no
 * JoinGroup parked or answered NONE and no other member removed between it and `before`:
 * the event index, or undefined.
 */
function lastPendingMemberLeave(ctx: CauseContext, before: number): number | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const e = events(ctx, i);
    if (e === undefined) return undefined;
    const removed = leaveRemovals(e[0]);
    if (removed !== undefined && removed.length > 0) {
      if (canonical(e[0].response) !== canonical(e[1].response) || canonical(e[0].request) !== canonical(e[1].request)) return undefined;
      const pending = removed.filter((r) => r.memberId !== '' && pendingAt(ctx, 0, r.memberId, i) && pendingAt(ctx, 1, r.memberId, i));
      // Only pending members removed here (a joined member's leave rebalances on 3.9 too).
      return pending.length > 0 && pending.length === removed.length ? i : undefined;
    }
    if (e[0].api === 'JoinGroup' && (e[0].kind === 'parked' || errorCodeOf(e[0]) === 0)) return undefined;
  }
  return undefined;
}

/** The group state of the group a DescribeGroups diff path names ("response.groups[groupId=g]…"). */
function describedState(e: TranscriptEvent, path: string): Json | undefined {
  const g = /^response(\.groups\[[^\]]+\])/.exec(path);
  return g === null ? undefined : obj(resolve(e.response, g[1]!))?.groupState;
}

/**
 * A difference at the first event after a pending member's leave that 4.x's rebalance explains:
 * kmock (3.9) kept the group Stable / CompletingRebalance, 4.x moved it to PreparingRebalance, so
 * a heartbeat or SyncGroup gets REBALANCE_IN_PROGRESS, DescribeGroups says PreparingRebalance, and
 * a JoinGroup that 3.9 answers from the current generation parks on 4.x or completes the next one.
 */
function explainedByPendingLeave(d: Difference, ctx: CauseContext): boolean {
  const e = events(ctx, d.event);
  if (e === undefined) return false;
  const l = lastPendingMemberLeave(ctx, d.event);
  if (l === undefined) return false;
  // The request was sent after the leave (it is not a parked request the leave released).
  const leave = ctx.transcripts![0].events[l]!;
  if (sentAt(e[0]) <= sentAt(leave) || sentAt(e[1]) <= sentAt(leave)) return false;
  const [ra, rb] = [obj(e[0].response), obj(e[1].response)];
  switch (e[0].api) {
    case 'Heartbeat':
      return d.path === 'response.errorCode' && d.a === 0 && d.b === 27;
    case 'SyncGroup':
      if (rb?.errorCode !== 27 || ra?.errorCode === 27) return false;
      if (d.path === 'response.errorCode') return true;
      if (d.path === 'response.assignment') return d.b === '';
      return /^response\.(protocolType|protocolName)$/.test(d.path) && d.b === null;
    case 'DescribeGroups': {
      const [sa, sb] = [describedState(e[0], d.path), describedState(e[1], d.path)];
      if (sb !== 'PreparingRebalance' || (sa !== 'Stable' && sa !== 'CompletingRebalance')) return false;
      if (/\]\.groupState$/.test(d.path)) return true;
      // Stable on kmock: 3.9 describes the protocol and the members' metadata, 4.x (not Stable) neither.
      return sa === 'Stable' && /\]\.(protocolData|members\[[^\]]+\]\.memberMetadata)$/.test(d.path) && d.b === '';
    }
    case 'JoinGroup':
      // 3.9 answers at once; 4.x parks it until every member (pending ones too) has joined.
      if (d.path === 'kind') return d.a === 'response' && d.b === 'parked' && ra?.errorCode === 0;
      if (d.path === 'response') return e[1].kind === 'parked' && d.b === undefined && ra?.errorCode === 0;
      // 3.9 answers from the current generation; 4.x completes the next one.
      return (
        ra?.errorCode === 0 &&
        rb?.errorCode === 0 &&
        typeof ra.generationId === 'number' &&
        rb.generationId === ra.generationId + 1 &&
        /^response\.(generationId|leader|skipAssignment|members(\[memberId=[^\]]+\]|\.length))$/.test(d.path)
      );
    default:
      return false;
  }
}

/**
 * A difference about a member that a batch LeaveGroup (v3+) removed after another member of the
 * same batch, whose JoinGroup or SyncGroup was outstanding when the batch came: on 3.9 the first
 * removal already rebalanced or completed the join phase (so the later member's parked request
 * was answered, before its own removal), on 4.x the whole batch is removed before the group is
 * updated once (its parked SyncGroup is never answered, its parked JoinGroup gets
 * UNKNOWN_MEMBER_ID and the completed join no longer lists it).
 */
function explainedByBatchLeave(d: Difference, ctx: CauseContext): boolean {
  const e = events(ctx, d.event);
  if (e === undefined) return false;
  for (let i = d.event - 1; i >= 0; i--) {
    const l = events(ctx, i);
    if (l === undefined) return false;
    if (l[0].api !== 'LeaveGroup' || (l[0].version ?? 0) < 3) continue;
    const removed = leaveRemovals(l[0]);
    if (removed === undefined || removed.length < 2 || canonical(l[0].response) !== canonical(l[1].response)) continue;
    // The request the difference is about was sent before the batch and answered after it.
    if (sentAt(e[0]) >= sentAt(l[0]) || sentAt(e[1]) >= sentAt(l[1])) continue;
    const later = removed.slice(1);
    const [qa, ra, rb] = [obj(e[0].request), obj(e[0].response), obj(e[1].response)];
    const isLater = (memberId: Json | undefined, instance: Json | undefined) =>
      later.some((r) => removalNames(r, memberId, instance)) && !removalNames(removed[0]!, memberId, instance);
    if (e[0].api === 'SyncGroup') {
      if (!isLater(qa?.memberId, qa?.groupInstanceId) || ra?.errorCode !== 27) return false;
      return (d.path === 'kind' && d.a === 'response' && d.b === 'still-parked-at-end') || (d.path === 'response' && d.b === undefined);
    }
    if (e[0].api !== 'JoinGroup' || ra?.errorCode !== 0) return false;
    // The removed member's own parked join: answered on 3.9 (the join phase completed), UNKNOWN_MEMBER_ID on 4.x.
    if (isLater(ra.memberId, qa?.groupInstanceId)) return rb?.errorCode === 25 && /^response\./.test(d.path);
    // The completed join's member list (the leader's answer): 3.9 still lists the later-removed member.
    const m = /^response\.members\[memberId=([^\]]+)\]$/.exec(d.path);
    const entry = obj(d.a);
    return m !== null && rb?.errorCode === 0 && entry !== undefined && d.b === undefined && isLater(entry.memberId, entry.groupInstanceId);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The causes

export const CAUSES_4X: Cause[] = [
  {
    id: 'kafka-4x-new-apis',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^ApiVersions v/,
    path: /^response\.apiKeys\[apiKey=\d+\]$/,
    when: (d) => d.a === undefined && d.b !== undefined && API_KEYS_ADDED_IN_4X.has(Number(/apiKey=(\d+)/.exec(d.path)![1])),
    cause:
      'ApiVersions: APIs Kafka 4.x added after 3.9, served on a 4.4.0 broker listener (the *Request.json specs of 4.4.0, "listeners": ["broker"]): share groups (KIP-932: ShareGroupHeartbeat 76, ShareGroupDescribe 77, ShareFetch 78, ShareAcknowledge 79, the share-group state APIs 83-87, DescribeShareGroupOffsets 90, AlterShareGroupOffsets 91, DeleteShareGroupOffsets 92), streams groups (KIP-1071: StreamsGroupHeartbeat 88, StreamsGroupDescribe 89, StreamsGroupTopologyDescriptionUpdate 93) and UnregisterController 94. kmock serves Kafka 3.9\'s APIs.',
  },
  {
    id: 'kafka-4x-deleted-topic-keeps-empty-group',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testOffsetsOfDeletedTopicAreRemoved$/,
    request: /^(DescribeGroups|ListGroups) v\d+ \((describe|list-groups) after (delete|re-create)\)$/,
    path: /^response\.groups\[groupId=[^\]]+\](\.groupState)?$/,
    when: (d) => (d.path.endsWith('groupState') ? d.a === 'Dead' && d.b === 'Empty' : d.a === undefined && (d.b as JsonObject | null)?.groupState === 'Empty'),
    cause:
      'A simple group whose only offsets were those of a deleted topic: Kafka 3.9 drops the offsets and, in the same step, the group that is now Empty without offsets (GroupMetadataManager.cleanupGroupMetadata, called from GroupCoordinator.onPartitionsDeleted), so it is Dead and not listed. The 4.x coordinator only writes the offsets\' tombstones on the deletion (GroupCoordinatorService.onPartitionsDeleted -> OffsetMetadataManager.onPartitionsDeleted) and deletes empty groups in its periodic cleanup (GroupCoordinatorShard.cleanupGroupMetadata, every offsets.retention.check.interval.ms), so the group is still Empty right after. The offsets are gone on both. kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-broker-configs',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testDescribeConfigsForBrokerV2V3$/,
    request: /^DescribeConfigs v[23] /,
    path: /^response\.results\[\d+\]\.configs\[name=(min\.insync\.replicas|node\.id|process\.roles|log\.dir|num\.recovery\.threads\.per\.data\.dir|log\.message\.downconversion\.enable|log\.message\.format\.version|log\.message\.timestamp\.difference\.max\.ms|log\.message\.timestamp\.after\.max\.ms)\](\..+)?$/,
    when: (d) => {
      const m = /configs\[name=([^\]]+)\](.*)$/.exec(d.path)!;
      const [name, rest] = [m[1], m[2]];
      switch (name) {
        case 'log.message.downconversion.enable':
        case 'log.message.format.version':
        case 'log.message.timestamp.difference.max.ms':
          return rest === '' && d.b === undefined; // removed in 4.0
        case 'log.message.timestamp.after.max.ms':
          return /value$/.test(rest) && d.b === '3600000';
        case 'num.recovery.threads.per.data.dir':
          return /value$/.test(rest) && d.a === '1' && d.b === '2';
        case 'log.dir':
          return rest === '.configType' && d.a === 2 && d.b === 7;
        case 'node.id':
        case 'process.roles':
          // The DEFAULT synonym kmock (and 3.9) list; 4.4.0 has no default to list.
          return /^\.synonyms(\.length|\[1\])$/.test(rest) && (rest === '.synonyms.length' ? d.a === 2 && d.b === 1 : d.b === undefined);
        case 'min.insync.replicas':
          return (rest === '' && d.a === undefined) || /^\.(configSource|synonyms(\.length|\[1\]|\[name=min\.insync\.replicas\]\.source))$/.test(rest);
        default:
          return false;
      }
    },
    cause:
      'Broker configs in DescribeConfigs: Kafka 4.0 removed log.message.downconversion.enable and log.message.format.version (KIP-724) and log.message.timestamp.difference.max.ms (KIP-937); KIP-1030 changed the defaults of log.message.timestamp.after.max.ms (3600000) and num.recovery.threads.per.data.dir (2, ServerLogConfigs.NUM_RECOVERY_THREADS_PER_DATA_DIR_DEFAULT); 4.x reads log.dir as a LIST (AbstractKafkaConfig getList); node.id and process.roles have no default any more (KRaftConfigs: ConfigDef.NO_DEFAULT_VALUE), so no DEFAULT synonym; a cluster formatted with eligible.leader.replicas.version=1 carries a cluster-level min.insync.replicas (KIP-966, ConfigurationControlManager.maybeGenerateElrSafetyRecords), reported as DYNAMIC_DEFAULT_BROKER_CONFIG (3) with the static default as a second synonym, also for the cluster-defaults resource "". kmock describes a Kafka 3.9 broker.',
  },
  {
    id: 'kafka-4x-group-configs',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testDescribeConfigsUnknownResourceTypes$/,
    request: /^DescribeConfigs v3 \(group resource\)$/,
    path: /^response\.results\[\d+\]\.(errorCode|configs\[name=(consumer|share|streams)\.[^\]]+\]|configs\[name=errors\.deadletterqueue\.[^\]]+\])$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === 42 && d.b === 0 : d.a === undefined),
    cause:
      'DescribeConfigs for a GROUP resource (type 32): Kafka 3.9\'s ConfigHelper has no GROUP case and answers INVALID_REQUEST (42) for every resource of the request; 4.x describes group configs (kafka.server.ConfigHelper.createGroupConfigEntry, GroupConfig: consumer.*, share.*, streams.* and the share-group DLQ errors.deadletterqueue.* of KIP-848/932/1071/1191). kmock has no group configs and follows 3.9.',
  },
  {
    id: 'kafka-4x-create-partitions-batch-limit',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testCreatePartitionsV0$/,
    request: /^CreatePartitions v0 \(validateOnly past the controller record limit\)$/,
    path: /^response\.results\[name=[^\]]+\]\.(errorCode|errorMessage)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === -1 && d.b === 44 : d.b === 'Excessively large number of additional partitions per request.'),
    cause:
      'CreatePartitions adding 20000 partitions (validateOnly): Kafka 3.9.1\'s controller fails the request with UNKNOWN_SERVER_ERROR (the records exceed its batch limit unchecked); 4.x checks the count first (ReplicationControlManager, MAX_PARTITIONS_PER_BATCH = 10000) and answers POLICY_VIOLATION "Excessively large number of additional partitions per request.". kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-api-version-ranges',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^ApiVersions v/,
    path: /^response\.apiKeys\[apiKey=\d+\]\.(minVersion|maxVersion)$/,
    when: (d) => {
      const m = /apiKey=(\d+)\]\.(minVersion|maxVersion)$/.exec(d.path)!;
      const r = API_39_BY_KEY.get(Number(m[1]));
      return r !== undefined && d.a === (m[2] === 'minVersion' ? r.min : r.max) && d.b !== d.a;
    },
    cause:
      'ApiVersions: kmock advertises Kafka 3.9\'s ranges. Kafka 4.0 removed old versions (KIP-896): Fetch 0-3 (Produce 0-2 too, but 4.x keeps advertising Produce minVersion 0 for librdkafka, ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION, KAFKA-18659, so that range agrees), ListOffsets 0, OffsetCommit 0-1, OffsetFetch 0, CreateTopics 0-1, DeleteTopics 0, DescribeAcls/CreateAcls/DeleteAcls 0, DescribeConfigs 0, AlterReplicaLogDirs 0, DescribeLogDirs 0, Create/Renew/Expire/DescribeDelegationToken 0 (4.0.0 also JoinGroup 0-1, restored in 4.0.1/4.1.0 by KAFKA-19444); and 4.x added versions: DescribeLogDirs 5 (IsCordoned per log dir), Produce 12 (KIP-890 part 2) and 13 (topic ids, KIP-516), Fetch 18 (high watermark, KIP-1166), ListOffsets 10 (KIP-1075) and 11 (KIP-1023), Metadata 13 (top-level error code, KIP-1102), OffsetCommit/OffsetFetch 10 (topic ids, KIP-848), DescribeGroups 6 (GROUP_ID_NOT_FOUND, KIP-1043), ApiVersions 5 (ClusterId/NodeId, KIP-1242), DeleteGroups 3 (per-group ErrorMessage), DescribeCluster 2 (IncludeFencedBrokers, KIP-1073), InitProducerId 6 (KeepPreparedTxn, KIP-939), EndTxn 5 and TxnOffsetCommit 5 (transaction version 2, KIP-890 part 2), TxnOffsetCommit 6 (topic ids, KIP-1319), WriteTxnMarkers 2 (TransactionVersion per marker, KIP-1228; v0 removed, KIP-896), ListTransactions 2 (TransactionalIdPattern, KIP-1152) — see the *Request.json specs of 4.0.0/4.4.0. kmock follows 3.9: its clients (3.x and 4.x alike) negotiate within 3.9\'s ranges, and it keeps serving the removed versions 3.9 serves.',
  },
  {
    id: 'kafka-4x-features',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^ApiVersions v([3-9]|\d\d)/,
    path: /^response\.(supportedFeatures|finalizedFeatures)(\.|\[|$)/,
    cause:
      'ApiVersions v3+ features (KIP-584): kmock reports a Kafka 3.9 node (metadata.version 1-21 finalized at 21 = 3.9-IV0, kraft.version 0-1). A Kafka 4.x node supports metadata.version 7-N (4.0 dropped metadata versions below 3.3-IV3; N = 33 for 4.4.0) and also lists and finalizes group.version (KIP-848), transaction.version (KIP-890), share.version (KIP-932), streams.version (KIP-1071) and eligible.leader.replicas.version (KIP-966). kmock implements none of those 4.x features, so advertising them would be false.',
  },
  {
    id: 'kafka-4x-removed-versions',
    kind: 'kafka-4x-change',
    mode: 'reference',
    path: /^(kind|request|response|event)$/,
    when: (d, ctx) => {
      if (isCloseDifference(d, 'kafka')) {
        const t = firstOneSidedClose(d, ctx);
        if (t !== undefined && t[1].kind === 'closed' && removedIn4x(t[1].api, t[1].version, ctx.reference ?? '')) return true;
      }
      // Out of step after such a close: Kafka's event here is no answer at all.
      const first = firstRemovedVersionClose(ctx);
      if (first === undefined || d.event <= first || !/^(kind|request|response|event)$/.test(d.path)) return false;
      const b = ctx.transcripts![1].events[d.event];
      return b === undefined || UNANSWERED_KINDS.has(b.kind);
    },
    cause:
      'Kafka 4.0 removed these request versions (KIP-896; the *Request.json specs: "Versions 0-1 were removed in Apache Kafka 4.0"): Produce 0-2, Fetch 0-3, ListOffsets 0, OffsetCommit 0-1, OffsetFetch 0, CreateTopics 0-1, DeleteTopics 0, DescribeAcls/CreateAcls/DeleteAcls 0, DescribeConfigs 0, AlterReplicaLogDirs 0, DescribeLogDirs 0, the four delegation token APIs 0 (and in 4.0.0 only JoinGroup 0-1, KAFKA-19444). Such a request no longer parses (RequestContext.parseRequest -> InvalidRequestException) and the broker closes the connection, so the requests queued behind it on that connection are unanswered too (and a request parked there, e.g. a long-poll Fetch, ends early, so later events of the run may be recorded in another order). kmock follows Kafka 3.9, which serves them: clients still in use (older librdkafka, Sarama, kafka-python) negotiate them.',
  },
  {
    id: 'kafka-4x-new-versions',
    kind: 'kafka-4x-change',
    mode: 'reference',
    path: /^(kind|response)$/,
    when: (d, ctx) => {
      if (!isCloseDifference(d, 'kafka') && !isCloseDifference(d, 'kmock')) return false;
      const t = firstOneSidedClose(d, ctx);
      return t !== undefined && newerThan39(t[0].api ?? t[1].api, t[0].version ?? t[1].version) && isCloseDifference(d, t[0].kind === 'closed' ? 'kmock' : 'kafka');
    },
    cause:
      'A request at a version Kafka 3.9 does not have and 4.x does: Metadata v13 (top-level ErrorCode, KIP-1102, 4.0) is answered by 4.x while kmock, like 3.9, closes the connection (an unsupported version of any API but ApiVersions); ApiVersions v5 (ClusterId and NodeId, KIP-1242, in 4.4.0) is parsed by 4.x, so a v5 header on a v3 body (the scenario tests KIP-511\'s fallback with an unknown version) no longer parses and 4.x closes the connection, where kmock, like 3.9, answers UNSUPPORTED_VERSION in a v0 body with its ApiVersions range. kmock serves 3.9\'s versions.',
  },
  {
    id: 'kafka-4x-removed-topic-config',
    kind: 'kafka-4x-change',
    mode: 'reference',
    path: /\[(name|topic)=/,
    when: topicRefusedFor4xConfig,
    cause:
      'A topic created with a topic config Kafka 4.0 removed (message.downconversion.enable, message.format.version: KIP-724; message.timestamp.difference.max.ms: KIP-937): 4.x no longer knows the name and refuses the topic (CreateTopics INVALID_CONFIG "Unknown topic config name: …"), so later requests for that topic get UNKNOWN_TOPIC_OR_PARTITION. Kafka 3.9 accepts these configs (down-conversion still exists there) and so does kmock, which follows 3.9.',
  },
  {
    id: 'kafka-4x-topic-configs',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^(CreateTopics|DescribeConfigs) v/,
    path: /\.configs(\.length|\[)/,
    when: configListsDifferOnlyBy4x,
    cause:
      'Topic configs (CreateTopics v5+ and DescribeConfigs answers, compared entry by entry by name): Kafka 4.0 removed message.format.version and message.downconversion.enable (KIP-724) and message.timestamp.difference.max.ms (KIP-937) from LogConfig; later 4.x releases added errors.deadletterqueue.group.enable (share-group DLQ, KIP-1191), remote.copy.lag.ms / remote.copy.lag.bytes (KIP-1241) and max.decompressed.message.bytes (apache/kafka#23429); 4.0 changed the default of message.timestamp.after.max.ms from Long.MAX_VALUE to 3600000 (KIP-1030, KAFKA-16368); a cluster formatted with eligible.leader.replicas.version=1 (4.4.0\'s default) carries a cluster-level min.insync.replicas, so it is reported with configSource 3 DYNAMIC_DEFAULT_BROKER_CONFIG (KIP-966, KAFKA-16540); Checked: with those entries set aside the two lists are equal. kmock describes a Kafka 3.9 topic; the 3.9 run compares every entry exactly.',
  },
  {
    id: 'kafka-4x-describe-groups-assignment',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^DescribeGroups v/,
    path: /^response\.groups\[[^\]]+\]\.members\[[^\]]+\]\.memberAssignment$/,
    when: (d, ctx) => {
      if (d.a !== '' || typeof d.b !== 'string' || d.b === '') return false;
      const g = /^response(\.groups\[[^\]]+\])/.exec(d.path)!;
      const group = resolve(events(ctx, d.event)?.[1].response, g[1]!);
      return group !== null && typeof group === 'object' && !Array.isArray(group) && group.groupState !== 'Stable';
    },
    cause:
      'DescribeGroups of a classic group that is not Stable: Kafka 3.9 describes each member without metadata and without assignment (GroupMetadata.summary -> MemberMetadata.summaryNoMetadata: both empty); the 4.x group coordinator sends the member\'s last assignment (ClassicGroupMember.describeNoMetadata sets MemberAssignment; GroupMetadataManager.describeGroups). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-describe-groups-order',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^DescribeGroups v/,
    path: /^response\.groups(\[\d+\]|\(order by groupId\))/,
    when: (d, ctx) => {
      const e = events(ctx, d.event);
      const [ga, gb] = [e?.[0].response, e?.[1].response].map((r) => (r !== null && typeof r === 'object' && !Array.isArray(r) ? r.groups : undefined));
      if (!Array.isArray(ga) || !Array.isArray(gb) || ga.length !== gb.length) return false;
      const sort = (l: Json[]) => l.map(canonical).sort();
      const [sa, sb] = [sort(ga), sort(gb)];
      return sa.every((x, i) => x === sb[i]);
    },
    intermittent: 'the order follows the __consumer_offsets partitions of the group ids, which carry a random per-run namespace: in some runs it equals the request order',
    cause:
      'DescribeGroups with several group ids: Kafka 3.9 answers in request order; 4.x groups the ids by __consumer_offsets partition in a HashMap and concatenates the per-partition answers (GroupCoordinatorService.describeGroups), so the order follows the partitions (here a repeated id comes back before an id of another partition). Checked: same answers, another order. kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-group-acl-operations',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^DescribeGroups v/,
    path: /^response\.groups\[[^\]]+\]\.authorizedOperations$/,
    when: (d) => typeof d.a === 'number' && typeof d.b === 'number' && d.a !== d.b && d.b === (d.a | (1 << 10) | (1 << 11)),
    cause:
      'DescribeGroups v3+ authorizedOperations: 4.x adds DESCRIBE_CONFIGS (10) and ALTER_CONFIGS (11) to the operations a GROUP resource supports (AclEntry.supportedOperations(GROUP), KAFKA-14510: group configs, KIP-848), so 3400 where 3.9 answers 328 (READ, DELETE, DESCRIBE). kmock has no group configs and follows 3.9.',
  },
  {
    id: 'kafka-4x-offset-commit-group-id-not-found',
    kind: 'kafka-4x-change',
    mode: 'reference',
    request: /^OffsetCommit v(9|[1-9]\d)\b/,
    path: /\.errorCode$/,
    when: (d) => d.a === 22 && d.b === 69,
    cause:
      'OffsetCommit v9+ with a generation >= 0 for a group that does not exist: the 4.x coordinator answers GROUP_ID_NOT_FOUND (OffsetMetadataManager.validateOffsetCommit: "Starting from version 9 of the OffsetCommit API, we return GROUP_ID_NOT_FOUND", KIP-848); Kafka 3.9\'s coordinator answers ILLEGAL_GENERATION at every version. kmock follows 3.9 (below v9 4.x agrees).',
  },
  {
    id: 'kafka-4x-pending-member-leave-rebalances',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^(testPendingMembersLeavesGroup|random-seed-\d+)$/,
    request: /^(Heartbeat|SyncGroup|DescribeGroups|JoinGroup) v/,
    path: /^(kind|response|response\.(errorCode|assignment|protocolType|protocolName|generationId|leader|skipAssignment|members(\[memberId=[^\]]+\]|\.length)|groups\[[^\]]+\]\.(groupState|protocolData|members\[[^\]]+\]\.memberMetadata)))$/,
    // Checked on the transcripts: the last LeaveGroup before the event removed only pending
    // members, nothing joined or left since, the request was sent after it, and the values are
    // those of a group 4.x moved to PreparingRebalance while 3.9 kept it Stable/CompletingRebalance.
    when: explainedByPendingLeave,
    cause:
      'A pending member (one that got MEMBER_ID_REQUIRED and never joined) leaving a Stable or CompletingRebalance group: Kafka 3.9 only removes it (GroupCoordinator.handleLeaveGroup -> removePendingMemberAndUpdateGroup: group.remove, and only in PreparingRebalance a join-completion check; no rebalance), so the group keeps its state and generation; the 4.x coordinator counts it among the members that left (GroupMetadataManager.classicGroupLeaveToClassicGroup: the pending branch answers NONE, so validLeaveGroupMembers includes it) and, the group being STABLE or COMPLETING_REBALANCE, calls maybePrepareRebalanceOrCompleteJoin -> prepareRebalance. So on 4.x the next heartbeat or SyncGroup of a real member gets REBALANCE_IN_PROGRESS, DescribeGroups says PreparingRebalance, and a JoinGroup 3.9 answers from the current generation (a follower or a static member rejoining with "": updateStaticMemberAndRebalance in Stable) parks (the join phase waits until every member, pending ones included, has joined: ClassicGroup.hasAllMembersJoined) or completes the next generation (updateStaticMemberThenRebalanceOrCompleteJoin in PREPARING_REBALANCE -> maybeCompleteJoinPhase). kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-batch-leave-updates-group-once',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^random-seed-\d+$/,
    request: /^(SyncGroup|JoinGroup) v/,
    path: /^(kind|response|response\.(errorCode|generationId|protocolType|protocolName|leader|skipAssignment|memberId|members|members\[memberId=[^\]]+\]|members\.length))$/,
    // Checked on the transcripts: a LeaveGroup v3+ removing two or more members, answered alike,
    // after the request was sent and before it was answered; the difference is about a member
    // that batch removed after the first one (its own parked SyncGroup/JoinGroup, or its entry in
    // the member list of the join the first removal completed on 3.9).
    when: explainedByBatchLeave,
    cause:
      'A LeaveGroup batch (v3+) removing several members while a JoinGroup or SyncGroup of a later member of the batch is outstanding: Kafka 3.9 updates the group after each member (GroupCoordinator.handleLeaveGroup -> removeCurrentMemberFromGroup -> removeMemberAndUpdateGroup: Stable/CompletingRebalance -> maybePrepareRebalance, whose prepareRebalance answers every parked SyncGroup REBALANCE_IN_PROGRESS via resetAndPropagateAssignmentError; PreparingRebalance -> rebalancePurgatory.checkAndComplete, which completes the join phase once the remaining members have joined), so the first removal already answers the later member\'s parked SyncGroup (27) or completes the join with it as a member, before the later member itself is removed; the 4.x coordinator removes every member of the batch first (GroupMetadataManager.classicGroupLeaveToClassicGroup -> removeCurrentMemberFromClassicGroup: completeJoinFuture with UNKNOWN_MEMBER_ID, ClassicGroup.remove, which drops the member and its pending sync without answering it) and updates the group once afterwards (maybePrepareRebalanceOrCompleteJoin / maybeCompleteJoinPhase), so the removed member\'s parked SyncGroup is never answered, its parked JoinGroup gets UNKNOWN_MEMBER_ID and the completed join does not list it. kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-sync-does-not-refresh-session',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testSyncMaintainsSession$/,
    request: /^(SyncGroup|Heartbeat) v/,
    path: /^response\.(errorCode|assignment)$/,
    when: (d) => (d.path.endsWith('errorCode') ? d.a === 0 && d.b === 25 : d.b === ''),
    cause:
      'A SyncGroup in Stable: Kafka 3.9 returns the assignment and resets the member\'s session timer (GroupCoordinator.doSyncGroup, case Stable: completeAndScheduleNextHeartbeatExpiration); the 4.x coordinator returns the assignment without rescheduling the heartbeat (GroupMetadataManager.classicGroupSyncToClassicGroup, STABLE branch), so a member that only syncs expires after its session timeout (UNKNOWN_MEMBER_ID). Clients heartbeat anyway; kmock follows 3.9.',
  },
  {
    id: 'kafka-4x-initial-delay-extended-after-empty',
    kind: 'kafka-4x-change',
    mode: 'reference',
    scenario: /^testInitialDelayIsNotExtendedAfterTheGroupWasEmptyAtALaterGeneration$/,
    request: /^JoinGroup v/,
    path: /^(kind|response|event)$/,
    cause:
      'The initial rebalance delay (group.initial.rebalance.delay.ms) of a group that became Empty at a later generation: in Kafka 3.9 a new joiner extends the delay only while generationId == 0 (GroupCoordinator.addMemberAndRebalance: newMemberAdded), so here both joiners complete after one delay; the 4.x coordinator extends it whenever the rebalance started from Empty (GroupMetadataManager.addMemberThenRebalanceOrCompleteJoin: PREPARING_REBALANCE && previousState == EMPTY -> setNewMemberAdded), so the join completes later than the scenario waits. kmock follows 3.9.',
  },
  ...CAUSES_4X_TXN,
  ...CAUSES_4X_CONFIGS,
];

/**
 * Classifies a difference of a run against `reference` (a target name: "kafka-4.4.0",
 * "kafka-3.9.1", "kmock-2"): against a Kafka 4.x release CAUSES_4X first, then causes.ts;
 * against anything else causes.ts only (exactly classify()).
 */
export function classifyFor(
  reference: string | undefined,
  scenario: string,
  d: Difference,
  mode: 'reference' | 'self',
  transcripts?: readonly [NormalisedTranscript, NormalisedTranscript],
): ClassifiedDifference {
  const ctx: CauseContext = { reference, transcripts };
  if (mode === 'reference' && isKafka4x(reference)) {
    const found = classifyWith(CAUSES_4X, scenario, d, mode, ctx);
    if (found !== undefined) return found;
  }
  return classify(scenario, d, mode, ctx);
}
assertScoped(CAUSES_4X);
