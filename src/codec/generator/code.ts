// The generator's code writer: indented lines (Code), and the version branching that decides at
// generation time which code runs for which versions (runs, branchExpr, branchStmts). Used by
// emit.ts; knows nothing about messages.
import type { Versions } from './versions.js';

export class Code {
  private lines: string[] = [];
  private depth = 0;
  line(s = ''): this {
    this.lines.push(s === '' ? '' : '  '.repeat(this.depth) + s);
    return this;
  }
  open(s: string): this {
    this.line(s);
    this.depth++;
    return this;
  }
  /** A line at the outer depth between two blocks, e.g. `} else {`. */
  mid(s: string): this {
    this.depth--;
    this.line(s);
    this.depth++;
    return this;
  }
  close(s = '}'): this {
    this.depth--;
    return this.line(s);
  }
  /** Drops blank lines at the end (before closing a block). */
  trimBlank(): this {
    while (this.lines.length > 0 && this.lines[this.lines.length - 1] === '') this.lines.pop();
    return this;
  }
  toString(): string {
    return this.lines.join('\n');
  }
}

/**
 * Splits `possible` into runs where `pick(v)` gives the same code, at the given boundaries.
 * Returns [[firstVersionOfRun, code], ...].
 */
function runs(possible: Versions, boundaries: Versions[], pick: (v: number) => string): Array<[number, string]> {
  const points = new Set<number>([possible.lo]);
  for (const b of boundaries) {
    if (b.isEmpty()) continue;
    for (const p of [b.lo, b.hi + 1]) if (p > possible.lo && p <= possible.hi) points.add(p);
  }
  const sorted = [...points].sort((a, b) => a - b);
  const out: Array<[number, string]> = [];
  for (const p of sorted) {
    const code = pick(p);
    if (out.length === 0 || out[out.length - 1][1] !== code) out.push([p, code]);
  }
  return out;
}

/** An expression choosing among per-version expressions. */
export function branchExpr(possible: Versions, boundaries: Versions[], pick: (v: number) => string): string {
  const r = runs(possible, boundaries, pick);
  let expr = r[r.length - 1][1];
  for (let i = r.length - 2; i >= 0; i--) expr = `v < ${r[i + 1][0]} ? ${r[i][1]} : ${expr}`;
  return expr;
}

/** Statements chosen per version, as an if / else-if / else chain; empty runs emit nothing. */
export function branchStmts(code: Code, possible: Versions, boundaries: Versions[], pick: (v: number) => string): void {
  const r = runs(possible, boundaries, pick);
  if (r.length === 1) {
    if (r[0][1] !== '') for (const l of r[0][1].split('\n')) code.line(l);
    return;
  }
  let opened = false;
  let skipped = false;
  for (let i = 0; i < r.length; i++) {
    const [from, stmts] = r[i];
    if (stmts === '') {
      skipped = true;
      continue;
    }
    const to = i + 1 < r.length ? r[i + 1][0] : possible.hi + 1;
    const conds: string[] = [];
    if (from > possible.lo) conds.push(`v >= ${from}`);
    if (to <= possible.hi) conds.push(`v < ${to}`);
    const lastAndComplete = i === r.length - 1 && !skipped && opened;
    const head = lastAndComplete ? '} else {' : opened ? `} else if (${conds.join(' && ')}) {` : `if (${conds.join(' && ')}) {`;
    if (opened) code.mid(head);
    else code.open(head);
    opened = true;
    for (const l of stmts.split('\n')) code.line(l);
  }
  if (opened) code.close();
}
