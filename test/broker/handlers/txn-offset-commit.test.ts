// TxnOffsetCommit (28) and OffsetFetch RequireStable (9, v7+) at the handler: requests encoded and
// decoded by the codec at each version, answered by the handlers on a Broker's own services (what
// KafkaApis does around the group coordinator: unknown topics and partitions, version shaping).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Broker } from '../../../src/broker/broker.js';
import { resolveConfig } from '../../../src/broker/config.js';
import { offsetFetchHandler } from '../../../src/broker/handlers/offset-fetch.js';
import { txnOffsetCommitHandler } from '../../../src/broker/handlers/txn-offset-commit.js';
import type { RequestContext } from '../../../src/broker/handlers/types.js';
import {
  createOffsetFetchRequest,
  createTxnOffsetCommitRequest,
  decodeRequest,
  encodeRequest,
  ErrorCode,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponse,
} from '../../../src/codec/index.js';

let broker: Broker;
/** The producer of transactional id "tx", in a transaction with group "g"'s offsets (AddOffsetsToTxn). */
let producer: { producerId: bigint; producerEpoch: number };

beforeEach(() => {
  broker = new Broker(resolveConfig({ logLevel: 'silent' }));
  broker.topics.create('t', 2, 1);
  // As FindCoordinator creates it: the markers of a transaction's offsets go to its partitions.
  broker.topics.create('__consumer_offsets', 50, 1);
  producer = beginTransaction('tx', 'g');
});
afterEach(() => broker.shutdown());

/** InitProducerId then AddOffsetsToTxn, on the broker's transaction coordinator. */
function beginTransaction(transactionalId: string, groupId: string): { producerId: bigint; producerEpoch: number } {
  const txn = broker.services.transactions;
  let init: { producerId: bigint; producerEpoch: number; errorCode: number } | undefined;
  txn.initProducerId(transactionalId, 60_000, undefined, (r) => (init = r));
  expect(init?.errorCode).toBe(ErrorCode.NONE);
  let added: number | undefined;
  txn.addOffsetsToTransaction(transactionalId, init!.producerId, init!.producerEpoch, groupId, (e) => (added = e));
  expect(added).toBe(ErrorCode.NONE);
  return { producerId: init!.producerId, producerEpoch: init!.producerEpoch };
}

function endTransaction(transactionalId: string, p: { producerId: bigint; producerEpoch: number }, result: 'COMMIT' | 'ABORT'): void {
  let ended: number | undefined;
  broker.services.transactions.endTransaction(transactionalId, p.producerId, p.producerEpoch, result, (e) => (ended = e));
  expect(ended).toBe(ErrorCode.NONE);
}

function context(apiKey: number, apiVersion: number, frame: Buffer): { ctx: RequestContext; body: unknown } {
  const decoded = decodeRequest(frame.subarray(4));
  const ctx: RequestContext = {
    services: broker.services,
    connection: { id: 1, clientHost: '127.0.0.1', clientPort: 1, listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS'},
    listener: broker.services.listeners[0], closeConnection: () => undefined,
    header: decoded.header,
    apiVersion,
    receivedAt: 0,
    receivedAtClock: 0,
  };
  expect(decoded.header.apiKey).toBe(apiKey);
  return { ctx, body: decoded.body };
}

/** Encodes at `version` (fields the version lacks are dropped), decodes, answers. */
function txnOffsetCommit(version: number, init: Partial<TxnOffsetCommitRequest>): TxnOffsetCommitResponse {
  const request = createTxnOffsetCommitRequest({ transactionalId: 'tx', groupId: 'g', ...producer, ...init });
  const { ctx, body } = context(28, version, encodeRequest({ apiKey: 28, apiVersion: version, correlationId: 1, clientId: 'c' }, request));
  return txnOffsetCommitHandler.handle(ctx, body as TxnOffsetCommitRequest) as TxnOffsetCommitResponse;
}

function offsetFetch(version: number, init: Partial<OffsetFetchRequest>): OffsetFetchResponse {
  const request = createOffsetFetchRequest(init);
  const { ctx, body } = context(9, version, encodeRequest({ apiKey: 9, apiVersion: version, correlationId: 2, clientId: 'c' }, request));
  return offsetFetchHandler.handle(ctx, body as OffsetFetchRequest) as OffsetFetchResponse;
}

const partitions = (...ps: [number, bigint][]) => ps.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' }));

describe('TxnOffsetCommit handler', () => {
  it('serves v0–v4', () => {
    expect([txnOffsetCommitHandler.apiKey, txnOffsetCommitHandler.minVersion, txnOffsetCommitHandler.maxVersion]).toEqual([28, 0, 4]);
  });

  it('answers unknown topics and partitions itself and passes the rest to the coordinator (KafkaApis order)', () => {
    const r = txnOffsetCommit(4, {
      topics: [
        { name: 'nope', partitions: partitions([0, 1n], [3, 1n]) },
        { name: 't', partitions: partitions([0, 5n], [2, 6n], [1, 7n]) },
      ],
    });
    expect(r.topics).toEqual([
      { name: 'nope', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }, { partitionIndex: 3, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      {
        name: 't',
        partitions: [
          { partitionIndex: 2, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
          { partitionIndex: 0, errorCode: ErrorCode.NONE },
          { partitionIndex: 1, errorCode: ErrorCode.NONE },
        ],
      },
    ]);
    expect(broker.services.groups.pendingTransactionalOffsets('g').map((p) => [p.topic, p.partition, p.offset])).toEqual([
      ['t', 0, 5n],
      ['t', 1, 7n],
    ]);
  });

  it('a request with only unknown partitions never reaches the coordinator: no group is created', () => {
    const r = txnOffsetCommit(3, { topics: [{ name: 'nope', partitions: partitions([0, 1n]) }, { name: 't', partitions: partitions([9, 1n]) }] });
    expect(r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(broker.services.groups.group('g')).toBeUndefined();
  });

  it('v3+ member data is checked; below v3 there is none (the codec refuses to write it)', () => {
    const topics = [{ name: 't', partitions: partitions([0, 1n]) }];
    expect(txnOffsetCommit(3, { memberId: 'ghost', generationId: 4, topics }).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // The group now exists (created Empty before the member check).
    expect(broker.services.groups.group('g')?.state).toBe('Empty');
    expect(() => txnOffsetCommit(2, { memberId: 'ghost', generationId: 4, topics })).toThrow(/non-default/);
    expect(txnOffsetCommit(2, { topics }).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(txnOffsetCommit(0, { topics }).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('KIP-890: without AddOffsetsToTxn for the group, INVALID_TXN_STATE (v0–v3) or TRANSACTION_ABORTABLE (v4); a stale epoch INVALID_PRODUCER_EPOCH', () => {
    const topics = [{ name: 't', partitions: partitions([0, 1n]) }];
    const code = (version: number, init: Partial<TxnOffsetCommitRequest>) => txnOffsetCommit(version, { topics, ...init }).topics[0]!.partitions[0]!.errorCode;
    // "tx" added group g's partition, not group "other"'s.
    expect(broker.services.groups.partitionFor('other')).not.toBe(broker.services.groups.partitionFor('g'));
    expect(code(3, { groupId: 'other' })).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(code(4, { groupId: 'other' })).toBe(ErrorCode.TRANSACTION_ABORTABLE);
    expect(broker.services.groups.pendingTransactionalOffsets('other')).toEqual([]);
    // The coordinator's PRODUCER_FENCED reaches the client as INVALID_PRODUCER_EPOCH.
    expect(code(4, { producerEpoch: producer.producerEpoch + 1 })).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(code(4, { producerId: producer.producerId + 100n })).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(code(4, {})).toBe(ErrorCode.NONE);
  });

  it('EndTxn ABORT drops the offsets; a new transaction\'s COMMIT makes its own visible', () => {
    txnOffsetCommit(4, { topics: [{ name: 't', partitions: partitions([0, 3n]) }] });
    endTransaction('tx', producer, 'ABORT');
    expect(broker.services.groups.pendingTransactionalOffsets('g')).toEqual([]);
    expect(offsetFetch(7, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], requireStable: true }).topics[0]!.partitions[0]).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
    producer = beginTransaction('tx', 'g');
    txnOffsetCommit(4, { topics: [{ name: 't', partitions: partitions([0, 4n]) }] });
    endTransaction('tx', producer, 'COMMIT');
    expect(offsetFetch(7, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], requireStable: true }).topics[0]!.partitions[0]).toMatchObject({ committedOffset: 4n, errorCode: ErrorCode.NONE });
  });

  it('an empty group id is INVALID_GROUP_ID for every known partition', () => {
    const r = txnOffsetCommit(4, { groupId: '', topics: [{ name: 't', partitions: partitions([0, 1n], [1, 1n]) }] });
    expect(r.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.INVALID_GROUP_ID, ErrorCode.INVALID_GROUP_ID]);
  });
});

describe('OffsetFetch RequireStable at the handler', () => {
  beforeEach(() => {
    txnOffsetCommit(4, { topics: [{ name: 't', partitions: partitions([0, 42n]) }] });
  });
  const v7Request = { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }], requireStable: true };

  it('v7: UNSTABLE_OFFSET_COMMIT on the pending partition (top-level error NONE), stable after the COMMIT marker', () => {
    const before = offsetFetch(7, v7Request);
    expect(before.errorCode).toBe(ErrorCode.NONE);
    expect(before.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])).toEqual([
      [0, -1n, ErrorCode.UNSTABLE_OFFSET_COMMIT],
      [1, -1n, ErrorCode.NONE],
    ]);
    endTransaction('tx', producer, 'COMMIT');
    const after = offsetFetch(7, v7Request);
    expect(after.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])).toEqual([
      [0, 42n, ErrorCode.NONE],
      [1, -1n, ErrorCode.NONE],
    ]);
  });

  it('v7 without RequireStable, and v6 (no such field), answer the committed offset (none yet)', () => {
    expect(offsetFetch(7, { ...v7Request, requireStable: false }).topics[0]!.partitions[0]).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
    expect(offsetFetch(6, { ...v7Request, requireStable: false }).topics[0]!.partitions[0]).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });

  it('v8+: RequireStable applies to every group of the request, at partition level', () => {
    const other = beginTransaction('tx2', 'h');
    txnOffsetCommit(4, { transactionalId: 'tx2', groupId: 'h', ...other, topics: [{ name: 't', partitions: partitions([1, 9n]) }] });
    const r = offsetFetch(8, {
      requireStable: true,
      groups: [
        { groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0, 1] }] },
        { groupId: 'h', memberId: null, memberEpoch: -1, topics: null },
        { groupId: 'h', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0, 1] }] },
      ],
    });
    expect(r.groups.map((g) => [g.groupId, g.errorCode, g.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))])).toEqual([
      ['g', ErrorCode.NONE, [ErrorCode.UNSTABLE_OFFSET_COMMIT, ErrorCode.NONE]],
      // All partitions: only committed ones are listed, and h has none yet.
      ['h', ErrorCode.NONE, []],
      ['h', ErrorCode.NONE, [ErrorCode.NONE, ErrorCode.UNSTABLE_OFFSET_COMMIT]],
    ]);
    const relaxed = offsetFetch(9, { requireStable: false, groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }] });
    expect(relaxed.groups[0]!.topics[0]!.partitions[0]).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.NONE });
  });
});
