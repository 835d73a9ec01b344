// The strict-clients checks of Produce, called by handlers/produce.ts: a v2 record batch's
// header against its records (before the append, which stamps the header in place), and
// OUT_OF_ORDER_SEQUENCE_NUMBER answers (idempotent sequence gaps).
//
// What Kafka 3.9 does with a batch whose header disagrees with its records (LogValidator):
// - lastOffsetDelta + 1 != recordCount: validateBatch refuses it, INVALID_RECORD
//   ("Inconsistent batch offset range ... and count of records");
// - recordCount != the records present: DefaultRecordBatch's record iterator refuses it,
//   INVALID_RECORD ("Incorrect declared batch size" / "premature EOF");
// - maxTimestamp (CreateTime) != the records' largest timestamp: assignOffsetsNonCompressed and
//   the in-place compressed path overwrite it (setMaxTimestamp), silently;
// - offset deltas not 0..n-1: an uncompressed batch is stored with them as sent; a compressed one
//   fails validateMessagesAndAssignOffsetsCompressed's expectedInnerOffset check (not in place).
// The generic INVALID_RECORD of the first two does not say which field the client got wrong;
// the last two get no error at all. The finding says which.
import { ErrorCode, type ProduceRequest, type RecordSet } from '../../codec/index.js';
import { decompress } from '../../codec/records/compression.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  RECORDS_COUNT_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
} from '../../codec/records/constants.js';
import { computeBatchCrc } from '../../codec/records/header.js';
import { Cursor, readLongNumber, RecordStructureError } from '../../codec/records/record-walk.js';
import { nextEntry } from '../../codec/records/validate.js';
import { zstdReady } from '../../codec/records/zstd.js';
import type { RequestContext } from '../handlers/types.js';

/** What the records of a batch say, read by their own length prefixes up to the batch's end. */
interface RecordsSeen {
  count: number;
  lastOffsetDelta: number;
  /** The first record (by index) whose offset delta is not its index, else null. */
  firstOutOfPlace: { index: number; offsetDelta: number } | null;
  maxTimestamp: number;
}

/**
 * How the header of one whole v2 batch (`batch` holds exactly it) disagrees with its records,
 * one phrase per disagreement; empty when they agree or when the records cannot be read at all
 * (bad CRC, corrupt framing, a codec that fails: Kafka's own answer then says what is wrong).
 */
export function batchHeaderMismatches(batch: Buffer): string[] {
  if (batch.length < RECORD_BATCH_OVERHEAD || batch.readUInt32BE(CRC_OFFSET) !== computeBatchCrc(batch)) return [];
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  if ((attributes & CONTROL_FLAG_MASK) !== 0) return [];
  const seen = readRecords(batch, attributes & COMPRESSION_CODEC_MASK);
  if (seen === null) return [];
  const out: string[] = [];
  const lastOffsetDelta = batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
  const recordCount = batch.readInt32BE(RECORDS_COUNT_OFFSET);
  if (recordCount !== seen.count) out.push(`recordCount ${recordCount} but the batch holds ${seen.count} record(s)`);
  if (lastOffsetDelta + 1 !== recordCount) out.push(`lastOffsetDelta ${lastOffsetDelta} does not fit recordCount ${recordCount} (it should be ${recordCount - 1})`);
  if (seen.count > 0 && lastOffsetDelta !== seen.lastOffsetDelta) {
    out.push(`lastOffsetDelta ${lastOffsetDelta} but the last record's offset delta is ${seen.lastOffsetDelta}`);
  }
  if (seen.firstOutOfPlace !== null) {
    out.push(`offset deltas are not 0..${seen.count - 1}: record ${seen.firstOutOfPlace.index} has offset delta ${seen.firstOutOfPlace.offsetDelta}`);
  }
  // A LogAppendTime batch from a client is refused outright (INVALID_TIMESTAMP); its maxTimestamp means nothing.
  const createTime = (attributes & TIMESTAMP_TYPE_MASK) === 0;
  const headerMax = readLongNumber(batch, MAX_TIMESTAMP_OFFSET);
  if (createTime && seen.count > 0 && headerMax !== seen.maxTimestamp) {
    out.push(`maxTimestamp ${headerMax} but the records' largest timestamp is ${seen.maxTimestamp}`);
  }
  return out;
}

/** Every record of the batch by its length prefix (no count: the records present), or null when they do not frame. */
function readRecords(batch: Buffer, codec: number): RecordsSeen | null {
  let cur: Cursor;
  if (codec === 0) {
    cur = new Cursor(batch, batch.length);
    cur.pos = RECORD_BATCH_OVERHEAD;
  } else {
    // zstd loads on first use: handlers/produce.ts waits for it before checking a zstd batch
    if (codec > 4 || (codec === 4 && !zstdReady())) return null;
    try {
      const body = decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD));
      cur = new Cursor(body, body.length);
    } catch {
      return null;
    }
  }
  const baseTimestamp = readLongNumber(batch, BASE_TIMESTAMP_OFFSET);
  const seen: RecordsSeen = { count: 0, lastOffsetDelta: -1, firstOutOfPlace: null, maxTimestamp: -1 };
  try {
    while (cur.pos < cur.end) {
      const size = cur.varint();
      const start = cur.pos;
      if (size < 0 || size > cur.end - start) return null;
      cur.byte(); // attributes
      const timestamp = baseTimestamp + cur.varlong();
      const offsetDelta = cur.varint();
      if (offsetDelta !== seen.count && seen.firstOutOfPlace === null) seen.firstOutOfPlace = { index: seen.count, offsetDelta };
      if (timestamp > seen.maxTimestamp) seen.maxTimestamp = timestamp;
      seen.lastOffsetDelta = offsetDelta;
      seen.count++;
      cur.pos = start + size;
    }
  } catch (e) {
    if (e instanceof RecordStructureError) return null;
    throw e;
  }
  return seen;
}

/**
 * Checks every v2 batch of a Produce v3+ request (legacy message sets have none of these header
 * fields). Runs before the append: appending stamps offsets and timestamps into the batch.
 */
export function checkProduceBatches(ctx: RequestContext, req: ProduceRequest): void {
  if (ctx.apiVersion < 3) return;
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      const records = contiguous(p.records);
      if (records === null) continue;
      for (let pos = 0, i = 0; ; i++) {
        const e = nextEntry(records, pos);
        if (e.kind !== 'entry') break;
        if (e.magic === 2) {
          const found = batchHeaderMismatches(records.subarray(pos, pos + e.size));
          if (found.length > 0) {
            const where = `${t.name}-${p.index}${i > 0 ? ` batch ${i}` : ''}`;
            ctx.services.clientFindings.record('batch-header-mismatch', ctx.connection, ctx.header, `${where}: ${found.join('; ')}`);
          }
        }
        pos += e.size;
      }
    }
  }
}

/** A records field as one buffer, or null: a field the codec kept in pieces is not checked (no copy). */
function contiguous(r: RecordSet | null): Buffer | null {
  return r !== null && Buffer.isBuffer(r) ? r : null;
}

/**
 * An append answered OUT_OF_ORDER_SEQUENCE_NUMBER (its `reason` is ProducerAppendInfo's message,
 * with the incoming and the current end sequence). Called from the produce paths' error
 * branches only, so a successful append pays nothing.
 */
export function checkAppendError(ctx: RequestContext, topic: string, partition: number, errorCode: number, reason: string | undefined): void {
  if (errorCode !== ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER || !ctx.services.clientFindings.enabled) return;
  ctx.services.clientFindings.record('idempotent-sequence-gap', ctx.connection, ctx.header, `${topic}-${partition}: ${reason ?? 'out of order sequence number'}`);
}
