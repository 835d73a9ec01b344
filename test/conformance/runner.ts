// The differential scenario runner. A scenario is a list of steps over named connections (send a
// request built with kmock's codec, collect its answer later, check that a request is still
// parked, wait, close a connection). The runner plays it against a target broker and returns the
// transcript: every response decoded to its JSON form, in step order, plus "still parked",
// "connection closed", "no response" events. Transcripts from two brokers are normalised (member
// ids, cluster and node ids, hosts, ports, throttle times, topic ids, clocks, list orders that
// Kafka leaves to hash maps) and compared field by field into a readable diff.
//
// Nothing here knows kmock: a target is just `{bootstrapServers}`, and optionally how a `wait`
// step lets time pass on it (`passTime`; a real sleep by default). A manual-clock kmock
// (support/manual-clock.ts) jumps its clock there instead: the one thing that differs between a
// scenario and its "[manual clock]" variant (suite.ts clockVariant).
import {
  APIS,
  UnsupportedVersionError,
  EncodeError,
  decodeResponse,
  encodeRequest,
  toJson,
  type ApiTypes,
  type StructSchema,
  ZERO_UUID,
} from '../../src/codec/index.js';
import {
  decodeBatch,
  decompress,
  readLegacyRecord,
  splitBatches,
  verifyBatchCrc,
  type LegacyRecordView,
} from '../../src/codec/records/index.js';
import { RawClient } from '../support/raw-client.js';
import { normaliseScramText } from './support/scram-client.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };
export type ApiKeyNum = keyof ApiTypes;
type Req<K extends ApiKeyNum> = ApiTypes[K]['request'];
type Res<K extends ApiKeyNum> = ApiTypes[K]['response'];

/** Deep partial of a request body: nested structs may leave fields out (they take defaults). */
export type DeepPartial<T> = T extends Buffer
  ? T
  : T extends bigint
    ? bigint | number
  : T extends Array<infer E>
    ? Array<DeepPartial<E>>
    : T extends object
      ? { [P in keyof T]?: DeepPartial<T[P]> }
      : T;

// ---------------------------------------------------------------------------------------------
// Scenarios and steps

/** What a step sees when it builds its request: namespaced names and captured values. */
export interface Ctx {
  /** The group id `name` (default "g") in this run's namespace. */
  g(name?: string): string;
  /** The topic `name` (default "t") in this run's namespace. */
  t(name?: string): string;
  /** A value captured earlier, or `fallback` (default: a deliberately unknown member id). */
  v<T = string>(name: string, fallback?: T): T;
  has(name: string): boolean;
  set(name: string, value: unknown): void;
  /** The namespace prefix (ends with "."). */
  readonly ns: string;
}

/** A value resolved when the step runs (e.g. a member id captured from an earlier answer). */
export type Dyn<T> = T | ((c: Ctx) => T);

/** Matchers usable inside `expect` objects (compared against the normalised response). */
export class Matcher {
  constructor(
    readonly describe: string,
    readonly test: (actual: Json, env: MatchEnv) => boolean,
  ) {}
}
export interface MatchEnv {
  /** The normalised form of a captured raw value (e.g. a member id → "client-a-member#1"). */
  symbolOf(varName: string): Json | undefined;
}
/** Equal to the normalised form of captured variable `name`. */
export const same = (name: string): Matcher =>
  new Matcher(`same as ${name}`, (a, env) => env.symbolOf(name) !== undefined && deepEqual(a, env.symbolOf(name) as Json));
/** Not equal to the normalised form of captured variable `name`. */
export const notSame = (name: string): Matcher =>
  new Matcher(`not ${name}`, (a, env) => env.symbolOf(name) === undefined || !deepEqual(a, env.symbolOf(name) as Json));
export const anything = new Matcher('anything', () => true);
export const nonEmptyString = new Matcher('a non-empty string', (a) => typeof a === 'string' && a.length > 0);
export const length = (n: number): Matcher =>
  new Matcher(`an array of ${n}`, (a) => Array.isArray(a) && a.length === n);
export const oneOf = (...xs: Json[]): Matcher =>
  new Matcher(`one of ${JSON.stringify(xs)}`, (a) => xs.some((x) => deepEqual(a, x)));
/** An array (any order) whose elements each match one of `items` (same count). */
export const unordered = (items: ExpectValue[]): Matcher =>
  new Matcher(`unordered ${describeExpect(items)}`, (a, env) => {
    if (!Array.isArray(a) || a.length !== items.length) return false;
    const left = [...a];
    for (const want of items) {
      const i = left.findIndex((x) => matchExpect(x, want, env, '').length === 0);
      if (i < 0) return false;
      left.splice(i, 1);
    }
    return true;
  });

export type ExpectValue = Json | Matcher | ExpectValue[] | { [k: string]: ExpectValue | undefined };
/** What a response must look like: a subset of its normalised JSON (arrays must match whole). */
export type Expectation = ExpectValue | 'parked' | 'closed' | 'no-response' | 'not-sent';

export interface SendStep<K extends ApiKeyNum = ApiKeyNum> {
  op: 'send';
  conn: string;
  api: K;
  version: number;
  body: Dyn<DeepPartial<Req<K>>>;
  /** Collect the answer right away (default true). False: the request may park; use `collect`. */
  wait?: boolean;
  /** The request gets no answer (Produce with acks=0). */
  noResponse?: boolean;
  /** Encode the body at this version, then write `version` into the header (unsupported-version tests). */
  encodeVersion?: number;
  /** Decode the answer at this version (ApiVersions answers an unsupported version at v0). */
  decodeVersion?: number;
  /** Captures values from the raw (not normalised) answer into the context. */
  capture?: (res: Res<K>, c: Ctx) => void;
  expect?: Expectation;
  label?: string;
  /** Timeout for the answer when `wait` is true (default: the scenario's collect timeout). */
  timeoutMs?: number;
  /**
   * Do not send while an earlier request on this connection is unanswered (a client keeps one
   * request in flight to the coordinator): record a "not-sent" event instead.
   */
  skipIfBusy?: boolean;
  /**
   * Resend (after `delayMs`, at most `max` times) while the answer says so, as a client retries a
   * retriable error (e.g. COORDINATOR_LOAD_IN_PROGRESS from a broker that just started). Only
   * the last answer is in the transcript; the number of retries is a note (not compared).
   */
  retry?: { while: (res: Res<K>) => boolean; delayMs?: number; max?: number };
  /**
   * CreateTopics: after a successful answer, wait (outside the transcript) until Metadata shows
   * the created topics. A KRaft broker answers once the controller committed the topic; its own
   * metadata cache catches up a moment later.
   */
  awaitTopics?: boolean;
}
export interface CollectStep {
  op: 'collect';
  conn: string;
  timeoutMs?: number;
  /** Overrides the expectation written on the send step. */
  expect?: Expectation;
}
export interface ParkedStep {
  op: 'parked';
  conn: string;
  /** How long nothing may arrive (default 40 ms). */
  forMs?: number;
}
export interface WaitStep {
  op: 'wait';
  ms: number;
}
export interface CloseStep {
  op: 'close';
  conn: string;
}
/** Expect the broker to close the connection within `withinMs`. */
export interface ExpectClosedStep {
  op: 'closed';
  conn: string;
  withinMs?: number;
}
/** Writes bytes as they are (a hand-made frame, e.g. an unknown API key); no answer is read. */
export interface RawStep {
  op: 'raw';
  conn: string;
  bytes: (c: Ctx) => Buffer;
  label?: string;
}
/**
 * Waits `forMs`, then, connection by connection (sorted by name), records every answer that has
 * arrived and one "parked" event for a connection whose oldest request is still unanswered.
 * Random sequences use it after each request instead of collect/parked.
 */
export interface PollStep {
  op: 'poll';
  forMs: number;
}
/** Sets context values from the scenario itself (e.g. for steps generated from data). */
export interface SetStep {
  op: 'set';
  name: string;
  value: (c: Ctx) => unknown;
}
/**
 * Steps decided when this step runs, from the answers captured so far: a closed-loop client
 * (random sequences) picks its next request the way a real client reacts to the last answer.
 * The steps it returns are played at once, under this step's index.
 */
export interface ExpandStep {
  op: 'expand';
  steps: (c: Ctx) => Step[];
}
export type Step = SendStep<any> | CollectStep | ParkedStep | WaitStep | CloseStep | ExpectClosedStep | SetStep | RawStep | PollStep | ExpandStep;

export type Settings = Record<string, string | number | boolean>;

export interface Scenario {
  name: string;
  /** The Kafka test this mirrors (GroupCoordinatorTest / GroupMetadataManagerTest / KafkaApisTest). */
  mirrors?: string;
  /** One line on what it checks. */
  description?: string;
  /** Broker settings (Kafka's names) on top of the base settings; applied to both targets. */
  settings?: Settings;
  /**
   * Play on a broker pair of its own, shared only with scenarios giving the same key: for a
   * scenario whose answers list what exists on the whole broker (all topics), which on a shared
   * broker includes what other scenarios created (e.g. __transaction_state).
   */
  ownBrokers?: string;
  /** Group ids (short names) the runner makes sure the coordinator has loaded before step 1. */
  groups?: string[];
  steps: Step[];
  /** Default time to wait for an answer (ms). */
  collectTimeoutMs?: number;
  /**
   * The scenario whose causes (causes.ts, causes-4x.ts: scoped by scenario name) explain this
   * one's differences: set on a variant that plays another scenario's steps on a differently run
   * kmock (suite.ts clockVariant), so it inherits exactly that scenario's causes, by name.
   */
  causesOf?: string;
  /** Tags for selection (e.g. "group", "data", "random"). */
  tags?: string[];
  /** Extra listeners ("NAME:PROTOCOL") both targets open besides PLAINTEXT (scenarios/security.ts). */
  listeners?: string[];
  /** SCRAM credentials both targets hold ("SCRAM-SHA-256=[name=a,password=b]"; kmock: sasl.users). */
  addScram?: string[];
  /** The listener (by name) a connection connects to; the others connect to the bootstrap address. */
  connListeners?: Record<string, string>;
  /**
   * Pause after a request sent without waiting for its answer (default 50 ms), so that the broker
   * has handled it before the next step sends on another connection: requests on different
   * connections have no order of their own, in Kafka as in kmock.
   */
  settleMs?: number;
}

// ---------------------------------------------------------------------------------------------
// Transcripts

export type EventKind =
  | 'response'
  | 'parked'
  | 'closed'
  | 'no-response'
  | 'not-sent'
  | 'sent'
  | 'nothing-outstanding'
  | 'still-parked-at-end'
  | 'open';
export interface TranscriptEvent {
  /** Index of the step that produced the event. */
  step: number;
  /** Index of the send step whose request this event answers (when there is one). */
  sendStep?: number;
  conn: string;
  kind: EventKind;
  api?: string;
  apiKey?: number;
  version?: number;
  label?: string;
  request?: Json;
  response?: Json;
  note?: string;
  /** Expectation to check after normalisation (not part of the comparison). */
  expect?: Expectation;
  /** Milliseconds since the first step when the event was recorded (not compared). */
  t?: number;
}
export interface Transcript {
  scenario: string;
  target: string;
  /** The namespace prefix of the run's group ids and topic names (removed by normalisation). */
  ns?: string;
  events: TranscriptEvent[];
  /** Raw captured values (target-specific), for expectation matchers. */
  vars: Record<string, unknown>;
  elapsedMs: number;
  /** A failure of the runner itself (connect error, exception in a step). */
  error?: string;
}

export interface Target {
  name: string;
  bootstrapServers: string;
  /** The broker's node id (learned at warm-up if left out). */
  nodeId?: number;
  /** "host:port" of each extra listener, by name (Scenario.listeners). */
  listeners?: Record<string, string>;
  /**
   * How a `wait` step lets `ms` go by on this target (default: sleep `ms` in real time). Every
   * other pause of the runner (settle, collect and parked timeouts, polls, round trips) is real
   * time on every target; a manual-clock kmock follows it and jumps only here.
   */
  passTime?(ms: number): Promise<void>;
  /** A kmock target's strict-clients findings (docs/strict-clients.md): forget them, read them. */
  strictClients?: { reset(): void; findings(): StrictFinding[] };
}

/** One kind of client mistake kmock's strict-clients mode recorded during a scenario. */
export interface StrictFinding {
  kind: string;
  count: number;
  /** The first example's detail. */
  detail: string;
}

export interface RunOptions {
  /** Prefix for group ids and topic names, unique per run (default: generated). */
  ns?: string;
  /** Skip the coordinator warm-up. */
  noWarmup?: boolean;
}

let nsCounter = 0;
export function newNamespace(hint = ''): string {
  const slug = hint.replace(/[^a-zA-Z0-9]/g, '').slice(0, 24) || 's';
  nsCounter++;
  return `${slug}-${process.pid.toString(36)}${nsCounter.toString(36)}${Math.floor(Math.random() * 1296).toString(36)}.`;
}

// ---------------------------------------------------------------------------------------------
// Building requests

function fill(schema: StructSchema, partial: unknown): Record<string, unknown> {
  const m = schema.create() as Record<string, unknown>;
  if (partial === undefined || partial === null) return m;
  const p = partial as Record<string, unknown>;
  for (const f of schema.fields) {
    if (!(f.name in p)) continue;
    const v = p[f.name];
    if (f.type === 'struct' && f.struct !== undefined && v !== null && v !== undefined) {
      m[f.name] = f.array ? (v as unknown[]).map((e) => fill(f.struct!, e)) : fill(f.struct, v);
    } else if (f.type === 'int64' && typeof v === 'number') {
      m[f.name] = BigInt(v);
    } else if (f.type === 'int64' && f.array && Array.isArray(v)) {
      m[f.name] = v.map((x) => (typeof x === 'number' ? BigInt(x) : x));
    } else {
      m[f.name] = v;
    }
  }
  if (p.unknownTaggedFields !== undefined) m.unknownTaggedFields = p.unknownTaggedFields;
  return m;
}

/** A full request body from a partial one (nested structs and int64s given as numbers included). */
export function buildRequest<K extends ApiKeyNum>(api: K, partial: DeepPartial<Req<K>>): Req<K> {
  return fill(APIS[api].request.schema, partial) as unknown as Req<K>;
}

export function apiName(key: number): string {
  return (APIS as Record<number, { name: string } | undefined>)[key]?.name ?? `api${key}`;
}

// ---------------------------------------------------------------------------------------------
// Playing a scenario

interface Outstanding {
  sendStep: number;
  api: ApiKeyNum;
  version: number;
  decodeVersion: number;
  correlationId: number;
  label?: string;
  request: Json;
  expect?: Expectation;
  capture?: (res: any, c: Ctx) => void;
  /** A poll already recorded this request as parked. */
  reportedParked?: boolean;
}

interface ConnState {
  name: string;
  client: RawClient | null;
  outstanding: Outstanding[];
  nextCorrelationId: number;
  closedByUs: boolean;
}

const DEFAULT_COLLECT_TIMEOUT = 10_000;
const DEFAULT_PARKED_MS = 40;
const DEFAULT_SETTLE_MS = 50;
const UNKNOWN_MEMBER = 'unknown-member-id';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function makeCtx(ns: string, vars: Record<string, unknown>): Ctx {
  return {
    ns,
    g: (name = 'g') => `${ns}${name}`,
    t: (name = 't') => `${ns}${name}`,
    v: <T>(name: string, fallback?: T): T => (name in vars ? (vars[name] as T) : (fallback ?? (UNKNOWN_MEMBER as T))),
    has: (name) => name in vars,
    set: (name, value) => {
      vars[name] = value;
    },
  };
}

/** Makes sure the broker coordinates the scenario's groups (offsets topic created and loaded). */
export async function warmUp(target: Target, groupIds: string[], deadlineMs = 60_000): Promise<void> {
  const c = await RawClient.connect(target.bootstrapServers);
  c.clientId = 'conformance-warmup';
  const until = Date.now() + deadlineMs;
  try {
    for (const key of groupIds.length > 0 ? groupIds : ['conformance-warmup']) {
      for (;;) {
        const r = await c.request(10, 1, buildRequest(10, { key, keyType: 0 }));
        if (r.errorCode === 0) {
          target.nodeId ??= r.nodeId;
          break;
        }
        if (Date.now() > until) throw new Error(`FindCoordinator(${key}) still answers ${r.errorCode}`);
        await sleep(100);
      }
      for (;;) {
        const r = await c.request(15, 0, buildRequest(15, { groups: [key] }));
        const code = r.groups[0]?.errorCode ?? 0;
        if (code !== 14 && code !== 15 && code !== 16) break;
        if (Date.now() > until) throw new Error(`DescribeGroups(${key}) still answers ${code}`);
        await sleep(100);
      }
    }
  } finally {
    c.close();
  }
}

/** Waits until the broker's Metadata lists every topic (for CreateTopics `awaitTopics`). */
export async function awaitTopics(target: Target, names: string[], deadlineMs = 10_000): Promise<void> {
  const c = await RawClient.connect(target.bootstrapServers);
  c.clientId = 'conformance-await-topics';
  const until = Date.now() + deadlineMs;
  try {
    for (;;) {
      const r = await c.request(3, 9, buildRequest(3, { topics: names.map((name) => ({ name })), allowAutoTopicCreation: false }));
      if (r.topics.every((t) => t.errorCode === 0 && t.partitions.length > 0)) return;
      if (Date.now() > until) return;
      await sleep(20);
    }
  } finally {
    c.close();
  }
}

/** Plays `scenario` against `target` and returns the raw (not yet normalised) transcript. */
export async function runScenario(scenario: Scenario, target: Target, options: RunOptions = {}): Promise<Transcript> {
  const ns = options.ns ?? newNamespace(scenario.name);
  const vars: Record<string, unknown> = {};
  const ctx = makeCtx(ns, vars);
  const events: TranscriptEvent[] = [];
  const conns = new Map<string, ConnState>();
  let started = Date.now();
  const push = events.push.bind(events);
  events.push = (...es: TranscriptEvent[]) => push(...es.map((e) => ({ ...e, t: Date.now() - started })));
  const collectTimeout = scenario.collectTimeoutMs ?? DEFAULT_COLLECT_TIMEOUT;
  const transcript: Transcript = { scenario: scenario.name, target: target.name, events, vars, elapsedMs: 0 };

  /** The last decoded answer per connection (for `retry`). */
  const lastRaw = new Map<string, unknown>();
  const conn = async (name: string): Promise<ConnState> => {
    let s = conns.get(name);
    if (s === undefined) {
      s = { name, client: null, outstanding: [], nextCorrelationId: 1, closedByUs: false };
      conns.set(name, s);
      const listener = scenario.connListeners?.[name];
      const address = listener === undefined ? target.bootstrapServers : target.listeners?.[listener];
      if (address === undefined) throw new Error(`${target.name} has no listener ${listener}`);
      s.client = await RawClient.connect(address);
      s.client.clientId = `client-${name}`;
    }
    return s;
  };

  const answer = async (s: ConnState, stepIndex: number, timeoutMs: number, expectOverride?: Expectation): Promise<void> => {
    const o = s.outstanding.shift();
    if (o === undefined) {
      events.push({ step: stepIndex, conn: s.name, kind: 'nothing-outstanding', expect: expectOverride });
      return;
    }
    const base = {
      step: stepIndex,
      sendStep: o.sendStep,
      conn: s.name,
      api: apiName(o.api),
      apiKey: o.api,
      version: o.version,
      label: o.label,
      request: o.request,
      expect: expectOverride ?? o.expect,
    };
    let frame: Buffer;
    try {
      frame = await s.client!.nextFrame(timeoutMs);
    } catch {
      if (s.client!.isClosed) {
        events.push({ ...base, kind: 'closed' });
        s.outstanding = [];
      } else {
        events.push({ ...base, kind: 'no-response', note: `no answer within ${timeoutMs} ms` });
        s.outstanding.unshift(o);
      }
      return;
    }
    const r = readAnswer(o, frame);
    events.push({ ...base, kind: 'response', response: r.json, note: r.note });
    if (r.body !== undefined) lastRaw.set(s.name, r.body);
  };

  /**
   * One answer frame for `o`, decoded as every read path does it: the correlation id must be the
   * request's and bytes left after the body are shown as a field (so both are compared), then the
   * step's capture runs. An undecodable frame is kept as hex with the reason.
   */
  const readAnswer = (o: Outstanding, frame: Buffer): { json: Json; body?: unknown; note?: string } => {
    let body: unknown;
    let json: JsonObject;
    try {
      const decoded = decodeResponse(frame, o.api, o.decodeVersion);
      if (decoded.correlationId !== o.correlationId) {
        throw new Error(`correlation id ${decoded.correlationId}, expected ${o.correlationId}`);
      }
      body = decoded.body;
      json = toJson(APIS[o.api].response.schema, body as object, o.decodeVersion);
      if (decoded.trailingBytes !== 0) json['(trailing bytes)'] = decoded.trailingBytes;
    } catch (e) {
      return { json: { '(undecodable)': frame.toString('hex') }, note: String(e) };
    }
    if (o.capture) {
      try {
        o.capture(body, ctx);
      } catch (e) {
        return { json, body, note: `capture failed: ${String(e)}` };
      }
    }
    return { json, body };
  };

  try {
    if (!options.noWarmup) await warmUp(target, (scenario.groups ?? ['g']).map((g) => ctx.g(g)));
    started = Date.now();
    const play = async (step: Step, i: number): Promise<void> => {
      switch (step.op) {
        case 'send': {
          const s = await conn(step.conn);
          if (step.skipIfBusy && s.outstanding.length > 0) {
            events.push({ step: i, sendStep: i, conn: step.conn, kind: 'not-sent', api: apiName(step.api), apiKey: step.api, version: step.version, label: step.label, note: 'busy: an earlier request on this connection is unanswered' });
            break;
          }
          const version = step.version;
          const encodeVersion = step.encodeVersion ?? version;
          const api = step.api as ApiKeyNum;
          let request: Json = null;
          let frame: Buffer;
          const correlationId = s.nextCorrelationId++;
          try {
            const partial = typeof step.body === 'function' ? (step.body as (c: Ctx) => unknown)(ctx) : step.body;
            const body = buildRequest(api, partial as DeepPartial<Req<typeof api>>);
            request = toJson(APIS[api].request.schema, body as object, encodeVersion);
            frame = encodeRequest({ apiKey: api, apiVersion: encodeVersion, correlationId, clientId: s.client!.clientId }, body);
            if (encodeVersion !== version) frame.writeInt16BE(version, 6);
          } catch (e) {
            const why = e instanceof UnsupportedVersionError || e instanceof EncodeError ? e.message : String(e);
            events.push({
              step: i,
              sendStep: i,
              conn: step.conn,
              kind: 'not-sent',
              api: apiName(api),
              apiKey: api,
              version,
              label: step.label,
              request,
              note: why,
              expect: step.expect,
            });
            break;
          }
          if (s.client!.isClosed) {
            events.push({ step: i, sendStep: i, conn: step.conn, kind: 'closed', api: apiName(api), apiKey: api, version, label: step.label, request, expect: step.expect, note: 'connection already closed' });
            break;
          }
          s.client!.sendRaw(frame);
          if (step.noResponse) {
            events.push({ step: i, sendStep: i, conn: step.conn, kind: 'sent', api: apiName(api), apiKey: api, version, label: step.label, request });
            break;
          }
          s.outstanding.push({
            sendStep: i,
            api,
            version,
            decodeVersion: step.decodeVersion ?? version,
            correlationId,
            label: step.label,
            request,
            expect: step.expect,
            capture: step.capture as ((res: any, c: Ctx) => void) | undefined,
          });
          if (step.wait !== false) await answer(s, i, step.timeoutMs ?? collectTimeout);
          else await sleep(scenario.settleMs ?? DEFAULT_SETTLE_MS);
          if (step.retry && step.wait !== false) {
            let tries = 0;
            for (;;) {
              const last = events[events.length - 1];
              const raw = lastRaw.get(s.name);
              if (last?.kind !== 'response' || last.sendStep !== i || raw === undefined || !step.retry.while(raw as never)) break;
              if (tries >= (step.retry.max ?? 50)) break;
              tries++;
              await sleep(step.retry.delayMs ?? 100);
              events.pop();
              const cid = s.nextCorrelationId++;
              const again = Buffer.from(frame);
              again.writeInt32BE(cid, 8);
              s.client!.sendRaw(again);
              s.outstanding.push({
                sendStep: i,
                api,
                version,
                decodeVersion: step.decodeVersion ?? version,
                correlationId: cid,
                label: step.label,
                request,
                expect: step.expect,
                capture: step.capture as ((res: any, c: Ctx) => void) | undefined,
              });
              await answer(s, i, step.timeoutMs ?? collectTimeout);
            }
            if (tries > 0) events[events.length - 1].note = `answered after ${tries} retr${tries === 1 ? 'y' : 'ies'}`;
          }
          if (step.awaitTopics && api === 19) {
            const res = lastRaw.get(s.name) as Res<19> | undefined;
            const created = (res?.topics ?? []).filter((t) => t.errorCode === 0).map((t) => t.name);
            if (created.length > 0) await awaitTopics(target, created);
          }
          break;
        }
        case 'collect': {
          const s = await conn(step.conn);
          await answer(s, i, step.timeoutMs ?? collectTimeout, step.expect);
          break;
        }
        case 'parked': {
          const s = await conn(step.conn);
          const o = s.outstanding[0];
          if (o === undefined) {
            events.push({ step: i, conn: step.conn, kind: 'nothing-outstanding', expect: 'parked' });
            break;
          }
          await sleep(step.forMs ?? DEFAULT_PARKED_MS);
          // Anything already here is an early answer: record it as such; otherwise "parked".
          let frame: Buffer | undefined;
          try {
            frame = await s.client!.nextFrame(1);
          } catch {
            frame = undefined;
          }
          const base = { step: i, sendStep: o.sendStep, conn: step.conn, api: apiName(o.api), apiKey: o.api, version: o.version, label: o.label, request: o.request, expect: 'parked' as Expectation };
          if (frame === undefined) {
            if (s.client!.isClosed) {
              events.push({ ...base, kind: 'closed' });
              s.outstanding = [];
            } else {
              events.push({ ...base, kind: 'parked' });
            }
          } else {
            s.outstanding.shift();
            const r = readAnswer(o, frame);
            events.push({ ...base, kind: 'response', response: r.json, note: `answered while expected parked${r.note ? `; ${r.note}` : ''}` });
          }
          break;
        }
        case 'wait':
          // Real time on a real broker; a manual-clock kmock advances its clock by `ms` at once.
          await (target.passTime !== undefined ? target.passTime(step.ms) : sleep(step.ms));
          break;
        case 'close': {
          const s = conns.get(step.conn);
          if (s?.client) {
            s.closedByUs = true;
            s.client.close();
          }
          conns.delete(step.conn);
          break;
        }
        case 'closed': {
          const s = await conn(step.conn);
          const closed = await s.client!.waitForClose(step.withinMs ?? 2000);
          events.push({ step: i, conn: step.conn, kind: closed ? 'closed' : 'open', expect: 'closed' });
          if (closed) s.outstanding = [];
          break;
        }
        case 'set':
          ctx.set(step.name, step.value(ctx));
          break;
        case 'poll': {
          await sleep(step.forMs);
          for (const s of [...conns.values()].sort((a, b) => a.name.localeCompare(b.name))) {
            while (s.outstanding.length > 0) {
              const o = s.outstanding[0];
              const ready = await s.client!.nextFrame(1).then(
                (f) => f,
                () => undefined,
              );
              if (ready === undefined) {
                const base = { step: i, sendStep: o.sendStep, conn: s.name, api: apiName(o.api), apiKey: o.api, version: o.version, label: o.label, request: o.request };
                if (s.client!.isClosed) {
                  events.push({ ...base, kind: 'closed' });
                  s.outstanding = [];
                } else if (!o.reportedParked) {
                  o.reportedParked = true;
                  events.push({ ...base, kind: 'parked' });
                }
                break;
              }
              s.outstanding.shift();
              const r = readAnswer(o, ready);
              events.push({ step: i, sendStep: o.sendStep, conn: s.name, api: apiName(o.api), apiKey: o.api, version: o.version, label: o.label, request: o.request, kind: 'response', response: r.json, note: r.note });
            }
          }
          break;
        }
        case 'raw': {
          const s = await conn(step.conn);
          s.client!.sendRaw(step.bytes(ctx));
          events.push({ step: i, conn: step.conn, kind: 'sent', label: step.label });
          break;
        }
        case 'expand':
          // Steps decided by the answers so far (closed-loop clients): played under this index.
          for (const inner of step.steps(ctx)) await play(inner, i);
          break;
      }
    };
    for (let i = 0; i < scenario.steps.length; i++) await play(scenario.steps[i], i);
    // Requests still unanswered at the end (sorted by connection name for a stable order).
    for (const s of [...conns.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      for (const o of s.outstanding) {
        events.push({
          step: scenario.steps.length,
          sendStep: o.sendStep,
          conn: s.name,
          kind: 'still-parked-at-end',
          api: apiName(o.api),
          apiKey: o.api,
          version: o.version,
          label: o.label,
          request: o.request,
        });
      }
    }
  } catch (e) {
    transcript.error = e instanceof Error ? (e.stack ?? e.message) : String(e);
  } finally {
    for (const s of conns.values()) s.client?.close();
    transcript.elapsedMs = Date.now() - started;
  }
  transcript.ns = ns;
  return transcript;
}

// ---------------------------------------------------------------------------------------------
// Normalisation

const UUID_SUFFIX = /^(.*)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const NODE_KEYS = new Set(['nodeId', 'leaderId', 'controllerId', 'coordinatorId']);
const NODE_LIST_KEYS = new Set(['replicaNodes', 'isrNodes', 'offlineReplicas', 'eligibleLeaderReplicas', 'lastKnownElr']);
const TIME_KEY = /time(stamp)?(ms)?$/i;
const DAY = 86_400_000;

/** Lists whose order Kafka leaves to hash maps: sorted after normalisation, by these keys. */
const UNORDERED: Record<string, Record<string, string>> = {
  JoinGroup: { members: 'memberId' },
  DescribeGroups: { members: 'memberId' },
  ListGroups: { groups: 'groupId' },
  DeleteGroups: { results: 'groupId' },
  Metadata: { topics: 'name', partitions: 'partitionIndex', brokers: 'nodeId' },
  OffsetCommit: { topics: 'name', partitions: 'partitionIndex' },
  OffsetFetch: { topics: 'name', partitions: 'partitionIndex' },
  OffsetDelete: { topics: 'name', partitions: 'partitionIndex' },
  Produce: { responses: 'name', partitionResponses: 'index' },
  ListOffsets: { topics: 'name', partitions: 'partitionIndex' },
  CreateTopics: { topics: 'name', configs: 'name' },
  DeleteTopics: { responses: 'name' },
  CreatePartitions: { results: 'name' },
  // KafkaApis.handleDeleteRecordsRequest groups the partitions in a Map by topic.
  DeleteRecords: { topics: 'name', partitions: 'partitionIndex' },
  DescribeConfigs: { configs: 'name' },
  // StandardAuthorizerData.acls walks a HashMap of ACLs by id, DescribeAclsResponse.aclsResources
  // groups them in a HashMap by resource; AclControlManager.deleteAclsForFilter walks its id map.
  DescribeAcls: { resources: 'resourceType+patternType+resourceName', acls: 'principal+host+operation+permissionType' },
  DeleteAcls: { matchingAcls: 'resourceType+patternType+resourceName+principal+host+operation+permissionType' },
  // ClientQuotaControlManager answers from a HashMap of entities, ClientQuotasImage walks one.
  AlterClientQuotas: { entries: 'entity+errorCode+errorMessage' },
  DescribeClientQuotas: { entries: 'entity+values', values: 'key' },
  // ReplicaManager.describeLogDirs groups logs by topic (a Map); alterReplicaLogDirs' results too.
  DescribeLogDirs: { topics: 'name', partitions: 'partitionIndex' },
  AlterReplicaLogDirs: { results: 'topicName', partitions: 'partitionIndex' },
  // DelegationTokenManager.getTokens walks the token cache's map.
  DescribeDelegationToken: { tokens: 'principalName+tokenId', renewers: 'principalType+principalName' },
  ApiVersions: { apiKeys: 'apiKey', supportedFeatures: 'name', finalizedFeatures: 'name' },
  // The transaction APIs: Kafka answers from hash maps and sets (TransactionMetadata.topicPartitions,
  // the per-transaction and per-producer results); '' sorts a list of plain values.
  AddPartitionsToTxn: { resultsByTransaction: 'transactionalId', topicResults: 'name', resultsByTopicV3AndBelow: 'name', resultsByPartition: 'partitionIndex' },
  DescribeTransactions: { topics: 'topic', partitions: '' },
  ListTransactions: { transactionStates: 'transactionalId', unknownStateFilters: '' },
  WriteTxnMarkers: { markers: 'producerId', topics: 'name', partitions: 'partitionIndex' },
  TxnOffsetCommit: { topics: 'name', partitions: 'partitionIndex' },
  DescribeProducers: { topics: 'name', partitions: 'partitionIndex', activeProducers: 'producerId' },
};

/** Lists whose entries outside the scenario's namespace are dropped (brokers are shared). */
const NAMESPACED_LISTS: Record<string, Record<string, string>> = {
  Metadata: { topics: 'name' },
  ListGroups: { groups: 'groupId' },
  OffsetFetch: { topics: 'name' },
  DescribeLogDirs: { topics: 'name' },
  ListTransactions: { transactionStates: 'transactionalId' },
};

export interface NormaliseOptions {
  ns: string;
  nodeId?: number;
  /**
   * The target's own bootstrap address ("host:port"): a host or port equal to it is the broker
   * itself and becomes <host> / <port>; any other value (a wrong advertised address) is compared.
   */
  bootstrap?: string;
  /** The ports of the target's extra listeners (Target.listeners): its own too, like the bootstrap port. */
  listenerPorts?: number[];
}

/** Symbol tables shared by every event of one transcript. */
class Symbols {
  private readonly members = new Map<string, string>();
  private readonly perPrefix = new Map<string, number>();
  private readonly topicIds = new Map<string, string>();
  private readonly sessions = new Map<number, string>();

  member(raw: string): string {
    let s = this.members.get(raw);
    if (s === undefined) {
      const m = UUID_SUFFIX.exec(raw)!;
      const n = (this.perPrefix.get(m[1]) ?? 0) + 1;
      this.perPrefix.set(m[1], n);
      s = `${m[1]}-member#${n}`;
      this.members.set(raw, s);
    }
    return s;
  }
  topicId(raw: string): string {
    if (raw === ZERO_UUID) return raw;
    let s = this.topicIds.get(raw);
    if (s === undefined) {
      s = `topic-id#${this.topicIds.size + 1}`;
      this.topicIds.set(raw, s);
    }
    return s;
  }
  private readonly producers = new Map<number, string>();
  producer(raw: number): string {
    let s = this.producers.get(raw);
    if (s === undefined) {
      s = `producer#${this.producers.size + 1}`;
      this.producers.set(raw, s);
    }
    return s;
  }
  session(raw: number): string {
    let s = this.sessions.get(raw);
    if (s === undefined) {
      s = `session#${this.sessions.size + 1}`;
      this.sessions.set(raw, s);
    }
    return s;
  }
}

function summariseRecords(hex: string): Json {
  const buf = Buffer.from(hex, 'hex');
  const out: Json[] = [];
  // Byte counts after a compressed entry depend on the compressor (Java's and Node's differ), so
  // a partial tail after one is only described, not measured.
  let compressedBefore = false;
  try {
    const { batches, partial } = splitBatches(buf, { allowPartial: true });
    for (const b of batches) {
      if (b.magic === 0 || b.magic === 1) {
        const m = summariseLegacy(b.bytes);
        if (m.codec !== 0) compressedBefore = true;
        out.push(m.json);
        continue;
      }
      if (b.magic !== 2) {
        out.push({ magic: b.magic, bytes: b.bytes.toString('hex') });
        continue;
      }
      const d = decodeBatch(Buffer.from(b.bytes), { verifyCrc: false });
      if (d.compression !== 'none') compressedBefore = true;
      out.push({
        baseOffset: Number(d.baseOffset),
        partitionLeaderEpoch: d.partitionLeaderEpoch,
        magic: d.magic,
        attributes: d.attributes,
        lastOffsetDelta: d.lastOffsetDelta,
        baseTimestamp: d.baseTimestamp,
        maxTimestamp: d.maxTimestamp,
        producerId: Number(d.producerId),
        producerEpoch: d.producerEpoch,
        baseSequence: d.baseSequence,
        crcValid: verifyBatchCrc(b.bytes),
        records: d.records.map((r) => ({
          offsetDelta: r.offsetDelta,
          timestampDelta: r.timestampDelta,
          key: r.key === null ? null : r.key.toString('utf8'),
          value: r.value === null ? null : r.value.toString('utf8'),
          headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString('utf8') })),
        })),
      });
    }
    if (partial !== null) out.push(summariseTail(buf.subarray(partial.position), partial.size, compressedBefore));
  } catch (e) {
    out.push({ '(undecodable records)': hex, error: String(e) });
  }
  return { batches: out };
}

/**
 * A legacy message (Fetch v0-v3 answers): its fields as stored, the CRC checked, and for a
 * compressed wrapper the inner messages with their offsets as written (relative for magic 1),
 * not the compressed bytes, which depend on the compressor.
 */
function summariseLegacy(bytes: Buffer): { json: Json; codec: number } {
  const fields = (m: LegacyRecordView): JsonObject => ({
    offset: Number(m.offset),
    magic: m.magic,
    attributes: m.attributes,
    timestamp: m.magic === 0 ? null : Number(m.timestamp),
    crcValid: m.crcValid,
    key: m.key === null ? null : m.key.toString('utf8'),
    value: m.codec !== 0 || m.value === null ? null : m.value.toString('utf8'),
  });
  const w = readLegacyRecord(bytes);
  const json = fields(w);
  if (w.codec !== 0 && w.value !== null) {
    const inner = decompress(w.codec, w.value, { magic: w.magic });
    json.messages = splitBatches(inner).batches.map((b) => fields(readLegacyRecord(b.bytes)));
  }
  return { json, codec: w.codec };
}

/**
 * The incomplete entry a fetch answer may end with: a message or batch cut at the size limit, or
 * Kafka's down-conversion "overflow batch" padding (offset -1, LazyDownConversionRecordsSend).
 */
function summariseTail(tail: Buffer, size: number | null, compressedBefore: boolean): Json {
  const overflow = tail.subarray(0, 8).every((x) => x === 0xff);
  const json: JsonObject = { tail: overflow ? 'overflow' : 'partial' };
  if (!compressedBefore) {
    json.bytes = tail.length;
    if (!overflow) json.size = size;
  }
  return json;
}

function ownAddress(o: NormaliseOptions): { host: string; port: number } | undefined {
  if (o.bootstrap === undefined) return undefined;
  const i = o.bootstrap.lastIndexOf(':');
  return { host: o.bootstrap.slice(0, i), port: Number(o.bootstrap.slice(i + 1)) };
}

function normaliseValue(v: Json, key: string, api: string, version: number, sym: Symbols, o: NormaliseOptions, depth: number): Json {
  if (typeof v === 'string') {
    let s = v.split(o.ns).join('');
    if (key === 'clusterId') return '<cluster-id>';
    // A delegation token's id and HMAC: random on each broker.
    if ((key === 'tokenId' || key === 'hmac') && /DelegationToken$/.test(api) && s !== '') return `<${key === 'hmac' ? 'hmac' : 'token-id'}>`;
    // A broker's own log dir path (DescribeLogDirs): a temp dir on each.
    if (key === 'logDir' && s !== '') return '<log-dir>';
    if (key === 'topicId') return sym.topicId(s);
    if (key === 'host' && s !== '' && s === ownAddress(o)?.host) return '<host>';
    if (key === 'records') return normaliseValue(summariseRecords(s), 'batches', api, version, sym, o, depth + 1);
    // A SCRAM server message (hex): the server nonce, salt and signature differ per broker.
    if (key === 'authBytes' && api === 'SaslAuthenticate' && s !== '') return normaliseScramText(Buffer.from(s, 'hex').toString('latin1'));
    if (UUID_SUFFIX.test(s)) s = sym.member(s);
    return s;
  }
  if (typeof v === 'number') {
    if (key === 'throttleTimeMs') return 0;
    // A session bounded by a credential's expiry (a delegation token's) counts down from when each
    // broker checked it: compared to the minute.
    if (key === 'sessionLifetimeMs' && api === 'SaslAuthenticate' && v > 0) return `${Math.round(v / 60_000)} min`;
    // The log dir's volume (DescribeLogDirs v4): the machine's, not the broker's.
    if ((key === 'totalBytes' || key === 'usableBytes') && v >= 0) return '<bytes>';
    if (key === 'port' && v > 0 && (v === ownAddress(o)?.port || o.listenerPorts?.includes(v))) return '<port>';
    if (NODE_KEYS.has(key) && o.nodeId !== undefined && v === o.nodeId && !(api === 'FindCoordinator' && version >= 4 && depth === 0)) {
      return '<node>';
    }
    if (key === 'sessionId' && api === 'Fetch' && v !== 0) return sym.session(v);
    if (key === 'producerId' && v >= 0) return sym.producer(v);
    // A metadata-log offset on a real broker: its value means nothing across brokers.
    if (key === 'finalizedFeaturesEpoch' && v >= 0) return '<epoch>';
    if (TIME_KEY.test(key) && Math.abs(v - Date.now()) < DAY) return '<now>';
    return v;
  }
  if (Array.isArray(v)) {
    if (NODE_LIST_KEYS.has(key)) return v.map((x) => (o.nodeId !== undefined && x === o.nodeId ? '<node>' : x));
    let items = v;
    const nsKey = NAMESPACED_LISTS[api]?.[key];
    if (nsKey !== undefined) {
      items = items.filter((e) => {
        const name = (e as JsonObject | null)?.[nsKey];
        return typeof name !== 'string' || name.startsWith(o.ns) || name.startsWith('__');
      });
    }
    const sortKey = UNORDERED[api]?.[key];
    if (sortKey !== undefined) {
      // Sort before normalising too, so that symbols (topic ids…) are numbered in a stable order.
      const raw = (e: Json): Json | undefined => {
        const k = sortKeyOf(e, sortKey);
        return typeof k === 'string' ? k.split(o.ns).join('') : k;
      };
      items = [...items].sort((a, b) => compareKeys(raw(a), raw(b)));
    }
    let out = items.map((e) => normaliseValue(e, key, api, version, sym, o, depth + 1));
    if (sortKey !== undefined) {
      out = [...out].sort((a, b) => compareKeys(sortKeyOf(a, sortKey), sortKeyOf(b, sortKey)));
    }
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = normaliseValue(x, k, api, version, sym, o, depth + 1);
    return out;
  }
  return v;
}

/** An entry's sort key: '' the entry itself, "a+b+c" the fields a, b and c together, else one field. */
function sortKeyOf(e: Json, sortKey: string): Json | undefined {
  if (sortKey === '') return e;
  const entry = e as JsonObject | null;
  if (!sortKey.includes('+')) return entry?.[sortKey];
  return sortKey
    .split('+')
    .map((k) => JSON.stringify(entry?.[k] ?? null))
    .join(' ');
}

function compareKeys(a: Json | undefined, b: Json | undefined): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

export interface NormalisedTranscript extends Transcript {
  normalised: true;
  /** Raw captured values mapped to their normalised form (for `same(...)` matchers). */
  symbols: Record<string, Json>;
}

/** Applies the normalisations to every request and response of a transcript (a copy). */
export function normaliseTranscript(t: Transcript, options: Partial<NormaliseOptions> = {}): NormalisedTranscript {
  const ns = options.ns ?? t.ns ?? '';
  const o: NormaliseOptions = { ns, nodeId: options.nodeId, bootstrap: options.bootstrap, listenerPorts: options.listenerPorts };
  const sym = new Symbols();
  const events = t.events.map((e) => {
    const api = e.api ?? '';
    const version = e.version ?? 0;
    const n: TranscriptEvent = { ...e };
    if (e.request !== undefined) {
      n.request = normaliseRequest(e.request, api, version, sym, o);
    }
    if (e.response !== undefined) n.response = normaliseValue(e.response, '', api, version, sym, o, -1);
    return n;
  });
  const symbols: Record<string, Json> = {};
  for (const [k, v] of Object.entries(t.vars)) {
    symbols[k] = normaliseValue(typeof v === 'bigint' ? Number(v) : (v as Json), '', '', 0, sym, o, -1);
  }
  return { ...t, events, normalised: true, symbols };
}

function normaliseRequest(v: Json, api: string, version: number, sym: Symbols, o: NormaliseOptions): Json {
  // Requests only need ids and names replaced (and big byte blobs shortened).
  return normaliseValue(v, '', api, version, sym, o, -1);
}

// ---------------------------------------------------------------------------------------------
// Expectations

function describeExpect(e: ExpectValue | Expectation): string {
  if (e instanceof Matcher) return `<${e.describe}>`;
  return JSON.stringify(e, (_k, x) => (x instanceof Matcher ? `<${x.describe}>` : x));
}

function matchExpect(actual: Json | undefined, want: ExpectValue | undefined, env: MatchEnv, path: string): string[] {
  if (want === undefined) return [];
  if (want instanceof Matcher) {
    return want.test(actual ?? null, env) ? [] : [`${path || '.'}: expected ${want.describe}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== want.length) return [`${path}: expected ${want.length} elements, got ${actual.length}: ${JSON.stringify(actual)}`];
    return want.flatMap((w, i) => matchExpect(actual[i], w, env, `${path}[${i}]`));
  }
  if (want !== null && typeof want === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path || '.'}: expected an object, got ${JSON.stringify(actual)}`];
    }
    return Object.entries(want).flatMap(([k, w]) => matchExpect((actual as JsonObject)[k], w, env, path ? `${path}.${k}` : k));
  }
  return deepEqual(actual ?? null, want) ? [] : [`${path || '.'}: expected ${JSON.stringify(want)}, got ${JSON.stringify(actual)}`];
}

export interface ExpectationFailure {
  event: number;
  step: number;
  conn: string;
  what: string;
}

/** Checks each event's expectation (written in the scenario) against the normalised transcript. */
export function checkExpectations(t: NormalisedTranscript): ExpectationFailure[] {
  const env: MatchEnv = { symbolOf: (name) => t.symbols[name] };
  const out: ExpectationFailure[] = [];
  t.events.forEach((e, i) => {
    if (e.expect === undefined) return;
    const where = { event: i, step: e.sendStep ?? e.step, conn: e.conn };
    const label = `${e.api ?? ''}${e.version !== undefined ? ` v${e.version}` : ''}${e.label ? ` (${e.label})` : ''}`;
    if (e.expect === 'parked' || e.expect === 'closed' || e.expect === 'no-response' || e.expect === 'not-sent') {
      if (e.kind !== e.expect) {
        out.push({ ...where, what: `${label}: expected ${e.expect}, got ${e.kind}${e.response !== undefined ? ` ${JSON.stringify(e.response)}` : ''}` });
      }
      return;
    }
    if (e.kind !== 'response') {
      out.push({ ...where, what: `${label}: expected a response ${describeExpect(e.expect)}, got ${e.kind}${e.note ? ` (${e.note})` : ''}` });
      return;
    }
    for (const m of matchExpect(e.response, e.expect, env, '')) out.push({ ...where, what: `${label}: ${m}` });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparison

export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

export interface Difference {
  /** Index of the event in the transcripts. */
  event: number;
  step: number;
  conn: string;
  /** "API vN (label)" of the request, for the reader. */
  request: string;
  /** Field path inside the event ("kind", "response.members[1].memberId", ...). */
  path: string;
  a: Json | undefined;
  b: Json | undefined;
  /** Only an error message's text differs (both present): free text, reported but not failing. */
  messageOnly: boolean;
}

function diffJson(a: Json | undefined, b: Json | undefined, path: string, out: Array<{ path: string; a: Json | undefined; b: Json | undefined }>): void {
  if (a === undefined && b === undefined) return;
  if (a !== undefined && b !== undefined && deepEqual(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const key = listKey(a, b);
    if (key !== undefined) {
      // Entries named by a key (apiKey, name, …): an entry one side lacks is one difference at
      // its name, not a shift of every later position; an order that differs is one more.
      const byKey = (l: Json[]) => new Map(l.map((e) => [String((e as JsonObject)[key]), e]));
      const [ma, mb] = [byKey(a), byKey(b)];
      for (const k of new Set([...ma.keys(), ...mb.keys()])) diffJson(ma.get(k), mb.get(k), `${path}[${key}=${k}]`, out);
      const common = (m: Map<string, Json>, other: Map<string, Json>) => [...m.keys()].filter((k) => other.has(k));
      const [oa, ob] = [common(ma, mb), common(mb, ma)];
      if (oa.some((k, i) => k !== ob[i])) out.push({ path: `${path}(order by ${key})`, a: oa, b: ob });
      return;
    }
    const n = Math.max(a.length, b.length);
    if (a.length !== b.length) out.push({ path: `${path}.length`, a: a.length, b: b.length });
    for (let i = 0; i < n; i++) {
      if (i >= a.length || i >= b.length) {
        out.push({ path: `${path}[${i}]`, a: a[i], b: b[i] });
      } else diffJson(a[i], b[i], `${path}[${elementLabel(a[i], b[i]) ?? i}]`, out);
    }
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && a !== undefined && b !== undefined && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) diffJson(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  out.push({ path, a, b });
}

/** Keys that name an element of a list, shown in diff paths ("apiKeys[apiKey=0]"). */
const ELEMENT_KEYS = ['apiKey', 'name', 'topic', 'groupId', 'memberId', 'partitionIndex', 'index', 'partition', 'nodeId'];

/**
 * The key that names every entry of both lists, once per list (e.g. ApiVersions' apiKeys by
 * apiKey, configs by name), or undefined: then the lists are compared position by position.
 */
function listKey(a: Json[], b: Json[]): string | undefined {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every((e) => e !== null && typeof e === 'object' && !Array.isArray(e))) return undefined;
  return ELEMENT_KEYS.find((k) =>
    [a, b].every((l) => {
      const seen = new Set<string>();
      for (const e of l) {
        const v = (e as JsonObject)[k];
        if (typeof v !== 'string' && typeof v !== 'number') return false;
        if (seen.has(String(v))) return false;
        seen.add(String(v));
      }
      return true;
    }),
  );
}

function elementLabel(a: Json, b: Json): string | undefined {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return undefined;
  for (const k of ELEMENT_KEYS) {
    const va = a[k];
    if (va !== undefined && (typeof va === 'string' || typeof va === 'number') && deepEqual(va, b[k] ?? null)) return `${k}=${va}`;
  }
  return undefined;
}

function requestLabel(e: TranscriptEvent | undefined): string {
  if (e === undefined) return '(no event)';
  if (e.api === undefined) return `(${e.kind})`;
  return `${e.api} v${e.version}${e.label ? ` (${e.label})` : ''}`;
}

/** Field-by-field differences between two normalised transcripts of the same scenario. */
export function compareTranscripts(a: NormalisedTranscript, b: NormalisedTranscript): Difference[] {
  const out: Difference[] = [];
  const n = Math.max(a.events.length, b.events.length);
  for (let i = 0; i < n; i++) {
    const ea = a.events[i];
    const eb = b.events[i];
    const where = { event: i, step: (ea ?? eb).sendStep ?? (ea ?? eb).step, conn: (ea ?? eb).conn, request: requestLabel(ea ?? eb) };
    if (ea === undefined || eb === undefined) {
      out.push({ ...where, path: 'event', a: ea ? summary(ea) : undefined, b: eb ? summary(eb) : undefined, messageOnly: false });
      continue;
    }
    const raw: Array<{ path: string; a: Json | undefined; b: Json | undefined }> = [];
    if (ea.kind !== eb.kind) raw.push({ path: 'kind', a: ea.kind, b: eb.kind });
    if (ea.conn !== eb.conn || ea.api !== eb.api || ea.version !== eb.version) {
      raw.push({ path: 'request', a: requestLabel(ea), b: requestLabel(eb) });
    }
    if (ea.kind === 'not-sent' && eb.kind === 'not-sent' && ea.note !== eb.note) raw.push({ path: 'note', a: ea.note, b: eb.note });
    diffJson(ea.response, eb.response, 'response', raw);
    for (const d of raw) {
      const messageOnly = /errorMessage$/.test(d.path) && typeof d.a === 'string' && typeof d.b === 'string';
      out.push({ ...where, ...d, messageOnly });
    }
  }
  return out;
}

function summary(e: TranscriptEvent): Json {
  return { kind: e.kind, conn: e.conn, request: requestLabel(e), response: e.response ?? null };
}

/** A readable diff: per differing event, the request, then each differing field (a vs b). */
export function formatDiff(diffs: Difference[], a: NormalisedTranscript, b: NormalisedTranscript, names: [string, string] = [a.target, b.target]): string {
  if (diffs.length === 0) return 'no differences';
  const lines: string[] = [];
  const byEvent = new Map<number, Difference[]>();
  for (const d of diffs) byEvent.set(d.event, [...(byEvent.get(d.event) ?? []), d]);
  const w = Math.max(names[0].length, names[1].length);
  for (const [ev, ds] of byEvent) {
    const e = a.events[ev] ?? b.events[ev];
    lines.push(`event ${ev} (step ${ds[0].step}, conn ${ds[0].conn}): ${ds[0].request}`);
    if (e?.request !== undefined) lines.push(`  request: ${clip(JSON.stringify(e.request), 400)}`);
    for (const d of ds) {
      lines.push(`  ${d.path}${d.messageOnly ? ' (message text only)' : ''}`);
      lines.push(`    ${names[0].padEnd(w)}: ${clip(JSON.stringify(d.a), 300)}`);
      lines.push(`    ${names[1].padEnd(w)}: ${clip(JSON.stringify(d.b), 300)}`);
    }
  }
  return lines.join('\n');
}

function clip(s: string | undefined, n: number): string {
  if (s === undefined) return '(absent)';
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`;
}

/** A transcript as text, one event per line (for reports and failure output). */
export function formatTranscript(t: Transcript, max = 200): string {
  const lines = t.events.slice(0, max).map((e, i) => {
    const head = `${String(i).padStart(3)} s${String(e.sendStep ?? e.step).padStart(3)} ${e.t !== undefined ? `${String(e.t).padStart(5)}ms ` : ''}${e.conn.padEnd(6)} ${e.kind.padEnd(10)} ${requestLabel(e)}`;
    const req = e.request !== undefined ? `\n        > ${clip(JSON.stringify(e.request), 300)}` : '';
    const res = e.response !== undefined ? `\n        < ${clip(JSON.stringify(e.response), 500)}` : '';
    const note = e.note ? `\n        ! ${e.note}` : '';
    return head + req + res + note;
  });
  if (t.events.length > max) lines.push(`… ${t.events.length - max} more events`);
  if (t.error) lines.push(`runner error: ${t.error}`);
  return lines.join('\n');
}
