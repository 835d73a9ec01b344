// Kafka's text files (src/broker/storage/format/checkpoints.ts, partition-metadata.ts,
// meta-properties.ts, clean-shutdown.ts, java-text.ts): exactly what Kafka writes, read as Kafka
// reads it, and errors that name the file and the line.
import { describe, expect, it } from 'vitest';
import {
  decodeCleanShutdown,
  decodeLeaderEpochCheckpoint,
  decodeMetaProperties,
  decodeOffsetCheckpoint,
  decodePartitionMetadata,
  encodeCleanShutdown,
  encodeLeaderEpochCheckpoint,
  encodeMetaProperties,
  encodeOffsetCheckpoint,
  encodePartitionMetadata,
  isReservedDirectoryId,
  newDirectoryId,
  parseKafkaUuid,
  unwrap,
  type Decoded,
} from '../../../../src/broker/storage/format/index.js';
import { javaDateString, parseJavaProperties, storeJavaProperties } from '../../../../src/broker/storage/format/java-text.js';

function errorOf<T>(d: Decoded<T>): string {
  expect(d.ok).toBe(false);
  return d.ok ? '' : d.error.message;
}

describe('leader-epoch-checkpoint', () => {
  it('is version, count, "epoch startOffset" lines', () => {
    expect(encodeLeaderEpochCheckpoint([{ epoch: 0, startOffset: 0 }])).toBe('0\n1\n0 0\n');
    const entries = [
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 120 },
      { epoch: 7, startOffset: 2 ** 40 },
    ];
    const text = encodeLeaderEpochCheckpoint(entries);
    expect(text).toBe('0\n3\n0 0\n3 120\n7 1099511627776\n');
    expect(unwrap(decodeLeaderEpochCheckpoint(text))).toEqual(entries);
    expect(unwrap(decodeLeaderEpochCheckpoint(Buffer.from(text)))).toEqual(entries);
    expect(encodeLeaderEpochCheckpoint([])).toBe('0\n0\n');
  });

  it('reads what CheckpointReadBuffer reads: empty files, CRLF, runs of blanks, signs', () => {
    expect(unwrap(decodeLeaderEpochCheckpoint(''))).toEqual([]);
    expect(unwrap(decodeLeaderEpochCheckpoint('0\n'))).toEqual([]);
    expect(unwrap(decodeLeaderEpochCheckpoint('0'))).toEqual([]);
    expect(unwrap(decodeLeaderEpochCheckpoint('0\r\n2\r\n1  \t5\r\n+2 9'))).toEqual([
      { epoch: 1, startOffset: 5 },
      { epoch: 2, startOffset: 9 },
    ]);
  });

  it('names the file and line of what it refuses', () => {
    const f = { file: 'data/t-0/leader-epoch-checkpoint' };
    expect(errorOf(decodeLeaderEpochCheckpoint('1\n0\n', f))).toBe('data/t-0/leader-epoch-checkpoint line 1: unrecognised version 1, expected version 0');
    expect(errorOf(decodeLeaderEpochCheckpoint('x\n', f))).toMatch(/line 1: malformed version line "x"/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\nfour\n', f))).toMatch(/line 2: malformed entry count "four"/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n2\n0 0\n', f))).toMatch(/line 2: expected 2 entries, but found 1/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n0 0\n1 5\n', f))).toMatch(/expected 1 entries, but found 2/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n0 0 0\n', f))).toMatch(/line 3: malformed line "0 0 0"/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n 0 0\n', f))).toMatch(/line 3: malformed line " 0 0"/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n0 x\n', f))).toMatch(/line 3: .*start offset "x" is not an int64/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n2147483648 0\n', f))).toMatch(/epoch "2147483648" is not an int32/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n0 9223372036854775807\n', f))).toMatch(/not a safe integer/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n-1 0\n', f))).toMatch(/must not be negative/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n2\n3 10\n2 20\n', f))).toMatch(/line 4: .*must increase/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n2\n3 10\n4 10\n', f))).toMatch(/line 4: .*must increase/);
    expect(errorOf(decodeLeaderEpochCheckpoint('0\n1\n0 0\n\n', f))).toMatch(/line 4: malformed line ""/);
  });

  it('refuses to encode entries Kafka never keeps', () => {
    expect(() => encodeLeaderEpochCheckpoint([{ epoch: -1, startOffset: 0 }])).toThrow(RangeError);
    expect(() => encodeLeaderEpochCheckpoint([{ epoch: 1, startOffset: 5 }, { epoch: 1, startOffset: 6 }])).toThrow(RangeError);
  });
});

describe('offset checkpoints (recovery point, log start, replication, cleaner)', () => {
  it('is version, count, "topic partition offset" lines', () => {
    const entries = [
      { topic: 'seg', partition: 0, offset: 102 },
      { topic: '__transaction_state', partition: 45, offset: 19 },
      { topic: 'a.b-c_d', partition: 7, offset: 0 },
    ];
    const text = encodeOffsetCheckpoint(entries);
    expect(text).toBe('0\n3\nseg 0 102\n__transaction_state 45 19\na.b-c_d 7 0\n');
    expect(unwrap(decodeOffsetCheckpoint(text))).toEqual(entries);
    // Kafka leaves cleaner-offset-checkpoint empty until something is cleaned.
    expect(unwrap(decodeOffsetCheckpoint(Buffer.alloc(0)))).toEqual([]);
    expect(unwrap(decodeOffsetCheckpoint('0\n0\n'))).toEqual([]);
  });

  it('names the file and line of what it refuses', () => {
    const f = { file: 'recovery-point-offset-checkpoint' };
    expect(errorOf(decodeOffsetCheckpoint('0\n1\nt 0\n', f))).toBe('recovery-point-offset-checkpoint line 3: malformed line "t 0": expected "topic partition offset"');
    expect(errorOf(decodeOffsetCheckpoint('0\n1\nt -1 0\n', f))).toMatch(/line 3: .*partition "-1"/);
    expect(errorOf(decodeOffsetCheckpoint('0\n1\nt 0 -5\n', f))).toMatch(/line 3: .*must not be negative/);
    expect(errorOf(decodeOffsetCheckpoint('0\n2\nt 0 1\nt 0 2\n', f))).toMatch(/line 4: partition t-0 appears twice/);
    expect(errorOf(decodeOffsetCheckpoint('0\n1\nt 0 1.5\n', f))).toMatch(/offset "1.5" is not an int64/);
    expect(() => encodeOffsetCheckpoint([{ topic: 'a b', partition: 0, offset: 0 }])).toThrow(RangeError);
    expect(() => encodeOffsetCheckpoint([{ topic: 't', partition: 0, offset: 0 }, { topic: 't', partition: 0, offset: 1 }])).toThrow(RangeError);
  });
});

describe('partition.metadata', () => {
  const id = 'ZTdiAUvQTKSWHX-QynA3Ow';

  it('is PartitionMetadata.encode: two lines, no line end', () => {
    expect(encodePartitionMetadata(id)).toBe(`version: 0\ntopic_id: ${id}`);
    expect(unwrap(decodePartitionMetadata(encodePartitionMetadata(id)))).toEqual({ version: 0, topicId: id });
    expect(unwrap(decodePartitionMetadata(Buffer.from(`version:  0\r\ntopic_id:\t${id}==\n`)))).toEqual({ version: 0, topicId: id });
    // A later version is read, as Kafka reads it (downgrades).
    expect(unwrap(decodePartitionMetadata(`version: 1\ntopic_id: ${id}`))).toEqual({ version: 1, topicId: id });
  });

  it('refuses bad ids and malformed lines', () => {
    expect(() => encodePartitionMetadata('AAAAAAAAAAAAAAAAAAAAAA')).toThrow(RangeError);
    expect(() => encodePartitionMetadata('not-an-id')).toThrow(RangeError);
    const f = { file: 't-0/partition.metadata' };
    expect(errorOf(decodePartitionMetadata('', f))).toBe('t-0/partition.metadata line 1: malformed line "": expected "version: N"');
    expect(errorOf(decodePartitionMetadata(`version: -1\ntopic_id: ${id}`, f))).toMatch(/line 1: unrecognized version -1/);
    expect(errorOf(decodePartitionMetadata(`version:0\ntopic_id: ${id}`, f))).toMatch(/line 1: malformed/);
    expect(errorOf(decodePartitionMetadata('version: 0\n', f))).toMatch(/line 2: malformed line ""/);
    expect(errorOf(decodePartitionMetadata('version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA', f))).toMatch(/line 2: invalid topic ID/);
    expect(errorOf(decodePartitionMetadata('version: 0\ntopic_id: ZTdiAUvQTKSWHX+QynA3Ow', f))).toMatch(/is not a Uuid/);
    expect(errorOf(decodePartitionMetadata(`version: 0\ntopic_id: ${id}\nextra`, f))).toMatch(/line 3: unexpected line "extra"/);
  });
});

describe('meta.properties', () => {
  const kafkaWritten =
    '#\n#Wed Dec 02 05:51:26 UTC 2026\nnode.id=1\ndirectory.id=8trtQZb_oSHHzFYAfLe5zw\nversion=1\ncluster.id=HBsmYSiztkHEqbCqcf5dRQ\n';

  it('writes what Kafka 3.9 writes (version 1, KRaft)', () => {
    const text = encodeMetaProperties(
      { clusterId: 'HBsmYSiztkHEqbCqcf5dRQ', nodeId: 1, directoryId: '8trtQZb_oSHHzFYAfLe5zw' },
      new Date(Date.UTC(2026, 11, 2, 5, 51, 26)),
    );
    expect(text).toBe(kafkaWritten);
    expect(unwrap(decodeMetaProperties(text))).toEqual({ version: 1, nodeId: 1, clusterId: 'HBsmYSiztkHEqbCqcf5dRQ', directoryId: '8trtQZb_oSHHzFYAfLe5zw' });
    expect(encodeMetaProperties({ clusterId: 'c', nodeId: 3 }, new Date(0))).toBe('#\n#Thu Jan 01 00:00:00 UTC 1970\nnode.id=3\nversion=1\ncluster.id=c\n');
  });

  it('reads what MetaProperties.Builder reads, version 0 included', () => {
    expect(unwrap(decodeMetaProperties(Buffer.from(kafkaWritten)))).toMatchObject({ version: 1, nodeId: 1 });
    expect(unwrap(decodeMetaProperties('broker.id=5\ncluster.id=x\n'))).toEqual({ version: 0, nodeId: 5, clusterId: 'x' });
    expect(unwrap(decodeMetaProperties('version=0\n'))).toEqual({ version: 0 });
    expect(unwrap(decodeMetaProperties('! comment\n  version : 1\nnode.id 2\ncluster.id=a\\\n   b\nother=ignored\n'))).toEqual({
      version: 1,
      nodeId: 2,
      clusterId: 'ab',
    });
  });

  it('names the file for what it refuses', () => {
    const f = { file: '/data/meta.properties' };
    expect(errorOf(decodeMetaProperties('version=2\nnode.id=1\ncluster.id=c\n', f))).toBe('/data/meta.properties: unknown meta.properties version number 2');
    expect(errorOf(decodeMetaProperties('version=x\n', f))).toMatch(/invalid meta.properties version string 'x'/);
    expect(errorOf(decodeMetaProperties('version=1\ncluster.id=c\n', f))).toMatch(/failed to find node.id/);
    expect(errorOf(decodeMetaProperties('version=1\nnode.id=one\ncluster.id=c\n', f))).toMatch(/unable to read node.id as a base-10 number/);
    expect(errorOf(decodeMetaProperties('version=1\nnode.id=1\n', f))).toMatch(/cluster.id was not found/);
    expect(errorOf(decodeMetaProperties('version=1\nnode.id=1\ncluster.id=c\ndirectory.id=zz\n', f))).toMatch(/unable to read directory.id as a Uuid/);
    expect(errorOf(decodeMetaProperties('version=1\nnode.id=1\ncluster.id=\\u12G4\n', f))).toBe('/data/meta.properties line 3: malformed \\uxxxx escape');
  });

  it('makes directory ids as MetaPropertiesEnsemble does: not reserved, not starting with "-"', () => {
    const zeros = Buffer.alloc(16);
    const low = Buffer.alloc(16);
    low[15] = 99;
    const dash = Buffer.from('-'.repeat(22), 'base64url');
    const good = Buffer.from('8trtQZb_oSHHzFYAfLe5zw', 'base64url');
    const queue = [zeros, low, dash, good];
    expect(newDirectoryId(() => queue.shift()!)).toBe('8trtQZb_oSHHzFYAfLe5zw');
    expect(isReservedDirectoryId(zeros.toString('base64url'))).toBe(true);
    expect(isReservedDirectoryId(low.toString('base64url'))).toBe(true);
    low[15] = 100;
    expect(isReservedDirectoryId(low.toString('base64url'))).toBe(false);
    const id = newDirectoryId();
    expect(parseKafkaUuid(id)).toBe(id);
  });
});

describe('java.util.Properties text', () => {
  it('escapes as store and reads back as load', () => {
    const entries: Array<[string, string]> = [
      ['a key', ' lead=ing: #!\\ \t\n\r\f'],
      ['k:=', 'é'],
    ];
    const text = storeJavaProperties(entries, 'c', new Date(0));
    expect(text).toBe('#c\n#Thu Jan 01 00:00:00 UTC 1970\na\\ key=\\ lead\\=ing\\: \\#\\!\\\\ \\t\\n\\r\\f\nk\\:\\==é\n');
    const back = parseJavaProperties(text);
    expect(back.ok && [...back.props]).toEqual(entries);
  });

  it('prints dates as Date.toString in UTC', () => {
    expect(javaDateString(new Date(Date.UTC(2025, 0, 5, 3, 4, 5)))).toBe('Sun Jan 05 03:04:05 UTC 2025');
  });
});

describe('.kafka_cleanshutdown', () => {
  it('is the JSON Kafka 3.9 writes', () => {
    expect(encodeCleanShutdown(6)).toBe('{"version":0,"brokerEpoch":6}');
    expect(unwrap(decodeCleanShutdown('{"version":0,"brokerEpoch":6}'))).toEqual({ version: 0, brokerEpoch: 6 });
    expect(unwrap(decodeCleanShutdown(Buffer.from('{"brokerEpoch":-1,"x":1}')))).toEqual({ version: 0, brokerEpoch: -1 });
    expect(errorOf(decodeCleanShutdown('{'))).toMatch(/^\.kafka_cleanshutdown: is not JSON/);
    expect(errorOf(decodeCleanShutdown('{"version":0}'))).toMatch(/no integer brokerEpoch/);
  });
});
