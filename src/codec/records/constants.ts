// Wire layout of the record formats. Every v2 batch and every legacy message starts with the same
// 12-byte "log overhead" (offset int64 + size int32), and the magic byte sits at byte 16 in both,
// which is how a reader tells the formats apart before parsing anything else.

/** offset (int64) + batchLength/messageSize (int32): bytes in front of what the length counts. */
export const LOG_OVERHEAD = 12;
/** Position of the magic byte in both formats (v2: after partitionLeaderEpoch; legacy: after crc). */
export const MAGIC_OFFSET = 16;

// ---- v2 record batch header (DefaultRecordBatch) ----------------------------------------------
export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const CRC_OFFSET = 17;
/** The CRC-32C covers everything from here to the end of the batch. */
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
/** Size of a v2 batch with no records: the header. */
export const RECORD_BATCH_OVERHEAD = 61;
/** Smallest legal batchLength of a v2 batch. */
export const MIN_BATCH_LENGTH = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD;

// ---- v2 attributes (int16) --------------------------------------------------------------------
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

// ---- legacy messages (LegacyRecord) -------------------------------------------------------------
/** crc(4) magic(1) attributes(1) key length(4) value length(4). */
export const MESSAGE_OVERHEAD_V0 = 14;
/** V0 plus the int64 timestamp. */
export const MESSAGE_OVERHEAD_V1 = 22;

// ---- shared vocabulary --------------------------------------------------------------------------
export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Codec ids as stored in the low three attribute bits (Kafka's CompressionType ids). */
export const CompressionCodec = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const satisfies Record<
  CompressionName,
  number
>;

const CODEC_NAMES: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** The name of a codec id, or undefined for the ids 5-7 that Kafka does not define. */
export function compressionName(codec: number): CompressionName | undefined {
  return CODEC_NAMES[codec];
}

/** Kafka's TimestampType ids (the attribute bit): CreateTime = 0, LogAppendTime = 1. */
export const TimestampType = { CreateTime: 0, LogAppendTime: 1 } as const;
export type TimestampTypeId = 0 | 1;

/** Kafka's RecordBatch.NO_TIMESTAMP. */
export const NO_TIMESTAMP = -1;

/** Default cap on the bytes one compressed batch or wrapper message may inflate to. */
export const DEFAULT_MAX_DECOMPRESSED_SIZE = 64 * 1024 * 1024;
