// A cursor over one received frame. Every length read from the wire is checked against the
// bytes left before anything is allocated or sliced; `bytes` and `records` come back as views
// into the frame (no copies).
import { DecodeError } from './errors.js';

const MAX_STRING_BYTES = 0x7fff;

// `utf8Slice` is what Buffer#toString('utf8') calls after checking its arguments; calling it
// directly skips that wrapper (the bounds are checked here already). Fallback keeps it portable.
type Utf8Slice = (this: Buffer, start: number, end: number) => string;
const utf8Slice: Utf8Slice =
  typeof (Buffer.prototype as unknown as { utf8Slice?: Utf8Slice }).utf8Slice === 'function'
    ? (Buffer.prototype as unknown as { utf8Slice: Utf8Slice }).utf8Slice
    : function (this: Buffer, start: number, end: number) {
        return this.toString('utf8', start, end);
      };

export class Reader {
  readonly buf: Buffer;
  pos: number;
  /** One past the last byte this reader may read (a sub-reader for a tagged field has a tighter end). */
  readonly end: number;

  constructor(buf: Buffer, pos = 0, end = buf.length) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throws unless `n` more bytes are available. */
  need(n: number): void {
    if (n > this.end - this.pos) {
      throw new DecodeError(`needs ${n} bytes, ${this.end - this.pos} left`);
    }
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  bool(): boolean {
    this.need(1);
    return this.buf[this.pos++] !== 0;
  }

  // Integers are assembled from bytes after `need`: Buffer#readInt*BE would check the bounds again.
  int16(): number {
    this.need(2);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 2;
    return ((b[p] << 24) | (b[p + 1] << 16)) >> 16;
  }

  uint16(): number {
    this.need(2);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 2;
    return (b[p] << 8) | b[p + 1];
  }

  int32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
  }

  uint32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
  }

  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Kafka's Uuid, as its canonical base64url text (22 chars), like `Uuid.toString()`. */
  uuid(): string {
    this.need(16);
    const s = this.buf.toString('base64url', this.pos, this.pos + 16);
    this.pos += 16;
    return s;
  }

  /** Unsigned varint of at most 5 bytes (32 bits); longer or overflowing encodings are rejected. */
  uvarint(): number {
    const buf = this.buf;
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) throw new DecodeError('truncated varint');
      const b = buf[this.pos++];
      if (i === 4 && b > 0x0f) throw new DecodeError('varint is longer than 32 bits');
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    throw new DecodeError('varint is longer than 5 bytes');
  }

  /** Zig-zag signed varint (int32), used inside record batches. */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Unsigned varlong of at most 10 bytes (64 bits). */
  uvarlong(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new DecodeError('truncated varlong');
      const b = this.buf[this.pos++];
      if (i === 9 && b > 0x01) throw new DecodeError('varlong is longer than 64 bits');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new DecodeError('varlong is longer than 10 bytes');
  }

  /** Zig-zag signed varlong (int64), used inside record batches. */
  varlong(): bigint {
    const u = this.uvarlong();
    return BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
  }

  /** Zig-zag varlong as a JS number when it fits the safe range (timestamp and offset deltas). */
  varlongNumber(): number {
    const v = this.varlong();
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new DecodeError(`varlong ${v} is outside the safe-integer range`);
    }
    return Number(v);
  }

  // ---- strings -------------------------------------------------------------------------------

  /** UTF-8 text of `n` bytes. */
  utf8(n: number): string {
    this.need(n);
    const start = this.pos;
    this.pos += n;
    return utf8Slice.call(this.buf, start, this.pos);
  }

  /** STRING: int16 length; -1 (null) rejected. */
  string(): string {
    const n = this.int16();
    if (n < 0) throw new DecodeError('non-nullable string was null');
    return this.utf8(n);
  }

  /**
   * NULLABLE_STRING: int16 length, negative = null. Any negative length, not just -1: Kafka's
   * generated readers (and so a Kafka 3.9 broker) read `length < 0` as null.
   */
  nullableString(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    return this.utf8(n);
  }

  /** COMPACT_STRING: uvarint length+1; 0 (null) rejected. */
  compactString(): string {
    const n = this.uvarint() - 1;
    if (n < 0) throw new DecodeError('non-nullable string was null');
    if (n > MAX_STRING_BYTES) throw new DecodeError(`string of ${n} bytes is longer than ${MAX_STRING_BYTES}`);
    return this.utf8(n);
  }

  /** COMPACT_NULLABLE_STRING: uvarint length+1, 0 = null. */
  compactNullableString(): string | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    if (n > MAX_STRING_BYTES) throw new DecodeError(`string of ${n} bytes is longer than ${MAX_STRING_BYTES}`);
    return this.utf8(n);
  }

  // ---- bytes (views, never copies) -----------------------------------------------------------

  /** A view of the next `n` bytes. */
  view(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** BYTES: int32 length; -1 rejected. */
  bytes(): Buffer {
    const n = this.int32();
    if (n < 0) throw new DecodeError('non-nullable bytes were null');
    return this.view(n);
  }

  /** NULLABLE_BYTES / RECORDS: int32 length, negative = null (as Kafka reads it, see nullableString). */
  nullableBytes(): Buffer | null {
    const n = this.int32();
    if (n < 0) return null;
    return this.view(n);
  }

  /** COMPACT_BYTES: uvarint length+1; 0 (null) rejected. */
  compactBytes(): Buffer {
    const n = this.uvarint() - 1;
    if (n < 0) throw new DecodeError('non-nullable bytes were null');
    return this.view(n);
  }

  /** COMPACT_NULLABLE_BYTES / COMPACT_RECORDS: uvarint length+1, 0 = null. */
  compactNullableBytes(): Buffer | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    return this.view(n);
  }

  // ---- arrays --------------------------------------------------------------------------------

  /**
   * ARRAY count (int32) checked against the bytes left: `minElementSize` is the smallest encoding
   * of one element, so a hostile count fails before anything is allocated. A negative count is
   * returned as it is: a nullable array reads any negative count as null (as Kafka's generated
   * readers do), a non-nullable one refuses it (`arrayLengthError`).
   */
  arrayLength(minElementSize: number): number {
    const n = this.int32();
    if (n < 0) return n;
    this.checkCount(n, minElementSize);
    return n;
  }

  /** COMPACT_ARRAY count (uvarint count+1, 0 = null), checked like `arrayLength`. */
  compactArrayLength(minElementSize: number): number {
    const n = this.uvarint() - 1;
    if (n >= 0) this.checkCount(n, minElementSize);
    return n;
  }

  private checkCount(n: number, minElementSize: number): void {
    const left = this.end - this.pos;
    if (n * minElementSize > left) {
      throw new DecodeError(`array of ${n} elements cannot fit in the ${left} bytes left`);
    }
  }

  /** A reader over the next `n` bytes only; this reader skips past them. */
  sub(n: number): Reader {
    this.need(n);
    const r = new Reader(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
}
