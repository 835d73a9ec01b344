// The wire-protocol fuzzer (issue #10): ≥ 100,000 mutated frames at a listening kmock, seeded and
// bounded (test/support/fuzz.ts makes the frames and says what each may get). Every frame gets a
// decodable answer with its correlation id, or Kafka's own silence or parking, or a close with a
// log line saying why; no handler throws; afterwards a kafkajs producer and consumer work and every
// record acknowledged during the fuzzing is still there.
//
//   KMOCK_FUZZ_SEED=1234 KMOCK_FUZZ_FRAMES=300000 npx vitest run test/broker/fuzz.test.ts
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRequest } from '../conformance/runner.js';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { decodeRequest, type ApiTypes } from '../../src/codec/index.js';
import { splitBatches } from '../../src/codec/records/index.js';
import { KafkajsClients } from '../support/clients/kafkajs.js';
import { waitFor } from '../support/clients/wait.js';
import { RawClient } from '../support/raw-client.js';
import {
  Rng,
  checkAnswer,
  codecFrames,
  frameFacts,
  goldenFrames,
  makeFuzzFrame,
  recordingLogger,
  reencodedFrames,
  startCaptureProxy,
  type FrameFacts,
  type FuzzFrame,
  type LogLine,
  type SeedFrame,
} from '../support/fuzz.js';

const SEED = Number(process.env.KMOCK_FUZZ_SEED ?? 20261201) >>> 0;
const FRAMES = Number(process.env.KMOCK_FUZZ_FRAMES ?? 100_000);
/** Connections fuzzed at once. */
const WORKERS = Number(process.env.KMOCK_FUZZ_WORKERS ?? 8);
/** Longest pipelined batch on one connection. */
const MAX_BATCH = 16;
/** Silence after which a parkable request counts as parked (the connection is then dropped). */
const PARK_MS = 60;
/** Silence after which a request that must be answered fails the run. */
const ANSWER_MS = 10_000;
const TOPICS = ['fuzz-a', 'fuzz-b'];

// ---------------------------------------------------------------------------------------------
// A bare connection: writes bytes, hands back response frames, says when the broker closed it.

class FuzzConn {
  private buf: Buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private wake: (() => void) | undefined;
  closed = false;
  closedByUs = false;
  readonly localPort: Promise<number>;

  constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4) {
        const size = this.buf.readInt32BE(0);
        if (this.buf.length < 4 + size) break;
        this.frames.push(this.buf.subarray(4, 4 + size));
        this.buf = this.buf.subarray(4 + size);
      }
      this.wake?.();
    });
    const gone = () => {
      this.closed = true;
      this.wake?.();
    };
    socket.on('close', gone);
    socket.on('error', gone);
    this.localPort = new Promise((resolve) => socket.once('connect', () => resolve(socket.localPort ?? 0)));
  }

  static open(port: number): FuzzConn {
    return new FuzzConn(connect({ host: '127.0.0.1', port, noDelay: true }));
  }

  write(b: Buffer): void {
    if (!this.closed) this.socket.write(b);
  }

  /** The next answer, 'closed', or 'silent' after `ms` without one. */
  async next(ms: number): Promise<Buffer | 'closed' | 'silent'> {
    for (;;) {
      const f = this.frames.shift();
      if (f !== undefined) return f;
      if (this.closed) return 'closed';
      const got = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), ms);
        this.wake = () => {
          clearTimeout(t);
          resolve(true);
        };
      });
      this.wake = undefined;
      if (!got) return 'silent';
    }
  }

  drop(): void {
    this.closedByUs = true;
    this.closed = true;
    this.socket.destroy();
  }
}

// ---------------------------------------------------------------------------------------------

interface Stats {
  frames: number;
  answered: number;
  closedByBroker: number;
  parked: number;
  noAnswer: number;
  acknowledgedBatches: number;
}

interface Acked {
  topic: string;
  partition: number;
  baseOffset: bigint;
  records: number;
  how: string;
}

const lines: LogLine[] = [];
/** Connection id → why the broker closed it; client port → connection id. */
const closes = new Map<number, string>();
const idByPort = new Map<number, number>();
const uncaught: unknown[] = [];
let kmock: Kmock;

function onDebug(l: LogLine): void {
  if (l.msg === 'connection opened') idByPort.set(l.obj.port as number, l.obj.connection as number);
  else if (l.msg === 'connection closed') closes.set(l.obj.connection as number, String(l.obj.why));
}
const onUncaught = (e: unknown) => uncaught.push(e);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  kmock = await startKmock({
    logger: recordingLogger(lines, onDebug),
    groupInitialRebalanceDelayMs: 0,
    groupMinSessionTimeoutMs: 10,
    groupMaxSessionTimeoutMs: 30_000,
    numPartitions: 2,
  });
});

afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  await kmock?.close();
});

/** Requests a kafkajs 2.2.4 client sends: admin, producer (acks -1/1/0, gzip), a consumer group. */
async function captureKafkajs(): Promise<SeedFrame[]> {
  const proxy = await startCaptureProxy(kmock.bootstrapServers);
  const advertised = kmock.broker.advertisedPort;
  kmock.broker.advertisedPort = proxy.port;
  const clients = new KafkajsClients({ bootstrapServers: `127.0.0.1:${proxy.port}` } as Kmock, 'fuzz-capture');
  try {
    const admin = await clients.admin();
    await admin.createTopics({ topics: TOPICS.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
    await admin.fetchTopicMetadata({ topics: TOPICS });
    await admin.describeCluster();
    await admin.describeConfigs({ resources: [{ type: 2, name: 'fuzz-a' }], includeSynonyms: true });
    const producer = await clients.producer({ idempotent: false });
    for (const acks of [-1, 1, 0]) {
      for (const topic of TOPICS) {
        await producer.send({ topic, acks, messages: [{ key: 'k', value: `v${acks}` }, { value: 'x', headers: { h: 'y' } }] });
      }
    }
    await producer.send({ topic: 'fuzz-a', compression: 1, messages: [{ value: 'gzipped' }, { value: 'gzipped too' }] });
    const idem = await clients.producer({ idempotent: true, maxInFlightRequests: 1 });
    await idem.send({ topic: 'fuzz-b', messages: [{ value: 'idempotent' }] });
    const consumer = clients.consumer('c', 'fuzz-group');
    await consumer.start('fuzz-a');
    await waitFor('the capture consumer to read fuzz-a', () => consumer.consumed.length >= 6, 20_000);
    await consumer.stop();
    await admin.fetchOffsets({ groupId: 'fuzz-group', topics: ['fuzz-a'] });
    await admin.describeGroups(['fuzz-group']);
    await admin.listGroups();
    await admin.fetchTopicOffsets('fuzz-b');
  } finally {
    await clients.closeAll();
    kmock.broker.advertisedPort = advertised;
    await proxy.close();
  }
  // How many heartbeats, metadata refreshes and fetches kafkajs sends depends on timing: one frame
  // per API, version (and acks, for Produce) keeps the corpus the same from run to run, so that a
  // seed replays the same mutations (only kmock's random member ids differ inside them).
  const seen = new Set<string>();
  const kept: SeedFrame[] = [];
  for (const bytes of proxy.frames()) {
    const apiKey = bytes.readInt16BE(4);
    const apiVersion = bytes.readInt16BE(6);
    let key = `${apiKey}/${apiVersion}`;
    if (apiKey === 0) {
      try {
        key += `/acks=${(decodeRequest(bytes.subarray(4)).body as ApiTypes[0]['request']).acks}`;
      } catch {
        continue;
      }
    }
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ origin: `kafkajs api ${apiKey} v${apiVersion}`, bytes });
  }
  return kept.sort((a, b) => a.origin.localeCompare(b.origin));
}

function flat(records: Buffer | readonly Buffer[]): Buffer {
  return Buffer.isBuffer(records) ? records : Buffer.concat(records as Buffer[]);
}

function recordsIn(records: Buffer | readonly Buffer[] | null): number | undefined {
  if (records === null) return undefined;
  try {
    const { batches } = splitBatches(flat(records));
    if (batches.length === 0 || batches.some((b) => b.header === null)) return undefined;
    return batches.reduce((n, b) => n + b.header!.recordsCount, 0);
  } catch {
    return undefined;
  }
}

describe('wire-protocol fuzzing', () => {
  it(`${FRAMES} mutated frames (seed ${SEED}): answers, Kafka's silences and parks, or closes with a reason`, { timeout: 600_000 }, async () => {
    const t0 = Date.now();
    const captured = await captureKafkajs();
    const base = [...captured, ...goldenFrames(), ...codecFrames(SEED)];
    const corpus = [...base, ...reencodedFrames(base)];
    // eslint-disable-next-line no-console
    console.log(`fuzz: seed ${SEED} (KMOCK_FUZZ_SEED), ${FRAMES} frames (KMOCK_FUZZ_FRAMES); corpus ${corpus.length} frames (${captured.length} from kafkajs)`);
    const meta = await RawClient.connect(kmock.bootstrapServers);
    const idToName = new Map<string, string>();
    for (const t of (await meta.request(3, 12, buildRequest(3, { topics: TOPICS.map((name) => ({ name })) }))).topics) idToName.set(t.topicId, t.name!);
    meta.close();

    const stats: Stats = { frames: 0, answered: 0, closedByBroker: 0, parked: 0, noAnswer: 0, acknowledgedBatches: 0 };
    const failures: string[] = [];
    const acked: Acked[] = [];
    const exempt = new Set<string>();
    /** Client port → the frame the broker closed that connection on. */
    const closedOn = new Map<number, string>();
    const port = kmock.port;
    const fail = (what: string) => {
      if (failures.length < 20) failures.push(what);
    };

    const noteAnswer = (facts: FrameFacts, res: unknown, how: string) => {
      if (facts.produce) {
        const r = res as ApiTypes[0]['response'];
        for (const t of r.responses) {
          if (!TOPICS.includes(t.name)) continue;
          for (const p of t.partitionResponses) {
            if (p.errorCode !== 0 || p.baseOffset < 0n) continue;
            const sent = facts.produce.topicData.filter((d) => d.name === t.name).flatMap((d) => d.partitionData.filter((x) => x.index === p.index));
            if (sent.length !== 1) continue;
            const n = recordsIn(sent[0].records);
            if (n === undefined) continue;
            acked.push({ topic: t.name, partition: p.index, baseOffset: p.baseOffset, records: n, how });
            stats.acknowledgedBatches++;
          }
        }
      }
      if (facts.destructive?.apiKey === 20) {
        for (const t of (res as ApiTypes[20]['response']).responses) {
          if (t.errorCode === 0) exempt.add(t.name ?? idToName.get(t.topicId) ?? '');
        }
      }
      if (facts.destructive?.apiKey === 21) {
        for (const t of (res as ApiTypes[21]['response']).topics) {
          for (const p of t.partitions) if (p.errorCode === 0) exempt.add(`${t.name}/${p.partitionIndex}`);
        }
      }
    };

    // Each worker has its own generator and share of the frames, so a seed makes the same frames
    // whatever order the workers' connections happen to be served in.
    const worker = async (w: number): Promise<void> => {
      const rng = new Rng((SEED + Math.imul(w, 0x9e3779b9)) >>> 0);
      const quota = Math.ceil(FRAMES / WORKERS);
      let done = 0;
      const count = () => {
        stats.frames++;
        done++;
      };
      let nextCid = w * 100_000_000 + 1000;
      let conn: FuzzConn | undefined;
      /** Frames written after one the broker closed on or parked: sent again on a new connection. */
      let requeued: Array<{ f: FuzzFrame; facts: FrameFacts | null }> = [];
      while (done < quota && failures.length === 0) {
        if (conn === undefined || conn.closed) conn = FuzzConn.open(port);
        const c = conn;
        const batch = requeued;
        requeued = [];
        const size = 1 + rng.int(MAX_BATCH);
        // A batch ends after a frame the harness cannot decode or whose size is a lie: the
        // broker closes on it or waits, and whatever follows would be wasted.
        const ends = (x: { f: FuzzFrame; facts: FrameFacts | null }) => x.f.size !== undefined || x.facts?.decodes !== true;
        while (batch.length < size && !batch.some(ends)) {
          const f = makeFuzzFrame(rng, corpus, nextCid++);
          batch.push({ f, facts: frameFacts(f) });
        }
        c.write(Buffer.concat(batch.map((x) => x.f.bytes)));
        let i = 0;
        const skipSilent = () => {
          while (i < batch.length && batch[i].facts?.noAnswer === true) {
            stats.noAnswer++;
            count();
            i++;
          }
        };
        skipSilent();
        let waited = 0;
        while (i < batch.length) {
          const cur = batch[i];
          const parkable = cur.f.size === 'pending' || cur.facts?.mayPark === true;
          const got = await c.next(parkable ? PARK_MS : 200);
          if (got === 'closed') {
            stats.closedByBroker++;
            count();
            void c.localPort.then((p) => closedOn.set(p, cur.f.how));
            requeued = batch.slice(i + 1);
            break;
          }
          if (got === 'silent') {
            if (parkable) {
              stats.parked++;
              count();
              c.drop();
              requeued = batch.slice(i + 1);
              break;
            }
            waited += 200;
            if (waited >= ANSWER_MS) {
              fail(`no answer within ${ANSWER_MS} ms to ${cur.f.how} (api ${cur.facts?.apiKey} v${cur.facts?.apiVersion})`);
              c.drop();
              break;
            }
            continue;
          }
          waited = 0;
          const cid = got.length >= 4 ? got.readInt32BE(0) : NaN;
          // The answer is for the first frame (from i) with that id; frames skipped on the way
          // must be ones Kafka does not answer.
          let j = i;
          while (j < batch.length && batch[j].facts?.correlationId !== cid) j++;
          if (j === batch.length) {
            fail(`an answer with correlation id ${cid} matches no outstanding frame; next was ${cur.f.how}`);
            c.drop();
            break;
          }
          for (let k = i; k < j; k++) {
            if (batch[k].facts?.noAnswer !== true) fail(`no answer to ${batch[k].f.how}, but one to a later frame`);
            else stats.noAnswer++;
            count();
          }
          const facts = batch[j].facts!;
          const checked = checkAnswer(got, facts);
          if (!checked.ok) fail(`${batch[j].f.how}: ${checked.why}`);
          else {
            stats.answered++;
            noteAnswer(facts, checked.body, batch[j].f.how);
          }
          count();
          i = j + 1;
          skipSilent();
        }
      }
      conn?.drop();
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    const fuzzMs = Date.now() - t0;

    // Every close by the broker has a log line (info or above) naming the connection.
    await waitFor('the broker to log the last closes', () => [...closes.keys()].length > 0, 2000);
    await new Promise((r) => setTimeout(r, 100));
    const warned = new Set(lines.map((l) => l.obj.connection).filter((x) => typeof x === 'number'));
    const silentCloses = [...closes].filter(([id, why]) => !['closed by peer', 'closed by broker', 'socket error', 'idle'].includes(why) && !warned.has(id));
    for (const [id, why] of silentCloses.slice(0, 5)) fail(`connection ${id} closed ("${why}") without a log line at info or above`);
    const handlerErrors = lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    const portById = new Map([...idByPort].map(([p, id]) => [id, p]));
    for (const l of handlerErrors.slice(0, 5)) {
      const frame = closedOn.get(portById.get(l.obj.connection as number) ?? -1) ?? '(frame not known)';
      fail(`${l.msg} on ${frame}: ${String(l.obj.err ?? JSON.stringify(l.obj)).slice(0, 400)}`);
    }
    for (const e of uncaught.slice(0, 5)) fail(`uncaught: ${String((e as Error)?.stack ?? e)}`);

    // eslint-disable-next-line no-console
    console.log(
      `fuzz: ${stats.frames} frames in ${fuzzMs} ms: ${stats.answered} answered, ${stats.noAnswer} unanswered (acks=0), ` +
        `${stats.parked} parked, ${stats.closedByBroker} closes by the broker; ${stats.acknowledgedBatches} acknowledged batches; ${kmock.broker.topics.all().length} topics`,
    );
    expect(failures).toEqual([]);

    // Every acknowledged batch is still readable at its offset (unless a fuzz frame deleted it).
    const reader = await RawClient.connect(kmock.bootstrapServers);
    const missing: string[] = [];
    for (const a of acked) {
      if (exempt.has(a.topic) || exempt.has(`${a.topic}/${a.partition}`)) continue;
      const res = await reader.request(
        1,
        12,
        buildRequest(1, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          topics: [{ topic: a.topic, partitions: [{ partition: a.partition, fetchOffset: a.baseOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1, lastFetchedEpoch: -1 }] }],
        }),
      );
      const p = res.responses[0]?.partitions[0];
      const first = p?.errorCode === 0 && p.records ? splitBatches(flat(p.records), { allowPartial: true }).batches[0] : undefined;
      const h = first?.header;
      const covers = h !== null && h !== undefined && h.baseOffset <= a.baseOffset && a.baseOffset + BigInt(a.records) - 1n <= h.baseOffset + BigInt(h.lastOffsetDelta);
      if (!covers && missing.length < 10) missing.push(`${a.topic}/${a.partition}@${a.baseOffset} (${a.records} records, error ${p?.errorCode}): ${a.how}`);
    }
    reader.close();
    expect(missing).toEqual([]);

    // And real clients still work.
    const clients = new KafkajsClients(kmock, 'fuzz-after');
    try {
      const admin = await clients.admin();
      await admin.createTopics({ topics: [{ topic: 'after-fuzz', numPartitions: 2 }], waitForLeaders: true });
      const producer = await clients.producer();
      const values = Array.from({ length: 40 }, (_, i) => `after-${i}`);
      await producer.send({ topic: 'after-fuzz', acks: -1, messages: values.map((value) => ({ value })) });
      const consumer = clients.consumer('after', 'after-fuzz-group');
      await consumer.start('after-fuzz');
      await waitFor('the consumer to read every record', () => consumer.consumed.length >= values.length, 30_000);
      expect(consumer.values().sort()).toEqual([...values].sort());
    } finally {
      await clients.closeAll();
    }
    // eslint-disable-next-line no-console
    console.log(`fuzz: done in ${Date.now() - t0} ms`);
  });
});
