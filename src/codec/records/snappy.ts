// Kafka's snappy is the xerial snappy-java *stream* format, not raw snappy and not the official
// snappy framing format: a 16-byte header (magic 82 'SNAPPY' 00, int32 version 1, int32 compatible
// version 1) then blocks, each an int32 big-endian length and one raw snappy block. Java clients
// write that; librdkafka, sarama and others may send raw snappy, which xerial's reader (and
// Kafka) also accepts, so decoding takes both. The `snappy` package does the raw block work.
import { snappyLib } from './native.js';
import { DecodeError } from '../primitives/index.js';

export const XERIAL_MAGIC: Buffer = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;
/** snappy-java's SnappyOutputStream default block size, which Kafka uses. */
const XERIAL_BLOCK_SIZE = 32 * 1024;
/** The first 4 magic bytes as a big-endian int32: xerial treats that "length" as a concatenated stream's header. */
const MAGIC_HEAD = XERIAL_MAGIC.readInt32BE(0);

export function isXerialFramed(buf: Buffer): boolean {
  return buf.length >= XERIAL_HEADER_SIZE && buf.compare(XERIAL_MAGIC, 0, 8, 0, 8) === 0;
}

/** The uncompressed length a raw snappy block announces in its uvarint preamble. */
function rawLength(block: Buffer): number {
  let result = 0;
  for (let i = 0, shift = 0; i < 5 && i < block.length; i++, shift += 7) {
    const b = block[i];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) {
      if (result > 0xffffffff) break;
      return result;
    }
  }
  throw new DecodeError('snappy block has an invalid length preamble');
}

function uncompressRaw(block: Buffer): Buffer {
  try {
    return snappyLib().uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (e) {
    throw new DecodeError(`snappy: ${(e as Error).message}`);
  }
}

function tooBig(size: number, max: number): DecodeError {
  return new DecodeError(`snappy data would decompress to ${size} bytes, more than the ${max}-byte limit`);
}

/**
 * Decompresses xerial-framed or raw snappy. Every block's announced size is checked against the
 * limit before any block is inflated.
 */
export function snappyDecompress(buf: Buffer, maxSize: number): Buffer {
  if (!isXerialFramed(buf)) {
    const n = rawLength(buf);
    if (n > maxSize) throw tooBig(n, maxSize);
    return uncompressRaw(buf);
  }
  // First pass: find the blocks and add up their announced sizes.
  const blocks: Buffer[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  while (pos < buf.length) {
    if (buf.length - pos < 4) throw new DecodeError('xerial snappy block length is truncated');
    const len = buf.readInt32BE(pos);
    if (len === MAGIC_HEAD && isXerialFramed(buf.subarray(pos))) {
      pos += XERIAL_HEADER_SIZE; // streams written back to back: skip the next header
      continue;
    }
    pos += 4;
    if (len < 0 || len > buf.length - pos) {
      throw new DecodeError(`xerial snappy block of ${len} bytes does not fit the ${buf.length - pos} bytes left`);
    }
    const block = buf.subarray(pos, pos + len);
    pos += len;
    if (len === 0) continue;
    total += rawLength(block);
    if (total > maxSize) throw tooBig(total, maxSize);
    blocks.push(block);
  }
  if (blocks.length === 1) return uncompressRaw(blocks[0]);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const block of blocks) at += uncompressRaw(block).copy(out, at);
  return out;
}

/** Compresses in xerial framing with 32 KiB blocks, as Kafka's Java producer does. */
export function snappyCompress(data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
  for (let pos = 0; pos < data.length; pos += XERIAL_BLOCK_SIZE) {
    const block = snappyLib().compressSync(data.subarray(pos, Math.min(data.length, pos + XERIAL_BLOCK_SIZE)));
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}
