// Seeded random sequences of classic-group requests, and a shrinker.
//
// The generator is a small model of what a client may send next: two members (each static or
// dynamic, drawn per sequence) join, sync, heartbeat, commit, leave, describe or restart, with
// plausible and deliberately wrong member ids (their own, a stale one, another member's, a bogus
// one, ""), generations (captured, off by one, -1) and instance ids, and versions drawn per
// request from what the member may speak (static members need JoinGroup v5+). The sequence is
// fixed in advance (the model predicts, the brokers decide), so both brokers get exactly the
// same requests; what each answers is captured and fed into later requests by name.
//
// Timing is kept out of the comparison: session and rebalance timeouts are long (no expiry during
// a sequence), and after every JoinGroup the sequence waits longer than the initial rebalance
// delay before sending anything else, so only the requests decide what completes. Two members
// only: with three, a leader that leaves hands leadership to whichever member Kafka's hash map
// lists first, which no mock can predict.
//
// The shrinker is delta debugging (ddmin) over the actions: it removes chunks of actions while
// the sequence still shows a difference, down to a 1-minimal sequence or the evaluation budget.
import type { Ctx, Scenario, Step } from './runner.js';
import { INITIAL_DELAY, commit, createTopic, describeGroups, heartbeat, join, leave, ref, subscription, sync } from './scenarios/dsl.js';

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

export interface MemberSpec {
  /** Connection for JoinGroup/SyncGroup (they may park). */
  conn: string;
  /** Connection for Heartbeat/OffsetCommit/LeaveGroup/DescribeGroups (not blocked by a parked join). */
  side: string;
  instance: string | null;
}

export type IdChoice = 'own' | 'old' | 'other' | 'bogus' | 'empty';
export type GenChoice = 'own' | 'next' | 'prev' | 'minus';
export type ProtocolChoice = 'range' | 'both' | 'roundrobin';

export type Action =
  | { kind: 'join'; m: number; v: number; id: IdChoice; instance: 'own' | 'other' | 'none'; protocols: ProtocolChoice; badSession?: boolean }
  | { kind: 'sync'; m: number; v: number; id: IdChoice; gen: GenChoice; instance: 'own' | 'none'; assign: boolean; badProtocol?: boolean }
  | { kind: 'heartbeat'; m: number; v: number; id: IdChoice; gen: GenChoice; instance: 'own' | 'none' }
  | { kind: 'commit'; m: number; v: number; id: IdChoice; gen: GenChoice; instance: 'own' | 'none' }
  | { kind: 'leave'; m: number; v: number; how: 'self' | 'by-instance' | 'batch' }
  | { kind: 'describe'; m: number }
  | { kind: 'restart'; m: number };

export interface RandomSequence {
  seed: number;
  members: MemberSpec[];
  actions: Action[];
}

export interface GenerateOptions {
  /** Number of actions (default 14). */
  length?: number;
  /** Probability that a member is static (default 0.5). */
  staticShare?: number;
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

/** A random sequence of group actions for this seed (same seed, same sequence). */
export function generate(seed: number, o: GenerateOptions = {}): RandomSequence {
  const r = prng(seed);
  const members: MemberSpec[] = [0, 1].map((i) => ({
    conn: `m${i}`,
    side: `m${i}s`,
    instance: r() < (o.staticShare ?? 0.5) ? `inst-${i}` : null,
  }));
  const actions: Action[] = [];
  const n = o.length ?? 14;
  // Whether a member may join with MemberId "" without leaving an older id of its own in the
  // group (a dynamic member's "" creates a new member): at first, and after it left.
  const mayJoinEmpty = [true, true];
  // Start with both members joining more often than not: the interesting states need a group.
  for (let i = 0; i < n; i++) {
    const m = i < 2 && r() < 0.8 ? i : between(r, 0, 1);
    const isStatic = members[m].instance !== null;
    const kind = i < 2 ? 'join' : weighted(r, { join: 30, sync: 20, heartbeat: 14, commit: 12, leave: 8, describe: 5, restart: 4 });
    const id = (): IdChoice => weighted(r, { own: 70, old: 8, other: 8, bogus: 7, empty: 7 });
    const gen = (): GenChoice => weighted(r, { own: 75, next: 8, prev: 8, minus: 9 });
    const inst = (): 'own' | 'none' => (isStatic ? (r() < 0.9 ? 'own' : 'none') : 'none');
    switch (kind) {
      case 'join': {
        // Three members at once would let a leaving leader hand leadership to whichever member
        // Kafka's hash map lists first: so no "" that adds a second member for the same client.
        let idChoice: IdChoice = weighted(r, { own: 60, empty: 25, old: 5, other: 5, bogus: 5 });
        let instance: 'own' | 'other' | 'none' = isStatic ? weighted(r, { own: 90, other: 5, none: 5 }) : r() < 0.05 && members[1 - m].instance ? 'other' : 'none';
        const dynamicJoin = instance === 'none';
        if (dynamicJoin && idChoice === 'empty' && !mayJoinEmpty[m]) idChoice = 'own';
        if (isStatic && instance === 'none' && (idChoice === 'empty' || !mayJoinEmpty[m])) instance = 'own';
        actions.push({
          kind,
          m,
          v: isStatic || instance !== 'none' ? between(r, 5, 9) : between(r, 0, 9),
          id: idChoice,
          instance,
          protocols: weighted(r, { range: 70, both: 20, roundrobin: 10 }),
          badSession: r() < 0.04,
        });
        if (!(actions[actions.length - 1] as { badSession?: boolean }).badSession) mayJoinEmpty[m] = false;
        break;
      }
      case 'sync':
        actions.push({ kind, m, v: isStatic ? between(r, 3, 5) : between(r, 0, 5), id: id(), gen: gen(), instance: inst(), assign: r() < 0.7, badProtocol: r() < 0.05 });
        break;
      case 'heartbeat':
        actions.push({ kind, m, v: isStatic ? between(r, 3, 4) : between(r, 0, 4), id: id(), gen: gen(), instance: inst() });
        break;
      case 'commit':
        actions.push({ kind, m, v: isStatic ? between(r, 7, 9) : between(r, 2, 9), id: id(), gen: gen(), instance: inst() });
        break;
      case 'leave': {
        const how = isStatic ? weighted(r, { self: 40, 'by-instance': 40, batch: 20 }) : 'self';
        actions.push({ kind, m, v: isStatic ? between(r, 3, 5) : between(r, 0, 5), how });
        mayJoinEmpty[m] = true;
        // A batch leave by instance ids removes the other (static) member too.
        if (how === 'batch') mayJoinEmpty[1 - m] = true;
        break;
      }
      case 'describe':
        actions.push({ kind, m });
        break;
      case 'restart':
        actions.push({ kind, m });
        break;
    }
  }
  return { seed, members, actions };
}

/** After a JoinGroup: longer than the initial rebalance delay, so that it has fired. */
const JOIN_SETTLE = INITIAL_DELAY + 120;
/** After a SyncGroup, which may park (a follower before the leader). */
const SYNC_SETTLE = 100;
/**
 * After a request that never parks (answered at once; collected with it): long enough for the
 * answers it releases on other connections (a leave completing a parked join) to arrive.
 */
const AFTER = 60;
const LONG = 30000;

function memberId(seq: RandomSequence, m: number, choice: IdChoice): (c: Ctx) => string {
  const me = seq.members[m].conn;
  const other = seq.members[1 - m].conn;
  switch (choice) {
    case 'own':
      return (c) => c.v(me, '');
    case 'old':
      return (c) => c.v(`${me}.old`, c.v(me, ''));
    case 'other':
      return (c) => c.v(other, 'unknown-member-id');
    case 'bogus':
      return () => 'bogus-member-id';
    case 'empty':
      return () => '';
  }
}

function generation(seq: RandomSequence, m: number, choice: GenChoice): (c: Ctx) => number {
  const me = seq.members[m].conn;
  const g = (c: Ctx) => c.v<number>(`${me}.gen`, -1);
  switch (choice) {
    case 'own':
      return g;
    case 'next':
      return (c) => g(c) + 1;
    case 'prev':
      return (c) => Math.max(g(c) - 1, 0);
    case 'minus':
      return () => -1;
  }
}

function protocols(choice: ProtocolChoice) {
  const meta = (name: string) => ({ name, metadata: subscription(['t'], 0) });
  if (choice === 'range') return [meta('range')];
  if (choice === 'roundrobin') return [meta('roundrobin')];
  return [meta('range'), meta('roundrobin')];
}

/** One action as runner steps (the request, then a poll of every connection). */
export function actionSteps(seq: RandomSequence, a: Action, index: number): Step[] {
  return rawActionSteps(seq, a, index).map((s) => (s.op === 'send' ? { ...s, skipIfBusy: true } : s));
}

function rawActionSteps(seq: RandomSequence, a: Action, index: number): Step[] {
  const me = seq.members[a.m];
  const label = (s: string) => `#${index} ${s}`;
  switch (a.kind) {
    case 'join': {
      const instance = a.instance === 'own' ? me.instance : a.instance === 'other' ? (seq.members[1 - a.m].instance ?? 'inst-x') : null;
      return [
        join(me.conn, {
          v: a.v,
          member: memberId(seq, a.m, a.id),
          instance: a.v >= 5 ? instance : null,
          protocols: protocols(a.protocols),
          session: a.badSession ? 5 : LONG,
          rebalance: LONG,
          wait: false,
          keepOld: true,
          label: label(`join ${me.conn} id=${a.id}${instance ? ` inst=${instance}` : ''} ${a.protocols}`),
        }),
        { op: 'poll', forMs: JOIN_SETTLE },
      ];
    }
    case 'sync': {
      const other = seq.members[1 - a.m].conn;
      return [
        {
          ...sync(me.conn, {
            v: a.v,
            member: memberId(seq, a.m, a.id),
            generation: generation(seq, a.m, a.gen),
            instance: a.instance === 'own' ? me.instance : null,
            assign: a.assign ? [me.conn, other] : [],
            protocolName: a.v >= 5 ? (a.badProtocol ? 'roundrobin' : undefined) : undefined,
            wait: false,
            label: label(`sync ${me.conn} id=${a.id} gen=${a.gen}${a.assign ? ' assign' : ''}`),
          }),
        },
        { op: 'poll', forMs: SYNC_SETTLE },
      ];
    }
    case 'heartbeat':
      return [
        heartbeat(me.side, {
          v: a.v,
          member: memberId(seq, a.m, a.id),
          generation: generation(seq, a.m, a.gen),
          instance: a.instance === 'own' ? me.instance : null,
          label: label(`heartbeat ${me.conn} id=${a.id} gen=${a.gen}`),
        }),
        { op: 'poll', forMs: AFTER },
      ];
    case 'commit':
      return [
        commit(me.side, {
          v: a.v,
          member: memberId(seq, a.m, a.id),
          generation: generation(seq, a.m, a.gen),
          instance: a.instance === 'own' && a.v >= 7 ? me.instance : null,
          offsets: [[0, index]],
          label: label(`commit ${me.conn} id=${a.id} gen=${a.gen}`),
        }),
        { op: 'poll', forMs: AFTER },
      ];
    case 'leave': {
      const other = seq.members[1 - a.m];
      const self = { member: memberId(seq, a.m, 'own'), instance: me.instance };
      const members =
        a.how === 'self'
          ? [self]
          : a.how === 'by-instance'
            ? [{ member: '', instance: me.instance }]
            : [{ member: '', instance: me.instance }, { member: '', instance: other.instance ?? 'inst-none' }];
      return [
        leave(me.side, {
          v: a.v,
          member: memberId(seq, a.m, 'own'),
          members: a.v >= 3 ? members : undefined,
          label: label(`leave ${me.conn} ${a.how}`),
        }),
        { op: 'poll', forMs: AFTER },
      ];
    }
    case 'describe':
      return [describeGroups(me.side, { label: label('describe') }), { op: 'poll', forMs: 10 }];
    case 'restart':
      return [{ op: 'close', conn: me.conn }];
  }
}

/** The scenario for a sequence (or for a subset of its actions, when shrinking). */
export function toScenario(seq: RandomSequence, actions: Action[] = seq.actions, name = `random-seed-${seq.seed}`): Scenario {
  return {
    name,
    description: `seeded random group sequence (seed ${seq.seed}, ${actions.length} actions, members ${seq.members.map((m) => (m.instance ? 'static' : 'dynamic')).join('+')})`,
    tags: ['random'],
    steps: [createTopic('admin', 't', 1, { expect: undefined }), ...actions.flatMap((a) => actionSteps(seq, a, seq.actions.indexOf(a)))],
    collectTimeoutMs: 5000,
  };
}

/** One line per action, for reports. */
export function describeActions(seq: RandomSequence, actions: Action[] = seq.actions): string {
  const who = (m: number) => `${seq.members[m].conn}${seq.members[m].instance ? `[${seq.members[m].instance}]` : ''}`;
  return actions
    .map((a) => {
      const i = seq.actions.indexOf(a);
      const rest = Object.entries(a)
        .filter(([k]) => k !== 'kind' && k !== 'm')
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      return `#${i} ${a.kind} ${who(a.m)} ${rest}`;
    })
    .join('\n');
}

export interface ShrinkResult {
  actions: Action[];
  evaluations: number;
  /** True when the budget ran out before the result was 1-minimal. */
  truncated: boolean;
}

/**
 * ddmin over actions: `stillFails(subset)` replays the subset on both brokers and says whether
 * the difference is still there. Stops after `maxEvaluations` replays or `maxMs`.
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

void ref;
