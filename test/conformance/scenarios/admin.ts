// Metadata, CreateTopics, DeleteTopics, CreatePartitions: answers per version and the error codes
// for unknown, invalid and duplicate topics (KafkaApisTest / CreateTopicsRequestTest /
// MetadataRequestTest / DeleteTopicsRequestTest in Kafka).
import type { Scenario } from '../runner.js';
import { E, createTopic, scenario, send, wait } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['admin'], groups: s.groups ?? [] });

const topic = (name: string, numPartitions = 1, extra: Record<string, unknown> = {}) => ({
  name,
  numPartitions,
  replicationFactor: 1,
  assignments: [],
  configs: [],
  ...extra,
});

export const adminScenarios: Scenario[] = [
  tag(
    scenario('testMetadataVersions', {
      mirrors: 'MetadataRequestTest / KafkaApis.handleTopicMetadataRequest',
      description: 'Metadata v0-v12 for an existing two-partition topic (brokers, controller, cluster id, partitions, topic id, authorized operations)',
      steps: [
        createTopic('a', 't', 2),
        ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((v) =>
          send('a', 3, v, (c) => ({
            topics: [{ name: c.t(), topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
            allowAutoTopicCreation: v < 4,
            includeClusterAuthorizedOperations: v >= 8 && v <= 10,
            includeTopicAuthorizedOperations: v >= 8,
          }), { expect: { topics: [{ errorCode: 0 }] } }),
        ),
      ],
    }),
  ),
  tag(
    scenario('testMetadataUnknownTopic', {
      mirrors: 'MetadataRequestTest.testAutoTopicCreation / testNoTopicsRequest (allowAutoTopicCreation=false)',
      description: 'an unknown topic without auto-creation → UNKNOWN_TOPIC_OR_PARTITION; an empty topic list → no topics; an unknown topic id (v12)',
      steps: [
        send('a', 3, 4, (c) => ({ topics: [{ name: c.t('missing') }], allowAutoTopicCreation: false }), { expect: { topics: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] } }),
        send('a', 3, 12, (c) => ({ topics: [{ name: c.t('missing') }], allowAutoTopicCreation: false })),
        send('a', 3, 12, { topics: [], allowAutoTopicCreation: false }, { expect: { topics: [] } }),
        send('a', 3, 12, { topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], allowAutoTopicCreation: false }, { label: 'unknown topic id' }),
      ],
    }),
  ),
  tag(
    scenario('testMetadataAutoTopicCreation', {
      mirrors: 'MetadataRequestTest.testAutoTopicCreation (KRaft: the topic appears once the controller created it)',
      description: 'v1 (always auto-creates) and v9 with allowAutoTopicCreation: the first answer, then the topic after the controller created it',
      steps: [
        send('a', 3, 1, (c) => ({ topics: [{ name: c.t('auto1') }] })),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t('auto9') }], allowAutoTopicCreation: true })),
        wait(1500),
        send('a', 3, 1, (c) => ({ topics: [{ name: c.t('auto1') }] }), { expect: { topics: [{ errorCode: 0 }] } }),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t('auto9') }], allowAutoTopicCreation: false }), { expect: { topics: [{ errorCode: 0 }] } }),
      ],
    }),
  ),
  tag(
    scenario('testMetadataInvalidTopicNames', {
      mirrors: 'MetadataRequestTest.testAutoCreateTopicWithInvalidReplicationFactor / testInvalidTopicName',
      description: 'invalid topic names (space, "..", 250 characters) → INVALID_TOPIC_EXCEPTION, with and without auto-creation',
      steps: [
        send('a', 3, 9, { topics: [{ name: 'bad name' }, { name: '..' }, { name: 'x'.repeat(250) }], allowAutoTopicCreation: true }),
        send('a', 3, 9, { topics: [{ name: 'bad name' }], allowAutoTopicCreation: false }),
        send('a', 3, 0, { topics: [{ name: 'bad$name' }] }),
      ],
    }),
  ),
  tag(
    scenario('testMetadataAllTopics', {
      mirrors: 'MetadataRequestTest.testAllTopicsRequest',
      description: 'Metadata with null topics (v1+) and an empty list at v0 (all topics) — only this scenario\'s topics are compared',
      steps: [
        createTopic('a', 't', 1),
        createTopic('a', 'u', 3),
        send('a', 3, 0, { topics: [] }, { label: 'v0 all topics' }),
        send('a', 3, 1, { topics: null }),
        send('a', 3, 12, { topics: null, allowAutoTopicCreation: false }),
      ],
    }),
  ),
  tag(
    scenario('testCreateTopicsVersions', {
      mirrors: 'CreateTopicsRequestTest.testValidCreateTopicsRequests',
      description: 'CreateTopics v0-v7: one topic per version; v5+ answers carry partitions, replication factor and configs; v7 the topic id',
      steps: [0, 1, 2, 3, 4, 5, 6, 7].map((v) =>
        send('a', 19, v, (c) => ({ topics: [topic(c.t(`v${v}`), 2)], timeoutMs: 5000, validateOnly: false }), { expect: { topics: [{ errorCode: 0 }] }, awaitTopics: true }),
      ),
    }),
  ),
  tag(
    scenario('testCreateTopicsErrors', {
      mirrors: 'CreateTopicsRequestTest.testErrorCreateTopicsRequests / testInvalidCreateTopicsRequests / testCreateTopicsRequestVersions',
      description: 'already exists, invalid name, 0 partitions, replication factor 3 on one broker, an unknown config, a bad config value, duplicate names in one request, validateOnly',
      steps: [
        createTopic('a', 'exists', 1),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('exists'))], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.TOPIC_ALREADY_EXISTS }] } }),
        send('a', 19, 5, { topics: [topic('bad name')], timeoutMs: 5000 }, { expect: { topics: [{ errorCode: E.INVALID_TOPIC_EXCEPTION }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('zero'), 0)], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.INVALID_PARTITIONS }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('rf3'), 1, { replicationFactor: 3 })], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.INVALID_REPLICATION_FACTOR }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('cfg'), 1, { configs: [{ name: 'no.such.config', value: '1' }] })], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.INVALID_CONFIG }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('cfg2'), 1, { configs: [{ name: 'cleanup.policy', value: 'sideways' }] })], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.INVALID_CONFIG }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('dup')), topic(c.t('dup'))], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.INVALID_REQUEST }] } }),
        send('a', 19, 5, (c) => ({ topics: [topic(c.t('vonly'), 3)], timeoutMs: 5000, validateOnly: true }), { expect: { topics: [{ errorCode: 0 }] } }),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t('vonly') }], allowAutoTopicCreation: false }), { expect: { topics: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] } }),
        send('a', 19, 2, (c) => ({ topics: [topic(c.t('dflt2'), -1, { replicationFactor: -1 })], timeoutMs: 5000 }), { label: 'default partitions and replication (v4+ only)' }),
        send('a', 19, 4, (c) => ({ topics: [topic(c.t('dflt4'), -1, { replicationFactor: -1 })], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: 0 }] }, awaitTopics: true }),
        send('a', 19, 1, (c) => ({ topics: [topic(c.t('exists'))], timeoutMs: 5000 }), { expect: { topics: [{ errorCode: E.TOPIC_ALREADY_EXISTS }] } }),
      ],
    }),
  ),
  tag(
    scenario('testDeleteTopics', {
      mirrors: 'DeleteTopicsRequestTest.testValidDeleteTopicRequests / testErrorDeleteTopicRequests',
      description: 'DeleteTopics v0-v6: unknown topic → UNKNOWN_TOPIC_OR_PARTITION; deleting existing topics; Metadata afterwards',
      steps: [
        ...[0, 1, 2, 3, 4, 5, 6].map((v) => createTopic('a', `d${v}`)),
        send('a', 20, 1, (c) => ({ topicNames: [c.t('missing')], timeoutMs: 5000 }), { expect: { responses: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] } }),
        send('a', 20, 5, (c) => ({ topicNames: [c.t('missing')], timeoutMs: 5000 }), { expect: { responses: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] } }),
        ...[0, 1, 2, 3, 4, 5].map((v) => send('a', 20, v, (c) => ({ topicNames: [c.t(`d${v}`)], timeoutMs: 5000 }), { expect: { responses: [{ errorCode: 0 }] } })),
        send('a', 20, 6, (c) => ({ topics: [{ name: c.t('d6'), topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 5000 }), { expect: { responses: [{ errorCode: 0 }] } }),
        send('a', 20, 6, (c) => ({ topics: [{ name: c.t('missing'), topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 5000 })),
        wait(300),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t('d0') }, { name: c.t('d6') }], allowAutoTopicCreation: false })),
      ],
    }),
  ),
  tag(
    scenario('testCreatePartitions', {
      mirrors: 'CreatePartitionsRequestTest / KafkaApis.handleCreatePartitionsRequest',
      description: 'CreatePartitions: grow 1 → 3 (NONE); shrink (INVALID_PARTITIONS); unknown topic (UNKNOWN_TOPIC_OR_PARTITION); validateOnly',
      steps: [
        createTopic('a', 't', 1),
        send('a', 37, 1, (c) => ({ topics: [{ name: c.t(), count: 3, assignments: null }], timeoutMs: 5000, validateOnly: false }), { expect: { results: [{ errorCode: 0 }] } }),
        send('a', 37, 1, (c) => ({ topics: [{ name: c.t(), count: 2, assignments: null }], timeoutMs: 5000, validateOnly: false }), { expect: { results: [{ errorCode: E.INVALID_PARTITIONS }] } }),
        send('a', 37, 3, (c) => ({ topics: [{ name: c.t('missing'), count: 2, assignments: null }], timeoutMs: 5000, validateOnly: false }), { expect: { results: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] } }),
        send('a', 37, 2, (c) => ({ topics: [{ name: c.t(), count: 5, assignments: null }], timeoutMs: 5000, validateOnly: true }), { expect: { results: [{ errorCode: 0 }] } }),
        wait(300),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t() }], allowAutoTopicCreation: false })),
      ],
    }),
  ),
];
