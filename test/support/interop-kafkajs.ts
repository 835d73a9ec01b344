// Drives kafkajs 2.2.4's own protocol modules (node_modules/kafkajs/src/protocol/...) as an
// independent peer for the interop tests: kafkajs encodes whole request frames with its
// `request.js` (int32 size + request header v1 + body), and decodes response bodies with the
// per-version `response.js` `decode` + `parse`, exactly as its network layer does.
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { encodeResponse, decodeRequestFrame, type ApiTypes, type DecodedRequest } from '../../src/codec/index.js';

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Kjs = any;

export interface KjsRequest {
  apiKey: number;
  apiVersion: number;
  apiName: string;
  encode: () => Promise<{ buffer: Buffer }>;
}

export interface KjsResponse {
  decode: (raw: Buffer) => Promise<Kjs>;
  parse: (data: Kjs) => Promise<Kjs>;
}

/** kafkajs's frame builder: `({correlationId, clientId, request}) => Encoder` (size + header v1 + body). */
const kjsFrame: (o: { correlationId: number; clientId: string; request: KjsRequest }) => Promise<{ buffer: Buffer }> =
  require('kafkajs/src/protocol/request.js');

export const KjsEncoder: Kjs = require('kafkajs/src/protocol/encoder.js');
export const KjsDecoder: Kjs = require('kafkajs/src/protocol/decoder.js');
export const kjsErrors: Kjs = require('kafkajs/src/errors.js');
export const kjsAssignerProtocol: Kjs = require('kafkajs/src/consumer/assignerProtocol.js');
export const KjsRecordBatch: Kjs = require('kafkajs/src/protocol/recordBatch/v0/index.js').RecordBatch;
export const KjsRecord: Kjs = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
export const KjsMessageSet: Kjs = require('kafkajs/src/protocol/messageSet/index.js');
export const kjsDecodeMessages: (decoder: Kjs) => Promise<Kjs[]> = require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js');
export const kjsMessageSetDecoder: (decoder: Kjs) => Promise<Kjs[]> = require('kafkajs/src/protocol/messageSet/decoder.js');

/** A kafkajs request or response module, e.g. `kjsModule('joinGroup', 5, 'request')`. */
export function kjsModule(api: string, version: number, kind: 'request' | 'response'): Kjs {
  return require(`kafkajs/src/protocol/requests/${api}/v${version}/${kind}.js`);
}

// Every kafkajs Decoder that reads anything is recorded, so a test can check that the top-level
// decoder consumed the whole body: kafkajs itself ignores trailing bytes, which would hide a body
// that we wrote too long.
const touched = new Set<Kjs>();
for (const name of Object.getOwnPropertyNames(KjsDecoder.prototype)) {
  const orig = KjsDecoder.prototype[name];
  if (name === 'constructor' || typeof orig !== 'function') continue;
  KjsDecoder.prototype[name] = function (this: Kjs, ...args: unknown[]) {
    touched.add(this);
    return orig.apply(this, args);
  };
}

export const KJS_CLIENT_ID = 'kafkajs-interop';

/**
 * Encodes `request` with kafkajs (whole frame, size prefix included), decodes it with ours and
 * checks the header and that nothing is left over; returns our decoded body.
 */
export async function kafkajsRequestDecodedByUs(request: KjsRequest, apiKey: number, version: number, correlationId = 4242): Promise<DecodedRequest['body']> {
  expect(request.apiKey).toBe(apiKey);
  expect(request.apiVersion).toBe(version);
  const frame = (await kjsFrame({ correlationId, clientId: KJS_CLIENT_ID, request })).buffer;
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  const d = decodeRequestFrame(frame);
  expect(d.header).toEqual({ apiKey, apiVersion: version, correlationId, clientId: KJS_CLIENT_ID });
  expect(d.trailingBytes).toBe(0);
  return d.body;
}

/** The body of a kafkajs-encoded request (no frame), for byte comparisons. */
export async function kafkajsBody(request: KjsRequest): Promise<Buffer> {
  return Buffer.from((await request.encode()).buffer);
}

/**
 * Encodes a response frame with ours, splits it as kafkajs's Connection does (int32 size, int32
 * correlation id, payload), and decodes the payload with kafkajs's `decode`. Checks that kafkajs's
 * top-level decoder consumed every byte. `parse` is returned unevaluated (it throws on errors).
 */
export async function ourResponseDecodedByKafkajs<K extends keyof ApiTypes>(
  apiKey: K,
  version: number,
  body: ApiTypes[K]['response'],
  response: KjsResponse,
  correlationId = 777,
): Promise<{ decoded: Kjs; parse: () => Promise<Kjs>; payload: Buffer }> {
  const frame = encodeResponse(apiKey, version, correlationId, body);
  const d = new KjsDecoder(frame);
  expect(d.readInt32()).toBe(frame.length - 4);
  expect(d.readInt32()).toBe(correlationId);
  const payload: Buffer = d.readAll();
  const decoded = await kafkajsDecodeAll(response, payload);
  return { decoded, parse: () => response.parse(decoded), payload };
}

/** kafkajs `decode(payload)`, asserting that its top-level decoder read the payload to the end. */
export async function kafkajsDecodeAll(response: KjsResponse, payload: Buffer): Promise<Kjs> {
  touched.clear();
  const decoded = await response.decode(payload);
  const top = [...touched].find((dec) => dec.buffer === payload);
  if (payload.length > 0) {
    expect(top, 'kafkajs read nothing from the payload').toBeDefined();
    expect(top.offset, `kafkajs stopped at ${top.offset} of ${payload.length} bytes`).toBe(payload.length);
  }
  return decoded;
}

/** int32 size + bytes, the framing kafkajs's record decoders expect in front of a record set. */
export function kjsSized(records: Buffer): Kjs {
  const len = Buffer.alloc(4);
  len.writeInt32BE(records.length);
  return new KjsDecoder(Buffer.concat([len, records]));
}

/**
 * The inputs of kafkajs's own JoinGroup v5 spec, written down in our notes
 * (kafkajs's own JoinGroup v5 request test, src/protocol/requests/joinGroup/v5 in the kafkajs repository) as the equivalent v6 body.
 */
const KAFKAJS_V5_SPEC_INPUTS_AS_V6 =
  '52636f6e73756d65722d67726f75702d69642d62353232313838613361313261316630346366622d32333730322d65316666333563372d666465392d346435382d393630612d326365663861663737656566000075300000ea60011267726f75702d696e7374616e63652d696409636f6e73756d6572020d41737369676e65724e616d6557000100000001004a746573742d746f7069632d36643235666165306239363365363835343762382d32333730322d66616664663931642d656434302d346632312d383238312d643761626230643962646439000000000000';

/**
 * kafkajs's JoinGroup v5 golden request body (230 bytes), built here by kafkajs's own v5 encoder
 * from its spec's inputs, so no fixture file from elsewhere is needed.
 */
export async function kafkajsJoinGroupV5GoldenBody(): Promise<Buffer> {
  const { decodeJoinGroupRequest } = await import('../../src/codec/index.js');
  const m = decodeJoinGroupRequest(Buffer.from(KAFKAJS_V5_SPEC_INPUTS_AS_V6, 'hex'), 6);
  const request = kjsModule('joinGroup', 5, 'request')({
    groupId: m.groupId,
    sessionTimeout: m.sessionTimeoutMs,
    rebalanceTimeout: m.rebalanceTimeoutMs,
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    protocolType: m.protocolType,
    groupProtocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
  });
  return kafkajsBody(request);
}
