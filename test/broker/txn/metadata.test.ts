// Mirrors Kafka 3.9's TransactionMetadataTest: each test is named after the Kafka test it follows.

import { describe, expect, it } from 'vitest';
import { ALL_TXN_STATES, TXN_STATE_IDS, TxnMetadata, TxnStateError, txnStateFromName } from '../../../src/broker/txn/metadata.js';
import { ErrorCode } from '../../../src/codec/index.js';

const md = (epoch: number, state: TxnMetadata['state'] = 'Empty') =>
  new TxnMetadata('t', 5n, -1n, epoch, -1, 30_000, state, -1, 0);

describe('TransactionMetadata', () => {
  it('testInitializeEpoch', () => {
    const m = md(-1);
    const t = m.prepareIncrementProducerEpoch(30_000, undefined, 1);
    if (typeof t === 'number') throw new Error();
    m.completeTransition(t);
    expect([m.producerEpoch, m.lastProducerEpoch, m.state]).toEqual([0, -1, 'Empty']);
  });
  it('testNormalEpochBump', () => {
    const m = md(735);
    const t = m.prepareIncrementProducerEpoch(30_000, undefined, 1);
    if (typeof t === 'number') throw new Error();
    m.completeTransition(t);
    expect([m.producerEpoch, m.lastProducerEpoch]).toEqual([736, -1]);
  });
  it('testBumpEpochNotAllowedIfEpochsExhausted', () => {
    expect(() => md(32766).prepareIncrementProducerEpoch(30_000, undefined, 1)).toThrow(TxnStateError);
  });
  it('testTolerateUpdateTimeShiftDuringEpochBump', () => {
    const m = new TxnMetadata('t', 5n, -1n, 1, -1, 30_000, 'Empty', -1, 100);
    const t = m.prepareIncrementProducerEpoch(30_000, undefined, 50);
    if (typeof t === 'number') throw new Error();
    m.completeTransition(t);
    expect(m.txnLastUpdateTimestamp).toBe(50);
  });
  it('testFenceProducerAfterEpochsExhausted / testFenceProducerNotAllowedIfItWouldOverflow', () => {
    const m = md(32766, 'Ongoing');
    expect(m.prepareFenceProducerEpoch().producerEpoch).toBe(32767);
    expect(() => md(32767, 'Ongoing').prepareFenceProducerEpoch()).toThrow(TxnStateError);
  });
  it('testRotateProducerId', () => {
    const m = md(32766, 'CompleteCommit');
    const t = m.prepareProducerIdRotation(6n, 30_000, 1, true);
    m.completeTransition(t);
    expect([m.producerId, m.lastProducerId, m.producerEpoch, m.lastProducerEpoch]).toEqual([6n, 5n, 0, 32766]);
  });
  it('testRotateProducerIdInOngoingState / PrepareAbort / PrepareCommit', () => {
    for (const s of ['Ongoing', 'PrepareAbort', 'PrepareCommit'] as const) {
      expect(() => md(32766, s).prepareProducerIdRotation(6n, 30_000, 1, true)).toThrow(TxnStateError);
    }
  });
  it('testAttemptedEpochBumpWithNewlyCreatedMetadata', () => {
    const t = md(-1).prepareIncrementProducerEpoch(30_000, 7, 1);
    expect(typeof t !== 'number' && [t.producerEpoch, t.lastProducerEpoch]).toEqual([0, -1]);
  });
  it('testEpochBumpWithCurrentEpochProvided', () => {
    const t = md(735).prepareIncrementProducerEpoch(30_000, 735, 1);
    expect(typeof t !== 'number' && [t.producerEpoch, t.lastProducerEpoch]).toEqual([736, 735]);
  });
  it('testAttemptedEpochBumpWithLastEpoch', () => {
    const m = new TxnMetadata('t', 5n, -1n, 736, 735, 30_000, 'Empty', -1, 0);
    const t = m.prepareIncrementProducerEpoch(30_000, 735, 1);
    expect(typeof t !== 'number' && [t.producerEpoch, t.lastProducerEpoch]).toEqual([736, 735]);
  });
  it('testAttemptedEpochBumpWithFencedEpoch', () => {
    const m = new TxnMetadata('t', 5n, -1n, 736, 735, 30_000, 'Empty', -1, 0);
    expect(m.prepareIncrementProducerEpoch(30_000, 734, 1)).toBe(ErrorCode.PRODUCER_FENCED);
    expect(m.pendingState).toBeNull();
  });
  it('testTransactionStateIdAndNameMapping / testAllTransactionStatesAreMapped', () => {
    expect(ALL_TXN_STATES).toHaveLength(8);
    ALL_TXN_STATES.forEach((s, i) => {
      expect(TXN_STATE_IDS[s]).toBe(i);
      expect(txnStateFromName(s)).toBe(s);
    });
    expect(txnStateFromName('empty')).toBeUndefined();
  });
  it('a second prepare while one is pending throws (prepareTransitionTo)', () => {
    const m = md(0, 'Ongoing');
    m.prepareAbortOrCommit('PrepareCommit', 1);
    expect(() => m.prepareAbortOrCommit('PrepareAbort', 1)).toThrow(TxnStateError);
  });
  it('an invalid previous state throws (Empty → PrepareCommit)', () => {
    expect(() => md(0).prepareAbortOrCommit('PrepareCommit', 1)).toThrow(TxnStateError);
  });
});
