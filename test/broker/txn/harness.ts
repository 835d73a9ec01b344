// A transaction coordinator on FakeTimers, with a transaction log whose appends can be made to
// fail and a marker writer that can hold the markers until the test releases them.

import { FakeTimers } from '../../../src/broker/group/clock.js';
import { ProducerIdManager } from '../../../src/broker/log/producer-ids.js';
import { TransactionCoordinator, type TxnLogStore } from '../../../src/broker/txn/coordinator.js';
import type { TransactionCoordinatorConfig } from '../../../src/broker/txn/config.js';
import type { TxnEvent } from '../../../src/broker/txn/events.js';
import type { MarkerPartitionResult, MarkerWriter, TxnMarkerRequest } from '../../../src/broker/txn/markers.js';
import type { TransitionRecord, TxnTransit } from '../../../src/broker/txn/metadata.js';
import type { InitProducerIdResult, ProducerIdAndEpoch, TopicPartition, TransactionResult } from '../../../src/broker/txn/types.js';
import { ErrorCode } from '../../../src/codec/index.js';

export const txnId = 'txn-1';
export const tp0: TopicPartition = { topic: 't', partition: 0 };
export const tp1: TopicPartition = { topic: 't', partition: 1 };

export class Harness {
  readonly timers = new FakeTimers(1_000_000);
  readonly producerIds = new ProducerIdManager();
  readonly events: TxnEvent[] = [];
  readonly transitions: TransitionRecord[] = [];
  readonly appended: TxnTransit[] = [];
  /** The next appends answer these errors (raw log errors), one per append. */
  readonly appendErrors: number[] = [];
  /** Hold markers until release() instead of writing them at once. */
  holdMarkers = false;
  readonly heldMarkers: { request: TxnMarkerRequest; done: (r: MarkerPartitionResult[]) => void }[] = [];
  readonly coordinator: TransactionCoordinator;

  constructor(config: Partial<TransactionCoordinatorConfig> = {}) {
    const log: TxnLogStore = {
      append: (_id, transit) => {
        const e = this.appendErrors.shift() ?? ErrorCode.NONE;
        if (e === ErrorCode.NONE) this.appended.push(transit);
        return e;
      },
      appendTombstones: () => this.appendErrors.shift() ?? ErrorCode.NONE,
    };
    const markers: MarkerWriter = {
      write: (request, done) => {
        if (this.holdMarkers) this.heldMarkers.push({ request, done });
        else done(request.partitions.map((tp) => ({ ...tp, errorCode: ErrorCode.NONE })));
      },
    };
    this.coordinator = new TransactionCoordinator({
      config, clock: this.timers, timers: this.timers, producerIds: this.producerIds,
      offsetsPartitionFor: (g) => g.length % 50, markers, log,
      onEvent: (e) => this.events.push(e), onTransition: (r) => this.transitions.push(r),
    });
  }

  /** Write every held marker with `errorCode`. */
  release(errorCode: number = ErrorCode.NONE): void {
    for (const { request, done } of this.heldMarkers.splice(0)) done(request.partitions.map((tp) => ({ ...tp, errorCode })));
  }

  init(id: string | null = txnId, timeoutMs = 60_000, expected?: ProducerIdAndEpoch): InitProducerIdResult {
    let r: InitProducerIdResult | undefined;
    this.coordinator.initProducerId(id, timeoutMs, expected, (x) => (r = x));
    if (r === undefined) throw new Error('no answer');
    return r;
  }

  add(pid: bigint, epoch: number, partitions: TopicPartition[] = [tp0], id = txnId): number {
    let r: number | undefined;
    this.coordinator.addPartitionsToTransaction(id, pid, epoch, partitions, (x) => (r = x));
    if (r === undefined) throw new Error('no answer');
    return r;
  }

  addOffsets(pid: bigint, epoch: number, groupId: string, id = txnId): number {
    let r: number | undefined;
    this.coordinator.addOffsetsToTransaction(id, pid, epoch, groupId, (x) => (r = x));
    if (r === undefined) throw new Error('no answer');
    return r;
  }

  end(pid: bigint, epoch: number, result: TransactionResult, id = txnId): number {
    let r: number | undefined;
    this.coordinator.endTransaction(id, pid, epoch, result, (x) => (r = x));
    if (r === undefined) throw new Error('no answer');
    return r;
  }

  state(id = txnId) {
    return this.coordinator.metadata(id)?.state;
  }
}
