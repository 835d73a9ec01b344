// Captures real Produce requests from librdkafka (an independent C implementation of the Kafka
// protocol), so the record codec is checked against bytes another client wrote on this machine,
// at test time, rather than against vectors copied from somewhere.
//
// A tiny TCP server on 127.0.0.1 (ephemeral port) speaks just enough Kafka for a producer:
// ApiVersions, Metadata (one broker = this server, any topic asked for has one partition),
// InitProducerId (for idempotent producers) and Produce (the `records` bytes of each partition are
// kept, the answer is success). It is built on kmock's request/response codec only, not on its
// broker. librdkafka is driven through
// python3-confluent-kafka by test/support/librdkafka-produce.py; each run is one producer with
// client id "kmock-capture.<name>" writing to topic <name>, and the server advertises the Produce
// versions that run asks for (Produce v0-1 makes librdkafka write magic 0 message sets, v2
// magic 1, v3+ magic 2 record batches).
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  APIS,
  createApiVersionsResponse,
  createInitProducerIdResponse,
  createMetadataResponse,
  createProduceResponse,
  decodeRequest,
  encodeResponse,
  type MetadataRequest,
  type ProduceRequest,
  MetadataResponse,
  ProduceResponse,
} from '../../src/codec/index.js';

/** Debian's python3, which has python3-confluent-kafka; KMOCK_LIBRDKAFKA_PYTHON overrides it. */
export const PYTHON = process.env.KMOCK_LIBRDKAFKA_PYTHON ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./librdkafka-produce.py', import.meta.url));
const CLIENT_PREFIX = 'kmock-capture.';

export interface CaptureMessage {
  key: Buffer | null;
  value: Buffer | null;
  /** Record headers (magic 2 only: librdkafka drops them for older formats). */
  headers?: [string, Buffer | null][];
  /** CreateTime in ms; always set explicitly (0 would mean "now" to librdkafka). */
  timestamp: number;
}

export interface CaptureRun {
  /** Also the topic name and the client id suffix: [a-z0-9-] only. */
  name: string;
  /** librdkafka configuration for this producer (compression.type, linger.ms, ...), as strings. */
  config: Record<string, string>;
  /** Highest Produce version the server advertises (default 7). */
  produceMaxVersion?: number;
  /**
   * How many Produce requests the run should take. librdkafka decides batching on timers, so a
   * run that comes out differently is captured again (twice at most) before giving up.
   */
  expectRequests?: number;
  /** Producer id and epoch InitProducerId hands out (enable.idempotence); default 4242, 7. */
  producerId?: bigint;
  producerEpoch?: number;
  messages: CaptureMessage[];
}

export interface CapturedProduce {
  /** Produce request version librdkafka chose. */
  apiVersion: number;
  acks: number;
  /** The `records` bytes of partition 0, as sent. */
  records: Buffer;
}

export interface Capture {
  run: CaptureRun;
  requests: CapturedProduce[];
  /** All `records` blobs of the run concatenated, in the order they arrived. */
  records: Buffer;
  /** Delivery reports librdkafka gave for the run's messages. */
  delivered: { error: string | null; offset: number }[];
}

/**
 * Whether librdkafka can be driven here: its version ("2.0.2"), or why not (python3 or
 * python3-confluent-kafka missing).
 */
export function probeLibrdkafka(): { ok: true; version: string } | { ok: false; reason: string } {
  const r = spawnSync(PYTHON, ['-c', 'import confluent_kafka; print(confluent_kafka.libversion()[0])'], { encoding: 'utf8', timeout: 20_000 });
  if (r.error !== undefined) return { ok: false, reason: `${PYTHON} cannot run (${r.error.message}): install python3 and python3-confluent-kafka` };
  const version = r.stdout.trim();
  if (r.status !== 0 || !/^\d+\.\d+/.test(version)) {
    return { ok: false, reason: `${PYTHON} cannot import confluent_kafka: install python3-confluent-kafka (librdkafka)` };
  }
  return { ok: true, version };
}

/** What the server advertises: every API a producer might look at, Produce capped per run. */
function advertised(produceMax: number): { apiKey: number; minVersion: number; maxVersion: number }[] {
  const fixed: [number, number][] = [
    [1, 11], // Fetch: librdkafka's message-format and zstd features need Fetch as well as Produce
    [3, 4], // Metadata
    // FindCoordinator: never sent by a producer, but librdkafka's LZ4 feature depends on it; without
    // it, compression.type=lz4 silently sends uncompressed batches
    [10, 2],
    [18, 3], // ApiVersions
    [22, 1], // InitProducerId, for enable.idempotence
  ];
  return [[0, produceMax] as [number, number], ...fixed].map(([apiKey, maxVersion]) => ({ apiKey, minVersion: 0, maxVersion }));
}

class CaptureServer {
  readonly captured = new Map<string, CapturedProduce[]>();
  readonly problems: string[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((s) => this.accept(s));

  constructor(private readonly runs: Map<string, CaptureRun>) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const size = buffered.readInt32BE(0);
        if (buffered.length < 4 + size) break;
        const frame = Buffer.from(buffered.subarray(4, 4 + size));
        buffered = buffered.subarray(4 + size);
        try {
          const out = this.handle(frame);
          if (out !== null) socket.write(out);
        } catch (e) {
          this.problems.push(`request failed: ${String(e)}`);
          socket.destroy();
          return;
        }
      }
    });
  }

  private handle(frame: Buffer): Buffer | null {
    const req = decodeRequest(frame);
    const { apiKey, apiVersion, correlationId, clientId } = req.header;
    const name = clientId !== null && clientId.startsWith(CLIENT_PREFIX) ? clientId.slice(CLIENT_PREFIX.length) : '';
    const run = this.runs.get(name);
    if (run === undefined) {
      this.problems.push(`request from unknown client ${String(clientId)}`);
      return null;
    }
    switch (apiKey) {
      case 18:
        return encodeResponse(18, apiVersion, correlationId, createApiVersionsResponse({ errorCode: 0, apiKeys: advertised(run.produceMaxVersion ?? 7) }));
      case 3: {
        const body = req.body as MetadataRequest;
        const names = body.topics === null || body.topics.length === 0 ? [run.name] : body.topics.map((t) => t.name ?? run.name);
        return encodeResponse(
          3,
          apiVersion,
          correlationId,
          createMetadataResponse({
            brokers: [MetadataResponse.createBroker({ nodeId: 1, host: '127.0.0.1', port: this.port })],
            clusterId: 'kmock-capture',
            controllerId: 1,
            topics: names.map((n) =>
              MetadataResponse.createTopic({
                name: n,
                partitions: [MetadataResponse.createPartition({ partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1] })],
              }),
            ),
          }),
        );
      }
      case 0: {
        const body = req.body as ProduceRequest;
        const list = this.captured.get(name) ?? [];
        this.captured.set(name, list);
        for (const t of body.topicData) {
          for (const p of t.partitionData) {
            if (t.name !== run.name || p.index !== 0 || p.records === null) {
              this.problems.push(`${name}: unexpected produce to ${t.name}[${p.index}]`);
              continue;
            }
            const records = Buffer.isBuffer(p.records) ? p.records : Buffer.concat(p.records);
            list.push({ apiVersion, acks: body.acks, records: Buffer.from(records) });
          }
        }
        if (body.acks === 0) return null;
        return encodeResponse(
          0,
          apiVersion,
          correlationId,
          createProduceResponse({
            responses: body.topicData.map((t) =>
              ProduceResponse.createTopicProduceResponse({
                name: t.name,
                partitionResponses: t.partitionData.map((p) =>
                  ProduceResponse.createPartitionProduceResponse({ index: p.index, errorCode: 0, baseOffset: 0n, logAppendTimeMs: -1n }),
                ),
              }),
            ),
          }),
        );
      }
      case 22:
        return encodeResponse(
          22,
          apiVersion,
          correlationId,
          createInitProducerIdResponse({ errorCode: 0, producerId: run.producerId ?? 4242n, producerEpoch: run.producerEpoch ?? 7 }),
        );
      default:
        this.problems.push(`${name}: unexpected ${APIS[apiKey as keyof typeof APIS]?.name ?? `API ${apiKey}`} v${apiVersion}`);
        return null;
    }
  }
}

const hex = (b: Buffer | null): string | null => (b === null ? null : b.toString('hex'));

/**
 * Runs every producer against one capture server, in one python process, and returns the
 * captured records per run name. Throws with librdkafka's complaints if anything went wrong.
 */
export async function captureLibrdkafka(runs: CaptureRun[]): Promise<Map<string, Capture>> {
  const names = new Set(runs.map((r) => r.name));
  if (names.size !== runs.length || runs.some((r) => !/^[a-z0-9-]+$/.test(r.name))) throw new Error('run names must be unique, [a-z0-9-]');
  const result = await captureOnce(runs);
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = runs.filter((r) => r.expectRequests !== undefined && result.get(r.name)!.requests.length !== r.expectRequests);
    if (again.length === 0) break;
    for (const [name, capture] of await captureOnce(again)) result.set(name, capture);
  }
  return result;
}

async function captureOnce(runs: CaptureRun[]): Promise<Map<string, Capture>> {
  const byName = new Map(runs.map((r) => [r.name, r]));
  const server = new CaptureServer(byName);
  const port = await server.listen();
  try {
    const job = {
      bootstrap: `127.0.0.1:${port}`,
      runs: runs.map((r) => ({
        name: r.name,
        config: r.config,
        messages: r.messages.map((m) => ({
          key: hex(m.key),
          value: hex(m.value),
          headers: m.headers === undefined ? null : m.headers.map(([k, v]) => [k, hex(v)]),
          timestamp: m.timestamp,
        })),
      })),
    };
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
      const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.stdin.on('error', () => {}); // a child that dies early: its exit code and stderr tell why
      child.on('close', (c) => resolve({ stdout: out, stderr: err, code: c }));
      child.stdin.end(JSON.stringify(job));
    });
    if (code !== 0) throw new Error(`librdkafka producer script failed (exit ${code}):\n${stderr}`);
    const report = JSON.parse(stdout) as { runs: { name: string; delivered: Capture['delivered']; unflushed: number }[] };
    if (server.problems.length > 0) throw new Error(`capture server: ${server.problems.join('; ')}\n${stderr}`);
    const result = new Map<string, Capture>();
    for (const r of report.runs) {
      const run = byName.get(r.name)!;
      const errors = r.delivered.filter((d) => d.error !== null);
      if (r.unflushed !== 0 || errors.length > 0 || r.delivered.length !== run.messages.length) {
        throw new Error(`${r.name}: librdkafka did not deliver everything: ${JSON.stringify(r)}\n${stderr}`);
      }
      const requests = server.captured.get(r.name) ?? [];
      result.set(r.name, { run, requests, records: Buffer.concat(requests.map((q) => q.records)), delivered: r.delivered });
    }
    return result;
  } finally {
    await server.close();
  }
}
