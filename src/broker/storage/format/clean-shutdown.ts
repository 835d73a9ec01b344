// The log dir's `.kafka_cleanshutdown` (storage/.../checkpoint/CleanShutdownFileHandler.java):
// written last when a broker stops cleanly, deleted when the log dir is loaded. Its presence lets
// LogManager skip recovery (segments past the recovery point are trusted, no .log is rescanned).
// Kafka 3.9 writes JSON with the broker epoch (KIP-966): {"version":0,"brokerEpoch":6}.

import { fail, ok, type Decoded, type DecodeFileOptions } from './result.js';

/** CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME. */
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** The file's text, as Kafka writes it (`brokerEpoch`: the broker's epoch, -1 when it has none). */
export function encodeCleanShutdown(brokerEpoch: number): string {
  if (!Number.isSafeInteger(brokerEpoch)) throw new RangeError(`broker epoch ${brokerEpoch} is not a safe integer`);
  return JSON.stringify({ version: 0, brokerEpoch });
}

/**
 * The broker epoch in the file. Kafka reads it leniently (unknown fields ignored; any failure just
 * means "no epoch", the shutdown still counts as clean since the file exists); this answers an
 * error instead, and the caller may treat that as Kafka does.
 */
export function decodeCleanShutdown(input: string | Buffer, options?: DecodeFileOptions): Decoded<{ version: number; brokerEpoch: number }> {
  const file = options?.file ?? CLEAN_SHUTDOWN_FILE;
  let v: unknown;
  try {
    v = JSON.parse(typeof input === 'string' ? input : input.toString('utf8'));
  } catch (e) {
    return fail(file, `is not JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null) return fail(file, 'is not a JSON object');
  const o = v as Record<string, unknown>;
  const version = typeof o.version === 'number' ? o.version : 0;
  if (typeof o.brokerEpoch !== 'number' || !Number.isSafeInteger(o.brokerEpoch)) return fail(file, 'has no integer brokerEpoch');
  return ok({ version, brokerEpoch: o.brokerEpoch });
}
