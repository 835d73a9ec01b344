// Committed offsets of one group (the offset half of Kafka 3.9 GroupMetadata).
//
// A commit is applied once its record is in __consumer_offsets (records.ts, written through the
// coordinator's GroupRecordSink). Each applied commit keeps `appendSeq`, the offset of its batch in
// that log (CommitRecordMetadataAndOffset.appendedBatchOffset): Kafka uses that position to decide
// whether a transactional commit that completes later overrides a plain commit made in between,
// and a coordinator loaded from the log (loader.ts) gets the same positions back.

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

  /**
   * GroupMetadata.removeOffsets: removes committed and pending offsets of these partitions; returns
   * the committed ones that went (their tombstones are written).
   */
  remove(partitions: readonly { topic: string; partition: number }[]): TopicPartitionOffset[] {
    const removed: TopicPartitionOffset[] = [];
    for (const { topic, partition } of partitions) {
      // Kafka keeps the (possibly empty) producer entry until the transaction completes.
      for (const pending of this.pendingTxn.values()) {
        pending.get(topic)?.delete(partition);
        if (pending.get(topic)?.size === 0) pending.delete(topic);
      }
      const byTopic = this.committed.get(topic);
      const offset = byTopic?.get(partition);
      if (offset !== undefined) {
        byTopic!.delete(partition);
        removed.push({ topic, partition, offset });
      }
      if (byTopic?.size === 0) this.committed.delete(topic);
    }
    return removed;
  }

  removeAll(): TopicPartitionOffset[] {
    return this.remove(this.all().map(({ topic, partition }) => ({ topic, partition })));
  }

  // --- transactional offsets (TxnOffsetCommit) -------------------------------------------------
  //
  // GroupMetadata.pendingTransactionalOffsetCommits: producerId → the offsets its open transaction
  // wrote. A producer's entry stays (possibly emptied by OffsetDelete or a topic deletion) until its
  // transaction completes, and while it exists the group `hasOffsets` (so it is not deleted as empty).

  /** onTxnOffsetCommitAppend: the record is in the log; the offset waits for the transaction's marker. */
  prepareTxn(producerId: bigint, topic: string, partition: number, offset: StoredOffset): void {
    let byTopic = this.pendingTxn.get(producerId);
    if (!byTopic) this.pendingTxn.set(producerId, (byTopic = new Map()));
    let partitions = byTopic.get(topic);
    if (!partitions) byTopic.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  /**
   * prepareTxnOffsetCommit + failPendingTxnOffsetCommit: the append of a TxnOffsetCommit failed.
   * Kafka staged the new offsets over the producer's earlier pending ones, then removes the staged
   * partitions, so an earlier pending offset of the same partition goes too; a producer left with
   * nothing pending is forgotten.
   */
  failTxn(producerId: bigint, partitions: readonly { topic: string; partition: number }[]): void {
    const byTopic = this.pendingTxn.get(producerId);
    if (!byTopic) return;
    for (const { topic, partition } of partitions) {
      byTopic.get(topic)?.delete(partition);
      if (byTopic.get(topic)?.size === 0) byTopic.delete(topic);
    }
    if (byTopic.size === 0) this.pendingTxn.delete(producerId);
  }

  hasPendingTxnFrom(producerId: bigint): boolean {
    return this.pendingTxn.has(producerId);
  }

  /** Kafka's activeProducers: the producers with an entry (even an emptied one). */
  pendingProducers(): bigint[] {
    return [...this.pendingTxn.keys()];
  }

  /** hasPendingOffsetCommitsForTopicPartition (RequireStable): some transaction holds an offset for it. */
  hasPendingCommit(topic: string, partition: number): boolean {
    for (const byTopic of this.pendingTxn.values()) {
      if (byTopic.get(topic)?.has(partition)) return true;
    }
    return false;
  }

  /** Every pending transactional offset, by producer (the read model). */
  pendingTxnOffsets(): { producerId: bigint; topic: string; partition: number; offset: StoredOffset }[] {
    const out: { producerId: bigint; topic: string; partition: number; offset: StoredOffset }[] = [];
    for (const [producerId, byTopic] of this.pendingTxn) {
      for (const [topic, partitions] of byTopic) {
        for (const [partition, offset] of partitions) out.push({ producerId, topic, partition, offset });
      }
    }
    return out;
  }

  /**
   * completePendingTxnOffsetCommit: the producer's commit or abort marker was written. On commit
   * each offset is materialized unless the offset in place was written later in the log (a plain
   * OffsetCommit after the TxnOffsetCommit wins). Returns what happened to each pending offset, or
   * null when the producer had nothing pending here.
   */
  completeTxn(producerId: bigint, commit: boolean): { materialized: TopicPartitionOffset[]; discarded: TopicPartitionOffset[] } | null {
    const byTopic = this.pendingTxn.get(producerId);
    if (!byTopic) return null;
    this.pendingTxn.delete(producerId);
    const materialized: TopicPartitionOffset[] = [];
    const discarded: TopicPartitionOffset[] = [];
    for (const [topic, partitions] of byTopic) {
      for (const [partition, offset] of partitions) {
        const current = this.get(topic, partition);
        if (commit && (!current || current.appendSeq < offset.appendSeq)) {
          this.put(topic, partition, offset);
          materialized.push({ topic, partition, offset });
        } else {
          discarded.push({ topic, partition, offset });
        }
      }
    }
    return { materialized, discarded };
  }

  // --- expiration ------------------------------------------------------------------------------

  /**
   * GroupMetadata.removeExpiredOffsets' filter: an offset with an explicit expire timestamp
   * (v2–v4 retention) expires at that time; otherwise `retentionMs` after `baseTimestamp(offset)`.
   * Offsets of `keepTopics` never expire. Returns the offsets removed.
   */
  removeExpired(
    now: number,
    retentionMs: number,
    baseTimestamp: (offset: StoredOffset) => number,
    keepTopics: ReadonlySet<string> = new Set(),
  ): TopicPartitionOffset[] {
    const expired: TopicPartitionOffset[] = [];
    for (const { topic, partition, offset } of this.all()) {
      if (keepTopics.has(topic)) continue;
      const isExpired =
        offset.expireTimestamp !== null
          ? now >= offset.expireTimestamp
          : now - baseTimestamp(offset) >= retentionMs;
      if (isExpired) expired.push({ topic, partition, offset });
    }
    for (const { topic, partition } of expired) this.committed.get(topic)?.delete(partition);
    for (const [topic, partitions] of [...this.committed]) if (partitions.size === 0) this.committed.delete(topic);
    return expired;
  }
}
