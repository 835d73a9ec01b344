// The data path: Produce (v3-v11) of raw v2 record batches built with kmock's records codec,
// Fetch (v4-v17, by name and by topic id, long poll), ListOffsets (v0-v9: earliest, latest,
// max timestamp, by timestamp), and their error codes; Produce v0-v2 of legacy message sets
// (up-converted into the v2 log) and Fetch v0-v3 (down-converted to magic 0/1).
import type { Ctx, Scenario } from '../runner.js';
import {
  compress,
  crc32,
  encodeBatch,
  encodeMessage,
  encodeMessageSet,
  initCompression,
  type LegacyMessageInput,
  type MessageSetInput,
  type RecordBatchInput,
} from '../../../src/codec/records/index.js';
import { E, collect, createTopic, parked, scenario, send, wait } from './dsl.js';

// Some scenarios build zstd batches.
await initCompression();

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
        // 40 bytes: framed as a v2 batch, too short for the producer id ReplicaManager reads.
        send('a', 0, 9, (c) => {
          const short = Buffer.alloc(40);
          short.writeInt32BE(28, 8);
          short.writeInt8(2, 16);
          return {
            transactionalId: null,
            acks: -1,
            timeoutMs: 5000,
            topicData: [{ name: c.t(), partitionData: [{ index: 0, records: short }] }, { name: c.t('missing'), partitionData: [{ index: 0, records: batch(1) }] }],
          };
        }, { label: 'a 40-byte v2 batch' }),
        send('a', 0, 9, produce(9, () => batch(1, 0, { isTransactional: true, producerId: 5n, producerEpoch: 0, baseSequence: 0 })), {
          label: 'a transactional batch without a transactional id',
          expect: { responses: [{ partitionResponses: [{ errorCode: 53 }] }] },
        }),
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

// ---- Produce v0-v2 and Fetch v0-v3: legacy message sets ------------------------------------------

/** Legacy messages "<p><i>" with keys and timestamps T0 + base + i (magic 0 ignores them). */
const lmsgs = (n: number, p = 'm', base = 0): LegacyMessageInput[] =>
  Array.from({ length: n }, (_, i) => ({ key: `k${p}${i}`, value: `${p}${i}`, timestamp: T0 + base + i }));
const set = (input: MessageSetInput) => () => encodeMessageSet(input);
/** A legacy message whose CRC is recomputed after `edit` changed it. */
function edited(m: Buffer, edit: (b: Buffer) => void): Buffer {
  const b = Buffer.from(m);
  edit(b);
  b.writeUInt32BE(crc32(b, 16), 12);
  return b;
}
/** One magic-1 gzip wrapper around the given inner messages. */
const wrapped = (offset: bigint, inner: Buffer[], codec = 1, magic: 0 | 1 = 1) => encodeMessage(magic, offset, codec, T0, null, compress('gzip', Buffer.concat(inner), magic));

function legacyFetch(v: number, offset: number, o: { topic?: string; partitionMaxBytes?: number; maxBytes?: number; maxWaitMs?: number; minBytes?: number } = {}) {
  return (c: Ctx) => ({
    ...fetchBody(v, offset, { topic: o.topic, maxWaitMs: o.maxWaitMs, minBytes: o.minBytes })(c),
    maxBytes: o.maxBytes ?? 0x7fffffff,
    isolationLevel: 0,
    topics: [
      {
        topic: c.t(o.topic),
        partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: o.partitionMaxBytes ?? 1048576 }],
      },
    ],
  });
}

// v4: the answer (v5+ lists every config) would only repeat the reference broker's static config.
const createWithConfigs = (name: string, configs: Record<string, string>) =>
  send('a', 19, 4, (c) => ({ topics: [{ name: c.t(name), numPartitions: 1, replicationFactor: 1, configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: v })) }], timeoutMs: 5000 }), {
    expect: { topics: [{ errorCode: 0 }] },
    awaitTopics: true,
    label: `create-topic ${name}`,
  });

const ok = (baseOffset: number) => ({ expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset }] }] } });
const fails = (errorCode: number, label: string) => ({ label, expect: { responses: [{ partitionResponses: [{ errorCode, baseOffset: -1 }] }] } });

dataScenarios.push(
  tag(
    scenario('testLegacyProduceVersions', {
      mirrors: 'LogValidatorTest (convertAndAssignOffsetsNonCompressed / validateMessagesAndAssignOffsetsCompressed to magic 2) / ProduceRequestTest',
      description:
        'Produce v0-v2 of magic 0 and magic 1 sets (uncompressed, gzip, snappy, lz4, a wrapper at offset 0, null keys and values, a v2 batch, empty records); a v4 Fetch shows the v2 batches Kafka built; max timestamp',
      steps: [
        createTopic('a', 't', 1),
        send('a', 0, 0, produce(0, set({ magic: 0, messages: lmsgs(2, 'a') })), ok(0)),
        send('a', 0, 1, produce(1, set({ magic: 0, compression: 'gzip', messages: lmsgs(2, 'b') })), ok(2)),
        send('a', 0, 1, produce(1, set({ magic: 0, compression: 'lz4', messages: lmsgs(1, 'c') })), ok(4)),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(2, 'd', 10) })), ok(5)),
        send('a', 0, 2, produce(2, set({ magic: 1, compression: 'snappy', messages: lmsgs(3, 'e', 20), baseOffset: 100n })), ok(7)),
        send('a', 0, 2, produce(2, set({ magic: 1, compression: 'lz4', messages: lmsgs(2, 'f', 30) })), ok(10)),
        send('a', 0, 2, produce(2, () => wrapped(0n, [encodeMessage(1, 0n, 0, T0 + 40, null, Buffer.from('g0')), encodeMessage(1, 1n, 0, T0 + 41, null, Buffer.from('g1'))])), {
          ...ok(12),
          label: 'wrapper offset 0 (librdkafka)',
        }),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ key: null, value: null, timestamp: T0 + 50 }, { key: 'k', value: null, timestamp: -1 }] })), ok(14)),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ value: 'lat', timestamp: T0 + 60 }], timestampType: 1 })), { ...ok(16), label: 'LogAppendTime bit from the producer' }),
        send('a', 0, 2, produce(2, set({ magic: 1, compression: 'gzip', messages: lmsgs(2, 'h', 70), timestampType: 1, wrapperTimestamp: T0 + 99 })), {
          ...ok(17),
          label: 'LogAppendTime wrapper',
        }),
        send('a', 0, 0, produce(0, () => batch(2, 80)), { ...ok(19), label: 'a v2 batch at v0' }),
        send('a', 0, 2, produce(2, () => Buffer.concat([encodeMessageSet({ magic: 1, messages: lmsgs(1, 'i', 90) }), Buffer.alloc(20, 1)])), { ...ok(21), label: 'trailing partial bytes' }),
        send('a', 0, 0, produce(0, () => Buffer.alloc(0)), { label: 'empty records' }),
        send('a', 0, 2, produce(2, () => encodeMessageSet({ magic: 1, messages: lmsgs(1, 'i', 90) }).subarray(0, 30)), { label: 'only a partial message' }),
        send('a', 1, 4, fetchBody(4, 0)),
        send('a', 2, 7, listOffsets(7, [-3])),
      ],
    }),
  ),
  tag(
    scenario('testLegacyProduceErrors', {
      mirrors: 'LogValidatorTest / UnifiedLog.analyzeAndValidateRecords / AbstractLegacyRecordBatch (CRC, magic, wrapper and inner-message checks)',
      description: 'Produce v0-v2 refusals: CRCs, magic mismatches, compressed wrappers, codecs, timestamps, sizes, compacted topics; acks=2; a v2 zstd batch at v2',
      steps: [
        createTopic('a', 't', 1),
        createWithConfigs('small', { 'max.message.bytes': '200' }),
        createWithConfigs('compact', { 'cleanup.policy': 'compact' }),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(1) }), { topic: 'missing' }), fails(E.UNKNOWN_TOPIC_OR_PARTITION, 'unknown topic')),
        send('a', 0, 2, produce(2, () => {
          const b = encodeMessageSet({ magic: 1, messages: lmsgs(2) });
          b[b.length - 1] ^= 0xff;
          return b;
        }), fails(E.CORRUPT_MESSAGE, 'bad CRC on the second message')),
        send('a', 0, 1, produce(1, () => {
          const inner = encodeMessage(0, 0n, 0, -1, null, Buffer.from('x'));
          inner[inner.length - 1] ^= 0xff;
          return encodeMessage(0, 0n, 1, -1, null, compress('gzip', inner, 0));
        }), fails(E.CORRUPT_MESSAGE, 'bad CRC on an inner message')),
        send('a', 0, 2, produce(2, () => Buffer.concat([encodeMessageSet({ magic: 0, messages: lmsgs(1) }), encodeMessageSet({ magic: 1, messages: lmsgs(1) })])), fails(E.INVALID_RECORD, 'magic 0 then magic 1')),
        send('a', 0, 2, produce(2, () => wrapped(1n, [encodeMessage(1, 0n, 0, T0, null, Buffer.from('x')), encodeMessage(0, 1n, 0, -1, null, Buffer.from('y'))])), fails(E.INVALID_RECORD, 'magic 0 inside a magic 1 wrapper')),
        send('a', 0, 2, produce(2, () => Buffer.concat([encodeMessageSet({ magic: 1, compression: 'gzip', messages: lmsgs(1) }), encodeMessageSet({ magic: 1, compression: 'gzip', messages: lmsgs(1) })])), fails(E.INVALID_RECORD, 'two wrappers')),
        send('a', 0, 2, produce(2, () => Buffer.concat([encodeMessageSet({ magic: 1, messages: lmsgs(1) }), encodeMessageSet({ magic: 1, compression: 'gzip', messages: lmsgs(1) })])), fails(E.INVALID_RECORD, 'a message then a wrapper')),
        send('a', 0, 2, produce(2, () => Buffer.concat([batch(1), batch(1)])), fails(E.INVALID_RECORD, 'two v2 batches')),
        send('a', 0, 2, produce(2, () => encodeMessage(1, 0n, 4, T0, null, encodeMessageSet({ magic: 1, messages: lmsgs(1) }))), fails(E.INVALID_RECORD, 'a zstd wrapper')),
        send('a', 0, 2, produce(2, () => encodeMessage(1, 0n, 1, T0, null, null)), fails(E.INVALID_RECORD, 'a wrapper with a null value')),
        send('a', 0, 2, produce(2, () => wrapped(0n, [encodeMessageSet({ magic: 1, compression: 'gzip', messages: lmsgs(1) })])), fails(E.INVALID_RECORD, 'a compressed inner message')),
        send('a', 0, 2, produce(2, () => wrapped(1n, [encodeMessage(1, 0n, 0, T0, null, Buffer.from('x')), encodeMessage(1, 1n, 0, T0, null, Buffer.from('y')), encodeMessage(1, 2n, 0, T0, null, Buffer.from('z'))])), fails(E.INVALID_RECORD, 'wrapper offset below the last inner offset')),
        send('a', 0, 2, produce(2, () => encodeMessage(1, 0n, 5, T0, null, Buffer.from('x'))), fails(E.UNKNOWN_SERVER_ERROR, 'codec id 5')),
        send('a', 0, 2, produce(2, () => encodeMessage(1, 0n, 1, T0, null, Buffer.from('not gzip'))), fails(E.UNKNOWN_SERVER_ERROR, 'undecompressable wrapper')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ value: 'x', timestamp: -5 }] })), fails(E.UNKNOWN_SERVER_ERROR, 'timestamp -5')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ value: 'x', timestamp: -1 }], timestampType: 1 })), fails(E.INVALID_TIMESTAMP, 'LogAppendTime bit, no timestamp')),
        // ReplicaManager.handleProduceAppend frames every batch first: this fails the whole request.
        send('a', 0, 2, (c) => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [
            { name: c.t(), partitionData: [{ index: 0, records: encodeMessageSet({ magic: 1, messages: lmsgs(1) }) }] },
            { name: c.t('small'), partitionData: [{ index: 0, records: Buffer.concat([encodeMessageSet({ magic: 1, messages: lmsgs(1) }), edited(encodeMessageSet({ magic: 1, messages: lmsgs(1) }), (b) => b.writeInt32BE(13, 8)).subarray(0, 30)]) }] },
          ],
        }), { label: 'second message size 13, next to a good partition' }),
        send('a', 0, 2, produce(2, () => Buffer.concat([encodeMessageSet({ magic: 1, messages: lmsgs(1) }), edited(encodeMessageSet({ magic: 1, messages: lmsgs(1) }), (b) => (b[16] = 3))])), fails(E.CORRUPT_MESSAGE, 'second message magic 3')),
        send('a', 0, 2, produce(2, () => edited(encodeMessageSet({ magic: 1, messages: [{ key: 'k', value: 'v', timestamp: T0 }] }), (b) => b.writeInt32BE(50, 26))), fails(E.UNKNOWN_SERVER_ERROR, 'key length past the message')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(1) }), { acks: 2 }), fails(E.INVALID_REQUIRED_ACKS, 'acks=2')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ value: Buffer.alloc(300) }] }), { topic: 'small' }), fails(E.MESSAGE_TOO_LARGE, 'one message over max.message.bytes')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [0, 1, 2].map(() => ({ value: Buffer.alloc(80) })) }), { topic: 'small' }), fails(E.MESSAGE_TOO_LARGE, 'the converted batch over max.message.bytes')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ key: 'k', value: 'x' }, { value: 'no key' }] }), { topic: 'compact' }), fails(E.INVALID_RECORD, 'compacted topic, no key')),
        send('a', 0, 2, produce(2, set({ magic: 1, compression: 'gzip', messages: [{ key: 'k', value: 'x' }, { value: 'no key' }] }), { topic: 'compact' }), fails(E.INVALID_RECORD, 'compacted topic, no key, compressed')),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: [{ key: 'k', value: 'x' }] }), { topic: 'compact' }), ok(0)),
        send('a', 0, 2, produce(2, () => batch(1, 0, { compression: 'zstd' })), { label: 'a v2 zstd batch at v2' }),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(1) }))),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'compact' })),
      ],
    }),
  ),
  tag(
    scenario('testLegacyFetchVersions', {
      mirrors: 'FetchRequestDownConversionConfigTest / LazyDownConversionRecordsTest / RecordsUtil.downConvert',
      description:
        'Fetch v0-v3 of stored v2 batches (plain, gzip, lz4, snappy; up-converted legacy ones): magic 0 / 1, offsets, records before the fetch offset, the answer sized as what was read (cut, or padded with an overflow batch); hard limits below v3; offset out of range, unknown topic',
      steps: [
        createTopic('a', 't', 1),
        createTopic('a', 'u', 1),
        send('a', 0, 9, produce(9, () => batch(3, 0))),
        send('a', 0, 9, produce(9, () => batch(2, 10, { compression: 'gzip' }))),
        send('a', 0, 9, produce(9, () => batch(2, 20))),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(2, 'x', 30) }))),
        send('a', 0, 9, produce(9, () => batch(2, 40, { compression: 'lz4' }))),
        send('a', 0, 9, produce(9, () => batch(2, 50, { compression: 'snappy' }))),
        // Headers are dropped by the conversion: this batch converts to far fewer bytes than it
        // holds, so every answer below converts to less than was read and ends with an overflow
        // batch on both brokers, whatever the compressors' output sizes (Java's and Node's differ
        // by a few bytes, which would otherwise decide where an answer is cut).
        send('a', 0, 9, produce(9, () => encodeBatch({ baseTimestamp: T0 + 60, records: [{ key: 'k60', value: 'v60', headers: [{ key: 'pad', value: 'p'.repeat(400) }] }] }))),
        ...[0, 1, 2, 3].flatMap((v) => [send('a', 1, v, legacyFetch(v, 0)), send('a', 1, v, legacyFetch(v, 4)), send('a', 1, v, legacyFetch(v, 6))]),
        send('a', 1, 1, legacyFetch(1, 1), { label: 'inside a plain batch' }),
        send('a', 1, 2, legacyFetch(2, 12), { label: 'inside a compressed batch' }),
        send('a', 1, 0, legacyFetch(0, 14), { label: 'at the end' }),
        send('a', 1, 3, legacyFetch(3, 15), { label: 'past the end' }),
        send('a', 1, 2, legacyFetch(2, 0, { topic: 'missing' }), { label: 'unknown topic' }),
        // exact sizes: plain batches only
        send('a', 0, 9, produce(9, () => batch(3, 0), { topic: 'u' })),
        send('a', 0, 9, produce(9, () => batch(1, 3), { topic: 'u' })),
        send('a', 0, 9, produce(9, () => batch(4, 4), { topic: 'u' })),
        ...[0, 2].flatMap((v) => [
          send('a', 1, v, legacyFetch(v, 0, { topic: 'u' })),
          send('a', 1, v, legacyFetch(v, 2, { topic: 'u' })),
          send('a', 1, v, legacyFetch(v, 0, { topic: 'u', partitionMaxBytes: 50 }), { label: 'limit inside the first batch' }),
          send('a', 1, v, legacyFetch(v, 0, { topic: 'u', partitionMaxBytes: 160 }), { label: 'limit inside the second batch' }),
          send('a', 1, v, legacyFetch(v, 3, { topic: 'u', partitionMaxBytes: 100 })),
        ]),
        send('a', 1, 3, legacyFetch(3, 0, { topic: 'u', partitionMaxBytes: 50 }), { label: 'v3: the first batch whole' }),
        send('a', 1, 3, legacyFetch(3, 0, { topic: 'u', maxBytes: 1 }), { label: 'v3: max_bytes 1' }),
        send('a', 1, 3, legacyFetch(3, 4, { topic: 'u', partitionMaxBytes: 0 }), { label: 'v3: partition limit 0' }),
        send('a', 1, 1, legacyFetch(1, 4, { topic: 'u', partitionMaxBytes: 0 }), { label: 'v1: partition limit 0' }),
      ],
    }),
  ),
  tag(
    scenario('testLegacyFetchErrorsAndConfigs', {
      mirrors: 'KafkaApis.maybeConvertFetchedData (message.downconversion.enable, zstd below v10) / LazyDownConversionRecordsSend (overflow batch)',
      description:
        'Fetch v0-v3 from a topic with message.downconversion.enable=false (UNSUPPORTED_VERSION), compression.type=zstd (UNSUPPORTED_COMPRESSION_TYPE below v10), a zstd batch first or after a gzip one; a LogAppendTime topic; a v2 long poll woken by a v2 produce',
      steps: [
        createTopic('a', 't', 1),
        createWithConfigs('off', { 'message.downconversion.enable': 'false' }),
        createWithConfigs('zt', { 'compression.type': 'zstd' }),
        createWithConfigs('lat', { 'message.timestamp.type': 'LogAppendTime' }),
        send('a', 0, 9, produce(9, () => batch(2), { topic: 'off' })),
        send('a', 1, 3, legacyFetch(3, 0, { topic: 'off' })),
        send('a', 1, 0, legacyFetch(0, 5, { topic: 'off' }), { label: 'out of range, down-conversion disabled' }),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'off' })),
        send('a', 1, 3, legacyFetch(3, 0, { topic: 'zt' })),
        send('a', 1, 9, fetchBody(9, 0, { topic: 'zt' })),
        send('a', 1, 10, fetchBody(10, 0, { topic: 'zt' })),
        send('a', 0, 9, produce(9, () => batch(2, 0, { compression: 'gzip' }))),
        send('a', 0, 9, produce(9, () => batch(2, 10, { compression: 'zstd' }))),
        send('a', 1, 2, legacyFetch(2, 0), { label: 'gzip then zstd' }),
        send('a', 1, 2, legacyFetch(2, 2), { label: 'zstd first' }),
        send('a', 1, 1, legacyFetch(1, 2), { label: 'zstd first, v1' }),
        send('a', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(2, 'l') }), { topic: 'lat' })),
        send('a', 0, 9, produce(9, () => batch(2, 0, { compression: 'gzip' }), { topic: 'lat' })),
        send('a', 1, 2, legacyFetch(2, 0, { topic: 'lat' })),
        send('a', 1, 0, legacyFetch(0, 0, { topic: 'lat' })),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'lat' })),
        send('a', 1, 2, legacyFetch(2, 4, { topic: 'lat', minBytes: 1, maxWaitMs: 3000 }), { wait: false }),
        parked('a', 200),
        send('b', 0, 2, produce(2, set({ magic: 1, messages: lmsgs(1, 'w') }), { topic: 'lat' })),
        collect('a', undefined, 2000),
      ],
    }),
  ),
);

/** `n` bytes that do not compress, the same on every run (xorshift32 from a fixed seed). */
function incompressible(n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** Four records whose offset deltas are 0 2 1 3 (a consistent header), the max timestamp on the second. */
const shuffled = (compression: 'none' | 'gzip' | 'snappy') =>
  encodeBatch({
    baseTimestamp: T0,
    compression,
    lastOffsetDelta: 3,
    records: [0, 2, 1, 3].map((offsetDelta, i) => ({ offsetDelta, value: `o${offsetDelta}`, timestampDelta: [5, 9, 9, 1][i] })),
  });

dataScenarios.push(
  tag(
    scenario('testTopicCompressionType', {
      mirrors: 'LogValidator.validateMessagesAndAssignOffsetsCompressed (not in place: buildRecordsAndAssignOffsets) / UnifiedLog.append (size re-checked)',
      description:
        'compression.type other than producer: batches in another codec are stored rebuilt with the topic\'s (records, timestamps, producer fields kept); the same codec is kept; a rebuilt batch over max.message.bytes is MESSAGE_TOO_LARGE; offset deltas out of order: rebuilt in order into another codec, kept in an uncompressed batch, UNKNOWN_SERVER_ERROR in a compressed batch of the topic\'s codec',
      steps: [
        createTopic('a', 't', 1),
        createWithConfigs('gz', { 'compression.type': 'gzip' }),
        createWithConfigs('plain', { 'compression.type': 'uncompressed' }),
        createWithConfigs('lz', { 'compression.type': 'lz4', 'message.timestamp.type': 'LogAppendTime' }),
        createWithConfigs('tiny', { 'compression.type': 'gzip', 'max.message.bytes': '1080' }), // 1,070 bytes as sent, ~1,093 gzipped
        send('a', 0, 9, produce(9, () => batch(3), { topic: 'gz' }), { ...ok(0), label: 'uncompressed into gzip' }),
        send('a', 0, 9, produce(9, () => batch(2, 10, { compression: 'gzip' }), { topic: 'gz' }), { ...ok(3), label: 'gzip into gzip: kept' }),
        send('a', 0, 9, produce(9, () => batch(2, 20, { compression: 'snappy', producerId: 7n, producerEpoch: 0, baseSequence: 0 }), { topic: 'gz' }), {
          ...ok(5),
          label: 'snappy into gzip, with producer fields',
        }),
        send('a', 0, 9, produce(9, () => batch(3, 30, { compression: 'lz4' }), { topic: 'plain' }), { ...ok(0), label: 'lz4 into uncompressed' }),
        send('a', 0, 9, produce(9, () => batch(2, 40, { compression: 'gzip' }), { topic: 'lz' }), { ...ok(0), label: 'gzip into lz4, LogAppendTime' }),
        send('a', 0, 9, produce(9, () => encodeBatch({ baseTimestamp: T0, records: [{ value: incompressible(1000) }] }), { topic: 'tiny' }), {
          ...fails(E.MESSAGE_TOO_LARGE, 'rebuilt batch over max.message.bytes'),
        }),
        send('a', 0, 9, produce(9, () => shuffled('gzip')), {
          ...fails(E.UNKNOWN_SERVER_ERROR, 'gzip, offset deltas 0 2 1 3, producer topic (Kafka fails rebuilding it)'),
        }),
        send('a', 0, 9, produce(9, () => shuffled('none')), { ...ok(0), label: 'uncompressed, offset deltas 0 2 1 3: kept as sent' }),
        send('a', 0, 9, produce(9, () => shuffled('snappy'), { topic: 'gz' }), { ...ok(7), label: 'snappy, offset deltas 0 2 1 3, into gzip: rebuilt in order' }),
        send('a', 1, 4, fetchBody(4, 0)),
        send('a', 2, 7, listOffsets(7, [-3])),
        send('a', 2, 7, listOffsets(7, [-3], { topic: 'gz' })),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'gz' })),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'plain' })),
        send('a', 1, 12, fetchBody(12, 0, { topic: 'lz' })),
        send('a', 1, 4, fetchBody(4, 0, { topic: 'tiny' })),
      ],
    }),
  ),
);
