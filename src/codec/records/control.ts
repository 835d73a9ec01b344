// Control records (isControl batches): transaction markers written by the broker when a
// transaction ends, plus KRaft's own types. The key is version int16 + type int16; for ABORT and
// COMMIT the value is Kafka's EndTransactionMarker: version int16 + coordinatorEpoch int32.
import { DecodeError } from '../primitives/index.js';
import { encodeBatch } from './batch.js';
import type { KafkaRecord, RecordInput } from './record.js';

/** Kafka's ControlRecordType ids. */
export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
  LEADER_CHANGE: 2,
  SNAPSHOT_HEADER: 3,
  SNAPSHOT_FOOTER: 4,
  KRAFT_VERSION: 5,
  KRAFT_VOTERS: 6,
} as const;

export function controlRecordKey(type: number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt16BE(version, 0);
  b.writeInt16BE(type, 2);
  return b;
}

/** The single record of a transaction-marker batch. */
export function endTxnMarkerRecord(commit: boolean, coordinatorEpoch: number, timestamp?: number): RecordInput {
  const value = Buffer.allocUnsafe(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return { key: controlRecordKey(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT), value, timestamp };
}

/**
 * A whole marker batch as the broker writes it on EndTxn/WriteTxnMarkers (Kafka's
 * MemoryRecords.withEndTransactionMarker): transactional control batch, uncompressed, with one
 * record (the EndTxnMarker key and value, timestamp `timestamp`), the producer's id and epoch,
 * baseSequence -1. `timestampType` 1 (LogAppendTime) is what LogValidator leaves on a
 * LogAppendTime topic: the attribute bit, and `timestamp` (the append time) as max timestamp.
 */
export function encodeEndTxnMarkerBatch(m: {
  commit: boolean;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  timestamp: number;
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
  timestampType?: 0 | 1;
}): Buffer {
  return encodeBatch({
    baseOffset: m.baseOffset,
    partitionLeaderEpoch: m.partitionLeaderEpoch,
    timestampType: m.timestampType,
    isControl: true,
    isTransactional: true,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    baseSequence: -1,
    baseTimestamp: m.timestamp,
    records: [endTxnMarkerRecord(m.commit, m.coordinatorEpoch, m.timestamp)],
  });
}

/** Reads an ABORT/COMMIT record's value. */
export function parseEndTxnMarker(record: Pick<KafkaRecord, 'value' | 'control'>): {
  commit: boolean;
  version: number;
  coordinatorEpoch: number;
} {
  const type = record.control?.type;
  if (type !== ControlRecordType.ABORT && type !== ControlRecordType.COMMIT) {
    throw new DecodeError(`control record type ${String(type)} is not a transaction marker`);
  }
  const v = record.value;
  if (v === null || v.length < 6) throw new DecodeError('transaction marker value must hold at least 6 bytes');
  const version = v.readInt16BE(0);
  if (version < 0) throw new DecodeError(`invalid transaction marker version ${version}`);
  return { commit: type === ControlRecordType.COMMIT, version, coordinatorEpoch: v.readInt32BE(2) };
}
