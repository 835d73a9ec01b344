// The data path: Produce (v3-v11) of raw v2 record batches built with kmock's records codec,
// Fetch (v4-v17, by name and by topic id, long poll), ListOffsets (v0-v9: earliest, latest,
// max timestamp, by timestamp), and their error codes.
import type { Ctx, Scenario } from '../runner.js';
import { encodeBatch, type RecordBatchInput } from '../../../src/codec/records/index.js';
import { E, collect, createTopic, parked, scenario, send, wait } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['data'], groups: [] });
const T0 = 1_700_000_000_000;

/** A v2 batch of `n` records "k<i>"/"v<i>" with fixed timestamps T0 + base + i. */
function batch(n: number, base = 0, extra: Partial<RecordBatchInput> = {}): Buffer {
  return encodeBatch({
    baseTimestamp: T0 + base,
    records: Array.from({ length: n }, (_, i) => ({ key: `k${base + i}`, value: `v${base + i}`, timestampDelta: i, headers: i === 0 ? [{ key: 'h', value: 'x' }] : [] })),
    ...extra,
  });
}

const produce = (v: number, records: (c: Ctx) => Buffer | null, o: { topic?: string; partition?: number; acks?: number } = {}) => (c: Ctx) => ({
  transactionalId: null,
  acks: o.acks ?? -1,
  timeoutMs: 5000,
  topicData: [{ name: c.t(o.topic), partitionData: [{ index: o.partition ?? 0, records: records(c) }] }],
});

function fetchBody(v: number, offset: number, o: { topic?: string; maxWaitMs?: number; minBytes?: number; isolation?: number; byId?: boolean; partition?: number } = {}) {
  return (c: Ctx) => ({
    replicaId: -1,
    maxWaitMs: o.maxWaitMs ?? 0,
    minBytes: o.minBytes ?? 0,
    maxBytes: 1048576,
    isolationLevel: o.isolation ?? 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: o.byId ? '' : c.t(o.topic),
        topicId: o.byId ? c.v('tid', 'AAAAAAAAAAAAAAAAAAAAAA') : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [{ partition: o.partition ?? 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1048576 }],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
}

const listOffsets = (v: number, timestamps: number[], o: { topic?: string; isolation?: number } = {}) => (c: Ctx) => ({
  replicaId: -1,
  isolationLevel: o.isolation ?? 0,
  topics: [{ name: c.t(o.topic), partitions: timestamps.map((ts, i) => ({ partitionIndex: i === 0 ? 0 : 0, currentLeaderEpoch: -1, timestamp: ts, maxNumOffsets: 1 })) }],
});

const captureTopicId = {
  capture: (r: { topics: Array<{ topicId: string }> }, c: Ctx) => c.set('tid', r.topics[0]?.topicId),
};

export const dataScenarios: Scenario[] = [
  tag(
    scenario('testProduceFetchVersions', {
      mirrors: 'ProduceRequestTest / FetchRequestTest (offsets, high watermark, log start offset, records returned as stored)',
      description: 'three-record batches produced at v3, v5, v7, v8, v9, v10, v11 (offsets 0, 3, …); fetched at v4, v7, v11, v12, v13 (topic id), v15, v16, v17',
      steps: [
        createTopic('a', 't', 1),
        ...[3, 5, 7, 8, 9, 10, 11].map((v, i) =>
          send('a', 0, v, produce(v, () => batch(3, i * 3)), { expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: i * 3 }] }] } }),
        ),
        send('a', 3, 12, (c) => ({ topics: [{ name: c.t() }], allowAutoTopicCreation: false }), captureTopicId),
        send('a', 1, 4, fetchBody(4, 0)),
        send('a', 1, 7, fetchBody(7, 3)),
        send('a', 1, 11, fetchBody(11, 6)),
        send('a', 1, 12, fetchBody(12, 9)),
        send('a', 1, 13, fetchBody(13, 12, { byId: true })),
        send('a', 1, 15, fetchBody(15, 15, { byId: true })),
        send('a', 1, 16, fetchBody(16, 18, { byId: true })),
        send('a', 1, 17, fetchBody(17, 21, { byId: true })),
      ],
    }),
  ),
  tag(
    scenario('testProduceErrors', {
      mirrors: 'ProduceRequestTest.testProduceToNonExistentTopic / testCorruptLz4ProduceRequest / KafkaApisTest (acks validation)',
      description: 'unknown topic (Produce never auto-creates) and partition → UNKNOWN_TOPIC_OR_PARTITION; acks=2 → INVALID_REQUIRED_ACKS; a corrupt CRC → CORRUPT_MESSAGE; a magic-1 message set at v3+',
      steps: [
        createTopic('a', 't', 1),
        send('a', 0, 9, produce(9, () => batch(1), { topic: 'missing' }), { expect: { responses: [{ partitionResponses: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] }] } }),
        send('a', 3, 9, (c) => ({ topics: [{ name: c.t('missing') }], allowAutoTopicCreation: false })),
        send('a', 0, 9, produce(9, () => batch(1), { partition: 5 }), { expect: { responses: [{ partitionResponses: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] }] } }),
        send('a', 0, 9, produce(9, () => batch(1), { acks: 2 }), { expect: { responses: [{ partitionResponses: [{ errorCode: E.INVALID_REQUIRED_ACKS }] }] } }),
        send('a', 0, 9, produce(9, () => {
          const b = batch(2);
          b[b.length - 1] ^= 0xff;
          return b;
        }), { expect: { responses: [{ partitionResponses: [{ errorCode: E.CORRUPT_MESSAGE }] }] } }),
        send('a', 0, 3, produce(3, () => {
          const b = batch(1);
          b.writeInt8(1, 16);
          return b;
        }), { label: 'magic byte 1 in a v2 layout' }),
        send('a', 0, 9, produce(9, () => Buffer.alloc(0)), { label: 'empty records' }),
        send('a', 0, 9, produce(9, () => batch(1)), { expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] } }),
      ],
    }),
  ),
  tag(
    scenario('testProduceAcksZero', {
      mirrors: 'ProduceRequestTest (acks=0: no response)',
      description: 'a Produce with acks=0 gets no answer; the records are appended (visible to a later Fetch and ListOffsets)',
      steps: [
        createTopic('a', 't', 1),
        send('a', 0, 9, produce(9, () => batch(2), { acks: 0 }), { noResponse: true }),
        wait(200),
        send('a', 2, 7, listOffsets(7, [-1])),
        send('a', 1, 12, fetchBody(12, 0)),
      ],
    }),
  ),
  tag(
    scenario('testListOffsetsVersions', {
      mirrors: 'ListOffsetsRequestTest (earliest -2, latest -1, max timestamp -3, by timestamp)',
      description: 'ListOffsets v0-v9 on an empty and a written partition: earliest, latest, max timestamp (v7+), by timestamp; unknown partition',
      steps: [
        createTopic('a', 't', 1),
        send('a', 2, 1, listOffsets(1, [-1])),
        send('a', 2, 7, listOffsets(7, [-3])),
        send('a', 0, 9, produce(9, () => batch(3, 0))),
        send('a', 0, 9, produce(9, () => batch(3, 10))),
        send('a', 2, 0, listOffsets(0, [-1])),
        send('a', 2, 0, listOffsets(0, [-2])),
        ...[1, 2, 3, 4, 5, 6].map((v) => send('a', 2, v, listOffsets(v, [-2]))),
        ...[1, 4, 6, 8].map((v) => send('a', 2, v, listOffsets(v, [-1]))),
        send('a', 2, 7, listOffsets(7, [-3])),
        send('a', 2, 9, listOffsets(9, [-3])),
        send('a', 2, 5, listOffsets(5, [T0 + 1])),
        send('a', 2, 5, listOffsets(5, [T0 + 11])),
        send('a', 2, 5, listOffsets(5, [T0 + 100])),
        send('a', 2, 2, listOffsets(2, [-1], { isolation: 1 })),
        send('a', 2, 5, (c) => ({ replicaId: -1, topics: [{ name: c.t(), partitions: [{ partitionIndex: 4, timestamp: -1 }] }] }), { label: 'unknown partition' }),
        send('a', 2, 5, (c) => ({ replicaId: -1, topics: [{ name: c.t('missing'), partitions: [{ partitionIndex: 0, timestamp: -1 }] }] }), { label: 'unknown topic' }),
      ],
    }),
  ),
  tag(
    scenario('testFetchErrorsAndLongPoll', {
      mirrors: 'FetchRequestTest.testFetchRequestV4WithReadCommitted / testOffsetOutOfRange / DelayedFetch',
      description: 'offset out of range → OFFSET_OUT_OF_RANGE; unknown topic (by name and by id); a long poll (minBytes 1, maxWait 1000) parked until a produce on another connection wakes it; an empty long poll times out',
      steps: [
        createTopic('a', 't', 1),
        send('a', 0, 9, produce(9, () => batch(2))),
        send('a', 1, 12, fetchBody(12, 5)),
        send('a', 1, 11, fetchBody(11, 0, { topic: 'missing' })),
        send('a', 1, 13, fetchBody(13, 0, { byId: true })),
        send('a', 1, 12, fetchBody(12, 2, { minBytes: 1, maxWaitMs: 3000 }), { wait: false }),
        parked('a', 200),
        send('b', 0, 9, produce(9, () => batch(1, 2))),
        collect('a', undefined, 2000),
        send('a', 1, 12, fetchBody(12, 3, { minBytes: 1, maxWaitMs: 300 }), { wait: false }),
        parked('a', 100),
        collect('a', undefined, 2000),
        send('a', 1, 4, fetchBody(4, 0, { isolation: 1 })),
      ],
    }),
  ),
  tag(
    scenario('testLogAppendTimeTopic', {
      mirrors: 'LogValidator (message.timestamp.type=LogAppendTime)',
      description: 'a LogAppendTime topic: the Produce answer carries the append time, fetched batches carry it as max timestamp',
      steps: [
        send('a', 19, 5, (c) => ({ topics: [{ name: c.t(), numPartitions: 1, replicationFactor: 1, configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }], timeoutMs: 5000 }), {
          expect: { topics: [{ errorCode: 0 }] },
          awaitTopics: true,
        }),
        send('a', 0, 9, produce(9, () => batch(2))),
        send('a', 1, 12, fetchBody(12, 0)),
        send('a', 2, 7, listOffsets(7, [-3])),
      ],
    }),
  ),
];
