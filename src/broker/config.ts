// Broker settings. Each keeps Apache Kafka's default and name (as a dotted key for config files
// and `--set key=value`), so what a user knows from Kafka applies unchanged. Kafka's own config
// catalog (types, defaults, documentation, DescribeConfigs) is in ./config/.

import { KMOCK_BROKER_SETTINGS } from './config/broker-configs.js';
import { ClockError, parseClockSetting, type ClockSetting } from './time/broker-clock.js';
import { PolicyError, mergePolicyUpdates, parsePolicies, validatePolicyUpdate, type PolicyUpdate } from './group/policies/index.js';

export interface BrokerConfig {
  /** Address to listen on. Kafka apps expect 127.0.0.1:9092; tests use port 0 (ephemeral). */
  host: string;
  port: number;
  /** Host and port put in Metadata; default to the listening ones. */
  advertisedHost?: string;
  advertisedPort?: number;
  nodeId: number;
  /** The cluster id Metadata and DescribeCluster report; unset: kmock's fixed one, or the seed's. */
  clusterId?: string;
  rack: string | null;

  /** socket.request.max.bytes: frames larger than this are refused before being buffered. */
  socketRequestMaxBytes: number;
  /** connections.max.idle.ms: idle connections are closed after this long. */
  connectionsMaxIdleMs: number;

  /** auto.create.topics.enable */
  autoCreateTopicsEnable: boolean;
  /** num.partitions: partitions of auto-created topics and of CreateTopics with -1. */
  numPartitions: number;
  /** default.replication.factor (one broker: only 1 is valid, but Kafka reports what was asked). */
  defaultReplicationFactor: number;
  /** log.message.timestamp.type: CreateTime or LogAppendTime. */
  logMessageTimestampType: 'CreateTime' | 'LogAppendTime';
  /** delete.topic.enable */
  deleteTopicEnable: boolean;

  /** group.initial.rebalance.delay.ms */
  groupInitialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms */
  groupMinSessionTimeoutMs: number;
  /** group.max.session.timeout.ms */
  groupMaxSessionTimeoutMs: number;
  /** group.max.size */
  groupMaxSize: number;
  /** offsets.retention.minutes (kept for DescribeConfigs; offsets never expire in memory). */
  offsetsRetentionMinutes: number;

  /** transaction.max.timeout.ms: InitProducerId's transaction timeout must be in (0, this]. */
  transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms: an idle transactional id is forgotten after this. */
  transactionalIdExpirationMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms: how often timed-out transactions are aborted. */
  transactionAbortTimedOutTransactionCleanupIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often expired ids are removed. */
  transactionRemoveExpiredTransactionCleanupIntervalMs: number;
  /** transaction.partition.verification.enable: Produce asks the coordinator whether a partition is in the transaction (KIP-890 part 1). */
  transactionPartitionVerificationEnable: boolean;

  // ---- storage (Kafka's log.* settings; the topic configs of the same names fall back to them) ----
  /** log.dir: where a data dir lives when log.dirs is unset (kmock: in memory unless one of them is set). */
  logDir: string | null;
  /** log.dirs / `--data-dir`: the data dir (kmock uses the first); null: everything in memory. */
  logDirs: string | null;
  /** log.segment.bytes */
  logSegmentBytes: number;
  /** log.roll.ms (null: log.roll.hours) */
  logRollMs: number | null;
  /** log.roll.hours */
  logRollHours: number;
  /** log.roll.jitter.ms (null: log.roll.jitter.hours) */
  logRollJitterMs: number | null;
  /** log.roll.jitter.hours */
  logRollJitterHours: number;
  /** log.retention.ms (null: log.retention.minutes, then log.retention.hours; negative: no limit) */
  logRetentionMs: number | null;
  /** log.retention.minutes (null: log.retention.hours) */
  logRetentionMinutes: number | null;
  /** log.retention.hours */
  logRetentionHours: number;
  /** log.retention.bytes (-1: no limit) */
  logRetentionBytes: number;
  /** log.retention.check.interval.ms: how often retention runs. */
  logRetentionCheckIntervalMs: number;
  /** log.cleanup.policy: delete, compact or both. */
  logCleanupPolicy: string;
  /** log.index.size.max.bytes: a segment rolls when its offset or time index would pass this. */
  logIndexSizeMaxBytes: number;
  /** log.index.interval.bytes */
  logIndexIntervalBytes: number;
  /** log.flush.interval.messages (Long.MAX_VALUE: never) */
  logFlushIntervalMessages: number;
  /** log.flush.interval.ms (null: log.flush.scheduler.interval.ms) */
  logFlushIntervalMs: number | null;
  /** log.flush.scheduler.interval.ms */
  logFlushSchedulerIntervalMs: number;
  /**
   * log.initial.task.delay.ms (an internal Kafka setting, for testing): when the log tasks
   * (retention, the flusher, checkpoints) first run after start.
   */
  logInitialTaskDelayMs: number;
  /** log.segment.delete.delay.ms: a deleted segment's files are removed this long after. */
  logSegmentDeleteDelayMs: number;
  /** log.cleaner.enable */
  logCleanerEnable: boolean;
  /** log.cleaner.delete.retention.ms */
  logCleanerDeleteRetentionMs: number;
  /** log.cleaner.min.compaction.lag.ms */
  logCleanerMinCompactionLagMs: number;
  /** log.cleaner.max.compaction.lag.ms */
  logCleanerMaxCompactionLagMs: number;
  /** log.cleaner.min.cleanable.ratio */
  logCleanerMinCleanableRatio: number;
  /** log.cleaner.backoff.ms: the cleaner's pause when no log needs cleaning. */
  logCleanerBackoffMs: number;
  /** message.max.bytes */
  messageMaxBytes: number;
  /** min.insync.replicas */
  minInsyncReplicas: number;
  /** compression.type */
  compressionType: string;
  /**
   * queued.max.request.bytes: the bytes of requests being read or waiting, all connections
   * together, before the broker stops reading more (KIP-72). Kafka's default is -1 (no bound);
   * kmock's keeps one client from holding the broker's memory.
   */
  queuedMaxRequestBytes: number;
  /**
   * kmock's own: the most bytes stored record batches may hold in memory (-1: no bound). Past it, with
   * a data dir the oldest segments are read from disk only; without one they are dropped (the log
   * start offset moves, with a warning naming the partitions).
   */
  storedMaxBytes: number;
  /** kmock's own: fsync the data dir before answering acks=all (and markers, offsets). */
  fsyncOnAcksAll: boolean;


  // ---- listeners and security (Kafka's names; docs/security.md) ----
  /** listeners: "NAME://host:port,..." (null: one PLAINTEXT listener on host:port). */
  listeners: string | null;
  /** advertised.listeners (null: the bound listeners). */
  advertisedListeners: string | null;
  /** listener.security.protocol.map */
  listenerSecurityProtocolMap: string;
  /**
   * The `listener.name.<listener>.<key>` settings (per-listener SSL and SASL settings, the JAAS
   * configs), by their full names: security/listener-settings.ts reads them.
   */
  listenerOverrides: Record<string, string>;
  /** sasl.enabled.mechanisms (Kafka's default GSSAPI, which kmock cannot serve: see resolveListeners). */
  saslEnabledMechanisms: string;
  /** ssl.client.auth: none, requested or required. */
  sslClientAuth: string;
  /** ssl.enabled.protocols */
  sslEnabledProtocols: string;
  /** ssl.cipher.suites (JSSE names; empty: the defaults). */
  sslCipherSuites: string;
  /** ssl.keystore.type: PEM or PKCS12 (JKS is refused with a hint). */
  sslKeystoreType: string;
  sslKeystoreLocation: string | null;
  sslKeystorePassword: string | null;
  sslKeyPassword: string | null;
  /** ssl.keystore.key: a PEM private key, inline. */
  sslKeystoreKey: string | null;
  /** ssl.keystore.certificate.chain: PEM certificates, inline. */
  sslKeystoreCertificateChain: string | null;
  sslTruststoreType: string;
  sslTruststoreLocation: string | null;
  sslTruststorePassword: string | null;
  /** ssl.truststore.certificates: PEM certificates, inline. */
  sslTruststoreCertificates: string | null;
  /** ssl.principal.mapping.rules */
  sslPrincipalMappingRules: string;
  /** connections.max.reauth.ms (KIP-368; 0: sessions never expire). */
  connectionsMaxReauthMs: number;
  /** connection.failed.authentication.delay.ms: a failed authentication's close waits this long. */
  connectionFailedAuthenticationDelayMs: number;
  /** sasl.server.max.receive.size: the largest frame before authentication completes. */
  saslServerMaxReceiveSize: number;
  /** authorizer.class.name ("" : none; StandardAuthorizer or AclAuthorizer: the ACL authorizer). */
  authorizerClassName: string;
  /** super.users (the authorizer's): "User:a;User:b". */
  superUsers: string;
  /** allow.everyone.if.no.acl.found (the authorizer's). */
  allowEveryoneIfNoAclFound: boolean;
  /** delegation.token.secret.key (or the deprecated delegation.token.master.key): null disables delegation tokens. */
  delegationTokenSecretKey: string | null;
  /** delegation.token.max.lifetime.ms: a token's longest life (7 days). */
  delegationTokenMaxLifetimeMs: number;
  /** delegation.token.expiry.time.ms: a token's renewal period (1 day). */
  delegationTokenExpiryTimeMs: number;
  /** delegation.token.expiry.check.interval.ms: how often expired tokens are removed (1 hour). */
  delegationTokenExpiryCheckIntervalMs: number;
  /**
   * kmock's own: users created at start, "name:password,...": each gets a PLAIN login on every
   * SASL listener and SCRAM-SHA-256/512 credentials (4096 iterations).
   */
  saslUsers: string | null;
  /**
   * kmock's own (`--tls`): a self-signed CA and a certificate for the advertised hosts, made at
   * start for every SSL / SASL_SSL listener without a keystore; with no `listeners`, the one
   * listener becomes SSL. The CA is written to tlsDir.
   */
  tls: boolean;
  /** Where `tls` writes ca.pem (and the broker's cert and key); null: a new temp dir. */
  tlsDir: string | null;

  /**
   * How the broker's clock moves (time/broker-clock.ts, docs/testing.md): 'system' (real time),
   * 'manual' (only when the test advances it) or { speed: N } (real time, N times faster). As
   * text (`--clock`): system, manual, 10x.
   */
  clock: ClockSetting;
  /** The clock's time at start (epoch ms); default: real time, or DETERMINISTIC_EPOCH_MS. */
  clockStartMs?: number;
  /**
   * Ids from `seed` instead of random ones (ids.ts): topic ids, member ids, the cluster id; and a
   * manual clock starts at DETERMINISTIC_EPOCH_MS, so log-append times repeat too.
   */
  deterministic: boolean;
  /** The seed of a deterministic broker. */
  seed: number;
  /**
   * A Fetch long poll also ends after its max wait in real time when the clock has not passed it
   * first: a client keeps consuming while a manual clock stands still (Java's consumer keeps one
   * Fetch per broker in flight and would wait out request.timeout.ms). Off: long polls wait on the
   * clock alone.
   */
  longPollsOnRealTime: boolean;

  /** Write each request and response, decoded, as one JSON line on the log. */
  trace: boolean;
  /** Log level for structured lines: 'silent' | 'error' | 'warn' | 'info' | 'debug'. */
  logLevel: string;
  /**
   * kmock's draft policies, broker-wide (docs/policies.md); all off by default. As text (`--set
   * policies=...`, a config file's `policies=` line) it is parsePolicies' form, e.g.
   * "kip345-draft-errors,registration-timeout=15m"; repeated settings add up.
   */
  policies: PolicyUpdate;
  /**
   * Strict-clients mode (docs/strict-clients.md): answers stay Kafka's, and what a correct client
   * does not do is recorded (findings with the request that caused them, a warn line each).
   */
  strictClients: boolean;
  /** Port of the control plane's HTTP API on 127.0.0.1 (0 = any free port); off when unset. */
  adminPort?: number;
  /** Where the admin API listens (default 127.0.0.1); anything but loopback needs adminToken. */
  adminHost?: string;
  /** A bearer token every admin API request must carry (a secret: never logged). */
  adminToken?: string;
}

export const DEFAULT_CONFIG: BrokerConfig = {
  host: '127.0.0.1',
  port: 9092,
  nodeId: 1,
  rack: null,
  socketRequestMaxBytes: 104857600,
  connectionsMaxIdleMs: 600000,
  autoCreateTopicsEnable: true,
  numPartitions: 1,
  defaultReplicationFactor: 1,
  logMessageTimestampType: 'CreateTime',
  deleteTopicEnable: true,
  groupInitialRebalanceDelayMs: 3000,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1800000,
  groupMaxSize: 2147483647,
  offsetsRetentionMinutes: 10080,
  transactionMaxTimeoutMs: 900_000,
  transactionalIdExpirationMs: 604_800_000,
  transactionAbortTimedOutTransactionCleanupIntervalMs: 10_000,
  transactionRemoveExpiredTransactionCleanupIntervalMs: 3_600_000,
  transactionPartitionVerificationEnable: true,
  logDir: null,
  logDirs: null,
  logSegmentBytes: 1073741824,
  logRollMs: null,
  logRollHours: 168,
  logRollJitterMs: null,
  logRollJitterHours: 0,
  logRetentionMs: null,
  logRetentionMinutes: null,
  logRetentionHours: 168,
  logRetentionBytes: -1,
  logRetentionCheckIntervalMs: 300000,
  logCleanupPolicy: 'delete',
  logIndexSizeMaxBytes: 10485760,
  logIndexIntervalBytes: 4096,
  logFlushIntervalMessages: 9223372036854775807,
  logFlushIntervalMs: null,
  logFlushSchedulerIntervalMs: 9223372036854775807,
  logInitialTaskDelayMs: 30000,
  logSegmentDeleteDelayMs: 60000,
  logCleanerEnable: true,
  logCleanerDeleteRetentionMs: 86400000,
  logCleanerMinCompactionLagMs: 0,
  logCleanerMaxCompactionLagMs: 9223372036854775807,
  logCleanerMinCleanableRatio: 0.5,
  logCleanerBackoffMs: 15000,
  messageMaxBytes: 1048588,
  minInsyncReplicas: 1,
  compressionType: 'producer',
  queuedMaxRequestBytes: 268435456,
  storedMaxBytes: 1073741824,
  fsyncOnAcksAll: false,
  listeners: null,
  advertisedListeners: null,
  listenerSecurityProtocolMap: 'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT',
  listenerOverrides: {},
  saslEnabledMechanisms: 'GSSAPI',
  sslClientAuth: 'none',
  sslEnabledProtocols: 'TLSv1.2,TLSv1.3',
  sslCipherSuites: '',
  sslKeystoreType: 'JKS',
  sslKeystoreLocation: null,
  sslKeystorePassword: null,
  sslKeyPassword: null,
  sslKeystoreKey: null,
  sslKeystoreCertificateChain: null,
  sslTruststoreType: 'JKS',
  sslTruststoreLocation: null,
  sslTruststorePassword: null,
  sslTruststoreCertificates: null,
  sslPrincipalMappingRules: 'DEFAULT',
  connectionsMaxReauthMs: 0,
  connectionFailedAuthenticationDelayMs: 100,
  saslServerMaxReceiveSize: 524288,
  authorizerClassName: '',
  superUsers: '',
  allowEveryoneIfNoAclFound: false,
  delegationTokenSecretKey: null,
  delegationTokenMaxLifetimeMs: 604_800_000,
  delegationTokenExpiryTimeMs: 86_400_000,
  delegationTokenExpiryCheckIntervalMs: 3_600_000,
  saslUsers: null,
  tls: false,
  tlsDir: null,
  clock: 'system',
  deterministic: false,
  seed: 0,
  longPollsOnRealTime: false,
  trace: false,
  logLevel: 'info',
  policies: {},
  strictClients: false,
};

/**
 * Kafka's dotted setting names, for config files and `--set`: the broker configs of the catalog
 * (config/broker-configs.ts) that name the BrokerConfig field holding them, which is the one place
 * a Kafka name is mapped to a kmock setting.
 */
/** Where a deterministic broker's manual clock starts: 2025-01-01T00:00:00.000Z. */
export const DETERMINISTIC_EPOCH_MS = Date.UTC(2025, 0, 1);

export const KAFKA_SETTING_NAMES: Record<string, keyof BrokerConfig> = Object.fromEntries(
  KMOCK_BROKER_SETTINGS.map((k) => [k.name, k.setting]),
);

/**
 * Kafka's internal settings kmock applies (ConfigDef.defineInternal: accepted in server.properties,
 * never listed by DescribeConfigs), by their Kafka names.
 */
export const KAFKA_INTERNAL_SETTING_NAMES: Record<string, keyof BrokerConfig> = {
  'log.initial.task.delay.ms': 'logInitialTaskDelayMs',
};

/**
 * Kafka's listener and security settings that kmock applies but does not describe as catalog
 * entries (config/broker-configs.ts): the listeners (DescribeConfigs renders them from the bound
 * listeners: config/describe.ts), KafkaConfig's security keys outside the catalog, and the
 * authorizer's own settings (StandardAuthorizer reads them from the broker's properties).
 */
export const KAFKA_SECURITY_SETTING_NAMES: Record<string, keyof BrokerConfig> = {
  listeners: 'listeners',
  'advertised.listeners': 'advertisedListeners',
  'listener.security.protocol.map': 'listenerSecurityProtocolMap',
  'ssl.principal.mapping.rules': 'sslPrincipalMappingRules',
  'connections.max.reauth.ms': 'connectionsMaxReauthMs',
  'connection.failed.authentication.delay.ms': 'connectionFailedAuthenticationDelayMs',
  'sasl.server.max.receive.size': 'saslServerMaxReceiveSize',
  'authorizer.class.name': 'authorizerClassName',
  'super.users': 'superUsers',
  'allow.everyone.if.no.acl.found': 'allowEveryoneIfNoAclFound',
  'delegation.token.secret.key': 'delegationTokenSecretKey',
  'delegation.token.master.key': 'delegationTokenSecretKey',
  'delegation.token.max.lifetime.ms': 'delegationTokenMaxLifetimeMs',
  'delegation.token.expiry.time.ms': 'delegationTokenExpiryTimeMs',
  'delegation.token.expiry.check.interval.ms': 'delegationTokenExpiryCheckIntervalMs',
  // kmock's own, under Kafka-style names for config files
  'sasl.users': 'saslUsers',
};

/** The prefix of Kafka's per-listener settings (`listener.name.<listener>.<key>`). */
const LISTENER_PREFIX = 'listener.name.';

export class ConfigError extends Error {}

/** Settings without a default that text may still set (by their kmock name). */
const OPTIONAL_SETTINGS: ReadonlySet<string> = new Set(['clusterId', 'clockStartMs', 'advertisedHost', 'advertisedPort', 'adminHost', 'adminToken']);

/** Settings whose default is null (unset) and whose value is text. */
const NULLABLE_TEXT: ReadonlySet<string> = new Set(['rack', 'logDir', 'logDirs', 'listeners', 'advertisedListeners', 'sslKeystoreLocation', 'sslKeystorePassword', 'sslKeyPassword', 'sslKeystoreKey', 'sslKeystoreCertificateChain', 'sslTruststoreLocation', 'sslTruststorePassword', 'sslTruststoreCertificates', 'saslUsers', 'tlsDir', 'delegationTokenSecretKey']);

/** Settings whose default is null (unset) and whose value is a number. */
const NULLABLE_NUMBERS: ReadonlySet<string> = new Set(['logRollMs', 'logRollJitterMs', 'logRetentionMs', 'logRetentionMinutes', 'logFlushIntervalMs']);

/** Applies one setting given as text (from a flag, `--set k=v` or a config file). */
export function applySetting(config: BrokerConfig, name: string, text: string): void {
  if (name.startsWith(LISTENER_PREFIX)) {
    // listener.name.<listener>.<key>: kept by full name, read by security/listener-settings.ts.
    if (name.split('.').length < 4) throw new ConfigError(`"${name}" names no setting (want listener.name.<listener>.<key>)`);
    config.listenerOverrides = { ...config.listenerOverrides, [name]: text };
    return;
  }
  // Own properties only: "toString" or "__proto__" is no setting.
  const key = (Object.hasOwn(KAFKA_SETTING_NAMES, name)
    ? KAFKA_SETTING_NAMES[name]
    : Object.hasOwn(KAFKA_INTERNAL_SETTING_NAMES, name)
      ? KAFKA_INTERNAL_SETTING_NAMES[name]
      : Object.hasOwn(KAFKA_SECURITY_SETTING_NAMES, name)
        ? KAFKA_SECURITY_SETTING_NAMES[name]
        : Object.hasOwn(DEFAULT_CONFIG, name) || OPTIONAL_SETTINGS.has(name) ? name : undefined) as
    | keyof BrokerConfig
    | undefined;
  if (key === undefined) throw new ConfigError(`unknown setting "${name}"`);
  const current = DEFAULT_CONFIG[key];
  const target = config as unknown as Record<string, unknown>;
  if (key === 'policies') {
    try {
      config.policies = mergePolicyUpdates(config.policies, parsePolicies(text));
    } catch (e) {
      throw new ConfigError(`${name}: ${(e as Error).message}`);
    }
  } else if (key === 'clock') {
    try {
      config.clock = parseClockSetting(text);
    } catch (e) {
      if (e instanceof ClockError) throw new ConfigError(e.message);
      throw e;
    }
  } else if (typeof current === 'number' || key === 'clockStartMs' || key === 'advertisedPort' || NULLABLE_NUMBERS.has(key)) {
    const n = Number(text);
    if (key === 'logCleanerMinCleanableRatio') {
      if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number, got "${text}"`);
      target[key] = n;
      return;
    }
    if (!Number.isInteger(n)) throw new ConfigError(`${name} must be an integer, got "${text}"`);
    target[key] = n;
  } else if (typeof current === 'boolean') {
    if (text !== 'true' && text !== 'false') throw new ConfigError(`${name} must be true or false, got "${text}"`);
    target[key] = text === 'true';
  } else if (key === 'logMessageTimestampType') {
    if (text !== 'CreateTime' && text !== 'LogAppendTime') throw new ConfigError(`${name} must be CreateTime or LogAppendTime`);
    target[key] = text;
  } else if (key === 'listenerOverrides') {
    throw new ConfigError(`${name}: set listener.name.<listener>.<key> settings one by one`);
  } else if (NULLABLE_TEXT.has(key)) {
    target[key] = text === '' ? null : text;
  } else {
    target[key] = text;
  }
}

/** Reads a Kafka-style properties file (`key=value` lines, `#` comments). */
export function parseProperties(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.search(/[=:]/);
    if (eq < 0) throw new ConfigError(`config line without "=": ${line}`);
    out.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return out;
}

export function resolveConfig(overrides: Partial<BrokerConfig> = {}): BrokerConfig {
  const c = { ...DEFAULT_CONFIG, ...stripUndefined(overrides) };
  if (c.groupMinSessionTimeoutMs > c.groupMaxSessionTimeoutMs) {
    throw new ConfigError('group.min.session.timeout.ms must not exceed group.max.session.timeout.ms');
  }
  if (c.numPartitions < 1) throw new ConfigError('num.partitions must be at least 1');
  if (c.socketRequestMaxBytes < 1024) throw new ConfigError('socket.request.max.bytes must be at least 1024');
  // Kafka's ConfigDef: atLeast(1) for each transaction coordinator setting.
  for (const [name, value] of [
    ['transaction.max.timeout.ms', c.transactionMaxTimeoutMs],
    ['transactional.id.expiration.ms', c.transactionalIdExpirationMs],
    ['transaction.abort.timed.out.transaction.cleanup.interval.ms', c.transactionAbortTimedOutTransactionCleanupIntervalMs],
    ['transaction.remove.expired.transaction.cleanup.interval.ms', c.transactionRemoveExpiredTransactionCleanupIntervalMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be an integer of at least 1, got ${value}`);
  }
  // KafkaConfig.validateValues
  if (!(c.queuedMaxRequestBytes <= 0 || c.queuedMaxRequestBytes >= c.socketRequestMaxBytes)) {
    throw new ConfigError('queued.max.request.bytes must be larger or equal to socket.request.max.bytes');
  }
  // The storage settings' ConfigDef ranges (ServerLogConfigs, CleanerConfig).
  if (!Number.isInteger(c.logSegmentBytes) || c.logSegmentBytes < 14) throw new ConfigError(`log.segment.bytes must be at least 14, got ${c.logSegmentBytes}`);
  if (!Number.isInteger(c.logRetentionCheckIntervalMs) || c.logRetentionCheckIntervalMs < 1) throw new ConfigError(`log.retention.check.interval.ms must be at least 1, got ${c.logRetentionCheckIntervalMs}`);
  if (!(c.logCleanerMinCleanableRatio >= 0 && c.logCleanerMinCleanableRatio <= 1)) throw new ConfigError(`log.cleaner.min.cleanable.ratio must be between 0 and 1, got ${c.logCleanerMinCleanableRatio}`);
  if (!Number.isInteger(c.logCleanerBackoffMs) || c.logCleanerBackoffMs < 0) throw new ConfigError(`log.cleaner.backoff.ms must be at least 0, got ${c.logCleanerBackoffMs}`);
  if (!Number.isInteger(c.storedMaxBytes) || c.storedMaxBytes < -1) throw new ConfigError(`storedMaxBytes must be -1 (no bound) or a number of bytes, got ${c.storedMaxBytes}`);
  try {
    c.policies = validatePolicyUpdate(c.policies);
  } catch (e) {
    if (e instanceof PolicyError) throw new ConfigError(`policies: ${e.message}`);
    throw e;
  }
  if (typeof c.clock === 'string' && c.clock !== 'system' && c.clock !== 'manual') {
    throw new ConfigError(`clock must be 'system', 'manual' or { speed: N }, got "${String(c.clock)}"`);
  }
  if (typeof c.clock === 'object' && !(Number.isFinite(c.clock.speed) && c.clock.speed > 0)) {
    throw new ConfigError(`clock speed must be a number > 0, got ${c.clock.speed}`);
  }
  if (!Number.isSafeInteger(c.seed)) throw new ConfigError(`seed must be an integer, got ${c.seed}`);
  if (c.adminPort !== undefined && (!Number.isInteger(c.adminPort) || c.adminPort < 0 || c.adminPort > 65535)) {
    throw new ConfigError(`admin port must be an integer between 0 and 65535, got ${c.adminPort}`);
  }
  return c;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
