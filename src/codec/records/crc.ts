// Checksums used by the two record formats: CRC-32C (Castagnoli) guards v2 record batches,
// CRC-32 (IEEE, the zip/gzip one) guards legacy magic 0/1 messages.
import * as zlib from 'node:zlib';
import { crcLib } from './native.js';

/** CRC-32C of `buf[start, end)`, as an unsigned 32-bit number. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  // subarray is a view, so no bytes are copied; the native code reads the range directly.
  const part = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return crcLib().crc32c(part) >>> 0;
}

// zlib.crc32 exists from Node 20.15/22.2; `engines` allows older 20.x, where @node-rs/crc32's
// IEEE CRC (same polynomial, same result) stands in.
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 (IEEE 802.3) of `buf[start, end)`, as an unsigned 32-bit number. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  const part = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return (zlibCrc32 !== undefined ? zlibCrc32(part) : crcLib().crc32(part)) >>> 0;
}
