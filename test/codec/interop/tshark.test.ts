// Wireshark's Kafka dissector as an independent decoder: frames we encode are written into one
// pcap (Ethernet/IPv4/TCP to port 9092, one TCP connection per request/response pair, so the
// dissector can match each response to its request), dissected once with
// `tshark -T json -o kafka.tcp.ports:9092`, and every field value it reports is compared with
// what we encoded. A frame passes only if the dissector consumed it exactly (no "Malformed
// Packet", no expert info such as "Dissected message does not end at the pdu length offset").
// Wireshark 4.0 knows JoinGroup v0-v7, SyncGroup v0-v5, Heartbeat v0-v4, LeaveGroup v0-v4,
// ApiVersions v0-v3 and FindCoordinator v0-v3; those are the versions checked here.
//
// Wireshark 4.0.x has a bug in its non-flexible BYTES reader (dissect_kafka_regular_bytes reads
// an int16 length, "Pre KIP-482 coding ... signed 16-bit integer"; later releases read the int32
// the protocol specifies). It affects JoinGroup v0-v5 metadata and SyncGroup v0-v3 assignments.
// The capture therefore also carries an independent control frame, kafkajs's golden JoinGroup v5
// request body (kafkajs's JoinGroup v5 test inputs): if tshark mis-reads that one too, the installed tshark has the bug,
// and for the frames it affects only the fields before the first BYTES field are compared (plus
// the exact, expected symptom); with a fixed tshark every field is compared.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as c from '../../../src/codec/index.js';
import { kafkajsJoinGroupV5GoldenBody } from '../../support/interop-kafkajs.js';
import { PcapWriter } from '../../support/interop-pcap.js';
import { dissect, expertFields, hasKey, tsharkVersion, values, wiresharkHex, type DissectedFrame } from '../../support/interop-tshark.js';

const TSHARK = tsharkVersion();
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const CLIENT = 'kmock-interop-☃';
const GROUP = 'kmock-grüppe-☃';
const MEMBER = 'consumer-1-0b5f9c1e-8a2d-4e7f-9c3b-1d2e3f4a5b6c';
const MEMBER2 = 'consumer-2-7d1c';
const INSTANCE = 'static-instance-7';
const SUB = Buffer.concat([Buffer.from([0, 0]), c.encodeConsumerProtocolSubscription(c.createConsumerProtocolSubscription({ topics: ['topic-ä', 'topic-b'], userData: null }), 0)]);
const SUB2 = Buffer.from([0, 1, 2, 3, 0xfe, 0xff]);
const ASSIGNMENT = Buffer.concat([
  Buffer.from([0, 0]),
  c.encodeConsumerProtocolAssignment(c.createConsumerProtocolAssignment({ assignedPartitions: [c.ConsumerProtocolAssignment.createTopicPartition({ topic: 'topic-ä', partitions: [0, 2] })] }), 0),
]);

interface Exchange {
  name: string;
  request: Buffer;
  response: Buffer;
  requestFrame: number;
  responseFrame: number;
}

// The whole capture is built up front (it is pure data); tshark runs once in beforeAll.
const pcap = new PcapWriter();
let nextCorrelationId = 1000;
function exchange<K extends keyof c.ApiTypes>(name: string, apiKey: K, version: number, req: c.ApiTypes[K]['request'], res: c.ApiTypes[K]['response']): Exchange {
  const correlationId = nextCorrelationId++;
  const request = c.encodeRequest({ apiKey, apiVersion: version, correlationId, clientId: CLIENT }, req);
  const response = c.encodeResponse(apiKey, version, correlationId, res);
  const conv = pcap.connect();
  const requestFrame = conv.request(request);
  const responseFrame = conv.response(response);
  conv.close();
  return { name, request, response, requestFrame, responseFrame };
}

const joinGroup = range(0, 7).map((v) =>
  exchange(
    `JoinGroup v${v}`,
    11,
    v,
    c.createJoinGroupRequest({
      groupId: GROUP,
      sessionTimeoutMs: 30000,
      rebalanceTimeoutMs: 300000,
      memberId: MEMBER,
      groupInstanceId: v >= 5 ? INSTANCE : null,
      protocolType: 'consumer',
      protocols: [c.JoinGroupRequest.createProtocol({ name: 'cooperative-sticky', metadata: SUB }), c.JoinGroupRequest.createProtocol({ name: 'range', metadata: SUB2 })],
    }),
    c.createJoinGroupResponse({
      throttleTimeMs: 17,
      generationId: 2147483000,
      protocolType: v >= 7 ? 'consumer' : null,
      protocolName: 'cooperative-sticky',
      leader: MEMBER,
      memberId: MEMBER2,
      members: [
        c.JoinGroupResponse.createMember({ memberId: MEMBER, groupInstanceId: v >= 5 ? INSTANCE : null, metadata: SUB }),
        c.JoinGroupResponse.createMember({ memberId: MEMBER2, groupInstanceId: null, metadata: SUB2 }),
      ],
    }),
  ),
);
const joinGroupError = exchange(
  'JoinGroup v7 MEMBER_ID_REQUIRED',
  11,
  7,
  c.createJoinGroupRequest({ groupId: GROUP, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', protocolType: 'consumer', protocols: [c.JoinGroupRequest.createProtocol({ name: 'range', metadata: SUB2 })] }),
  c.createJoinGroupResponse({ errorCode: 79, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId: MEMBER2 }),
);
// Unknown tagged fields at both levels, one of them 200 bytes long (a two-byte size varint).
const LONG_TAG = Buffer.alloc(200, 0xab);
const joinGroupTags = exchange(
  'JoinGroup v6 with unknown tags',
  11,
  6,
  c.createJoinGroupRequest({
    groupId: GROUP,
    sessionTimeoutMs: 30000,
    rebalanceTimeoutMs: 60000,
    memberId: '',
    protocolType: 'consumer',
    protocols: [c.JoinGroupRequest.createProtocol({ name: 'range', metadata: SUB2, unknownTaggedFields: [{ tag: 3, data: Buffer.from([9, 9]) }] })],
    unknownTaggedFields: [
      { tag: 0, data: Buffer.from([1, 2, 3]) },
      { tag: 7, data: LONG_TAG },
    ],
  }),
  c.createJoinGroupResponse({
    generationId: 1,
    protocolName: 'range',
    leader: MEMBER,
    memberId: MEMBER,
    members: [c.JoinGroupResponse.createMember({ memberId: MEMBER, metadata: SUB2, unknownTaggedFields: [{ tag: 1, data: Buffer.from([5]) }] })],
    unknownTaggedFields: [{ tag: 2, data: Buffer.alloc(0) }],
  }),
);
const syncGroup = range(0, 5).map((v) =>
  exchange(
    `SyncGroup v${v}`,
    14,
    v,
    c.createSyncGroupRequest({
      groupId: GROUP,
      generationId: 42,
      memberId: MEMBER,
      groupInstanceId: v >= 3 ? INSTANCE : null,
      protocolType: v >= 5 ? 'consumer' : null,
      protocolName: v >= 5 ? 'range' : null,
      assignments: [c.SyncGroupRequest.createAssignment({ memberId: MEMBER, assignment: ASSIGNMENT }), c.SyncGroupRequest.createAssignment({ memberId: MEMBER2, assignment: SUB2 })],
    }),
    c.createSyncGroupResponse({ throttleTimeMs: 18, protocolType: v >= 5 ? 'consumer' : null, protocolName: v >= 5 ? 'range' : null, assignment: ASSIGNMENT }),
  ),
);
const heartbeat = range(0, 4).map((v) =>
  exchange(
    `Heartbeat v${v}`,
    12,
    v,
    c.createHeartbeatRequest({ groupId: GROUP, generationId: 42, memberId: MEMBER, groupInstanceId: v >= 3 ? INSTANCE : null }),
    c.createHeartbeatResponse({ throttleTimeMs: 19, errorCode: v === 4 ? 27 : 0 }),
  ),
);
const leaveGroup = range(0, 4).map((v) =>
  exchange(
    `LeaveGroup v${v}`,
    13,
    v,
    v <= 2
      ? c.createLeaveGroupRequest({ groupId: GROUP, memberId: MEMBER })
      : c.createLeaveGroupRequest({
          groupId: GROUP,
          members: [c.LeaveGroupRequest.createMemberIdentity({ memberId: MEMBER, groupInstanceId: INSTANCE }), c.LeaveGroupRequest.createMemberIdentity({ memberId: MEMBER2, groupInstanceId: null })],
        }),
    c.createLeaveGroupResponse({
      throttleTimeMs: 20,
      members: v >= 3 ? [c.LeaveGroupResponse.createMemberResponse({ memberId: MEMBER, groupInstanceId: INSTANCE }), c.LeaveGroupResponse.createMemberResponse({ memberId: MEMBER2, groupInstanceId: null, errorCode: 25 })] : [],
    }),
  ),
);
const API_KEYS = [
  { apiKey: 11, minVersion: 0, maxVersion: 9 },
  { apiKey: 14, minVersion: 0, maxVersion: 5 },
  { apiKey: 18, minVersion: 0, maxVersion: 4 },
];
const apiVersions = range(0, 3).map((v) =>
  exchange(
    `ApiVersions v${v}`,
    18,
    v,
    c.createApiVersionsRequest(v >= 3 ? { clientSoftwareName: 'kmock-interop', clientSoftwareVersion: '0.1.0-☃' } : {}),
    c.createApiVersionsResponse({ apiKeys: API_KEYS.map((k) => c.ApiVersionsResponse.createApiVersion(k)), throttleTimeMs: 21 }),
  ),
);
const findCoordinator = range(0, 3).map((v) =>
  exchange(
    `FindCoordinator v${v}`,
    10,
    v,
    c.createFindCoordinatorRequest({ key: GROUP, keyType: v >= 1 ? 0 : 0 }),
    c.createFindCoordinatorResponse({ throttleTimeMs: 22, errorMessage: null, nodeId: 3, host: 'broker-3.kmock', port: 9094 }),
  ),
);

// The control frame: kafkajs's JoinGroup v5 golden body behind a request header v1.
const kafkajsV5Body = await kafkajsJoinGroupV5GoldenBody();
const controlFrame = (() => {
  const clientId = Buffer.from('kafkajs-golden');
  const header = Buffer.alloc(14);
  header.writeInt32BE(10 + clientId.length + kafkajsV5Body.length, 0);
  header.writeInt16BE(11, 4);
  header.writeInt16BE(5, 6);
  header.writeInt32BE(999, 8);
  header.writeInt16BE(clientId.length, 12);
  return Buffer.concat([header, clientId, kafkajsV5Body]);
})();
const controlConv = pcap.connect();
const controlFrameNo = controlConv.request(controlFrame);
controlConv.close();
// Its only protocol's metadata: the 86 bytes after "AssignerName" and their int32 length.
const controlMetadata = kafkajsV5Body.subarray(kafkajsV5Body.length - 86);

describe.skipIf(TSHARK === null)(`Wireshark Kafka dissector (${TSHARK ?? 'tshark not installed: apt-get install -y tshark; the CI script installs it'})`, () => {
  let dir = '';
  let frames = new Map<number, DissectedFrame>();
  /** Whether the installed tshark reads non-flexible BYTES lengths as int16 (Wireshark 4.0.x). */
  let int16BytesBug = false;
  beforeAll(() => {
    // KMOCK_TSHARK_PCAP=/some/file.pcap keeps the capture for a look in Wireshark.
    const keep = process.env.KMOCK_TSHARK_PCAP;
    if (keep === undefined) dir = mkdtempSync(join(tmpdir(), 'kmock-tshark-'));
    const file = keep ?? join(dir, 'kmock-interop.pcap');
    writeFileSync(file, pcap.toBuffer());
    frames = dissect(file);
    const control = frames.get(controlFrameNo)?.kafka;
    int16BytesBug = values(control, 'kafka.protocol_metadata')[0] !== wiresharkHex(controlMetadata);
  });
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  /** The kafka layer of a frame, after checking that the dissector read it cleanly and fully. */
  interface Allow {
    /** Expert infos that are expected here (by their field name), e.g. kafka.unsupported_api_version. */
    expert?: string[];
    /** The frame is hit by the int16-BYTES bug: the dissector loses its place at the first BYTES field. */
    bytesBug?: boolean;
  }
  function kafka(frameNo: number, bytes: Buffer, kind: 'request' | 'response', apiKey: number, version: number, allow: Allow = {}): Record<string, string[]> & { tree: DissectedFrame['kafka'] } {
    const f = frames.get(frameNo);
    expect(f, `frame ${frameNo} missing from tshark output`).toBeDefined();
    const tree = f!.kafka;
    expect(tree, `tshark did not dissect frame ${frameNo} as Kafka`).toBeDefined();
    if (allow.bytesBug === true) {
      // The symptom of the dissector bug, and nothing else: the message does not end where the
      // (correct) length prefix says, because every int32 BYTES length was read as int16.
      expect(values(tree, '_ws.expert.message')).toContain('Dissected message does not end at the pdu length offset');
    } else {
      expect(hasKey(f!.layers, '_ws.malformed'), `frame ${frameNo}: Malformed Packet`).toBe(false);
      const experts = expertFields(tree);
      expect(experts.filter((e) => !(allow.expert ?? []).includes(e)), `frame ${frameNo}: expert info ${JSON.stringify(values(tree, '_ws.expert.message'))}`).toEqual([]);
    }
    expect(values(tree, 'kafka.len')).toEqual([String(bytes.length - 4)]);
    expect(values(tree, 'kafka.api_key')).toEqual([String(apiKey)]);
    expect(values(tree, kind === 'request' ? 'kafka.request.version' : 'kafka.response.version')).toEqual([String(version)]);
    expect(values(tree, 'kafka.correlation_id')).toEqual([String(bytes.readInt32BE(kind === 'request' ? 8 : 4))]);
    const get = (field: string) => values(tree, field);
    return new Proxy({ tree } as Record<string, string[]> & { tree: DissectedFrame['kafka'] }, { get: (t, p) => (p === 'tree' ? t.tree : get(`kafka.${String(p)}`)) });
  }
  const req = (e: Exchange, apiKey: number, v: number, allow: Allow = {}) => {
    const k = kafka(e.requestFrame, e.request, 'request', apiKey, v, allow);
    expect(k.client_id).toEqual([CLIENT]);
    return k;
  };
  const res = (e: Exchange, apiKey: number, v: number, allow: Allow = {}) => {
    const k = kafka(e.responseFrame, e.response, 'response', apiKey, v, allow);
    expect(k.request_frame, 'response matched to its request').toEqual([String(e.requestFrame)]);
    return k;
  };

  it('dissected every frame of the capture', () => {
    expect(TSHARK).toMatch(/^TShark \(Wireshark\) \d+\.\d+/);
    const all = [...joinGroup, joinGroupError, joinGroupTags, ...syncGroup, ...heartbeat, ...leaveGroup, ...apiVersions, ...findCoordinator];
    for (const e of all) {
      expect(frames.get(e.requestFrame)?.kafka, e.name).toBeDefined();
      expect(frames.get(e.responseFrame)?.kafka, e.name).toBeDefined();
    }
  });

  it('the control frame (kafkajs golden JoinGroup v5 request) tells whether tshark has the int16-BYTES bug', () => {
    const control = frames.get(controlFrameNo)?.kafka;
    expect(values(control, 'kafka.consumer_group')).toEqual(['consumer-group-id-b522188a3a12a1f04cfb-23702-e1ff35c7-fde9-4d58-960a-2cef8af77eef']);
    expect(values(control, 'kafka.consumer_group_instance')).toEqual(['group-instance-id']);
    expect(values(control, 'kafka.protocol_name')[0]).toBe('AssignerName');
    if (int16BytesBug) {
      // Wireshark 4.0.x: the int32 length 0x00000056 is read as int16 0x0000: empty metadata,
      // and the message is said not to end at its length.
      expect(TSHARK).toMatch(/Wireshark\) 4\.0\./);
      expect(values(control, 'kafka.protocol_metadata')[0]).not.toBe(wiresharkHex(controlMetadata));
      expect(values(control, '_ws.expert.message')).toContain('Dissected message does not end at the pdu length offset');
    } else {
      expect(values(control, 'kafka.protocol_metadata')).toEqual([wiresharkHex(controlMetadata)]);
      expect(hasKey(control, '_ws.expert')).toBe(false);
    }
  });

  it.each(range(0, 7))('JoinGroup v%i request', (v) => {
    const bytesBug = int16BytesBug && v <= 5;
    const k = req(joinGroup[v], 11, v, { bytesBug });
    expect(k.consumer_group).toEqual([GROUP]);
    expect(k.session_timeout).toEqual(['30000']);
    expect(k.rebalance_timeout).toEqual(v >= 1 ? ['300000'] : []);
    expect(k.member_id).toEqual([MEMBER]);
    expect(k.consumer_group_instance).toEqual(v >= 5 ? [INSTANCE] : []);
    expect(k.protocol_type).toEqual(['consumer']);
    if (bytesBug) {
      // Everything up to the first BYTES field (the first protocol's metadata) is right; that
      // field shows the high half (0x0000) of our int32 length read as an int16: empty.
      expect(k.protocol_name[0]).toBe('cooperative-sticky');
      expect(k.protocol_metadata[0]).toBe('');
      return;
    }
    expect(k.protocol_name).toEqual(['cooperative-sticky', 'range']);
    expect(k.protocol_metadata).toEqual([wiresharkHex(SUB), wiresharkHex(SUB2)]);
  });
  it.each(range(0, 7))('JoinGroup v%i response', (v) => {
    const bytesBug = int16BytesBug && v <= 5;
    const k = res(joinGroup[v], 11, v, { bytesBug });
    expect(k.throttle_time).toEqual(v >= 2 ? ['17'] : []);
    expect(k.error).toEqual(['0']);
    expect(k.generation_id).toEqual(['2147483000']);
    expect(k.protocol_type).toEqual(v >= 7 ? ['consumer'] : []);
    expect(k.protocol_name).toEqual(['cooperative-sticky']);
    expect(k.group_leader_id).toEqual([MEMBER]);
    if (bytesBug) {
      expect(k.member_id.slice(0, 2)).toEqual([MEMBER2, MEMBER]);
      if (v >= 5) expect(k.consumer_group_instance[0]).toBe(INSTANCE);
      expect(k.member_metadata[0]).toBe('');
      return;
    }
    expect(k.member_id).toEqual([MEMBER2, MEMBER, MEMBER2]);
    // Wireshark shows a null string as "[ Null ]".
    expect(k.consumer_group_instance).toEqual(v >= 5 ? [INSTANCE, '[ Null ]'] : []);
    expect(k.member_metadata).toEqual([wiresharkHex(SUB), wiresharkHex(SUB2)]);
  });
  it('JoinGroup v7 MEMBER_ID_REQUIRED response with null protocol type and name', () => {
    const q = req(joinGroupError, 11, 7);
    expect([q.consumer_group, q.member_id]).toEqual([[GROUP], ['']]);
    const k = res(joinGroupError, 11, 7);
    expect(k.error).toEqual(['79']);
    expect(k.generation_id).toEqual(['-1']);
    expect(k.member_id).toEqual([MEMBER2]);
    expect(k.protocol_type).toEqual(['[ Null ]']);
    expect(k.protocol_name).toEqual(['[ Null ]']);
  });

  it('JoinGroup v6 with unknown tagged fields at both levels: the dissector walks every tag section', () => {
    const q = req(joinGroupTags, 11, 6);
    expect(q.consumer_group).toEqual([GROUP]);
    expect(q.protocol_name).toEqual(['range']);
    expect(q.protocol_metadata).toEqual([wiresharkHex(SUB2)]);
    // Wireshark 4.0 prints tags in hex (0x0000000000000007). The JSON output merges same-named
    // "Tagged fields" subtrees, so pair each tag with its data and compare as a set.
    const pairs = q.tagged_field_tag.map((t, i) => [Number(t), q.tagged_field_data[i]]).sort((x, y) => Number(x[0]) - Number(y[0]));
    expect(pairs).toEqual([
      [0, wiresharkHex(Buffer.from([1, 2, 3]))],
      [3, wiresharkHex(Buffer.from([9, 9]))],
      [7, wiresharkHex(LONG_TAG)],
    ]);
    const k = res(joinGroupTags, 11, 6);
    expect(k.member_id).toEqual([MEMBER, MEMBER]);
    expect(k.member_metadata).toEqual([wiresharkHex(SUB2)]);
    expect(k.tagged_field_tag.map((t) => Number(t)).sort()).toEqual([1, 2]);
  });

  it.each(range(0, 5))('SyncGroup v%i request and response', (v) => {
    const bytesBug = int16BytesBug && v <= 3;
    const q = req(syncGroup[v], 14, v, { bytesBug });
    expect(q.consumer_group).toEqual([GROUP]);
    expect(q.generation_id).toEqual(['42']);
    expect(q.consumer_group_instance).toEqual(v >= 3 ? [INSTANCE] : []);
    expect(q.protocol_type).toEqual(v >= 5 ? ['consumer'] : []);
    expect(q.protocol_name).toEqual(v >= 5 ? ['range'] : []);
    if (bytesBug) {
      expect(q.member_id.slice(0, 2)).toEqual([MEMBER, MEMBER]);
      expect(q.member_assignment[0]).toBe('');
    } else {
      expect(q.member_id).toEqual([MEMBER, MEMBER, MEMBER2]);
      expect(q.member_assignment).toEqual([wiresharkHex(ASSIGNMENT), wiresharkHex(SUB2)]);
    }
    const k = res(syncGroup[v], 14, v, { bytesBug });
    expect(k.throttle_time).toEqual(v >= 1 ? ['18'] : []);
    expect(k.error).toEqual(['0']);
    expect(k.protocol_type).toEqual(v >= 5 ? ['consumer'] : []);
    expect(k.protocol_name).toEqual(v >= 5 ? ['range'] : []);
    expect(k.member_assignment[0]).toBe(bytesBug ? '' : wiresharkHex(ASSIGNMENT));
  });

  it.each(range(0, 4))('Heartbeat v%i request and response', (v) => {
    const q = req(heartbeat[v], 12, v);
    expect(q.consumer_group).toEqual([GROUP]);
    expect(q.generation_id).toEqual(['42']);
    expect(q.member_id).toEqual([MEMBER]);
    expect(q.consumer_group_instance).toEqual(v >= 3 ? [INSTANCE] : []);
    const k = res(heartbeat[v], 12, v);
    expect(k.throttle_time).toEqual(v >= 1 ? ['19'] : []);
    expect(k.error).toEqual([v === 4 ? '27' : '0']);
  });

  it.each(range(0, 4))('LeaveGroup v%i request and response', (v) => {
    const q = req(leaveGroup[v], 13, v);
    expect(q.consumer_group).toEqual([GROUP]);
    expect(q.member_id).toEqual(v <= 2 ? [MEMBER] : [MEMBER, MEMBER2]);
    expect(q.consumer_group_instance).toEqual(v >= 3 ? [INSTANCE, '[ Null ]'] : []);
    const k = res(leaveGroup[v], 13, v);
    expect(k.throttle_time).toEqual(v >= 1 ? ['20'] : []);
    expect(k.error).toEqual(v >= 3 ? ['0', '0', '25'] : ['0']);
    expect(k.member_id).toEqual(v >= 3 ? [MEMBER, MEMBER2] : []);
  });

  it.each(range(0, 3))('ApiVersions v%i request and response (response header v0 even at v3)', (v) => {
    const q = req(apiVersions[v], 18, v);
    expect(q.client_software_name).toEqual(v >= 3 ? ['kmock-interop'] : []);
    expect(q.client_software_version).toEqual(v >= 3 ? ['0.1.0-☃'] : []);
    // The dissector annotates advertised ranges beyond what it can decode itself (JoinGroup up to 9,
    // ApiVersions up to 4): information about Wireshark, not a fault in the frame.
    const k = res(apiVersions[v], 18, v, { expert: ['kafka.unsupported_api_version'] });
    expect(values(k.tree, '_ws.expert.message')).toEqual(['Unsupported JoinGroup version. Supports v0-7.', 'Unsupported ApiVersions version. Supports v0-3.']);
    expect(k.error).toEqual(['0']);
    expect(values(k.tree, 'kafka.api_versions.api_key')).toEqual(API_KEYS.map((a) => String(a.apiKey)));
    expect(values(k.tree, 'kafka.api_versions.min_version')).toEqual(API_KEYS.map((a) => String(a.minVersion)));
    expect(values(k.tree, 'kafka.api_versions.max_version')).toEqual(API_KEYS.map((a) => String(a.maxVersion)));
    expect(k.throttle_time).toEqual(v >= 1 ? ['21'] : []);
  });

  it.each(range(0, 3))('FindCoordinator v%i request and response', (v) => {
    const q = req(findCoordinator[v], 10, v);
    expect(v === 0 ? q.consumer_group : q.coordinator_key).toEqual([GROUP]);
    expect(q.coordinator_type).toEqual(v >= 1 ? ['0'] : []);
    const k = res(findCoordinator[v], 10, v);
    expect(k.throttle_time).toEqual(v >= 1 ? ['22'] : []);
    expect(k.error).toEqual(['0']);
    expect(k.node_id).toEqual(['3']);
    expect(k.host).toEqual(['broker-3.kmock']);
    expect(k.port).toEqual(['9094']);
  });
});
