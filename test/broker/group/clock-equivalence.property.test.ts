// The coordinator on the broker's manual clock answers exactly as on the test FakeTimers, however
// a wait is cut into advances: random client requests and waits are played on three coordinators
// (FakeTimers advanced by each wait at once; a manual BrokerClock advanced by each wait at once;
// a manual BrokerClock advanced in random steps adding up to each wait, and at the end run until
// idle before the final advance), and every answer and event, with the time it came, must be the
// same.
// It is what lets a test jump a real broker's clock instead of waiting (docs/testing.md).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BrokerClock } from '../../../src/broker/time/broker-clock.js';
import { Harness, groupId, learnFromGroup, metadata } from './harness.js';

const op = fc.oneof(
  fc.record({ kind: fc.constant('join' as const), client: fc.nat(3), forgetId: fc.boolean() }),
  fc.record({ kind: fc.constant('sync' as const), client: fc.nat(3) }),
  fc.record({ kind: fc.constant('heartbeat' as const), client: fc.nat(3) }),
  fc.record({ kind: fc.constant('leave' as const), client: fc.nat(3) }),
  fc.record({ kind: fc.constant('commit' as const), client: fc.nat(3) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 900 }), cuts: fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 4 }) }),
);

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

interface Client {
  instanceId: string | null;
  version: number;
  memberId: string;
  generation: number;
}

type Mode = 'fake' | 'broker-clock' | 'broker-clock-stepped';

/** Plays `ops`; returns what happened: every answer and event, in order, with the time it came. */
function play(ops: Op[], versions: number[], mode: Mode): string[] {
  const clock = mode === 'fake' ? undefined : new BrokerClock({ setting: 'manual', startMs: 1_000_000 });
  const h = new Harness({ groupMaxSize: 3, brokerClock: clock });
  const log: string[] = [];
  const answer = (what: string) => (r: unknown) => log.push(`${h.now} ${what} ${JSON.stringify(r)}`);
  const clients: Client[] = versions.map((version, i) => ({ instanceId: version >= 5 && i % 2 === 0 ? `instance-${i}` : null, version, memberId: '', generation: -1 }));
  const wait = (o: Extract<Op, { kind: 'wait' }>) => {
    if (mode !== 'broker-clock-stepped') return h.advance(o.ms);
    let left = o.ms;
    for (const c of o.cuts) {
      const step = Math.min(c, left);
      h.advance(step);
      left -= step;
    }
    h.advance(left);
  };
  for (const o of ops) {
    if (o.kind === 'wait') {
      wait(o);
      continue;
    }
    const c = clients[o.client]!;
    switch (o.kind) {
      case 'join':
        if (o.forgetId) c.memberId = '';
        h.coordinator.joinGroup(
          c.version,
          { clientId: `client-${o.client}`, clientHost: '/127.0.0.1' },
          { groupId, sessionTimeoutMs: 500, rebalanceTimeoutMs: 400, memberId: c.memberId, groupInstanceId: c.instanceId, protocolType: 'consumer', protocols: [{ name: 'range', metadata }], reason: null },
          answer(`join ${o.client}`),
        );
        break;
      case 'sync': {
        const g = h.coordinator.group(groupId);
        const assignments = g?.leaderId === c.memberId ? g.memberIds().map((id) => ({ memberId: id, assignment: Buffer.from(id) })) : [];
        h.coordinator.syncGroup(c.version >= 5 ? 3 : 2, { groupId, generationId: c.generation, memberId: c.memberId, groupInstanceId: c.instanceId, protocolType: null, protocolName: null, assignments }, answer(`sync ${o.client}`));
        break;
      }
      case 'heartbeat':
        answer(`heartbeat ${o.client}`)(h.coordinator.heartbeat(3, { groupId, memberId: c.memberId, generationId: c.generation, groupInstanceId: c.instanceId }));
        break;
      case 'leave':
        answer(`leave ${o.client}`)(h.batchLeaveGroup([{ memberId: c.memberId, groupInstanceId: c.instanceId }]));
        break;
      case 'commit':
        answer(`commit ${o.client}`)(h.commitOne(c.memberId, c.generation, c.instanceId));
        break;
    }
    learnFromGroup(h, clients);
  }
  // Every timer runs out: by advancing 200 minutes; the stepped clock first runs until idle (all
  // but the housekeeping timers, i.e. the periodic offsets expiry) and then advances the rest.
  const horizon = h.now + 20 * 10 * 60 * 1000;
  if (mode === 'broker-clock-stepped') {
    clock!.runUntilIdle();
    expect(clock!.view().pending.every((t) => t.housekeeping)).toBe(true);
    expect(h.now).toBeLessThanOrEqual(horizon);
  }
  while (h.now < horizon) h.advance(Math.min(10 * 60 * 1000, horizon - h.now));
  for (const e of h.events) log.push(`event ${JSON.stringify(e)}`);
  return log;
}

describe('the coordinator on the broker clock', () => {
  it('property: answers and events are the same on FakeTimers, on a manual clock, and however waits are cut into advances', () => {
    let timed = 0;
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), fc.array(fc.constantFrom(3, 4, 5, 9), { minLength: 4, maxLength: 4 }), (ops, versions) => {
        const reference = play(ops, versions, 'fake');
        if (reference.some((l) => /"cause":"(session|sync|join)-timeout"/.test(l))) timed++;
        expect(play(ops, versions, 'broker-clock')).toEqual(reference);
        expect(play(ops, versions, 'broker-clock-stepped')).toEqual(reference);
      }),
      { numRuns: 300 },
    );
    // Not vacuous: many runs had members removed by a timer.
    expect(timed).toBeGreaterThan(50);
  });
});
