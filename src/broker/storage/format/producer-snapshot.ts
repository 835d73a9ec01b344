// A producer-state snapshot, `<offset>.snapshot` (storage/.../log/ProducerStateManager.java:
// writeSnapshot, readSnapshot; PID_SNAPSHOT_MAP_SCHEMA): the idempotent/transactional producers'
// state at `offset` (the log end offset when it was taken, exclusive), so a restart replays the
// log from there instead of from the start. Kafka 3.9's version 1, big-endian:
//
//   version int16 (1) | crc uint32 (CRC-32C of everything after it) | entry count int32 |
//   per producer, 46 bytes:
//     producer_id int64 | epoch int16 | last_sequence int32 | last_offset int64 |
//     offset_delta int32 | timestamp int64 | coordinator_epoch int32 | current_txn_first_offset int64
//
// Kafka takes one when a segment is rolled (at the new segment's base offset) and when the log is
// closed (at the log end offset), and only if the offset moved since the last one
// (takeSnapshot: lastMapOffset > lastSnapOffset); so a log that never rolled and was never closed
// cleanly has none. A snapshot keeps only each producer's last batch (ProducerStateEntry's
// batchMetadata queue is not written): last_offset -1 means "no batch" (readSnapshot then leaves
// batchMetadata empty), current_txn_first_offset -1 "no ongoing transaction"; `timestamp` is both
// the last batch's timestamp and the producer's lastTimestamp (markers update it too).

import { crc32c } from '../../../codec/records/index.js';
import { fail, ok, readInt64Number, writeInt64Number, type Decoded, type DecodeFileOptions } from './result.js';

/** ProducerStateManager.PRODUCER_SNAPSHOT_VERSION. */
export const PRODUCER_SNAPSHOT_VERSION = 1;
/** PRODUCER_ENTRIES_OFFSET: the CRC covers the bytes from here (the entry count) to the end. */
const ENTRIES_OFFSET = 6;
const HEADER_SIZE = ENTRIES_OFFSET + 4;
export const PRODUCER_SNAPSHOT_ENTRY_SIZE = 46;

export interface ProducerSnapshotEntry {
  producerId: bigint;
  producerEpoch: number;
  /** The last batch's last sequence (-1 with no batch). */
  lastSequence: number;
  /** The last batch's last offset, -1 when the producer has no batch (only markers, or bumped its epoch). */
  lastOffset: number;
  /** The last batch's lastSequence - firstSequence (= its last offset delta); 0 with no batch. */
  offsetDelta: number;
  /** The producer's last timestamp (its last batch's max timestamp, or its last marker's). */
  timestamp: number;
  /** The coordinator epoch of the last transaction marker, -1 if none. */
  coordinatorEpoch: number;
  /** The first offset of the producer's ongoing transaction, -1 if none. */
  currentTxnFirstOffset: number;
}

/** The snapshot file for these producers, CRC included (writeSnapshot). */
export function encodeProducerSnapshot(entries: readonly ProducerSnapshotEntry[]): Buffer {
  const buf = Buffer.alloc(HEADER_SIZE + entries.length * PRODUCER_SNAPSHOT_ENTRY_SIZE);
  buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, 0);
  buf.writeInt32BE(entries.length, ENTRIES_OFFSET);
  let at = HEADER_SIZE;
  for (const e of entries) {
    buf.writeBigInt64BE(e.producerId, at);
    buf.writeInt16BE(e.producerEpoch, at + 8);
    buf.writeInt32BE(e.lastSequence, at + 10);
    writeInt64Number(buf, at + 14, e.lastOffset, 'lastOffset');
    buf.writeInt32BE(e.offsetDelta, at + 22);
    writeInt64Number(buf, at + 26, e.timestamp, 'timestamp');
    buf.writeInt32BE(e.coordinatorEpoch, at + 34);
    writeInt64Number(buf, at + 38, e.currentTxnFirstOffset, 'currentTxnFirstOffset');
    at += PRODUCER_SNAPSHOT_ENTRY_SIZE;
  }
  buf.writeUInt32BE(crc32c(buf, ENTRIES_OFFSET), 2);
  return buf;
}

/**
 * readSnapshot: the schema (every size checked against the bytes there before use), then the
 * version (1), then the CRC-32C. Kafka's CorruptSnapshotException becomes a FormatError naming the
 * file; Kafka then deletes the snapshot and rebuilds producer state from the log, which is what
 * the caller should do. Bytes after the entries, which Kafka would fold into the CRC, are an error.
 */
export function decodeProducerSnapshot(buf: Buffer, options?: DecodeFileOptions): Decoded<ProducerSnapshotEntry[]> {
  const file = options?.file ?? 'producer snapshot';
  if (buf.length < HEADER_SIZE) return fail(file, `failed schema validation: ${buf.length} bytes, shorter than the ${HEADER_SIZE}-byte header`);
  const count = buf.readInt32BE(ENTRIES_OFFSET);
  if (count < 0) return fail(file, `failed schema validation: array size ${count} cannot be negative`, { position: ENTRIES_OFFSET });
  const body = buf.length - HEADER_SIZE;
  if (count > Math.floor(body / PRODUCER_SNAPSHOT_ENTRY_SIZE)) {
    return fail(file, `failed schema validation: ${count} producer entries need ${count * PRODUCER_SNAPSHOT_ENTRY_SIZE} bytes, only ${body} available`, {
      position: ENTRIES_OFFSET,
    });
  }
  const version = buf.readInt16BE(0);
  if (version !== PRODUCER_SNAPSHOT_VERSION) return fail(file, `contained an unknown file version ${version}`, { position: 0 });
  const stored = buf.readUInt32BE(2);
  const computed = crc32c(buf, ENTRIES_OFFSET);
  if (stored !== computed) return fail(file, `is corrupt (CRC is no longer valid). Stored crc: ${stored}. Computed crc: ${computed}`, { position: 2 });
  const end = HEADER_SIZE + count * PRODUCER_SNAPSHOT_ENTRY_SIZE;
  if (end !== buf.length) return fail(file, `has ${buf.length - end} bytes after its ${count} producer entries`, { position: end });
  const entries: ProducerSnapshotEntry[] = new Array(count);
  let at = HEADER_SIZE;
  for (let i = 0; i < count; i++, at += PRODUCER_SNAPSHOT_ENTRY_SIZE) {
    const lastOffset = readInt64Number(buf, at + 14);
    const timestamp = readInt64Number(buf, at + 26);
    const currentTxnFirstOffset = readInt64Number(buf, at + 38);
    if (lastOffset === null || timestamp === null || currentTxnFirstOffset === null) {
      return fail(file, `producer entry ${i} has an offset or timestamp outside the safe-integer range`, { position: at });
    }
    entries[i] = {
      producerId: buf.readBigInt64BE(at),
      producerEpoch: buf.readInt16BE(at + 8),
      lastSequence: buf.readInt32BE(at + 10),
      lastOffset,
      offsetDelta: buf.readInt32BE(at + 22),
      timestamp,
      coordinatorEpoch: buf.readInt32BE(at + 34),
      currentTxnFirstOffset,
    };
  }
  return ok(entries);
}
