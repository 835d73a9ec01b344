// Configs that change at run time (issue #13): IncrementalAlterConfigs v0-1 (44) and AlterConfigs
// v0-2 (33) on topics, on this broker (resource name "1") and on the cluster default (""), on the
// broker's loggers and on client-metrics subscriptions, then DescribeConfigs and CreateTopics'
// effective configs showing the layers (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG,
// DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG) and the synonyms in
// ConfigHelper's order. The expected codes and messages come from Kafka 3.9's
// ConfigAdminManager.preprocess, DynamicBrokerConfig.validate, ControllerApis,
// ConfigurationControlManager, ControllerConfigurationValidator, LogConfig.validate,
// RuntimeLoggerManager and ClientMetricsConfigs (cited per scenario).
//
// Every scenario here plays on one broker pair of its own (ownBrokers): broker-level changes are
// broker-wide, and the other scenarios describe the broker's configs. Each broker scenario first
// clears the per-broker and cluster-default configs (AlterConfigs with none), so a retry starts
// from the same state. The brokers start with static log.retention.hours and log.roll.hours (a
// static synonym under the dynamic ones, hours converted to ms in CreateTopics' effective
// configs) and with queued.max.request.bytes=268435456, kmock's own default, which kmock reports
// as a static setting (Kafka's default is -1): both brokers then describe the same value.
//
// A KRaft broker applies a change once the controller's record reaches its metadata cache: a
// DescribeConfigs right after an accepted change may still show the old value, so the describes
// that follow a change are resent (outside the transcript) until they show it.
import type { Ctx, Scenario, Settings } from '../runner.js';
import { E, anything, createTopic, scenario, send } from './dsl.js';

const SETTINGS: Settings = {
  'log.retention.hours': 100,
  'log.roll.hours': 100,
  'queued.max.request.bytes': 268435456,
};
const OWN = 'configs-alter';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['admin', 'configs'], groups: s.groups ?? [], settings: SETTINGS, ownBrokers: OWN });

/** ConfigResource.Type ids. */
const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const CLIENT_METRICS = 16;
/** AlterConfigOp.OpType ids. */
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;
/** DescribeConfigsResponse.ConfigSource ids. */
const TOPIC_CONFIG = 1;
const DYNAMIC_BROKER = 2;
const DYNAMIC_DEFAULT = 3;
const STATIC_BROKER = 4;
const DEFAULT = 5;
const LOGGER = 6;
const CLIENT_METRICS_CONFIG = 7;

type Name = string | ((c: Ctx) => string);
const nameOf = (n: Name, c: Ctx) => (typeof n === 'function' ? n(c) : n);
/** A topic resource name in the run's namespace. */
const topic = (short = 't') => (c: Ctx) => c.t(short);

type IncResource = [type: number, name: Name, configs: Array<[name: string, op: number, value: string | null]>];
type AltResource = [type: number, name: Name, configs: Array<[name: string, value: string | null]>];

interface Opts {
  v?: number;
  validateOnly?: boolean;
  label?: string;
  /** The expected [errorCode, errorMessage] per resource (message omitted: not checked). */
  expect?: Array<[code: number, message?: string | null]>;
}

const expectResults = (e: Opts['expect']) =>
  e === undefined ? undefined : { responses: e.map(([errorCode, errorMessage]) => (errorMessage === undefined ? { errorCode } : { errorCode, errorMessage })) };

/** IncrementalAlterConfigs (v1 unless given). */
const inc = (resources: IncResource[], o: Opts = {}) =>
  send(
    'a',
    44,
    o.v ?? 1,
    (c: Ctx) => ({
      validateOnly: o.validateOnly ?? false,
      resources: resources.map(([resourceType, name, configs]) => ({
        resourceType,
        resourceName: nameOf(name, c),
        configs: configs.map(([n, configOperation, value]) => ({ name: n, configOperation, value })),
      })),
    }),
    { label: o.label, expect: expectResults(o.expect) as never },
  );

/** AlterConfigs (v2 unless given). */
const alt = (resources: AltResource[], o: Opts & { conn?: string; timeoutMs?: number } = {}) =>
  send(
    o.conn ?? 'a',
    33,
    o.v ?? 2,
    (c: Ctx) => ({
      validateOnly: o.validateOnly ?? false,
      resources: resources.map(([resourceType, name, configs]) => ({
        resourceType,
        resourceName: nameOf(name, c),
        configs: configs.map(([n, value]) => ({ name: n, value })),
      })),
    }),
    { label: o.label, expect: expectResults(o.expect) as never, timeoutMs: o.timeoutMs },
  );

/**
 * Clears this broker's and the cluster default's dynamic configs (AlterConfigs replaces them),
 * but for the cluster-level min.insync.replicas=1 a Kafka 4.x cluster with eligible leader
 * replicas keeps (KIP-966: "Cluster-level min.insync.replicas cannot be removed while ELR is
 * enabled"): both lines then start from the same layers.
 */
const resetBroker = (label = 'clear the dynamic broker configs') =>
  alt([[BROKER, '1', []], [BROKER, '', [['min.insync.replicas', '1']]]], { label, expect: [[0, null], [0, null]] });


interface DescribedResult {
  errorCode: number;
  configs: Array<{ name: string; value: string | null; synonyms: Array<{ name: string; value: string | null; source: number }> }>;
}

/**
 * DescribeConfigs (v4 unless given) of one resource, resent (outside the transcript) until
 * `until` holds for its configs: a change the controller accepted reaches the broker a moment later.
 */
const describe = (
  type: number,
  name: Name,
  keys: string[] | null,
  o: { v?: number; synonyms?: boolean; label?: string; until?: (configs: DescribedResult['configs']) => boolean; expect?: unknown } = {},
) =>
  send(
    'a',
    32,
    o.v ?? 4,
    (c: Ctx) => ({
      resources: [{ resourceType: type, resourceName: nameOf(name, c), configurationKeys: keys }],
      includeSynonyms: o.synonyms ?? true,
      includeDocumentation: false,
    }),
    {
      label: o.label,
      expect: o.expect as never,
      retry:
        o.until === undefined
          ? undefined
          : { while: (r: { results: DescribedResult[] }) => !o.until!(r.results[0]?.configs ?? []), delayMs: 100, max: 50 },
    },
  );

/** `until`: config `name` has `value` (undefined: is not listed). */
const valueIs = (name: string, value: string | null | undefined) => (configs: DescribedResult['configs']) => {
  const c = configs.find((x) => x.name === name);
  return value === undefined ? c === undefined : c !== undefined && c.value === value;
};
const allOf =
  (...fs: Array<(configs: DescribedResult['configs']) => boolean>) =>
  (configs: DescribedResult['configs']) =>
    fs.every((f) => f(configs));

/** A described config (ConfigHelper): synonyms as [name, value, source]. */
const cfg = (
  name: string,
  value: string | null,
  configSource: number,
  synonyms: Array<[string, string | null, number]>,
  extra: Record<string, unknown> = {},
) => ({ name, value, configSource, synonyms: synonyms.map(([n, v, source]) => ({ name: n, value: v, source })), ...extra });

/** The cluster default after resetBroker, as DescribeConfigs shows it. */
const CLUSTER_MIN_ISR = cfg('min.insync.replicas', '1', 3, [['min.insync.replicas', '1', 3]]);

const created = (name: string, configs: Array<[string, string]>, o: { v?: number; validateOnly?: boolean; label?: string } = {}) =>
  send(
    'a',
    19,
    o.v ?? 4,
    (c: Ctx) => ({
      topics: [{ name: c.t(name), numPartitions: 1, replicationFactor: 1, assignments: [], configs: configs.map(([n, value]) => ({ name: n, value })) }],
      timeoutMs: 5000,
      validateOnly: o.validateOnly ?? false,
    }),
    { expect: { topics: [{ errorCode: 0 }] }, awaitTopics: o.validateOnly !== true, label: o.label ?? `create-topic ${name}` },
  );

const INVALID_DYNAMIC = (message: string) =>
  `Invalid value org.apache.kafka.common.config.ConfigException: ${message} for configuration Invalid dynamic configuration`;

export const configsAlterScenarios: Scenario[] = [
  // ---- topics, IncrementalAlterConfigs ----
  tag(
    scenario('testIncrementalAlterConfigsForTopic', {
      mirrors:
        'PlaintextAdminIntegrationTest.testIncrementalAlterConfigsForTopic / ConfigurationControlManagerTest.testIncrementalAlterConfigs / ControllerConfigurationValidator / LogConfig.validate',
      description:
        'IncrementalAlterConfigs v0/v1 on a topic: SET, DELETE, APPEND and SUBTRACT (the list shrinking to empty), each then described with its synonyms; validateOnly; APPEND on a non-list and an unknown key, unknown and invalid names and values (the first unknown by the Properties order), min > max compaction lag, remote storage, min.insync.replicas above the replicas; an unknown topic (with a valid and an invalid value), "", an invalid name; duplicate keys, a null SET, a null DELETE, a resource given twice',
      steps: [
        created('t', [['retention.ms', '3600000'], ['cleanup.policy', 'delete']]),
        inc([[TOPIC, topic(), [['retention.ms', SET, '7200000'], ['segment.ms', SET, '600000']]]], { v: 0, label: 'v0 SET two', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['retention.ms', 'segment.ms', 'cleanup.policy'], {
          label: 'after SET',
          until: allOf(valueIs('retention.ms', '7200000'), valueIs('segment.ms', '600000')),
          expect: {
            results: [
              {
                errorCode: 0,
                configs: [
                  cfg('cleanup.policy', 'delete', TOPIC_CONFIG, [['cleanup.policy', 'delete', TOPIC_CONFIG], ['log.cleanup.policy', 'delete', DEFAULT]]),
                  cfg('retention.ms', '7200000', TOPIC_CONFIG, [['retention.ms', '7200000', TOPIC_CONFIG]]),
                  cfg('segment.ms', '600000', TOPIC_CONFIG, [['segment.ms', '600000', TOPIC_CONFIG]]),
                ],
              },
            ],
          },
        }),
        inc([[TOPIC, topic(), [['cleanup.policy', APPEND, 'compact'], ['segment.ms', DELETE, null]]]], { label: 'APPEND compact, DELETE segment.ms', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['cleanup.policy', 'segment.ms'], {
          label: 'after APPEND',
          until: allOf(valueIs('cleanup.policy', 'delete,compact'), valueIs('segment.ms', '360000000')),
        }),
        inc([[TOPIC, topic(), [['cleanup.policy', SUBTRACT, 'delete,nothing']]]], { label: 'SUBTRACT delete', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['cleanup.policy'], { label: 'after SUBTRACT', until: valueIs('cleanup.policy', 'compact') }),
        inc([[TOPIC, topic(), [['cleanup.policy', SUBTRACT, 'compact']]]], { label: 'SUBTRACT the last one', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['cleanup.policy'], { label: 'an empty list', until: valueIs('cleanup.policy', '') }),
        inc([[TOPIC, topic(), [['cleanup.policy', DELETE, null], ['retention.ms', SET, '1']]]], { validateOnly: true, label: 'validateOnly', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['cleanup.policy', 'retention.ms'], { label: 'validateOnly changed nothing' }),
        inc([[TOPIC, topic(), [['retention.ms', APPEND, '1000']]]], { label: 'APPEND to a LONG', expect: [[E.INVALID_CONFIG, "Can't APPEND to key retention.ms because its type is not LIST."]] }),
        inc([[TOPIC, topic(), [['no.such.config', SUBTRACT, 'x']]]], { label: 'SUBTRACT from an unknown key', expect: [[E.INVALID_CONFIG, "Can't SUBTRACT to key no.such.config because its type is not LIST."]] }),
        inc([[TOPIC, topic(), [['zzz', SET, '1'], ['yyy', SET, '2'], ['retention.ms', SET, '5']]]], { label: 'two unknown names', expect: [[E.INVALID_CONFIG, 'Unknown topic config name: yyy']] }),
        inc([[TOPIC, topic(), [['retention.ms', SET, 'abc']]]], { label: 'not a number', expect: [[E.INVALID_CONFIG, 'Invalid value abc for configuration retention.ms: Not a number of type LONG']] }),
        inc([[TOPIC, topic(), [['segment.bytes', SET, '10'], ['retention.ms', SET, '-7']]]], { label: 'two bad values (definition order)', expect: [[E.INVALID_CONFIG, 'Invalid value 10 for configuration segment.bytes: Value must be at least 14']] }),
        inc([[TOPIC, topic(), [['min.compaction.lag.ms', SET, '10'], ['max.compaction.lag.ms', SET, '5']]]], {
          label: 'min > max compaction lag',
          expect: [[E.INVALID_CONFIG, 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)']],
        }),
        inc([[TOPIC, topic(), [['remote.storage.enable', SET, 'true']]]], {
          label: 'remote storage',
          expect: [[E.INVALID_CONFIG, 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.']],
        }),
        inc([[TOPIC, topic(), [['min.insync.replicas', SET, '3'], ['compression.type', SET, 'zstd']]]], { label: 'min.insync.replicas above the replicas', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['min.insync.replicas', 'compression.type'], { label: 'min.insync.replicas', until: valueIs('min.insync.replicas', '3') }),
        inc([[TOPIC, topic('missing'), [['retention.ms', SET, '1000']]]], { label: 'unknown topic', expect: [[E.UNKNOWN_TOPIC_OR_PARTITION, anything as never]] }),
        inc([[TOPIC, topic('missing'), [['retention.ms', SET, 'x']]]], { label: 'unknown topic, bad value', expect: [[E.INVALID_CONFIG]] }),
        inc([[TOPIC, '', [['retention.ms', SET, '1']]]], { label: 'empty topic name', expect: [[E.INVALID_REQUEST, 'Default topic resources are not allowed.']] }),
        inc([[TOPIC, 'bad name', [['retention.ms', SET, '1']]]], { label: 'invalid topic name', expect: [[E.INVALID_TOPIC_EXCEPTION]] }),
        inc([[TOPIC, topic(), [['retention.ms', SET, '1'], ['retention.ms', DELETE, null]]]], { label: 'duplicate keys', expect: [[E.INVALID_REQUEST, 'Error due to duplicate config keys']] }),
        inc([[TOPIC, topic(), [['retention.ms', SET, null], ['segment.ms', APPEND, null], ['cleanup.policy', DELETE, null]]]], {
          label: 'null values',
          expect: [[E.INVALID_REQUEST, 'Null value not supported for : retention.ms, segment.ms']],
        }),
        inc([[TOPIC, topic(), [['retention.ms', DELETE, null]]], [TOPIC, topic('other'), []], [TOPIC, topic(), [['segment.ms', DELETE, null]]]], {
          label: 'a resource given twice',
          expect: [[E.INVALID_REQUEST, 'Each resource must appear at most once.'], [E.UNKNOWN_TOPIC_OR_PARTITION], [E.INVALID_REQUEST, 'Each resource must appear at most once.']],
        }),
        inc([[TOPIC, topic(), [['retention.ms', DELETE, null], ['min.insync.replicas', DELETE, null], ['compression.type', DELETE, null]]]], { label: 'DELETE', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['retention.ms', 'min.insync.replicas', 'cleanup.policy'], {
          label: 'back to the broker values',
          until: valueIs('retention.ms', '360000000'),
        }),
      ],
    }),
  ),

  // ---- topics, AlterConfigs ----
  tag(
    scenario('testAlterConfigsForTopic', {
      mirrors: 'PlaintextAdminIntegrationTest.testLegacyAlterConfigs / ConfigurationControlManager.legacyAlterConfigResource (configs not given are deleted)',
      description:
        'AlterConfigs v0/v1/v2 on a topic: the configs given replace all of the topic\'s (those not given go back to the broker\'s values), described after each; an empty list clears them; validateOnly; two unknown names; an invalid value; a null value; duplicate keys; an unknown topic, "", an invalid name',
      steps: [
        created('t', [['retention.ms', '3600000'], ['segment.ms', '600000']]),
        alt([[TOPIC, topic(), [['cleanup.policy', 'compact'], ['max.message.bytes', '2000']]]], { v: 0, label: 'v0 replace', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['retention.ms', 'segment.ms', 'cleanup.policy', 'max.message.bytes'], {
          label: 'after v0',
          until: allOf(valueIs('cleanup.policy', 'compact'), valueIs('retention.ms', '360000000')),
        }),
        alt([[TOPIC, topic(), [['segment.bytes', ' 2000000 ']]]], { v: 1, label: 'v1 replace', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['segment.bytes', 'cleanup.policy', 'max.message.bytes'], { label: 'after v1', until: valueIs('segment.bytes', '2000000') }),
        alt([[TOPIC, topic(), [['retention.ms', '1']]]], { validateOnly: true, label: 'validateOnly', expect: [[0, null]] }),
        alt([[TOPIC, topic(), [['zzz', '1'], ['yyy', '2']]]], { label: 'two unknown names', expect: [[E.INVALID_CONFIG, 'Unknown topic config name: yyy']] }),
        alt([[TOPIC, topic(), [['compression.type', 'brotli']]]], {
          label: 'invalid value',
          expect: [[E.INVALID_CONFIG, 'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer']],
        }),
        alt([[TOPIC, topic(), [['retention.ms', null], ['segment.ms', null]]]], { label: 'null values', expect: [[E.INVALID_REQUEST, 'Null value not supported for : retention.ms, segment.ms']] }),
        alt([[TOPIC, topic(), [['retention.ms', '1'], ['retention.ms', '2']]]], { label: 'duplicate keys', expect: [[E.INVALID_REQUEST, 'Error due to duplicate config keys']] }),
        alt([[TOPIC, topic('missing'), [['retention.ms', '1']]]], { label: 'unknown topic', expect: [[E.UNKNOWN_TOPIC_OR_PARTITION]] }),
        alt([[TOPIC, '', []]], { label: 'empty topic name', expect: [[E.INVALID_REQUEST, 'Default topic resources are not allowed.']] }),
        alt([[TOPIC, '..', []]], { label: 'invalid topic name', expect: [[E.INVALID_TOPIC_EXCEPTION]] }),
        describe(TOPIC, topic(), ['segment.bytes', 'retention.ms'], { label: 'failed changes changed nothing' }),
        alt([[TOPIC, topic(), []]], { label: 'clear', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['segment.bytes'], { label: 'cleared', until: valueIs('segment.bytes', '1073741824') }),
      ],
    }),
  ),

  // ---- this broker and the cluster default, IncrementalAlterConfigs ----
  tag(
    scenario('testIncrementalAlterConfigsForBroker', {
      mirrors:
        'DynamicBrokerConfigTest / DynamicBrokerReconfigurationTest / ConfigAdminManagerTest / ConfigHelper.createBrokerConfigEntry, configSynonyms / KafkaConfigSchema.resolveEffectiveTopicConfigs',
      description:
        'IncrementalAlterConfigs on broker "1" and on the cluster default "": per-broker over cluster default over static over default, described with their synonyms (log.retention.ms over static log.retention.hours), readOnly, sensitive and type of a quota config, a listener override and a name Kafka does not know; the cluster-default resource; a topic\'s values and synonyms from the dynamic layers; CreateTopics v5 effective configs from them (hours converted); APPEND on a list from its default; DELETE falling back a layer; queued.max.request.bytes as a static setting',
      steps: [
        resetBroker(),
        createTopic('a', 't', 1),
        inc(
          [
            [
              BROKER,
              '1',
              [
                ['log.retention.ms', SET, '100000'],
                ['message.max.bytes', SET, '2000000'],
                ['log.cleanup.policy', APPEND, 'compact'],
                ['num.io.threads', SET, '10'],
                ['leader.replication.throttled.rate', SET, '1000'],
                ['listener.name.plaintext.max.connections', SET, '100'],
                ['kmock.custom.config', SET, 'x'],
              ],
            ],
            [
              BROKER,
              '',
              [
                ['log.retention.ms', SET, ' 200000 '],
                ['log.segment.bytes', SET, '100000000'],
                ['num.io.threads', SET, '9'],
                ['compression.type', SET, 'gzip'],
                ['min.insync.replicas', SET, '2'],
                ['log.roll.ms', SET, '7200000'],
                ['follower.replication.throttled.rate', SET, '2000'],
              ],
            ],
          ],
          { label: 'per broker and cluster default', expect: [[0, null], [0, null]] },
        ),
        describe(
          BROKER,
          '1',
          [
            'log.retention.ms',
            'log.retention.minutes',
            'log.retention.hours',
            'message.max.bytes',
            'log.cleanup.policy',
            'num.io.threads',
            'min.insync.replicas',
            'log.segment.bytes',
            'compression.type',
            'log.roll.ms',
            'log.roll.hours',
            'leader.replication.throttled.rate',
            'follower.replication.throttled.rate',
            'listener.name.plaintext.max.connections',
            'kmock.custom.config',
            'queued.max.request.bytes',
          ],
          {
            label: 'broker 1',
            until: allOf(valueIs('log.retention.ms', '100000'), valueIs('compression.type', 'gzip'), valueIs('kmock.custom.config', null)),
            expect: {
              results: [
                {
                  errorCode: 0,
                  configs: [
                    cfg('compression.type', 'gzip', DYNAMIC_DEFAULT, [['compression.type', 'gzip', DYNAMIC_DEFAULT], ['compression.type', 'producer', DEFAULT]]),
                    cfg('follower.replication.throttled.rate', '2000', DYNAMIC_DEFAULT, [['follower.replication.throttled.rate', '2000', DYNAMIC_DEFAULT]], { readOnly: true, configType: 5 }),
                    cfg('kmock.custom.config', null, DYNAMIC_BROKER, [['kmock.custom.config', null, DYNAMIC_BROKER]], { readOnly: true, isSensitive: true, configType: 0 }),
                    cfg('leader.replication.throttled.rate', '1000', DYNAMIC_BROKER, [['leader.replication.throttled.rate', '1000', DYNAMIC_BROKER]], { readOnly: true, configType: 5 }),
                    cfg('listener.name.plaintext.max.connections', '100', DYNAMIC_BROKER, [
                      ['listener.name.plaintext.max.connections', '100', DYNAMIC_BROKER],
                      ['max.connections', '2147483647', DEFAULT],
                    ], { readOnly: true, configType: 3 }),
                    cfg('log.cleanup.policy', 'delete,compact', DYNAMIC_BROKER, [['log.cleanup.policy', 'delete,compact', DYNAMIC_BROKER], ['log.cleanup.policy', 'delete', DEFAULT]]),
                    cfg('log.retention.hours', '100', STATIC_BROKER, [['log.retention.hours', '100', STATIC_BROKER], ['log.retention.hours', '168', DEFAULT]]),
                    cfg('log.retention.minutes', null, DEFAULT, []),
                    cfg('log.retention.ms', '100000', DYNAMIC_BROKER, [
                      ['log.retention.ms', '100000', DYNAMIC_BROKER],
                      ['log.retention.ms', ' 200000 ', DYNAMIC_DEFAULT],
                      ['log.retention.hours', '100', STATIC_BROKER],
                      ['log.retention.hours', '168', DEFAULT],
                    ]),
                    cfg('log.roll.hours', '100', STATIC_BROKER, [['log.roll.hours', '100', STATIC_BROKER], ['log.roll.hours', '168', DEFAULT]]),
                    cfg('log.roll.ms', '7200000', DYNAMIC_DEFAULT, [['log.roll.ms', '7200000', DYNAMIC_DEFAULT], ['log.roll.hours', '100', STATIC_BROKER], ['log.roll.hours', '168', DEFAULT]]),
                    cfg('log.segment.bytes', '100000000', DYNAMIC_DEFAULT, [['log.segment.bytes', '100000000', DYNAMIC_DEFAULT], ['log.segment.bytes', '1073741824', DEFAULT]]),
                    cfg('message.max.bytes', '2000000', DYNAMIC_BROKER, [['message.max.bytes', '2000000', DYNAMIC_BROKER], ['message.max.bytes', '1048588', DEFAULT]]),
                    cfg('min.insync.replicas', '2', DYNAMIC_DEFAULT, [['min.insync.replicas', '2', DYNAMIC_DEFAULT], ['min.insync.replicas', '1', DEFAULT]]),
                    cfg('num.io.threads', '10', DYNAMIC_BROKER, [['num.io.threads', '10', DYNAMIC_BROKER], ['num.io.threads', '9', DYNAMIC_DEFAULT], ['num.io.threads', '8', DEFAULT]]),
                    cfg('queued.max.request.bytes', '268435456', STATIC_BROKER, [['queued.max.request.bytes', '268435456', STATIC_BROKER], ['queued.max.request.bytes', '-1', DEFAULT]]),
                  ],
                },
              ],
            },
          },
        ),
        describe(BROKER, '1', ['log.retention.ms', 'num.io.threads', 'kmock.custom.config'], { v: 1, synonyms: false, label: 'broker 1, v1 without synonyms' }),
        describe(BROKER, '', null, { label: 'cluster default' }),
        describe(BROKER, '', ['log.retention.ms', 'no.such.config'], { v: 2, label: 'cluster default, keys, v2' }),
        describe(
          TOPIC,
          topic(),
          ['retention.ms', 'segment.bytes', 'segment.ms', 'max.message.bytes', 'cleanup.policy', 'compression.type', 'min.insync.replicas'],
          {
            label: 'a topic under the dynamic layers',
            expect: {
              results: [
                {
                  errorCode: 0,
                  configs: [
                    cfg('cleanup.policy', 'delete,compact', DYNAMIC_BROKER, [['log.cleanup.policy', 'delete,compact', DYNAMIC_BROKER], ['log.cleanup.policy', 'delete', DEFAULT]]),
                    cfg('compression.type', 'gzip', DYNAMIC_DEFAULT, [['compression.type', 'gzip', DYNAMIC_DEFAULT], ['compression.type', 'producer', DEFAULT]]),
                    cfg('max.message.bytes', '2000000', DYNAMIC_BROKER, [['message.max.bytes', '2000000', DYNAMIC_BROKER], ['message.max.bytes', '1048588', DEFAULT]]),
                    cfg('min.insync.replicas', '2', DYNAMIC_DEFAULT, [['min.insync.replicas', '2', DYNAMIC_DEFAULT], ['min.insync.replicas', '1', DEFAULT]]),
                    cfg('retention.ms', '100000', DYNAMIC_BROKER, [
                      ['log.retention.ms', '100000', DYNAMIC_BROKER],
                      ['log.retention.ms', ' 200000 ', DYNAMIC_DEFAULT],
                      ['log.retention.hours', '100', STATIC_BROKER],
                      ['log.retention.hours', '168', DEFAULT],
                    ]),
                    cfg('segment.bytes', '100000000', DYNAMIC_DEFAULT, [['log.segment.bytes', '100000000', DYNAMIC_DEFAULT], ['log.segment.bytes', '1073741824', DEFAULT]]),
                    cfg('segment.ms', '7200000', DYNAMIC_DEFAULT, [['log.roll.ms', '7200000', DYNAMIC_DEFAULT], ['log.roll.hours', '100', STATIC_BROKER], ['log.roll.hours', '168', DEFAULT]]),
                  ],
                },
              ],
            },
          },
        ),
        created('new', [['segment.bytes', '2000000']], { v: 5, validateOnly: true, label: 'CreateTopics v5 effective configs (validateOnly)' }),
        inc(
          [
            [BROKER, '1', [['log.retention.ms', DELETE, null], ['num.io.threads', DELETE, null], ['message.max.bytes', DELETE, null]]],
            [BROKER, '', [['log.roll.ms', DELETE, null], ['compression.type', DELETE, null]]],
          ],
          { v: 0, label: 'v0 DELETE', expect: [[0, null], [0, null]] },
        ),
        describe(BROKER, '1', ['log.retention.ms', 'num.io.threads', 'message.max.bytes', 'log.roll.ms', 'compression.type'], {
          label: 'one layer down',
          until: allOf(valueIs('log.retention.ms', '200000'), valueIs('log.roll.ms', null), valueIs('num.io.threads', '9')),
        }),
        created('new2', [], { v: 5, validateOnly: true, label: 'CreateTopics v5 effective configs (static hours)' }),
        inc([[BROKER, '', [['log.retention.ms', DELETE, null]]]], { label: 'DELETE the last retention', expect: [[0, null]] }),
        describe(TOPIC, topic(), ['retention.ms'], { label: 'retention from static hours', until: valueIs('retention.ms', '360000000') }),
        resetBroker('clear again'),
        describe(BROKER, '', null, {
          label: 'cluster default cleared',
          until: (configs) => configs.length === 1,
          expect: { results: [{ errorCode: 0, configs: [CLUSTER_MIN_ISR] }] },
        }),
      ],
    }),
  ),

  tag(
    scenario('testIncrementalAlterConfigsForBrokerErrors', {
      mirrors:
        'ConfigAdminManager.preprocess, validateBrokerConfigChange, prepareIncrementalConfigs / DynamicBrokerConfig.validateConfigs, validatedKafkaProps, processReconfiguration / KafkaConfig.validateValues / DynamicThreadPool, DynamicLogConfig, DynamicListenerConfig, LogCleaner, DynamicMetricsReporters',
      description:
        'IncrementalAlterConfigs on brokers, refused (INVALID_REQUEST unless said): another node id, a non-numeric one; configs that cannot change dynamically (one, two in the Properties order); APPEND on a non-list (INVALID_CONFIG) and on a name Kafka does not know (UNKNOWN_SERVER_ERROR); an unknown operation; security configs without a listener prefix; per-broker-only configs at the cluster level; bad types and values; KafkaConfig\'s requirements (log.roll.ms, log.retention.ms, log.cleaner.threads 0, max.connections.per.ip); thread counts beyond half/double the current value; local retention; max.connections 0; advertised listeners; an unknown metrics reporter or principal builder class; duplicate keys and null values; validateOnly changing nothing; a failed resource next to an accepted one',
      steps: [
        resetBroker(),
        inc([[BROKER, '2', [['log.retention.ms', SET, '1']]]], { label: 'another node', expect: [[E.INVALID_REQUEST, 'Unexpected broker id, expected 1, but received 2']] }),
        inc([[BROKER, 'one', [['log.retention.ms', SET, '1']]]], { label: 'not a number', expect: [[E.INVALID_REQUEST, 'Node id must be an integer, but it is: one']] }),
        inc([[BROKER, '01', [['num.io.threads', SET, '8']]], [BROKER, ' 1', [['num.io.threads', SET, '8']]]], { label: 'ids written oddly', expect: [[0, null], [E.INVALID_REQUEST]] }),
        inc([[BROKER, '1', [['log.retention.hours', SET, '1']]]], { label: 'not dynamic', expect: [[E.INVALID_REQUEST, 'Cannot update these configs dynamically: Set(log.retention.hours)']] }),
        inc([[BROKER, '', [['log.dirs', SET, '/x'], ['broker.id', SET, '3'], ['log.retention.ms', SET, '1000']]]], {
          label: 'two not dynamic',
          expect: [[E.INVALID_REQUEST, 'Cannot update these configs dynamically: Set(broker.id, log.dirs)']],
        }),
        inc([[BROKER, '1', [['message.max.bytes', APPEND, '1']]]], { label: 'APPEND to an INT', expect: [[E.INVALID_CONFIG, 'Config value append is not allowed for config key: message.max.bytes']] }),
        inc([[BROKER, '1', [['num.io.threads', SUBTRACT, '1']]]], { label: 'SUBTRACT from an INT', expect: [[E.INVALID_CONFIG, 'Config value subtract is not allowed for config key: num.io.threads']] }),
        inc([[BROKER, '1', [['kmock.unknown', APPEND, '1']]]], { label: 'APPEND to an unknown name', expect: [[E.UNKNOWN_SERVER_ERROR, null]] }),
        inc([[BROKER, '1', [['num.io.threads', SET, '9'], ['x', 5, '1']]]], { label: 'unknown operation', expect: [[E.INVALID_REQUEST, 'Unknown operations type 5']] }),
        inc([[BROKER, '1', [['ssl.keystore.type', SET, 'PKCS12']]]], {
          label: 'security config without a listener',
          expect: [[E.INVALID_REQUEST, 'These security configs can be dynamically updated only per-listener using the listener prefix: HashSet(ssl.keystore.type)']],
        }),
        inc([[BROKER, '', [['listeners', SET, 'PLAINTEXT://:9092']]]], {
          label: 'per-broker config at the cluster level',
          expect: [[E.INVALID_REQUEST, 'Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)']],
        }),
        inc([[BROKER, '', [['listener.name.plaintext.ssl.keystore.type', SET, 'PKCS12'], ['listener.name.plaintext.max.connections', SET, '10']]]], {
          label: 'per-broker listener config at the cluster level',
          expect: [[E.INVALID_REQUEST, 'Cannot update these configs at default cluster level, broker id must be specified: Set(listener.name.plaintext.ssl.keystore.type)']],
        }),
        inc([[BROKER, '1', [['message.max.bytes', SET, 'abc']]]], { label: 'not a number', expect: [[E.INVALID_REQUEST, 'Invalid value abc for configuration message.max.bytes: Not a number of type INT']] }),
        inc([[BROKER, '1', [['min.insync.replicas', SET, '3']]]], { validateOnly: true, label: 'broker-level min.insync.replicas (validateOnly)', expect: [[0, null]] }),
        inc([[BROKER, '1', [['min.insync.replicas', SET, '0']]]], { label: 'below the range', expect: [[E.INVALID_REQUEST, 'Invalid value 0 for configuration min.insync.replicas: Value must be at least 1']] }),
        inc([[BROKER, '1', [['log.cleaner.min.cleanable.ratio', SET, '1.5']]]], { label: 'above the range', expect: [[E.INVALID_REQUEST, 'Invalid value 1.5 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1']] }),
        inc([[BROKER, '1', [['log.message.timestamp.type', SET, 'Foo']]]], { label: 'not one of', expect: [[E.INVALID_REQUEST]] }),
        inc([[BROKER, '1', [['unclean.leader.election.enable', SET, 'maybe']]]], { label: 'not a boolean', expect: [[E.INVALID_REQUEST]] }),
        inc([[BROKER, '1', [['compression.gzip.level', SET, '10']]]], { label: 'gzip level', expect: [[E.INVALID_REQUEST]] }),
        inc([[BROKER, '1', [['log.roll.ms', SET, '0']]]], { label: 'log.roll.ms 0', expect: [[E.INVALID_REQUEST, 'requirement failed: log.roll.ms must be greater than or equal to 1']] }),
        inc([[BROKER, '1', [['log.retention.ms', SET, '0']]]], { label: 'log.retention.ms 0', expect: [[E.INVALID_REQUEST, 'requirement failed: log.retention.ms must be unlimited (-1) or, greater than or equal to 1']] }),
        inc([[BROKER, '1', [['log.retention.ms', SET, '-5']]]], { validateOnly: true, label: 'log.retention.ms -5 (no limit)', expect: [[0, null]] }),
        inc([[BROKER, '1', [['log.cleaner.threads', SET, '0']]]], { label: 'no cleaner threads', expect: [[E.INVALID_REQUEST, '/ by zero']] }),
        inc([[BROKER, '1', [['log.cleaner.dedupe.buffer.size', SET, '1000']]]], {
          label: 'dedupe buffer',
          expect: [[E.INVALID_REQUEST, 'requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.']],
        }),
        inc([[BROKER, '1', [['max.connections.per.ip', SET, '0']]]], {
          label: 'max.connections.per.ip 0',
          expect: [[E.INVALID_REQUEST, 'requirement failed: max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.']],
        }),
        inc([[BROKER, '1', [['num.io.threads', SET, '100']]]], {
          label: 'more than double the io threads',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Dynamic thread count update validation failed for num.io.threads=100, value should not be greater than double the current value 8')]],
        }),
        inc([[BROKER, '1', [['background.threads', SET, '4']]]], {
          label: 'less than half the background threads',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Dynamic thread count update validation failed for background.threads=4, value should be at least half the current value 10')]],
        }),
        inc([[BROKER, '1', [['num.replica.fetchers', SET, '0']]]], {
          label: 'no replica fetchers',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Dynamic thread count update validation failed for num.replica.fetchers=0, value should be at least 1')]],
        }),
        inc([[BROKER, '1', [['num.network.threads', SET, '7']]]], {
          label: 'more than double the network threads',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Dynamic thread count update validation failed for num.network.threads=7, value should not be greater than double the current value 3')]],
        }),
        inc([[BROKER, '1', [['log.cleaner.threads', SET, '3']]]], {
          label: 'more than double the cleaner threads',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Log cleaner threads cannot be increased to more than double the current value 1')]],
        }),
        inc([[BROKER, '1', [['log.local.retention.ms', SET, '-1']]]], {
          label: 'local retention -1',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Invalid value -1 for configuration log.local.retention.ms: Value must not be -1 as log.retention.ms value is set as 360000000.')]],
        }),
        inc([[BROKER, '1', [['log.local.retention.ms', SET, '400000000']]]], {
          label: 'local retention above retention',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Invalid value 400000000 for configuration log.local.retention.ms: Value must not be more than log.retention.ms property value: 360000000')]],
        }),
        inc([[BROKER, '1', [['max.connections', SET, '0']]]], { label: 'max.connections 0', expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Invalid max.connections 0')]] }),
        inc([[BROKER, '1', [['advertised.listeners', SET, 'PLAINTEXT://elsewhere:9092']]]], {
          label: 'advertised listeners',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Advertised listeners cannot be altered when using a Raft-based metadata quorum.')]],
        }),
        inc([[BROKER, '1', [['metric.reporters', SET, 'com.example.NoSuchReporter']]]], {
          label: 'unknown metrics reporter',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Validation of dynamic config update of Set(metric.reporters) failed with class class kafka.server.DynamicMetricsReporters')]],
        }),
        inc([[BROKER, '1', [['principal.builder.class', SET, 'com.example.NoSuchBuilder']]]], {
          label: 'unknown class',
          expect: [[E.INVALID_REQUEST, 'Invalid value com.example.NoSuchBuilder for configuration principal.builder.class: Class com.example.NoSuchBuilder could not be found.']],
        }),
        inc([[BROKER, '1', [['num.io.threads', SET, '9'], ['num.io.threads', SET, '10']]]], { label: 'duplicate keys', expect: [[E.INVALID_REQUEST, 'Error due to duplicate config keys']] }),
        inc([[BROKER, '1', [['num.io.threads', SET, null], ['kmock.x', DELETE, null]]]], { label: 'null value', expect: [[E.INVALID_REQUEST, 'Null value not supported for : num.io.threads']] }),
        inc([[BROKER, '1', [['num.io.threads', SET, '16'], ['log.retention.ms', SET, '5000']]]], { validateOnly: true, label: 'validateOnly', expect: [[0, null]] }),
        inc([[BROKER, '1', [['log.roll.ms', SET, '0']]], [BROKER, '', [['log.segment.bytes', SET, '50000000']]]], { label: 'one refused, one accepted', expect: [[E.INVALID_REQUEST], [0, null]] }),
        describe(BROKER, '1', ['num.io.threads', 'log.retention.ms', 'log.roll.ms', 'log.segment.bytes'], {
          label: 'only the accepted change',
          until: valueIs('log.segment.bytes', '50000000'),
        }),
        resetBroker('clear again'),
      ],
    }),
  ),

  // ---- brokers, AlterConfigs ----
  tag(
    scenario('testAlterConfigsForBroker', {
      mirrors: 'DynamicBrokerReconfigurationTest (legacy alterConfigs) / ConfigAdminManager.preprocess(AlterConfigsRequestData) / ConfigurationControlManager.legacyAlterConfigResource',
      description:
        'AlterConfigs v0/v1/v2 on broker "1" and "": the configs given replace the resource\'s (one not given goes), described after each; validateOnly; refused: not dynamic, per-broker only at the cluster level, a bad value, another node, thread counts; BROKER_LOGGER ("Unknown resource type 8")',
      steps: [
        resetBroker(),
        alt([[BROKER, '1', [['log.retention.ms', '5000'], ['log.segment.bytes', '100000000']]], [BROKER, '', [['log.retention.ms', '7000'], ['num.io.threads', '9'], ['min.insync.replicas', '1']]]], {
          v: 0,
          label: 'v0 per broker and cluster default',
          expect: [[0, null], [0, null]],
        }),
        describe(BROKER, '1', ['log.retention.ms', 'log.segment.bytes', 'num.io.threads'], {
          label: 'after v0',
          until: allOf(valueIs('log.retention.ms', '5000'), valueIs('num.io.threads', '9')),
        }),
        alt([[BROKER, '1', [['log.segment.bytes', '100000001']]]], { v: 1, label: 'v1 replaces broker 1', expect: [[0, null]] }),
        describe(BROKER, '1', ['log.retention.ms', 'log.segment.bytes'], {
          label: 'log.retention.ms back to the cluster default',
          until: allOf(valueIs('log.retention.ms', '7000'), valueIs('log.segment.bytes', '100000001')),
        }),
        alt([[BROKER, '', [['num.io.threads', '12'], ['min.insync.replicas', '1']]]], { validateOnly: true, label: 'validateOnly', expect: [[0, null]] }),
        describe(BROKER, '', null, { label: 'cluster default unchanged' }),
        alt([[BROKER, '1', [['log.retention.hours', '1']]]], { label: 'not dynamic', expect: [[E.INVALID_REQUEST, 'Cannot update these configs dynamically: Set(log.retention.hours)']] }),
        alt([[BROKER, '', [['advertised.listeners', 'PLAINTEXT://x:1']]]], {
          label: 'per-broker only',
          expect: [[E.INVALID_REQUEST, 'Cannot update these configs at default cluster level, broker id must be specified: Set(advertised.listeners)']],
        }),
        alt([[BROKER, '1', [['log.retention.ms', 'x']]]], { label: 'bad value', expect: [[E.INVALID_REQUEST, 'Invalid value x for configuration log.retention.ms: Not a number of type LONG']] }),
        alt([[BROKER, '7', []]], { label: 'another node', expect: [[E.INVALID_REQUEST, 'Unexpected broker id, expected 1, but received 7']] }),
        alt([[BROKER, '1', [['num.io.threads', '1']]]], {
          label: 'less than half the threads',
          expect: [[E.INVALID_REQUEST, INVALID_DYNAMIC('Dynamic thread count update validation failed for num.io.threads=1, value should be at least half the current value 9')]],
        }),
        alt([[BROKER, '1', [['num.io.threads', null]]]], { label: 'null value', expect: [[E.INVALID_REQUEST, 'Null value not supported for : num.io.threads']] }),
        alt([[BROKER_LOGGER, '1', [['root', 'DEBUG']]]], { label: 'broker logger', expect: [[E.INVALID_REQUEST, 'Unknown resource type 8']] }),
        resetBroker('clear again'),
        describe(BROKER, '1', ['log.retention.ms', 'log.segment.bytes', 'num.io.threads'], {
          label: 'cleared',
          until: allOf(valueIs('log.retention.ms', null), valueIs('num.io.threads', '8')),
        }),
      ],
    }),
  ),

  // ---- broker loggers ----
  tag(
    scenario('testIncrementalAlterConfigsBrokerLoggers', {
      mirrors: 'PlaintextAdminIntegrationTest.testIncrementalAlterConfigsForLog4jLogLevels / RuntimeLoggerManager.applyChangesForResource / Log4jController',
      description:
        'IncrementalAlterConfigs on BROKER_LOGGER "1": the root logger set (then described), validateOnly; refused: a level not in LogLevelConfig.VALID_LOG_LEVELS (lowercase), a logger that does not exist (SET and DELETE), DELETE of root, APPEND and SUBTRACT, an unknown operation (UNKNOWN_SERVER_ERROR), another node id (Kafka prints its own twice), "" and a non-number',
      steps: [
        inc([[BROKER_LOGGER, '1', [['root', SET, 'ERROR']]]], { v: 0, label: 'v0 root ERROR', expect: [[0, null]] }),
        describe(BROKER_LOGGER, '1', ['root'], { label: 'root', expect: { results: [{ errorCode: 0, configs: [{ name: 'root', value: 'ERROR', configSource: LOGGER, readOnly: false, synonyms: [] }] }] } }),
        inc([[BROKER_LOGGER, '1', [['root', SET, 'TRACE']]]], { validateOnly: true, label: 'validateOnly', expect: [[0, null]] }),
        describe(BROKER_LOGGER, '1', ['root'], { label: 'root unchanged' }),
        inc([[BROKER_LOGGER, '1', [['root', SET, 'debug']]]], {
          label: 'lowercase level',
          expect: [[E.INVALID_CONFIG, 'Cannot set the log level of root to debug as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN']],
        }),
        inc([[BROKER_LOGGER, '1', [['kmock.no.such.logger', SET, 'DEBUG']]]], { label: 'no such logger', expect: [[E.INVALID_CONFIG, 'Logger kmock.no.such.logger does not exist!']] }),
        inc([[BROKER_LOGGER, '1', [['kmock.no.such.logger', DELETE, null]]]], { label: 'DELETE no such logger', expect: [[E.INVALID_CONFIG, 'Logger kmock.no.such.logger does not exist!']] }),
        inc([[BROKER_LOGGER, '1', [['root', DELETE, null]]]], { label: 'DELETE root', expect: [[E.INVALID_REQUEST, 'Removing the log level of the root logger is not allowed']] }),
        inc([[BROKER_LOGGER, '1', [['root', APPEND, 'INFO']]]], { label: 'APPEND', expect: [[E.INVALID_REQUEST, 'APPEND operation is not allowed for the BROKER_LOGGER resource']] }),
        inc([[BROKER_LOGGER, '1', [['root', SUBTRACT, 'INFO']]]], { label: 'SUBTRACT', expect: [[E.INVALID_REQUEST, 'SUBTRACT operation is not allowed for the BROKER_LOGGER resource']] }),
        inc([[BROKER_LOGGER, '1', [['root', 9, 'INFO']]]], { label: 'unknown operation', expect: [[E.UNKNOWN_SERVER_ERROR, null]] }),
        inc([[BROKER_LOGGER, '2', [['root', SET, 'INFO']]]], { label: 'another node', expect: [[E.INVALID_REQUEST, 'Unexpected node id. Expected 1, but received 1']] }),
        inc([[BROKER_LOGGER, '', [['root', SET, 'INFO']]], [BROKER_LOGGER, 'x', [['root', SET, 'INFO']]]], {
          label: '"" and a non-number',
          expect: [[E.INVALID_REQUEST, 'Node id must be an integer, but it is: '], [E.INVALID_REQUEST, 'Node id must be an integer, but it is: x']],
        }),
        inc([[BROKER_LOGGER, '1', [['root', SET, 'WARN']]]], { label: 'root WARN', expect: [[0, null]] }),
        describe(BROKER_LOGGER, '1', ['root'], { label: 'root WARN' }),
      ],
    }),
  ),

  // ---- client-metrics subscriptions ----
  tag(
    scenario('testAlterConfigsClientMetrics', {
      mirrors: 'ClientMetricsConfigs.validate / ControllerConfigurationValidator (CLIENT_METRICS) / ConfigHelper.describeConfigs (CLIENT_METRICS)',
      description:
        'AlterConfigs and IncrementalAlterConfigs on CLIENT_METRICS subscriptions: set, described (every config, whatever keys are asked for), replaced, deleted; refused: an empty name, an unknown config, an interval out of range and not a number, a bad match pattern, APPEND (its schema has no LIST)',
      steps: [
        alt([[CLIENT_METRICS, 'sub1', [['interval.ms', '1000'], ['metrics', 'org.apache.kafka.producer.']]]], { label: 'set', expect: [[0, null]] }),
        describe(CLIENT_METRICS, 'sub1', ['interval.ms'], { label: 'described', until: valueIs('interval.ms', '1000') }),
        inc([[CLIENT_METRICS, 'sub2', [['match', SET, 'client_id=x.*,client_software_name=kafkajs'], ['interval.ms', SET, '2000']]]], { label: 'incremental', expect: [[0, null]] }),
        describe(CLIENT_METRICS, 'sub2', null, { label: 'sub2', until: valueIs('interval.ms', '2000') }),
        inc([[CLIENT_METRICS, 'sub1', [['metrics', APPEND, 'x']]]], { label: 'APPEND', expect: [[E.INVALID_CONFIG, "Can't APPEND to key metrics because its type is not LIST."]] }),
        alt([[CLIENT_METRICS, 'sub1', [['interval.ms', '50']]]], {
          label: 'interval too short',
          expect: [[E.INVALID_REQUEST, 'Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)']],
        }),
        alt([[CLIENT_METRICS, 'sub1', [['interval.ms', 'soon']]]], { label: 'interval not a number', expect: [[E.UNKNOWN_SERVER_ERROR, null]] }),
        alt([[CLIENT_METRICS, 'sub1', [['color', 'blue']]]], { label: 'unknown config', expect: [[E.INVALID_REQUEST, 'Unknown client metrics configuration: color']] }),
        inc([[CLIENT_METRICS, 'sub3', [['match', SET, 'bogus=x']]]], { label: 'bad match', expect: [[E.INVALID_CONFIG, 'Illegal client matching pattern: bogus=x']] }),
        inc([[CLIENT_METRICS, 'sub3', [['match', SET, 'client_id']]]], { label: 'match without a value', expect: [[E.INVALID_CONFIG, 'Illegal client matching pattern: client_id']] }),
        alt([[CLIENT_METRICS, '', []]], { label: 'empty name', expect: [[E.INVALID_REQUEST, "Subscription name can't be empty"]] }),
        alt([[CLIENT_METRICS, 'sub1', [['interval.ms', '3000']]]], { label: 'replace', expect: [[0, null]] }),
        describe(CLIENT_METRICS, 'sub1', null, { label: 'replaced', until: allOf(valueIs('interval.ms', '3000'), valueIs('metrics', undefined)) }),
        inc([[CLIENT_METRICS, 'sub1', [['interval.ms', DELETE, null]]], [CLIENT_METRICS, 'sub2', [['match', DELETE, null], ['interval.ms', DELETE, null]]]], {
          label: 'delete everything',
          expect: [[0, null], [0, null]],
        }),
        describe(CLIENT_METRICS, 'sub2', null, { label: 'gone', until: (configs) => configs.length === 0 }),
      ],
    }),
  ),

  // ---- resource types ----
  tag(
    scenario('testAlterConfigsUnknownResourceTypes', {
      mirrors: 'ConfigAdminManager.preprocess ("Unknown resource type") / ConfigResource.Type.forId',
      description:
        'IncrementalAlterConfigs and AlterConfigs with resource types UNKNOWN (0), 1, GROUP (32: Kafka 3.9 has no group configs) and 99, alone and next to a topic: INVALID_REQUEST "Unknown resource type N" for each, the topic answered as usual',
      steps: [
        createTopic('a', 't', 1),
        inc([[0, 'x', [['a', SET, '1']]], [1, 'x', []], [32, 'grp', [['consumer.session.timeout.ms', SET, '45000']]], [99, 'x', []], [TOPIC, topic(), [['retention.ms', SET, '1000']]]], {
          label: 'incremental',
          expect: [
            [E.INVALID_REQUEST, 'Unknown resource type 0'],
            [E.INVALID_REQUEST, 'Unknown resource type 1'],
            [E.INVALID_REQUEST, 'Unknown resource type 32'],
            [E.INVALID_REQUEST, 'Unknown resource type 99'],
            [0, null],
          ],
        }),
        alt([[0, 'x', []], [32, 'grp', []], [TOPIC, topic(), [['retention.ms', '2000']]]], {
          label: 'legacy',
          expect: [[E.INVALID_REQUEST, 'Unknown resource type 0'], [E.INVALID_REQUEST, 'Unknown resource type 32'], [0, null]],
        }),
        describe(TOPIC, topic(), ['retention.ms'], { label: 'the topic changed', until: valueIs('retention.ms', '2000') }),
      ],
    }),
  ),

  // ---- what makes Kafka's controller fail a whole request ----
  tag(
    scenario('testIncrementalAlterConfigsUnknownOperationForTopic', {
      mirrors: 'ControllerApis.handleIncrementalAlterConfigs (AlterConfigOp.OpType.forId gives null) / ConfigurationControlManager.incrementalAlterConfigResource (switch on it)',
      description:
        'An unknown operation (7) on a topic: the controller\'s event throws NullPointerException, so every resource forwarded with it (another topic, the cluster default) gets UNKNOWN_SERVER_ERROR and nothing changes; a BROKER_LOGGER and a refused broker resource of the same request keep their own answers (handled by the broker before forwarding)',
      steps: [
        resetBroker(),
        createTopic('a', 't', 1),
        inc(
          [
            [TOPIC, topic(), [['retention.ms', 7, '1']]],
            [TOPIC, topic('missing'), [['segment.ms', SET, '1000']]],
            [BROKER, '', [['log.segment.bytes', SET, '50000000']]],
            [BROKER, '1', [['log.retention.hours', SET, '1']]],
            [BROKER_LOGGER, '1', [['root', SET, 'INFO']]],
          ],
          {
            label: 'unknown operation',
            expect: [[E.UNKNOWN_SERVER_ERROR, null], [E.UNKNOWN_SERVER_ERROR, null], [E.UNKNOWN_SERVER_ERROR, null], [E.INVALID_REQUEST], [0, null]],
          },
        ),
        describe(BROKER, '', null, { label: 'no cluster default set', expect: { results: [{ errorCode: 0, configs: [CLUSTER_MIN_ISR] }] } }),
      ],
    }),
  ),

  // ---- AlterConfigs with a resource twice (a Kafka 3.9.1 defect) ----
  tag(
    scenario('testAlterConfigsDuplicateResource', {
      mirrors: 'ConfigAdminManager.preprocess(AlterConfigsRequestData) ("Each resource must appear at most once.") / AlterConfigsResponse.errorCounts',
      description:
        'AlterConfigs naming a topic twice: Kafka 3.9\'s broker answers both INVALID_REQUEST "Each resource must appear at most once.", then throws building the answer (AlterConfigsResponse.errors collects the results into a map keyed by resource: IllegalStateException "Duplicate key") and never answers; kmock answers what the broker decided (causes.ts: alter-configs-duplicate-resource-never-answered)',
      steps: [
        createTopic('a', 't', 1),
        alt([[TOPIC, topic(), [['retention.ms', '1']]], [TOPIC, topic(), []]], {
          conn: 'b',
          label: 'a topic twice',
          timeoutMs: 1000,
          expect: [
            [E.INVALID_REQUEST, 'Each resource must appear at most once.'],
            [E.INVALID_REQUEST, 'Each resource must appear at most once.'],
          ],
        }),
      ],
    }),
  ),
];

