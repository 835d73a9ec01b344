// Transaction coordinator configuration. Every default is the Kafka 3.9 broker default
// (transaction-coordinator/.../TransactionStateManagerConfigs.java and TransactionLogConfigs.java,
// all atLeast(1); the transaction log's writes go through `TxnLogStore`, coordinator.ts).

export interface TransactionCoordinatorConfig {
  /** transaction.max.timeout.ms: InitProducerId's TransactionTimeoutMs must be in (0, this]. */
  transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms: an idle id in Empty/CompleteCommit/CompleteAbort is removed after this. */
  transactionalIdExpirationMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms: how often timed-out transactions are aborted. */
  abortTimedOutTransactionsIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often expired ids are removed. */
  removeExpiredTransactionalIdsIntervalMs: number;
  /**
   * Whether the expiration timer runs (TransactionCoordinator.startup's enableTransactionalIdExpiration,
   * true on a broker; Kafka's tests turn it off).
   */
  enableTransactionalIdExpiration: boolean;
  /** transaction.state.log.num.partitions: TransactionStateManager.partitionFor hashes ids over this many. */
  transactionStateTopicPartitions: number;
}

export const DEFAULT_TRANSACTION_CONFIG: Readonly<TransactionCoordinatorConfig> = Object.freeze({
  transactionMaxTimeoutMs: 900_000,
  transactionalIdExpirationMs: 604_800_000,
  abortTimedOutTransactionsIntervalMs: 10_000,
  removeExpiredTransactionalIdsIntervalMs: 3_600_000,
  enableTransactionalIdExpiration: true,
  transactionStateTopicPartitions: 50,
});

export function resolveTransactionConfig(
  partial: Partial<TransactionCoordinatorConfig> = {},
): Readonly<TransactionCoordinatorConfig> {
  const config = { ...DEFAULT_TRANSACTION_CONFIG, ...partial };
  for (const key of [
    'transactionMaxTimeoutMs',
    'transactionalIdExpirationMs',
    'abortTimedOutTransactionsIntervalMs',
    'removeExpiredTransactionalIdsIntervalMs',
    'transactionStateTopicPartitions',
  ] as const) {
    // Kafka's ConfigDef: atLeast(1) for every one of these.
    if (!Number.isInteger(config[key]) || config[key] < 1) {
      throw new RangeError(`${key} must be an integer >= 1 (got ${config[key]})`);
    }
  }
  return Object.freeze(config);
}
