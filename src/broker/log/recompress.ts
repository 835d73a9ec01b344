// LogValidator.validateMessagesAndAssignOffsetsCompressed's not-in-place path: a batch whose codec
// is not the topic's compression.type (unless that is `producer`) is not stored as sent but
// rebuilt (buildRecordsAndAssignOffsets → MemoryRecordsBuilder) with the topic's codec, its
// records' offset deltas renumbered 0, 1, 2, ... (A compressed batch in the topic's codec whose
// offset deltas are out of order would be rebuilt too, but Kafka 3.9 fails there with an
// unexpected exception, and so does kmock: partition-log.ts.) What survives:
// every record's key, value, headers and timestamp (as a consumer reads it: for a batch carrying
// the LogAppendTime bit, its maxTimestamp), the producer id, epoch and base sequence, and the
// transactional bit. What is new: the codec, offset deltas 0..n-1, record attributes 0, the base
// timestamp (the first record's). The timestamp type, max timestamp, base offset and leader
// epoch are stamped afterwards exactly as for a batch kept as sent (partition-log.ts).
//
// Control batches never get here: clients may not write them. The compression.<codec>.level
// settings are not applied (each codec's default level); Kafka's compressed bytes are not
// reproducible anyway (its Java codecs differ from these), only what they decompress to.
import { decodeBatch, encodeBatch } from '../../codec/records/batch.js';
import { compressionName } from '../../codec/records/constants.js';

/** compression.type → the codec id batches are stored with; null for `producer` (kept as sent). */
export function targetCodecOf(compressionType: string | undefined): number | null {
  switch (compressionType) {
    case 'uncompressed':
      return 0;
    case 'gzip':
      return 1;
    case 'snappy':
      return 2;
    case 'lz4':
      return 3;
    case 'zstd':
      return 4;
    default:
      return null;
  }
}

/**
 * The batch rebuilt with `targetCodec` (a validated v2 client batch: its CRC and records have
 * been checked already), and the offset delta of its record with the max timestamp. Its base offset is 0, its timestamp type CreateTime and its max
 * timestamp the largest record timestamp: the caller stamps those as it does for any batch.
 */
export function recompressBatch(batch: Buffer, targetCodec: number): { batch: Buffer; offsetDeltaOfMax: number | null } {
  const decoded = decodeBatch(batch, { verifyCrc: false });
  // The record holding the max timestamp, by its new offset delta (its index): the first record
  // with the largest timestamp, the maximum starting from -1 as in LogValidator.
  let max = -1;
  let offsetDeltaOfMax: number | null = null;
  decoded.records.forEach((r, i) => {
    if (r.timestamp > max) {
      max = r.timestamp;
      offsetDeltaOfMax = i;
    } else if (r.timestamp === max && offsetDeltaOfMax === null) {
      offsetDeltaOfMax = i;
    }
  });
  const rebuilt = encodeBatch({
    records: decoded.records.map((r, i) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp, offsetDelta: i })),
    compression: compressionName(targetCodec),
    isTransactional: decoded.isTransactional,
    producerId: decoded.producerId,
    producerEpoch: decoded.producerEpoch,
    baseSequence: decoded.baseSequence,
    partitionLeaderEpoch: decoded.partitionLeaderEpoch,
  });
  return { batch: rebuilt, offsetDeltaOfMax };
}
