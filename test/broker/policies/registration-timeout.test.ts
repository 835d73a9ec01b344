// registration-timeout (the early KIP-345 draft's registration.timeout.ms): a static member whose
// session expires is marked offline but keeps its place and assignment; one rebalance removes every
// member offline longer than the timeout, timed from the earliest drop still offline.

import { describe, expect, it } from 'vitest';
import { ErrorCode, PolicyHarness } from '../../support/policies/harness.js';

const MIN = 60_000;
const SESSION = 30_000;
const REBALANCE = 60_000;
const policy = { 'registration-timeout': { enabled: true, registrationTimeoutMs: 15 * MIN } };

/** A Stable group A (leader), B, C; A stops heartbeating and is offline at the returned time "00:00". */
function aDropsAtZero(h: PolicyHarness) {
  const g = h.staticGroup(['A', 'B', 'C'], { sessionTimeout: SESSION, rebalanceTimeout: REBALANCE });
  h.alive.delete('A');
  h.tick(SESSION);
  const t0 = h.now;
  expect(h.offline()).toEqual(['A']);
  expect(h.eventsOf('member-offline')).toMatchObject([
    { groupInstanceId: 'A', memberId: g.members.A!.memberId, offlineSince: t0, removeAt: t0 + 15 * MIN, policy: 'registration-timeout' },
  ]);
  return { g, t0 };
}

describe('registration-timeout: the draft example (15 min), minute by minute', () => {
  it('A drops at 00:00, B at 00:10, A comes back at 00:12: nothing happens at 00:15; at 00:25 one rebalance removes B', () => {
    const h = new PolicyHarness(policy);
    const { g, t0 } = aDropsAtZero(h);
    const eventsFrom = h.events.length;
    const aOldId = g.members.A!.memberId;

    for (let m = 0; m <= 30; m++) {
      const at = `00:${String(m).padStart(2, '0')}`;
      expect(h.now - t0, at).toBe(m * MIN);
      const expectedOffline = m < 10 ? ['A'] : m <= 12 ? ['A', 'B'] : m < 25 ? ['B'] : [];
      expect(h.offline(), `offline members at ${at}`).toEqual(expectedOffline);
      const rebalances = h.since(eventsFrom, 'rebalance-started');
      if (m < 25) {
        // Offline members keep their place: no rebalance, same generation, all three members.
        expect(rebalances, `no rebalance at ${at}`).toEqual([]);
        expect(h.state()).toBe('Stable');
        expect(h.group().generationId).toBe(g.generation);
        expect(h.group().size).toBe(3);
      }
      if (m === 12) {
        // A restarts (MemberId "", its instance id): Kafka's static rejoin, same generation.
        const r = h.sendJoinGroup({ groupInstanceId: 'A', version: 9 }).result;
        expect(r.errorCode).toBe(ErrorCode.NONE);
        expect(r.generationId).toBe(g.generation);
        h.members.A = { instance: 'A', memberId: r.memberId };
        const sync = h.sendSyncGroup({ generationId: g.generation, memberId: r.memberId, groupInstanceId: 'A' }).result;
        expect(sync.assignment.toString(), 'A gets its old assignment').toBe('A');
        h.alive.add('A');
        expect(h.offline()).toEqual(['B']);
        expect(h.eventsOf('member-online')).toMatchObject([{ memberId: aOldId, groupInstanceId: 'A', offlineSince: t0, via: 'JoinGroup' }]);
      }
      if (m === 25) {
        // B has been gone 15 minutes: one rebalance removes it (A's 00:15 deadline died with its return).
        expect(rebalances).toHaveLength(1);
        expect(rebalances[0]).toMatchObject({ trigger: 'registration-timeout', removalCause: 'registration-timeout', groupInstanceId: 'B' });
        expect(rebalances[0]!.at).toBe(t0 + 25 * MIN);
        expect(h.eventsOf('member-removed')).toMatchObject([{ groupInstanceId: 'B', cause: 'registration-timeout' }]);
        const gen = h.completeRebalance();
        expect(gen).toBe(g.generation + 1);
        expect(h.group().allMembers().map((x) => x.groupInstanceId).sort()).toEqual(['A', 'C']);
      }
      if (m === 30) break;
      if (m === 9) {
        // B's last heartbeat is at 00:09:30, so its session expires at 00:10.
        h.tick(30_000);
        h.alive.delete('B');
        h.tick(30_000);
      } else {
        h.tick(MIN);
      }
      if (m === 9) {
        expect(h.eventsOf('member-offline').at(-1)).toMatchObject({ groupInstanceId: 'B', offlineSince: t0 + 10 * MIN, removeAt: t0 + 15 * MIN });
      }
    }
    expect(h.eventsOf('rebalance-started')).toHaveLength(2); // the initial one and the 00:25 one
  });

  it('nobody comes back: at 00:15 one rebalance removes A only (B is 5 minutes gone); at 00:25 another removes B', () => {
    const h = new PolicyHarness(policy);
    const { g, t0 } = aDropsAtZero(h);
    h.tick(10 * MIN - 30_000);
    h.alive.delete('B');
    h.tick(30_000);
    expect(h.offline()).toEqual(['A', 'B']);
    h.tick(5 * MIN - 10_000);
    expect(h.now - t0).toBe(15 * MIN - 10_000);
    expect(h.group().generationId).toBe(g.generation);
    h.advance(10_000);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'registration-timeout', groupInstanceId: 'A' });
    expect(h.eventsOf('member-removed').map((e) => e.groupInstanceId)).toEqual(['A']);
    // B stays offline through the rebalance: it is not waited for, and keeps its place.
    h.completeRebalance();
    expect(h.group().allMembers().map((x) => x.groupInstanceId).sort()).toEqual(['B', 'C']);
    expect(h.offline()).toEqual(['B']);
    expect(h.group().generationId).toBe(g.generation + 1);
    h.tick(10 * MIN - 10_000);
    expect(h.group().size).toBe(2);
    h.advance(10_000);
    expect(h.now - t0).toBe(25 * MIN);
    expect(h.eventsOf('member-removed').map((e) => e.groupInstanceId)).toEqual(['A', 'B']);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'registration-timeout', groupInstanceId: 'B' });
  });

  it('members that dropped together are removed by a single rebalance', () => {
    const h = new PolicyHarness(policy);
    const g = h.staticGroup(['A', 'B', 'C'], { sessionTimeout: SESSION, rebalanceTimeout: REBALANCE });
    h.alive.delete('A');
    h.alive.delete('B');
    h.tick(SESSION);
    expect(h.offline()).toEqual(['A', 'B']);
    h.tick(15 * MIN);
    const rebalances = h.eventsOf('rebalance-started').filter((e) => e.trigger === 'registration-timeout');
    expect(rebalances).toHaveLength(1);
    expect(rebalances[0]).toMatchObject({ memberId: null, description: expect.stringContaining('A (') });
    expect(h.eventsOf('member-removed').map((e) => e.groupInstanceId).sort()).toEqual(['A', 'B']);
    h.completeRebalance();
    expect(h.group().generationId).toBe(g.generation + 1);
    expect(h.group().memberIds()).toEqual([g.members.C!.memberId]);
  });
});

describe('registration-timeout: offline members', () => {
  it('a heartbeat brings an offline member back: its own entry is cleared, it gets a session again', () => {
    const h = new PolicyHarness(policy);
    const { g, t0 } = aDropsAtZero(h);
    h.tick(3 * MIN);
    // A network partition heals: the same process heartbeats again.
    expect(h.heartbeat(g.members.A!.memberId, g.generation, 'A')).toBe(ErrorCode.NONE);
    expect(h.offline()).toEqual([]);
    expect(h.eventsOf('member-online')).toMatchObject([{ groupInstanceId: 'A', offlineSince: t0, via: 'Heartbeat' }]);
    // Its session runs again: silent for another session timeout, it is offline again.
    h.tick(SESSION);
    expect(h.offline()).toEqual(['A']);
    expect(h.eventsOf('member-offline').at(-1)!.offlineSince).toBe(t0 + 3 * MIN + SESSION);
    expect(h.eventsOf('rebalance-started').filter((e) => e.trigger !== 'member-joined')).toEqual([]);
  });

  it('a returning member that kept its member id rejoins in place, even the leader (no rebalance)', () => {
    const h = new PolicyHarness(policy);
    const { g } = aDropsAtZero(h);
    expect(g.leader.instance).toBe('A');
    const r = h.rejoin('A').result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation, memberId: g.members.A!.memberId, leader: g.members.A!.memberId, skipAssignment: true });
    expect(r.members).toHaveLength(3);
    expect(h.state()).toBe('Stable');
    const sync = h.sendSyncGroup({ generationId: g.generation, memberId: g.members.A!.memberId, groupInstanceId: 'A' }).result;
    expect(sync.assignment.toString()).toBe('A');
    expect(h.offline()).toEqual([]);
  });

  it('a rebalance does not wait for offline members, and they keep their place in the new generation', () => {
    const h = new PolicyHarness(policy);
    const { g } = aDropsAtZero(h);
    // B rejoins with new metadata: a rebalance.
    h.rejoin('B', { protocols: [{ name: 'range', metadata: Buffer.from([1]) }] });
    expect(h.state()).toBe('PreparingRebalance');
    const c = h.rejoin('C');
    // Everyone online has rejoined: the join phase completes at once, without A.
    expect(c.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.state()).toBe('CompletingRebalance');
    expect(h.group().size).toBe(3);
    expect(h.group().leaderId).not.toBe(g.members.A!.memberId);
    // The sync phase does not wait for A either (no pending-sync removal).
    h.syncAll(g.generation + 1, [h.members.B!, h.members.C!]);
    expect(h.state()).toBe('Stable');
    h.tick(2 * REBALANCE);
    expect(h.group().size).toBe(3);
    expect(h.offline()).toEqual(['A']);
  });

  it('a rebalance with every member offline waits (no member rejoined), and completes when one comes back', () => {
    const h = new PolicyHarness(policy);
    const g = h.staticGroup(['A', 'B'], { sessionTimeout: SESSION, rebalanceTimeout: 5_000 });
    h.alive.clear();
    h.advance(SESSION);
    expect(h.offline()).toEqual(['A', 'B']);
    h.coordinator.forceRebalance('groupId', 'everyone is away');
    h.advance(12_000);
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('join-phase-extended').filter((e) => e.reason === 'no-member-rejoined')).toHaveLength(2);
    // A restarts: it joins the waiting round, which completes without B (still offline, kept).
    const a = h.sendJoinGroup({ groupInstanceId: 'A', version: 9, sessionTimeout: SESSION });
    expect(a.result).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation + 1 });
    expect(a.result.members).toHaveLength(2);
    expect(h.offline()).toEqual(['B']);
  });

  it('a rebalance with every member offline ends when the registration timeout removes them: the group is Empty', () => {
    const h = new PolicyHarness(policy);
    const g = h.staticGroup(['A', 'B'], { sessionTimeout: SESSION, rebalanceTimeout: 5_000 });
    h.alive.clear();
    h.advance(SESSION);
    h.coordinator.forceRebalance('groupId', 'everyone is away');
    h.advance(15 * MIN);
    expect(h.eventsOf('member-removed').map((e) => [e.groupInstanceId, e.cause])).toEqual([
      ['A', 'registration-timeout'],
      ['B', 'registration-timeout'],
    ]);
    expect(h.state()).toBe('Empty');
    expect(h.group().generationId).toBe(g.generation + 1);
  });

  it('turning the policy off gives offline members a session again (Kafka then removes them)', () => {
    const h = new PolicyHarness(policy);
    aDropsAtZero(h);
    h.tick(MIN);
    h.coordinator.setBrokerPolicies({ 'registration-timeout': { enabled: false } });
    expect(h.offline()).toEqual([]);
    expect(h.eventsOf('member-online').at(-1)).toMatchObject({ groupInstanceId: 'A', via: 'policy-changed' });
    h.tick(SESSION);
    expect(h.eventsOf('member-removed')).toMatchObject([{ groupInstanceId: 'A', cause: 'session-timeout' }]);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-removed', removalCause: 'session-timeout' });
  });

  it('a shorter timeout set at run time applies to members already offline', () => {
    const h = new PolicyHarness(policy);
    const { t0 } = aDropsAtZero(h);
    h.tick(5 * MIN);
    h.coordinator.setGroupPolicies('groupId', { 'registration-timeout': { registrationTimeoutMs: 2 * MIN } });
    h.advance(0);
    expect(h.eventsOf('member-removed')).toMatchObject([{ groupInstanceId: 'A', cause: 'registration-timeout' }]);
    expect(h.eventsOf('rebalance-started').at(-1)!.at).toBe(t0 + 5 * MIN);
  });

  it('dynamic members and new members are not kept: Kafka rules for them', () => {
    const h = new PolicyHarness(policy);
    const r = h.dynamicJoinGroup();
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    h.advance(600);
    expect(h.eventsOf('member-removed')).toMatchObject([{ memberId: r.memberId, cause: 'session-timeout' }]);
    expect(h.eventsOf('member-offline')).toEqual([]);
  });
});
