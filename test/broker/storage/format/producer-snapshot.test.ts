// Producer-state snapshots (src/broker/storage/format/producer-snapshot.ts): Kafka 3.9's version-1
// layout (ProducerStateManager.writeSnapshot/readSnapshot), the CRC-32C over the entries, and every
// size checked before use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  unwrap,
  type ProducerSnapshotEntry,
} from '../../../../src/broker/storage/format/index.js';
import { crc32c } from '../../../../src/codec/records/index.js';

// Bytes of a snapshot Kafka 3.9.1 wrote (00000000000000000102.snapshot of a partition a kafkajs
// idempotent producer and a transactional one wrote to); kafka-dump-log.sh printed:
//   producerId: 0 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty
//     lastTimestamp: 1796190698461 firstSequence: 78 lastSequence: 79 lastOffset: 79 offsetDelta: 1
//   producerId: 2 producerEpoch: 0 coordinatorEpoch: 0 currentTxnFirstOffset: OptionalLong.empty
//     lastTimestamp: 1796190700608 firstSequence: 5 lastSequence: 5 lastOffset: 90 offsetDelta: 0
const KAFKA_WRITTEN = Buffer.from(
  '0001607d48a100000002000000000000000000000000004f000000000000004f00000001000001a2354efbddffffffffffffffffffffffff' +
    '0000000000000002000000000005000000000000005a00000000000001a2354f044000000000ffffffffffffffff',
  'hex',
);
const KAFKA_ENTRIES: ProducerSnapshotEntry[] = [
  { producerId: 0n, producerEpoch: 0, lastSequence: 79, lastOffset: 79, offsetDelta: 1, timestamp: 1796190698461, coordinatorEpoch: -1, currentTxnFirstOffset: -1 },
  { producerId: 2n, producerEpoch: 0, lastSequence: 5, lastOffset: 90, offsetDelta: 0, timestamp: 1796190700608, coordinatorEpoch: 0, currentTxnFirstOffset: -1 },
];

describe('producer snapshot', () => {
  it("reads a file Kafka wrote and writes it byte for byte", () => {
    expect(unwrap(decodeProducerSnapshot(KAFKA_WRITTEN))).toEqual(KAFKA_ENTRIES);
    expect(encodeProducerSnapshot(KAFKA_ENTRIES).equals(KAFKA_WRITTEN)).toBe(true);
  });

  it('an empty snapshot is 10 bytes (version, CRC, count 0)', () => {
    const empty = encodeProducerSnapshot([]);
    expect(empty.length).toBe(10);
    expect(unwrap(decodeProducerSnapshot(empty))).toEqual([]);
  });

  it('round-trips any entries (property)', () => {
    const entry = fc.record({
      producerId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      producerEpoch: fc.integer({ min: -32768, max: 32767 }),
      lastSequence: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      lastOffset: fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }),
      offsetDelta: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      timestamp: fc.integer({ min: -1, max: 2 ** 45 }),
      coordinatorEpoch: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      currentTxnFirstOffset: fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        expect(unwrap(decodeProducerSnapshot(encodeProducerSnapshot(entries)))).toEqual(entries);
      }),
    );
  });

  it('names the file for a bad CRC, a flipped byte anywhere, an unknown version', () => {
    const file = { file: 't-0/00000000000000000102.snapshot' };
    for (let i = 0; i < KAFKA_WRITTEN.length; i++) {
      const bad = Buffer.from(KAFKA_WRITTEN);
      bad[i] ^= 0x10;
      const d = decodeProducerSnapshot(bad, file);
      expect(d.ok, `byte ${i}`).toBe(false);
      if (!d.ok) expect(d.error.message.startsWith('t-0/00000000000000000102.snapshot')).toBe(true);
    }
    const v2 = Buffer.from(KAFKA_WRITTEN);
    v2.writeInt16BE(2, 0);
    const d = decodeProducerSnapshot(v2, file);
    expect(!d.ok && d.error.message).toBe('t-0/00000000000000000102.snapshot byte 0: contained an unknown file version 2');
    const crc = Buffer.from(KAFKA_WRITTEN);
    crc[30] ^= 1;
    const c = decodeProducerSnapshot(crc, file);
    expect(!c.ok && c.error.message).toMatch(/byte 2: is corrupt \(CRC is no longer valid\)\. Stored crc: 1618823329\. Computed crc: \d+/);
  });

  it('fails every truncation and hostile counts before reading them', () => {
    for (let n = 0; n < KAFKA_WRITTEN.length; n++) {
      expect(decodeProducerSnapshot(KAFKA_WRITTEN.subarray(0, n)).ok, `${n} bytes`).toBe(false);
    }
    const huge = Buffer.from(KAFKA_WRITTEN);
    huge.writeInt32BE(0x7fffffff, 6);
    const h = decodeProducerSnapshot(huge);
    expect(!h.ok && h.error.message).toMatch(/2147483647 producer entries need \d+ bytes, only 92 available/);
    const neg = Buffer.from(KAFKA_WRITTEN);
    neg.writeInt32BE(-1, 6);
    const n = decodeProducerSnapshot(neg);
    expect(!n.ok && n.error.message).toMatch(/array size -1 cannot be negative/);
    // Bytes after the entries (with a CRC that covers them: only the length check catches it).
    const longer = encodeProducerSnapshot(KAFKA_ENTRIES.slice(0, 1));
    const extended = Buffer.concat([longer, Buffer.alloc(46)]);
    extended.writeInt32BE(1, 6);
    extended.writeUInt32BE(crc32c(extended, 6), 2);
    const e = decodeProducerSnapshot(extended);
    expect(!e.ok && e.error.message).toMatch(/has 46 bytes after its 1 producer entries/);
  });
});
