// Differential check of the Produce append path: an earlier revision's PartitionLog.appendAsLeader
// and produce handler against the working tree's, on the same random (often corrupted) batches,
// configs and requests. Every AppendResult or thrown error, the patched batch bytes, the logs'
// state afterwards, and every handler answer (or thrown error, connection close, fetch wake-up)
// must be identical.
//
//   npx tsx bench/broker/produce-diff.ts [REV=HEAD] [SEED=1] [LOGS=20000] [REQUESTS=8000]
//
// REV is a git revision whose src/broker/log/partition-log.ts and src/broker/handlers/produce.ts
// serve as the reference (extracted to a temporary directory, their imports pointed at this
// tree's src/ for everything else). Exits non-zero on any mismatch.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { REPO } from './peers.js';
import * as New from '../../src/broker/log/partition-log.js';
import { produceHandler as newHandler } from '../../src/broker/handlers/produce.js';
import { encodeBatch } from '../../src/codec/records/batch.js';
import { computeBatchCrc } from '../../src/codec/records/header.js';
import { initCompression } from '../../src/codec/records/compression.js';

const rev = process.argv[2] ?? 'HEAD';
const dir = mkdtempSync(join(tmpdir(), 'kmock-produce-diff-'));
const src = (p: string) => join(REPO, 'src', p);
const show = (path: string) => execFileSync('git', ['show', `${rev}:${path}`], { cwd: REPO, encoding: 'utf8' });
const oldLogFile = join(dir, 'old-partition-log.mts');
const oldProduceFile = join(dir, 'old-produce.mts');
// The old files' relative imports point at this tree's src/ (whatever modules they name), except
// the produce handler's partition-log, which is the old one.
const redirect = (code: string, from: string) =>
  code.replace(/from '(\.{1,2}\/[^']+)'/g, (_m, rel: string) => `from '${join(REPO, 'src', from, rel)}'`.replace(/\/src\/broker\/errors\.js'$/, "/src/codec/errors.js'"));
writeFileSync(oldLogFile, redirect(show('src/broker/log/partition-log.ts'), 'broker/log'));
writeFileSync(
  oldProduceFile,
  redirect(show('src/broker/handlers/produce.ts').replace(/from '\.\.\/log\/partition-log\.js'/g, `from '${oldLogFile}'`), 'broker/handlers'),
);
const Old = (await import(pathToFileURL(oldLogFile).href)) as typeof New;
const OldProduce = (await import(pathToFileURL(oldProduceFile).href)) as { produceHandler: typeof newHandler };

await initCompression();
const oldHandler = OldProduce.produceHandler;

let seed = Number(process.argv[3] ?? 1);
function rnd(): number {
  // mulberry32
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n: number) => Math.floor(rnd() * n);
const pick = <T,>(xs: readonly T[]): T => xs[ri(xs.length)];

const NOW = 1_700_000_000_000;

function randomBatch(): Buffer {
  const n = 1 + ri(pick([1, 3, 10, 100]));
  const base = pick([NOW, NOW - 10_000_000, -1, 0, NOW + 5_000_000]);
  const records = Array.from({ length: n }, (_, i) => ({
    key: rnd() < 0.5 ? null : Buffer.alloc(ri(pick([1, 5, 70, 200])), 0x6b),
    value: rnd() < 0.1 ? null : Buffer.alloc(ri(pick([1, 10, 100, 300, 300, 20000])), 0x61),
    headers: rnd() < 0.3 ? Array.from({ length: 1 + ri(3) }, (_, h) => ({ key: `h${h}`.repeat(ri(40)), value: rnd() < 0.2 ? null : Buffer.alloc(ri(80), 1) })) : undefined,
    timestamp: base === -1 && rnd() < 0.7 ? -1 : base + pick([0, i, -i, ri(100_000), -ri(100_000)]),
  }));
  const idem = rnd() < 0.3;
  return encodeBatch({
    records,
    compression: rnd() < 0.15 ? pick(['gzip', 'snappy', 'lz4', 'zstd'] as const) : 'none',
    timestampType: rnd() < 0.1 ? 1 : 0,
    producerId: idem ? BigInt(ri(3)) : -1n,
    producerEpoch: idem ? ri(2) : -1,
    baseSequence: idem ? pick([0, ri(10), 2147483600]) : -1,
    isTransactional: rnd() < 0.03,
    isControl: rnd() < 0.02,
    maxTimestamp: rnd() < 0.05 ? pick([0, -1, 2 ** 52, NOW + 1]) : undefined,
  });
}

function mutate(b: Buffer): Buffer {
  const r = rnd();
  if (r < 0.45) return b;
  const m = Buffer.from(b);
  if (r < 0.85) {
    // corrupt record bytes, then (usually) fix the CRC so that the record walk decides
    const k = 1 + ri(4);
    for (let i = 0; i < k; i++) {
      if (m.length <= 61) break;
      const at = 61 + ri(m.length - 61);
      m[at] = pick([0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, ri(256)]);
    }
    if (rnd() < 0.9) m.writeUInt32BE(computeBatchCrc(m), 17);
    return m;
  }
  if (r < 0.9) {
    // record count / last offset delta
    const c = pick([0, -1, m.readInt32BE(57) + 1, m.readInt32BE(57) - 1, 2 ** 31 - 1]);
    m.writeInt32BE(c, 57);
    if (rnd() < 0.7) m.writeInt32BE(c - 1, 23);
    m.writeUInt32BE(computeBatchCrc(m), 17);
    return m;
  }
  if (r < 0.95) {
    // header fields: max timestamp garbage, attributes bits
    if (rnd() < 0.5) {
      m.writeInt32BE(pick([0x7fffffff, -0x80000000, 0x200000, -0x200000, 0x1fffff]), 35);
    } else m.writeInt16BE(m.readInt16BE(21) ^ pick([0x08, 0x10, 0x20, 0x40, 0x07]), 21);
    if (rnd() < 0.8) m.writeUInt32BE(computeBatchCrc(m), 17);
    return m;
  }
  // truncate or extend (batch length kept or fixed)
  const cut = Buffer.from(m.subarray(0, Math.max(26, m.length - 1 - ri(20))));
  if (rnd() < 0.5) cut.writeInt32BE(cut.length - 12, 8);
  return cut;
}

function randomConfig(): New.LogConfig {
  const c = { ...New.DEFAULT_LOG_CONFIG };
  if (rnd() < 0.2) c.timestampType = 'LogAppendTime';
  if (rnd() < 0.15) c.compact = true;
  if (rnd() < 0.15) c.timestampBeforeMaxMs = BigInt(pick([0, 1000, 3_600_000]));
  if (rnd() < 0.15) c.timestampAfterMaxMs = BigInt(pick([0, 1000, 3_600_000]));
  if (rnd() < 0.05) c.maxMessageBytes = 500;
  return c;
}

function run<T>(f: () => T): { ok: T } | { err: string } {
  try {
    return { ok: f() };
  } catch (e) {
    return { err: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

function logState(l: New.PartitionLog) {
  return {
    leo: l.logEndOffset,
    pos: l.size,
    n: l.batchCount,
    max: l.maxTimestampOffset(),
    bytes: l.storedBatches().map((b) => b.toString('hex')),
    producers: [...l.producers.activeProducers(NOW).entries()].map(([id, e]) => [String(id), e.producerEpoch, JSON.stringify(e.batches)]),
    ts: l.offsetForTimestamp(NOW - 1),
  };
}

const N = Number(process.argv[4] ?? 20000);
let mismatches = 0;
const outcomes = new Map<string, number>();
for (let i = 0; i < N; i++) {
  const oldLog = new Old.PartitionLog('t', 0, NOW);
  const newLog = new New.PartitionLog('t', 0, NOW);
  const appends = 1 + ri(3);
  const config = randomConfig();
  for (let a = 0; a < appends; a++) {
    const b = mutate(randomBatch());
    const bo = Buffer.from(b);
    const bn = Buffer.from(b);
    const now = NOW + ri(1000);
    const ro = run(() => oldLog.appendAsLeader(bo, config, now));
    const rn = run(() => newLog.appendAsLeader(bn, config, now));
    const key = 'ok' in ro ? `code ${ro.ok.errorCode}` : 'throw';
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    if (!isDeepStrictEqual(ro, rn) || !bo.equals(bn)) {
      mismatches++;
      if (mismatches <= 5) console.log('MISMATCH append', i, a, JSON.stringify(ro), JSON.stringify(rn), bo.equals(bn));
    }
  }
  if (!isDeepStrictEqual(run(() => logState(oldLog)), run(() => logState(newLog)))) {
    mismatches++;
    if (mismatches <= 5) console.log('MISMATCH state', i);
  }
}
console.log(`appendAsLeader: ${N} logs, outcomes ${JSON.stringify([...outcomes])}, mismatches ${mismatches}`);

// ---- the handler: one-partition requests through HEAD's produce vs the working tree's ----------------
function fakeBroker(Log: typeof New.PartitionLog, configs: Map<string, string>, internal: boolean) {
  const closed: string[] = [];
  const notified: string[] = [];
  const mk = (name: string, n: number) => ({
    name,
    configs,
    isInternal: internal && name === '__consumer_offsets',
    partitions: Array.from({ length: n }, (_, k) => new Log(name, k, NOW)),
  });
  const topics = new Map([
    ['t', mk('t', 2)],
    ['u', mk('u', 3)],
    ['__consumer_offsets', mk('__consumer_offsets', 1)],
  ]);
  const broker = {
    topics,
    config: { logMessageTimestampType: 'CreateTime' },
    clock: { now: () => Date.now() },
    log: { debug() {}, info() {}, warn() {} },
    fetchWaiters: { notify: (t: string, p: number) => notified.push(`${t}-${p}`) },
    // strict-clients mode off: the produce handler reads this flag first
    clientFindings: { enabled: false },
    connections: [{ info: 'conn', close: (why: string) => closed.push(why) }],
  };
  return { broker, closed, notified, topics };
}

Date.now = () => NOW + 4242;
let hMismatch = 0;
const hOutcomes = new Map<string, number>();
const M = Number(process.argv[5] ?? 8000);
for (let i = 0; i < M; i++) {
  const configs = new Map<string, string>();
  if (rnd() < 0.1) configs.set('cleanup.policy', 'compact');
  if (rnd() < 0.1) configs.set('min.insync.replicas', '2');
  if (rnd() < 0.1) configs.set('message.timestamp.type', 'LogAppendTime');
  const o = fakeBroker(Old.PartitionLog, configs, true);
  const n = fakeBroker(New.PartitionLog, configs, true);
  const reqs = 1 + ri(3);
  for (let q = 0; q < reqs; q++) {
    const mkRecords = () => {
      let records: Buffer | null = rnd() < 0.03 ? null : mutate(randomBatch());
      if (records !== null && rnd() < 0.05) records = Buffer.concat([records, rnd() < 0.5 ? randomBatch() : Buffer.alloc(ri(20), 1)]);
      if (records !== null && rnd() < 0.02) records.writeInt8(pick([0, 1, 3, -1]), 16);
      return records;
    };
    const version = pick([3, 5, 7, 8, 9, 11, 7, 9]);
    const multi = rnd() < 0.4;
    const shape = Array.from({ length: multi ? 1 + ri(3) : 1 }, () => ({
      name: multi ? pick(['t', 'u', 'u', 't', 'missing', '__consumer_offsets']) : pick(['t', 't', 't', 'missing', '__consumer_offsets']),
      parts: Array.from({ length: multi ? 1 + ri(3) : 1 }, () => ({ index: multi ? pick([0, 1, 2, 0, 1, 2, 3, -1]) : pick([0, 0, 1, 2, -1]), records: mkRecords() })),
    }));
    const acks = pick([1, 1, 1, -1, 0, 2]);
    const mkReq = () => ({
      transactionalId: null,
      acks,
      timeoutMs: 30000,
      topicData: shape.map((t) => ({ name: t.name, partitionData: t.parts.map((p) => ({ index: p.index, records: p.records === null ? null : Buffer.from(p.records) })) })),
    });
    const reqO = mkReq();
    const reqN = mkReq();
    const clientId = rnd() < 0.1 ? '__admin_client' : 'c';
    // Both shapes of the request context: `broker` (before the composition root) and `services` with `closeConnection`.
    const ctx = (f: { broker: unknown; closed: string[] }) => ({
      broker: f.broker,
      services: f.broker,
      closeConnection: (why: string) => f.closed.push(why),
      connection: 'conn',
      header: { apiKey: 0, apiVersion: version, correlationId: 1, clientId },
      apiVersion: version,
      receivedAt: 0,
      receivedAtClock: 0,
    });
    const ro = run(() => oldHandler.handle(ctx(o) as never, reqO as never));
    const rn = run(() => newHandler.handle(ctx(n) as never, reqN as never));
    const norm = (r: typeof ro) => ('ok' in r && r.ok instanceof Promise ? { promise: true } : r);
    const key = 'ok' in ro ? (typeof ro.ok === 'symbol' ? 'no response' : JSON.stringify((ro.ok as any).responses?.[0]?.partitionResponses?.[0]?.errorCode)) : 'throw';
    hOutcomes.set(key, (hOutcomes.get(key) ?? 0) + 1);
    if ('ok' in ro && typeof ro.ok === 'object' && ro.ok !== null && 'responses' in (ro.ok as any)) {
      const all = (ro.ok as any).responses.flatMap((t: any) => t.partitionResponses);
      if (all.length > 1 && all.every((x: any) => x.errorCode === 0)) hOutcomes.set('multi-ok', (hOutcomes.get('multi-ok') ?? 0) + 1);
      if (all.length > 1 && all.some((x: any) => x.errorCode === 0) && all.some((x: any) => x.errorCode !== 0)) hOutcomes.set('multi-mixed', (hOutcomes.get('multi-mixed') ?? 0) + 1);
    }
    if (!isDeepStrictEqual(norm(ro), norm(rn)) || !isDeepStrictEqual(o.closed, n.closed) || !isDeepStrictEqual(o.notified, n.notified)) {
      hMismatch++;
      if (hMismatch <= 5) console.log('MISMATCH handler', i, q, version, reqO.acks, String(JSON.stringify(norm(ro), (_, v) => (typeof v === 'bigint' ? String(v) : v))).slice(0, 300), String(JSON.stringify(norm(rn), (_, v) => (typeof v === 'bigint' ? String(v) : v))).slice(0, 300));
    }
  }
  for (const name of ['t', 'u', '__consumer_offsets']) {
    const a = run(() => o.topics.get(name)!.partitions.map(logState));
    const b = run(() => n.topics.get(name)!.partitions.map(logState));
    if (!isDeepStrictEqual(a, b)) {
      hMismatch++;
      if (hMismatch <= 5) console.log('MISMATCH handler state', i, name);
    }
  }
}
console.log(`produce handler: ${M} brokers, outcomes ${JSON.stringify([...hOutcomes])}, mismatches ${hMismatch}`);

console.log(`reference: ${rev}; seed ${process.argv[3] ?? 1}`);
if (mismatches + hMismatch > 0) process.exit(1);
