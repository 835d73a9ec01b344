// Property: for every generated message at every valid version, a random valid value (built
// from the runtime schema) satisfies size === encoded length === bytes consumed by decode, and
// decode(encode(m)) deep-equals m. Whole frames and the JSON form are checked the same way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APIS, type ApiSpec } from '../../src/codec/generated/index.js';
import { decodeRequestFrame, decodeResponseFrame, encodeRequest, encodeResponse, encodeResponseChunks } from '../../src/codec/frame.js';
import { fromJson, toJson } from '../../src/codec/json.js';
import { Reader, type MessageCodec, type SizeTally } from '../../src/codec/primitives/index.js';
import { ALL_CODECS, arbitraryFor, stringArb, versionsOf } from '../support/arbitrary.js';

const RUNS = 30;

function checkRoundTrip(codec: MessageCodec<unknown>, v: number, m: unknown): void {
  const tally: SizeTally = { zeroCopy: 0 };
  const size = codec.size(m, v, tally);
  const buf = codec.encode(m, v);
  expect(buf.length).toBe(size);
  const r = new Reader(buf);
  const back = codec.decode(r, v);
  expect(r.pos).toBe(buf.length);
  expect(back).toEqual(m);
  // Decoding again from the re-encoded value gives the same bytes (idempotent encoding).
  expect(codec.encode(back, v).equals(buf)).toBe(true);
}

describe('every message x every version round-trips', () => {
  for (const codec of ALL_CODECS) {
    describe(codec.name, () => {
      for (const v of versionsOf(codec)) {
        it(`v${v}`, () => {
          fc.assert(
            fc.property(arbitraryFor(codec.schema, v), (m) => checkRoundTrip(codec, v, m)),
            { numRuns: RUNS },
          );
        });
      }
    });
  }
});

describe('coverage of the property tests', () => {
  it('has codecs for RequestHeader, ResponseHeader, both consumer-protocol structs and the coordinators\' records', () => {
    const names = ALL_CODECS.map((c) => c.name);
    const others = [
      'RequestHeader', 'ResponseHeader', 'ConsumerProtocolSubscription', 'ConsumerProtocolAssignment',
      'OffsetCommitKey', 'OffsetCommitValue', 'GroupMetadataKey', 'GroupMetadataValue', 'TransactionLogKey', 'TransactionLogValue',
    ];
    for (const n of others) {
      expect(names).toContain(n);
    }
    // Every API in the table is covered through its request and response codecs.
    for (const api of Object.values(APIS) as ApiSpec[]) {
      expect(names).toContain(api.request.name);
      expect(names).toContain(api.response.name);
    }
    expect(ALL_CODECS.length).toBe(2 * Object.keys(APIS).length + others.length);
  });

  it('the schema-derived arbitraries produce the interesting cases', () => {
    // FetchResponse v16 has nullable fields, tagged fields (nested and top level), records,
    // int64, uuids, and is flexible: sample it and check each feature shows up.
    const samples = fc.sample(arbitraryFor<Record<string, any>>(APIS[1].response.schema, 16), { numRuns: 300, seed: 42 });
    const parts = samples.flatMap((m) => m.responses.flatMap((t: any) => t.partitions));
    expect(samples.some((m) => m.unknownTaggedFields?.length > 0)).toBe(true);
    expect(parts.some((p) => p.unknownTaggedFields?.length > 0)).toBe(true);
    expect(parts.some((p) => p.abortedTransactions === null)).toBe(true);
    expect(parts.some((p) => p.records === null)).toBe(true);
    expect(parts.some((p) => Buffer.isBuffer(p.records) && p.records.length > 0)).toBe(true);
    expect(parts.some((p) => p.currentLeader.leaderId !== -1)).toBe(true); // a tagged struct set
    expect(parts.some((p) => p.currentLeader.leaderId === -1 && p.currentLeader.leaderEpoch === -1)).toBe(true); // left default
    expect(samples.some((m) => m.nodeEndpoints.length > 0)).toBe(true);
    expect(parts.some((p) => p.highWatermark > BigInt(Number.MAX_SAFE_INTEGER) || p.highWatermark < BigInt(Number.MIN_SAFE_INTEGER))).toBe(true);
    // Unknown tags are ascending and never reuse the partition's known tags 0-2.
    for (const p of parts) {
      const tags = (p.unknownTaggedFields ?? []).map((t: { tag: number }) => t.tag);
      expect(tags).toEqual([...tags].sort((a, b) => a - b));
      expect(new Set(tags).size).toBe(tags.length);
      expect(tags.filter((t: number) => t <= 2)).toEqual([]);
    }
    // Fields absent at a version keep their defaults: TopicId does not exist before v13.
    const v12 = fc.sample(arbitraryFor<Record<string, any>>(APIS[1].response.schema, 12), { numRuns: 100, seed: 1 });
    expect(v12.flatMap((m) => m.responses).every((t: any) => t.topicId === 'AAAAAAAAAAAAAAAAAAAAAA')).toBe(true);
    // Strings include multibyte UTF-8, and nullable strings include null only where allowed.
    const strings = fc.sample(stringArb, { numRuns: 300, seed: 7 });
    expect(strings.some((s) => Buffer.byteLength(s) > s.length)).toBe(true);
    const joins = fc.sample(arbitraryFor<Record<string, any>>(APIS[11].response.schema, 6), { numRuns: 200, seed: 3 });
    expect(joins.every((m) => m.protocolName !== null)).toBe(true); // nullable only from v7
    const joins7 = fc.sample(arbitraryFor<Record<string, any>>(APIS[11].response.schema, 7), { numRuns: 200, seed: 3 });
    expect(joins7.some((m) => m.protocolName === null)).toBe(true);
  });
});

describe('whole frames round-trip', () => {
  for (const api of Object.values(APIS) as ApiSpec[]) {
    it(`${api.name} requests and responses at every version`, () => {
      for (let v = api.minVersion; v <= api.maxVersion; v++) {
        fc.assert(
          fc.property(
            arbitraryFor(api.request.schema, v),
            arbitraryFor(api.response.schema, v),
            fc.integer({ min: -0x80000000, max: 0x7fffffff }),
            fc.option(stringArb, { nil: null }),
            (req, res, correlationId, clientId) => {
              const key = api.key as keyof typeof APIS;
              const frame = encodeRequest({ apiKey: key, apiVersion: v, correlationId, clientId }, req as never);
              expect(frame.readInt32BE(0)).toBe(frame.length - 4);
              const d = decodeRequestFrame(frame);
              expect(d.header).toEqual({ apiKey: api.key, apiVersion: v, correlationId, clientId });
              expect(d.body).toEqual(req);
              expect(d.trailingBytes).toBe(0);

              const out = encodeResponse(key, v, correlationId, res as never);
              expect(out.readInt32BE(0)).toBe(out.length - 4);
              const chunks = encodeResponseChunks(key, v, correlationId, res as never);
              expect(Buffer.concat(chunks).equals(out)).toBe(true);
              const dr = decodeResponseFrame(out, api.key, v);
              expect(dr.correlationId).toBe(correlationId);
              expect(dr.body).toEqual(res);
              expect(dr.trailingBytes).toBe(0);
            },
          ),
          { numRuns: 5 },
        );
      }
    });
  }
});

describe('the JSON form of float64 values JSON has no number for', () => {
  it('writes -0, NaN and the infinities as strings and reads them back (a property run found -0 lost)', () => {
    const codec = ALL_CODECS.find((c) => c.name === 'AlterClientQuotasRequest')!;
    for (const value of [-0, NaN, Infinity, -Infinity, 2.5]) {
      const m = { entries: [{ entity: [], ops: [{ key: 'k', value, remove: false }] }], validateOnly: false };
      const json = JSON.parse(JSON.stringify(toJson(codec.schema, m, 1)));
      expect(codec.encode(fromJson(codec.schema, json, 1), 1).equals(codec.encode(m, 1))).toBe(true);
    }
  });
});

describe('the JSON form round-trips', () => {
  for (const codec of ALL_CODECS) {
    it(`${codec.name} at every version: encode(fromJson(toJson(m))) === encode(m)`, () => {
      for (const v of versionsOf(codec)) {
        fc.assert(
          fc.property(arbitraryFor(codec.schema, v), (m) => {
            const json = JSON.parse(JSON.stringify(toJson(codec.schema, m as object, v)));
            const back = fromJson(codec.schema, json, v);
            expect(codec.encode(back, v).equals(codec.encode(m, v))).toBe(true);
          }),
          { numRuns: 5 },
        );
      }
    });
  }
});
