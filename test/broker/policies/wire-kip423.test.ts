// kip423-join-reasons over the wire: JoinGroup v7/v8/v9 frames built with kmock's codec, sent on
// raw sockets to a listening kmock (one connection per member: a parked JoinGroup holds its
// connection, as Kafka's muted channel does).

import { afterEach, describe, expect, it } from 'vitest';
import { createHeartbeatRequest, createJoinGroupRequest, createSyncGroupRequest, ErrorCode } from '../../../src/codec/index.js';
import type { GroupEvent } from '../../../src/broker/group/index.js';
import type { PolicyUpdate } from '../../../src/broker/group/policies/types.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { RawClient } from '../../support/raw-client.js';

const GROUP = 'wire-g';
const protocols = [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 116, 0, 0, 0, 0]) }];

let kmock: Kmock | undefined;
const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await kmock?.close();
  kmock = undefined;
});

interface Member {
  c: RawClient;
  instance: string;
  memberId: string;
}

async function setup(policies: PolicyUpdate) {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, policies });
  const events: GroupEvent[] = [];
  kmock.broker.groupEventListeners.add((e) => events.push(e));
  const connect = async (clientId: string) => {
    const c = await RawClient.connect(kmock!.bootstrapServers);
    c.clientId = clientId;
    clients.push(c);
    return c;
  };
  return { events, a: { c: await connect('client-a'), instance: 'a', memberId: '' }, b: { c: await connect('client-b'), instance: 'b', memberId: '' } };
}

function join(m: Member, version: number, reason: string | null = null) {
  return m.c.request(
    11,
    version,
    createJoinGroupRequest({
      groupId: GROUP,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 10_000,
      memberId: m.memberId,
      groupInstanceId: m.instance,
      protocolType: 'consumer',
      protocols,
      reason,
    }),
  );
}

function sync(m: Member, generationId: number, assignments: Array<{ memberId: string; assignment: Buffer }> = []) {
  return m.c.request(
    14,
    5,
    createSyncGroupRequest({ groupId: GROUP, generationId, memberId: m.memberId, groupInstanceId: m.instance, protocolType: 'consumer', protocolName: 'range', assignments }),
  );
}

function heartbeat(m: Member, generationId: number) {
  return m.c.request(12, 4, createHeartbeatRequest({ groupId: GROUP, generationId, memberId: m.memberId, groupInstanceId: m.instance }));
}

function state() {
  return kmock!.broker.groups.group(GROUP)!.state;
}

/** a (leader) and b, static, Stable at generation 2, assigned "pa" and "pb". */
async function stableAB(a: Member, b: Member): Promise<number> {
  const ja = await join(a, 9);
  expect(ja.errorCode).toBe(0);
  a.memberId = ja.memberId;
  await sync(a, ja.generationId, [{ memberId: a.memberId, assignment: Buffer.from('pa') }]);
  const jb = join(b, 9);
  expect(await heartbeat(a, ja.generationId)).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
  const ja2 = await join(a, 9, 'group is already rebalancing');
  const jb2 = await jb;
  b.memberId = jb2.memberId;
  expect(ja2).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId });
  expect(ja2.members).toHaveLength(2);
  const sa = await sync(a, 2, [
    { memberId: a.memberId, assignment: Buffer.from('pa') },
    { memberId: b.memberId, assignment: Buffer.from('pb') },
  ]);
  expect(sa.assignment.toString()).toBe('pa');
  expect((await sync(b, 2)).assignment.toString()).toBe('pb');
  expect(state()).toBe('Stable');
  return 2;
}

describe('kip423-join-reasons on the wire', () => {
  it('v9 "restart" from the leader: the current generation, members and SkipAssignment, no rebalance; v8: no SkipAssignment field', async () => {
    const { a, b, events } = await setup({ 'kip423-join-reasons': { enabled: true } });
    const gen = await stableAB(a, b);
    const from = events.length;

    const r9 = await join(a, 9, 'restart');
    expect(r9).toMatchObject({ errorCode: 0, generationId: gen, leader: a.memberId, memberId: a.memberId, skipAssignment: true, protocolName: 'range' });
    expect(r9.members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b']);
    expect(state()).toBe('Stable');
    // The leader's SyncGroup (SkipAssignment: it sends none) returns its stored assignment.
    expect((await sync(a, gen)).assignment.toString()).toBe('pa');

    const r8 = await join(a, 8, 'RESTART');
    expect(r8).toMatchObject({ errorCode: 0, generationId: gen, leader: a.memberId, skipAssignment: false });
    expect(r8.members).toHaveLength(2);
    expect(state()).toBe('Stable');

    // A follower's topic_metadata_change is treated as unknown: Kafka's rules, and it is unchanged.
    const rb = await join(b, 9, 'topic_metadata_change');
    expect(rb).toMatchObject({ errorCode: 0, generationId: gen, members: [] });
    expect(state()).toBe('Stable');

    expect(events.slice(from).filter((e) => e.type === 'rebalance-started')).toEqual([]);
    expect(events.slice(from).filter((e) => e.type === 'join-reason').map((e) => e.type === 'join-reason' && [e.joinReason, e.decision])).toEqual([
      ['restart', 'no-rebalance'],
      ['restart', 'no-rebalance'],
      ['topic_metadata_change', 'kafka-rules'],
    ]);
  });

  it('v9 "topic_metadata_change" from the leader rebalances; below v8 (no Reason field) Kafka\'s leader rejoin rebalances', async () => {
    const { a, b, events } = await setup({ 'kip423-join-reasons': { enabled: true } });
    const gen = await stableAB(a, b);

    const pa = join(a, 9, 'topic_metadata_change');
    await expect.poll(() => state()).toBe('PreparingRebalance');
    expect(events.filter((e) => e.type === 'rebalance-started').at(-1)).toMatchObject({ trigger: 'topic-metadata-change', joinReason: 'topic_metadata_change' });
    expect(await heartbeat(b, gen)).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    const pb = join(b, 9);
    const [ra, rb] = await Promise.all([pa, pb]);
    expect(ra.generationId).toBe(gen + 1);
    expect(rb.generationId).toBe(gen + 1);
    await sync(a, gen + 1, [
      { memberId: a.memberId, assignment: Buffer.from('pa') },
      { memberId: b.memberId, assignment: Buffer.from('pb') },
    ]);
    await sync(b, gen + 1);
    expect(state()).toBe('Stable');

    // v7 cannot carry a Reason: "restart" is not sent, and the leader's rejoin rebalances.
    const p7 = join(a, 7, 'restart');
    await expect.poll(() => state()).toBe('PreparingRebalance');
    expect(events.filter((e) => e.type === 'rebalance-started').at(-1)).toMatchObject({ trigger: 'leader-rejoined', clientReason: null, joinReason: 'unknown' });
    const pb2 = join(b, 9);
    expect((await p7).generationId).toBe(gen + 2);
    expect((await pb2).generationId).toBe(gen + 2);
  });

  it('with the policy off, the same v9 "restart" from the leader rebalances (Kafka 3.9)', async () => {
    const { a, b, events } = await setup({});
    await stableAB(a, b);
    const p = join(a, 9, 'restart');
    await expect.poll(() => state()).toBe('PreparingRebalance');
    expect(events.filter((e) => e.type === 'rebalance-started').at(-1)).toMatchObject({ trigger: 'leader-rejoined', clientReason: 'restart', joinReason: 'restart' });
    const pb = join(b, 9);
    expect((await p).generationId).toBe(3);
    expect((await pb).generationId).toBe(3);
  });
});
