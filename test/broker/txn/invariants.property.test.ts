// Random operation sequences (InitProducerId with and without KIP-360 epochs, AddPartitions,
// AddOffsets, EndTxn, held or failing markers, failing log appends, time) on two transactional ids:
// no operation throws (a TxnStateError is Kafka's IllegalStateException, a coordinator bug), every
// completed transition is in VALID_PREVIOUS_STATES, no id rests in Dead or PrepareEpochFence, and
// an id's epochs never exceed Short.MaxValue.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Harness, tp0, tp1 } from './harness.js';
import { VALID_PREVIOUS_STATES } from '../../../src/broker/txn/metadata.js';
import { ErrorCode } from '../../../src/codec/index.js';

const ids = ['a', 'b'];
const op = fc.oneof(
  fc.record({ kind: fc.constant('init' as const), id: fc.nat(1), kip360: fc.boolean(), timeout: fc.constantFrom(1_000, 20_000, 900_001) }),
  fc.record({ kind: fc.constant('add' as const), id: fc.nat(1), part: fc.nat(1), staleEpoch: fc.boolean() }),
  fc.record({ kind: fc.constant('offsets' as const), id: fc.nat(1) }),
  fc.record({ kind: fc.constant('end' as const), id: fc.nat(1), commit: fc.boolean(), staleEpoch: fc.boolean() }),
  fc.record({ kind: fc.constant('hold' as const), on: fc.boolean() }),
  fc.record({ kind: fc.constant('release' as const), error: fc.constantFrom(ErrorCode.NONE, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.INVALID_PRODUCER_EPOCH) }),
  fc.record({ kind: fc.constant('failAppend' as const), error: fc.constantFrom(ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_LEADER_OR_FOLLOWER) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 15_000 }) }),
);

describe('transaction coordinator invariants', () => {
  it('random sequences only make transitions TransactionMetadata allows', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const h = new Harness({ transactionalIdExpirationMs: 30_000, removeExpiredTransactionalIdsIntervalMs: 20_000 });
        const known = new Map<string, { pid: bigint; epoch: number }>();
        for (const o of ops) {
          const id = 'id' in o ? ids[o.id]! : '';
          const k = known.get(id) ?? { pid: 0n, epoch: 0 };
          switch (o.kind) {
            case 'init': {
              const r = h.init(id, o.timeout, o.kip360 && known.has(id) ? { producerId: k.pid, epoch: k.epoch } : undefined);
              if (r.errorCode === ErrorCode.NONE) known.set(id, { pid: r.producerId, epoch: r.producerEpoch });
              break;
            }
            case 'add': h.add(k.pid, k.epoch - (o.staleEpoch ? 1 : 0), [o.part ? tp1 : tp0], id); break;
            case 'offsets': h.addOffsets(k.pid, k.epoch, 'g', id); break;
            case 'end': h.end(k.pid, k.epoch - (o.staleEpoch ? 1 : 0), o.commit ? 'COMMIT' : 'ABORT', id); break;
            case 'hold': h.holdMarkers = o.on; break;
            case 'release': h.release(o.error); break;
            case 'failAppend': h.appendErrors.push(o.error); break;
            case 'advance': h.timers.advance(o.ms); break;
          }
          for (const t of h.transitions) expect(VALID_PREVIOUS_STATES[t.to]).toContain(t.from);
          for (const tid of h.coordinator.transactionalIds()) {
            const md = h.coordinator.metadata(tid)!;
            expect(['Dead', 'PrepareEpochFence']).not.toContain(md.state);
            expect(md.producerEpoch).toBeLessThanOrEqual(32767);
            if (md.state === 'Empty' || md.state === 'CompleteCommit' || md.state === 'CompleteAbort') {
              if (md.pendingState === null) expect(md.topicPartitions.size).toBe(0);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
