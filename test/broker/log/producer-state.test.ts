// Idempotent-producer state (ProducerStateManager / ProducerAppendInfo semantics), alone and
// through the partition log's append.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, PartitionLog } from '../../../src/broker/log/partition-log.js';
import {
  decrementSequence,
  incrementSequence,
  PRODUCER_ID_EXPIRATION_MS,
  ProducerStateManager,
} from '../../../src/broker/log/producer-state.js';
import { ProducerIdManager } from '../../../src/broker/log/producer-ids.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = Date.now();

function idem(pid: bigint, epoch: number, seq: number, n = 1, ts = NOW): Buffer {
  return encodeBatch({
    records: Array.from({ length: n }, (_, i) => ({ value: `v${seq + i}`, timestamp: ts })),
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
  });
}

describe('sequence arithmetic', () => {
  it('wraps at Integer.MAX_VALUE like DefaultRecordBatch', () => {
    expect(incrementSequence(0x7fffffff, 1)).toBe(0);
    expect(incrementSequence(0x7ffffffe, 3)).toBe(1);
    expect(decrementSequence(1, 3)).toBe(0x7ffffffe);
  });
});

describe('ProducerStateManager', () => {
  it('accepts any sequence from a producer it has no state for (no UNKNOWN_PRODUCER_ID in 3.9)', () => {
    const m = new ProducerStateManager('t-0');
    expect(m.check(1n, 0, 42, 42, 0, NOW)).toEqual({ kind: 'append' });
  });

  it('finds duplicates among the last five batches only', () => {
    const m = new ProducerStateManager('t-0');
    for (let i = 0; i < 6; i++) m.update(1n, 0, { lastSeq: i * 2 + 1, lastOffset: i * 2 + 1, offsetDelta: 1, timestamp: NOW });
    expect(m.check(1n, 0, 2, 3, 99, NOW)).toMatchObject({ kind: 'duplicate', batch: { lastOffset: 3 } });
    // the first batch (seq 0-1) was evicted: now it is out of order
    expect(m.check(1n, 0, 0, 1, 99, NOW)).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    // a different range overlapping a kept batch is not a duplicate
    expect(m.check(1n, 0, 2, 2, 99, NOW)).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(m.check(1n, 0, 12, 12, 99, NOW)).toEqual({ kind: 'append' });
  });

  it('epochs: older is INVALID_PRODUCER_EPOCH, newer must start at sequence 0', () => {
    const m = new ProducerStateManager('t-0');
    m.update(5n, 3, { lastSeq: 9, lastOffset: 9, offsetDelta: 9, timestamp: NOW });
    expect(m.check(5n, 2, 10, 10, 10, NOW)).toMatchObject({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(m.check(5n, 4, 10, 10, 10, NOW)).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(m.check(5n, 4, 0, 0, 10, NOW)).toEqual({ kind: 'append' });
    // a duplicate of the same range under another epoch is not a duplicate
    expect(m.check(5n, 2, 0, 9, 10, NOW)).toMatchObject({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('expires idle producers on the periodic check (producer.id.expiration.ms)', () => {
    const m = new ProducerStateManager('t-0', { checkIntervalMs: 1, scheduleOrigin: NOW });
    m.update(1n, 0, { lastSeq: 0, lastOffset: 0, offsetDelta: 0, timestamp: NOW - PRODUCER_ID_EXPIRATION_MS - 1 });
    m.update(2n, 0, { lastSeq: 0, lastOffset: 1, offsetDelta: 0, timestamp: NOW });
    expect(m.lastEntry(1n, NOW + 10)).toBeUndefined();
    expect(m.lastEntry(2n, NOW + 10)).toBeDefined();
  });
});

describe('through the log', () => {
  it('answers a retried batch with its original offsets and does not append it again', () => {
    const l = new PartitionLog('t', 0);
    expect(l.appendAsLeader(idem(0n, 0, 0, 3), DEFAULT_LOG_CONFIG).baseOffset).toBe(0);
    expect(l.appendAsLeader(idem(0n, 0, 3, 2), DEFAULT_LOG_CONFIG).baseOffset).toBe(3);
    const dup = l.appendAsLeader(idem(0n, 0, 0, 3), DEFAULT_LOG_CONFIG);
    expect(dup).toMatchObject({ errorCode: 0, baseOffset: 0, appended: false, logStartOffset: 0 });
    // Kafka answers a duplicate with the stored batch's timestamp as logAppendTime.
    expect(dup.logAppendTime).toBe(NOW);
    expect(l.logEndOffset).toBe(5);
    expect(l.batchCount).toBe(2);
  });

  it('OUT_OF_ORDER_SEQUENCE_NUMBER for a gap, INVALID_PRODUCER_EPOCH for a fenced epoch', () => {
    const l = new PartitionLog('t', 0);
    l.appendAsLeader(idem(9n, 1, 0, 2), DEFAULT_LOG_CONFIG);
    expect(l.appendAsLeader(idem(9n, 1, 5), DEFAULT_LOG_CONFIG)).toMatchObject({
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      baseOffset: -1,
      logStartOffset: 0,
      errorMessage: null,
    });
    expect(l.appendAsLeader(idem(9n, 0, 2), DEFAULT_LOG_CONFIG).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(l.logEndOffset).toBe(2);
  });
});

describe('ProducerIdManager', () => {
  it('hands out 0, 1, 2, ...', () => {
    const m = new ProducerIdManager();
    expect([m.generateProducerId(), m.generateProducerId(), m.generateProducerId()]).toEqual([0n, 1n, 2n]);
  });
});
