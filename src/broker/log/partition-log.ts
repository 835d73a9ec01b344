// One partition's log: record batches kept exactly as producers sent them (only the base offset
// is rewritten in place), so Fetch sends the same buffers back out.
export class PartitionLog {
  /** First offset still readable (DeleteRecords moves it). */
  logStartOffset = 0;
  /** Next offset to assign; with one replica it is also the high watermark and the LSO. */
  logEndOffset = 0;

  constructor(
    readonly topic: string,
    readonly index: number,
  ) {}

  get highWatermark(): number {
    return this.logEndOffset;
  }
}
