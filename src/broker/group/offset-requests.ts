// The shapes OffsetCommit, TxnOffsetCommit, OffsetFetch and OffsetDelete share: a request's
// partitions read as Kafka reads them (a map: a partition named twice counts once) and responses
// grouped by topic again.

import type { StoredOffset } from './offsets.js';
import type { OffsetCommitResponse } from './types.js';

/** One partition of an OffsetCommit or TxnOffsetCommit, as it will be stored. */
export interface PartitionCommit {
  topic: string;
  partition: number;
  offset: Omit<StoredOffset, 'appendSeq'>;
}

/** A partition named twice in one request counts once, with its last value (Kafka builds a map). */
export function dedupeCommits(commits: PartitionCommit[]): PartitionCommit[] {
  const byKey = new Map<string, PartitionCommit>();
  for (const c of commits) {
    const key = `${c.partition}:${c.topic}`;
    byKey.delete(key);
    byKey.set(key, c);
  }
  // Keep first-appearance order for the response while using the last value.
  const order = new Map<string, number>();
  commits.forEach((c, i) => {
    const key = `${c.partition}:${c.topic}`;
    if (!order.has(key)) order.set(key, i);
  });
  return [...byKey.entries()].sort((a, b) => order.get(a[0])! - order.get(b[0])!).map(([, c]) => c);
}

export function dedupePartitions(topics: readonly { name: string; partitionIndexes: readonly number[] }[]): { topic: string; partition: number }[] {
  const seen = new Set<string>();
  const out: { topic: string; partition: number }[] = [];
  for (const t of topics) {
    for (const partition of t.partitionIndexes) {
      const key = `${partition}:${t.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ topic: t.name, partition });
    }
  }
  return out;
}

export function groupByTopic<P>(rows: readonly { topic: string; partition: P }[]): { name: string; partitions: P[] }[] {
  const byTopic = new Map<string, P[]>();
  for (const { topic, partition } of rows) {
    const list = byTopic.get(topic);
    if (list) list.push(partition);
    else byTopic.set(topic, [partition]);
  }
  return [...byTopic].map(([name, partitions]) => ({ name, partitions }));
}

export function commitResponse(commits: readonly PartitionCommit[], errors: readonly number[]): OffsetCommitResponse['topics'] {
  return groupByTopic(commits.map((c, i) => ({ topic: c.topic, partition: { partitionIndex: c.partition, errorCode: errors[i]! } })));
}
