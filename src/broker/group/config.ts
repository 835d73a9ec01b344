// Coordinator configuration. Every default is the Kafka 3.9 broker default.

import { randomUUID } from 'node:crypto';
import { CountingGroupRecordSink, type GroupRecordCause, type GroupRecordSink } from './records.js';
import { consumerSubscribedTopics } from './subscription.js';

/**
 * Topics a member subscribes to, decoded from its protocol metadata; `undefined` = unknown.
 * Used by OffsetDelete (GROUP_SUBSCRIBED_TO_TOPIC) and offset expiration. The default decodes the
 * consumer protocol's Subscription for protocol type "consumer" and knows nothing about others,
 * which is exactly what Kafka 3.9 does.
 */
export type SubscribedTopicsHook = (
  protocolType: string,
  protocolName: string,
  metadata: Buffer,
) => string[] | undefined;

/** What the group metadata record is being written for (3.9 GroupMetadataManager.storeGroup's callers). */
export type GroupWriteCause = Extract<GroupRecordCause, 'sync-assignment' | 'static-member-replaced' | 'group-empty'>;

export interface GroupCoordinatorConfig {
  /** group.min.session.timeout.ms */
  groupMinSessionTimeoutMs: number;
  /** group.max.session.timeout.ms (30 min since 2.3, KIP-345) */
  groupMaxSessionTimeoutMs: number;
  /** group.max.size */
  groupMaxSize: number;
  /** group.initial.rebalance.delay.ms (KIP-134) */
  groupInitialRebalanceDelayMs: number;
  /** GroupCoordinator.NewMemberJoinTimeoutMs: a constant in Kafka, configurable here for tests. */
  newMemberJoinTimeoutMs: number;
  /** offset.metadata.max.bytes (compared with the metadata string's UTF-16 length, as Java does) */
  offsetMetadataMaxSize: number;
  /** offsets.retention.minutes, in ms */
  offsetsRetentionMs: number;
  /** offsets.retention.check.interval.ms; <= 0 disables the periodic expiration task. */
  offsetsRetentionCheckIntervalMs: number;
  /** offsets.topic.num.partitions: GroupCoordinator.partitionFor hashes group ids over this many. */
  offsetsTopicPartitions: number;
  subscribedTopics: SubscribedTopicsHook;
  /**
   * Where the records go that Kafka appends to __consumer_offsets: offset commits, group metadata,
   * tombstones (records.ts). The broker's sink appends them to the partition logs
   * (offsets-topic.ts); the default only counts offsets, so every append succeeds. A test can
   * answer a raw Kafka append error (e.g. MESSAGE_TOO_LARGE): the coordinator maps it exactly as
   * 3.9 does and runs the same rollback path.
   */
  records: GroupRecordSink;
  /**
   * Source of the UUID part of generated member ids (`<clientId or instanceId>-<uuid>`), given the
   * group and that prefix (a deterministic broker draws it from its seed: ../ids.ts).
   */
  generateUuid: (groupId: string, prefix: string) => string;
}

export const defaultGroupCoordinatorConfig: Readonly<GroupCoordinatorConfig> = Object.freeze({
  groupMinSessionTimeoutMs: 6_000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupMaxSize: 2_147_483_647,
  groupInitialRebalanceDelayMs: 3_000,
  newMemberJoinTimeoutMs: 300_000,
  offsetMetadataMaxSize: 4_096,
  offsetsRetentionMs: 10_080 * 60_000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetsTopicPartitions: 50,
  subscribedTopics: consumerSubscribedTopics,
  records: new CountingGroupRecordSink(),
  generateUuid: () => randomUUID(),
});
