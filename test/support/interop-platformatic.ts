// Drives @platformatic/kafka 1.35.0's per-API writers and parsers (dist/apis/**) as an independent
// peer. Frames are built exactly as its Connection.send does (int32 size, api key, version,
// correlation id, int16 client id, an empty header tag section when the API says so, payload);
// responses are split as its Connection does (size, correlation id, one skipped header tag byte
// when the API says so) and handed to the API's parseResponse with a Reader over the body.
import { expect } from 'vitest';
import { Reader, Writer } from '@platformatic/kafka';
import { decodeRequestFrame, encodeResponse, type ApiTypes, type DecodedRequest } from '../../src/codec/index.js';

export const PLT_CLIENT_ID = 'platformatic-interop';

interface PltApi {
  key: number;
  version: number;
}

/** A whole request frame as platformatic's Connection would put on the wire. */
export function platformaticFrame(api: PltApi, payload: Writer, correlationId: number, hasRequestHeaderTaggedFields = true): Buffer {
  const w = Writer.create();
  w.appendInt16(api.key).appendInt16(api.version).appendInt32(correlationId).appendString(PLT_CLIENT_ID, false);
  if (hasRequestHeaderTaggedFields) w.appendTaggedFields();
  w.appendFrom(payload).prependLength();
  return w.buffer;
}

/** Frames `payload` like platformatic, decodes it with ours, checks header and leftovers. */
export function platformaticRequestDecodedByUs(api: PltApi, payload: Writer, correlationId = 31337): DecodedRequest['body'] {
  const frame = platformaticFrame(api, payload, correlationId);
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  const d = decodeRequestFrame(frame);
  expect(d.header).toEqual({ apiKey: api.key, apiVersion: api.version, correlationId, clientId: PLT_CLIENT_ID });
  expect(d.trailingBytes).toBe(0);
  return d.body;
}

export type PltParser<T> = (correlationId: number, apiKey: number, apiVersion: number, reader: Reader) => T;

/**
 * Encodes a response with ours and parses it with platformatic's parseResponse. platformatic
 * never reads the top-level tag section of a body, so what is left must be exactly that section,
 * and it must be empty (one 0x00 byte).
 */
export function ourResponseParsedByPlatformatic<K extends keyof ApiTypes, T>(
  apiKey: K,
  version: number,
  body: ApiTypes[K]['response'],
  parse: PltParser<T>,
  hasResponseHeaderTaggedFields = true,
  correlationId = 99,
): { parsed: T; leftover: Buffer } {
  const frame = encodeResponse(apiKey, version, correlationId, body);
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  expect(frame.readInt32BE(4)).toBe(correlationId);
  let offset = 8;
  if (hasResponseHeaderTaggedFields) {
    expect(frame[offset], 'response header tag section').toBe(0);
    offset += 1;
  }
  const reader = Reader.from(frame.subarray(offset));
  const parsed = parse(correlationId, apiKey, version, reader);
  const leftover = frame.subarray(offset + reader.position);
  return { parsed, leftover };
}

/** Our 22-character base64url uuid as platformatic's dashed hex. */
export function uuidToHex(id: string): string {
  return Buffer.from(id, 'base64url').toString('hex').replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5');
}
