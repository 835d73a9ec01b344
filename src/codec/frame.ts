// Whole frames: int32 size, header, body. Which header version a frame uses depends on the API
// and its version (Kafka's ApiMessageType.requestHeaderVersion/responseHeaderVersion):
// flexible API versions use request header v2 and response header v1, others v1 and v0, and
// ApiVersions responses always use header v0 so that a client can read the error of a version
// it does not speak (KIP-511).
import { apiByKey, type ApiSpec, type ApiTypes } from './generated/index.js';
import { decodeRequestHeader, sizeRequestHeader, writeRequestHeader } from './generated/RequestHeader.js';
import { decodeResponseHeader, sizeResponseHeader, writeResponseHeader } from './generated/ResponseHeader.js';
import { DecodeError, Reader, UnsupportedVersionError, Writer, type SizeTally, type TaggedField } from './primitives/index.js';

const API_VERSIONS_KEY = 18;
const CONTROLLED_SHUTDOWN_KEY = 7;

/** The request header as the CLI and handlers see it. */
export interface RequestHeaderInfo {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** Null when the client sent a null client id (version 0 headers have none). */
  clientId: string | null;
  /** Tagged fields of a v2 header that this codec does not know (kept for byte-exact re-encoding). */
  unknownTaggedFields?: TaggedField[];
}

export function isFlexible(api: ApiSpec, version: number): boolean {
  return api.flexibleFrom >= 0 && version >= api.flexibleFrom;
}

export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === CONTROLLED_SHUTDOWN_KEY && apiVersion === 0) return 0;
  const api = apiByKey(apiKey);
  return api !== undefined && isFlexible(api, apiVersion) ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === API_VERSIONS_KEY) return 0;
  const api = apiByKey(apiKey);
  return api !== undefined && isFlexible(api, apiVersion) ? 1 : 0;
}

/** The first fields of every request header (v0+): enough to route or refuse a frame. */
export function peekRequestHeader(frame: Buffer): { apiKey: number; apiVersion: number; correlationId: number } {
  if (frame.length < 8) {
    const e = new DecodeError(`a request needs at least 8 header bytes, got ${frame.length}`);
    if (frame.length >= 4) {
      e.apiKey = frame.readInt16BE(0);
      e.apiVersion = frame.readInt16BE(2);
    }
    throw e;
  }
  return { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) };
}

/** Header decode errors name the API and version of the frame, not the header's own version. */
function inHeader<T>(name: string, apiKey: number, apiVersion: number, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof DecodeError) {
      e.path.unshift('header');
      throw e.locate(name, apiVersion, apiKey);
    }
    throw e;
  }
}

export interface DecodedRequest {
  header: RequestHeaderInfo;
  api: ApiSpec;
  body: unknown;
  /** Bytes left after the body (Kafka ignores them; tools may want to know). */
  trailingBytes: number;
}

/**
 * Decodes a request frame given WITHOUT its size prefix (as the server's framer delivers it).
 * Throws UnsupportedVersionError for an unknown API or version, DecodeError for bad bytes.
 */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const { apiKey, apiVersion } = peekRequestHeader(frame);
  const api = apiOrThrow(apiKey, apiVersion);
  const r = new Reader(frame);
  const h = inHeader(api.request.name, apiKey, apiVersion, () => decodeRequestHeader(r, requestHeaderVersion(apiKey, apiVersion)));
  const body = api.request.decode(r, apiVersion);
  const header: RequestHeaderInfo = { apiKey, apiVersion, correlationId: h.correlationId, clientId: h.clientId };
  if (h.unknownTaggedFields !== undefined) header.unknownTaggedFields = h.unknownTaggedFields;
  return {
    header,
    api,
    body,
    trailingBytes: r.remaining,
  };
}

/** Decodes a request frame that starts with its int32 size prefix (e.g. from a capture or the CLI). */
export function decodeRequestFrame(frame: Buffer): DecodedRequest {
  return decodeRequest(stripSizePrefix(frame));
}

function stripSizePrefix(frame: Buffer): Buffer {
  if (frame.length < 4) throw new DecodeError('a frame needs a 4-byte size prefix');
  const size = frame.readInt32BE(0);
  if (size < 0 || size !== frame.length - 4) {
    throw new DecodeError(`the size prefix says ${size} bytes but ${frame.length - 4} follow`);
  }
  return frame.subarray(4);
}

function apiOrThrow(apiKey: number, apiVersion: number): ApiSpec {
  const api = apiByKey(apiKey);
  if (api === undefined) throw new UnsupportedVersionError(`unknown API key ${apiKey}`);
  if (apiVersion < api.minVersion || apiVersion > api.maxVersion) {
    throw new UnsupportedVersionError(`${api.name} v${apiVersion} is not supported (valid: ${api.minVersion}-${api.maxVersion})`);
  }
  return api;
}

/** Encodes a whole request frame, size prefix included. */
export function encodeRequest<K extends keyof ApiTypes>(
  header: { apiKey: K; apiVersion: number; correlationId: number; clientId?: string | null; unknownTaggedFields?: TaggedField[] },
  body: ApiTypes[K]['request'],
): Buffer {
  const api = apiOrThrow(header.apiKey, header.apiVersion) as ApiSpec<ApiTypes[K]['request']>;
  const hv = requestHeaderVersion(header.apiKey, header.apiVersion);
  const h = {
    requestApiKey: header.apiKey,
    requestApiVersion: header.apiVersion,
    correlationId: header.correlationId,
    clientId: header.clientId === undefined ? null : header.clientId,
    unknownTaggedFields: header.unknownTaggedFields,
  };
  const tally: SizeTally = { zeroCopy: 0 };
  const size = sizeRequestHeader(h, hv) + api.request.size(body, header.apiVersion, tally);
  const w = new Writer(4 + size - tally.zeroCopy);
  w.int32(size);
  writeRequestHeader(w, h, hv);
  api.request.write(w, body, header.apiVersion);
  return w.finish();
}

/**
 * Encodes a whole response frame, size prefix included, as chunks ready for the socket:
 * `records` fields are referenced, not copied (one chunk when there are none).
 */
export function encodeResponseChunks<K extends keyof ApiTypes>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ApiTypes[K]['response'],
): Buffer[] {
  const api = apiOrThrow(apiKey, apiVersion) as ApiSpec<unknown, ApiTypes[K]['response']>;
  return encodeResponseWith(api, apiKey, apiVersion, apiVersion, correlationId, body);
}

/**
 * The ApiVersions error response for a version the broker does not speak: always written in
 * the v0 layout whatever the request's version (KIP-511).
 */
export function encodeResponseAtVersion(
  api: ApiSpec,
  headerApiVersion: number,
  bodyVersion: number,
  correlationId: number,
  body: unknown,
): Buffer[] {
  return encodeResponseWith(api, api.key, headerApiVersion, bodyVersion, correlationId, body);
}

function encodeResponseWith(
  api: ApiSpec,
  apiKey: number,
  headerApiVersion: number,
  bodyVersion: number,
  correlationId: number,
  body: unknown,
): Buffer[] {
  const hv = responseHeaderVersion(apiKey, headerApiVersion);
  const h = { correlationId };
  const tally: SizeTally = { zeroCopy: 0 };
  const size = sizeResponseHeader(h, hv) + api.response.size(body, bodyVersion, tally);
  const w = new Writer(4 + size - tally.zeroCopy);
  w.int32(size);
  writeResponseHeader(w, h, hv);
  api.response.write(w, body, bodyVersion);
  return w.finishChunks();
}

/** `encodeResponseChunks` joined into one buffer. */
export function encodeResponse<K extends keyof ApiTypes>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ApiTypes[K]['response'],
): Buffer {
  const chunks = encodeResponseChunks(apiKey, apiVersion, correlationId, body);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

export interface DecodedResponse {
  correlationId: number;
  body: unknown;
  trailingBytes: number;
}

/** Decodes a response frame WITHOUT its size prefix; the caller knows which request it answers. */
export function decodeResponse(frame: Buffer, apiKey: number, apiVersion: number): DecodedResponse {
  const api = apiOrThrow(apiKey, apiVersion);
  const r = new Reader(frame);
  const h = inHeader(api.response.name, apiKey, apiVersion, () => decodeResponseHeader(r, responseHeaderVersion(apiKey, apiVersion)));
  const body = api.response.decode(r, apiVersion);
  return { correlationId: h.correlationId, body, trailingBytes: r.remaining };
}

/** Decodes a response frame that starts with its int32 size prefix. */
export function decodeResponseFrame(frame: Buffer, apiKey: number, apiVersion: number): DecodedResponse {
  return decodeResponse(stripSizePrefix(frame), apiKey, apiVersion);
}
