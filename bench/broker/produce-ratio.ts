// Only the kafkajs produce workload of bench/broker/run.ts, kmock against librdkafka's mock, with
// more repetitions (the full run spends most of its time on starts, consume and joins):
//
//   npx tsx bench/broker/produce-ratio.ts [--reps N] [--messages N] [--batch N] [--warmup N]
//                                          [--kmock-dist cache|repo] [--kmock-only] [--replay [--replay-node]] [--also NAME=DIR ...]
//
// --replay adds the replay broker (replay.ts): answers recorded from kmock, replayed at no cost,
// the most any broker could give this client; --replay-node also the same replay in Node.
//
// --also NAME=DIR adds another kmock build as a contender (DIR holds bin/kmock.js and dist/, e.g. a
// copy of an earlier ~/.cache/kmock-bench/kmock-<hash>), for before/after in the same run.
//
// Same broker processes, same spawn arguments, same topic creation, same produceRun (workloads.ts)
// and the same broker CPU measure (/proc, user + system, all threads) as run.ts's produce rows.
// Repetitions alternate the order of the two brokers; a fresh broker process each time.
// Prints msgs/s, broker CPU and client CPU per 1,000 messages for every run, and medians.
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKmock, buildRdkafkaMock, kmockSpec, rdkafkaSpec, type KmockBuild, type SpawnSpec } from './peers.js';
import { kafkajsCreateTopic, produceOnFreshBroker, produceRun, type ProduceOptions, type ProduceSample } from './workloads.js';
import { buildReplayBroker, freePort, recordResponses, replayNodeSpecOf, replaySpec } from './replay.js';

const TOPIC = 'bench-data';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const reps = arg('--reps', 5);
const o: ProduceOptions = { messages: arg('--messages', 50_000), batchSize: arg('--batch', 100), valueBytes: 100, warmupBatches: arg('--warmup', 20) };
const di = process.argv.indexOf('--kmock-dist');
const kmock = buildKmock(di >= 0 ? (process.argv[di + 1] as 'cache' | 'repo') : 'cache');
const kmockOnly = process.argv.includes('--kmock-only');
const specs: Array<[string, SpawnSpec]> = [['kmock', kmockSpec(kmock, ['--initial-rebalance-delay-ms', '0'])]];
for (let i = 0; i < process.argv.length; i++) {
  if (process.argv[i] !== '--also') continue;
  const [name, dir] = process.argv[i + 1].split('=');
  const b: KmockBuild = { bin: join(dir, 'bin', 'kmock.js'), dist: join(dir, 'dist'), source: 'cache', hash: name, built: false };
  specs.push([name, kmockSpec(b, ['--initial-rebalance-delay-ms', '0'])]);
}
if (!kmockOnly) specs.push(['rdkafka', rdkafkaSpec(buildRdkafkaMock())]);
if (process.argv.includes('--replay')) {
  const port = await freePort();
  const file = join(tmpdir(), `kmock-replay-${process.pid}.bin`);
  const apis = await recordResponses(kmock, port, file, async (bootstrap) => {
    await kafkajsCreateTopic(bootstrap, TOPIC, 1);
    await produceRun(bootstrap, TOPIC, { ...o, messages: o.batchSize * 5, warmupBatches: 1 });
  });
  console.log(`replay broker: answers recorded from kmock for ${apis.join(', ')} (api version)`);
  specs.push(['replay', replaySpec(buildReplayBroker(), port, file)]);
  if (process.argv.includes('--replay-node')) {
    specs.push(['replay-node', replayNodeSpecOf(port, file)]);
  }
}
console.log(`kmock build ${kmock.hash}${kmock.tscErrors ? ' (tsc errors)' : ''}; ${reps} reps of ${o.messages} messages; load ${loadavg()[0].toFixed(2)}`);
const out: Record<string, ProduceSample[]> = Object.fromEntries(specs.map(([n]) => [n, []]));
for (let r = 0; r < reps; r++) {
  // rotate the order every repetition
  const order = specs.map((_, i) => specs[(i + r) % specs.length]);
  for (const [name, spec] of order) {
    const s = await produceOnFreshBroker(spec, TOPIC, o);
    out[name].push(s);
    console.log(
      `${name}#${r + 1}: ${Math.round(s.msgsPerSec)} msgs/s, broker CPU ${s.brokerCpuPerK.toFixed(2)} ms/1k, client CPU ${s.clientCpuPerK.toFixed(2)} ms/1k (load ${loadavg()[0].toFixed(2)})`,
    );
  }
}
for (const [name] of specs) {
  const xs = out[name];
  console.log(
    `${name} median: ${Math.round(median(xs.map((x) => x.msgsPerSec)))} msgs/s, broker CPU ${median(xs.map((x) => x.brokerCpuPerK)).toFixed(2)} ms/1k, client CPU ${median(xs.map((x) => x.clientCpuPerK)).toFixed(2)} ms/1k`,
  );
}
if (!kmockOnly) {
  const ratio = median(out.kmock.map((x) => x.msgsPerSec)) / median(out.rdkafka.map((x) => x.msgsPerSec));
  const perRep = out.kmock.map((k, i) => (k.msgsPerSec / out.rdkafka[i].msgsPerSec).toFixed(2));
  console.log(`produce ratio kmock / librdkafka mock (medians): ${ratio.toFixed(2)}× (per repetition: ${perRep.join(', ')})`);
  for (const [name] of specs) {
    if (name === 'kmock' || name === 'rdkafka') continue;
    const r2 = median(out[name].map((x) => x.msgsPerSec)) / median(out.rdkafka.map((x) => x.msgsPerSec));
    console.log(`produce ratio ${name} / librdkafka mock (medians): ${r2.toFixed(2)}×`);
  }
}
