// The in-memory partition log: append validation in Kafka's order, in-place offset/epoch/timestamp
// stamping of the stored request buffers, reads (max bytes, first batch always whole, partial
// tails), DeleteRecords, and the ListOffsets lookups.
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog, resolveLogConfig, type LogConfig } from '../../../src/broker/log/partition-log.js';
import {
  computeBatchCrc,
  CRC_OFFSET,
  decodeBatch,
  encodeBatch,
  readBatchHeader,
  verifyBatchCrc,
  type RecordBatchInput,
} from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;

function batch(n: number, init: Partial<RecordBatchInput> = {}, ts = NOW - 1000): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `value-${i}`, timestamp: ts + i }));
  return encodeBatch({ records, ...init });
}

function withCrc(b: Buffer): Buffer {
  b.writeUInt32BE(computeBatchCrc(b), CRC_OFFSET);
  return b;
}

function log(): PartitionLog {
  return new PartitionLog('t', 0, NOW - 10_000);
}

describe('append', () => {
  it('assigns offsets by patching the stored request buffer in place', () => {
    const l = log();
    const b1 = batch(3);
    const b2 = batch(2);
    const r1 = l.appendAsLeader(b1, DEFAULT_LOG_CONFIG, NOW);
    const r2 = l.appendAsLeader(b2, DEFAULT_LOG_CONFIG, NOW);
    expect(r1).toMatchObject({ errorCode: 0, baseOffset: 0, logAppendTime: -1, logStartOffset: 0, appended: true });
    expect(r2).toMatchObject({ errorCode: 0, baseOffset: 3, appended: true });
    expect(l.logEndOffset).toBe(5);
    expect(l.highWatermark).toBe(5);
    const stored = l.storedBatches();
    expect(stored[0]).toBe(b1);
    expect(stored[1]).toBe(b2);
    const h = readBatchHeader(b2);
    expect(h.baseOffset).toBe(3n);
    expect(h.partitionLeaderEpoch).toBe(0);
    expect(verifyBatchCrc(b2)).toBe(true);
  });

  it('stamps LogAppendTime in place and recomputes the CRC', () => {
    const l = log();
    const b = batch(2);
    const cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' };
    const r = l.appendAsLeader(b, cfg, NOW);
    expect(r).toMatchObject({ errorCode: 0, baseOffset: 0, logAppendTime: NOW });
    const h = readBatchHeader(b);
    expect(h.timestampType).toBe(1);
    expect(h.maxTimestamp).toBe(NOW);
    expect(verifyBatchCrc(b)).toBe(true);
    expect(decodeBatch(b).records.map((x) => x.timestamp)).toEqual([NOW, NOW]);
  });

  it('rewrites a wrong max timestamp to the records\' largest, as LogValidator does', () => {
    const b = batch(2, { maxTimestamp: NOW + 50_000 });
    log().appendAsLeader(b, DEFAULT_LOG_CONFIG, NOW);
    expect(readBatchHeader(b).maxTimestamp).toBe(NOW - 1000 + 1);
    expect(verifyBatchCrc(b)).toBe(true);
  });

  it('rejects in Kafka\'s order with Kafka\'s error codes', () => {
    const l = log();
    // base offset must be 0 (InvalidRecordException: reported with the log start offset)
    expect(l.appendAsLeader(batch(1, { baseOffset: 5n }), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      logStartOffset: 0,
      baseOffset: -1,
    });
    // max.message.bytes (RecordTooLargeException: unknown log start offset)
    expect(l.appendAsLeader(batch(50), { ...DEFAULT_LOG_CONFIG, maxMessageBytes: 100 }, NOW)).toMatchObject({
      errorCode: ErrorCode.MESSAGE_TOO_LARGE,
      logStartOffset: -1,
    });
    // CRC
    const bad = batch(2);
    bad[bad.length - 1] ^= 0xff;
    expect(l.appendAsLeader(bad, DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, logStartOffset: -1 });
    // count vs offsets
    expect(l.appendAsLeader(batch(2, { lastOffsetDelta: 5 }), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    // control batches from clients
    expect(l.appendAsLeader(batch(1, { isControl: true }), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    // a producer id without a sequence
    expect(l.appendAsLeader(batch(1, { producerId: 7n, producerEpoch: 0, baseSequence: -1 }), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(
      ErrorCode.INVALID_RECORD,
    );
    expect(l.logEndOffset).toBe(0);
    expect(l.batchCount).toBe(0);
  });

  it('walks every record: malformed records are INVALID_RECORD, undecompressable data UNKNOWN_SERVER_ERROR', () => {
    const l = log();
    // One byte too many after the last record (CRC fixed up): "records still remaining".
    const good = batch(2);
    const longer = Buffer.concat([good, Buffer.from([0])]);
    longer.writeInt32BE(longer.length - 12, 8);
    expect(l.appendAsLeader(withCrc(longer), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    // A record whose length prefix disagrees with its fields.
    const wrong = batch(1);
    wrong[61] = wrong[61] + 2; // zigzag varint: +1 in value
    expect(l.appendAsLeader(withCrc(wrong), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    // gzip batch with garbage as compressed data but a valid CRC.
    const gz = batch(2, { compression: 'gzip' });
    gz.fill(0x41, 61);
    expect(l.appendAsLeader(withCrc(gz), DEFAULT_LOG_CONFIG, NOW)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, logStartOffset: 0 });
    // gzip batch declaring more records than it holds.
    const body = zlib.gunzipSync(batch(2, { compression: 'gzip' }).subarray(61));
    const fewer = batch(3, { compression: 'gzip' });
    const rebuilt = Buffer.concat([fewer.subarray(0, 61), zlib.gzipSync(body)]);
    rebuilt.writeInt32BE(rebuilt.length - 12, 8);
    expect(l.appendAsLeader(withCrc(rebuilt), DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(l.logEndOffset).toBe(0);
  });

  it('answers record-level errors with recordErrors and an errorMessage (RecordValidationException)', () => {
    const l = log();
    const compact = { ...DEFAULT_LOG_CONFIG, compact: true };
    const b = encodeBatch({ records: [{ key: 'a', value: '1' }, { key: null, value: '2' }, { key: null, value: '3' }] });
    const r = l.appendAsLeader(b, compact, NOW);
    expect(r.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(r.logStartOffset).toBe(0);
    expect(r.recordErrors).toEqual([
      { batchIndex: 1, message: 'Compacted topic cannot accept message without key in topic partition t-0' },
      { batchIndex: 2, message: 'Compacted topic cannot accept message without key in topic partition t-0' },
    ]);
    expect(r.errorMessage).toBe(
      "One or more records have been rejected due to 2 record errors in total, and only showing the first three errors at most: " +
        "[RecordError(batchIndex=1, message='Compacted topic cannot accept message without key in topic partition t-0'), " +
        "RecordError(batchIndex=2, message='Compacted topic cannot accept message without key in topic partition t-0')]",
    );
    const bounded = resolveLogConfig(new Map([['message.timestamp.before.max.ms', '1000']]));
    const old = encodeBatch({ records: [{ value: 'x', timestamp: NOW - 5000 }] });
    const t = l.appendAsLeader(old, bounded, NOW);
    expect(t.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(t.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
    expect(t.recordErrors[0].message).toMatch(/^Timestamp 1699999995000 of message with offset 0 is out of range\. The timestamp should be within \[1699999999000, -/);
  });
});

describe('read', () => {
  function filled(): { l: PartitionLog; batches: Buffer[] } {
    const l = log();
    const batches = [batch(3), batch(3), batch(3), batch(3)];
    for (const b of batches) expect(l.appendAsLeader(b, DEFAULT_LOG_CONFIG, NOW).errorCode).toBe(0);
    return { l, batches };
  }

  it('returns the stored Buffer objects from the batch holding the offset', () => {
    const { l, batches } = filled();
    const r = l.read(4, 1 << 20, true);
    expect(r.errorCode).toBe(0);
    expect(r.records).toHaveLength(3);
    r.records.forEach((b, i) => expect(b).toBe(batches[i + 1]));
    expect(r.bytes).toBe(batches[1].length * 3);
  });

  it('cuts at max bytes like a file slice, and returns a first batch larger than max bytes whole', () => {
    const { l, batches } = filled();
    const size = batches[0].length;
    const r = l.read(0, size + 10, true);
    expect(r.records).toHaveLength(2);
    expect(r.records[0]).toBe(batches[0]);
    expect(r.records[1].length).toBe(10);
    expect(r.records[1].buffer).toBe(batches[1].buffer); // a view, not a copy
    const one = l.read(0, 1, true);
    expect(one.records).toEqual([batches[0]]);
    expect(one.firstEntryIncomplete).toBe(false);
    const none = l.read(0, 1, false);
    expect(none.firstEntryIncomplete).toBe(true);
  });

  it('OFFSET_OUT_OF_RANGE outside [log start, log end]; empty at the log end', () => {
    const { l } = filled();
    expect(l.read(13, 100, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(l.read(-1, 100, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(l.read(12, 100, true)).toMatchObject({ errorCode: 0, records: [], bytes: 0 });
  });
});

describe('DeleteRecords', () => {
  it('moves the log start offset and refuses offsets past the high watermark; the segments below it go at the next retention check', () => {
    const l = log();
    const batches = [batch(3), batch(3), batch(3)];
    // one batch per segment (segment.bytes: a segment rolls when the next batch would pass it)
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: batches[0].length };
    for (const b of batches) l.appendAsLeader(b, config, NOW);
    expect(l.logSegments.map((s) => s.baseOffset)).toEqual([0, 3, 6]);
    expect(l.deleteRecords(4)).toEqual({ errorCode: 0, lowWatermark: 4 });
    expect(l.batchCount).toBe(3); // nothing deleted yet (UnifiedLog.maybeIncrementLogStartOffset)
    expect(l.read(3, 1000, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(l.read(4, 1000, true).records[0]).toBe(batches[1]);
    expect(l.deleteOldSegments(config, NOW)).toEqual([{ reason: 'log-start-offset', segments: 1, bytes: batches[0].length, logStartOffset: 4 }]);
    expect(l.batchCount).toBe(2); // the segment holding offset 4 stays
    expect(l.deleteRecords(2)).toEqual({ errorCode: 0, lowWatermark: 4 }); // never moves back
    expect(l.deleteRecords(10)).toEqual({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 });
    expect(l.deleteRecords(-2)).toEqual({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 });
    expect(l.deleteRecords(-1)).toEqual({ errorCode: 0, lowWatermark: 9 }); // -1: the high watermark
    l.deleteOldSegments(config, NOW);
    expect(l.batchCount).toBe(1); // the active segment is never deleted for the log start offset
    expect(l.read(9, 1000, true)).toMatchObject({ errorCode: 0, records: [] });
    // appends continue at the log end
    expect(l.appendAsLeader(batch(1), config, NOW).baseOffset).toBe(9);
    l.deleteOldSegments(config, NOW);
    expect(l.logSegments.map((s) => s.baseOffset)).toEqual([9]);
  });
});

describe('offset lookups', () => {
  it('finds the first record with a timestamp at or after the target, from the log start offset', () => {
    const l = log();
    l.appendAsLeader(encodeBatch({ records: [{ value: 'a', timestamp: 100 }, { value: 'b', timestamp: 300 }] }), DEFAULT_LOG_CONFIG, NOW);
    l.appendAsLeader(encodeBatch({ records: [{ value: 'c', timestamp: 200 }, { value: 'd', timestamp: 400 }], compression: 'gzip' }), DEFAULT_LOG_CONFIG, NOW);
    expect(l.offsetForTimestamp(0)).toEqual({ timestamp: 100, offset: 0, leaderEpoch: 0 });
    expect(l.offsetForTimestamp(150)).toEqual({ timestamp: 300, offset: 1, leaderEpoch: 0 });
    expect(l.offsetForTimestamp(350)).toEqual({ timestamp: 400, offset: 3, leaderEpoch: 0 });
    expect(l.offsetForTimestamp(401)).toBeNull();
    l.deleteRecords(2);
    expect(l.offsetForTimestamp(150)).toEqual({ timestamp: 200, offset: 2, leaderEpoch: 0 });
  });

  it('max timestamp: the first batch with the largest timestamp, its first record with it', () => {
    const l = log();
    expect(l.maxTimestampOffset()).toBeNull();
    l.appendAsLeader(encodeBatch({ records: [{ value: 'a', timestamp: 100 }, { value: 'b', timestamp: 500 }, { value: 'c', timestamp: 500 }] }), DEFAULT_LOG_CONFIG, NOW);
    l.appendAsLeader(encodeBatch({ records: [{ value: 'd', timestamp: 500 }] }), DEFAULT_LOG_CONFIG, NOW);
    expect(l.maxTimestampOffset()).toEqual({ timestamp: 500, offset: 1, leaderEpoch: 0 });
    const lat = log();
    lat.appendAsLeader(batch(3), { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' }, NOW);
    expect(lat.maxTimestampOffset()).toEqual({ timestamp: NOW, offset: 0, leaderEpoch: 0 });
  });

  it('v0 old-style offsets from the segment table', () => {
    const l = new PartitionLog('t', 0, 1000);
    expect(l.legacyOffsetsBefore(-1, 10, 5000)).toEqual([0]);
    expect(l.legacyOffsetsBefore(500, 10, 5000)).toEqual([]);
    l.appendAsLeader(batch(3), DEFAULT_LOG_CONFIG, 2000);
    expect(l.legacyOffsetsBefore(-1, 10, 5000)).toEqual([3, 0]);
    expect(l.legacyOffsetsBefore(-1, 1, 5000)).toEqual([3]);
    expect(l.legacyOffsetsBefore(-2, 10, 5000)).toEqual([0]);
    expect(l.legacyOffsetsBefore(3000, 10, 5000)).toEqual([0]);
    expect(l.legacyOffsetsBefore(6000, 10, 5000)).toEqual([3, 0]);
    expect(() => l.legacyOffsetsBefore(-1, -1, 5000)).toThrow(RangeError);
  });
});
