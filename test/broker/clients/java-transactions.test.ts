// The Java kafka-clients (3.9.1 and 4.4.0), unchanged, with transactions, against a real listening
// kmock: an exactly-once consume-transform-produce app (a read_committed consumer, a transactional
// producer committing its input offsets with sendOffsetsToTransaction(offsets,
// consumer.groupMetadata())), one instance of which becomes a zombie: a second instance with the
// same transactional.id starts while the first has a transaction open. The newer one's
// initTransactions() has the coordinator abort that transaction and bump the epoch; the zombie's
// commit fails with ProducerFencedException; the newer instance takes over the group and resumes
// from the committed offsets; read_committed consumers see every input transformed exactly once,
// read_uncommitted ones the zombie's aborted output too.
//
// Everything is read back from the broker: committed offsets (OffsetFetch through kafkajs's admin),
// the transaction's state (DescribeTransactions), log end and last stable offsets (ListOffsets),
// and the records through Java read_committed / read_uncommitted consumers. KMOCK_TXN_TEST_BOOTSTRAP
// runs the same test against another broker (a Kafka 3.9.1 from scripts/kafka-reference): that is
// how its expectations were checked against Kafka.
//
// The app is test/support/clients/TxnApp.java, compiled by test/support/clients/java.ts on the
// client matrix's build. KMOCK_JAVA_CLIENTS picks the versions (default 3.9.1,4.4.0). Without Java
// or the jars the tests are skipped, except under CI.
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import { buildJavaProgram } from '../../support/clients/java.js';
import { ProcessSet, type ClientProcess, type JsonEvent } from '../../support/clients/processes.js';
import { consumerOffsetsPartition, createTopic, describeTransaction, logEnds, stableEnds, startTestBroker, uniqueName, type TestBroker } from '../../support/clients/txn.js';
import { dumpTraceIfAsked } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
const VERSIONS = (process.env.KMOCK_JAVA_CLIENTS ?? '3.9.1,4.4.0').split(',').filter(Boolean);

const programs = await Promise.all(VERSIONS.map((v) => buildJavaProgram('TxnApp.java', v)));
for (const p of programs) {
  if ('unavailable' in p) {
    if (CI) throw new Error(`${p.unavailable}: Java kafka-clients must run under CI`);
    console.warn(`[java-transactions] skipping: ${p.unavailable}`);
  }
}

/** Real-time waits for the JVMs: starting one on a loaded 2-core machine takes seconds. */
const JVM_WAIT_MS = 90_000;
const TEST_TIMEOUT_MS = 240_000;

let broker: TestBroker;
let procs: ProcessSet;
let described = '';
let kafka: Kafka;
let closers: Array<() => Promise<unknown>>;
let tmp: string;

beforeEach(async (ctx) => {
  broker = await startTestBroker({ groupInitialRebalanceDelayMs: 0 });
  procs = new ProcessSet();
  kafka = new Kafka({ brokers: [broker.bootstrap], clientId: 'kmock-java-txn-test', logLevel: logLevel.NOTHING, retry: { initialRetryTime: 100, retries: 10 } });
  closers = [];
  tmp = mkdtempSync(join(tmpdir(), 'kmock-java-txn-'));
  ctx.onTestFailed(() => {
    process.stderr.write(`${described}\n${broker.trace ? `--- kmock trace (last lines) ---\n${broker.trace.tail(80)}\n` : ''}`);
  });
});

afterEach(async (ctx) => {
  // (onTestFailed runs after this: what the processes printed is kept for it.)
  described = procs.describeAll();
  if (broker.trace) dumpTraceIfAsked(broker.trace, ctx.task.name);
  await procs.killAll();
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await broker.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function admin(): Promise<Admin> {
  const a = kafka.admin();
  closers.push(() => a.disconnect());
  await a.connect();
  return a;
}

async function producer(): Promise<Producer> {
  const p = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  closers.push(() => p.disconnect());
  await p.connect();
  return p;
}

/** The highest offset each partition was reported committed at in a process's "committed" lines. */
function reportedCommitted(p: ClientProcess): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of p.ofType('committed')) for (const [k, v] of Object.entries(e.offsets as Record<string, number>)) out[k] = Math.max(out[k] ?? 0, v);
  return out;
}

const records = (p: ClientProcess, from = 0) => p.events.slice(from).filter((e) => e.event === 'record').map((e) => `${e.partition}@${e.offset}:${e.value}`);

for (const [i, version] of VERSIONS.entries()) {
  const program = programs[i]!;
  const unavailable = 'unavailable' in program ? program.unavailable : undefined;

  describe.skipIf(unavailable !== undefined)(`Java kafka-clients ${version} transactions${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    function app(name: string, role: string, args: string[]): ClientProcess {
      if (!('argv' in program)) throw new Error(`TxnApp.java could not be built: ${'failed' in program ? program.failed : '?'}`);
      const [java, ...jvm] = program.argv;
      return procs.start(name, java!, [...jvm, role, '--bootstrap', broker.bootstrap, ...args]);
    }

    /** A Java consumer (assign, from the beginning) read to endOffsets() under `isolation`. */
    async function javaRead(topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<{ records: string[]; done: JsonEvent }> {
      const r = app(`read-${isolation}`, 'read', ['--topic', topic, '--isolation', isolation]);
      const done = await r.waitForEvent('done', (e) => e.event === 'done', JVM_WAIT_MS);
      return { records: records(r).sort(), done };
    }

    it('exactly-once consume-transform-produce: a zombie with the same transactional.id is fenced, its open transaction aborted; the new instance resumes from the committed offsets; read_committed sees every output once', async () => {
      const input = uniqueName('eos-in');
      const output = uniqueName('eos-out');
      const group = uniqueName('eos-group');
      const id = uniqueName('eos-txn');
      await createTopic(broker.bootstrap, input, 2);
      await createTopic(broker.bootstrap, output, 2);
      const a = await admin();
      const source = await producer();
      const produceInputs = (from: number, count: number) =>
        source.send({ topic: input, acks: -1, messages: Array.from({ length: count }, (_, k) => ({ key: `i${from + k}`, value: `i${from + k}`, partition: (from + k) % 2 })) });
      /** The group's committed offsets of the input as the broker has them (OffsetFetch). */
      const committed = async () => {
        const [t] = await a.fetchOffsets({ groupId: group, topics: [input] });
        return [...(t?.partitions ?? [])].sort((x, y) => x.partition - y.partition).map((p) => Number(p.offset));
      };
      const hold = join(tmp, 'hold');
      const ctp = (name: string) => app(name, 'ctp', ['--input', input, '--output', output, '--group', group, '--transactional-id', id, '--client-id', name, '--hold', hold]);

      await produceInputs(0, 6);
      const first = ctp('A');
      await waitFor('A to commit offsets 3/3', () => reportedCommitted(first)['0'] === 3 && reportedCommitted(first)['1'] === 3, JVM_WAIT_MS);
      expect(await committed()).toEqual([3, 3]);
      expect(records(first).sort()).toEqual(['0@0:i0', '0@1:i2', '0@2:i4', '1@0:i1', '1@1:i3', '1@2:i5']);

      // A's next transaction (4 more inputs) stays open before its commit: outputs written and
      // flushed, offsets added.
      writeFileSync(hold, '');
      await produceInputs(6, 4);
      await first.waitForEvent('holding', (e) => e.event === 'holding', JVM_WAIT_MS);
      // The records of the held transaction: its poll's, the 4 new ones or some of them (a poll can
      // return one partition's records before the other's).
      const holdingAt = first.events.findIndex((e) => e.event === 'holding');
      const heldRecords = records(first, first.events.map((e) => e.event).lastIndexOf('committed', holdingAt) + 1);
      const held = heldRecords.map((r) => r.replace(/^\d+@\d+:/, ''));
      expect(held.length).toBeGreaterThan(0);
      const heldPartitions = [...new Set(heldRecords.map((r) => `${output}-${r.split('@')[0]}`))];
      const open = await describeTransaction(broker.bootstrap, id);
      expect(open.state).toBe('Ongoing');
      // The output's partitions it wrote to, and the group's __consumer_offsets partition (AddOffsetsToTxn).
      expect(open.partitions).toEqual([consumerOffsetsPartition(group), ...heldPartitions].sort());
      const during = await logEnds(broker.bootstrap, output, 2);
      for (const p of [0, 1]) {
        if (heldPartitions.includes(`${output}-${p}`)) expect(during.stable[p]).toBeLessThan(during.end[p]!);
        else expect(during.stable[p]).toBe(during.end[p]);
      }
      // None of it is committed yet. Java's Admin asking with requireStable (OffsetFetch's
      // RequireStable) gets no offset for the partitions the transaction holds offsets of: Kafka
      // answers them UNSTABLE_OFFSET_COMMIT, and the admin leaves out partitions answered with an
      // error. (A poll can return one partition's records before the other's: then the other
      // partition's offset is stable.)
      expect(await committed()).toEqual([3, 3]);
      const offsets = app('offsets', 'offsets', ['--group', group, '--timeout-ms', '5000']);
      await offsets.waitForExit(JVM_WAIT_MS);
      const [unstable, plain] = offsets.events.filter((e) => e.event === 'offsets' || e.event === 'offsets-failed');
      const heldInputs = [...new Set(heldRecords.map((r) => Number(r.split('@')[0])))];
      expect(unstable).toMatchObject({ event: 'offsets', requireStable: true });
      expect(unstable!.offsets).toEqual(Object.fromEntries([0, 1].filter((p) => !heldInputs.includes(p)).map((p) => [`${input}-${p}`, 3])));
      expect(plain).toMatchObject({ event: 'offsets', requireStable: false });
      expect(plain!.offsets).toEqual({ [`${input}-0`]: 3, [`${input}-1`]: 3 });

      // The newer instance: initTransactions() returns once the coordinator has aborted A's
      // transaction with a bumped epoch, and bumped it once more for B.
      const second = ctp('B');
      await second.waitForEvent('initialized', (e) => e.event === 'initialized', JVM_WAIT_MS);
      const fencedState = await describeTransaction(broker.bootstrap, id);
      expect(fencedState).toMatchObject({ state: 'Empty', producerId: open.producerId, producerEpoch: open.producerEpoch + 2, partitions: [] });

      // The zombie goes on to commit: refused, ProducerFencedException; it exits (code 3).
      unlinkSync(hold);
      expect(existsSync(hold)).toBe(false);
      const fenced = await first.waitForEvent('fenced', (e) => e.event === 'fenced' || e.event === 'error' || e.event === 'committed', JVM_WAIT_MS, holdingAt);
      expect(fenced).toMatchObject({ event: 'fenced', error: 'ProducerFencedException', kafkaError: 'PRODUCER_FENCED', during: 'commitTransaction' });
      await first.waitForExit(JVM_WAIT_MS);
      expect(first.exitCode).toBe(3);

      // B holds the group alone and resumes from the committed offsets (3 in each partition): the
      // 4 inputs A's aborted transaction had read, each once.
      await waitFor('B to commit offsets 5/5', () => reportedCommitted(second)['0'] === 5 && reportedCommitted(second)['1'] === 5, JVM_WAIT_MS);
      expect(await committed()).toEqual([5, 5]);
      expect(records(second).sort()).toEqual(['0@3:i6', '0@4:i8', '1@3:i7', '1@4:i9']);
      await second.kill('SIGTERM', JVM_WAIT_MS);
      expect(second.exitCode).toBe(0);
      expect(second.ofType('fenced')).toEqual([]);
      expect(second.ofType('error')).toEqual([]);

      // The output, as the broker serves it: under read_committed every input transformed once (A's
      // first six, B's four); under read_uncommitted also A's aborted four.
      const ends = await stableEnds(broker.bootstrap, output, 2);
      const rc = await javaRead(output, 'read_committed');
      expect(rc.records.map((r) => r.replace(/^\d+@\d+:/, '')).sort()).toEqual(['A(i0)', 'A(i1)', 'A(i2)', 'A(i3)', 'A(i4)', 'A(i5)', 'B(i6)', 'B(i7)', 'B(i8)', 'B(i9)']);
      // endOffsets() under read_committed (the last stable offset) = the log end: nothing open.
      expect(rc.done).toMatchObject({ complete: true, ends: { 0: ends[0], 1: ends[1] }, positions: { 0: ends[0], 1: ends[1] } });
      const ru = await javaRead(output, 'read_uncommitted');
      expect(ru.records.map((r) => r.replace(/^\d+@\d+:/, '')).sort()).toEqual(
        ['A(i0)', 'A(i1)', 'A(i2)', 'A(i3)', 'A(i4)', 'A(i5)', ...held.map((v) => `A(${v})`), 'B(i6)', 'B(i7)', 'B(i8)', 'B(i9)'].sort(),
      );
      expect(ru.done).toMatchObject({ complete: true, ends: { 0: ends[0], 1: ends[1] } });
    }, TEST_TIMEOUT_MS);
  });
}
