// Kafka's internal topics as far as kmock's coordinators need them: their names, their partition
// counts and their creation on the first coordinator lookup (KafkaApis.getCoordinator: the topic
// is created and the lookup answers COORDINATOR_NOT_AVAILABLE; the client retries and finds the
// coordinator). The coordinators keep their state there as records (group/records.ts,
// txn/transaction-log.ts); a coordinator writing before any lookup created the topic creates it
// itself (group/offsets-topic.ts, txn/transaction-log.ts), with the same configs.
import type { BrokerServices } from './services.js';

/** Topic.GROUP_METADATA_TOPIC_NAME. */
export const OFFSETS_TOPIC = '__consumer_offsets';
/** Topic.TRANSACTION_STATE_TOPIC_NAME. */
export const TRANSACTION_STATE_TOPIC = '__transaction_state';
/** offsets.topic.num.partitions and transaction.state.log.num.partitions: both default to 50. */
export const INTERNAL_TOPIC_PARTITIONS = 50;

export type InternalTopic = typeof OFFSETS_TOPIC | typeof TRANSACTION_STATE_TOPIC;

/** offsets.topic.segment.bytes and transaction.state.log.segment.bytes: both default to 100 MiB. */
export const INTERNAL_TOPIC_SEGMENT_BYTES = 104_857_600;

/** The configs Kafka 3.9 gives each internal topic at creation (what DescribeConfigs shows). */
const CONFIGS: Record<string, ReadonlyArray<[string, string]>> = {
  // GroupCoordinator.offsetsTopicConfigs (3.9's classic coordinator, which GroupCoordinatorAdapter
  // asks): compacted, the coordinator's own compression kept, offsets.topic.segment.bytes.
  [OFFSETS_TOPIC]: [
    ['cleanup.policy', 'compact'],
    ['segment.bytes', String(INTERNAL_TOPIC_SEGMENT_BYTES)],
    ['compression.type', 'producer'],
  ],
  // TransactionStateManager.transactionTopicConfigs. min.insync.replicas is
  // transaction.state.log.min.isr, which a one-broker Kafka must set to 1 (its default, 2, leaves
  // the transaction log unwritable with one replica; scripts/kafka-reference sets 1 too).
  [TRANSACTION_STATE_TOPIC]: [
    ['unclean.leader.election.enable', 'false'],
    ['compression.type', 'uncompressed'],
    ['cleanup.policy', 'compact'],
    ['min.insync.replicas', '1'],
    ['segment.bytes', String(INTERNAL_TOPIC_SEGMENT_BYTES)],
  ],
};

/** True when the topic exists; else creates it (with Kafka's configs) and answers false. */
export function ensureInternalTopic(b: Pick<BrokerServices, 'topics' | 'log'>, topic: InternalTopic): boolean {
  if (b.topics.get(topic)) return true;
  b.topics.create(topic, INTERNAL_TOPIC_PARTITIONS, 1, new Map(CONFIGS[topic]));
  b.log.info({ topic }, 'internal topic created');
  return false;
}
