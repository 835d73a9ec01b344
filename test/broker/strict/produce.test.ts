// Strict-clients mode on Produce: record batches whose header disagrees with their records, and
// idempotent sequence gaps. Each wrong request goes to a strict and a plain broker: the finding
// is recorded, and both answer with the same bytes (Kafka's answer: some of these are refused
// with a generic INVALID_RECORD, others accepted silently).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCreateTopicsRequest, createProduceRequest, decodeResponse, ErrorCode, type ProduceResponse } from '../../../src/codec/index.js';
import { CRC_OFFSET, RECORDS_COUNT_OFFSET } from '../../../src/codec/records/constants.js';
import { computeBatchCrc } from '../../../src/codec/records/header.js';
import { encodeBatch, type RecordBatchInput } from '../../../src/codec/records/index.js';
import { RawClient } from '../../support/raw-client.js';
import { answerTo, connectBoth, frameOf, strictAndPlain, type Twins } from './helpers.js';

let twins: Twins;
let strict: RawClient;
let plain: RawClient;
let correlationId = 100;

beforeEach(async () => {
  twins = await strictAndPlain();
  [strict, plain] = await connectBoth(twins);
  for (const c of [strict, plain]) {
    const res = await c.request(19, 4, createCreateTopicsRequest({ topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000 }));
    expect(res.topics[0]!.errorCode).toBe(0);
  }
});
afterEach(async () => {
  strict.close();
  plain.close();
  await twins.close();
});

/** Produces `batch` to t-0 on both brokers (v9, acks 1); the answers must be the same bytes. */
async function produceBoth(batch: Buffer): Promise<ProduceResponse.PartitionProduceResponse> {
  const id = correlationId++;
  const frame = frameOf(0, 9, id, createProduceRequest({ acks: 1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch }] }] }));
  const [a, b] = await Promise.all([answerTo(strict, frame), answerTo(plain, frame)]);
  expect(a).not.toBe('closed');
  expect(a).toEqual(b);
  const res = decodeResponse(a as Buffer, 0, 9).body as ProduceResponse;
  return res.responses[0]!.partitionResponses[0]!;
}

const records = (timestamps: number[], deltas = timestamps.map((_, i) => i)) =>
  timestamps.map((timestamp, i) => ({ value: `v${i}`, timestamp, offsetDelta: deltas[i] }));
const batch = (input: RecordBatchInput) => encodeBatch({ baseTimestamp: input.records[0]?.timestamp, ...input });

/** The batch with its recordCount field changed (CRC recomputed: the client meant it). */
function withRecordCount(b: Buffer, count: number): Buffer {
  b.writeInt32BE(count, RECORDS_COUNT_OFFSET);
  b.writeUInt32BE(computeBatchCrc(b), CRC_OFFSET);
  return b;
}

const kinds = () => twins.strict.control.strictClients().kinds;

describe('batch-header-mismatch', () => {
  it('maxTimestamp below the records\' largest: Kafka overwrites it and accepts the batch', async () => {
    const p = await produceBoth(batch({ records: records([1000, 3000, 2000]), maxTimestamp: 2000 }));
    expect(p.errorCode).toBe(0);
    expect(kinds()).toMatchObject([
      {
        kind: 'batch-header-mismatch',
        count: 1,
        first: { api: 'Produce', apiVersion: 9, correlationId: correlationId - 1, detail: "t-0: maxTimestamp 2000 but the records' largest timestamp is 3000" },
      },
    ]);
  });

  it('the same in a gzip batch (its records are read decompressed)', async () => {
    const p = await produceBoth(batch({ records: records([1000, 3000]), maxTimestamp: 1000, compression: 'gzip' }));
    expect(p.errorCode).toBe(0);
    expect(kinds()[0]?.first.detail).toBe("t-0: maxTimestamp 1000 but the records' largest timestamp is 3000");
  });

  it('lastOffsetDelta short of the records: Kafka refuses it with a generic INVALID_RECORD', async () => {
    const p = await produceBoth(batch({ records: records([1000, 1000, 1000]), lastOffsetDelta: 1 }));
    expect(p.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(kinds()[0]).toMatchObject({
      kind: 'batch-header-mismatch',
      first: { detail: "t-0: lastOffsetDelta 1 does not fit recordCount 3 (it should be 2); lastOffsetDelta 1 but the last record's offset delta is 2" },
    });
  });

  it('recordCount not the records present', async () => {
    const p = await produceBoth(withRecordCount(batch({ records: records([5, 5, 5]) }), 2));
    expect(p.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(kinds()[0]?.first.detail).toBe('t-0: recordCount 2 but the batch holds 3 record(s); lastOffsetDelta 2 does not fit recordCount 2 (it should be 1)');
  });

  it('offset deltas not 0..n-1 in an uncompressed batch: Kafka stores them as sent', async () => {
    const p = await produceBoth(batch({ records: records([7, 7, 7], [0, 2, 4]), lastOffsetDelta: 2 }));
    expect(p.errorCode).toBe(0);
    expect(kinds()[0]?.first.detail).toBe("t-0: lastOffsetDelta 2 but the last record's offset delta is 4; offset deltas are not 0..2: record 1 has offset delta 2");
  });

  it('a batch whose header agrees with its records is no finding', async () => {
    expect((await produceBoth(batch({ records: records([1000, 3000, 2000]) }))).errorCode).toBe(0);
    expect((await produceBoth(batch({ records: records([1, 2]), compression: 'gzip' }))).errorCode).toBe(0);
    expect(kinds()).toEqual([]);
  });
});

describe('idempotent-sequence-gap', () => {
  it('a first sequence that skips ahead: OUT_OF_ORDER_SEQUENCE_NUMBER, with Kafka\'s message as the detail', async () => {
    const idempotent = { producerId: 4000n, producerEpoch: 0 };
    expect((await produceBoth(batch({ records: records([1]), ...idempotent, baseSequence: 0 }))).errorCode).toBe(0);
    expect((await produceBoth(batch({ records: records([2]), ...idempotent, baseSequence: 5 }))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await produceBoth(batch({ records: records([3]), ...idempotent, baseSequence: 1 }))).errorCode).toBe(0);
    expect(kinds()).toMatchObject([
      {
        kind: 'idempotent-sequence-gap',
        count: 1,
        first: {
          api: 'Produce',
          detail: 't-0: Out of order sequence number for producer 4000 at offset 1 in partition t-0: 5 (incoming seq. number), 0 (current end sequence number)',
        },
      },
    ]);
  });
});
