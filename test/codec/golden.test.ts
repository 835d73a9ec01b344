// Hand-built golden frames (test/support/golden.ts) decode to the expected bodies, and encoding
// those bodies gives back the same bytes: the codec agrees with the protocol, not just itself.
import { describe, expect, it } from 'vitest';
import {
  decodeConsumerProtocolAssignment,
  decodeConsumerProtocolSubscription,
  encodeConsumerProtocolAssignment,
  encodeConsumerProtocolSubscription,
  apiByKey,
} from '../../src/codec/generated/index.js';
import {
  decodeRequestFrame,
  decodeResponseFrame,
  encodeRequest,
  encodeResponse,
  encodeResponseChunks,
} from '../../src/codec/frame.js';
import { Reader } from '../../src/codec/primitives/index.js';
import { ASSIGNMENT_V0, GOLDEN, RECORDS_BLOB, SUBSCRIPTION_V0, SUBSCRIPTION_V1, SUBSCRIPTION_V3 } from '../support/golden.js';

describe('golden frames', () => {
  for (const g of GOLDEN) {
    describe(g.name, () => {
      const api = apiByKey(g.apiKey)!;
      const codec = g.kind === 'request' ? api.request : api.response;

      it('decodes the body to the expected message, consuming every byte', () => {
        const r = new Reader(g.body);
        expect(codec.decode(r, g.apiVersion)).toEqual(g.expected);
        expect(r.remaining).toBe(0);
      });

      it('encodes the expected message to the same body bytes', () => {
        expect(codec.size(g.expected, g.apiVersion)).toBe(g.body.length);
        expect(codec.encode(g.expected, g.apiVersion).toString('hex')).toBe(g.body.toString('hex'));
      });

      it('decodes and re-encodes the whole frame byte for byte', () => {
        if (g.kind === 'request') {
          const d = decodeRequestFrame(g.frame);
          expect(d.header).toEqual({ apiKey: g.apiKey, apiVersion: g.apiVersion, correlationId: g.correlationId, clientId: g.clientId });
          expect(d.body).toEqual(g.expected);
          expect(d.trailingBytes).toBe(0);
          const again = encodeRequest(
            { apiKey: g.apiKey as never, apiVersion: g.apiVersion, correlationId: g.correlationId, clientId: g.clientId },
            d.body as never,
          );
          expect(again.toString('hex')).toBe(g.frame.toString('hex'));
        } else {
          const d = decodeResponseFrame(g.frame, g.apiKey, g.apiVersion);
          expect(d.correlationId).toBe(g.correlationId);
          expect(d.body).toEqual(g.expected);
          expect(d.trailingBytes).toBe(0);
          const again = encodeResponse(g.apiKey as never, g.apiVersion, g.correlationId, d.body as never);
          expect(again.toString('hex')).toBe(g.frame.toString('hex'));
        }
      });
    });
  }
});

describe('records are zero-copy', () => {
  const fetch = GOLDEN.find((g) => g.name.startsWith('Fetch v12'))!;

  it('decodes records as a view into the frame, not a copy', () => {
    const d = decodeResponseFrame(fetch.frame, 1, 12);
    const records = (d.body as { responses: Array<{ partitions: Array<{ records: Buffer }> }> }).responses[0].partitions[0].records;
    expect(records.equals(RECORDS_BLOB)).toBe(true);
    expect(records.buffer).toBe(fetch.frame.buffer);
  });

  it('writes records as their own chunk, and a list of stored batches like their concatenation', () => {
    const body = structuredClone(fetch.expected) as { responses: Array<{ partitions: Array<{ records: unknown }> }> };
    const half = RECORDS_BLOB.length >> 1;
    const first = RECORDS_BLOB.subarray(0, half);
    const second = RECORDS_BLOB.subarray(half);
    body.responses[0].partitions[0].records = [first, second];
    const chunks = encodeResponseChunks(1, 12, fetch.correlationId, body as never);
    expect(chunks).toContain(first);
    expect(chunks).toContain(second);
    expect(Buffer.concat(chunks).toString('hex')).toBe(fetch.frame.toString('hex'));
  });
});

describe('consumer protocol payloads inside JoinGroup / SyncGroup', () => {
  // A consumer prefixes the struct with its int16 version (ConsumerProtocol.serialize...).
  const cases: Array<[string, Buffer, object]> = [
    ['subscription v0', SUBSCRIPTION_V0, { topics: ['orders', 'payments'], userData: null, ownedPartitions: [], generationId: -1, rackId: null }],
    [
      'subscription v1',
      SUBSCRIPTION_V1,
      { topics: ['orders'], userData: Buffer.from('ud'), ownedPartitions: [{ topic: 'orders', partitions: [0, 1] }], generationId: -1, rackId: null },
    ],
    ['subscription v3', SUBSCRIPTION_V3, { topics: ['orders'], userData: null, ownedPartitions: [], generationId: 5, rackId: 'rack-a' }],
  ];
  for (const [name, bytes, expected] of cases) {
    it(`${name} decodes and re-encodes`, () => {
      const version = bytes.readInt16BE(0);
      const m = decodeConsumerProtocolSubscription(bytes.subarray(2), version);
      expect(m).toEqual(expected);
      expect(encodeConsumerProtocolSubscription(m, version).equals(bytes.subarray(2))).toBe(true);
    });
  }

  it('assignment v0 decodes and re-encodes', () => {
    const m = decodeConsumerProtocolAssignment(ASSIGNMENT_V0.subarray(2), 0);
    expect(m).toEqual({ assignedPartitions: [{ topic: 'orders', partitions: [0, 1] }], userData: null });
    expect(encodeConsumerProtocolAssignment(m, 0).equals(ASSIGNMENT_V0.subarray(2))).toBe(true);
  });
});
