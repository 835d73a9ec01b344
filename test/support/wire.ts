// A tiny hand-rolled Kafka wire writer for building golden frames in tests. It deliberately
// shares no code with src/codec, so a frame built here checks the codec against the protocol
// rather than against itself.

export class Bytes {
  private parts: Buffer[] = [];

  raw(b: Buffer | number[]): this {
    this.parts.push(Buffer.isBuffer(b) ? b : Buffer.from(b));
    return this;
  }

  hex(h: string): this {
    return this.raw(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
  }

  i8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    return this.raw(b);
  }

  bool(v: boolean): this {
    return this.raw([v ? 1 : 0]);
  }

  i16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.raw(b);
  }

  i32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.raw(b);
  }

  i64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    return this.raw(b);
  }

  /** Unsigned LEB128 varint of a 32-bit value. */
  uvarint(v: number): this {
    return this.raw(uvarintBytes(v));
  }

  /** STRING / NULLABLE_STRING: int16 byte length (-1 = null). */
  str(s: string | null): this {
    if (s === null) return this.i16(-1);
    const b = Buffer.from(s, 'utf8');
    return this.i16(b.length).raw(b);
  }

  /** COMPACT_(NULLABLE_)STRING: uvarint length + 1 (0 = null). */
  cstr(s: string | null): this {
    if (s === null) return this.uvarint(0);
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).raw(b);
  }

  /** BYTES / NULLABLE_BYTES / RECORDS: int32 length (-1 = null). */
  bytes(b: Buffer | null): this {
    if (b === null) return this.i32(-1);
    return this.i32(b.length).raw(b);
  }

  /** COMPACT_(NULLABLE_)BYTES / COMPACT_RECORDS: uvarint length + 1 (0 = null). */
  cbytes(b: Buffer | null): this {
    if (b === null) return this.uvarint(0);
    return this.uvarint(b.length + 1).raw(b);
  }

  uuid(text: string): this {
    const b = Buffer.from(text, 'base64url');
    if (b.length !== 16) throw new Error(`bad uuid ${text}`);
    return this.raw(b);
  }

  /** ARRAY count: int32 (-1 = null). */
  arr(n: number | null): this {
    return this.i32(n === null ? -1 : n);
  }

  /** COMPACT_ARRAY count: uvarint count + 1 (0 = null). */
  carr(n: number | null): this {
    return this.uvarint(n === null ? 0 : n + 1);
  }

  /** A tag section: count, then tag, size, payload for each entry, in the order given. */
  tags(entries: Array<[number, Buffer]> = []): this {
    this.uvarint(entries.length);
    for (const [tag, data] of entries) this.uvarint(tag).uvarint(data.length).raw(data);
    return this;
  }

  build(): Buffer {
    return Buffer.concat(this.parts);
  }

  get length(): number {
    let n = 0;
    for (const p of this.parts) n += p.length;
    return n;
  }

  /** The bytes with an int32 size prefix, as a frame travels on a connection. */
  frame(): Buffer {
    const body = this.build();
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    return Buffer.concat([size, body]);
  }
}

export function b(): Bytes {
  return new Bytes();
}

export function uvarintBytes(v: number): Buffer {
  let x = v >>> 0;
  const out: number[] = [];
  while (x > 0x7f) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
  return Buffer.from(out);
}

export function hex(s: string): Buffer {
  return Buffer.from(s.replace(/\s+/g, ''), 'hex');
}

/** Request header v1 (ApiKey, ApiVersion, CorrelationId, ClientId as a NULLABLE_STRING). */
export function requestHeaderV1(apiKey: number, apiVersion: number, correlationId: number, clientId: string | null): Bytes {
  return b().i16(apiKey).i16(apiVersion).i32(correlationId).str(clientId);
}

/** Request header v2: v1 plus a tag section; the ClientId stays a non-compact string. */
export function requestHeaderV2(apiKey: number, apiVersion: number, correlationId: number, clientId: string | null): Bytes {
  return requestHeaderV1(apiKey, apiVersion, correlationId, clientId).tags();
}
