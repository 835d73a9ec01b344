// kip423-join-reasons: JoinGroup v8+ Reason read as the KIP-423 draft's JoinReason, and the
// draft's rules for a Stable group (coordinator level; the wire-level twin is wire-kip423.test.ts).

import { describe, expect, it } from 'vitest';
import { classifyJoinReason, JAVA_CLIENT_REASONS } from '../../../src/broker/group/policies/join-reasons.js';
import { ErrorCode, PolicyHarness, groupId } from '../../support/policies/harness.js';

const on = { 'kip423-join-reasons': { enabled: true } };
const changed = [{ name: 'range', metadata: Buffer.from([1]) }];

function abc(h: PolicyHarness) {
  return h.staticGroup(['A', 'B', 'C'], { sessionTimeout: 30_000, rebalanceTimeout: 60_000 });
}

describe('classifyJoinReason', () => {
  it('reads the draft\'s keywords, case-insensitively', () => {
    for (const [text, reason] of [
      ['restart', 'restart'],
      ['RESTART', 'restart'],
      [' Blind ', 'restart'],
      ['BlindRestart', 'restart'],
      ['topic_metadata_change', 'topic_metadata_change'],
      ['TOPIC_METADATA_CHANGE', 'topic_metadata_change'],
      ['Upgrade', 'upgrade'],
    ] as const) {
      expect(classifyJoinReason(text), text).toEqual({ reason, source: 'draft-keyword', matched: text.trim().toLowerCase() });
    }
  });

  it('reads the Java client\'s (3.9) standard reasons', () => {
    expect(classifyJoinReason('')).toMatchObject({ reason: 'restart', source: 'java-client' });
    expect(classifyJoinReason('need to re-join with the given member-id: consumer-1-abc')).toMatchObject({ reason: 'restart', source: 'java-client' });
    expect(classifyJoinReason('cached metadata has changed')).toMatchObject({ reason: 'topic_metadata_change', source: 'java-client' });
    for (const text of [
      'subscription has changed',
      'rebalance enforced by user',
      'group is already rebalancing',
      'encountered UNKNOWN_MEMBER_ID from HEARTBEAT response',
      'rebalance failed due to UnknownMemberIdException',
      'consumer pro-actively leaving the group',
      'need to revoke partitions and re-join',
      'connect worker requested rejoin',
    ]) {
      expect(classifyJoinReason(text), text).toMatchObject({ reason: 'unknown', source: 'java-client' });
    }
    expect(JAVA_CLIENT_REASONS.length).toBeGreaterThan(10);
  });

  it('no reason, or an unknown one: unknown', () => {
    expect(classifyJoinReason(null)).toEqual({ reason: 'unknown', source: 'none', matched: null });
    expect(classifyJoinReason('because I said so')).toEqual({ reason: 'unknown', source: 'none', matched: null });
  });
});

describe('a known member rejoining a Stable group', () => {
  it('restart from the leader, v9: current generation, members, SkipAssignment; no rebalance (Kafka would rebalance)', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    const r = h.rejoin('A', { reason: 'restart', version: 9 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation, leader: g.leader.memberId, memberId: g.leader.memberId, skipAssignment: true });
    expect(r.members.map((m) => m.groupInstanceId).sort()).toEqual(['A', 'B', 'C']);
    expect(h.state()).toBe('Stable');
    expect(h.eventsOf('join-reason').at(-1)).toMatchObject({ policy: 'kip423-join-reasons', joinReason: 'restart', decision: 'no-rebalance', memberId: g.leader.memberId });
    // Its SyncGroup returns the stored assignment.
    expect(h.sendSyncGroup({ generationId: g.generation, memberId: g.leader.memberId, groupInstanceId: 'A', assignments: { x: Buffer.from('ignored') } }).result.assignment.toString()).toBe('A');

    const k = new PolicyHarness();
    abc(k);
    k.rejoin('A', { reason: 'restart', version: 9 });
    expect(k.state()).toBe('PreparingRebalance');
  });

  it('restart from the leader, v8: current generation and members, no SkipAssignment (v9 only)', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    const r = h.rejoin('A', { reason: 'BLIND', version: 8 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation, leader: g.leader.memberId, skipAssignment: false });
    expect(r.members).toHaveLength(3);
    expect(h.state()).toBe('Stable');
  });

  it('restart from a follower: current generation, no members', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    const r = h.rejoin('B', { reason: 'blindrestart', version: 9 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation, skipAssignment: false, members: [] });
  });

  it('topic_metadata_change from the leader: a rebalance', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    h.rejoin('A', { reason: 'topic_metadata_change', version: 8 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'topic-metadata-change', joinReason: 'topic_metadata_change', memberId: g.leader.memberId });
  });

  it('topic_metadata_change from a follower is treated as unknown: Kafka\'s rules (unchanged follower: no rebalance)', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    const r = h.rejoin('B', { reason: 'topic_metadata_change', version: 9 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation });
    expect(h.state()).toBe('Stable');
    expect(h.eventsOf('join-reason').at(-1)).toMatchObject({ joinReason: 'topic_metadata_change', decision: 'kafka-rules' });
  });

  it('upgrade: a rebalance, even from an unchanged follower', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.rejoin('C', { reason: 'upgrade', version: 9 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-upgrade', joinReason: 'upgrade', groupInstanceId: 'C' });
  });

  it('a protocol change always rebalances, whatever the reason', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.rejoin('B', { reason: 'restart', version: 9, protocols: changed });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-metadata-changed', joinReason: 'restart' });
  });

  it('an unknown member always rebalances', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.sendJoinGroup({ groupInstanceId: 'D', reason: 'restart', version: 9 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-joined', joinReason: 'restart' });
  });

  it('below v8 there is no reason: Kafka\'s rules (the leader\'s rejoin rebalances)', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.rejoin('A', { reason: 'restart', version: 7 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'leader-rejoined', joinReason: 'unknown', clientReason: null });
    expect(h.eventsOf('join-reason').at(-1)).toMatchObject({ joinReason: 'unknown', decision: 'kafka-rules' });
  });

  it('outside Stable: Kafka\'s rules', () => {
    const h = new PolicyHarness(on);
    const first = h.staticJoinGroup({ groupInstanceId: 'A' });
    expect(h.state()).toBe('CompletingRebalance');
    // Kafka: new metadata during CompletingRebalance starts another round (which this lone member completes at once).
    const r = h.rejoin('A', { memberId: first.memberId, reason: 'restart', protocols: changed }).result;
    expect(r.generationId).toBe(first.generationId + 1);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-metadata-changed', generationId: first.generationId });
    expect(h.eventsOf('join-reason').at(-1)).toMatchObject({ decision: 'kafka-rules' });
  });
});

describe('a known instance rejoining with MemberId "" (a static restart)', () => {
  it('restart with unchanged protocols: Kafka\'s no-rebalance replacement', () => {
    const h = new PolicyHarness(on);
    const g = abc(h);
    const r = h.sendJoinGroup({ groupInstanceId: 'B', reason: 'restart', version: 9 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation });
    expect(h.state()).toBe('Stable');
    expect(h.eventsOf('join-reason').at(-1)).toMatchObject({ decision: 'no-rebalance' });
  });

  it('restart with changed protocols rebalances (Kafka keeps the generation when the selected protocol stays)', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.sendJoinGroup({ groupInstanceId: 'B', reason: 'restart', version: 9, protocols: changed });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-metadata-changed', groupInstanceId: 'B' });

    const k = new PolicyHarness();
    abc(k);
    k.sendJoinGroup({ groupInstanceId: 'B', reason: 'restart', version: 9, protocols: changed });
    expect(k.state()).toBe('Stable');
  });

  it('topic_metadata_change from the returning leader rebalances; an unknown reason follows Kafka', () => {
    const h = new PolicyHarness(on);
    abc(h);
    h.sendJoinGroup({ groupInstanceId: 'A', reason: 'topic_metadata_change', version: 9 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'topic-metadata-change', groupInstanceId: 'A' });
    const k = new PolicyHarness(on);
    abc(k);
    k.sendJoinGroup({ groupInstanceId: 'A', reason: 'whatever', version: 9 });
    expect(k.state()).toBe('Stable');
  });
});

describe('reasons are recorded per rebalance', () => {
  it('in rebalance-started and in the group\'s rebalance history, with the policy on or off', () => {
    for (const policies of [on, {}]) {
      const h = new PolicyHarness(policies);
      abc(h);
      h.rejoin('A', { reason: 'cached metadata has changed', version: 9 });
      const last = h.coordinator.describeGroupDetail(groupId)!.rebalances.at(-1)!;
      expect(last).toMatchObject({ clientReason: 'cached metadata has changed', joinReason: 'topic_metadata_change', generationId: 1 });
      expect(h.eventsOf('rebalance-started').at(-1)!.joinReason).toBe('topic_metadata_change');
    }
  });
});
