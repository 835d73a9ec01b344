// Committed offsets of one group (the offset half of Kafka 3.9 GroupMetadata).
//
// kmock has no __consumer_offsets log, so a commit is applied as soon as it is validated. Each
// applied commit gets an increasing `appendSeq`, standing in for the offset of its record in the
// log: Kafka uses that position to decide whether a transactional commit that completes later
// overrides a plain commit made in between.

export interface OffsetAndMetadata {
  offset: bigint;
  /** -1 = none. */
  leaderEpoch: number;
  /** Never null: a null CommittedMetadata is stored as "". */
  metadata: string;
  commitTimestamp: number;
  /** Only for OffsetCommit v2–v4 with an explicit retention time (old expiration semantics). */
  expireTimestamp: number | null;
}

export interface StoredOffset extends OffsetAndMetadata {
  appendSeq: number;
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: StoredOffset;
}

export class GroupOffsets {
  /** topic → partition → offset, in first-commit order. */
  private readonly committed = new Map<string, Map<number, StoredOffset>>();
  /** producerId → offsets written inside a still-open transaction. */
  private readonly pendingTxn = new Map<bigint, Map<string, Map<number, StoredOffset>>>();

  get(topic: string, partition: number): StoredOffset | undefined {
    return this.committed.get(topic)?.get(partition);
  }

  /** Apply a committed offset unless a newer record (by log position) is already in place. */
  put(topic: string, partition: number, offset: StoredOffset): void {
    const current = this.get(topic, partition);
    if (current && current.appendSeq > offset.appendSeq) return;
    let partitions = this.committed.get(topic);
    if (!partitions) this.committed.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  all(): TopicPartitionOffset[] {
    const out: TopicPartitionOffset[] = [];
    for (const [topic, partitions] of this.committed) {
      for (const [partition, offset] of partitions) out.push({ topic, partition, offset });
    }
    return out;
  }

  get size(): number {
    let n = 0;
    for (const partitions of this.committed.values()) n += partitions.size;
    return n;
  }

  /** Kafka's `hasOffsets`: committed or pending (transactional) offsets exist. */
  hasOffsets(): boolean {
    return this.size > 0 || this.pendingTxn.size > 0;
  }

  /** Removes committed and pending offsets of these partitions; returns how many committed ones went. */
  remove(partitions: readonly { topic: string; partition: number }[]): number {
    let removed = 0;
    for (const { topic, partition } of partitions) {
      // Kafka keeps the (possibly empty) producer entry until the transaction completes.
      for (const pending of this.pendingTxn.values()) {
        pending.get(topic)?.delete(partition);
        if (pending.get(topic)?.size === 0) pending.delete(topic);
      }
      const byTopic = this.committed.get(topic);
      if (byTopic?.delete(partition)) removed++;
      if (byTopic?.size === 0) this.committed.delete(topic);
    }
    return removed;
  }

  removeAll(): number {
    return this.remove(this.all().map(({ topic, partition }) => ({ topic, partition })));
  }

  // --- transactional offsets (TxnOffsetCommit) -------------------------------------------------

  prepareTxn(producerId: bigint, topic: string, partition: number, offset: StoredOffset): void {
    let byTopic = this.pendingTxn.get(producerId);
    if (!byTopic) this.pendingTxn.set(producerId, (byTopic = new Map()));
    let partitions = byTopic.get(topic);
    if (!partitions) byTopic.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  hasPendingTxnFrom(producerId: bigint): boolean {
    return this.pendingTxn.has(producerId);
  }

  /** RequireStable: is some transaction still holding an offset for this partition? */
  hasPendingCommit(topic: string, partition: number): boolean {
    for (const byTopic of this.pendingTxn.values()) {
      if (byTopic.get(topic)?.has(partition)) return true;
    }
    return false;
  }

  /** A commit or abort marker for the producer's transaction was written. */
  completeTxn(producerId: bigint, commit: boolean): void {
    const byTopic = this.pendingTxn.get(producerId);
    this.pendingTxn.delete(producerId);
    if (!byTopic || !commit) return;
    for (const [topic, partitions] of byTopic) {
      for (const [partition, offset] of partitions) this.put(topic, partition, offset);
    }
  }

  // --- expiration ------------------------------------------------------------------------------

  /**
   * GroupMetadata.removeExpiredOffsets' filter: an offset with an explicit expire timestamp
   * (v2–v4 retention) expires at that time; otherwise `retentionMs` after `baseTimestamp(offset)`.
   * Offsets of `keepTopics` never expire. Returns the number removed.
   */
  removeExpired(
    now: number,
    retentionMs: number,
    baseTimestamp: (offset: StoredOffset) => number,
    keepTopics: ReadonlySet<string> = new Set(),
  ): number {
    const expired: { topic: string; partition: number }[] = [];
    for (const { topic, partition, offset } of this.all()) {
      if (keepTopics.has(topic)) continue;
      const isExpired =
        offset.expireTimestamp !== null
          ? now >= offset.expireTimestamp
          : now - baseTimestamp(offset) >= retentionMs;
      if (isExpired) expired.push({ topic, partition });
    }
    for (const { topic, partition } of expired) this.committed.get(topic)?.delete(partition);
    for (const [topic, partitions] of [...this.committed]) if (partitions.size === 0) this.committed.delete(topic);
    return expired.length;
  }
}
