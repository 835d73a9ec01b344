// Seeded random sequences of classic-group (and data) requests, played closed loop, and a shrinker.
//
// A sequence is a *plan*: the members (2-5, each static or dynamic, with its protocols) and a list
// of actions drawn from the seed: "member m does its next step", "member m makes a mistake",
// "m leaves", "m restarts", "m stops heartbeating until its session expires", describe, offset
// fetch, produce, fetch, list offsets. What a member actually sends is decided when its action
// runs (the runner's `expand` step), from the answers captured so far, the way a real consumer
// reacts: it joins, rejoins after UNKNOWN_MEMBER_ID (with "") / MEMBER_ID_REQUIRED (with the id
// given) / REBALANCE_IN_PROGRESS / ILLEGAL_GENERATION (with its id), syncs after a join (the
// leader with an assignment for every member its JoinGroup answer lists, unless skipAssignment),
// heartbeats or commits with its generation while stable, stops when fenced (and is restarted by
// a later action). Mistakes (a minority) send one request with a wrong member id, generation,
// instance id, protocol name or session timeout; the member does not act on their answers.
// Each broker's run has its own model (one per runner context), so both brokers get the same
// requests as long as they answer the same; once they answer differently the members react
// differently and the first difference in the transcripts is the finding. All randomness is in
// the plan (each action carries its own random number), so a replay of a plan (or of a subset,
// when shrinking) is deterministic given the answers.
//
// What no mock can predict, and how the model avoids it:
// - Kafka 3.9's classic group keeps members in a HashMap keyed by member id (random UUIDs). When
//   the leader is removed (LeaveGroup, session expiry), GroupMetadata.remove picks the new leader
//   as `members.keys.headOption`: with two or more members left, any of them. The JoinGroup
//   answers then name that leader, and only its answer lists the members, so the normalised
//   transcripts would differ on a correct kmock. The model keeps a conservative view of the group
//   (every id granted and not known to be gone, plus members whose first join is still parked)
//   and never sends a request that may remove the leader while two or more others may remain
//   (a leave by id, by instance or in a batch, a mistaken leave with another's id, an expiry); it
//   does something else instead. A static leader replaced by a restart keeps the leadership
//   (GroupMetadata.replaceStaticMember), so static restarts are always allowed.
//   (maybeElectNewJoinedLeader, the other hash-order pick, only runs when a join phase completes
//   without the leader, i.e. at the rebalance timeout, which is 120 s here: never.)
// - Members and groups listed in hash order: the normaliser sorts JoinGroup/DescribeGroups member
//   lists by member id, and member ids are numbered by first appearance; ids of one connection
//   share a prefix, and a connection never has two members whose ids first appear in the same
//   list (a member's own answer shows its id first; a restarted client uses a new connection name,
//   `m0~1`, so an orphan's id has a prefix of its own). The leader's SyncGroup lists assignments
//   in the order the model first saw the ids, and each assignment names its owner by variable.
// - Timers: the initial rebalance delay (150 ms) runs when a member joins an Empty group; after a
//   JoinGroup that may be the first of a generation (the model cannot rule out an Empty group:
//   at the start, after any leave or expiry) the sequence waits 280 ms before anything else.
//   Sessions are 60 s and rebalance timeouts 120 s (no expiry during a sequence) except for the
//   one "mortal" member of a sequence that has an expire action: its session is 2.5 s, the model
//   sends its next natural request whenever 600 ms of nominal time passed since its last one
//   (4x margin), and the expiry waits 2.5 s + 1.5 s without sending anything.
//
// The shrinker is delta debugging (ddmin) over the plan's actions (first whole members, then
// chunks of actions); a subset replays closed loop like the full plan.
import type { Ctx, Scenario, SendStep, Step, Transcript } from './runner.js';
import { INITIAL_DELAY, commit, createTopic, describeGroups, fetchOffsets, heartbeat, join, leave, send, subscription, sync } from './scenarios/dsl.js';
import { encodeBatch } from '../../src/codec/records/index.js';
import { TXN_SEED_BASE, generateTxn, toTxnScenario, txnScenarioSource, type TxnAction, type TxnPlan, type TxnSequenceShape } from './random-txn.js';

export { TXN_SEED_BASE };

/** mulberry32: small, fast, good enough for test generation. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type ProtocolChoice = 'range' | 'both' | 'roundrobin';

export interface MemberSpec {
  /** Connection for JoinGroup/SyncGroup (they may park); `conn~N` after the N-th restart. */
  conn: string;
  /** Connection for Heartbeat/OffsetCommit/LeaveGroup/DescribeGroups/OffsetFetch. */
  side: string;
  instance: string | null;
  /** The assignors the member offers (all members offer range except a few roundrobin-only ones). */
  protocols: ProtocolChoice;
  /** Its session may expire (short session timeout): the sequence has an expire action for it. */
  mortal: boolean;
}

export type IdChoice = 'own' | 'old' | 'other' | 'bogus' | 'empty';
export type GenChoice = 'own' | 'next' | 'prev' | 'minus';
export type InstanceChoice = 'own' | 'none' | 'bogus';

/** An action of a group sequence or of a transactional one (random-txn.ts: kinds `txn-*`). */
export type Action = GroupAction | TxnAction;

export type GroupAction =
  /** The member's next natural request (join, sync, heartbeat or commit, by its state). */
  | { kind: 'step'; m: number; r: number }
  /** One deliberately wrong request; the member ignores its answer. */
  | { kind: 'mistake'; m: number; api: 'join' | 'sync' | 'heartbeat' | 'commit' | 'leave'; id: IdChoice; gen: GenChoice; instance: InstanceChoice; badSession?: boolean; badProtocol?: boolean; r: number }
  | { kind: 'leave'; m: number; how: 'self' | 'by-instance' | 'batch'; r: number }
  /** Static: the process restarts and rejoins with "" and its instance id. Dynamic: leaves, then restarts. */
  | { kind: 'restart'; m: number }
  /** The mortal member stops heartbeating; the sequence waits past its session timeout. */
  | { kind: 'expire'; m: number }
  | { kind: 'describe'; m: number; r: number }
  | { kind: 'offsets'; m: number; r: number }
  | { kind: 'produce'; n: number; r: number }
  | { kind: 'fetch'; from: 'start' | 'committed' | 'middle' | 'end' | 'past-end'; r: number }
  | { kind: 'list-offsets'; what: 'earliest' | 'latest' | 'max' | 'timestamp'; r: number };

export interface RandomSequence {
  seed: number;
  /** A group sequence's members (none in a transactional sequence). */
  members: MemberSpec[];
  actions: Action[];
  /** A transactional sequence's producers (random-txn.ts; seeds from TXN_SEED_BASE on). */
  txn?: TxnPlan;
}

const txnShape = (seq: RandomSequence): TxnSequenceShape => ({ seed: seq.seed, members: [], actions: seq.actions as TxnAction[], txn: seq.txn! });

export interface GenerateOptions {
  /** Number of actions after the opening (one step per member); default 30. */
  length?: number;
  /** Probability that a member is static (default 0.5). */
  staticShare?: number;
  /** Number of members (default: drawn, 2-5). */
  members?: number;
  /** Probability that a sequence lets a member's session expire (default 0.12). */
  expireShare?: number;
  /** Data actions (produce, fetch, list offsets) between the group actions (default true). */
  data?: boolean;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const between = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
function weighted<T extends string>(r: () => number, table: Record<T, number>): T {
  const total = Object.values<number>(table).reduce((a, b) => a + b, 0);
  let x = r() * total;
  for (const [k, w] of Object.entries<number>(table)) {
    x -= w;
    if (x < 0) return k as T;
  }
  return Object.keys(table)[0] as T;
}
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** A random plan for this seed (same seed and options, same plan). */
export function generate(seed: number, o: GenerateOptions = {}): RandomSequence {
  if (seed >= TXN_SEED_BASE) return generateTxn(seed, { length: o.length });
  const r = prng(seed);
  const n = o.members ?? Number(weighted(r, { '2': 15, '3': 30, '4': 30, '5': 25 }));
  const expire = r() < (o.expireShare ?? 0.12);
  const members: MemberSpec[] = Array.from({ length: n }, (_, i) => ({
    conn: `m${i}`,
    side: `m${i}s`,
    instance: r() < (o.staticShare ?? 0.5) ? `inst-${i}` : null,
    protocols: weighted<ProtocolChoice>(r, { range: 75, both: 20, roundrobin: 5 }),
    // The last member joins last, so it is rarely the leader (whose expiry the model avoids).
    mortal: expire && i === n - 1,
  }));
  // The first member never offers roundrobin only (the group would refuse everyone else).
  if (members[0].protocols === 'roundrobin') members[0].protocols = 'range';
  const actions: Action[] = members.map((_, m) => ({ kind: 'step', m, r: round(r()) }));
  const length = o.length ?? 30;
  const data = o.data ?? true;
  const expireAt = expire ? between(r, Math.floor(length / 3), length - 4) : -1;
  for (let i = 0; i < length; i++) {
    if (i === expireAt) {
      actions.push({ kind: 'expire', m: n - 1 });
      continue;
    }
    const m = between(r, 0, n - 1);
    const kind = weighted(r, {
      step: 62,
      mistake: 9,
      leave: 4,
      restart: 3,
      describe: 4,
      offsets: 4,
      produce: data ? 6 : 0,
      fetch: data ? 5 : 0,
      'list-offsets': data ? 3 : 0,
    });
    const x = round(r());
    switch (kind) {
      case 'step':
        actions.push({ kind, m, r: x });
        break;
      case 'mistake': {
        const api = weighted(r, { heartbeat: 30, commit: 25, sync: 20, join: 15, leave: 10 } as const);
        actions.push({
          kind,
          m,
          api,
          id: weighted<IdChoice>(r, { own: 45, old: 15, other: 15, bogus: 15, empty: 10 }),
          gen: weighted<GenChoice>(r, { own: 40, next: 20, prev: 20, minus: 20 }),
          instance: weighted<InstanceChoice>(r, { own: 70, none: 15, bogus: 15 }),
          badSession: api === 'join' && r() < 0.3,
          badProtocol: api === 'sync' && r() < 0.3,
          r: x,
        });
        break;
      }
      case 'leave':
        actions.push({ kind, m, how: members[m].instance ? weighted(r, { self: 45, 'by-instance': 40, batch: 15 }) : 'self', r: x });
        break;
      case 'restart':
        actions.push({ kind, m });
        break;
      case 'describe':
      case 'offsets':
        actions.push({ kind, m, r: x });
        break;
      case 'produce':
        actions.push({ kind, n: between(r, 1, 4), r: x });
        break;
      case 'fetch':
        actions.push({ kind, from: weighted(r, { start: 30, committed: 25, middle: 20, end: 15, 'past-end': 10 }), r: x });
        break;
      case 'list-offsets':
        actions.push({ kind, what: weighted(r, { earliest: 25, latest: 35, max: 15, timestamp: 25 }), r: x });
        break;
    }
  }
  return { seed, members, actions };
}

// ---------------------------------------------------------------------------------------------
// Timing (nominal durations feed the model's clock, which decides the mortal's keep-alives)

/** After a JoinGroup that may start a generation of an Empty group: past the initial delay. */
const JOIN_SETTLE = INITIAL_DELAY + 130;
void JOIN_SETTLE;
/** Pause after a request sent without waiting (the scenario's settleMs). */
const SETTLE = 30;
/** After a request that may release parked answers on other connections (join, sync, leave). */
const RELEASE_POLL = 50;
/** After a request that releases nothing (heartbeat, commit, describe, data): records parked requests. */
const QUIET_POLL = 5;
const SESSION = 60_000;
const REBALANCE = 120_000;
const MORTAL_SESSION = 3_500;
/** Nominal time after which the mortal sends its next natural request (keep-alive). */
const MORTAL_KEEPALIVE = 600;
/** How long past the mortal's session the expiry waits. */
const EXPIRY_MARGIN = 1_500;
/** A main-connection request parked this long (nominal) is given up: the client reconnects. */
const REQUEST_TIMEOUT = 10_000;
/**
 * Record timestamps: an hour before this process started (the same for both brokers of a run).
 * Not a fixed date: Kafka's retention pass (retention.ms 7 days) deletes segments whose newest
 * timestamp is older than that, and when it runs depends on the broker's uptime; kmock has no
 * time-based retention. Answers show these timestamps as "<now>" (the normaliser's clock rule).
 */
export const RANDOM_T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const T0 = RANDOM_T0;

// ---------------------------------------------------------------------------------------------
// The closed-loop model (one per run)

type Phase = 'out' | 'joining' | 'joined' | 'syncing' | 'stable' | 'dead';

interface Client {
  k: number;
  spec: MemberSpec;
  /** Restarts so far (connection names get `~N`). */
  life: number;
  /** The member id it sends ("" when it has none). */
  memberId: string;
  gen: number;
  phase: Phase;
  protocolName: string | null;
  /** From its last successful JoinGroup answer. */
  leader: boolean;
  skipAssignment: boolean;
  members: string[];
  /** Unanswered requests per connection. */
  busyMain: number;
  busySide: number;
  busySince: number;
  lastContact: number;
  /** Removed by another member's leave while a SyncGroup was parked: Kafka never answers it. */
  hung: boolean;
  /** Its assignors (a member refused with INCONSISTENT_GROUP_PROTOCOL is reconfigured to offer both). */
  protocols: ProtocolChoice;
}

const COMMIT_ERRORS_REJOIN = new Set([22, 25, 27]);

class Model {
  readonly clients: Client[];
  now = 0;
  /** Ids believed to be in the group (granted, not known to be gone), and pending ones. */
  readonly group = new Set<string>();
  readonly pending = new Set<string>();
  leaderId: string | null = null;
  readonly instanceHolder = new Map<string, string>();
  /**
   * The group may be Empty: the next join may start a generation with the initial delay, so the
   * sequence waits past it. The model's group view errs on the side of too many members only
   * where Kafka has members the model has not been told about (parked first joins), which then
   * keep the group from being Empty anyway.
   */
  get maybeEmpty(): boolean {
    return this.group.size === 0;
  }
  /** Order in which ids were first seen (the normaliser's numbering, same on both brokers). */
  readonly seen = new Map<string, number>();
  /** Log end offset of partition 0 and the batches produced (base offsets, timestamps). */
  leo = 0;
  readonly batches: Array<{ base: number; n: number; ts: number }> = [];
  produced = 0;
  lastCommitted = 0;
  /** Source lines of every step sent (scenarioSource). */
  readonly source: string[];
  /**
   * The model's guess of the group's state, only used to predict which parked requests an action
   * releases (collected right after it, so that the transcript does not depend on when an answer
   * arrives); a wrong guess costs a collect timeout or leaves the answer to a later poll.
   */
  state: 'preparing' | 'completing' | 'stable' = 'preparing';
  syncedGen = -1;

  constructor(
    readonly seq: RandomSequence,
    source: string[],
  ) {
    this.source = source;
    this.clients = seq.members.map((spec, k) => ({
      k,
      spec,
      life: 0,
      memberId: '',
      gen: -1,
      phase: 'out',
      protocolName: null,
      leader: false,
      skipAssignment: false,
      members: [],
      busyMain: 0,
      busySide: 0,
      busySince: 0,
      lastContact: 0,
      hung: false,
      protocols: spec.protocols,
    }));
  }

  conn(c: Client): string {
    return c.life === 0 ? c.spec.conn : `${c.spec.conn}~${c.life}`;
  }
  side(c: Client): string {
    return c.life === 0 ? c.spec.side : `${c.spec.side}~${c.life}`;
  }
  see(id: string): void {
    if (id !== '' && !this.seen.has(id)) this.seen.set(id, this.seen.size);
  }
  /** Ids that may be members now (conservative: more rather than fewer). */
  possibleMembers(): number {
    const ids = new Set(this.group);
    let unknown = 0;
    for (const c of this.clients) {
      if (c.busyMain > 0 && c.phase === 'joining' && !ids.has(c.memberId)) unknown++;
    }
    return ids.size + unknown;
  }
  /** Whether removing these ids (and instances) could make Kafka pick a leader from its hash map. */
  mayRemove(ids: string[], instances: string[] = []): boolean {
    const all = new Set(ids.filter((x) => x !== ''));
    for (const i of instances) {
      const h = this.instanceHolder.get(i);
      if (h !== undefined) all.add(h);
    }
    if (this.leaderId === null || !all.has(this.leaderId)) {
      // The leader may be unknown to the model (never seen its answer): only when nothing is removed.
      return this.leaderId !== null || all.size === 0 || this.possibleMembers() <= 2;
    }
    const remaining = this.possibleMembers() - [...all].filter((x) => this.group.has(x)).length;
    return remaining <= 1;
  }
  /** `id` is gone; `notMember` (an UNKNOWN_MEMBER_ID answer): not a member, but may still be pending. */
  removed(id: string, notMember = false): void {
    if (id === '') return;
    this.group.delete(id);
    if (!notMember) this.pending.delete(id);
    for (const [i, h] of this.instanceHolder) if (h === id) this.instanceHolder.delete(i);
    if (this.leaderId === id) this.leaderId = this.group.size === 1 ? [...this.group][0] : null;
  }
}

/** How long a predicted answer is waited for (generous: a loaded machine). */
const COLLECT_WAIT = 1_500;

/** Collect steps for the clients whose parked main-connection request `released` says is answered now. */
function collects(model: Model, released: (o: Client) => boolean): Array<[Step, string]> {
  const out: Array<[Step, string]> = [];
  for (const o of model.clients) {
    if (o.busyMain === 0 || !released(o)) continue;
    out.push([{ op: 'collect', conn: model.conn(o), timeoutMs: COLLECT_WAIT }, `{ op: 'collect', conn: ${q(model.conn(o))}, timeoutMs: ${COLLECT_WAIT} },`]);
    out.push([waited(model, o), '']);
    model.now += 5;
  }
  return out;
}

/**
 * After a collect (or a waiting send): if the answer did not come, the collect waited its whole
 * timeout, which the model's clock must count (the mortal's keep-alives depend on it).
 */
function waited(model: Model, o: Client): Step {
  const busyBefore = o.busyMain;
  const life = o.life;
  return {
    op: 'expand',
    steps: () => {
      if (o.life === life && o.busyMain >= busyBefore) model.now += COLLECT_WAIT;
      return [];
    },
  };
}

/** Steps decided after the ones before them ran (a nested expand); their source is logged then. */
function later(model: Model, f: () => Array<[Step, string]>): Step {
  // Its source goes where the step is (a slot reserved now, filled when it runs).
  const slot = model.source.length;
  model.source.push('');
  return {
    op: 'expand',
    steps: () => {
      const xs = f();
      model.source[slot] = xs
        .map((x) => x[1])
        .filter((x) => x !== '')
        .join('\n');
      return xs.map((x) => x[0]);
    },
  };
}

/** Whether every other member Kafka may have is parked in a JoinGroup (so this join completes the phase). */
function joinCompletes(model: Model, cl: Client): boolean {
  const parkedJoin = (o: Client) => o.busyMain > 0 && o.phase === 'joining';
  const owned = new Set<string>();
  for (const o of model.clients) {
    if (o === cl) continue;
    if (o.memberId !== '') owned.add(o.memberId);
    const inGroup = o.memberId !== '' && model.group.has(o.memberId);
    if ((inGroup || (parkedJoin(o) && o.memberId === '')) && !parkedJoin(o)) return false;
  }
  for (const id of model.group) if (id !== cl.memberId && !owned.has(id)) return false;
  for (const id of model.pending) if (id !== cl.memberId) return false;
  return true;
}

const models = new WeakMap<Ctx, Model>();
function modelOf(c: Ctx): Model {
  const m = models.get(c);
  if (m === undefined) throw new Error('random sequence: model not initialised');
  return m;
}

function protocolsOf(choice: ProtocolChoice) {
  const meta = (name: string) => ({ name, metadata: subscription(['t'], 0) });
  if (choice === 'range') return [meta('range')];
  if (choice === 'roundrobin') return [meta('roundrobin')];
  return [meta('range'), meta('roundrobin')];
}

/** A deterministic stream of draws from an action's own random number. */
const drawsOf = (x: number) => prng(Math.floor(x * 4294967296) ^ 0x9e3779b9);

// Source text of values in generated steps (scenarioSource).
const q = (s: string | null) => (s === null ? 'null' : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);

interface IdExpr {
  /** Variable holding the id (dsl captures), or null for a literal. */
  ref: string | null;
  lit: string;
}
interface GenExpr {
  ref: string | null;
  delta: number;
  lit: number;
}
const idDyn = (e: IdExpr) => (e.ref === null ? () => e.lit : (c: Ctx) => c.v(e.ref!, e.lit));
const idSrc = (e: IdExpr) => (e.ref === null ? q(e.lit) : `ref(${q(e.ref)}, ${q(e.lit)})`);
const genDyn = (e: GenExpr) => (e.ref === null ? () => e.lit : (c: Ctx) => c.v<number>(e.ref!, -1) + e.delta);
const genSrc = (e: GenExpr) => (e.ref === null ? String(e.lit) : e.delta === 0 ? `gen(${q(e.ref)})` : `(c: Ctx) => gen(${q(e.ref)})(c) + ${e.delta}`);

/** The steps of one plan action, decided from the model's state (called by the expand step). */
function resolve(model: Model, c: Ctx, a: Action, index: number): Step[] {
  const out: Step[] = [];
  const emit = (steps: Step[], src: string[]) => {
    out.push(...steps);
    model.source.push(...src);
  };
  // The mortal's keep-alive: its next natural request when its session could run short.
  for (const cl of model.clients) {
    if (!cl.spec.mortal || cl.phase === 'dead' || cl.memberId === '' || cl.busyMain > 0 || cl.busySide > 0) continue;
    if (model.now - cl.lastContact >= MORTAL_KEEPALIVE && !(a.kind === 'step' && a.m === cl.k)) {
      natural(model, c, cl, 0.5, `#${index} keep-alive`, emit);
    }
  }
  // A request parked too long (or never to be answered): the client reconnects, as on a request timeout.
  for (const cl of model.clients) {
    const timedOut = cl.busyMain > 0 && model.now - cl.busySince > REQUEST_TIMEOUT && (cl.memberId !== '' || cl.spec.instance !== null);
    if (timedOut || (cl.hung && cl.busyMain > 0)) restartClient(model, cl, emit, true);
  }
  switch (a.kind) {
    case 'step': {
      const cl = available(model, a.m);
      if (cl === undefined) break;
      natural(model, c, cl, a.r, `#${index}`, emit);
      break;
    }
    case 'mistake':
      mistake(model, c, a, index, emit);
      break;
    case 'leave': {
      const cl = model.clients[a.m];
      if (cl.phase === 'dead' || cl.busySide > 0) break;
      const inst = cl.spec.instance;
      const others = model.clients.filter((o) => o !== cl && o.spec.instance !== null);
      const batchWith = others.length > 0 ? others[Math.floor(a.r * others.length)] : undefined;
      const how = a.how === 'batch' && batchWith === undefined ? 'by-instance' : a.how;
      if (how === 'self' && cl.memberId === '') break;
      const ids = how === 'self' ? [cl.memberId] : [];
      const instances = inst === null ? [] : how === 'batch' ? [inst, batchWith!.spec.instance!] : [inst];
      if (!model.mayRemove(ids, instances)) break;
      const v = inst !== null || how !== 'self' ? between(drawsOf(a.r), 3, 5) : between(drawsOf(a.r), 0, 5);
      const members: LeaveSpec[] =
        how === 'self'
          ? [{ member: { ref: `m${cl.k}`, lit: '' }, raw: cl.memberId, instance: v >= 3 ? inst : null }]
          : instances.map((i) => ({ member: { ref: null, lit: '' }, raw: '', instance: i }));
      emitLeave(model, cl, v, members, `#${index} leave ${model.conn(cl)} ${how}`, true, emit);
      break;
    }
    case 'restart': {
      const cl = model.clients[a.m];
      if (cl.spec.instance === null && cl.memberId !== '' && cl.phase !== 'dead') {
        // A dynamic consumer closing leaves the group first (the leave may be refused by the guard).
        if (!model.mayRemove([cl.memberId]) || cl.busySide > 0) break;
        emitLeave(model, cl, between(drawsOf(cl.k + model.now), 0, 5), [{ member: { ref: `m${cl.k}`, lit: '' }, raw: cl.memberId, instance: null }], `#${index} leave ${model.conn(cl)} (closing)`, true, emit);
      } else if (!(cl.spec.instance === null && cl.busyMain > 0 && cl.memberId === '')) {
        // (A dynamic member whose first join is parked has an id nobody knows: closing would leave
        // an orphan that every later rebalance waits for.)
        restartClient(model, cl, emit);
      }
      break;
    }
    case 'expire': {
      const cl = model.clients[a.m];
      if (!cl.spec.mortal || cl.phase === 'dead' || cl.memberId === '' || cl.busyMain > 0 || cl.busySide > 0 || !model.group.has(cl.memberId)) break;
      if (!model.mayRemove([cl.memberId])) break;
      const id = cl.memberId;
      emit(
        [
          { op: 'close', conn: model.conn(cl) },
          { op: 'close', conn: model.side(cl) },
          { op: 'wait', ms: MORTAL_SESSION + EXPIRY_MARGIN },
          { op: 'poll', forMs: RELEASE_POLL },
        ],
        [`// #${index}: ${model.conn(cl)} stops; its session (${MORTAL_SESSION} ms) expires`, `close(${q(model.conn(cl))}),`, `close(${q(model.side(cl))}),`, `wait(${MORTAL_SESSION + EXPIRY_MARGIN}),`, `{ op: 'poll', forMs: ${RELEASE_POLL} },`],
      );
      cl.life++;
      cl.phase = 'dead';
      cl.memberId = '';
      model.removed(id);
      model.now += MORTAL_SESSION + EXPIRY_MARGIN + RELEASE_POLL;
      break;
    }
    case 'describe': {
      const cl = model.clients[a.m];
      if (cl.busySide > 0) break;
      const v = between(drawsOf(a.r), 0, 5);
      sendSide(model, cl, describeGroups(model.side(cl), { v, label: `#${index} describe v${v}` }), `describeGroups(${q(model.side(cl))}, { v: ${v}, label: ${q(`#${index} describe v${v}`)} })`, emit);
      break;
    }
    case 'offsets': {
      const cl = model.clients[a.m];
      if (cl.busySide > 0) break;
      const d = drawsOf(a.r);
      const v = between(d, 1, 9);
      const all = v >= 2 && d() < 0.3;
      const label = `#${index} offset-fetch v${v}${all ? ' all' : ''}`;
      sendSide(
        model,
        cl,
        fetchOffsets(model.side(cl), { v, topics: all ? null : [{ partitions: [0] }], label }),
        `fetchOffsets(${q(model.side(cl))}, { v: ${v}, topics: ${all ? 'null' : '[{ partitions: [0] }]'}, label: ${q(label)} })`,
        emit,
      );
      break;
    }
    case 'produce':
      produce(model, a, index, emit);
      break;
    case 'fetch':
      fetch(model, a, index, emit);
      break;
    case 'list-offsets':
      listOffsets(model, a, index, emit);
      break;
  }
  if (out.length === 0) out.push({ op: 'poll', forMs: 1 });
  return out;
}

type Emit = (steps: Step[], src: string[]) => void;

/** Member `m`, or the next one that can act now (not parked, not waiting for an answer). */
function available(model: Model, m: number): Client | undefined {
  const n = model.clients.length;
  for (let i = 0; i < n; i++) {
    const cl = model.clients[(m + i) % n];
    if (cl.busyMain === 0 && cl.busySide === 0) return cl;
  }
  return undefined;
}

/**
 * The client's connections are closed and it starts over on new ones (`m0~1`): a static member
 * rejoins with "" and its instance id (taking its own place), a dynamic one as a new member; with
 * `keepId` (a request timeout) it retries with the member id it has, as Java's consumer does.
 */
function restartClient(model: Model, cl: Client, emit: Emit, keepId = false): void {
  emit([{ op: 'close', conn: model.conn(cl) }, { op: 'close', conn: model.side(cl) }], [`close(${q(model.conn(cl))}),`, `close(${q(model.side(cl))}),`]);
  cl.life++;
  cl.busyMain = 0;
  cl.busySide = 0;
  cl.hung = false;
  cl.phase = 'out';
  cl.leader = false;
  if (!keepId) cl.memberId = '';
}

function versions(cl: Client, api: 'join' | 'sync' | 'heartbeat' | 'commit', d: () => number): number {
  const st = cl.spec.instance !== null;
  switch (api) {
    case 'join':
      // The mortal never uses v0, whose rebalance timeout is the (short) session timeout.
      return st ? between(d, 5, 9) : between(d, cl.spec.mortal ? 1 : 0, 9);
    case 'sync':
      return st ? between(d, 3, 5) : between(d, 0, 5);
    case 'heartbeat':
      return st ? between(d, 3, 4) : between(d, 0, 4);
    case 'commit':
      return st ? between(d, 7, 9) : between(d, 2, 9);
  }
}

/** The client's next request, as a real consumer would send it in its state. */
function natural(model: Model, c: Ctx, cl: Client, r: number, label: string, emit: Emit): void {
  const d = drawsOf(r + cl.k / 7);
  if (cl.phase === 'dead') {
    // Fenced or expired: the process is restarted and joins again.
    restartClient(model, cl, emit);
  }
  const me = `m${cl.k}`;
  switch (cl.phase) {
    case 'out':
    case 'dead': {
      const v = versions(cl, 'join', d);
      emitJoin(model, cl, v, cl.memberId === '' ? { ref: null, lit: '' } : { ref: me, lit: '' }, cl.spec.instance, false, `${label} join ${model.conn(cl)}${cl.memberId === '' ? ' new' : ''}`, emit);
      break;
    }
    case 'joined': {
      const v = versions(cl, 'sync', d);
      const assign = cl.leader && !cl.skipAssignment ? assignmentsFor(model, cl) : [];
      emitSync(model, cl, v, { ref: me, lit: '' }, { ref: `${me}.gen`, delta: 0, lit: -1 }, v >= 3 ? cl.spec.instance : null, assign, v >= 5 ? cl.protocolName : undefined, true, `${label} sync ${model.conn(cl)}${assign.length > 0 ? ' leader' : ''}`, emit);
      break;
    }
    case 'stable': {
      if (d() < 0.65) {
        const v = versions(cl, 'heartbeat', d);
        emitHeartbeat(model, cl, v, { ref: me, lit: '' }, { ref: `${me}.gen`, delta: 0, lit: -1 }, v >= 3 ? cl.spec.instance : null, true, `${label} heartbeat ${model.conn(cl)}`, emit);
      } else {
        const v = versions(cl, 'commit', d);
        const offset = d() < 0.2 ? model.leo + 7 : model.leo;
        emitCommit(model, cl, v, { ref: me, lit: '' }, { ref: `${me}.gen`, delta: 0, lit: -1 }, v >= 7 ? cl.spec.instance : null, offset, true, `${label} commit ${model.conn(cl)} @${offset}`, emit);
      }
      break;
    }
    default:
      break;
  }
  void c;
}

/** The leader's assignments: every member its JoinGroup answer listed, named by owner. */
function assignmentsFor(model: Model, cl: Client): string[] {
  const names: string[] = [];
  const ids = [...cl.members].sort((x, y) => (model.seen.get(x) ?? 1e9) - (model.seen.get(y) ?? 1e9));
  for (const id of ids) {
    const owner = model.clients.find((o) => o.memberId === id);
    if (owner !== undefined) names.push(`m${owner.k}`);
  }
  return [...new Set(names)];
}

function track(model: Model, cl: Client, s: SendStep<any>, onMain: boolean, react: ((res: any) => void) | null): SendStep<any> {
  const inner = s.capture;
  if (onMain) {
    if (cl.busyMain === 0) cl.busySince = model.now;
    cl.busyMain++;
  } else cl.busySide++;
  const life = cl.life;
  cl.lastContact = model.now;
  return {
    ...s,
    skipIfBusy: true,
    capture: (res: any, c: Ctx) => {
      inner?.(res, c);
      // An answer to an earlier incarnation's connection cannot arrive (it was closed).
      if (life !== cl.life) return;
      if (onMain) cl.busyMain = Math.max(0, cl.busyMain - 1);
      else cl.busySide = Math.max(0, cl.busySide - 1);
      if (typeof res?.memberId === 'string') model.see(res.memberId);
      if (typeof res?.leader === 'string') model.see(res.leader);
      for (const mm of res?.members ?? []) if (typeof mm?.memberId === 'string') model.see(mm.memberId);
      react?.(res);
    },
  };
}

function emitJoin(model: Model, cl: Client, v: number, member: IdExpr, instance: string | null, mistaken: boolean, label: string, emit: Emit, o: { badSession?: boolean } = {}): void {
  const me = `m${cl.k}`;
  const inst = v >= 5 ? instance : null;
  const session = o.badSession ? 5 : cl.spec.mortal ? MORTAL_SESSION : SESSION;
  const asked = member.ref === null ? member.lit : cl.memberId;
  const isNew = asked === '' || !model.group.has(asked);
  // Answered at once: a mistake (unknown/old id, bad session timeout), the KIP-394 first join of a
  // dynamic member. Answered with the phase: when every other member is parked in a join already
  // (or the group is empty: after the initial delay). Otherwise it parks.
  const immediate = mistaken || o.badSession === true || (inst === null && v >= 4 && asked === '');
  // The first join into an Empty group completes its phase alone after the initial delay (an
  // InitialDelayedJoin completes on its timer, pending members or not): it is waited for, so that
  // no other join can land in the delay window and the membership of generation 1 never depends
  // on timing.
  const completes = !immediate && (model.maybeEmpty || joinCompletes(model, cl));
  const wait = immediate || completes;
  const step = join(model.conn(cl), { v, member: idDyn(member), instance: inst, protocols: protocolsOf(cl.protocols), session, rebalance: REBALANCE, wait, timeoutMs: COLLECT_WAIT, keepOld: true, as: me, label });
  const tracked = track(model, cl, step, true, (res) => onJoin(model, cl, res, mistaken, asked));
  if (!mistaken) cl.phase = 'joining';
  const src = `{ ...join(${q(model.conn(cl))}, { v: ${v}, member: ${idSrc(member)}, instance: ${q(inst)}, protocols: P.${cl.protocols}, session: ${session}, rebalance: ${REBALANCE}, wait: ${wait}, timeoutMs: ${COLLECT_WAIT}, keepOld: true, as: ${q(me)}, label: ${q(label)} }), skipIfBusy: true },`;
  const poll = wait ? QUIET_POLL : RELEASE_POLL;
  if (!immediate && !completes && isNew) model.state = 'preparing';
  const wasCompleting = model.state === 'completing';
  emit(wait ? [tracked, waited(model, cl)] : [tracked], [src]);
  emit(
    [
      later(model, () =>
        completes
          ? // The phase completed: every parked join is answered with it.
            cl.phase === 'joined'
            ? collects(model, (x) => x !== cl && x.phase === 'joining')
            : []
          : // A new member starts a rebalance: parked SyncGroups are told REBALANCE_IN_PROGRESS.
            !immediate && isNew && wasCompleting
            ? collects(model, (x) => x !== cl && x.phase === 'syncing')
            : [],
      ),
      { op: 'poll', forMs: poll },
    ],
    [`{ op: 'poll', forMs: ${poll} },`],
  );
  model.now += SETTLE + poll + (completes && model.maybeEmpty ? INITIAL_DELAY : 0);
}

function onJoin(model: Model, cl: Client, res: any, mistaken: boolean, asked: string): void {
  const code: number = res.errorCode;
  if (code === 0 || code === 79) {
    if (code === 0) {
      model.group.add(res.memberId);
      model.pending.delete(res.memberId);
      model.leaderId = res.leader;
      if (cl.spec.instance !== null) {
        const before = model.instanceHolder.get(cl.spec.instance);
        if (before !== undefined && before !== res.memberId) model.group.delete(before);
        model.instanceHolder.set(cl.spec.instance, res.memberId);
      }
      if (res.leader === res.memberId && res.members.length > 0) {
        model.group.clear();
        for (const mm of res.members) model.group.add(mm.memberId);
      }
    } else model.pending.add(res.memberId);
  } else if (code === 25 && asked !== '') model.removed(asked, true);
  if (code === 0) model.state = 'completing';
  if (mistaken) return;
  switch (code) {
    case 0:
      cl.memberId = res.memberId;
      cl.gen = res.generationId;
      cl.phase = 'joined';
      cl.protocolName = res.protocolName;
      cl.leader = res.leader === res.memberId;
      cl.skipAssignment = res.skipAssignment === true;
      cl.members = (res.members as Array<{ memberId: string }>).map((mm) => mm.memberId);
      break;
    case 79:
      cl.memberId = res.memberId;
      cl.phase = 'out';
      break;
    case 25:
      cl.memberId = '';
      cl.phase = 'out';
      break;
    case 82:
      cl.phase = 'dead';
      break;
    case 23:
      cl.protocols = 'both';
      cl.phase = 'out';
      break;
    default:
      cl.phase = 'out';
  }
}

function emitSync(model: Model, cl: Client, v: number, member: IdExpr, generation: GenExpr, instance: string | null, assign: string[], protocolName: string | null | undefined, natural: boolean, label: string, emit: Emit): void {
  const asked = member.ref === null ? member.lit : cl.memberId;
  // Answered at once: the leader's, a mistake's, a follower's once the leader synced this
  // generation or once a rebalance started. Otherwise it parks until the leader's.
  const leader = natural && cl.leader;
  const wait = !natural || leader || model.state === 'preparing' || (model.state === 'stable' && model.syncedGen === cl.gen);
  // The leader's assignment bytes name the owner ("asg:m2"): the same on both brokers.
  const step = sync(model.conn(cl), { v, member: idDyn(member), generation: genDyn(generation), instance, assign, protocolName, wait, timeoutMs: COLLECT_WAIT, label });
  const tracked = track(model, cl, step, true, (res) => {
    if (res.errorCode === 25 && asked !== '') model.removed(asked, true);
    if (res.errorCode === 27) model.state = 'preparing';
    if (!natural) return;
    onGroupError(cl, res.errorCode);
    if (res.errorCode === 0) {
      cl.phase = 'stable';
      if (leader) {
        model.state = 'stable';
        model.syncedGen = cl.gen;
      }
    }
  });
  if (natural) cl.phase = 'syncing';
  const poll = wait ? QUIET_POLL : RELEASE_POLL;
  emit(
    wait ? [tracked, waited(model, cl)] : [tracked],
    [
      `{ ...sync(${q(model.conn(cl))}, { v: ${v}, member: ${idSrc(member)}, generation: ${genSrc(generation)}, instance: ${q(instance)}, assign: ${JSON.stringify(assign).replace(/"/g, "'")}, protocolName: ${protocolName === undefined ? 'undefined' : q(protocolName)}, wait: ${wait}, timeoutMs: ${COLLECT_WAIT}, label: ${q(label)} }), skipIfBusy: true },`,
    ],
  );
  emit(
    [
      // The leader's assignment releases every parked SyncGroup of its generation.
      later(model, () => (leader && cl.phase === 'stable' ? collects(model, (x) => x !== cl && x.phase === 'syncing' && x.gen === cl.gen) : [])),
      { op: 'poll', forMs: poll },
    ],
    [`{ op: 'poll', forMs: ${poll} },`],
  );
  model.now += SETTLE + poll;
}

/** A consumer's reaction to a group error in a SyncGroup/Heartbeat/OffsetCommit answer. */
function onGroupError(cl: Client, code: number): void {
  switch (code) {
    case 0:
      return;
    case 25:
      cl.memberId = '';
      cl.phase = 'out';
      return;
    case 82:
      cl.phase = 'dead';
      return;
    case 22:
    case 27:
      cl.phase = 'out';
      return;
    default:
      // Anything else (INCONSISTENT_GROUP_PROTOCOL, COORDINATOR_*, ...): rejoin.
      if (cl.phase === 'syncing') cl.phase = 'out';
  }
}

function emitHeartbeat(model: Model, cl: Client, v: number, member: IdExpr, generation: GenExpr, instance: string | null, natural: boolean, label: string, emit: Emit): void {
  const step = heartbeat(model.side(cl), { v, member: idDyn(member), generation: genDyn(generation), instance, label });
  const asked = member.ref === null ? member.lit : cl.memberId;
  const tracked = track(model, cl, step, false, (res) => {
    if (res.errorCode === 25 && asked !== '') model.removed(asked, true);
    if (res.errorCode === 27) model.state = 'preparing';
    if (natural && cl.phase === 'stable') onGroupError(cl, res.errorCode);
  });
  emit(
    [tracked, { op: 'poll', forMs: QUIET_POLL }],
    [
      `{ ...heartbeat(${q(model.side(cl))}, { v: ${v}, member: ${idSrc(member)}, generation: ${genSrc(generation)}, instance: ${q(instance)}, label: ${q(label)} }), skipIfBusy: true },`,
      `{ op: 'poll', forMs: ${QUIET_POLL} },`,
    ],
  );
  model.now += QUIET_POLL + 5;
}

function emitCommit(model: Model, cl: Client, v: number, member: IdExpr, generation: GenExpr, instance: string | null, offset: number, natural: boolean, label: string, emit: Emit): void {
  const step = commit(model.side(cl), { v, member: idDyn(member), generation: genDyn(generation), instance, offsets: [[0, offset]], label });
  const tracked = track(model, cl, step, false, (res) => {
    const code: number = res.topics?.[0]?.partitions?.[0]?.errorCode ?? 0;
    if (code === 0) model.lastCommitted = offset;
    if (code === 27) model.state = 'preparing';
    if (natural && cl.phase === 'stable' && COMMIT_ERRORS_REJOIN.has(code)) onGroupError(cl, code);
    if (natural && code === 82) onGroupError(cl, code);
  });
  emit(
    [tracked, { op: 'poll', forMs: QUIET_POLL }],
    [
      `{ ...commit(${q(model.side(cl))}, { v: ${v}, member: ${idSrc(member)}, generation: ${genSrc(generation)}, instance: ${q(instance)}, offsets: [[0, ${offset}]], label: ${q(label)} }), skipIfBusy: true },`,
      `{ op: 'poll', forMs: ${QUIET_POLL} },`,
    ],
  );
  model.now += QUIET_POLL + 5;
}

interface LeaveSpec {
  member: IdExpr;
  /** The id it stands for now (for the model's bookkeeping). */
  raw: string;
  instance: string | null;
}

function emitLeave(model: Model, cl: Client, v: number, members: LeaveSpec[], label: string, natural: boolean, emit: Emit): void {
  const me = `m${cl.k}`;
  const exprs = members;
  const step = leave(model.side(cl), {
    v,
    member: idDyn(exprs[0].member),
    members: v >= 3 ? exprs.map((x) => ({ member: idDyn(x.member), instance: x.instance })) : undefined,
    label,
  });
  const asked = members.map((x) => x.raw);
  const instances = members.map((x) => x.instance).filter((x): x is string => x !== null);
  const wasBusyMain = cl.busyMain > 0;
  const removedIds: string[] = [];
  const stateBefore = model.state;
  const tracked = track(model, cl, step, false, (res) => {
    const results: Array<{ memberId: string; groupInstanceId: string | null; errorCode: number }> = res.members ?? [];
    if (v < 3) {
      if (res.errorCode === 0) {
        removedIds.push(asked[0]);
        model.removed(asked[0]);
      }
    } else {
      for (const x of results) {
        if (x.errorCode !== 0) continue;
        const id = x.memberId !== '' ? x.memberId : x.groupInstanceId !== null ? (model.instanceHolder.get(x.groupInstanceId) ?? '') : '';
        // A member removed by another's request: if its SyncGroup is parked, Kafka never answers it.
        const victim = model.clients.find((o) => o !== cl && o.memberId === id && id !== '');
        if (victim && victim.phase === 'syncing' && victim.busyMain > 0) victim.hung = true;
        removedIds.push(id);
        model.removed(id);
      }
    }
  });
  if (natural) {
    // The consumer left: it closes (its parked join, if any, is answered or dropped) and starts over.
    cl.phase = 'out';
    cl.memberId = '';
    cl.leader = false;
  }
  const src = [
    `{ ...leave(${q(model.side(cl))}, { v: ${v}, member: ${idSrc(exprs[0].member)}, members: ${v >= 3 ? `[${exprs.map((x) => `{ member: ${idSrc(x.member)}, instance: ${q(x.instance)} }`).join(', ')}]` : 'undefined'}, label: ${q(label)} }), skipIfBusy: true },`,
  ];
  emit([tracked], src);
  // What the removals release: a removed member's parked join (UNKNOWN_MEMBER_ID), parked
  // SyncGroups (REBALANCE_IN_PROGRESS: the group rebalances), every parked join when the others
  // were all waiting for the removed members.
  emit(
    [
      later(model, () => {
        if (removedIds.filter((x) => x !== '').length === 0) return [];
        const completes = model.clients.some((x) => x !== cl && x.busyMain > 0 && x.phase === 'joining' && x.memberId !== '' && !removedIds.includes(x.memberId)) && joinCompletes(model, cl);
        if (!completes && (stateBefore === 'completing' || stateBefore === 'stable')) model.state = 'preparing';
        return collects(
          model,
          (x) =>
            !x.hung &&
            (x !== cl || !natural) &&
            ((x.phase === 'joining' && (removedIds.includes(x.memberId) || completes)) || (x.phase === 'syncing' && stateBefore === 'completing')),
        );
      }),
      { op: 'poll', forMs: QUIET_POLL },
    ],
    [`{ op: 'poll', forMs: ${QUIET_POLL} },`],
  );
  model.now += QUIET_POLL + 5;
  void me;
  void instances;
  if (natural && wasBusyMain) {
    // Its connection had a parked request: a closing consumer drops it with the connection.
    restartClient(model, cl, emit);
  }
}

function mistake(model: Model, c: Ctx, a: Extract<Action, { kind: 'mistake' }>, index: number, emit: Emit): void {
  const cl = model.clients[a.m];
  if (cl.busySide > 0 || cl.phase === 'dead') return;
  const d = drawsOf(a.r);
  const me = `m${cl.k}`;
  const others = model.clients.filter((o) => o !== cl && o.memberId !== '');
  const other = others.length > 0 ? others[Math.floor(d() * others.length)] : undefined;
  const hasOld = c.has(`${me}.old`);
  const idOf = (choice: IdChoice): IdExpr => {
    switch (choice) {
      case 'own':
        return cl.memberId === '' ? { ref: null, lit: '' } : { ref: me, lit: '' };
      case 'old':
        return hasOld ? { ref: `${me}.old`, lit: '' } : { ref: null, lit: 'bogus-member-id' };
      case 'other':
        return other ? { ref: `m${other.k}`, lit: '' } : { ref: null, lit: 'bogus-member-id' };
      case 'bogus':
        return { ref: null, lit: 'bogus-member-id' };
      case 'empty':
        return { ref: null, lit: '' };
    }
  };
  const genOf = (choice: GenChoice): GenExpr => {
    const ref = `${me}.gen`;
    switch (choice) {
      case 'own':
        return { ref, delta: 0, lit: -1 };
      case 'next':
        return { ref, delta: 1, lit: -1 };
      case 'prev':
        return { ref, delta: -1, lit: -1 };
      case 'minus':
        return { ref: null, delta: 0, lit: -1 };
    }
  };
  const instOf = (choice: InstanceChoice): string | null => (choice === 'own' ? cl.spec.instance : choice === 'bogus' ? 'inst-bogus' : null);
  const tag = `#${index} mistake ${a.api} ${model.conn(cl)} id=${a.id} gen=${a.gen} inst=${a.instance}`;
  switch (a.api) {
    case 'heartbeat':
    case 'commit': {
      let id = a.id;
      let g = a.gen;
      if (id === 'own' && g === 'own') g = 'next';
      if (id === 'other' && other === undefined) id = 'bogus';
      const v = versions(cl, a.api, d);
      const inst = v >= (a.api === 'heartbeat' ? 3 : 7) ? instOf(a.instance) : null;
      if (a.api === 'heartbeat') emitHeartbeat(model, cl, v, idOf(id), genOf(g), inst, false, tag, emit);
      else emitCommit(model, cl, v, idOf(id), genOf(g), inst, model.leo + 100 + index, false, tag, emit);
      return;
    }
    case 'sync': {
      // Only requests answered at once (a wrong id, generation -1 or a wrong protocol name), so that
      // a mistake never parks in place of the member's real SyncGroup.
      if (cl.busyMain > 0) return;
      const v = versions(cl, 'sync', d);
      let id: IdChoice = a.id === 'other' || (a.id === 'old' && !hasOld) ? 'bogus' : a.id;
      let g: GenChoice = a.gen;
      const badProtocol = a.badProtocol === true && v >= 5 && id === 'own';
      if (id === 'own' && !badProtocol) g = 'minus';
      if (id === 'own' && g !== 'minus' && !badProtocol) id = 'bogus';
      const protocol = badProtocol ? (cl.protocolName === 'range' ? 'roundrobin' : 'range') : v >= 5 ? cl.protocolName : undefined;
      emitSync(model, cl, v, idOf(id), genOf(g), v >= 3 ? instOf(a.instance) : null, [], protocol, false, `${tag}${badProtocol ? ' bad-protocol' : ''}`, emit);
      return;
    }
    case 'join': {
      // Answered at once: an unknown or old id, or a session timeout below the minimum.
      if (cl.busyMain > 0) return;
      const v = versions(cl, 'join', d);
      const badSession = a.badSession === true || (a.id !== 'old' && a.id !== 'bogus');
      const id: IdExpr = badSession ? idOf('own') : idOf(a.id);
      if (!badSession && id.ref !== null && id.ref === `${me}.old` && c.v(`${me}.old`) === cl.memberId) return;
      emitJoin(model, cl, v, id, v >= 5 ? (a.instance === 'bogus' && !badSession ? null : cl.spec.instance) : null, true, `${tag}${badSession ? ' bad-session' : ''}`, emit, { badSession });
      return;
    }
    case 'leave': {
      let id = a.id === 'own' ? 'bogus' : a.id;
      if (id === 'other' && other === undefined) id = 'bogus';
      const e = idOf(id);
      const raw = e.ref === null ? e.lit : c.v(e.ref, '');
      const v = between(d, 0, 5);
      const instance = v >= 3 && a.instance === 'bogus' ? 'inst-bogus' : null;
      if (!model.mayRemove([raw], instance ? [instance] : [])) return;
      emitLeave(model, cl, v, [{ member: e, raw, instance }], tag, false, emit);
      return;
    }
  }
}

function sendSide(model: Model, cl: Client, s: SendStep<any>, src: string, emit: Emit): void {
  emit([track(model, cl, s, false, null), { op: 'poll', forMs: QUIET_POLL }], [`{ ...${src}, skipIfBusy: true },`, `{ op: 'poll', forMs: ${QUIET_POLL} },`]);
  model.now += QUIET_POLL + 5;
}

// ---- data: Produce / Fetch / ListOffsets on one connection ------------------------------------

/** A v2 batch of `n` records with timestamps T0 + 1000 × batch number + i. */
export function randomBatch(k: number, n: number): Buffer {
  return encodeBatch({
    baseTimestamp: T0 + 1000 * k,
    records: Array.from({ length: n }, (_, i) => ({ key: `k${k}.${i}`, value: `v${k}.${i}`, timestampDelta: i, headers: [] })),
  });
}

function produce(model: Model, a: Extract<Action, { kind: 'produce' }>, index: number, emit: Emit): void {
  const d = drawsOf(a.r);
  const v = between(d, 3, 11);
  const acks = d() < 0.5 ? -1 : 1;
  const k = model.produced++;
  const label = `#${index} produce v${v} ${a.n} records acks=${acks}`;
  const step = send('data', 0, v, (c: Ctx) => ({ transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: c.t(), partitionData: [{ index: 0, records: randomBatch(k, a.n) }] }] }), {
    label,
    capture: (res: any) => {
      const p = res.responses?.[0]?.partitionResponses?.[0];
      if (p?.errorCode === 0) {
        model.batches.push({ base: Number(p.baseOffset), n: a.n, ts: T0 + 1000 * k });
        model.leo = Math.max(model.leo, Number(p.baseOffset) + a.n);
      }
    },
  });
  emit(
    [step, { op: 'poll', forMs: QUIET_POLL }],
    [
      `send('data', 0, ${v}, (c: Ctx) => ({ transactionalId: null, acks: ${acks}, timeoutMs: 5000, topicData: [{ name: c.t(), partitionData: [{ index: 0, records: randomBatch(${k}, ${a.n}) }] }] }), { label: ${q(label)} }),`,
      `{ op: 'poll', forMs: ${QUIET_POLL} },`,
    ],
  );
  model.now += QUIET_POLL + 10;
}

function fetch(model: Model, a: Extract<Action, { kind: 'fetch' }>, index: number, emit: Emit): void {
  const d = drawsOf(a.r);
  const v = between(d, 4, 16);
  const mid = model.batches.find((b) => b.n > 1);
  const offset =
    a.from === 'start' ? 0 : a.from === 'committed' ? Math.min(model.lastCommitted, model.leo) : a.from === 'middle' ? (mid ? mid.base + 1 : 0) : a.from === 'end' ? model.leo : model.leo + 5;
  const label = `#${index} fetch v${v} @${offset} (${a.from})`;
  const byId = v >= 13;
  const body = `(c: Ctx) => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1048576, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: ${byId ? "''" : 'c.t()'}, topicId: ${byId ? "c.v('tid', 'AAAAAAAAAAAAAAAAAAAAAA')" : "'AAAAAAAAAAAAAAAAAAAAAA'"}, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: ${offset}, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }] }], forgottenTopicsData: [], rackId: '' })`;
  const step = send('data', 1, v, (c: Ctx) => ({
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1048576,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: byId ? '' : c.t(),
        topicId: byId ? c.v('tid', 'AAAAAAAAAAAAAAAAAAAAAA') : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  }), { label });
  emit([step, { op: 'poll', forMs: QUIET_POLL }], [`send('data', 1, ${v}, ${body}, { label: ${q(label)} }),`, `{ op: 'poll', forMs: ${QUIET_POLL} },`]);
  model.now += QUIET_POLL + 10;
}

function listOffsets(model: Model, a: Extract<Action, { kind: 'list-offsets' }>, index: number, emit: Emit): void {
  const d = drawsOf(a.r);
  const v = a.what === 'max' ? between(d, 7, 9) : between(d, 0, 9);
  const b = model.batches.length > 0 ? model.batches[Math.floor(d() * model.batches.length)] : undefined;
  const ts = a.what === 'earliest' ? -2 : a.what === 'latest' ? -1 : a.what === 'max' ? -3 : b ? b.ts + (d() < 0.5 ? 0 : b.n) : T0;
  const label = `#${index} list-offsets v${v} ${a.what}${ts >= 0 ? ` ${ts - T0}` : ''}`;
  const body = (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: ts, maxNumOffsets: 1 }] }] });
  emit(
    [send('data', 2, v, body, { label }), { op: 'poll', forMs: QUIET_POLL }],
    [
      `send('data', 2, ${v}, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: ${ts >= 0 ? `RANDOM_T0 + ${ts - T0}` : ts}, maxNumOffsets: 1 }] }] }), { label: ${q(label)} }),`,
      `{ op: 'poll', forMs: ${QUIET_POLL} },`,
    ],
  );
  model.now += QUIET_POLL + 10;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

function usesData(actions: Action[]): boolean {
  return actions.some((a) => a.kind === 'produce' || a.kind === 'fetch' || a.kind === 'list-offsets');
}

const metadataStep = (): SendStep<3> =>
  send('data', 3, 12, (c: Ctx) => ({ topics: [{ name: c.t() }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), {
    label: 'metadata (topic id)',
    capture: (r: any, c: Ctx) => c.set('tid', r.topics?.[0]?.topicId),
  });

/**
 * A just-created topic is in Kafka's metadata a moment before its partition's leader serves
 * fetches (NOT_LEADER_OR_FOLLOWER): the data path is ready once ListOffsets answers (retried;
 * only the last answer is in the transcript).
 */
const dataReadyStep = (): SendStep<2> =>
  send('data', 2, 1, (c: Ctx) => ({ replicaId: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, timestamp: -1 }] }] }), {
    label: 'list-offsets (partition ready)',
    retry: { while: (r: any) => [3, 5, 6].includes(r.topics?.[0]?.partitions?.[0]?.errorCode), delayMs: 50, max: 100 },
  });

/** The scenario for a plan (or for a subset of its actions, when shrinking): closed loop. */
export function toScenario(seq: RandomSequence, actions: Action[] = seq.actions, name = `random-seed-${seq.seed}`): Scenario {
  if (seq.txn !== undefined) return toTxnScenario(txnShape(seq), actions as TxnAction[], name);
  const data = usesData(actions);
  return {
    name,
    description: `seeded random group sequence, closed loop (seed ${seq.seed}, ${actions.length} actions, members ${seq.members.map((m) => (m.instance ? 'static' : 'dynamic') + (m.mortal ? ' mortal' : '')).join('+')})`,
    tags: ['random'],
    settleMs: SETTLE,
    steps: [
      createTopic('admin', 't', 1, { expect: undefined }),
      ...(data ? [metadataStep(), dataReadyStep()] : []),
      {
        op: 'set',
        name: '__source',
        value: (c: Ctx) => {
          const source: string[] = [];
          models.set(c, new Model(seq, source));
          return source;
        },
      },
      ...actions.map((a): Step => {
        const index = seq.actions.indexOf(a);
        return { op: 'expand', steps: (c: Ctx) => resolve(modelOf(c), c, a, index) };
      }),
    ],
    collectTimeoutMs: 5000,
  };
}

/** One line per action, for reports. */
export function describeActions(seq: RandomSequence, actions: Action[] = seq.actions): string {
  const who = (m: number) => {
    const s = seq.members[m];
    return `${s.conn}${s.instance ? `[${s.instance}]` : ''}${s.mortal ? '(mortal)' : ''}`;
  };
  const producer = (p: number) => `${seq.txn!.producers[p].name}[${seq.txn!.producers[p].tx}]`;
  return actions
    .map((a) => {
      const i = seq.actions.indexOf(a);
      const rest = Object.entries(a)
        .filter(([k]) => k !== 'kind' && k !== 'm' && k !== 'p')
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      return `#${i} ${a.kind}${'m' in a ? ` ${who(a.m)}` : ''}${'p' in a ? ` ${producer(a.p)}` : ''} ${rest}`;
    })
    .join('\n');
}

/**
 * TypeScript source of a ready-to-commit scenario reproducing `actions` of `seq`.
 *
 * With a transcript of a run (`result.transcripts[1]`, the reference's, or the shrunk result's),
 * the scenario is the requests that run sent, open loop, written with the dsl builders (each
 * commented with the reference's error code); without one, it is the plan replayed closed loop
 * through `toScenario` (exact on any broker, but not independent of this generator).
 */
export function scenarioSource(seq: RandomSequence, actions: Action[] = seq.actions, transcript?: Pick<Transcript, 'vars' | 'events'>): string {
  const name = `random-seed-${seq.seed}${actions.length < seq.actions.length ? '-shrunk' : ''}`;
  const ident = `randomSeed${seq.seed}`;
  const header = [
    `// Reproduces random sequence seed ${seq.seed} (${actions.length} of ${seq.actions.length} plan actions).`,
    `// Plan:`,
    ...describeActions(seq, actions)
      .split('\n')
      .map((l) => `//   ${l}`),
  ];
  const source = transcript?.vars?.__source as string[] | undefined;
  if (source === undefined) {
    const plan = { seed: seq.seed, members: seq.members, actions, ...(seq.txn ? { txn: seq.txn } : {}) };
    return [
      ...header,
      `import type { Scenario } from '../runner.js';`,
      `import { toScenario, type RandomSequence } from '../random.js';`,
      ``,
      `const plan: RandomSequence = ${JSON.stringify(plan, null, 2)};`,
      ``,
      `export const ${ident}: Scenario = { ...toScenario(plan, plan.actions, ${q(name)}), tags: ['group', 'random-regression'] };`,
      ``,
    ].join('\n');
  }
  const codes = new Map<string, string>();
  for (const e of transcript?.events ?? []) {
    if (e.kind !== 'response' || e.label === undefined) continue;
    codes.set(e.label, summariseCodes(e.response));
  }
  if (seq.txn !== undefined) return txnScenarioSource(txnShape(seq), name, ident, header, transcript!, (label) => codes.get(label));
  const lines = source.flatMap((l) => l.split('\n')).filter((l) => l !== '').map((l) => {
    const m = /label: '((?:[^'\\]|\\.)*)'/.exec(l);
    const c = m ? codes.get(m[1].replace(/\\'/g, "'")) : undefined;
    return `    ${l}${c ? ` // reference: ${c}` : ''}`;
  });
  const data = usesData(actions);
  return [
    ...header,
    `import type { Ctx, Scenario } from '../runner.js';`,
    `import { close, commit, createTopic, describeGroups, fetchOffsets, gen, heartbeat, join, leave, ref, send, subscription, sync, wait } from './dsl.js';`,
    `import { RANDOM_T0, randomBatch } from '../random.js';`,
    ``,
    `const P = {`,
    `  range: [{ name: 'range', metadata: subscription(['t'], 0) }],`,
    `  roundrobin: [{ name: 'roundrobin', metadata: subscription(['t'], 0) }],`,
    `  both: [{ name: 'range', metadata: subscription(['t'], 0) }, { name: 'roundrobin', metadata: subscription(['t'], 0) }],`,
    `};`,
    ``,
    `export const ${ident}: Scenario = {`,
    `  name: ${q(name)},`,
    `  description: ${q(`random sequence seed ${seq.seed}, as sent to the reference broker (open loop)`)},`,
    `  tags: ['group'],`,
    `  settleMs: ${SETTLE},`,
    `  collectTimeoutMs: 5000,`,
    `  steps: [`,
    `    createTopic('admin', 't', 1, { expect: undefined }),`,
    ...(data
      ? [
          `    send('data', 3, 12, (c: Ctx) => ({ topics: [{ name: c.t() }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), { label: 'metadata (topic id)', capture: (r: any, c: Ctx) => c.set('tid', r.topics?.[0]?.topicId) }),`,
          `    send('data', 2, 1, (c: Ctx) => ({ replicaId: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, timestamp: -1 }] }] }), { label: 'list-offsets (partition ready)', retry: { while: (r: any) => [3, 5, 6].includes(r.topics?.[0]?.partitions?.[0]?.errorCode), delayMs: 50, max: 100 } }),`,
        ]
      : []),
    ...lines,
    `  ],`,
    `};`,
    `void [close, commit, describeGroups, fetchOffsets, gen, heartbeat, join, leave, ref, send, sync, wait, randomBatch, RANDOM_T0];`,
    ``,
  ].join('\n');
}

/** The error codes of an answer, for comments ("0", "25", "topics: 0"). */
function summariseCodes(r: unknown): string {
  const codes: number[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) {
        if (k === 'errorCode' && typeof v === 'number') codes.push(v);
        else walk(v);
      }
    }
  };
  walk(r);
  return `errorCode ${[...new Set(codes)].join('/') || '-'}`;
}

// ---------------------------------------------------------------------------------------------
// Shrinking

export interface ShrinkResult {
  actions: Action[];
  evaluations: number;
  /** True when the budget ran out before the result was 1-minimal. */
  truncated: boolean;
}

/**
 * ddmin over the plan: first drops every action of one member at a time (whole members), then
 * chunks of actions. `stillFails(subset)` replays the subset on both brokers and says whether the
 * difference is still there. Stops after `maxEvaluations` replays or `maxMs`.
 */
export async function shrink(
  actions: Action[],
  stillFails: (subset: Action[]) => Promise<boolean>,
  o: { maxEvaluations?: number; maxMs?: number } = {},
): Promise<ShrinkResult> {
  const maxEvaluations = o.maxEvaluations ?? 60;
  const deadline = Date.now() + (o.maxMs ?? 90_000);
  let current = [...actions];
  let n = 2;
  let evaluations = 0;
  const budgetLeft = () => evaluations < maxEvaluations && Date.now() < deadline;
  // Whole members of a group sequence, whole producers of a transactional one.
  const ownerOf = (a: Action): number | undefined => ('m' in a ? a.m : 'p' in a ? a.p : undefined);
  const membersOf = (xs: Action[]) => [...new Set(xs.flatMap((a) => (ownerOf(a) === undefined ? [] : [ownerOf(a)!])))].sort((x, y) => y - x);
  for (const m of membersOf(current)) {
    if (!budgetLeft()) break;
    const without = current.filter((a) => ownerOf(a) !== m);
    if (without.length === 0 || without.length === current.length) continue;
    evaluations++;
    if (await stillFails(without)) current = without;
  }
  while (current.length >= 2 && budgetLeft()) {
    const chunk = Math.ceil(current.length / n);
    let reduced = false;
    for (let start = 0; start < current.length && budgetLeft(); start += chunk) {
      const complement = [...current.slice(0, start), ...current.slice(start + chunk)];
      if (complement.length === 0) continue;
      evaluations++;
      if (await stillFails(complement)) {
        current = complement;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(n * 2, current.length);
    }
  }
  return { actions: current, evaluations, truncated: !budgetLeft() && current.length >= 2 };
}

void pick;
