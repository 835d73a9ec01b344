// Tagged fields (KIP-482): unknown tags survive decode -> encode byte for byte at every struct
// level and mixed with known tags; known tags are written only when not default; a known tag
// whose payload does not match its declared size is a DecodeError; bad unknown-tag lists are
// refused on encode.
import { describe, expect, it } from 'vitest';
import {
  createApiVersionsResponse,
  createCreateTopicsResponse,
  createFetchRequest,
  createFetchResponse,
  createJoinGroupRequest,
  decodeApiVersionsResponse,
  decodeFetchRequest,
  decodeFetchResponse,
  decodeJoinGroupRequest,
  decodeMetadataResponse,
  decodeRequestHeader,
  decodeResponseHeader,
  encodeApiVersionsResponse,
  encodeCreateTopicsResponse,
  encodeFetchRequest,
  encodeFetchResponse,
  encodeJoinGroupRequest,
  encodeMetadataResponse,
  encodeRequestHeader,
  encodeResponseHeader,
  type ApiVersionsResponse,
  FetchResponse,
  JoinGroupRequest,
  type MetadataResponse,
  CreateTopicsResponse,
} from '../../src/codec/generated/index.js';
import { DecodeError, EncodeError, type MessageCodec, type TaggedField } from '../../src/codec/primitives/index.js';
import { ApiVersionsResponseCodec, FetchRequestCodec } from '../../src/codec/generated/index.js';
import { b, hex } from '../support/wire.js';

const T5 = (data: string): [number, Buffer] => [5, hex(data)];
const T1000 = (data: string): [number, Buffer] => [1000, hex(data)];
const unknown = (...entries: Array<[number, Buffer]>): TaggedField[] => entries.map(([tag, data]) => ({ tag, data }));

function thrown(fn: () => unknown): Error | undefined {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

/** The body of `codec`'s default message at `version` with its (empty) top-level tag section replaced. */
function withTopLevelTags(codec: MessageCodec<unknown>, version: number, entries: Array<[number, Buffer]>): Buffer {
  const plain = codec.encode(codec.create(), version);
  expect(plain[plain.length - 1]).toBe(0); // the empty tag section closes the body
  return Buffer.concat([plain.subarray(0, plain.length - 1), b().tags(entries).build()]);
}

describe('unknown tags survive decode -> encode byte for byte', () => {
  it('JoinGroup v6 request: tags 5 and 1000 at the top level and inside a protocol', () => {
    const body = b()
      .cstr('g')
      .i32(10000)
      .i32(20000)
      .cstr('m')
      .cstr(null)
      .cstr('consumer')
      .carr(2)
      .cstr('range')
      .cbytes(hex('0102'))
      .tags([T5('aa'), T1000('bbcc')])
      .cstr('roundrobin')
      .cbytes(hex(''))
      .tags()
      .tags([T5(''), T1000('dd'.repeat(200))]) // a payload > 127 bytes: two-byte size varint
      .build();
    const m = decodeJoinGroupRequest(body, 6);
    expect(m.protocols[0].unknownTaggedFields).toEqual(unknown(T5('aa'), T1000('bbcc')));
    expect(m.protocols[1].unknownTaggedFields).toBeUndefined();
    expect(m.unknownTaggedFields).toEqual(unknown(T5(''), T1000('dd'.repeat(200))));
    expect(encodeJoinGroupRequest(m, 6).toString('hex')).toBe(body.toString('hex'));
  });

  it('Metadata v12 response: unknown tags at broker, topic, partition and top level', () => {
    const body = b()
      .i32(0)
      .carr(1)
      .i32(1)
      .cstr('h')
      .i32(9092)
      .cstr('rack')
      .tags([T5('01')])
      .cstr('cluster')
      .i32(1)
      .carr(1)
      .i16(0)
      .cstr('t')
      .uuid('AAAAAAAAAAAAAAAAAAAAAA')
      .bool(true)
      .carr(1)
      .i16(0)
      .i32(0)
      .i32(1)
      .i32(3)
      .carr(1)
      .i32(1)
      .carr(0)
      .carr(0)
      .tags([T1000('0203')])
      .i32(0)
      .tags([T5('04'), T1000('05')])
      .tags([T1000('')])
      .build();
    const m = decodeMetadataResponse(body, 12) as MetadataResponse;
    expect(m.brokers[0].unknownTaggedFields).toEqual(unknown(T5('01')));
    expect(m.topics[0].partitions[0].unknownTaggedFields).toEqual(unknown(T1000('0203')));
    expect(m.topics[0].unknownTaggedFields).toEqual(unknown(T5('04'), T1000('05')));
    expect(m.unknownTaggedFields).toEqual(unknown(T1000('')));
    expect(encodeMetadataResponse(m, 12).toString('hex')).toBe(body.toString('hex'));
  });

  for (const v of [3, 4]) {
    it(`ApiVersionsResponse v${v}: unknown tags mixed with known tags 0, 1 and 3`, () => {
      const section: Array<[number, Buffer]> = [
        [0, b().carr(1).cstr('metadata.version').i16(1).i16(20).tags([T5('ee')]).build()],
        [1, b().i64(42n).build()],
        [3, hex('01')],
        T5('abcdef'),
        T1000('00'),
      ];
      const body = withTopLevelTags(ApiVersionsResponseCodec as MessageCodec<unknown>, v, section);
      const m = decodeApiVersionsResponse(body, v) as ApiVersionsResponse;
      expect(m.supportedFeatures).toEqual([{ name: 'metadata.version', minVersion: 1, maxVersion: 20, unknownTaggedFields: unknown(T5('ee')) }]);
      expect(m.finalizedFeaturesEpoch).toBe(42n);
      expect(m.finalizedFeatures).toEqual([]);
      expect(m.zkMigrationReady).toBe(true);
      expect(m.unknownTaggedFields).toEqual(unknown(T5('abcdef'), T1000('00')));
      expect(encodeApiVersionsResponse(m, v).toString('hex')).toBe(body.toString('hex'));
    });
  }

  it('ApiVersionsResponse v3: only unknown tags, and unknown tags after a single known one', () => {
    for (const section of [[T5('01'), T1000('02')], [[2, b().carr(0).build()] as [number, Buffer], T5('01')]]) {
      const body = withTopLevelTags(ApiVersionsResponseCodec as MessageCodec<unknown>, 3, section);
      const m = decodeApiVersionsResponse(body, 3);
      // An empty FinalizedFeatures list is the default, so re-encoding drops it: compare without it.
      const expected = section[0][0] === 2 ? withTopLevelTags(ApiVersionsResponseCodec as MessageCodec<unknown>, 3, section.slice(1)) : body;
      expect(encodeApiVersionsResponse(m, 3).toString('hex')).toBe(expected.toString('hex'));
    }
  });

  for (const v of [12, 16]) {
    it(`FetchResponse v${v}: unknown tags mixed with the partition's known tags 0, 1, 2 and at every level`, () => {
      const r = b().i32(0).i16(0).i32(0).carr(1);
      if (v >= 13) r.uuid('AQIDBAUGBwgJCgsMDQ4PEA');
      else r.cstr('orders');
      r.carr(1)
        .i32(0)
        .i16(0)
        .i64(5n)
        .i64(5n)
        .i64(0n)
        .carr(0)
        .i32(-1)
        .cbytes(hex('deadbeef'))
        .tags([
          [0, b().i32(3).i64(100n).tags().build()], // DivergingEpoch
          [1, b().i32(2).i32(9).tags([T5('77')]).build()], // CurrentLeader, with its own unknown tag
          [2, b().i64(50n).i32(1).tags().build()], // SnapshotId
          T5('aa'),
          T1000('bb'),
        ])
        .tags([T5('cc')]);
      if (v >= 16) r.tags([[0, b().carr(1).i32(2).cstr('h2').i32(9093).cstr('r').tags().build()], T1000('dd')]);
      else r.tags([T1000('dd')]);
      const body = r.build();
      const m = decodeFetchResponse(body, v) as FetchResponse;
      const p = m.responses[0].partitions[0];
      expect(p.divergingEpoch).toEqual({ epoch: 3, endOffset: 100n });
      expect(p.currentLeader).toEqual({ leaderId: 2, leaderEpoch: 9, unknownTaggedFields: unknown(T5('77')) });
      expect(p.snapshotId).toEqual({ endOffset: 50n, epoch: 1 });
      expect(p.unknownTaggedFields).toEqual(unknown(T5('aa'), T1000('bb')));
      expect(m.responses[0].unknownTaggedFields).toEqual(unknown(T5('cc')));
      expect(m.unknownTaggedFields).toEqual(unknown(T1000('dd')));
      if (v >= 16) expect(m.nodeEndpoints).toEqual([{ nodeId: 2, host: 'h2', port: 9093, rack: 'r' }]);
      expect(encodeFetchResponse(m, v).toString('hex')).toBe(body.toString('hex'));
    });
  }

  it('RequestHeader v2 and ResponseHeader v1 keep unknown tags', () => {
    const rq = b().i16(3).i16(12).i32(77).str('client').tags([T5('01'), T1000('0203')]).build();
    const h = decodeRequestHeader(rq, 2);
    expect(h.unknownTaggedFields).toEqual(unknown(T5('01'), T1000('0203')));
    expect(encodeRequestHeader(h, 2).equals(rq)).toBe(true);
    const rs = b().i32(77).tags([T5('')]).build();
    const rh = decodeResponseHeader(rs, 1);
    expect(rh.unknownTaggedFields).toEqual(unknown(T5('')));
    expect(encodeResponseHeader(rh, 1).equals(rs)).toBe(true);
  });

  // BUG (src/codec/primitives/tagged.ts + the emitted write code): tags are uvarints (up to
  // 0xffffffff) and decode keeps tag 0x7fffffff and above as unknown, but the writer passes
  // `before = 0x7fffffff` to writeUnknownTags, which writes only tags < before, while
  // sizeOfTagSection counts them: encode throws "internal: computed size N but wrote M bytes".
  it('unknown tags 0x7fffffff and 0xffffffff survive too', () => {
    for (const tag of [0x7fffffff, 0xffffffff]) {
      const body = b().cstr('g').i32(1).i32(1).cstr('').cstr(null).cstr('c').carr(0).tags([[tag, hex('aa')]]).build();
      const m = decodeJoinGroupRequest(body, 6);
      expect(m.unknownTaggedFields).toEqual(unknown([tag, hex('aa')]));
      expect(encodeJoinGroupRequest(m, 6).toString('hex')).toBe(body.toString('hex'));
    }
  });
});

describe('known tagged fields are written only when not default', () => {
  const avr = (init: Partial<ApiVersionsResponse>) => encodeApiVersionsResponse(createApiVersionsResponse(init), 3);
  const sectionOf = (body: Buffer, plain: Buffer) => body.subarray(plain.length - 1).toString('hex');

  it('ApiVersionsResponse v3', () => {
    const plain = avr({});
    expect(plain.toString('hex')).toBe('0000' + '01' + '00000000' + '00');
    expect(avr({ finalizedFeaturesEpoch: -1n }).equals(plain)).toBe(true);
    expect(sectionOf(avr({ finalizedFeaturesEpoch: 0n }), plain)).toBe('01' + '01' + '08' + '0000000000000000');
    expect(sectionOf(avr({ zkMigrationReady: true }), plain)).toBe('01' + '03' + '01' + '01');
    expect(sectionOf(avr({ supportedFeatures: [{ name: 'f', minVersion: 0, maxVersion: 1 }] }), plain)).toBe(
      '01' + '00' + '08' + '02' + '0266' + '0000' + '0001' + '00',
    );
    // Several at once go out in ascending tag order.
    expect(sectionOf(avr({ zkMigrationReady: true, finalizedFeaturesEpoch: 1n }), plain)).toBe(
      '02' + '0108' + '0000000000000001' + '0301' + '01',
    );
  });

  it('FetchRequest v12: a nullable tagged string is omitted when null, written when empty', () => {
    const plain = encodeFetchRequest(createFetchRequest(), 12);
    expect(plain[plain.length - 1]).toBe(0);
    const withEmpty = encodeFetchRequest(createFetchRequest({ clusterId: '' }), 12);
    expect(withEmpty.subarray(plain.length - 1).toString('hex')).toBe('01' + '00' + '01' + '01');
    expect(decodeFetchRequest(withEmpty, 12).clusterId).toBe('');
    expect(decodeFetchRequest(plain, 12).clusterId).toBeNull();
  });

  it('FetchResponse v12: a tagged struct is omitted at its default and written (with its own tag section) otherwise', () => {
    const msg = (leader: { leaderId: number; leaderEpoch: number }) =>
      createFetchResponse({
        responses: [
          FetchResponse.createFetchableTopicResponse({
            topic: 't',
            partitions: [FetchResponse.createPartitionData({ currentLeader: FetchResponse.createLeaderIdAndEpoch(leader) })],
          }),
        ],
      });
    const plain = encodeFetchResponse(msg({ leaderId: -1, leaderEpoch: -1 }), 12);
    const set = encodeFetchResponse(msg({ leaderId: 4, leaderEpoch: -1 }), 12);
    expect(set.length - plain.length).toBe(1 + 1 + 9); // tag, size, LeaderId + LeaderEpoch + empty tag section
    expect(set.toString('hex')).toContain('01' + '01' + '09' + '00000004' + 'ffffffff' + '00');
    expect(decodeFetchResponse(set, 12).responses[0].partitions[0].currentLeader).toEqual({ leaderId: 4, leaderEpoch: -1 });
  });

  it('CreateTopicsResponse v5: a tagged int16 with default 0', () => {
    const msg = (code: number) => createCreateTopicsResponse({ topics: [CreateTopicsResponse.createCreatableTopicResult({ name: 't', topicConfigErrorCode: code })] });
    const plain = encodeCreateTopicsResponse(msg(0), 5);
    const set = encodeCreateTopicsResponse(msg(5), 5);
    expect(set.length - plain.length).toBe(1 + 1 + 2);
    expect(set.toString('hex')).toContain('01' + '00' + '02' + '0005');
  });
});

describe('a known tag whose payload does not match its declared size is a DecodeError', () => {
  const avrCodec = ApiVersionsResponseCodec as MessageCodec<unknown>;
  const cases: Array<[string, Array<[number, Buffer]>, string]> = [
    ['int64 with 7 bytes', [[1, hex('00000000000001')]], 'finalizedFeaturesEpoch'],
    ['int64 with 9 bytes', [[1, hex('000000000000000100')]], 'finalizedFeaturesEpoch'],
    ['bool with 0 bytes', [[3, hex('')]], 'zkMigrationReady'],
    ['bool with 2 bytes', [[3, hex('0100')]], 'zkMigrationReady'],
    ['array with a trailing byte', [[0, b().carr(0).raw([0]).build()]], 'supportedFeatures'],
    ['array cut short', [[0, b().carr(1).cstr('feature').build()]], 'supportedFeatures'],
  ];
  for (const [name, section, field] of cases) {
    it(`ApiVersionsResponse v3: ${name}`, () => {
      const body = withTopLevelTags(avrCodec, 3, section);
      const e = thrown(() => decodeApiVersionsResponse(body, 3)) as DecodeError;
      expect(e).toBeInstanceOf(DecodeError);
      expect(e.path[0]).toBe(field);
      expect(e.apiKey).toBe(18);
      expect(e.apiVersion).toBe(3);
    });
  }

  it('FetchResponse v12: a tagged struct whose size leaves out (or adds to) its bytes', () => {
    const partition = (tagPayload: Buffer) =>
      b()
        .i32(0)
        .i16(0)
        .i32(0)
        .carr(1)
        .cstr('t')
        .carr(1)
        .i32(0)
        .i16(0)
        .i64(0n)
        .i64(0n)
        .i64(0n)
        .carr(0)
        .i32(-1)
        .cbytes(null)
        .tags([[1, tagPayload]])
        .tags()
        .tags()
        .build();
    expect(decodeFetchResponse(partition(b().i32(1).i32(2).tags().build()), 12).responses[0].partitions[0].currentLeader.leaderId).toBe(1);
    for (const payload of [hex('00000001 00000002'), hex('00000001 00000002 00 00')]) {
      const e = thrown(() => decodeFetchResponse(partition(payload), 12)) as DecodeError;
      expect(e).toBeInstanceOf(DecodeError);
      // Cut short, the nested struct's own tag section is missing; too long, bytes are left over.
      expect(e.path.slice(0, 5)).toEqual(['responses', '[0]', 'partitions', '[0]', 'currentLeader']);
    }
  });

  it('FetchRequest v12: a known tag before its tagged versions (ReplicaState, 15+) is refused', () => {
    const body = withTopLevelTags(FetchRequestCodec as MessageCodec<unknown>, 12, [[1, b().i32(1).i64(2n).tags().build()]]);
    expect(thrown(() => decodeFetchRequest(body, 12))).toBeInstanceOf(DecodeError);
    const ok = withTopLevelTags(FetchRequestCodec as MessageCodec<unknown>, 15, [[1, b().i32(1).i64(2n).tags().build()]]);
    expect(decodeFetchRequest(ok, 15).replicaState).toEqual({ replicaId: 1, replicaEpoch: 2n });
  });
});

describe('bad unknown-tag lists are refused on encode', () => {
  const bad: Array<[string, TaggedField[]]> = [
    ['duplicate', unknown(T5('01'), T5('02'))],
    ['unsorted', unknown(T1000('01'), T5('02'))],
    ['negative', [{ tag: -1, data: hex('') }]],
    ['not an integer', [{ tag: 5.5, data: hex('') }]],
  ];
  for (const [name, tags] of bad) {
    it(`${name} tags, at the top level and nested`, () => {
      const top: JoinGroupRequest = createJoinGroupRequest({ unknownTaggedFields: tags });
      expect(thrown(() => encodeJoinGroupRequest(top, 6))).toBeInstanceOf(EncodeError);
      const nested = createJoinGroupRequest({ protocols: [JoinGroupRequest.createProtocol({ name: 'r', unknownTaggedFields: tags })] });
      expect(thrown(() => encodeJoinGroupRequest(nested, 6))).toBeInstanceOf(EncodeError);
    });
  }

  it('an unknown tag that clashes with a known tag', () => {
    for (const tag of [0, 1, 2, 3]) {
      const e = thrown(() => encodeApiVersionsResponse(createApiVersionsResponse({ unknownTaggedFields: [{ tag, data: hex('01') }] }), 3));
      expect(e, `tag ${tag}`).toBeInstanceOf(EncodeError);
      expect(e!.message).toContain(`known tag ${tag}`);
    }
  });
});
