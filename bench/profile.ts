// Runs ONE contender of ONE benchmark case in a hot loop, for a CPU profile:
//
//   node --cpu-prof --cpu-prof-dir bench/results/profiles --import tsx \
//        bench/profile.ts 'JoinGroup request decode v5' [contenderIndex=0] [seconds=5]
//   npx tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile
//
// The op is matched as a regex against the case names in codec.bench.ts; contender 0 is kmock's.
import { buildCases } from './codec.bench.js';

const [pattern, idxArg, secondsArg] = process.argv.slice(2);
if (pattern === undefined) {
  console.error('usage: profile.ts OP_REGEX [contenderIndex=0] [seconds=5]');
  process.exit(2);
}
const re = new RegExp(pattern);
const cases = (await buildCases()).filter((c) => re.test(c.op));
if (cases.length !== 1) {
  console.error(`"${pattern}" matches ${cases.length} cases: ${cases.map((c) => c.op).join(', ')}`);
  process.exit(2);
}
const c = cases[0];
const k = c.contenders[Number(idxArg ?? 0)];
const seconds = Number(secondsArg ?? 5);
console.error(`profiling "${k.name}" on "${c.op}" for ${seconds} s`);
const end = Date.now() + seconds * 1000;
let n = 0;
let sink: unknown;
while (Date.now() < end) {
  for (let i = 0; i < 10_000; i++) sink = k.async === true ? await (k.fn(c.input) as Promise<unknown>) : k.fn(c.input);
  n += 10_000;
}
console.error(`${n.toLocaleString('en-US')} calls, ${Math.round(n / seconds).toLocaleString('en-US')} ops/s (profiler attached)`, typeof sink);
