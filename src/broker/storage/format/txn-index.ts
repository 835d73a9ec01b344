// A segment's transaction index, `<base offset>.txnindex` (storage/.../log/TransactionIndex.java,
// AbortedTxn.java): one 34-byte entry per aborted transaction whose ABORT marker is in the
// segment, appended when the marker is (LogSegment.updateTxnIndex):
//   version int16 (0) | producerId int64 | firstOffset int64 | lastOffset int64 (the marker's
//   offset) | lastStableOffset int64 (the partition's last stable offset once the marker was written)
// Unlike the offset and time indexes it is never preallocated; Kafka creates the file when the
// first entry is appended, so a segment without aborted transactions usually has none.
//
// The structurally identical `AbortedTxn` of src/broker/log/txn-index.ts is what the broker keeps
// in memory; these entries convert one to one.

import { fail, ok, readInt64Number, writeInt64Number, type Decoded, type DecodeFileOptions } from './result.js';

/** AbortedTxn.TOTAL_SIZE. */
export const ABORTED_TXN_SIZE = 34;
/** AbortedTxn.CURRENT_VERSION. */
export const ABORTED_TXN_VERSION = 0;

export interface AbortedTxnEntry {
  producerId: bigint;
  firstOffset: number;
  /** The ABORT marker's offset. */
  lastOffset: number;
  lastStableOffset: number;
}

export interface TxnIndex {
  entries: AbortedTxnEntry[];
  /**
   * Bytes after the last whole entry (fewer than 34): a torn append. Kafka's reader stops before
   * them without a word (TransactionIndex's iterator wants 34 bytes); the caller may truncate them.
   */
  partialTailBytes: number;
}

/** The file for these entries. Throws (a caller bug) where TransactionIndex.append would: lastOffset must increase. */
export function encodeTxnIndex(entries: readonly AbortedTxnEntry[]): Buffer {
  const buf = Buffer.alloc(entries.length * ABORTED_TXN_SIZE);
  entries.forEach((e, i) => {
    if (i > 0 && e.lastOffset <= entries[i - 1].lastOffset) {
      throw new RangeError(`aborted transaction ${i}: last offset ${e.lastOffset} is not above the previous one's ${entries[i - 1].lastOffset}`);
    }
    const at = i * ABORTED_TXN_SIZE;
    buf.writeInt16BE(ABORTED_TXN_VERSION, at);
    buf.writeBigInt64BE(e.producerId, at + 2);
    writeInt64Number(buf, at + 10, e.firstOffset, 'firstOffset');
    writeInt64Number(buf, at + 18, e.lastOffset, 'lastOffset');
    writeInt64Number(buf, at + 26, e.lastStableOffset, 'lastStableOffset');
  });
  return buf;
}

/**
 * Reads a transaction index with TransactionIndex.sanityCheck's rule (no entry's lastOffset below
 * the segment's base offset), the version check of its iterator (above 0 is "Unexpected aborted
 * transaction version"; kmock wants exactly 0 in the int16, while Kafka reads only its first byte),
 * and append's rule (lastOffset strictly increasing), plus firstOffset <= lastOffset.
 */
export function decodeTxnIndex(baseOffset: number, buf: Buffer, options?: DecodeFileOptions): Decoded<TxnIndex> {
  const file = options?.file ?? 'transaction index';
  const count = Math.floor(buf.length / ABORTED_TXN_SIZE);
  const entries: AbortedTxnEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const at = i * ABORTED_TXN_SIZE;
    const version = buf.readInt16BE(at);
    if (version !== ABORTED_TXN_VERSION) {
      return fail(file, `aborted transaction ${i} has version ${version}, current version is ${ABORTED_TXN_VERSION}`, { position: at });
    }
    const producerId = buf.readBigInt64BE(at + 2);
    const firstOffset = readInt64Number(buf, at + 10);
    const lastOffset = readInt64Number(buf, at + 18);
    const lastStableOffset = readInt64Number(buf, at + 26);
    if (firstOffset === null || lastOffset === null || lastStableOffset === null) {
      return fail(file, `aborted transaction ${i} has an offset outside the safe-integer range`, { position: at });
    }
    if (lastOffset < baseOffset) {
      return fail(file, `last offset ${lastOffset} of aborted transaction ${i} is less than start offset ${baseOffset}`, { position: at });
    }
    if (firstOffset < 0 || firstOffset > lastOffset) {
      return fail(file, `aborted transaction ${i} has first offset ${firstOffset} and last offset ${lastOffset}`, { position: at });
    }
    if (i > 0 && lastOffset <= entries[i - 1].lastOffset) {
      return fail(file, `aborted transaction ${i} has last offset ${lastOffset}, not above the previous one's ${entries[i - 1].lastOffset}`, { position: at });
    }
    entries[i] = { producerId, firstOffset, lastOffset, lastStableOffset };
  }
  return ok({ entries, partialTailBytes: buf.length - count * ABORTED_TXN_SIZE });
}
