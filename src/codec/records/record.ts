// One record inside a v2 batch (Kafka's DefaultRecord):
//   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
//   key varint-length bytes (-1 = null) | value likewise | headers: varint count, then
//   key (varint length, UTF-8, never null) and value (varint length, -1 = null).
import {
  DecodeError,
  EncodeError,
  Reader,
  sizeOfVarint,
  sizeOfVarlongNumber,
  type Writer,
} from '../primitives/index.js';

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

/** A decoded record. Buffers are views of the batch (or of its decompressed records): no copies. */
export interface KafkaRecord {
  /** Record-level attributes: unused by Kafka (always 0), kept for faithful round trips. */
  attributes: number;
  /** Milliseconds from the batch's baseTimestamp, as on the wire. */
  timestampDelta: number;
  /** Offset relative to the batch's baseOffset, as on the wire (see `recordOffset`). */
  offsetDelta: number;
  /**
   * The timestamp a consumer sees: baseTimestamp + timestampDelta, or the batch's maxTimestamp when
   * the batch is LogAppendTime (Kafka's DefaultRecordBatch does the same).
   */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  /** For records of a control batch: the key's version and type (0 abort, 1 commit; see control.ts). */
  control?: { version: number; type: number };
}

/** Bytes accepted where a record carries bytes: strings are taken as UTF-8. */
export type BytesInput = Buffer | Uint8Array | string | null;

export interface RecordHeaderInput {
  key: string;
  value: BytesInput;
}

/**
 * A record to encode. Every field is optional:
 * - `timestampDelta` wins if given; else `timestamp` (absolute ms) is made relative to the batch's
 *   baseTimestamp; else the record gets the baseTimestamp;
 * - `offsetDelta` defaults to the record's index in the batch.
 */
export interface RecordInput {
  key?: BytesInput;
  value?: BytesInput;
  headers?: readonly RecordHeaderInput[];
  timestamp?: number;
  timestampDelta?: number;
  offsetDelta?: number;
  attributes?: number;
}

/** The smallest encoded record: length, attributes, timestampDelta, offsetDelta, key, value, header count. */
export const MIN_RECORD_SIZE = 7;

export function toBytes(v: BytesInput | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A record with its fields resolved and its body size known: what the batch encoder writes. */
export interface PreparedRecord {
  attributes: number;
  timestampDelta: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: Buffer; value: Buffer | null }[];
  /** Bytes after the length varint. */
  bodySize: number;
}

export function prepareRecord(r: RecordInput, index: number, baseTimestamp: number): PreparedRecord {
  const attributes = r.attributes ?? 0;
  checkInt(attributes, -128, 127, 'record attributes');
  let timestampDelta: number;
  if (r.timestampDelta !== undefined) timestampDelta = r.timestampDelta;
  else if (r.timestamp !== undefined) timestampDelta = r.timestamp - baseTimestamp;
  else timestampDelta = 0;
  if (!Number.isSafeInteger(timestampDelta)) throw new EncodeError(`record timestampDelta ${timestampDelta} is not a safe integer`);
  const offsetDelta = r.offsetDelta ?? index;
  checkInt(offsetDelta, -0x80000000, 0x7fffffff, 'record offsetDelta');
  const key = toBytes(r.key);
  const value = toBytes(r.value);
  const headers = (r.headers ?? []).map((h) => {
    if (typeof h.key !== 'string') throw new EncodeError('record header key must be a string');
    return { key: Buffer.from(h.key, 'utf8'), value: toBytes(h.value) };
  });
  let bodySize =
    1 + sizeOfVarlongNumber(timestampDelta) + sizeOfVarint(offsetDelta) + sizeOfBytes(key) + sizeOfBytes(value);
  bodySize += sizeOfVarint(headers.length);
  for (const h of headers) bodySize += sizeOfBytes(h.key) + sizeOfBytes(h.value);
  return { attributes, timestampDelta, offsetDelta, key, value, headers, bodySize };
}

function sizeOfBytes(b: Buffer | null): number {
  return b === null ? 1 : sizeOfVarint(b.length) + b.length;
}

export function sizeOfRecord(p: PreparedRecord): number {
  return sizeOfVarint(p.bodySize) + p.bodySize;
}

export function writeRecord(w: Writer, p: PreparedRecord): void {
  w.varint(p.bodySize);
  w.int8(p.attributes);
  w.varlongNumber(p.timestampDelta);
  w.varint(p.offsetDelta);
  writeBytes(w, p.key);
  writeBytes(w, p.value);
  w.varint(p.headers.length);
  for (const h of p.headers) {
    writeBytes(w, h.key);
    writeBytes(w, h.value);
  }
}

function writeBytes(w: Writer, b: Buffer | null): void {
  if (b === null) {
    w.varint(-1);
    return;
  }
  w.varint(b.length);
  w.raw(b);
}

export function checkInt(v: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < min || v > max) throw new EncodeError(`${what} ${v} is outside [${min}, ${max}]`);
}

/** Batch facts a record needs to resolve its timestamp. */
export interface RecordContext {
  baseTimestamp: number;
  /** Set for LogAppendTime batches: every record's timestamp is this. */
  logAppendTime: number | null;
  isControl: boolean;
}

/**
 * Reads one record. Its length must match what its fields use exactly (Kafka's "Invalid record
 * size"), and every count and length is checked against the bytes left before use.
 */
export function readRecord(r: Reader, ctx: RecordContext): KafkaRecord {
  const length = r.varint();
  if (length < MIN_RECORD_SIZE - 1) throw new DecodeError(`invalid record length ${length}`);
  const body = r.sub(length);
  const attributes = body.int8();
  const timestampDelta = readVarlongNumber(body);
  const offsetDelta = body.varint();
  const key = readBytes(body, 'key');
  const value = readBytes(body, 'value');
  const headerCount = body.varint();
  if (headerCount < 0) throw new DecodeError(`invalid record header count ${headerCount}`);
  // Each header takes at least two bytes (two length varints).
  if (headerCount * 2 > body.remaining) {
    throw new DecodeError(`${headerCount} record headers cannot fit in the ${body.remaining} bytes left`);
  }
  const headers: RecordHeader[] = new Array(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const keyLength = body.varint();
    if (keyLength < 0) throw new DecodeError(`invalid record header key length ${keyLength}`);
    const hKey = body.utf8(keyLength);
    headers[i] = { key: hKey, value: readBytes(body, 'header value') };
  }
  if (body.remaining !== 0) {
    throw new DecodeError(`record of ${length} bytes has ${body.remaining} bytes left after its fields`);
  }
  let timestamp: number;
  if (ctx.logAppendTime !== null) timestamp = ctx.logAppendTime;
  else {
    timestamp = ctx.baseTimestamp + timestampDelta;
    if (!Number.isSafeInteger(timestamp)) throw new DecodeError('record timestamp is outside the safe-integer range');
  }
  const rec: KafkaRecord = { attributes, timestampDelta, offsetDelta, timestamp, key, value, headers };
  if (ctx.isControl) {
    // Kafka's ControlRecordType.parseTypeId: the key holds version int16 then type int16.
    if (key === null || key.length < 4) throw new DecodeError('control record key must hold at least 4 bytes');
    const version = key.readInt16BE(0);
    if (version < 0) throw new DecodeError(`invalid control record version ${version}`);
    rec.control = { version, type: key.readInt16BE(2) };
  }
  return rec;
}

/**
 * Zig-zag varlong as a number. Timestamp deltas are almost always small, so encodings of up to 4
 * bytes (28 bits) are decoded here with int arithmetic; longer ones go to Reader.varlongNumber,
 * whose BigInt path would otherwise dominate record decoding.
 */
function readVarlongNumber(r: Reader): number {
  const buf = r.buf;
  let pos = r.pos;
  let u = 0;
  for (let shift = 0; shift < 28 && pos < r.end; shift += 7) {
    const b = buf[pos++];
    u |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      r.pos = pos;
      return (u >>> 1) ^ -(u & 1);
    }
  }
  return r.varlongNumber();
}

function readBytes(r: Reader, what: string): Buffer | null {
  const n = r.varint();
  if (n < 0) {
    if (n === -1) return null;
    throw new DecodeError(`invalid record ${what} length ${n}`);
  }
  return r.view(n);
}
