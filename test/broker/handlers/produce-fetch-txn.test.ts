// Produce, Fetch, ListOffsets and DescribeProducers with transactions, through the handlers of an
// in-process broker whose transaction coordinator is driven directly (InitProducerId,
// AddPartitions, EndTxn): KIP-890 verification and its errors per Produce version, the last stable
// offset and aborted transactions in Fetch (and a read_committed long poll woken by a marker),
// ListOffsets per isolation level, DescribeProducers, and the strict-clients finding.
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDescribeProducersRequest,
  createFetchRequest,
  createListOffsetsRequest,
  createProduceRequest,
  ErrorCode,
  FetchRequest,
  type DescribeProducersResponse,
  type FetchResponse,
  type ListOffsetsResponse,
  type ProduceResponse,
} from '../../../src/codec/index.js';
import { decodeRecords, encodeBatch, type RecordBatch } from '../../../src/codec/records/index.js';
import { Broker } from '../../../src/broker/broker.js';
import { resolveConfig, type BrokerConfig } from '../../../src/broker/config.js';
import { describeProducersHandler } from '../../../src/broker/handlers/describe-producers.js';
import { fetchHandler } from '../../../src/broker/handlers/fetch.js';
import { listOffsetsHandler } from '../../../src/broker/handlers/list-offsets.js';
import { produceHandler } from '../../../src/broker/handlers/produce.js';
import { verificationFailure } from '../../../src/broker/handlers/produce-txn.js';
import type { ApiHandler, RequestContext } from '../../../src/broker/handlers/types.js';

let broker: Broker;
afterEach(() => broker?.shutdown());

function start(config: Partial<BrokerConfig> = {}): Broker {
  broker = new Broker(resolveConfig({ logLevel: 'silent', clock: 'manual', ...config }));
  broker.topics.create('t', 2, 1);
  return broker;
}

let correlationId = 1;
function ctx(apiKey: number, apiVersion: number): RequestContext {
  return {
    services: broker.services,
    connection: { id: 1, clientHost: '127.0.0.1', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS'},
    listener: broker.services.listeners[0], closeConnection: () => undefined,
    header: { apiKey, apiVersion, correlationId: correlationId++, clientId: 'test' },
    apiVersion,
    receivedAt: 0,
    receivedAtClock: broker.services.clock.now(),
  };
}

async function call<R>(h: Pick<ApiHandler, 'apiKey'>, apiKey: number, v: number, req: unknown): Promise<R> {
  return (await (h as ApiHandler).handle(ctx(apiKey, v), req as never)) as R;
}

// ---- the coordinator, driven directly --------------------------------------------------------

function init(id: string): Promise<{ producerId: bigint; producerEpoch: number }> {
  return new Promise((resolve, reject) =>
    broker.transactions.initProducerId(id, 60_000, undefined, (r) => (r.errorCode === 0 ? resolve(r) : reject(new Error(`InitProducerId ${r.errorCode}`)))),
  );
}

function addPartitions(id: string, p: { producerId: bigint; producerEpoch: number }, partitions: number[]): Promise<number> {
  return new Promise((resolve) =>
    broker.transactions.addPartitionsToTransaction(id, p.producerId, p.producerEpoch, partitions.map((partition) => ({ topic: 't', partition })), resolve),
  );
}

function endTxn(id: string, p: { producerId: bigint; producerEpoch: number }, result: 'COMMIT' | 'ABORT'): Promise<number> {
  return new Promise((resolve) => broker.transactions.endTransaction(id, p.producerId, p.producerEpoch, result, resolve));
}

// ---- requests --------------------------------------------------------------------------------

function txnBatch(p: { producerId: bigint; producerEpoch: number }, seq: number, values: string[]): Buffer {
  return encodeBatch({
    records: values.map((value) => ({ value, timestamp: broker.services.clock.now() })),
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    baseSequence: seq,
    isTransactional: true,
  });
}

async function produce(transactionalId: string | null, parts: Array<[number, Buffer]>, v = 10): Promise<ProduceResponse.PartitionProduceResponse[]> {
  const res = await call<ProduceResponse>(
    produceHandler,
    0,
    v,
    createProduceRequest({ transactionalId, acks: -1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: parts.map(([index, records]) => ({ index, records })) }] }),
  );
  return res.responses[0].partitionResponses;
}

async function fetch(offset: bigint, isolationLevel: number, init: { maxWaitMs?: number; minBytes?: number; partition?: number } = {}) {
  const res = await call<FetchResponse>(
    fetchHandler,
    1,
    12,
    createFetchRequest({
      maxWaitMs: init.maxWaitMs ?? 0,
      minBytes: init.minBytes ?? 0,
      isolationLevel,
      topics: [FetchRequest.createTopic({ topic: 't', partitions: [FetchRequest.createPartition({ partition: init.partition ?? 0, fetchOffset: offset, partitionMaxBytes: 1 << 20 })] })],
    }),
  );
  return res.responses[0].partitions[0];
}

function offsetsOf(records: FetchResponse.PartitionData['records']): number[] {
  const buf = Buffer.isBuffer(records) ? records : Buffer.concat((records ?? []) as Buffer[]);
  if (buf.length === 0) return [];
  return (decodeRecords(buf).entries as RecordBatch[]).flatMap((b) => b.records.map((r) => Number(b.baseOffset) + r.offsetDelta));
}

const log = (partition = 0) => broker.topics.get('t')!.partitions[partition];

describe('Produce: KIP-890 verification', () => {
  it('a partition not added: INVALID_TXN_STATE "Partition was not added to the transaction" below v11, TRANSACTION_ABORTABLE at v11; nothing appended', async () => {
    start();
    const p = await init('tx');
    const v10 = await produce('tx', [[0, txnBatch(p, 0, ['a'])]], 10);
    expect(v10[0]).toMatchObject({ errorCode: ErrorCode.INVALID_TXN_STATE, errorMessage: 'Partition was not added to the transaction', baseOffset: -1n, logStartOffset: -1n, logAppendTimeMs: -1n });
    const v11 = await produce('tx', [[0, txnBatch(p, 0, ['a'])]], 11);
    expect(v11[0]).toMatchObject({ errorCode: ErrorCode.TRANSACTION_ABORTABLE, errorMessage: null, baseOffset: -1n });
    expect(log().logEndOffset).toBe(0);
    // the partition remembers the verification it started (lowest sequence 0)
    expect(log().producers.verificationState(p.producerId)).toMatchObject({ lowestSequence: 0, epoch: p.producerEpoch });
  });

  it('once added: appended, the log\'s transaction is ongoing (no second verification), the LSO holds until the commit marker', async () => {
    start();
    const p = await init('tx');
    expect(await addPartitions('tx', p, [0])).toBe(0);
    const first = await produce('tx', [[0, txnBatch(p, 0, ['a', 'b'])]]);
    expect(first[0]).toMatchObject({ errorCode: 0, baseOffset: 0n, logStartOffset: 0n });
    expect(log().producers.verificationState(p.producerId)).toBeUndefined();
    expect((await produce('tx', [[0, txnBatch(p, 2, ['c'])]]))[0]).toMatchObject({ errorCode: 0, baseOffset: 2n });
    expect(log().lastStableOffset).toBe(0);
    expect(await endTxn('tx', p, 'COMMIT')).toBe(0);
    expect(log().logEndOffset).toBe(4); // the marker at 3
    expect(log().lastStableOffset).toBe(4);
    expect(log().storedBatches()[2].readInt16BE(21) & 0x30).toBe(0x30); // transactional + control
  });

  it('errors of the coordinator as each Produce version gets them', async () => {
    start();
    const old = await init('tx');
    const p = await init('tx'); // the epoch bump fences `old`
    expect(p.producerEpoch).toBe(old.producerEpoch + 1);
    // PRODUCER_FENCED -> INVALID_PRODUCER_EPOCH (AddPartitionsToTxnManager), no message
    expect((await produce('tx', [[0, txnBatch(old, 0, ['z'])]]))[0]).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, errorMessage: null });
    // another producer id than the transactional id's
    expect((await produce('tx', [[0, txnBatch({ producerId: 99n, producerEpoch: 0 }, 0, ['z'])]]))[0]).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING });
    // an empty transactional id is authorized (no authorizer) but the coordinator refuses it
    expect((await produce('', [[0, txnBatch(p, 0, ['z'])]]))[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(log().logEndOffset).toBe(0);
    // the mapping of the coordinator's retriable errors (handleProduceAppend)
    expect(verificationFailure(ErrorCode.CONCURRENT_TRANSACTIONS, 11)).toEqual({
      errorCode: ErrorCode.NOT_ENOUGH_REPLICAS,
      errorMessage: 'Unable to verify the partition has been added to the transaction. Underlying error: CONCURRENT_TRANSACTIONS',
    });
    expect(verificationFailure(ErrorCode.COORDINATOR_NOT_AVAILABLE, 3).errorCode).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    expect(verificationFailure(ErrorCode.TRANSACTION_ABORTABLE, 10)).toEqual({ errorCode: ErrorCode.INVALID_TXN_STATE, errorMessage: 'Partition was not added to the transaction' });
    expect(verificationFailure(ErrorCode.TRANSACTION_ABORTABLE, 11)).toEqual({ errorCode: ErrorCode.TRANSACTION_ABORTABLE, errorMessage: null });
  });

  it('two transactional producers in one request: INVALID_PRODUCER_ID_MAPPING for every partition, with the message', async () => {
    start();
    const a = await init('a');
    const b = await init('b');
    const res = await produce('a', [[0, txnBatch(a, 0, ['x'])], [1, txnBatch(b, 0, ['y'])]]);
    expect(res.map((r) => [r.index, r.errorCode, r.errorMessage])).toEqual([
      [0, ErrorCode.INVALID_PRODUCER_ID_MAPPING, 'Transactional records contained more than one producer ID'],
      [1, ErrorCode.INVALID_PRODUCER_ID_MAPPING, 'Transactional records contained more than one producer ID'],
    ]);
  });

  it('verification disabled: the batch is appended without asking; strict mode records the partition not added', async () => {
    start({ transactionPartitionVerificationEnable: false, strictClients: true });
    const p = await init('tx');
    expect((await produce('tx', [[0, txnBatch(p, 0, ['a'])]]))[0]).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(log().lastStableOffset).toBe(0);
    const found = broker.services.clientFindings.summary().kinds;
    expect(found.map((k) => [k.kind, k.count])).toEqual([['txn-partition-not-added', 1]]);
    expect(found[0].first.detail).toBe(
      `t-0: transactional id "tx" (producer ${p.producerId}, epoch ${p.producerEpoch}) has not added it to its transaction; appended without verification (transaction.partition.verification.enable=false)`,
    );
  });

  it('strict mode records the refused partition, and nothing for a partition in the transaction', async () => {
    start({ strictClients: true });
    const p = await init('tx');
    await addPartitions('tx', p, [1]);
    const res = await produce('tx', [[0, txnBatch(p, 0, ['a'])], [1, txnBatch(p, 0, ['b'])]], 11);
    expect(res.map((r) => r.errorCode)).toEqual([ErrorCode.TRANSACTION_ABORTABLE, 0]);
    const found = broker.services.clientFindings.summary().kinds;
    expect(found.map((k) => [k.kind, k.count])).toEqual([['txn-partition-not-added', 1]]);
    expect(found[0].first.detail).toMatch(/^t-0: transactional id "tx" .* answered TRANSACTION_ABORTABLE$/);
  });
});

describe('Fetch with transactions', () => {
  async function abortedThenOpen() {
    start();
    const p = await init('tx');
    await addPartitions('tx', p, [0]);
    await produce('tx', [[0, txnBatch(p, 0, ['a1', 'a2'])]]); // 0-1
    expect(await endTxn('tx', p, 'ABORT')).toBe(0); // marker 2
    await produce(null, [[0, encodeBatch({ records: [{ value: 'plain' }] })]]); // 3
    await addPartitions('tx', p, [0]);
    await produce('tx', [[0, txnBatch(p, 2, ['open'])]]); // 4, open
    return p;
  }

  it('read_committed: up to the LSO with the aborted transactions; read_uncommitted: everything; both answer the real LSO', async () => {
    const p = await abortedThenOpen();
    const committed = await fetch(0n, 1);
    expect(committed).toMatchObject({ errorCode: 0, highWatermark: 5n, lastStableOffset: 4n, logStartOffset: 0n });
    expect(committed.abortedTransactions).toEqual([{ producerId: p.producerId, firstOffset: 0n }]);
    expect(offsetsOf(committed.records)).toEqual([0, 1, 2, 3]);
    const uncommitted = await fetch(0n, 0);
    expect(uncommitted).toMatchObject({ highWatermark: 5n, lastStableOffset: 4n, abortedTransactions: null });
    expect(offsetsOf(uncommitted.records)).toEqual([0, 1, 2, 3, 4]);
    // at the LSO: nothing yet, an empty aborted list
    const atLso = await fetch(4n, 1);
    expect(offsetsOf(atLso.records)).toEqual([]);
    expect(atLso.abortedTransactions).toEqual([]);
  });

  it('a read_committed long poll at the LSO wakes when the marker moves it, not at the data append', async () => {
    const p = await abortedThenOpen();
    let answered: FetchResponse.PartitionData | null = null;
    const waiting = fetch(4n, 1, { maxWaitMs: 60_000, minBytes: 1 }).then((r) => (answered = r));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBeNull();
    // more data of the open transaction: the LSO stays at 4
    await produce('tx', [[0, txnBatch(p, 3, ['open2'])]]);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBeNull();
    expect(await endTxn('tx', p, 'COMMIT')).toBe(0);
    const r = await waiting;
    expect(r.lastStableOffset).toBe(7n);
    expect(offsetsOf(r.records)).toEqual([4, 5, 6]);
    expect(r.abortedTransactions).toEqual([]);
  });
});

describe('ListOffsets with transactions', () => {
  async function lookup(timestamp: bigint, isolationLevel: number, replicaId = -1, v = 7): Promise<ListOffsetsResponse.PartitionResponse> {
    const res = await call<ListOffsetsResponse>(
      listOffsetsHandler,
      2,
      v,
      createListOffsetsRequest({ replicaId, isolationLevel, topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }] }),
    );
    return res.topics[0].partitions[0];
  }

  it('latest is the LSO under read_committed, the high watermark under read_uncommitted, the log end for a replica id; lookups past the LSO are dropped', async () => {
    start();
    const now = broker.services.clock.now();
    await produce(null, [[0, encodeBatch({ records: [{ value: 'x', timestamp: now - 10 }] })]]); // 0
    const p = await init('tx');
    await addPartitions('tx', p, [0]);
    await produce('tx', [[0, encodeBatch({ records: [{ value: 'y', timestamp: now }], producerId: p.producerId, producerEpoch: p.producerEpoch, baseSequence: 0, isTransactional: true })]]); // 1
    expect(await lookup(-1n, 1)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: -1n });
    expect(await lookup(-1n, 0)).toMatchObject({ offset: 2n });
    expect(await lookup(-1n, 1, -2)).toMatchObject({ offset: 2n });
    // timestamp lookup: the record at 1 is not below the read_committed LSO
    expect(await lookup(BigInt(now), 1)).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n });
    expect(await lookup(BigInt(now), 0)).toMatchObject({ offset: 1n, timestamp: BigInt(now) });
    // max timestamp (v7): the same bound
    expect(await lookup(-3n, 1)).toMatchObject({ offset: -1n });
    expect(await lookup(-3n, 0)).toMatchObject({ offset: 1n });
    // earliest is not bounded
    expect(await lookup(-2n, 1)).toMatchObject({ offset: 0n });
  });
});

describe('DescribeProducers', () => {
  it('answers each partition\'s producers as UnifiedLog.activeProducers, and the topic and partition errors', async () => {
    start();
    const p = await init('tx');
    await addPartitions('tx', p, [0]);
    await produce('tx', [[0, txnBatch(p, 0, ['a', 'b'])]]);
    await produce(null, [[1, encodeBatch({ records: [{ value: 'i', timestamp: 1234 }], producerId: 77n, producerEpoch: 3, baseSequence: 5 })]]);
    const res = await call<DescribeProducersResponse>(
      describeProducersHandler,
      61,
      0,
      createDescribeProducersRequest({ topics: [{ name: 't', partitionIndexes: [0, 1, 2] }, { name: 'nope', partitionIndexes: [0] }, { name: 'bad name', partitionIndexes: [3] }] }),
    );
    const [t, nope, bad] = res.topics;
    expect(t.partitions[0]).toMatchObject({ partitionIndex: 0, errorCode: 0, errorMessage: null });
    expect(t.partitions[0].activeProducers).toEqual([
      { producerId: p.producerId, producerEpoch: p.producerEpoch, lastSequence: 1, lastTimestamp: BigInt(broker.services.clock.now()), coordinatorEpoch: -1, currentTxnStartOffset: 0n },
    ]);
    expect(t.partitions[1].activeProducers).toEqual([{ producerId: 77n, producerEpoch: 3, lastSequence: 5, lastTimestamp: 1234n, coordinatorEpoch: -1, currentTxnStartOffset: -1n }]);
    expect(t.partitions[2]).toEqual({ partitionIndex: 2, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] });
    expect(nope.partitions).toEqual([{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.', activeProducers: [] }]);
    expect(bad.partitions[0]).toMatchObject({
      partitionIndex: 3,
      errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
      errorMessage: "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
    });
    // after the commit marker: the coordinator epoch is the marker's, no transaction open
    expect(await endTxn('tx', p, 'COMMIT')).toBe(0);
    const after = await call<DescribeProducersResponse>(describeProducersHandler, 61, 0, createDescribeProducersRequest({ topics: [{ name: 't', partitionIndexes: [0] }] }));
    expect(after.topics[0].partitions[0].activeProducers[0]).toMatchObject({ lastSequence: 1, coordinatorEpoch: 0, currentTxnStartOffset: -1n });
  });
});
