// The record loop's fast path (record-scan.ts's scanUncompressed, taken by validateClientBatch for
// an uncompressed batch whose records cannot fail validateKey/validateTimestamp) against the full
// walk (record-walk.ts, validateClientBatch with fastPath = false): on random valid and corrupted
// batches of every codec, legacy magic 0/1 message sets and random topic settings, the verdict is
// the same object either way, and the fast path declines only batches the full walk refuses.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE_TIMESTAMP_OFFSET, RECORDS_COUNT_OFFSET, TIMESTAMP_TYPE_MASK } from '../../../src/codec/records/constants.js';
import { initCompression } from '../../../src/codec/records/compression.js';
import { scanUncompressed } from '../../../src/codec/records/record-scan.js';
import { readLongNumber } from '../../../src/codec/records/record-walk.js';
import { NO_TIMESTAMP_BOUND, validateClientBatch, type BatchValidationConfig } from '../../../src/codec/records/validate.js';
import { NOW, recordsArb } from './batch-arbitraries.js';

const TP = 't-0';

beforeAll(async () => {
  await initCompression();
});

const configArb: fc.Arbitrary<BatchValidationConfig> = fc.record({
  timestampType: fc.constantFrom('CreateTime', 'CreateTime', 'CreateTime', 'LogAppendTime') as fc.Arbitrary<'CreateTime' | 'LogAppendTime'>,
  maxMessageBytes: fc.constantFrom(1048588, 1048588, 1048588, 1048588, 1048588, 1048588, 1048588, 500),
  compact: fc.constantFrom(false, false, false, false, false, true),
  timestampBeforeMaxMs: fc.constantFrom(NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, 0n, 1000n, 3_600_000n),
  timestampAfterMaxMs: fc.constantFrom(NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, NO_TIMESTAMP_BOUND, 0n, 1000n, 3_600_000n),
});

const inputArb = fc.record({
  batch: recordsArb,
  config: configArb,
  now: fc.integer({ min: NOW - 1000, max: NOW + 1000 }),
});

function verdict(batch: Buffer, config: BatchValidationConfig, now: number, fastPath: boolean): unknown {
  try {
    return validateClientBatch(batch, config, now, TP, fastPath);
  } catch (e) {
    return { threw: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

/** validateClientBatch's condition for trying the fast path, read from the bytes and settings. */
function fastPathApplies(batch: Buffer, config: BatchValidationConfig): boolean {
  if (batch.length < 61) return false;
  const attributes = batch.readInt16BE(21);
  const bounded = config.timestampBeforeMaxMs !== NO_TIMESTAMP_BOUND || config.timestampAfterMaxMs !== NO_TIMESTAMP_BOUND;
  return (attributes & 7) === 0 && (attributes & TIMESTAMP_TYPE_MASK) === 0 && !config.compact && !(config.timestampType === 'CreateTime' && bounded);
}

describe('the record loop fast path', () => {
  it('gives the full walk\'s verdict on every batch (valid, corrupted, every codec, magic 0/1/2, any settings)', () => {
    let fastAnswers = 0;
    let fastDeclined = 0;
    fc.assert(
      fc.property(inputArb, ({ batch, config, now }) => {
        const fast = verdict(batch, config, now, true);
        const full = verdict(batch, config, now, false);
        expect(fast).toEqual(full);
        if (fastPathApplies(batch, config)) {
          const v = full as { ok?: boolean; message?: string };
          if (v.ok === true) fastAnswers++;
          else if (typeof v.message === 'string' && isRecordLoopRejection(v.message)) fastDeclined++;
        }
      }),
      { numRuns: 4000 },
    );
    // not vacuous: the fast path answered often, and often declined a batch the full walk refused
    if (process.env.KMOCK_PROPERTY_STATS) console.log(`fast path answered ${fastAnswers}, declined ${fastDeclined}`);
    expect(fastAnswers).toBeGreaterThan(120);
    expect(fastDeclined).toBeGreaterThan(40);
  });

  it('declines only batches the full walk refuses, and answers with the full walk\'s timestamps', () => {
    const permissive: BatchValidationConfig = {
      timestampType: 'CreateTime',
      maxMessageBytes: 1048588,
      compact: false,
      timestampBeforeMaxMs: NO_TIMESTAMP_BOUND,
      timestampAfterMaxMs: NO_TIMESTAMP_BOUND,
    };
    fc.assert(
      fc.property(inputArb, ({ batch }) => {
        if (!fastPathApplies(batch, permissive)) return;
        const full = validateClientBatch(batch, permissive, NOW, TP, false);
        // the header checks come first: only a batch that passes them reaches the record loop
        if (!full.ok && !isRecordLoopRejection(full.message)) return;
        const out = { maxTimestamp: -1, offsetDeltaOfMax: null as number | null, firstOffsetDelta: null as number | null };
        const scanned = scanUncompressed(batch, batch.readInt32BE(RECORDS_COUNT_OFFSET), readLongNumber(batch, BASE_TIMESTAMP_OFFSET), out);
        if (full.ok) {
          expect(scanned).toBe(true);
          expect(out).toEqual({ maxTimestamp: full.maxTimestamp, offsetDeltaOfMax: full.offsetDeltaOfMax, firstOffsetDelta: full.firstOffsetDelta });
        } else {
          expect(scanned).toBe(false);
        }
      }),
      { numRuns: 4000 },
    );
  });
});

/** The full walk's structure errors (record-walk.ts), as opposed to the header checks before it. */
function isRecordLoopRejection(message: string): boolean {
  return /^(Found invalid|Incorrect declared batch size|Invalid record size|Invalid negative header key size|Varint is too long)/.test(message);
}
