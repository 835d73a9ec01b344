// Producer ids for InitProducerId, as a single Kafka 3.9 broker hands them out: the controller
// (ProducerIdControlManager) gives out blocks starting at 0 and a lone broker consumes them in
// order, so ids are 0, 1, 2, ... Idempotent producers (no transactional id) always get a new id
// with epoch 0 (TransactionCoordinator.handleInitProducerId).

export class ProducerIdManager {
  private next = 0n;

  /** ProducerIdManager.generateProducerId. */
  generateProducerId(): bigint {
    return this.next++;
  }

  /** The id the next call will return (for tests and tools). */
  peek(): bigint {
    return this.next;
  }
}
