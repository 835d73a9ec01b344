// expansion-timeout (the early KIP-345 draft's member.expansion.timeout): new static members that
// join a Stable static group are held; one rebalance admits all of them once the timeout since the
// first one has passed.

import { describe, expect, it } from 'vitest';
import { ErrorCode, PolicyHarness, groupId } from '../../support/policies/harness.js';

const SESSION = 30_000;
const EXPANSION = 30_000;
const policy = { 'expansion-timeout': { enabled: true, expansionTimeoutMs: EXPANSION } };

function stableAB(h: PolicyHarness) {
  return h.staticGroup(['A', 'B'], { sessionTimeout: SESSION, rebalanceTimeout: 60_000 });
}

describe('expansion-timeout', () => {
  it('holds new static members and admits them all with one rebalance when the timeout since the first passes', () => {
    const h = new PolicyHarness(policy);
    const g = stableAB(h);
    const from = h.events.length;
    const t = h.now;
    const c = h.sendJoinGroup({ groupInstanceId: 'C', sessionTimeout: SESSION });
    expect(c.done).toBe(false);
    expect(h.state()).toBe('Stable');
    expect(h.group().size).toBe(2);
    h.tick(10_000);
    const d = h.sendJoinGroup({ groupInstanceId: 'D', sessionTimeout: SESSION });
    expect(h.since(from, 'member-held').map((e) => [e.groupInstanceId, e.admitAt])).toEqual([
      ['C', t + EXPANSION],
      ['D', t + EXPANSION],
    ]);
    expect(h.coordinator.describeGroupDetail(groupId)!.heldStaticMembers.map((m) => m.groupInstanceId)).toEqual(['C', 'D']);
    // Held members are not members: DescribeGroups (Kafka's view) does not list them.
    expect(h.coordinator.describeGroups([groupId])[0]!.members).toHaveLength(2);
    h.tick(EXPANSION - 10_000 - 1);
    expect(h.since(from, 'rebalance-started')).toEqual([]);
    expect(h.group().generationId).toBe(g.generation);
    h.advance(1);
    const rebalances = h.since(from, 'rebalance-started');
    expect(rebalances).toHaveLength(1);
    expect(rebalances[0]).toMatchObject({ trigger: 'expansion-timeout', generationId: g.generation });
    expect(h.since(from, 'held-members-admitted')).toMatchObject([{ cause: 'expansion-timeout', memberIds: [expect.stringMatching(/^C-/), expect.stringMatching(/^D-/)] }]);
    expect(h.group().size).toBe(4);
    // A and B learn of it from their heartbeats and rejoin; the join phase completes with all four.
    const a = h.rejoin('A');
    const b = h.rejoin('B');
    for (const p of [a, b, c, d]) expect(p.result).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation + 1 });
    expect(a.result.members).toHaveLength(4);
    expect(h.state()).toBe('CompletingRebalance');
  });

  it('only Stable static groups hold: a group with a dynamic member rebalances at once', () => {
    const h = new PolicyHarness(policy);
    const r = h.dynamicJoinGroup();
    h.syncGroupLeader({ generationId: r.generationId, memberId: r.memberId, assignments: {} });
    h.sendJoinGroup({ groupInstanceId: 'C' });
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.eventsOf('member-held')).toEqual([]);
  });

  it('a rebalance that starts for another reason admits the held members into it (no second rebalance)', () => {
    const h = new PolicyHarness(policy);
    const g = stableAB(h);
    const c = h.sendJoinGroup({ groupInstanceId: 'C', sessionTimeout: SESSION });
    h.tick(5_000);
    const a = h.rejoin('A', { protocols: [{ name: 'range', metadata: Buffer.from([1]) }] }); // leader, new metadata
    expect(h.eventsOf('held-members-admitted')).toMatchObject([{ cause: 'rebalance' }]);
    const b = h.rejoin('B');
    expect(c.result.generationId).toBe(g.generation + 1);
    expect(a.result.members).toHaveLength(3);
    expect(b.result.errorCode).toBe(ErrorCode.NONE);
    h.tick(EXPANSION);
    expect(h.eventsOf('rebalance-started').filter((e) => e.trigger === 'expansion-timeout')).toEqual([]);
  });

  it('the newest JoinGroup for a held instance wins; the older is fenced', () => {
    const h = new PolicyHarness(policy);
    stableAB(h);
    const c1 = h.sendJoinGroup({ groupInstanceId: 'C' });
    const c2 = h.sendJoinGroup({ groupInstanceId: 'C' });
    expect(c1.result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(c2.done).toBe(false);
    expect(h.coordinator.describeGroupDetail(groupId)!.heldStaticMembers).toHaveLength(1);
  });

  it('a held member can be removed (LeaveGroup by instance id, removeMembers); its JoinGroup gets UNKNOWN_MEMBER_ID', () => {
    const h = new PolicyHarness(policy);
    stableAB(h);
    const c = h.sendJoinGroup({ groupInstanceId: 'C' });
    const d = h.sendJoinGroup({ groupInstanceId: 'D' });
    expect(h.batchLeaveGroup([{ memberId: '', groupInstanceId: 'C' }]).members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(c.result.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const res = h.coordinator.removeMembers(groupId, { groupInstanceIds: ['D'] });
    expect(res.members).toEqual([{ memberId: '', groupInstanceId: 'D', errorCode: 0, error: null }]);
    expect(d.result.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    h.tick(2 * EXPANSION);
    expect(h.eventsOf('rebalance-started')).toHaveLength(1);
  });

  it('turning the policy off admits the held members with one rebalance', () => {
    const h = new PolicyHarness(policy);
    const g = stableAB(h);
    h.sendJoinGroup({ groupInstanceId: 'C' });
    h.coordinator.setGroupPolicies(groupId, { 'expansion-timeout': { enabled: false } });
    expect(h.eventsOf('held-members-admitted')).toMatchObject([{ cause: 'policy-changed' }]);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'expansion-timeout', generationId: g.generation });
  });

  it('a new timeout set at run time moves the admission', () => {
    const h = new PolicyHarness(policy);
    stableAB(h);
    const t = h.now;
    h.sendJoinGroup({ groupInstanceId: 'C' });
    h.coordinator.setGroupPolicies(groupId, { 'expansion-timeout': { expansionTimeoutMs: 5_000 } });
    h.tick(5_000, 1_000);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'expansion-timeout', at: t + 5_000 });
  });
});
