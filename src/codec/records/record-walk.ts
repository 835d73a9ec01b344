// Walking the records of a v2 batch without decoding them, as Kafka 3.9's record iterators do:
// DefaultRecordBatch's uncompressed iterator reads each record with DefaultRecord.readFrom (the
// length prefix must match what the fields use), the compressed one reads a decompressed stream
// with DefaultRecord.readPartiallyFrom (the prefix is not checked); then no bytes may be left.
// A record Kafka would refuse throws RecordStructureError with Kafka's message. Every length is
// checked against the bytes left before it is used.
//
// This is LogValidator's full path (validate.ts) and the log's reader of stored batches
// (ListOffsets by timestamp). The common uncompressed batch is checked by record-scan.ts first.
import { decompress } from './compression.js';
import { ATTRIBUTES_OFFSET, BASE_TIMESTAMP_OFFSET, COMPRESSION_CODEC_MASK, MAX_TIMESTAMP_OFFSET, RECORDS_COUNT_OFFSET, RECORD_BATCH_OVERHEAD, TIMESTAMP_TYPE_MASK } from './constants.js';
import { zstdReady } from './zstd.js';

/** int64 read as a number (exact within ±2^53; never throws, unlike the header parser). */
export function readLongNumber(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * 0x100000000 + buf.readUInt32BE(pos + 4);
}

/** A record that DefaultRecord.readFrom / readPartiallyFrom would refuse, with Kafka's message. */
export class RecordStructureError extends Error {
  constructor(
    message: string,
    /** The error Kafka answers with: INVALID_RECORD unless Kafka lets a non-API exception escape. */
    readonly error: 'INVALID_RECORD' | 'UNKNOWN_SERVER_ERROR' = 'INVALID_RECORD',
  ) {
    super(message);
  }
}

/** A cursor over one records region (the batch after its header, or its decompressed body). */
export class Cursor {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end: number,
  ) {}

  byte(): number {
    if (this.pos >= this.end) throw new RecordStructureError('Found invalid record structure');
    return this.buf[this.pos++];
  }

  /** ByteUtils.readVarint: zigzag int32, at most 5 bytes. */
  varint(): number {
    let value = 0;
    let i = 0;
    let b: number;
    while (((b = this.byte()) & 0x80) !== 0) {
      value |= (b & 0x7f) << i;
      i += 7;
      if (i > 28) throw new RecordStructureError('Varint is too long');
    }
    value |= b << i;
    return (value >>> 1) ^ -(value & 1);
  }

  /** ByteUtils.readVarlong as a number: zigzag int64, at most 10 bytes. */
  varlong(): number {
    let value = 0;
    let scale = 1;
    let i = 0;
    let b: number;
    while (((b = this.byte()) & 0x80) !== 0) {
      value += (b & 0x7f) * scale;
      scale *= 128;
      i += 7;
      if (i > 63) throw new RecordStructureError('Varlong is too long');
    }
    value += b * scale;
    // zigzag: even -> value/2, odd -> -(value+1)/2
    return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
  }

  skip(n: number): void {
    if (n <= 0) return;
    if (n > this.end - this.pos) throw new RecordStructureError('Found invalid record structure');
    this.pos += n;
  }
}

/** Called per record: return true to stop. keySize/valueSize are -1 for null. */
export type RecordVisitor = (offsetDelta: number, timestamp: number, keySize: number, valueSize: number, index: number) => boolean;

/**
 * Walks `count` records as Kafka's record iterators do: DefaultRecord.readFrom for an
 * uncompressed batch (the length prefix must match what the fields use), readPartiallyFrom for a
 * decompressed stream (the prefix is not checked); then no bytes may be left.
 */
export function walkRecords(
  cur: Cursor,
  count: number,
  compressed: boolean,
  baseTimestamp: number,
  logAppendTime: number | null,
  visit: RecordVisitor,
): void {
  for (let index = 0; index < count; index++) {
    let size: number;
    try {
      size = cur.varint();
    } catch (e) {
      if (compressed) throw new RecordStructureError('Incorrect declared batch size, premature EOF reached');
      if ((e as Error).message === 'Varint is too long') {
        // Kafka's uncompressed iterator lets this IllegalArgumentException escape.
        throw new RecordStructureError('Varint is too long', 'UNKNOWN_SERVER_ERROR');
      }
      throw new RecordStructureError('Incorrect declared batch size, premature EOF reached');
    }
    if (!compressed && cur.end - cur.pos < size) {
      throw new RecordStructureError(
        `Invalid record size: expected ${size} bytes in record payload, but instead the buffer has only ${cur.end - cur.pos} remaining bytes.`,
      );
    }
    const start = cur.pos;
    let stop: boolean;
    try {
      cur.byte(); // attributes
      const timestampDelta = cur.varlong();
      const offsetDelta = cur.varint();
      const keySize = cur.varint();
      cur.skip(keySize);
      const valueSize = cur.varint();
      cur.skip(valueSize);
      const headers = cur.varint();
      if (headers < 0) throw new RecordStructureError(`Found invalid number of record headers ${headers}`);
      if (!compressed && headers > cur.end - cur.pos) {
        throw new RecordStructureError(`Found invalid number of record headers. ${headers} is larger than the remaining size of the buffer`);
      }
      for (let h = 0; h < headers; h++) {
        const hk = cur.varint();
        if (hk < 0) throw new RecordStructureError(`Invalid negative header key size ${hk}`);
        cur.skip(hk);
        cur.skip(cur.varint());
      }
      if (!compressed && cur.pos - start !== size) {
        throw new RecordStructureError(
          `Invalid record size: expected to read ${size} bytes in record payload, but instead read ${cur.pos - start}`,
        );
      }
      const timestamp = logAppendTime ?? baseTimestamp + timestampDelta;
      stop = visit(offsetDelta, timestamp, keySize < 0 ? -1 : keySize, valueSize < 0 ? -1 : valueSize, index);
    } catch (e) {
      if (e instanceof RecordStructureError && e.message.startsWith('Varint')) throw new RecordStructureError('Found invalid record structure');
      if (e instanceof RecordStructureError && e.message.startsWith('Varlong')) throw new RecordStructureError('Found invalid record structure');
      throw e;
    }
    if (stop) return;
  }
  if (cur.pos !== cur.end) throw new RecordStructureError('Incorrect declared batch size, records still remaining in file');
}

/** The records region of a batch: a cursor over its body, decompressed when needed. */
export function recordsCursor(batch: Buffer, codec: number): Cursor {
  if (codec === 0) {
    const c = new Cursor(batch, batch.length);
    c.pos = RECORD_BATCH_OVERHEAD;
    return c;
  }
  if (codec === 4 && !zstdReady()) throw new Error('zstd is not initialised: await initCompression() before appending zstd batches');
  const body = decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD));
  return new Cursor(body, body.length);
}

/** Visits the records of a stored (already validated) batch: the log's timestamp lookups. */
export function forEachStoredRecord(batch: Buffer, visit: (offsetDelta: number, timestamp: number) => boolean): void {
  const attributes = batch.readInt16BE(ATTRIBUTES_OFFSET);
  const codec = attributes & COMPRESSION_CODEC_MASK;
  const logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? readLongNumber(batch, MAX_TIMESTAMP_OFFSET) : null;
  const cur = recordsCursor(batch, codec);
  walkRecords(cur, batch.readInt32BE(RECORDS_COUNT_OFFSET), codec !== 0, readLongNumber(batch, BASE_TIMESTAMP_OFFSET), logAppendTime, visit);
}

