// Splitting a records blob (a Produce request's or a Fetch response's `records`) into its
// batches without decoding them. Each batch comes back as a view of the blob, so the broker can
// patch it in place and store that same memory.
import { DecodeError } from '../primitives/index.js';
import {
  BATCH_LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MESSAGE_OVERHEAD_V0,
  MESSAGE_OVERHEAD_V1,
  MIN_BATCH_LENGTH,
} from './constants.js';
import { computeBatchCrc, readBatchHeader, type BatchHeader } from './header.js';

/** The incomplete entry at the end of a blob (a fetch response cut at max_bytes). */
export interface PartialTail {
  /** Where the incomplete entry starts in the blob. */
  position: number;
  /** How many of its bytes are present. */
  available: number;
  /** Its full size when the length field was readable, else null. */
  size: number | null;
}

/** One entry of a records blob: a v2 batch, or a legacy (magic 0/1) message. */
export interface RawBatch {
  /** Where the entry starts in the blob. */
  position: number;
  /** The entry's bytes, log overhead included: a view of the blob, so writes go through. */
  bytes: Buffer;
  /** The magic byte: 2 for record batches, 0/1 for legacy messages, anything else is unknown. */
  magic: number;
  /** The parsed header when magic is 2, else null (legacy entries have a different layout). */
  header: BatchHeader | null;
}

export interface IterateOptions {
  /**
   * Stop quietly at an entry cut short by the end of the blob, as a consumer must for a fetch
   * response. Default false: a Produce request's blob must hold whole batches only.
   */
  allowPartial?: boolean;
}

/**
 * The size of the entry starting at `pos`, or null when the blob ends before it does. Throws
 * DecodeError for a length no entry can have (corruption, not truncation). Both formats share
 * the log overhead and the magic position, so this frames v2 batches and legacy messages alike,
 * following Kafka's ByteBufferLogInputStream.
 */
export function entrySizeAt(buf: Buffer, pos: number, end = buf.length): number | null {
  const left = end - pos;
  if (left < LOG_OVERHEAD) return null;
  const length = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
  // The smallest entry of any format is a v0 message; a smaller or negative length is corrupt.
  if (length < MESSAGE_OVERHEAD_V0) {
    throw new DecodeError(`record entry at byte ${pos} has length ${length}, below the minimum ${MESSAGE_OVERHEAD_V0}`);
  }
  if (length > left - LOG_OVERHEAD) return null;
  const magic = buf.readInt8(pos + MAGIC_OFFSET);
  const min = magic === 2 ? MIN_BATCH_LENGTH : magic === 1 ? MESSAGE_OVERHEAD_V1 : MESSAGE_OVERHEAD_V0;
  if (length < min) {
    throw new DecodeError(`magic ${magic} entry at byte ${pos} has length ${length}, below the minimum ${min}`);
  }
  return LOG_OVERHEAD + length;
}

/** Describes the incomplete entry at `pos` (for which `entrySizeAt` returned null). */
export function partialAt(buf: Buffer, pos: number, end = buf.length): PartialTail {
  const available = end - pos;
  return {
    position: pos,
    available,
    size: available >= LOG_OVERHEAD ? LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET) : null,
  };
}

function truncatedError(t: PartialTail): DecodeError {
  const want = t.size === null ? `at least ${LOG_OVERHEAD}` : String(t.size);
  return new DecodeError(`record entry at byte ${t.position} needs ${want} bytes, ${t.available} left`);
}

/**
 * Yields the entries of `records` in order. Headers of v2 batches are parsed (61 bytes each);
 * records are not decoded and CRCs are not checked here (see `verifyBatchCrc`,
 * `checkProduceRecords`). A batch cut short by the end of the blob throws DecodeError unless
 * `allowPartial`, when iteration just ends there.
 */
export function* iterateBatches(records: Buffer, options?: IterateOptions): Generator<RawBatch, void, undefined> {
  const end = records.length;
  let pos = 0;
  while (pos < end) {
    const size = entrySizeAt(records, pos, end);
    if (size === null) {
      if (options?.allowPartial === true) return;
      throw truncatedError(partialAt(records, pos, end));
    }
    const bytes = records.subarray(pos, pos + size);
    const magic = bytes.readInt8(MAGIC_OFFSET);
    yield { position: pos, bytes, magic, header: magic === 2 ? readBatchHeader(bytes) : null };
    pos += size;
  }
}

/** Like `iterateBatches`, as an array, and says whether (and where) the blob ended mid-entry. */
export function splitBatches(
  records: Buffer,
  options?: IterateOptions,
): { batches: RawBatch[]; partial: PartialTail | null } {
  const batches: RawBatch[] = [];
  const end = records.length;
  let pos = 0;
  while (pos < end) {
    const size = entrySizeAt(records, pos, end);
    if (size === null) {
      const tail = partialAt(records, pos, end);
      if (options?.allowPartial === true) return { batches, partial: tail };
      throw truncatedError(tail);
    }
    const bytes = records.subarray(pos, pos + size);
    const magic = bytes.readInt8(MAGIC_OFFSET);
    batches.push({ position: pos, bytes, magic, header: magic === 2 ? readBatchHeader(bytes) : null });
    pos += size;
  }
  return { batches, partial: null };
}

// ---- a header-only check for tools and tests -------------------------------------------------------
// Not what the broker runs: Kafka's checks, in Kafka's order and words, with every record walked,
// are validate.ts's (validateClientBatch). This one reads headers and CRCs only and phrases its
// findings by byte position, for callers that want a quick verdict on a Produce records blob.

/** A v2 batch that passed `checkProduceRecords`. */
export interface ValidBatch extends RawBatch {
  magic: 2;
  header: BatchHeader;
}

/**
 * Why a Produce request's records were refused, in Kafka's terms:
 * - CORRUPT_MESSAGE: bad lengths, truncation, CRC mismatch, unknown codec, a magic above 2 (Kafka's
 *   CorruptRecordException, error code 2);
 * - UNSUPPORTED_MAGIC: a legacy entry (magic 0 or 1); `magic` says which. Kafka answers
 *   UNSUPPORTED_FOR_MESSAGE_FORMAT (43) or, for Produce v3+, INVALID_RECORD (87): the broker picks;
 * - INVALID_RECORD: well-formed but refused (Kafka's InvalidRecordException, 87): no batch, more than
 *   one batch, an offset range that disagrees with the record count, a client-written control batch.
 */
export type ProduceRecordsProblem = 'CORRUPT_MESSAGE' | 'UNSUPPORTED_MAGIC' | 'INVALID_RECORD';

export type ProduceRecordsCheck =
  | { ok: true; batches: ValidBatch[] }
  | { ok: false; problem: ProduceRecordsProblem; message: string; position: number; magic?: number };

export interface ProduceCheckOptions {
  /** Produce v3+ carries exactly one batch per partition (Kafka's ProduceRequest.validateRecords). Default true. */
  singleBatch?: boolean;
}

/**
 * A Produce records blob's framing, magic, CRCs and header consistency, from headers and CRCs
 * only (records are neither decoded nor decompressed).
 */
export function checkProduceRecords(records: Buffer, options?: ProduceCheckOptions): ProduceRecordsCheck {
  const batches: ValidBatch[] = [];
  const end = records.length;
  let pos = 0;
  while (pos < end) {
    let size: number | null;
    try {
      size = entrySizeAt(records, pos, end);
    } catch (e) {
      return fail('CORRUPT_MESSAGE', e, pos);
    }
    if (size === null) return fail('CORRUPT_MESSAGE', truncatedError(partialAt(records, pos, end)), pos);
    const bytes = records.subarray(pos, pos + size);
    const magic = bytes.readInt8(MAGIC_OFFSET);
    if (magic === 0 || magic === 1) {
      return { ok: false, problem: 'UNSUPPORTED_MAGIC', message: `entry at byte ${pos} has magic ${magic}`, position: pos, magic };
    }
    if (magic !== 2) {
      // No Kafka version ever wrote this: Kafka's log reader calls it corrupt.
      return { ok: false, problem: 'CORRUPT_MESSAGE', message: `entry at byte ${pos} has invalid magic ${magic}`, position: pos, magic };
    }
    let header: BatchHeader;
    try {
      header = readBatchHeader(bytes);
    } catch (e) {
      return fail('CORRUPT_MESSAGE', e, pos);
    }
    const crc = computeBatchCrc(bytes);
    if (crc !== header.crc) {
      return fail('CORRUPT_MESSAGE', `record batch at byte ${pos} has CRC ${hex(header.crc)}, computed ${hex(crc)}`, pos);
    }
    if (header.codec > 4) return fail('CORRUPT_MESSAGE', `record batch at byte ${pos} has unknown compression codec ${header.codec}`, pos);
    if (header.recordsCount <= 0) return fail('INVALID_RECORD', `record batch at byte ${pos} has record count ${header.recordsCount}`, pos);
    if (header.lastOffsetDelta + 1 !== header.recordsCount) {
      return fail(
        'INVALID_RECORD',
        `record batch at byte ${pos} covers ${header.lastOffsetDelta + 1} offsets but holds ${header.recordsCount} records`,
        pos,
      );
    }
    if (header.isControl) return fail('INVALID_RECORD', 'clients are not allowed to write control records', pos);
    batches.push({ position: pos, bytes, magic: 2, header });
    pos += size;
  }
  if (batches.length === 0) return fail('INVALID_RECORD', 'produce records hold no record batch', 0);
  if (batches.length > 1 && options?.singleBatch !== false) {
    return fail('INVALID_RECORD', `produce records hold ${batches.length} record batches, expected exactly one`, batches[1].position);
  }
  return { ok: true, batches };
}

function fail(problem: ProduceRecordsProblem, e: unknown, position: number): ProduceRecordsCheck {
  if (!(typeof e === 'string' || e instanceof DecodeError)) throw e; // a bug, not bad bytes
  const message = typeof e === 'string' ? e : e.reason;
  return { ok: false, problem, message, position };
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
