// The control plane's model, used directly (`kmock.control`): what it shows of groups, topics and
// connections, the faults it injects, the connections it drops, the events it streams, and the
// 4xx it answers to bad input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetadataRequest, createOffsetCommitRequest } from '../../../src/codec/index.js';
import { ControlError, FaultInjector } from '../../../src/broker/control/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import { RawClient } from '../../support/raw-client.js';
import { assignment, joinStatic, produce, stableGroup, syncLeader } from './helpers.js';

/** Input the types forbid, as the HTTP API may hand it over: the control plane checks it at run time. */
const untyped = (x: unknown): never => x as never;

let kmock: Kmock;
const clients: RawClient[] = [];

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, numPartitions: 2 });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await kmock.close();
});

async function raw(clientId = 'raw'): Promise<RawClient> {
  const c = await RawClient.connect(kmock.bootstrapServers);
  c.clientId = clientId;
  clients.push(c);
  return c;
}

/** The ControlError a call throws (fails when it does not throw one). */
function controlError(fn: () => unknown): ControlError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ControlError);
    return e as ControlError;
  }
  throw new Error('expected a ControlError');
}

describe('read', () => {
  it('shows a group with its members, decoded subscription and assignment, and committed offsets with lag', async () => {
    const producer = await raw('producer');
    expect(await produce(producer, 't', 0, 5)).toBe(0);
    const j = await stableGroup(kmock.bootstrapServers, 'g1', 'inst-a', { t: [0, 1] });
    clients.push(j.client);
    const commit = await j.client.request(
      8,
      7,
      createOffsetCommitRequest({
        groupId: 'g1',
        generationIdOrMemberEpoch: j.generationId,
        memberId: j.memberId,
        groupInstanceId: 'inst-a',
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: 'm' }] }],
      }),
    );
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);

    expect(kmock.control.groups()).toEqual([
      { groupId: 'g1', state: 'Stable', protocolType: 'consumer', protocolName: 'range', generationId: 1, leader: j.memberId, members: 1 },
    ]);
    const g = kmock.control.group('g1');
    expect(g).toMatchObject({
      groupId: 'g1',
      state: 'Stable',
      generationId: 1,
      leader: j.memberId,
      pendingMemberIds: [],
      offlineStaticMembers: [],
      heldStaticMembers: [],
      mode: null,
      groupPolicies: null,
    });
    expect(g.policies['registration-timeout'].enabled).toBe(false);
    expect(g.rebalances).toEqual([expect.objectContaining({ generationId: 0, trigger: 'member-joined', groupInstanceId: 'inst-a' })]);
    expect(g.members).toEqual([
      expect.objectContaining({
        memberId: j.memberId,
        groupInstanceId: 'inst-a',
        clientId: 'client-inst-a',
        sessionTimeoutMs: 30_000,
        rebalanceTimeoutMs: 30_000,
        protocols: ['range'],
        isLeader: true,
        awaitingJoin: false,
        awaitingSync: false,
        subscription: { version: 1, topics: ['t'], ownedPartitions: [], generationId: -1, rackId: null, userData: null },
        assignment: { version: 1, assignedPartitions: [{ topic: 't', partitions: [0, 1] }], userData: null },
        offlineSince: null,
      }),
    ]);
    expect(g.members[0]!.clientHost).toMatch(/127\.0\.0\.1/);
    expect(g.offsets).toEqual([{ topic: 't', partition: 0, offset: 2, leaderEpoch: -1, metadata: 'm', lag: 3 }]);
  });

  it('shows metadata it cannot decode as base64, with the reason', async () => {
    const bad = Buffer.from([0, 1, 0xff]);
    const j = await joinStatic(kmock.bootstrapServers, { groupId: 'g2', instanceId: 'x', metadata: bad });
    clients.push(j.client);
    const m = kmock.control.group('g2').members[0]!;
    expect(m.subscription).toEqual({ error: expect.any(String), raw: bad.toString('base64') });
    expect(m.assignment).toBeNull();

    const other = await joinStatic(kmock.bootstrapServers, { groupId: 'g3', instanceId: 'y', protocolType: 'connect', metadata: Buffer.from('hello') });
    clients.push(other.client);
    expect(kmock.control.group('g3').members[0]!.subscription).toEqual({ raw: Buffer.from('hello').toString('base64') });
  });

  it('shows topics with partitions and log start/end offsets', async () => {
    const c = await raw();
    await produce(c, 'orders', 1, 3);
    expect(kmock.control.topics()).toEqual([
      {
        name: 'orders',
        topicId: expect.any(String),
        internal: false,
        replicationFactor: 1,
        partitions: [
          { partition: 0, logStartOffset: 0, logEndOffset: 0, highWatermark: 0, lastStableOffset: 0, sizeBytes: 0, segments: 1, residentBytes: 0 },
          { partition: 1, logStartOffset: 0, logEndOffset: 3, highWatermark: 3, lastStableOffset: 3, sizeBytes: expect.any(Number), segments: 1, residentBytes: expect.any(Number) },
        ],
      },
    ]);
  });

  it('lists connections with their client ids', async () => {
    const a = await raw('alpha');
    await a.request(3, 9, createMetadataRequest({ topics: [] }));
    const view = kmock.control.connections();
    expect(view).toEqual([expect.objectContaining({ clientId: 'alpha', host: expect.stringMatching(/127\.0\.0\.1/) })]);
  });

  it('answers unknown or malformed group ids with 404 and 400', () => {
    expect(controlError(() => kmock.control.group('nope')).status).toBe(404);
    expect(controlError(() => kmock.control.group('')).status).toBe(400);
    expect(controlError(() => kmock.control.group(42)).status).toBe(400);
  });
});

describe('act: groups', () => {
  it('removes a static member by instance id (the group rebalances to Empty) and reports each id', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'rm', 'inst-a', { t: [0] });
    clients.push(j.client);
    const events: GroupEvent[] = [];
    const off = kmock.control.subscribe((e) => events.push(e), 'rm');
    const result = kmock.control.removeMembers('rm', { groupInstanceIds: ['inst-a'] }, 'test removal');
    off();
    expect(JSON.stringify(result)).toContain('inst-a');
    expect(kmock.control.group('rm').members).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'member-removed', memberId: j.memberId, groupInstanceId: 'inst-a' }));
  });

  it('removes every member with all: true', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'ra', 'inst-a', { t: [0] });
    clients.push(j.client);
    const r = kmock.control.removeMembers('ra', { all: true });
    expect(r).toMatchObject({ groupId: 'ra', errorCode: 0, members: [{ groupInstanceId: 'inst-a', errorCode: 0, error: null }] });
    expect(kmock.control.group('ra')).toMatchObject({ state: 'Empty', members: [] });
    expect(controlError(() => kmock.control.removeMembers('ra', { all: true, memberIds: ['x'] })).status).toBe(400);
    expect(controlError(() => kmock.control.removeMembers('ra', untyped({ all: 'yes' }))).status).toBe(400);
  });

  it('validates removals before touching the group', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'rv', 'inst-a', { t: [0] });
    clients.push(j.client);
    expect(controlError(() => kmock.control.removeMembers('rv', {})).status).toBe(400);
    expect(controlError(() => kmock.control.removeMembers('rv', { memberIds: [''] })).status).toBe(400);
    expect(controlError(() => kmock.control.removeMembers('rv', untyped({ memberIds: 'x' }))).status).toBe(400);
    expect(controlError(() => kmock.control.removeMembers('rv', { groupInstanceIds: ['b'] })).status).toBe(404);
    expect(controlError(() => kmock.control.removeMembers('rv', { memberIds: ['ghost'] })).status).toBe(404);
    expect(controlError(() => kmock.control.removeMembers('rv', untyped({ instance: ['inst-a'] }))).status).toBe(400);
    expect(controlError(() => kmock.control.removeMembers('nope', { memberIds: ['m'] })).status).toBe(404);
    expect(kmock.control.group('rv').members).toHaveLength(1);
    expect(kmock.control.group('rv').state).toBe('Stable');
  });

  it('sets policies broker-wide and per group (object or --policy text form), and clears a group\'s own', () => {
    const broker = kmock.control.setBrokerPolicies({ 'kip423-join-reasons': true });
    expect(broker['kip423-join-reasons'].enabled).toBe(true);
    const group = kmock.control.setGroupPolicies('later', 'registration-timeout=15m,kip345-draft-errors');
    expect(group['registration-timeout']).toEqual({ enabled: true, registrationTimeoutMs: 900_000 });
    expect(group['kip345-draft-errors'].enabled).toBe(true);
    expect(group['kip423-join-reasons'].enabled).toBe(true);
    const view = kmock.control.policies();
    expect(view.broker['registration-timeout'].enabled).toBe(false);
    expect(view.groups).toEqual([
      {
        groupId: 'later',
        policies: group,
        groupPolicies: { 'registration-timeout': { enabled: true, registrationTimeoutMs: 900_000 }, 'kip345-draft-errors': { enabled: true } },
      },
    ]);
    expect(kmock.control.setGroupPolicies('later', null)['registration-timeout'].enabled).toBe(false);
    expect(kmock.control.policies().groups).toEqual([]);
  });

  it('forces a rebalance, with its cause in the events and the group\'s rebalance history', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'fr', 'inst-a', { t: [0] });
    clients.push(j.client);
    const events: GroupEvent[] = [];
    const off = kmock.control.subscribe((e) => events.push(e), 'fr');
    const r = kmock.control.forceRebalance('fr', 'testing');
    off();
    expect(r).toMatchObject({ groupId: 'fr', errorCode: 0, rebalanced: true, generationId: 1 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'rebalance-started', trigger: 'admin-forced', clientReason: 'testing' }));
    const g = kmock.control.group('fr');
    expect(g.state).toBe('PreparingRebalance');
    expect(g.rebalances.at(-1)).toMatchObject({ trigger: 'admin-forced', clientReason: 'testing' });
    // Again while one is under way: nothing new.
    expect(kmock.control.forceRebalance('fr')).toMatchObject({ rebalanced: false });
    expect(controlError(() => kmock.control.forceRebalance('nope')).status).toBe(404);
  });

  it('runs the draft\'s admin operations: refused (409) while membership-modes is off, then in the draft\'s result shape', async () => {
    const j = await stableGroup(kmock.bootstrapServers, 'mm', 'inst-a', { t: [0] });
    clients.push(j.client);
    const off = controlError(() => kmock.control.enableStaticMembership('mm'));
    expect(off.status).toBe(409);
    expect(off.message).toMatch(/MEMBERSHIP_MODES_DISABLED/);
    expect(off.details?.result).toMatchObject({ groupId: 'mm', errorCode: expect.any(Number), error: 'MEMBERSHIP_MODES_DISABLED' });

    kmock.control.setGroupPolicies('mm', { 'membership-modes': true });
    const st = kmock.control.enableStaticMembership('mm', { registrationTimeoutMs: 600_000 });
    expect(st).toMatchObject({ groupId: 'mm', errorCode: 0, error: null, mode: 'static', generationId: 1, members: [{ memberId: j.memberId, groupInstanceId: 'inst-a' }] });
    expect(kmock.control.group('mm')).toMatchObject({ mode: 'static', modePinned: true });
    expect(kmock.control.group('mm').policies['registration-timeout']).toEqual({ enabled: true, registrationTimeoutMs: 600_000 });

    const dyn = kmock.control.enableDynamicMembership('mm');
    expect(dyn).toMatchObject({ errorCode: 0, mode: 'dynamic' });
    const again = controlError(() => kmock.control.enableDynamicMembership('mm'));
    expect(again.status).toBe(409);
    expect(again.message).toMatch(/WRONG_MEMBERSHIP_MODE/);
    const fsr = controlError(() => kmock.control.forceStaticRebalance('mm'));
    expect(fsr.status).toBe(409);

    kmock.control.enableStaticMembership('mm');
    expect(kmock.control.forceStaticRebalance('mm')).toMatchObject({ errorCode: 0, mode: 'static', generationId: 1 });
    expect(kmock.control.group('mm').state).toBe('PreparingRebalance');
    expect(kmock.control.group('mm').rebalances.at(-1)).toMatchObject({ trigger: 'force-static-rebalance' });

    kmock.control.setGroupPolicies('ghost', { 'membership-modes': true });
    expect(controlError(() => kmock.control.enableStaticMembership('ghost')).status).toBe(404);
  });

  it('validates policy updates before calling the coordinator', () => {
    expect(controlError(() => kmock.control.setBrokerPolicies(untyped({ 'no-such-policy': true }))).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies({ 'registration-timeout': { registrationTimeoutMs: -5 } })).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies(untyped({ 'registration-timeout': { enabled: 'yes' } }))).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies(untyped({ 'kip423-join-reasons': { speed: 1 } }))).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies(untyped([]))).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies('registration-timeout=soon')).status).toBe(400);
    expect(controlError(() => kmock.control.setBrokerPolicies({ 'registration-timeout': { registrationTimeoutMs: 2 ** 31 } })).status).toBe(400);
    expect(controlError(() => kmock.control.setGroupPolicies('', {})).status).toBe(400);
    expect(controlError(() => kmock.control.enableStaticMembership('g', untyped({ registrationTimeoutMs: 'soon' }))).status).toBe(400);
    expect(controlError(() => kmock.control.enableStaticMembership('g', untyped({ registrationTimeout: 5 }))).status).toBe(400);
    expect(controlError(() => kmock.control.forceRebalance('g', 'x'.repeat(300))).status).toBe(400);
  });
});

describe('act: faults', () => {
  it('queues error codes per API key, answers them in order, then serves normally', () => {
    const f = new FaultInjector();
    const conn = { id: 1, clientHost: 'h', clientPort: 1, clientId: 'c', listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' as const, principal: 'User:ANONYMOUS' };
    expect(f.armed).toBe(false);
    f.pushErrors(3, [6, 6, 5]);
    f.pushErrors(3, [7]);
    expect(f.armed).toBe(true);
    expect(f.intercept(0, conn)).toBeUndefined();
    const seen: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const fault = f.intercept(3, conn);
      const res = fault?.respond?.({ topics: [{ name: 'x', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: false }, 12) as
        | { topics: Array<{ errorCode: number }> }
        | undefined;
      seen.push(res?.topics[0]?.errorCode);
    }
    expect(seen).toEqual([6, 6, 5, 7, undefined]);
    expect(f.armed).toBe(false);
    expect(f.view().injected).toEqual([{ apiKey: 3, api: 'Metadata', count: 4 }]);
  });

  it('adds latency per API key and clears everything', () => {
    const f = new FaultInjector();
    const conn = { id: 1, clientHost: 'h', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' as const, principal: 'User:ANONYMOUS'};
    f.setLatency(1, 250);
    expect(f.intercept(1, conn)).toEqual({ delayMs: 250 });
    expect(f.intercept(2, conn)).toBeUndefined();
    f.pushErrors(1, [6]);
    expect(f.intercept(1, conn)).toMatchObject({ delayMs: 250, respond: expect.any(Function) });
    expect(f.view()).toMatchObject({ latency: [{ apiKey: 1, api: 'Fetch', ms: 250 }], errors: [] });
    f.setLatency(1, 0);
    expect(f.armed).toBe(false);
    f.pushErrors(0, [6]);
    f.clear();
    expect(f.armed).toBe(false);
    expect(f.view()).toEqual({ errors: [], latency: [], injected: [] });
  });

  it('takes API keys and error codes by number or name and shows queued runs', () => {
    kmock.control.injectErrors({ apiKey: 'produce', errorCode: 'not_leader_or_follower', count: 3 });
    kmock.control.injectErrors({ apiKey: 0, errorCodes: [5, 'REQUEST_TIMED_OUT'] });
    kmock.control.setLatency({ apiKey: 'Fetch', ms: 100 });
    expect(kmock.control.faultsView()).toEqual({
      errors: [
        {
          apiKey: 0,
          api: 'Produce',
          remaining: [
            { code: 6, name: 'NOT_LEADER_OR_FOLLOWER', count: 3 },
            { code: 5, name: 'LEADER_NOT_AVAILABLE', count: 1 },
            { code: 7, name: 'REQUEST_TIMED_OUT', count: 1 },
          ],
        },
      ],
      latency: [{ apiKey: 1, api: 'Fetch', ms: 100 }],
      injected: [],
    });
    expect(kmock.control.clearFaults()).toEqual({ errors: [], latency: [], injected: [] });
  });

  it('refuses bad fault input with 400', () => {
    const bad: unknown[] = [
      undefined,
      { errorCode: 6 },
      { apiKey: 'NoSuchApi', errorCode: 6 },
      { apiKey: 99, errorCode: 6 },
      { apiKey: 4, errorCode: 6 },
      { apiKey: 0 },
      { apiKey: 0, errorCode: 0 },
      { apiKey: 0, errorCode: 'NOPE' },
      { apiKey: 0, errorCode: 999 },
      { apiKey: 0, errorCode: 6, count: 0 },
      { apiKey: 0, errorCode: 6, count: 1.5 },
      { apiKey: 0, errorCode: 6, count: 1_000_000 },
      { apiKey: 0, errorCodes: [] },
      { apiKey: 0, errorCodes: [6], errorCode: 6 },
      { apiKey: 0, errorCode: 6, extra: true },
    ];
    for (const b of bad) {
      expect(controlError(() => kmock.control.injectErrors(untyped(b))).status, JSON.stringify(b)).toBe(400);
    }
    for (const b of [{ apiKey: 1 }, { apiKey: 1, ms: -1 }, { apiKey: 1, ms: 'slow' }, { apiKey: 1, ms: 10_000_000 }]) {
      expect(controlError(() => kmock.control.setLatency(untyped(b))).status, JSON.stringify(b)).toBe(400);
    }
    expect(kmock.control.faultsView().errors).toEqual([]);
  });
});

describe('act: connections', () => {
  it('drops the connections of one client id, or all', async () => {
    const a1 = await raw('alpha');
    const a2 = await raw('alpha');
    const b = await raw('beta');
    for (const c of [a1, a2, b]) await c.request(3, 9, createMetadataRequest({ topics: [] }));
    expect(kmock.control.dropConnections({ clientId: 'alpha' })).toEqual({ dropped: 2 });
    expect(await a1.waitForClose()).toBe(true);
    expect(await a2.waitForClose()).toBe(true);
    expect(b.isClosed).toBe(false);
    await b.request(3, 9, createMetadataRequest({ topics: [] }));
    expect(kmock.control.dropConnections({ clientId: 'nobody' })).toEqual({ dropped: 0 });
    expect(kmock.control.dropConnections()).toEqual({ dropped: 1 });
    expect(await b.waitForClose()).toBe(true);
    expect(controlError(() => kmock.control.dropConnections(untyped({ clientId: 7 }))).status).toBe(400);
    expect(controlError(() => kmock.control.dropConnections(untyped({ client: 'x' }))).status).toBe(400);
  });
});

describe('watch', () => {
  it('streams group events through an async iterator, filtered by group, until return()', async () => {
    const listenersBefore = kmock.broker.groupEventListeners.size;
    const it = kmock.control.events({ groupId: 'w1' });
    expect(kmock.broker.groupEventListeners.size).toBe(listenersBefore + 1);
    const other = await joinStatic(kmock.bootstrapServers, { groupId: 'w0', instanceId: 'z' });
    const j = await joinStatic(kmock.bootstrapServers, { groupId: 'w1', instanceId: 'a' });
    clients.push(other.client, j.client);
    await syncLeader(j, 'w1', 'a', { [j.memberId]: assignment({ t: [0] }) });
    const types: string[] = [];
    for await (const e of it) {
      expect(e.groupId).toBe('w1');
      types.push(e.type);
      if (e.type === 'state-changed' && e.to === 'Stable') break;
    }
    expect(types).toEqual(expect.arrayContaining(['group-created', 'member-joined', 'rebalance-started', 'generation-bumped']));
    const started = types.indexOf('rebalance-started');
    expect(started).toBeLessThan(types.indexOf('generation-bumped'));
    // `break` called return(): unsubscribed.
    expect(kmock.broker.groupEventListeners.size).toBe(listenersBefore);
  });

  it('serves concurrent next() calls in order, and a failing listener does not disturb the group', async () => {
    kmock.control.subscribe(() => {
      throw new Error('listener bug');
    });
    const it = kmock.control.events({ groupId: 'cc' });
    const first = it.next();
    const second = it.next();
    const j = await stableGroup(kmock.bootstrapServers, 'cc', 'a', { t: [0] });
    clients.push(j.client);
    expect((await first).value).toMatchObject({ type: 'group-created' });
    expect((await second).value).toMatchObject({ type: 'member-joined' });
    await it.return!();
    expect(kmock.control.group('cc').state).toBe('Stable');
  });

  it('ends the iteration when the signal aborts', async () => {
    const ac = new AbortController();
    const it = kmock.control.events({ signal: ac.signal });
    const next = it.next();
    ac.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });
});
