// Coordinator-level fixture for the draft-policy tests: Kafka's GroupCoordinatorTest harness
// (test/broker/group/harness.ts) plus helpers to build a Stable static group, keep some members
// alive while fake time passes, and rebalance a group again.

import { expect } from 'vitest';
import type { GroupEvent } from '../../../src/broker/group/events.js';
import type { PolicyUpdate } from '../../../src/broker/group/policies/types.js';
import type { JoinGroupResponse } from '../../../src/broker/group/types.js';
import { GroupInitialRebalanceDelay, Harness, groupId, protocols, type JoinOptions, type Pending } from '../../broker/group/harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

export { ErrorCode, groupId, protocols };

export interface StaticMember {
  instance: string;
  memberId: string;
}

export interface StaticGroup {
  generation: number;
  leader: StaticMember;
  members: Record<string, StaticMember>;
  /** The assignment each instance received (the leader assigns Buffer.from(instance)). */
  assignments: Record<string, string>;
}

export class PolicyHarness extends Harness {
  /** Instances currently heartbeating in `tick`. */
  readonly alive = new Set<string>();
  members: Record<string, StaticMember> = {};

  constructor(policies: PolicyUpdate = {}, options: ConstructorParameters<typeof Harness>[0] = {}) {
    super({ policies, ...options });
  }

  /**
   * Static members join together (JoinGroup v9) and sync; the first is the leader and hands every
   * member the assignment `Buffer.from(instance)`. Leaves the group Stable.
   */
  staticGroup(instances: string[], o: { sessionTimeout?: number; rebalanceTimeout?: number; version?: number } = {}): StaticGroup {
    const joins = instances.map((instance) =>
      this.sendJoinGroup({ groupInstanceId: instance, sessionTimeout: o.sessionTimeout, rebalanceTimeout: o.rebalanceTimeout, version: o.version ?? 9 }),
    );
    this.advance(GroupInitialRebalanceDelay + 1);
    this.advance(GroupInitialRebalanceDelay + 1);
    const results = joins.map((j) => j.result);
    for (const r of results) expect(r.errorCode).toBe(ErrorCode.NONE);
    for (const [i, instance] of instances.entries()) this.members[instance] = { instance, memberId: results[i]!.memberId };
    const leaderId = results[0]!.leader;
    const leader = Object.values(this.members).find((m) => m.memberId === leaderId)!;
    const generation = results[0]!.generationId;
    const assignments = this.syncAll(generation, Object.values(this.members).filter((m) => m.instance in this.members));
    for (const instance of instances) this.alive.add(instance);
    expect(this.state()).toBe('Stable');
    return { generation, leader, members: { ...this.members }, assignments };
  }

  /** Leader first (assigning Buffer.from(instance) to each), then the others; returns what each got. */
  syncAll(generation: number, members: StaticMember[]): Record<string, string> {
    const leaderId = this.group().leaderId;
    const byId = new Map(Object.values(this.members).map((m) => [m.memberId, m]));
    const assignments: Record<string, Buffer> = {};
    for (const id of this.group().memberIds()) assignments[id] = Buffer.from(byId.get(id)?.instance ?? id);
    const out: Record<string, string> = {};
    const leader = members.find((m) => m.memberId === leaderId);
    const order = leader ? [leader, ...members.filter((m) => m !== leader)] : members;
    for (const m of order) {
      const r = this.sendSyncGroup({
        generationId: generation,
        memberId: m.memberId,
        groupInstanceId: m.instance,
        assignments: m.memberId === leaderId ? assignments : {},
      }).result;
      expect(r.errorCode, `SyncGroup of ${m.instance}`).toBe(ErrorCode.NONE);
      out[m.instance] = r.assignment.toString();
    }
    return out;
  }

  /** A static member's JoinGroup with its current member id (or `memberId`). */
  rejoin(instance: string, o: JoinOptions = {}): Pending<JoinGroupResponse> {
    return this.sendJoinGroup({ memberId: this.members[instance]?.memberId ?? '', groupInstanceId: instance, version: 9, ...o });
  }

  /**
   * The live members (this.alive) rejoin a rebalance under way, and everyone who got an answer
   * syncs. Returns the new generation.
   */
  completeRebalance(o: { advance?: number } = {}): number {
    expect(this.state()).toBe('PreparingRebalance');
    const joins = [...this.alive].filter((i) => this.members[i]).map((i) => [i, this.rejoin(i)] as const);
    if (o.advance !== undefined) this.advance(o.advance);
    for (const [i, j] of joins) expect(j.result.errorCode, `JoinGroup of ${i}`).toBe(ErrorCode.NONE);
    const generation = joins[0]![1].result.generationId;
    this.syncAll(generation, joins.map(([i]) => this.members[i]!));
    expect(this.state()).toBe('Stable');
    return generation;
  }

  /**
   * Advances `ms` in steps of `step`, heartbeating every live member at each step (with the
   * group's current generation), so only the others' sessions can expire.
   */
  tick(ms: number, step = 10_000): void {
    let left = ms;
    while (left > 0) {
      const d = Math.min(step, left);
      this.advance(d);
      left -= d;
      this.heartbeatAlive();
    }
  }

  heartbeatAlive(): void {
    const g = this.coordinator.group(groupId);
    if (!g) return;
    for (const instance of this.alive) {
      const m = this.members[instance];
      if (!m || !g.has(m.memberId)) continue;
      this.heartbeat(m.memberId, g.generationId, instance);
    }
  }

  offline(): string[] {
    return this.coordinator.offlineStaticMembers(groupId).map((m) => m.groupInstanceId);
  }

  /** Events of a type since index `from`. */
  since<T extends GroupEvent['type']>(from: number, type: T): Extract<GroupEvent, { type: T }>[] {
    return this.events.slice(from).filter((e): e is Extract<GroupEvent, { type: T }> => e.type === type);
  }
}
