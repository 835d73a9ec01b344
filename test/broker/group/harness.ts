// Test fixture mirroring Kafka 3.9's GroupCoordinatorTest: same broker settings, same helpers
// (sendJoinGroup, dynamicJoinGroup, staticJoinGroup, syncGroupLeader, ...), driven by FakeTimers.

import { expect } from 'vitest';
import { FakeTimers } from '../../../src/broker/group/clock.js';
import type { BrokerClock } from '../../../src/broker/time/broker-clock.js';
import { GroupCoordinator, type GroupCoordinatorOptions } from '../../../src/broker/group/coordinator.js';
import type { GroupEvent } from '../../../src/broker/group/events.js';
import { CountingGroupRecordSink, type GroupRecordBatch } from '../../../src/broker/group/records.js';
import type { ClassicGroup } from '../../../src/broker/group/group.js';
import type {
  GroupState,
  JoinGroupRequestProtocol,
  JoinGroupResponse,
  LeaveGroupMemberIdentity,
  LeaveGroupResponse,
  OffsetCommitResponse,
  SyncGroupResponse,
} from '../../../src/broker/group/types.js';
import { ErrorCode } from '../../../src/codec/index.js';

export const ClientId = 'consumer-test';
export const ClientHost = '/127.0.0.1';
export const GroupMinSessionTimeout = 10;
export const GroupMaxSessionTimeout = 10 * 60 * 1000;
export const GroupMaxSize = 4;
export const DefaultRebalanceTimeout = 500;
export const DefaultSessionTimeout = 500;
export const GroupInitialRebalanceDelay = 50;
export const NewMemberJoinTimeoutMs = 5 * 60 * 1000;

export const groupId = 'groupId';
export const protocolType = 'consumer';
export const protocolName = 'range';
export const leaderInstanceId = 'leader';
export const followerInstanceId = 'follower';
export const invalidMemberId = 'invalidMember';
export const metadata = Buffer.alloc(0);
export const protocols: JoinGroupRequestProtocol[] = [{ name: protocolName, metadata }];
export const protocolSuperset: JoinGroupRequestProtocol[] = [
  { name: protocolName, metadata },
  { name: 'roundrobin', metadata },
];

/**
 * Random walks' clients learn their member id and generation from the group, as a real client
 * does from its answers (a static one by its instance id).
 */
export function learnFromGroup(h: Harness, clients: Array<{ instanceId: string | null; memberId: string; generation: number }>, id = groupId): void {
  const g = h.coordinator.group(id);
  for (const cl of clients) {
    const memberId = cl.instanceId !== null ? g?.currentStaticMemberId(cl.instanceId) : cl.memberId;
    if (memberId !== undefined && g?.has(memberId)) {
      cl.memberId = memberId;
      cl.generation = g.generationId;
    }
  }
}

/** A response that may arrive later; fails the test if it arrives twice. */
export class Pending<T> {
  private value: T | undefined;
  calls = 0;

  readonly callback = (v: T): void => {
    this.calls++;
    expect(this.calls, 'response delivered more than once').toBe(1);
    this.value = v;
  };

  get done(): boolean {
    return this.calls > 0;
  }

  get result(): T {
    expect(this.done, 'response not delivered yet').toBe(true);
    return this.value as T;
  }
}

export interface JoinOptions {
  groupId?: string;
  memberId?: string;
  protocolType?: string;
  protocols?: JoinGroupRequestProtocol[];
  groupInstanceId?: string | null;
  sessionTimeout?: number;
  rebalanceTimeout?: number;
  /** Defaults: 3 for dynamic members (no MEMBER_ID_REQUIRED, like Kafka's sendJoinGroup default
   *  requireKnownMemberId=false), 9 for static members (SkipAssignment supported). */
  version?: number;
  reason?: string | null;
  clientId?: string;
}

export interface RebalanceResult {
  generation: number;
  leaderId: string;
  leaderAssignment: Buffer;
  followerId: string;
  followerAssignment: Buffer;
}

export class Harness {
  readonly timers: FakeTimers;
  readonly events: GroupEvent[] = [];
  readonly coordinator: GroupCoordinator;
  /** Raw append errors the fake __consumer_offsets returns (NONE = success). */
  groupAppendError: number = ErrorCode.NONE;
  /** Every batch of records the coordinator appended (successfully), in order. */
  readonly batches: GroupRecordBatch[] = [];
  private readonly offsetsTopic = new CountingGroupRecordSink();
  offsetAppendError: number = ErrorCode.NONE;
  private uuid = 0;

  /** The broker's clock, when the coordinator runs on one instead of `timers` (a manual BrokerClock). */
  private readonly brokerClock: BrokerClock | undefined;

  constructor(options: GroupCoordinatorOptions & { brokerClock?: BrokerClock } = {}) {
    const { brokerClock, ...coordinatorOptions } = options;
    this.timers = new FakeTimers(1_000_000);
    this.brokerClock = brokerClock;
    this.coordinator = new GroupCoordinator({
      groupMinSessionTimeoutMs: GroupMinSessionTimeout,
      groupMaxSessionTimeoutMs: GroupMaxSessionTimeout,
      groupMaxSize: GroupMaxSize,
      groupInitialRebalanceDelayMs: GroupInitialRebalanceDelay,
      generateUuid: () => `uuid-${++this.uuid}`,
      records: {
        append: (batch) => {
          const offsetWrite = batch.cause === 'offset-commit' || batch.cause === 'txn-offset-commit';
          const errorCode = batch.cause === 'tombstones' ? ErrorCode.NONE : offsetWrite ? this.offsetAppendError : this.groupAppendError;
          if (errorCode !== ErrorCode.NONE) return { errorCode, baseOffset: -1 };
          this.batches.push(batch);
          return this.offsetsTopic.append(batch);
        },
      },
      timers: brokerClock ?? this.timers,
      clock: brokerClock ?? this.timers,
      onEvent: (e) => this.events.push(e),
      ...coordinatorOptions,
    });
  }

  advance(ms: number): void {
    if (this.brokerClock) this.brokerClock.advance(ms);
    else this.timers.advance(ms);
  }

  get now(): number {
    return (this.brokerClock ?? this.timers).now();
  }

  group(id = groupId): ClassicGroup {
    const g = this.coordinator.group(id);
    expect(g, `group ${id} exists`).toBeDefined();
    return g!;
  }

  state(id = groupId): GroupState {
    return this.group(id).state;
  }

  // --- JoinGroup -----------------------------------------------------------------------------------

  sendJoinGroup(o: JoinOptions = {}): Pending<JoinGroupResponse> {
    const p = new Pending<JoinGroupResponse>();
    const instance = o.groupInstanceId ?? null;
    const version = o.version ?? (instance !== null ? 9 : 3);
    this.coordinator.joinGroup(
      version,
      { clientId: o.clientId ?? 'clientId', clientHost: ClientHost },
      {
        groupId: o.groupId ?? groupId,
        sessionTimeoutMs: o.sessionTimeout ?? DefaultSessionTimeout,
        rebalanceTimeoutMs: o.rebalanceTimeout ?? DefaultRebalanceTimeout,
        memberId: o.memberId ?? '',
        groupInstanceId: instance,
        protocolType: o.protocolType ?? protocolType,
        protocols: o.protocols ?? protocols,
        reason: o.reason ?? null,
      },
      p.callback,
    );
    return p;
  }

  /** KIP-394 two-step join (v4+), then past the initial delay. Returns early on a first-step error. */
  dynamicJoinGroup(o: JoinOptions = {}): JoinGroupResponse {
    const version = o.version ?? 9;
    let pending = this.sendJoinGroup({ ...o, version });
    if ((o.memberId ?? '') === '') {
      const first = pending.result;
      if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) return first;
      pending = this.sendJoinGroup({ ...o, version, memberId: first.memberId });
    }
    this.advance(GroupInitialRebalanceDelay + 1);
    return pending.result;
  }

  staticJoinGroup(o: JoinOptions & { groupInstanceId: string; clockAdvance?: number }): JoinGroupResponse {
    const pending = this.sendJoinGroup(o);
    this.advance(o.clockAdvance ?? GroupInitialRebalanceDelay + 1);
    return pending.result;
  }

  /** Leader and follower join as static members and reach Stable at generation 1. */
  staticMembersJoinAndRebalance(
    leaderInstance = leaderInstanceId,
    followerInstance = followerInstanceId,
    sessionTimeout = DefaultSessionTimeout,
    rebalanceTimeout = DefaultRebalanceTimeout,
  ): RebalanceResult {
    const leader = this.sendJoinGroup({
      protocols: protocolSuperset,
      groupInstanceId: leaderInstance,
      sessionTimeout,
      rebalanceTimeout,
    });
    const follower = this.sendJoinGroup({
      protocols: protocolSuperset,
      groupInstanceId: followerInstance,
      sessionTimeout,
      rebalanceTimeout,
    });
    // First advance: the initial delay expires and is extended once (the follower arrived during
    // it). Second: the extension expires and the join completes. (Kafka's test advances by the
    // rebalance timeout the second time; its MockTimer runs the expiry at the end of the advance,
    // whereas here it runs at its deadline, so a shorter advance keeps the members' sessions alive.)
    this.advance(GroupInitialRebalanceDelay + 1);
    this.advance(GroupInitialRebalanceDelay + 1);
    expect(leader.result.errorCode).toBe(ErrorCode.NONE);
    expect(leader.result.generationId).toBe(1);
    expect(follower.result.errorCode).toBe(ErrorCode.NONE);
    expect(follower.result.generationId).toBe(1);

    const leaderId = leader.result.memberId;
    const leaderSync = this.syncGroupLeader({ generationId: 1, memberId: leaderId, assignments: { [leaderId]: Buffer.alloc(0) } });
    expect(leaderSync.errorCode).toBe(ErrorCode.NONE);
    expect(this.state()).toBe('Stable');

    const followerId = follower.result.memberId;
    const followerSync = this.syncGroupFollower({ generationId: 1, memberId: followerId });
    expect(followerSync.errorCode).toBe(ErrorCode.NONE);
    expect(this.state()).toBe('Stable');
    return {
      generation: 1,
      leaderId,
      leaderAssignment: leaderSync.assignment,
      followerId,
      followerAssignment: followerSync.assignment,
    };
  }

  // --- SyncGroup -----------------------------------------------------------------------------------

  sendSyncGroup(o: {
    groupId?: string;
    generationId: number;
    memberId: string;
    protocolType?: string | null;
    protocolName?: string | null;
    groupInstanceId?: string | null;
    assignments?: Record<string, Buffer>;
    version?: number;
  }): Pending<SyncGroupResponse> {
    const p = new Pending<SyncGroupResponse>();
    this.coordinator.syncGroup(
      o.version ?? 4,
      {
        groupId: o.groupId ?? groupId,
        generationId: o.generationId,
        memberId: o.memberId,
        groupInstanceId: o.groupInstanceId ?? null,
        protocolType: o.protocolType ?? null,
        protocolName: o.protocolName ?? null,
        assignments: Object.entries(o.assignments ?? {}).map(([memberId, assignment]) => ({ memberId, assignment })),
      },
      p.callback,
    );
    return p;
  }

  syncGroupLeader(o: Parameters<Harness['sendSyncGroup']>[0]): SyncGroupResponse {
    return this.sendSyncGroup(o).result;
  }

  syncGroupFollower(o: Parameters<Harness['sendSyncGroup']>[0]): SyncGroupResponse {
    return this.sendSyncGroup({ ...o, assignments: {} }).result;
  }

  // --- Heartbeat, LeaveGroup, OffsetCommit -----------------------------------------------------------

  heartbeat(memberId: string, generationId: number, groupInstanceId: string | null = null, id = groupId): number {
    return this.coordinator.heartbeat(4, { groupId: id, memberId, generationId, groupInstanceId }).errorCode;
  }

  singleLeaveGroup(memberId: string, groupInstanceId: string | null = null, id = groupId): LeaveGroupResponse {
    return this.batchLeaveGroup([{ memberId, groupInstanceId }], id);
  }

  batchLeaveGroup(members: LeaveGroupMemberIdentity[], id = groupId): LeaveGroupResponse {
    return this.coordinator.leaveGroup(5, { groupId: id, members });
  }

  commitOffsets(
    memberId: string,
    generationId: number,
    offsets: { topic: string; partition: number; offset: bigint; metadata?: string | null; leaderEpoch?: number }[],
    groupInstanceId: string | null = null,
    id = groupId,
    version = 8,
  ): OffsetCommitResponse {
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null }[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({
        partitionIndex: o.partition,
        committedOffset: o.offset,
        committedLeaderEpoch: o.leaderEpoch ?? -1,
        committedMetadata: o.metadata === undefined ? '' : o.metadata,
      });
      byTopic.set(o.topic, list);
    }
    return this.coordinator.offsetCommit(version, {
      groupId: id,
      generationIdOrMemberEpoch: generationId,
      memberId,
      groupInstanceId,
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    });
  }

  /** Error of a single-partition commit. */
  commitOne(memberId: string, generationId: number, groupInstanceId: string | null = null, id = groupId): number {
    return this.commitOffsets(memberId, generationId, [{ topic: 'topic', partition: 0, offset: 0n }], groupInstanceId, id)
      .topics[0]!.partitions[0]!.errorCode;
  }

  eventsOf<T extends GroupEvent['type']>(type: T): Extract<GroupEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<GroupEvent, { type: T }> => e.type === type);
  }
}

/** Assertions of Kafka's checkJoinGroupResult. */
export function checkJoinGroupResult(
  h: Harness,
  r: JoinGroupResponse,
  expected: {
    error: number;
    generation: number;
    instanceIds: string[];
    state: GroupState;
    protocolType: string | null;
    leaderId?: string;
    memberId?: string;
    skipAssignment?: boolean;
  },
): void {
  expect(r.errorCode).toBe(expected.error);
  expect(r.generationId).toBe(expected.generation);
  expect(new Set(r.members.map((m) => m.groupInstanceId))).toEqual(new Set(expected.instanceIds));
  expect(r.members).toHaveLength(expected.instanceIds.length);
  expect(h.state()).toBe(expected.state);
  expect(r.protocolType).toBe(expected.protocolType);
  expect(r.skipAssignment).toBe(expected.skipAssignment ?? false);
  if (expected.leaderId !== undefined) expect(r.leader).toBe(expected.leaderId);
  if (expected.memberId !== undefined) expect(r.memberId).toBe(expected.memberId);
}
