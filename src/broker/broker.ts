// The broker, and the one place its parts are built and wired: the topic store, fetch waiters,
// the group coordinator, producer ids, the API handlers (handlers/index.ts) and the open
// connections. Handlers and the log and config code see only `services` (services.ts); a
// connection sees the handler table, the services and what it reports back (ConnectionDeps). It
// owns no socket of its own: server.ts accepts connections and hands them here.
import path from 'node:path';
import type { Socket } from 'node:net';
import pino, { type Logger } from 'pino';
import type { BrokerConfig } from './config.js';
import { Connection, type ConnectionDeps, type ConnectionHooks } from './connection.js';
import { HANDLERS } from './handlers/index.js';
import type { ApiHandler } from './handlers/types.js';
import { TopicStore, type TopicChange } from './log/topics.js';
import { BrokerLogDefaults, resolveLogConfig } from './log/log-config.js';
import { LogManager } from './log/log-manager.js';
import { DataDir, DataDirError, type SavedCluster } from './storage/data-dir.js';
import { staticTopicDefaults } from './config/topic-defaults.js';
import { DynamicBrokerConfigs } from './config/dynamic-configs.js';
import { FetchWaiters } from './log/fetch-waiters.js';
import { ProducerIdManager } from './log/producer-ids.js';
import { GroupCoordinator, isPolicyEvent, type GroupEvent } from './group/index.js';
import { TopicDeletions, type AdvertisedListener, type BrokerServices, type ListenerEndpoint } from './services.js';
import { resolveListeners } from './security/listeners.js';
import type { ListenerSpec } from './security/types.js';
import { ANONYMOUS, isSaslProtocol } from './security/types.js';
import type { AuthenticatorSettings } from './security/sasl-authenticator.js';
import type { SaslMechanisms } from './security/sasl/mechanism.js';
import { createSaslMechanisms, unservableMechanisms } from './security/sasl/index.js';
import { ClientQuotaStore } from './quotas/client-quotas.js';
import { DelegationTokenStore } from './security/delegation-tokens.js';
import { createAuthorizer, type AclBinding, type Authorizer } from './security/authorizer/index.js';
import { invalidNewAcl } from './security/authorizer/acl.js';
import { ScramCredentialStore } from './security/sasl/scram-credentials.js';
import { BrokerClock } from './time/broker-clock.js';
import { DETERMINISTIC_EPOCH_MS } from './config.js';
import { randomIds, SeededIds, type IdSource } from './ids.js';
import { ClientFindings } from './strict/findings.js';
import { requestMemoryPool, type MemoryPool } from './memory-pool.js';
import { TransactionCoordinator } from './txn/coordinator.js';
import type { TxnEvent } from './txn/events.js';
import { logMarkerWriter } from './txn/log-markers.js';
import { OFFSETS_TOPIC } from './internal-topics.js';
import { offsetsTopicSink } from './group/offsets-topic.js';
import { transactionStateStore } from './txn/transaction-log.js';
import { loadCoordinatorState } from './coordinator-state.js';

export interface BrokerStats {
  connectionsOpened: number;
  requests: number;
}

export class Broker implements ConnectionDeps {
  readonly handlers = new Map<number, ApiHandler>();
  /** Every timer and timestamp of this broker (time/broker-clock.ts). */
  readonly clock: BrokerClock;
  readonly ids: IdSource;
  readonly topics: TopicStore;
  /** The broker's values of topic configs (its settings; dynamic broker configs replace them). */
  readonly logDefaults: BrokerLogDefaults;
  /** The data dir (`--data-dir`, log.dirs), when the broker keeps its data on disk. */
  readonly dataDir: DataDir | undefined;
  /** The cluster id: config.clusterId, the data dir's, or the one this broker made up. */
  readonly clusterId: string;
  /** Retention, the cleaner and the stored-memory cap (log/log-manager.ts). */
  readonly logManager: LogManager;
  /** Dynamic broker configs (per broker and cluster default), set by AlterConfigs. */
  readonly dynamicConfigs: DynamicBrokerConfigs;
  readonly fetchWaiters = new FetchWaiters();
  readonly producerIds = new ProducerIdManager();
  readonly topicDeletions = new TopicDeletions();
  readonly connections = new Set<Connection>();
  readonly stats: BrokerStats = { connectionsOpened: 0, requests: 0 };
  readonly log: Logger;
  /** The classic group coordinator (a pure state machine on the broker's clock). */
  readonly groups: GroupCoordinator;
  /** Listeners of group events (the control plane and tests subscribe here). */
  readonly groupEventListeners = new Set<(e: GroupEvent) => void>();
  /** The transaction coordinator (a pure state machine on the broker's clock). */
  readonly transactions: TransactionCoordinator;
  /** Listeners of transaction events (the control plane and tests subscribe here). */
  readonly txnEventListeners = new Set<(e: TxnEvent) => void>();
  /** What every connection consults before a request runs (the control plane's faults). */
  readonly hooks: ConnectionHooks = { interceptor: undefined };
  readonly advertised: AdvertisedListener;
  /** The listeners (security/listeners.ts), each with the endpoint handlers answer for it; server.ts binds them. */
  readonly listeners: ReadonlyArray<{ spec: ListenerSpec; endpoint: ListenerEndpoint }>;
  /** The ACL authorizer, when authorizer.class.name asks for one. */
  readonly authorizer: Authorizer | undefined;
  /** SCRAM credentials of every user (sasl.users, AlterUserScramCredentials). */
  readonly scramCredentials = new ScramCredentialStore();
  readonly clientQuotas = new ClientQuotaStore();
  readonly delegationTokens: DelegationTokenStore;
  /** The SASL mechanisms of the SASL listeners (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER). */
  readonly saslMechanisms: SaslMechanisms;
  /** What handlers, the log and the config code may use (services.ts). */
  readonly services: BrokerServices;
  /** Strict-clients mode: what clients did that a correct client does not (strict/findings.ts). */
  readonly clientFindings: ClientFindings;
  /** queued.max.request.bytes: the bytes of requests being read, all connections together (memory-pool.ts). */
  readonly requestMemory: MemoryPool;
  private nextConnectionId = 1;

  constructor(
    readonly config: BrokerConfig,
    logger?: Logger,
  ) {
    this.log = logger ?? pino({ level: config.logLevel, base: undefined });
    for (const h of HANDLERS) this.handlers.set(h.apiKey, h as ApiHandler);
    this.clock = new BrokerClock({
      setting: config.clock,
      startMs: config.clockStartMs ?? (config.deterministic && config.clock === 'manual' ? DETERMINISTIC_EPOCH_MS : undefined),
      onTimerError: (name, err) => this.log.error({ timer: name, err: String((err as Error)?.stack ?? err) }, 'timer failed'),
    });
    this.ids = config.deterministic ? new SeededIds(String(config.seed)) : randomIds;
    // The data dir first: it decides the cluster id, and the topics load from it.
    const dataDirPath = firstLogDir(config.logDirs ?? config.logDir);
    this.dataDir = dataDirPath === null ? undefined : new DataDir(dataDirPath, this.log);
    const madeUpClusterId = config.clusterId ?? this.ids.clusterId();
    this.clusterId = this.dataDir === undefined ? madeUpClusterId : this.dataDir.open(config.nodeId, madeUpClusterId, config.clusterId !== undefined);
    this.logDefaults = new BrokerLogDefaults(staticTopicDefaults(config));
    this.dynamicConfigs = new DynamicBrokerConfigs(config, this.logDefaults);
    this.topics = new TopicStore({
      clock: this.clock,
      ids: this.ids,
      startedAt: this.clock.now(),
      logOptions: (topic, partition) => {
        const logConfig = resolveLogConfig(topic.configs, this.logDefaults);
        const files = this.dataDir?.logOptions(topic.name, topic.id, partition, logConfig.indexIntervalBytes, () => topic.partitions[partition]) ?? {};
        return { ...files, maxIndexSize: logConfig.segmentIndexBytes, onStored: (bytes) => this.logManager.onStored(bytes) };
      },
      onChanged: (change) => this.onTopicsChanged(change),
    });
    this.logManager = new LogManager({
      config,
      topics: this.topics,
      logDefaults: this.logDefaults,
      clock: this.clock,
      log: this.log,
      hasDataDir: () => this.dataDir !== undefined,
      // A consumer waiting at an offset retention deleted gets its OFFSET_OUT_OF_RANGE now.
      onLogStartOffsetMoved: (topic, partition) => this.fetchWaiters.notify(topic, partition),
    });
    this.delegationTokens = new DelegationTokenStore(config, () => this.clock.now(), this.log);
    // Before the data dir: its saved ACLs go into the authorizer.
    this.authorizer = createAuthorizer(config, this.log);
    if (this.dataDir !== undefined) this.loadDataDir(this.dataDir);
    this.logManager.start();
    if (this.delegationTokens.enabled) {
      // The controller's expired-token removal (QuorumController, delegation.token.expiry.check.interval.ms).
      const every = config.delegationTokenExpiryCheckIntervalMs;
      const check = (): void => {
        this.delegationTokens.removeExpired();
        this.tokenExpiryTimer = this.clock.schedule(every, check, { name: 'delegation-token-expiry', housekeeping: true });
      };
      this.tokenExpiryTimer = this.clock.schedule(every, check, { name: 'delegation-token-expiry', housekeeping: true });
    }
    this.groups = new GroupCoordinator({
      clock: this.clock,
      timers: this.clock,
      generateUuid: (groupId, prefix) => this.ids.memberUuid(groupId, prefix),
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      groupMaxSize: config.groupMaxSize,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      policies: config.policies,
      // Offset commits, group metadata and tombstones go to __consumer_offsets (group/offsets-topic.ts).
      records: offsetsTopicSink({ config, topics: this.topics, logDefaults: this.logDefaults, clock: this.clock, log: this.log, fetchWaiters: this.fetchWaiters }),
      // KIP-890 part 1: a TxnOffsetCommit is stored only if AddOffsetsToTxn put the group's
      // __consumer_offsets partition in the transaction (ReplicaManager's verification; the raw
      // coordinator answer, which the group side maps as AddPartitionsToTxnManager does).
      verifyOffsetsPartition: (transactionalId, producerId, producerEpoch, partition) =>
        !this.config.transactionPartitionVerificationEnable
          ? 0
          : (this.transactions.verifyPartitionsInTransaction(transactionalId, producerId, producerEpoch, [{ topic: OFFSETS_TOPIC, partition }])[0]?.errorCode ?? 0),
      onEvent: (e) => this.onGroupEvent(e),
    });
    // A deleted topic's committed offsets go from every group, as Kafka's metadata publisher has
    // the group coordinator do (BrokerMetadataPublisher -> GroupCoordinator.onPartitionsDeleted).
    this.topicDeletions.onDeleted((partitions) => this.groups.onPartitionsDeleted(partitions));
    // The transaction coordinator writes its markers into this broker's own logs (txn/log-markers.ts),
    // and a marker on __consumer_offsets completes the group coordinator's pending txn offsets.
    this.transactions = new TransactionCoordinator({
      config: {
        transactionMaxTimeoutMs: config.transactionMaxTimeoutMs,
        transactionalIdExpirationMs: config.transactionalIdExpirationMs,
        abortTimedOutTransactionsIntervalMs: config.transactionAbortTimedOutTransactionCleanupIntervalMs,
        removeExpiredTransactionalIdsIntervalMs: config.transactionRemoveExpiredTransactionCleanupIntervalMs,
      },
      clock: this.clock,
      timers: this.clock,
      producerIds: this.producerIds,
      offsetsPartitionFor: (groupId) => this.groups.partitionFor(groupId),
      markers: logMarkerWriter({ logDefaults: this.logDefaults, topics: this.topics, groups: this.groups, fetchWaiters: this.fetchWaiters, clock: this.clock, log: this.log }),
      // Each metadata change (and an expired id's tombstone) goes to __transaction_state (txn/transaction-log.ts).
      log: transactionStateStore({ topics: this.topics, logDefaults: this.logDefaults, clock: this.clock, log: this.log, fetchWaiters: this.fetchWaiters }),
      onEvent: (e) => this.onTxnEvent(e),
    });
    // --- coordinator state: both coordinators rebuilt from __consumer_offsets and
    // __transaction_state as the data dir brought them back (coordinator-state.ts); groups first,
    // as a loaded transaction may write markers to __consumer_offsets. Without a data dir the
    // topics do not exist yet and nothing happens.
    loadCoordinatorState(this);
    this.clientFindings = new ClientFindings(config.strictClients, this.log, this.clock);
    this.requestMemory = requestMemoryPool(config, this.log, () => this.clock.now());
    this.listeners = resolveListeners(config).map((spec) => ({
      spec,
      endpoint: { name: spec.name, protocol: spec.protocol, advertised: { host: spec.advertisedHost, port: spec.advertisedPort ?? spec.port } },
    }));
    this.advertised = this.listeners[0].endpoint.advertised;
    this.saslMechanisms = createSaslMechanisms({ config, scram: this.scramCredentials, tokens: this.delegationTokens, now: () => this.clock.now(), log: this.log });
    this.warnUnservableMechanisms();
    this.services = {
      config,
      log: this.log,
      clock: this.clock,
      ids: this.ids,
      clusterId: this.clusterId,
      topics: this.topics,
      logDefaults: this.logDefaults,
      logManager: this.logManager,
      dynamicConfigs: this.dynamicConfigs,
      fetchWaiters: this.fetchWaiters,
      groups: this.groups,
      producerIds: this.producerIds,
      transactions: this.transactions,
      topicDeletions: this.topicDeletions,
      advertised: this.advertised,
      listeners: this.listeners.map((l) => l.endpoint),
      authorizer: this.authorizer,
      scramCredentials: this.scramCredentials,
      clientQuotas: this.clientQuotas,
      delegationTokens: this.delegationTokens,
      logDir: this.dataDir === undefined ? null : path.resolve(this.dataDir.dir),
      apis: [...this.handlers.values()]
        .sort((a, b) => a.apiKey - b.apiKey)
        .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion })),
      clientFindings: this.clientFindings,
    };
  }

  get advertisedHost(): string {
    return this.advertised.host;
  }
  get advertisedPort(): number {
    return this.advertised.port;
  }
  set advertisedPort(port: number) {
    this.advertised.port = port;
  }

  /** A new client connection on `listener` (the first listener when not given: kmock's own tests). */
  accept(socket: Socket, listener = this.listeners[0], principal = ANONYMOUS): Connection {
    const sasl = isSaslProtocol(listener.spec.protocol) ? this.saslSettings(listener.spec.name) : undefined;
    const c = new Connection(this, socket, this.nextConnectionId++, { endpoint: listener.endpoint, principal, sasl });
    this.connections.add(c);
    this.stats.connectionsOpened++;
    this.log.debug({ connection: c.info.id, host: c.info.clientHost, port: c.info.clientPort }, 'connection opened');
    return c;
  }

  /** What a SASL listener's connections authenticate with (security/sasl-authenticator.ts). */
  private saslSettings(listenerName: string): AuthenticatorSettings {
    return {
      listenerName,
      mechanisms: this.saslMechanisms,
      connectionsMaxReauthMs: this.config.connectionsMaxReauthMs,
      failedAuthenticationDelayMs: this.config.connectionFailedAuthenticationDelayMs,
      log: this.log,
    };
  }

  onConnectionClosed(c: Connection, why: string): void {
    this.connections.delete(c);
    this.log.debug({ connection: c.info.id, why }, 'connection closed');
  }

  /** GSSAPI (Kafka's default sasl.enabled.mechanisms) needs Kerberos, which kmock does not serve: said once. */
  private warnUnservableMechanisms(): void {
    const sasl = this.listeners.filter((l) => isSaslProtocol(l.spec.protocol)).map((l) => l.spec.name);
    if (sasl.length === 0) return;
    const dropped = unservableMechanisms(this.config, sasl);
    if (dropped.length > 0) this.log.warn({ mechanisms: dropped, listeners: sasl }, 'SASL mechanisms kmock cannot serve are not offered (GSSAPI needs Kerberos): set sasl.enabled.mechanisms to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER');
    for (const name of sasl) {
      if (this.saslMechanisms.enabled(name).length === 0) this.log.warn({ listener: name }, 'a SASL listener with no mechanism kmock serves: every client will be refused');
    }
  }

  traceLine(line: Record<string, unknown>): void {
    this.log.info(line, 'trace');
  }

  /**
   * Brings back what the data dir kept: the topics (their logs load from their files: storage/),
   * then the dynamic configs; and from now on saves every change of them.
   */
  private loadDataDir(dir: DataDir): void {
    const saved = dir.loadCluster();
    this.loadingDataDir = true;
    try {
      for (const t of saved?.topics ?? []) this.topics.restore(t.name, t.id, t.partitions, t.replicationFactor, new Map(t.configs));
      if (saved !== null) this.dynamicConfigs.load(saved.dynamicConfigs);
      if (saved?.nextProducerIdBlock !== undefined) this.producerIds.restore(BigInt(saved.nextProducerIdBlock));
      // The credentials AlterUserScramCredentials made; sasl.users' are set over them later, at start.
      if (saved?.scramCredentials !== undefined) this.scramCredentials.load(saved.scramCredentials);
      if (saved?.clientQuotas !== undefined) this.clientQuotas.load(saved.clientQuotas);
      if (saved?.delegationTokens !== undefined) this.delegationTokens.load(saved.delegationTokens);
      if (saved?.acls !== undefined) this.loadAcls(dir, saved.acls);
    } finally {
      this.loadingDataDir = false;
    }
    const known = new Set(this.topics.all().map((t) => t.name));
    const strays = dir.partitionDirs().filter((p) => !known.has(p.topic));
    if (strays.length > 0) this.log.warn({ dir: dir.dir, partitions: strays.map((p) => `${p.topic}-${p.partition}`) }, 'partition dirs of topics the data dir does not list: left alone');
    this.dynamicConfigs.onChange(() => this.saveCluster());
    this.scramCredentials.onChange(() => this.saveCluster());
    this.clientQuotas.onChange(() => this.saveCluster());
    this.delegationTokens.onChange(() => this.saveCluster());
    this.authorizer?.onChange(() => this.saveCluster());
    this.producerIds.onBlockAllocated = () => this.saveCluster();
    // "kafka-recovery-point-checkpoint" / "kafka-log-start-offset-checkpoint": every
    // log.flush.offset.checkpoint.interval.ms and log.flush.start.offset.checkpoint.interval.ms (60 s).
    const checkpoint = (): void => {
      dir.writeCheckpoints(this.topics.all().flatMap((t) => t.partitions), (l) => l.recoveryPoint);
      this.checkpointTimer = this.clock.schedule(60_000, checkpoint, { name: 'kafka-recovery-point-checkpoint', housekeeping: true });
    };
    this.checkpointTimer = this.clock.schedule(this.config.logInitialTaskDelayMs, checkpoint, { name: 'kafka-recovery-point-checkpoint', housekeeping: true });
    this.log.info({ dir: dir.dir, topics: this.topics.all().length, cleanShutdown: dir.hadCleanShutdown }, 'data dir loaded');
  }

  private loadingDataDir = false;
  /** The data dir's ACLs, kept for saving when no authorizer is configured to hold them. */
  private savedAcls: AclBinding[] | undefined;

  /**
   * Puts the saved ACLs into the authorizer. An entry that is not a valid ACL stops the start: a
   * DENY silently dropped would open what it closed.
   */
  private loadAcls(dir: DataDir, acls: unknown): void {
    const list = Array.isArray(acls) ? (acls as AclBinding[]) : undefined;
    const why = (a: AclBinding): string | undefined =>
      typeof a !== 'object' || a === null || typeof a.principal !== 'string' || typeof a.host !== 'string' || typeof a.resourceName !== 'string' ? 'not an ACL' : invalidNewAcl(a);
    const bad = list === undefined ? -1 : list.findIndex((a) => why(a) !== undefined);
    if (list === undefined || bad >= 0) {
      const detail = list === undefined ? 'not a list' : `entry ${bad}: ${JSON.stringify(list[bad])}: ${why(list[bad])}`;
      throw new DataDirError(`${dir.clusterFile}: the saved ACLs are not valid (${detail})`);
    }
    this.savedAcls = list;
    if (this.authorizer !== undefined) this.authorizer.load(list);
    else if (list.length > 0) this.log.warn({ dir: dir.dir, acls: list.length }, 'the data dir holds ACLs, but no authorizer.class.name is set: they are kept, not applied');
  }
  private checkpointTimer: { cancel(): void } | undefined;
  private tokenExpiryTimer: { cancel(): void } | undefined;

  private onTopicsChanged(change: TopicChange): void {
    if (this.dataDir === undefined || this.loadingDataDir) return;
    if (change.kind === 'deleted') {
      for (const log of change.topic.partitions) {
        for (const seg of log.logSegments) seg.file?.delete();
        this.dataDir.deletePartition(change.topic.name, log.index);
      }
    }
    this.saveCluster();
  }

  private saveCluster(): void {
    if (this.dataDir === undefined || this.loadingDataDir) return;
    const saved: SavedCluster = {
      topics: this.topics.all().map((t) => ({ name: t.name, id: t.id, partitions: t.partitions.length, replicationFactor: t.replicationFactor, configs: [...t.configs] })),
      dynamicConfigs: this.dynamicConfigs.entries(),
      nextProducerIdBlock: String(this.producerIds.nextBlockStart),
      scramCredentials: this.scramCredentials.entries(),
      clientQuotas: this.clientQuotas.entries(),
      delegationTokens: this.delegationTokens.entries(),
      // Without an authorizer the saved ACLs stay as they were, for when it is configured again.
      acls: this.authorizer?.entries() ?? this.savedAcls,
    };
    this.dataDir.saveCluster(saved);
  }

  /** Stops timers and closes every connection; the server stops accepting in server.ts. Then the
   *  strict-clients summary: a line per kind found (none when nothing was). */
  shutdown(): void {
    this.groups.close();
    this.transactions.close();
    this.logManager.close();
    this.checkpointTimer?.cancel();
    this.tokenExpiryTimer?.cancel();
    this.closeConnections();
    // Last, once no request can append: a clean shutdown of the data dir (flushed, indexes, checkpoints).
    this.dataDir?.close(this.topics.all().flatMap((t) => t.partitions), true);
    this.clock.close();
    this.clientFindings.logSummary();
  }

  private onTxnEvent(e: TxnEvent): void {
    // Kafka logs these at INFO (TransactionCoordinator / TransactionStateManager); a state change
    // only at debug, as a busy producer makes several a second.
    if (e.type !== 'txn-state-changed' || this.log.isLevelEnabled('debug')) {
      this.log.info({ transaction: { ...e, producerId: String(e.producerId) } }, 'transaction event');
    }
    for (const l of this.txnEventListeners) l(e);
  }

  private onGroupEvent(e: GroupEvent): void {
    if (this.log.isLevelEnabled('debug') || e.type === 'rebalance-started' || e.type === 'member-fenced' || isPolicyEvent(e)) {
      this.log.info({ group: e }, 'group event');
    }
    for (const l of this.groupEventListeners) l(e);
  }

  /** Closes every client connection (shutdown, or the control plane's "drop connections"). */
  closeConnections(filter: (c: Connection) => boolean = () => true): number {
    let n = 0;
    for (const c of [...this.connections]) {
      if (filter(c)) {
        c.close('closed by broker');
        n++;
      }
    }
    return n;
  }
}

/** The first dir of log.dirs / log.dir (kmock keeps one data dir), or null for none. */
function firstLogDir(dirs: string | null): string | null {
  if (dirs === null) return null;
  const first = dirs.split(',').map((d) => d.trim()).find((d) => d !== '');
  return first ?? null;
}
