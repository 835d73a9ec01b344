// KafkaApis answers commits and offset deletes for unknown topics or partitions itself, with
// UNKNOWN_TOPIC_OR_PARTITION, and passes only the known ones to the coordinator; the two sets
// are then merged into one response (OffsetCommitResponse.Builder / OffsetDeleteResponse.Builder).
// Before that, a topic the principal may not READ is answered TOPIC_AUTHORIZATION_FAILED, whole.
import type { BrokerServices } from '../services.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { filterAuthorized } from '../security/authorizer/index.js';
import type { RequestContext } from './types.js';

interface TopicWithPartitions<P extends { partitionIndex: number }> {
  name: string;
  partitions: P[];
}

export interface PartitionError {
  partitionIndex: number;
  errorCode: number;
}

export interface SplitByKnown<T> {
  known: T[];
  /** Topic name -> partitions answered UNKNOWN_TOPIC_OR_PARTITION, in request order. */
  unknown: Map<string, PartitionError[]>;
}

export function splitByKnownPartitions<P extends { partitionIndex: number }, T extends TopicWithPartitions<P>>(
  b: BrokerServices,
  topics: T[],
): SplitByKnown<T> {
  const known: T[] = [];
  const unknown = new Map<string, PartitionError[]>();
  const reject = (name: string, p: number) => {
    let list = unknown.get(name);
    if (!list) unknown.set(name, (list = []));
    list.push({ partitionIndex: p, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  };
  for (const t of topics) {
    const topic = b.topics.get(t.name);
    if (!topic) {
      for (const p of t.partitions) reject(t.name, p.partitionIndex);
      continue;
    }
    const valid = t.partitions.filter((p) => {
      const ok = p.partitionIndex >= 0 && p.partitionIndex < topic.partitions.length;
      if (!ok) reject(t.name, p.partitionIndex);
      return ok;
    });
    if (valid.length > 0) known.push({ ...t, partitions: valid });
  }
  return { known, unknown };
}

/**
 * splitByKnownPartitions after READ on each topic (filterByAuthorized): the topics the principal
 * may not read are answered TOPIC_AUTHORIZATION_FAILED, partition by partition, first.
 */
export function splitByReadableKnownPartitions<P extends { partitionIndex: number }, T extends TopicWithPartitions<P>>(ctx: RequestContext, topics: T[]): SplitByKnown<T> {
  const readable = filterAuthorized(ctx, AclOperation.READ, ResourceType.TOPIC, topics.map((t) => t.name));
  const denied = new Map<string, PartitionError[]>();
  for (const t of topics) {
    if (readable.has(t.name)) continue;
    const list = denied.get(t.name) ?? [];
    for (const p of t.partitions) list.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    denied.set(t.name, list);
  }
  const split = splitByKnownPartitions(ctx.services, denied.size === 0 ? topics : topics.filter((t) => readable.has(t.name)));
  for (const [name, parts] of split.unknown) denied.set(name, [...(denied.get(name) ?? []), ...parts]);
  return { known: split.known, unknown: denied };
}

/** Merges the coordinator's per-topic answers into the pre-filled unknown ones, by topic name. */
export function mergeTopicErrors(
  unknown: Map<string, PartitionError[]>,
  fromCoordinator: Array<{ name: string; partitions: PartitionError[] }>,
): Array<{ name: string; partitions: PartitionError[] }> {
  const out = new Map<string, PartitionError[]>();
  for (const [name, parts] of unknown) out.set(name, [...parts]);
  for (const t of fromCoordinator) {
    const list = out.get(t.name);
    if (list) list.push(...t.partitions);
    else out.set(t.name, [...t.partitions]);
  }
  return [...out].map(([name, partitions]) => ({ name, partitions }));
}
