// The broker's TxnLogStore (coordinator.ts): the transaction coordinator's records
// (log-records.ts: TransactionLogKey/TransactionLogValue v0 and tombstones, as Kafka 3.9's
// TransactionStateManager writes them) appended to the __transaction_state partition of each
// transactional id, as appendTransactionToLog / writeTombstonesForExpiredTransactionalIds have
// ReplicaManager append them (origin COORDINATOR, acks -1, which one replica meets).
import { EncodeError, ErrorCode } from '../../codec/index.js';
import { ensureInternalTopic, TRANSACTION_STATE_TOPIC } from '../internal-topics.js';
import { resolveLogConfig } from '../log/log-config.js';
import type { BrokerServices } from '../services.js';
import type { Clock } from '../group/clock.js';
import type { TxnLogStore } from './coordinator.js';
import {
  DEFAULT_TRANSACTION_STATE_PARTITIONS,
  encodeTransactionLogBatch,
  transactionLogKeyBytes,
  transactionLogValueBytes,
  transactionStatePartitionFor,
} from './log-records.js';

export type TransactionStateServices = Pick<BrokerServices, 'topics' | 'logDefaults' | 'log' | 'fetchWaiters'> & { clock: Clock };

/**
 * The broker's TxnLogStore: each write appended to the transactional id's __transaction_state
 * partition (acks -1, which one replica meets; the topic is compacted, uncompressed, and made here
 * when no FindCoordinator made it yet). Answers the log's raw append error, which the
 * coordinator maps as appendTransactionToLog does.
 */
export function transactionStateStore(b: TransactionStateServices, partitions = DEFAULT_TRANSACTION_STATE_PARTITIONS): TxnLogStore {
  const append = (partition: number, records: () => { key: Buffer; value: Buffer | null }[]): number => {
    ensureInternalTopic(b, TRANSACTION_STATE_TOPIC);
    const topic = b.topics.get(TRANSACTION_STATE_TOPIC)!;
    const log = topic.partitions[partition];
    if (log === undefined) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    const now = b.clock.now();
    let bytes: Buffer;
    try {
      bytes = encodeTransactionLogBatch(records(), now);
    } catch (e) {
      // A transactional id over 32767 bytes: Kafka's serializer throws, UNKNOWN_SERVER_ERROR.
      if (!(e instanceof EncodeError)) throw e;
      b.log.warn({ topic: TRANSACTION_STATE_TOPIC, partition, err: e.message }, 'transaction log records not appended');
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    }
    const result = log.appendAsLeader(bytes, resolveLogConfig(topic.configs, b.logDefaults), now);
    if (result.errorCode !== ErrorCode.NONE) {
      b.log.warn({ topic: TRANSACTION_STATE_TOPIC, partition, errorCode: result.errorCode, reason: result.reason }, 'transaction log records not appended');
    } else {
      b.fetchWaiters.notify(TRANSACTION_STATE_TOPIC, partition);
    }
    return result.errorCode;
  };
  return {
    append: (transactionalId, transit) =>
      append(transactionStatePartitionFor(transactionalId, partitions), () => [{ key: transactionLogKeyBytes(transactionalId), value: transactionLogValueBytes(transit) }]),
    appendTombstones: (partition, transactionalIds) => append(partition, () => transactionalIds.map((id) => ({ key: transactionLogKeyBytes(id), value: null }))),
  };
}
