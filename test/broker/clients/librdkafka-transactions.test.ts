// librdkafka 2.0.2, unchanged, with transactions, against a real listening kmock: the
// transactional producer of python3-confluent-kafka 1.7.0 (commit, abort, and a zombie fenced by
// a newer producer with the same transactional.id), its read_committed and read_uncommitted
// consumers (where a partition ends for each: the last stable offset while a transaction is open),
// and kcat 1.7.1 producing in a transaction (`-X transactional.id=`), which it commits at the end
// of its input and aborts when it is terminated.
//
// Every expectation is what the broker did, read back through a real consumer, or asked with
// kmock's codec as any client would (ListOffsets under both isolation levels,
// DescribeTransactions). KMOCK_TXN_TEST_BOOTSTRAP=host:port runs the same tests against another
// broker (a Kafka 3.9.1 from `scripts/kafka-reference start 3.9.1`): that is how what they expect
// was checked against Kafka.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandMissing, ProcessSet, pythonModuleMissing, run, type ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { createTopic as createBrokerTopic, describeTransaction, logEnds, settledTransaction, stableEnds, startTestBroker, uniqueName, type TestBroker } from '../../support/clients/txn.js';
import { dumpTraceIfAsked } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

const CONFLUENT_MISSING = pythonModuleMissing('confluent_kafka', 'python3-confluent-kafka');
const KCAT_MISSING = commandMissing('kcat', 'kcat');
const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
if (CI && (CONFLUENT_MISSING || KCAT_MISSING)) throw new Error(`librdkafka clients must run under CI: ${CONFLUENT_MISSING ?? KCAT_MISSING}`);
if (CONFLUENT_MISSING) console.warn(`[librdkafka-transactions] skipping the confluent_kafka tests: ${CONFLUENT_MISSING}`);
if (KCAT_MISSING) console.warn(`[librdkafka-transactions] skipping the kcat tests: ${KCAT_MISSING}`);

const SCRIPT = 'confluent_txn.py';
const WAIT_MS = 30_000;

let broker: TestBroker;
let procs: ProcessSet;
let described = '';
let gates: string[];

beforeEach(async (ctx) => {
  broker = await startTestBroker({ groupInitialRebalanceDelayMs: 0 });
  procs = new ProcessSet();
  gates = [];
  ctx.onTestFailed(() => {
    process.stderr.write(`${described}\n${broker.trace ? `--- kmock trace (last lines) ---\n${broker.trace.tail(60)}\n` : ''}`);
  });
});

afterEach(async (ctx) => {
  // (onTestFailed runs after this: what the processes printed is kept for it.)
  described = procs.describeAll();
  if (broker.trace) dumpTraceIfAsked(broker.trace, ctx.task.name);
  await procs.killAll();
  await broker.close();
  for (const g of gates) rmSync(g, { recursive: true, force: true });
});

async function createTopic(topic: string, partitions: number): Promise<void> {
  await createBrokerTopic(broker.bootstrap, topic, partitions);
}

function gateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kmock-txn-gate-'));
  gates.push(d);
  return d;
}

/** The confluent_kafka transactional producer: `txns` as END:PARTITION:V1,V2 (see confluent_txn.py). */
function txnProducer(name: string, topic: string, id: string, txns: string[], gate?: string): ClientProcess {
  const args = ['produce', '--bootstrap', broker.bootstrap, '--topic', topic, '--transactional-id', id, ...txns.flatMap((t) => ['--txn', t])];
  if (gate !== undefined) args.push('--gate', gate);
  return procs.python(name, SCRIPT, args);
}

interface Read {
  records: string[];
  /** Where each partition ended for this reader (partition → offset). */
  eof: Record<number, number>;
}

/** A confluent_kafka consumer (assign, from the beginning) reading every partition to its end. */
async function confluentRead(topic: string, partitions: number, isolation: 'read_committed' | 'read_uncommitted'): Promise<Read> {
  const p = procs.python(`read-${isolation}`, SCRIPT, ['read', '--bootstrap', broker.bootstrap, '--topic', topic, '--partitions', String(partitions), '--isolation', isolation]);
  const done = await p.waitForEvent('done', (e) => e.event === 'done', WAIT_MS + 10_000);
  expect(done.complete).toBe(true);
  expect(p.ofType('error')).toEqual([]);
  return {
    records: p.ofType('message').map((e) => `${e.partition}@${e.offset}:${e.value}`).sort(),
    eof: Object.fromEntries(p.ofType('eof').map((e) => [Number(e.partition), Number(e.offset)])),
  };
}

/** kcat -C to the end of every partition (-e), under an isolation level: partition@offset:value, sorted. */
async function kcatRead(topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
  const r = await run('kcat', ['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-X', `isolation.level=${isolation}`, '-f', '%p@%o:%s\n'], { timeoutMs: WAIT_MS });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '').sort();
}

const errorsOf = (p: ClientProcess): JsonEvent[] => p.ofType('error');

describe.skipIf(CONFLUENT_MISSING !== undefined)('librdkafka transactional producer (python3-confluent-kafka)', () => {
  it('commit, abort, commit: read_committed ends at the last stable offset while one is open and never sees the aborted records; read_uncommitted sees them', async () => {
    const topic = uniqueName('rdk-txn');
    const id = uniqueName('rdk-txn-id');
    await createTopic(topic, 2);
    const gate = gateDir();
    writeFileSync(join(gate, '0'), '');
    writeFileSync(join(gate, '2'), '');
    const producer = txnProducer('txn-producer', topic, id, ['commit:0:keep-0,keep-1', 'abort:0:drop-0,drop-1', 'commit:1:keep-2'], gate);

    // Transaction 1 (the one to abort) is open, its records acknowledged: the last stable offset of
    // partition 0 is held at its first record, after the first transaction's COMMIT marker.
    await producer.waitForEvent('the second transaction open', (e) => e.event === 'open' && e.txn === 1, WAIT_MS);
    expect(await logEnds(broker.bootstrap, topic, 2)).toEqual({ end: [5, 0], stable: [3, 0] });
    expect(await describeTransaction(broker.bootstrap, id)).toMatchObject({ state: 'Ongoing', partitions: [`${topic}-0`] });
    // Where a reader's partition ends: at the last stable offset under read_committed, at the log end under read_uncommitted.
    expect(await confluentRead(topic, 2, 'read_committed')).toEqual({ records: ['0@0:keep-0', '0@1:keep-1'], eof: { 0: 3, 1: 0 } });
    expect(await confluentRead(topic, 2, 'read_uncommitted')).toEqual({ records: ['0@0:keep-0', '0@1:keep-1', '0@3:drop-0', '0@4:drop-1'], eof: { 0: 5, 1: 0 } });

    writeFileSync(join(gate, '1'), '');
    await producer.waitForEvent('done', (e) => e.event === 'done', WAIT_MS);
    expect(producer.ofType('aborted')).toEqual([{ event: 'aborted', txn: 1 }]);
    expect(producer.ofType('committed').map((e) => e.txn)).toEqual([0, 2]);
    expect(errorsOf(producer)).toEqual([]);
    // ABORT after drop-1 in partition 0; keep-2 and its COMMIT in partition 1.
    const ends = await stableEnds(broker.bootstrap, topic, 2);
    expect(ends).toEqual([6, 2]);
    expect(await settledTransaction(broker.bootstrap, id)).toMatchObject({ state: 'CompleteCommit', partitions: [] });

    expect(await confluentRead(topic, 2, 'read_committed')).toEqual({ records: ['0@0:keep-0', '0@1:keep-1', '1@0:keep-2'], eof: { 0: 6, 1: 2 } });
    expect((await confluentRead(topic, 2, 'read_uncommitted')).records).toEqual(['0@0:keep-0', '0@1:keep-1', '0@3:drop-0', '0@4:drop-1', '1@0:keep-2']);
  });

  it('a zombie: a second producer with the same transactional.id aborts its open transaction, and its commit fails fenced', async () => {
    const topic = uniqueName('rdk-fence');
    const id = uniqueName('rdk-fence-id');
    await createTopic(topic, 1);
    const gate = gateDir();
    const zombie = txnProducer('zombie', topic, id, ['commit:0:zombie-0'], gate);
    await zombie.waitForEvent('its transaction open', (e) => e.event === 'open' && e.txn === 0, WAIT_MS);
    const before = await describeTransaction(broker.bootstrap, id);
    expect(before).toMatchObject({ state: 'Ongoing', partitions: [`${topic}-0`] });

    // The newer instance: its init_transactions() has the coordinator abort the zombie's transaction
    // (with an epoch bump), then bump the epoch again for itself; it commits its own.
    const newer = txnProducer('newer', topic, id, ['commit:0:newer-0']);
    await newer.waitForEvent('done', (e) => e.event === 'done', WAIT_MS);
    expect(errorsOf(newer)).toEqual([]);
    expect(await settledTransaction(broker.bootstrap, id)).toMatchObject({ state: 'CompleteCommit', producerId: before.producerId, producerEpoch: before.producerEpoch + 2 });

    writeFileSync(join(gate, '0'), '');
    await zombie.waitForExit(WAIT_MS);
    expect(zombie.exitCode).toBe(1);
    const [failed] = errorsOf(zombie);
    // librdkafka raises the broker's refusal of the old epoch as its fatal _FENCED error.
    expect(failed).toMatchObject({ during: 'commit', name: '_FENCED', fatal: true });

    // zombie-0, ABORT (the coordinator's, at the newer instance's init), newer-0, COMMIT.
    const ends = await stableEnds(broker.bootstrap, topic, 1);
    expect(ends).toEqual([4]);
    expect((await confluentRead(topic, 1, 'read_committed')).records).toEqual(['0@2:newer-0']);
    expect((await confluentRead(topic, 1, 'read_uncommitted')).records).toEqual(['0@0:zombie-0', '0@2:newer-0']);
  });
});

describe.skipIf(KCAT_MISSING !== undefined)('kcat transactional producer (-X transactional.id)', () => {
  it('commits what it produced at the end of its input; read_committed kcat and confluent consumers read it', async () => {
    const topic = uniqueName('kcat-txn');
    const id = uniqueName('kcat-txn-id');
    await createTopic(topic, 1);
    const r = await run('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-p', '0', '-K', ':', '-X', `transactional.id=${id}`], { stdin: 'k0:v0\nk1:v1\nk2:v2\n', timeoutMs: WAIT_MS });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Transaction successfully committed');
    // 3 records and the COMMIT marker.
    expect(await stableEnds(broker.bootstrap, topic, 1)).toEqual([4]);
    expect(await settledTransaction(broker.bootstrap, id)).toMatchObject({ state: 'CompleteCommit', partitions: [] });
    expect(await kcatRead(topic, 'read_committed')).toEqual(['0@0:v0', '0@1:v1', '0@2:v2']);
    if (CONFLUENT_MISSING === undefined) expect(await confluentRead(topic, 1, 'read_committed')).toEqual({ records: ['0@0:v0', '0@1:v1', '0@2:v2'], eof: { 0: 4 } });
  });

  /** 32 lines of 128 bytes: one 4096-byte read of kcat's stdin (see below). */
  const DROPPED = Array.from({ length: 32 }, (_, i) => `dropped-${String(i).padStart(2, '0')}-`.padEnd(127, 'x'));

  it('terminated while its transaction is open, it aborts it: a read_committed kcat reads nothing of it, a read_uncommitted one does', async () => {
    const topic = uniqueName('kcat-abort');
    const id = uniqueName('kcat-abort-id');
    await createTopic(topic, 1);
    const first = await run('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-p', '0', '-X', `transactional.id=${id}`], { stdin: 'kept\n', timeoutMs: WAIT_MS });
    expect(first.code, first.stderr).toBe(0);

    // kcat reads its input until it ends; the transaction stays open meanwhile.
    const child = spawn('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-p', '0', '-X', `transactional.id=${id}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // kcat reads its input with fread(), whose stdio buffer (4096 bytes on a pipe) is filled
      // before any of it is produced: 4096 bytes of lines are records at once, fewer wait for the
      // input to end.
      child.stdin.write(DROPPED.map((v) => `${v}\n`).join(''));
      // kept, COMMIT, then the open transaction's records: the last stable offset stays at 2.
      await waitFor('the open transaction acknowledged', async () => {
        const { end, stable } = await logEnds(broker.bootstrap, topic, 1);
        return end[0] === 2 + DROPPED.length && stable[0] === 2;
      }, WAIT_MS, 100);
      expect(await describeTransaction(broker.bootstrap, id)).toMatchObject({ state: 'Ongoing', partitions: [`${topic}-0`] });
      child.kill('SIGTERM');
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(stderr).toContain('Aborting transaction due to termination signal');
    expect(await stableEnds(broker.bootstrap, topic, 1)).toEqual([3 + DROPPED.length]);
    expect(await settledTransaction(broker.bootstrap, id)).toMatchObject({ state: 'CompleteAbort', partitions: [] });
    expect(await kcatRead(topic, 'read_committed')).toEqual(['0@0:kept']);
    expect(await kcatRead(topic, 'read_uncommitted')).toEqual(['0@0:kept', ...DROPPED.map((v, i) => `0@${2 + i}:${v}`)].sort());
  });
});
