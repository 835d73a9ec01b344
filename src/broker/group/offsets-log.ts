// What the group coordinator needs of the __consumer_offsets partitions. kmock writes no offset
// records, but three things Kafka 3.9 reads from that log are observable and kept here:
//
//  * which partition a group lives in (GroupMetadataManager.partitionFor): AddOffsetsToTxn adds that
//    partition to the transaction, and the transaction's markers name it;
//  * the position of each offset record (the batch's base offset): when a transaction commits, its
//    offsets replace a plain commit only if they were written after it (GroupMetadata
//    completePendingTxnOffsetCommit, CommitRecordMetadataAndOffset.olderThan);
//  * the partition's producer state for transactions: a producer that wrote a TxnOffsetCommit batch
//    to the partition has a transaction open there until a marker is written (UnifiedLog
//    hasOngoingTransaction). While it is open, KIP-890 verification is skipped
//    (UnifiedLog.maybeStartTransactionVerification) and a batch with an older epoch is refused
//    with INVALID_PRODUCER_EPOCH (ProducerAppendInfo.checkProducerEpoch). The state is per
//    __consumer_offsets partition, not per group: groups sharing a partition share it.
//
// Kafka also remembers a producer's epoch after its transaction closes (until
// producer.id.expiration.ms); kmock forgets it with the marker. It only matters when verification
// is off: with it on, the transaction coordinator refuses an old epoch first.

import { javaStringHashCode } from './protocol-selection.js';
import { ErrorCode } from '../../codec/index.js';

/** offsets.topic.num.partitions (Kafka 3.9 default). */
export const DEFAULT_OFFSETS_TOPIC_PARTITIONS = 50;

/** org.apache.kafka.common.utils.Utils.abs: Math.abs, but 0 for Integer.MIN_VALUE. */
export function javaUtilsAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** GroupMetadataManager.partitionFor: Utils.abs(groupId.hashCode) % offsets.topic.num.partitions. */
export function offsetsPartitionFor(groupId: string, partitions: number): number {
  return javaUtilsAbs(javaStringHashCode(groupId)) % partitions;
}

export interface OpenOffsetsTransaction {
  /** The __consumer_offsets partition. */
  partition: number;
  producerId: bigint;
  /** The epoch of the producer's last batch there. */
  producerEpoch: number;
}

export class OffsetsLog {
  private position = 0;
  /** __consumer_offsets partition → producer id → epoch of its open transaction there. */
  private readonly open = new Map<number, Map<bigint, number>>();

  constructor(readonly partitionCount: number) {}

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitionCount);
  }

  /** The log position of the next offset record (increasing across all partitions). */
  nextPosition(): number {
    return ++this.position;
  }

  hasOngoingTransaction(partition: number, producerId: bigint): boolean {
    return this.open.get(partition)?.has(producerId) ?? false;
  }

  /** checkProducerEpoch for a transactional batch: NONE or INVALID_PRODUCER_EPOCH. */
  checkProducerEpoch(partition: number, producerId: bigint, producerEpoch: number): number {
    const current = this.open.get(partition)?.get(producerId);
    return current !== undefined && producerEpoch < current ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NONE;
  }

  /** A TxnOffsetCommit batch was appended: the producer's transaction is open in the partition. */
  appendTransactionalBatch(partition: number, producerId: bigint, producerEpoch: number): void {
    let producers = this.open.get(partition);
    if (!producers) this.open.set(partition, (producers = new Map()));
    producers.set(producerId, Math.max(producers.get(producerId) ?? producerEpoch, producerEpoch));
  }

  /** A COMMIT or ABORT marker was written to the partition: the producer's transaction there is over. */
  appendMarker(partition: number, producerId: bigint): void {
    const producers = this.open.get(partition);
    if (!producers) return;
    producers.delete(producerId);
    if (producers.size === 0) this.open.delete(partition);
  }

  /** Every open transaction, by partition then producer (the read model). */
  openTransactions(): OpenOffsetsTransaction[] {
    const out: OpenOffsetsTransaction[] = [];
    for (const [partition, producers] of [...this.open].sort((a, b) => a[0] - b[0])) {
      for (const [producerId, producerEpoch] of producers) out.push({ partition, producerId, producerEpoch });
    }
    return out;
  }
}
