// The broker's GroupRecordSink: the group coordinator's batches (records.ts) appended to the
// __consumer_offsets partition logs, as GroupMetadataManager.appendForGroup has ReplicaManager
// append them (origin COORDINATOR, internal topics allowed, acks offsets.commit.required.acks = -1,
// which one replica always meets). The topic's configs apply (cleanup.policy=compact: the log
// manager's cleaner compacts old commits and tombstones away, compression.type=producer keeps the
// coordinator's uncompressed batches, max.message.bytes: a too large group record is
// MESSAGE_TOO_LARGE, which the coordinator maps as 3.9 does). A Fetch long poll on the partition
// is woken by the append, as for any partition.
//
// The topic is created on the first FindCoordinator (internal-topics.ts); a write before any lookup
// (a client that commits without one, as kmock's own tests do) creates it here, with the same
// configs, rather than answering NOT_COORDINATOR as a Kafka broker without the topic would.
//
// A TxnOffsetCommit batch is transactional. Before its first batch in a partition the
// coordinator has verified the partition with the transaction coordinator (txn-offsets.ts), so
// the append carries the guard of a verification state started here
// (ReplicaManager.maybeStartTransactionVerificationForPartition's VerificationGuard, which 3.9
// passes to appendForGroup). Kafka appends the coordinator's batches with origin COORDINATOR, which
// skips the duplicate and sequence checks and writes base sequence 0 every time: so does this
// sink (TxnAppendOptions.origin 'coordinator').
import { EncodeError, ErrorCode } from '../../codec/index.js';
import { ensureInternalTopic, OFFSETS_TOPIC } from '../internal-topics.js';
import { resolveLogConfig } from '../log/log-config.js';
import { NO_VERIFICATION, type TxnAppendOptions } from '../log/log-results.js';
import type { PartitionLog } from '../log/partition-log.js';
import type { BrokerServices } from '../services.js';
import type { Clock } from './clock.js';
import { encodeGroupRecordBatch, type GroupAppendResult, type GroupRecordBatch, type GroupRecordSink } from './records.js';

/** What the sink uses of the broker (any clock: the coordinator's). */
export type OffsetsTopicServices = Pick<BrokerServices, 'topics' | 'logDefaults' | 'log' | 'fetchWaiters'> & {
  config: Pick<BrokerServices['config'], 'transactionPartitionVerificationEnable'>;
  clock: Clock;
};

/** The sink that writes the coordinator's records into __consumer_offsets. */
export function offsetsTopicSink(b: OffsetsTopicServices): GroupRecordSink {
  return { append: (batch) => appendToOffsetsTopic(b, batch) };
}

export function appendToOffsetsTopic(b: OffsetsTopicServices, batch: GroupRecordBatch): GroupAppendResult {
  ensureInternalTopic(b, OFFSETS_TOPIC);
  const topic = b.topics.get(OFFSETS_TOPIC)!;
  const log = topic.partitions[batch.partition];
  // No such partition here: the coordinator is not its leader (getMagic answers None).
  if (log === undefined) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, baseOffset: -1 };
  const now = b.clock.now();
  const baseSequence = batch.baseSequence;
  let txn: TxnAppendOptions = { ...NO_VERIFICATION, origin: 'coordinator' };
  if (batch.transactional) {
    const verificationEnabled = b.config.transactionPartitionVerificationEnable;
    const guard = verificationEnabled ? log.producers.maybeStartTransactionVerification(batch.producerId, baseSequence, batch.producerEpoch, now) : 0;
    txn = { verificationEnabled, guard, origin: 'coordinator' };
  }
  let bytes: Buffer;
  try {
    bytes = encodeGroupRecordBatch(batch, baseSequence);
  } catch (e) {
    // A string a record cannot hold (a group or member id over 32767 bytes): Kafka's serializer
    // throws and the request is answered UNKNOWN_SERVER_ERROR.
    if (!(e instanceof EncodeError)) throw e;
    b.log.warn({ topic: OFFSETS_TOPIC, partition: batch.partition, cause: batch.cause, err: e.message }, 'group records not appended');
    return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, baseOffset: -1 };
  }
  const result = log.appendAsLeader(bytes, resolveLogConfig(topic.configs, b.logDefaults), now, txn);
  if (result.errorCode !== ErrorCode.NONE) {
    b.log.warn({ topic: OFFSETS_TOPIC, partition: batch.partition, cause: batch.cause, errorCode: result.errorCode, reason: result.reason }, 'group records not appended');
    return { errorCode: result.errorCode, baseOffset: -1 };
  }
  b.fetchWaiters.notify(OFFSETS_TOPIC, batch.partition);
  return { errorCode: ErrorCode.NONE, baseOffset: result.baseOffset };
}
