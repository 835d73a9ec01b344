// The fast path of loading a segment Kafka would not recover: below the recovery point (every
// byte there was flushed, or the last shutdown was clean), Kafka's LogLoader opens a segment with
// its indexes and does not read its batches (LogSegment.sanityCheck only). kmock keeps no index
// it trusts across restarts, so it reads each batch's 61-byte header (size, offsets, timestamps,
// producer fields) with one positioned read per batch, checks sizes and magic, and skips the CRC:
// a 10 GB partition loads in milliseconds instead of a full scan. Anything odd falls back to the
// full recovery scan (storage/format/log-scan.ts) by returning null.
import * as fs from 'node:fs';
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  CONTROL_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TRANSACTIONAL_FLAG_MASK,
} from '../../codec/records/constants.js';

/** What loading needs of one batch (the fields of the recovery scan's ScannedBatch it reads). */
export interface BatchHeaderInfo {
  position: number;
  size: number;
  magic: 2;
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
}

/** Every batch header of a `.log` of `size` bytes, or null when one is not a whole v2 batch in order. */
export function walkBatchHeaders(file: string, size: number, baseOffset: number): BatchHeaderInfo[] | null {
  const fd = fs.openSync(file, 'r');
  try {
    const out: BatchHeaderInfo[] = [];
    const head = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD);
    let position = 0;
    let next = baseOffset;
    while (position < size) {
      if (size - position < RECORD_BATCH_OVERHEAD) return null;
      if (fs.readSync(fd, head, 0, RECORD_BATCH_OVERHEAD, position) !== RECORD_BATCH_OVERHEAD) return null;
      const batchSize = head.readInt32BE(8) + LOG_OVERHEAD;
      if (head[MAGIC_OFFSET] !== 2 || batchSize < RECORD_BATCH_OVERHEAD || batchSize > size - position) return null;
      const first = Number(head.readBigInt64BE(0));
      const last = first + head.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
      if (!Number.isSafeInteger(first) || first < next || last < first) return null;
      const attributes = head.readInt16BE(ATTRIBUTES_OFFSET);
      out.push({
        position,
        size: batchSize,
        magic: 2,
        baseOffset: first,
        lastOffset: last,
        maxTimestamp: Number(head.readBigInt64BE(MAX_TIMESTAMP_OFFSET)),
        producerId: head.readBigInt64BE(PRODUCER_ID_OFFSET),
        producerEpoch: head.readInt16BE(PRODUCER_EPOCH_OFFSET),
        baseSequence: head.readInt32BE(BASE_SEQUENCE_OFFSET),
        isTransactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
        isControl: (attributes & CONTROL_FLAG_MASK) !== 0,
      });
      next = last + 1;
      position += batchSize;
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}
