// The two indexes a read_committed Fetch consults, as Kafka 3.9 keeps them per log segment (the
// offset index is per segment: segment.ts; the aborted transactions are kept for the whole log here,
// in marker order, which is every segment's transaction index one after the other):
//
// - the transaction index (storage/.../log/TransactionIndex.java, AbortedTxn.java): one entry per
//   aborted transaction, appended when its ABORT marker is (LogSegment.updateTxnIndex), holding the
//   producer id, the transaction's first offset, the marker's offset (lastOffset) and the last
//   stable offset at that moment. collectAbortedTxns(fetchOffset, upperBound) returns the entries
//   with lastOffset >= fetchOffset and firstOffset < upperBound, scanning in append order and
//   stopping after the first entry whose lastStableOffset >= upperBound.
//
// - the sparse offset index (OffsetIndex.java, LogSegment.append): an entry (the append's last
//   offset, the byte position it was written at) is added before an append whenever more than
//   index.interval.bytes were written since the last entry. LocalLog.addAbortedTransactions bounds
//   the aborted transactions of a read by OffsetIndex.fetchUpperBoundOffset(start position +
//   bytes read): the offset of the first entry at or past that position, else the log end offset
//   (there is no next segment). So the list can name aborted transactions past the bytes returned,
//   exactly as Kafka's does. Past the segment's last entry the bound is the next segment's base
//   offset, else the log end offset.

/** AbortedTxn, as FetchResponse names it (producerId, firstOffset) plus what the index keeps. */
export interface AbortedTxn {
  producerId: bigint;
  firstOffset: number;
  /** The ABORT marker's offset. */
  lastOffset: number;
  lastStableOffset: number;
}

/** LogConfig.DEFAULT_INDEX_INTERVAL_BYTES (index.interval.bytes). */
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;

export class TransactionIndex {
  private readonly entries: AbortedTxn[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** TransactionIndex.append: lastOffset grows strictly (markers are appended in offset order). */
  append(txn: AbortedTxn): void {
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && last.lastOffset >= txn.lastOffset) {
      throw new Error(`The last offset of appended transaction ${txn.lastOffset} is not greater than current last offset ${last.lastOffset}`);
    }
    this.entries.push(txn);
  }

  all(): readonly AbortedTxn[] {
    return this.entries;
  }

  /** Drops the entries whose marker is below `offset` (their segments were deleted). */
  dropBelow(offset: number): void {
    let n = 0;
    while (n < this.entries.length && this.entries[n].lastOffset < offset) n++;
    if (n > 0) this.entries.splice(0, n);
  }

  /** Replaces every entry (the cleaner rewrote the index: cleaner.ts). */
  replaceAll(entries: readonly AbortedTxn[]): void {
    this.entries.length = 0;
    for (const e of entries) this.append(e);
  }

  /**
   * TransactionIndex.collectAbortedTxns, from the first entry ending at or after `fetchOffset`
   * (binary search: lastOffset grows). Neither that nor Kafka's early stop changes the answer from
   * "every entry overlapping [fetchOffset, upperBoundOffset)": an entry's last stable offset is at
   * most the first offset of every transaction aborted after it (those open at its marker start at
   * or after it, the others after the marker), so once it reaches the bound no later entry starts
   * below the bound.
   */
  collect(fetchOffset: number, upperBoundOffset: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    const e = this.entries;
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (e[mid].lastOffset < fetchOffset) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < e.length; i++) {
      const t = e[i];
      if (t.firstOffset < upperBoundOffset) out.push(t);
      if (t.lastStableOffset >= upperBoundOffset) break;
    }
    return out;
  }
}

export class OffsetIndex {
  private readonly offsets: number[] = [];
  private readonly positions: number[] = [];

  get size(): number {
    return this.offsets.length;
  }

  /** OffsetIndex.append: one entry (the append's last offset, the position it was written at). */
  append(offset: number, position: number): void {
    this.offsets.push(offset);
    this.positions.push(position);
  }

  /** The segment lost its first `bytes` bytes (segment.dropHead): entries before them go, the rest move. */
  rebase(bytes: number): void {
    let n = 0;
    while (n < this.positions.length && this.positions[n] < bytes) n++;
    this.offsets.splice(0, n);
    this.positions.splice(0, n);
    for (let i = 0; i < this.positions.length; i++) this.positions[i] -= bytes;
  }

  /** The entries, for the index file (storage/). */
  entries(): Array<{ offset: number; position: number }> {
    return this.offsets.map((offset, i) => ({ offset, position: this.positions[i] }));
  }

  /** OffsetIndex.fetchUpperBoundOffset: the offset of the first entry at or past `position`, or null. */
  upperBoundOffset(position: number): number | null {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.positions[mid] < position) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.offsets.length ? this.offsets[lo] : null;
  }
}
