// Benchmark cases for kmock's codec against kafkajs 2.2.4 and @platformatic/kafka 1.35.0.
//
// Naming of contenders:
//   "… module"   the library's own code, called the way the library calls it;
//   "… composed" the library's own primitives (kafkajs Encoder/Decoder, platformatic Writer/Reader)
//                put together in the same layout as its modules, for operations the library has no
//                module for (kafkajs never decodes requests; neither library encodes responses), or
//                to take record-batch building/parsing out of the comparison (like-for-like).
// Every case checks, before timing, that all contenders produce the same bytes or the same message.
import { Buffer } from 'node:buffer';
import {
  createFetchResponse,
  createJoinGroupRequest,
  createJoinGroupResponse,
  createProduceRequest,
  decodeFetchResponse,
  decodeJoinGroupRequest,
  decodeJoinGroupResponse,
  decodeProduceRequest,
  encodeJoinGroupRequest,
  encodeJoinGroupResponse,
  encodeProduceRequest,
  encodeResponse,
  encodeResponseChunks,
  FetchResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  ProduceRequest,
  type RecordSet,
} from '../src/codec/index.js';
import { bpDecodeJoinGroupV5, bpDecodeJoinGroupV5Shaped, truncationProbe, type TruncationReport } from './binary-parser-joingroup.js';
import type { BenchCase, Contender } from './harness.js';
import {
  AssignerProtocol,
  fetchV12,
  fetchV16,
  joinGroupV6,
  joinGroupV7,
  joinGroupV8,
  joinGroupV9,
  KafkaDecoder,
  KafkaEncoder,
  KafkaRecord,
  KafkaRecordBatch,
  kafkajsRequest,
  kafkajsResponse,
  Long,
  PltReader,
  PltWriter,
  produceV9,
  type KDecoder,
  type KEncoder,
} from './vendor.js';

const hex = (b: Buffer | null | undefined): string | null => (b == null ? null : b.toString('hex'));
const VERSIONS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

// =================================================================================================
// JoinGroup inputs: the kafkajs v5 request spec's inputs (its golden fixture v5_request.json).
// =================================================================================================

export const GROUP_ID = 'consumer-group-id-b522188a3a12a1f04cfb-23702-e1ff35c7-fde9-4d58-960a-2cef8af77eef';
const TOPIC_IN_METADATA = 'test-topic-6d25fae0b963e68547b8-23702-fafdf91d-ed40-4f21-8281-d7abb0d9bdd9';
const SUBSCRIPTION = AssignerProtocol.MemberMetadata.encode({ version: 1, topics: [TOPIC_IN_METADATA] }); // 86 bytes

/**
 * JoinGroup v6 body for the same inputs, cross-checked earlier against @platformatic/kafka
 * (kafkajs's JoinGroup v5 test inputs, cross-checked with @platformatic/kafka's encoder in test/codec/interop/platformatic.test.ts): a golden vector that does not come from this codebase.
 */
const GOLDEN_V6 =
  '52636f6e73756d65722d67726f75702d69642d62353232313838613361313261316630346366622d32333730322d65316666333563372d666465392d346435382d393630612d326365663861663737656566000075300000ea60011267726f75702d696e7374616e63652d696409636f6e73756d6572020d41737369676e65724e616d6557000100000001004a746573742d746f7069632d36643235666165306239363365363835343762382d32333730322d66616664663931642d656434302d346632312d383238312d643761626230643962646439000000000000';

interface JoinArgs {
  ours: JoinGroupRequest;
  /** kafkajs request-module arguments. */
  kjs: {
    groupId: string;
    sessionTimeout: number;
    rebalanceTimeout: number;
    memberId: string;
    groupInstanceId: string | null;
    protocolType: string;
    groupProtocols: { name: string; metadata: Buffer }[];
  };
  /** @platformatic createRequest positional arguments. */
  plt: [string, number, number, string, string | null, string, { name: string; metadata: Buffer }[], string | null];
}

function joinArgs(v: number): JoinArgs {
  const groupInstanceId = v >= 5 ? 'group-instance-id' : null; // static membership exists from v5
  const protocols = [{ name: 'AssignerName', metadata: SUBSCRIPTION }];
  return {
    ours: createJoinGroupRequest({
      groupId: GROUP_ID,
      sessionTimeoutMs: 30000,
      rebalanceTimeoutMs: 60000,
      memberId: '',
      groupInstanceId,
      protocolType: 'consumer',
      protocols: protocols.map((p) => JoinGroupRequest.createProtocol(p)),
      reason: null,
    }),
    kjs: { groupId: GROUP_ID, sessionTimeout: 30000, rebalanceTimeout: 60000, memberId: '', groupInstanceId, protocolType: 'consumer', groupProtocols: protocols },
    plt: [GROUP_ID, 30000, 60000, '', groupInstanceId, 'consumer', protocols, null],
  };
}

// ---- kafkajs: the request modules' Encoder calls, made synchronously ----------------------------

const kjsEncodeGroupProtocol = ({ name, metadata }: { name: string; metadata: Buffer }): KEncoder =>
  new KafkaEncoder().writeString(name).writeBytes(metadata);

function kjsJoinGroupSync(v: number): (a: JoinArgs['kjs']) => Buffer {
  // Literally the bodies of joinGroup/v0, v1 (= v2..v4) and v5 request.js, without `async`.
  if (v === 0) {
    return (a) =>
      new KafkaEncoder()
        .writeString(a.groupId)
        .writeInt32(a.sessionTimeout)
        .writeString(a.memberId)
        .writeString(a.protocolType)
        .writeArray(a.groupProtocols.map(kjsEncodeGroupProtocol)).buffer;
  }
  if (v < 5) {
    return (a) =>
      new KafkaEncoder()
        .writeString(a.groupId)
        .writeInt32(a.sessionTimeout)
        .writeInt32(a.rebalanceTimeout)
        .writeString(a.memberId)
        .writeString(a.protocolType)
        .writeArray(a.groupProtocols.map(kjsEncodeGroupProtocol)).buffer;
  }
  return (a) =>
    new KafkaEncoder()
      .writeString(a.groupId)
      .writeInt32(a.sessionTimeout)
      .writeInt32(a.rebalanceTimeout)
      .writeString(a.memberId)
      .writeString(a.groupInstanceId)
      .writeString(a.protocolType)
      .writeArray(a.groupProtocols.map(kjsEncodeGroupProtocol)).buffer;
}

// ---- normalised JoinGroup request (what every decoder must agree on) ----------------------------

interface NormJoinRequest {
  groupId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string | null;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocols: { name: string | null; metadata: string | null }[];
  reason: string | null;
}

type JoinReqLike = {
  groupId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string | null;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocols: { name: string | null; metadata: Buffer | null }[];
  reason: string | null;
};

const normJoinRequest = (m: JoinReqLike): NormJoinRequest => ({
  groupId: m.groupId,
  sessionTimeoutMs: m.sessionTimeoutMs,
  rebalanceTimeoutMs: m.rebalanceTimeoutMs,
  memberId: m.memberId,
  groupInstanceId: m.groupInstanceId,
  protocolType: m.protocolType,
  protocols: m.protocols.map((p) => ({ name: p.name, metadata: hex(p.metadata) })),
  reason: m.reason,
});

/** kafkajs has no request decoders: its Decoder, used the way its response.js files use it. */
function kjsDecodeJoinGroupRequest(v: number): (buf: Buffer) => JoinReqLike {
  const protocol = (d: KDecoder) => ({ name: d.readString(), metadata: d.readBytes() });
  return (buf) => {
    const d = new KafkaDecoder(buf);
    return {
      groupId: d.readString(),
      sessionTimeoutMs: d.readInt32(),
      rebalanceTimeoutMs: v >= 1 ? d.readInt32() : -1,
      memberId: d.readString(),
      groupInstanceId: v >= 5 ? d.readString() : null,
      protocolType: d.readString(),
      protocols: d.readArray(protocol),
      reason: null,
    };
  };
}

/** @platformatic has no request decoders either: its Reader, used the way its parseResponse files do. */
function pltDecodeJoinGroupRequest(v: number): (buf: Buffer) => JoinReqLike {
  return (buf) => {
    const r = PltReader.from(buf);
    const m: JoinReqLike = {
      groupId: r.readString(),
      sessionTimeoutMs: r.readInt32(),
      rebalanceTimeoutMs: r.readInt32(),
      memberId: r.readString(),
      groupInstanceId: r.readNullableString(),
      protocolType: r.readString(),
      protocols: r.readArray((rr) => ({ name: rr.readString(), metadata: rr.readBytes() })),
      reason: v >= 8 ? r.readNullableString() : null,
    };
    r.readTaggedFields();
    return m;
  };
}

const pltJoinGroup = { 6: joinGroupV6, 7: joinGroupV7, 8: joinGroupV8, 9: joinGroupV9 } as const;

/** The v5 truncation probe, filled in when the v5 decode case is checked. */
export let v5Truncation: TruncationReport | undefined;

function joinGroupRequestCases(): BenchCase<any>[] {
  const cases: BenchCase<any>[] = [];
  // ---- encode
  for (const v of VERSIONS) {
    const input = joinArgs(v);
    const contenders: Contender<JoinArgs>[] = [
      { name: 'kmock encodeJoinGroupRequest', lib: 'kmock', fn: (i) => encodeJoinGroupRequest(i.ours, v), normalize: hex },
    ];
    if (v <= 5) {
      const mod = kafkajsRequest('joinGroup', v);
      const sync = kjsJoinGroupSync(v);
      contenders.push(
        { name: `kafkajs joinGroup/v${v}/request.js module (await encode())`, lib: 'kafkajs', async: true, baseline: true, fn: async (i) => (await mod(i.kjs).encode()).buffer, normalize: hex },
        { name: 'kafkajs Encoder, same calls, sync', lib: 'kafkajs', baseline: true, fn: (i) => sync(i.kjs), normalize: hex },
      );
    } else {
      const p = pltJoinGroup[v as 6 | 7 | 8 | 9];
      contenders.push({
        name: `platformatic joinGroupV${v}.createRequest().buffer`,
        lib: 'platformatic',
        baseline: true,
        fn: (i) => p.createRequest(...i.plt).buffer,
        normalize: hex,
      });
    }
    cases.push({
      section: 'JoinGroup request',
      op: `JoinGroup request encode v${v}`,
      input,
      contenders,
      target: v <= 5 ? { against: 'kafkajs', min: 5, label: 'JoinGroup encode ≥ 5× kafkajs' } : undefined,
      verify:
        v === 6
          ? () => {
              const got = encodeJoinGroupRequest(input.ours, 6).toString('hex');
              if (got !== GOLDEN_V6) throw new Error(`v6 bytes differ from the golden vector:\n${got}\n${GOLDEN_V6}`);
            }
          : undefined,
    });
  }
  // ---- decode
  for (const v of VERSIONS) {
    const bytes = encodeJoinGroupRequest(joinArgs(v).ours, v);
    const contenders: Contender<Buffer>[] = [
      { name: 'kmock decodeJoinGroupRequest', lib: 'kmock', fn: (b) => decodeJoinGroupRequest(b, v), normalize: normJoinRequest },
    ];
    if (v <= 5) {
      const dec = kjsDecodeJoinGroupRequest(v);
      contenders.push({ name: 'kafkajs Decoder composed (no request decoder in kafkajs)', lib: 'kafkajs', baseline: true, fn: dec, normalize: normJoinRequest });
    } else {
      const dec = pltDecodeJoinGroupRequest(v);
      contenders.push({ name: 'platformatic Reader composed (no request decoder; skips tags)', lib: 'platformatic', baseline: true, fn: dec, normalize: normJoinRequest });
    }
    if (v === 5) {
      contenders.push(
        { name: 'binary-parser 2.3.0 parse (raw result)', lib: 'binary-parser', fn: bpDecodeJoinGroupV5, normalize: normJoinRequestBp },
        { name: 'binary-parser 2.3.0 parse + reshape to message', lib: 'binary-parser', fn: bpDecodeJoinGroupV5Shaped, normalize: normJoinRequest },
      );
    }
    cases.push({
      section: 'JoinGroup request',
      op: `JoinGroup request decode v${v}`,
      input: bytes,
      contenders,
      target: v <= 5 ? { against: 'kafkajs', min: 2, label: 'JoinGroup decode ≥ 2× kafkajs' } : undefined,
      verify:
        v === 5
          ? () => {
              v5Truncation = truncationProbe(bytes, (b) => decodeJoinGroupRequest(b, 5));
            }
          : undefined,
    });
  }
  return cases;
}

function normJoinRequestBp(p: ReturnType<typeof bpDecodeJoinGroupV5>): NormJoinRequest {
  return normJoinRequest({ ...p, reason: null });
}

// =================================================================================================
// JoinGroup response: a leader's response with three members (what the coordinator sends).
// =================================================================================================

function joinResponse(v: number): JoinGroupResponse {
  const ids = [1, 2, 3].map((k) => `consumer-${k}-3f1c9a52-6b0e-4d7a-9c2f-8e4b1d6a${k}0f7`);
  return createJoinGroupResponse({
    throttleTimeMs: 0,
    errorCode: 0,
    generationId: 7,
    protocolType: v >= 7 ? 'consumer' : null,
    protocolName: 'RoundRobinAssigner',
    leader: ids[0],
    skipAssignment: false,
    memberId: ids[0],
    members: ids.map((id, k) =>
      JoinGroupResponse.createMember({ memberId: id, groupInstanceId: v >= 5 ? `instance-${k + 1}` : null, metadata: SUBSCRIPTION }),
    ),
  });
}

interface NormJoinResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string | null;
  skipAssignment: boolean;
  memberId: string | null;
  members: { memberId: string | null; groupInstanceId: string | null; metadata: string | null }[];
}

const normJoinResponseOurs = (m: JoinGroupResponse): NormJoinResponse => ({
  throttleTimeMs: m.throttleTimeMs,
  errorCode: m.errorCode,
  generationId: m.generationId,
  protocolType: m.protocolType,
  protocolName: m.protocolName,
  leader: m.leader,
  skipAssignment: m.skipAssignment,
  memberId: m.memberId,
  members: m.members.map((x) => ({ memberId: x.memberId, groupInstanceId: x.groupInstanceId, metadata: hex(x.metadata) })),
});

interface KjsJoinResponse {
  throttleTime?: number;
  clientSideThrottleTime?: number;
  errorCode: number;
  generationId: number;
  groupProtocol: string | null;
  leaderId: string | null;
  memberId: string | null;
  members: { memberId: string | null; groupInstanceId?: string | null; memberMetadata: Buffer | null }[];
}

const normJoinResponseKjs = (r: KjsJoinResponse): NormJoinResponse => ({
  throttleTimeMs: r.clientSideThrottleTime ?? r.throttleTime ?? 0,
  errorCode: r.errorCode,
  generationId: r.generationId,
  protocolType: null,
  protocolName: r.groupProtocol,
  leader: r.leaderId,
  skipAssignment: false,
  memberId: r.memberId,
  members: r.members.map((x) => ({ memberId: x.memberId, groupInstanceId: x.groupInstanceId ?? null, metadata: hex(x.memberMetadata) })),
});

function normJoinResponsePlt(v: number) {
  return (r: ReturnType<typeof joinGroupV9.parseResponse>): NormJoinResponse => ({
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: v >= 7 ? (r.protocolType ?? null) : null, // v6's parser hard-codes ''
    protocolName: r.protocolName ?? null,
    leader: r.leader,
    skipAssignment: r.skipAssignment,
    memberId: r.memberId ?? null,
    members: r.members.map((x) => ({ memberId: x.memberId, groupInstanceId: x.groupInstanceId ?? null, metadata: hex(x.metadata) })),
  });
}

/** kafkajs's joinGroup response.js decode bodies, made synchronous (v0/v1 and v2..v5 layouts). */
function kjsDecodeJoinGroupResponseSync(v: number): (buf: Buffer) => KjsJoinResponse {
  return (buf) => {
    const d = new KafkaDecoder(buf);
    const throttleTime = v >= 2 ? d.readInt32() : undefined; // v0/v1 have no throttle time
    const errorCode = d.readInt16();
    return {
      throttleTime: 0,
      clientSideThrottleTime: throttleTime,
      errorCode,
      generationId: d.readInt32(),
      groupProtocol: d.readString(),
      leaderId: d.readString(),
      memberId: d.readString(),
      members: d.readArray((dd) =>
        v >= 5
          ? { memberId: dd.readString(), groupInstanceId: dd.readString(), memberMetadata: dd.readBytes() }
          : { memberId: dd.readString(), memberMetadata: dd.readBytes() },
      ),
    };
  };
}

function joinGroupResponseCases(): BenchCase<any>[] {
  const cases: BenchCase<any>[] = [];
  for (const v of VERSIONS) {
    const m = joinResponse(v);
    const flexible = v >= 6;
    const headerLen = 4 + 4 + (flexible ? 1 : 0); // size, correlation id, header tags
    const expected = normJoinResponseOurs(m);
    cases.push({
      section: 'JoinGroup response',
      op: `JoinGroup response encode v${v}`,
      input: m,
      contenders: [
        { name: 'kmock encodeJoinGroupResponse (body)', lib: 'kmock', fn: (x: JoinGroupResponse) => encodeJoinGroupResponse(x, v), normalize: hex },
        {
          name: 'kmock encodeResponseChunks (whole frame)',
          lib: 'kmock',
          fn: (x: JoinGroupResponse) => encodeResponseChunks(11, v, 42, x),
          normalize: (chunks: Buffer[]) => hex(Buffer.concat(chunks).subarray(headerLen)),
        },
      ],
      // Nobody else encodes JoinGroup responses: check our bytes by decoding them with the others.
      verify: async () => {
        const body = encodeJoinGroupResponse(m, v);
        let other: NormJoinResponse;
        if (v <= 5) other = normJoinResponseKjs((await kafkajsResponse('joinGroup', v).decode(body)) as unknown as KjsJoinResponse);
        else other = normJoinResponsePlt(v)(pltJoinGroup[v as 6 | 7 | 8 | 9].parseResponse(0, 11, v, PltReader.from(body)));
        const want = { ...expected, members: expected.members.map((x) => ({ ...x, groupInstanceId: v >= 5 ? x.groupInstanceId : null })) };
        if (JSON.stringify(other) !== JSON.stringify(want)) throw new Error(`other library reads our v${v} bytes differently:\n${JSON.stringify(other)}\n${JSON.stringify(want)}`);
      },
    });
  }
  for (const v of VERSIONS) {
    const bytes = encodeJoinGroupResponse(joinResponse(v), v);
    const contenders: Contender<Buffer>[] = [
      { name: 'kmock decodeJoinGroupResponse', lib: 'kmock', fn: (b) => decodeJoinGroupResponse(b, v), normalize: normJoinResponseOurs },
    ];
    if (v <= 5) {
      const mod = kafkajsResponse('joinGroup', v);
      const sync = kjsDecodeJoinGroupResponseSync(v);
      contenders.push(
        { name: `kafkajs joinGroup/v${v}/response.js module (await decode())`, lib: 'kafkajs', async: true, baseline: true, fn: (b) => mod.decode(b), normalize: normJoinResponseKjs },
        { name: 'kafkajs Decoder, same calls, sync', lib: 'kafkajs', baseline: true, fn: sync, normalize: normJoinResponseKjs },
      );
    } else {
      const p = pltJoinGroup[v as 6 | 7 | 8 | 9];
      contenders.push({
        name: `platformatic joinGroupV${v}.parseResponse module`,
        lib: 'platformatic',
        baseline: true,
        fn: (b) => p.parseResponse(0, 11, v, PltReader.from(b)),
        normalize: normJoinResponsePlt(v),
      });
    }
    cases.push({
      section: 'JoinGroup response',
      op: `JoinGroup response decode v${v}`,
      input: bytes,
      contenders,
      target: v <= 5 ? { against: 'kafkajs', min: 2, label: 'JoinGroup decode ≥ 2× kafkajs (response)' } : undefined,
    });
  }
  return cases;
}

// =================================================================================================
// Record batches: built ONCE with kafkajs's own RecordBatch encoder (100 records, no compression).
// =================================================================================================

export const RECORDS = 100;
const TOPIC = 'bench-topic';
const TS0 = 1_700_000_000_000;

interface Msg {
  key: Buffer;
  value: Buffer;
  headers: Record<string, string>;
  timestamp: number;
}

function messages(): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const value = JSON.stringify({ id: i, user: `user-${(i * 7919) % 10007}`, event: 'page_view', path: `/products/${i % 37}/details`, ok: true });
    out.push({ key: Buffer.from(`key-${i}`), value: Buffer.from(value.padEnd(100, ' ')), headers: { 'trace-id': `trace-${i}` }, timestamp: TS0 + i });
  }
  return out;
}

/** One record batch exactly as kafkajs's produce request builds it (produce/v3/request.js). */
async function kafkajsBatch(msgs: Msg[], firstOffset = 0): Promise<Buffer> {
  const records = msgs.map((m, i) => KafkaRecord({ ...m, offsetDelta: i, timestampDelta: m.timestamp - msgs[0].timestamp }));
  const enc = await KafkaRecordBatch({
    compression: 0,
    firstOffset: Long.fromInt(firstOffset),
    records,
    firstTimestamp: msgs[0].timestamp,
    maxTimestamp: msgs[msgs.length - 1].timestamp,
    producerId: Long.fromInt(-1),
    producerEpoch: 0,
    firstSequence: undefined,
    transactional: false,
    lastOffsetDelta: records.length - 1,
  });
  return Buffer.from(enc.buffer);
}

/** Record count and first/last offsets of a buffer of v2 record batches (fixed header offsets). */
function summariseBatches(b: Buffer | null): { batches: number; records: number; first: string; last: string } | null {
  if (b === null) return null;
  let pos = 0;
  let batches = 0;
  let records = 0;
  let first = '';
  let last = '';
  while (pos + 61 <= b.length) {
    const base = b.readBigInt64BE(pos);
    const len = b.readInt32BE(pos + 8);
    if (batches === 0) first = base.toString();
    last = (base + BigInt(b.readInt32BE(pos + 23))).toString();
    records += b.readInt32BE(pos + 57);
    batches++;
    pos += 12 + len;
  }
  return { batches, records, first, last };
}

const recordSetBuffer = (r: RecordSet | null): Buffer | null => (r === null ? null : Buffer.isBuffer(r) ? r : Buffer.concat(r as readonly Buffer[]));

// =================================================================================================
// Produce request with 100 records
// =================================================================================================

interface ProduceArgs {
  ours: ProduceRequest;
  blob: Buffer;
  /** kafkajs produce-module arguments (it builds the record batch itself, on every encode). */
  kjs: Record<string, unknown>;
  /** @platformatic produce createRequest messages (it builds the batch itself, on every call). */
  pltMessages: { topic: string; partition: number; key: Buffer; value: Buffer; headers: Map<Buffer, Buffer>; timestamp: bigint }[];
}

interface NormProduce {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  topics: { name: string | null; partitions: { index: number; records: string | null }[] }[];
}

type ProduceLike = {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  topicData: { name: string | null; partitionData: { index: number; records: RecordSet | null }[] }[];
};

const normProduce = (m: ProduceLike): NormProduce => ({
  transactionalId: m.transactionalId,
  acks: m.acks,
  timeoutMs: m.timeoutMs,
  topics: m.topicData.map((t) => ({ name: t.name, partitions: t.partitionData.map((p) => ({ index: p.index, records: hex(recordSetBuffer(p.records)) })) })),
});

function kjsEncodeProduceComposed(a: ProduceArgs): Buffer {
  // produce/v3/request.js's layout (nested Encoders, writeArray of Encoders) with the record
  // batch already built: writeInt32(size) + the batch bytes, as it does with writeEncoder(batch).
  const m = a.ours;
  return new KafkaEncoder()
    .writeString(m.transactionalId)
    .writeInt16(m.acks)
    .writeInt32(m.timeoutMs)
    .writeArray(
      m.topicData.map((t) =>
        new KafkaEncoder().writeString(t.name).writeArray(
          t.partitionData.map((p) => new KafkaEncoder().writeInt32(p.index).writeInt32(a.blob.length).writeBuffer(a.blob)),
        ),
      ),
    ).buffer;
}

function pltEncodeProduceComposed(a: ProduceArgs): Buffer {
  // produce-v9.js createRequest with the batch already built (it would `appendFrom(records)`).
  const m = a.ours;
  return PltWriter.create()
    .appendString(m.transactionalId)
    .appendInt16(m.acks)
    .appendInt32(m.timeoutMs)
    .appendArray(m.topicData, (w, t) => {
      w.appendString(t.name).appendArray(t.partitionData, (ww, _p) => {
        ww.appendInt32(_p.index).appendUnsignedVarInt(a.blob.length + 1).append(a.blob);
      });
    })
    .appendTaggedFields().buffer;
}

function kjsDecodeProduceComposed(buf: Buffer): ProduceLike {
  const d = new KafkaDecoder(buf);
  return {
    transactionalId: d.readString(),
    acks: d.readInt16(),
    timeoutMs: d.readInt32(),
    topicData: d.readArray((dt) => ({ name: dt.readString(), partitionData: dt.readArray((dp) => ({ index: dp.readInt32(), records: dp.readBytes() })) })),
  };
}

function pltDecodeProduceComposed(buf: Buffer): ProduceLike {
  const r = PltReader.from(buf);
  const m: ProduceLike = {
    transactionalId: r.readNullableString(),
    acks: r.readInt16(),
    timeoutMs: r.readInt32(),
    topicData: r.readArray((rt) => ({ name: rt.readString(), partitionData: rt.readArray((rp) => ({ index: rp.readInt32(), records: rp.readNullableBytes() })) })),
  };
  r.readTaggedFields();
  return m;
}

async function produceCases(): Promise<BenchCase<any>[]> {
  const msgs = messages();
  const blob = await kafkajsBatch(msgs);
  const args: ProduceArgs = {
    ours: createProduceRequest({
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      topicData: [ProduceRequest.createTopicProduceData({ name: TOPIC, partitionData: [ProduceRequest.createPartitionProduceData({ index: 0, records: blob })] })],
    }),
    blob,
    kjs: { acks: -1, timeout: 30000, compression: 0, topicData: [{ topic: TOPIC, partitions: [{ partition: 0, messages: msgs }] }] },
    pltMessages: msgs.map((m) => ({
      topic: TOPIC,
      partition: 0,
      key: m.key,
      value: m.value,
      headers: new Map(Object.entries(m.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
      timestamp: BigInt(m.timestamp),
    })),
  };
  const kjsProduceV7 = kafkajsRequest('produce', 7);
  const cases: BenchCase<any>[] = [];
  cases.push({
    section: 'Produce request (100 records)',
    op: `Produce request encode v7 (${blob.length}-byte batch)`,
    input: args,
    contenders: [
      { name: 'kmock encodeProduceRequest (batch prebuilt)', lib: 'kmock', fn: (a: ProduceArgs) => encodeProduceRequest(a.ours, 7), normalize: hex },
      { name: 'kafkajs Encoder composed, batch prebuilt (like-for-like)', lib: 'kafkajs', baseline: true, fn: kjsEncodeProduceComposed, normalize: hex },
      {
        name: 'kafkajs produce/v7/request.js module (builds the batch on every encode)',
        lib: 'kafkajs',
        async: true,
        fn: async (a: ProduceArgs) => (await kjsProduceV7(a.kjs).encode()).buffer,
        normalize: hex,
      },
    ],
    note: 'kafkajs produce/v7 module: builds the 100-record batch on every call, so it is not like-for-like; shown for scale only.',
  });
  cases.push({
    section: 'Produce request (100 records)',
    op: `Produce request encode v9 (${blob.length}-byte batch)`,
    input: args,
    contenders: [
      { name: 'kmock encodeProduceRequest (batch prebuilt)', lib: 'kmock', fn: (a: ProduceArgs) => encodeProduceRequest(a.ours, 9), normalize: hex },
      { name: 'platformatic Writer composed, batch prebuilt (like-for-like)', lib: 'platformatic', baseline: true, fn: pltEncodeProduceComposed, normalize: hex },
      {
        name: 'platformatic produceV9.createRequest().buffer module (builds the batch on every call)',
        lib: 'platformatic',
        fn: (a: ProduceArgs) => produceV9.createRequest(-1, 30000, a.pltMessages).buffer,
        normalize: hex,
      },
    ],
    note: 'platformatic produceV9 module: builds the 100-record batch on every call; shown for scale only.',
  });
  for (const v of [7, 9]) {
    const bytes = encodeProduceRequest(args.ours, v);
    cases.push({
      section: 'Produce request (100 records)',
      op: `Produce request decode v${v} (records kept as a view)`,
      input: bytes,
      contenders: [
        { name: 'kmock decodeProduceRequest', lib: 'kmock', fn: (b: Buffer) => decodeProduceRequest(b, v), normalize: normProduce },
        v === 7
          ? { name: 'kafkajs Decoder composed (readBytes is a view)', lib: 'kafkajs', baseline: true, fn: kjsDecodeProduceComposed, normalize: normProduce }
          : { name: 'platformatic Reader composed (readBytes is a view)', lib: 'platformatic', baseline: true, fn: pltDecodeProduceComposed, normalize: normProduce },
      ],
    });
  }
  return cases;
}

// =================================================================================================
// Fetch response with stored batches: 1 topic × 3 partitions × 2 stored batches of 100 records.
// =================================================================================================

const TOPIC_ID = 'kZ2xNmqoTd2CqS0VvEo5_w'; // 16 bytes as base64url

interface NormFetch {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: {
    topic: string | null;
    partitions: {
      partitionIndex: number;
      errorCode: number;
      highWatermark: string;
      lastStableOffset: string;
      logStartOffset: string;
      abortedTransactions: number;
      preferredReadReplica: number;
      records: { records: number; first: string; last: string } | null;
    }[];
  }[];
}

type FetchLike = {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: {
    topic: string | null;
    partitions: {
      partitionIndex: number;
      errorCode: number;
      highWatermark: bigint;
      lastStableOffset: bigint;
      logStartOffset: bigint;
      abortedTransactions: unknown[] | null;
      preferredReadReplica: number;
      records: RecordSet | null;
    }[];
  }[];
};

function normFetchView(v: number) {
  return (m: FetchLike | FetchResponse): NormFetch => ({
    throttleTimeMs: m.throttleTimeMs,
    errorCode: m.errorCode,
    sessionId: m.sessionId,
    responses: m.responses.map((t) => ({
      topic: 'topicId' in t ? (v >= 13 ? t.topicId : t.topic) : v >= 13 && t.topic !== null ? uuidToBase64url(t.topic) : t.topic,
      partitions: t.partitions.map((p) => {
        const s = summariseBatches(recordSetBuffer(p.records));
        return {
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          highWatermark: p.highWatermark.toString(),
          lastStableOffset: p.lastStableOffset.toString(),
          logStartOffset: p.logStartOffset.toString(),
          abortedTransactions: p.abortedTransactions?.length ?? 0,
          preferredReadReplica: p.preferredReadReplica,
          records: s === null ? null : { records: s.records, first: s.first, last: s.last },
        };
      }),
    })),
  });
}

interface KjsFetchV11 {
  clientSideThrottleTime: number;
  errorCode: number;
  sessionId: number;
  responses: {
    topicName: string;
    partitions: {
      partition: number;
      errorCode: number;
      highWatermark: string;
      lastStableOffset: string;
      lastStartOffset: string;
      abortedTransactions: unknown[];
      preferredReadReplica: number;
      messages: { offset: string }[];
    }[];
  }[];
}

const normFetchKjsModule = (r: KjsFetchV11): NormFetch => ({
  throttleTimeMs: r.clientSideThrottleTime,
  errorCode: r.errorCode,
  sessionId: r.sessionId,
  responses: r.responses.map((t) => ({
    topic: t.topicName,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partition,
      errorCode: p.errorCode,
      highWatermark: p.highWatermark,
      lastStableOffset: p.lastStableOffset,
      logStartOffset: p.lastStartOffset,
      abortedTransactions: p.abortedTransactions.length,
      preferredReadReplica: p.preferredReadReplica,
      records: p.messages.length === 0 ? null : { records: p.messages.length, first: p.messages[0].offset, last: p.messages[p.messages.length - 1].offset },
    })),
  })),
});

const uuidToBase64url = (u: string): string => Buffer.from(u.replace(/-/g, ''), 'hex').toString('base64url');

function normFetchPltModule(v: number) {
  return (r: ReturnType<typeof fetchV12.parseResponse>): NormFetch => ({
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    sessionId: r.sessionId,
    responses: r.responses.map((t) => ({
      topic: v >= 13 ? uuidToBase64url(t.topicId) : t.topicId,
      partitions: t.partitions.map((p) => {
        const batches = p.records ?? [];
        let n = 0;
        for (const b of batches) n += b.records.length;
        const lastB = batches[batches.length - 1];
        return {
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          highWatermark: p.highWatermark.toString(),
          lastStableOffset: p.lastStableOffset.toString(),
          logStartOffset: p.logStartOffset.toString(),
          abortedTransactions: p.abortedTransactions.length,
          preferredReadReplica: p.preferredReadReplica,
          records:
            batches.length === 0
              ? null
              : {
                  records: n,
                  first: (batches[0].firstOffset + BigInt(batches[0].records[0].offsetDelta)).toString(),
                  last: (lastB.firstOffset + BigInt(lastB.records[lastB.records.length - 1].offsetDelta)).toString(),
                },
        };
      }),
    })),
  });
}

/** kafkajs fetch/v11/response.js's Decoder calls, sync, with the records left as a view. */
function kjsDecodeFetchV11Composed(buf: Buffer): FetchLike {
  const d = new KafkaDecoder(buf);
  return {
    throttleTimeMs: d.readInt32(),
    errorCode: d.readInt16(),
    sessionId: d.readInt32(),
    responses: d.readArray((dt) => ({
      topic: dt.readString(),
      partitions: dt.readArray((dp) => ({
        partitionIndex: dp.readInt32(),
        errorCode: dp.readInt16(),
        highWatermark: dp.readInt64(),
        lastStableOffset: dp.readInt64(),
        logStartOffset: dp.readInt64(),
        abortedTransactions: dp.readArray((da) => ({ producerId: da.readInt64(), firstOffset: da.readInt64() })),
        preferredReadReplica: dp.readInt32(),
        records: dp.readBytes(),
      })),
    })),
  };
}

/** platformatic fetch-v12/v16 parseResponse's Reader calls, with the records left as a view. */
function pltDecodeFetchComposed(v: number): (buf: Buffer) => FetchLike {
  return (buf) => {
    const r = PltReader.from(buf);
    return {
      throttleTimeMs: r.readInt32(),
      errorCode: r.readInt16(),
      sessionId: r.readInt32(),
      responses: r.readArray((rt) => ({
        topic: v >= 13 ? rt.readUUID() : rt.readString(), // canonicalised in normalize, outside the timed call
        partitions: rt.readArray((rp) => ({
          partitionIndex: rp.readInt32(),
          errorCode: rp.readInt16(),
          highWatermark: rp.readInt64(),
          lastStableOffset: rp.readInt64(),
          logStartOffset: rp.readInt64(),
          abortedTransactions: rp.readArray((ra) => ({ producerId: ra.readInt64(), firstOffset: ra.readInt64() })),
          preferredReadReplica: rp.readInt32(),
          records: rp.readNullableBytes(),
        })),
      })),
    };
  };
}

async function fetchCases(): Promise<BenchCase<any>[]> {
  const msgs = messages();
  const batchA = await kafkajsBatch(msgs, 0);
  const batchB = await kafkajsBatch(msgs, RECORDS);
  const stored: readonly Buffer[] = [batchA, batchB];
  const recordBytes = 3 * (batchA.length + batchB.length);
  const response = (): FetchResponse =>
    createFetchResponse({
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        FetchResponse.createFetchableTopicResponse({
          topic: TOPIC,
          topicId: TOPIC_ID,
          partitions: [0, 1, 2].map((p) =>
            FetchResponse.createPartitionData({
              partitionIndex: p,
              errorCode: 0,
              highWatermark: BigInt(2 * RECORDS),
              lastStableOffset: BigInt(2 * RECORDS),
              logStartOffset: 0n,
              abortedTransactions: [],
              preferredReadReplica: -1,
              records: stored,
            }),
          ),
        }),
      ],
    });
  const cases: BenchCase<any>[] = [];
  for (const v of [11, 12, 16]) {
    const m = response();
    const headerLen = 4 + 4 + (v >= 12 ? 1 : 0);
    const expected = normFetchView(v)(m);
    cases.push({
      section: 'Fetch response (3 partitions × 2 stored batches)',
      op: `Fetch response encode v${v} (${recordBytes} record bytes)`,
      input: m,
      contenders: [
        {
          name: 'kmock encodeResponseChunks (records zero-copy)',
          lib: 'kmock',
          fn: (x: FetchResponse) => encodeResponseChunks(1, v, 42, x),
          normalize: (chunks: Buffer[]) => hex(Buffer.concat(chunks)),
        },
        { name: 'kmock encodeResponse (joined into one Buffer)', lib: 'kmock', fn: (x: FetchResponse) => encodeResponse(1, v, 42, x), normalize: hex },
      ],
      note: 'No comparator: kafkajs only decodes Fetch responses and @platformatic/kafka has no Fetch response writer; absolute numbers only. Our bytes are checked by decoding them with kafkajs (v11) / platformatic (v12, v16).',
      verify: async () => {
        const body = encodeResponse(1, v, 42, m).subarray(headerLen);
        const other =
          v === 11
            ? normFetchKjsModule((await kafkajsResponse('fetch', 11).decode(body)) as unknown as KjsFetchV11)
            : normFetchPltModule(v)((v === 12 ? fetchV12 : fetchV16).parseResponse(0, 1, v, PltReader.from(body)));
        if (JSON.stringify(other) !== JSON.stringify(expected)) throw new Error(`other library reads our Fetch v${v} differently:\n${JSON.stringify(other)}\n${JSON.stringify(expected)}`);
      },
    });
  }
  for (const v of [11, 12, 16]) {
    const m = response();
    const body = Buffer.from(encodeResponse(1, v, 42, m).subarray(4 + 4 + (v >= 12 ? 1 : 0)));
    const contenders: Contender<Buffer>[] = [{ name: 'kmock decodeFetchResponse (records as views)', lib: 'kmock', fn: (b) => decodeFetchResponse(b, v), normalize: normFetchView(v) }];
    if (v === 11) {
      const mod = kafkajsResponse('fetch', 11);
      contenders.push(
        { name: 'kafkajs Decoder composed, records as a view (like-for-like)', lib: 'kafkajs', baseline: true, fn: kjsDecodeFetchV11Composed, normalize: normFetchView(v) },
        { name: `kafkajs fetch/v11/response.js module (parses all ${6 * RECORDS} records)`, lib: 'kafkajs', async: true, fn: (b) => mod.decode(b), normalize: normFetchKjsModule },
      );
    } else {
      const p = v === 12 ? fetchV12 : fetchV16;
      contenders.push(
        { name: 'platformatic Reader composed, records as a view (like-for-like)', lib: 'platformatic', baseline: true, fn: pltDecodeFetchComposed(v), normalize: normFetchView(v) },
        { name: `platformatic fetchV${v}.parseResponse module (parses all ${6 * RECORDS} records)`, lib: 'platformatic', fn: (b) => p.parseResponse(0, 1, v, PltReader.from(b)), normalize: normFetchPltModule(v) },
      );
    }
    cases.push({
      section: 'Fetch response (3 partitions × 2 stored batches)',
      op: `Fetch response decode v${v}`,
      input: body,
      contenders,
      note: 'The libraries\' own Fetch decoders also parse every record (a client needs that; a codec that hands records on does not): those rows are for scale, the composed rows are the like-for-like comparison.',
    });
  }
  return cases;
}

// =================================================================================================

export async function buildCases(): Promise<BenchCase<any>[]> {
  return [...joinGroupRequestCases(), ...joinGroupResponseCases(), ...(await produceCases()), ...(await fetchCases())];
}
