// Kafka's internal topics as far as kmock's coordinators need them: their names, their partition
// counts and their creation on the first coordinator lookup (KafkaApis.getCoordinator: the topic
// is created and the lookup answers COORDINATOR_NOT_AVAILABLE; the client retries and finds the
// coordinator).
import type { BrokerServices } from './services.js';

/** Topic.GROUP_METADATA_TOPIC_NAME. */
export const OFFSETS_TOPIC = '__consumer_offsets';
/** Topic.TRANSACTION_STATE_TOPIC_NAME. */
export const TRANSACTION_STATE_TOPIC = '__transaction_state';
/** offsets.topic.num.partitions and transaction.state.log.num.partitions: both default to 50. */
export const INTERNAL_TOPIC_PARTITIONS = 50;

/** The configs Kafka 3.9 gives each internal topic at creation (what DescribeConfigs shows). */
const CONFIGS: Record<string, ReadonlyArray<[string, string]>> = {
  // GroupMetadataManager.offsetsTopicConfigs (kmock keeps what DescribeConfigs needs).
  [OFFSETS_TOPIC]: [['cleanup.policy', 'compact']],
  // TransactionStateManager.transactionTopicConfigs (min.insync.replicas is left out: one broker).
  [TRANSACTION_STATE_TOPIC]: [
    ['unclean.leader.election.enable', 'false'],
    ['compression.type', 'uncompressed'],
    ['cleanup.policy', 'compact'],
    ['segment.bytes', '104857600'],
  ],
};

/** True when the topic exists; else creates it (with Kafka's configs) and answers false. */
export function ensureInternalTopic(b: Pick<BrokerServices, 'topics' | 'log'>, topic: typeof OFFSETS_TOPIC | typeof TRANSACTION_STATE_TOPIC): boolean {
  if (b.topics.get(topic)) return true;
  b.topics.create(topic, INTERNAL_TOPIC_PARTITIONS, 1, new Map(CONFIGS[topic]));
  b.log.info({ topic }, 'internal topic created');
  return false;
}
