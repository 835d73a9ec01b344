// The event hook (group transitions, rebalance causes, KIP-800 reasons) and delivery guarantees:
// responses and events are delivered after the state change, in order, and callbacks may re-enter.

import { describe, expect, it } from 'vitest';
import { FakeTimers } from '../../../src/broker/group/clock.js';
import { GroupCoordinator } from '../../../src/broker/group/coordinator.js';
import type { GroupEvent } from '../../../src/broker/group/events.js';
import type { JoinGroupResponse, SyncGroupResponse } from '../../../src/broker/group/types.js';
import { GroupInitialRebalanceDelay, Harness, followerInstanceId, groupId, leaderInstanceId, protocols } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

describe('events', () => {
  it('a first join emits the full lifecycle in order', () => {
    const h = new Harness();
    const r = h.dynamicJoinGroup({ reason: 'need to re-join with the given member-id' });
    h.syncGroupLeader({ generationId: 1, memberId: r.memberId, assignments: {} });
    expect(h.events.map((e) => e.type)).toEqual([
      'group-created',
      'member-pending',
      'member-joined',
      'rebalance-started',
      'state-changed',
      'state-changed',
      'generation-bumped',
      'state-changed',
    ]);
    expect(h.eventsOf('rebalance-started')[0]).toMatchObject({
      groupId,
      generationId: 0,
      trigger: 'member-joined',
      memberId: r.memberId,
      groupInstanceId: null,
      clientReason: 'need to re-join with the given member-id',
      removalCause: null,
    });
    expect(h.eventsOf('state-changed').map((e) => `${e.from}->${e.to}`)).toEqual([
      'Empty->PreparingRebalance',
      'PreparingRebalance->CompletingRebalance',
      'CompletingRebalance->Stable',
    ]);
    expect(h.eventsOf('generation-bumped')[0]).toMatchObject({ generationId: 1, protocolName: 'range', leader: r.memberId, memberIds: [r.memberId] });
    // `at` is the clock time of the event.
    expect(h.eventsOf('generation-bumped')[0]!.at).toBe(1_000_000 + GroupInitialRebalanceDelay);
  });

  it('KIP-800 reasons are attached to the rebalance cause and never change decisions', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    // An unchanged follower with a reason still does not rebalance.
    h.sendJoinGroup({ memberId: rr.followerId, groupInstanceId: followerInstanceId, protocols: [{ name: 'range', metadata: Buffer.alloc(0) }, { name: 'roundrobin', metadata: Buffer.alloc(0) }], reason: 'just because' });
    expect(h.state()).toBe('Stable');
    h.sendJoinGroup({ memberId: rr.leaderId, groupInstanceId: leaderInstanceId, reason: 'enforceRebalance: topic metadata changed', version: 8 });
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({
      trigger: 'leader-rejoined',
      memberId: rr.leaderId,
      groupInstanceId: leaderInstanceId,
      clientReason: 'enforceRebalance: topic metadata changed',
      description: `Leader ${rr.leaderId} re-joining group during Stable; client reason: enforceRebalance: topic metadata changed`,
    });
  });

  it('session expiry reports the removal and the rebalance it causes', () => {
    const h = new Harness();
    const rr = h.staticMembersJoinAndRebalance();
    h.advance(250);
    h.heartbeat(rr.leaderId, 1);
    h.advance(250);
    expect(h.eventsOf('member-removed')).toMatchObject([{ memberId: rr.followerId, groupInstanceId: followerInstanceId, cause: 'session-timeout', clientReason: null }]);
    expect(h.eventsOf('rebalance-started').at(-1)).toMatchObject({ trigger: 'member-removed', removalCause: 'session-timeout', memberId: rr.followerId });
  });

  it('a superseded parked JoinGroup is reported as dropped', () => {
    const h = new Harness();
    const first = h.sendJoinGroup({ groupInstanceId: 'a' });
    const a = h.group().currentStaticMemberId('a')!;
    h.sendJoinGroup({ groupInstanceId: 'b' }); // keeps the phase open
    const again = h.sendJoinGroup({ groupInstanceId: 'a', memberId: a });
    h.advance(GroupInitialRebalanceDelay * 2);
    expect(first.done).toBe(false);
    expect(again.result.errorCode).toBe(ErrorCode.NONE);
    expect(h.eventsOf('callback-dropped')).toMatchObject([{ memberId: a, api: 'JoinGroup' }]);
  });

  it('an internal error inside a timer is reported, not thrown into the timer service', () => {
    const h = new Harness();
    // A member listing the same protocol twice: Kafka counts it twice and selectProtocol fails.
    const f = h.sendJoinGroup({ protocols: [...protocols, ...protocols] });
    expect(() => h.advance(GroupInitialRebalanceDelay)).not.toThrow();
    expect(f.done).toBe(false);
    expect(h.eventsOf('internal-error')).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('responses are delivered after the operation completes, so a callback may call straight back in', () => {
    const timers = new FakeTimers();
    const log: string[] = [];
    let coordinator!: GroupCoordinator;
    let sync: SyncGroupResponse | undefined;
    coordinator = new GroupCoordinator({
      timers,
      groupMinSessionTimeoutMs: 10,
      groupInitialRebalanceDelayMs: 0,
      onEvent: (e: GroupEvent) => log.push(`event:${e.type}`),
    });
    let join: JoinGroupResponse | undefined;
    coordinator.joinGroup(3, { clientId: 'c', clientHost: '/h' }, { groupId: 'g', sessionTimeoutMs: 1000, rebalanceTimeoutMs: 1000, memberId: '', protocolType: 'consumer', protocols }, (r) => {
      log.push('join-response');
      join = r;
      // Re-enter: the group is already CompletingRebalance with this member pending sync.
      coordinator.syncGroup(3, { groupId: 'g', generationId: r.generationId, memberId: r.memberId, assignments: [{ memberId: r.memberId, assignment: Buffer.from([1]) }] }, (s) => {
        log.push('sync-response');
        sync = s;
      });
      log.push('sync-called');
    });
    expect(join).toBeUndefined();
    timers.advance(0);
    expect(join?.errorCode).toBe(ErrorCode.NONE);
    expect(sync).toEqual({ errorCode: 0, protocolType: 'consumer', protocolName: 'range', assignment: Buffer.from([1]) });
    // The nested sync's response waits until the join callback has returned.
    expect(log.indexOf('sync-called')).toBeLessThan(log.indexOf('sync-response'));
    expect(log.filter((l) => l === 'join-response')).toHaveLength(1);
    expect(coordinator.group('g')!.state).toBe('Stable');
  });

  it('a throwing response callback surfaces to the caller after the state change is complete', () => {
    const h = new Harness();
    expect(() =>
      h.coordinator.joinGroup(4, { clientId: 'c', clientHost: '/h' }, { groupId, sessionTimeoutMs: 500, memberId: '', protocolType: 'consumer', protocols }, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(h.group().numPending).toBe(1);
  });

  it('close() stops all timers; nothing fires afterwards', () => {
    const h = new Harness();
    const f = h.sendJoinGroup();
    h.coordinator.close();
    h.advance(10 * 60 * 1000);
    expect(f.done).toBe(false);
    expect(h.timers.pendingCount()).toBe(0);
  });

  it('the periodic offset-expiration task keeps one timer alive and can be disabled', () => {
    const h = new Harness();
    expect(h.timers.pendingCount()).toBe(1);
    h.advance(600_000);
    expect(h.timers.pendingCount()).toBe(1);
    const off = new Harness({ offsetsRetentionCheckIntervalMs: 0 });
    expect(off.timers.pendingCount()).toBe(0);
  });
});
