// The transaction coordinator's records in __transaction_state, as Kafka 3.9 writes and reads them
// (core/.../coordinator/transaction/TransactionLog.scala keyToBytes / valueToBytes /
// readTxnRecordKey / readTxnRecordValue, TransactionStateManager.scala appendTransactionToLog /
// removeExpiredTransactionalIds / loadTransactionMetadata / partitionFor), with the schemas of
// transaction-coordinator/src/main/resources/common/message/TransactionLog{Key,Value}.json
// (schemas/, generated codecs in src/codec/generated).
//
// Key: TransactionLogKey v0 (its only version), version-prefixed. Value: TransactionLogValue v0, as
// 3.9 writes it ("version 0 (highest non-flexible version) until transaction.version 1 is enabled";
// transaction.version 1 needs metadata version 4.0-IV0, so a 3.9 cluster stays at 0): producer id
// and epoch, timeout, the state's id, the partitions grouped by topic (null for Empty), last
// update and start times. The last producer id/epoch are not in the record: a loaded transaction
// has none (-1), as on Kafka. An expired id gets a tombstone (null value).
//
// Batches: one record per metadata write (MemoryRecords.withRecords(Compression.NONE, ...): magic
// 2, CreateTime stamped with time.milliseconds(), producer id -1, epoch -1, sequence -1); the
// tombstones of one expiration round in one batch per partition. The broker's store
// (transaction-log.ts) appends them to the partition of TransactionStateManager.partitionFor.
// This module is pure: bytes in, bytes out.
import {
  decodeTransactionLogKey,
  decodeTransactionLogValue,
  encodeTransactionLogKey,
  encodeTransactionLogValue,
} from '../../codec/index.js';
import { encodeBatch, type RecordBatch } from '../../codec/records/batch.js';
import { javaUtilsAbs } from '../group/offsets-log.js';
import { javaStringHashCode } from '../group/protocol-selection.js';
import { TXN_STATE_IDS, type TxnState, type TxnTransit } from './metadata.js';
import { tpFromKey } from './types.js';

/** TransactionLogKey.HIGHEST_SUPPORTED_VERSION. */
export const TRANSACTION_LOG_KEY_VERSION = 0;
/** What valueToBytes writes without transaction.version 1 (every 3.9 cluster). */
export const TRANSACTION_LOG_VALUE_VERSION = 0;
/** transaction.state.log.num.partitions (Kafka 3.9 default). */
export const DEFAULT_TRANSACTION_STATE_PARTITIONS = 50;

/** TransactionStateManager.partitionFor: Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions. */
export function transactionStatePartitionFor(transactionalId: string, partitions = DEFAULT_TRANSACTION_STATE_PARTITIONS): number {
  return javaUtilsAbs(javaStringHashCode(transactionalId)) % partitions;
}

function versionPrefixed(version: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

/** TransactionLog.keyToBytes. */
export function transactionLogKeyBytes(transactionalId: string): Buffer {
  return versionPrefixed(TRANSACTION_LOG_KEY_VERSION, encodeTransactionLogKey({ transactionalId }, TRANSACTION_LOG_KEY_VERSION));
}

/** A transaction log value, as readTxnRecordValue reads it (the metadata a load starts from). */
export interface TransactionLogRecord {
  producerId: bigint;
  producerEpoch: number;
  txnTimeoutMs: number;
  state: TxnState;
  /** Topic and partitions, in the record's order; none for Empty. */
  partitions: { topic: string; partition: number }[];
  txnLastUpdateTimestamp: number;
  txnStartTimestamp: number;
}

/**
 * TransactionLog.valueToBytes: an Empty transaction has no partitions (null; Kafka throws if it
 * had some), the others their partitions grouped by topic (in first-appearance order).
 */
export function transactionLogValueBytes(t: TxnTransit): Buffer {
  if (t.txnState === 'Empty' && t.topicPartitions.size > 0) {
    throw new Error(`Transaction is not expected to have any partitions since its state is ${t.txnState}`);
  }
  let partitions: { topic: string; partitionIds: number[] }[] | null = null;
  if (t.txnState !== 'Empty') {
    const byTopic = new Map<string, number[]>();
    for (const key of t.topicPartitions) {
      const tp = tpFromKey(key);
      const list = byTopic.get(tp.topic) ?? [];
      list.push(tp.partition);
      byTopic.set(tp.topic, list);
    }
    partitions = [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds }));
  }
  return versionPrefixed(
    TRANSACTION_LOG_VALUE_VERSION,
    encodeTransactionLogValue(
      {
        producerId: t.producerId,
        producerEpoch: t.producerEpoch,
        transactionTimeoutMs: t.txnTimeoutMs,
        transactionStatus: TXN_STATE_IDS[t.txnState],
        transactionPartitions: partitions,
        transactionLastUpdateTimestampMs: BigInt(t.txnLastUpdateTimestamp),
        transactionStartTimestampMs: BigInt(t.txnStartTimestamp),
      },
      TRANSACTION_LOG_VALUE_VERSION,
    ),
  );
}

/** readTxnRecordKey: the transactional id, or null for a key of an unknown version (Kafka's UnknownKey). */
export function readTransactionLogKey(key: Buffer): { transactionalId: string } | { unknownVersion: number } {
  const version = key.length >= 2 ? key.readInt16BE(0) : -1;
  if (version !== TRANSACTION_LOG_KEY_VERSION) return { unknownVersion: version };
  return { transactionalId: decodeTransactionLogKey(key.subarray(2), version).transactionalId };
}

const STATE_BY_ID = new Map<number, TxnState>(Object.entries(TXN_STATE_IDS).map(([name, id]) => [id, name as TxnState]));

/** readTxnRecordValue (a tombstone is null); partitions of an Empty transaction are ignored, as there. */
export function readTransactionLogValue(value: Buffer | null): TransactionLogRecord | null {
  if (value === null) return null;
  const version = value.readInt16BE(0);
  if (version < 0 || version > 1) throw new Error(`Unknown version ${version} from the transaction log message value`);
  const v = decodeTransactionLogValue(value.subarray(2), version);
  const state = STATE_BY_ID.get(v.transactionStatus);
  if (state === undefined) throw new Error(`Unknown transaction state id ${v.transactionStatus} from the transaction log message value`);
  const partitions: { topic: string; partition: number }[] = [];
  if (state !== 'Empty') {
    for (const p of v.transactionPartitions ?? []) for (const partition of p.partitionIds) partitions.push({ topic: p.topic, partition });
  }
  return {
    producerId: v.producerId,
    producerEpoch: v.producerEpoch,
    txnTimeoutMs: v.transactionTimeoutMs,
    state,
    partitions,
    txnLastUpdateTimestamp: Number(v.transactionLastUpdateTimestampMs),
    txnStartTimestamp: Number(v.transactionStartTimestampMs),
  };
}

/** One batch of transaction log records (uncompressed, CreateTime, no producer), stamped `timestamp`. */
export function encodeTransactionLogBatch(records: readonly { key: Buffer; value: Buffer | null }[], timestamp: number): Buffer {
  return encodeBatch({ records: records.map((r) => ({ ...r, timestamp })), baseTimestamp: timestamp });
}

/**
 * What loadTransactionMetadata reads from one partition: every record, the last of each id
 * winning, a tombstone removing it. Unknown key versions are skipped (Kafka warns: "It could be a
 * left over from an aborted upgrade"); they are counted in `unknownKeys`. A record that cannot be
 * read ends the reading there, keeping what was read before it, as Kafka's loader catches the
 * error ("Error loading transactions from transaction log") and loads what it had: `error` says why.
 */
export function readTransactionLogPartition(batches: Iterable<RecordBatch>): { transactions: Map<string, TransactionLogRecord>; unknownKeys: number; error?: string } {
  const transactions = new Map<string, TransactionLogRecord>();
  let unknownKeys = 0;
  try {
    for (const batch of batches) {
      if (batch.isControl) continue;
      for (const record of batch.records) {
        if (record.key === null) throw new Error("Transaction state log's key should not be null");
        const key = readTransactionLogKey(record.key);
        if ('unknownVersion' in key) {
          unknownKeys++;
          continue;
        }
        const value = readTransactionLogValue(record.value);
        transactions.delete(key.transactionalId);
        if (value !== null) transactions.set(key.transactionalId, value);
      }
    }
  } catch (e) {
    return { transactions, unknownKeys, error: e instanceof Error ? e.message : String(e) };
  }
  return { transactions, unknownKeys };
}
