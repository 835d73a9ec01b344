// `kafka-transactions.sh` (org.apache.kafka.tools.TransactionsCommand from the Kafka 3.9.1 jars
// that scripts/kafka-reference caches) against a real listening kmock, as an operator runs it:
// list, describe, describe-producers, find-hanging and abort of a transaction that a kafkajs
// producer left open. `abort` sends WriteTxnMarkers straight to the partition (the coordinator is
// not asked): the ABORT marker releases the partition's last stable offset, so a read_committed
// reader gets past the hanging transaction. The same commands against Kafka 3.9.1 give the same
// answers: KMOCK_TXN_TEST_BOOTSTRAP=host:port runs this test against a Kafka started by
// `scripts/kafka-reference start 3.9.1` (it passes there too, as the other transaction tests).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { fetchReference } from '../../conformance/support/reference.js';
import { run } from '../../support/clients/processes.js';
import { createTopic, latestOffsets, logEnds, READ_COMMITTED, startTestBroker, uniqueName, type TestBroker } from '../../support/clients/txn.js';
import { within } from '../../support/clients/wait.js';

const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
if (libs === undefined && required) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);

let broker: TestBroker;
let producer: Producer | undefined;

beforeEach(async () => {
  broker = await startTestBroker({ groupInitialRebalanceDelayMs: 0 });
});

afterEach(async () => {
  await producer?.disconnect().catch(() => undefined);
  producer = undefined;
  await broker.close();
});

/** Runs kafka-transactions.sh with `args`; its stdout (rows of whitespace-separated columns). */
async function tool(...args: string[]): Promise<string> {
  const r = await run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'org.apache.kafka.tools.TransactionsCommand', '--bootstrap-server', broker.bootstrap, ...args], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kafka-transactions.sh ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(-2000)}${r.stdout}`);
  return r.stdout;
}

/** A table's rows as header → value maps (the tool prints a header line, then one line per row). */
function rows(out: string): Record<string, string>[] {
  const lines = out.trim().split('\n').filter((l) => l.trim() !== '');
  const header = lines[0]!.trim().split(/\s+/);
  return lines.slice(1).map((l) => Object.fromEntries(l.trim().split(/\s+/).map((v, i) => [header[i] ?? `col${i}`, v])));
}

describe.skipIf(libs === undefined)('kafka-transactions.sh (Kafka 3.9.1 tools) against kmock', () => {
  it('lists, describes, finds and aborts a transaction a producer left open; the abort releases the last stable offset', async () => {
    const topic = uniqueName('hanging');
    const tid = uniqueName('tx');
    await createTopic(broker.bootstrap, topic, 1);
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
    producer = kafka.producer({ transactionalId: tid, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 600_000 });
    await within('connect', 15_000, producer.connect());
    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ value: 'kept' }] });
    await committed.commit();
    const open = await producer.transaction();
    await open.send({ topic, messages: [{ value: 'hanging-1' }, { value: 'hanging-2' }] });
    // Offsets: 0 kept, 1 COMMIT marker, 2-3 the open transaction.
    expect(await logEnds(broker.bootstrap, topic, 1)).toEqual({ end: [4], stable: [2] });

    const listed = rows(await tool('list')).filter((r) => r.TransactionalId === tid);
    expect(listed).toEqual([expect.objectContaining({ TransactionalId: tid, TransactionState: 'Ongoing' })]);
    const producerId = listed[0]!.ProducerId!;

    const described = rows(await tool('describe', '--transactional-id', tid));
    expect(described).toEqual([expect.objectContaining({ TransactionalId: tid, ProducerId: producerId, ProducerEpoch: '0', TransactionState: 'Ongoing', TransactionTimeoutMs: '600000' })]);
    expect(await tool('describe', '--transactional-id', tid)).toContain(`${topic}-0`);

    const producers = rows(await tool('describe-producers', '--topic', topic, '--partition', '0'));
    expect(producers).toEqual([expect.objectContaining({ ProducerId: producerId, ProducerEpoch: '0', CurrentTransactionStartOffset: '2' })]);

    // find-hanging takes the partition's open transactions older than 0 minutes (DescribeProducers),
    // asks ListTransactions for their producer ids and DescribeTransactions for those: the
    // coordinator still has this one Ongoing over the partition, so it is not hanging.
    const hanging = await tool('find-hanging', '--broker-id', '1', '--max-transaction-timeout', '0');
    expect(hanging.trim().split('\n')[0]).toMatch(/^Topic\s+Partition\s+ProducerId/);
    expect(rows(hanging)).toEqual([]);

    await tool('abort', '--topic', topic, '--partition', '0', '--start-offset', '2');
    // The ABORT marker at offset 4: the partition is stable again, a read_committed reader sees only "kept".
    expect(await logEnds(broker.bootstrap, topic, 1)).toEqual({ end: [5], stable: [5] });
    expect(await latestOffsets(broker.bootstrap, topic, 1, READ_COMMITTED)).toEqual([5]);
    expect(rows(await tool('describe-producers', '--topic', topic, '--partition', '0'))).toEqual([
      expect.objectContaining({ ProducerId: producerId, CurrentTransactionStartOffset: 'None' }),
    ]);
  }, 120_000);
});
