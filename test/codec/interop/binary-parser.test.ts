// An independent JoinGroup v5 request decoder written with binary-parser 2.3.0 (declarative, no
// code shared with our generator), used as a cross-check: random valid v5 requests that we encode
// must decode with it to exactly the fields we encoded, and it must stop exactly at the end.
//
// JoinGroup Request v5 (non-flexible):
//   group_id STRING, session_timeout_ms INT32, rebalance_timeout_ms INT32, member_id STRING,
//   group_instance_id NULLABLE_STRING, protocol_type STRING,
//   protocols ARRAY(int32 count) of { name STRING, metadata BYTES(int32 length) }
// The package's "exports" hide its typings from the ESM entry under NodeNext; its CommonJS build
// (same code, typed) is reachable through the "./*" export.
import { Parser } from 'binary-parser/dist/binary_parser.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as c from '../../../src/codec/index.js';
import { kafkajsJoinGroupV5GoldenBody } from '../../support/interop-kafkajs.js';

const nonNegative = (n: string | number): boolean => Number(n) >= 0;

// STRING: int16 length + UTF-8. NULLABLE_STRING: the same, -1 meaning null. binary-parser cannot
// take a negative length (it would move its offset backwards), so the length is clamped to 0 and
// the -1 is turned into null after parsing.
const protocolParser = new Parser()
  .int16be('nameLength', { assert: nonNegative })
  .string('name', { length: 'nameLength', encoding: 'utf8' })
  .int32be('metadataLength', { assert: nonNegative })
  .buffer('metadata', { length: 'metadataLength' });

const joinGroupV5Parser = new Parser()
  .int16be('groupIdLength', { assert: nonNegative })
  .string('groupId', { length: 'groupIdLength', encoding: 'utf8' })
  .int32be('sessionTimeoutMs')
  .int32be('rebalanceTimeoutMs')
  .int16be('memberIdLength', { assert: nonNegative })
  .string('memberId', { length: 'memberIdLength', encoding: 'utf8' })
  .int16be('groupInstanceIdLength', { assert: (n: string | number) => Number(n) >= -1 })
  .string('groupInstanceId', {
    length: function (this: { groupInstanceIdLength: number }) {
      return Math.max(this.groupInstanceIdLength, 0);
    },
    encoding: 'utf8',
  })
  .int16be('protocolTypeLength', { assert: nonNegative })
  .string('protocolType', { length: 'protocolTypeLength', encoding: 'utf8' })
  .int32be('protocolCount', { assert: nonNegative })
  .array('protocols', { type: protocolParser, length: 'protocolCount' })
  .saveOffset('end');

interface ParsedV5 {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceIdLength: number;
  groupInstanceId: string;
  protocolType: string;
  protocols: { name: string; metadata: Buffer }[];
  end: number;
}

/** binary-parser's view of a v5 body, in our field names; throws if it does not end at the end. */
function decodeWithBinaryParser(body: Buffer) {
  const p = joinGroupV5Parser.parse(body) as ParsedV5;
  if (p.end !== body.length) throw new Error(`binary-parser stopped at ${p.end} of ${body.length} bytes`);
  return {
    groupId: p.groupId,
    sessionTimeoutMs: p.sessionTimeoutMs,
    rebalanceTimeoutMs: p.rebalanceTimeoutMs,
    memberId: p.memberId,
    groupInstanceId: p.groupInstanceIdLength === -1 ? null : p.groupInstanceId,
    protocolType: p.protocolType,
    protocols: p.protocols.map((x) => ({ name: x.name, metadata: Buffer.from(x.metadata) })),
  };
}

function fieldsOf(m: c.JoinGroupRequest) {
  return {
    groupId: m.groupId,
    sessionTimeoutMs: m.sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    protocolType: m.protocolType,
    protocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
  };
}

// Any Unicode text (whole grapheme clusters, so no lone surrogates), short enough for an int16 length.
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const joinGroupV5 = fc
  .record({
    groupId: text,
    sessionTimeoutMs: int32,
    rebalanceTimeoutMs: int32,
    memberId: text,
    groupInstanceId: fc.option(text, { nil: null }),
    protocolType: text,
    protocols: fc.array(fc.record({ name: text, metadata: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) }), { maxLength: 6 }),
  })
  .map((r) => c.createJoinGroupRequest({ ...r, protocols: r.protocols.map((p) => c.JoinGroupRequest.createProtocol(p)) }));

describe('JoinGroup v5 request: binary-parser 2.3.0 as an independent decoder', () => {
  it('decodes the kafkajs golden v5 body (the inputs of the kafkajs JoinGroup v5 request test) to the same fields as ours', async () => {
    const golden = await kafkajsJoinGroupV5GoldenBody();
    expect(golden.length).toBe(230);
    const theirs = decodeWithBinaryParser(golden);
    expect(theirs).toEqual(fieldsOf(c.decodeJoinGroupRequest(golden, 5)));
    expect(theirs.groupInstanceId).toBe('group-instance-id');
    expect(theirs.protocols.map((p) => [p.name, p.metadata.length])).toEqual([['AssignerName', 86]]);
  });

  it('a hand-picked edge case: empty strings, null instance id, no protocols, extreme int32s', () => {
    const m = c.createJoinGroupRequest({ groupId: '', sessionTimeoutMs: -0x80000000, rebalanceTimeoutMs: 0x7fffffff, memberId: '', groupInstanceId: null, protocolType: '', protocols: [] });
    const body = c.encodeJoinGroupRequest(m, 5);
    expect(body.toString('hex')).toBe('0000' + '80000000' + '7fffffff' + '0000' + 'ffff' + '0000' + '00000000');
    expect(decodeWithBinaryParser(body)).toEqual(fieldsOf(m));
  });

  it('the cross-check decoder itself rejects what it must: a negative length, a truncated body, trailing bytes', () => {
    const body = c.encodeJoinGroupRequest(c.createJoinGroupRequest({ groupId: 'g', memberId: 'm', protocolType: 'consumer', protocols: [c.JoinGroupRequest.createProtocol({ name: 'range', metadata: Buffer.from([1]) })] }), 5);
    const negative = Buffer.from(body);
    negative.writeInt16BE(-2, 0);
    expect(() => decodeWithBinaryParser(negative)).toThrow();
    expect(() => decodeWithBinaryParser(body.subarray(0, body.length - 1))).toThrow();
    expect(() => decodeWithBinaryParser(Buffer.concat([body, Buffer.from([0])]))).toThrow(/stopped at/);
  });

  it('random valid v5 requests we encode decode to the same fields', () => {
    fc.assert(
      fc.property(joinGroupV5, (m) => {
        const body = c.encodeJoinGroupRequest(m, 5);
        expect(decodeWithBinaryParser(body)).toEqual(fieldsOf(m));
        // and ours agrees with itself on the same bytes
        expect(fieldsOf(c.decodeJoinGroupRequest(body, 5))).toEqual(fieldsOf(m));
      }),
      { numRuns: 300 },
    );
  });

  it('whole frames: the body after our request header v1 is what binary-parser reads', () => {
    fc.assert(
      fc.property(joinGroupV5, fc.integer({ min: 0, max: 0x7fffffff }), fc.option(text, { nil: null }), (m, correlationId, clientId) => {
        const frame = c.encodeRequest({ apiKey: 11, apiVersion: 5, correlationId, clientId }, m);
        // Request header v1 by hand: size, api key, version, correlation id, nullable client id.
        const header = new Parser().int32be('size').int16be('apiKey').int16be('apiVersion').int32be('correlationId').int16be('clientIdLength').saveOffset('afterLength');
        const h = header.parse(frame) as { size: number; apiKey: number; apiVersion: number; correlationId: number; clientIdLength: number; afterLength: number };
        expect([h.size, h.apiKey, h.apiVersion, h.correlationId]).toEqual([frame.length - 4, 11, 5, correlationId]);
        const bodyStart = h.afterLength + Math.max(h.clientIdLength, 0);
        expect(h.clientIdLength === -1 ? null : frame.toString('utf8', h.afterLength, bodyStart)).toBe(clientId);
        expect(decodeWithBinaryParser(frame.subarray(bodyStart))).toEqual(fieldsOf(m));
      }),
      { numRuns: 100 },
    );
  });
});
