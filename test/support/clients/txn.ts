// What a broker says about transactions, asked with kmock's own codec (the same requests on kmock
// and on a real Kafka), for the real-client transaction tests (test/broker/clients/*-transactions):
// the log end offset and the last stable offset of each partition (ListOffsets v2+ under each
// isolation level), and a transactional id's state as its coordinator describes it
// (DescribeTransactions). Also the broker those tests run against: an in-process kmock with its
// trace captured, or, with KMOCK_TXN_TEST_BOOTSTRAP=host:port, any broker already running (a real
// Kafka started by `scripts/kafka-reference start 3.9.1`, to check that the tests expect what Kafka
// does; assertions on kmock's own trace are then skipped).
import {
  createCreateTopicsRequest,
  createDescribeTransactionsRequest,
  createFindCoordinatorRequest,
  createListOffsetsRequest,
} from '../../../src/codec/index.js';
import { startKmock, type Kmock, type KmockOptions } from '../../../src/broker/server.js';
import { RawClient } from '../raw-client.js';
import { captureTrace, type TraceCapture } from './trace.js';
import { waitFor } from './wait.js';

export const READ_UNCOMMITTED = 0;
export const READ_COMMITTED = 1;

/** Kafka error codes the transaction tests name. */
export const E = {
  NONE: 0,
  INVALID_PRODUCER_EPOCH: 47,
  CONCURRENT_TRANSACTIONS: 51,
  PRODUCER_FENCED: 90,
} as const;

async function withClient<T>(bootstrap: string, f: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(bootstrap);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

/**
 * ListOffsets "latest" (v2: the first version with an isolation level) for partitions 0..n-1:
 * READ_UNCOMMITTED answers the log end offset (high watermark), READ_COMMITTED the last stable
 * offset. Index = partition.
 */
export async function latestOffsets(bootstrap: string, topic: string, partitions: number, isolationLevel: number): Promise<number[]> {
  return withClient(bootstrap, async (c) => {
    const res = await c.request(
      2,
      2,
      createListOffsetsRequest({
        replicaId: -1,
        isolationLevel,
        topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, i) => ({ partitionIndex: i, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) }],
      }),
    );
    const parts = res.topics[0]?.partitions ?? [];
    return Array.from({ length: partitions }, (_, i) => {
      const p = parts.find((x) => x.partitionIndex === i);
      if (p === undefined || p.errorCode !== 0) throw new Error(`ListOffsets ${topic}-${i}: ${p === undefined ? 'no answer' : `error ${p.errorCode}`}`);
      return Number(p.offset);
    });
  });
}

/** CreateTopics (v4), then waits until every partition answers ListOffsets (a real Kafka needs a moment for its leaders). */
export async function createTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  await withClient(bootstrap, async (c) => {
    const res = await c.request(19, 4, createCreateTopicsRequest({ topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 15_000 }));
    const code = res.topics[0]?.errorCode;
    if (code !== 0) throw new Error(`CreateTopics ${topic}: error ${code}`);
  });
  await waitFor(`${topic} served`, async () => (await latestOffsets(bootstrap, topic, partitions, READ_UNCOMMITTED).catch(() => undefined)) !== undefined, 30_000, 100);
}

/** High watermark and last stable offset per partition. */
export async function logEnds(bootstrap: string, topic: string, partitions: number): Promise<{ end: number[]; stable: number[] }> {
  const end = await latestOffsets(bootstrap, topic, partitions, READ_UNCOMMITTED);
  const stable = await latestOffsets(bootstrap, topic, partitions, READ_COMMITTED);
  return { end, stable };
}

/**
 * Waits until no transaction is open on any partition of the topic (last stable offset = log end
 * offset everywhere: the markers of every ended transaction are written) and returns the log end
 * offsets. Kafka writes the markers after EndTxn has been answered, so a client's commit() or
 * abort() can return before they are in the log.
 */
export async function stableEnds(bootstrap: string, topic: string, partitions: number, timeoutMs = 30_000): Promise<number[]> {
  return waitFor(`${topic}: last stable offset = log end offset on every partition`, async () => {
    const { end, stable } = await logEnds(bootstrap, topic, partitions);
    return end.every((e, i) => stable[i] === e) ? end : undefined;
  }, timeoutMs, 100);
}

export interface TxnDescription {
  errorCode: number;
  state: string;
  producerId: bigint;
  producerEpoch: number;
  timeoutMs: number;
  /** "topic-partition", sorted. */
  partitions: string[];
}

/** DescribeTransactions v0 at the id's coordinator (FindCoordinator key type 1). */
export async function describeTransaction(bootstrap: string, transactionalId: string): Promise<TxnDescription> {
  const coordinator = await withClient(bootstrap, async (c) =>
    waitFor(`the transaction coordinator of ${transactionalId}`, async () => {
      const r = await c.request(10, 3, createFindCoordinatorRequest({ key: transactionalId, keyType: 1 }));
      return r.errorCode === 0 ? `${r.host}:${r.port}` : undefined;
    }, 30_000, 200),
  );
  return withClient(coordinator, async (c) => {
    const r = await c.request(65, 0, createDescribeTransactionsRequest({ transactionalIds: [transactionalId] }));
    const s = r.transactionStates[0];
    if (s === undefined) throw new Error(`DescribeTransactions ${transactionalId}: no answer`);
    return {
      errorCode: s.errorCode,
      state: s.transactionState,
      producerId: s.producerId,
      producerEpoch: s.producerEpoch,
      timeoutMs: s.transactionTimeoutMs,
      partitions: s.topics.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`)).sort(),
    };
  });
}

/** The broker a test runs against. */
export interface TestBroker {
  bootstrap: string;
  /** The in-process kmock, or undefined when KMOCK_TXN_TEST_BOOTSTRAP names another broker. */
  kmock?: Kmock;
  /** kmock's decoded traffic (trace: true), when it is kmock. */
  trace?: TraceCapture;
  close(): Promise<void>;
}

/** An external broker for the transaction tests (KMOCK_TXN_TEST_BOOTSTRAP), or undefined. */
export const EXTERNAL_BOOTSTRAP = process.env.KMOCK_TXN_TEST_BOOTSTRAP || undefined;

/**
 * kmock in-process (port 0, trace captured, group.initial.rebalance.delay.ms 0 unless `options`
 * says otherwise), or the external broker.
 */
export async function startTestBroker(options: KmockOptions = {}): Promise<TestBroker> {
  if (EXTERNAL_BOOTSTRAP !== undefined) return { bootstrap: EXTERNAL_BOOTSTRAP, close: async () => undefined };
  const trace = captureTrace();
  const kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, trace: true, logLevel: 'info', logger: trace.logger, ...options });
  return { bootstrap: kmock.bootstrapServers, kmock, trace, close: () => kmock.close() };
}

/** Per-run names, so that tests against a long-running external broker do not meet old topics. */
export function uniqueName(base: string): string {
  return EXTERNAL_BOOTSTRAP === undefined ? base : `${base}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
}

/** The error codes kmock answered to `api` (trace), in order; [] against an external broker. */
export function answeredErrors(broker: TestBroker, api: string, pick: (response: Record<string, unknown>) => number[]): number[] {
  if (broker.trace === undefined) return [];
  return broker.trace.traffic(api).flatMap((l) => (l.response !== null && typeof l.response === 'object' ? pick(l.response) : []));
}

/**
 * The __consumer_offsets partition of a group (GroupMetadataManager.partitionFor: Utils.abs of
 * Java's String.hashCode, modulo offsets.topic.num.partitions, 50 by default): AddOffsetsToTxn adds
 * it to the transaction, so DescribeTransactions lists it with the data partitions.
 */
export function consumerOffsetsPartition(groupId: string, partitions = 50): string {
  let h = 0;
  for (let i = 0; i < groupId.length; i++) h = (Math.imul(31, h) + groupId.charCodeAt(i)) | 0;
  return `__consumer_offsets-${(h === -2147483648 ? 0 : Math.abs(h)) % partitions}`;
}

/**
 * DescribeTransactions once the transaction is no longer completing: Kafka answers EndTxn in
 * PrepareCommit/PrepareAbort and moves to CompleteCommit/CompleteAbort only once every marker is
 * written, so a description right after a client's commit() may still show the Prepare state.
 */
export async function settledTransaction(bootstrap: string, transactionalId: string, timeoutMs = 30_000): Promise<TxnDescription> {
  return waitFor(`${transactionalId}: a transaction state other than Prepare*`, async () => {
    const d = await describeTransaction(bootstrap, transactionalId);
    return d.state.startsWith('Prepare') ? undefined : d;
  }, timeoutMs, 50);
}
