// One member of a classic group (Kafka 3.9 MemberMetadata).

import type { TimerHandle } from './clock.js';

export interface Protocol {
  name: string;
  metadata: Buffer;
}

/** What a parked JoinGroup is eventually answered with, before per-version shaping. */
export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leaderId: string | null;
  skipAssignment: boolean;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export type JoinCallback = (result: JoinResult) => void;
export type SyncCallback = (result: SyncResult) => void;

export const EMPTY_BUFFER: Buffer = Buffer.alloc(0);

/** A JoinGroup error answer (Kafka's `JoinGroupResult(memberId, error)`). */
export function joinError(memberId: string, errorCode: number): JoinResult {
  return {
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leaderId: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

/** A SyncGroup error answer (Kafka's `SyncGroupResult(error)`). */
export function syncError(errorCode: number): SyncResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BUFFER };
}

export class GroupMember {
  /** Mutable only through ClassicGroup.replaceStaticMember (static member id replacement). */
  memberId: string;
  /** Mutable only through ClassicGroup.dropStaticMembership (a plug-in turning the group dynamic). */
  groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** The principal whose JoinGroup added the member (the event stream); null when loaded from the log. */
  readonly principal: string | null;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  readonly protocolType: string;
  /** In the member's preference order; duplicates are kept, as Kafka keeps them. */
  supportedProtocols: Protocol[];
  assignment: Buffer = EMPTY_BUFFER;

  /** Set while the member's JoinGroup is parked (managed by ClassicGroup to keep its counter right). */
  awaitingJoin: JoinCallback | null = null;
  /** Set while the member's SyncGroup is parked in CompletingRebalance. */
  awaitingSync: SyncCallback | null = null;

  /**
   * True from the member's first JoinGroup until its first join phase completes. Until then its
   * liveness deadline is the new-member join timeout, and parking in JoinGroup does not count as
   * liveness (a client that gave up on its request cannot be detected while the join is parked).
   */
  isNew = false;

  /** The pending session/join-timeout expiry (Kafka's DelayedHeartbeat), owned by the coordinator. */
  heartbeatTimer: TimerHandle | null = null;

  constructor(init: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    principal?: string | null;
    rebalanceTimeoutMs: number;
    sessionTimeoutMs: number;
    protocolType: string;
    protocols: Protocol[];
  }) {
    this.principal = init.principal ?? null;
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.protocols;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  get protocolNames(): string[] {
    return this.supportedProtocols.map((p) => p.name);
  }

  /** The member's metadata for `protocol` (the first entry with that name). */
  metadata(protocol: string): Buffer {
    const p = this.supportedProtocols.find((x) => x.name === protocol);
    if (!p) throw new Error(`Member ${this.memberId} does not support protocol ${protocol}`);
    return p.metadata;
  }

  /** Same protocols, same order, same metadata bytes: a rejoin that changes nothing. */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.supportedProtocols[i]!;
      return p.name === mine.name && p.metadata.equals(mine.metadata);
    });
  }

  /**
   * Whether the member counts as alive when its heartbeat deadline passes (MemberMetadata
   * .hasSatisfiedHeartbeat with its transient `heartbeatSatisfied` flag, which is always false by
   * the time a deadline fires): a member parked in JoinGroup or SyncGroup is alive, unless it is
   * new. Kafka also consults this when scheduling the next deadline: an alive member gets none
   * (the expiry completes at once) until the join/sync phase reschedules it.
   */
  get hasSatisfiedHeartbeat(): boolean {
    return !this.isNew && (this.isAwaitingJoin || this.isAwaitingSync);
  }
}
