// What the random sequences explored, from their transcripts: answers by API and error code,
// group states seen in DescribeGroups answers, how many sequences formed a group of two or more
// members, successful SyncGroups, rebalances completed. A generator that stops exploring (every
// answer UNKNOWN_MEMBER_ID, groups that never form) shows here, and `coverageFailures` turns a
// floor into failures a run can exit on.
import type { Json, JsonObject, TranscriptEvent } from './runner.js';
import type { RandomResult } from './report.js';

import { errorName } from '../../src/codec/index.js';

export interface RandomCoverage {
  sequences: number;
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
        if (k === 'errorCode' && typeof v === 'number' && v !== 0) {
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

export function computeCoverage(results: RandomResult[]): RandomCoverage {
  const cov: RandomCoverage = {
    sequences: results.length,
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
}

export const DEFAULT_COVERAGE_FLOOR: CoverageFloor = {
  minFormedGroup2Share: 0.5,
  maxUnknownMemberShare: 0.25,
  minSyncsPerSequence: 1,
  states: ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable'],
};

/** Why the coverage is below the floor (empty when it is not): a run can fail on these. */
export function coverageFailures(cov: RandomCoverage, floor: Partial<CoverageFloor> = {}): string[] {
  const f = { ...DEFAULT_COVERAGE_FLOOR, ...floor };
  const out: string[] = [];
  if (cov.sequences === 0) return out;
  const formed = cov.formedGroup2 / cov.sequences;
  if (formed < f.minFormedGroup2Share) out.push(`only ${pct(formed)} of the sequences formed a group of ≥ 2 members (floor ${pct(f.minFormedGroup2Share)})`);
  const unknown = cov.answers === 0 ? 0 : (cov.byCode.UNKNOWN_MEMBER_ID ?? 0) / cov.answers;
  if (unknown > f.maxUnknownMemberShare) out.push(`${pct(unknown)} of the answers are UNKNOWN_MEMBER_ID (ceiling ${pct(f.maxUnknownMemberShare)})`);
  const syncs = cov.successfulSyncs / cov.sequences;
  if (syncs < f.minSyncsPerSequence) out.push(`${syncs.toFixed(2)} successful SyncGroups per sequence (floor ${f.minSyncsPerSequence})`);
  if (cov.sequences >= 20) {
    const missing = f.states.filter((s) => (cov.states[s] ?? 0) === 0);
    if (missing.length > 0) out.push(`group states never seen in a DescribeGroups answer: ${missing.join(', ')}`);
  }
  return out;
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

/** The markdown section ("## Random sequence coverage") for a report. */
export function renderCoverage(results: RandomResult[], floor: Partial<CoverageFloor> = {}): string {
  const cov = computeCoverage(results);
  const out: string[] = ['## Random sequence coverage', ''];
  if (cov.sequences === 0) return [...out, 'No random sequences ran.', ''].join('\n');
  const unknown = cov.answers === 0 ? 0 : (cov.byCode.UNKNOWN_MEMBER_ID ?? 0) / cov.answers;
  out.push(
    `${cov.sequences} sequences (${cov.staticMembers} static and ${cov.dynamicMembers} dynamic members, ${cov.withExpiry} with a session expiry), ${cov.answers} answers (${pct(unknown)} UNKNOWN_MEMBER_ID); ` +
      `${cov.formedGroup2} sequences (${pct(cov.formedGroup2 / cov.sequences)}) formed a group of ≥ 2 members; ${cov.successfulSyncs} successful SyncGroups; ` +
      `${cov.rebalances} join phases completed, ${cov.stableGenerations} generations synced; ${cov.parked} requests parked, ${cov.stillParkedAtEnd} still parked at the end, ${cov.notSent} not sent (busy), ${cov.noResponse} predicted answers that did not come.`,
  );
  out.push('');
  out.push(`Largest group per sequence: ${Object.entries(cov.largestGroup).sort((a, b) => Number(a[0]) - Number(b[0])).map(([n, k]) => `${n} members: ${k}`).join(', ')}.`);
  out.push(`Group states seen (sequences): ${Object.entries(cov.states).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}.`);
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
