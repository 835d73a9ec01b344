// Strict-clients mode on the classic group protocol: a JoinGroup that ignores the member id
// MEMBER_ID_REQUIRED handed out, and a Heartbeat with a stale generation. Every step goes to a
// strict and a plain broker; their answers are the same bytes once the member ids (which carry a
// random UUID) are masked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHeartbeatRequest,
  createJoinGroupRequest,
  createLeaveGroupRequest,
  createSyncGroupRequest,
  decodeResponse,
  ErrorCode,
  type ApiTypes,
} from '../../../src/codec/index.js';
import { RawClient } from '../../support/raw-client.js';
import { answerTo, connectBoth, frameOf, masked, strictAndPlain, type Twins } from './helpers.js';

let twins: Twins;
let clients: [RawClient, RawClient];
/** Member ids each broker handed out, to mask in its answers. */
const ids: [string[], string[]] = [[], []];
let correlationId = 1;

beforeEach(async () => {
  twins = await strictAndPlain({ groupInitialRebalanceDelayMs: 0 });
  clients = await connectBoth(twins);
  ids[0] = [];
  ids[1] = [];
});
afterEach(async () => {
  for (const c of clients) c.close();
  await twins.close();
});

/**
 * One request to both brokers, built per broker by `body` (given that broker's index, for its own
 * member ids); the answers must be equal bytes after masking; returns both decoded.
 */
async function both<K extends keyof ApiTypes>(apiKey: K, version: number, body: (i: 0 | 1) => ApiTypes[K]['request'], on = clients) {
  const id = correlationId++;
  const frames = await Promise.all(([0, 1] as const).map((i) => answerTo(on[i], frameOf(apiKey, version, id, body(i)))));
  const decoded = frames.map((f) => decodeResponse(f as Buffer, apiKey, version).body as ApiTypes[K]['response']) as [ApiTypes[K]['response'], ApiTypes[K]['response']];
  for (const [i, d] of decoded.entries()) {
    const memberId = (d as { memberId?: string }).memberId;
    if (memberId) ids[i as 0 | 1].push(memberId);
  }
  expect(masked(frames[0]!, ids[0])).toEqual(masked(frames[1]!, ids[1]));
  return decoded;
}

const protocols = [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 0]) }];
const join = (memberId: (i: 0 | 1) => string, groupInstanceId: string | null = null) => (i: 0 | 1) =>
  createJoinGroupRequest({ groupId: 'g', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: memberId(i), groupInstanceId, protocolType: 'consumer', protocols });
const none = () => '';
const kinds = () => twins.strict.control.strictClients().kinds;

describe('member-id-required-ignored', () => {
  it('an empty member id again on the connection that was handed one', async () => {
    const [first] = await both(11, 5, join(none));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const [again] = await both(11, 5, join(none));
    expect(again.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(again.memberId).not.toBe(first.memberId);
    expect(kinds()).toMatchObject([
      {
        kind: 'member-id-required-ignored',
        count: 1,
        first: {
          api: 'JoinGroup',
          apiVersion: 5,
          correlationId: correlationId - 1,
          clientId: 'kmock-raw-client',
          detail: `group g: an empty member id, though this connection's JoinGroup (correlation id ${correlationId - 2}) was answered MEMBER_ID_REQUIRED with member id ${first.memberId}`,
        },
      },
    ]);
  });

  it('no finding when the handed id was used, after a LeaveGroup, on another connection, or for a static member', async () => {
    const [handed] = await both(11, 5, join(none));
    const [joined] = await both(11, 5, join((i) => ids[i][0]!));
    expect(joined.errorCode).toBe(0);
    const [left] = await both(13, 3, (i) => createLeaveGroupRequest({ groupId: 'g', members: [{ memberId: ids[i][0]!, groupInstanceId: null, reason: null }] }));
    expect(left.errorCode).toBe(0);
    // a fresh member after leaving: MEMBER_ID_REQUIRED again, then a second connection's first join
    expect((await both(11, 5, join(none)))[0].errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const others = await connectBoth(twins);
    try {
      expect((await both(11, 5, join(none), others))[0].errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    } finally {
      for (const c of others) c.close();
    }
    expect(handed.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    // static members never get MEMBER_ID_REQUIRED: their empty member id is how they always join
    const staticJoin = (i: 0 | 1) => ({ ...join(none, 'instance-1')(i), groupId: 's' });
    expect((await both(11, 5, staticJoin))[0].errorCode).toBe(0);
    expect((await both(11, 5, staticJoin))[0].errorCode).toBe(0);
    expect(kinds()).toEqual([]);
  });
});

describe('heartbeat-stale-generation', () => {
  it('a heartbeat with the generation from before a rebalance the member was told of and rejoined', async () => {
    const memberId = (i: 0 | 1) => ids[i][0]!;
    await both(11, 5, join(none));
    const [gen1] = await both(11, 5, join(memberId));
    expect(gen1).toMatchObject({ errorCode: 0, generationId: 1 });
    const sync = (generationId: number) => (i: 0 | 1) =>
      createSyncGroupRequest({ groupId: 'g', generationId, memberId: memberId(i), assignments: [{ memberId: memberId(i), assignment: Buffer.from([0, 1, 0, 0, 0, 0, 0, 0]) }] });
    expect((await both(14, 3, sync(1)))[0].errorCode).toBe(0);
    const heartbeat = (generationId: number) => (i: 0 | 1) => createHeartbeatRequest({ groupId: 'g', generationId, memberId: memberId(i) });
    expect((await both(12, 3, heartbeat(1)))[0].errorCode).toBe(0);

    for (const k of [twins.strict, twins.plain]) k.control.forceRebalance('g', 'test');
    expect((await both(12, 3, heartbeat(1)))[0].errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(kinds()).toEqual([]); // heartbeating on while told to rejoin is what clients do (KIP-62)
    const [gen2] = await both(11, 5, join(memberId));
    expect(gen2).toMatchObject({ errorCode: 0, generationId: 2 });
    expect((await both(12, 3, heartbeat(1)))[0].errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await both(14, 3, sync(2)))[0].errorCode).toBe(0);
    expect((await both(12, 3, heartbeat(2)))[0].errorCode).toBe(0);
    expect(kinds()).toMatchObject([
      {
        kind: 'heartbeat-stale-generation',
        count: 1,
        first: { api: 'Heartbeat', apiVersion: 3, detail: `group g: member ${ids[0][0]} sent generation 1; the group is at generation 2 (CompletingRebalance)` },
      },
    ]);
  });
});
