// A topic's compression.type other than `producer`: the batch is rebuilt with the topic's codec
// (LogValidator's not-in-place path), keeping records, timestamps and producer fields.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog, resolveLogConfig, type LogConfig } from '../../../src/broker/log/partition-log.js';
import {
  decodeBatch,
  encodeBatch,
  initCompression,
  readBatchHeader,
  verifyBatchCrc,
  type CompressionName,
  type RecordBatchInput,
} from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;

function batch(n: number, init: Partial<RecordBatchInput> = {}): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    value: `value-${i}`.repeat(20),
    timestamp: NOW - 1000 + (i % 3) * 7,
    headers: i === 1 ? [{ key: 'h', value: Buffer.from('v') }, { key: 'null', value: null }] : [],
  }));
  return encodeBatch({ records, ...init });
}

function cfg(compressionType: string, extra: Record<string, string> = {}): LogConfig {
  return resolveLogConfig(new Map(Object.entries({ 'compression.type': compressionType, ...extra })));
}

/** What a consumer sees of a batch: everything but the codec and the byte layout. */
function content(b: Buffer) {
  const d = decodeBatch(b);
  return {
    records: d.records.map((r) => ({ key: r.key?.toString(), value: r.value?.toString(), timestamp: r.timestamp, offsetDelta: r.offsetDelta, headers: r.headers })),
    producerId: d.producerId,
    producerEpoch: d.producerEpoch,
    baseSequence: d.baseSequence,
    isTransactional: d.isTransactional,
    maxTimestamp: d.maxTimestamp,
    timestampType: d.timestampType,
    lastOffsetDelta: d.lastOffsetDelta,
  };
}

describe('compression.type', () => {
  it('maps each setting to the stored codec; producer (the default) keeps batches as sent', () => {
    expect(cfg('producer').compressionCodec).toBeNull();
    expect(DEFAULT_LOG_CONFIG.compressionCodec).toBeNull();
    expect(['uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'].map((t) => cfg(t).compressionCodec)).toEqual([0, 1, 2, 3, 4]);
    const l = new PartitionLog('t', 0, NOW);
    const b = batch(3, { compression: 'gzip' });
    l.appendAsLeader(b, cfg('producer'), NOW);
    expect(l.storedBatches()[0]).toBe(b);
    // the same codec as the topic's: kept as sent too
    const b2 = batch(3, { compression: 'lz4' });
    l.appendAsLeader(b2, cfg('lz4'), NOW);
    expect(l.storedBatches()[1]).toBe(b2);
  });

  it.each<[CompressionName, string]>([
    ['none', 'gzip'],
    ['none', 'zstd'],
    ['gzip', 'uncompressed'],
    ['snappy', 'lz4'],
    ['zstd', 'snappy'],
    ['lz4', 'gzip'],
  ])('a %s batch on a compression.type=%s topic is stored rebuilt with that codec, records unchanged', async (from, to) => {
    await initCompression();
    const l = new PartitionLog('t', 0, NOW);
    l.appendAsLeader(batch(2), DEFAULT_LOG_CONFIG, NOW); // offsets 0-1
    const sent = batch(5, { compression: from, producerId: 42n, producerEpoch: 3, baseSequence: 0 });
    const before = content(sent);
    const r = l.appendAsLeader(sent, cfg(to), NOW);
    expect(r).toMatchObject({ errorCode: 0, baseOffset: 2, appended: true });
    const stored = l.storedBatches()[1];
    expect(stored).not.toBe(sent);
    const h = readBatchHeader(stored);
    expect(decodeBatch(stored).compression).toBe(to === 'uncompressed' ? 'none' : to);
    expect(h.baseOffset).toBe(2n);
    expect(h.partitionLeaderEpoch).toBe(0);
    expect(verifyBatchCrc(stored)).toBe(true);
    expect(content(stored)).toEqual(before);
    expect(l.logEndOffset).toBe(7);
    // the producer state follows the rebuilt batch: a retry of the same batch is a duplicate
    const again = l.appendAsLeader(batch(5, { compression: from, producerId: 42n, producerEpoch: 3, baseSequence: 0 }), cfg(to), NOW);
    expect(again).toMatchObject({ errorCode: 0, baseOffset: 2, appended: false });
  });

  it('LogAppendTime topics: the rebuilt batch is stamped like any other; records keep what consumers saw', () => {
    const l = new PartitionLog('t', 0, NOW);
    const sent = batch(3);
    const before = content(sent).records.map((r) => r.timestamp);
    const r = l.appendAsLeader(sent, cfg('gzip', { 'message.timestamp.type': 'LogAppendTime' }), NOW);
    expect(r).toMatchObject({ errorCode: 0, logAppendTime: NOW });
    const stored = decodeBatch(l.storedBatches()[0]);
    expect(stored.compression).toBe('gzip');
    expect(stored.timestampType).toBe(1);
    expect(stored.maxTimestamp).toBe(NOW);
    // LogAppendTime batches read as the append time; the base timestamp is still the first record's
    expect(stored.records.map((x) => x.timestamp)).toEqual([NOW, NOW, NOW]);
    expect(stored.baseTimestamp).toBe(before[0]);
  });

  it('checks the rebuilt size against max.message.bytes (MESSAGE_TOO_LARGE, as UnifiedLog.append)', () => {
    const l = new PartitionLog('t', 0, NOW);
    // random values do not compress: gzip's framing makes the batch larger than sent
    const sent = encodeBatch({ records: [{ value: randomBytes(2000), timestamp: NOW }] });
    const limit = sent.length + 5;
    const r = l.appendAsLeader(sent, cfg('gzip', { 'max.message.bytes': String(limit) }), NOW);
    expect(r.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(r.reason).toMatch(new RegExp(`^Message batch size is \\d+ bytes in append to partition t-0 which exceeds the maximum configured size of ${limit}\\.$`));
    expect(r.logStartOffset).toBe(-1);
    expect(l.logEndOffset).toBe(0);
  });

  it('errors found while validating come first, as before (the batch is not rebuilt)', () => {
    const l = new PartitionLog('t', 0, NOW);
    const sent = encodeBatch({ records: [{ key: null, value: 'v', timestamp: NOW }] });
    const r = l.appendAsLeader(sent, cfg('gzip', { 'cleanup.policy': 'compact' }), NOW);
    expect(r.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(l.logEndOffset).toBe(0);
  });

  it('offset deltas out of order: rebuilt in order into another codec; UNKNOWN_SERVER_ERROR in the same codec (as Kafka 3.9)', () => {
    const shuffled = (compression: CompressionName) =>
      encodeBatch({
        baseTimestamp: NOW,
        compression,
        lastOffsetDelta: 3,
        records: [0, 2, 1, 3].map((offsetDelta, i) => ({ offsetDelta, value: `o${offsetDelta}`, timestampDelta: [5, 9, 9, 1][i] })),
      });
    const l = new PartitionLog('t', 0, NOW);
    expect(l.appendAsLeader(shuffled('gzip'), cfg('producer'), NOW + 10)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, logStartOffset: 0 });
    expect(l.appendAsLeader(shuffled('gzip'), cfg('gzip'), NOW + 10)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR });
    // uncompressed into an uncompressed log: kept as sent, deltas and all
    const plain = shuffled('none');
    expect(l.appendAsLeader(plain, cfg('producer'), NOW + 10)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(l.storedBatches()[0]).toBe(plain);
    // kept as sent, the record with the max timestamp is the one whose offset delta is 2
    expect(l.maxTimestampOffset()).toMatchObject({ offset: 2, timestamp: NOW + 9 });
    // into another codec: rebuilt, deltas renumbered, the max timestamp found at its new offset
    const l2 = new PartitionLog('t', 0, NOW);
    expect(l2.appendAsLeader(shuffled('snappy'), cfg('gzip'), NOW + 10)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const stored = decodeBatch(l2.storedBatches()[0]);
    expect(stored.compression).toBe('gzip');
    expect(stored.records.map((r) => [r.offsetDelta, r.value?.toString()])).toEqual([
      [0, 'o0'],
      [1, 'o2'],
      [2, 'o1'],
      [3, 'o3'],
    ]);
    expect(l2.maxTimestampOffset()).toMatchObject({ offset: 1, timestamp: NOW + 9 });
  });
});
