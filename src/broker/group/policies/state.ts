// What one group keeps for the draft policies. Lives on ClassicGroup (`group.policy`); empty and
// untouched while every policy is off, except the rebalance history, which is bookkeeping only.

import type { TimerHandle } from '../clock.js';
import type { JoinCallback, Protocol } from '../member.js';
import type { ClientContext } from '../types.js';
import type { MembershipMode, RebalanceRecord } from './types.js';

/** A JoinGroup the policies hold on to instead of letting the coordinator process it now. */
export interface ParkedJoin {
  version: number;
  client: ClientContext;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Protocol[];
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  clientReason: string | null;
  callback: JoinCallback;
}

/** expansion-timeout: a new static member waiting to be admitted. */
export interface HeldJoin extends ParkedJoin {
  /** The member id it gets when admitted (generated when it was held). */
  newMemberId: string;
  groupInstanceId: string;
  heldSince: number;
}

/**
 * kip345-draft-errors: a mapped member id handed to a JoinGroup with MemberId "" (MISSING_MEMBER_ID)
 * while the member is online; see draft-errors.ts.
 */
export interface Claim {
  groupInstanceId: string;
  memberId: string;
  openedAt: number;
  /** The running incarnation sent a request after the id was handed out. */
  oldAlive: boolean;
  /** The claimant's JoinGroup with the handed-out id, parked until the claim is decided. */
  reclaim: ParkedJoin | null;
  /** Forgets a claim whose claimant never came back. */
  timer: TimerHandle | null;
}

export const MAX_REBALANCE_RECORDS = 50;

export class GroupPolicyState {
  /** registration-timeout: removes the members offline longer than the timeout. */
  registrationTimer: { at: number; timer: TimerHandle } | null = null;
  /** expansion-timeout: held members by instance id, in arrival order. */
  readonly held = new Map<string, HeldJoin>();
  expansion: { firstHeldAt: number; timer: TimerHandle } | null = null;
  /** kip345-draft-errors: open claims by instance id. */
  readonly claims = new Map<string, Claim>();
  /** membership-modes: null until the policy first looks at the group. */
  mode: { mode: MembershipMode; pinned: boolean } | null = null;
  readonly rebalances: RebalanceRecord[] = [];

  recordRebalance(r: RebalanceRecord): void {
    this.rebalances.push(r);
    if (this.rebalances.length > MAX_REBALANCE_RECORDS) this.rebalances.shift();
  }
}
