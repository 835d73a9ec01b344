// Writes one frame into one buffer allocated at its exact size (the generated `size*`
// functions compute it first). `records` payloads are not copied: the writer leaves a gap-free
// split point and keeps a reference to the caller's buffers, so a fetch response goes out as
// [head, stored batch, stored batch, tail...] with every stored batch sent as the same Buffer.
import { EncodeError } from './errors.js';

/** Records as they are kept: one buffer, or several stored batches written back to back. */
export type RecordSet = Buffer | readonly Buffer[];

export function recordSetSize(r: RecordSet): number {
  if (Buffer.isBuffer(r)) return r.length;
  let n = 0;
  for (const b of r as readonly Buffer[]) n += b.length;
  return n;
}

/** Strings up to this many characters are measured and written in JavaScript when ASCII. */
const SHORT_STRING = 32;

/** Writes `v` as bytes when it is ASCII; returns false (writing nothing useful) otherwise. */
function writeShortAscii(buf: Buffer, pos: number, v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0x80) return false;
    buf[pos + i] = c;
  }
  return true;
}

/** UTF-8 length of a string, without a native call for short ASCII ones. */
export function utf8Length(v: string): number {
  if (v.length <= SHORT_STRING) {
    let i = 0;
    while (i < v.length && v.charCodeAt(i) < 0x80) i++;
    if (i === v.length) return i;
  }
  return Buffer.byteLength(v);
}

/** Kafka's Uuid text form: 16 bytes as unpadded base64url. */
const UUID_TEXT = /^[A-Za-z0-9_-]{21}[AQgw]$/;

export class Writer {
  readonly buf: Buffer;
  pos = 0;
  /** Chunks finished so far when zero-copy records were written; empty otherwise. */
  private chunks: Buffer[] = [];
  /** Start of the part of `buf` not yet moved into `chunks`. */
  private chunkStart = 0;

  /** `size` excludes the bytes of zero-copy records, which are never written into `buf`. */
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** The encoded bytes as one buffer (copies only if zero-copy records were written). */
  finish(): Buffer {
    this.checkFull();
    if (this.chunks.length === 0) return this.buf;
    return Buffer.concat(this.finishChunks());
  }

  /** The encoded bytes as chunks for `socket.write`/`writev`: no copies of stored records. */
  finishChunks(): Buffer[] {
    this.checkFull();
    if (this.chunks.length === 0) return [this.buf];
    const out = this.chunks;
    if (this.pos > this.chunkStart) out.push(this.buf.subarray(this.chunkStart, this.pos));
    this.chunks = [];
    return out;
  }

  private checkFull(): void {
    if (this.pos !== this.buf.length) {
      throw new EncodeError(`internal: computed size ${this.buf.length} but wrote ${this.pos} bytes`);
    }
  }

  int8(v: number): void {
    this.buf.writeInt8(v, this.pos++);
  }

  bool(v: boolean): void {
    this.buf[this.pos++] = v ? 1 : 0;
  }

  int16(v: number): void {
    this.pos = this.buf.writeInt16BE(v, this.pos);
  }

  uint16(v: number): void {
    this.pos = this.buf.writeUInt16BE(v, this.pos);
  }

  int32(v: number): void {
    this.pos = this.buf.writeInt32BE(v, this.pos);
  }

  uint32(v: number): void {
    this.pos = this.buf.writeUInt32BE(v, this.pos);
  }

  int64(v: bigint): void {
    this.pos = this.buf.writeBigInt64BE(v, this.pos);
  }

  float64(v: number): void {
    this.pos = this.buf.writeDoubleBE(v, this.pos);
  }

  uuid(v: string): void {
    if (!UUID_TEXT.test(v)) throw new EncodeError(`invalid uuid ${JSON.stringify(v)}: expected 22 base64url characters`);
    this.buf.write(v, this.pos, 16, 'base64url');
    this.pos += 16;
  }

  uvarint(v: number): void {
    const buf = this.buf;
    v >>>= 0;
    while (v > 0x7f) {
      buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  varint(v: number): void {
    this.uvarint((v << 1) ^ (v >> 31));
  }

  uvarlong(v: bigint): void {
    const buf = this.buf;
    while (v > 0x7fn) {
      buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    buf[this.pos++] = Number(v);
  }

  varlong(v: bigint): void {
    this.uvarlong(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
  }

  /** Writes a zig-zag varlong from a safe-integer number (deltas inside record batches). */
  varlongNumber(v: number): void {
    if (Number.isSafeInteger(v) && v >= -0x40000000 && v < 0x40000000) {
      this.varint(v); // same bytes as a varlong for values that fit 31 bits
    } else {
      this.varlong(BigInt(v));
    }
  }

  /** Raw bytes, copied into the frame. */
  raw(b: Buffer): void {
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  /** STRING / NULLABLE_STRING with an int16 length. `byteLength` was computed by the size pass. */
  string(v: string | null): void {
    if (v === null) {
      this.int16(-1);
      return;
    }
    // Write the text first, then the length it took: one UTF-8 pass.
    const n = v.length <= SHORT_STRING && writeShortAscii(this.buf, this.pos + 2, v) ? v.length : this.buf.write(v, this.pos + 2);
    this.buf[this.pos] = n >>> 8;
    this.buf[this.pos + 1] = n & 0xff;
    this.pos += 2 + n;
  }

  /** COMPACT_STRING / COMPACT_NULLABLE_STRING: uvarint length+1, 0 = null. */
  compactString(v: string | null): void {
    if (v === null) {
      this.buf[this.pos++] = 0;
      return;
    }
    if (v.length <= 42) {
      // At most 126 UTF-8 bytes: the length+1 prefix is one byte, so write the text after it.
      const n = v.length <= SHORT_STRING && writeShortAscii(this.buf, this.pos + 1, v) ? v.length : this.buf.write(v, this.pos + 1);
      this.buf[this.pos] = n + 1;
      this.pos += 1 + n;
      return;
    }
    const n = Buffer.byteLength(v);
    this.uvarint(n + 1);
    this.pos += this.buf.write(v, this.pos);
  }

  /** BYTES / NULLABLE_BYTES with an int32 length. */
  bytes(v: Buffer | null): void {
    if (v === null) {
      this.int32(-1);
      return;
    }
    this.int32(v.length);
    this.raw(v);
  }

  compactBytes(v: Buffer | null): void {
    if (v === null) {
      this.buf[this.pos++] = 0;
      return;
    }
    this.uvarint(v.length + 1);
    this.raw(v);
  }

  /** RECORDS with an int32 length: the payload is referenced, not copied. */
  records(v: RecordSet | null): void {
    if (v === null) {
      this.int32(-1);
      return;
    }
    this.int32(recordSetSize(v));
    this.appendZeroCopy(v);
  }

  compactRecords(v: RecordSet | null): void {
    if (v === null) {
      this.buf[this.pos++] = 0;
      return;
    }
    this.uvarint(recordSetSize(v) + 1);
    this.appendZeroCopy(v);
  }

  private appendZeroCopy(v: RecordSet): void {
    if (this.pos > this.chunkStart) this.chunks.push(this.buf.subarray(this.chunkStart, this.pos));
    if (Buffer.isBuffer(v)) {
      if (v.length > 0) this.chunks.push(v);
    } else {
      for (const b of v as readonly Buffer[]) if (b.length > 0) this.chunks.push(b);
    }
    this.chunkStart = this.pos;
  }
}

// ---- sizes (used by the generated size functions) ----------------------------------------------

export function sizeOfUvarint(v: number): number {
  v >>>= 0;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

export function sizeOfVarint(v: number): number {
  return sizeOfUvarint((v << 1) ^ (v >> 31));
}

export function sizeOfUvarlong(v: bigint): number {
  let n = 1;
  while (v > 0x7fn) {
    v >>= 7n;
    n++;
  }
  return n;
}

export function sizeOfVarlong(v: bigint): number {
  return sizeOfUvarlong(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
}

export function sizeOfVarlongNumber(v: number): number {
  if (Number.isSafeInteger(v) && v >= -0x40000000 && v < 0x40000000) return sizeOfVarint(v);
  return sizeOfVarlong(BigInt(v));
}

const MAX_STRING_BYTES = 0x7fff;

/** Bytes of a non-compact string field, length prefix included; throws on over-long strings. */
export function sizeOfString(v: string | null): number {
  if (v === null) return 2;
  const n = v.length < 0x2aaa ? utf8Length(v) : checkedByteLength(v);
  return 2 + n;
}

export function sizeOfCompactString(v: string | null): number {
  if (v === null) return 1;
  const n = v.length < 0x2aaa ? utf8Length(v) : checkedByteLength(v);
  return sizeOfUvarint(n + 1) + n;
}

function checkedByteLength(v: string): number {
  const n = Buffer.byteLength(v);
  if (n > MAX_STRING_BYTES) throw new EncodeError(`string of ${n} bytes is longer than ${MAX_STRING_BYTES}`);
  return n;
}

export const EMPTY_BYTES: Buffer = Buffer.alloc(0);

export function sizeOfBytes(v: Buffer | null): number {
  return v === null ? 4 : 4 + v.length;
}

export function sizeOfCompactBytes(v: Buffer | null): number {
  return v === null ? 1 : sizeOfUvarint(v.length + 1) + v.length;
}

/** RECORDS: counted in `tally.zeroCopy` too, since the writer references them. */
export function sizeOfRecords(v: RecordSet | null, tally: { zeroCopy: number }): number {
  if (v === null) return 4;
  const n = recordSetSize(v);
  tally.zeroCopy += n;
  return 4 + n;
}

export function sizeOfCompactRecords(v: RecordSet | null, tally: { zeroCopy: number }): number {
  if (v === null) return 1;
  const n = recordSetSize(v);
  tally.zeroCopy += n;
  return sizeOfUvarint(n + 1) + n;
}
