// zstd through @bokuweb/zstd-wasm. Its one-shot decompress sizes the output from the frame's
// declared content size (or a default when there is none) and mallocs that inside the WASM heap,
// so a hostile header could ask for gigabytes. This module therefore walks every frame's header
// and block headers first: the declared size, or a bound from the blocks when the size is absent
// (Java's zstd-jni streaming writer omits it), must fit the limit, and each frame is then
// decompressed into exactly that capacity.
import { zstdLib } from './native.js';
import { DecodeError } from '../primitives/index.js';

const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
/** Largest output of one compressed block (zstd's Block_Maximum_Size, 128 KiB). */
const BLOCK_MAX = 128 * 1024;

let ready: Promise<void> | null = null;
let initialised = false;

/** Loads the zstd WASM module; idempotent. Required once before zstd batches are encoded or decoded. */
export function initZstd(): Promise<void> {
  ready ??= zstdLib().init().then(() => {
    initialised = true;
  });
  return ready;
}

export function zstdReady(): boolean {
  return initialised;
}

function requireReady(): void {
  if (!initialised) throw new Error('zstd is not initialised: await initCompression() once before using zstd');
}

interface Frame {
  start: number;
  end: number;
  /** Capacity to decompress this frame into: its declared size, or the bound from its blocks. */
  capacity: number;
  /** Upper bound of the output from the block headers alone; 0 means the frame holds no data. */
  bound: number;
  skippable: boolean;
}

function walkFrames(buf: Buffer, maxSize: number): Frame[] {
  const frames: Frame[] = [];
  let total = 0;
  let pos = 0;
  if (buf.length === 0) throw new DecodeError('empty zstd data');
  while (pos < buf.length) {
    const start = pos;
    if (buf.length - pos < 4) throw new DecodeError('zstd frame is truncated');
    const magic = buf.readUInt32LE(pos);
    pos += 4;
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (buf.length - pos < 4) throw new DecodeError('zstd skippable frame is truncated');
      const size = buf.readUInt32LE(pos);
      pos += 4;
      if (size > buf.length - pos) throw new DecodeError('zstd skippable frame is truncated');
      pos += size;
      frames.push({ start, end: pos, capacity: 0, bound: 0, skippable: true });
      continue;
    }
    if (magic !== FRAME_MAGIC) throw new DecodeError(`not a zstd frame (magic 0x${magic.toString(16)})`);
    if (pos >= buf.length) throw new DecodeError('zstd frame header is truncated');
    const fhd = buf[pos++];
    const fcsFlag = fhd >>> 6;
    const singleSegment = (fhd & 0x20) !== 0;
    const hasChecksum = (fhd & 0x04) !== 0;
    if ((fhd & 0x08) !== 0) throw new DecodeError('zstd frame header has the reserved bit set');
    const dictIdSize = [0, 1, 2, 4][fhd & 0x03];
    const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag];
    const headerRest = (singleSegment ? 0 : 1) + dictIdSize + fcsSize;
    if (buf.length - pos < headerRest) throw new DecodeError('zstd frame header is truncated');
    pos += (singleSegment ? 0 : 1) + dictIdSize;
    let declared = -1;
    if (fcsSize === 1) declared = buf[pos];
    else if (fcsSize === 2) declared = buf.readUInt16LE(pos) + 256;
    else if (fcsSize === 4) declared = buf.readUInt32LE(pos);
    else if (fcsSize === 8) {
      const v = buf.readBigUInt64LE(pos);
      declared = v > BigInt(maxSize) ? Number.MAX_SAFE_INTEGER : Number(v);
    }
    pos += fcsSize;
    if (declared > maxSize) throw tooBig(declared, maxSize);
    let bound = 0;
    for (;;) {
      if (buf.length - pos < 3) throw new DecodeError('zstd block header is truncated');
      const bh = buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16);
      pos += 3;
      const last = (bh & 1) !== 0;
      const type = (bh >>> 1) & 3;
      const size = bh >>> 3;
      if (type === 3) throw new DecodeError('zstd block has the reserved type');
      const stored = type === 1 ? 1 : size; // an RLE block stores one byte, repeated `size` times
      if (buf.length - pos < stored) throw new DecodeError('zstd block is truncated');
      pos += stored;
      bound += type === 2 ? BLOCK_MAX : size;
      if (declared < 0 && total + bound > maxSize) throw tooBig(total + bound, maxSize, 'up to ');
      if (last) break;
    }
    if (hasChecksum) {
      if (buf.length - pos < 4) throw new DecodeError('zstd frame checksum is truncated');
      pos += 4;
    }
    const capacity = declared >= 0 ? declared : bound;
    total += capacity;
    if (total > maxSize) throw tooBig(total, maxSize, declared >= 0 ? '' : 'up to ');
    frames.push({ start, end: pos, capacity, bound, skippable: false });
  }
  return frames;
}

function tooBig(size: number, max: number, prefix = ''): DecodeError {
  return new DecodeError(`zstd data would decompress to ${prefix}${size} bytes, more than the ${max}-byte limit`);
}

/** Decompresses zstd data (one or more frames), bounded by `maxSize`. */
export function zstdDecompress(buf: Buffer, maxSize: number): Buffer {
  requireReady();
  const frames = walkFrames(buf, maxSize);
  const parts: Buffer[] = [];
  for (const f of frames) {
    if (f.skippable) continue;
    if (f.bound === 0) continue; // only empty raw/RLE blocks: nothing to inflate
    let out: Uint8Array;
    try {
      // The library sizes its output from the declared content size when there is one (checked
      // above), else from defaultHeapSize: our block bound.
      out = zstdLib().decompress(buf.subarray(f.start, f.end), { defaultHeapSize: f.capacity });
    } catch (e) {
      throw new DecodeError(`zstd: ${(e as Error).message}`);
    }
    parts.push(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

export function zstdCompress(data: Buffer, level = 3): Buffer {
  requireReady();
  const out = zstdLib().compress(data, level);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
