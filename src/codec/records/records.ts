// Decoding a whole records blob as a consumer sees it (a Fetch response's `records`): v2 batches
// and legacy messages may be mixed (a log converted across message formats), and the last entry
// may be cut short by the fetch size, which is normal and reported rather than thrown.
import { DecodeError } from '../primitives/index.js';
import { MAGIC_OFFSET } from './constants.js';
import { decodeBatch, type DecodeOptions, type RecordBatch } from './batch.js';
import { entrySizeAt, partialAt, type PartialTail } from './iterate.js';
import { decodeLegacyEntry, type LegacyEntry, type LegacyMessage } from './legacy.js';
import type { KafkaRecord } from './record.js';

export type RecordSetEntry = RecordBatch | LegacyEntry;

export interface DecodeRecordsOptions extends DecodeOptions {
  /** Accept an incomplete last entry (reported in `partial`). Default true; false makes it a DecodeError. */
  allowPartial?: boolean;
}

export interface DecodedRecords {
  /** Entries in order; `magic` tells a RecordBatch (2) from a LegacyEntry (0/1). */
  entries: RecordSetEntry[];
  /** The incomplete entry the blob ends with, or null when it ends on an entry boundary. */
  partial: PartialTail | null;
}

/**
 * Decodes every entry of `blob`. Corruption anywhere (bad length, CRC, magic, record layout)
 * throws DecodeError with the entry index in its path; only running out of bytes at the end is
 * tolerated.
 */
export function decodeRecords(blob: Buffer, options?: DecodeRecordsOptions): DecodedRecords {
  const entries: RecordSetEntry[] = [];
  let pos = 0;
  while (pos < blob.length) {
    const index = entries.length;
    try {
      const size = entrySizeAt(blob, pos);
      if (size === null) {
        const partial = partialAt(blob, pos);
        if (options?.allowPartial === false) {
          throw new DecodeError(`record entry at byte ${pos} is truncated: ${partial.available} of ${partial.size ?? 'at least 12'} bytes`);
        }
        return { entries, partial };
      }
      const bytes = blob.subarray(pos, pos + size);
      const magic = bytes.readInt8(MAGIC_OFFSET);
      if (magic === 2) entries.push(decodeBatch(bytes, options));
      else if (magic === 0 || magic === 1) entries.push(decodeLegacyEntry(bytes, options));
      else throw new DecodeError(`record entry at byte ${pos} has unknown magic ${magic}`);
      pos += size;
    } catch (e) {
      if (e instanceof DecodeError) e.path.unshift(`[${index}]`);
      throw e;
    }
  }
  return { entries, partial: null };
}

/** Every record (v2) or message (legacy) with its absolute offset, in order: for tests and tools. */
export function* allRecords(
  decoded: DecodedRecords,
): Generator<{ offset: bigint; entry: RecordSetEntry; record: KafkaRecord | LegacyMessage }> {
  for (const batch of decoded.entries) {
    if (batch.magic === 2) for (const record of batch.records) yield { offset: batch.baseOffset + BigInt(record.offsetDelta), entry: batch, record };
    else for (const record of batch.messages) yield { offset: record.offset, entry: batch, record };
  }
}
