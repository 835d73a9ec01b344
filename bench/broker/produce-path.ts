// The broker's Produce path alone, without kafkajs's client-side cost in the way:
//
//   node --expose-gc --import tsx bench/broker/produce-path.ts inproc [--requests N] [--rounds N]
//       In this process: a Broker and one Connection on a fake socket. Each request is a copy of
//       one kafkajs 2.2.4 Produce v7 frame (100 null-key 100-byte records, acks=1, no compression,
//       as bench/broker/workloads.ts sends), pushed through Connection's 'data' handler; the
//       response goes to the fake socket's write(). CPU µs per request (process.cpuUsage), median
//       of the rounds; also the cost of the frame copy alone, which is the benchmark's own.
//   npx tsx bench/broker/produce-path.ts stages [--requests N]
//       The same request, split: decodeRequest, the handler, encodeResponseChunks (µs each).
//   npx tsx bench/broker/produce-path.ts tcp [--requests N] [--warmup N] [--rounds N] [--kmock-dist cache|repo]
//                                            [--gap-ms N] [--also NAME=DIR ...] [--perf "record -g -o FILE"] [--node-flags "..."]
//       `kmock start` as its own process (built from src/ like bench/broker/run.ts does), one raw
//       TCP client here sending the same frames one at a time (next after the response): broker
//       CPU per 1,000 messages from /proc (user + system, all threads), median of the rounds,
//       each round on a fresh broker. --also NAME=DIR adds another build (DIR with bin/ and dist/,
//       e.g. a saved copy of ~/.cache/kmock-bench/kmock-<hash>), rounds interleaved, for before/after.
//       The default (--requests 500 after --warmup 20) is the kafkajs benchmark's shape: the broker
//       is still warming up its JIT there; --warmup 10000 gives the steady state. --perf runs
//       `perf ARGS -p PID` around the timed part (the broker gets --perf-basic-prof so JS frames
//       have names); --node-flags passes flags such as "--trace-opt" to the broker's node, whose
//       output then goes to /tmp/kmock-flags.log.
//
// kafkajs's produce request is built once with kafkajs's own modules (produce/v7/request.js and
// its RecordBatch), so the bytes are what kafkajs sends; only the correlation id differs per copy.
import { connect } from 'node:net';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Broker } from '../../src/broker/broker.js';
import { DEFAULT_CONFIG } from '../../src/broker/config.js';
import { decodeRequest, encodeResponseChunks } from '../../src/codec/index.js';
import type { RequestContext } from '../../src/broker/handlers/types.js';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildKmock, kmockSpec, spawnBroker, type KmockBuild } from './peers.js';

const require = createRequire(import.meta.url);

const TOPIC = 'bench-data';
const BATCH = 100;
const VALUE_BYTES = 100;

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
function flag(name: string): boolean {
  return process.argv.includes(name);
}
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** One Produce v7 request frame (size prefix included) as kafkajs 2.2.4 encodes it. */
async function kafkajsProduceFrame(): Promise<Buffer> {
  const produceV7 = require('kafkajs/src/protocol/requests/produce/v7/request') as (a: Record<string, unknown>) => {
    encode(): Promise<{ buffer: Buffer }>;
  };
  const value = Buffer.alloc(VALUE_BYTES, 0x61);
  const now = Date.now();
  const messages = Array.from({ length: BATCH }, () => ({ key: null, value, timestamp: now }));
  const req = produceV7({ acks: 1, timeout: 30000, compression: 0, topicData: [{ topic: TOPIC, partitions: [{ partition: 0, messages }] }] });
  const body = (await req.encode()).buffer;
  const clientId = Buffer.from('bench-producer');
  const head = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
  head.writeInt32BE(head.length - 4 + body.length, 0);
  head.writeInt16BE(0, 4); // Produce
  head.writeInt16BE(7, 6);
  head.writeInt32BE(1, 8);
  head.writeInt16BE(clientId.length, 12);
  clientId.copy(head, 14);
  return Buffer.concat([head, body]);
}

// ---- in-process ------------------------------------------------------------------------------------

class FakeSocket extends EventEmitter {
  remoteAddress = '127.0.0.1';
  remotePort = 1;
  responses = 0;
  lastResponse: Buffer | null = null;
  setNoDelay(): void {}
  pause(): void {}
  resume(): void {}
  cork(): void {}
  uncork(): void {}
  destroy(): void {}
  write(b: Buffer): boolean {
    this.responses++;
    this.lastResponse = b;
    return true;
  }
}

function setup(): { broker: Broker; socket: FakeSocket } {
  const broker = new Broker({ ...DEFAULT_CONFIG, logLevel: 'silent' });
  broker.topics.create(TOPIC, 1, 1);
  const socket = new FakeSocket();
  broker.accept(socket as never);
  return { broker, socket };
}

async function inproc(): Promise<void> {
  const requests = arg('--requests', 20_000);
  const rounds = arg('--rounds', 7);
  const template = await kafkajsProduceFrame();
  const { broker, socket } = setup();
  const log = broker.topics.get(TOPIC)!.partitions[0];
  let corr = 1;
  const one = () => {
    const f = Buffer.from(template);
    f.writeInt32BE(corr++, 8);
    socket.emit('data', f);
  };
  const copyOnly = () => {
    const f = Buffer.from(template);
    f.writeInt32BE(corr, 8);
    return f;
  };
  // Warm-up, and a look at the answer.
  for (let i = 0; i < 5000; i++) one();
  if (socket.responses !== 5000) throw new Error(`expected 5000 responses, got ${socket.responses}`);
  const resp = socket.lastResponse!;
  log.deleteRecords(-1);
  console.log(`frame ${template.length} B; response ${resp.length} B; log end offset ${log.logEndOffset}`);
  const perReq: number[] = [];
  const copy: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    global.gc?.();
    const c0 = cpuUs();
    for (let i = 0; i < requests; i++) one();
    const c1 = cpuUs();
    log.deleteRecords(-1); // drop the stored request buffers (memory), outside the clock
    global.gc?.();
    const c2 = cpuUs();
    for (let i = 0; i < requests; i++) sink += copyOnly().length;
    const c3 = cpuUs();
    perReq.push((c1 - c0) / requests);
    copy.push((c3 - c2) / requests);
  }
  if (sink === 0) console.log('');
  const m = median(perReq);
  const mc = median(copy);
  console.log(`rounds (µs/request): ${perReq.map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`frame copy alone (µs/request): ${copy.map((x) => x.toFixed(2)).join(', ')}`);
  console.log(
    `median: ${m.toFixed(2)} µs per request incl. copy, ${(m - mc).toFixed(2)} µs without = ${((m - mc) / 100).toFixed(3)} ms CPU per 1,000 messages (in-process, no socket)`,
  );
  console.log(`load average at end: ${loadavg()[0].toFixed(2)}`);
}

async function stages(): Promise<void> {
  const requests = arg('--requests', 20_000);
  const template = await kafkajsProduceFrame();
  const { broker } = setup();
  const handler = broker.handlers.get(0)!;
  const log = broker.topics.get(TOPIC)!.partitions[0];
  const frames = (n: number) => Array.from({ length: n }, () => Buffer.from(template).subarray(4));
  const run = (n: number) => {
    const fs = frames(n);
    const t = [0, 0, 0];
    for (const f of fs) {
      const a = performance.now();
      const d = decodeRequest(f);
      const b = performance.now();
      const ctx: RequestContext = { services: broker.services, connection: { id: 1, clientHost: 'x', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS'}, listener: broker.services.listeners[0], closeConnection: () => undefined, header: d.header, apiVersion: 7, receivedAt: b, receivedAtClock: 0 };
      const res = handler.handle(ctx, d.body as never);
      const c = performance.now();
      encodeResponseChunks(0, 7, d.header.correlationId, res as never);
      const e = performance.now();
      t[0] += b - a;
      t[1] += c - b;
      t[2] += e - c;
    }
    log.deleteRecords(-1);
    return t.map((x) => (x * 1000) / n);
  };
  run(5000);
  const rs = Array.from({ length: 5 }, () => run(requests));
  const names = ['decodeRequest', 'produce handler', 'encodeResponseChunks'];
  names.forEach((n, i) => console.log(`${n}: ${median(rs.map((r) => r[i])).toFixed(2)} µs (wall, per request; rounds ${rs.map((r) => r[i].toFixed(2)).join(', ')})`));
}

// ---- over TCP, broker in its own process --------------------------------------------------------------

let clkTck: number | undefined;
/** utime and stime of a process, in ms (/proc/<pid>/stat, 1/CLK_TCK resolution). */
function cpuOf(pid: number): { user: number; sys: number } {
  clkTck ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(rest[11]) * 1000) / clkTck, sys: (Number(rest[12]) * 1000) / clkTck };
}

interface TcpRound {
  /** broker CPU per 1,000 messages, ms: total, user, system */
  total: number;
  user: number;
  sys: number;
}

async function tcpRound(bin: ReturnType<typeof buildKmock>, template: Buffer, requests: number, warmup: number, perfArgs: string[] | null): Promise<TcpRound> {
  const spec = kmockSpec(bin);
  // --perf-basic-prof writes /tmp/perf-<pid>.map so that perf can name JIT-compiled JS frames.
  if (perfArgs !== null) spec.env = { NODE_OPTIONS: '--perf-basic-prof' };
  // `--node-flags "--trace-opt --trace-deopt"`: extra node/V8 flags for the broker (its output goes to OUT_DIR/kmock-flags.log).
  const nf = process.argv.indexOf('--node-flags');
  if (nf >= 0) spec.args = [...process.argv[nf + 1].split(' '), ...spec.args];
  const p = await spawnBroker(spec);
  const traceLog: string[] = [];
  if (nf >= 0) p.child.stdout!.on('data', (s: string) => traceLog.push(s));
  try {
    // CreateTopics v2 by hand: one topic, 1 partition, RF 1, no assignments/configs, timeout 10 s, validateOnly false.
    const name = Buffer.from(TOPIC);
    const body = Buffer.alloc(4 + 2 + name.length + 4 + 2 + 4 + 4 + 4 + 1);
    let o = 0;
    o = body.writeInt32BE(1, o);
    o = body.writeInt16BE(name.length, o);
    o += name.copy(body, o);
    o = body.writeInt32BE(1, o);
    o = body.writeInt16BE(1, o);
    o = body.writeInt32BE(0, o);
    o = body.writeInt32BE(0, o);
    o = body.writeInt32BE(10000, o);
    body.writeInt8(0, o);
    const cid = Buffer.from('bench');
    const head = Buffer.alloc(4 + 8 + 2 + cid.length);
    head.writeInt32BE(head.length - 4 + body.length, 0);
    head.writeInt16BE(19, 4);
    head.writeInt16BE(2, 6);
    head.writeInt32BE(0, 8);
    head.writeInt16BE(cid.length, 12);
    cid.copy(head, 14);
    const sock = connect({ host: p.host, port: p.port, noDelay: true });
    await new Promise<void>((res, rej) => sock.once('connect', res).once('error', rej));
    let want: (() => void) | null = null;
    let acc = 0;
    let need = -1;
    sock.on('data', (d: Buffer) => {
      acc += d.length;
      // Responses are small and arrive whole here; count bytes against each frame's size prefix.
      if (need < 0) need = 4 + d.readInt32BE(0);
      while (need >= 0 && acc >= need) {
        acc -= need;
        need = -1;
        const w = want;
        want = null;
        w?.();
      }
    });
    const send = (b: Buffer) =>
      new Promise<void>((res) => {
        want = res;
        sock.write(b);
      });
    await send(Buffer.concat([head, body]));
    let corr = 1;
    // --gap-ms N: the client waits N ms between a response and the next request (kafkajs spends
    // about 2 ms of its own CPU per send, so the broker idles in between).
    const gap = arg('--gap-ms', 0);
    const produce = async () => {
      if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      const f = Buffer.from(template);
      f.writeInt32BE(corr++, 8);
      return send(f);
    };
    for (let i = 0; i < warmup; i++) await produce();
    // `--perf ARGS`: perf (e.g. "record -g -o /tmp/kmock.perf" or "stat") attached for the timed part.
    const perf = perfArgs === null ? null : spawn('perf', [...perfArgs, '-p', String(p.pid)], { stdio: 'inherit' });
    if (perf !== null) await new Promise((r) => setTimeout(r, 500));
    const c0 = cpuOf(p.pid);
    for (let i = 0; i < requests; i++) await produce();
    const c1 = cpuOf(p.pid);
    if (perf !== null) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    sock.destroy();
    if (nf >= 0) writeFileSync('/tmp/kmock-flags.log', traceLog.join(''));
    const per = (ms: number) => (ms / (requests * BATCH)) * 1000;
    return { total: per(c1.user + c1.sys - c0.user - c0.sys), user: per(c1.user - c0.user), sys: per(c1.sys - c0.sys) };
  } finally {
    await p.stop();
  }
}

async function tcp(): Promise<void> {
  const requests = arg('--requests', 500);
  const rounds = arg('--rounds', 5);
  const warmup = arg('--warmup', 20);
  const i = process.argv.indexOf('--kmock-dist');
  const build = buildKmock(i >= 0 ? (process.argv[i + 1] as 'cache' | 'repo') : 'cache');
  console.log(`kmock build ${build.hash}${build.tscErrors ? ' (tsc errors!)' : ''}`);
  const builds: Array<[string, KmockBuild]> = [['kmock', build]];
  for (let j = 0; j < process.argv.length; j++) {
    if (process.argv[j] !== '--also') continue;
    const [name, dir] = process.argv[j + 1].split('=');
    builds.push([name, { bin: join(dir, 'bin', 'kmock.js'), dist: join(dir, 'dist'), source: 'cache', hash: name, built: false }]);
  }
  const template = await kafkajsProduceFrame();
  const pi = process.argv.indexOf('--perf');
  const perfArgs = pi >= 0 ? process.argv[pi + 1].split(' ') : null;
  const xs: Record<string, TcpRound[]> = Object.fromEntries(builds.map(([n]) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < builds.length; k++) {
      const [name, b] = builds[(k + r) % builds.length];
      const x = await tcpRound(b, template, requests, warmup, perfArgs);
      xs[name].push(x);
      console.log(
        `${name} round ${r + 1}: ${x.total.toFixed(2)} ms broker CPU per 1,000 messages (user ${x.user.toFixed(2)}, sys ${x.sys.toFixed(2)}; load ${loadavg()[0].toFixed(2)})`,
      );
    }
  }
  for (const [name] of builds) {
    const v = xs[name];
    console.log(
      `${name} median of ${rounds}: ${median(v.map((x) => x.total)).toFixed(2)} ms broker CPU per 1,000 messages ` +
        `(user ${median(v.map((x) => x.user)).toFixed(2)}, sys ${median(v.map((x) => x.sys)).toFixed(2)}; ${requests} requests of ${BATCH} after ${warmup} untimed)`,
    );
  }
}

const mode = process.argv[2];
if (mode === 'inproc') await inproc();
else if (mode === 'stages') await stages();
else if (mode === 'tcp') await tcp();
else console.log('usage: tsx bench/broker/produce-path.ts inproc|stages|tcp [--requests N] [--rounds N] [--kmock-dist cache|repo]');
