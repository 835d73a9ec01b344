// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self and inclusive time per function,
// for the top N functions.
//   npx tsx bench/profile-summary.ts FILE [N=25] [ROOT_FUNCTION]
// With ROOT_FUNCTION, only samples whose stack contains it count, and percentages are of the time
// under it (so module loading and the benchmark loop itself drop out).
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Node {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, nArg, root] = process.argv.slice(2);
const top = Number(nArg ?? 25);
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map<number, Node>();
const parent = new Map<number, number>();
for (const n of p.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n.id);
}

const label = (f: CallFrame): string => {
  // tsx-compiled modules report every function at line 1, so only show real line numbers.
  const file = f.url.replace(/^file:\/\/.*?\/(src|bench|node_modules)\//, '$1/');
  const where = f.url === '' ? '' : f.lineNumber > 0 ? ` ${file}:${f.lineNumber + 1}` : ` ${file}`;
  return `${f.functionName === '' ? '(anonymous)' : f.functionName}${where}`;
};

const self = new Map<string, number>();
const incl = new Map<string, number>();
let total = 0;
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i] ?? 0;
  let id: number | undefined = p.samples[i];
  const leaf = byId.get(id)!;
  if (root !== undefined) {
    let under = false;
    for (let j: number | undefined = id; j !== undefined; j = parent.get(j)) {
      if (byId.get(j)!.callFrame.functionName === root) {
        under = true;
        break;
      }
    }
    if (!under) continue;
  }
  total += dt;
  const l = label(leaf.callFrame);
  self.set(l, (self.get(l) ?? 0) + dt);
  const seen = new Set<string>();
  while (id !== undefined) {
    const n = byId.get(id)!;
    const nl = label(n.callFrame);
    if (!seen.has(nl)) {
      seen.add(nl);
      incl.set(nl, (incl.get(nl) ?? 0) + dt);
    }
    id = parent.get(id);
  }
}

const pct = (x: number) => `${((100 * x) / total).toFixed(1)}%`;
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}\n`);
  console.log('| % | function |');
  console.log('|---:|---|');
  for (const [k, v] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${pct(v)} | \`${k}\` |`);
};
console.log(`${file}: ${p.samples.length} samples; ${(total / 1000).toFixed(0)} ms${root === undefined ? '' : ` under ${root}`}`);
print('Self time', self);
print('Inclusive time', incl);
