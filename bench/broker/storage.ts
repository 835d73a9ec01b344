// Storage benchmark (issue #13): kmock in memory, kmock with --data-dir (without and with fsync
// before acks=all), and Kafka 3.9.1, in the same run, as ratios:
//   - pipelined produce (16 in flight, one pre-built 1 MiB batch per request, acks=-1) and the
//     same data read back with pipelined Fetch (one stored batch each);
//   - restart time and RSS with 1 GB and 10 GB stored (clean stop, and after kill -9);
//   - memory per stored byte (in memory, no cap: RSS over stored bytes after 2 GB);
//   - RSS while 10 GB are produced and consumed under the default 1 GiB stored-memory cap
//     (in memory: the oldest segments dropped; with a data dir: evicted to disk).
//
//   npx tsx bench/broker/storage.ts [--quick] [--no-kafka] [--out FILE]
//
// Writes bench/results/storage.md. The machine is shared: only ratios within one run count.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { encodeRequest } from '../../src/codec/index.js';
import { encodeBatch } from '../../src/codec/records/index.js';
import { buildKmock, cpuMsOf, kmockSpec, REPO, rssOf, spawnBroker, type BrokerProcess } from './peers.js';

const quick = process.argv.includes('--quick');
const noKafka = process.argv.includes('--no-kafka');
const outIdx = process.argv.indexOf('--out');
const OUT = outIdx >= 0 ? process.argv[outIdx + 1] : join(REPO, 'bench', 'results', quick ? 'storage.quick.md' : 'storage.md');
const MiB = 1 << 20;
const THROUGHPUT_BYTES = (quick ? 256 : 1024) * MiB;
const RESTART_SIZES = quick ? [256 * MiB] : [1024 * MiB, 10240 * MiB];
const PER_BYTE_BYTES = (quick ? 512 : 2048) * MiB;
const CAPPED_BYTES = (quick ? 2048 : 10240) * MiB;
const RECORDS_PER_BATCH = 64;
const IN_FLIGHT = 16;

function progress(s: string): void {
  process.stderr.write(`${s}\n`);
}

/** One pre-built v2 batch of about `bytes` bytes (RECORDS_PER_BATCH records, CRC-32C correct). */
function batchOf(bytes: number): Buffer {
  const value = Buffer.alloc(Math.floor(bytes / RECORDS_PER_BATCH) - 20, 0x61);
  return encodeBatch({ records: Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: `k${i}`, value, timestamp: Date.now() })) });
}

/** A socket that counts response frames and their bytes (no decoding). */
class Pipe {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private need = -1;
  private waiters: Array<(size: number) => void> = [];
  constructor(private readonly socket: Socket) {
    socket.on('data', (c: Buffer) => this.onData(c));
  }
  static async open(bootstrap: string): Promise<Pipe> {
    const [host, port] = bootstrap.split(':');
    const s = connect({ host, port: Number(port), noDelay: true });
    await new Promise<void>((r, j) => {
      s.once('connect', r);
      s.once('error', j);
    });
    return new Pipe(s);
  }
  send(frame: Buffer): Promise<number> {
    this.socket.write(frame);
    return new Promise((r) => this.waiters.push(r));
  }
  close(): void {
    this.socket.destroy();
  }
  private onData(c: Buffer): void {
    this.pending.push(c);
    this.pendingBytes += c.length;
    for (;;) {
      if (this.need < 0) {
        if (this.pendingBytes < 4) return;
        const head = Buffer.concat(this.pending);
        this.pending = [head];
        this.need = head.readInt32BE(0);
      }
      if (this.pendingBytes < 4 + this.need) return;
      const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      const size = this.need;
      const rest = all.subarray(4 + size);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.need = -1;
      this.waiters.shift()?.(size);
    }
  }
}

async function pipelined(p: Pipe, count: number, frameOf: (i: number) => Buffer): Promise<number> {
  let bytes = 0;
  let next = 0;
  const inflight: Array<Promise<void>> = [];
  const one = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      // (not `bytes += await ...`: that reads `bytes` before the await, and the workers race)
      const n = await p.send(frameOf(i));
      bytes += n;
    }
  };
  for (let k = 0; k < IN_FLIGHT; k++) inflight.push(one());
  await Promise.all(inflight);
  return bytes;
}

async function createTopic(bootstrap: string, topic: string): Promise<void> {
  const admin = new Kafka({ clientId: 'bench-storage', brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
}

function produceFrame(topic: string, batch: Buffer): Buffer {
  return encodeRequest(
    { apiKey: 0, apiVersion: 9, correlationId: 1, clientId: 'bench' },
    { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] } as never,
  );
}

function fetchFrame(topic: string, offset: number, maxBytes: number): Buffer {
  return encodeRequest(
    { apiKey: 1, apiVersion: 12, correlationId: 2, clientId: 'bench' },
    {
      clusterId: null,
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1n },
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: maxBytes }] }],
      forgottenTopicsData: [],
      rackId: '',
    } as never,
  );
}

interface Throughput {
  produceMBs: number;
  fetchMBs: number;
  brokerCpuMsPerMB: number | null;
}

async function throughput(bootstrap: string, pid: number | null, topic: string, totalBytes: number): Promise<Throughput> {
  await createTopic(bootstrap, topic);
  const batch = batchOf(MiB);
  const count = Math.floor(totalBytes / batch.length);
  const frame = produceFrame(topic, batch);
  const p = await Pipe.open(bootstrap);
  // warm-up: a few batches, untimed, into a topic of their own
  await createTopic(bootstrap, `${topic}-warm`);
  await pipelined(p, 32, () => produceFrame(`${topic}-warm`, batch));
  const cpu0 = pid === null ? 0 : cpuMsOf(pid);
  const t0 = performance.now();
  await pipelined(p, count, () => frame);
  const t1 = performance.now();
  const frames = Array.from({ length: count }, (_, i) => fetchFrame(topic, i * RECORDS_PER_BATCH, batch.length));
  const fetched = await pipelined(p, count, (i) => frames[i]);
  const t2 = performance.now();
  const cpu1 = pid === null ? 0 : cpuMsOf(pid);
  p.close();
  const mb = (count * batch.length) / 1e6;
  if (fetched < count * batch.length) throw new Error(`fetched ${fetched} bytes of ${count * batch.length}`);
  return { produceMBs: mb / ((t1 - t0) / 1000), fetchMBs: mb / ((t2 - t1) / 1000), brokerCpuMsPerMB: pid === null ? null : (cpu1 - cpu0) / (2 * mb) };
}

async function fill(bootstrap: string, topic: string, bytes: number): Promise<void> {
  await createTopic(bootstrap, topic);
  const batch = batchOf(MiB);
  const p = await Pipe.open(bootstrap);
  const frame = produceFrame(topic, batch);
  await pipelined(p, Math.floor(bytes / batch.length), () => frame);
  p.close();
}

async function main(): Promise<void> {
  const kmock = buildKmock('cache');
  const rows: string[] = [];
  const load0 = loadavg()[0].toFixed(2);
  const dirs: string[] = [];
  const newDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'kmock-bench-data-'));
    dirs.push(d);
    return d;
  };
  try {
    // ---- throughput -----------------------------------------------------------------------------
    const tput: Array<[string, Throughput]> = [];
    const runKmock = async (name: string, args: string[]): Promise<void> => {
      const b = await spawnBroker(kmockSpec(kmock, ['--set', 'storedMaxBytes=-1', ...args]), 60_000);
      try {
        progress(`throughput: ${name}`);
        tput.push([name, await throughput(b.bootstrap, b.pid, 'tput', THROUGHPUT_BYTES)]);
      } finally {
        await b.stop();
      }
    };
    await runKmock('kmock in memory', []);
    await runKmock('kmock --data-dir', ['--data-dir', newDir()]);
    await runKmock('kmock --data-dir --fsync', ['--data-dir', newDir(), '--fsync']);
    if (!noKafka) {
      const script = join(REPO, 'scripts', 'kafka-reference');
      const out = execFileSync(script, ['start', '3.9.1'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const m = /listening on (\S+)/.exec(out);
      if (!m) throw new Error(`kafka-reference start printed no address: ${out}`);
      try {
        progress('throughput: Kafka 3.9.1');
        tput.push(['Kafka 3.9.1 (no fsync: its default)', await throughput(m[1], null, 'tput', THROUGHPUT_BYTES)]);
      } finally {
        execFileSync(script, ['stop', '--port', m[1].split(':')[1]], { stdio: 'ignore' });
      }
    }
    const kafkaRow = tput.find(([n]) => n.startsWith('Kafka'))?.[1];
    rows.push('## Pipelined produce and fetch (1 MiB batches, 16 in flight, acks=-1)', '');
    rows.push(`${(THROUGHPUT_BYTES / MiB).toFixed(0)} MiB produced into one partition, then read back with one Fetch per stored batch.`, '');
    rows.push('| broker | produce MB/s | ÷ Kafka | fetch MB/s | ÷ Kafka | broker CPU ms/MB |', '|---|---:|---:|---:|---:|---:|');
    for (const [name, t] of tput) {
      const r = (a: number, b: number | undefined) => (b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
      rows.push(`| ${name} | ${t.produceMBs.toFixed(0)} | ${r(t.produceMBs, kafkaRow?.produceMBs)} | ${t.fetchMBs.toFixed(0)} | ${r(t.fetchMBs, kafkaRow?.fetchMBs)} | ${t.brokerCpuMsPerMB === null ? '—' : t.brokerCpuMsPerMB.toFixed(2)} |`);
    }
    rows.push('');

    // ---- restart time ------------------------------------------------------------------------------
    rows.push('## Restart with a data dir', '');
    rows.push('| stored | stop | start until listening (ms) | RSS after start (MiB) | first fetch (ms) |', '|---:|---|---:|---:|---:|');
    for (const size of RESTART_SIZES) {
      const dir = newDir();
      const args = ['--data-dir', dir, '--set', 'storedMaxBytes=-1'];
      let b: BrokerProcess = await spawnBroker(kmockSpec(kmock, args), 60_000);
      progress(`restart: filling ${size / MiB} MiB`);
      await fill(b.bootstrap, 'stored', size);
      for (const how of ['clean (SIGTERM)', 'kill -9'] as const) {
        if (how === 'clean (SIGTERM)') await b.stop();
        else {
          process.kill(b.pid, 'SIGKILL');
          await new Promise((r) => setTimeout(r, 300));
        }
        const t0 = performance.now();
        b = await spawnBroker(kmockSpec(kmock, args), 600_000);
        const startMs = performance.now() - t0;
        const rss = rssOf(b.pid).rss;
        const p = await Pipe.open(b.bootstrap);
        const f0 = performance.now();
        await p.send(fetchFrame('stored', 0, MiB));
        const firstFetch = performance.now() - f0;
        p.close();
        rows.push(`| ${(size / MiB).toFixed(0)} MiB | ${how} | ${startMs.toFixed(0)} | ${rss.toFixed(0)} | ${firstFetch.toFixed(1)} |`);
        progress(`restart ${size / MiB} MiB ${how}: ${startMs.toFixed(0)} ms, RSS ${rss.toFixed(0)} MiB`);
      }
      await b.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    rows.push('', 'Loading reads only the batch headers below the recovery point (all of the log after a clean shutdown; after kill -9, from the recovery point the last checkpoint recorded) and scans the rest (sizes, magic, CRC-32C), as Kafka\'s LogLoader recovers; batch bytes stay on disk, so RSS after start does not grow with the data stored.', '');

    // ---- memory per stored byte ----------------------------------------------------------------------
    {
      const b = await spawnBroker(kmockSpec(kmock, ['--set', 'storedMaxBytes=-1']), 60_000);
      const base = rssOf(b.pid).rss;
      progress(`memory per byte: ${PER_BYTE_BYTES / MiB} MiB in memory`);
      await fill(b.bootstrap, 'mem', PER_BYTE_BYTES);
      const rss = rssOf(b.pid).rss;
      await b.stop();
      rows.push('## Memory per stored byte (in memory, no cap)', '');
      rows.push(`| stored | RSS before | RSS after | (after − before) ÷ stored |`, '|---:|---:|---:|---:|');
      rows.push(`| ${(PER_BYTE_BYTES / MiB).toFixed(0)} MiB | ${base.toFixed(0)} MiB | ${rss.toFixed(0)} MiB | ${((rss - base) / (PER_BYTE_BYTES / MiB)).toFixed(3)} |`, '');
    }

    // ---- RSS under the default cap -----------------------------------------------------------------------
    rows.push('## RSS while producing and consuming past the stored-memory cap (storedMaxBytes = 1 GiB, the default)', '');
    rows.push('| mode | produced | peak RSS (VmHWM, MiB) | RSS at end (MiB) | log start offset at end |', '|---|---:|---:|---:|---:|');
    for (const [name, args] of [
      ['in memory (oldest dropped)', []],
      ['--data-dir (oldest evicted to disk)', ['--data-dir', newDir()]],
    ] as Array<[string, string[]]>) {
      const b = await spawnBroker(kmockSpec(kmock, args), 60_000);
      progress(`capped: ${name}`);
      await createTopic(b.bootstrap, 'capped');
      const batch = batchOf(MiB);
      const count = Math.floor(CAPPED_BYTES / batch.length);
      const p = await Pipe.open(b.bootstrap);
      const frame = produceFrame('capped', batch);
      // produce in rounds, each followed by a read of what was just written
      const round = 256;
      for (let done = 0; done < count; done += round) {
        const n = Math.min(round, count - done);
        await pipelined(p, n, () => frame);
        await pipelined(p, n, (i) => fetchFrame('capped', (done + i) * RECORDS_PER_BATCH, batch.length));
      }
      const { rss, hwm } = rssOf(b.pid);
      const admin = new Kafka({ clientId: 'bench-storage', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const [o] = await admin.fetchTopicOffsets('capped');
      await admin.disconnect();
      p.close();
      await b.stop();
      rows.push(`| ${name} | ${(CAPPED_BYTES / MiB).toFixed(0)} MiB | ${hwm.toFixed(0)} | ${rss.toFixed(0)} | ${o.low} |`);
    }
    rows.push('');
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  const header = [
    '# Storage benchmark (bench/broker/storage.ts)',
    '',
    `${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${load0} → ${loadavg()[0].toFixed(2)}; kmock src hash ${kmock.hash}. The machine is shared and noisy: compare within a run.`,
    '',
  ];
  writeFileSync(OUT, [...header, ...rows].join('\n') + '\n');
  progress(`wrote ${OUT}`);
}

await main();
