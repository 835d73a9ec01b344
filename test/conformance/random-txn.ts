// Seeded random sequences of transactional requests, played closed loop (random.ts dispatches the
// seeds from TXN_SEED_BASE on here; the shrinker, describeActions and scenarioSource there work on
// these plans too).
//
// A plan is one or two producers (each with its transactional id; sometimes both share one, so they
// fence each other) and a list of actions drawn from the seed: "producer p does its next step",
// "p restarts" (a new instance initialises the same transactional id: the old one is a zombie),
// "p makes a mistake", and reads: Fetch (read_committed or not), ListOffsets, DescribeTransactions,
// ListTransactions, OffsetFetch with RequireStable. What a producer sends is decided when its action
// runs, from the answers so far, as a transactional client does: InitProducerId (sometimes with its
// producer id and epoch, KIP-360), AddPartitionsToTxn, Produce of transactional batches with its
// sequence numbers, AddOffsetsToTxn and TxnOffsetCommit, EndTxn commit or abort; it re-initialises
// when fenced (PRODUCER_FENCED / INVALID_PRODUCER_EPOCH), aborts after TRANSACTION_ABORTABLE /
// INVALID_TXN_STATE, forgets its producer id after INVALID_PRODUCER_ID_MAPPING. Mistakes (a
// minority) send one wrong request (a wrong epoch or producer id, an unknown transactional id, a
// partition not added, a sequence gap, a zombie's request, an EndTxn in the wrong state, a bad
// transaction timeout, a VerifyOnly AddPartitionsToTxn v4); their answers change nothing in the model.
//
// What no mock can predict, and how the model avoids it: Kafka answers EndTxn (and a fencing
// InitProducerId: CONCURRENT_TRANSACTIONS) before its markers are written, so after each of them the
// sequence waits for the transaction's completion (awaitCompletion: DescribeTransactions resent
// while PrepareCommit/PrepareAbort/PrepareEpochFence; only its last answer is compared). Every
// request is answered at once (Fetch with MaxWaitMs 0), so no timing decides an answer. Transaction
// timeouts are 60 s: nothing expires during a sequence.
import type { Ctx, Scenario, SendStep, Step, Transcript } from './runner.js';
import { createTopic, fetchOffsets } from './scenarios/dsl.js';
import * as T from './scenarios/transactions-dsl.js';

/** Seeds from here on are transactional sequences (random.ts generate). */
export const TXN_SEED_BASE = 1001;

export interface TxnProducerSpec {
  /** Connection (and context name) of the first instance; `p0~1` after a restart. */
  name: string;
  /** Transactional id (short name). */
  tx: string;
}
export interface TxnPlan {
  producers: TxnProducerSpec[];
  /** AddOffsetsToTxn / TxnOffsetCommit / OffsetFetch actions. */
  offsets: boolean;
}
export type TxnMistake = 'wrong-epoch' | 'wrong-pid' | 'unknown-id' | 'not-added' | 'wrong-state' | 'bad-timeout' | 'seq-gap' | 'zombie' | 'verify-only';
export type TxnAction =
  | { kind: 'txn-step'; p: number; r: number }
  | { kind: 'txn-restart'; p: number; r: number }
  | { kind: 'txn-mistake'; p: number; what: TxnMistake; r: number }
  | { kind: 'txn-fetch'; isolation: 0 | 1; r: number }
  | { kind: 'txn-list-offsets'; isolation: 0 | 1; r: number }
  | { kind: 'txn-describe'; r: number }
  | { kind: 'txn-list'; r: number }
  | { kind: 'txn-offset-fetch'; r: number };

export interface TxnSequenceShape {
  seed: number;
  members: [];
  actions: TxnAction[];
  txn: TxnPlan;
}

function rng(seed: number): () => number {
  // mulberry32, as random.ts prng (kept here so that this module does not import random.ts).
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const between = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
function weighted<K extends string>(r: () => number, table: Record<K, number>): K {
  const total = Object.values<number>(table).reduce((a, b) => a + b, 0);
  let x = r() * total;
  for (const [k, w] of Object.entries<number>(table)) {
    x -= w;
    if (x < 0) return k as K;
  }
  return Object.keys(table)[0] as K;
}
const round = (x: number) => Math.round(x * 1e6) / 1e6;
/** A deterministic stream of draws from an action's own random number. */
const drawsOf = (x: number) => rng(Math.floor(x * 4294967296) ^ 0x85ebca6b);

/** A transactional plan for this seed. */
export function generateTxn(seed: number, o: { length?: number; offsets?: boolean } = {}): TxnSequenceShape {
  const r = rng(seed * 7919 + 17);
  const n = r() < 0.35 ? 1 : 2;
  const shared = n === 2 && r() < 0.25;
  const producers: TxnProducerSpec[] = Array.from({ length: n }, (_, i) => ({ name: `p${i}`, tx: shared ? 'tx0' : `tx${i}` }));
  const offsets = o.offsets ?? true;
  const actions: TxnAction[] = producers.map((_, p) => ({ kind: 'txn-step', p, r: round(r()) }));
  const length = o.length ?? 30;
  for (let i = 0; i < length; i++) {
    const p = between(r, 0, n - 1);
    const kind = weighted(r, {
      'txn-step': 64,
      'txn-mistake': 10,
      'txn-restart': 4,
      'txn-fetch': 7,
      'txn-list-offsets': 4,
      'txn-describe': 5,
      'txn-list': 3,
      'txn-offset-fetch': offsets ? 6 : 0,
    });
    const x = round(r());
    switch (kind) {
      case 'txn-step':
      case 'txn-restart':
        actions.push({ kind, p, r: x });
        break;
      case 'txn-mistake':
        actions.push({
          kind,
          p,
          what: weighted<TxnMistake>(r, { 'wrong-epoch': 20, 'wrong-pid': 10, 'unknown-id': 10, 'not-added': 15, 'wrong-state': 10, 'bad-timeout': 8, 'seq-gap': 10, zombie: 12, 'verify-only': 5 }),
          r: x,
        });
        break;
      case 'txn-fetch':
      case 'txn-list-offsets':
        actions.push({ kind, isolation: r() < 0.6 ? 1 : 0, r: x });
        break;
      default:
        actions.push({ kind, r: x });
    }
  }
  return { seed, members: [], actions, txn: { producers, offsets } };
}

// ---------------------------------------------------------------------------------------------
// The closed-loop model (one per run)

type Phase = 'new' | 'ready' | 'ongoing' | 'abortable' | 'fenced';
interface Inst {
  /** Connection and context name (its pid/epoch are `<as>.pid`/`<as>.epoch`). */
  as: string;
  hasPid: boolean;
  phase: Phase;
  parts: Set<number>;
  offsetsAdded: boolean;
  seqs: [number, number];
}
interface Prod {
  spec: TxnProducerSpec;
  life: number;
  cur: Inst;
  zombies: Inst[];
}
const PARTITIONS = 2;
const FENCED = new Set([47, 90]);

class TxnModel {
  readonly prods: Prod[];
  /** Base offset of the last batch written per partition (fetch positions). */
  readonly lastBase: [number, number] = [0, 0];
  constructor(
    readonly plan: TxnPlan,
    readonly source: string[],
  ) {
    this.prods = plan.producers.map((spec) => ({ spec, life: 0, cur: newInst(spec.name), zombies: [] }));
  }
}
const newInst = (as: string): Inst => ({ as, hasPid: false, phase: 'new', parts: new Set(), offsetsAdded: false, seqs: [0, 0] });

const models = new WeakMap<Ctx, TxnModel>();
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

type Emit = (steps: Step[], src: string[]) => void;

/** A send step whose answer the model reacts to (after the dsl's own capture). */
function hook<S extends SendStep<any>>(s: S, react: (res: any) => void): S {
  const inner = s.capture;
  return { ...s, capture: (res: any, c: Ctx) => (inner?.(res, c), react(res)) } as S;
}

/** Steps decided after the ones before them ran; their source goes where the step is. */
function later(model: TxnModel, f: () => Array<[Step, string]>): Step {
  const slot = model.source.length;
  model.source.push('');
  return {
    op: 'expand',
    steps: () => {
      const xs = f();
      model.source[slot] = xs.map((x) => x[1]).join('\n');
      return xs.map((x) => x[0]);
    },
  };
}

/** After an EndTxn, or an InitProducerId answered CONCURRENT_TRANSACTIONS: wait for the completion. */
function completion(model: TxnModel, tx: string, when: () => boolean): Step {
  return later(model, () => (when() ? [[T.awaitCompletion('admin', tx), `T.awaitCompletion('admin', ${q(tx)}),`]] : []));
}

const partsOf = (i: Inst) => [...i.parts].sort();
const codeOf = (res: any): number => {
  if (typeof res?.errorCode === 'number' && res.errorCode !== 0) return res.errorCode;
  const walk = (x: any): number => {
    if (Array.isArray(x)) for (const e of x) { const c = walk(e); if (c !== 0) return c; }
    else if (x !== null && typeof x === 'object') for (const [k, v] of Object.entries(x)) { if ((k === 'errorCode' || k === 'partitionErrorCode') && typeof v === 'number' && v !== 0) return v; const c = walk(v); if (c !== 0) return c; }
    return 0;
  };
  return walk(res);
};

function onCoordinatorError(i: Inst, code: number): void {
  if (FENCED.has(code)) i.phase = 'fenced';
  else if (code === 49) {
    i.hasPid = false;
    i.phase = 'new';
  }
}

function init(model: TxnModel, prod: Prod, d: () => number, label: string, emit: Emit): void {
  const i = prod.cur;
  const v = between(d, 0, 5);
  const kip360 = i.hasPid && v >= 3 && d() < 0.4;
  const conn = i.as;
  let code = -2;
  const step = hook(
    T.initPid(conn, { tx: prod.spec.tx, v, as: i.as, pid: kip360 ? T.pidOf(i.as) : undefined, epoch: kip360 ? T.epochOf(i.as) : undefined, label }),
    (res) => {
      code = res.errorCode;
      if (code === 0) {
        Object.assign(i, { hasPid: true, phase: 'ready', parts: new Set(), offsetsAdded: false, seqs: [0, 0] });
      } else if (FENCED.has(code) || code === 49) {
        i.hasPid = false;
        i.phase = 'new';
      }
    },
  );
  const src = `T.initPid(${q(conn)}, { tx: ${q(prod.spec.tx)}, v: ${v}, as: ${q(i.as)}${kip360 ? `, pid: T.pidOf(${q(i.as)}), epoch: T.epochOf(${q(i.as)})` : ''}, label: ${q(label)} }),`;
  emit([step], [src]);
  // (Built after the emit: a `later` reserves its source line where it is created.)
  emit([completion(model, prod.spec.tx, () => code === 51)], []);
}

function addParts(model: TxnModel, prod: Prod, d: () => number, label: string, emit: Emit): void {
  const i = prod.cur;
  const missing = [0, 1].filter((p) => !i.parts.has(p));
  const pick = missing.length === 0 ? [between(d, 0, 1)] : d() < 0.4 && missing.length === 2 ? missing : [missing[between(d, 0, missing.length - 1)]];
  const v = between(d, 0, 3);
  const step = hook(T.addPartitions(i.as, { tx: prod.spec.tx, as: i.as, v, topics: [['t', pick]], label }), (res) => {
    const code = codeOf(res);
    if (code === 0) {
      for (const p of pick) i.parts.add(p);
      i.phase = 'ongoing';
    } else onCoordinatorError(i, code);
  });
  emit([step], [`T.addPartitions(${q(i.as)}, { tx: ${q(prod.spec.tx)}, as: ${q(i.as)}, v: ${v}, topics: [['t', [${pick.join(', ')}]]], label: ${q(label)} }),`]);
}

function produceSrc(as: string, o: { tx: string; v: number; partition: number; n: number; seq: number; epochDelta?: number; tag: string; label: string }): string {
  return `T.produceTxn(${q(as)}, { tx: ${q(o.tx)}, as: ${q(as)}, v: ${o.v}, partition: ${o.partition}, n: ${o.n}, seq: () => ${o.seq}${o.epochDelta ? `, epoch: T.epochOf(${q(as)}, ${o.epochDelta})` : ''}, tag: ${q(o.tag)}, label: ${q(o.label)} }),`;
}

function produce(model: TxnModel, prod: Prod, i: Inst, partition: number, d: () => number, label: string, emit: Emit, o: { natural: boolean; seqDelta?: number; epochDelta?: number } = { natural: true }): void {
  const v = between(d, 3, 11);
  const n = between(d, 1, 3);
  const seq = i.seqs[partition] + (o.seqDelta ?? 0);
  const tag = `${i.as}.${seq}`;
  const step = hook(
    T.produceTxn(i.as, { tx: prod.spec.tx, as: i.as, v, partition, n, seq: () => seq, epoch: o.epochDelta ? T.epochOf(i.as, o.epochDelta) : undefined, tag, label }),
    (res) => {
      const p = res.responses?.[0]?.partitionResponses?.[0];
      const code: number = p?.errorCode ?? -1;
      if (code === 0) model.lastBase[partition] = Number(p.baseOffset);
      // A mistaken write the broker took (a first write to a partition may start at any sequence)
      // is the producer's state now, as for a real client.
      if (!o.natural && code === 0 && o.epochDelta === undefined) i.seqs[partition] = seq + n;
      if (!o.natural) return;
      if (code === 0) i.seqs[partition] += n;
      else if (FENCED.has(code)) i.phase = 'fenced';
      else if (code === 49) onCoordinatorError(i, code);
      else i.phase = 'abortable';
    },
  );
  emit([step], [produceSrc(i.as, { tx: prod.spec.tx, v, partition, n, seq, epochDelta: o.epochDelta, tag, label })]);
}

function end(model: TxnModel, prod: Prod, commit: boolean, d: () => number, label: string, emit: Emit): void {
  const i = prod.cur;
  const v = between(d, 0, 4);
  let code = -2;
  const step = hook(T.endTxn(i.as, commit, { tx: prod.spec.tx, as: i.as, v, label }), (res) => {
    code = res.errorCode;
    if (code === 0 || code === 48) Object.assign(i, { phase: 'ready', parts: new Set(), offsetsAdded: false });
    else onCoordinatorError(i, code);
  });
  emit([step], [`T.endTxn(${q(i.as)}, ${commit}, { tx: ${q(prod.spec.tx)}, as: ${q(i.as)}, v: ${v}, label: ${q(label)} }),`]);
  emit([completion(model, prod.spec.tx, () => code === 0 || code === 51)], []);
}

function addOffsets(model: TxnModel, prod: Prod, d: () => number, label: string, emit: Emit): void {
  const i = prod.cur;
  const v = between(d, 0, 4);
  const step = hook(T.addOffsets(i.as, { tx: prod.spec.tx, as: i.as, v, label }), (res) => {
    if (res.errorCode === 0) Object.assign(i, { offsetsAdded: true, phase: 'ongoing' });
    else onCoordinatorError(i, res.errorCode);
  });
  emit([step], [`T.addOffsets(${q(i.as)}, { tx: ${q(prod.spec.tx)}, as: ${q(i.as)}, v: ${v}, label: ${q(label)} }),`]);
}

function txnCommit(model: TxnModel, prod: Prod, d: () => number, label: string, emit: Emit): void {
  const i = prod.cur;
  const v = between(d, 0, 4);
  const offsets: Array<[number, number]> = d() < 0.5 ? [[0, model.lastBase[0] + 1]] : [[0, model.lastBase[0] + 1], [1, model.lastBase[1] + 2]];
  const step = hook(T.txnCommit(i.as, { tx: prod.spec.tx, as: i.as, v, offsets, label }), (res) => {
    const code = codeOf(res);
    if (code !== 0) onCoordinatorError(i, code);
    if (code === 48 || code === 120) i.phase = 'abortable';
  });
  emit([step], [`T.txnCommit(${q(i.as)}, { tx: ${q(prod.spec.tx)}, as: ${q(i.as)}, v: ${v}, offsets: ${JSON.stringify(offsets)}, label: ${q(label)} }),`]);
}

/** The producer's next request, as a transactional client sends it in its state. */
function natural(model: TxnModel, prod: Prod, r: number, label: string, emit: Emit): void {
  const d = drawsOf(r);
  const i = prod.cur;
  switch (i.phase) {
    case 'new':
    case 'fenced':
      init(model, prod, d, `${label} init ${i.as}`, emit);
      return;
    case 'ready':
      addParts(model, prod, d, `${label} add-partitions ${i.as}`, emit);
      return;
    case 'abortable':
      end(model, prod, false, d, `${label} end-txn ${i.as} abort (abortable)`, emit);
      return;
    case 'ongoing': {
      const what = weighted(d, {
        produce: i.parts.size > 0 ? 55 : 0,
        add: i.parts.size < PARTITIONS ? 8 : 0,
        offsets: model.plan.offsets && !i.offsetsAdded ? 12 : 0,
        commitOffsets: i.offsetsAdded ? 20 : 0,
        commit: 13,
        abort: 7,
      });
      if (what === 'produce') {
        const ps = partsOf(i);
        const partition = ps[between(d, 0, ps.length - 1)];
        produce(model, prod, i, partition, d, `${label} produce ${i.as} t/${partition}`, emit);
      } else if (what === 'add') addParts(model, prod, d, `${label} add-partitions ${i.as}`, emit);
      else if (what === 'offsets') addOffsets(model, prod, d, `${label} add-offsets ${i.as}`, emit);
      else if (what === 'commitOffsets') txnCommit(model, prod, d, `${label} txn-offset-commit ${i.as}`, emit);
      else end(model, prod, what === 'commit', d, `${label} end-txn ${i.as} ${what}`, emit);
    }
  }
}

function mistake(model: TxnModel, prod: Prod, a: Extract<TxnAction, { kind: 'txn-mistake' }>, label: string, emit: Emit): void {
  const d = drawsOf(a.r);
  const i = prod.cur;
  const tx = prod.spec.tx;
  const tag = `${label} mistake ${a.what} ${i.as}`;
  const plain = (s: SendStep<any>, src: string) => emit([s], [src]);
  switch (a.what) {
    case 'bad-timeout': {
      const v = between(d, 0, 5);
      const timeout = d() < 0.5 ? 0 : 900001;
      return plain(T.initPid(i.as, { tx, v, as: i.as, timeout, noCapture: true, label: tag }), `T.initPid(${q(i.as)}, { tx: ${q(tx)}, v: ${v}, as: ${q(i.as)}, timeout: ${timeout}, noCapture: true, label: ${q(tag)} }),`);
    }
    case 'unknown-id': {
      if (!i.hasPid) return;
      const v = between(d, 0, 3);
      return d() < 0.5
        ? plain(T.addPartitions(i.as, { tx: 'nope', as: i.as, v, label: tag }), `T.addPartitions(${q(i.as)}, { tx: 'nope', as: ${q(i.as)}, v: ${v}, label: ${q(tag)} }),`)
        : plain(T.endTxn(i.as, true, { tx: 'nope', as: i.as, v, label: tag }), `T.endTxn(${q(i.as)}, true, { tx: 'nope', as: ${q(i.as)}, v: ${v}, label: ${q(tag)} }),`);
    }
  }
  if (!i.hasPid) return;
  switch (a.what) {
    case 'wrong-epoch': {
      const delta = d() < 0.5 ? 1 : -1;
      const api = weighted(d, { add: 30, end: 25, offsets: model.plan.offsets ? 15 : 0, produce: 30 });
      const v = between(d, 0, api === 'end' ? 4 : 3);
      if (api === 'produce') return produce(model, prod, i, between(d, 0, 1), d, tag, emit, { natural: false, epochDelta: delta });
      if (api === 'add') return plain(T.addPartitions(i.as, { tx, as: i.as, v, epoch: T.epochOf(i.as, delta), label: tag }), `T.addPartitions(${q(i.as)}, { tx: ${q(tx)}, as: ${q(i.as)}, v: ${v}, epoch: T.epochOf(${q(i.as)}, ${delta}), label: ${q(tag)} }),`);
      if (api === 'offsets') return plain(T.addOffsets(i.as, { tx, as: i.as, v, epoch: T.epochOf(i.as, delta), label: tag }), `T.addOffsets(${q(i.as)}, { tx: ${q(tx)}, as: ${q(i.as)}, v: ${v}, epoch: T.epochOf(${q(i.as)}, ${delta}), label: ${q(tag)} }),`);
      return plain(T.endTxn(i.as, true, { tx, as: i.as, v, epoch: T.epochOf(i.as, delta), label: tag }), `T.endTxn(${q(i.as)}, true, { tx: ${q(tx)}, as: ${q(i.as)}, v: ${v}, epoch: T.epochOf(${q(i.as)}, ${delta}), label: ${q(tag)} }),`);
    }
    case 'wrong-pid': {
      const v = between(d, 0, 3);
      return plain(T.addPartitions(i.as, { tx, as: i.as, v, pid: () => 987654321, label: tag }), `T.addPartitions(${q(i.as)}, { tx: ${q(tx)}, as: ${q(i.as)}, v: ${v}, pid: () => 987654321, label: ${q(tag)} }),`);
    }
    case 'not-added': {
      const free = [0, 1].filter((p) => !i.parts.has(p));
      if (free.length === 0) return;
      return produce(model, prod, i, free[between(d, 0, free.length - 1)], d, tag, emit, { natural: false });
    }
    case 'seq-gap': {
      const ps = partsOf(i);
      if (i.phase !== 'ongoing' || ps.length === 0) return;
      return produce(model, prod, i, ps[between(d, 0, ps.length - 1)], d, tag, emit, { natural: false, seqDelta: between(d, 2, 5) });
    }
    case 'wrong-state': {
      // An EndTxn where there is no transaction (Empty, CompleteCommit, CompleteAbort).
      if (i.phase !== 'ready') return;
      const v = between(d, 0, 4);
      const commit = d() < 0.5;
      return plain(T.endTxn(i.as, commit, { tx, as: i.as, v, label: tag }), `T.endTxn(${q(i.as)}, ${commit}, { tx: ${q(tx)}, as: ${q(i.as)}, v: ${v}, label: ${q(tag)} }),`);
    }
    case 'zombie': {
      const z = prod.zombies[prod.zombies.length - 1];
      if (z === undefined) return;
      if (d() < 0.5) return produce(model, prod, z, 0, d, `${tag} (zombie ${z.as})`, emit, { natural: false });
      const v = between(d, 0, 4);
      return plain(T.endTxn(z.as, true, { tx, as: z.as, v, label: `${tag} (zombie ${z.as})` }), `T.endTxn(${q(z.as)}, true, { tx: ${q(tx)}, as: ${q(z.as)}, v: ${v}, label: ${q(`${tag} (zombie ${z.as})`)} }),`);
    }
    case 'verify-only': {
      const v = between(d, 4, 5);
      const ps = d() < 0.5 ? [0] : [0, 1];
      return plain(
        T.addPartitionsBatched('admin', [{ tx, as: i.as, verifyOnly: true, topics: [['t', ps]] }], { v, label: tag }),
        `T.addPartitionsBatched('admin', [{ tx: ${q(tx)}, as: ${q(i.as)}, verifyOnly: true, topics: [['t', [${ps.join(', ')}]]] }], { v: ${v}, label: ${q(tag)} }),`,
      );
    }
  }
}

function resolve(model: TxnModel, a: TxnAction, index: number): Step[] {
  const out: Step[] = [];
  const emit: Emit = (steps, src) => {
    out.push(...steps);
    model.source.push(...src);
  };
  const d = drawsOf(a.r);
  const txs = [...new Set(model.plan.producers.map((p) => p.tx))];
  switch (a.kind) {
    case 'txn-step':
      natural(model, model.prods[a.p], a.r, `#${index}`, emit);
      break;
    case 'txn-restart': {
      const prod = model.prods[a.p];
      if (prod.cur.hasPid) prod.zombies.push(prod.cur);
      prod.life++;
      prod.cur = newInst(`${prod.spec.name}~${prod.life}`);
      init(model, prod, d, `#${index} restart: init ${prod.cur.as}`, emit);
      break;
    }
    case 'txn-mistake':
      mistake(model, model.prods[a.p], a, `#${index}`, emit);
      break;
    case 'txn-fetch': {
      const v = between(d, 4, 17);
      const partition = between(d, 0, 1);
      const offset = d() < 0.6 ? 0 : model.lastBase[partition];
      const label = `#${index} fetch v${v} ${a.isolation ? 'read_committed' : 'read_uncommitted'} t/${partition} @${offset}`;
      const byId = v >= 13;
      emit([T.fetchRecords('data', { v, isolation: a.isolation, partition, offset, byId, label })], [`T.fetchRecords('data', { v: ${v}, isolation: ${a.isolation}, partition: ${partition}, offset: ${offset}, byId: ${byId}, label: ${q(label)} }),`]);
      break;
    }
    case 'txn-list-offsets': {
      const v = between(d, 2, 9);
      const timestamp = weighted(d, { '-1': 70, '-2': 20, '-3': v >= 7 ? 10 : 0 });
      const label = `#${index} list-offsets v${v} ${a.isolation ? 'read_committed' : 'read_uncommitted'} ${timestamp}`;
      emit([T.listOffsetsIso('data', { v, isolation: a.isolation, partitions: [0, 1], timestamp: Number(timestamp), label })], [`T.listOffsetsIso('data', { v: ${v}, isolation: ${a.isolation}, partitions: [0, 1], timestamp: ${timestamp}, label: ${q(label)} }),`]);
      break;
    }
    case 'txn-describe': {
      const ids = d() < 0.2 ? [...txs, 'nope'] : txs;
      const label = `#${index} describe-transactions`;
      emit([T.describeTxns('admin', ids, { label })], [`T.describeTxns('admin', ${JSON.stringify(ids).replace(/"/g, "'")}, { label: ${q(label)} }),`]);
      break;
    }
    case 'txn-list': {
      const v = between(d, 0, 1);
      const states = ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort', 'PrepareCommit', 'Bogus'].filter(() => d() < 0.3);
      const label = `#${index} list-transactions v${v} [${states.join(',')}]`;
      emit([T.listTxns('admin', { v, states, label })], [`T.listTxns('admin', { v: ${v}, states: ${JSON.stringify(states).replace(/"/g, "'")}, label: ${q(label)} }),`]);
      break;
    }
    case 'txn-offset-fetch': {
      const v = d() < 0.5 ? 7 : 8;
      const requireStable = d() < 0.7;
      const label = `#${index} offset-fetch v${v}${requireStable ? ' requireStable' : ''}`;
      emit([fetchOffsets('admin', { v, requireStable, topics: [{ partitions: [0, 1] }], label })], [`fetchOffsets('admin', { v: ${v}, requireStable: ${requireStable}, topics: [{ partitions: [0, 1] }], label: ${q(label)} }),`]);
      break;
    }
  }
  if (out.length === 0) out.push({ op: 'poll', forMs: 1 });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/** The first steps of every transactional sequence: the topic (2 partitions) and the coordinator of its ids. */
function opening(plan: TxnPlan): { steps: Step[]; src: string[] } {
  const txs = [...new Set(plan.producers.map((p) => p.tx))];
  return {
    steps: [createTopic('admin', 't', 2, { expect: undefined }), T.partitionsReady('admin', 't', [0, 1]), T.topicIdStep('data'), T.findTxnCoordinator('admin', txs, { v: 4 })],
    src: [`createTopic('admin', 't', 2, { expect: undefined }),`, `T.partitionsReady('admin', 't', [0, 1]),`, `T.topicIdStep('data'),`, `T.findTxnCoordinator('admin', ${JSON.stringify(txs).replace(/"/g, "'")}, { v: 4 }),`],
  };
}

export function toTxnScenario(seq: TxnSequenceShape, actions: TxnAction[], name: string): Scenario {
  const o = opening(seq.txn);
  return {
    name,
    description: `seeded random transactional sequence, closed loop (seed ${seq.seed}, ${actions.length} actions, producers ${seq.txn.producers.map((p) => `${p.name}:${p.tx}`).join(' ')})`,
    tags: ['random', 'txn'],
    settings: T.TXN_SETTINGS,
    groups: ['g'],
    steps: [
      ...o.steps,
      {
        op: 'set',
        name: '__source',
        value: (c: Ctx) => {
          const source: string[] = [];
          models.set(c, new TxnModel(seq.txn, source));
          return source;
        },
      },
      ...actions.map((a): Step => {
        const index = seq.actions.indexOf(a);
        return {
          op: 'expand',
          steps: (c: Ctx) => {
            const m = models.get(c);
            if (m === undefined) throw new Error('random transactional sequence: model not initialised');
            return resolve(m, a, index);
          },
        };
      }),
    ],
    collectTimeoutMs: 5000,
  };
}

/** The requests a run sent (its `__source`), as a ready-to-commit open-loop scenario. */
export function txnScenarioSource(seq: TxnSequenceShape, name: string, ident: string, header: string[], transcript: Pick<Transcript, 'vars' | 'events'>, codes: (label: string) => string | undefined): string {
  const source = (transcript.vars.__source as string[] | undefined) ?? [];
  const lines = source.flatMap((l) => l.split('\n')).filter((l) => l !== '').map((l) => {
    const m = /label: '((?:[^'\\]|\\.)*)'/.exec(l);
    const c = m ? codes(m[1].replace(/\\'/g, "'")) : undefined;
    return `    ${l}${c ? ` // reference: ${c}` : ''}`;
  });
  const o = opening(seq.txn);
  return [
    ...header,
    `import type { Scenario } from '../runner.js';`,
    `import { createTopic, fetchOffsets } from './dsl.js';`,
    `import * as T from './transactions-dsl.js';`,
    ``,
    `export const ${ident}: Scenario = {`,
    `  name: ${q(name)},`,
    `  description: ${q(`random transactional sequence seed ${seq.seed}, as sent to the reference broker (open loop)`)},`,
    `  tags: ['txn'],`,
    `  settings: T.TXN_SETTINGS,`,
    `  groups: ['g'],`,
    `  collectTimeoutMs: 5000,`,
    `  steps: [`,
    ...o.src.map((l) => `    ${l}`),
    ...lines,
    `  ],`,
    `};`,
    `void fetchOffsets;`,
    ``,
  ].join('\n');
}
