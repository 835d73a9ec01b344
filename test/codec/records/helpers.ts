// Test-only helpers: tiny independent decoders for raw snappy and LZ4 blocks, written from the
// format descriptions, so the compressed bytes kmock emits are checked by something other than
// the library that produced them. Plus kafkajs's own encoders and CRCs (loaded through
// createRequire) for building reference batches and messages at test time.
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { DecodeError } from '../../../src/codec/primitives/index.js';

export const require = createRequire(import.meta.url);

/** Raw snappy block decoder (format_description.txt of google/snappy). */
export function snappyRawDecode(src: Buffer): Buffer {
  let pos = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[pos++];
    len += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
  }
  const out = Buffer.alloc(len);
  let o = 0;
  while (pos < src.length) {
    const tag = src[pos++];
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const bytes = n - 59;
        n = 0;
        for (let i = 0; i < bytes; i++) n |= src[pos++] << (8 * i);
      }
      n += 1;
      src.copy(out, o, pos, pos + n);
      pos += n;
      o += n;
      continue;
    }
    let n: number;
    let offset: number;
    if (kind === 1) {
      n = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[pos++];
    } else if (kind === 2) {
      n = (tag >>> 2) + 1;
      offset = src.readUInt16LE(pos);
      pos += 2;
    } else {
      n = (tag >>> 2) + 1;
      offset = src.readUInt32LE(pos);
      pos += 4;
    }
    if (offset === 0 || offset > o) throw new Error('bad snappy copy offset');
    for (let i = 0; i < n; i++, o++) out[o] = out[o - offset];
  }
  if (o !== len) throw new Error(`snappy produced ${o} bytes, preamble said ${len}`);
  return out;
}

/** LZ4 block decoder (lz4_Block_format.md). */
export function lz4BlockDecode(src: Buffer, maxOut: number): Buffer {
  const out = Buffer.alloc(maxOut);
  let o = 0;
  let pos = 0;
  for (;;) {
    const token = src[pos++];
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        b = src[pos++];
        lit += b;
      } while (b === 255);
    }
    src.copy(out, o, pos, pos + lit);
    pos += lit;
    o += lit;
    if (pos >= src.length) break;
    const offset = src.readUInt16LE(pos);
    pos += 2;
    let m = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        b = src[pos++];
        m += b;
      } while (b === 255);
    }
    for (let i = 0; i < m; i++, o++) out[o] = out[o - offset];
  }
  return out.subarray(0, o);
}

/** Parses an LZ4 frame by hand and decodes its blocks with `lz4BlockDecode`. */
export function lz4FrameDecode(frame: Buffer): { flg: number; bd: number; hc: number; data: Buffer; blocks: number } {
  expect(frame.readUInt32LE(0)).toBe(0x184d2204);
  const flg = frame[4];
  const bd = frame[5];
  let pos = 6;
  if (flg & 0x08) pos += 8;
  if (flg & 0x01) pos += 4;
  const hc = frame[pos++];
  const blockMax = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20][(bd >>> 4) & 7];
  const parts: Buffer[] = [];
  let blocks = 0;
  for (;;) {
    const word = frame.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    blocks++;
    const size = word & 0x7fffffff;
    const block = frame.subarray(pos, pos + size);
    pos += size + (flg & 0x10 ? 4 : 0);
    parts.push(word & 0x80000000 ? Buffer.from(block) : lz4BlockDecode(block, blockMax));
  }
  if (flg & 0x04) pos += 4;
  expect(pos).toBe(frame.length);
  return { flg, bd, hc, data: Buffer.concat(parts), blocks };
}

/** Runs `fn`, expecting a DecodeError (and nothing else). */
export function expectDecodeError(fn: () => unknown, pattern?: RegExp): DecodeError {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw new Error(`expected a DecodeError, got ${String(e)}`, { cause: e });
    if (pattern !== undefined) expect(e.message).toMatch(pattern);
    return e;
  }
  throw new Error('expected a DecodeError, but nothing was thrown');
}

/** Bytes from a list of numbers and buffers. */
export function bytes(...parts: (number[] | Buffer)[]): Buffer {
  return Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));
}

// ---- independent encoders: kafkajs 2.2.4's own protocol modules, run at test time ----------------

type KEnc = { buffer: Buffer };
const kRecordBatch = (require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (o: Record<string, unknown>) => Promise<KEnc> }).RecordBatch;
const kRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: Record<string, unknown>) => KEnc;
const kMessageSet = require('kafkajs/src/protocol/messageSet') as (o: Record<string, unknown>) => KEnc;
const kCrc32 = require('kafkajs/src/protocol/crc32') as (e: KEnc) => number;

/** kafkajs's CRC-32C (Castagnoli) table implementation. */
export const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C') as (b: Buffer) => number;
/** kafkajs's CRC-32 (IEEE) table implementation, unsigned. */
export const kafkajsCrc32 = (b: Buffer): number => kCrc32({ buffer: b }) >>> 0;
/** kafkajs's compression codec ids. */
export const KAFKAJS_CODEC = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

export interface KafkajsBatchSpec {
  baseOffset: bigint;
  partitionLeaderEpoch: number;
  baseTimestamp: number;
  maxTimestamp: number;
  transactional: boolean;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  /** kafkajs ships gzip and no other codec; default none. */
  compression?: 'none' | 'gzip';
  records: { key: Buffer | null; value: Buffer | null; timestampDelta: number; headers?: Record<string, Buffer> }[];
}

/** A v2 record batch written by kafkajs's RecordBatch encoder (CRC and gzip by kafkajs). */
export async function kafkajsBatch(s: KafkajsBatchSpec): Promise<Buffer> {
  const batch = await kRecordBatch({
    compression: KAFKAJS_CODEC[s.compression ?? 'none'],
    firstOffset: s.baseOffset,
    partitionLeaderEpoch: s.partitionLeaderEpoch,
    firstTimestamp: s.baseTimestamp,
    maxTimestamp: s.maxTimestamp,
    lastOffsetDelta: Math.max(0, s.records.length - 1),
    transactional: s.transactional,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    firstSequence: s.baseSequence,
    records: s.records.map((r, i) => kRecord({ offsetDelta: i, timestampDelta: r.timestampDelta, key: r.key, value: r.value, headers: r.headers ?? {} })),
  });
  return Buffer.from(batch.buffer);
}

/**
 * kafkajs cannot write control batches: set the control attribute bit (0x20) on one of its
 * batches and recompute the CRC-32C (over attributes..end) with kafkajs's own CRC code.
 */
export function withControlBit(batch: Buffer): Buffer {
  const b = Buffer.from(batch);
  b.writeInt16BE(b.readInt16BE(21) | 0x20, 21);
  b.writeUInt32BE(kafkajsCrc32c(b.subarray(21)), 17);
  return b;
}

/**
 * A legacy message set written by kafkajs's MessageSet encoder (CRC-32 by kafkajs): offsets
 * 0..n-1; an entry's `compression` (a KAFKAJS_CODEC id) only sets its attribute bits, the value
 * is written as given.
 */
export function kafkajsMessageSet(
  magic: 0 | 1,
  entries: { key: Buffer | null; value: Buffer | null; timestamp?: number; compression?: number }[],
  firstOffset = 0n,
): Buffer {
  const out = Buffer.from(kMessageSet({ messageVersion: magic, entries }).buffer);
  for (let pos = 0, i = 0n; pos < out.length; pos += 12 + out.readInt32BE(pos + 8), i++) out.writeBigInt64BE(firstOffset + i, pos);
  return out;
}
