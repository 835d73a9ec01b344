// Produce v0-v2's up-conversion (log/up-convert.ts through PartitionLog.appendMessageSet): legacy
// message sets, plain and compressed, become one v2 batch as Kafka 3.9's LogValidator builds it,
// and every check fails with Kafka's error code, in Kafka's order.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog, type LogConfig } from '../../../src/broker/log/partition-log.js';
import { planMessageSetAppend } from '../../../src/broker/log/up-convert.js';
import {
  compress,
  crc32,
  decodeBatch,
  encodeBatch,
  encodeMessage,
  encodeMessageSet,
  initCompression,
  verifyBatchCrc,
  type CompressionName,
  type LegacyMessageInput,
} from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;
const T = NOW - 5000;

beforeAll(async () => {
  await initCompression();
});

function log(): PartitionLog {
  return new PartitionLog('t', 0, NOW - 10_000);
}

const msgs = (n: number, ts = T): LegacyMessageInput[] => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: ts + i }));

/** The one stored batch, decoded. */
function stored(l: PartitionLog, i = 0) {
  const b = l.storedBatches()[i];
  expect(verifyBatchCrc(b)).toBe(true);
  return decodeBatch(b);
}

/** Recomputes a legacy message's CRC after a test edited it. */
function fixCrc(m: Buffer): Buffer {
  m.writeUInt32BE(crc32(m, 16), 12);
  return m;
}

describe('uncompressed message sets', () => {
  it('magic 1: one v2 batch, timestamps kept, offsets assigned from the log end, no producer, no headers', () => {
    const l = log();
    expect(l.appendMessageSet(encodeMessageSet({ magic: 1, messages: msgs(2) }), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: 0, logAppendTime: -1, logStartOffset: 0, appended: true });
    const r = l.appendMessageSet(encodeMessageSet({ magic: 1, messages: msgs(3, T + 10), baseOffset: 77n }), DEFAULT_LOG_CONFIG, NOW);
    expect(r).toMatchObject({ errorCode: 0, baseOffset: 2, appended: true });
    expect(l.logEndOffset).toBe(5);
    const b = stored(l, 1);
    expect(b).toMatchObject({
      baseOffset: 2n,
      partitionLeaderEpoch: 0,
      compression: 'none',
      timestampType: 0,
      isTransactional: false,
      lastOffsetDelta: 2,
      baseTimestamp: T + 10,
      maxTimestamp: T + 12,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordsCount: 3,
    });
    expect(b.records.map((x) => [x.offsetDelta, x.timestampDelta, x.key?.toString(), x.value?.toString(), x.headers])).toEqual([
      [0, 0, 'k0', 'v0', []],
      [1, 1, 'k1', 'v1', []],
      [2, 2, 'k2', 'v2', []],
    ]);
  });

  it('magic 0: no timestamps (-1), null keys and values survive', () => {
    const l = log();
    const set = encodeMessageSet({ magic: 0, messages: [{ key: null, value: 'a' }, { key: 'k', value: null }] });
    expect(l.appendMessageSet(set, DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const b = stored(l);
    expect(b).toMatchObject({ baseTimestamp: -1, maxTimestamp: -1, timestampType: 0, recordsCount: 2 });
    expect(b.records.map((x) => [x.timestamp, x.key, x.value?.toString() ?? null])).toEqual([
      [-1, null, 'a'],
      [-1, Buffer.from('k'), null],
    ]);
  });

  it('LogAppendTime topics: the batch gets the append time as max timestamp, the base timestamp stays the first record\'s', () => {
    const l = log();
    const cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' };
    expect(l.appendMessageSet(encodeMessageSet({ magic: 1, messages: msgs(2) }), cfg, NOW)).toMatchObject({ errorCode: 0, logAppendTime: NOW });
    expect(stored(l)).toMatchObject({ timestampType: 1, baseTimestamp: T, maxTimestamp: NOW });
    expect(stored(l).records.map((r) => r.timestamp)).toEqual([NOW, NOW]);
  });

  it('a partial entry at the end is dropped; no whole entry at all appends nothing and succeeds with offset -1', () => {
    const l = log();
    const set = encodeMessageSet({ magic: 1, messages: msgs(2) });
    expect(l.appendMessageSet(Buffer.concat([set, set.subarray(0, 20)]), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(l.logEndOffset).toBe(2);
    expect(l.appendMessageSet(Buffer.alloc(0), DEFAULT_LOG_CONFIG, NOW)).toEqual({
      errorCode: 0,
      baseOffset: -1,
      logAppendTime: -1,
      logStartOffset: 0,
      recordErrors: [],
      errorMessage: null,
      appended: false,
    });
    expect(l.appendMessageSet(set.subarray(0, 30), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: -1, appended: false });
    expect(l.logEndOffset).toBe(2);
  });
});

describe('compressed message sets', () => {
  for (const compression of ['gzip', 'snappy', 'lz4'] as CompressionName[]) {
    for (const magic of [0, 1] as const) {
      it(`magic ${magic} ${compression}: one v2 batch compressed with the same codec`, () => {
        const l = log();
        l.appendMessageSet(encodeMessageSet({ magic: 1, messages: msgs(1) }), DEFAULT_LOG_CONFIG, NOW);
        const set = encodeMessageSet({ magic, compression, messages: msgs(3), baseOffset: 40n });
        expect(l.appendMessageSet(set, DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: 1 });
        const b = stored(l, 1);
        expect(b).toMatchObject({ compression, baseOffset: 1n, lastOffsetDelta: 2, recordsCount: 3, maxTimestamp: magic === 1 ? T + 2 : -1 });
        expect(b.records.map((r) => [r.offsetDelta, r.timestamp, r.value?.toString()])).toEqual(
          [0, 1, 2].map((i) => [i, magic === 1 ? T + i : -1, `v${i}`]),
        );
      });
    }
  }

  it('magic 1 wrapper under LogAppendTime: every inner record reports the wrapper\'s timestamp', () => {
    const l = log();
    const set = encodeMessageSet({ magic: 1, compression: 'gzip', messages: msgs(2), timestampType: 1, wrapperTimestamp: T + 100 });
    expect(l.appendMessageSet(set, DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    expect(stored(l).records.map((r) => r.timestamp)).toEqual([T + 100, T + 100]);
  });

  it('a wrapper offset of 0 (some librdkafka versions) is accepted; one below the last inner offset is not', () => {
    const inner = Buffer.concat([encodeMessage(1, 0n, 0, T, null, Buffer.from('a')), encodeMessage(1, 1n, 0, T, null, Buffer.from('b'))]);
    const wrap = (offset: bigint) => encodeMessage(1, offset, 1, T, null, compress('gzip', inner));
    expect(log().appendMessageSet(wrap(0n), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    expect(log().appendMessageSet(wrap(5n), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    expect(planMessageSetAppend(wrap(1n), DEFAULT_LOG_CONFIG, NOW, 't-0')).toMatchObject({ kind: 'converted' });
    const bad = planMessageSetAppend(encodeMessage(1, 1n, 1, T, null, compress('gzip', Buffer.concat([inner, encodeMessage(1, 2n, 0, T, null, null)]))), DEFAULT_LOG_CONFIG, NOW, 't-0');
    expect(bad).toMatchObject({ kind: 'error', errorCode: ErrorCode.INVALID_RECORD, reason: expect.stringMatching(/wrapper offset '1' is less than the last inner message offset '2'/) });
  });

  it('an inner message cut short by the end of the decompressed data ends the set quietly', () => {
    const inner = Buffer.concat([encodeMessage(1, 0n, 0, T, null, Buffer.from('a')), encodeMessage(1, 1n, 0, T, null, Buffer.from('bb')).subarray(0, 30)]);
    const l = log();
    expect(l.appendMessageSet(encodeMessage(1, 0n, 1, T, null, compress('gzip', inner)), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    expect(stored(l).records.map((r) => r.value?.toString())).toEqual(['a']);
  });
});

describe('v2 batches in Produce v0-v2', () => {
  it('one batch is appended in place, like Produce v3+', () => {
    const l = log();
    const b = encodeBatch({ records: [{ value: 'x', headers: [{ key: 'h', value: 'v' }] }], baseTimestamp: T });
    expect(l.appendMessageSet(b, DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(l.storedBatches()[0]).toBe(b);
  });

  it('more than one, or a v2 batch first and legacy after: INVALID_RECORD', () => {
    const b = () => encodeBatch({ records: [{ value: 'x' }], baseTimestamp: T });
    expect(log().appendMessageSet(Buffer.concat([b(), b()]), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, logStartOffset: 0 });
    expect(log().appendMessageSet(Buffer.concat([b(), encodeMessageSet({ magic: 1, messages: msgs(1) })]), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    // legacy first, v2 after: the magic check of convertAndAssignOffsetsNonCompressed
    const legacyFirst = planMessageSetAppend(Buffer.concat([encodeMessageSet({ magic: 1, messages: msgs(1) }), b()]), DEFAULT_LOG_CONFIG, NOW, 't-0');
    expect(legacyFirst).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: "Batch magic 2 is not the same as the first batch's magic byte 1 in topic partition t-0" });
  });

  it('a bad CRC in a second v2 batch is found before the one-batch rule (analysis runs over every entry)', () => {
    const second = encodeBatch({ records: [{ value: 'x' }], baseTimestamp: T });
    second[second.length - 1] ^= 1;
    expect(log().appendMessageSet(Buffer.concat([encodeBatch({ records: [{ value: 'x' }] }), second]), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      logStartOffset: -1,
    });
  });
});

describe('errors', () => {
  const plan = (records: Buffer, config: LogConfig = DEFAULT_LOG_CONFIG) => planMessageSetAppend(records, config, NOW, 't-0');

  it('framing: a size below 14 or a magic above 2 is CORRUPT_MESSAGE (unknown append info)', () => {
    const set = encodeMessageSet({ magic: 1, messages: msgs(2) });
    const small = Buffer.from(set);
    small.writeInt32BE(13, set.length / 2 + 8);
    expect(plan(small)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, unknownInfo: true, reason: 'Record size 13 is less than the minimum record overhead (14)' });
    const magic3 = Buffer.from(set);
    magic3[set.length / 2 + 16] = 3;
    expect(plan(magic3)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, reason: 'Invalid magic found in record: 3' });
  });

  it('a bad CRC on any message: CORRUPT_MESSAGE with log start offset -1, nothing appended', () => {
    const set = encodeMessageSet({ magic: 0, messages: msgs(3) });
    set[set.length - 1] ^= 1;
    const l = log();
    expect(l.appendMessageSet(set, DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, baseOffset: -1, logStartOffset: -1, appended: false });
    expect(l.logEndOffset).toBe(0);
  });

  it('a bad CRC on an inner message of a compressed set: CORRUPT_MESSAGE', () => {
    const inner = encodeMessage(1, 0n, 0, T, null, Buffer.from('a'));
    inner[inner.length - 1] ^= 1;
    expect(plan(encodeMessage(1, 0n, 1, T, null, compress('gzip', inner)))).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, unknownInfo: true });
  });

  it('magic mismatch: between messages (INVALID_RECORD), and inside a wrapper (a record error, INVALID_RECORD)', () => {
    const mixed = Buffer.concat([encodeMessageSet({ magic: 0, messages: msgs(1) }), encodeMessageSet({ magic: 1, messages: msgs(1) })]);
    expect(plan(mixed)).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: "Batch magic 1 is not the same as the first batch's magic byte 0 in topic partition t-0" });
    // sarama writes magic 0 inner messages in a magic 1 wrapper; Kafka's broker refuses them.
    const inner = Buffer.concat([encodeMessage(1, 0n, 0, T, null, Buffer.from('a')), encodeMessage(0, 1n, 0, -1, null, Buffer.from('b'))]);
    const r = plan(encodeMessage(1, 1n, 1, T, null, compress('gzip', inner)));
    expect(r).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, recordErrors: [{ batchIndex: 1 }] });
    expect((r as { recordErrors: Array<{ message: string }> }).recordErrors[0].message).toMatch(/^Record LegacyRecordBatch\(offset=1, Record\(magic=0, .*'s magic does not match outer magic 1 in topic partition t-0$/);
  });

  it('compressed: two wrappers, a zstd or null-valued wrapper, a compressed inner message, no inner message: INVALID_RECORD', () => {
    const w = () => encodeMessageSet({ magic: 1, compression: 'gzip', messages: msgs(1) });
    expect(plan(Buffer.concat([w(), w()]))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: 'Compressed outer record has more than one batch' });
    // An uncompressed message then a wrapper: the source compression is the wrapper's, one batch only.
    expect(plan(Buffer.concat([encodeMessageSet({ magic: 1, messages: msgs(1) }), w()]))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD });
    const innerSet = encodeMessageSet({ magic: 1, messages: msgs(1) });
    expect(plan(encodeMessage(1, 0n, 4, T, null, innerSet))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: /Invalid wrapper compressionType/ });
    expect(plan(encodeMessage(1, 0n, 1, T, null, null))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: /null value/ });
    expect(plan(encodeMessage(1, 0n, 1, T, null, compress('gzip', w())))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: 'Inner messages must not be compressed' });
    expect(plan(encodeMessage(1, 0n, 1, T, null, compress('gzip', Buffer.alloc(0))))).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, reason: /no inner records/ });
  });

  it('a codec id Kafka does not know, or data that does not decompress: UNKNOWN_SERVER_ERROR', () => {
    expect(plan(encodeMessage(1, 0n, 5, T, null, Buffer.from('x')))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, reason: 'Unknown compression type id: 5' });
    expect(plan(encodeMessage(1, 0n, 1, T, null, Buffer.from('not gzip')))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR });
  });

  it('size: a message above max.message.bytes is MESSAGE_TOO_LARGE; so is the converted batch', () => {
    const cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, maxMessageBytes: 100 };
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ value: Buffer.alloc(100) }] }), cfg)).toMatchObject({ errorCode: ErrorCode.MESSAGE_TOO_LARGE, unknownInfo: true });
    // Each message fits; the batch of all three does not.
    const l = log();
    expect(l.appendMessageSet(encodeMessageSet({ magic: 1, messages: [{ value: Buffer.alloc(40) }, { value: Buffer.alloc(40) }, { value: Buffer.alloc(40) }] }), cfg, NOW)).toMatchObject({
      errorCode: ErrorCode.MESSAGE_TOO_LARGE,
      logStartOffset: -1,
    });
  });

  it('compacted topics need keys; timestamps out of range; LogAppendTime set by the producer', () => {
    const compact: LogConfig = { ...DEFAULT_LOG_CONFIG, compact: true };
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ key: 'a', value: 'x' }, { value: 'y' }] }), compact)).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      // each uncompressed message is its own batch: record 0 of it
      recordErrors: [{ batchIndex: 0, message: 'Compacted topic cannot accept message without key in topic partition t-0' }],
    });
    const gz = plan(encodeMessageSet({ magic: 1, compression: 'gzip', messages: [{ key: 'a' }, { value: 'y' }, {}] }), compact);
    expect(gz).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, recordErrors: [{ batchIndex: 1 }, { batchIndex: 2 }] });

    // Kafka prints now + message.timestamp.after.max.ms in long arithmetic, which wraps.
    const window: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampBeforeMaxMs: 1000n };
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ value: 'old', timestamp: NOW - 2000, offset: 7n }] }), window)).toMatchObject({
      errorCode: ErrorCode.INVALID_TIMESTAMP,
      recordErrors: [{ batchIndex: 0, message: `Timestamp ${NOW - 2000} of message with offset 7 is out of range. The timestamp should be within [${NOW - 1000}, ${BigInt.asIntN(64, BigInt(NOW) + 2n ** 63n - 1n)}]` }],
    });
    // magic 0 has no timestamp to check
    expect(plan(encodeMessageSet({ magic: 0, messages: [{ value: 'old' }] }), window)).toMatchObject({ kind: 'converted' });

    const lat = encodeMessageSet({ magic: 1, messages: [{ value: 'x', timestamp: -1 }], timestampType: 1 });
    expect(plan(lat)).toMatchObject({ errorCode: ErrorCode.INVALID_TIMESTAMP, recordErrors: [{ batchIndex: 0, message: expect.stringMatching(/LogAppendTime=-1.*Producer should not set timestamp type to LogAppendTime\.$/) }] });
    // CreateTime topic, a real timestamp: the LogAppendTime bit is not looked at
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ value: 'x', timestamp: T }], timestampType: 1 }))).toMatchObject({ kind: 'converted' });
    // LogAppendTime topic: the producer's bit is refused whatever the timestamp
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ value: 'x', timestamp: T }], timestampType: 1 }), { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' })).toMatchObject({
      errorCode: ErrorCode.INVALID_TIMESTAMP,
    });
  });

  it('a negative timestamp other than -1 passes validation but fails the builder: UNKNOWN_SERVER_ERROR', () => {
    expect(plan(encodeMessageSet({ magic: 1, messages: [{ value: 'x', timestamp: -5 }] }))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, reason: 'Invalid negative timestamp -5' });
  });

  it('a key or value running past its message (CRC still valid): UNKNOWN_SERVER_ERROR', () => {
    const m = encodeMessageSet({ magic: 1, messages: [{ key: 'k', value: 'v' }] });
    m.writeInt32BE(50, 26); // key length
    expect(plan(fixCrc(m))).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, reason: /malformed/ });
    // bytes after the value are ignored, as LegacyRecord does
    const longer = encodeMessage(1, 0n, 0, T, null, Buffer.from('v'));
    const padded = Buffer.concat([longer, Buffer.from([9, 9])]);
    padded.writeInt32BE(longer.length - 12 + 2, 8);
    const l = log();
    expect(l.appendMessageSet(fixCrc(padded), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    expect(stored(l).records[0].value?.toString()).toBe('v');
  });
});
