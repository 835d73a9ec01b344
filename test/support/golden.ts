// Golden frames built by hand with test/support/wire.ts (independently of the codec), each with
// the body the codec must decode it to. Used by the golden, truncation and header tests.
import {
  createApiVersionsRequest,
  createApiVersionsResponse,
  createFetchResponse,
  createJoinGroupRequest,
  createJoinGroupResponse,
  createMetadataRequest,
  createMetadataResponse,
  createSyncGroupRequest,
  createSyncGroupResponse,
  FetchResponse,
  MetadataRequest,
  MetadataResponse,
} from '../../src/codec/generated/index.js';
import { b, requestHeaderV1, requestHeaderV2, type Bytes } from './wire.js';
import { ZERO_UUID } from '../../src/codec/index.js';

export interface GoldenFrame {
  name: string;
  kind: 'request' | 'response';
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** Request frames only. */
  clientId?: string | null;
  /** Header bytes (after the size prefix). */
  headerLength: number;
  /** The whole frame, int32 size prefix included. */
  frame: Buffer;
  /** The body bytes alone. */
  body: Buffer;
  /** What the body decodes to. */
  expected: object;
}

export const TOPIC_ID = Buffer.from('0123456789abcdef0123456789abcdef', 'hex').toString('base64url');

/** ConsumerProtocolSubscription v0 as a consumer puts it in JoinGroup metadata (int16 version first). */
export const SUBSCRIPTION_V0 = b().i16(0).arr(2).str('orders').str('payments').bytes(null).build();
/** ConsumerProtocolSubscription v1 with user data and owned partitions. */
export const SUBSCRIPTION_V1 = b()
  .i16(1)
  .arr(1)
  .str('orders')
  .bytes(Buffer.from('ud'))
  .arr(1)
  .str('orders')
  .arr(2)
  .i32(0)
  .i32(1)
  .build();
/** ConsumerProtocolSubscription v3 with generation and rack. */
export const SUBSCRIPTION_V3 = b().i16(3).arr(1).str('orders').bytes(null).arr(0).i32(5).str('rack-a').build();
/** ConsumerProtocolAssignment v0: orders 0 and 1, no user data. */
export const ASSIGNMENT_V0 = b().i16(0).arr(1).str('orders').arr(2).i32(0).i32(1).bytes(null).build();

/** A record-batch-shaped opaque blob (the message codec never looks inside `records`; its length and crc are illustrative). */
export const RECORDS_BLOB = b()
  .i64(0n) // base offset
  .i32(49) // batch length
  .i32(0) // partition leader epoch
  .i8(2) // magic
  .i32(0x12345678) // crc (not checked here)
  .i16(0) // attributes
  .i32(0) // last offset delta
  .i64(1_700_000_000_000n)
  .i64(1_700_000_000_000n)
  .i64(-1n)
  .i16(-1)
  .i32(-1)
  .i32(1) // one record
  .hex('0e 00 00 00 01 02 78 00') // a tiny record: key null, value "x"
  .build();

function request(
  name: string,
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  headerVersion: 1 | 2,
  body: Bytes,
  expected: object,
): GoldenFrame {
  const header = (headerVersion === 2 ? requestHeaderV2 : requestHeaderV1)(apiKey, apiVersion, correlationId, clientId).build();
  const bodyBytes = body.build();
  return {
    name,
    kind: 'request',
    apiKey,
    apiVersion,
    correlationId,
    clientId,
    headerLength: header.length,
    frame: b().raw(header).raw(bodyBytes).frame(),
    body: bodyBytes,
    expected,
  };
}

function response(
  name: string,
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  headerVersion: 0 | 1,
  body: Bytes,
  expected: object,
): GoldenFrame {
  const header = b().i32(correlationId);
  if (headerVersion === 1) header.tags();
  const headerBytes = header.build();
  const bodyBytes = body.build();
  return {
    name,
    kind: 'response',
    apiKey,
    apiVersion,
    correlationId,
    headerLength: headerBytes.length,
    frame: b().raw(headerBytes).raw(bodyBytes).frame(),
    body: bodyBytes,
    expected,
  };
}

export const GOLDEN: GoldenFrame[] = [
  request(
    'JoinGroup v0 request',
    11,
    0,
    100,
    'consumer-1',
    1,
    b().str('my-group').i32(30000).str('').str('consumer').arr(1).str('range').bytes(SUBSCRIPTION_V0),
    createJoinGroupRequest({
      groupId: 'my-group',
      sessionTimeoutMs: 30000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: SUBSCRIPTION_V0 }],
    }),
  ),
  request(
    'JoinGroup v5 request',
    11,
    5,
    101,
    'consumer-1',
    1,
    b()
      .str('my-group')
      .i32(10000)
      .i32(300000)
      .str('consumer-1-abc')
      .str('instance-1')
      .str('consumer')
      .arr(2)
      .str('cooperative-sticky')
      .bytes(SUBSCRIPTION_V1)
      .str('range')
      .bytes(Buffer.alloc(0)),
    createJoinGroupRequest({
      groupId: 'my-group',
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 300000,
      memberId: 'consumer-1-abc',
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [
        { name: 'cooperative-sticky', metadata: SUBSCRIPTION_V1 },
        { name: 'range', metadata: Buffer.alloc(0) },
      ],
    }),
  ),
  request(
    'JoinGroup v6 request',
    11,
    6,
    102,
    'consumer-1',
    2,
    b()
      .cstr('my-group')
      .i32(10000)
      .i32(300000)
      .cstr('')
      .cstr(null)
      .cstr('consumer')
      .carr(1)
      .cstr('range')
      .cbytes(SUBSCRIPTION_V3)
      .tags()
      .tags(),
    createJoinGroupRequest({
      groupId: 'my-group',
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 300000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: SUBSCRIPTION_V3 }],
    }),
  ),
  request(
    'JoinGroup v9 request',
    11,
    9,
    103,
    'consumer-1',
    2,
    b()
      .cstr('my-group')
      .i32(45000)
      .i32(300000)
      .cstr('member-1')
      .cstr('static-1')
      .cstr('consumer')
      .carr(1)
      .cstr('range')
      .cbytes(Buffer.from([0, 1, 2]))
      .tags()
      .cstr('réassignation demandée')
      .tags(),
    createJoinGroupRequest({
      groupId: 'my-group',
      sessionTimeoutMs: 45000,
      rebalanceTimeoutMs: 300000,
      memberId: 'member-1',
      groupInstanceId: 'static-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 2]) }],
      reason: 'réassignation demandée',
    }),
  ),
  response(
    'JoinGroup v9 response',
    11,
    9,
    103,
    1,
    b()
      .i32(0)
      .i16(0)
      .i32(7)
      .cstr('consumer')
      .cstr('range')
      .cstr('member-1')
      .bool(false)
      .cstr('member-1')
      .carr(2)
      .cstr('member-1')
      .cstr('static-1')
      .cbytes(Buffer.from([1, 2]))
      .tags()
      .cstr('member-2')
      .cstr(null)
      .cbytes(Buffer.alloc(0))
      .tags()
      .tags(),
    createJoinGroupResponse({
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 7,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: 'member-1',
      skipAssignment: false,
      memberId: 'member-1',
      members: [
        { memberId: 'member-1', groupInstanceId: 'static-1', metadata: Buffer.from([1, 2]) },
        { memberId: 'member-2', groupInstanceId: null, metadata: Buffer.alloc(0) },
      ],
    }),
  ),
  request(
    'SyncGroup v5 request',
    14,
    5,
    104,
    'consumer-1',
    2,
    b()
      .cstr('my-group')
      .i32(7)
      .cstr('member-1')
      .cstr(null)
      .cstr('consumer')
      .cstr('range')
      .carr(1)
      .cstr('member-1')
      .cbytes(ASSIGNMENT_V0)
      .tags()
      .tags(),
    createSyncGroupRequest({
      groupId: 'my-group',
      generationId: 7,
      memberId: 'member-1',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: 'member-1', assignment: ASSIGNMENT_V0 }],
    }),
  ),
  response(
    'SyncGroup v5 response',
    14,
    5,
    104,
    1,
    b().i32(0).i16(0).cstr('consumer').cstr('range').cbytes(ASSIGNMENT_V0).tags(),
    createSyncGroupResponse({ throttleTimeMs: 0, errorCode: 0, protocolType: 'consumer', protocolName: 'range', assignment: ASSIGNMENT_V0 }),
  ),
  request(
    'Metadata v12 request',
    3,
    12,
    105,
    'admin',
    2,
    b().carr(2).uuid(ZERO_UUID).cstr('orders').tags().uuid(TOPIC_ID).cstr(null).tags().bool(false).bool(true).tags(),
    createMetadataRequest({
      topics: [MetadataRequest.createTopic({ topicId: ZERO_UUID, name: 'orders' }), MetadataRequest.createTopic({ topicId: TOPIC_ID, name: null })],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: true,
    }),
  ),
  response(
    'Metadata v12 response',
    3,
    12,
    105,
    1,
    b()
      .i32(0)
      .carr(1)
      .i32(1)
      .cstr('localhost')
      .i32(9092)
      .cstr(null)
      .tags()
      .cstr('kmock-cluster')
      .i32(1)
      .carr(1)
      .i16(0)
      .cstr('orders')
      .uuid(TOPIC_ID)
      .bool(false)
      .carr(1)
      .i16(0)
      .i32(0)
      .i32(1)
      .i32(0)
      .carr(1)
      .i32(1)
      .carr(1)
      .i32(1)
      .carr(0)
      .tags()
      .i32(-2147483648)
      .tags()
      .tags(),
    createMetadataResponse({
      throttleTimeMs: 0,
      brokers: [MetadataResponse.createBroker({ nodeId: 1, host: 'localhost', port: 9092, rack: null })],
      clusterId: 'kmock-cluster',
      controllerId: 1,
      topics: [
        MetadataResponse.createTopic({
          errorCode: 0,
          name: 'orders',
          topicId: TOPIC_ID,
          isInternal: false,
          partitions: [
            MetadataResponse.createPartition({ errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] }),
          ],
          topicAuthorizedOperations: -2147483648,
        }),
      ],
    }),
  ),
  response(
    'Fetch v12 response with records and a tagged CurrentLeader',
    1,
    12,
    106,
    1,
    b()
      .i32(0)
      .i16(0)
      .i32(0)
      .carr(1)
      .cstr('orders')
      .carr(1)
      .i32(0)
      .i16(0)
      .i64(10n)
      .i64(10n)
      .i64(0n)
      .carr(null) // aborted transactions: null
      .i32(-1)
      .cbytes(RECORDS_BLOB)
      // CurrentLeader (tag 1): LeaderId, LeaderEpoch and the nested struct's own tag section.
      .tags([[1, b().i32(1).i32(5).tags().build()]])
      .tags()
      .tags(),
    createFetchResponse({
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        FetchResponse.createFetchableTopicResponse({
          topic: 'orders',
          partitions: [
            FetchResponse.createPartitionData({
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 10n,
              lastStableOffset: 10n,
              logStartOffset: 0n,
              currentLeader: FetchResponse.createLeaderIdAndEpoch({ leaderId: 1, leaderEpoch: 5 }),
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: RECORDS_BLOB,
            }),
          ],
        }),
      ],
    }),
  ),
  response(
    'Fetch v16 response with topic ids and NodeEndpoints',
    1,
    16,
    107,
    1,
    b()
      .i32(5)
      .i16(0)
      .i32(1234)
      .carr(1)
      .uuid(TOPIC_ID)
      .carr(1)
      .i32(3)
      .i16(0)
      .i64(20n)
      .i64(-1n)
      .i64(-1n)
      .carr(1)
      .i64(4000n)
      .i64(12n)
      .tags() // each aborted transaction has its own tag section
      .i32(-1)
      .cbytes(RECORDS_BLOB)
      .tags()
      .tags()
      // NodeEndpoints (tag 0): one node, rack null.
      .tags([[0, b().carr(1).i32(1).cstr('broker-1').i32(9092).cstr(null).tags().build()]]),
    createFetchResponse({
      throttleTimeMs: 5,
      errorCode: 0,
      sessionId: 1234,
      responses: [
        FetchResponse.createFetchableTopicResponse({
          topicId: TOPIC_ID,
          topic: '',
          partitions: [
            FetchResponse.createPartitionData({
              partitionIndex: 3,
              errorCode: 0,
              highWatermark: 20n,
              lastStableOffset: -1n,
              logStartOffset: -1n,
              abortedTransactions: [{ producerId: 4000n, firstOffset: 12n }],
              preferredReadReplica: -1,
              records: RECORDS_BLOB,
            }),
          ],
        }),
      ],
      nodeEndpoints: [FetchResponse.createNodeEndpoint({ nodeId: 1, host: 'broker-1', port: 9092, rack: null })],
    }),
  ),
  request(
    'ApiVersions v3 request',
    18,
    3,
    108,
    'kmock-test',
    2,
    b().cstr('kmock-client').cstr('1.0.0').tags(),
    createApiVersionsRequest({ clientSoftwareName: 'kmock-client', clientSoftwareVersion: '1.0.0' }),
  ),
  response(
    'ApiVersions v3 response (header v0)',
    18,
    3,
    108,
    0,
    b()
      .i16(0)
      .carr(2)
      .i16(0)
      .i16(0)
      .i16(11)
      .tags()
      .i16(18)
      .i16(0)
      .i16(4)
      .tags()
      .i32(0)
      .tags([
        [0, b().carr(1).cstr('metadata.version').i16(1).i16(20).tags().build()],
        [1, b().i64(3n).build()],
      ]),
    createApiVersionsResponse({
      errorCode: 0,
      apiKeys: [
        { apiKey: 0, minVersion: 0, maxVersion: 11 },
        { apiKey: 18, minVersion: 0, maxVersion: 4 },
      ],
      throttleTimeMs: 0,
      supportedFeatures: [{ name: 'metadata.version', minVersion: 1, maxVersion: 20 }],
      finalizedFeaturesEpoch: 3n,
    }),
  ),
];
