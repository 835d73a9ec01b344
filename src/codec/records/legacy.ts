// Legacy message sets, magic 0 (Kafka 0.8-0.9) and magic 1 (0.10, adds a timestamp), for old
// clients. Each message: offset int64 | size int32 | crc uint32 (CRC-32 of the rest) | magic int8
// | attributes int8 | [timestamp int64, magic 1] | key int32-length bytes | value likewise.
// Compression wraps a whole inner message set into the value of one "wrapper" message; for magic
// 1 the inner offsets are relative and the wrapper carries the absolute offset of the last one.
import { DecodeError, EncodeError, Reader, Writer } from '../primitives/index.js';
import {
  COMPRESSION_CODEC_MASK,
  CompressionCodec,
  compressionName,
  DEFAULT_MAX_DECOMPRESSED_SIZE,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MESSAGE_OVERHEAD_V0,
  NO_TIMESTAMP,
  TIMESTAMP_TYPE_MASK,
  type CompressionName,
  type TimestampTypeId,
} from './constants.js';
import { compress, decompress } from './compression.js';
import { crc32 } from './crc.js';
import { readTimestamp } from './header.js';
import { entrySizeAt } from './iterate.js';
import { checkInt, toBytes, type BytesInput } from './record.js';
import type { DecodeOptions } from './batch.js';

/** Where the CRC-32 of a legacy message is stored; it covers the bytes from the magic on. */
const LEGACY_CRC_OFFSET = 12;
const LEGACY_ATTRIBUTES_OFFSET = 17;

export interface LegacyMessage {
  /**
   * The offset as Kafka reports it: for messages inside a magic-1 wrapper, made absolute from the
   * wrapper's offset (when that gives a non-negative base, Kafka's rule); otherwise as on the wire.
   */
  offset: bigint;
  magic: 0 | 1;
  /** CRC-32 as stored, unsigned. */
  crc: number;
  attributes: number;
  compression: CompressionName;
  /** Attribute bit 3, magic 1 only (0 for magic 0). Inner messages inherit LogAppendTime from their wrapper. */
  timestampType: TimestampTypeId;
  /** Milliseconds (-1 = none); null for magic 0, which has no timestamp. */
  timestamp: number | null;
  key: Buffer | null;
  value: Buffer | null;
}

/** One top-level entry of a message set: a message, or a compressed wrapper and its inner messages. */
export interface LegacyEntry extends LegacyMessage {
  /** The messages a consumer sees: the inner ones of a wrapper, else just this message. */
  messages: LegacyMessage[];
}

/** Parses one legacy message occupying all of `bytes` (log overhead included); no decompression. */
function readMessage(bytes: Buffer, verifyCrc: boolean): LegacyMessage {
  const magic = bytes.readInt8(MAGIC_OFFSET);
  if (magic !== 0 && magic !== 1) throw new DecodeError(`legacy message has magic ${magic}`);
  const crc = bytes.readUInt32BE(LEGACY_CRC_OFFSET);
  if (verifyCrc) {
    const computed = crc32(bytes, MAGIC_OFFSET);
    if (computed !== crc) {
      throw new DecodeError(`legacy message CRC mismatch: stored 0x${crc.toString(16)}, computed 0x${computed.toString(16)}`);
    }
  }
  const r = new Reader(bytes, LEGACY_ATTRIBUTES_OFFSET);
  const attributes = r.int8();
  let timestamp: number | null = null;
  if (magic === 1) {
    r.need(8);
    timestamp = readTimestamp(bytes, r.pos, 'message timestamp');
    r.pos += 8;
  }
  const key = r.nullableBytes();
  const value = r.nullableBytes();
  if (r.remaining !== 0) throw new DecodeError(`legacy message has ${r.remaining} bytes left after its value`);
  const compression = compressionName(attributes & COMPRESSION_CODEC_MASK);
  if (compression === undefined) throw new DecodeError(`legacy message has unknown compression codec ${attributes & COMPRESSION_CODEC_MASK}`);
  return {
    offset: bytes.readBigInt64BE(0),
    magic,
    crc,
    attributes,
    compression,
    timestampType: magic === 1 && (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0,
    timestamp,
    key,
    value,
  };
}

/**
 * Decodes one top-level legacy entry (exactly `bytes`), expanding a compressed wrapper into its
 * inner messages with Kafka's rules: inner messages must be uncompressed (no nesting), there must
 * be at least one, and any truncation inside the decompressed set is corruption. Offsets are made
 * absolute when the wrapper is magic 1, whatever the inner messages' magic.
 */
export function decodeLegacyEntry(bytes: Buffer, options?: DecodeOptions): LegacyEntry {
  const size = entrySizeAt(bytes, 0);
  if (size !== bytes.length) throw new DecodeError(`legacy message declares ${size ?? 'more'} bytes but ${bytes.length} were given`);
  const verifyCrc = options?.verifyCrc !== false;
  const wrapper = readMessage(bytes, verifyCrc);
  if (wrapper.compression === 'none') return { ...wrapper, messages: [wrapper] };

  if (wrapper.value === null) throw new DecodeError('compressed legacy message has a null value');
  const inner = decompress(wrapper.compression, wrapper.value, {
    maxSize: options?.maxDecompressedSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE,
    magic: wrapper.magic,
  });
  const messages: LegacyMessage[] = [];
  let pos = 0;
  while (pos < inner.length) {
    const n = entrySizeAt(inner, pos);
    if (n === null) throw new DecodeError(`inner message at byte ${pos} of a compressed message set is truncated`);
    // Inner messages may have another magic than the wrapper (sarama writes magic 0 inside magic 1):
    // Kafka's consumer-side DeepRecordsIterator accepts that (ensureMatchingMagic = false), so do we.
    const m = readMessage(inner.subarray(pos, pos + n), verifyCrc);
    if (m.compression !== 'none') throw new DecodeError('inner messages of a compressed message must not be compressed');
    if (wrapper.timestampType === 1 && m.magic === 1) {
      // LogAppendTime is stamped on the wrapper only; Kafka's LegacyRecord reports it for every inner message.
      m.timestamp = wrapper.timestamp;
      m.timestampType = 1;
    }
    messages.push(m);
    pos += n;
  }
  if (messages.length === 0) throw new DecodeError('compressed legacy message holds no inner messages');
  if (wrapper.magic === 1) {
    const base = wrapper.offset - messages[messages.length - 1].offset;
    if (base >= 0n) for (const m of messages) m.offset += base;
  }
  return { ...wrapper, messages };
}

// ---- encoding ------------------------------------------------------------------------------------

export interface LegacyMessageInput {
  key?: BytesInput;
  value?: BytesInput;
  /** Magic 1 only; default -1 (no timestamp). */
  timestamp?: number;
  /** Uncompressed sets only: this message's offset (default baseOffset + index). */
  offset?: bigint;
}

export interface MessageSetInput {
  magic: 0 | 1;
  messages: readonly LegacyMessageInput[];
  /** Default none. zstd is refused: Kafka only allows it with magic 2. */
  compression?: CompressionName;
  /** Offset of the first message; default 0n. */
  baseOffset?: bigint;
  /** Magic 1: sets the LogAppendTime attribute bit (on the wrapper when compressed). */
  timestampType?: TimestampTypeId;
  /** Magic 1, compressed: the wrapper's timestamp; default the largest inner timestamp. */
  wrapperTimestamp?: number;
}

/**
 * Encodes a legacy message set. Uncompressed: one entry per message. Compressed: one wrapper whose
 * value is the compressed inner set, written the way Kafka's producers do (magic 1 inner offsets
 * relative 0..n-1, magic 0 absolute) and whose offset is the last inner message's absolute offset.
 */
export function encodeMessageSet(input: MessageSetInput): Buffer {
  const { magic } = input;
  if (magic !== 0 && magic !== 1) throw new EncodeError(`legacy magic must be 0 or 1, got ${String(magic)}`);
  const compression = input.compression ?? 'none';
  const codec = CompressionCodec[compression];
  if (codec === undefined) throw new EncodeError(`unknown compression ${String(compression)}`);
  if (codec === CompressionCodec.zstd) throw new EncodeError('zstd compression needs magic 2');
  const baseOffset = input.baseOffset ?? 0n;
  const tsBit = magic === 1 && input.timestampType === 1 ? TIMESTAMP_TYPE_MASK : 0;

  if (codec === 0) {
    return Buffer.concat(
      input.messages.map((m, i) =>
        encodeMessage(magic, m.offset ?? baseOffset + BigInt(i), tsBit, m.timestamp ?? NO_TIMESTAMP, toBytes(m.key), toBytes(m.value)),
      ),
    );
  }
  if (input.messages.length === 0) throw new EncodeError('a compressed message set needs at least one message');
  let maxTs = NO_TIMESTAMP;
  const inner = Buffer.concat(
    input.messages.map((m, i) => {
      const ts = m.timestamp ?? NO_TIMESTAMP;
      if (ts > maxTs) maxTs = ts;
      const offset = magic === 1 ? BigInt(i) : baseOffset + BigInt(i);
      return encodeMessage(magic, offset, 0, ts, toBytes(m.key), toBytes(m.value));
    }),
  );
  const lastOffset = baseOffset + BigInt(input.messages.length - 1);
  const value = compress(compression, inner, magic);
  return encodeMessage(magic, lastOffset, codec | tsBit, input.wrapperTimestamp ?? maxTs, null, value);
}

/** One message, log overhead included, CRC computed. */
export function encodeMessage(
  magic: 0 | 1,
  offset: bigint,
  attributes: number,
  timestamp: number,
  key: Buffer | null,
  value: Buffer | null,
): Buffer {
  checkInt(attributes, -128, 127, 'message attributes');
  const size =
    MESSAGE_OVERHEAD_V0 + (magic === 1 ? 8 : 0) + (key === null ? 0 : key.length) + (value === null ? 0 : value.length);
  if (size > 0x7fffffff) throw new EncodeError('legacy message is larger than 2 GiB');
  const w = new Writer(LOG_OVERHEAD + size);
  w.int64(offset);
  w.int32(size);
  w.uint32(0); // CRC, filled in below
  w.int8(magic);
  w.int8(attributes);
  if (magic === 1) {
    if (!Number.isSafeInteger(timestamp)) throw new EncodeError(`message timestamp ${timestamp} is not a safe integer`);
    w.int64(BigInt(timestamp));
  }
  w.bytes(key);
  w.bytes(value);
  const out = w.finish();
  out.writeUInt32BE(crc32(out, MAGIC_OFFSET), LEGACY_CRC_OFFSET);
  return out;
}

// ---- reading as Kafka's broker does --------------------------------------------------------------

/**
 * One legacy message read the way Kafka's LegacyRecord reads it on the broker: fields at fixed
 * positions, key and value size-delimited (any negative length is null), bytes after the value
 * ignored, the CRC reported rather than enforced. `decodeLegacyEntry` is the strict reader for
 * consumers and tools; this one lets the broker fail in Kafka's order (framing, size, CRC, then
 * what the record holds).
 */
export interface LegacyRecordView {
  /** The offset field as on the wire (an inner message's may be relative). */
  offset: bigint;
  magic: number;
  attributes: number;
  /** attributes & 7; 5-7 are not codecs Kafka knows. */
  codec: number;
  /** The stored CRC-32, unsigned. */
  storedCrc: number;
  /** Whether the CRC-32 of the bytes from the magic on equals `storedCrc` (LegacyRecord.isValid). */
  crcValid: boolean;
  /** Magic 1: the int64 timestamp field as stored (Kafka accepts any long); magic 0: -1n (none). */
  timestamp: bigint;
  /** Magic 1: the attribute's timestamp type bit; magic 0 has no timestamp type (0 here). */
  timestampType: TimestampTypeId;
  /** Null when the key or value length runs past the message: Kafka fails reading it then. */
  key: Buffer | null;
  value: Buffer | null;
  /** Set when the key or value does not fit in the message (Kafka throws on access, not on read). */
  malformed: string | null;
}

/**
 * Reads the legacy message `entry` (log overhead included, at least the 26 bytes of a v0 message;
 * the caller has framed it). Never throws for bad contents: a key or value that does not fit sets
 * `malformed`, because Kafka only fails when something reads them.
 */
export function readLegacyRecord(entry: Buffer): LegacyRecordView {
  if (entry.length < LOG_OVERHEAD + MESSAGE_OVERHEAD_V0) {
    throw new DecodeError(`legacy message of ${entry.length} bytes is shorter than the ${LOG_OVERHEAD + MESSAGE_OVERHEAD_V0}-byte minimum`);
  }
  const magic = entry.readInt8(MAGIC_OFFSET);
  const attributes = entry.readInt8(LEGACY_ATTRIBUTES_OFFSET);
  const storedCrc = entry.readUInt32BE(LEGACY_CRC_OFFSET);
  const view: LegacyRecordView = {
    offset: entry.readBigInt64BE(0),
    magic,
    attributes,
    codec: attributes & COMPRESSION_CODEC_MASK,
    storedCrc,
    crcValid: crc32(entry, MAGIC_OFFSET) === storedCrc,
    timestamp: -1n,
    timestampType: 0,
    key: null,
    value: null,
    malformed: null,
  };
  let pos = LEGACY_ATTRIBUTES_OFFSET + 1;
  if (magic > 0) {
    if (entry.length < pos + 8) {
      view.malformed = 'the message ends inside its timestamp';
      return view;
    }
    view.timestamp = entry.readBigInt64BE(pos);
    view.timestampType = (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0;
    pos += 8;
  }
  for (const field of ['key', 'value'] as const) {
    if (entry.length < pos + 4) {
      view.malformed = `the message ends inside its ${field} length`;
      return view;
    }
    const n = entry.readInt32BE(pos);
    pos += 4;
    if (n < 0) continue;
    if (n > entry.length - pos) {
      view.malformed = `its ${field} of ${n} bytes runs past the end of the message`;
      return view;
    }
    view[field] = entry.subarray(pos, pos + n);
    pos += n;
  }
  return view;
}
