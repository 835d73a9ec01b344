// Random interleavings of client requests and time, checking the coordinator's invariants after
// every step: consistent membership bookkeeping, a pending deadline for every outstanding phase, and
// no member left without a liveness deadline (so no group can get stuck).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClassicGroup } from '../../../src/broker/group/group.js';
import { Harness, groupId, learnFromGroup, metadata } from './harness.js';

interface Client {
  instanceId: string | null;
  version: number;
  memberId: string;
  generation: number;
  protocols: { name: string; metadata: Buffer }[];
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('join' as const), client: fc.nat(4), changeProtocols: fc.boolean(), forgetId: fc.boolean() }),
  fc.record({ kind: fc.constant('sync' as const), client: fc.nat(4) }),
  fc.record({ kind: fc.constant('heartbeat' as const), client: fc.nat(4) }),
  fc.record({ kind: fc.constant('leave' as const), client: fc.nat(4), byInstance: fc.boolean() }),
  fc.record({ kind: fc.constant('commit' as const), client: fc.nat(4) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 700 }) }),
);

function checkInvariants(h: Harness): void {
  const g: ClassicGroup | undefined = h.coordinator.group(groupId);
  if (!g) return;
  const members = g.allMembers();
  expect(g.numAwaitingJoin).toBe(members.filter((m) => m.isAwaitingJoin).length);
  for (const m of members) {
    if (m.groupInstanceId !== null) expect(g.currentStaticMemberId(m.groupInstanceId)).toBe(m.memberId);
    // Every member has a liveness deadline unless it is parked (and not new): no member can linger forever.
    if (m.heartbeatTimer === null) expect(!m.isNew && (m.isAwaitingJoin || m.isAwaitingSync)).toBe(true);
    if (m.isAwaitingJoin) expect(g.state).toBe('PreparingRebalance');
    if (m.isAwaitingSync) expect(g.state).toBe('CompletingRebalance');
  }
  expect(g.staticInstanceIds()).toHaveLength(members.filter((m) => m.isStatic).length);
  expect(g.leaderId === null).toBe(members.length === 0);
  if (g.leaderId !== null) expect(g.has(g.leaderId)).toBe(true);
  expect(g.pendingMemberTimers.size).toBe(g.numPending);
  switch (g.state) {
    case 'Empty':
      expect(members).toHaveLength(0);
      expect(g.joinPhaseTimer).toBeNull();
      break;
    case 'PreparingRebalance':
      expect(g.joinPhaseTimer).not.toBeNull();
      break;
    case 'CompletingRebalance':
      expect(members.length).toBeGreaterThan(0);
      expect(g.protocolName).not.toBeNull();
      expect(g.syncExpiration).not.toBeNull();
      expect(g.joinPhaseTimer).toBeNull();
      break;
    case 'Stable':
      expect(members.length).toBeGreaterThan(0);
      expect(g.protocolName).not.toBeNull();
      expect(g.joinPhaseTimer).toBeNull();
      break;
    case 'Dead':
      break;
  }
}

describe('coordinator invariants under random operations', () => {
  it('hold after every step, and every parked request is answered at most once', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.array(fc.constantFrom(3, 4, 5, 9), { minLength: 5, maxLength: 5 }), (ops, versions) => {
        const h = new Harness({ groupMaxSize: 3 });
        const parked: { done: boolean }[] = [];
        const clients: Client[] = versions.map((version, i) => ({
          instanceId: version >= 5 && i % 2 === 0 ? `instance-${i}` : null,
          version,
          memberId: '',
          generation: -1,
          protocols: [{ name: 'range', metadata }],
        }));
        for (const o of ops) {
          if (o.kind === 'advance') {
            h.advance(o.ms);
            checkInvariants(h);
            continue;
          }
          const c = clients[o.client]!;
          switch (o.kind) {
            case 'join': {
              if (o.changeProtocols) {
                c.protocols = c.protocols.length === 1 ? [{ name: 'range', metadata }, { name: 'roundrobin', metadata }] : [{ name: 'range', metadata: Buffer.from([c.protocols.length]) }];
              }
              if (o.forgetId) c.memberId = '';
              parked.push(h.sendJoinGroup({ memberId: c.memberId, groupInstanceId: c.instanceId, version: c.version, protocols: c.protocols, sessionTimeout: 500, rebalanceTimeout: 400 }));
              break;
            }
            case 'sync': {
              const g = h.coordinator.group(groupId);
              const isLeader = g?.leaderId === c.memberId;
              const assignments = isLeader ? Object.fromEntries(g!.memberIds().map((id) => [id, Buffer.from(id)])) : {};
              parked.push(h.sendSyncGroup({ generationId: c.generation, memberId: c.memberId, groupInstanceId: c.instanceId, version: c.version >= 5 ? 3 : 2, assignments }));
              break;
            }
            case 'heartbeat':
              h.coordinator.heartbeat(3, { groupId, memberId: c.memberId, generationId: c.generation, groupInstanceId: c.instanceId });
              break;
            case 'leave':
              h.batchLeaveGroup([{ memberId: o.byInstance && c.instanceId ? '' : c.memberId, groupInstanceId: c.instanceId }]);
              break;
            case 'commit':
              h.commitOne(c.memberId, c.generation, c.instanceId);
              break;
          }
          // Clients learn their member id and generation from the group (as a real client would
          // from its responses); this keeps the random walk inside meaningful states.
          learnFromGroup(h, clients);
          checkInvariants(h);
        }
        // Let every timer run out: the group must settle (Empty or gone), answering everything.
        for (let i = 0; i < 20; i++) h.advance(10 * 60 * 1000);
        const g = h.coordinator.group(groupId);
        if (g) expect(['Empty', 'Dead']).toContain(g.state);
        for (const e of h.eventsOf('internal-error')) expect.fail(e.message);
        // Every JoinGroup/SyncGroup was answered, except those Kafka drops (and says so).
        expect(parked.filter((p) => !p.done)).toHaveLength(h.eventsOf('callback-dropped').length);
      }),
      { numRuns: 300 },
    );
  });
});
