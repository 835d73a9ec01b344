// Producer ids for InitProducerId, as a single Kafka 3.9 broker hands them out: the controller
// (ProducerIdControlManager) gives out blocks of 1000 ids (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE)
// starting at 0, recording the next block's start in its metadata log (ProducerIdsRecord), and a
// lone broker consumes its block in order, so ids are 0, 1, 2, ... After a restart the broker gets
// a new block: ids go on from the recorded start (1000 after a first block), never reusing one an
// idempotent producer may still hold state for. Idempotent producers (no transactional id) always
// get a new id with epoch 0 (TransactionCoordinator.handleInitProducerId).

/** ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE */
export const PRODUCER_ID_BLOCK_SIZE = 1000n;

export class ProducerIdManager {
  private next = 0n;
  /** The end (exclusive) of the block being handed out; the controller's next block starts here. */
  private blockEnd = 0n;

  /** Called with the next block's start each time a block is taken (the data dir records it). */
  onBlockAllocated: ((nextBlockStart: bigint) => void) | undefined;

  /** ProducerIdManager.generateProducerId. */
  generateProducerId(): bigint {
    if (this.next >= this.blockEnd) {
      this.blockEnd = this.next + PRODUCER_ID_BLOCK_SIZE;
      this.onBlockAllocated?.(this.blockEnd);
    }
    return this.next++;
  }

  /** The id the next call will return (for tests and tools). */
  peek(): bigint {
    return this.next;
  }

  /** The start of the next block the controller would give (what the data dir keeps). */
  get nextBlockStart(): bigint {
    return this.blockEnd;
  }

  /** After a restart: ids go on from the recorded next block start. */
  restore(nextBlockStart: bigint): void {
    if (nextBlockStart > this.next) {
      this.next = nextBlockStart;
      this.blockEnd = nextBlockStart;
    }
  }
}
