// Fetch v0-v3: the stored v2 batches rewritten as the legacy message sets those clients read
// (magic 0 for Fetch v0-v1, magic 1 for v2-v3), as Kafka 3.9 does for every such fetch: its log
// format is always v2 (inter.broker.protocol >= 3.0), so KafkaApis.handleFetchRequest wraps each
// partition's read in LazyDownConversionRecords.
//
// Per batch, RecordsUtil.downConvert / convertRecordBatch:
// - control batches (transaction markers) are dropped, before the zstd check; a zstd batch cannot
//   be converted (UnsupportedCompressionType); transactional data batches convert like any other
//   (Fetch v0-v3 has no isolation level: aborted records reach those consumers, as in Kafka);
// - an uncompressed batch becomes one message per record, and records below the fetch offset are
//   dropped (a fetch may start inside a batch); a compressed batch becomes one wrapper message
//   holding all its records, recompressed with the same codec (magic-1 inner offsets relative to
//   the first record, the wrapper carrying the last offset; magic 0 offsets absolute);
// - offsets, keys and values are kept, headers dropped; magic 1 keeps the timestamp, and a
//   LogAppendTime batch gives every message (and wrapper) its append time and the LogAppendTime bit.
//
// Sizes, LazyDownConversionRecords and LazyDownConversionRecordsSend: the partition's records are
// max(bytes read, size of the first converted batch) long, the bytes read being counted before
// conversion (a cut last batch included). The converted batches are written until that size, the
// last one cut; if they run out first the rest is an "overflow batch" (offset -1 and a length past
// the end, which consumers skip as a partial message). A read holding no whole batch converts to
// nothing at all. The conversion happens after the read, so every limit (max_bytes,
// partition_max_bytes, min_bytes) applies to the stored bytes, as in Kafka.
import { decodeBatch } from '../../codec/records/batch.js';
import { compress } from '../../codec/records/compression.js';
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  LOG_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
} from '../../codec/records/constants.js';
import { encodeMessage } from '../../codec/records/legacy.js';

/** LazyDownConversionRecordsSend.MAX_READ_SIZE: batches are converted in chunks of about this many stored bytes. */
const MAX_READ_SIZE = 128 * 1024;
/** LazyDownConversionRecordsSend.MIN_OVERFLOW_MESSAGE_LENGTH (Records.LOG_OVERHEAD). */
const MIN_OVERFLOW_MESSAGE_LENGTH = LOG_OVERHEAD;
/** DefaultRecordBatch.RECORD_BATCH_OVERHEAD: the smallest length an overflow batch claims. */
const RECORD_BATCH_OVERHEAD = 61;
const ZSTD = 4;

export type DownConversion =
  | { ok: true; records: Buffer[]; bytes: number }
  /** The first batch is zstd: the partition is answered with UNSUPPORTED_COMPRESSION_TYPE. */
  | { ok: false };

/** Buffer or the marker for a zstd batch (RecordsUtil.downConvert throws for those). */
type Converted = Buffer | typeof UNSUPPORTED;
const UNSUPPORTED = Symbol('zstd');
const EMPTY = Buffer.alloc(0);

/**
 * Converts what PartitionLog.read returned (`read`: whole stored batches, the last one possibly a
 * cut view; `bytes`: their total) for a fetch at `fetchOffset`, to magic `toMagic`.
 */
export function downConvert(read: readonly Buffer[], bytes: number, toMagic: 0 | 1, fetchOffset: number): DownConversion {
  // FileLogInputStream: only whole batches are seen; a cut one ends the read.
  const whole: Buffer[] = [];
  for (const b of read) {
    if (b.length < LOG_OVERHEAD || b.length !== LOG_OVERHEAD + b.readInt32BE(BATCH_LENGTH_OFFSET)) break;
    whole.push(b);
  }
  if (whole.length === 0) return { ok: true, records: [], bytes: 0 };

  // LazyDownConversionRecords' constructor converts batches one at a time until one gives messages.
  let first: Buffer | null = null;
  for (const b of whole) {
    const c = convertBatch(b, toMagic, fetchOffset);
    if (c === UNSUPPORTED) return { ok: false };
    if (c.length > 0) {
      first = c;
      break;
    }
  }
  const size = first !== null ? Math.max(bytes, first.length) : MIN_OVERFLOW_MESSAGE_LENGTH;

  const out: Buffer[] = [];
  let remaining = size;
  const emit = (buf: Buffer) => {
    const n = Math.min(buf.length, remaining);
    if (n === 0) return;
    out.push(n === buf.length ? buf : buf.subarray(0, n));
    remaining -= n;
  };
  if (first !== null) emit(first);
  // The send's iterator skips exactly one batch for the cached first conversion, whichever batch
  // gave it (LazyDownConversionRecords.Iterator's constructor calls batchIterator.next() once).
  // When the read starts with transaction markers (dropped: no legacy form), the batch that gave
  // the first conversion is converted and sent a second time, as Kafka sends it.
  let next = first !== null ? 1 : whole.length;
  let failed = false;
  while (remaining > 0) {
    if (!failed && next < whole.length) {
      // LazyDownConversionRecords.Iterator.makeNext: one chunk of batches up to MAX_READ_SIZE stored bytes.
      const chunk = [whole[next++]];
      let sizeSoFar = chunk[0].length;
      while (next < whole.length && sizeSoFar + whole[next].length <= MAX_READ_SIZE) {
        sizeSoFar += whole[next].length;
        chunk.push(whole[next++]);
      }
      const converted: Buffer[] = [];
      for (const b of chunk) {
        const c = convertBatch(b, toMagic, fetchOffset);
        if (c === UNSUPPORTED) {
          // The send has committed to its size: it fills the rest with an overflow batch and the
          // consumer gets the zstd error when it fetches from that batch. (Kafka's iterator is left
          // failed; the rest of the response is padding, which kmock writes in every case.)
          failed = true;
          break;
        }
        converted.push(c);
      }
      if (failed) continue;
      for (const c of converted) emit(c);
    } else {
      emit(overflowBatch(remaining));
    }
  }
  return { ok: true, records: out, bytes: size };
}

/** LazyDownConversionRecordsSend.buildOverflowBatch: offset -1, a length past the end, zeros. */
function overflowBatch(remaining: number): Buffer {
  const b = Buffer.alloc(Math.max(MIN_OVERFLOW_MESSAGE_LENGTH, Math.min(remaining + 1, MAX_READ_SIZE)));
  b.writeBigInt64BE(-1n, 0);
  b.writeInt32BE(Math.max(remaining + 1, RECORD_BATCH_OVERHEAD), 8);
  return b;
}

/** RecordsUtil.downConvert for one stored v2 batch: its legacy messages, or nothing. */
function convertBatch(batch: Buffer, toMagic: 0 | 1, fetchOffset: number): Converted {
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  if ((attributes & CONTROL_FLAG_MASK) !== 0) return EMPTY;
  const codec = attributes & COMPRESSION_CODEC_MASK;
  if (codec === ZSTD) return UNSUPPORTED;
  // Stored batches were validated on append (and patched with a fresh CRC where Kafka rewrites them).
  const d = decodeBatch(batch, { verifyCrc: false });
  const logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) !== 0;
  // MemoryRecordsBuilder writes the LogAppendTime bit into magic-1 attributes (computeAttributes).
  const tsBit = toMagic === 1 && logAppendTime ? TIMESTAMP_TYPE_MASK : 0;
  const start = BigInt(fetchOffset);
  const records: Array<{ offset: bigint; timestamp: number; key: Buffer | null; value: Buffer | null }> = [];
  for (const r of d.records) {
    const offset = d.baseOffset + BigInt(r.offsetDelta);
    // Uncompressed legacy messages are batches of one, so records before the fetch offset go.
    if (codec === 0 && offset < start) continue;
    // appendLegacyRecord: under LogAppendTime every message carries the batch's append time.
    const timestamp = logAppendTime ? d.maxTimestamp : r.timestamp;
    records.push({ offset, timestamp, key: r.key, value: r.value });
  }
  if (records.length === 0) return EMPTY;
  if (codec === 0) return Buffer.concat(records.map((r) => encodeMessage(toMagic, r.offset, tsBit, r.timestamp, r.key, r.value)));

  // One wrapper: inner offsets relative to the first record for magic 1 (toInnerOffset), absolute for magic 0.
  const baseOffset = records[0].offset;
  let maxTimestamp = -1;
  const inner = records.map((r) => {
    if (toMagic > 0 && r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    return encodeMessage(toMagic, toMagic === 1 ? r.offset - baseOffset : r.offset, tsBit, r.timestamp, r.key, r.value);
  });
  const value = compress(codec, Buffer.concat(inner), toMagic);
  const wrapperTimestamp = logAppendTime ? d.maxTimestamp : maxTimestamp;
  return encodeMessage(toMagic, records[records.length - 1].offset, codec | tsBit, wrapperTimestamp, null, value);
}
