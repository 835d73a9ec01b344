// Reading a transcript event's response by a difference's path ("topics[name=t].configs[6].name"),
// and a canonical text of JSON values, for causes that compare more than the one differing field.
import type { Json, JsonObject } from './runner.js';

/** Splits "response.topics[name=t].configs[6].name" into steps (selectors may hold dots). */
function pathSteps(path: string): Array<{ key: string; sel?: string }> | undefined {
  const out: Array<{ key: string; sel?: string }> = [];
  const re = /\.?([A-Za-z_]\w*)((?:\[[^\]]*\])*)/y;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (m === null) return undefined;
    out.push({ key: m[1]! });
    for (const s of m[2]!.matchAll(/\[([^\]]*)\]/g)) out.push({ key: '', sel: s[1] });
  }
  return out;
}

/** Resolves a diff path (without the leading "response") inside an event's response. */
export function resolve(root: Json | undefined, path: string): Json | undefined {
  const steps = pathSteps(path);
  if (steps === undefined) return undefined;
  let cur: Json | undefined = root;
  for (const step of steps) {
    if (cur === undefined || cur === null || typeof cur !== 'object') return undefined;
    if (step.sel === undefined) {
      cur = Array.isArray(cur) ? undefined : (cur as JsonObject)[step.key];
      continue;
    }
    if (!Array.isArray(cur)) return undefined;
    const eq = step.sel.indexOf('=');
    if (eq < 0) {
      cur = cur[Number(step.sel)];
      continue;
    }
    const k = step.sel.slice(0, eq);
    const v = step.sel.slice(eq + 1);
    cur = cur.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && String((x as JsonObject)[k]) === v);
  }
  return cur;
}

/** A value as text with sorted keys: equal JSON values give equal text. */
export function canonical(v: Json | undefined): string {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
    .join(',')}}`;
}
