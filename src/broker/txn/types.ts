// Shared types of the transaction coordinator (src/broker/txn). Producer ids are bigint, as
// ProducerIdManager (src/broker/log/producer-ids.ts) hands them out; epochs are numbers (Kafka's
// Short). Constants follow org.apache.kafka.common.record.RecordBatch.

/** RecordBatch.NO_PRODUCER_ID. */
export const NO_PRODUCER_ID = -1n;
/** RecordBatch.NO_PRODUCER_EPOCH. */
export const NO_PRODUCER_EPOCH = -1;
/** Short.MaxValue: the largest producer epoch. */
export const MAX_PRODUCER_EPOCH = 32767;

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A TopicPartition as a set/map key. Topic names cannot contain ':' (Kafka's legal characters). */
export function tpKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`;
}

export function tpFromKey(key: string): TopicPartition {
  const i = key.lastIndexOf(':');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}

/** The request's ProducerIdAndEpoch of InitProducerId v3+ (KIP-360); absent = not given. */
export interface ProducerIdAndEpoch {
  producerId: bigint;
  epoch: number;
}

/** TransactionResult. */
export type TransactionResult = 'COMMIT' | 'ABORT';

/** TransactionCoordinator.InitProducerIdResult. */
export interface InitProducerIdResult {
  producerId: bigint;
  producerEpoch: number;
  errorCode: number;
}

/** The name of the transaction-state topic (Topic.TRANSACTION_STATE_TOPIC_NAME). */
export const TRANSACTION_STATE_TOPIC = '__transaction_state';
/** The name of the offsets topic (Topic.GROUP_METADATA_TOPIC_NAME). */
export const GROUP_METADATA_TOPIC = '__consumer_offsets';
