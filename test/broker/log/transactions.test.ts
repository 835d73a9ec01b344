// The partition log's transactional side (UnifiedLog / ProducerStateManager / ProducerAppendInfo /
// LocalLog 3.9): transactional batches and the last stable offset, COMMIT/ABORT markers (their
// bytes, decoded by the codec's record reader), the aborted-transactions index and the aborted
// list a read_committed read gets, epoch and coordinator-epoch fencing, KIP-890 verification
// guards, and producer expiry with open transactions.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_CONFIG, NO_VERIFICATION, PartitionLog, type LogConfig, type TxnAppendOptions } from '../../../src/broker/log/partition-log.js';
import { PRODUCER_ID_EXPIRATION_MS, SENTINEL_GUARD } from '../../../src/broker/log/producer-state.js';
import {
  ControlRecordType,
  CRC_OFFSET,
  computeBatchCrc,
  decodeBatch,
  decodeRecords,
  encodeBatch,
  parseEndTxnMarker,
  readBatchHeader,
  type RecordBatch,
} from '../../../src/codec/records/index.js';
import { ErrorCode } from '../../../src/codec/index.js';

const NOW = 1_700_000_000_000;
/** Verification disabled: transactional batches start transactions without a coordinator (the log alone). */
const UNVERIFIED: TxnAppendOptions = { verificationEnabled: false, guard: SENTINEL_GUARD };

function txn(pid: bigint, epoch: number, seq: number, n = 1, ts = NOW): Buffer {
  return encodeBatch({
    records: Array.from({ length: n }, (_, i) => ({ value: `p${pid}-${seq + i}`, timestamp: ts })),
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    isTransactional: true,
  });
}

function plain(n = 1, ts = NOW): Buffer {
  return encodeBatch({ records: Array.from({ length: n }, (_, i) => ({ value: `plain-${i}`, timestamp: ts })) });
}

function idem(pid: bigint, epoch: number, seq: number, n = 1): Buffer {
  return encodeBatch({ records: Array.from({ length: n }, (_, i) => ({ value: `i${seq + i}`, timestamp: NOW })), producerId: pid, producerEpoch: epoch, baseSequence: seq });
}

function newLog(): PartitionLog {
  return new PartitionLog('t', 0, NOW - 10_000, NOW - 10_000);
}

const commit = (pid: bigint, epoch = 0, coordinatorEpoch = 0) => ({ producerId: pid, producerEpoch: epoch, coordinatorEpoch, result: 'COMMIT' as const });
const abort = (pid: bigint, epoch = 0, coordinatorEpoch = 0) => ({ producerId: pid, producerEpoch: epoch, coordinatorEpoch, result: 'ABORT' as const });

function append(l: PartitionLog, b: Buffer, txnOptions: TxnAppendOptions = UNVERIFIED, config: LogConfig = DEFAULT_LOG_CONFIG) {
  return l.appendAsLeader(b, config, NOW, txnOptions);
}

describe('last stable offset', () => {
  it('is the high watermark without transactions, the first offset of the oldest open transaction with them', () => {
    const l = newLog();
    expect(append(l, plain(2)).errorCode).toBe(0);
    expect(l.lastStableOffset).toBe(2);
    expect(append(l, txn(1n, 0, 0, 3)).baseOffset).toBe(2);
    expect(append(l, plain()).baseOffset).toBe(5);
    expect(append(l, txn(2n, 0, 0)).baseOffset).toBe(6);
    expect(l.highWatermark).toBe(7);
    expect(l.lastStableOffset).toBe(2);
    expect(l.producers.lastEntry(1n, NOW)).toMatchObject({ currentTxnFirstOffset: 2 });
    // the second batch of an open transaction does not move its first offset
    expect(append(l, txn(1n, 0, 3)).baseOffset).toBe(7);
    expect(l.producers.lastEntry(1n, NOW)?.currentTxnFirstOffset).toBe(2);
    // committing producer 1 leaves producer 2's transaction (first offset 6) unstable
    expect(l.appendControlMarker(commit(1n), NOW)).toEqual({ errorCode: 0, offset: 8 });
    expect(l.lastStableOffset).toBe(6);
    expect(l.appendControlMarker(commit(2n), NOW)).toEqual({ errorCode: 0, offset: 9 });
    expect(l.lastStableOffset).toBe(10);
    expect(l.lastStableOffset).toBe(l.highWatermark);
  });

  it('is at least the log start offset once DeleteRecords passed an open transaction', () => {
    const l = newLog();
    append(l, txn(1n, 0, 0, 2));
    append(l, plain(3));
    expect(l.lastStableOffset).toBe(0);
    expect(l.deleteRecords(3).errorCode).toBe(0);
    expect(l.lastStableOffset).toBe(3);
    // a read_committed read from the log start offset: nothing is stable yet
    const r = l.read(3, 1 << 20, true, true);
    expect(r).toMatchObject({ errorCode: 0, bytes: 0, records: [], abortedTransactions: [] });
  });
});

describe('transactional producer checks', () => {
  it('INVALID_TXN_STATE for a non-transactional batch of a producer in a transaction; the reverse starts one', () => {
    const l = newLog();
    expect(append(l, idem(4n, 0, 0)).errorCode).toBe(0);
    expect(l.lastStableOffset).toBe(1);
    // transactional after idempotent, same producer and epoch: accepted, the transaction starts here
    expect(append(l, txn(4n, 0, 1)).errorCode).toBe(0);
    expect(l.lastStableOffset).toBe(1);
    const r = append(l, idem(4n, 0, 2));
    expect(r).toMatchObject({ errorCode: ErrorCode.INVALID_TXN_STATE, baseOffset: -1, logStartOffset: 0, errorMessage: null });
    expect(r.reason).toBe('Expected transactional write from producer 4 at offset 2 in partition t-0');
    expect(l.logEndOffset).toBe(2);
  });

  it('refuses a transaction-starting batch without the verification guard (verification on), as Kafka 3.9', () => {
    const l = newLog();
    const r = append(l, txn(1n, 0, 0), NO_VERIFICATION);
    expect(r).toMatchObject({ errorCode: ErrorCode.INVALID_TXN_STATE, reason: 'Record was not part of an ongoing transaction' });
    expect(l.logEndOffset).toBe(0);
    // the guard from maybeStartTransactionVerification lets it in, once; then the transaction is ongoing
    const guard = l.producers.maybeStartTransactionVerification(1n, 0, 0, NOW);
    expect(guard).not.toBe(SENTINEL_GUARD);
    expect(append(l, txn(1n, 0, 0), { verificationEnabled: true, guard }).errorCode).toBe(0);
    expect(l.producers.verificationState(1n)).toBeUndefined();
    expect(l.producers.maybeStartTransactionVerification(1n, 1, 0, NOW)).toBe(SENTINEL_GUARD);
    expect(append(l, txn(1n, 0, 1), NO_VERIFICATION).errorCode).toBe(0);
    // after the marker a new transaction needs a new verification
    l.appendControlMarker(commit(1n), NOW);
    expect(append(l, txn(1n, 0, 2), NO_VERIFICATION).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
  });

  it('a stale guard (its entry cleared by a marker) does not verify; a retry reuses the entry and its lowest sequence', () => {
    const l = newLog();
    const stale = l.producers.maybeStartTransactionVerification(1n, 0, 0, NOW);
    l.appendControlMarker(abort(1n), NOW); // a marker clears the producer's verification state
    expect(append(l, txn(1n, 0, 0), { verificationEnabled: true, guard: stale }).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    const g1 = l.producers.maybeStartTransactionVerification(1n, 5, 0, NOW);
    const g2 = l.producers.maybeStartTransactionVerification(1n, 3, 0, NOW);
    expect(g2).toBe(g1);
    expect(l.producers.verificationState(1n)).toMatchObject({ lowestSequence: 3, epoch: 0 });
    // VerificationStateEntry: a sequence above the lowest one seen is out of order
    const high = append(l, txn(1n, 0, 5), { verificationEnabled: true, guard: g1 });
    expect(high.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(high.reason).toMatch(/5 \(incoming seq\. number\), 3 \(earliest seen sequence\)$/);
    // a newer epoch resets it
    l.producers.maybeStartTransactionVerification(1n, 9, 1, NOW);
    expect(l.producers.verificationState(1n)).toMatchObject({ lowestSequence: 9, epoch: 1 });
  });
});

describe('control markers', () => {
  it('writes a v2 control batch Kafka would write: attributes, producer, one EndTxnMarker record, CRC-32C', () => {
    const l = newLog();
    append(l, txn(7n, 3, 0, 2));
    const r = l.appendControlMarker({ producerId: 7n, producerEpoch: 3, coordinatorEpoch: 5, result: 'COMMIT' }, NOW + 1);
    expect(r).toEqual({ errorCode: 0, offset: 2 });
    const marker = l.storedBatches()[1];
    // MemoryRecords.withEndTransactionMarker: RECORD_BATCH_OVERHEAD + EndTransactionMarker.CURRENT_END_TXN_SCHEMA_RECORD_SIZE
    expect(marker.length).toBe(61 + 17);
    expect(marker.readUInt32BE(CRC_OFFSET)).toBe(computeBatchCrc(marker));
    const h = readBatchHeader(marker);
    expect(h).toMatchObject({
      baseOffset: 2n,
      partitionLeaderEpoch: 0,
      magic: 2,
      codec: 0,
      timestampType: 0,
      isTransactional: true,
      isControl: true,
      lastOffsetDelta: 0,
      baseTimestamp: NOW + 1,
      maxTimestamp: NOW + 1,
      producerId: 7n,
      producerEpoch: 3,
      baseSequence: -1,
      recordsCount: 1,
    });
    const d = decodeBatch(marker);
    expect(d.records).toHaveLength(1);
    const rec = d.records[0];
    expect(rec.control).toEqual({ version: 0, type: ControlRecordType.COMMIT });
    expect([...rec.key!]).toEqual([0, 0, 0, 1]);
    expect([...rec.value!]).toEqual([0, 0, 0, 0, 0, 5]);
    expect(rec.headers).toEqual([]);
    expect(rec.timestamp).toBe(NOW + 1);
    expect(parseEndTxnMarker(rec)).toEqual({ commit: true, version: 0, coordinatorEpoch: 5 });
    // the whole log decodes with the codec's reader: data batch then the marker
    const all = decodeRecords(Buffer.concat(l.storedBatches())).entries as RecordBatch[];
    expect(all.map((b) => [b.baseOffset, b.isControl])).toEqual([[0n, false], [2n, true]]);
    expect(l.logEndOffset).toBe(3);
  });

  it('an ABORT key is type 0; a LogAppendTime topic stamps the append time with the LogAppendTime bit', () => {
    const l = newLog();
    const cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, timestampType: 'LogAppendTime' };
    l.appendControlMarker(abort(1n, 0, 2), NOW + 7, cfg);
    const marker = l.storedBatches()[0];
    expect(readBatchHeader(marker)).toMatchObject({ timestampType: 1, maxTimestamp: NOW + 7, isControl: true });
    expect(marker.readUInt32BE(CRC_OFFSET)).toBe(computeBatchCrc(marker));
    const rec = decodeBatch(marker).records[0];
    expect(rec.control).toEqual({ version: 0, type: ControlRecordType.ABORT });
    expect(parseEndTxnMarker(rec)).toEqual({ commit: false, version: 0, coordinatorEpoch: 2 });
  });

  it('min.insync.replicas above one does not refuse a marker: the effective min ISR is min(min.insync.replicas, replicas) = 1', () => {
    const l = newLog();
    append(l, txn(1n, 0, 0));
    const r = l.appendControlMarker(commit(1n), NOW, { ...DEFAULT_LOG_CONFIG, minInsyncReplicas: 2 });
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, offset: 1 });
    expect(l.logEndOffset).toBe(2);
    expect(l.lastStableOffset).toBe(2);
  });

  it('a marker for a producer with no transaction is written, and only updates its epochs', () => {
    const l = newLog();
    expect(l.appendControlMarker(commit(9n, 4, 1), NOW)).toEqual({ errorCode: 0, offset: 0 });
    expect(l.txnIndex.size).toBe(0);
    expect(l.producers.lastEntry(9n, NOW)).toMatchObject({ producerEpoch: 4, coordinatorEpoch: 1, currentTxnFirstOffset: -1, lastSeq: -1, lastTimestamp: NOW });
    // an ABORT without a transaction adds nothing to the aborted index either
    expect(l.appendControlMarker(abort(9n, 4, 1), NOW).offset).toBe(1);
    expect(l.txnIndex.size).toBe(0);
    expect(l.lastStableOffset).toBe(2);
  });

  it('INVALID_PRODUCER_EPOCH below the producer\'s epoch, TRANSACTION_COORDINATOR_FENCED below the last coordinator epoch; nothing written', () => {
    const l = newLog();
    append(l, txn(1n, 5, 0));
    const lower = l.appendControlMarker(commit(1n, 4), NOW);
    expect(lower.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(lower.offset).toBe(-1);
    expect(l.appendControlMarker(abort(1n, 5, 3), NOW)).toEqual({ errorCode: 0, offset: 1 });
    append(l, txn(1n, 5, 1));
    const zombie = l.appendControlMarker(commit(1n, 5, 2), NOW);
    expect(zombie).toMatchObject({ errorCode: ErrorCode.TRANSACTION_COORDINATOR_FENCED, offset: -1 });
    expect(zombie.reason).toBe('Invalid coordinator epoch for producerId 1 at offset 3 in partition t-0: 2 (zombie), 3 (current)');
    expect(l.logEndOffset).toBe(3);
    expect(l.lastStableOffset).toBe(2);
  });

  it('a marker with a bumped epoch (the coordinator fencing the producer) aborts and fences the old epoch', () => {
    const l = newLog();
    append(l, txn(1n, 0, 0, 2));
    expect(l.appendControlMarker(abort(1n, 1), NOW).offset).toBe(2);
    expect(l.producers.lastEntry(1n, NOW)).toMatchObject({ producerEpoch: 1, lastSeq: -1, currentTxnFirstOffset: -1 });
    expect(l.txnIndex.all()).toEqual([{ producerId: 1n, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
    // the zombie's next batch, at the old epoch
    expect(append(l, txn(1n, 0, 2)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    // the new epoch starts at sequence 0
    expect(append(l, txn(1n, 1, 3)).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(append(l, txn(1n, 1, 0)).errorCode).toBe(0);
  });
});

describe('aborted transactions index', () => {
  it('records the last stable offset at the abort: the next open transaction of another producer, else past the marker', () => {
    const l = newLog();
    append(l, txn(1n, 0, 0)); // 0
    append(l, txn(2n, 0, 0)); // 1
    l.appendControlMarker(abort(1n), NOW); // 2: producer 2 still open at 1
    append(l, txn(3n, 0, 0)); // 3
    l.appendControlMarker(abort(2n), NOW); // 4: producer 3 open at 3
    l.appendControlMarker(abort(3n), NOW); // 5: none open
    l.appendControlMarker(commit(3n), NOW); // 6: no transaction: no entry
    expect(l.txnIndex.all()).toEqual([
      { producerId: 1n, firstOffset: 0, lastOffset: 2, lastStableOffset: 1 },
      { producerId: 2n, firstOffset: 1, lastOffset: 4, lastStableOffset: 3 },
      { producerId: 3n, firstOffset: 3, lastOffset: 5, lastStableOffset: 6 },
    ]);
  });

  it('TransactionIndex.collectAbortedTxns: overlap with [fetch offset, upper bound), stopping at the first entry whose LSO reaches the bound', () => {
    const l = newLog();
    append(l, txn(1n, 0, 0)); // 0
    l.appendControlMarker(abort(1n), NOW); // 1
    append(l, txn(2n, 0, 0)); // 2
    l.appendControlMarker(abort(2n), NOW); // 3
    append(l, txn(3n, 0, 0)); // 4
    l.appendControlMarker(abort(3n), NOW); // 5
    const idx = l.txnIndex;
    expect(idx.collect(0, 6).map((t) => t.producerId)).toEqual([1n, 2n, 3n]);
    expect(idx.collect(2, 6).map((t) => t.producerId)).toEqual([2n, 3n]);
    expect(idx.collect(1, 6).map((t) => t.producerId)).toEqual([1n, 2n, 3n]); // lastOffset 1 >= 1
    // upper bound 2: entry 1 (LSO 2) ends the scan
    expect(idx.collect(0, 2).map((t) => t.producerId)).toEqual([1n]);
    expect(idx.collect(0, 3).map((t) => t.producerId)).toEqual([1n, 2n]);
    // an upper bound at the fetch offset (an empty read): nothing starts below it and ends at or after it
    expect(idx.collect(2, 2)).toEqual([]);
  });
});

describe('read_committed reads', () => {
  function openAndClosed(): PartitionLog {
    const l = newLog();
    append(l, txn(1n, 0, 0, 2)); // 0-1
    l.appendControlMarker(abort(1n), NOW); // 2
    append(l, plain()); // 3
    append(l, txn(2n, 0, 0)); // 4 open
    append(l, plain()); // 5
    return l;
  }

  it('stop at the batch holding the last stable offset and carry the aborted transactions of the range', () => {
    const l = openAndClosed();
    expect(l.lastStableOffset).toBe(4);
    const committed = l.read(0, 1 << 20, true, true);
    expect(committed.errorCode).toBe(0);
    const batches = decodeRecords(Buffer.concat(committed.records)).entries as RecordBatch[];
    expect(batches.map((b) => b.baseOffset)).toEqual([0n, 2n, 3n]);
    expect(committed.bytes).toBe(l.positionOf(4));
    expect(committed.abortedTransactions).toEqual([{ producerId: 1n, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
    // read_uncommitted: to the high watermark, no aborted list
    const uncommitted = l.read(0, 1 << 20, true);
    expect((decodeRecords(Buffer.concat(uncommitted.records)).entries as RecordBatch[]).map((b) => b.baseOffset)).toEqual([0n, 2n, 3n, 4n, 5n]);
    expect(uncommitted.abortedTransactions).toBeNull();
  });

  it('at or past the last stable offset: empty, with an empty aborted list', () => {
    const l = openAndClosed();
    for (const offset of [4, 5, 6]) {
      const r = l.read(offset, 1 << 20, true, true);
      expect(r).toMatchObject({ errorCode: 0, records: [], bytes: 0, firstEntryIncomplete: false, abortedTransactions: [] });
      expect(r.startPosition).toBe(l.positionOf(offset));
    }
    expect(l.read(7, 1 << 20, true, true).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('from inside the range: aborted transactions ending before the fetch offset are left out', () => {
    const l = openAndClosed();
    expect(l.read(3, 1 << 20, true, true).abortedTransactions).toEqual([]);
    expect(l.read(2, 1 << 20, true, true).abortedTransactions).toEqual([{ producerId: 1n, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
  });

  it('the upper bound is the offset index entry past the bytes read (index.interval.bytes), else the log end offset', () => {
    // index.interval.bytes 0: an entry before every append after the first
    const cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, indexIntervalBytes: 0 };
    const l = newLog();
    l.appendAsLeader(plain(), cfg, NOW); // 0
    l.appendAsLeader(txn(1n, 0, 0), cfg, NOW, UNVERIFIED); // 1
    l.appendControlMarker(abort(1n), NOW, cfg); // 2
    const size0 = l.storedBatches()[0].length;
    // one batch read (max bytes = its size, no minOneMessage): upper bound = the entry of batch 1 (offset 1): firstOffset 1 < 1 fails
    const r = l.read(0, size0, false, true);
    expect(r.bytes).toBe(size0);
    expect(r.abortedTransactions).toEqual([]);
    // two batches read: the bound is the marker's entry (offset 2): the aborted transaction starts below it
    const r2 = l.read(0, size0 + l.storedBatches()[1].length, false, true);
    expect(r2.abortedTransactions?.map((t) => t.producerId)).toEqual([1n]);
    // with the default interval (4096) there is no index entry yet: the bound is the log end offset,
    // so even a one-batch read lists the transaction aborted later
    const d = newLog();
    d.appendAsLeader(plain(), DEFAULT_LOG_CONFIG, NOW);
    d.appendAsLeader(txn(1n, 0, 0), DEFAULT_LOG_CONFIG, NOW, UNVERIFIED);
    d.appendControlMarker(abort(1n), NOW);
    expect(d.read(0, d.storedBatches()[0].length, false, true).abortedTransactions?.map((t) => t.producerId)).toEqual([1n]);
  });
});

describe('producer expiry', () => {
  it('never expires a producer with an open transaction; expires it once the transaction ended', () => {
    const l = newLog();
    const old = NOW - PRODUCER_ID_EXPIRATION_MS - 1;
    l.appendAsLeader(txn(1n, 0, 0, 1, old), DEFAULT_LOG_CONFIG, old, UNVERIFIED);
    l.appendAsLeader(idem(2n, 0, 0), DEFAULT_LOG_CONFIG, NOW, UNVERIFIED);
    // an idempotent producer idle as long
    const idle = encodeBatch({ records: [{ value: 'x', timestamp: old }], producerId: 3n, producerEpoch: 0, baseSequence: 0 });
    l.appendAsLeader(idle, DEFAULT_LOG_CONFIG, old, UNVERIFIED);
    const later = NOW + 20 * 60_000; // past a scheduled check (every 10 minutes from the broker start)
    expect([...l.producers.activeProducers(later).keys()].sort()).toEqual([1n, 2n]);
    expect(l.lastStableOffset).toBe(0);
    l.appendControlMarker(commit(1n), old);
    const muchLater = later + PRODUCER_ID_EXPIRATION_MS;
    expect([...l.producers.activeProducers(muchLater).keys()]).toEqual([]);
  });

  it('expires a verification state producer.id.expiration.ms after it was made', () => {
    const l = newLog();
    l.producers.maybeStartTransactionVerification(1n, 0, 0, NOW);
    expect(l.producers.verificationState(1n)).toBeDefined();
    l.producers.activeProducers(NOW + PRODUCER_ID_EXPIRATION_MS + 20 * 60_000);
    expect(l.producers.verificationState(1n)).toBeUndefined();
  });
});

describe('ListOffsets lookups see markers', () => {
  it('a marker is a record for the timestamp search and the max timestamp', () => {
    const l = newLog();
    l.appendAsLeader(plain(1, NOW - 5), DEFAULT_LOG_CONFIG, NOW, UNVERIFIED);
    l.appendControlMarker(commit(1n), NOW + 100);
    expect(l.offsetForTimestamp(NOW)).toMatchObject({ offset: 1, timestamp: NOW + 100 });
    expect(l.maxTimestampOffset()).toMatchObject({ offset: 1, timestamp: NOW + 100 });
  });
});
