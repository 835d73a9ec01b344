// The replay broker (replay-broker.c): answers every request with a response recorded from kmock
// for the same API key and version, and does nothing else. It is the floor of a client-bound
// workload: the rate a client reaches when the broker's answer costs nothing.
//
// Recording: kmock starts advertising the port the replay broker will use; a small proxy here
// listens on that port, forwards to kmock, and keeps the last answer for every (API key, version)
// the workload sends (the last Metadata answer is the one that lists the workload's topic). The replay broker then listens on the same port, so the recorded Metadata
// answers point the client back at it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';
import { CACHE_ROOT, HERE, REPO, kmockSpec, spawnBroker, type KmockBuild, type SpawnSpec } from './peers.js';

export interface ReplayBuild {
  bin: string;
  hash: string;
}

/** gcc -O2 into the bench cache, keyed by the source's hash (like the librdkafka runner). */
export function buildReplayBroker(): ReplayBuild {
  const src = join(HERE, 'replay-broker.c');
  const flags = ['-O2', '-Wall', '-Wextra'];
  const hash = createHash('sha256').update(readFileSync(src)).update(flags.join(' ')).digest('hex').slice(0, 16);
  const dir = join(CACHE_ROOT, `replay-broker-${hash}`);
  const bin = join(dir, 'replay-broker');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`[bench/broker] building ${relative(REPO, src)} -> ${bin}\n`);
    const tmp = `${bin}.tmp-${process.pid}`;
    const r = spawnSync('gcc', [...flags, '-o', tmp, src], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`gcc failed:\n${r.stderr}`);
    renameSync(tmp, bin); // atomic: a concurrent run sees no binary or a whole one
  }
  return { bin, hash };
}

/** A port that was free a moment ago (the recording and the replay broker both use it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Splits a byte stream into Kafka frames (int32 size prefix). */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      const size = buf.readInt32BE(0);
      onFrame(buf.subarray(0, 4 + size));
      buf = buf.subarray(4 + size);
    }
  };
}

/**
 * Runs `workload` against kmock through a recording proxy on `port` and writes what kmock answered
 * (the last answer per API key and version) to `file` in replay-broker.c's format.
 */
export async function recordResponses(
  kmock: KmockBuild,
  port: number,
  file: string,
  workload: (bootstrap: string) => Promise<void>,
): Promise<string[]> {
  const k = await spawnBroker(kmockSpec(kmock, ['--advertised-port', String(port)]));
  const recorded = new Map<string, Buffer>();
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = connect({ host: k.host, port: k.port, noDelay: true });
    client.setNoDelay(true);
    sockets.add(client).add(upstream);
    // correlation id -> "key v version" of the requests in flight on this connection
    const inFlight = new Map<number, string>();
    client.on(
      'data',
      framer((f) => {
        inFlight.set(f.readInt32BE(8), `${f.readInt16BE(4)} ${f.readInt16BE(6)}`);
        upstream.write(f);
      }),
    );
    upstream.on(
      'data',
      framer((f) => {
        const id = f.readInt32BE(4);
        const what = inFlight.get(id);
        inFlight.delete(id);
        if (what !== undefined) recorded.set(what, Buffer.from(f));
        client.write(f);
      }),
    );
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
  try {
    await workload(`127.0.0.1:${port}`);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => proxy.close(() => r()));
    await k.stop();
  }
  const parts: Buffer[] = [];
  for (const [what, frame] of recorded) {
    const [key, version] = what.split(' ').map(Number);
    const h = Buffer.alloc(8);
    h.writeInt16BE(key, 0);
    h.writeInt16BE(version, 2);
    h.writeUInt32BE(frame.length, 4);
    parts.push(h, frame);
  }
  writeFileSync(file, Buffer.concat(parts));
  process.once('exit', () => rmSync(file, { force: true })); // needed until the last replay broker is done
  return [...recorded.keys()];
}

export function replaySpec(build: ReplayBuild, port: number, file: string): SpawnSpec {
  return { kind: 'replay', command: build.bin, args: [String(port), file], stopBy: 'stdin' };
}

/** replay-broker-node.cjs: the same replay with node:net, for what Node's socket path costs. */
export function replayNodeSpecOf(port: number, file: string): SpawnSpec {
  return { kind: 'replay', command: process.execPath, args: [join(HERE, 'replay-broker-node.cjs'), String(port), file], stopBy: 'stdin' };
}
