// A __consumer_offsets (and __transaction_state) in partition logs for the coordinators' record
// tests: a TopicStore on a manual BrokerClock, the broker's sinks writing into it, readers of what
// was stored, and the Kafka 3.9.1 segments of fixtures/ decoded.
import pino from 'pino';
import { expect } from 'vitest';
import { readLogBatches } from '../../../src/broker/coordinator-state.js';
import { offsetsTopicSink, type OffsetsTopicServices } from '../../../src/broker/group/offsets-topic.js';
import { randomIds } from '../../../src/broker/ids.js';
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '../../../src/broker/internal-topics.js';
import { FetchWaiters } from '../../../src/broker/log/fetch-waiters.js';
import { KAFKA_LOG_DEFAULTS } from '../../../src/broker/log/log-config.js';
import { TopicStore } from '../../../src/broker/log/topics.js';
import { BrokerClock } from '../../../src/broker/time/broker-clock.js';
import { transactionStateStore } from '../../../src/broker/txn/transaction-log.js';
import { decodeBatch, type RecordBatch } from '../../../src/codec/records/batch.js';
import { iterateBatches } from '../../../src/codec/records/iterate.js';
import { KAFKA_SEGMENTS } from './fixtures/kafka-3.9.1-segments.js';

export interface StoredBatch {
  /** The batch as the log holds it. */
  bytes: Buffer;
  batch: RecordBatch;
}

function split(blob: Buffer): StoredBatch[] {
  return [...iterateBatches(blob)].map((e) => ({ bytes: Buffer.from(e.bytes), batch: decodeBatch(e.bytes) }));
}

/** The batches Kafka 3.9.1 stored in one partition ("__consumer_offsets-47"); [] when it wrote none. */
export function kafkaBatches(partition: string): StoredBatch[] {
  const b64 = KAFKA_SEGMENTS[partition];
  return b64 === undefined ? [] : split(Buffer.from(b64, 'base64'));
}

/** The fixture's partitions of a topic: partition number -> its batches. */
export function kafkaPartitions(topic: string): Map<number, RecordBatch[]> {
  const out = new Map<number, RecordBatch[]>();
  for (const name of Object.keys(KAFKA_SEGMENTS)) {
    if (!name.startsWith(`${topic}-`)) continue;
    out.set(Number(name.slice(topic.length + 1)), kafkaBatches(name).map((b) => b.batch));
  }
  return out;
}

export class OffsetsTopicEnv {
  readonly clock: BrokerClock;
  readonly topics: TopicStore;
  readonly services: OffsetsTopicServices;
  readonly fetchWaiters = new FetchWaiters();

  constructor(startMs: number) {
    this.clock = new BrokerClock({ setting: 'manual', startMs });
    this.topics = new TopicStore({ clock: this.clock, ids: randomIds, startedAt: startMs });
    this.services = {
      config: { transactionPartitionVerificationEnable: true },
      topics: this.topics,
      logDefaults: KAFKA_LOG_DEFAULTS,
      clock: this.clock,
      log: pino({ level: 'silent' }),
      fetchWaiters: this.fetchWaiters,
    };
  }

  /** The group coordinator's sink into this store's __consumer_offsets. */
  readonly groupSink = () => offsetsTopicSink(this.services);

  /** The transaction coordinator's store into this store's __transaction_state. */
  readonly txnStore = () => transactionStateStore(this.services);

  /** What the log of a partition holds, batch by batch. */
  stored(topic: string, partition: number): StoredBatch[] {
    const log = this.topics.get(topic)?.partitions[partition];
    if (log === undefined) return [];
    return log.storedBatches().flatMap((b) => split(b));
  }

  offsets(partition: number): StoredBatch[] {
    return this.stored(OFFSETS_TOPIC, partition);
  }

  transactionLog(partition: number): StoredBatch[] {
    return this.stored(TRANSACTION_STATE_TOPIC, partition);
  }

  /** Every partition of a topic with its batches, read as the loader reads them. */
  partitions(topic: string): Map<number, RecordBatch[]> {
    const out = new Map<number, RecordBatch[]>();
    for (const [i, log] of (this.topics.get(topic)?.partitions ?? []).entries()) {
      if (log.logEndOffset > log.logStartOffset) out.set(i, [...readLogBatches(log)]);
    }
    return out;
  }
}

/** The header fields two stored batches must share, timestamps and CRC left out. */
export function shape(b: RecordBatch): Record<string, unknown> {
  return {
    baseOffset: b.baseOffset,
    lastOffsetDelta: b.lastOffsetDelta,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression: b.compression,
    timestampType: b.timestampType,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    records: b.records.length,
  };
}

/** Two batches hold the same records (keys and values, byte for byte), in any order. */
export function expectSameRecords(ours: RecordBatch, kafka: RecordBatch): void {
  const kv = (b: RecordBatch) => b.records.map((r) => `${r.key?.toString('hex')}=${r.value?.toString('hex') ?? 'null'}`).sort();
  expect(kv(ours)).toEqual(kv(kafka));
}
