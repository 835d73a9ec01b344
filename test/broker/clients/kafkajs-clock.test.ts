// kafkajs 2.2.4, unchanged, against a kmock whose clock only the test moves (clock: 'manual'):
// the session timeout of a live consumer lapses because the test advanced the clock past it, and
// the consumer sees what it would after waiting that long on Kafka: its next heartbeat is answered
// UNKNOWN_MEMBER_ID, it joins again as a new member and goes on consuming. No real second passes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import { KafkajsClients } from '../../support/clients/kafkajs.js';
import { captureTrace, dumpTraceIfAsked, type TraceCapture } from '../../support/clients/trace.js';
import { waitFor } from '../../support/clients/wait.js';

let kmock: Kmock;
let clients: KafkajsClients;
let events: GroupEvent[];
let trace: TraceCapture;

beforeEach(async (ctx) => {
  trace = captureTrace();
  kmock = await startKmock({ clock: 'manual', groupInitialRebalanceDelayMs: 0, trace: true, logLevel: 'info', logger: trace.logger });
  ctx.onTestFailed(() => {
    process.stderr.write(`--- kmock trace (last lines) ---\n${trace.tail(80)}\n`);
  });
  events = [];
  kmock.control.subscribe((e) => events.push(e));
  clients = new KafkajsClients(kmock);
});

afterEach(async (ctx) => {
  await clients.closeAll();
  await kmock.close();
  dumpTraceIfAsked(trace, ctx.task.name);
});

describe('kafkajs on a manual clock', () => {
  it('a session that lapses because the clock was advanced: UNKNOWN_MEMBER_ID, a new member id, consuming again', async () => {
    const admin = await clients.admin();
    await admin.createTopics({ topics: [{ topic: 'ticks', numPartitions: 2 }], waitForLeaders: true });
    const producer = await clients.producer();
    await producer.send({ topic: 'ticks', messages: [{ value: 'before' }] });

    const c = clients.consumer('c', 'clocked', { sessionTimeout: 10_000, heartbeatInterval: 1_000 });
    await c.start('ticks');
    await waitFor('first message', () => c.values().includes('before'));
    const first = c.lastJoin!;
    expect(first.assignment.ticks).toEqual([0, 1]);
    expect(kmock.control.group('clocked').state).toBe('Stable');

    // The consumer's next Fetch is parked (a long poll waits on the broker clock too); from here
    // on nothing the consumer does can reach the broker before the clock moves.
    await kmock.clock.waitForTimer('fetch max wait');
    // Nine seconds of broker time: the session (10 s) has not lapsed yet.
    kmock.clock.advance(9_000);
    expect(events.some((e) => e.type === 'member-removed')).toBe(false);

    // Past the session timeout, with no heartbeat in between: exactly what Kafka does after 10 s.
    kmock.clock.advance(1_001);
    const removed = events.find((e) => e.type === 'member-removed');
    expect(removed).toMatchObject({ type: 'member-removed', groupId: 'clocked', memberId: first.memberId, cause: 'session-timeout' });
    expect(kmock.control.group('clocked').state).toBe('Empty');

    // Real time again, from where the clock is: kafkajs finds out on its next heartbeat (its own
    // timer) and joins again with a new member id.
    kmock.clock.set('system');
    await waitFor('rejoin', () => c.joins.length === 2);
    expect(c.lastJoin!.memberId).not.toBe(first.memberId);
    expect(c.lastJoin!.assignment.ticks).toEqual([0, 1]);
    await producer.send({ topic: 'ticks', messages: [{ value: 'after' }] });
    await waitFor('message after the rejoin', () => c.values().includes('after'));
    const heartbeatErrors = trace.traffic('Heartbeat').filter((l) => (l.response as { errorCode?: number } | null)?.errorCode === 25);
    expect(heartbeatErrors.length).toBeGreaterThan(0); // UNKNOWN_MEMBER_ID
    expect(c.crashes).toEqual([]);
  });
});
