// kafka-python (python3-kafka 2.0.2), unchanged, pinned to old broker versions with api_version:
// it then speaks Produce v1/v2 (magic 0/1 message sets, plain and gzip) and Fetch v1-v3 (which
// kmock answers with down-converted magic 0/1 sets), as clients of Kafka 0.9/0.10 do against a
// Kafka 3.9 broker.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { decodeBatch } from '../../../src/codec/records/index.js';
import { ProcessSet, pythonModuleMissing } from '../../support/clients/processes.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

const MISSING = pythonModuleMissing('kafka', 'python3-kafka');
if (MISSING) console.warn(`[kafka-python legacy] skipping: ${MISSING}`);

const SCRIPT = 'kafka_python_client.py';

let kmock: Kmock;
let trace: TraceCapture;
let procs: ProcessSet;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, trace: true, logLevel: 'info', logger: trace.logger });
  procs = new ProcessSet();
  ctx.onTestFailed(() => {
    process.stderr.write(`${procs.describeAll()}\n--- kmock trace (last lines) ---\n${trace.tail(60)}\n`);
  });
});

afterEach(async (ctx) => {
  await procs.killAll();
  await kmock.close();
  dumpTraceIfAsked(trace, ctx.task.name);
});

async function produce(topic: string, prefix: string, apiVersion: string, compression?: string): Promise<Array<Record<string, unknown>>> {
  const args = ['produce', '--bootstrap', kmock.bootstrapServers, '--topic', topic, '--count', '3', '--prefix', prefix, '--api-version', apiVersion];
  if (compression !== undefined) args.push('--compression', compression);
  const p = procs.python(`produce ${prefix}`, SCRIPT, args);
  await p.waitForEvent('done', (e) => e.event === 'done', 30_000);
  expect(await p.waitForExit()).toBe(0);
  return p.ofType('sent');
}

function versions(api: string): number[] {
  return [...new Set(trace.traffic(api).map((l) => l.version))].sort();
}

describe.skipIf(MISSING !== undefined)(`kafka-python with api_version pinned${MISSING ? ` (skipped: ${MISSING})` : ''}`, () => {
  it('0.10 and 0.9 producers (Produce v2 / v1, plain and gzip) write a v2 log; 0.10, 0.10.1 and 0.9 consumers read it back', async () => {
    kmock.broker.topics.create('old', 1, 1);
    const sent = [
      ...(await produce('old', 'a', '0.10')),
      ...(await produce('old', 'b', '0.10', 'gzip')),
      ...(await produce('old', 'c', '0.9')),
      ...(await produce('old', 'd', '0.9', 'gzip')),
    ];
    expect(versions('Produce')).toEqual([1, 2]);
    expect(sent.map((e) => e.offset)).toEqual([...Array(12).keys()]);
    // magic 1 carries the producer's timestamps, magic 0 none
    expect(sent.slice(0, 6).every((e) => (e.timestamp as number) > 0)).toBe(true);
    expect(sent.slice(6).every((e) => e.timestamp === -1)).toBe(true);

    const stored = kmock.broker.topics.get('old')!.partitions[0].storedBatches().map((b) => decodeBatch(b));
    // How the producer batches is its own business (timing): every stored batch is v2, plain or gzip as sent.
    expect(new Set(stored.map((b) => b.magic))).toEqual(new Set([2]));
    expect(new Set(stored.map((b) => b.compression))).toEqual(new Set(['none', 'gzip']));
    expect(stored.flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'c0', 'c1', 'c2', 'd0', 'd1', 'd2']);

    for (const [apiVersion, fetchVersion] of [
      ['0.10', 2],
      ['0.10.1', 3],
      ['0.9', 1],
    ] as const) {
      trace.lines.length = 0;
      const c = procs.python(`consumer ${apiVersion}`, SCRIPT, [
        'group', '--bootstrap', kmock.bootstrapServers, '--topic', 'old', '--group', `g-${apiVersion}`, '--api-version', apiVersion,
        '--session-timeout', '10000', '--max-poll-interval', '10000',
      ]);
      await waitFor(`12 records read by the ${apiVersion} consumer`, () => c.ofType('message').length >= 12, 30_000);
      const got = c.ofType('message');
      expect(got.map((m) => [m.offset, m.value, m.key])).toEqual(sent.map((s, i) => [i, s.value, `k${i % 3}`]));
      // Fetch v2+ (magic 1) gives the producers' timestamps back (-1 for what magic 0 wrote);
      // Fetch v1 (magic 0) has no timestamps at all, which kafka-python reports as None.
      expect(got.map((m) => m.timestamp)).toEqual(fetchVersion >= 2 ? sent.map((s) => s.timestamp) : sent.map(() => null));
      expect(versions('Fetch')).toEqual([fetchVersion]);
      await waitFor('offset 12 committed', () => kmock.broker.groups.group(`g-${apiVersion}`)?.offsets.get('old', 0)?.offset === 12n);
      await c.kill('SIGTERM', 15_000);
    }
  });
});
