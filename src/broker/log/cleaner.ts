// One pass of Kafka 3.9's log cleaner (compaction) over a partition's stored v2 batches, as a pure
// function: batches in, batches out. Not wired into the broker yet (issue #13).
//
// What it follows (core/.../log/LogCleaner.scala, clients/.../record/MemoryRecords.java):
// - Cleaner.doClean / buildOffsetMap: the offset map holds the latest offset of every key in the
//   dirty range [firstDirtyOffset, cleanableEndOffset), leaving out the batches of aborted
//   transactions (a CleanedTransactionMetadata of its own) and control batches; its latestOffset
//   is cleanableEndOffset - 1 (buildOffsetMapForSegment fast-forwards to the next segment's base).
//   Kafka's map is a fixed-size hash (SkimpyOffsetMap, MD5 of the key) that may fill and clean
//   only part of the dirty range; here it is a Map of the keys' bytes and always holds them all.
// - doClean then cleans the log from its start up to endOffset = latestOffset + 1, i.e. every
//   batch below cleanableEndOffset, already-cleaned ones included (tombstones and markers there
//   may have reached their delete horizon). Batches at or after it are returned untouched, as
//   Kafka leaves the segments there alone.
// - Cleaner.cleanInto's RecordFilter: checkBatchRetention (shouldDiscardBatch, the
//   RETAIN_EMPTY/DELETE/DELETE_EMPTY choice, containsMarkerForEmptyTxn) and shouldRetainRecord.
// - MemoryRecords.filterTo: a batch all of whose records stay is written as it was (here: the same
//   Buffer) unless it must gain a delete horizon; else it is rebuilt (buildRetainedRecordsInto)
//   with the same base offset, last offset (overrideLastOffset), producer id/epoch, base sequence,
//   leader epoch, timestamp type and codec, and a fresh CRC-32C; an empty RETAIN_EMPTY batch
//   becomes a bare header (DefaultRecordBatch.writeEmptyHeader).
// - KIP-534: the first pass that keeps a tombstone, or a marker whose transaction has no data
//   left, stamps the batch's delete horizon (now + delete.retention.ms) in its base timestamp with
//   the DELETE_HORIZON attribute bit; a later pass drops the tombstone / marker once now >= it.
// - CleanedTransactionMetadata: the transactions' state carried along the pass, and the cleaned
//   transaction index (aborted transactions whose marker stays because their data does).
//
// Left to the caller (LogCleanerManager): which range is cleanable (min.cleanable.dirty.ratio,
// min/max.compaction.lag.ms, the active segment, the last stable offset: cleanableOffsets),
// segments and their grouping (groupSegmentsBySize), the clean-offset checkpoint, and
// compact+delete retention. Only v2 batches: legacy messages (magic 0/1, legacyDeleteHorizonMs from
// segment mtimes) are refused.
import { DecodeError } from '../../codec/primitives/index.js';
import { decodeBatch, encodeBatch, type RecordBatch } from '../../codec/records/batch.js';
import {
  CRC_OFFSET,
  MAGIC_OFFSET,
  NO_TIMESTAMP,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  CONTROL_FLAG_MASK,
} from '../../codec/records/constants.js';
import { ControlRecordType } from '../../codec/records/control.js';
import { computeBatchCrc, lastOffsetOf, readBatchHeader, writeTimestamp, type BatchHeader } from '../../codec/records/header.js';
import type { KafkaRecord } from '../../codec/records/record.js';
import type { AbortedTxn } from './txn-index.js';

/**
 * UnifiedLog.lastRecordsOfActiveProducers' LastRecord: a producer's last data offset
 * (ProducerStateEntry.lastDataOffset, null when it has no batch metadata, e.g. after an epoch
 * bump by a marker) and its epoch.
 */
export interface LastRecord {
  lastDataOffset: number | null;
  producerEpoch: number;
}

export interface CleanInput {
  /** The partition's stored v2 batches, in offset order. */
  batches: readonly Buffer[];
  /** The first dirty offset (the cleaner checkpoint; the log start offset when none). Default 0. */
  firstDirtyOffset?: number;
  /** The first uncleanable offset (cleanableOffsets' firstUncleanableDirtyOffset): a batch boundary. */
  cleanableEndOffset: number;
  now: number;
  /** delete.retention.ms */
  deleteRetentionMs: number;
  /** The partition's aborted transactions (TransactionIndex entries), in marker order. */
  abortedTransactions: readonly AbortedTxn[];
  /** Active producers by id (ProducerStateManager.activeProducers). Default none. */
  lastRecordsOfActiveProducers?: ReadonlyMap<bigint, LastRecord>;
}

/** CleanerStats' counts for the pass (bytes as stored, before and after). */
export interface CleanStats {
  messagesRead: number;
  bytesRead: number;
  messagesRetained: number;
  bytesRetained: number;
  /** Records without a key (CleanerStats.invalidMessage). */
  invalidMessages: number;
  /** Batches written as new buffers (filtered, or given a delete horizon, or emptied). */
  batchesRewritten: number;
  batchesDeleted: number;
}

export interface CleanResult {
  batches: Buffer[];
  /** The first offset not cleaned: the next first dirty offset (doClean's endOffset). */
  endOffset: number;
  /** The transaction index after the pass: the cleaned range's retained entries, then the others. */
  abortedTransactions: AbortedTxn[];
  stats: CleanStats;
}

/** One batch's header plus its records, decoded once. */
interface Batch {
  buf: Buffer;
  h: BatchHeader;
  last: number;
  decoded: RecordBatch | null;
}

/**
 * CleanedTransactionMetadata: ongoing committed transactions (producers with a transactional
 * batch seen since their last marker), ongoing aborted ones (from the transaction index, entered
 * once the pass reaches their first offset), and the cleaned index.
 */
class TxnState {
  private readonly committed = new Set<bigint>();
  private readonly aborted = new Map<bigint, { txn: AbortedTxn; lastObservedBatchOffset: number | null }>();
  /** Min-heap by first offset in Kafka; a sorted array consumed from the front here. */
  private readonly pending: AbortedTxn[];
  private next = 0;
  readonly cleanedIndex: AbortedTxn[] = [];

  constructor(aborted: readonly AbortedTxn[]) {
    this.pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** consumeAbortedTxnsUpTo: getOrElseUpdate, so an older entry of the producer wins. */
  private consumeUpTo(offset: number): void {
    while (this.next < this.pending.length && this.pending[this.next].firstOffset <= offset) {
      const t = this.pending[this.next++];
      if (!this.aborted.has(t.producerId)) this.aborted.set(t.producerId, { txn: t, lastObservedBatchOffset: null });
    }
  }

  /** onBatchRead: true when the batch belongs to an aborted transaction. */
  onBatchRead(b: Batch): boolean {
    this.consumeUpTo(b.last);
    if (!b.h.isTransactional) return false;
    const a = this.aborted.get(b.h.producerId);
    if (a !== undefined) {
      a.lastObservedBatchOffset = b.last;
      return true;
    }
    this.committed.add(b.h.producerId);
    return false;
  }

  /** onControlBatchRead: true when the marker may go (its transaction has no batch left). */
  onControlBatchRead(b: Batch, records: readonly KafkaRecord[]): boolean {
    this.consumeUpTo(b.last);
    // An empty control batch was already cleaned, so it's safe to discard.
    if (records.length === 0) return true;
    const type = records[0].control?.type;
    const pid = b.h.producerId;
    if (type === ControlRecordType.ABORT) {
      const a = this.aborted.get(pid);
      this.aborted.delete(pid);
      // Retain the marker until all batches from the transaction have been removed.
      if (a !== undefined && a.lastObservedBatchOffset !== null) {
        this.cleanedIndex.push(a.txn);
        return false;
      }
      return true;
    }
    if (type === ControlRecordType.COMMIT) return !this.committed.delete(pid);
    return false;
  }
}

function toBatch(buf: Buffer): Batch {
  if (buf.length <= MAGIC_OFFSET || buf.readInt8(MAGIC_OFFSET) !== 2) {
    throw new DecodeError('the cleaner handles v2 record batches only');
  }
  const h = readBatchHeader(buf);
  return { buf, h, last: Number(lastOffsetOf(h)), decoded: null };
}

function recordsOf(b: Batch): KafkaRecord[] {
  b.decoded ??= decodeBatch(b.buf);
  return b.decoded.records;
}

/** The map's key: the key bytes (SkimpyOffsetMap hashes them; exact here). */
function keyOf(key: Buffer): string {
  return key.toString('latin1');
}

/** Cleaner.buildOffsetMap over [start, end): latest offset per key, aborted data left out. */
function buildOffsetMap(batches: readonly Batch[], start: number, end: number, aborted: readonly AbortedTxn[]): Map<string, number> {
  const map = new Map<string, number>();
  // LogCleaner collects the aborted transactions of the range: collectAbortedTransactions(start, end).
  const txns = new TxnState(aborted.filter((t) => t.lastOffset >= start && t.firstOffset < end));
  for (const b of batches) {
    if (Number(b.h.baseOffset) >= end) break;
    if (b.last < start) continue;
    if (b.h.isControl) {
      txns.onControlBatchRead(b, recordsOf(b));
      continue;
    }
    if (txns.onBatchRead(b)) continue;
    for (const r of recordsOf(b)) {
      const offset = Number(b.h.baseOffset) + r.offsetDelta;
      // Only records below the bound. Kafka reads the whole last segment (a last-stable-offset
      // bound can fall inside one) and puts its keys past the bound too, then sets latestOffset
      // back to bound - 1; a batch-boundary bound here meets no such record.
      if (r.key !== null && offset >= start && offset < end) map.set(keyOf(r.key), offset);
    }
  }
  return map;
}

/** DefaultRecordBatch.deleteHorizonMs: the base timestamp when the DELETE_HORIZON bit is set. */
function deleteHorizonOf(h: BatchHeader): number | null {
  return h.hasDeleteHorizon ? h.baseTimestamp : null;
}

/** DefaultRecordBatch.writeEmptyHeader: no records, uncompressed, base timestamp -1, no horizon. */
function emptyBatch(h: BatchHeader): Buffer {
  const out = Buffer.alloc(RECORD_BATCH_OVERHEAD);
  out.writeBigInt64BE(h.baseOffset, 0);
  out.writeInt32BE(RECORD_BATCH_OVERHEAD - 12, 8);
  out.writeInt32BE(h.partitionLeaderEpoch, 12);
  out.writeInt8(2, MAGIC_OFFSET);
  let attributes = 0;
  if (h.timestampType === 1) attributes |= TIMESTAMP_TYPE_MASK;
  if (h.isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
  if (h.isControl) attributes |= CONTROL_FLAG_MASK;
  out.writeInt16BE(attributes, 21);
  out.writeInt32BE(h.lastOffsetDelta, 23);
  writeTimestamp(out, 27, NO_TIMESTAMP);
  writeTimestamp(out, 35, h.maxTimestamp);
  out.writeBigInt64BE(h.producerId, 43);
  out.writeInt16BE(h.producerEpoch, 51);
  out.writeInt32BE(h.baseSequence, 53);
  out.writeInt32BE(0, 57);
  out.writeUInt32BE(computeBatchCrc(out), CRC_OFFSET);
  return out;
}

/**
 * MemoryRecords.buildRetainedRecordsInto: the retained records in a new batch with the original's
 * header fields; MemoryRecordsBuilder takes the delete horizon as base timestamp (else the first
 * record's timestamp) and, for CreateTime, the records' largest timestamp as max timestamp.
 */
function rebuild(b: Batch, kept: readonly KafkaRecord[], deleteHorizonMs: number): Buffer {
  const h = b.h;
  const logAppendTime = h.timestampType === 1;
  const hasHorizon = deleteHorizonMs >= 0;
  let maxTimestamp = NO_TIMESTAMP;
  for (const r of kept) if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
  return encodeBatch({
    baseOffset: h.baseOffset,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    compression: b.decoded!.compression,
    timestampType: h.timestampType,
    isTransactional: h.isTransactional,
    isControl: h.isControl,
    hasDeleteHorizon: hasHorizon,
    baseTimestamp: hasHorizon ? deleteHorizonMs : kept[0].timestamp,
    maxTimestamp: logAppendTime ? h.maxTimestamp : maxTimestamp,
    lastOffsetDelta: h.lastOffsetDelta,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    records: kept.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp, offsetDelta: r.offsetDelta })),
  });
}

const enum Retention {
  DELETE,
  DELETE_EMPTY,
  RETAIN_EMPTY,
}

/** One cleaning pass (Cleaner.doClean) over the whole log below `cleanableEndOffset`. */
export function cleanLog(input: CleanInput): CleanResult {
  const start = input.firstDirtyOffset ?? 0;
  const end = input.cleanableEndOffset;
  const stats: CleanStats = {
    messagesRead: 0,
    bytesRead: 0,
    messagesRetained: 0,
    bytesRetained: 0,
    invalidMessages: 0,
    batchesRewritten: 0,
    batchesDeleted: 0,
  };
  const batches = input.batches.map(toBatch);
  // doClean runs only when there is something dirty to clean (LogToClean.totalBytes > 0).
  if (start >= end || !batches.some((b) => Number(b.h.baseOffset) < end && b.last >= start)) {
    return { batches: [...input.batches], endOffset: start, abortedTransactions: [...input.abortedTransactions], stats };
  }
  const map = buildOffsetMap(batches, start, end, input.abortedTransactions);
  const latestOffset = end - 1;
  const now = input.now;
  const active = input.lastRecordsOfActiveProducers ?? new Map<bigint, LastRecord>();
  // cleanSegments: collectAbortedTransactions over the cleaned segments' range.
  const cleanedEnd = batches.reduce((e, b) => (Number(b.h.baseOffset) < end ? Math.max(e, b.last + 1) : e), end);
  const txns = new TxnState(input.abortedTransactions.filter((t) => t.firstOffset < cleanedEnd));
  const out: Buffer[] = [];

  for (const b of batches) {
    if (Number(b.h.baseOffset) >= end) {
      out.push(b.buf);
      continue;
    }
    const h = b.h;
    const records = recordsOf(b);
    stats.bytesRead += b.buf.length;
    // checkBatchRetention: shouldDiscardBatch, then the batch's fate.
    const canDiscardBatch = h.isControl ? txns.onControlBatchRead(b, records) : txns.onBatchRead(b);
    const horizon = deleteHorizonOf(h);
    const discardBatchRecords = h.isControl ? canDiscardBatch && horizon !== null && horizon <= now : canDiscardBatch;
    // isBatchLastRecordOfProducer: keep the batch holding an active producer's last sequence, or
    // (no data offset) its last marker, which holds its epoch for fencing.
    const lastRecord = active.get(h.producerId);
    const isLastOfProducer =
      lastRecord !== undefined &&
      (lastRecord.lastDataOffset !== null ? b.last === lastRecord.lastDataOffset : h.isControl && h.producerEpoch === lastRecord.producerEpoch);
    const retention =
      h.producerId !== -1n && isLastOfProducer ? Retention.RETAIN_EMPTY : discardBatchRecords ? Retention.DELETE : Retention.DELETE_EMPTY;
    const containsMarkerForEmptyTxn = canDiscardBatch && h.isControl;

    if (retention === Retention.DELETE) {
      stats.batchesDeleted++;
      continue;
    }
    // filterBatch with shouldRetainRecord.
    const kept: KafkaRecord[] = [];
    let containsTombstones = false;
    for (const r of records) {
      stats.messagesRead++;
      if (!retainRecord(b, r, discardBatchRecords, map, latestOffset, horizon, now, stats)) continue;
      kept.push(r);
      if (r.value === null) containsTombstones = true;
    }
    if (kept.length > 0) {
      stats.messagesRetained += kept.length;
      const needToSetDeleteHorizon = (containsTombstones || containsMarkerForEmptyTxn) && horizon === null;
      if (kept.length === records.length && !needToSetDeleteHorizon) {
        out.push(b.buf);
        stats.bytesRetained += b.buf.length;
      } else {
        const rebuilt = rebuild(b, kept, needToSetDeleteHorizon ? now + input.deleteRetentionMs : (horizon ?? NO_TIMESTAMP));
        out.push(rebuilt);
        stats.bytesRetained += rebuilt.length;
        stats.batchesRewritten++;
      }
    } else if (retention === Retention.RETAIN_EMPTY) {
      const empty = records.length === 0 ? b.buf : emptyBatch(h);
      if (empty !== b.buf) stats.batchesRewritten++;
      out.push(empty);
      stats.bytesRetained += empty.length;
    } else {
      stats.batchesDeleted++;
    }
  }
  // The cleaned range's index is rebuilt; entries whose marker lies past it stay as they were.
  const untouched = input.abortedTransactions.filter((t) => t.lastOffset >= cleanedEnd);
  return { batches: out, endOffset: latestOffset + 1, abortedTransactions: [...txns.cleanedIndex, ...untouched], stats };
}

/** The cleaner's shouldRetainRecord (behind the RecordFilter's discardBatchRecords and control checks). */
function retainRecord(
  b: Batch,
  r: KafkaRecord,
  discardBatchRecords: boolean,
  map: ReadonlyMap<string, number>,
  latestOffset: number,
  horizon: number | null,
  now: number,
  stats: CleanStats,
): boolean {
  // The batch is only retained to preserve producer sequence information.
  if (discardBatchRecords) return false;
  if (b.h.isControl) return true;
  const offset = Number(b.h.baseOffset) + r.offsetDelta;
  if (offset > latestOffset) return true;
  if (r.key === null) {
    stats.invalidMessages++;
    return false;
  }
  // map.get gives -1 for a key the dirty range does not hold.
  const latestOffsetForKey = offset >= (map.get(keyOf(r.key)) ?? -1);
  const shouldRetainDeletes = horizon === null || now < horizon;
  return latestOffsetForKey && (r.value !== null || shouldRetainDeletes);
}
