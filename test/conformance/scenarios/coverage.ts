// APIs that had no differential scenario of their own (issue #10): DeleteRecords v0-2 (21),
// InitProducerId v0-5 for idempotent producers (22), DescribeConfigs v2-3 (32), SaslHandshake /
// SaslAuthenticate v0-1 on a PLAINTEXT listener (17, 36), CreatePartitions v0 (37). Each names the
// Kafka test it mirrors; the expected codes come from Kafka 3.9's source (cited per scenario).
//
// Transactional InitProducerId is left out on purpose: kmock has no transaction coordinator yet
// (find-coordinator.ts, init-producer-id.ts) and answers it differently; the transactions issue
// adds those scenarios.
import type { Ctx, Scenario } from '../runner.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { E, createTopic, length, nonEmptyString, notSame, scenario, send } from './dsl.js';

const tag = (tags: string[]) => (s: Scenario): Scenario => ({ ...s, tags, groups: s.groups ?? [] });
const T0 = 1_700_000_000_000;

/** Error codes the scenarios below need beyond dsl.ts's `E` (Errors.java). */
const X = {
  ILLEGAL_SASL_STATE: 34,
  INVALID_REPLICA_ASSIGNMENT: 39,
  POLICY_VIOLATION: 44,
} as const;

// ---- DeleteRecords ---------------------------------------------------------------------------

/** A v2 batch of `n` records "v<base+i>" (fixed timestamps). */
const batch = (n: number, base = 0) =>
  encodeBatch({ baseTimestamp: T0 + base, records: Array.from({ length: n }, (_, i) => ({ key: `k${base + i}`, value: `v${base + i}`, timestampDelta: i })) });

/**
 * A partition the controller just created may not be ready on the broker yet (Metadata lists it a
 * moment before the replica exists): NOT_LEADER_OR_FOLLOWER, which producers retry.
 */
const notReadyRetry = {
  retry: { while: (r: { responses: Array<{ partitionResponses: Array<{ errorCode: number }> }> }) => r.responses.some((t) => t.partitionResponses.some((p) => p.errorCode === E.NOT_LEADER_OR_FOLLOWER)), delayMs: 100, max: 30 },
};

const produce = (n: number, base: number, topic?: string) =>
  send('a', 0, 9, (c: Ctx) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: c.t(topic), partitionData: [{ index: 0, records: batch(n, base) }] }] }), {
    expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: base }] }] },
    label: `produce ${n} at ${base}${topic ? ` to ${topic}` : ''}`,
    ...notReadyRetry,
  });

const deleteRecords = (v: number, partitions: Array<[partition: number, offset: number]>, o: { topic?: string; name?: string; label?: string; expect?: unknown } = {}) =>
  send('a', 21, v, (c: Ctx) => ({ topics: [{ name: o.name ?? c.t(o.topic), partitions: partitions.map(([p, off]) => ({ partitionIndex: p, offset: off })) }], timeoutMs: 5000 }), {
    label: o.label ?? `delete-records before ${partitions.map(([p, off]) => `${p}:${off}`).join(',')}`,
    expect: o.expect as never,
  });
const deleted = (lowWatermark: number, partitionIndex = 0) => ({ topics: [{ partitions: [{ partitionIndex, errorCode: 0, lowWatermark }] }] });
const deleteFailed = (errorCode: number, partitionIndex = 0) => ({ topics: [{ partitions: [{ partitionIndex, errorCode, lowWatermark: -1 }] }] });

const earliest = (v: number, offset: number, topic?: string) =>
  send('a', 2, v, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(topic), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2, maxNumOffsets: 1 }] }] }), {
    label: `list-offsets earliest${topic ? ` ${topic}` : ''}`,
    expect: { topics: [{ partitions: [{ partitionIndex: 0, errorCode: 0, ...(v === 0 ? { oldStyleOffsets: [offset] } : { offset }) }] }] },
  });
const fetchAt = (v: number, offset: number, expect?: unknown, topic?: string) =>
  send('a', 1, v, (c: Ctx) => ({
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1048576,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic: c.t(topic), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }] }],
    forgottenTopicsData: [],
    rackId: '',
  }), { label: `fetch at ${offset}${topic ? ` ${topic}` : ''}`, expect: expect as never });
/** Fetch below the log start offset: OFFSET_OUT_OF_RANGE, and (v5+) no offsets (ReplicaManager.readFromLog's error result). */
const outOfRange = (v: number) => ({ responses: [{ partitions: [{ errorCode: E.OFFSET_OUT_OF_RANGE, highWatermark: -1, ...(v >= 5 ? { logStartOffset: -1 } : {}) }] }] });
const fetched = (highWatermark: number, logStartOffset: number, firstBaseOffset: number | null) => ({
  responses: [{ partitions: [{ errorCode: 0, highWatermark, logStartOffset, records: { batches: firstBaseOffset === null ? [] : length(1) } }] }],
});

// ---- InitProducerId --------------------------------------------------------------------------

const initPid = (
  v: number,
  o: { timeout?: number; pid?: (c: Ctx) => number; epoch?: (c: Ctx) => number; as?: string; label?: string; expect?: unknown } = {},
) =>
  send('a', 22, v, (c: Ctx) => ({ transactionalId: null, transactionTimeoutMs: o.timeout ?? 60000, producerId: o.pid ? o.pid(c) : -1, producerEpoch: o.epoch ? o.epoch(c) : -1 }), {
    label: o.label ?? `init-producer-id v${v}`,
    expect: o.expect as never,
    capture: (r, c) => {
      if (o.as && r.errorCode === 0) {
        c.set(o.as, Number(r.producerId));
        c.set(`${o.as}.epoch`, r.producerEpoch);
      }
    },
    // A broker that just started may have no producer-id block yet (ProducerIdManager):
    // COORDINATOR_LOAD_IN_PROGRESS, which clients retry.
    retry: { while: (r) => r.errorCode === E.COORDINATOR_LOAD_IN_PROGRESS, delayMs: 200, max: 50 },
  });
const newPid = (as: string) => ({ errorCode: 0, producerEpoch: 0, producerId: notSame(as) });

// ---- DescribeConfigs -------------------------------------------------------------------------

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const describe = (
  v: number,
  resources: (c: Ctx) => Array<{ resourceType: number; resourceName: string; configurationKeys: string[] | null }>,
  o: { synonyms?: boolean; documentation?: boolean; label?: string; expect?: unknown } = {},
) =>
  send('a', 32, v, (c: Ctx) => ({ resources: resources(c), includeSynonyms: o.synonyms ?? false, includeDocumentation: o.documentation ?? false }), {
    label: o.label,
    expect: o.expect as never,
  });
/** Kafka 3.9's LogConfig describes 36 topic configs. */
const TOPIC_CONFIG_COUNT = 36;
/** Topic configs given at creation in forms ConfigDef parses (trimmed, any case, exponent...). */
const FORMATTED: Array<[string, string]> = [
  ['index.interval.bytes', ' 4096 '],
  ['preallocate', 'TRUE'],
  ['min.cleanable.dirty.ratio', '1e-1'],
  ['flush.messages', '9223372036854775807'],
  ['cleanup.policy', 'compact, delete'],
  ['follower.replication.throttled.replicas', '*'],
  ['leader.replication.throttled.replicas', '0:1 , 1:1'],
  ['retention.ms', '-1'],
  ['local.retention.ms', '-2'],
  ['compression.gzip.level', '5'],
  ['segment.jitter.ms', '0'],
  ['unclean.leader.election.enable', 'False'],
];
/**
 * Broker configs both brokers describe alike: none of them is in the reference broker's
 * server.properties (scripts/kafka-reference writes num.partitions, listeners, log.dirs... there)
 * except the base settings, which kmock is given too.
 */
const BROKER_KEYS = [
  'message.max.bytes',
  'log.retention.ms',
  'log.retention.minutes',
  'log.retention.hours',
  'log.roll.ms',
  'log.roll.hours',
  'log.flush.interval.ms',
  'log.cleanup.policy',
  'compression.type',
  'min.insync.replicas',
  'log.segment.bytes',
  'num.io.threads',
  'unclean.leader.election.enable',
  'group.initial.rebalance.delay.ms',
  'offsets.topic.replication.factor',
  'broker.id',
  'node.id',
  'process.roles',
];

/** A described config as Kafka 3.9.1 answers it (ConfigHelper): synonyms as [name, value, source]. */
const cfg = (name: string, value: string | null, configSource: number, readOnly: boolean, synonyms: Array<[string, string | null, number]>, extra: Record<string, unknown> = {}) => ({
  name,
  value,
  readOnly,
  configSource,
  isSensitive: false,
  synonyms: synonyms.map(([n, v, source]) => ({ name: n, value: v, source })),
  ...extra,
});
/** ConfigSource ids (DescribeConfigsResponse.ConfigSource). */
const TOPIC_CONFIG = 1;
const STATIC_BROKER = 4;
const DEFAULT = 5;
/** BROKER_KEYS with includeSynonyms, in name order (the runner sorts configs by name). */
const BROKER_EXPECTED = [
  cfg('broker.id', '1', STATIC_BROKER, true, [['broker.id', '1', STATIC_BROKER], ['broker.id', '-1', DEFAULT]]),
  cfg('compression.type', 'producer', DEFAULT, false, [['compression.type', 'producer', DEFAULT]]),
  cfg('group.initial.rebalance.delay.ms', '150', STATIC_BROKER, true, [['group.initial.rebalance.delay.ms', '150', STATIC_BROKER], ['group.initial.rebalance.delay.ms', '3000', DEFAULT]]),
  cfg('log.cleanup.policy', 'delete', DEFAULT, false, [['log.cleanup.policy', 'delete', DEFAULT]]),
  cfg('log.flush.interval.ms', null, DEFAULT, false, []),
  cfg('log.retention.hours', '168', DEFAULT, true, [['log.retention.hours', '168', DEFAULT]]),
  // ConfigHelper.configSynonyms drops the synonyms before the described name: none left here.
  cfg('log.retention.minutes', null, DEFAULT, true, []),
  cfg('log.retention.ms', null, DEFAULT, false, []),
  cfg('log.roll.hours', '168', DEFAULT, true, [['log.roll.hours', '168', DEFAULT]]),
  cfg('log.roll.ms', null, DEFAULT, false, []),
  cfg('log.segment.bytes', '1073741824', DEFAULT, false, [['log.segment.bytes', '1073741824', DEFAULT]]),
  cfg('message.max.bytes', '1048588', DEFAULT, false, [['message.max.bytes', '1048588', DEFAULT]]),
  cfg('min.insync.replicas', '1', DEFAULT, false, [['min.insync.replicas', '1', DEFAULT]]),
  cfg('node.id', '1', STATIC_BROKER, true, [['node.id', '1', STATIC_BROKER], ['node.id', '-1', DEFAULT]]),
  cfg('num.io.threads', '8', DEFAULT, false, [['num.io.threads', '8', DEFAULT]]),
  cfg('offsets.topic.replication.factor', '1', STATIC_BROKER, true, [['offsets.topic.replication.factor', '1', STATIC_BROKER], ['offsets.topic.replication.factor', '3', DEFAULT]]),
  cfg('process.roles', 'broker,controller', STATIC_BROKER, true, [['process.roles', 'broker,controller', STATIC_BROKER], ['process.roles', '', DEFAULT]]),
  cfg('unclean.leader.election.enable', 'false', DEFAULT, false, [['unclean.leader.election.enable', 'false', DEFAULT]]),
];

/**
 * More broker configs kmock describes, none in the reference broker's server.properties: their
 * values, read-only flags (dynamic or not), types and synonyms are compared.
 */
const MORE_BROKER_KEYS = [
  'broker.rack', 'socket.send.buffer.bytes', 'socket.receive.buffer.bytes', 'num.network.threads', 'queued.max.requests',
  'request.timeout.ms', 'background.threads', 'offsets.topic.num.partitions', 'transaction.state.log.replication.factor',
  'transaction.state.log.min.isr', 'auto.leader.rebalance.enable', 'replica.fetch.max.bytes', 'compression.gzip.level',
  'compression.lz4.level', 'compression.zstd.level', 'log.dir', 'log.roll.jitter.ms', 'log.roll.jitter.hours',
  'log.retention.bytes', 'log.retention.check.interval.ms', 'log.index.size.max.bytes', 'log.index.interval.bytes',
  'log.flush.interval.messages', 'log.flush.scheduler.interval.ms', 'log.segment.delete.delay.ms', 'log.preallocate',
  'log.message.format.version', 'log.message.timestamp.difference.max.ms', 'log.message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms', 'log.message.downconversion.enable', 'log.cleaner.enable',
  'log.cleaner.delete.retention.ms', 'log.cleaner.min.compaction.lag.ms', 'log.cleaner.max.compaction.lag.ms',
  'log.cleaner.min.cleanable.ratio', 'log.local.retention.ms', 'log.local.retention.bytes',
  'num.recovery.threads.per.data.dir', 'group.min.session.timeout.ms', 'group.max.session.timeout.ms',
];

// ---- CreatePartitions ------------------------------------------------------------------------

interface Grow {
  topic?: string;
  name?: string;
  count: number;
  assignments?: number[][] | null;
}
const createPartitions = (v: number, topics: Grow[], o: { validateOnly?: boolean; timeoutMs?: number; label?: string; expect?: unknown } = {}) =>
  send('a', 37, v, (c: Ctx) => ({
    topics: topics.map((t) => ({ name: t.name ?? c.t(t.topic), count: t.count, assignments: t.assignments === undefined || t.assignments === null ? null : t.assignments.map((brokerIds) => ({ brokerIds })) })),
    timeoutMs: o.timeoutMs ?? 5000,
    validateOnly: o.validateOnly ?? false,
  }), { label: o.label, expect: o.expect as never });
const grown = (errorCode: number) => ({ results: [{ errorCode }] });
const partitionCount = (topic?: string) =>
  send('a', 3, 9, (c: Ctx) => ({ topics: [{ name: c.t(topic) }], allowAutoTopicCreation: false }), { label: `metadata ${topic ?? 't'}` });

export const coverageScenarios: Scenario[] = [
  // ---- DeleteRecords (21) ----
  tag(['data'])(
    scenario('testDeleteRecordsHappyCase', {
      mirrors: 'DeleteRecordsRequestTest.testDeleteRecordsHappyCase / ReplicaManager.deleteRecordsOnLocalLog / Partition.deleteRecordsOnLeader',
      description:
        'DeleteRecords v0-v2 on a topic with 10 records (batches 0-2, 3-5, 6-9): before 2 (low watermark 2), before 1 (never moves back: 2), before -1 (the high watermark, 10); ListOffsets earliest shows each new log start; a Fetch below it is OFFSET_OUT_OF_RANGE, at it the batch holding it; produce continues at 10',
      steps: [
        createTopic('a', 't', 1),
        produce(3, 0),
        produce(3, 3),
        produce(4, 6),
        deleteRecords(0, [[0, 2]], { expect: deleted(2) }),
        earliest(1, 2),
        earliest(7, 2),
        fetchAt(4, 1, outOfRange(4)),
        fetchAt(11, 1, outOfRange(11)),
        fetchAt(11, 2, { responses: [{ partitions: [{ errorCode: 0, highWatermark: 10, logStartOffset: 2 }] }] }),
        send('a', 2, 5, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: T0 }] }] }), {
          label: 'list-offsets by a timestamp of a deleted record',
          expect: { topics: [{ partitions: [{ errorCode: 0, offset: 2, timestamp: T0 + 2 }] }] },
        }),
        send('a', 2, 7, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -3 }] }] }), { label: 'list-offsets max timestamp' }),
        deleteRecords(1, [[0, 1]], { label: 'before 1, below the log start', expect: deleted(2) }),
        deleteRecords(1, [[0, 2]], { label: 'before 2 again', expect: deleted(2) }),
        deleteRecords(2, [[0, 7]], { expect: deleted(7) }),
        fetchAt(12, 6, outOfRange(12)),
        fetchAt(12, 7, fetched(10, 7, 6)),
        deleteRecords(2, [[0, -1]], { label: 'before -1 (the high watermark)', expect: deleted(10) }),
        earliest(5, 10),
        send('a', 2, 7, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t(), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] }), { label: 'list-offsets latest' }),
        fetchAt(12, 9, outOfRange(12)),
        fetchAt(12, 10, fetched(10, 10, null)),
        produce(2, 10),
        fetchAt(12, 10, fetched(12, 10, 10)),
        deleteRecords(2, [[0, 12]], { label: 'before the log end (everything)', expect: deleted(12) }),
        fetchAt(12, 12, fetched(12, 12, null)),
        earliest(7, 12),
        // Last: Kafka 4.x no longer parses ListOffsets v0 and closes the connection (KIP-896).
        earliest(0, 12),
      ],
    }),
  ),
  tag(['data'])(
    scenario('testErrorWhenDeletingRecordsWithInvalidOffset', {
      mirrors: 'DeleteRecordsRequestTest.testErrorWhenDeletingRecordsWithInvalidOffset / testErrorWhenDeletingRecordsWithInvalidTopic / UnifiedLog.maybeIncrementLogStartOffset',
      description:
        'DeleteRecords errors: an offset past the high watermark and a negative one other than -1 (OFFSET_OUT_OF_RANGE, low watermark -1, log start unchanged), an unknown partition and topic (UNKNOWN_TOPIC_OR_PARTITION), a compacted topic (POLICY_VIOLATION), an internal topic (INVALID_TOPIC_EXCEPTION); an empty topic (before 0 and -1)',
      steps: [
        createTopic('a', 't', 1),
        createTopic('a', 'empty', 1),
        send('a', 19, 4, (c: Ctx) => ({ topics: [{ name: c.t('compact'), numPartitions: 1, replicationFactor: 1, configs: [{ name: 'cleanup.policy', value: 'compact' }] }], timeoutMs: 5000 }), {
          expect: { topics: [{ errorCode: 0 }] },
          awaitTopics: true,
          label: 'create-topic compact',
        }),
        produce(10, 0),
        send('a', 0, 9, (c: Ctx) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: c.t('compact'), partitionData: [{ index: 0, records: batch(2) }] }] }), { label: 'produce to compact', ...notReadyRetry }),
        deleteRecords(0, [[0, 15]], { label: 'past the high watermark (v0)', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE) }),
        deleteRecords(2, [[0, 11]], { label: 'high watermark + 1', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE) }),
        deleteRecords(2, [[0, -2]], { label: 'offset -2', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE) }),
        deleteRecords(2, [[0, Number.MAX_SAFE_INTEGER]], { label: 'a huge offset', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE) }),
        earliest(1, 0),
        deleteRecords(1, [[5, 1]], { label: 'unknown partition', expect: deleteFailed(E.UNKNOWN_TOPIC_OR_PARTITION, 5) }),
        deleteRecords(2, [[0, 1]], { topic: 'missing', label: 'unknown topic', expect: deleteFailed(E.UNKNOWN_TOPIC_OR_PARTITION) }),
        // One partition per request: Kafka lists the partitions of an answer in hash-map order
        // (KafkaApis.handleDeleteRecordsRequest groups a Map by topic), which the runner does not sort.
        // Named twice: Kafka keys a map by partition, so the last offset asked wins (one answer).
        deleteRecords(2, [[0, 5], [0, 2]], { label: 'a partition named twice (5, then 2)', expect: deleted(2) }),
        deleteRecords(2, [[0, 1]], { topic: 'compact', label: 'compacted topic', expect: deleteFailed(X.POLICY_VIOLATION) }),
        deleteRecords(2, [[0, 0]], { name: '__consumer_offsets', label: 'internal topic', expect: deleteFailed(E.INVALID_TOPIC_EXCEPTION) }),
        createTopic('a', 'two', 2),
        send('a', 0, 9, (c: Ctx) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: c.t('two'), partitionData: [{ index: 1, records: batch(4) }] }] }), { label: 'produce 4 to two/1', ...notReadyRetry }),
        deleteRecords(2, [[1, 3]], { topic: 'two', label: 'two/1 before 3', expect: deleted(3, 1) }),
        deleteRecords(2, [[0, 1]], { topic: 'two', label: 'two/0 (empty) before 1', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE, 0) }),
        send('a', 2, 7, (c: Ctx) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: c.t('two'), partitions: [0, 1].map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -2 })) }] }), {
          label: 'list-offsets earliest two/0, two/1',
          expect: { topics: [{ partitions: [{ partitionIndex: 0, offset: 0 }, { partitionIndex: 1, offset: 3 }] }] },
        }),
        deleteRecords(2, [[0, 0]], { topic: 'empty', label: 'empty topic, before 0', expect: deleted(0) }),
        deleteRecords(2, [[0, -1]], { topic: 'empty', label: 'empty topic, before -1', expect: deleted(0) }),
        deleteRecords(2, [[0, 1]], { topic: 'empty', label: 'empty topic, before 1', expect: deleteFailed(E.OFFSET_OUT_OF_RANGE) }),
        earliest(7, 2),
        fetchAt(12, 1, outOfRange(12)),
        fetchAt(12, 2, fetched(10, 2, 0)),
      ],
    }),
  ),

  // ---- InitProducerId (22), idempotent producers ----
  tag(['data'])(
    scenario('testInitProducerIdIdempotentVersions', {
      mirrors:
        'TransactionCoordinatorTest.shouldAcceptInitPidAndReturnNextPidWhenTransactionalIdIsNull / KafkaApis.handleInitProducerIdRequest / ProducerIdsIntegrationTest',
      description:
        'InitProducerId v0-v5 with a null transactional id: each answers NONE with a new producer id and epoch 0; transactionTimeoutMs 0, -1 and Int.MAX are not validated for an idempotent producer',
      steps: [
        initPid(0, { as: 'p0', expect: { errorCode: 0, producerEpoch: 0 } }),
        initPid(1, { as: 'p1', expect: newPid('p0') }),
        initPid(2, { as: 'p2', expect: newPid('p1') }),
        initPid(3, { as: 'p3', expect: newPid('p2') }),
        initPid(4, { as: 'p4', expect: newPid('p3') }),
        initPid(5, { as: 'p5', expect: newPid('p4') }),
        initPid(4, { timeout: 0, label: 'transactionTimeoutMs 0', expect: newPid('p5') }),
        initPid(5, { timeout: -1, label: 'transactionTimeoutMs -1', expect: newPid('p5') }),
        initPid(2, { timeout: 2147483647, label: 'transactionTimeoutMs Int.MAX', expect: newPid('p5') }),
        initPid(0, { timeout: -2147483648, label: 'transactionTimeoutMs Int.MIN (v0)', expect: newPid('p5') }),
      ],
    }),
  ),
  tag(['data'])(
    scenario('testInitProducerIdWithExistingProducerIdAndEpoch', {
      mirrors:
        'KafkaApisTest (InitProducerId producerId/epoch pairing) / TransactionCoordinator.handleInitProducerId (null transactional id: a new id, whatever KIP-360 fields are sent)',
      description:
        'InitProducerId v3-v5 with the producer id and epoch of an earlier answer (KIP-360 bump asked): a new producer id, epoch 0; an unknown id with epoch 5; Long.MAX id, epoch 32767; an id without an epoch and an epoch without an id: INVALID_REQUEST (producer id -1, epoch -1); then a Produce with the bumped-away id still works (idempotent ids are not fenced)',
      steps: [
        createTopic('a', 't', 1),
        initPid(3, { as: 'p', expect: { errorCode: 0, producerEpoch: 0 } }),
        initPid(3, { as: 'q', pid: (c) => c.v<number>('p'), epoch: (c) => c.v<number>('p.epoch'), label: 'v3 existing id and epoch', expect: newPid('p') }),
        initPid(4, { as: 'r', pid: (c) => c.v<number>('q'), epoch: (c) => c.v<number>('q.epoch'), label: 'v4 existing id and epoch', expect: newPid('q') }),
        initPid(5, { pid: (c) => c.v<number>('r'), epoch: () => 0, label: 'v5 existing id and epoch', expect: newPid('r') }),
        initPid(5, { pid: () => 999999, epoch: () => 5, label: 'unknown producer id, epoch 5', expect: newPid('r') }),
        initPid(4, { pid: () => Number.MAX_SAFE_INTEGER, epoch: () => 32767, label: 'huge producer id, epoch 32767', expect: newPid('r') }),
        initPid(4, { pid: (c) => c.v<number>('p'), label: 'producer id without an epoch', expect: { errorCode: E.INVALID_REQUEST, producerId: -1, producerEpoch: -1 } }),
        initPid(5, { epoch: () => 0, label: 'epoch without a producer id', expect: { errorCode: E.INVALID_REQUEST, producerId: -1, producerEpoch: -1 } }),
        initPid(3, { pid: () => -5, epoch: () => -5, label: 'producer id -5, epoch -5', expect: newPid('r') }),
        send('a', 0, 9, (c: Ctx) => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: c.t(), partitionData: [{ index: 0, records: encodeBatch({ baseTimestamp: T0, producerId: BigInt(c.v<number>('p')), producerEpoch: 0, baseSequence: 0, records: [{ value: 'x' }] }) }] }],
        }), { label: 'produce with the first producer id', expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] }, ...notReadyRetry }),
      ],
    }),
  ),

  // ---- DescribeConfigs (32) v2-v3 ----
  tag(['admin'])(
    scenario('testDescribeConfigsForTopicV2V3', {
      mirrors: 'PlaintextAdminIntegrationTest.testDescribeConfigsForTopic / ConfigHelper.describeConfigs, createTopicConfigEntry',
      description:
        'DescribeConfigs v2 and v3 of a topic created with overrides (retention.ms, segment.ms, cleanup.policy, max.message.bytes, compression.type): every config with sources, synonyms (TOPIC_CONFIG first, then the broker synonyms and defaults), types and documentation (v3); selected keys; values given oddly at creation (" 4096 ", "TRUE", "1e-1", "compact, delete") as ConfigDef parsed them; an unknown key; an unknown, an invalid and an empty topic name',
      steps: [
        send('a', 19, 4, (c: Ctx) => ({
          topics: [
            {
              name: c.t(),
              numPartitions: 1,
              replicationFactor: 1,
              configs: [
                { name: 'retention.ms', value: '3600000' },
                { name: 'segment.ms', value: '600000' },
                { name: 'cleanup.policy', value: 'compact,delete' },
                { name: 'max.message.bytes', value: '2000' },
                { name: 'compression.type', value: 'gzip' },
              ],
            },
          ],
          timeoutMs: 5000,
        }), { expect: { topics: [{ errorCode: 0 }] }, awaitTopics: true, label: 'create-topic with overrides' }),
        describe(2, (c) => [{ resourceType: TOPIC, resourceName: c.t(), configurationKeys: null }], {
          synonyms: true,
          label: 'v2 every topic config, synonyms',
          expect: { results: [{ errorCode: 0, configs: length(TOPIC_CONFIG_COUNT) }] },
        }),
        describe(3, (c) => [{ resourceType: TOPIC, resourceName: c.t(), configurationKeys: [] }], { label: 'v3 every topic config (empty key list)', expect: { results: [{ errorCode: 0, configs: length(TOPIC_CONFIG_COUNT) }] } }),
        describe(3, (c) => [{ resourceType: TOPIC, resourceName: c.t(), configurationKeys: ['retention.ms', 'segment.ms', 'cleanup.policy', 'retention.bytes', 'max.message.bytes'] }], {
          synonyms: true,
          documentation: true,
          label: 'v3 keys, synonyms, documentation',
          expect: {
            results: [
              {
                errorCode: 0,
                configs: [
                  cfg('cleanup.policy', 'compact,delete', TOPIC_CONFIG, false, [['cleanup.policy', 'compact,delete', TOPIC_CONFIG], ['log.cleanup.policy', 'delete', DEFAULT]], { configType: 7, documentation: nonEmptyString }),
                  cfg('max.message.bytes', '2000', TOPIC_CONFIG, false, [['max.message.bytes', '2000', TOPIC_CONFIG], ['message.max.bytes', '1048588', DEFAULT]], { configType: 3, documentation: nonEmptyString }),
                  cfg('retention.bytes', '-1', DEFAULT, false, [['log.retention.bytes', '-1', DEFAULT]], { configType: 5, documentation: nonEmptyString }),
                  cfg('retention.ms', '3600000', TOPIC_CONFIG, false, [['retention.ms', '3600000', TOPIC_CONFIG]], { configType: 5, documentation: nonEmptyString }),
                  cfg('segment.ms', '600000', TOPIC_CONFIG, false, [['segment.ms', '600000', TOPIC_CONFIG]], { configType: 5, documentation: nonEmptyString }),
                ],
              },
            ],
          },
        }),
        send('a', 19, 4, (c: Ctx) => ({
          topics: [
            {
              name: c.t('fmt'),
              numPartitions: 1,
              replicationFactor: 1,
              configs: FORMATTED.map(([name, value]) => ({ name, value })),
            },
          ],
          timeoutMs: 5000,
        }), { expect: { topics: [{ errorCode: 0 }] }, awaitTopics: true, label: 'create-topic with values written oddly' }),
        describe(3, (c) => [{ resourceType: TOPIC, resourceName: c.t('fmt'), configurationKeys: FORMATTED.map(([name]) => name) }], {
          synonyms: true,
          label: 'values as ConfigDef parsed them',
          expect: { results: [{ errorCode: 0, configs: length(FORMATTED.length) }] },
        }),
        describe(2, (c) => [{ resourceType: TOPIC, resourceName: c.t(), configurationKeys: ['no.such.config'] }], { label: 'unknown key', expect: { results: [{ errorCode: 0, configs: [] }] } }),
        describe(3, (c) => [{ resourceType: TOPIC, resourceName: c.t('missing'), configurationKeys: null }], {
          label: 'unknown topic',
          expect: { results: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION, configs: [] }] },
        }),
        describe(2, () => [{ resourceType: TOPIC, resourceName: 'bad name', configurationKeys: null }], {
          label: 'invalid topic name',
          expect: { results: [{ errorCode: E.INVALID_TOPIC_EXCEPTION }] },
        }),
        describe(3, () => [{ resourceType: TOPIC, resourceName: '', configurationKeys: null }], { label: 'empty topic name' }),
      ],
    }),
  ),
  tag(['admin'])(
    scenario('testDescribeConfigsForBrokerV2V3', {
      mirrors: 'PlaintextAdminIntegrationTest.testDescribeConfigsForBroker / testDescribeConfigsForLog4jLogLevels / ConfigHelper.describeConfigs (BROKER, BROKER_LOGGER)',
      description:
        'DescribeConfigs v2/v3 of the broker (its id): values, sources (static vs default), read-only flags (dynamic configs), types, synonyms (log.retention.ms -> minutes -> hours), documentation, for ~60 broker configs; the cluster default resource ""; broker ids "01", "+1", " 1" (Integer.parseInt); an unknown broker id and a non-numeric one (INVALID_REQUEST); BROKER_LOGGER (8) for this broker, another one and ""; a topic and brokers in one request',
      steps: [
        createTopic('a', 't', 1),
        describe(2, () => [{ resourceType: BROKER, resourceName: '1', configurationKeys: BROKER_KEYS }], { synonyms: true, label: 'v2 broker 1, synonyms', expect: { results: [{ errorCode: 0, configs: BROKER_EXPECTED }] } }),
        describe(3, () => [{ resourceType: BROKER, resourceName: '1', configurationKeys: BROKER_KEYS }], { label: 'v3 broker 1' }),
        describe(3, () => [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['log.retention.hours', 'message.max.bytes', 'group.initial.rebalance.delay.ms'] }], {
          synonyms: true,
          documentation: true,
          label: 'v3 broker 1, documentation',
        }),
        describe(3, () => [{ resourceType: BROKER, resourceName: '1', configurationKeys: MORE_BROKER_KEYS }], {
          synonyms: true,
          label: 'v3 more broker configs, synonyms',
          expect: { results: [{ errorCode: 0, configs: length(MORE_BROKER_KEYS.length) }] },
        }),
        describe(3, () => [{ resourceType: BROKER, resourceName: '', configurationKeys: null }], { synonyms: true, label: 'cluster defaults ""', expect: { results: [{ errorCode: 0 }] } }),
        describe(2, () => [{ resourceType: BROKER, resourceName: '99', configurationKeys: null }], { label: 'unknown broker id', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }] } }),
        describe(3, () => [
          { resourceType: BROKER, resourceName: '01', configurationKeys: ['message.max.bytes'] },
          { resourceType: BROKER, resourceName: '+1', configurationKeys: ['message.max.bytes'] },
          { resourceType: BROKER, resourceName: ' 1', configurationKeys: ['message.max.bytes'] },
          { resourceType: BROKER_LOGGER, resourceName: '001', configurationKeys: ['no.such.logger'] },
        ], { label: 'broker ids written oddly (Integer.parseInt)', expect: { results: [{ errorCode: 0 }, { errorCode: 0 }, { errorCode: E.INVALID_REQUEST }, { errorCode: 0 }] } }),
        describe(3, () => [{ resourceType: BROKER, resourceName: 'one', configurationKeys: null }], { label: 'non-numeric broker id', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }] } }),
        // Only a logger neither broker has: the reference broker's loggers are whatever classes
        // the JVM has loaded (Log4jController.loggers), at the harness's log level.
        describe(3, () => [{ resourceType: BROKER_LOGGER, resourceName: '1', configurationKeys: ['no.such.logger'] }], { label: 'broker logger 1', expect: { results: [{ errorCode: 0, configs: [] }] } }),
        describe(2, () => [{ resourceType: BROKER_LOGGER, resourceName: '2', configurationKeys: null }], { label: 'broker logger 2', expect: { results: [{ errorCode: E.INVALID_REQUEST }] } }),
        describe(3, () => [{ resourceType: BROKER_LOGGER, resourceName: '', configurationKeys: null }], { label: 'broker logger ""', expect: { results: [{ errorCode: E.INVALID_REQUEST }] } }),
        describe(3, (c) => [
          { resourceType: TOPIC, resourceName: c.t(), configurationKeys: ['retention.ms'] },
          { resourceType: BROKER, resourceName: '1', configurationKeys: ['log.retention.hours'] },
          { resourceType: BROKER, resourceName: '7', configurationKeys: null },
        ], { synonyms: true, label: 'topic and brokers', expect: { results: [{ errorCode: 0 }, { errorCode: 0 }, { errorCode: E.INVALID_REQUEST }] } }),
      ],
    }),
  ),
  tag(['admin'])(
    scenario('testDescribeConfigsUnknownResourceTypes', {
      mirrors: 'KafkaApis.handleDescribeConfigsRequest (resource types it authorizes; any other fails the request) / ConfigHelper.describeConfigs (GROUP)',
      description:
        'DescribeConfigs with resource type GROUP (32: Kafka 3.9 brokers do not describe group configs yet), an unknown type (1, 99) alone and next to a topic: INVALID_REQUEST for every resource of the request',
      steps: [
        createTopic('a', 't', 1),
        describe(3, (c) => [{ resourceType: 32, resourceName: c.g('grp'), configurationKeys: null }], { synonyms: true, label: 'group resource', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }] } }),
        describe(3, () => [{ resourceType: 32, resourceName: '', configurationKeys: null }], { label: 'group resource ""', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }] } }),
        describe(2, () => [{ resourceType: 1, resourceName: 'x', configurationKeys: null }], { label: 'resource type 1', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }] } }),
        describe(3, (c) => [
          { resourceType: TOPIC, resourceName: c.t(), configurationKeys: ['retention.ms'] },
          { resourceType: 99, resourceName: 'x', configurationKeys: null },
        ], { label: 'a topic and resource type 99', expect: { results: [{ errorCode: E.INVALID_REQUEST, configs: [] }, { errorCode: E.INVALID_REQUEST, configs: [] }] } }),
      ],
    }),
  ),

  // ---- SaslHandshake (17) then SaslAuthenticate (36) v0-v1, PLAINTEXT listener ----
  tag(['api'])(
    scenario('testSaslAuthenticateOnPlaintextListener', {
      mirrors: 'SaslServerAuthenticator / KafkaApis.handleSaslHandshakeRequest, handleSaslAuthenticateRequest (no SASL on a PLAINTEXT listener)',
      description:
        'as a client would: SaslHandshake v1 (PLAIN) then SaslAuthenticate v0 and v1; SaslHandshake v0 then SaslAuthenticate v0; SaslAuthenticate v1 alone: ILLEGAL_SASL_STATE each time, and the connections stay usable (Metadata)',
      steps: [
        send('a', 17, 1, { mechanism: 'PLAIN' }, { expect: { errorCode: X.ILLEGAL_SASL_STATE, mechanisms: [] } }),
        send('a', 36, 0, { authBytes: Buffer.from('\u0000user\u0000pass') }, { expect: { errorCode: X.ILLEGAL_SASL_STATE } }),
        send('a', 36, 1, { authBytes: Buffer.from('\u0000user\u0000pass') }, { expect: { errorCode: X.ILLEGAL_SASL_STATE } }),
        send('a', 3, 1, { topics: [] }, { label: 'conn a still works' }),
        send('b', 17, 0, { mechanism: 'SCRAM-SHA-512' }, { expect: { errorCode: X.ILLEGAL_SASL_STATE, mechanisms: [] } }),
        send('b', 36, 0, { authBytes: Buffer.alloc(0) }, { label: 'empty auth bytes', expect: { errorCode: X.ILLEGAL_SASL_STATE } }),
        send('b', 3, 1, { topics: [] }, { label: 'conn b still works' }),
        send('c', 36, 1, { authBytes: Buffer.from('n,,n=user,r=abc') }, { label: 'no handshake first', expect: { errorCode: X.ILLEGAL_SASL_STATE } }),
        send('c', 17, 1, { mechanism: 'GSSAPI' }, { label: 'handshake after authenticate', expect: { errorCode: X.ILLEGAL_SASL_STATE } }),
        send('c', 3, 1, { topics: [] }, { label: 'conn c still works' }),
      ],
    }),
  ),

  // ---- CreatePartitions (37) v0 ----
  tag(['admin'])(
    scenario('testCreatePartitionsV0', {
      mirrors: 'ControllerApisTest.testCreatePartitionsRequest / ReplicationControlManagerTest.testCreatePartitions / AddPartitionsTest (KRaft)',
      description:
        'CreatePartitions v0: grow 1 -> 3 (NONE), validateOnly 3 -> 5 (NONE, nothing changes), the same count and a shrink (INVALID_PARTITIONS), an unknown topic (UNKNOWN_TOPIC_OR_PARTITION), a topic named twice (INVALID_REQUEST for it, the other topic still grows), count 0 and -1, no topics, validateOnly past the controller\'s 10000-record limit, timeoutMs 0 (REQUEST_TIMED_OUT, but a duplicate is still INVALID_REQUEST); Metadata shows the counts',
      steps: [
        createTopic('a', 't', 1),
        createTopic('a', 'u', 1),
        createPartitions(0, [{ count: 3 }], { label: 'grow 1 -> 3', expect: grown(0) }),
        createPartitions(0, [{ count: 5 }], { validateOnly: true, label: 'validateOnly 3 -> 5', expect: grown(0) }),
        partitionCount(),
        createPartitions(0, [{ count: 3 }], { label: 'same count', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ count: 2 }], { label: 'shrink 3 -> 2', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ count: 2 }], { validateOnly: true, label: 'shrink, validateOnly', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ count: 0 }], { label: 'count 0', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ count: -1 }], { label: 'count -1', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ topic: 'missing', count: 2 }], { label: 'unknown topic', expect: grown(E.UNKNOWN_TOPIC_OR_PARTITION) }),
        createPartitions(0, [{ count: 4 }, { count: 5 }], { label: 'topic named twice', expect: { results: [{ errorCode: E.INVALID_REQUEST }] } }),
        createPartitions(0, [{ count: 4 }, { topic: 'u', count: 2 }, { count: 6 }], {
          label: 'topic named twice, next to another',
          expect: { results: [{ errorCode: E.INVALID_REQUEST }, { errorCode: 0 }] },
        }),
        createPartitions(0, [{ topic: 'u', count: 4 }, { topic: 'missing', count: 2 }], { label: 'a good topic and an unknown one' }),
        createPartitions(0, [], { label: 'no topics', expect: { results: [] } }),
        createPartitions(0, [{ count: 4 }, { count: 4 }], { validateOnly: true, label: 'named twice, validateOnly', expect: { results: [{ errorCode: E.INVALID_REQUEST }] } }),
        createPartitions(0, [{ count: 20000 }], { validateOnly: true, label: 'validateOnly past the controller record limit' }),
        // QuorumController: an event whose deadline (now + timeoutMs) has passed is not run.
        createPartitions(0, [{ count: 7 }], { timeoutMs: 0, label: 'timeoutMs 0', expect: { results: [{ errorCode: 7 }] } }),
        createPartitions(0, [{ count: 7 }, { count: 8 }], { timeoutMs: 0, label: 'timeoutMs 0, only a duplicate', expect: { results: [{ errorCode: E.INVALID_REQUEST }] } }),
        partitionCount(),
        partitionCount('u'),
      ],
    }),
  ),
  tag(['admin'])(
    scenario('testCreatePartitionsWithAssignments', {
      mirrors: 'AddPartitionsTest.testManualAssignmentOfReplicas / testWrongReplicaCount / ReplicationControlManager.createPartitions (manual assignments)',
      description:
        'CreatePartitions v0 with assignments: one list per new partition on this broker (NONE); more or fewer lists than new partitions, an unknown broker, a broker twice, an empty list, two replicas on one broker (INVALID_REPLICA_ASSIGNMENT); an internal topic, validateOnly',
      steps: [
        createTopic('a', 't', 1),
        createPartitions(0, [{ count: 2, assignments: [[1]] }], { label: 'one new partition on broker 1', expect: grown(0) }),
        createPartitions(0, [{ count: 4, assignments: [[1], [1]] }], { label: 'two new partitions on broker 1', expect: grown(0) }),
        createPartitions(0, [{ count: 6, assignments: [[1]] }], { label: 'two new, one assignment', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[1], [1]] }], { label: 'one new, two assignments', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[2]] }], { label: 'unknown broker 2', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[1, 1]] }], { label: 'broker 1 twice', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[]] }], { label: 'empty assignment', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[1, 2]] }], { label: 'two replicas (one unknown)', expect: grown(X.INVALID_REPLICA_ASSIGNMENT) }),
        createPartitions(0, [{ count: 5, assignments: [[1]] }], { validateOnly: true, label: 'validateOnly with an assignment', expect: grown(0) }),
        createPartitions(0, [{ count: 4, assignments: [] }], { label: 'same count, empty assignments', expect: grown(E.INVALID_PARTITIONS) }),
        createPartitions(0, [{ name: '__consumer_offsets', count: 51 }], { validateOnly: true, label: 'internal topic, validateOnly' }),
        partitionCount(),
      ],
    }),
  ),
];
