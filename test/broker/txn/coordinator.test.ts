// Mirrors Kafka 3.9's TransactionCoordinatorTest (core/src/test/scala/unit/kafka/coordinator/
// transaction): each test is named after the Kafka test it follows. Tests of loading, emigration
// and NOT_COORDINATOR from ownership do not apply (kmock owns every partition, always loaded).

import { describe, expect, it } from 'vitest';
import { Harness, tp0, tp1, txnId } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

const E = ErrorCode;

/** An Ongoing transaction of producer 0 epoch 0 on tp0. */
function ongoing(h: Harness) {
  const r = h.init();
  expect(h.add(r.producerId, r.producerEpoch)).toBe(E.NONE);
  return r;
}

describe('InitProducerId', () => {
  it('shouldReturnInvalidRequestWhenTransactionalIdIsEmpty', () => {
    expect(new Harness().init('')).toEqual({ producerId: -1n, producerEpoch: -1, errorCode: E.INVALID_REQUEST });
  });
  it('shouldAcceptInitPidAndReturnNextPidWhenTransactionalIdIsNull', () => {
    const h = new Harness();
    expect(h.init(null)).toEqual({ producerId: 0n, producerEpoch: 0, errorCode: E.NONE });
    expect(h.init(null)).toEqual({ producerId: 1n, producerEpoch: 0, errorCode: E.NONE });
  });
  it('shouldInitPidWithEpochZeroForNewTransactionalId', () => {
    const h = new Harness();
    expect(h.init()).toEqual({ producerId: 0n, producerEpoch: 0, errorCode: E.NONE });
    expect(h.state()).toBe('Empty');
    expect(h.transitions).toEqual([{ transactionalId: txnId, from: 'Empty', to: 'Empty' }]);
  });
  it('INVALID_TRANSACTION_TIMEOUT above transaction.max.timeout.ms or not positive (validateTransactionTimeoutMs)', () => {
    const h = new Harness();
    expect(h.init(txnId, 900_001).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect(h.init(txnId, 0).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect(h.init(txnId, 900_000).errorCode).toBe(E.NONE);
  });
  it('shouldGenerateNewProducerIdIfNoStateAndProducerIdAndEpochProvided', () => {
    const h = new Harness();
    expect(h.init(txnId, 60_000, { producerId: 7n, epoch: 3 })).toEqual({ producerId: 0n, producerEpoch: 0, errorCode: E.NONE });
  });
  it('shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingEmptyTransaction', () => {
    const h = new Harness();
    h.init();
    expect(h.init(txnId, 30_000)).toEqual({ producerId: 0n, producerEpoch: 1, errorCode: E.NONE });
    expect(h.coordinator.metadata(txnId)?.txnTimeoutMs).toBe(30_000);
  });
  it('shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteTransaction', () => {
    const h = new Harness();
    const r = ongoing(h);
    expect(h.end(r.producerId, 0, 'ABORT')).toBe(E.NONE);
    expect(h.state()).toBe('CompleteAbort');
    expect(h.init()).toEqual({ producerId: 0n, producerEpoch: 1, errorCode: E.NONE });
  });
  it('shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteCommitTransaction', () => {
    const h = new Harness();
    const r = ongoing(h);
    expect(h.end(r.producerId, 0, 'COMMIT')).toBe(E.NONE);
    expect(h.state()).toBe('CompleteCommit');
    expect(h.init()).toEqual({ producerId: 0n, producerEpoch: 1, errorCode: E.NONE });
  });
  it('shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareCommitState', () => {
    const h = new Harness();
    const r = ongoing(h);
    h.holdMarkers = true;
    expect(h.end(r.producerId, 0, 'COMMIT')).toBe(E.NONE);
    expect(h.state()).toBe('PrepareCommit');
    expect(h.init().errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    h.release();
    expect(h.state()).toBe('CompleteCommit');
    expect(h.init()).toEqual({ producerId: 0n, producerEpoch: 1, errorCode: E.NONE });
  });
  it('shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareAbortState', () => {
    const h = new Harness();
    const r = ongoing(h);
    h.holdMarkers = true;
    expect(h.end(r.producerId, 0, 'ABORT')).toBe(E.NONE);
    expect(h.init().errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    h.release();
    expect(h.init().producerEpoch).toBe(1);
  });
  it('shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    expect(h.init().errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    const md = h.coordinator.metadata(txnId)!;
    expect([md.state, md.producerEpoch, md.lastProducerEpoch]).toEqual(['PrepareAbort', 1, -1]);
    expect(h.heldMarkers[0]!.request).toMatchObject({ producerId: 0n, producerEpoch: 1, result: 'ABORT', partitions: [tp0] });
    h.release();
    expect(h.state()).toBe('CompleteAbort');
    // The retry bumps again: the fence's epoch 1 is never returned.
    expect(h.init()).toEqual({ producerId: 0n, producerEpoch: 2, errorCode: E.NONE });
  });
  it('shouldFailToAbortTransactionOnHandleInitPidWhenProducerEpochIsSmaller (the fenced producer cannot end it)', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.init();
    expect(h.end(0n, 0, 'ABORT')).toBe(E.PRODUCER_FENCED);
    expect(h.add(0n, 0, [tp1])).toBe(E.PRODUCER_FENCED);
  });
  it('shouldNotRepeatedlyBumpEpochDueToInitPidDuringOngoingTxnIfAppendToLogFails', () => {
    const h = new Harness();
    ongoing(h);
    h.appendErrors.push(E.NOT_ENOUGH_REPLICAS);
    expect(h.init().errorCode).toBe(E.COORDINATOR_NOT_AVAILABLE);
    const md = h.coordinator.metadata(txnId)!;
    expect([md.state, md.pendingState, md.producerEpoch, md.hasFailedEpochFence]).toEqual(['Ongoing', null, 1, true]);
    h.appendErrors.push(E.NOT_ENOUGH_REPLICAS);
    h.init();
    expect(md.producerEpoch).toBe(1);
    expect(h.init().errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    expect([md.state, md.producerEpoch, md.hasFailedEpochFence]).toEqual(['CompleteAbort', 1, false]);
    expect(h.init().producerEpoch).toBe(2);
  });
  it('shouldGenerateNewProducerIdIfEpochsExhausted', () => {
    const h = new Harness();
    h.init();
    h.coordinator.metadata(txnId)!.producerEpoch = 32766;
    expect(h.init()).toEqual({ producerId: 1n, producerEpoch: 0, errorCode: E.NONE });
    expect(h.coordinator.metadata(txnId)!.lastProducerEpoch).toBe(-1);
  });
  it('shouldUseLastEpochToFenceWhenEpochsAreExhausted', () => {
    const h = new Harness();
    ongoing(h);
    const md = h.coordinator.metadata(txnId)!;
    md.producerEpoch = 32765;
    expect(h.init().errorCode).toBe(E.CONCURRENT_TRANSACTIONS); // fence bumps to 32766: exhausted
    expect([md.state, md.producerEpoch]).toEqual(['CompleteAbort', 32766]);
    expect(h.init()).toEqual({ producerId: 1n, producerEpoch: 0, errorCode: E.NONE });
  });
  it('testInitProducerIdWithNoLastProducerData', () => {
    const h = new Harness();
    h.init();
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 0 })).toEqual({ producerId: 0n, producerEpoch: 1, errorCode: E.NONE });
    expect(h.coordinator.metadata(txnId)!.lastProducerEpoch).toBe(0);
  });
  it('testFenceProducerWhenMappingExistsWithDifferentProducerId', () => {
    const h = new Harness();
    h.init();
    expect(h.init(txnId, 60_000, { producerId: 5n, epoch: 0 }).errorCode).toBe(E.PRODUCER_FENCED);
  });
  it('testInitProducerIdWithCurrentEpochProvided (and its retry answered with the last epoch)', () => {
    const h = new Harness();
    h.init();
    h.init(); // epoch 1
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 1 }).producerEpoch).toBe(2);
    // Retry of that call: the expected epoch is now the last epoch → the current one, no bump.
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 1 })).toEqual({ producerId: 0n, producerEpoch: 2, errorCode: E.NONE });
  });
  it('testInitProducerIdStaleCurrentEpochProvided', () => {
    const h = new Harness();
    h.init();
    h.init();
    h.init(); // epoch 2, last -1
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 1 }).errorCode).toBe(E.PRODUCER_FENCED);
  });
  it('testRetryInitProducerIdAfterProducerIdRotation', () => {
    const h = new Harness();
    h.init();
    h.coordinator.metadata(txnId)!.producerEpoch = 32766;
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 32766 })).toEqual({ producerId: 1n, producerEpoch: 0, errorCode: E.NONE });
    const md = h.coordinator.metadata(txnId)!;
    expect([md.lastProducerId, md.lastProducerEpoch]).toEqual([0n, 32766]);
    // The answer was lost; the retry names the old id with its exhausted epoch.
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 32766 })).toEqual({ producerId: 1n, producerEpoch: 0, errorCode: E.NONE });
  });
  it('testInitProducerIdWithInvalidEpochAfterProducerIdRotation', () => {
    const h = new Harness();
    h.init();
    h.coordinator.metadata(txnId)!.producerEpoch = 32766;
    h.init(txnId, 60_000, { producerId: 0n, epoch: 32766 });
    expect(h.init(txnId, 60_000, { producerId: 0n, epoch: 32765 }).errorCode).toBe(E.PRODUCER_FENCED);
  });
  it('a failed append answers the mapped error and clears the pending state (appendTransactionToLog)', () => {
    const h = new Harness();
    h.init();
    h.appendErrors.push(E.NOT_LEADER_OR_FOLLOWER);
    expect(h.init().errorCode).toBe(E.NOT_COORDINATOR);
    h.appendErrors.push(E.MESSAGE_TOO_LARGE);
    expect(h.init().errorCode).toBe(E.UNKNOWN_SERVER_ERROR);
    expect(h.coordinator.metadata(txnId)!.pendingState).toBeNull();
    expect(h.init().producerEpoch).toBe(1);
  });
});

describe('AddPartitionsToTxn / AddOffsetsToTxn', () => {
  it('shouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent', () => {
    expect(new Harness().add(0n, 0)).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
  it('shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsEmpty', () => {
    expect(new Harness().add(0n, 0, [tp0], '')).toBe(E.INVALID_REQUEST);
  });
  it('INVALID_PRODUCER_ID_MAPPING for another producer id', () => {
    const h = new Harness();
    h.init();
    expect(h.add(9n, 0)).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
  it('shouldRespondWithProducerFencedOnAddPartitionsWhenEpochsAreDifferent', () => {
    const h = new Harness();
    h.init();
    expect(h.add(0n, 1)).toBe(E.PRODUCER_FENCED);
  });
  it('shouldRespondWithConcurrentTransactionsOnAddPartitionsWhenStateIsPrepareCommit', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.end(0n, 0, 'COMMIT');
    expect(h.add(0n, 0, [tp1])).toBe(E.CONCURRENT_TRANSACTIONS);
  });
  it('shouldRespondWithConcurrentTransactionOnAddPartitionsWhenStateIsPrepareAbort', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.end(0n, 0, 'ABORT');
    expect(h.add(0n, 0, [tp1])).toBe(E.CONCURRENT_TRANSACTIONS);
  });
  it('shouldAppendNewMetadataToLogOnAddPartitionsWhenPartitionsAdded', () => {
    const h = new Harness();
    h.init();
    h.timers.advance(5);
    expect(h.add(0n, 0, [tp0, tp1])).toBe(E.NONE);
    const md = h.coordinator.metadata(txnId)!;
    expect([md.state, md.partitions(), md.txnStartTimestamp]).toEqual(['Ongoing', [tp0, tp1], 1_000_005]);
    expect(h.appended.at(-1)?.txnState).toBe('Ongoing');
  });
  it('shouldRespondWithSuccessOnAddPartitionsWhenStateIsOngoing (start time kept)', () => {
    const h = new Harness();
    ongoing(h);
    h.timers.advance(7);
    expect(h.add(0n, 0, [tp1])).toBe(E.NONE);
    expect(h.coordinator.metadata(txnId)!.txnStartTimestamp).toBe(1_000_000);
  });
  it('shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteCommit / CompleteAbort', () => {
    for (const result of ['COMMIT', 'ABORT'] as const) {
      const h = new Harness();
      ongoing(h);
      h.end(0n, 0, result);
      h.timers.advance(3);
      expect(h.add(0n, 0, [tp1])).toBe(E.NONE);
      expect(h.coordinator.metadata(txnId)!.partitions()).toEqual([tp1]);
      expect(h.coordinator.metadata(txnId)!.txnStartTimestamp).toBe(1_000_003);
    }
  });
  it('shouldRespondWithErrorsNoneOnAddPartitionWhenNoErrorsAndPartitionsTheSame (no write)', () => {
    const h = new Harness();
    ongoing(h);
    const writes = h.appended.length;
    expect(h.add(0n, 0, [tp0])).toBe(E.NONE);
    expect(h.appended.length).toBe(writes);
  });
  it('testVerifyPartitionHandling / shouldRespondWithInvalidTxnStateWhenVerifyOnlyAndPartitionNotPresent', () => {
    const h = new Harness();
    expect(h.coordinator.verifyPartitionsInTransaction(txnId, 0n, 0, [tp0])[0]!.errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    ongoing(h);
    expect(h.coordinator.verifyPartitionsInTransaction(txnId, 0n, 0, [tp0, tp1]).map((r) => r.errorCode)).toEqual([E.NONE, E.TRANSACTION_ABORTABLE]);
    expect(h.coordinator.verifyPartitionsInTransaction(txnId, 0n, 1, [tp0])[0]!.errorCode).toBe(E.PRODUCER_FENCED);
  });
  it('AddOffsetsToTxn adds the group\'s __consumer_offsets partition (KafkaApis.handleAddOffsetsToTxnRequest)', () => {
    const h = new Harness();
    h.init();
    expect(h.addOffsets(0n, 0, 'group-abc')).toBe(E.NONE);
    expect(h.coordinator.metadata(txnId)!.partitions()).toEqual([{ topic: '__consumer_offsets', partition: 9 }]);
    expect(h.addOffsets(0n, 5, 'group-abc')).toBe(E.PRODUCER_FENCED);
  });
});

describe('EndTxn', () => {
  it('shouldReplyWithInvalidPidMappingOnEndTxnWhenTxnIdDoesntExist', () => {
    expect(new Harness().end(0n, 0, 'COMMIT')).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
  it('shouldReplyWithInvalidPidMappingOnEndTxnWhenPidDosentMatchMapped', () => {
    const h = new Harness();
    ongoing(h);
    expect(h.end(3n, 0, 'COMMIT')).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
  it('shouldReplyWithProducerFencedOnEndTxnWhenEpochIsNotSameAsTransaction / shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger / Smaller', () => {
    const h = new Harness();
    h.init();
    h.init(); // epoch 1
    h.add(0n, 1);
    expect(h.end(0n, 2, 'COMMIT')).toBe(E.PRODUCER_FENCED);
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.PRODUCER_FENCED);
  });
  it('shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit', () => {
    const h = new Harness();
    ongoing(h);
    h.end(0n, 0, 'COMMIT');
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.NONE);
  });
  it('shouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbort', () => {
    const h = new Harness();
    ongoing(h);
    h.end(0n, 0, 'ABORT');
    expect(h.end(0n, 0, 'ABORT')).toBe(E.NONE);
  });
  it('shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteAbortAndResultIsNotAbort', () => {
    const h = new Harness();
    ongoing(h);
    h.end(0n, 0, 'ABORT');
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.INVALID_TXN_STATE);
  });
  it('shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteCommitAndResultIsNotCommit', () => {
    const h = new Harness();
    ongoing(h);
    h.end(0n, 0, 'COMMIT');
    expect(h.end(0n, 0, 'ABORT')).toBe(E.INVALID_TXN_STATE);
  });
  it('shouldReturnConcurrentTxnRequestOnEndTxnRequestWhenStatusIsPrepareCommit / shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsPrepareAbort', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.end(0n, 0, 'COMMIT');
    // Markers are going out: the pending CompleteCommit answers first.
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.CONCURRENT_TRANSACTIONS);
    expect(h.end(0n, 0, 'ABORT')).toBe(E.CONCURRENT_TRANSACTIONS);
    // Without a pending transition (a completion write that is being retried clears nothing), the state decides:
    const md = h.coordinator.metadata(txnId)!;
    md.pendingState = null;
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.CONCURRENT_TRANSACTIONS);
    expect(h.end(0n, 0, 'ABORT')).toBe(E.INVALID_TXN_STATE);
  });
  it('EndTxn in Empty is INVALID_TXN_STATE', () => {
    const h = new Harness();
    h.init();
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.INVALID_TXN_STATE);
    expect(h.end(0n, 0, 'ABORT')).toBe(E.INVALID_TXN_STATE);
  });
  it('shouldAppendPrepareCommitToLogOnEndTxnWhenStatusIsOngoingAndResultIsCommit (then markers, then CompleteCommit)', () => {
    const h = new Harness();
    ongoing(h);
    h.add(0n, 0, [tp1]);
    h.holdMarkers = true;
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.NONE);
    expect(h.appended.at(-1)?.txnState).toBe('PrepareCommit');
    expect(h.coordinator.metadata(txnId)!.pendingState).toBe('CompleteCommit');
    const [{ request, done }] = h.heldMarkers.splice(0) as [typeof h.heldMarkers[number]];
    expect(request).toMatchObject({ producerId: 0n, producerEpoch: 0, coordinatorEpoch: 0, result: 'COMMIT', partitions: [tp0, tp1] });
    // One partition retriable, the other written: only the first is re-sent.
    done([{ ...tp0, errorCode: E.NOT_LEADER_OR_FOLLOWER }, { ...tp1, errorCode: E.NONE }]);
    expect(h.state()).toBe('PrepareCommit');
    h.timers.advance(100);
    expect(h.heldMarkers[0]!.request.partitions).toEqual([tp0]);
    h.release();
    expect(h.state()).toBe('CompleteCommit');
    expect(h.coordinator.metadata(txnId)!.partitions()).toEqual([]);
    expect(h.transitions.map((t) => t.to)).toEqual(['Empty', 'Ongoing', 'Ongoing', 'PrepareCommit', 'CompleteCommit']);
  });
  it('shouldAppendPrepareAbortToLogOnEndTxnWhenStatusIsOngoingAndResultIsAbort', () => {
    const h = new Harness();
    ongoing(h);
    expect(h.end(0n, 0, 'ABORT')).toBe(E.NONE);
    expect(h.appended.map((t) => t.txnState).slice(-2)).toEqual(['PrepareAbort', 'CompleteAbort']);
  });
  it('shouldRespondWithInvalidRequestOnEndTxnWhenTransactionalIdIsEmpty', () => {
    expect(new Harness().end(0n, 0, 'COMMIT', '')).toBe(E.INVALID_REQUEST);
  });
  it('markers answered INVALID_PRODUCER_EPOCH drop the completion (TransactionMarkerRequestCompletionHandler)', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.end(0n, 0, 'COMMIT');
    h.release(E.INVALID_PRODUCER_EPOCH);
    expect([h.state(), h.coordinator.metadata(txnId)!.pendingState]).toEqual(['PrepareCommit', 'CompleteCommit']);
  });
  it('a completion write answered COORDINATOR_NOT_AVAILABLE is retried with the pending state kept', () => {
    const h = new Harness();
    ongoing(h);
    h.holdMarkers = true;
    h.end(0n, 0, 'COMMIT');
    h.appendErrors.push(E.NOT_ENOUGH_REPLICAS);
    h.release();
    expect([h.state(), h.coordinator.metadata(txnId)!.pendingState]).toEqual(['PrepareCommit', 'CompleteCommit']);
    h.timers.advance(100);
    expect(h.state()).toBe('CompleteCommit');
  });
});

describe('timeouts and expiration', () => {
  it('shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch', () => {
    const h = new Harness();
    h.init(txnId, 15_000);
    h.add(0n, 0);
    h.timers.advance(10_000);
    expect(h.state()).toBe('Ongoing');
    h.timers.advance(10_000); // 20 s > 15 s: the check at 20 s aborts
    const md = h.coordinator.metadata(txnId)!;
    expect([md.state, md.producerEpoch]).toEqual(['CompleteAbort', 1]);
    expect(h.events.some((e) => e.type === 'txn-timed-out')).toBe(true);
    expect(h.end(0n, 0, 'COMMIT')).toBe(E.PRODUCER_FENCED);
    expect(h.add(0n, 0)).toBe(E.PRODUCER_FENCED);
  });
  it('the timeout is strict: start + timeout == now does not abort', () => {
    const h = new Harness();
    h.init(txnId, 10_000);
    h.add(0n, 0);
    h.timers.advance(10_000);
    expect(h.state()).toBe('Ongoing');
  });
  it('shouldNotAbortExpiredTransactionsThatHaveAPendingStateTransition', () => {
    const h = new Harness();
    h.init(txnId, 1_000);
    h.add(0n, 0);
    h.coordinator.metadata(txnId)!.pendingState = 'PrepareCommit';
    h.timers.advance(10_000);
    expect(h.coordinator.metadata(txnId)!.producerEpoch).toBe(0);
  });
  it('shouldNotBumpEpochWhenAbortingExpiredTransactionIfAppendToLogFails', () => {
    const h = new Harness();
    h.init(txnId, 1_000);
    h.add(0n, 0);
    h.appendErrors.push(E.NOT_ENOUGH_REPLICAS);
    h.timers.advance(10_000);
    const md = h.coordinator.metadata(txnId)!;
    expect([md.state, md.producerEpoch, md.hasFailedEpochFence, md.pendingState]).toEqual(['Ongoing', 1, true, null]);
    h.timers.advance(10_000);
    expect([md.state, md.producerEpoch]).toEqual(['CompleteAbort', 1]);
  });
  it('expires an idle id after transactional.id.expiration.ms (removeExpiredTransactionalIds)', () => {
    const h = new Harness({ transactionalIdExpirationMs: 5_000_000 });
    h.init();
    h.timers.advance(3_600_000);
    expect(h.state()).toBe('Empty');
    h.timers.advance(3_600_000);
    expect(h.coordinator.metadata(txnId)).toBeUndefined();
    expect(h.events.at(-1)).toMatchObject({ type: 'txn-id-expired', transactionalId: txnId });
    expect(h.add(0n, 0)).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    expect(h.init().producerId).toBe(1n);
  });
  it('never expires an Ongoing id; a failed tombstone keeps the id', () => {
    const h = new Harness({ transactionalIdExpirationMs: 1, transactionMaxTimeoutMs: 900_000 });
    h.init(txnId, 900_000);
    h.add(0n, 0);
    h.coordinator.removeExpiredTransactionalIds();
    h.timers.advance(1);
    h.coordinator.removeExpiredTransactionalIds();
    expect(h.state()).toBe('Ongoing');
    h.init(null);
    const h2 = new Harness({ transactionalIdExpirationMs: 1 });
    h2.init();
    h2.timers.advance(1);
    h2.appendErrors.push(E.NOT_ENOUGH_REPLICAS);
    h2.coordinator.removeExpiredTransactionalIds();
    expect([h2.state(), h2.coordinator.metadata(txnId)!.pendingState]).toEqual(['Empty', null]);
  });
});

describe('DescribeTransactions / ListTransactions', () => {
  it('testDescribeTransactionsWithEmptyTransactionalId', () => {
    expect(new Harness().coordinator.describeTransaction('').errorCode).toBe(E.INVALID_REQUEST);
  });
  it('TRANSACTIONAL_ID_NOT_FOUND for an unknown id', () => {
    expect(new Harness().coordinator.describeTransaction('nope').errorCode).toBe(E.TRANSACTIONAL_ID_NOT_FOUND);
  });
  it('testDescribeTransactionsWithExpiringTransactionalId', () => {
    const h = new Harness();
    h.init();
    const md = h.coordinator.metadata(txnId)!;
    md.state = 'Dead';
    expect(h.coordinator.describeTransaction(txnId).errorCode).toBe(E.TRANSACTIONAL_ID_NOT_FOUND);
  });
  it('testDescribeTransactions', () => {
    const h = new Harness();
    h.init(txnId, 30_000);
    h.add(0n, 0, [tp0, tp1, { topic: 'u', partition: 2 }]);
    expect(h.coordinator.describeTransaction(txnId)).toEqual({
      transactionalId: txnId, errorCode: E.NONE, transactionState: 'Ongoing', transactionTimeoutMs: 30_000,
      transactionStartTimeMs: 1_000_000, producerId: 0n, producerEpoch: 0,
      topics: [{ topic: 't', partitions: [0, 1] }, { topic: 'u', partitions: [2] }],
    });
  });
  it('ListTransactions filters by state and producer id, echoing unknown states (listTransactionStates)', () => {
    const h = new Harness();
    h.init('a');
    h.init('b');
    h.add(1n, 0, [tp0], 'b');
    expect(h.coordinator.listTransactions([], []).transactionStates.map((s) => s.transactionalId)).toEqual(['a', 'b']);
    expect(h.coordinator.listTransactions(['Ongoing', 'Bogus'], [])).toEqual({
      errorCode: E.NONE, unknownStateFilters: ['Bogus'], transactionStates: [{ transactionalId: 'b', producerId: 1n, transactionState: 'Ongoing' }],
    });
    expect(h.coordinator.listTransactions([], [0n]).transactionStates.map((s) => s.transactionalId)).toEqual(['a']);
    expect(h.coordinator.listTransactions(['Bogus'], []).transactionStates).toEqual([]);
  });
});
