// `kmock admin transactions [list | describe ID | events ...]` against a real listening kmock with
// its admin API on (in-process, main() with a fake io): JSON as the other admin commands print it,
// events as JSON lines, refused requests exit 1 with one stderr line, usage errors exit 2.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../src/broker/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { RawClient } from '../support/raw-client.js';
import { waitFor } from '../support/clients/wait.js';
import { addPartitions, createTopic, endTransaction, initTransactions } from '../broker/control/helpers.js';

let kmock: Kmock;
let client: RawClient;

beforeEach(async () => {
  kmock = await startKmock({ clock: 'manual', clockStartMs: 10_000, adminPort: 0 });
  client = await RawClient.connect(kmock.bootstrapServers);
});

afterEach(async () => {
  client.close();
  await kmock.close();
});

const admin = (...args: string[]): Promise<CliResult> => runCli(['admin', '--url', kmock.adminUrl!, ...args]);

async function ok(...args: string[]): Promise<any> {
  const r = await admin(...args);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return JSON.parse(r.stdout);
}

async function fails(code: number, ...args: string[]): Promise<string> {
  const r = await admin(...args);
  expect(r.code, args.join(' ')).toBe(code);
  expect(r.stdout, args.join(' ')).toBe('');
  expect(r.stderr, args.join(' ')).toMatch(/^kmock: [^\n]+\n$/);
  return r.stderr;
}

describe('kmock admin transactions', () => {
  it('list (the default) and describe ID print the coordinator\'s transactional ids as JSON', async () => {
    expect(await ok('transactions')).toEqual([]);
    expect(await createTopic(client, 'orders', 2)).toBe(0);
    const p = await initTransactions(client, 'orders-tx', 45_000);
    expect(await addPartitions(p, 'orders', [0, 1])).toEqual([0, 0]);
    await initTransactions(client, 'events');
    kmock.clock.advance(250);

    const expected = {
      transactionalId: 'orders-tx', producerId: Number(p.producerId), producerEpoch: 0, state: 'Ongoing', pendingState: null,
      partitions: [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }], timeoutMs: 45_000, startedAt: 10_000, ageMs: 250, lastUpdate: 10_000,
    };
    const listed = await ok('transactions', 'list');
    expect(listed).toEqual([expected, expect.objectContaining({ transactionalId: 'events', state: 'Empty', ageMs: null })]);
    expect(await ok('transactions')).toEqual(listed);
    // Printed as the other admin commands print their answers: indented JSON.
    expect((await admin('transactions', 'describe', 'orders-tx')).stdout).toBe(JSON.stringify(expected, null, 2) + '\n');
    // An id named like the event stream is still described.
    expect(await ok('transactions', 'describe', 'events')).toMatchObject({ transactionalId: 'events' });
    expect(await fails(1, 'transactions', 'describe', 'missing')).toBe('kmock: no transactional id "missing" (HTTP 404)\n');
  });

  it('events prints transaction events as JSON lines until --count, filtered by --transactional-id and --type', async () => {
    expect(await createTopic(client, 'pay')).toBe(0);
    const p = await initTransactions(client, 'pay-tx');
    expect(await addPartitions(p, 'pay', [0])).toEqual([0]);
    const before = kmock.broker.txnEventListeners.size;
    const run = admin('transactions', 'events', '--transactional-id', 'pay-tx', '--type', 'txn-state-changed', '--count', '2', '--timeout-ms', '10000');
    await waitFor('the SSE subscription', () => kmock.broker.txnEventListeners.size > before);
    await initTransactions(client, 'not-watched');
    expect(await endTransaction(p, false)).toBe(0);
    const r = await run;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { type: 'txn-state-changed', transactionalId: 'pay-tx', at: 10_000, from: 'Ongoing', to: 'PrepareAbort', producerId: Number(p.producerId), producerEpoch: 0 },
      { type: 'txn-state-changed', transactionalId: 'pay-tx', at: 10_000, from: 'PrepareAbort', to: 'CompleteAbort', producerId: Number(p.producerId), producerEpoch: 0 },
    ]);
    await waitFor('unsubscribed', () => kmock.broker.txnEventListeners.size === before);
    expect(await fails(1, 'transactions', 'events', '--count', '1', '--timeout-ms', '300')).toMatch(/timed out after 300 ms with 0 of 1 events/);
  });

  it('usage errors exit 2; --help lists the commands', async () => {
    expect(await fails(2, 'transactions', 'frobnicate')).toMatch(/unknown transactions command "frobnicate"/);
    expect(await fails(2, 'transactions', 'describe')).toMatch(/usage: kmock admin transactions/);
    expect(await fails(2, 'transactions', 'list', 'extra')).toMatch(/usage: kmock admin transactions/);
    expect(await fails(2, 'transactions', 'list', '--group', 'g')).toMatch(/transactions does not take --group/);
    expect(await fails(2, 'transactions', 'events', 'extra')).toMatch(/usage: kmock admin transactions events/);
    expect(await fails(2, 'transactions', 'events', '--count', '0')).toMatch(/--count must be an integer >= 1/);
    expect(await fails(2, 'groups', '--transactional-id', 'x')).toMatch(/groups does not take --transactional-id/);
    const help = await runCli(['admin', '--help']);
    for (const cmd of ['transactions [list]', 'transactions describe ID', 'transactions events [--transactional-id ID]']) expect(help.stdout).toContain(cmd);
  });
});
