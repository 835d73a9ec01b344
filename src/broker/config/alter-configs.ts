// IncrementalAlterConfigs and AlterConfigs as a Kafka 3.9 broker+controller (KRaft, one node)
// answers them, in its two steps:
//
// 1. The broker preprocesses each resource (ConfigAdminManager.preprocess): a resource named
//    twice fails ("Each resource must appear at most once."), a config named twice or a null
//    value fails (INVALID_REQUEST); BROKER_LOGGER changes are made here (RuntimeLoggerManager);
//    a BROKER resource must name this node (or "" for the cluster default) and its new configs
//    are validated as DynamicBrokerConfig.validate does (names that cannot change dynamically,
//    security configs without a listener prefix, ConfigDef types and validators, per-broker-only
//    configs at the cluster level, KafkaConfig's cross-checks, the reconfigurable components'
//    checks), every failure an INVALID_REQUEST with the ConfigException's text (KAFKA-13609);
//    any other type but TOPIC and CLIENT_METRICS fails ("Unknown resource type N").
// 2. The rest is forwarded to the controller (ControllerApis -> QuorumController ->
//    ConfigurationControlManager): each config change applied to the resource's current configs
//    (APPEND/SUBTRACT only on LIST configs), then ControllerConfigurationValidator (a topic's
//    name, LogConfig.validate, ClientMetricsConfigs.validate: INVALID_CONFIG), then the resource
//    must exist (UNKNOWN_TOPIC_OR_PARTITION); changes of the resources that pass are made, unless
//    validateOnly. AlterConfigs (legacy) replaces a resource's configs: the ones not given go.
//
// With an authorizer, ALTER_CONFIGS is checked on the cluster (BROKER_LOGGER in step 1, BROKER and
// CLIENT_METRICS in step 2: CLUSTER_AUTHORIZATION_FAILED) or on the topic (TOPIC_AUTHORIZATION_FAILED),
// through `mayAlter` (RuntimeLoggerManager.applyChangesForResource, ControllerApis.authorizeAlterResource).
//
// Where Kafka picks the first of several problems by walking a java.util.HashMap or Properties,
// kmock walks the names in the same order (java-hash.ts). Topic changes are sets and deletes on
// Topic.configs (the log re-reads them); broker changes go to services.dynamicConfigs, which
// recomputes services.logDefaults.
import { ConfigResourceType, ErrorCode } from '../../codec/index.js';
import type { BrokerServices } from '../services.js';
import { invalidTopicNameMessage } from '../log/topic-admin.js';
import {
  brokerConfigKey,
  brokerQuotaConfigKey,
  DYNAMIC_BROKER_CONFIG_DEF,
  DYNAMIC_SECURITY_CONFIGS,
  isNonDynamicBrokerConfig,
  kafkaConfigType,
  type BrokerConfigKey,
} from './broker-configs.js';
import { ROOT_LOGGER, VALID_LOG_LEVELS } from './broker-loggers.js';
import { configException, convertToString, parseType, type ConfigValue } from './config-def.js';
import { staticBrokerConfigs } from './describe.js';
import { listenerBaseName, overrideProps, type BrokerConfigScope } from './dynamic-configs.js';
import { javaHashOrder, scalaMutableSetString, scalaSetString } from './java-hash.js';
import { javaTrim, parseJavaInt } from './java-values.js';
import { normalizedTopicValue, topicConfigKey, validateTopicConfigs } from './topic-configs.js';
import { retentionMillis } from './topic-defaults.js';

/** A resource's answer: Kafka's ApiError (message null when Kafka sends none). */
export interface AlterResult {
  code: number;
  message: string | null;
}

const OK: AlterResult = { code: ErrorCode.NONE, message: null };

/** A resource of either request: IncrementalAlterConfigs gives an operation per config, AlterConfigs none (SET). */
export interface AlterResourceInput {
  resourceType: number;
  resourceName: string;
  configs: ReadonlyArray<{ name: string; configOperation?: number; value: string | null }>;
}

/** AlterConfigOp.OpType ids. */
export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

/** An exception Kafka throws while handling a resource, as the ApiError it becomes. */
class Failure extends Error {
  constructor(readonly result: AlterResult) {
    super(result.message ?? '');
  }
}

const fail = (code: number, message: string | null = null): never => {
  throw new Failure({ code, message });
};
/** InvalidRequestException (INVALID_REQUEST with its message). */
const invalidRequest = (message: string): never => fail(ErrorCode.INVALID_REQUEST, message);
/** InvalidConfigurationException / ConfigException caught by the controller (INVALID_CONFIG). */
const invalidConfig = (message: string): never => fail(ErrorCode.INVALID_CONFIG, message);
/** Anything else (NullPointerException, NoSuchElementException, NumberFormatException): UNKNOWN_SERVER_ERROR, no message. */
const unknownServerError = (): never => fail(ErrorCode.UNKNOWN_SERVER_ERROR);

function attempt(f: () => AlterResult): AlterResult {
  try {
    return f();
  } catch (e) {
    if (e instanceof Failure) return e.result;
    throw e;
  }
}

/** Java's String.split(","): trailing empty strings dropped; "" gives [""]. */
function javaSplitComma(s: string): string[] {
  if (s === '') return [''];
  const parts = s.split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function hasDuplicates(names: readonly string[]): boolean {
  return new Set(names).size !== names.length;
}

/** A change the controller accepted, made once every resource of the request is checked. */
type Commit = () => void;

// ---- the two requests ---------------------------------------------------------------------------

/** IncrementalAlterConfigs: one result per resource, in request order. */
export function incrementalAlterConfigs(b: BrokerServices, resources: readonly AlterResourceInput[], validateOnly: boolean, mayAlter: MayAlter = ALWAYS): AlterResult[] {
  return alterConfigs(b, resources, validateOnly, true, mayAlter);
}

/** Whether the principal may ALTER_CONFIGS on the cluster (resourceName null) or on a topic. */
export type MayAlter = (topic: string | null) => boolean;
const ALWAYS: MayAlter = () => true;

/** AlterConfigs (legacy): one result per resource, in request order. */
export function legacyAlterConfigs(b: BrokerServices, resources: readonly AlterResourceInput[], validateOnly: boolean, mayAlter: MayAlter = ALWAYS): AlterResult[] {
  return alterConfigs(b, resources, validateOnly, false, mayAlter);
}

function alterConfigs(b: BrokerServices, resources: readonly AlterResourceInput[], validateOnly: boolean, incremental: boolean, mayAlter: MayAlter): AlterResult[] {
  const results: Array<AlterResult | undefined> = resources.map(() => undefined);
  // ConfigAdminManager.preprocess: a resource given twice fails, both times. (For AlterConfigs
  // Kafka 3.9.1 then fails to build its answer -- AlterConfigsResponse.errorCounts maps the
  // results by resource -- and never answers; kmock answers what the broker meant to.)
  const seen = new Map<string, number>();
  resources.forEach((r, i) => {
    const key = `${r.resourceType}\u0000${r.resourceName}`;
    const previous = seen.get(key);
    seen.set(key, i);
    if (previous !== undefined) {
      const dup = { code: ErrorCode.INVALID_REQUEST, message: 'Each resource must appear at most once.' };
      results[previous] = dup;
      results[i] = dup;
    }
  });
  const forwarded: number[] = [];
  resources.forEach((r, i) => {
    if (results[i] !== undefined) return;
    const pre = attempt(() => preprocess(b, r, validateOnly, incremental, mayAlter));
    if (pre !== FORWARD) results[i] = pre;
    else if (!mayAlter(r.resourceType === ConfigResourceType.TOPIC ? r.resourceName : null)) results[i] = denied(r.resourceType);
    else forwarded.push(i);
  });
  // The controller: an unknown operation on a forwarded resource throws (NullPointerException
  // on the missing OpType) out of the whole controller event, so every forwarded resource gets
  // UNKNOWN_SERVER_ERROR and nothing changes.
  if (incremental && forwarded.some((i) => resources[i].configs.some((c) => OP_NAMES[c.configOperation ?? 0] === undefined))) {
    for (const i of forwarded) results[i] = { code: ErrorCode.UNKNOWN_SERVER_ERROR, message: null };
    return results as AlterResult[];
  }
  const commits: Commit[] = [];
  for (const i of forwarded) {
    results[i] = attempt(() => {
      commits.push(controllerAlter(b, resources[i], incremental));
      return OK;
    });
  }
  if (!validateOnly) for (const c of commits) c();
  return results as AlterResult[];
}

/** ControllerApis.authorizeAlterResource's answer: new ApiError(error), the error's default text. */
function denied(resourceType: number): AlterResult {
  return resourceType === ConfigResourceType.TOPIC
    ? { code: ErrorCode.TOPIC_AUTHORIZATION_FAILED, message: 'Topic authorization failed.' }
    : { code: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, message: 'Cluster authorization failed.' };
}

/** preprocess's answer for a resource it leaves to the controller. */
const FORWARD: AlterResult = { code: -2, message: null };

/**
 * ConfigAdminManager.preprocess for one resource. Always throws: the resource's answer (an error,
 * or OK for a BROKER_LOGGER change it made), or FORWARD when the controller takes it over.
 */
function preprocess(b: BrokerServices, r: AlterResourceInput, validateOnly: boolean, incremental: boolean, mayAlter: MayAlter): never {
  if (hasDuplicates(r.configs.map((c) => c.name))) invalidRequest('Error due to duplicate config keys');
  const nulls = r.configs.filter((c) => (!incremental || c.configOperation !== OpType.DELETE) && c.value === null).map((c) => c.name);
  if (nulls.length > 0) invalidRequest(`Null value not supported for : ${nulls.join(', ')}`);
  switch (r.resourceType) {
    case ConfigResourceType.BROKER_LOGGER:
      if (!incremental) break;
      // RuntimeLoggerManager throws ClusterAuthorizationException with the error's own text, which
      // ApiError.fromThrowable drops: no message.
      if (!mayAlter(null)) throw new Failure({ code: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, message: null });
      alterLoggers(b, r, validateOnly);
      throw new Failure(OK);
    case ConfigResourceType.BROKER: {
      if (r.resourceName !== '') validateResourceNameIsCurrentNodeId(b, r.resourceName);
      validateBrokerConfigChange(b, r, incremental);
      throw new Failure(FORWARD);
    }
    case ConfigResourceType.TOPIC:
    case ConfigResourceType.CLIENT_METRICS:
      throw new Failure(FORWARD);
  }
  return invalidRequest(`Unknown resource type ${r.resourceType}`);
}

/** ConfigAdminManager.validateResourceNameIsCurrentNodeId (Scala's String.toInt). */
function validateResourceNameIsCurrentNodeId(b: BrokerServices, name: string): void {
  const id = parseJavaInt(name);
  if (id === undefined) invalidRequest(`Node id must be an integer, but it is: ${name}`);
  if (id !== b.config.nodeId) invalidRequest(`Unexpected broker id, expected ${b.config.nodeId}, but received ${name}`);
}

// ---- BROKER_LOGGER (RuntimeLoggerManager) -------------------------------------------------------

function alterLoggers(b: BrokerServices, r: AlterResourceInput, validateOnly: boolean): void {
  const loggers = b.dynamicConfigs.loggers;
  const nodeId = b.config.nodeId;
  const id = parseJavaInt(r.resourceName);
  if (id === undefined) invalidRequest(`Node id must be an integer, but it is: ${r.resourceName}`);
  // (Kafka's message prints the node's own id twice.)
  if (id !== nodeId) invalidRequest(`Unexpected node id. Expected ${nodeId}, but received ${nodeId}`);
  const exists = (name: string) => {
    if (!loggers.exists(name)) invalidConfig(`Logger ${name} does not exist!`);
  };
  for (const c of r.configs) {
    switch (c.configOperation) {
      case OpType.SET:
        exists(c.name);
        if (!VALID_LOG_LEVELS.includes(c.value!)) {
          invalidConfig(
            `Cannot set the log level of ${c.name} to ${c.value} as it is not a supported log level. Valid log levels are ${VALID_LOG_LEVELS.join(', ')}`,
          );
        }
        break;
      case OpType.DELETE:
        exists(c.name);
        if (c.name === ROOT_LOGGER) invalidRequest(`Removing the log level of the ${ROOT_LOGGER} logger is not allowed`);
        break;
      case OpType.APPEND:
      case OpType.SUBTRACT:
        invalidRequest(`${OP_NAMES[c.configOperation]} operation is not allowed for the BROKER_LOGGER resource`);
        break;
      default:
        // OpType.forId gives null, and the switch on it throws NullPointerException.
        unknownServerError();
    }
  }
  if (validateOnly) return;
  for (const c of r.configs) {
    if (c.configOperation === OpType.SET) loggers.setLevel(c.name, c.value!);
    else loggers.unsetLevel(c.name);
  }
}

// ---- BROKER: the broker's own validation (ConfigAdminManager, DynamicBrokerConfig) ---------------

function scopeOf(name: string): BrokerConfigScope {
  return name === '' ? 'cluster-default' : 'broker';
}

/**
 * The dynamic configs of a BROKER resource: "" the cluster default, this node's id its per-broker
 * configs, another spelling of it ("01") configs Kafka stores and never applies.
 */
function brokerResourceConfigs(b: BrokerServices, name: string): ReadonlyMap<string, string> {
  if (name === '' || name === String(b.config.nodeId)) return b.dynamicConfigs.layer(scopeOf(name));
  return b.dynamicConfigs.otherBrokerResources.get(name) ?? new Map();
}

/** A LIST config's default as text (ConfigDef.convertToString of it), or null. */
function listDefault(key: { defaultValue: string | null } | undefined): string | null {
  return key?.defaultValue ?? null;
}

function validateBrokerConfigChange(b: BrokerServices, r: AlterResourceInput, incremental: boolean): void {
  const scope = scopeOf(r.resourceName);
  let props: Map<string, string>;
  if (incremental) {
    // The resource's current dynamic configs, then the changes (prepareIncrementalConfigs).
    props = new Map(brokerResourceConfigs(b, r.resourceName));
    for (const c of r.configs) {
      if (OP_NAMES[c.configOperation ?? 0] === undefined) invalidRequest(`Unknown operations type ${c.configOperation}`);
    }
    for (const c of r.configs) prepareIncrementalConfig(props, c.name, c.configOperation!, c.value);
  } else {
    props = new Map(r.configs.map((c) => [c.name, c.value!]));
  }
  validateDynamicBrokerConfigs(b, scope, props);
}

/** ConfigAdminManager.prepareIncrementalConfigs for one operation (KafkaConfig.configKeys). */
function prepareIncrementalConfig(props: Map<string, string>, name: string, op: number, value: string | null): void {
  switch (op) {
    case OpType.SET:
      props.set(name, value!);
      return;
    case OpType.DELETE:
      props.delete(name);
      return;
  }
  const verb = op === OpType.APPEND ? 'append' : 'subtract';
  const type = kafkaConfigType(name);
  // configKeys(name) on a Scala map: NoSuchElementException for a name KafkaConfig lacks.
  if (type === undefined) unknownServerError();
  if (type !== 'LIST') invalidConfig(`Config value ${verb} is not allowed for config key: ${name}`);
  const current = props.get(name) ?? listDefault(brokerConfigKey(name));
  if (op === OpType.APPEND) {
    const old = current === null || current === '' ? [] : javaSplitComma(current);
    const appended = javaSplitComma(value!).filter((v) => !old.includes(v));
    props.set(name, [...old, ...appended].join(','));
  } else {
    const old = javaSplitComma(current ?? '');
    // Scala's List.diff: each subtracted item removes one occurrence.
    for (const v of javaSplitComma(value!)) {
      const at = old.indexOf(v);
      if (at >= 0) old.splice(at, 1);
    }
    props.set(name, old.join(','));
  }
}

/** The ConfigException DynamicBrokerConfig.processReconfiguration wraps a component's refusal in. */
function invalidDynamicConfiguration(message: string): never {
  return invalidRequest(`Invalid value org.apache.kafka.common.config.ConfigException: ${message} for configuration Invalid dynamic configuration`);
}

/** The key ConfigDef knows for a dynamic broker config (catalog or quota). */
function dynamicKey(name: string): BrokerConfigKey | undefined {
  return brokerQuotaConfigKey(name) ?? brokerConfigKey(name);
}

/** Classes a JVM broker would load for CLASS configs: their defaults (kmock loads no classes). */
const KNOWN_CLASSES = new Set([
  'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder',
  'org.apache.kafka.common.security.ssl.DefaultSslEngineFactory',
]);
/** MetricsReporter classes on a broker's class path that kmock knows of. */
const KNOWN_METRICS_REPORTERS = new Set(['org.apache.kafka.common.metrics.JmxReporter']);

/** ConfigDef.parseType, plus the class loading a CLASS value gets. */
function parseBrokerValue(key: BrokerConfigKey, raw: string): { value: ConfigValue } | { error: string } {
  const p = parseType(key.name, raw, key.type);
  if ('error' in p) return p;
  if (key.type === 'CLASS' && !KNOWN_CLASSES.has(p.value as string)) {
    return { error: configException(key.name, raw, `Class ${p.value as string} could not be found.`) };
  }
  return p;
}

/** DynamicBrokerConfig.validate(props, perBrokerConfig): throws INVALID_REQUEST with Kafka's message. */
function validateDynamicBrokerConfigs(b: BrokerServices, scope: BrokerConfigScope, props: ReadonlyMap<string, string>): void {
  // The order of the java.util.Properties the names are read from.
  const names = javaHashOrder(props.keys());
  const perBroker = scope === 'broker';
  // validateConfigs
  const nonDynamic = names.filter(isNonDynamicBrokerConfig);
  if (nonDynamic.length > 0) invalidRequest(`Cannot update these configs dynamically: ${scalaSetString(nonDynamic)}`);
  const security = javaHashOrder(DYNAMIC_SECURITY_CONFIGS.filter((n) => props.has(n)));
  if (security.length > 0) {
    invalidRequest(`These security configs can be dynamically updated only per-listener using the listener prefix: ${scalaMutableSetString(security)}`);
  }
  // validateConfigTypes: listener configs checked as their base config; DynamicConfig.Broker's
  // ConfigDef parses its keys in definition order.
  const base = new Map<string, string>();
  for (const n of names) base.set(listenerBaseName(n) ?? n, props.get(n)!);
  for (const [name, validator] of DYNAMIC_BROKER_CONFIG_DEF) {
    const raw = base.get(name);
    if (raw === undefined) continue;
    const key = dynamicKey(name)!;
    const p = parseBrokerValue(key, raw);
    if ('error' in p) invalidRequest(p.error);
    const bad = validator?.(name, (p as { value: ConfigValue }).value, key.type);
    if (bad) invalidRequest(bad);
  }
  if (!perBroker) {
    const clusterLevelListenerConfigs = new Set(['max.connections', 'max.connection.creation.rate', 'num.network.threads']);
    const perBrokerOnly = [
      ...names.filter((n) => brokerConfigKey(n)?.perBroker === true || DYNAMIC_SECURITY_CONFIGS.includes(n)),
      ...names.filter((n) => {
        const baseName = listenerBaseName(n);
        return baseName !== undefined && !clusterLevelListenerConfigs.has(baseName);
      }),
    ];
    if (perBrokerOnly.length > 0) {
      invalidRequest(`Cannot update these configs at default cluster level, broker id must be specified: ${scalaSetString([...new Set(perBrokerOnly)])}`);
    }
  }
  const next = new BrokerView(brokerProps(b, scope, props));
  const current = new BrokerView(brokerProps(b));
  validateKafkaConfig(b, next);
  validateReconfiguration(b, current, next);
}

/**
 * The props a KafkaConfig is built from (DynamicBrokerConfig.validatedKafkaProps): the static
 * configuration with the cluster default and the per-broker configs over it, `layer` standing in
 * for the configs of `scope`.
 */
function brokerProps(b: BrokerServices, scope?: BrokerConfigScope, layer?: ReadonlyMap<string, string>): Map<string, string> {
  const props = staticBrokerConfigs(b);
  overrideProps(props, scope === 'cluster-default' && layer ? layer : b.dynamicConfigs.clusterDefault);
  overrideProps(props, scope === 'broker' && layer ? layer : b.dynamicConfigs.perBroker);
  return props;
}

/** A broker config set (static and dynamic layers) read as KafkaConfig reads its values. */
class BrokerView {
  constructor(readonly props: ReadonlyMap<string, string>) {}

  parsed(name: string): ConfigValue | null {
    const key = dynamicKey(name) ?? brokerConfigKey(name);
    if (key === undefined) return null;
    const text = this.props.get(name) ?? key.defaultValue;
    if (text === null) return null;
    const p = parseType(name, text, key.type);
    if (!('error' in p)) return p.value;
    const d = key.defaultValue === null ? null : parseType(name, key.defaultValue, key.type);
    return d === null || 'error' in d ? null : d.value;
  }

  long(name: string): bigint | null {
    const v = this.parsed(name);
    return v === null ? null : BigInt(v as number | bigint);
  }

  int(name: string): number {
    return Number(this.parsed(name));
  }

  text(name: string): string | null {
    const v = this.parsed(name);
    const key = brokerConfigKey(name);
    return v === null || key === undefined ? null : convertToString(v, key.type);
  }
}

/** The checks new KafkaConfig(props) makes that dynamic configs can fail (KafkaConfig.validateValues). */
function validateKafkaConfig(b: BrokerServices, c: BrokerView): void {
  const requirement = (ok: boolean, message: string) => {
    if (!ok) invalidRequest(`requirement failed: ${message}`);
  };
  const listeners = c.props.get('listeners');
  if (listeners !== undefined && listeners !== staticBrokerConfigs(b).get('listeners')) {
    // kmock's static listeners stand for a combined node whose CONTROLLER listener Kafka keeps
    // in the same setting: a value without one fails KafkaConfig's KRaft checks.
    const names = javaTrim(listeners)
      .split(',')
      .map((l) => javaTrim(l).split('://')[0]);
    requirement(
      names.includes('CONTROLLER'),
      "controller.listener.names must contain at least one value appearing in the 'listeners' configuration when running the KRaft controller role",
    );
  }
  const rollMs = c.long('log.roll.ms') ?? BigInt(c.int('log.roll.hours')) * 3_600_000n;
  requirement(rollMs >= 1n, 'log.roll.ms must be greater than or equal to 1');
  const jitterMs = c.long('log.roll.jitter.ms') ?? BigInt(c.int('log.roll.jitter.hours')) * 3_600_000n;
  requirement(jitterMs >= 0n, 'log.roll.jitter.ms must be greater than or equal to 0');
  const retention = retentionMillis((n) => c.props.get(n));
  requirement(retention >= 1n || retention === -1n, 'log.retention.ms must be unlimited (-1) or, greater than or equal to 1');
  const threads = c.int('log.cleaner.threads');
  // Scala's Long / Int: an ArithmeticException for no threads.
  if (threads === 0) invalidRequest('/ by zero');
  requirement(c.long('log.cleaner.dedupe.buffer.size')! / BigInt(threads) > 1024n * 1024n, 'log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.');
  const overrides = parseConnectionOverrides(c.text('max.connections.per.ip.overrides') ?? '');
  if (c.int('max.connections.per.ip') === 0) {
    requirement(overrides.size > 0, 'max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.');
  }
  const invalid = [...overrides.keys()].filter((address) => !validHostPattern(address));
  if (invalid.length > 0) invalidRequest(`max.connections.per.ip.overrides contains invalid addresses : ${invalid.join(',')}`);
}

/** KafkaConfig.maxConnectionsPerIpOverrides: CoreUtils.parseCsvMap, each value an Int. */
function parseConnectionOverrides(text: string): Map<string, number> {
  const m = new Map<string, number>();
  const t = javaTrim(text);
  if (t === '') return m;
  for (const entry of t.split(/\s*,\s*/)) {
    const i = entry.lastIndexOf(':');
    if (i < 0) {
      invalidRequest(
        `Error parsing configuration property 'max.connections.per.ip.overrides': begin 0, end -1, length ${entry.length}`,
      );
    }
    const value = javaTrim(entry.slice(i + 1));
    const n = parseJavaInt(value);
    if (n === undefined) invalidRequest(`Error parsing configuration property 'max.connections.per.ip.overrides': For input string: "${value}"`);
    m.set(javaTrim(entry.slice(0, i)), n!);
  }
  return m;
}

/** Utils.validHostPattern: a host name or an IPv4/IPv6 address. */
function validHostPattern(address: string): boolean {
  return /^[0-9a-zA-Z\-%._:]*$/.test(address) && address !== '';
}

/** Dynamic thread count update validation (DynamicThreadPool, DataPlaneAcceptor). */
function validateThreadCount(name: string, oldValue: number, newValue: number): void {
  if (newValue === oldValue) return;
  const errorMsg = `Dynamic thread count update validation failed for ${name}=${newValue}`;
  if (newValue <= 0) invalidDynamicConfiguration(`${errorMsg}, value should be at least 1`);
  if (newValue < Math.trunc(oldValue / 2)) invalidDynamicConfiguration(`${errorMsg}, value should be at least half the current value ${oldValue}`);
  if (newValue > oldValue * 2) invalidDynamicConfiguration(`${errorMsg}, value should not be greater than double the current value ${oldValue}`);
}

/** DynamicLogConfig.ReconfigurableConfigs: the broker synonyms of topic configs, but log.message.format.version. */
const LOG_RECONFIGURABLE = new Set([
  'log.segment.bytes', 'log.roll.ms', 'log.roll.jitter.ms', 'log.index.size.max.bytes', 'log.flush.interval.messages',
  'log.flush.interval.ms', 'log.retention.bytes', 'log.retention.ms', 'message.max.bytes', 'log.index.interval.bytes',
  'log.cleaner.delete.retention.ms', 'log.cleaner.min.compaction.lag.ms', 'log.cleaner.max.compaction.lag.ms',
  'log.segment.delete.delay.ms', 'log.cleaner.min.cleanable.ratio', 'log.cleanup.policy', 'unclean.leader.election.enable',
  'min.insync.replicas', 'compression.type', 'compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level',
  'log.preallocate', 'log.message.timestamp.type', 'log.message.timestamp.difference.max.ms',
  'log.message.timestamp.before.max.ms', 'log.message.timestamp.after.max.ms', 'log.message.downconversion.enable',
  'log.local.retention.ms', 'log.local.retention.bytes',
]);

/** How many keys KafkaConfig's ConfigDef defines in Kafka 3.9.1 (the size of KafkaConfig.values). */
const KAFKA_CONFIG_COUNT = 328;

/** DynamicListenerConfig.ReconfigurableConfigs */
const LISTENER_RECONFIGURABLE = new Set([
  'advertised.listeners', 'listeners', 'listener.security.protocol.map', 'principal.builder.class', 'ssl.protocol',
  'ssl.provider', 'ssl.cipher.suites', 'ssl.enabled.protocols', 'ssl.keystore.type', 'ssl.keystore.location',
  'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.password',
  'ssl.keymanager.algorithm', 'ssl.trustmanager.algorithm', 'ssl.endpoint.identification.algorithm',
  'ssl.secure.random.implementation', 'ssl.client.auth', 'ssl.engine.factory.class', 'sasl.mechanism.inter.broker.protocol',
  'sasl.jaas.config', 'sasl.enabled.mechanisms', 'sasl.kerberos.service.name', 'sasl.kerberos.kinit.cmd',
  'sasl.kerberos.ticket.renew.window.factor', 'sasl.kerberos.ticket.renew.jitter', 'sasl.kerberos.min.time.before.relogin',
  'sasl.kerberos.principal.to.local.rules', 'sasl.login.refresh.window.factor', 'sasl.login.refresh.window.jitter',
  'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.buffer.seconds', 'max.connections',
  'max.connection.creation.rate', 'num.network.threads',
]);
/** SocketServer.ListenerReconfigurableConfigs and DataPlaneAcceptor.ListenerReconfigurableConfigs. */
const LISTENER_QUOTA_CONFIGS = new Set(['max.connections', 'max.connection.creation.rate', 'num.network.threads']);

/** The thread pools DynamicThreadPool resizes, in the order KafkaConfig.values (a HashMap of every config) iterates them. */
const THREAD_POOLS = javaHashOrder(['num.io.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads'], KAFKA_CONFIG_COUNT);

/**
 * DynamicBrokerConfig.processReconfiguration(validateOnly): when the new config differs from the
 * current one, each reconfigurable component whose configs changed checks the new values: the
 * listeners' connection quotas and network threads, the metric reporters, the thread pools, the
 * log defaults (local retention), the advertised listeners, the cleaner's threads.
 */
function validateReconfiguration(b: BrokerServices, current: BrokerView, next: BrokerView): void {
  const changed = new Set<string>();
  for (const [k, v] of next.props) if (current.props.get(k) !== v) changed.add(k);
  for (const k of current.props.keys()) if (!next.props.has(k)) changed.add(k);
  if (changed.size === 0) return;
  const touched = (names: Iterable<string>) => [...names].some((n) => changed.has(n));
  // The listeners' Reconfigurables (ConnectionQuotas, DataPlaneAcceptor), for PLAINTEXT.
  const listenerValue = (name: string) => next.props.get(`listener.name.plaintext.${name}`) ?? next.text(name);
  const currentListenerValue = (name: string) => current.props.get(`listener.name.plaintext.${name}`) ?? current.text(name);
  if (Number(listenerValue('max.connections')) <= 0) invalidDynamicConfiguration(`Invalid max.connections ${listenerValue('max.connections')}`);
  if (Number(listenerValue('max.connection.creation.rate')) <= 0) {
    invalidDynamicConfiguration(`Invalid max.connection.creation.rate ${listenerValue('max.connection.creation.rate')}`);
  }
  validateThreadCount('num.network.threads', Number(currentListenerValue('num.network.threads')), Number(listenerValue('num.network.threads')));
  // DynamicMetricsReporters: every reporter class must load.
  if (changed.has('metric.reporters')) {
    const reporters = (next.parsed('metric.reporters') as string[] | null) ?? [];
    if (reporters.some((r) => !KNOWN_METRICS_REPORTERS.has(r))) {
      invalidDynamicConfiguration(
        `Validation of dynamic config update of ${scalaSetString(javaHashOrder(changed))} failed with class class kafka.server.DynamicMetricsReporters`,
      );
    }
  }
  // BrokerDynamicThreadPool (and the controller's, for num.io.threads).
  if (touched(THREAD_POOLS)) {
    for (const name of THREAD_POOLS) validateThreadCount(name, current.int(name), next.int(name));
  }
  // DynamicLogConfig: local retention within retention.
  if (touched(LOG_RECONFIGURABLE)) {
    const retentionMs = retentionMillis((n) => next.props.get(n));
    const localMs = next.long('log.local.retention.ms')!;
    if (retentionMs !== -1n && localMs !== -2n) {
      if (localMs === -1n) {
        invalidDynamicConfiguration(configException('log.local.retention.ms', String(localMs), `Value must not be -1 as log.retention.ms value is set as ${retentionMs}.`));
      }
      if (localMs > retentionMs) {
        invalidDynamicConfiguration(configException('log.local.retention.ms', String(localMs), `Value must not be more than log.retention.ms property value: ${retentionMs}`));
      }
    }
    const retentionBytes = next.long('log.retention.bytes')!;
    const localBytes = next.long('log.local.retention.bytes')!;
    if (retentionBytes > -1n && localBytes !== -2n) {
      if (localBytes === -1n) {
        invalidDynamicConfiguration(configException('log.local.retention.bytes', String(localBytes), `Value must not be -1 as log.retention.bytes value is set as ${retentionBytes}.`));
      }
      if (localBytes > retentionBytes) {
        invalidDynamicConfiguration(configException('log.local.retention.bytes', String(localBytes), `Value must not be more than log.retention.bytes property value: ${retentionBytes}`));
      }
    }
  }
  // DynamicListenerConfig (any of its configs changed): the listener's other configs cannot
  // change (Kafka compares the new config's listener.name.plaintext.* configs with the static
  // ones: originalsWithPrefix reads the config's original properties, never the dynamic ones),
  // nor its security protocol, and a KRaft broker cannot change what it registered.
  if (touched(LISTENER_RECONFIGURABLE)) {
    const immutable = [...next.props.keys()].filter((n) => {
      if (!n.startsWith('listener.name.plaintext.')) return false;
      const rest = n.slice('listener.name.plaintext.'.length);
      return !DYNAMIC_SECURITY_CONFIGS.includes(rest) && !LISTENER_QUOTA_CONFIGS.has(rest);
    });
    if (immutable.length > 0) {
      invalidDynamicConfiguration('Configs cannot be updated dynamically for existing listener ListenerName(PLAINTEXT), restart broker or create a new listener for update');
    }
    const map = javaTrim(next.props.get('listener.security.protocol.map') ?? '');
    if (map !== '' && !map.split(/\s*,\s*/).includes('PLAINTEXT:PLAINTEXT')) {
      invalidDynamicConfiguration('Security protocol cannot be updated for existing listener ListenerName(PLAINTEXT)');
    }
    const advertised = (v: BrokerView) => javaTrim(v.props.get('advertised.listeners') ?? v.props.get('listeners') ?? '');
    if (advertised(next) !== advertised(current)) {
      invalidDynamicConfiguration('Advertised listeners cannot be altered when using a Raft-based metadata quorum.');
    }
  }
  // LogCleaner: its thread count changes by at most a factor of two.
  if (changed.has('log.cleaner.threads')) {
    const threads = next.int('log.cleaner.threads');
    const currentThreads = current.int('log.cleaner.threads');
    if (threads < 1) invalidDynamicConfiguration('Log cleaner threads should be at least 1');
    if (threads < Math.trunc(currentThreads / 2)) {
      invalidDynamicConfiguration(`Log cleaner threads cannot be reduced to less than half the current value ${currentThreads}`);
    }
    if (threads > currentThreads * 2) {
      invalidDynamicConfiguration(`Log cleaner threads cannot be increased to more than double the current value ${currentThreads}`);
    }
  }
}

// ---- the controller (ConfigurationControlManager) ------------------------------------------------

/** The configs a resource has now, as the controller's metadata holds them. */
function currentConfigs(b: BrokerServices, r: AlterResourceInput): ReadonlyMap<string, string> {
  switch (r.resourceType) {
    case ConfigResourceType.TOPIC:
      return b.topics.get(r.resourceName)?.configs ?? new Map();
    case ConfigResourceType.BROKER:
      return brokerResourceConfigs(b, r.resourceName);
    default:
      return b.dynamicConfigs.clientMetrics.get(r.resourceName) ?? new Map();
  }
}

/** KafkaConfigSchema.isSplittable: a LIST config of the resource's schema (client metrics have none). */
function isSplittable(resourceType: number, name: string): boolean {
  if (resourceType === ConfigResourceType.TOPIC) return topicConfigKey(name)?.type === 'LIST';
  if (resourceType === ConfigResourceType.BROKER) return kafkaConfigType(name) === 'LIST';
  return false;
}

/** KafkaConfigSchema.getDefault */
function schemaDefault(resourceType: number, name: string): string | null {
  if (resourceType === ConfigResourceType.TOPIC) return topicConfigKey(name)?.defaultValue ?? null;
  if (resourceType === ConfigResourceType.BROKER) return brokerConfigKey(name)?.defaultValue ?? null;
  return null;
}

/**
 * ConfigurationControlManager.incrementalAlterConfigResource / legacyAlterConfigResource, then
 * validateAlterConfig: throws the resource's error, or returns the change to make.
 */
function controllerAlter(b: BrokerServices, r: AlterResourceInput, incremental: boolean): Commit {
  const existing = currentConfigs(b, r);
  const next = new Map(existing);
  if (incremental) {
    // The changes by name, in the HashMap's order.
    const byName = new Map(r.configs.map((c) => [c.name, c]));
    for (const name of javaHashOrder(byName.keys())) {
      const c = byName.get(name)!;
      const op = c.configOperation!;
      let value: string | null = next.get(name) ?? null;
      switch (op) {
        case OpType.SET:
          value = c.value;
          break;
        case OpType.DELETE:
          value = null;
          break;
        default: {
          if (!isSplittable(r.resourceType, name)) invalidConfig(`Can't ${OP_NAMES[op]} to key ${name} because its type is not LIST.`);
          const parts = javaSplitComma(value ?? schemaDefault(r.resourceType, name) ?? '').filter((p) => p !== '');
          for (const v of javaSplitComma(c.value!)) {
            if (op === OpType.APPEND) {
              if (!parts.includes(v)) parts.push(v);
            } else {
              const at = parts.indexOf(v);
              if (at >= 0) parts.splice(at, 1);
            }
          }
          value = parts.join(',');
        }
      }
      if (value === null) next.delete(name);
      else next.set(name, value);
    }
  } else {
    next.clear();
    for (const c of r.configs) next.set(c.name, c.value!);
  }
  switch (r.resourceType) {
    case ConfigResourceType.TOPIC:
      return alterTopic(b, r.resourceName, existing, next);
    case ConfigResourceType.BROKER: {
      const name = r.resourceName;
      if (name === '' || name === String(b.config.nodeId)) return () => b.dynamicConfigs.replace(scopeOf(name), next);
      return () => {
        if (next.size === 0) b.dynamicConfigs.otherBrokerResources.delete(name);
        else b.dynamicConfigs.otherBrokerResources.set(name, next);
      };
    }
    default:
      validateClientMetrics(r.resourceName, next);
      return () => b.dynamicConfigs.setClientMetrics(r.resourceName, next);
  }
}

/** ControllerConfigurationValidator for a topic, then the existence check. */
function alterTopic(b: BrokerServices, name: string, existing: ReadonlyMap<string, string>, next: Map<string, string>): Commit {
  if (name === '') invalidRequest('Default topic resources are not allowed.');
  const bad = invalidTopicNameMessage(name);
  if (bad !== null) fail(ErrorCode.INVALID_TOPIC_EXCEPTION, bad);
  const invalid = validateTopicConfigs(next, (n) => b.dynamicConfigs.topicDefault(n));
  if (invalid !== null) invalidConfig(invalid);
  const topic = b.topics.get(name);
  if (topic === undefined) fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
  return () => {
    const configs = topic!.configs;
    for (const k of [...configs.keys()]) if (!next.has(k)) configs.delete(k);
    // Stored as LogConfig parses them (as CreateTopics stores them), so readers see clean values.
    for (const [k, v] of next) {
      const normalized = normalizedTopicValue(topicConfigKey(k)!, v);
      if (existing.get(k) !== normalized) configs.set(k, normalized);
    }
  };
}

/** ClientMetricsConfigs.validate */
function validateClientMetrics(name: string, props: ReadonlyMap<string, string>): void {
  if (name === '') invalidRequest("Subscription name can't be empty");
  for (const k of javaHashOrder(props.keys())) {
    if (k !== 'metrics' && k !== 'interval.ms' && k !== 'match') invalidRequest(`Unknown client metrics configuration: ${k}`);
  }
  const interval = props.get('interval.ms');
  if (interval !== undefined) {
    // Integer.parseInt: a NumberFormatException, which the controller answers UNKNOWN_SERVER_ERROR.
    const n = /^[+-]?\d+$/.test(interval) ? parseJavaInt(interval) : undefined;
    if (n === undefined) unknownServerError();
    if (n! < 100 || n! > 3600000) invalidRequest(`Invalid value ${n} for interval.ms, interval must be between 100 and 3600000 (1 hour)`);
  }
  const match = props.get('match');
  if (match !== undefined) {
    for (const pattern of javaSplitComma(match)) {
      // String.split("="): trailing empty strings dropped.
      const pair = pattern.split('=');
      while (pair.length > 0 && pair[pair.length - 1] === '') pair.pop();
      const illegal = () => invalidConfig(`Illegal client matching pattern: ${pattern}`);
      if (pair.length !== 2) illegal();
      const param = javaTrim(pair[0]);
      if (!CLIENT_MATCH_PARAMS.has(param)) illegal();
      try {
        // java.util.regex.Pattern.compile; JavaScript's syntax is close enough to tell bad patterns.
        new RegExp(javaTrim(pair[1]));
      } catch {
        illegal();
      }
    }
  }
}

/** ClientMetricsConfigs.ALLOWED_MATCH_PARAMS */
const CLIENT_MATCH_PARAMS = new Set([
  'client_instance_id',
  'client_id',
  'client_software_name',
  'client_software_version',
  'client_source_address',
  'client_source_port',
]);
