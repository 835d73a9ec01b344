// What the API handlers, the log and the config code use of a broker: its parts, each built once
// and wired together in Broker's constructor (broker.ts), the one place that knows them all.
// Nothing here reaches back to the Broker, its connections or the control plane; a handler gets
// these and its own connection's `closeConnection` (handlers/types.ts RequestContext).
import type { Logger } from 'pino';
import type { BrokerConfig } from './config.js';
import type { GroupCoordinator } from './group/index.js';
import type { IdSource } from './ids.js';
import type { FetchWaiters } from './log/fetch-waiters.js';
import type { ProducerIdManager } from './log/producer-ids.js';
import type { BrokerLogDefaults } from './log/log-config.js';
import type { DynamicBrokerConfigs } from './config/dynamic-configs.js';
import type { TopicStore } from './log/topics.js';
import type { LogManager } from './log/log-manager.js';
import type { BrokerClock } from './time/broker-clock.js';
import type { ClientFindings } from './strict/findings.js';
import type { TransactionCoordinator } from './txn/coordinator.js';
import type { SecurityProtocol } from './security/types.js';
import type { Authorizer } from './security/authorizer/index.js';
import type { ClientQuotaStore } from './quotas/client-quotas.js';
import type { DelegationTokenStore } from './security/delegation-tokens.js';
import type { ScramCredentialStore } from './security/sasl/scram-credentials.js';

/** Where Metadata, FindCoordinator, DescribeCluster and Fetch tell clients to connect. */
export interface AdvertisedListener {
  host: string;
  /** The bound port once the server listens (server.ts), unless `advertisedPort` was set. */
  port: number;
}

/** A listener as handlers see it: its name, protocol and where it tells clients to connect. */
export interface ListenerEndpoint {
  readonly name: string;
  readonly protocol: SecurityProtocol;
  readonly advertised: AdvertisedListener;
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
  /** The broker's one clock: every timer and timestamp (real, scaled or moved by the test). */
  readonly clock: BrokerClock;
  /** Topic and member ids: random, or from the seed of a deterministic broker. */
  readonly ids: IdSource;
  /** config.clusterId, or the one this broker made up (kmock's fixed id, or the seed's). */
  readonly clusterId: string;
  readonly topics: TopicStore;
  /**
   * The broker's value of each topic config (static settings, and dynamic broker configs over
   * them): what resolveLogConfig puts under a topic's overrides.
   */
  readonly logDefaults: BrokerLogDefaults;
  /** Retention, the cleaner and the stored-memory cap, on the broker's clock (log/log-manager.ts). */
  readonly logManager: LogManager;
  /** The broker configs IncrementalAlterConfigs/AlterConfigs set at run time (config/dynamic-configs.ts). */
  readonly dynamicConfigs: DynamicBrokerConfigs;
  /** Fetch long polls waiting for records on a partition (woken by appends and deletions). */
  readonly fetchWaiters: FetchWaiters;
  /** The classic group coordinator (a pure state machine on an injected clock). */
  readonly groups: GroupCoordinator;
  readonly producerIds: ProducerIdManager;
  /** The transaction coordinator (txn/coordinator.ts: a pure state machine on the broker's clock). */
  readonly transactions: TransactionCoordinator;
  readonly topicDeletions: TopicDeletions;
  /** The first listener's advertised address (the control plane's, DescribeConfigs'). */
  readonly advertised: AdvertisedListener;
  /** Every listener, in `listeners` order (a request's own is RequestContext.listener). */
  readonly listeners: readonly ListenerEndpoint[];
  /** The ACL authorizer (authorizer.class.name), or undefined: every check passes. */
  readonly authorizer: Authorizer | undefined;
  /** The data dir's absolute path (DescribeLogDirs' one log dir), or null: the logs are in memory. */
  readonly logDir: string | null;
  /** SCRAM credentials (sasl.users at start; AlterUserScramCredentials at run time). */
  readonly scramCredentials: ScramCredentialStore;
  /** Delegation tokens (CreateDelegationToken ... DescribeDelegationToken, and their SCRAM logins). */
  readonly delegationTokens: DelegationTokenStore;
  /** Client quotas (AlterClientQuotas / DescribeClientQuotas): stored and described, not enforced. */
  readonly clientQuotas: ClientQuotaStore;
  /** Exactly the APIs with a handler, sorted by key (handlers/index.ts). */
  readonly apis: readonly ServedApi[];
  /** Strict-clients mode's recorder (strict/): check sites read its `enabled` before anything else. */
  readonly clientFindings: ClientFindings;
}
