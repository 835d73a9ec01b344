// A real Apache Kafka to compare kmock with, for conformance tests. Wraps scripts/kafka-reference
// (which fetches Kafka's jars from Maven Central into ${KMOCK_CACHE:-~/.cache/kmock}, formats KRaft
// storage in a temp dir and starts one broker+controller on 127.0.0.1).
//
// When Java, Maven or the artifacts are not there, startReferenceKafka answers null and
// referenceUnavailableReason says why (startReferenceKafkaOrReason answers both at once), so a
// test can skip and say why. Environment:
//   KMOCK_REFERENCE=off       never use a reference Kafka (everything skips)
//   KMOCK_REFERENCE=require   unavailability is an error, not a skip (for CI, where it must run)
//   KMOCK_KAFKA_VERSION       the reference release (default 3.9.1: kmock answers as Kafka 3.9)
//   KMOCK_KAFKA_4X_VERSIONS   4.x releases compared for information (default 4.0.0,4.4.0)
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REFERENCE_VERSION = process.env.KMOCK_KAFKA_VERSION ?? '3.9.1';
export const REFERENCE_4X_VERSIONS = (process.env.KMOCK_KAFKA_4X_VERSIONS ?? '4.0.0,4.4.0')
  .split(',')
  .map((v) => v.trim())
  .filter((v) => v !== '');

export const SCRIPT = fileURLToPath(new URL('../../../scripts/kafka-reference', import.meta.url));

/** Exit code of scripts/kafka-reference for "not available here" (no java, no mvn, no artifact). */
const UNAVAILABLE = 3;

export interface ReferenceKafka {
  /** "127.0.0.1:port", for a client's bootstrap servers. */
  bootstrapServers: string;
  host: string;
  port: number;
  /** The Kafka release running, e.g. "3.9.1". */
  version: string;
  pid: number;
  /** The temp dir with server.properties, data/, kafka.log and stdout.log (removed by stop). */
  dir: string;
  /** The extra listeners (`StartOptions.listeners`), by name. */
  listeners?: Array<{ name: string; host: string; port: number; bootstrapServers: string }>;
  /** SIGTERM, SIGKILL after a timeout, temp dir removed. Safe to call twice. */
  stop(): Promise<void>;
}

export type Available<T> = T & { reason?: undefined };
export interface Unavailable {
  reason: string;
}

export interface StartOptions {
  version?: string;
  /** Broker settings by Kafka's names, e.g. { 'group.initial.rebalance.delay.ms': 0 }. */
  settings?: Record<string, string | number | boolean>;
  /** How long Kafka may take to answer (default 120 s). */
  timeoutMs?: number;
  /** Extra listeners ("NAME:PROTOCOL"), each on a free port after PLAINTEXT (`start --listener`). */
  listeners?: string[];
  /** SCRAM credentials written at format time ("SCRAM-SHA-256=[name=a,password=b]", `start --add-scram`). */
  addScram?: string[];
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], timeoutMs = 600_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(SCRIPT, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').replace(/^kafka-reference: (unavailable: )?/, '');
}

/** Turns "not available" into the caller's choice: a reason to skip, or (KMOCK_REFERENCE=require) an error. */
function unavailable(reason: string): Unavailable {
  if (process.env.KMOCK_REFERENCE === 'require') {
    throw new Error(`reference Kafka required (KMOCK_REFERENCE=require) but unavailable: ${reason}`);
  }
  return { reason };
}

function disabled(): Unavailable | undefined {
  if (process.env.KMOCK_REFERENCE === 'off') return { reason: 'KMOCK_REFERENCE=off' };
  return undefined;
}

const memo = new Map<string, Promise<unknown>>();
function once<T>(key: string, f: () => Promise<T>): Promise<T> {
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = f();
    memo.set(key, p);
  }
  return p;
}

async function scriptCall(args: string[], what: string): Promise<Available<{ path: string }> | Unavailable> {
  const off = disabled();
  if (off) return off;
  const r = await run(args);
  if (r.code === 0) return { path: r.stdout.trim().split('\n').pop() ?? '' };
  if (r.code === UNAVAILABLE || r.code === 127) return unavailable(lastLine(r.stderr) || `${what}: unavailable`);
  throw new Error(`scripts/kafka-reference ${args.join(' ')} failed (exit ${r.code}):\n${r.stderr}`);
}

/** The dir holding Kafka VERSION's jars (fetched once, then cached). */
export function fetchReference(version = REFERENCE_VERSION): Promise<Available<{ libs: string }> | Unavailable> {
  return once(`fetch:${version}`, async () => {
    const r = await scriptCall(['fetch', version], `Kafka ${version}`);
    return r.reason === undefined ? { libs: r.path } : r;
  });
}

/** The dir holding Kafka VERSION's message specs (common/message/*.json of kafka-clients). */
export function referenceSpecs(version = REFERENCE_VERSION): Promise<Available<{ dir: string }> | Unavailable> {
  return once(`specs:${version}`, async () => {
    const r = await scriptCall(['specs', version], `kafka-clients ${version}`);
    return r.reason === undefined ? { dir: r.path } : r;
  });
}

const running = new Set<ReferenceKafka>();
let exitHook = false;

const reasons = new Map<string, string>();

/**
 * Why no reference Kafka VERSION can be had here (no Java, no Maven, no artifact, or
 * KMOCK_REFERENCE=off), or undefined when it can. Fetches the jars if they are not cached yet.
 */
export async function referenceUnavailableReason(version = REFERENCE_VERSION): Promise<string | undefined> {
  const off = disabled();
  if (off) return off.reason;
  const known = reasons.get(version);
  if (known !== undefined) return known;
  const fetched = await fetchReference(version);
  return fetched.reason;
}

/**
 * Starts Kafka VERSION (default REFERENCE_VERSION) with kmock's default settings plus `settings`
 * on 127.0.0.1 and a free port; resolves once it answers ApiVersions and lists itself in Metadata.
 * Resolves to null when Java, Maven or the artifacts are not here (the reason: from
 * referenceUnavailableReason, or use startReferenceKafkaOrReason). A Kafka that could be had but
 * failed to start is an error. Stop it with stop(); if the test process exits first, Kafka is
 * killed and its temp dir removed all the same.
 */
export async function startReferenceKafka(opts: StartOptions = {}): Promise<ReferenceKafka | null> {
  const r = await startReferenceKafkaOrReason(opts);
  return r.kafka;
}

/** startReferenceKafka, answering `{ kafka }` or `{ kafka: null, reason }`. */
export async function startReferenceKafkaOrReason(
  opts: StartOptions = {},
): Promise<{ kafka: ReferenceKafka; reason?: undefined } | { kafka: null; reason: string }> {
  const version = opts.version ?? REFERENCE_VERSION;
  const off = disabled();
  if (off) return { kafka: null, reason: off.reason };
  const fetched = await fetchReference(version);
  if (fetched.reason !== undefined) return { kafka: null, reason: fetched.reason };

  const args = ['start', version, '--owner-pid', String(process.pid)];
  if (opts.timeoutMs !== undefined) args.push('--timeout', String(Math.ceil(opts.timeoutMs / 1000)));
  for (const [k, v] of Object.entries(opts.settings ?? {})) args.push('--set', `${k}=${String(v)}`);
  for (const l of opts.listeners ?? []) args.push('--listener', l);
  for (const a of opts.addScram ?? []) args.push('--add-scram', a);
  const r = await run(args, (opts.timeoutMs ?? 120_000) + 60_000);
  if (r.code === UNAVAILABLE) {
    const u = unavailable(lastLine(r.stderr));
    reasons.set(version, u.reason);
    return { kafka: null, reason: u.reason };
  }
  if (r.code !== 0) throw new Error(`starting reference Kafka ${version} failed (exit ${r.code}):\n${r.stderr}`);

  const listening = /^listening on (\S+):(\d+)$/m.exec(r.stdout);
  const pid = /^pid (\d+)$/m.exec(r.stdout);
  const dir = /^dir (.+)$/m.exec(r.stdout);
  if (!listening || !pid || !dir) throw new Error(`unexpected output from scripts/kafka-reference start:\n${r.stdout}`);

  let stopping: Promise<void> | undefined;
  const kafka: ReferenceKafka = {
    host: listening[1],
    port: Number(listening[2]),
    bootstrapServers: `${listening[1]}:${listening[2]}`,
    version,
    pid: Number(pid[1]),
    dir: dir[1],
    listeners: [...r.stdout.matchAll(/^listener (\S+) (\S+):(\d+)$/gm)].map((m) => ({
      name: m[1],
      host: m[2],
      port: Number(m[3]),
      bootstrapServers: `${m[2]}:${m[3]}`,
    })),
    stop() {
      stopping ??= run(['stop', '--dir', kafka.dir, '--quiet'], 60_000).then((s) => {
        running.delete(kafka);
        if (s.code !== 0) throw new Error(`stopping reference Kafka failed (exit ${s.code}):\n${s.stderr}`);
      });
      return stopping;
    },
  };
  running.add(kafka);
  if (!exitHook) {
    exitHook = true;
    // A test process leaving without stop(): kill Kafka now; the watchdog that `start
    // --owner-pid` left behind then removes the temp dir.
    process.once('exit', () => {
      for (const k of running) {
        try {
          process.kill(k.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
  return { kafka };
}
