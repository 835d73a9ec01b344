// The control plane: one model of what a test (or a person) can see and do to a running kmock,
// behind three doors: these methods (`kmock.control`), the HTTP JSON API (http.ts, opt-in
// `--admin-port`) and `kmock admin ...` (src/cli/admin.ts), which talks to the HTTP API.
//
//   read   groups (state, generation, protocol, leader, members with decoded subscription and
//          assignment, offline static members, policies, committed offsets), topics (partitions,
//          log start/end offsets), connections, policies, injected faults
//   act    set policies (broker-wide, per group); force a rebalance; remove members; the draft's
//          admin operations (enableStaticMembership, enableDynamicMembership, forceStaticRebalance);
//          inject errors and latency per API key; drop connections
//   watch  group events, as an async iterator or a subscription (the HTTP door streams them as SSE)
//   strict strict-clients mode on or off, its findings (counts, first examples), a subscription
//   txn    transactional ids and their events (transactions.ts, `control.transactions`)
//
// Every input is validated here (ControlError with a 4xx status and a message). Group changes go
// through the coordinator's own operations only, so the control plane cannot leave a group in a
// state the coordinator could not reach by itself.
import { eventIterator } from './event-iterator.js';
import type { PendingTxnOffset } from '../group/txn-offsets.js';
import { ClockControl } from './clock.js';
import { TransactionsControl } from './transactions.js';
import { decodeConsumerProtocolAssignment, decodeConsumerProtocolSubscription, errorName } from '../../codec/index.js';
import type { Broker } from '../broker.js';
import type { ClassicGroup, GroupEvent } from '../group/index.js';
import { parsePolicies, PolicyError, validatePolicyUpdate } from '../group/policies/config.js';
import type {
  ForceRebalanceResult,
  GroupMemberDetail,
  HeldStaticMember,
  MembershipChangeResult,
  MembershipMode,
  OfflineStaticMember,
  PolicyConfig,
  PolicyUpdate,
  RebalanceRecord,
  RemoveMembersResult,
  StaticMembershipOptions,
} from '../group/policies/types.js';
import type { ClientFinding, FindingsSummary } from '../strict/findings.js';
import { ControlError, badRequest, conflict, notFound } from './errors.js';
import { FaultInjector, type FaultsView } from './faults.js';
import {
  apiKeyArg,
  errorCodeArg,
  groupIdArg,
  integer,
  MAX_TIMEOUT_MS,
  objectBody,
  onlyFields,
  optionalInteger,
  optionalString,
  stringList,
} from './validate.js';

// ---- views ----------------------------------------------------------------------------------------

export interface GroupSummary {
  groupId: string;
  state: string;
  protocolType: string | null;
  protocolName: string | null;
  generationId: number;
  leader: string | null;
  members: number;
}

/** A consumer-protocol Subscription, decoded (`error`/`raw` when the bytes are not one). */
export interface SubscriptionView {
  version?: number;
  topics?: string[];
  ownedPartitions?: Array<{ topic: string; partitions: number[] }>;
  generationId?: number;
  rackId?: string | null;
  /** base64, or null. */
  userData?: string | null;
  /** base64 of the bytes when they could not be decoded (or the protocol is not "consumer"). */
  raw?: string;
  error?: string;
}

export interface AssignmentView {
  version?: number;
  assignedPartitions?: Array<{ topic: string; partitions: number[] }>;
  userData?: string | null;
  raw?: string;
  error?: string;
}

export interface MemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Protocol names offered, in preference order. */
  protocols: string[];
  isLeader: boolean;
  /** Its JoinGroup is parked (join phase). */
  awaitingJoin: boolean;
  /** Its SyncGroup is parked (waiting for the leader's assignment). */
  awaitingSync: boolean;
  /** Metadata for the selected protocol (else the first offered one), decoded. */
  subscription: SubscriptionView | null;
  /** The assignment of the current generation, decoded; null when none was given yet. */
  assignment: AssignmentView | null;
  /** registration-timeout: when its session expired, while it is offline; else null. */
  offlineSince: number | null;
}

export interface CommittedOffsetView {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  /** Log end offset of the partition minus the committed offset; null when the partition is unknown. */
  lag: number | null;
}

export interface GroupView extends Omit<GroupSummary, 'members'> {
  /** membership-modes: the group's mode (null while the policy is off for the group). */
  mode: MembershipMode | null;
  /** membership-modes: true once enableStaticMembership/enableDynamicMembership fixed the mode. */
  modePinned: boolean;
  members: MemberView[];
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not rejoined yet. */
  pendingMemberIds: string[];
  /** Static members that stopped heartbeating but keep their place (registration-timeout). */
  offlineStaticMembers: OfflineStaticMember[];
  /** New static members held until the expansion timeout (expansion-timeout). */
  heldStaticMembers: HeldStaticMember[];
  /** Effective policies of the group (the broker's, overlaid with the group's own). */
  policies: PolicyConfig;
  /** The group's own policy settings; null when it has none. */
  groupPolicies: PolicyUpdate | null;
  /** The last rebalances with their causes (rule, member, reason), oldest first. */
  rebalances: RebalanceRecord[];
  /** Committed offsets, with the lag behind each partition's log end. */
  offsets: CommittedOffsetView[];
  /** TxnOffsetCommit offsets waiting for their transaction's marker (invisible to OffsetFetch until then). */
  pendingTransactionalOffsets: PendingTxnOffset[];
}

export interface TopicView {
  name: string;
  topicId: string;
  internal: boolean;
  replicationFactor: number;
  /**
   * lastStableOffset: where read_committed consumers stop (the oldest open transaction's first
   * offset, else the high watermark). sizeBytes: the log's bytes (what retention.bytes counts);
   * segments: how many; residentBytes: the stored bytes held in memory (the stored-memory cap's count).
   */
  partitions: Array<{ partition: number; logStartOffset: number; logEndOffset: number; highWatermark: number; lastStableOffset: number; sizeBytes: number; segments: number; residentBytes: number }>;
}

export interface ConnectionView {
  id: number;
  clientId: string | null;
  host: string;
  port: number;
  softwareName: string | null;
  softwareVersion: string | null;
  /** The listener the connection came in on, and its protocol. */
  listener: string;
  securityProtocol: string;
  /** Who it authenticated as: "User:alice", or User:ANONYMOUS (PLAINTEXT, SSL without a client certificate, SASL not yet authenticated). */
  principal: string;
  /** The SASL mechanism, once authenticated on a SASL listener. */
  saslMechanism: string | null;
}

/** Strict-clients mode (docs/strict-clients.md): on or off, and what it found so far. */
export interface StrictClientsView extends FindingsSummary {
  enabled: boolean;
}

export interface PoliciesView {
  broker: PolicyConfig;
  /** Every group that exists or has its own settings: effective policies and its own settings. */
  groups: Array<{ groupId: string; policies: PolicyConfig; groupPolicies: PolicyUpdate | null }>;
}

export interface EventOptions {
  /** Only events of this group. */
  groupId?: string;
  /** Ends the iteration when aborted. */
  signal?: AbortSignal;
  /** Events kept while the consumer is slow; the oldest are dropped beyond it (default 10000). */
  bufferSize?: number;
}

/** Longest reason string accepted (clients truncate KIP-800 reasons to 255 characters). */
const MAX_REASON = 255;
const MAX_ERRORS_PER_PUSH = 10_000;
const MAX_LATENCY_MS = 600_000;

// ---- what the actions take ---------------------------------------------------------------------
// Typed for callers in TypeScript; the HTTP API (http.ts) hands over JSON it has not checked, so
// every action also validates its input at run time (a ControlError, HTTP 400, for a bad one).

/** Policies as an object (`{"registration-timeout": {"enabled": true, "registrationTimeoutMs": 900000}}`, `true`/`false` for `{enabled}`) or in the text form of `kmock start --policy`. */
export type PoliciesInput = PolicyUpdate | { [K in keyof PolicyUpdate]?: boolean | PolicyUpdate[K] } | string;
/** Members to remove: by member id and/or group.instance.id, or `all`. */
export interface MemberRemovalInput {
  memberIds?: string[];
  groupInstanceIds?: string[];
  reason?: string;
  all?: boolean;
}
export type { StaticMembershipOptions };
/** An API (key or name, e.g. 1 or "Fetch") and the error (code or name) its next requests get. */
export interface ErrorInjectionInput {
  apiKey: number | string;
  errorCode?: number | string;
  /** The next requests get these, in turn (instead of errorCode and count). */
  errorCodes?: Array<number | string>;
  count?: number;
}
export interface LatencyInput {
  apiKey: number | string;
  ms: number;
}
export interface ConnectionFilter {
  clientId?: string;
}

export class ControlPlane {
  readonly faults: FaultInjector;
  /** The broker's clock: read, advance, run until idle, switch mode (clock.ts). */
  readonly clock: ClockControl;
  /** The transaction coordinator's transactional ids and events (transactions.ts). */
  readonly transactions: TransactionsControl;
  /** Groups given their own policies through the control plane (they may not exist yet). */
  private readonly groupsWithPolicies = new Set<string>();

  constructor(readonly broker: Broker) {
    this.faults = new FaultInjector((e) =>
      broker.log.info(
        { apiKey: e.apiKey, error: errorName(e.errorCode), connection: e.connection, client: e.clientId },
        'injected error',
      ),
    );
    broker.hooks.interceptor = this.faults;
    this.clock = new ClockControl(broker.clock, broker.log);
    this.transactions = new TransactionsControl(broker);
  }

  // ==============================================================================================
  // read

  groups(): GroupSummary[] {
    return this.broker.groups.groupIds().flatMap((id) => {
      const g = this.broker.groups.group(id);
      return g ? [summary(g)] : [];
    });
  }

  group(groupId: unknown): GroupView {
    const id = groupIdArg(groupId);
    const g = this.liveGroup(id);
    const d = this.broker.groups.describeGroupDetail(id);
    if (d === null) throw notFound(`no group "${id}"`);
    const consumer = d.protocolType === 'consumer';
    return {
      groupId: id,
      state: d.state,
      protocolType: d.protocolType,
      protocolName: d.protocolName,
      generationId: d.generationId,
      leader: d.leaderId,
      mode: d.mode,
      modePinned: d.modePinned,
      members: d.members.map((m) => memberView(m, consumer)),
      pendingMemberIds: d.pendingMemberIds,
      offlineStaticMembers: d.offlineStaticMembers,
      heldStaticMembers: d.heldStaticMembers,
      policies: d.policies,
      groupPolicies: d.groupPolicies,
      rebalances: d.rebalances,
      offsets: g.offsets.all().map(({ topic, partition, offset }) => {
        const log = this.broker.topics.get(topic)?.partitions[partition];
        const committed = Number(offset.offset);
        return {
          topic,
          partition,
          offset: committed,
          leaderEpoch: offset.leaderEpoch,
          metadata: offset.metadata,
          lag: log ? Math.max(0, log.logEndOffset - committed) : null,
        };
      }),
      pendingTransactionalOffsets: this.broker.groups.pendingTransactionalOffsets(g.groupId),
    };
  }

  topics(): TopicView[] {
    return this.broker.topics.all().map((t) => ({
      name: t.name,
      topicId: t.id,
      internal: t.isInternal,
      replicationFactor: t.replicationFactor,
      partitions: t.partitions.map((p) => ({
        partition: p.index,
        logStartOffset: p.logStartOffset,
        logEndOffset: p.logEndOffset,
        highWatermark: p.highWatermark,
        lastStableOffset: p.lastStableOffset,
        sizeBytes: p.size,
        segments: p.logSegments.length,
        residentBytes: p.residentBytes,
      })),
    }));
  }

  connections(): ConnectionView[] {
    return [...this.broker.connections].map((c) => ({
      id: c.info.id,
      clientId: c.info.clientId ?? null,
      host: c.info.clientHost,
      port: c.info.clientPort,
      softwareName: c.info.clientSoftwareName ?? null,
      softwareVersion: c.info.clientSoftwareVersion ?? null,
      listener: c.info.listenerName,
      securityProtocol: c.info.securityProtocol,
      principal: c.info.principal,
      saslMechanism: c.info.saslMechanism ?? null,
    }));
  }

  policies(): PoliciesView {
    const coordinator = this.broker.groups;
    const ids = new Set([...coordinator.groupIds(), ...this.groupsWithPolicies]);
    return {
      broker: coordinator.brokerPolicies(),
      groups: [...ids].map((groupId) => ({
        groupId,
        policies: coordinator.policiesFor(groupId),
        groupPolicies: coordinator.groupPolicies(groupId),
      })),
    };
  }

  /** A group's effective policies (the group need not exist). */
  groupPolicies(groupId: string): PolicyConfig {
    return this.broker.groups.policiesFor(groupIdArg(groupId));
  }

  faultsView(): FaultsView {
    return this.faults.view();
  }

  // ==============================================================================================
  // act: policies and groups

  /**
   * Broker-wide policies: a partial update, as an object (`{"registration-timeout": {"enabled":
   * true, "registrationTimeoutMs": 900000}}`, `true`/`false` for `{enabled}`) or in the text form of
   * `kmock start --set policies=...` (`"registration-timeout=15m,kip423-join-reasons"`). Returns the broker's
   * policies.
   */
  setBrokerPolicies(update: PoliciesInput): PolicyConfig {
    const u = policyUpdateArg(update);
    return this.coordinatorCall(() => this.broker.groups.setBrokerPolicies(u));
  }

  /** A group's own policies, layered over the broker's (merged into earlier ones); null removes
   *  them. The group need not exist yet. Returns its effective policies. */
  setGroupPolicies(groupId: string, update: PoliciesInput | null): PolicyConfig {
    const id = groupIdArg(groupId);
    const u = update === null ? null : policyUpdateArg(update);
    const result = this.coordinatorCall(() => this.broker.groups.setGroupPolicies(id, u));
    if (u === null) this.groupsWithPolicies.delete(id);
    else this.groupsWithPolicies.add(id);
    return result;
  }

  /** Starts a rebalance of the group now, whatever the policies (trigger `admin-forced`). */
  forceRebalance(groupId: string, reason?: string): ForceRebalanceResult {
    const id = groupIdArg(groupId);
    const why = optionalString(reason, 'reason', MAX_REASON) ?? 'forced by the kmock control plane';
    this.liveGroup(id);
    const r = this.coordinatorCall(() => this.broker.groups.forceRebalance(id, why));
    if (r.errorCode === 69 /* GROUP_ID_NOT_FOUND */) throw notFound(r.message);
    return r;
  }

  /**
   * Removes members by member id and/or group.instance.id, as Admin.removeMembersFromConsumerGroup
   * does (`{memberIds?, groupInstanceIds?, reason?}`, or `{all: true}` for every member). One result
   * per member. Every named member must exist: nothing is removed otherwise.
   */
  removeMembers(groupId: string, ids: MemberRemovalInput, reason?: string): RemoveMembersResult {
    const id = groupIdArg(groupId);
    const body = objectBody(ids, 'member ids');
    onlyFields(body, ['memberIds', 'groupInstanceIds', 'reason', 'all'], 'member ids');
    const memberIds = stringList(body.memberIds, 'memberIds');
    const groupInstanceIds = stringList(body.groupInstanceIds, 'groupInstanceIds');
    if (body.all !== undefined && typeof body.all !== 'boolean') throw badRequest('all must be true or false');
    const all = body.all === true;
    const why = optionalString(reason ?? body.reason, 'reason', MAX_REASON) ?? 'member was removed by the kmock control plane';
    if (all && memberIds.length + groupInstanceIds.length > 0) throw badRequest('give either all, or member ids / group instance ids');
    if (!all && memberIds.length + groupInstanceIds.length === 0) throw badRequest('name at least one member id or group instance id (or all: true)');
    const g = this.liveGroup(id);
    for (const m of memberIds) {
      if (!g.has(m)) throw notFound(`group "${id}" has no member "${m}"`);
    }
    const held = new Set(this.broker.groups.describeGroupDetail(id)?.heldStaticMembers.map((h) => h.groupInstanceId));
    for (const i of groupInstanceIds) {
      if (!g.hasStaticMember(i) && !held.has(i)) throw notFound(`group "${id}" has no static member with instance id "${i}"`);
    }
    return this.coordinatorCall(() => this.broker.groups.removeMembers(id, all ? {} : { memberIds, groupInstanceIds }, why));
  }

  /** The draft's enableStaticMembership(group, {registrationTimeoutMs, expansionTimeoutMs}). */
  enableStaticMembership(groupId: string, options?: StaticMembershipOptions): MembershipChangeResult {
    const id = groupIdArg(groupId);
    const o = objectBody(options, 'options');
    onlyFields(o, ['registrationTimeoutMs', 'expansionTimeoutMs'], 'options');
    const opts: { registrationTimeoutMs?: number; expansionTimeoutMs?: number } = {};
    const reg = optionalInteger(o.registrationTimeoutMs, 'registrationTimeoutMs', 1, MAX_TIMEOUT_MS);
    const exp = optionalInteger(o.expansionTimeoutMs, 'expansionTimeoutMs', 0, MAX_TIMEOUT_MS);
    if (reg !== undefined) opts.registrationTimeoutMs = reg;
    if (exp !== undefined) opts.expansionTimeoutMs = exp;
    return membershipResult(this.coordinatorCall(() => this.broker.groups.enableStaticMembership(id, opts)));
  }

  /** The draft's enableDynamicMembership(group). */
  enableDynamicMembership(groupId: string): MembershipChangeResult {
    const id = groupIdArg(groupId);
    return membershipResult(this.coordinatorCall(() => this.broker.groups.enableDynamicMembership(id)));
  }

  /** The draft's forceStaticRebalance(group). */
  forceStaticRebalance(groupId: string): MembershipChangeResult {
    const id = groupIdArg(groupId);
    return membershipResult(this.coordinatorCall(() => this.broker.groups.forceStaticRebalance(id)));
  }

  // ==============================================================================================
  // act: faults and connections

  /**
   * Answers the next `count` requests of `apiKey` with `errorCode` (or, given `errorCodes`, the
   * next ones with each code in turn), in that API's error shape. Queues add up.
   */
  injectErrors(spec: ErrorInjectionInput): FaultsView {
    const o = objectBody(spec, 'error injection');
    onlyFields(o, ['apiKey', 'errorCode', 'errorCodes', 'count'], 'error injection');
    const apiKey = apiKeyArg(o.apiKey, this.servedKeys());
    let codes: number[];
    if (o.errorCodes !== undefined) {
      if (o.errorCode !== undefined || o.count !== undefined) throw badRequest('give either errorCodes, or errorCode with an optional count');
      if (!Array.isArray(o.errorCodes) || o.errorCodes.length === 0) throw badRequest('errorCodes must be a non-empty array');
      if (o.errorCodes.length > MAX_ERRORS_PER_PUSH) throw badRequest(`at most ${MAX_ERRORS_PER_PUSH} error codes at once`);
      codes = o.errorCodes.map(errorCodeArg);
    } else {
      if (o.errorCode === undefined) throw badRequest('errorCode is required');
      const code = errorCodeArg(o.errorCode);
      const count = o.count === undefined ? 1 : integer(o.count, 'count', 1, MAX_ERRORS_PER_PUSH);
      codes = new Array<number>(count).fill(code);
    }
    this.faults.pushErrors(apiKey, codes);
    return this.faults.view();
  }

  /** Adds `ms` of latency to every request of `apiKey` (0 removes it). */
  setLatency(spec: LatencyInput): FaultsView {
    const o = objectBody(spec, 'latency');
    onlyFields(o, ['apiKey', 'ms'], 'latency');
    const apiKey = apiKeyArg(o.apiKey, this.servedKeys());
    if (o.ms === undefined) throw badRequest('ms is required');
    this.faults.setLatency(apiKey, integer(o.ms, 'ms', 0, MAX_LATENCY_MS));
    return this.faults.view();
  }

  /** Removes every injected error and latency. */
  clearFaults(): FaultsView {
    this.faults.clear();
    return this.faults.view();
  }

  /** Closes the connections of one client id (the request header's ClientId), or all of them. */
  dropConnections(spec?: ConnectionFilter): { dropped: number } {
    const o = objectBody(spec, 'connection filter');
    onlyFields(o, ['clientId'], 'connection filter');
    if (o.clientId !== undefined && typeof o.clientId !== 'string') throw badRequest('clientId must be a string');
    const clientId = o.clientId as string | undefined;
    const dropped = this.broker.closeConnections(clientId === undefined ? undefined : (c) => c.info.clientId === clientId);
    this.broker.log.info({ clientId: clientId ?? '*', dropped }, 'connections dropped by the control plane');
    return { dropped };
  }

  // ==============================================================================================
  // watch

  /** Calls `listener` with every group event (of one group, if given); returns the unsubscribe. */
  subscribe(listener: (e: GroupEvent) => void, groupId?: string): () => void {
    // A failing listener must not disturb the coordinator, which delivers events inline.
    const l = (e: GroupEvent): void => {
      if (groupId !== undefined && e.groupId !== groupId) return;
      try {
        listener(e);
      } catch (err) {
        this.broker.log.error({ err: String((err as Error)?.stack ?? err) }, 'group event listener failed');
      }
    };
    this.broker.groupEventListeners.add(l);
    return () => {
      this.broker.groupEventListeners.delete(l);
    };
  }

  /** Group events as an async iterator; subscribed from this call on, ended by `return()` (e.g.
   *  `break` in a for-await) or the signal. Events wait in a buffer while the consumer is busy. */
  events(options: EventOptions = {}): AsyncIterableIterator<GroupEvent> {
    return eventIterator<GroupEvent>((push) => this.subscribe(push, options.groupId), options);
  }

  // ==============================================================================================
  // strict-clients mode

  /** On or off, and the findings so far: per kind found, its count and first example. */
  strictClients(): StrictClientsView {
    const f = this.broker.clientFindings;
    return { enabled: f.enabled, ...f.summary() };
  }

  /** Turns strict-clients mode on or off (findings so far are kept). */
  setStrictClients(enabled: boolean): StrictClientsView {
    if (typeof enabled !== 'boolean') throw badRequest('enabled must be true or false');
    const f = this.broker.clientFindings;
    if (f.enabled !== enabled) this.broker.log.info({ strictClients: enabled }, 'strict-clients mode set by the control plane');
    f.enabled = enabled;
    return this.strictClients();
  }

  /** Forgets the findings so far (counts and first examples); the mode stays as it is. */
  resetStrictClients(): StrictClientsView {
    this.broker.clientFindings.reset();
    return this.strictClients();
  }

  /** Calls `listener` with every finding from now on; returns the unsubscribe. */
  subscribeStrictClients(listener: (finding: ClientFinding) => void): () => void {
    return this.broker.clientFindings.subscribe(listener);
  }

  // ==============================================================================================
  // internals

  private servedKeys(): Set<number> {
    return new Set(this.broker.handlers.keys());
  }

  private liveGroup(id: string): ClassicGroup {
    const g = this.broker.groups.group(id);
    if (!g || g.is('Dead')) throw notFound(`no group "${id}"`);
    return g;
  }

  /** Runs a coordinator operation; its argument errors (unknown group, wrong mode) become 4xx. */
  private coordinatorCall<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof ControlError) throw e;
      const message = e instanceof Error ? e.message : String(e);
      // PolicyError is a RangeError: bad input the coordinator caught.
      if (e instanceof RangeError) throw badRequest(message);
      throw conflict(message);
    }
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

function summary(g: ClassicGroup): GroupSummary {
  return {
    groupId: g.groupId,
    state: g.state,
    protocolType: g.protocolType,
    protocolName: g.protocolName,
    generationId: g.generationId,
    leader: g.leaderId,
    members: g.size,
  };
}

function memberView(m: GroupMemberDetail, consumer: boolean): MemberView {
  return {
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    protocols: m.protocols.map((p) => p.name),
    isLeader: m.isLeader,
    awaitingJoin: m.awaitingJoin,
    awaitingSync: m.awaitingSync,
    subscription: m.protocols.length === 0 ? null : consumer ? decodeSubscription(m.metadata) : { raw: m.metadata.toString('base64') },
    assignment: m.assignment.length === 0 ? null : consumer ? decodeAssignment(m.assignment) : { raw: m.assignment.toString('base64') },
    offlineSince: m.offlineSince,
  };
}

/** A policy update as an object or in the `--policy` text form; bad input → 400. */
function policyUpdateArg(v: unknown): PolicyUpdate {
  try {
    return typeof v === 'string' ? parsePolicies(v) : validatePolicyUpdate(v);
  } catch (e) {
    if (e instanceof PolicyError) throw badRequest(e.message);
    throw e;
  }
}

/** Consumer-protocol bytes: an int16 version, then the body (versions above 3 read as 3). */
function versioned(buf: Buffer): { version: number; body: Buffer } {
  if (buf.length < 2) throw new Error('shorter than its version field');
  return { version: buf.readInt16BE(0), body: buf.subarray(2) };
}

export function decodeSubscription(buf: Buffer): SubscriptionView {
  try {
    const { version, body } = versioned(buf);
    if (version < 0) throw new Error(`negative version ${version}`);
    const s = decodeConsumerProtocolSubscription(body, Math.min(version, 3));
    return {
      version,
      topics: s.topics,
      ownedPartitions: s.ownedPartitions.map((o) => ({ topic: o.topic, partitions: o.partitions })),
      generationId: s.generationId,
      rackId: s.rackId,
      userData: s.userData === null ? null : s.userData.toString('base64'),
    };
  } catch (e) {
    return { error: (e as Error).message, raw: buf.toString('base64') };
  }
}

export function decodeAssignment(buf: Buffer): AssignmentView {
  try {
    const { version, body } = versioned(buf);
    if (version < 0) throw new Error(`negative version ${version}`);
    const a = decodeConsumerProtocolAssignment(body, Math.min(version, 3));
    return {
      version,
      assignedPartitions: a.assignedPartitions.map((p) => ({ topic: p.topic, partitions: p.partitions })),
      userData: a.userData === null ? null : a.userData.toString('base64'),
    };
  } catch (e) {
    return { error: (e as Error).message, raw: buf.toString('base64') };
  }
}

/** A MembershipChangeResult with an error becomes a 404 (unknown group) or a 409 (policy off, wrong
 *  mode, rebalance in progress), carrying the result. */
function membershipResult(r: MembershipChangeResult): MembershipChangeResult {
  if (r.errorCode === 0) return r;
  const name = r.error ?? errorName(r.errorCode);
  const status = r.errorCode === 69 /* GROUP_ID_NOT_FOUND */ ? 404 : 409;
  throw new ControlError(status, `${name}: ${r.message ?? `group "${r.groupId}"`}`, { result: r });
}
