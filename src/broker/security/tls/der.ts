// A minimal DER reader: enough to walk a certificate's subject Name and a PKCS#12 store
// (definite lengths only, as DER has). Tag/length/value; no schema. Hand-rolled rather than an
// ASN.1 library because the broker loads this module at every start and sslPrincipal runs per
// connection, and these two walks need a few dozen lines.

export interface Der {
  tag: number;
  /** The value bytes (for constructed types: the concatenated children). */
  value: Buffer;
  /** The whole encoding, tag and length included. */
  raw: Buffer;
}

export function readDer(buf: Buffer, offset = 0): { node: Der; next: number } {
  const tag = buf[offset];
  let len = buf[offset + 1];
  let p = offset + 2;
  if (tag === undefined || len === undefined) throw new Error('truncated DER');
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error(n === 0 ? 'indefinite (BER) length: not DER' : 'unsupported DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[p++] ?? 0);
  }
  if (p + len > buf.length) throw new Error('truncated DER');
  return { node: { tag, value: buf.subarray(p, p + len), raw: buf.subarray(offset, p + len) }, next: p + len };
}

/** The children of a constructed value. */
export function derChildren(node: Der): Der[] {
  const out: Der[] = [];
  for (let p = 0; p < node.value.length; ) {
    const { node: child, next } = readDer(node.value, p);
    out.push(child);
    p = next;
  }
  return out;
}

export function derOid(node: Der): string {
  const b = node.value;
  const parts = [Math.floor((b[0] ?? 0) / 40), (b[0] ?? 0) % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + ((b[i] ?? 0) & 0x7f);
    if (!((b[i] ?? 0) & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

export function derInt(node: Der): number {
  let v = 0;
  for (const byte of node.value) v = v * 256 + byte;
  return v;
}
