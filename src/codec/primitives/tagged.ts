// Tagged-field sections (KIP-482): unknown tags are kept as raw bytes on decode and written
// back in ascending tag order, interleaved with the known ones (Kafka's RawTaggedFieldWriter).
import { EncodeError } from './errors.js';
import { sizeOfUvarint, type Writer } from './writer.js';

/** A tagged field this codec does not know: its tag and its payload bytes. */
export interface TaggedField {
  tag: number;
  data: Buffer;
}

export const NO_KNOWN_TAGS: readonly number[] = [];

/**
 * Bytes of a tag section holding `known` known fields (their bodies are sized by the caller)
 * and the unknown ones; checks the unknown list is ascending and clashes with no known tag.
 */
export function sizeOfTagSection(known: number, unknown: TaggedField[] | undefined, knownTags: readonly number[]): number {
  if (unknown === undefined || unknown.length === 0) return sizeOfUvarint(known);
  let n = sizeOfUvarint(known + unknown.length);
  let prev = -1;
  for (const f of unknown) {
    if (!Number.isInteger(f.tag) || f.tag <= prev) {
      throw new EncodeError('unknown tagged fields must have distinct tags in ascending order');
    }
    if (knownTags.includes(f.tag)) throw new EncodeError(`unknown tagged field uses the known tag ${f.tag}`);
    prev = f.tag;
    n += sizeOfUvarint(f.tag) + sizeOfUvarint(f.data.length) + f.data.length;
  }
  return n;
}

/** Writes the unknown tags t with after < t < before. */
export function writeUnknownTags(w: Writer, unknown: TaggedField[] | undefined, after: number, before: number): void {
  if (unknown === undefined) return;
  for (const f of unknown) {
    if (f.tag > after && f.tag < before) {
      w.uvarint(f.tag);
      w.uvarint(f.data.length);
      w.raw(f.data);
    }
  }
}
