// Runs Wireshark's Kafka dissector (tshark) over a pcap and gives the tests its field values.
import { spawnSync } from 'node:child_process';

/** `tshark -v` first line, or null when tshark is not installed. */
export function tsharkVersion(): string | null {
  const r = spawnSync('tshark', ['-v'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) return null;
  return r.stdout.split('\n')[0].trim();
}

/**
 * The port preference of the Kafka dissector. Wireshark 3.x/4.x register Kafka with
 * dissector_add_uint_range_with_preference("tcp.port", "9092", ...), which creates the range
 * preference "kafka.tcp.ports" (9092 is also its default; we set it anyway so a user profile
 * cannot move it).
 */
export const KAFKA_PORT_PREF = 'kafka.tcp.ports:9092';

export type JsonTree = { [k: string]: JsonValue };
export type JsonValue = string | JsonTree | JsonValue[];

export interface DissectedFrame {
  /** All protocol layers of the frame (frame, eth, ip, tcp, kafka, _ws.malformed, ...). */
  layers: JsonTree;
  /** The kafka layer, or undefined when the dissector did not run on the frame. */
  kafka: JsonTree | undefined;
}

/** Dissects a pcap file; frames by 1-based frame number. */
export function dissect(pcapPath: string): Map<number, DissectedFrame> {
  const r = spawnSync('tshark', ['-n', '-r', pcapPath, '-o', KAFKA_PORT_PREF, '-T', 'json', '--no-duplicate-keys'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error !== undefined) throw r.error;
  if (r.status !== 0) throw new Error(`tshark exited with ${r.status}: ${r.stderr}`);
  const packets = JSON.parse(r.stdout) as { _source: { layers: JsonTree } }[];
  const out = new Map<number, DissectedFrame>();
  for (const p of packets) {
    const layers = p._source.layers;
    const frame = layers.frame as JsonTree;
    const kafka = layers.kafka;
    out.set(Number(frame['frame.number']), { layers, kafka: kafka === undefined || typeof kafka === 'string' || Array.isArray(kafka) ? undefined : kafka });
  }
  return out;
}

/** Every value of `field` anywhere under `tree`, depth first, in document order. */
export function values(tree: JsonValue | undefined, field: string): string[] {
  const out: string[] = [];
  const walk = (node: JsonValue | undefined, key: string | null): void => {
    if (node === undefined) return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n, key);
    } else if (typeof node === 'string') {
      if (key === field) out.push(node);
    } else {
      for (const [k, v] of Object.entries(node)) walk(v, k);
    }
  };
  walk(tree, null);
  return out;
}

/** Whether `key` occurs anywhere under `tree`. */
export function hasKey(tree: JsonValue | undefined, key: string): boolean {
  if (tree === undefined || typeof tree === 'string') return false;
  if (Array.isArray(tree)) return tree.some((n) => hasKey(n, key));
  return Object.entries(tree).some(([k, v]) => k === key || hasKey(v, key));
}

/** Wireshark's rendering of bytes fields: colon-separated lower-case hex. */
export function wiresharkHex(b: Buffer): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

/** The expert-info fields raised under `tree` (e.g. kafka.pdu_length_mismatch), in document order. */
export function expertFields(tree: JsonValue | undefined): string[] {
  const out: string[] = [];
  const walk = (node: JsonValue | undefined): void => {
    if (node === undefined || typeof node === 'string') return;
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === '_ws.expert') {
        for (const e of Array.isArray(v) ? v : [v]) {
          if (typeof e === 'object' && !Array.isArray(e)) out.push(...Object.keys(e).filter((f) => !f.startsWith('_ws.expert')));
        }
      }
      walk(v);
    }
  };
  walk(tree);
  return out;
}
