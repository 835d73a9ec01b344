// What the group coordinator keeps of the __consumer_offsets partitions beside its records (which
// go to the log through the GroupRecordSink, records.ts):
//
//  * which partition a group lives in (GroupMetadataManager.partitionFor): its records go there,
//    AddOffsetsToTxn adds that partition to the transaction, and the transaction's markers name it;
//  * the partition's producer state for transactions, as the coordinator consults it: a producer
//    that wrote a TxnOffsetCommit batch to the partition has a transaction open there until a
//    marker is written (UnifiedLog hasOngoingTransaction). While it is open, KIP-890 verification
//    is skipped (UnifiedLog.maybeStartTransactionVerification) and a batch with an older epoch is
//    refused with INVALID_PRODUCER_EPOCH (ProducerAppendInfo.checkProducerEpoch). The state is per
//    __consumer_offsets partition, not per group: groups sharing a partition share it. A
//    coordinator loaded from the log (loader.ts) reopens the transactions it finds without a marker.
//
// The positions of the offset records (the batches' base offsets, which decide whether a
// transaction's offsets replace a plain commit: CommitRecordMetadataAndOffset.olderThan) are what
// the sink answers. Kafka also remembers a producer's epoch after its transaction closes (until
// producer.id.expiration.ms); this model forgets it with the marker, and the partition log, which
// remembers it, refuses the older epoch itself.

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
  /** __consumer_offsets partition → producer id → epoch of its open transaction there. */
  private readonly open = new Map<number, Map<bigint, number>>();

  constructor(readonly partitionCount: number) {}

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitionCount);
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
