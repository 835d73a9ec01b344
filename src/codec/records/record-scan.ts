// The fast path of LogValidator's record loop (validate.ts): the structure-only walk of an
// uncompressed batch, for the settings under which no record can fail validateKey or
// validateTimestamp (the common Produce request). It makes record-walk.ts's checks for an
// uncompressed batch (DefaultRecord.readFrom, every length checked against the bytes left) on the
// batch bytes directly: no cursor object, no visitor, no exceptions, and one- and two-byte varints
// decoded inline (the Produce path runs mostly unoptimised, in Sparkplug baseline code, over a
// benchmark's ~500 requests: a call per varint costs there; see bench/results/produce-path.md).
// It only answers "every record is well-formed" (true, with the timestamps validate.ts needs) or
// "something is off" (false: validate.ts then runs the full walk, which finds the same problem
// and reports it in Kafka's words). test/codec/records/validate-fast-path.property.test.ts pins
// it: whenever it answers, the full walk answers the same.
import { RECORD_BATCH_OVERHEAD } from './constants.js';

/** Where scanVarint/scanVarlong stopped; -1 when the bytes ran out or the number was too long. */
let scanPos = 0;

/** ByteUtils.readVarint at scanPos (as Cursor.varint), for the multi-byte case. */
function scanVarint(buf: Buffer, end: number): number {
  let p = scanPos;
  let value = 0;
  let i = 0;
  for (;;) {
    if (p >= end) {
      scanPos = -1;
      return 0;
    }
    const b = buf[p++];
    if ((b & 0x80) === 0) {
      value |= b << i;
      scanPos = p;
      return (value >>> 1) ^ -(value & 1);
    }
    value |= (b & 0x7f) << i;
    i += 7;
    if (i > 28) {
      scanPos = -1;
      return 0;
    }
  }
}

/** ByteUtils.readVarlong as a number at scanPos (as Cursor.varlong), for the multi-byte case. */
function scanVarlong(buf: Buffer, end: number): number {
  let p = scanPos;
  let value = 0;
  let scale = 1;
  let i = 0;
  for (;;) {
    if (p >= end) {
      scanPos = -1;
      return 0;
    }
    const b = buf[p++];
    if ((b & 0x80) === 0) {
      value += b * scale;
      scanPos = p;
      return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    value += (b & 0x7f) * scale;
    scale *= 128;
    i += 7;
    if (i > 63) {
      scanPos = -1;
      return 0;
    }
  }
}

/** What scanUncompressed found in a batch whose records are all well-formed. */
export interface ScannedRecords {
  /** Largest record timestamp (Kafka's maxBatchTimestamp, starting from -1). */
  maxTimestamp: number;
  /** offsetDelta of the first record whose timestamp is that maximum, if any. */
  offsetDeltaOfMax: number | null;
  firstOffsetDelta: number | null;
}

/**
 * DefaultRecord.readFrom over the `count` records of an uncompressed batch (header included in
 * `batch`, which holds exactly the batch): every length, field and header as walkRecords reads
 * them, then nothing may be left. True when all of it holds, and then `out` holds the max
 * timestamp bookkeeping of validate.ts's full path for records that all pass validateKey and
 * validateTimestamp; false (and `out` untouched) when anything is off.
 */
export function scanUncompressed(batch: Buffer, count: number, baseTimestamp: number, out: ScannedRecords): boolean {
  const end = batch.length;
  let p = RECORD_BATCH_OVERHEAD;
  let max = -1;
  let deltaOfMax: number | null = null;
  let firstDelta: number | null = null;
  // b, c: the first two bytes of a varint; one- and two-byte varints (lengths under 8 KiB,
  // offset deltas under 4096) are decoded inline, longer ones by scanVarint/scanVarlong.
  let b = 0;
  let c = 0;
  for (let index = 0; index < count; index++) {
    // length (varint; one byte for records under 64 bytes)
    let size: number;
    if (p < end && (b = batch[p]) < 0x80) {
      size = (b >>> 1) ^ -(b & 1);
      p++;
    } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
      const x = (b & 0x7f) | (c << 7);
      size = (x >>> 1) ^ -(x & 1);
      p += 2;
    } else {
      scanPos = p;
      size = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    if (end - p < size) return false;
    const start = p;
    // attributes
    if (p >= end) return false;
    p++;
    // timestampDelta (varlong)
    let timestampDelta: number;
    if (p < end && (b = batch[p]) < 0x80) {
      timestampDelta = b % 2 === 0 ? b / 2 : -(b + 1) / 2;
      p++;
    } else {
      scanPos = p;
      timestampDelta = scanVarlong(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    // offsetDelta
    let offsetDelta: number;
    if (p < end && (b = batch[p]) < 0x80) {
      offsetDelta = (b >>> 1) ^ -(b & 1);
      p++;
    } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
      const x = (b & 0x7f) | (c << 7);
      offsetDelta = (x >>> 1) ^ -(x & 1);
      p += 2;
    } else {
      scanPos = p;
      offsetDelta = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    // key, value: a varint length (negative: null), then that many bytes
    for (let field = 0; field < 2; field++) {
      let n: number;
      if (p < end && (b = batch[p]) < 0x80) {
        n = (b >>> 1) ^ -(b & 1);
        p++;
      } else if (p + 1 < end && (c = batch[p + 1]) < 0x80) {
        const x = (b & 0x7f) | (c << 7);
        n = (x >>> 1) ^ -(x & 1);
        p += 2;
      } else {
        scanPos = p;
        n = scanVarint(batch, end);
        if (scanPos < 0) return false;
        p = scanPos;
      }
      if (n > 0) {
        if (n > end - p) return false;
        p += n;
      }
    }
    // headers: a count, then per header a key length (not negative), key, value length, value
    let headers: number;
    if (p < end && (b = batch[p]) < 0x80) {
      headers = (b >>> 1) ^ -(b & 1);
      p++;
    } else {
      scanPos = p;
      headers = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
    }
    if (headers < 0 || headers > end - p) return false;
    for (let h = 0; h < headers; h++) {
      scanPos = p;
      const hk = scanVarint(batch, end);
      if (scanPos < 0 || hk < 0) return false;
      p = scanPos;
      if (hk > 0) {
        if (hk > end - p) return false;
        p += hk;
      }
      scanPos = p;
      const hv = scanVarint(batch, end);
      if (scanPos < 0) return false;
      p = scanPos;
      if (hv > 0) {
        if (hv > end - p) return false;
        p += hv;
      }
    }
    if (p - start !== size) return false;
    if (index === 0) firstDelta = offsetDelta;
    const timestamp = baseTimestamp + timestampDelta;
    if (timestamp > max) {
      max = timestamp;
      deltaOfMax = offsetDelta;
    } else if (timestamp === max && deltaOfMax === null) {
      deltaOfMax = offsetDelta;
    }
  }
  if (p !== end) return false;
  out.maxTimestamp = max;
  out.offsetDeltaOfMax = deltaOfMax;
  out.firstOffsetDelta = firstDelta;
  return true;
}
