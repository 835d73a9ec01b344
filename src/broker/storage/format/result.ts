// What every decoder of src/broker/storage/format answers: the value, or a FormatError naming the
// file (and the line or byte where it went wrong). Decoders never throw for bad file contents, so a
// corrupt or foreign file in a data dir becomes one clear message, not a crash (issue #13: "a
// corrupt or foreign file gives an error naming the file, and kmock does not crash in a loop").
// Encoders do throw (RangeError) when given values Kafka could never write: that is a bug in the
// caller, not bad data.

export interface FormatError {
  /** The file as the caller named it (a path or a bare name); the default is the file kind's usual name. */
  file: string;
  /** 1-based line of a text file. */
  line?: number;
  /** Byte position in a binary file. */
  position?: number;
  /** The whole message, file and place included: ready for a log line. */
  message: string;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: FormatError };

export function ok<T>(value: T): Decoded<T> {
  return { ok: true, value };
}

/** A failure at `where` (a line or a byte position) of `file`. */
export function fail<T = never>(file: string, text: string, where?: { line?: number; position?: number }): Decoded<T> {
  const place = where?.line !== undefined ? ` line ${where.line}` : where?.position !== undefined ? ` byte ${where.position}` : '';
  const error: FormatError = { file, message: `${file}${place}: ${text}` };
  if (where?.line !== undefined) error.line = where.line;
  if (where?.position !== undefined) error.position = where.position;
  return { ok: false, error };
}

/** The value of a Decoded, or a thrown Error with its message (for tests and tools). */
export function unwrap<T>(d: Decoded<T>): T {
  if (d.ok) return d.value;
  throw new Error(d.error.message);
}

/** Options every decoder takes. */
export interface DecodeFileOptions {
  /** How the file is named in errors (its path, say); default the file kind's usual name. */
  file?: string;
}

// ---- int64 fields as numbers ------------------------------------------------------------------
// Offsets and timestamps are int64 in Kafka's files and plain numbers in kmock's log (every offset
// and millisecond timestamp Kafka ever produces is far below 2^53). A stored value outside the
// safe-integer range is reported, not rounded.

/** The int64 at `pos` as a number, or null when it is not a safe integer. */
export function readInt64Number(buf: Buffer, pos: number): number | null {
  const hi = buf.readInt32BE(pos);
  const lo = buf.readUInt32BE(pos + 4);
  // |hi| < 2^21 keeps hi * 2^32 + lo strictly inside ±2^53.
  if (hi >= 0x200000 || hi < -0x200000) return null;
  const v = hi * 0x100000000 + lo;
  return Number.isSafeInteger(v) ? v : null;
}

export function writeInt64Number(buf: Buffer, pos: number, v: number, what: string): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`${what} ${v} is not a safe integer`);
  buf.writeBigInt64BE(BigInt(v), pos);
}

export const INT32_MAX = 0x7fffffff;

/** Segment base offsets: non-negative safe integers (the file name's number). */
export function checkBaseOffset(baseOffset: number): void {
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0) throw new RangeError(`base offset ${baseOffset} is not a non-negative integer`);
}

export function checkInt(v: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${what} ${v} is not an integer in [${min}, ${max}]`);
}
