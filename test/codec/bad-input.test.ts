// Bad bytes: every truncation of a golden frame, hostile counts and lengths, malformed nulls,
// and random-bytes fuzzing. A decode either returns a whole message or throws DecodeError (or
// UnsupportedVersionError for an unknown API/version), never anything else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiByKey, decodeFetchResponse, decodeJoinGroupRequest, decodeMetadataResponse } from '../../src/codec/generated/index.js';
import { decodeRequest, decodeRequestFrame, decodeResponse, decodeResponseFrame } from '../../src/codec/frame.js';
import { DecodeError, UnsupportedVersionError } from '../../src/codec/primitives/index.js';
import { ALL_CODECS, arbitraryFor, versionsOf } from '../support/arbitrary.js';
import { GOLDEN, type GoldenFrame } from '../support/golden.js';
import { b } from '../support/wire.js';

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function codecOf(g: GoldenFrame) {
  const api = apiByKey(g.apiKey)!;
  return g.kind === 'request' ? api.request : api.response;
}

function decodeFrameBody(g: GoldenFrame, bytesWithoutPrefix: Buffer): unknown {
  return g.kind === 'request' ? decodeRequest(bytesWithoutPrefix) : decodeResponse(bytesWithoutPrefix, g.apiKey, g.apiVersion);
}

describe('every truncation of a golden frame throws DecodeError', () => {
  for (const g of GOLDEN) {
    const codec = codecOf(g);

    it(`${g.name}: body cut at every length -> DecodeError with api key, version and field path`, () => {
      expect(g.body.length).toBeGreaterThan(0);
      for (let n = 0; n < g.body.length; n++) {
        const e = catchError(() => codec.decode(g.body.subarray(0, n), g.apiVersion));
        expect(e, `cut at ${n} of ${g.body.length}`).toBeInstanceOf(DecodeError);
        const d = e as DecodeError;
        expect(d.apiKey).toBe(g.apiKey);
        expect(d.apiVersion).toBe(g.apiVersion);
        expect(d.messageName).toBe(codec.name);
        expect(d.path.length, `cut at ${n}: ${d.message}`).toBeGreaterThan(0);
        expect(d.message).toContain(`${codec.name} v${g.apiVersion} (api key ${g.apiKey}) at `);
      }
    });

    it(`${g.name}: frame cut anywhere -> DecodeError (never a partial result)`, () => {
      const whole = g.frame.subarray(4);
      for (let n = 0; n < whole.length; n++) {
        const e = catchError(() => decodeFrameBody(g, whole.subarray(0, n)));
        expect(e, `cut at ${n} of ${whole.length}`).toBeInstanceOf(DecodeError);
        if (n >= g.headerLength) {
          const d = e as DecodeError;
          expect(d.apiKey).toBe(g.apiKey);
          expect(d.apiVersion).toBe(g.apiVersion);
          expect(d.path.length).toBeGreaterThan(0);
        }
      }
    });

    it(`${g.name}: size-prefixed frame cut anywhere -> DecodeError`, () => {
      for (let n = 0; n < g.frame.length; n++) {
        const cut = g.frame.subarray(0, n);
        const decode = () =>
          g.kind === 'request' ? decodeRequestFrame(cut) : decodeResponseFrame(cut, g.apiKey, g.apiVersion);
        expect(catchError(decode), `cut at ${n}`).toBeInstanceOf(DecodeError);
      }
    });
  }
});

// BUG (src/codec/frame.ts): a DecodeError raised while reading the request or response HEADER
// carries the header's own version (RequestHeader v2 -> apiVersion 2, ResponseHeader v1 -> 1)
// and no apiKey, although decodeRequest has already peeked both and decodeResponse was given
// them; and a request of 4-7 bytes (key and version readable) fails in peekRequestHeader with
// neither. Remove `.fails` once frame.ts annotates header errors.
describe('a cut inside the header still names the api key and version of the frame', () => {
  for (const kind of ['request', 'response'] as const) {
    it(`${kind} frames`, () => {
      for (const g of GOLDEN.filter((x) => x.kind === kind)) {
        const whole = g.frame.subarray(4);
        const from = kind === 'request' ? 4 : 0; // a request needs 4 bytes to show its key and version
        for (let n = from; n < g.headerLength; n++) {
          const e = catchError(() => decodeFrameBody(g, whole.subarray(0, n))) as DecodeError;
          expect(e).toBeInstanceOf(DecodeError);
          expect({ apiKey: e.apiKey, apiVersion: e.apiVersion }, `${g.name} cut at ${n}`).toEqual({
            apiKey: g.apiKey,
            apiVersion: g.apiVersion,
          });
        }
      }
    });
  }
});

/**
 * Runs `fn`, expecting a DecodeError within a few milliseconds: the claim is refused before
 * anything proportional to it is allocated (2^31 elements would take seconds or run out of
 * memory). Best of three attempts, so that a busy machine does not make the timing flaky.
 */
function expectFastDecodeError(fn: () => unknown, reason: RegExp, path?: string[]): DecodeError {
  let best = Infinity;
  let e: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const t0 = performance.now();
    e = catchError(fn);
    best = Math.min(best, performance.now() - t0);
  }
  expect(e).toBeInstanceOf(DecodeError);
  const d = e as DecodeError;
  expect(d.reason).toMatch(reason);
  if (path) expect(d.path).toEqual(path);
  expect(best).toBeLessThan(50);
  return d;
}

describe('hostile counts and lengths fail before allocating', () => {
  const joinV0Head = () => b().str('g').i32(1000).str('').str('consumer');
  const joinV6Head = () => b().cstr('g').i32(1000).i32(1000).cstr('').cstr(null).cstr('consumer');

  it('ARRAY count 0x7fffffff with 10 bytes left', () => {
    const body = joinV0Head().i32(0x7fffffff).raw(Buffer.alloc(10)).build();
    // Refused at the count itself: no element was read (the path stops at the array).
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 0), /2147483647 elements cannot fit in the 10 bytes left/, ['protocols']);
  });

  it('COMPACT_ARRAY count 0xfffffffe with 10 bytes left', () => {
    const body = joinV6Head().uvarint(0xffffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 6), /cannot fit/, ['protocols']);
  });

  it('an []int32 count of 0x7fffffff deep inside a response', () => {
    const body = b()
      .i32(0)
      .carr(0)
      .cstr(null)
      .i32(1)
      .carr(1)
      .i16(0)
      .cstr('t')
      .uuid('AAAAAAAAAAAAAAAAAAAAAA')
      .bool(false)
      .carr(1)
      .i16(0)
      .i32(0)
      .i32(1)
      .i32(0)
      .uvarint(0x7fffffff) // replicaNodes
      .raw(Buffer.alloc(10))
      .build();
    expectFastDecodeError(() => decodeMetadataResponse(body, 12), /cannot fit/, ['topics', '[0]', 'partitions', '[0]', 'replicaNodes']);
  });

  it('STRING length 0x7fff with 10 bytes left', () => {
    const body = b().i16(0x7fff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 0), /needs 32767 bytes, 10 left/, ['groupId']);
  });

  it('COMPACT_STRING length beyond 0x7fff is refused as such', () => {
    const body = b().uvarint(0x8000 + 1).raw(Buffer.alloc(0x8000)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 6), /longer than 32767/, ['groupId']);
    const huge = b().uvarint(0xffffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(huge, 6), /longer than 32767/, ['groupId']);
  });

  it('BYTES length 0x7fffffff with 10 bytes left', () => {
    const body = joinV0Head().i32(1).str('range').i32(0x7fffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 0), /needs 2147483647 bytes/, ['protocols', '[0]', 'metadata']);
  });

  it('COMPACT_BYTES length 0xfffffffe with 10 bytes left', () => {
    const body = joinV6Head().carr(1).cstr('range').uvarint(0xffffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 6), /needs 4294967294 bytes/, ['protocols', '[0]', 'metadata']);
  });

  it('COMPACT_RECORDS length far beyond the frame', () => {
    const body = b()
      .i32(0)
      .i16(0)
      .i32(0)
      .carr(1)
      .cstr('t')
      .carr(1)
      .i32(0)
      .i16(0)
      .i64(0n)
      .i64(0n)
      .i64(0n)
      .carr(null)
      .i32(-1)
      .uvarint(0x7fffffff)
      .raw(Buffer.alloc(10))
      .build();
    expectFastDecodeError(() => decodeFetchResponse(body, 12), /needs 2147483646 bytes/, ['responses', '[0]', 'partitions', '[0]', 'records']);
  });

  it('a tag section claiming 0x7fffffff fields', () => {
    const body = joinV6Head().carr(0).uvarint(0x7fffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 6), /truncated|needs/, ['(tagged fields)']);
  });

  it('a tagged field claiming 0x7fffffff bytes', () => {
    const body = joinV6Head().carr(0).uvarint(1).uvarint(7).uvarint(0x7fffffff).raw(Buffer.alloc(10)).build();
    expectFastDecodeError(() => decodeJoinGroupRequest(body, 6), /needs 2147483647 bytes, 10 left/, ['(tagged fields)']);
  });

  it('negative lengths other than -1 are refused', () => {
    expectFastDecodeError(() => decodeJoinGroupRequest(b().i16(-2).build(), 0), /null|invalid/, ['groupId']);
    expectFastDecodeError(() => decodeJoinGroupRequest(joinV0Head().i32(-2).build(), 0), /invalid array length -2/, ['protocols']);
    expectFastDecodeError(
      () => decodeJoinGroupRequest(joinV0Head().i32(1).str('r').i32(-2).build(), 0),
      /bytes were null|invalid bytes length/,
      ['protocols', '[0]', 'metadata'],
    );
  });

  it('null in a non-nullable position is a DecodeError', () => {
    expectFastDecodeError(() => decodeJoinGroupRequest(b().i16(-1).build(), 0), /non-nullable string was null/, ['groupId']);
    expectFastDecodeError(() => decodeJoinGroupRequest(b().uvarint(0).build(), 6), /non-nullable string was null/, ['groupId']);
    expectFastDecodeError(() => decodeJoinGroupRequest(joinV0Head().i32(-1).build(), 0), /non-nullable array was null/, ['protocols']);
    expectFastDecodeError(() => decodeJoinGroupRequest(joinV6Head().carr(null).build(), 6), /non-nullable array was null/, ['protocols']);
  });

  it('a huge request frame header field fails fast too', () => {
    // ClientId length 0x7fff with nothing after it.
    const frame = b().i16(11).i16(0).i32(1).i16(0x7fff).build();
    expectFastDecodeError(() => decodeRequest(frame), /needs 32767 bytes/, ['header', 'clientId']);
  });
});

const CASES = ALL_CODECS.flatMap((c) => versionsOf(c).map((v) => [c, v] as const));

function onlyCodecErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError) && !(e instanceof UnsupportedVersionError)) {
      throw new Error(`unexpected ${(e as Error)?.name}: ${(e as Error)?.message}`);
    }
  }
}

describe('fuzz: random bytes only ever raise DecodeError or UnsupportedVersionError', () => {
  it('message bodies, any codec, any version (valid or not)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_CODECS), fc.integer({ min: -2, max: 20 }), fc.uint8Array({ maxLength: 160 }), (codec, v, bytes) => {
        onlyCodecErrors(() => codec.decode(Buffer.from(bytes), v));
      }),
      { numRuns: 4000 },
    );
  });

  it('request frames with random api keys and versions', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1, max: 80 }), fc.integer({ min: -1, max: 20 }), fc.uint8Array({ maxLength: 160 }), (key, v, bytes) => {
        const head = b().i16(key).i16(v).build();
        onlyCodecErrors(() => decodeRequest(Buffer.concat([head, Buffer.from(bytes)])));
        onlyCodecErrors(() => decodeRequestFrame(Buffer.from(bytes)));
      }),
      { numRuns: 2000 },
    );
  });

  it('response frames with random api keys and versions', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1, max: 80 }), fc.integer({ min: -1, max: 20 }), fc.uint8Array({ maxLength: 160 }), (key, v, bytes) => {
        onlyCodecErrors(() => decodeResponse(Buffer.from(bytes), key, v));
      }),
      { numRuns: 3000 },
    );
  });

  it('valid encodings with a few bytes overwritten', () => {
    const arb = fc
      .constantFrom(...CASES)
      .chain(([codec, v]) => fc.tuple(fc.constant(codec), fc.constant(v), arbitraryFor(codec.schema, v)));
    fc.assert(
      fc.property(arb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), ([codec, v, m], edits) => {
        const buf = Buffer.from(codec.encode(m, v));
        for (const [i, byte] of edits) if (buf.length > 0) buf[i % buf.length] = byte;
        onlyCodecErrors(() => codec.decode(buf, v));
      }),
      { numRuns: 1500 },
    );
  });
});
