// What the API handlers, the log and the config code use of a broker: its parts, each built once
// and wired together in Broker's constructor (broker.ts), the one place that knows them all.
// Nothing here reaches back to the Broker, its connections or the control plane; a handler gets
// these and its own connection's `closeConnection` (handlers/types.ts RequestContext).
import type { Logger } from 'pino';
import type { BrokerConfig } from './config.js';
import type { GroupCoordinator } from './group/index.js';
import type { FetchWaiters } from './log/fetch-waiters.js';
import type { ProducerIdManager } from './log/producer-ids.js';
import type { TopicStore } from './log/topics.js';
import type { ClientFindings } from './strict/findings.js';

/** Where Metadata, FindCoordinator, DescribeCluster and Fetch tell clients to connect. */
export interface AdvertisedListener {
  host: string;
  /** The bound port once the server listens (server.ts), unless `advertisedPort` was set. */
  port: number;
}

/** An API the broker serves, at the versions it serves it (what ApiVersions lists). */
export interface ServedApi {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** The partitions of a deleted topic, for what must follow (the coordinator drops their offsets). */
export type TopicDeletedListener = (partitions: ReadonlyArray<{ topic: string; partition: number }>) => void;

/**
 * Topic deletions announced to whoever must react. Kafka's BrokerMetadataPublisher tells the group
 * coordinator (GroupCoordinator.onPartitionsDeleted); Broker's constructor registers the same.
 */
export class TopicDeletions {
  private readonly listeners: TopicDeletedListener[] = [];

  onDeleted(listener: TopicDeletedListener): void {
    this.listeners.push(listener);
  }

  deleted(partitions: ReadonlyArray<{ topic: string; partition: number }>): void {
    for (const l of this.listeners) l(partitions);
  }
}

export interface BrokerServices {
  readonly config: BrokerConfig;
  readonly log: Logger;
  readonly topics: TopicStore;
  /** Fetch long polls waiting for records on a partition (woken by appends and deletions). */
  readonly fetchWaiters: FetchWaiters;
  /** The classic group coordinator (a pure state machine on an injected clock). */
  readonly groups: GroupCoordinator;
  readonly producerIds: ProducerIdManager;
  readonly topicDeletions: TopicDeletions;
  readonly advertised: AdvertisedListener;
  /** Exactly the APIs with a handler, sorted by key (handlers/index.ts). */
  readonly apis: readonly ServedApi[];
  /** Strict-clients mode's recorder (strict/): check sites read its `enabled` before anything else. */
  readonly clientFindings: ClientFindings;
}
