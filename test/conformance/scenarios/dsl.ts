// Small builders for scenario steps, so scenarios read like Kafka's own coordinator tests:
// join / sync / heartbeat / leave / commit with member ids and generations captured from earlier
// answers (`ref('a')`), and the expected codes each scenario takes from the Kafka test or source it mirrors.
import type { ApiKeyNum, Ctx, DeepPartial, Dyn, Expectation, ExpectValue, Scenario, SendStep, Settings, Step } from '../runner.js';
import { ErrorCode, type ApiTypes } from '../../../src/codec/index.js';

/** Kafka's error codes by name (the codec's table, from Errors.java), as the scenarios write them. */
export const E = ErrorCode;

/** Base broker settings for every scenario (both targets). Timers are short to keep runs fast. */
export const BASE_SETTINGS: Settings = {
  // No retention check during the suite on the shared brokers (both Kafka and kmock would run one
  // 30 s after start, at their own moments, deleting the old-timestamped data scenarios produce):
  // the storage scenarios have brokers of their own with a short delay.
  'log.initial.task.delay.ms': 3_600_000,
  'group.initial.rebalance.delay.ms': 150,
  'group.min.session.timeout.ms': 10,
  'group.max.session.timeout.ms': 600000,
};
export const INITIAL_DELAY = 150;
/** The runner's pause after a request sent without waiting (Scenario.settleMs default). */
export const SETTLE = 50;

/** A value read from the context when the step runs: a captured member id by default. */
export const ref =
  <T = string>(name: string, fallback?: T) =>
  (c: Ctx): T =>
    c.v<T>(name, fallback);
/** The generation captured for `name` (or the latest one). */
export const gen = (name = 'gen', fallback = -1) => ref<number>(name, fallback);

function dyn<T>(v: Dyn<T> | undefined, c: Ctx, dflt: T): T {
  if (v === undefined) return dflt;
  return typeof v === 'function' ? (v as (c: Ctx) => T)(c) : v;
}

/** Consumer-protocol subscription metadata (v0: the topic list), the same bytes on both brokers. */
export function subscription(topics: string[] = ['t'], version = 0): Buffer {
  const parts: Buffer[] = [];
  const i16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    return b;
  };
  const i32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  parts.push(i16(version), i32(topics.length));
  for (const t of topics) {
    const s = Buffer.from(t);
    parts.push(i16(s.length), s);
  }
  parts.push(i32(-1));
  return Buffer.concat(parts);
}

export type ProtocolSpec = string | { name: string; metadata: Buffer };
function protocolList(p: ProtocolSpec[]): Array<{ name: string; metadata: Buffer }> {
  return p.map((x) => (typeof x === 'string' ? { name: x, metadata: subscription(['t'], x === 'roundrobin' ? 1 : 0) } : x));
}

interface Common {
  group?: string;
  v?: number;
  expect?: Expectation;
  label?: string;
  wait?: boolean;
  timeoutMs?: number;
}

export interface JoinOpts extends Common {
  member?: Dyn<string>;
  instance?: string | null;
  session?: number;
  rebalance?: number;
  protocols?: ProtocolSpec[] | ((c: Ctx) => ProtocolSpec[]);
  protocolType?: string;
  reason?: string | null;
  /** Capture: member id → var `as` (when non-empty), generation → `as.gen` and `gen`, leader → `leader`. */
  as?: string;
  /** When the captured id replaces a different one, keep the previous one as `<as>.old`. */
  keepOld?: boolean;
  groupId?: Dyn<string>;
}

export function join(conn: string, o: JoinOpts = {}): SendStep<11> {
  const v = o.v ?? 5;
  return {
    op: 'send',
    conn,
    api: 11,
    version: v,
    wait: o.wait,
    expect: o.expect,
    timeoutMs: o.timeoutMs,
    label: o.label ?? `join ${conn}${o.instance ? ` [${o.instance}]` : ''}`,
    body: (c) => ({
      groupId: o.groupId !== undefined ? dyn(o.groupId, c, '') : c.g(o.group),
      sessionTimeoutMs: o.session ?? 10000,
      rebalanceTimeoutMs: o.rebalance ?? 10000,
      memberId: dyn(o.member, c, ''),
      groupInstanceId: o.instance ?? null,
      protocolType: o.protocolType ?? 'consumer',
      protocols: protocolList(typeof o.protocols === 'function' ? o.protocols(c) : (o.protocols ?? ['range'])),
      reason: o.reason ?? null,
    }),
    capture: (r, c) => {
      const name = o.as ?? conn;
      // Error answers echo the request's member id: only a granted id is worth remembering.
      if (r.memberId !== '' && (r.errorCode === 0 || r.errorCode === 79)) {
        if (o.keepOld && c.has(name) && c.v(name) !== r.memberId) c.set(`${name}.old`, c.v(name));
        c.set(name, r.memberId);
      }
      if (r.errorCode === 0) {
        c.set(`${name}.gen`, r.generationId);
        c.set('gen', r.generationId);
        c.set('leader', r.leader);
      }
    },
  };
}

export interface SyncOpts extends Common {
  member?: Dyn<string>;
  generation?: Dyn<number>;
  instance?: string | null;
  /** Var names of members to give assignments to (the bytes are "asg:<name>"). */
  assign?: string[];
  protocolType?: string | null;
  protocolName?: string | null;
}
export function sync(conn: string, o: SyncOpts = {}): SendStep<14> {
  const v = o.v ?? 3;
  return {
    op: 'send',
    conn,
    api: 14,
    version: v,
    wait: o.wait,
    expect: o.expect,
    timeoutMs: o.timeoutMs,
    label: o.label ?? `sync ${conn}${o.assign ? ' (leader)' : ''}`,
    body: (c) => ({
      groupId: c.g(o.group),
      generationId: dyn(o.generation, c, c.v<number>(`${conn}.gen`, c.v<number>('gen', -1))),
      memberId: dyn(o.member, c, c.v(conn)),
      groupInstanceId: o.instance ?? null,
      protocolType: o.protocolType !== undefined ? o.protocolType : v >= 5 ? 'consumer' : null,
      protocolName: o.protocolName !== undefined ? o.protocolName : v >= 5 ? 'range' : null,
      assignments: (o.assign ?? []).filter((n) => c.has(n)).map((n) => ({ memberId: c.v(n), assignment: Buffer.from(`asg:${n}`) })),
    }),
  };
}

export interface HeartbeatOpts extends Common {
  member?: Dyn<string>;
  generation?: Dyn<number>;
  instance?: string | null;
}
export function heartbeat(conn: string, o: HeartbeatOpts = {}): SendStep<12> {
  return {
    op: 'send',
    conn,
    api: 12,
    version: o.v ?? 3,
    wait: o.wait,
    expect: o.expect,
    timeoutMs: o.timeoutMs,
    label: o.label ?? `heartbeat ${conn}`,
    body: (c) => ({
      groupId: c.g(o.group),
      generationId: dyn(o.generation, c, c.v<number>(`${conn}.gen`, c.v<number>('gen', -1))),
      memberId: dyn(o.member, c, c.v(conn)),
      groupInstanceId: o.instance ?? null,
    }),
  };
}

export interface LeaveMember {
  member?: Dyn<string>;
  instance?: string | null;
  reason?: string | null;
}
export interface LeaveOpts extends Common {
  /** v0-2: the member id; v3+: one identity when `members` is not given. */
  member?: Dyn<string>;
  instance?: string | null;
  members?: LeaveMember[];
}
export function leave(conn: string, o: LeaveOpts = {}): SendStep<13> {
  const v = o.v ?? 3;
  return {
    op: 'send',
    conn,
    api: 13,
    version: v,
    wait: o.wait,
    expect: o.expect,
    timeoutMs: o.timeoutMs,
    label: o.label ?? `leave ${conn}`,
    body: (c) => {
      if (v < 3) return { groupId: c.g(o.group), memberId: dyn(o.member, c, c.v(conn)) };
      const ms = o.members ?? [{ member: o.member ?? ((cc: Ctx) => cc.v(conn)), instance: o.instance ?? null }];
      return {
        groupId: c.g(o.group),
        members: ms.map((m) => ({ memberId: dyn(m.member, c, ''), groupInstanceId: m.instance ?? null, reason: m.reason ?? null })),
      };
    },
  };
}

export interface CommitOpts extends Common {
  member?: Dyn<string>;
  generation?: Dyn<number>;
  instance?: string | null;
  topic?: string;
  offsets?: Array<[partition: number, offset: number]>;
  retentionTimeMs?: number;
}
export function commit(conn: string, o: CommitOpts = {}): SendStep<8> {
  const v = o.v ?? 7;
  return {
    op: 'send',
    conn,
    api: 8,
    version: v,
    wait: o.wait,
    expect: o.expect,
    timeoutMs: o.timeoutMs,
    label: o.label ?? `commit ${conn}`,
    body: (c) => ({
      groupId: c.g(o.group),
      generationIdOrMemberEpoch: dyn(o.generation, c, c.v<number>(`${conn}.gen`, c.v<number>('gen', -1))),
      memberId: dyn(o.member, c, c.has(conn) ? c.v(conn) : ''),
      groupInstanceId: o.instance ?? null,
      retentionTimeMs: o.retentionTimeMs ?? -1,
      topics: [
        {
          name: c.t(o.topic),
          partitions: (o.offsets ?? [[0, 1]]).map(([p, off]) => ({
            partitionIndex: p,
            committedOffset: off,
            committedLeaderEpoch: -1,
            committedMetadata: '',
            commitTimestamp: -1,
          })),
        },
      ],
    }),
  };
}

export interface FetchOffsetsOpts extends Common {
  topics?: Array<{ topic?: string; partitions: number[] }> | null;
  requireStable?: boolean;
  /** v8+: several groups in one request (short names). */
  groups?: string[];
}
export function fetchOffsets(conn: string, o: FetchOffsetsOpts = {}): SendStep<9> {
  const v = o.v ?? 7;
  return {
    op: 'send',
    conn,
    api: 9,
    version: v,
    wait: o.wait,
    expect: o.expect,
    label: o.label ?? `offset-fetch ${conn}`,
    body: (c) => {
      const topics =
        o.topics === null ? null : (o.topics ?? [{ partitions: [0] }]).map((t) => ({ name: c.t(t.topic), partitionIndexes: t.partitions }));
      if (v >= 8) {
        const groups = o.groups ?? [o.group ?? 'g'];
        return {
          requireStable: o.requireStable ?? false,
          groups: groups.map((g) => ({
            groupId: c.g(g),
            memberId: null,
            memberEpoch: -1,
            topics: topics === null ? null : topics.map((t) => ({ name: t.name, partitionIndexes: t.partitionIndexes })),
          })),
        };
      }
      return { groupId: c.g(o.group), topics, requireStable: o.requireStable ?? false };
    },
  };
}

export function describeGroups(conn: string, o: Common & { groups?: string[]; authorizedOperations?: boolean } = {}): SendStep<15> {
  return {
    op: 'send',
    conn,
    api: 15,
    version: o.v ?? 5,
    expect: o.expect,
    label: o.label ?? 'describe',
    body: (c) => ({ groups: (o.groups ?? ['g']).map((g) => c.g(g)), includeAuthorizedOperations: o.authorizedOperations ?? false }),
  };
}

export function listGroups(conn: string, o: Common & { states?: string[]; types?: string[] } = {}): SendStep<16> {
  return {
    op: 'send',
    conn,
    api: 16,
    version: o.v ?? 4,
    expect: o.expect,
    label: o.label ?? 'list-groups',
    body: { statesFilter: o.states ?? [], typesFilter: o.types ?? [] },
  };
}

export function deleteGroups(conn: string, o: Common & { groups?: string[] } = {}): SendStep<42> {
  return {
    op: 'send',
    conn,
    api: 42,
    version: o.v ?? 2,
    expect: o.expect,
    label: o.label ?? 'delete-groups',
    body: (c) => ({ groupsNames: (o.groups ?? ['g']).map((g) => c.g(g)) }),
  };
}

export function createTopic(conn: string, name = 't', partitions = 1, o: Common = {}): SendStep<19> {
  return {
    op: 'send',
    conn,
    api: 19,
    version: o.v ?? 4,
    expect: o.expect ?? { topics: [{ errorCode: 0 }] },
    label: o.label ?? `create-topic ${name}`,
    awaitTopics: true,
    body: (c) => ({ topics: [{ name: c.t(name), numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }),
  };
}

/** Any request, body built from a partial (functions of the context allowed). */
export function send<K extends ApiKeyNum>(
  conn: string,
  api: K,
  version: number,
  body: Dyn<DeepPartial<ApiTypes[K]['request']>>,
  extra: Partial<SendStep<K>> = {},
): SendStep<K> {
  return { op: 'send', conn, api, version, body, ...extra };
}

export const collect = (conn: string, expect?: Expectation, timeoutMs?: number): Step => ({ op: 'collect', conn, expect, timeoutMs });
export const parked = (conn: string, forMs?: number): Step => ({ op: 'parked', conn, forMs });
export const wait = (ms: number): Step => ({ op: 'wait', ms });
export const close = (conn: string): Step => ({ op: 'close', conn });
export const expectClosed = (conn: string, withinMs?: number): Step => ({ op: 'closed', conn, withinMs });

/** Expected JoinGroup answer, written like Kafka's tests (only the fields given are checked). */
export function joined(
  generationId: number,
  o: { leader?: ExpectValue; memberId?: ExpectValue; members?: ExpectValue; skipAssignment?: boolean; protocolName?: ExpectValue } = {},
): ExpectValue {
  const e: Record<string, ExpectValue> = { errorCode: E.NONE, generationId };
  if (o.leader !== undefined) e.leader = o.leader;
  if (o.memberId !== undefined) e.memberId = o.memberId;
  if (o.members !== undefined) e.members = o.members;
  if (o.skipAssignment !== undefined) e.skipAssignment = o.skipAssignment;
  if (o.protocolName !== undefined) e.protocolName = o.protocolName;
  return e;
}
export const err = (code: number, extra: Record<string, ExpectValue> = {}): ExpectValue => ({ errorCode: code, ...extra });

export function scenario(name: string, o: Omit<Scenario, 'name'>): Scenario {
  return { name, tags: ['group'], ...o };
}

/**
 * `staticMembersJoinAndRebalance(L, F)` of GroupCoordinatorTest: leader and follower join with
 * "" and their instance ids, both get generation 1 (the leader is the first joiner), the leader
 * syncs (Stable), then the follower syncs. Vars: L, F (member ids), gen.
 */
export function staticJoinAndRebalance(
  o: { v?: number; syncV?: number; session?: number; rebalance?: number; leader?: string; follower?: string; group?: string; protocols?: ProtocolSpec[] | ((c: Ctx) => ProtocolSpec[]) } = {},
): Step[] {
  const L = o.leader ?? 'L';
  const F = o.follower ?? 'F';
  const v = o.v ?? 5;
  const common = { v, session: o.session, rebalance: o.rebalance, group: o.group, protocols: o.protocols };
  return [
    join(L, { ...common, instance: `inst-${L}`, wait: false }),
    join(F, { ...common, instance: `inst-${F}`, wait: false }),
    collect(L, joined(1, { leader: same(L) })),
    collect(F, joined(1, { leader: same(L), members: [] })),
    sync(L, { v: o.syncV ?? 3, instance: `inst-${L}`, assign: [L, F], group: o.group, expect: err(E.NONE, { assignment: hex(`asg:${L}`) }) }),
    sync(F, { v: o.syncV ?? 3, instance: `inst-${F}`, group: o.group, expect: err(E.NONE, { assignment: hex(`asg:${F}`) }) }),
  ];
}

/** Two dynamic members via the KIP-394 two-step join (v4+), then sync. Vars: names, gen. */
export function dynamicJoinAndSync(
  names: string[],
  o: { v?: number; syncV?: number; session?: number; rebalance?: number; group?: string; protocols?: ProtocolSpec[] | ((c: Ctx) => ProtocolSpec[]) } = {},
): Step[] {
  const v = o.v ?? 5;
  const steps: Step[] = [];
  const common = { v, session: o.session, rebalance: o.rebalance, group: o.group, protocols: o.protocols };
  if (v >= 4) for (const n of names) steps.push(join(n, { ...common, expect: err(E.MEMBER_ID_REQUIRED) }));
  for (const n of names) steps.push(join(n, { ...common, member: ref(n, ''), wait: false }));
  for (const n of names) steps.push(collect(n, joined(1, { leader: same(names[0]) })));
  steps.push(sync(names[0], { v: o.syncV ?? 3, assign: names, group: o.group, expect: err(E.NONE, { assignment: hex(`asg:${names[0]}`) }) }));
  for (const n of names.slice(1)) steps.push(sync(n, { v: o.syncV ?? 3, group: o.group, expect: err(E.NONE, { assignment: hex(`asg:${n}`) }) }));
  return steps;
}

export const hex = (s: string): string => Buffer.from(s).toString('hex');

import { same } from '../runner.js';
export { same, notSame, anything, length, nonEmptyString, oneOf, unordered } from '../runner.js';
