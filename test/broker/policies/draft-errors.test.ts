// kip345-draft-errors: the early KIP-345 draft's error names (MISSING_MEMBER_ID,
// DUPLICATE_STATIC_MEMBER, NO_STATIC_MEMBER_INFO_SET) answered with the real codes that make clients
// do what the draft intended; the names show in `draft-error` events.

import { describe, expect, it } from 'vitest';
import { DRAFT_ERROR_CODES, DraftErrorsPolicy } from '../../../src/broker/group/policies/draft-errors.js';
import { ErrorCode, PolicyHarness, groupId } from '../../support/policies/harness.js';
import { Harness } from '../group/harness.js';

const SESSION = 30_000;
const policy = { 'kip345-draft-errors': { enabled: true } };

/** The policy's open claims for the group (its own per-group state). */
function claimsOf(h: PolicyHarness): ReadonlyMap<string, unknown> {
  return h.coordinator.draftPolicy(DraftErrorsPolicy).stateOf(h.group())?.claims ?? new Map();
}

function group(h: PolicyHarness) {
  return h.staticGroup(['A', 'B', 'C'], { sessionTimeout: SESSION, rebalanceTimeout: 60_000 });
}

describe('the mapping table', () => {
  it('maps each draft name onto a real code', () => {
    expect(DRAFT_ERROR_CODES).toEqual({
      MISSING_MEMBER_ID: ErrorCode.MEMBER_ID_REQUIRED,
      DUPLICATE_STATIC_MEMBER: ErrorCode.FENCED_INSTANCE_ID,
      NO_STATIC_MEMBER_INFO_SET: ErrorCode.UNKNOWN_MEMBER_ID,
    });
  });
});

describe('MISSING_MEMBER_ID: JoinGroup with MemberId "" for a mapped instance', () => {
  it('is answered MEMBER_ID_REQUIRED with the mapped member id (Kafka would replace the member id)', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const r = h.sendJoinGroup({ groupInstanceId: 'B', version: 5 }).result;
    expect(r).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: g.members.B!.memberId, generationId: -1 });
    expect(h.eventsOf('draft-error')).toMatchObject([
      {
        policy: 'kip345-draft-errors',
        draftError: 'MISSING_MEMBER_ID',
        errorCode: ErrorCode.MEMBER_ID_REQUIRED,
        errorName: 'MEMBER_ID_REQUIRED',
        operation: 'JoinGroup',
        groupInstanceId: 'B',
        mappedMemberId: g.members.B!.memberId,
      },
    ]);
    expect(h.eventsOf('member-replaced')).toEqual([]);

    // Without the policy: Kafka's static rejoin, a new member id, no error.
    const k = new PolicyHarness();
    const kg = group(k);
    const kr = k.sendJoinGroup({ groupInstanceId: 'B', version: 5 }).result;
    expect(kr.errorCode).toBe(ErrorCode.NONE);
    expect(kr.memberId).not.toBe(kg.members.B!.memberId);
    expect(k.eventsOf('draft-error')).toEqual([]);
  });

  it('a restart: the claimant rejoins with the id; when the old incarnation stays silent for its session it takes its place, old assignment, no rebalance', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const bId = g.members.B!.memberId;
    // B crashes right after a heartbeat; its restarted process joins 2 s later.
    h.alive.delete('B');
    h.advance(2000);
    h.heartbeatAlive();
    const handout = h.sendJoinGroup({ groupInstanceId: 'B', version: 5 }).result;
    expect(handout.memberId).toBe(bId);
    const rejoin = h.sendJoinGroup({ memberId: bId, groupInstanceId: 'B', version: 5, sessionTimeout: SESSION });
    expect(rejoin.done, 'held until the old incarnation is known to be gone').toBe(false);
    h.tick(SESSION - 2000 - 10);
    expect(rejoin.done).toBe(false);
    h.advance(10);
    expect(rejoin.result).toMatchObject({ errorCode: ErrorCode.NONE, memberId: bId, generationId: g.generation, leader: g.leader.memberId, members: [] });
    const sync = h.sendSyncGroup({ generationId: g.generation, memberId: bId, groupInstanceId: 'B' }).result;
    expect(sync.assignment.toString()).toBe('B');
    expect(h.state()).toBe('Stable');
    expect(h.group().generationId).toBe(g.generation);
    expect(h.eventsOf('rebalance-started')).toHaveLength(1);
    expect(h.eventsOf('member-removed')).toEqual([]);
    // It carries on as B.
    h.alive.add('B');
    h.tick(3 * SESSION);
    expect(h.group().size).toBe(3);
  });

  it('a duplicate: a second process with a live instance is refused (DUPLICATE_STATIC_MEMBER → FENCED_INSTANCE_ID); the running member is untouched', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const bId = g.members.B!.memberId;
    const from = h.events.length;
    expect(h.sendJoinGroup({ groupInstanceId: 'B', version: 5 }).result.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const dup = h.sendJoinGroup({ memberId: bId, groupInstanceId: 'B', version: 5 });
    expect(dup.done).toBe(false);
    // The running B heartbeats: it is alive, so the newcomer is the duplicate.
    expect(h.heartbeat(bId, g.generation, 'B')).toBe(ErrorCode.NONE);
    expect(dup.result).toMatchObject({ errorCode: ErrorCode.FENCED_INSTANCE_ID, memberId: bId });
    expect(h.since(from, 'draft-error').map((e) => e.draftError)).toEqual(['MISSING_MEMBER_ID', 'DUPLICATE_STATIC_MEMBER']);
    expect(h.since(from, 'draft-error')[1]).toMatchObject({ errorCode: 82, errorName: 'FENCED_INSTANCE_ID', operation: 'JoinGroup', groupInstanceId: 'B' });
    expect(h.since(from, 'member-fenced')).toMatchObject([{ memberId: bId, groupInstanceId: 'B', operation: 'JoinGroup' }]);
    expect(h.state()).toBe('Stable');
    expect(h.group().generationId).toBe(g.generation);
    expect(h.since(from, 'rebalance-started')).toEqual([]);
    h.tick(3 * SESSION);
    expect(h.group().size).toBe(3);
  });

  it('a duplicate whose running twin spoke before it came back is refused at once', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const bId = g.members.B!.memberId;
    h.sendJoinGroup({ groupInstanceId: 'B', version: 5 });
    // The running B commits offsets in between.
    expect(h.commitOne(bId, g.generation, 'B')).toBe(ErrorCode.NONE);
    expect(h.sendJoinGroup({ memberId: bId, groupInstanceId: 'B', version: 5 }).result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('a second JoinGroup from the running member (it rejoins) proves the claimant a duplicate', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const cId = g.members.C!.memberId;
    h.sendJoinGroup({ groupInstanceId: 'C', version: 5 });
    const dup = h.sendJoinGroup({ memberId: cId, groupInstanceId: 'C', version: 5 });
    const running = h.sendJoinGroup({ memberId: cId, groupInstanceId: 'C', version: 5 });
    expect(dup.result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    // The running follower's unchanged rejoin is Kafka's: the current generation.
    expect(running.result).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation });
  });

  it('an offline member (registration-timeout) gets its id back at once and rejoins in place', () => {
    const h = new PolicyHarness({ ...policy, 'registration-timeout': { enabled: true, registrationTimeoutMs: 600_000 } });
    const g = group(h);
    const aId = g.members.A!.memberId;
    h.alive.delete('A');
    h.tick(SESSION + 10_000);
    expect(h.offline()).toEqual(['A']);
    expect(h.sendJoinGroup({ groupInstanceId: 'A', version: 9 }).result).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: aId });
    const r = h.sendJoinGroup({ memberId: aId, groupInstanceId: 'A', version: 9 }).result;
    // A is the leader: it is told so, with SkipAssignment (v9), and nothing rebalances.
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, generationId: g.generation, leader: aId, skipAssignment: true });
    expect(h.sendSyncGroup({ generationId: g.generation, memberId: aId, groupInstanceId: 'A' }).result.assignment.toString()).toBe('A');
    expect(h.offline()).toEqual([]);
    expect(h.eventsOf('rebalance-started')).toHaveLength(1);
  });

  it('outside Stable the id is handed out without a claim, and the rejoin follows Kafka\'s rules', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    h.rejoin('A', { protocols: [{ name: 'range', metadata: Buffer.from([7]) }] }); // the leader: a rebalance
    expect(h.state()).toBe('PreparingRebalance');
    expect(h.sendJoinGroup({ groupInstanceId: 'B', version: 5 }).result.memberId).toBe(g.members.B!.memberId);
    const b = h.sendJoinGroup({ memberId: g.members.B!.memberId, groupInstanceId: 'B', version: 5 });
    const c = h.rejoin('C');
    expect(b.result.errorCode).toBe(ErrorCode.NONE);
    expect(c.result.generationId).toBe(g.generation + 1);
    expect(claimsOf(h).size).toBe(0);
  });

  it('a held claimant whose member is removed starts over (UNKNOWN_MEMBER_ID); turning the policy off does the same', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    h.sendJoinGroup({ groupInstanceId: 'B', version: 5 });
    const held = h.sendJoinGroup({ memberId: g.members.B!.memberId, groupInstanceId: 'B', version: 5 });
    h.coordinator.removeMembers(groupId, { groupInstanceIds: ['B'] });
    expect(held.result).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: '' });

    const h2 = new PolicyHarness(policy);
    const g2 = group(h2);
    h2.sendJoinGroup({ groupInstanceId: 'C', version: 5 });
    const held2 = h2.sendJoinGroup({ memberId: g2.members.C!.memberId, groupInstanceId: 'C', version: 5 });
    h2.coordinator.setBrokerPolicies({ 'kip345-draft-errors': { enabled: false } });
    expect(held2.result.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // Then Kafka's rules: a rejoin with MemberId "" replaces the member id.
    expect(h2.sendJoinGroup({ groupInstanceId: 'C', version: 5 }).result.errorCode).toBe(ErrorCode.NONE);
  });
});

describe('DUPLICATE_STATIC_MEMBER', () => {
  it('JoinGroup with a member id while the instance is new: FENCED_INSTANCE_ID (Kafka: UNKNOWN_MEMBER_ID)', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const r = h.sendJoinGroup({ memberId: g.members.A!.memberId, groupInstanceId: 'new-instance', version: 5 }).result;
    expect(r.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.eventsOf('draft-error').at(-1)).toMatchObject({ draftError: 'DUPLICATE_STATIC_MEMBER', groupInstanceId: 'new-instance', memberId: g.members.A!.memberId });

    const k = new PolicyHarness();
    const kg = group(k);
    expect(k.sendJoinGroup({ memberId: kg.members.A!.memberId, groupInstanceId: 'new-instance', version: 5 }).result.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a pending (MEMBER_ID_REQUIRED) member id sent with an instance id: FENCED_INSTANCE_ID (Kafka: UNKNOWN_SERVER_ERROR)', () => {
    const h = new PolicyHarness(policy);
    const first = h.sendJoinGroup({ version: 5 }).result;
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.sendJoinGroup({ memberId: first.memberId, groupInstanceId: 'x', version: 5 }).result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const k = new Harness();
    const kf = k.sendJoinGroup({ version: 5 }).result;
    expect(k.sendJoinGroup({ memberId: kf.memberId, groupInstanceId: 'x', version: 5 }).result.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
  });

  it('Kafka\'s own FENCED_INSTANCE_ID (ids disagree with the map) carries the draft name in events', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    expect(h.heartbeat(g.members.A!.memberId, g.generation, 'B')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.sendSyncGroup({ generationId: g.generation, memberId: g.members.C!.memberId, groupInstanceId: 'A' }).result.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.eventsOf('draft-error').map((e) => [e.draftError, e.operation, e.mappedMemberId])).toEqual([
      ['DUPLICATE_STATIC_MEMBER', 'Heartbeat', g.members.B!.memberId],
      ['DUPLICATE_STATIC_MEMBER', 'SyncGroup', g.members.A!.memberId],
    ]);
  });
});

describe('commits (OffsetCommit, TxnOffsetCommit)', () => {
  it('NO_STATIC_MEMBER_INFO_SET → UNKNOWN_MEMBER_ID: an instance id without the member id (Kafka: FENCED_INSTANCE_ID)', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    expect(h.commitOne('', g.generation, 'A')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.eventsOf('draft-error').at(-1)).toMatchObject({ draftError: 'NO_STATIC_MEMBER_INFO_SET', operation: 'OffsetCommit', errorCode: 25, mappedMemberId: g.members.A!.memberId });
    const k = new PolicyHarness();
    const kg = group(k);
    expect(k.commitOne('', kg.generation, 'A')).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('NO_STATIC_MEMBER_INFO_SET: a static member committing without its instance id, from OffsetCommit v7 (Kafka accepts it)', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const commit = (version: number) =>
      h.commitOffsets(g.members.B!.memberId, g.generation, [{ topic: 't', partition: 0, offset: 1n }], null, groupId, version).topics[0]!.partitions[0]!.errorCode;
    expect(commit(8)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(commit(7)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // Below v7 the request cannot carry the instance id: Kafka's rules.
    expect(commit(6)).toBe(ErrorCode.NONE);
    const k = new PolicyHarness();
    const kg = group(k);
    expect(k.commitOffsets(kg.members.B!.memberId, kg.generation, [{ topic: 't', partition: 0, offset: 1n }], null, groupId, 8).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('DUPLICATE_STATIC_MEMBER → FENCED_INSTANCE_ID: ids that disagree with the map', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    // The instance is mapped to another member id (Kafka says the same).
    expect(h.commitOne(g.members.B!.memberId, g.generation, 'A')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    // A static member naming an instance that is not its own (Kafka: UNKNOWN_MEMBER_ID).
    expect(h.commitOne(g.members.B!.memberId, g.generation, 'Z')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(h.eventsOf('draft-error').map((e) => e.draftError)).toEqual(['DUPLICATE_STATIC_MEMBER', 'DUPLICATE_STATIC_MEMBER']);
    expect(h.eventsOf('member-fenced').map((e) => e.operation)).toEqual(['OffsetCommit', 'OffsetCommit']);
    const k = new PolicyHarness();
    const kg = group(k);
    expect(k.commitOne(kg.members.B!.memberId, kg.generation, 'Z')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('good commits, and admin commits (generation -1 to an Empty group), pass', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    expect(h.commitOne(g.members.C!.memberId, g.generation, 'C')).toBe(ErrorCode.NONE);
    expect(h.commitOne('whoever', -1, 'whatever', 'other-group')).toBe(ErrorCode.NONE);
    expect(h.eventsOf('draft-error')).toEqual([]);
  });

  it('TxnOffsetCommit v3+ follows the same rules', () => {
    const h = new PolicyHarness(policy);
    const g = group(h);
    const txn = (memberId: string, groupInstanceId: string | null, version = 3) =>
      h.coordinator.txnOffsetCommit(version, {
        transactionalId: 'tx',
        groupId,
        producerId: 1n,
        producerEpoch: 0,
        generationId: g.generation,
        memberId,
        groupInstanceId,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }],
      }).topics[0]!.partitions[0]!.errorCode;
    expect(txn('', 'A')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(txn(g.members.A!.memberId, null)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(txn(g.members.A!.memberId, 'B')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(txn(g.members.A!.memberId, 'A')).toBe(ErrorCode.NONE);
    expect(h.eventsOf('draft-error').map((e) => [e.draftError, e.operation])).toEqual([
      ['NO_STATIC_MEMBER_INFO_SET', 'TxnOffsetCommit'],
      ['NO_STATIC_MEMBER_INFO_SET', 'TxnOffsetCommit'],
      ['DUPLICATE_STATIC_MEMBER', 'TxnOffsetCommit'],
    ]);
  });
});
