// Wire primitives: varint/varlong golden vectors from Apache Kafka's ByteUtilsTest, over-long
// encodings, string limits and UTF-8 byte lengths, uuids, and fixed-width extremes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createJoinGroupRequest,
  decodeJoinGroupRequest,
  encodeJoinGroupRequest,
} from '../../src/codec/generated/index.js';
import {
  DecodeError,
  EncodeError,
  Reader,
  Writer,
  sizeOfCompactString,
  sizeOfString,
  sizeOfUvarint,
  sizeOfUvarlong,
  sizeOfVarint,
  sizeOfVarlong,
  sizeOfVarlongNumber,
} from '../../src/codec/primitives/index.js';
import { hex } from '../support/wire.js';

function write(size: number, fn: (w: Writer) => void): Buffer {
  const w = new Writer(size);
  fn(w);
  return w.finish(); // throws unless exactly `size` bytes were written
}

function thrown(fn: () => unknown): Error | undefined {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

// ByteUtilsTest.testUnsignedVarintSerde plus the one-, two- ... five-byte boundaries.
const UVARINT: Array<[number, string]> = [
  [0, '00'],
  [1, '01'],
  [63, '3f'],
  [64, '40'],
  [127, '7f'],
  [128, '8001'],
  [8191, 'ff3f'],
  [8192, '8040'],
  [16383, 'ff7f'],
  [16384, '808001'],
  [2 ** 21 - 1, 'ffff7f'],
  [2 ** 21, '80808001'],
  [2 ** 28 - 1, 'ffffff7f'],
  [2 ** 28, '8080808001'],
  [0x7fffffff, 'ffffffff07'], // Integer.MAX_VALUE
  [0x80000000, '8080808008'], // Integer.MIN_VALUE as unsigned
  [0xffffffff, 'ffffffff0f'], // -1 as unsigned
];

// ByteUtilsTest.testVarintSerde (zig-zag).
const VARINT: Array<[number, string]> = [
  [0, '00'],
  [-1, '01'],
  [1, '02'],
  [63, '7e'],
  [-64, '7f'],
  [64, '8001'],
  [-65, '8101'],
  [8191, 'fe7f'],
  [-8192, 'ff7f'],
  [8192, '808001'],
  [-8193, '818001'],
  [1048575, 'feff7f'],
  [-1048576, 'ffff7f'],
  [1048576, '80808001'],
  [-1048577, '81808001'],
  [134217727, 'feffff7f'],
  [-134217728, 'ffffff7f'],
  [134217728, '8080808001'],
  [-134217729, '8180808001'],
  [0x7fffffff, 'feffffff0f'], // Integer.MAX_VALUE
  [-0x80000000, 'ffffffff0f'], // Integer.MIN_VALUE
];

// ByteUtilsTest.testVarlongSerde: the varint vectors, then the wider ones and the extremes.
const VARLONG: Array<[bigint, string]> = [
  ...VARINT.map(([v, h]): [bigint, string] => [BigInt(v), h]),
  [17179869183n, 'feffffff7f'],
  [-17179869184n, 'ffffffff7f'],
  [17179869184n, '808080808001'],
  [-17179869185n, '818080808001'],
  [2199023255551n, 'feffffffff7f'],
  [-2199023255552n, 'ffffffffff7f'],
  [2199023255552n, '80808080808001'],
  [-2199023255553n, '81808080808001'],
  [281474976710655n, 'feffffffffff7f'],
  [-281474976710656n, 'ffffffffffff7f'],
  [281474976710656n, '8080808080808001'],
  [-281474976710657n, '8180808080808001'],
  [36028797018963967n, 'feffffffffffff7f'],
  [-36028797018963968n, 'ffffffffffffff7f'],
  [36028797018963968n, '808080808080808001'],
  [-36028797018963969n, '818080808080808001'],
  [4611686018427387903n, 'feffffffffffffff7f'],
  [-4611686018427387904n, 'ffffffffffffffff7f'],
  [4611686018427387904n, '80808080808080808001'],
  [-4611686018427387905n, '81808080808080808001'],
  [9223372036854775807n, 'feffffffffffffffff01'], // Long.MAX_VALUE
  [-9223372036854775808n, 'ffffffffffffffffff01'], // Long.MIN_VALUE
];

describe('varints: Kafka ByteUtilsTest vectors', () => {
  it.each(UVARINT)('uvarint %d <-> %s', (v, h) => {
    expect(sizeOfUvarint(v)).toBe(h.length / 2);
    expect(write(sizeOfUvarint(v), (w) => w.uvarint(v)).toString('hex')).toBe(h);
    const r = new Reader(hex(h));
    expect(r.uvarint()).toBe(v);
    expect(r.remaining).toBe(0);
  });

  it('uvarint of -1 (a Java int) is written as its unsigned form', () => {
    expect(write(5, (w) => w.uvarint(-1)).toString('hex')).toBe('ffffffff0f');
    expect(sizeOfUvarint(-1)).toBe(5);
  });

  it.each(VARINT)('varint %d <-> %s', (v, h) => {
    expect(sizeOfVarint(v)).toBe(h.length / 2);
    expect(write(sizeOfVarint(v), (w) => w.varint(v)).toString('hex')).toBe(h);
    const r = new Reader(hex(h));
    expect(r.varint()).toBe(v);
    expect(r.remaining).toBe(0);
  });

  it.each(VARLONG)('varlong %s <-> %s', (v, h) => {
    expect(sizeOfVarlong(v)).toBe(h.length / 2);
    expect(write(sizeOfVarlong(v), (w) => w.varlong(v)).toString('hex')).toBe(h);
    const r = new Reader(hex(h));
    expect(r.varlong()).toBe(v);
    expect(r.remaining).toBe(0);
  });

  it('unsigned varlong extremes', () => {
    const max = 2n ** 64n - 1n;
    expect(sizeOfUvarlong(max)).toBe(10);
    expect(write(10, (w) => w.uvarlong(max)).toString('hex')).toBe('ffffffffffffffffff01');
    expect(new Reader(hex('ffffffffffffffffff01')).uvarlong()).toBe(max);
    expect(new Reader(hex('00')).uvarlong()).toBe(0n);
  });

  it('varlongNumber agrees with varlong over the safe-integer range', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(0x3fffffff, 0x40000000, -0x40000000, -0x40000001)), (n) => {
        const viaBig = write(sizeOfVarlong(BigInt(n)), (w) => w.varlong(BigInt(n)));
        expect(sizeOfVarlongNumber(n)).toBe(viaBig.length);
        expect(write(sizeOfVarlongNumber(n), (w) => w.varlongNumber(n)).equals(viaBig)).toBe(true);
        expect(new Reader(viaBig).varlongNumber()).toBe(n);
      }),
      { numRuns: 500 },
    );
  });

  it('varlongNumber refuses values outside the safe-integer range', () => {
    const big = write(sizeOfVarlong(2n ** 53n), (w) => w.varlong(2n ** 53n));
    expect(thrown(() => new Reader(big).varlongNumber())).toBeInstanceOf(DecodeError);
  });

  it('random varints and varlongs round-trip with their computed sizes', () => {
    fc.assert(
      fc.property(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), (i, l) => {
        const a = write(sizeOfVarint(i), (w) => w.varint(i));
        expect(new Reader(a).varint()).toBe(i);
        const u = i >>> 0;
        expect(new Reader(write(sizeOfUvarint(u), (w) => w.uvarint(u))).uvarint()).toBe(u);
        expect(new Reader(write(sizeOfVarlong(l), (w) => w.varlong(l))).varlong()).toBe(l);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('over-long and truncated varints are refused', () => {
  const refuse = (fn: () => unknown, reason: RegExp) => {
    const e = thrown(fn);
    expect(e).toBeInstanceOf(DecodeError);
    expect((e as DecodeError).reason).toMatch(reason);
  };

  it('a 6-byte varint (ByteUtilsTest.testInvalidVarint)', () => {
    refuse(() => new Reader(hex('ffffffffff01')).uvarint(), /longer than/);
    refuse(() => new Reader(hex('ffffffffff01')).varint(), /longer than/);
    refuse(() => new Reader(hex('808080808000')).uvarint(), /longer than/);
  });

  it('a 5-byte varint carrying more than 32 bits', () => {
    refuse(() => new Reader(hex('ffffffff1f')).uvarint(), /longer than 32 bits/);
  });

  it('an 11-byte varlong (ByteUtilsTest.testInvalidVarlong)', () => {
    refuse(() => new Reader(hex('ffffffffffffffffffff01')).uvarlong(), /longer than/);
    refuse(() => new Reader(hex('ffffffffffffffffffff01')).varlong(), /longer than/);
  });

  it('a 10-byte varlong carrying more than 64 bits', () => {
    refuse(() => new Reader(hex('ffffffffffffffffff02')).uvarlong(), /longer than 64 bits/);
  });

  it('varints cut short', () => {
    for (const h of ['', '80', 'ffff', 'ffffffff']) refuse(() => new Reader(hex(h)).uvarint(), /truncated/);
    for (const h of ['', '80', 'ffffffffffffffffff']) refuse(() => new Reader(hex(h)).uvarlong(), /truncated/);
  });

  it('a varint never reads past the reader end, even when the buffer goes on', () => {
    const r = new Reader(hex('8001'), 0, 1);
    refuse(() => r.uvarint(), /truncated/);
  });
});

describe('strings', () => {
  const roundTrip = (groupId: string, v: number) => decodeJoinGroupRequest(encodeJoinGroupRequest(createJoinGroupRequest({ groupId }), v), v).groupId;

  it('lengths are UTF-8 byte counts, not UTF-16 units', () => {
    const s = 'aé日🎉'; // 1 + 2 + 3 + 4 bytes, 5 UTF-16 units
    expect(sizeOfString(s)).toBe(2 + 10);
    expect(sizeOfCompactString(s)).toBe(1 + 10);
    const v0 = encodeJoinGroupRequest(createJoinGroupRequest({ groupId: s }), 0);
    expect(v0.readInt16BE(0)).toBe(10);
    expect(v0.subarray(2, 12).toString('utf8')).toBe(s);
    const v6 = encodeJoinGroupRequest(createJoinGroupRequest({ groupId: s }), 6);
    expect(v6[0]).toBe(11);
    expect(roundTrip(s, 0)).toBe(s);
    expect(roundTrip(s, 6)).toBe(s);
  });

  it('compact strings around the one-byte length prefix (126/127 bytes)', () => {
    for (const s of ['x'.repeat(126), 'x'.repeat(127), '日'.repeat(42), '日'.repeat(43), '🎉'.repeat(21), '🎉'.repeat(32), 'é'.repeat(63), 'é'.repeat(64)]) {
      const n = Buffer.byteLength(s);
      const buf = write(sizeOfCompactString(s), (w) => w.compactString(s));
      expect(buf.length).toBe(sizeOfUvarint(n + 1) + n);
      const r = new Reader(buf);
      expect(r.compactString()).toBe(s);
      expect(r.remaining).toBe(0);
    }
  });

  it('0x7fff bytes is the longest string; one more byte is an EncodeError, in any encoding', () => {
    const longest = ['a'.repeat(0x7fff), 'é'.repeat(0x3fff) + 'a', '日'.repeat(0x2aaa) + 'a', '🎉'.repeat(0x1fff) + 'abc'];
    for (const s of longest) {
      expect(Buffer.byteLength(s)).toBe(0x7fff);
      expect(roundTrip(s, 0)).toBe(s);
      expect(roundTrip(s, 6)).toBe(s);
    }
    const tooLong = ['a'.repeat(0x8000), 'é'.repeat(0x4000), '日'.repeat(0x2aaa) + 'ab', '🎉'.repeat(0x2000)];
    for (const s of tooLong) {
      expect(Buffer.byteLength(s)).toBe(0x8000);
      for (const v of [0, 6]) {
        const e = thrown(() => encodeJoinGroupRequest(createJoinGroupRequest({ groupId: s }), v));
        expect(e, `${s.slice(0, 3)}... v${v}`).toBeInstanceOf(EncodeError);
      }
    }
  });

  it('a compact string claiming more than 0x7fff bytes is a DecodeError even when the bytes are there', () => {
    const n = 0x8000;
    const buf = Buffer.concat([write(sizeOfUvarint(n + 1), (w) => w.uvarint(n + 1)), Buffer.alloc(n, 0x61)]);
    const e = thrown(() => new Reader(buf).compactString());
    expect(e).toBeInstanceOf(DecodeError);
    expect(thrown(() => new Reader(buf).compactNullableString())).toBeInstanceOf(DecodeError);
    const ok = Buffer.concat([write(sizeOfUvarint(0x7fff + 1), (w) => w.uvarint(0x7fff + 1)), Buffer.alloc(0x7fff, 0x61)]);
    expect(new Reader(ok).compactString().length).toBe(0x7fff);
  });

  it('null and empty strings are distinct on the wire', () => {
    expect(write(2, (w) => w.string(null)).toString('hex')).toBe('ffff');
    expect(write(2, (w) => w.string('')).toString('hex')).toBe('0000');
    expect(write(1, (w) => w.compactString(null)).toString('hex')).toBe('00');
    expect(write(1, (w) => w.compactString('')).toString('hex')).toBe('01');
    expect(new Reader(hex('ffff')).nullableString()).toBeNull();
    expect(new Reader(hex('0000')).nullableString()).toBe('');
    expect(new Reader(hex('00')).compactNullableString()).toBeNull();
    expect(new Reader(hex('01')).compactNullableString()).toBe('');
  });
});

describe('fixed-width values and uuids', () => {
  it('int64 at both extremes, int8/int16/int32 and uint16/uint32 bounds', () => {
    const buf = write(8 + 8 + 1 + 1 + 2 + 2 + 4 + 4 + 2 + 4, (w) => {
      w.int64(-(2n ** 63n));
      w.int64(2n ** 63n - 1n);
      w.int8(-128);
      w.int8(127);
      w.int16(-32768);
      w.int16(32767);
      w.int32(-0x80000000);
      w.int32(0x7fffffff);
      w.uint16(0xffff);
      w.uint32(0xffffffff);
    });
    expect(buf.toString('hex')).toBe('8000000000000000' + '7fffffffffffffff' + '80' + '7f' + '8000' + '7fff' + '80000000' + '7fffffff' + 'ffff' + 'ffffffff');
    const r = new Reader(buf);
    expect([r.int64(), r.int64(), r.int8(), r.int8(), r.int16(), r.int16(), r.int32(), r.int32(), r.uint16(), r.uint32()]).toEqual([
      -(2n ** 63n),
      2n ** 63n - 1n,
      -128,
      127,
      -32768,
      32767,
      -0x80000000,
      0x7fffffff,
      0xffff,
      0xffffffff,
    ]);
  });

  it('uuids are 16 bytes shown as 22 base64url characters', () => {
    const bytes = hex('0123456789abcdeffedcba9876543210');
    const text = bytes.toString('base64url');
    expect(text).toHaveLength(22);
    expect(new Reader(bytes).uuid()).toBe(text);
    expect(write(16, (w) => w.uuid(text)).equals(bytes)).toBe(true);
    expect(new Reader(Buffer.alloc(16)).uuid()).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (b) => {
        const t = new Reader(Buffer.from(b)).uuid();
        expect(write(16, (w) => w.uuid(t)).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('malformed uuid text is an EncodeError', () => {
    for (const bad of ['', 'not-a-uuid', 'AAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAB', '0123456789abcdef0123456789abcdef']) {
      expect(thrown(() => write(16, (w) => w.uuid(bad))), JSON.stringify(bad)).toBeInstanceOf(EncodeError);
    }
  });

  it('fixed-width reads past the end are DecodeErrors', () => {
    for (const read of [(r: Reader) => r.int8(), (r: Reader) => r.int16(), (r: Reader) => r.int32(), (r: Reader) => r.int64(), (r: Reader) => r.uuid(), (r: Reader) => r.float64()]) {
      expect(thrown(() => read(new Reader(Buffer.alloc(0))))).toBeInstanceOf(DecodeError);
    }
  });
});
