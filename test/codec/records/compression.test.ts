import * as zlib from 'node:zlib';
import { decompressFrameSync, compressFrameSync } from 'lz4-napi';
import { compressSync as snappyRaw } from 'snappy';
import { compress as zstdLib } from '@bokuweb/zstd-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { compress, decompress, initCompression, isXerialFramed } from '../../../src/codec/records/index.js';
import { xxh32Short } from '../../../src/codec/records/lz4.js';
import { bytes, expectDecodeError, lz4FrameDecode, snappyRawDecode } from './helpers.js';

beforeAll(async () => {
  await initCompression();
});

const text = Buffer.from('kafka record batch '.repeat(5000)); // ~95 KB: several snappy and lz4 blocks
const noise = Buffer.from(Array.from({ length: 70000 }, (_, i) => (i * 2654435761) >>> 24)); // poorly compressible

describe('round trips', () => {
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(codec, () => {
      for (const data of [Buffer.alloc(0), Buffer.from('x'), text, noise]) {
        expect(decompress(codec, compress(codec, data)).equals(data)).toBe(true);
      }
    });
  }
});

describe('snappy: xerial framing', () => {
  it('writes the xerial header and 32 KiB blocks of raw snappy, checked by an independent decoder', () => {
    const out = compress('snappy', text);
    expect(out.subarray(0, 16).toString('hex')).toBe('82534e41505059000000000100000001');
    expect(isXerialFramed(out)).toBe(true);
    const blocks: Buffer[] = [];
    let pos = 16;
    while (pos < out.length) {
      const n = out.readInt32BE(pos);
      blocks.push(snappyRawDecode(out.subarray(pos + 4, pos + 4 + n)));
      pos += 4 + n;
    }
    expect(pos).toBe(out.length);
    expect(blocks.map((b) => b.length)).toEqual([32768, 32768, text.length - 65536]);
    expect(Buffer.concat(blocks).equals(text)).toBe(true);
  });

  it('reads raw (unframed) snappy too', () => {
    expect(decompress('snappy', snappyRaw(text)).equals(text)).toBe(true);
  });

  it('reads xerial streams written back to back (a second header mid-stream)', () => {
    const a = compress('snappy', Buffer.from('first;'));
    const b = compress('snappy', Buffer.from('second'));
    expect(decompress('snappy', Buffer.concat([a, b])).toString()).toBe('first;second');
  });

  it('rejects a block length that runs past the end, or a negative one', () => {
    const out = compress('snappy', Buffer.from('hello'));
    const bad = Buffer.from(out);
    bad.writeInt32BE(1000, 16);
    expectDecodeError(() => decompress('snappy', bad), /does not fit/);
    bad.writeInt32BE(-5, 16);
    expectDecodeError(() => decompress('snappy', bad), /does not fit/);
    expectDecodeError(() => decompress('snappy', out.subarray(0, out.length - 1)));
  });

  it('bomb guard: refuses on the announced sizes, before inflating', () => {
    const big = compress('snappy', Buffer.alloc(200_000));
    expectDecodeError(() => decompress('snappy', big, { maxSize: 100_000 }), /more than the 100000-byte limit/);
    // a raw block whose preamble claims 4 GiB - 1
    expectDecodeError(() => decompress('snappy', bytes([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00])), /limit/);
  });
});

describe('lz4: frame format', () => {
  it('writes an LZ4 frame Kafka reads: version 01, independent blocks, no checksums; blocks decode independently', () => {
    const out = compress('lz4', text);
    const f = lz4FrameDecode(out);
    expect(f.flg).toBe(0x60);
    expect(f.hc).toBe((xxh32Short(out, 4, 6) >>> 8) & 0xff);
    expect(f.data.equals(text)).toBe(true);
  });

  it('magic 0: writes the broken header checksum (over magic + descriptor) and reads it back', () => {
    const out = compress('lz4', text, 0);
    expect(out[6]).toBe((xxh32Short(out, 0, 6) >>> 8) & 0xff);
    expect(out[6]).not.toBe((xxh32Short(out, 4, 6) >>> 8) & 0xff);
    expect(() => decompressFrameSync(out)).toThrow(); // a standard reader refuses it...
    expect(decompress('lz4', out, { magic: 0 }).equals(text)).toBe(true); // ...Kafka (and we) ignore it for magic 0
    expectDecodeError(() => decompress('lz4', out, { magic: 1 }));
  });

  it('reads frames with block and content checksums', () => {
    const out = compressFrameSync(text, { blockChecksums: true, contentChecksum: true });
    expect(out[4] & 0x14).toBe(0x14);
    expect(decompress('lz4', out).equals(text)).toBe(true);
  });

  it('rejects truncated frames and bad magic', () => {
    const out = compress('lz4', text);
    for (const cut of [3, 6, 7, 12, out.length - 1]) expectDecodeError(() => decompress('lz4', out.subarray(0, cut)));
    const bad = Buffer.from(out);
    bad[0] ^= 1;
    expectDecodeError(() => decompress('lz4', bad), /not an lz4 frame/);
  });

  it('bomb guard: bounds the output from the block headers', () => {
    const out = compress('lz4', Buffer.alloc(1_000_000));
    expectDecodeError(() => decompress('lz4', out, { maxSize: 100_000 }), /limit/);
    expect(decompress('lz4', out, { maxSize: 2_000_000 }).length).toBe(1_000_000);
  });
});

describe('gzip', () => {
  it('bomb guard: stops inflating at the limit', () => {
    const bomb = zlib.gzipSync(Buffer.alloc(10_000_000));
    expect(bomb.length).toBeLessThan(20_000);
    expectDecodeError(() => decompress('gzip', bomb, { maxSize: 1_000_000 }), /limit/);
  });

  it('corrupt data is a DecodeError', () => {
    expectDecodeError(() => decompress('gzip', Buffer.from('not gzip')), /gzip/);
  });
});

describe('zstd', () => {
  it('bomb guard: the declared content size is checked before decompressing', () => {
    const out = compress('zstd', Buffer.alloc(1_000_000));
    expectDecodeError(() => decompress('zstd', out, { maxSize: 100_000 }), /limit/);
  });

  it('frames without a content size (as zstd-jni streams write) are bounded by their blocks', () => {
    // Hand-built frame: FHD 0 (no content size, not single-segment), window descriptor, one raw block.
    const payload = Buffer.from('no content size here');
    const frame = bytes([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00], [((payload.length << 3) | 1) & 0xff, (payload.length >>> 5) & 0xff, 0], payload);
    expect(decompress('zstd', frame).equals(payload)).toBe(true);
    // An RLE block announcing 100 KB from one stored byte.
    const rle = bytes([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50], [((100_000 << 3) | 3) & 0xff, (100_000 >>> 5) & 0xff, (100_000 >>> 13) & 0xff, 7]);
    expect(decompress('zstd', rle).equals(Buffer.alloc(100_000, 7))).toBe(true);
    expectDecodeError(() => decompress('zstd', rle, { maxSize: 50_000 }), /limit/);
  });

  it('reads concatenated frames', () => {
    const a = Buffer.from(zstdLib(Buffer.from('frame one, '), 3));
    const b = Buffer.from(zstdLib(Buffer.from('frame two'), 3));
    expect(decompress('zstd', Buffer.concat([a, b])).toString()).toBe('frame one, frame two');
  });

  it('corrupt or truncated data is a DecodeError', () => {
    const out = compress('zstd', text);
    for (const cut of [0, 2, 5, out.length - 1]) expectDecodeError(() => decompress('zstd', out.subarray(0, cut)));
    // Garble the first block's payload (zstd-wasm writes no checksum, so it must fail in decoding).
    const fhd = out[4];
    const single = (fhd & 0x20) !== 0;
    const blockStart = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + [single ? 1 : 0, 2, 4, 8][fhd >>> 6];
    expect((out[blockStart] >>> 1) & 3).toBe(2); // a compressed block
    const bad = Buffer.from(out);
    bad.fill(0xff, blockStart + 3);
    expectDecodeError(() => decompress('zstd', bad));
    const reserved = Buffer.from(out);
    reserved[blockStart] |= 0x06; // block type 3 is reserved
    expectDecodeError(() => decompress('zstd', reserved), /reserved/);
  });

  it('refuses zstd with magic < 2 on encode', () => {
    expect(() => compress('zstd', text, 1)).toThrow(/magic 2/);
  });
});
