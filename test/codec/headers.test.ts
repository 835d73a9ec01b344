// Request and response headers: which version a frame uses (flexible API versions use request
// header v2 / response header v1; ApiVersions responses always use v0), and their exact bytes.
import { describe, expect, it } from 'vitest';
import {
  APIS,
  createApiVersionsRequest,
  createApiVersionsResponse,
  createJoinGroupRequest,
  createJoinGroupResponse,
  createRequestHeader,
  decodeRequestHeader,
  encodeRequestHeader,
  type ApiSpec,
} from '../../src/codec/generated/index.js';
import {
  decodeRequest,
  decodeRequestFrame,
  decodeResponse,
  decodeResponseFrame,
  encodeRequest,
  encodeResponse,
  encodeResponseAtVersion,
  requestHeaderVersion,
  responseHeaderVersion,
} from '../../src/codec/frame.js';
import { DecodeError } from '../../src/codec/primitives/index.js';
import { b } from '../support/wire.js';

const ALL_APIS = Object.values(APIS) as ApiSpec[];

describe('header versions', () => {
  it('JoinGroup: v0-v5 use request header v1 / response header v0, v6+ use v2 / v1', () => {
    for (let v = 0; v <= 5; v++) {
      expect(requestHeaderVersion(11, v)).toBe(1);
      expect(responseHeaderVersion(11, v)).toBe(0);
    }
    for (let v = 6; v <= 9; v++) {
      expect(requestHeaderVersion(11, v)).toBe(2);
      expect(responseHeaderVersion(11, v)).toBe(1);
    }
  });

  it('every API: chosen from its flexible range', () => {
    for (const api of ALL_APIS) {
      for (let v = api.minVersion; v <= api.maxVersion; v++) {
        const flexible = api.flexibleFrom >= 0 && v >= api.flexibleFrom;
        expect(requestHeaderVersion(api.key, v), `${api.name} v${v}`).toBe(flexible ? 2 : 1);
        if (api.key !== 18) expect(responseHeaderVersion(api.key, v), `${api.name} v${v}`).toBe(flexible ? 1 : 0);
      }
    }
  });

  it('ApiVersions: request header v2 from v3, but the response header is always v0 (KIP-511)', () => {
    expect(APIS[18].flexibleFrom).toBe(3);
    for (let v = 0; v <= 4; v++) {
      expect(requestHeaderVersion(18, v)).toBe(v >= 3 ? 2 : 1);
      expect(responseHeaderVersion(18, v)).toBe(0);
    }
    // Even for versions the broker does not know: a client may ask with a newer one.
    expect(responseHeaderVersion(18, 99)).toBe(0);
  });

  it('ControlledShutdown v0 uses request header v0', () => {
    expect(requestHeaderVersion(7, 0)).toBe(0);
  });
});

describe('request header bytes', () => {
  it('JoinGroup v5: header v1, no tag section', () => {
    const frame = encodeRequest({ apiKey: 11, apiVersion: 5, correlationId: 42, clientId: 'cli' }, createJoinGroupRequest());
    const header = b().i16(11).i16(5).i32(42).str('cli').build();
    expect(frame.subarray(4, 4 + header.length).equals(header)).toBe(true);
    // The body follows at once: GroupId is a non-compact empty string.
    expect(frame.subarray(4 + header.length, 4 + header.length + 2).toString('hex')).toBe('0000');
  });

  it('JoinGroup v6: header v2 with a NON-compact ClientId, then an empty tag section', () => {
    const frame = encodeRequest({ apiKey: 11, apiVersion: 6, correlationId: 42, clientId: 'cli' }, createJoinGroupRequest());
    const header = b().i16(11).i16(6).i32(42).str('cli').tags().build();
    expect(frame.subarray(4, 4 + header.length).toString('hex')).toBe(header.toString('hex'));
    expect(frame.subarray(4 + 8, 4 + 10).toString('hex')).toBe('0003'); // int16 length, not a varint
    // The body then starts with a compact GroupId.
    expect(frame[4 + header.length]).toBe(1);
  });

  it('ClientId: null is int16 -1, multibyte text is counted in bytes, in v1 and v2 alike', () => {
    for (const v of [5, 6]) {
      const nul = encodeRequest({ apiKey: 11, apiVersion: v, correlationId: 1, clientId: null }, createJoinGroupRequest());
      expect(nul.subarray(12, 14).toString('hex')).toBe('ffff');
      expect(decodeRequestFrame(nul).header.clientId).toBeNull();
      const omitted = encodeRequest({ apiKey: 11, apiVersion: v, correlationId: 1 }, createJoinGroupRequest());
      expect(omitted.equals(nul)).toBe(true);
      const multi = encodeRequest({ apiKey: 11, apiVersion: v, correlationId: 1, clientId: 'cliént-日' }, createJoinGroupRequest());
      expect(multi.readInt16BE(12)).toBe(Buffer.byteLength('cliént-日'));
      expect(decodeRequestFrame(multi).header.clientId).toBe('cliént-日');
    }
  });

  it('ApiVersions v3 request: header v2', () => {
    const frame = encodeRequest({ apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'c' }, createApiVersionsRequest({ clientSoftwareName: 'x', clientSoftwareVersion: '1' }));
    expect(frame.subarray(4).toString('hex')).toBe(
      b().i16(18).i16(3).i32(7).str('c').tags().cstr('x').cstr('1').tags().build().toString('hex'),
    );
  });

  it('the RequestHeader codec: v0 has no ClientId (ignorable, dropped), v2 keeps it non-compact', () => {
    const h = createRequestHeader({ requestApiKey: 3, requestApiVersion: 1, correlationId: 9, clientId: 'c' });
    expect(encodeRequestHeader(h, 0).toString('hex')).toBe(b().i16(3).i16(1).i32(9).build().toString('hex'));
    expect(encodeRequestHeader(h, 1).toString('hex')).toBe(b().i16(3).i16(1).i32(9).str('c').build().toString('hex'));
    expect(encodeRequestHeader(h, 2).toString('hex')).toBe(b().i16(3).i16(1).i32(9).str('c').tags().build().toString('hex'));
    expect(decodeRequestHeader(encodeRequestHeader(h, 2), 2)).toEqual(h);
  });
});

describe('response header bytes', () => {
  it('JoinGroup v5: header v0 (correlation id only); v6: header v1 (plus a tag section)', () => {
    const v5 = encodeResponse(11, 5, 0x01020304, createJoinGroupResponse());
    expect(v5.subarray(4, 8).toString('hex')).toBe('01020304');
    expect(v5.subarray(8, 12).toString('hex')).toBe('00000000'); // ThrottleTimeMs follows at once
    const v6 = encodeResponse(11, 6, 0x01020304, createJoinGroupResponse());
    expect(v6.subarray(4, 9).toString('hex')).toBe('0102030400');
    expect(v6.subarray(9, 13).toString('hex')).toBe('00000000'); // ThrottleTimeMs after the tag section
    expect(decodeResponseFrame(v5, 11, 5).correlationId).toBe(0x01020304);
    expect(decodeResponseFrame(v6, 11, 6).correlationId).toBe(0x01020304);
  });

  for (const v of [3, 4]) {
    it(`ApiVersions v${v} response: header v0 although the body is flexible`, () => {
      const frame = encodeResponse(18, v, 5, createApiVersionsResponse({ apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] }));
      const expected = b().i32(5).i16(0).carr(1).i16(18).i16(0).i16(4).tags().i32(0).tags().frame();
      expect(frame.toString('hex')).toBe(expected.toString('hex'));
      const d = decodeResponseFrame(frame, 18, v);
      expect(d.correlationId).toBe(5);
      expect(d.trailingBytes).toBe(0);
    });
  }

  it('the ApiVersions error response for an unknown version is written in the v0 layout (KIP-511)', () => {
    const body = createApiVersionsResponse({ errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] });
    const chunks = encodeResponseAtVersion(APIS[18] as ApiSpec, 99, 0, 11, body);
    const frame = Buffer.concat(chunks);
    expect(frame.toString('hex')).toBe(b().i32(11).i16(35).arr(1).i16(18).i16(0).i16(4).frame().toString('hex'));
    expect((decodeResponseFrame(frame, 18, 0).body as { errorCode: number }).errorCode).toBe(35);
  });
});

describe('frame envelope', () => {
  it('decodeRequest reports bytes left after the body', () => {
    const frame = encodeRequest({ apiKey: 11, apiVersion: 6, correlationId: 1, clientId: 'c' }, createJoinGroupRequest());
    const d = decodeRequest(Buffer.concat([frame.subarray(4), Buffer.from([1, 2, 3])]));
    expect(d.trailingBytes).toBe(3);
    expect(decodeResponse(Buffer.concat([encodeResponse(11, 6, 1, createJoinGroupResponse()).subarray(4), Buffer.from([9])]), 11, 6).trailingBytes).toBe(1);
  });

  it('a size prefix that disagrees with the frame is a DecodeError', () => {
    const frame = Buffer.from(encodeRequest({ apiKey: 11, apiVersion: 6, correlationId: 1 }, createJoinGroupRequest()));
    frame.writeInt32BE(frame.length - 3, 0);
    expect(() => decodeRequestFrame(frame)).toThrow(DecodeError);
    frame.writeInt32BE(-1, 0);
    expect(() => decodeRequestFrame(frame)).toThrow(DecodeError);
    expect(() => decodeResponseFrame(Buffer.from([0, 0, 0]), 11, 6)).toThrow(DecodeError);
    expect(() => decodeRequest(Buffer.alloc(7))).toThrow(DecodeError);
  });
});
