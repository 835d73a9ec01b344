// The control plane's clock door: input checked (400), moves reported, timers waited for, and the
// HTTP routes answering the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCreateTopicsRequest, createFetchRequest, createJoinGroupRequest, FetchRequest } from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { ControlError } from '../../../src/broker/control/errors.js';
import { RawClient } from '../../support/raw-client.js';

let kmock: Kmock;

beforeEach(async () => {
  kmock = await startKmock({ clock: 'manual', clockStartMs: 1_000, adminPort: 0 });
});
afterEach(async () => {
  await kmock.close();
});

const status = (f: () => unknown): number | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof ControlError ? e.status : -1;
  }
  return undefined;
};

describe('control.clock', () => {
  it('checks its input', () => {
    expect(status(() => kmock.clock.advance(-1))).toBe(400);
    expect(status(() => kmock.clock.advance('soon'))).toBe(400);
    expect(status(() => kmock.clock.set('fast'))).toBe(400);
    expect(status(() => kmock.clock.set({ speed: 0 }))).toBe(400);
    expect(status(() => kmock.clock.set({ mode: 'manual', speed: 2 }))).toBe(400);
    expect(status(() => kmock.clock.set({ pace: 2 }))).toBe(400);
    expect(kmock.clock.set({ speed: 4 })).toMatchObject({ mode: 'scaled', speed: 4 });
    expect(kmock.clock.set('manual')).toMatchObject({ mode: 'manual' });
  });

  it('waits for a parked JoinGroup to show as a timer, then completes it by advancing', async () => {
    const k = await startKmock({ clock: 'manual' });
    try {
      const c = await RawClient.connect(k.bootstrapServers);
      // v3: no MEMBER_ID_REQUIRED round trip, the join parks at once.
      const join = c.request(11, 3, createJoinGroupRequest({ groupId: 'g', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null }));
      const timer = await k.clock.waitForTimer('initial rebalance delay g');
      expect(timer).toEqual({ name: 'initial rebalance delay g', dueInMs: 3_000, housekeeping: false });
      expect(k.clock.advance(3_000)).toMatchObject({ advancedMs: 3_000, fired: 1 });
      expect(await join).toMatchObject({ errorCode: 0, generationId: 1 });
      c.close();
      await expect(k.clock.waitForTimer(/never/, { timeoutMs: 20 })).rejects.toMatchObject({ status: 408 });
    } finally {
      await k.close();
    }
  });

  it('a Fetch long poll waits on the clock; with longPollsOnRealTime real time ends it too', async () => {
    const fetchAfter = async (k: Kmock) => {
      const c = await RawClient.connect(k.bootstrapServers);
      await c.request(19, 7, createCreateTopicsRequest({ topics: [{ name: 'lp', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }));
      const fetch = c.request(1, 12, createFetchRequest({ maxWaitMs: 50, minBytes: 1, topics: [FetchRequest.createTopic({ topic: 'lp', partitions: [FetchRequest.createPartition({ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })] })] }));
      return { c, fetch };
    };
    const onClock = await startKmock({ clock: 'manual' });
    const capped = await startKmock({ clock: 'manual', longPollsOnRealTime: true });
    const cappedStart = capped.clock.now();
    try {
      const a = await fetchAfter(onClock);
      const b = await fetchAfter(capped);
      // The capped one answers in real time although neither clock moved...
      expect(await b.fetch).toMatchObject({ errorCode: 0 });
      expect(capped.clock.now()).toBe(cappedStart);
      // ...the other is still parked on its clock until it passes the max wait.
      await onClock.clock.waitForTimer('fetch max wait');
      onClock.clock.advance(50);
      expect(await a.fetch).toMatchObject({ errorCode: 0 });
      a.c.close();
      b.c.close();
    } finally {
      await onClock.close();
      await capped.close();
    }
  });

  it('is served over HTTP', async () => {
    const url = kmock.adminUrl!;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(url + path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    expect(await call('GET', '/clock')).toMatchObject({ status: 200, body: { mode: 'manual', now: 1_000 } });
    expect(await call('POST', '/clock/advance', { ms: 250 })).toMatchObject({ status: 200, body: { advancedMs: 250, now: 1_250 } });
    expect(await call('POST', '/clock/advance', { ms: 1, by: 2 })).toMatchObject({ status: 400 });
    expect(await call('POST', '/clock/run-until-idle', {})).toMatchObject({ status: 200, body: { fired: 0 } });
    expect(await call('PUT', '/clock', { mode: '3x' })).toMatchObject({ status: 200, body: { mode: 'scaled', speed: 3 } });
  });
});
