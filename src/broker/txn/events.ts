// Events the transaction coordinator emits through `onEvent`, delivered after the operation that
// caused them has finished (the coordinator's outbox), in the order they happened, so a listener
// may call back into the coordinator. They never influence the coordinator's decisions. Kafka
// logs the same moments at INFO (TransactionCoordinator / TransactionStateManager).

import type { TxnState } from './metadata.js';

export interface TxnEventBase {
  transactionalId: string;
  /** Clock time at which it happened. */
  at: number;
}

export type TxnEvent =
  /** A transition completed (its transaction log write succeeded): TransactionMetadata.completeTransitionTo. */
  | (TxnEventBase & { type: 'txn-state-changed'; from: TxnState; to: TxnState; producerId: bigint; producerEpoch: number })
  /** The abort timer found the transaction past its timeout and started aborting it with an epoch bump. */
  | (TxnEventBase & { type: 'txn-timed-out'; producerId: bigint; producerEpoch: number; timeoutMs: number })
  /** An idle transactional id was removed (transactional.id.expiration.ms). */
  | (TxnEventBase & { type: 'txn-id-expired'; producerId: bigint; producerEpoch: number });

export type TxnEventListener = (event: TxnEvent) => void;
