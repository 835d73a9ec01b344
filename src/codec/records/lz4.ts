// Kafka's LZ4 is the LZ4 *frame* format (KafkaLZ4BlockOutputStream / Lz4BlockOutputStream: FLG
// version 01, independent blocks, 64 KiB blocks, no content size, no checksums), not raw LZ4
// blocks. lz4-napi's compressFrameSync/decompressFrameSync speak that format (lz4_flex). Before
// handing a frame to it, this module walks the frame's block headers to bound the decompressed
// size (the decompression-bomb guard), and repairs the header checksum that magic-0 producers
// computed wrongly (KAFKA-3160).
import { lz4Lib } from './native.js';
import { DecodeError } from '../primitives/index.js';

const FRAME_MAGIC = 0x184d2204;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const BLOCK_UNCOMPRESSED_BIT = 0x80000000;
const BLOCK_MAX_SIZES: Record<number, number> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

// ---- xxHash32, enough for frame descriptors (at most 15 bytes) ---------------------------------
const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** xxHash32 (seed 0) of an input shorter than 16 bytes: the only case the frame header needs. */
export function xxh32Short(b: Uint8Array, start: number, end: number): number {
  const len = end - start;
  if (len >= 16) throw new RangeError('xxh32Short handles inputs below 16 bytes');
  let h = (P5 + len) | 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const w = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    h = Math.imul(rotl((h + Math.imul(w, P3)) | 0, 17), P4);
  }
  for (; i < end; i++) h = Math.imul(rotl((h + Math.imul(b[i], P5)) | 0, 11), P1);
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Header-checksum byte over [from, to): the descriptor, or (broken v0 variant) magic + descriptor. */
function headerChecksum(b: Uint8Array, from: number, to: number): number {
  return (xxh32Short(b, from, to) >>> 8) & 0xff;
}

interface FrameLayout {
  /** Position of the HC byte. */
  hcPos: number;
  /** One past the frame's last byte (end mark and content checksum included). */
  end: number;
  /** Upper bound of the decompressed size. */
  bound: number;
}

/** Walks one LZ4 frame's headers without decompressing; throws DecodeError on anything malformed. */
function walkFrame(buf: Buffer, maxSize: number): FrameLayout {
  if (buf.length < 7) throw new DecodeError(`lz4 frame of ${buf.length} bytes is too short`);
  const magic = buf.readUInt32LE(0);
  if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) throw new DecodeError('lz4 skippable frames are not supported');
  if (magic !== FRAME_MAGIC) throw new DecodeError(`not an lz4 frame (magic 0x${magic.toString(16)})`);
  const flg = buf[4];
  const bd = buf[5];
  if (flg >>> 6 !== 1) throw new DecodeError(`lz4 frame version ${flg >>> 6} is not supported`);
  const blockChecksum = (flg & 0x10) !== 0;
  const hasContentSize = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  const hasDictId = (flg & 0x01) !== 0;
  const blockMax = BLOCK_MAX_SIZES[(bd >>> 4) & 0x07];
  if (blockMax === undefined || (bd & 0x8f) !== 0) throw new DecodeError(`lz4 frame has invalid block descriptor 0x${bd.toString(16)}`);
  let pos = 6;
  let bound = 0;
  if (hasContentSize) {
    if (buf.length < pos + 8 + 1) throw new DecodeError('lz4 frame header is truncated');
    const size = buf.readBigUInt64LE(pos);
    if (size > BigInt(maxSize)) throw tooBig(size, maxSize);
    pos += 8;
  }
  if (hasDictId) pos += 4;
  const hcPos = pos;
  pos += 1;
  for (;;) {
    if (buf.length - pos < 4) throw new DecodeError('lz4 frame is truncated (no end mark)');
    const word = buf.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const uncompressed = (word & BLOCK_UNCOMPRESSED_BIT) !== 0;
    const size = word & ~BLOCK_UNCOMPRESSED_BIT;
    if (size > blockMax) throw new DecodeError(`lz4 block of ${size} bytes exceeds the frame's ${blockMax}-byte maximum`);
    const need = size + (blockChecksum ? 4 : 0);
    if (buf.length - pos < need) throw new DecodeError('lz4 frame is truncated inside a block');
    pos += need;
    // A stored block inflates to its own size. A compressed one to at most the block maximum,
    // and to at most 255 bytes per input byte: LZ4's best case is a match whose length is
    // extended by 255 per extra byte.
    bound += uncompressed ? size : Math.min(blockMax, size * 255 + 16);
    if (bound > maxSize) throw tooBig(bound, maxSize, 'at least ');
  }
  if (contentChecksum) {
    if (buf.length - pos < 4) throw new DecodeError('lz4 frame is truncated (content checksum)');
    pos += 4;
  }
  return { hcPos, end: pos, bound };
}

function tooBig(size: number | bigint, max: number, prefix = ''): DecodeError {
  return new DecodeError(`lz4 data would decompress to ${prefix}${size} bytes, more than the ${max}-byte limit`);
}

/**
 * Decompresses one Kafka LZ4 frame. `brokenHeaderChecksum` is for magic-0 messages, whose
 * producers hashed the magic number into the HC byte: Kafka ignores that byte for them, so it is
 * recomputed here (on a copy) before lz4_flex, which always checks it. Bytes after the frame's end
 * are ignored, as Kafka's stream reader does.
 */
export function lz4Decompress(buf: Buffer, maxSize: number, brokenHeaderChecksum = false): Buffer {
  const frame = walkFrame(buf, maxSize);
  let input = buf.subarray(0, frame.end);
  if (brokenHeaderChecksum) {
    input = Buffer.from(input);
    input[frame.hcPos] = headerChecksum(input, 4, frame.hcPos);
  }
  let out: Buffer;
  try {
    out = lz4Lib().decompressFrameSync(input);
  } catch (e) {
    throw new DecodeError(`lz4: ${(e as Error).message}`);
  }
  if (out.length > maxSize) throw tooBig(out.length, maxSize); // unreachable given the bound; kept as a backstop
  return out;
}

/**
 * Compresses into one LZ4 frame as Kafka expects (lz4_flex's defaults: independent blocks, no
 * checksums). For magic 0, rewrites the HC byte the broken way old Kafka readers expect.
 */
export function lz4Compress(data: Buffer, brokenHeaderChecksum = false): Buffer {
  const out = lz4Lib().compressFrameSync(data);
  if (brokenHeaderChecksum) {
    const flg = out[4];
    const hcPos = 6 + ((flg & 0x08) !== 0 ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
    out[hcPos] = headerChecksum(out, 0, hcPos);
  }
  return out;
}
