// A seeded, bounded mutation fuzzer for kmock's wire protocol (issue #10).
//
// Frames come from three places: requests a real kafkajs client sends (captured by a TCP proxy in
// front of kmock), every API at every version the codec knows (the schema's defaults and a few
// fast-check arbitraries, seeded), and every decodable frame re-encoded at every other version of
// its API. Each fuzz frame is one of them with mutations stacked on top: bit flips, edge integers
// written over a field, truncations, splices of two frames, inserted/deleted bytes, a random API
// key or version, a hostile size prefix.
//
// The oracle (`FuzzRun`): frames are written to a connection in small pipelined batches; every
// answer must decode as the request's API and version (no trailing bytes) and carry the request's
// correlation id, in request order. A frame may instead get no answer only where Kafka gives none
// (Produce acks=0), may park only where Kafka parks (Fetch long polls, JoinGroup/SyncGroup, a size
// prefix announcing bytes that never come), and a close by the broker must come with a log line at
// warn or above naming the connection. Any "request failed" log line (a handler threw) and any
// uncaught exception fail the run.
import { createServer, connect, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import type { Logger } from 'pino';
import {
  APIS,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  type ApiTypes,
} from '../../src/codec/index.js';
import { inRange, type FieldSchema, type StructSchema } from '../../src/codec/primitives/index.js';
import { arbitraryFor } from './arbitrary.js';
import { GOLDEN } from './golden.js';

// ---------------------------------------------------------------------------------------------
// Randomness

/** A small seeded generator (mulberry32): the same seed gives the same frames. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  u32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }
  chance(p: number): boolean {
    return this.u32() / 0x1_0000_0000 < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

// ---------------------------------------------------------------------------------------------
// A recording logger (the pino interface kmock uses)

export interface LogLine {
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  obj: Record<string, unknown>;
  msg: string;
}

/**
 * A logger that keeps warn-and-above lines and info lines naming a connection, and hands the rest
 * (connection opened/closed at debug) to `onDebug`.
 */
export function recordingLogger(lines: LogLine[], onDebug?: (l: LogLine) => void): Logger {
  const at =
    (level: LogLine['level']) =>
    (objOrMsg: unknown, msg?: string): void => {
      const obj = typeof objOrMsg === 'object' && objOrMsg !== null ? (objOrMsg as Record<string, unknown>) : {};
      const text = typeof objOrMsg === 'string' ? objOrMsg : (msg ?? '');
      const line = { level, obj, msg: text };
      if (level === 'fatal' || level === 'error' || level === 'warn' || (level === 'info' && obj.connection !== undefined)) lines.push(line);
      else if (onDebug) onDebug(line);
    };
  const logger = {
    level: 'debug',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => {},
    isLevelEnabled: (l: string) => l !== 'trace',
    flush: () => {},
    bindings: () => ({}),
    child: () => logger,
  };
  return logger as unknown as Logger;
}

// ---------------------------------------------------------------------------------------------
// The corpus

export interface SeedFrame {
  /** Where it came from (for failure messages). */
  origin: string;
  /** The whole frame, size prefix included. */
  bytes: Buffer;
}

/** Cuts a byte stream into frames by their size prefixes (the trailing partial frame is dropped). */
export function splitFrames(stream: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos + 4 <= stream.length) {
    const size = stream.readInt32BE(pos);
    if (size < 0 || pos + 4 + size > stream.length) break;
    out.push(Buffer.from(stream.subarray(pos, pos + 4 + size)));
    pos += 4 + size;
  }
  return out;
}

/**
 * A TCP proxy in front of `target` ("host:port") that records every byte clients send. Metadata
 * answers name the broker's advertised address, so the caller points that at the proxy too
 * (`broker.advertisedPort`) for clients to stay behind it after bootstrapping.
 */
export async function startCaptureProxy(target: string): Promise<{ port: number; frames: () => Buffer[]; close: () => Promise<void> }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const streams: Buffer[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const chunks: Buffer[] = [];
    streams.push(chunks);
    const upstream = connect({ host, port });
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (d) => {
      chunks.push(Buffer.from(d));
      upstream.write(d);
    });
    upstream.on('data', (d) => client.write(d));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const proxyPort = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port: proxyPort,
    frames: () => streams.flatMap((s) => splitFrames(Buffer.concat(s))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

type ApiKey = keyof ApiTypes;
export const API_KEYS = Object.keys(APIS).map(Number) as ApiKey[];

function versionsOfApi(k: ApiKey): number[] {
  const a = APIS[k];
  return Array.from({ length: a.maxVersion - a.minVersion + 1 }, (_, i) => a.minVersion + i);
}

function tryEncode(apiKey: ApiKey, apiVersion: number, body: unknown, correlationId: number): Buffer | undefined {
  try {
    return encodeRequest({ apiKey, apiVersion, correlationId, clientId: 'fuzz' }, body as never);
  } catch {
    return undefined;
  }
}

/**
 * Frames built with kmock's codec: for every API at every version, the schema's default body and
 * `perVersion` seeded arbitrary bodies (fast-check, `seed`).
 */
export function codecFrames(seed: number, perVersion = 3): SeedFrame[] {
  const out: SeedFrame[] = [];
  for (const k of API_KEYS) {
    const api = APIS[k];
    for (const v of versionsOfApi(k)) {
      const dflt = tryEncode(k, v, api.request.schema.create(), 1);
      if (dflt) out.push({ origin: `${api.name} v${v} default`, bytes: dflt });
      const samples = fc.sample(arbitraryFor(api.request.schema, v, { maxArray: 2 }), { seed: seed ^ (k * 131 + v), numRuns: perVersion });
      samples.forEach((body, i) => {
        const f = tryEncode(k, v, body, 1);
        if (f) out.push({ origin: `${api.name} v${v} arbitrary #${i}`, bytes: f });
      });
    }
  }
  return out;
}

/** The request frames of test/support/golden.ts (hand-written bytes). */
export function goldenFrames(): SeedFrame[] {
  return GOLDEN.filter((g) => g.kind === 'request').map((g) => ({ origin: `golden ${g.name}`, bytes: g.frame }));
}

/** Every frame that decodes, re-encoded at every version of its API (bodies kept as decoded). */
export function reencodedFrames(frames: SeedFrame[]): SeedFrame[] {
  const out: SeedFrame[] = [];
  for (const f of frames) {
    let decoded;
    try {
      decoded = decodeRequest(f.bytes.subarray(4));
    } catch {
      continue;
    }
    const k = decoded.header.apiKey as ApiKey;
    for (const v of versionsOfApi(k)) {
      if (v === decoded.header.apiVersion) continue;
      const again = tryEncode(k, v, decoded.body, decoded.header.correlationId);
      if (again) out.push({ origin: `${f.origin} re-encoded at v${v}`, bytes: again });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Mutations

const EDGE_16 = [0, 1, -1, -2, 0x7f, 0x80, 0xff, 0x7fff, -0x8000, 0x100];
const EDGE_32 = [0, 1, -1, -2, 0x7fffffff, -0x80000000, 0xffff, 0x10000, 0x7f, 0x80, 1_000_000, -1000];

export interface FuzzFrame {
  bytes: Buffer;
  /** How it was made (seed frame and mutations), for failure messages. */
  how: string;
  /**
   * 'pending': the size prefix announces more bytes than follow (the broker waits for them);
   * 'oob': a size the broker must refuse at once. Undefined: the prefix matches the frame.
   */
  size?: 'pending' | 'oob';
}

/** Body (after the size prefix) of a frame. */
const body = (f: Buffer): Buffer => f.subarray(4);

function withSize(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length + 4);
  out.writeInt32BE(b.length, 0);
  b.copy(out, 4);
  return out;
}

function writeEdge(b: Buffer, rng: Rng): string {
  if (b.length === 0) return 'edge(empty)';
  const width = rng.pick([1, 2, 2, 4, 4, 4]);
  const at = rng.int(Math.max(1, b.length - width + 1));
  if (width === 1) {
    const v = rng.pick([0, 0xff, 0x7f, 0x80, 1]);
    b[at] = v;
    return `edge8@${at}=${v}`;
  }
  if (width === 2 && at + 2 <= b.length) {
    const v = rng.pick(EDGE_16);
    b.writeInt16BE(v > 0x7fff ? v - 0x10000 : v, at);
    return `edge16@${at}=${v}`;
  }
  if (at + 4 <= b.length) {
    const v = rng.pick(EDGE_32);
    b.writeInt32BE(v | 0, at);
    return `edge32@${at}=${v}`;
  }
  return 'edge(short)';
}

/**
 * One fuzz frame from the corpus: a seed frame, 1-3 mutations of its body (size prefix rewritten
 * to match), or, now and then, a hostile size prefix.
 */
export function makeFuzzFrame(rng: Rng, corpus: SeedFrame[], correlationId: number): FuzzFrame {
  const seed = rng.pick(corpus);
  if (rng.chance(0.35)) {
    const structured = structuredFuzzFrame(rng, seed, correlationId);
    if (structured !== undefined) return structured;
  }
  let b = Buffer.from(body(seed.bytes));
  // Each frame gets its own correlation id first, so that answers can be told apart (a
  // mutation may still overwrite it: the oracle reads the id from the frame as sent).
  if (b.length >= 8) b.writeInt32BE(correlationId, 4);
  const how: string[] = [seed.origin];
  // Some frames go as they are (a valid request, often at a version its client never used);
  // most get one mutation, some two or three.
  const roll = rng.int(100);
  const n = roll < 10 ? 0 : roll < 65 ? 1 : roll < 90 ? 2 : 3;
  for (let i = 0; i < n; i++) {
    const kind = rng.int(100);
    if (kind < 22) {
      // bit flips, mostly in the body (after api key, version, correlation id)
      const flips = 1 + rng.int(4);
      for (let j = 0; j < flips && b.length > 0; j++) {
        const at = b.length > 8 && rng.chance(0.9) ? 8 + rng.int(b.length - 8) : rng.int(b.length);
        b[at] ^= 1 << rng.int(8);
      }
      how.push(`flip×${flips}`);
    } else if (kind < 44) {
      how.push(writeEdge(b, rng));
    } else if (kind < 54) {
      const cut = rng.int(b.length + 1);
      b = b.subarray(0, cut);
      how.push(`truncate@${cut}`);
    } else if (kind < 62) {
      const other = body(rng.pick(corpus).bytes);
      const at = rng.int(b.length + 1);
      const from = rng.int(other.length + 1);
      b = Buffer.concat([b.subarray(0, at), other.subarray(from)]);
      how.push(`splice@${at}+${from}`);
    } else if (kind < 68) {
      const at = rng.int(b.length + 1);
      const len = 1 + rng.int(8);
      const ins = Buffer.alloc(len);
      for (let j = 0; j < len; j++) ins[j] = rng.chance(0.5) ? rng.pick([0, 0xff, 0x7f, 0x80]) : rng.int(256);
      b = Buffer.concat([b.subarray(0, at), ins, b.subarray(at)]);
      how.push(`insert@${at}+${len}`);
    } else if (kind < 73) {
      const at = rng.int(b.length + 1);
      const len = 1 + rng.int(8);
      b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + len))]);
      how.push(`delete@${at}-${len}`);
    } else if (kind < 80) {
      if (b.length >= 2) {
        const key = rng.chance(0.7) ? rng.pick(API_KEYS) : rng.int(100) - 5;
        b.writeInt16BE(key, 0);
        how.push(`apiKey=${key}`);
      }
    } else if (kind < 90) {
      if (b.length >= 4) {
        const ver = rng.chance(0.8) ? rng.int(19) : rng.pick([-1, 127, 0x7fff, -0x8000]);
        b.writeInt16BE(ver, 2);
        how.push(`version=${ver}`);
      }
    } else if (kind < 95) {
      // trailing bytes after a valid body
      const len = 1 + rng.int(16);
      const tail = Buffer.alloc(len);
      for (let j = 0; j < len; j++) tail[j] = rng.int(256);
      b = Buffer.concat([b, tail]);
      how.push(`trailing+${len}`);
    } else {
      // the client id length (header v1+) set to an edge value
      if (b.length >= 10) {
        const v = rng.pick([-1, -2, 0, 0x7fff, -0x8000, 1000]);
        b.writeInt16BE(v, 8);
        how.push(`clientIdLength=${v}`);
      }
    }
  }
  if (rng.chance(0.02)) {
    // A hostile size prefix: negative or over socket.request.max.bytes (refused at once), or more
    // bytes than follow (the broker waits; the frame is written last on its connection).
    const choice = rng.int(4);
    const out = withSize(b);
    if (choice === 0) {
      out.writeInt32BE(-1 - rng.int(0x7fffffff), 0);
      return { bytes: out, how: [...how, 'size<0'].join(' '), size: 'oob' };
    }
    if (choice === 1) {
      out.writeInt32BE(0x7fffffff - rng.int(1000), 0);
      return { bytes: out, how: [...how, 'size=huge'].join(' '), size: 'oob' };
    }
    out.writeInt32BE(b.length + 1 + rng.int(1000), 0);
    return { bytes: out, how: [...how, 'size>bytes'].join(' '), size: 'pending' };
  }
  return { bytes: withSize(b), how: how.join(' ') };
}

// ---------------------------------------------------------------------------------------------
// Structure-aware mutations: a decoded body with one field set to a hostile but encodable value

const INT_EDGES: Record<string, Array<number | bigint>> = {
  int8: [0, -1, 127, -128, 1],
  int16: [0, -1, -2, 0x7fff, -0x8000, 1],
  uint16: [0, 0xffff, 1],
  int32: [0, -1, -2, 0x7fffffff, -0x80000000, 1, 1_000_000_000],
  uint32: [0, 0xffffffff, 1],
  int64: [0n, -1n, -2n, 2n ** 63n - 1n, -(2n ** 63n), 1n, 1n << 40n],
  float64: [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e308],
};
const NAMES = ['fuzz-a', 'fuzz-b', '__consumer_offsets', '', '.', '..', 'a'.repeat(249), 'a'.repeat(300), 'bad name!', '\u0000', 'fuzz-group', 'é'];
const UUIDS = ['AAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAQ', '_____________________w', 'EjRWeJq83vASNFZ4mrze8A'];

interface Slot {
  parent: Record<string, unknown>;
  field: FieldSchema;
}

function slots(struct: StructSchema, value: Record<string, unknown>, version: number, out: Slot[]): void {
  for (const f of struct.fields) {
    if (!inRange(version, f.versions)) continue;
    out.push({ parent: value, field: f });
    const v = value[f.name];
    if (f.struct === undefined || v === null || v === undefined) continue;
    if (f.array) for (const e of v as Record<string, unknown>[]) slots(f.struct, e, version, out);
    else slots(f.struct, v as Record<string, unknown>, version, out);
  }
}

function hostileValue(f: FieldSchema, current: unknown, rng: Rng, version: number): unknown {
  const nullable = inRange(version, f.nullableVersions);
  if (nullable && rng.chance(0.3)) return null;
  if (f.array) {
    const xs = (current as unknown[] | null) ?? [];
    const choice = rng.int(4);
    if (choice === 0) return [];
    if (choice === 1 && xs.length > 0) return [...xs, ...xs]; // duplicates
    if (choice === 2 && xs.length > 0) return Array.from({ length: 40 }, () => xs[rng.int(xs.length)]);
    if (f.struct !== undefined) return [...xs, f.struct.create()];
    return xs;
  }
  switch (f.type) {
    case 'bool':
      return !(current as boolean);
    case 'string':
      return rng.pick(NAMES);
    case 'uuid':
      return rng.pick(UUIDS);
    case 'bytes':
    case 'records': {
      const n = rng.pick([0, 1, 7, 61, 200]);
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = rng.int(256);
      // Now and then a record batch header with edge fields (magic 2 at its place).
      if (n >= 61 && rng.chance(0.5)) {
        b.writeBigInt64BE(0n, 0);
        b.writeInt32BE(n - 12, 8);
        b[16] = 2;
      }
      return b;
    }
    case 'struct':
      return f.struct!.create();
    default: {
      const edges = INT_EDGES[f.type];
      return edges ? rng.pick(edges) : current;
    }
  }
}

/**
 * A corpus frame decoded, 1-3 of its fields set to hostile values (null where nullable, edge
 * integers, empty/duplicated/long arrays, odd names and ids), encoded again at its version or
 * another of its API. Undefined when the frame does not decode or the result cannot be encoded.
 */
export function structuredFuzzFrame(rng: Rng, seed: SeedFrame, correlationId: number): FuzzFrame | undefined {
  let decoded;
  try {
    decoded = decodeRequest(seed.bytes.subarray(4));
  } catch {
    return undefined;
  }
  const k = decoded.header.apiKey as ApiKey;
  const api = APIS[k];
  const version = rng.chance(0.7) ? decoded.header.apiVersion : api.minVersion + rng.int(api.maxVersion - api.minVersion + 1);
  const value = decoded.body as Record<string, unknown>;
  const how = [`${seed.origin} structured v${version}`];
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    const all: Slot[] = [];
    slots(api.request.schema, value, version, all);
    if (all.length === 0) break;
    const s = rng.pick(all);
    s.parent[s.field.name] = hostileValue(s.field, s.parent[s.field.name], rng, version);
    how.push(`${s.field.name}=${describeValue(s.parent[s.field.name])}`);
  }
  const bytes = tryEncode(k, version, value, correlationId);
  return bytes === undefined ? undefined : { bytes, how: how.join(' ') };
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Buffer.isBuffer(v)) return `<${v.length} bytes>`;
  if (Array.isArray(v)) return `[${v.length}]`;
  if (typeof v === 'object') return '{…}';
  const s = typeof v === 'bigint' ? `${v}n` : JSON.stringify(v);
  return s.length > 24 ? `${s.slice(0, 24)}…` : s;
}

// ---------------------------------------------------------------------------------------------
// What a frame should get, as far as the harness can tell from its bytes

export interface FrameFacts {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** The harness's codec decodes it (header and body). */
  decodes: boolean;
  /** Produce with acks=0: Kafka sends no answer. */
  noAnswer: boolean;
  /** The broker may hold it: Fetch (long poll), JoinGroup, SyncGroup. */
  mayPark: boolean;
  /** Decoded Produce request (to track what the broker acknowledges). */
  produce?: ApiTypes[0]['request'];
  /** Decoded DeleteTopics / DeleteRecords request (they may remove acknowledged records). */
  destructive?: { apiKey: 20 | 21; body: unknown };
}

export function frameFacts(f: FuzzFrame): FrameFacts | null {
  const b = body(f.bytes);
  if (b.length < 8) return null;
  const apiKey = b.readInt16BE(0);
  const apiVersion = b.readInt16BE(2);
  const correlationId = b.readInt32BE(4);
  const facts: FrameFacts = { apiKey, apiVersion, correlationId, decodes: false, noAnswer: false, mayPark: apiKey === 1 || apiKey === 11 || apiKey === 14 };
  if (f.size !== undefined) return facts;
  try {
    const d = decodeRequest(b);
    facts.decodes = true;
    if (apiKey === 0) {
      const p = d.body as ApiTypes[0]['request'];
      facts.produce = p;
      facts.noAnswer = p.acks === 0;
    }
    if (apiKey === 20 || apiKey === 21) facts.destructive = { apiKey, body: d.body };
  } catch {
    // The broker will close the connection (or, for an API it serves at other versions, too).
  }
  return facts;
}

/** Decodes an answer as `facts`' API and version: the body, or why it does not decode. */
export function checkAnswer(frame: Buffer, facts: FrameFacts): { ok: true; body: unknown } | { ok: false; why: string } {
  // ApiVersions answers an unsupported version in the v0 layout (KIP-511).
  const apiVersions = facts.apiKey === 18;
  const spec = (APIS as Record<number, { minVersion: number; maxVersion: number } | undefined>)[facts.apiKey];
  const version = apiVersions && spec !== undefined && (facts.apiVersion > spec.maxVersion || facts.apiVersion < spec.minVersion) ? 0 : facts.apiVersion;
  try {
    const d = decodeResponse(frame, facts.apiKey, version);
    if (d.correlationId !== facts.correlationId) return { ok: false, why: `correlation id ${d.correlationId}, expected ${facts.correlationId}` };
    if (d.trailingBytes !== 0) return { ok: false, why: `${d.trailingBytes} bytes after the response body` };
    return { ok: true, body: d.body };
  } catch (e) {
    return { ok: false, why: `undecodable as ${facts.apiKey} v${version}: ${String(e)}` };
  }
}
