// Topic administration as Apache Kafka 3.9 does it in KRaft mode with one broker: the rules behind
// CreateTopics, DeleteTopics and CreatePartitions, shared by their handlers. The configs they
// check and report are the catalog's in ../config/ (topic-configs.ts, describe.ts).
//
// Where each rule comes from (Kafka 3.9 sources):
//  - request-level checks (duplicates, __cluster_metadata, name/id resolution for deletes):
//    core/.../server/ControllerApis.scala (createTopics, deleteTopics, createPartitions);
//  - per-topic rules and their messages: metadata/.../controller/ReplicationControlManager.java
//    (createTopics/createTopic, validateNewTopicNames, computeConfigChanges, deleteTopics,
//    createPartitions, validateManualPartitionAssignment) and StripedReplicaPlacer.java;
//  - topic config validation: ConfigurationControlManager.incrementalAlterConfig ->
//    ControllerConfigurationValidator -> storage/.../log/LogConfig.validate (topic-configs.ts);
//  - effective configs returned by CreateTopics v5+: metadata/.../KafkaConfigSchema.java
//    (describe.ts);
//  - the controller's limits: a request whose deadline (now + timeoutMs) has passed before the
//    controller runs it times out as a whole (KafkaEventQueue), and one controller operation may
//    write at most 10000 records (QuorumController.MAX_RECORDS_PER_USER_OP).
import type { BrokerServices } from '../services.js';
import { effectiveTopicConfigs, type EffectiveTopicConfig } from '../config/describe.js';
import { normalizedTopicValue, topicConfigKey, validateTopicConfigs } from '../config/topic-configs.js';
import type { Topic } from './topics.js';
import { ErrorCode, ZERO_UUID } from '../../codec/index.js';

// ---- errors -------------------------------------------------------------------------------------

/** Kafka's ApiError: a code and a message (null when Kafka sends none). */
export interface ApiError {
  code: number;
  message: string | null;
}

export const NO_ERROR: ApiError = { code: ErrorCode.NONE, message: null };

function apiError(code: number, message: string | null = null): ApiError {
  return { code, message };
}

/** Errors.X.message() for the errors whose default text Kafka puts in responses. */
export const DEFAULT_ERROR_MESSAGE = {
  INVALID_REQUEST:
    'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  TOPIC_DELETION_DISABLED: 'Topic deletion is disabled.',
} as const;

/** QuorumController.MAX_RECORDS_PER_USER_OP: records one controller operation may write. */
export const MAX_RECORDS_PER_USER_OP = 10000;

/** Topic.CLUSTER_METADATA_TOPIC_NAME: CreateTopics refuses it. */
export const CLUSTER_METADATA_TOPIC_NAME = '__cluster_metadata';

/**
 * The controller handles an operation only if its deadline (now + timeoutMs) has not passed when
 * it gets to run it: with timeoutMs <= 0 it always has, and the whole request gets
 * REQUEST_TIMED_OUT without being carried out (KafkaEventQueue deadline handling).
 */
export function controllerDeadlinePassed(timeoutMs: number): boolean {
  return timeoutMs <= 0;
}

// ---- topic names --------------------------------------------------------------------------------

const MAX_NAME_LENGTH = 249;

/** Topic.validate's message ("Topic name is invalid: ..."), or null for a legal name. */
export function invalidTopicNameMessage(name: string): string | null {
  let reason: string | null = null;
  if (name.length === 0) reason = 'the empty string is not allowed';
  else if (name === '.') reason = "'.' is not allowed";
  else if (name === '..') reason = "'..' is not allowed";
  else if (name.length > MAX_NAME_LENGTH) reason = `the length of '${name}' is longer than the max allowed length ${MAX_NAME_LENGTH}`;
  else if (!/^[a-zA-Z0-9._-]+$/.test(name)) {
    reason = `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return reason === null ? null : `Topic name is invalid: ${reason}`;
}

function hasCollisionChars(name: string): boolean {
  return name.includes('_') || name.includes('.');
}

// ---- topic config validation (CreateTopics) --------------------------------------------------------

export interface ConfigInput {
  name: string;
  value: string | null;
}

/**
 * What the controller says about a new topic's configs: computeConfigChanges (null values), then
 * LogConfig.validate (unknown names, then every key parsed and checked in definition order, then
 * the cross-key checks). Null when they are valid.
 */
export function validateNewTopicConfigs(configs: readonly ConfigInput[], brokerValue?: (name: string) => string | undefined): ApiError | null {
  const nulls = configs.filter((c) => c.value === null).map((c) => c.name);
  if (nulls.length > 0) {
    return apiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`);
  }
  // The cross-key checks (the compaction lags) read the broker's value of a config the topic does not set.
  const invalid = validateTopicConfigs(configMap(configs), brokerValue);
  return invalid === null ? null : apiError(ErrorCode.INVALID_CONFIG, invalid);
}

/** Config entries as the controller records them: one value per name, the last one given. */
function configMap(configs: readonly ConfigInput[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const c of configs) if (c.value !== null) m.set(c.name, c.value);
  return m;
}

// ---- CreateTopics --------------------------------------------------------------------------------

export interface CreatableTopicInput {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: ReadonlyArray<{ partitionIndex: number; brokerIds: readonly number[] }>;
  configs: readonly ConfigInput[];
}

export interface CreateTopicResult {
  name: string;
  error: ApiError;
  /** ZERO_UUID unless created (validateOnly still gets a fresh id, as from Kafka). */
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
  configs: EffectiveTopicConfig[];
  /** v5+: TOPIC_AUTHORIZATION_FAILED when created but the principal may not DESCRIBE_CONFIGS (no counts, no configs). */
  topicConfigErrorCode: number;
}

function failedCreate(name: string, error: ApiError): CreateTopicResult {
  return { name, error, topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: [], topicConfigErrorCode: 0 };
}

/** What the principal may do, as ControllerApis.handleCreateTopics passes it on (undefined: everything). */
export interface CreateTopicsAccess {
  /** Names it may CREATE (CREATE on the cluster: all). */
  creatable: ReadonlySet<string>;
  /** Names it may DESCRIBE_CONFIGS: the others' results carry no partitions, factor or configs. */
  describable: ReadonlySet<string>;
}

/** ReplicationControlManager.validateManualPartitionAssignment against this one broker. */
function validateManualAssignment(nodeId: number, brokerIds: readonly number[], replicationFactor?: number): ApiError | null {
  const bad = (m: string): ApiError => apiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, m);
  if (brokerIds.length === 0) return bad('The manual partition assignment includes an empty replica list.');
  const sorted = [...brokerIds].sort((a, b) => a - b);
  let prev: number | undefined;
  for (const id of sorted) {
    if (id !== nodeId) {
      return bad(`The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
    if (id === prev) return bad(`The manual partition assignment includes the broker ${prev} more than once.`);
    prev = id;
  }
  if (replicationFactor !== undefined && sorted.length !== replicationFactor) {
    return bad(
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not ` +
        `consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
  return null;
}

/** ReplicationControlManager.createTopic's checks: the partition count and replication, or why not. */
function planNewTopic(broker: BrokerServices, t: CreatableTopicInput): ApiError | { partitions: number; replicationFactor: number } {
  const nodeId = broker.config.nodeId;
  if (t.assignments.length > 0) {
    if (t.replicationFactor !== -1) {
      return apiError(
        ErrorCode.INVALID_REQUEST,
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    }
    if (t.numPartitions !== -1) {
      return apiError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
    }
    const parts = new Map<number, number>();
    let replicationFactor: number | undefined;
    for (const a of t.assignments) {
      if (parts.has(a.partitionIndex)) {
        return apiError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `Found multiple manual partition assignments for partition ${a.partitionIndex}`,
        );
      }
      const invalid = validateManualAssignment(nodeId, a.brokerIds, replicationFactor);
      if (invalid) return invalid;
      replicationFactor = a.brokerIds.length;
      // Every registered broker (this one) is active, so the ISR is never empty here.
      parts.set(a.partitionIndex, a.brokerIds.length);
    }
    for (let i = 0; i < parts.size; i++) {
      if (!parts.has(i)) {
        return apiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
      }
    }
    return { partitions: parts.size, replicationFactor: parts.get(0) ?? replicationFactor ?? 1 };
  }
  if (t.replicationFactor < -1 || t.replicationFactor === 0) {
    return apiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  }
  if (t.numPartitions < -1 || t.numPartitions === 0) {
    return apiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
  }
  const partitions = t.numPartitions === -1 ? broker.config.numPartitions : t.numPartitions;
  // The default replication factor is a short in the controller.
  const replicationFactor = t.replicationFactor === -1 ? toShort(broker.config.defaultReplicationFactor) : t.replicationFactor;
  // StripedReplicaPlacer.place with one registered, unfenced broker.
  if (replicationFactor <= 0) {
    return apiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): Invalid replication factor ${replicationFactor}: ` +
        'the replication factor must be positive.',
    );
  }
  if (replicationFactor > 1) {
    return apiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ` +
        `${replicationFactor} cannot be reached because only 1 broker(s) are registered.`,
    );
  }
  return { partitions, replicationFactor };
}

function toShort(n: number): number {
  return ((n & 0xffff) << 16) >> 16;
}

/**
 * CreateTopics as ControllerApis.createTopics and ReplicationControlManager.createTopics answer it.
 * Results come in request order, then the duplicate names, then __cluster_metadata.
 */
export function createTopics(
  broker: BrokerServices,
  topics: readonly CreatableTopicInput[],
  validateOnly: boolean,
  timeoutMs: number,
  access?: CreateTopicsAccess,
): CreateTopicResult[] {
  const store = broker.topics;
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const tail: CreateTopicResult[] = [];
  for (const [name, n] of counts) {
    if (n > 1) tail.push(failedCreate(name, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.')));
  }
  if (counts.get(CLUSTER_METADATA_TOPIC_NAME) === 1) {
    tail.push(
      failedCreate(
        CLUSTER_METADATA_TOPIC_NAME,
        apiError(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC_NAME} is prohibited.`),
      ),
    );
  }
  // Names the principal may not CREATE: TOPIC_AUTHORIZATION_FAILED, after the duplicates.
  for (const [name, n] of counts) {
    if (n === 1 && name !== CLUSTER_METADATA_TOPIC_NAME && access !== undefined && !access.creatable.has(name)) {
      tail.push(failedCreate(name, apiError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.')));
    }
  }
  const effective = topics.filter((t) => counts.get(t.name) === 1 && t.name !== CLUSTER_METADATA_TOPIC_NAME && (access === undefined || access.creatable.has(t.name)));
  if (effective.length === 0) return tail;
  if (controllerDeadlinePassed(timeoutMs)) {
    return topics.map((t) => failedCreate(t.name, apiError(ErrorCode.REQUEST_TIMED_OUT)));
  }

  const errors = new Map<string, ApiError>();
  // validateNewTopicNames: legal name, then no '.'/'_' collision with an existing topic.
  for (const t of effective) {
    const invalid = invalidTopicNameMessage(t.name);
    if (invalid !== null) errors.set(t.name, apiError(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid));
    if (hasCollisionChars(t.name)) {
      const other = store.collision(t.name);
      if (other) {
        errors.set(
          t.name,
          apiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${t.name}' collides with existing topic: ${other.name}`),
        );
      }
    }
  }
  for (const t of effective) {
    if (store.get(t.name)) errors.set(t.name, apiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`));
  }
  // computeConfigChanges: null config values.
  for (const t of effective) {
    if (errors.has(t.name)) continue;
    const nulls = t.configs.filter((c) => c.value === null).map((c) => c.name);
    if (nulls.length > 0) {
      errors.set(t.name, apiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`));
    }
  }

  const created = new Map<string, CreateTopicResult>();
  const toCreate: Array<{ name: string; partitions: number; replicationFactor: number; configs: Map<string, string> }> = [];
  let records = 0;
  for (const t of effective) {
    if (errors.has(t.name)) continue;
    const configError = validateNewTopicConfigs(t.configs, (n) => broker.dynamicConfigs.topicDefault(n));
    if (configError) {
      errors.set(t.name, configError);
      continue;
    }
    const plan = planNewTopic(broker, t);
    if ('code' in plan) {
      errors.set(t.name, plan);
      continue;
    }
    const configs = configMap(t.configs);
    // TopicRecord + one ConfigRecord per key + one PartitionRecord per partition.
    records += 1 + configs.size + plan.partitions;
    if (records > MAX_RECORDS_PER_USER_OP) {
      const tooLarge = apiError(ErrorCode.POLICY_VIOLATION, 'Unable to perform excessively large batch operation.');
      return topics.map((x) => failedCreate(x.name, tooLarge));
    }
    toCreate.push({ name: t.name, partitions: plan.partitions, replicationFactor: plan.replicationFactor, configs });
    const describable = access === undefined || access.describable.has(t.name);
    created.set(t.name, {
      name: t.name,
      error: NO_ERROR,
      // The controller draws an id even when it only validates.
      topicId: store.newTopicId(t.name),
      numPartitions: describable ? plan.partitions : -1,
      replicationFactor: describable ? plan.replicationFactor : -1,
      configs: describable ? effectiveTopicConfigs(broker, configs) : [],
      topicConfigErrorCode: describable ? 0 : ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    });
  }
  if (!validateOnly) {
    for (const c of toCreate) {
      // Stored as LogConfig parses them (trimmed, lists joined with ','), so readers of
      // Topic.configs see clean values; the CreateTopics answer above keeps them as given.
      const normalized = new Map([...c.configs].map(([k, v]) => [k, normalizedTopicValue(topicConfigKey(k)!, v)]));
      const topic = store.create(c.name, c.partitions, c.replicationFactor, normalized);
      created.get(c.name)!.topicId = topic.id;
      broker.log.info({ topic: c.name, partitions: c.partitions }, 'topic created');
    }
  }
  const results = effective.map((t) => created.get(t.name) ?? failedCreate(t.name, errors.get(t.name)!));
  return [...results, ...tail];
}

// ---- DeleteTopics --------------------------------------------------------------------------------

export interface DeleteTopicResult {
  name: string | null;
  topicId: string;
  error: ApiError;
}

/**
 * Removes a topic and its partitions. Like Kafka's ReplicaManager when it stops deleted
 * partitions (completeDelayedFetchOrProduceRequests), fetches waiting on them are woken so they
 * answer now instead of at their max wait; then the deletion is announced (services.ts
 * TopicDeletions: the group coordinator drops the partitions' committed offsets).
 */
export function removeTopic(broker: BrokerServices, topic: Topic): void {
  if (broker.topics.get(topic.name) !== topic) return;
  broker.topics.delete(topic.name);
  const count = topic.partitions.length;
  topic.partitions.splice(0);
  for (let p = 0; p < count; p++) broker.fetchWaiters.notify(topic.name, p);
  const partitions = Array.from({ length: count }, (_, partition) => ({ topic: topic.name, partition }));
  broker.topicDeletions.deleted(partitions);
  broker.log.info({ topic: topic.name, partitions: count }, 'topic deleted');
}

/**
 * DeleteTopics as ControllerApis.deleteTopics answers it: `topicNames` (v0-5) and `topics`
 * (v6, by name or by id). Kafka shuffles the results; kmock keeps them in request order.
 */
export function deleteTopics(
  broker: BrokerServices,
  topicNames: readonly string[],
  topics: ReadonlyArray<{ name: string | null; topicId: string }>,
  apiVersion: number,
  timeoutMs: number,
  access?: (names: readonly string[]) => DeleteTopicsAccess,
): DeleteTopicResult[] {
  const requested = [...topicNames.map((name) => ({ name: name as string | null, topicId: ZERO_UUID })), ...topics];
  if (!broker.config.deleteTopicEnable) {
    // Thrown before anything else; the error response carries no message.
    const code = apiVersion < 3 ? ErrorCode.INVALID_REQUEST : ErrorCode.TOPIC_DELETION_DISABLED;
    return requested.map((t) => ({ name: t.name, topicId: t.topicId, error: apiError(code) }));
  }
  const responses: DeleteTopicResult[] = [];
  const append = (name: string | null, topicId: string, error: ApiError): void => {
    responses.push({ name, topicId, error });
  };
  const providedNames = new Set<string>();
  const duplicateNames = new Set<string>();
  const providedIds = new Set<string>();
  const duplicateIds = new Set<string>();
  const addName = (name: string): void => {
    if (duplicateNames.has(name) || providedNames.has(name)) {
      duplicateNames.add(name);
      providedNames.delete(name);
    } else providedNames.add(name);
  };
  for (const name of topicNames) addName(name);
  for (const t of topics) {
    if (t.name === null) {
      if (t.topicId === ZERO_UUID) append(null, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'));
      else if (duplicateIds.has(t.topicId) || providedIds.has(t.topicId)) {
        duplicateIds.add(t.topicId);
        providedIds.delete(t.topicId);
      } else providedIds.add(t.topicId);
    } else if (t.topicId === ZERO_UUID) addName(t.name);
    else append(t.name, t.topicId, apiError(ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'));
  }
  for (const name of duplicateNames) append(name, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
  for (const id of duplicateIds) append(null, id, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'));
  if ((providedIds.size > 0 || providedNames.size > 0) && controllerDeadlinePassed(timeoutMs)) {
    return requested.map((t) => ({ name: t.name, topicId: t.topicId, error: apiError(ErrorCode.REQUEST_TIMED_OUT) }));
  }
  const idToTopic = new Map<string, Topic>();
  for (const id of providedIds) {
    const t = broker.topics.getById(id);
    if (t) idToTopic.set(id, t);
    else append(null, id, apiError(ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.'));
  }
  // What the principal may see and delete, by name (the authorizer knows no ids). A topic given by
  // id it may not delete is named only when it may describe it; one given by name it may not
  // describe is refused before its existence is looked at.
  const allowed = access?.([...providedNames, ...[...idToTopic.values()].map((t) => t.name)]);
  const denied = apiError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.');
  if (allowed !== undefined) {
    for (const [id, t] of idToTopic) {
      if (allowed.deletable.has(t.name)) continue;
      append(allowed.describable.has(t.name) ? t.name : null, id, denied);
      idToTopic.delete(id);
    }
  }
  for (const name of providedNames) {
    const t = broker.topics.get(name);
    if (allowed !== undefined && !allowed.describable.has(name)) {
      append(name, ZERO_UUID, denied);
    } else if (!t) {
      // new ApiError(UNKNOWN_TOPIC_OR_PARTITION) carries the error's default text (conformance run vs 3.9.1).
      append(name, ZERO_UUID, apiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'));
    } else if (allowed !== undefined && !allowed.deletable.has(name)) {
      append(name, ZERO_UUID, denied);
    } else if (duplicateIds.has(t.id) || idToTopic.has(t.id)) {
      duplicateIds.add(t.id);
      idToTopic.delete(t.id);
      append(name, t.id, apiError(ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'));
    } else idToTopic.set(t.id, t);
  }
  for (const [id, t] of idToTopic) {
    removeTopic(broker, t);
    append(t.name, id, NO_ERROR);
  }
  // Request order: by the first request entry naming the topic (by name or by id).
  const position = (r: DeleteTopicResult): number => {
    const i = requested.findIndex(
      (q) =>
        (r.name !== null && q.name === r.name) ||
        (r.topicId !== ZERO_UUID && q.topicId === r.topicId) ||
        (r.name === null && r.topicId === ZERO_UUID && q.name === null && q.topicId === ZERO_UUID),
    );
    return i < 0 ? requested.length : i;
  };
  return responses.map((r, i) => ({ r, p: position(r), i })).sort((a, b) => a.p - b.p || a.i - b.i).map((x) => x.r);
}

/** The topics the principal may DESCRIBE and DELETE (ControllerApis.deleteTopics; DELETE on the cluster: all). */
export interface DeleteTopicsAccess {
  describable: ReadonlySet<string>;
  deletable: ReadonlySet<string>;
}

// ---- CreatePartitions ----------------------------------------------------------------------------

export interface CreatePartitionsInput {
  name: string;
  count: number;
  assignments: ReadonlyArray<{ brokerIds: readonly number[] }> | null;
}

export interface CreatePartitionsResult {
  name: string;
  error: ApiError;
}

/**
 * CreatePartitions as ControllerApis.createPartitions and ReplicationControlManager.createPartitions
 * answer it. Duplicate names come first, then the topics in request order.
 */
export function createPartitions(
  broker: BrokerServices,
  topics: readonly CreatePartitionsInput[],
  validateOnly: boolean,
  timeoutMs: number,
  /** The names the principal may ALTER (undefined: all); the others are TOPIC_AUTHORIZATION_FAILED. */
  alterable?: ReadonlySet<string>,
): CreatePartitionsResult[] {
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const results: CreatePartitionsResult[] = [];
  for (const [name, n] of counts) {
    if (n > 1) results.push({ name, error: apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.') });
  }
  for (const [name, n] of counts) {
    if (n === 1 && alterable !== undefined && !alterable.has(name)) results.push({ name, error: apiError(ErrorCode.TOPIC_AUTHORIZATION_FAILED) });
  }
  const unique = topics.filter((t) => counts.get(t.name) === 1 && (alterable === undefined || alterable.has(t.name)));
  if (unique.length === 0) return results;
  if (controllerDeadlinePassed(timeoutMs)) {
    return topics.map((t) => ({ name: t.name, error: apiError(ErrorCode.REQUEST_TIMED_OUT) }));
  }
  let recordBudget = MAX_RECORDS_PER_USER_OP;
  for (const t of unique) {
    const fail = (code: number, message: string | null = null): void => {
      results.push({ name: t.name, error: apiError(code, message) });
    };
    const topic = broker.topics.get(t.name);
    if (!topic) {
      fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      continue;
    }
    const size = topic.partitions.length;
    if (t.count === size) {
      fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${size} partition(s).`);
      continue;
    }
    if (t.count < size) {
      fail(ErrorCode.INVALID_PARTITIONS, `The topic ${t.name} currently has ${size} partition(s); ${t.count} would not be an increase.`);
      continue;
    }
    const additional = t.count - size;
    if (t.assignments !== null && t.assignments.length !== additional) {
      fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Attempted to add ${additional} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`,
      );
      continue;
    }
    // Every partition kmock has is on this one broker: one replica.
    const replicationFactor = 1;
    let invalid: ApiError | null = null;
    for (const a of t.assignments ?? []) {
      invalid = validateManualAssignment(broker.config.nodeId, a.brokerIds, replicationFactor);
      if (invalid) break;
    }
    if (invalid) {
      results.push({ name: t.name, error: invalid });
      continue;
    }
    // One PartitionRecord per new partition. Past the controller's record limit the records
    // already added stay in the batch and the topic's result is the unexpected error.
    const fits = Math.min(additional, recordBudget);
    recordBudget -= fits;
    if (!validateOnly && fits > 0) {
      topic.addPartitions(size + fits);
      broker.log.info({ topic: t.name, partitions: size + fits }, 'partitions added');
    }
    if (fits < additional) fail(ErrorCode.UNKNOWN_SERVER_ERROR);
    else results.push({ name: t.name, error: NO_ERROR });
  }
  return results;
}
