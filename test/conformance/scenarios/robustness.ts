// Hostile and malformed requests a mutation fuzzer produced (issue #10), played on both brokers:
// what Kafka 3.9 answers, or whether it closes the connection, for inputs no client sends.
//
// A `raw` step writes a hand-made frame and reads nothing. To see the answer to such a frame, the
// frame carries correlation id 1 and the next step on the same connection is a `send` of the
// same API and version, which the runner also numbers 1: the first answer read is the raw
// frame's (recorded under the send step, labelled so), and the send's own answer is never read.
// The send asks for something else (no topics instead of topic t, say), so the two answers can
// be told apart. When the broker closes on the raw frame, the send step records "closed".
import { encodeRequest, type ApiTypes, ZERO_UUID } from '../../../src/codec/index.js';
import { buildRequest, type Ctx, type DeepPartial, type Scenario, type Step } from '../runner.js';
import { E, createTopic, expectClosed, scenario, send } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['robustness'] });

/** A request frame (size prefix included) with correlation id 1, as the codec writes it. */
function frame<K extends keyof ApiTypes>(api: K, version: number, body: DeepPartial<ApiTypes[K]['request']>, clientId: string | null = 'raw'): Buffer {
  return encodeRequest({ apiKey: api, apiVersion: version, correlationId: 1, clientId }, buildRequest(api, body));
}

/** `f` with its size prefix rewritten to match its length. */
function sized(f: Buffer): Buffer {
  f.writeInt32BE(f.length - 4, 0);
  return f;
}

const raw = (conn: string, label: string, bytes: (c: Ctx) => Buffer): Step => ({ op: 'raw', conn, label, bytes });

/** Metadata v1 whose topic array ends the frame: `count` written over its int32 count. */
function metadataV1WithCount(count: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  const f = frame(3, 1, { topics: [] });
  f.writeInt32BE(count, f.length - 4);
  return sized(Buffer.concat([f, rest]));
}

export const robustnessScenarios: Scenario[] = [
  tag(
    scenario('testMetadataNullTopicNameV12', {
      // Asks for all topics: on a shared broker that lists what other scenarios created too.
      ownBrokers: 'all-topics',
      mirrors: 'KafkaApis.handleTopicMetadataRequest (the null-name check applies below v12 only)',
      description:
        'Metadata v12 naming a topic by a null name and the zero topic id: Topic.validate(null) throws, answered as MetadataRequest.getErrorResponse (UNKNOWN_SERVER_ERROR for every requested topic, nothing created); with a non-zero id the names are ignored',
      groups: [],
      steps: [
        createTopic('a', 't', 1),
        send('a', 3, 12, { topics: [{ name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: false }, { label: 'null name, zero id' }),
        send('b', 3, 12, { topics: [{ name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: true }, { label: 'null name, zero id, auto-create' }),
        send('b', 3, 12, (c) => ({ topics: [{ name: c.t('auto'), topicId: ZERO_UUID }, { name: null, topicId: ZERO_UUID }, { name: c.t('auto'), topicId: ZERO_UUID }], allowAutoTopicCreation: true }), {
          label: 'null name next to a topic to auto-create (listed twice)',
          expect: { topics: [{ errorCode: E.UNKNOWN_SERVER_ERROR }, { errorCode: E.UNKNOWN_SERVER_ERROR }] },
        }),
        send('b', 3, 12, (c) => ({ topics: [{ name: c.t('auto'), topicId: ZERO_UUID }], allowAutoTopicCreation: false }), {
          label: 'the topic was not auto-created',
          expect: { topics: [{ errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] },
        }),
        send('c', 3, 12, (c) => ({ topics: [{ name: c.t(), topicId: ZERO_UUID }, { name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: false }), {
          label: 'null name next to a real topic',
          expect: { brokers: [], clusterId: null, controllerId: -1, topics: [{ errorCode: E.UNKNOWN_SERVER_ERROR, partitions: [] }] },
        }),
        send('c', 3, 12, { topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }, { name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: false }, {
          label: 'null names with a non-zero (unknown) id: names are ignored',
          expect: { topics: [{ errorCode: E.UNKNOWN_TOPIC_ID, name: null }] },
        }),
        send('d', 3, 12, { topics: [{ name: null, topicId: ZERO_UUID }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }, { label: 'null name, authorized operations' }),
        send('d', 3, 12, { topics: null }, { label: 'the connection is still usable' }),
      ],
    }),
  ),
  tag(
    scenario('testRequestTrailingBytesIgnored', {
      mirrors: 'RequestContext.parseRequest / AbstractRequest.parseRequest (bytes after the body are not checked)',
      description: 'Metadata v1 and v12 and DescribeGroups v5 with bytes after the body are answered as without them',
      groups: [],
      steps: [
        createTopic('setup', 't', 1),
        raw('a', 'Metadata v1 for t + 3 bytes', (c) => sized(Buffer.concat([frame(3, 1, { topics: [{ name: c.t() }] }), Buffer.from([1, 2, 3])]))),
        send('a', 3, 1, { topics: [] }, { label: 'answer to the raw frame (topic t expected)', expect: { topics: [{ errorCode: 0 }] } }),
        raw('b', 'Metadata v12 for t + 5 bytes', (c) => sized(Buffer.concat([frame(3, 12, { topics: [{ name: c.t() }], allowAutoTopicCreation: false }), Buffer.from([0, 9, 0xff, 7, 1])]))),
        send('b', 3, 12, { topics: [], allowAutoTopicCreation: false }, { label: 'answer to the raw frame (topic t expected)', expect: { topics: [{ errorCode: 0 }] } }),
        raw('c', 'DescribeGroups v5 for g + 2 bytes', (c) => sized(Buffer.concat([frame(15, 5, { groups: [c.g()], includeAuthorizedOperations: false }), Buffer.from([9, 9])]))),
        send('c', 15, 5, (c) => ({ groups: [c.g('other')], includeAuthorizedOperations: false }), { label: 'answer to the raw frame (group g expected)' }),
      ],
    }),
  ),
  tag(
    scenario('testNegativeLengthOfNullableFieldIsNull', {
      // Asks for all topics: on a shared broker that lists what other scenarios created too.
      ownBrokers: 'all-topics',
      mirrors: "Kafka's generated readers (MetadataRequestData.read, RequestHeaderData.read): a negative length of a nullable array or string is null, not only -1",
      description: 'Metadata v1 with topic count -2 is an all-topics request; a v1 header whose client id length is -2 is a null client id',
      groups: [],
      steps: [
        createTopic('setup', 't', 1),
        raw('a', 'Metadata v1, topic count -2', () => metadataV1WithCount(-2)),
        send('a', 3, 1, (c) => ({ topics: [{ name: c.t('other') }] }), { label: 'answer to the raw frame (all topics expected)' }),
        raw('b', 'Metadata v1 for t, client id length -2', (c) => {
          const f = frame(3, 1, { topics: [{ name: c.t() }] }, null);
          f.writeInt16BE(-2, 12);
          return f;
        }),
        send('b', 3, 1, { topics: [] }, { label: 'answer to the raw frame (topic t expected)', expect: { topics: [{ errorCode: 0 }] } }),
      ],
    }),
  ),
  tag(
    scenario('testMalformedRequestsCloseConnection', {
      mirrors: 'RequestContext.parseRequest (InvalidRequestException → SocketServer closes the connection); SocketServer size checks (InvalidReceiveException)',
      description:
        'a null in a non-nullable string, a negative string length, a count larger than the frame, a cut body, a frame shorter than a header, a negative or oversized size prefix: each closes its connection; the broker serves the next one',
      groups: [],
      steps: [
        raw('a', 'Metadata v1, topic name null (not nullable)', () => metadataV1WithCount(1, Buffer.from([0xff, 0xff]))),
        expectClosed('a'),
        raw('b', 'Metadata v1, topic name length -2', () => metadataV1WithCount(1, Buffer.from([0xff, 0xfe]))),
        expectClosed('b'),
        raw('c', 'Metadata v1, topic count 0x7fffffff', () => metadataV1WithCount(0x7fffffff)),
        expectClosed('c'),
        raw('d', 'Metadata v1, body cut inside the second name', () => metadataV1WithCount(2, Buffer.from([0, 1, 0x61, 0, 5, 0x62]))),
        expectClosed('d'),
        raw('e', 'a 3-byte frame', () => Buffer.from([0, 0, 0, 3, 0, 3, 0])),
        expectClosed('e'),
        raw('f', 'size prefix -5', () => Buffer.from([0xff, 0xff, 0xff, 0xfb, 0, 3, 0, 1])),
        expectClosed('f'),
        raw('g', 'size prefix 0x7fffffff', () => Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 1])),
        expectClosed('g'),
        send('h', 3, 12, { topics: [], allowAutoTopicCreation: false }, { label: 'the broker serves a new connection', expect: { topics: [] } }),
      ],
    }),
  ),
];
