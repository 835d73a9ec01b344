// What the random sequences explored, from their transcripts: answers by API and error code,
// group states seen in DescribeGroups answers, how many sequences formed a group of two or more
// members, successful SyncGroups, rebalances completed; for the transactional sequences
// (random-txn.ts) commits, aborts, fencings, transactional writes and offset commits, the
// transaction states seen. A generator that stops exploring (every
// answer UNKNOWN_MEMBER_ID, groups that never form) shows here, and `coverageFailures` turns a
// floor into failures a run can exit on.
import type { Json, JsonObject, TranscriptEvent } from './runner.js';
import type { RandomResult } from './report.js';

import { errorName } from '../../src/codec/index.js';

/** What the transactional sequences (random-txn.ts) explored, from the reference's transcripts. */
export interface TxnCoverage {
  sequences: number;
  answers: number;
  /** Answers with an error code (top level or nested). */
  errors: number;
  /** EndTxn commits / aborts answered NONE. */
  commits: number;
  aborts: number;
  /** Transactional Produce answered NONE. */
  produced: number;
  /** TxnOffsetCommit answered NONE. */
  offsetCommits: number;
  /** Answers PRODUCER_FENCED or INVALID_PRODUCER_EPOCH. */
  fenced: number;
  /** Answers CONCURRENT_TRANSACTIONS (a fencing InitProducerId). */
  concurrent: number;
  /** OffsetFetch partitions answered UNSTABLE_OFFSET_COMMIT. */
  unstable: number;
  /** read_committed Fetch answers listing an aborted transaction. */
  abortedInFetch: number;
  /** Transaction state (DescribeTransactions, ListTransactions) → number of sequences that saw it. */
  states: Record<string, number>;
  /** Sequences with a commit, with a CompleteAbort (an EndTxn abort or a fencing), with a fenced answer. */
  withCommit: number;
  withAbort: number;
  withFence: number;
}

export interface RandomCoverage {
  sequences: number;
  /** Group sequences (the group floor is about these) and their answers. */
  groupSequences: number;
  groupAnswers: number;
  txn: TxnCoverage;
  /** Answers (response events) in all transcripts looked at. */
  answers: number;
  /** API name → error code name → count (an answer's code: its top-level error, else its first nested one). */
  byApi: Record<string, Record<string, number>>;
  /** Error code name → count, over every API. */
  byCode: Record<string, number>;
  /** Group state (DescribeGroups) → number of sequences that saw it. */
  states: Record<string, number>;
  /** Sequences in which some group had two or more members (a JoinGroup leader's list or DescribeGroups). */
  formedGroup2: number;
  /** Largest group seen, per size → number of sequences. */
  largestGroup: Record<number, number>;
  successfulSyncs: number;
  /** Generations that completed a join phase (distinct generations in successful JoinGroup answers). */
  rebalances: number;
  /** Generations in which at least one member got its assignment (a successful SyncGroup). */
  stableGenerations: number;
  /** Sequences with a session expiry (an `expire` action), static / dynamic members, data requests. */
  withExpiry: number;
  staticMembers: number;
  dynamicMembers: number;
  notSent: number;
  /** Answers the generator predicted but that did not come within its collect timeout. */
  noResponse: number;
  parked: number;
  stillParkedAtEnd: number;
}

/** An answer's code: the top-level `errorCode` when non-zero, else the first non-zero nested one. */
export function answerCode(response: Json | undefined): number {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return 0;
  const top = (response as JsonObject).errorCode;
  if (typeof top === 'number' && top !== 0) return top;
  let found = 0;
  const walk = (x: Json): void => {
    if (found !== 0) return;
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) {
        if ((k === 'errorCode' || k === 'partitionErrorCode') && typeof v === 'number' && v !== 0) {
          found = v;
          return;
        }
        walk(v);
      }
    }
  };
  walk(response);
  return found;
}

/** The transcript coverage is computed from: the reference's (what was explored against Kafka). */
function transcriptOf(r: RandomResult): TranscriptEvent[] {
  const [a, b] = r.result.transcripts;
  return (b ?? a).events;
}

const FENCED_CODES = new Set([47, 90]);

function txnCoverage(results: RandomResult[]): TxnCoverage {
  const t: TxnCoverage = { sequences: results.length, answers: 0, errors: 0, commits: 0, aborts: 0, produced: 0, offsetCommits: 0, fenced: 0, concurrent: 0, unstable: 0, abortedInFetch: 0, states: {}, withCommit: 0, withAbort: 0, withFence: 0 };
  for (const r of results) {
    const states = new Set<string>();
    let committed = false;
    let fenced = false;
    for (const e of transcriptOf(r)) {
      if (e.kind !== 'response' || e.api === undefined) continue;
      t.answers++;
      const code = answerCode(e.response);
      if (code !== 0) t.errors++;
      if (FENCED_CODES.has(code)) {
        t.fenced++;
        fenced = true;
      }
      if (code === 51) t.concurrent++;
      const res = e.response as JsonObject;
      const req = e.request as JsonObject | undefined;
      if (e.api === 'EndTxn' && code === 0) {
        if (req?.committed === true) {
          t.commits++;
          committed = true;
        } else t.aborts++;
      }
      if (e.api === 'Produce' && code === 0 && req?.transactionalId !== null) t.produced++;
      if (e.api === 'TxnOffsetCommit' && code === 0) t.offsetCommits++;
      if (e.api === 'OffsetFetch') t.unstable += JSON.stringify(res).split('"errorCode":88').length - 1;
      if (e.api === 'Fetch' && req?.isolationLevel === 1 && /"abortedTransactions":\[\{/.test(JSON.stringify(res))) t.abortedInFetch++;
      const list = e.api === 'DescribeTransactions' || e.api === 'ListTransactions' ? res.transactionStates : undefined;
      if (Array.isArray(list)) for (const x of list as JsonObject[]) if (typeof x.transactionState === 'string' && (x.errorCode ?? 0) === 0) states.add(x.transactionState);
    }
    for (const st of states) t.states[st] = (t.states[st] ?? 0) + 1;
    if (committed) t.withCommit++;
    if (states.has('CompleteAbort')) t.withAbort++;
    if (fenced) t.withFence++;
  }
  return t;
}

export function computeCoverage(all: RandomResult[]): RandomCoverage {
  const results = all.filter((r) => r.sequence.txn === undefined);
  const cov: RandomCoverage = {
    sequences: all.length,
    groupSequences: results.length,
    groupAnswers: 0,
    txn: txnCoverage(all.filter((r) => r.sequence.txn !== undefined)),
    answers: 0,
    byApi: {},
    byCode: {},
    states: {},
    formedGroup2: 0,
    largestGroup: {},
    successfulSyncs: 0,
    rebalances: 0,
    stableGenerations: 0,
    withExpiry: 0,
    staticMembers: 0,
    dynamicMembers: 0,
    notSent: 0,
    noResponse: 0,
    parked: 0,
    stillParkedAtEnd: 0,
  };
  for (const r of results) {
    const seq = r.sequence;
    if (seq.actions.some((a) => a.kind === 'expire')) cov.withExpiry++;
    for (const m of seq.members) {
      if (m.instance) cov.staticMembers++;
      else cov.dynamicMembers++;
    }
    const states = new Set<string>();
    const gens = new Set<number>();
    const synced = new Set<number>();
    let largest = 0;
    for (const e of transcriptOf(r)) {
      if (e.kind === 'not-sent') cov.notSent++;
      if (e.kind === 'no-response') cov.noResponse++;
      if (e.kind === 'parked') cov.parked++;
      if (e.kind === 'still-parked-at-end') cov.stillParkedAtEnd++;
      if (e.kind !== 'response' || e.api === undefined) continue;
      cov.answers++;
      const code = answerCode(e.response);
      const name = errorName(code);
      const api = (cov.byApi[e.api] ??= {});
      api[name] = (api[name] ?? 0) + 1;
      cov.byCode[name] = (cov.byCode[name] ?? 0) + 1;
      const res = e.response as JsonObject;
      if (e.api === 'JoinGroup' && code === 0) {
        if (typeof res.generationId === 'number') gens.add(res.generationId);
        if (Array.isArray(res.members)) largest = Math.max(largest, res.members.length);
      }
      if (e.api === 'SyncGroup' && code === 0) {
        cov.successfulSyncs++;
        const g = (e.request as JsonObject | undefined)?.generationId;
        if (typeof g === 'number') synced.add(g);
      }
      if (e.api === 'DescribeGroups' && Array.isArray(res.groups)) {
        for (const g of res.groups as JsonObject[]) {
          if (typeof g.groupState === 'string' && g.errorCode === 0) states.add(g.groupState);
          if (Array.isArray(g.members)) largest = Math.max(largest, g.members.length);
        }
      }
    }
    for (const s of states) cov.states[s] = (cov.states[s] ?? 0) + 1;
    if (largest >= 2) cov.formedGroup2++;
    cov.largestGroup[largest] = (cov.largestGroup[largest] ?? 0) + 1;
    cov.rebalances += gens.size;
    cov.stableGenerations += synced.size;
  }
  cov.groupAnswers = cov.answers;
  // The transactional sequences' answers join the table by API and code.
  for (const r of all) {
    if (r.sequence.txn === undefined) continue;
    for (const e of transcriptOf(r)) {
      if (e.kind === 'not-sent') cov.notSent++;
      if (e.kind === 'no-response') cov.noResponse++;
      if (e.kind !== 'response' || e.api === undefined) continue;
      cov.answers++;
      const name = errorName(answerCode(e.response));
      const api = (cov.byApi[e.api] ??= {});
      api[name] = (api[name] ?? 0) + 1;
      cov.byCode[name] = (cov.byCode[name] ?? 0) + 1;
    }
  }
  return cov;
}

export interface CoverageFloor {
  /** Minimum share of sequences that form a group of two or more members (default 0.5). */
  minFormedGroup2Share: number;
  /** Maximum share of answers that are UNKNOWN_MEMBER_ID (default 0.25). */
  maxUnknownMemberShare: number;
  /** Minimum successful SyncGroups per sequence on average (default 1). */
  minSyncsPerSequence: number;
  /** Group states every run of ≥ 20 sequences must reach (default Empty, PreparingRebalance, CompletingRebalance, Stable). */
  states: string[];
  /** Transactional sequences: minimum shares of sequences that commit, that see a CompleteAbort, that get fenced. */
  minTxnCommitShare: number;
  minTxnAbortShare: number;
  minTxnFenceShare: number;
  /** Minimum successful transactional Produce per transactional sequence. */
  minTxnProducesPerSequence: number;
  /** Maximum share of the transactional sequences' answers that are errors (mistakes are a minority). */
  maxTxnErrorShare: number;
  /** Transaction states every run of ≥ 10 transactional sequences must show (DescribeTransactions, ListTransactions). */
  txnStates: string[];
  /** A run of ≥ 10 transactional sequences must see these at least once: UNSTABLE_OFFSET_COMMIT, a read_committed Fetch with an aborted transaction, a TxnOffsetCommit. */
  txnRare: boolean;
}

export const DEFAULT_COVERAGE_FLOOR: CoverageFloor = {
  minFormedGroup2Share: 0.5,
  maxUnknownMemberShare: 0.25,
  minSyncsPerSequence: 1,
  states: ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable'],
  minTxnCommitShare: 0.6,
  minTxnAbortShare: 0.3,
  minTxnFenceShare: 0.2,
  minTxnProducesPerSequence: 2,
  maxTxnErrorShare: 0.4,
  txnStates: ['Empty', 'Ongoing', 'CompleteCommit', 'CompleteAbort'],
  txnRare: true,
};

/** Why the coverage is below the floor (empty when it is not): a run can fail on these. */
export function coverageFailures(cov: RandomCoverage, floor: Partial<CoverageFloor> = {}): string[] {
  const f = { ...DEFAULT_COVERAGE_FLOOR, ...floor };
  const out: string[] = [];
  if (cov.groupSequences > 0) {
    const formed = cov.formedGroup2 / cov.groupSequences;
    if (formed < f.minFormedGroup2Share) out.push(`only ${pct(formed)} of the sequences formed a group of ≥ 2 members (floor ${pct(f.minFormedGroup2Share)})`);
    const unknown = cov.groupAnswers === 0 ? 0 : (cov.byCode.UNKNOWN_MEMBER_ID ?? 0) / cov.groupAnswers;
    if (unknown > f.maxUnknownMemberShare) out.push(`${pct(unknown)} of the answers are UNKNOWN_MEMBER_ID (ceiling ${pct(f.maxUnknownMemberShare)})`);
    const syncs = cov.successfulSyncs / cov.groupSequences;
    if (syncs < f.minSyncsPerSequence) out.push(`${syncs.toFixed(2)} successful SyncGroups per sequence (floor ${f.minSyncsPerSequence})`);
    if (cov.groupSequences >= 20) {
      const missing = f.states.filter((s) => (cov.states[s] ?? 0) === 0);
      if (missing.length > 0) out.push(`group states never seen in a DescribeGroups answer: ${missing.join(', ')}`);
    }
  }
  const t = cov.txn;
  if (t.sequences > 0) {
    const share = (n: number) => n / t.sequences;
    if (share(t.withCommit) < f.minTxnCommitShare) out.push(`only ${pct(share(t.withCommit))} of the transactional sequences committed a transaction (floor ${pct(f.minTxnCommitShare)})`);
    if (share(t.withAbort) < f.minTxnAbortShare) out.push(`only ${pct(share(t.withAbort))} of the transactional sequences saw a transaction aborted (floor ${pct(f.minTxnAbortShare)})`);
    if (share(t.withFence) < f.minTxnFenceShare) out.push(`only ${pct(share(t.withFence))} of the transactional sequences saw a producer fenced (floor ${pct(f.minTxnFenceShare)})`);
    if (share(t.produced) < f.minTxnProducesPerSequence) out.push(`${share(t.produced).toFixed(2)} transactional Produce answered NONE per sequence (floor ${f.minTxnProducesPerSequence})`);
    const errors = t.answers === 0 ? 1 : t.errors / t.answers;
    if (errors > f.maxTxnErrorShare) out.push(`${pct(errors)} of the transactional sequences' answers are errors (ceiling ${pct(f.maxTxnErrorShare)})`);
    if (t.sequences >= 10) {
      const missing = f.txnStates.filter((s) => (t.states[s] ?? 0) === 0);
      if (missing.length > 0) out.push(`transaction states never seen: ${missing.join(', ')}`);
      if (f.txnRare) {
        if (t.unstable === 0) out.push('no OffsetFetch answered UNSTABLE_OFFSET_COMMIT');
        if (t.abortedInFetch === 0) out.push('no read_committed Fetch listed an aborted transaction');
        if (t.offsetCommits === 0) out.push('no TxnOffsetCommit answered NONE');
      }
    }
  }
  return out;
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

/** The markdown section ("## Random sequence coverage") for a report. */
export function renderCoverage(results: RandomResult[], floor: Partial<CoverageFloor> = {}): string {
  const cov = computeCoverage(results);
  const out: string[] = ['## Random sequence coverage', ''];
  if (cov.sequences === 0) return [...out, 'No random sequences ran.', ''].join('\n');
  const unknown = cov.groupAnswers === 0 ? 0 : (cov.byCode.UNKNOWN_MEMBER_ID ?? 0) / cov.groupAnswers;
  out.push(
    `${cov.sequences} sequences (${cov.staticMembers} static and ${cov.dynamicMembers} dynamic members, ${cov.withExpiry} with a session expiry), ${cov.answers} answers (${pct(unknown)} UNKNOWN_MEMBER_ID); ` +
      `${cov.formedGroup2} sequences (${pct(cov.formedGroup2 / cov.sequences)}) formed a group of ≥ 2 members; ${cov.successfulSyncs} successful SyncGroups; ` +
      `${cov.rebalances} join phases completed, ${cov.stableGenerations} generations synced; ${cov.parked} requests parked, ${cov.stillParkedAtEnd} still parked at the end, ${cov.notSent} not sent (busy), ${cov.noResponse} predicted answers that did not come.`,
  );
  out.push('');
  out.push(`Largest group per sequence: ${Object.entries(cov.largestGroup).sort((a, b) => Number(a[0]) - Number(b[0])).map(([n, k]) => `${n} members: ${k}`).join(', ')}.`);
  out.push(`Group states seen (sequences): ${Object.entries(cov.states).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}.`);
  const t = cov.txn;
  if (t.sequences > 0) {
    out.push('');
    out.push(
      `Transactional sequences: ${t.sequences}, ${t.answers} answers (${pct(t.answers === 0 ? 0 : t.errors / t.answers)} errors); ${t.commits} commits and ${t.aborts} aborts answered NONE (${t.withCommit} sequences committed, ${t.withAbort} saw a CompleteAbort); ` +
        `${t.produced} transactional Produce and ${t.offsetCommits} TxnOffsetCommit answered NONE; ${t.fenced} fenced answers (in ${t.withFence} sequences), ${t.concurrent} CONCURRENT_TRANSACTIONS, ${t.unstable} UNSTABLE_OFFSET_COMMIT partitions, ${t.abortedInFetch} read_committed fetches listing an aborted transaction. ` +
        `Transaction states seen (sequences): ${Object.entries(t.states).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}.`,
    );
  }
  out.push('');
  const codes = Object.entries(cov.byCode).sort((a, b) => b[1] - a[1]).map(([c]) => c);
  out.push(`| API | ${codes.join(' | ')} |`);
  out.push(`|---|${codes.map(() => '---:').join('|')}|`);
  for (const [api, m] of Object.entries(cov.byApi).sort((a, b) => a[0].localeCompare(b[0]))) {
    out.push(`| ${api} | ${codes.map((c) => (m[c] ? String(m[c]) : '')).join(' | ')} |`);
  }
  out.push('');
  const fails = coverageFailures(cov, floor);
  out.push(fails.length === 0 ? 'Coverage floor met.' : `**Coverage below the floor:** ${fails.join('; ')}.`);
  out.push('');
  return out.join('\n');
}
