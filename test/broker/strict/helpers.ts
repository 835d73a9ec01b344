// Helpers for the strict-clients tests: two brokers alike but for strict mode, so that every
// deliberately wrong request can be sent to both and the answers compared byte for byte (strict
// mode only observes), and raw frames bent in the ways a faulty client bends them.
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { encodeRequest, type ApiTypes } from '../../../src/codec/index.js';
import { RawClient } from '../../support/raw-client.js';

export interface Twins {
  strict: Kmock;
  plain: Kmock;
  close(): Promise<void>;
}

/** A broker with strict-clients mode on and one with it off, otherwise configured alike. */
export async function strictAndPlain(options: KmockOptions = {}): Promise<Twins> {
  const [strict, plain] = await Promise.all([startKmock({ ...options, strictClients: true }), startKmock({ ...options, strictClients: false })]);
  return { strict, plain, close: async () => void (await Promise.all([strict.close(), plain.close()])) };
}

/** A connection to each twin, as [strict, plain]. */
export async function connectBoth(t: Twins, clientId = 'kmock-raw-client'): Promise<[RawClient, RawClient]> {
  const pair = await Promise.all([RawClient.connect(t.strict.bootstrapServers), RawClient.connect(t.plain.bootstrapServers)]);
  for (const c of pair) c.clientId = clientId;
  return pair;
}

/** What the broker does with one raw frame: its answer (without the size prefix), or "closed". */
export async function answerTo(c: RawClient, frame: Buffer, timeoutMs = 3000): Promise<Buffer | 'closed'> {
  c.sendRaw(frame);
  const answer = c.nextFrame(timeoutMs).catch((e: Error) => (c.isClosed ? ('closed' as const) : Promise.reject(e)));
  return answer;
}

/** A whole request frame (size prefix included), encoded by kmock's codec. */
export function frameOf<K extends keyof ApiTypes>(apiKey: K, apiVersion: number, correlationId: number, body: ApiTypes[K]['request'], clientId = 'kmock-raw-client'): Buffer {
  return encodeRequest({ apiKey, apiVersion, correlationId, clientId }, body);
}

/** `frame` with `extra` bytes after its body, the size prefix fixed to include them. */
export function withTrailing(frame: Buffer, extra: Buffer): Buffer {
  const out = Buffer.concat([frame, extra]);
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

/** `frame` with its header's API version replaced (the body stays as it was encoded). */
export function withVersion(frame: Buffer, apiVersion: number): Buffer {
  const out = Buffer.from(frame);
  out.writeInt16BE(apiVersion, 6);
  return out;
}

/** Replaces each of `ids` (e.g. member ids, which carry a random UUID) by a same-length placeholder. */
export function masked(frame: Buffer | 'closed', ids: readonly string[]): Buffer | 'closed' {
  if (frame === 'closed') return frame;
  let text = frame.toString('latin1');
  for (const id of ids) text = text.split(id).join('#'.repeat(id.length));
  return Buffer.from(text, 'latin1');
}
