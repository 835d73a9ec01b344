// A log segment's files in the data dir, as Kafka 3.9's LogSegment keeps them (FileRecords for the
// `.log`, OffsetIndex/TimeIndex/TransactionIndex written trimmed when the segment stops being the
// active one: LogSegment.onBecomeInactiveSegment). Batches are written with one positioned write
// each as they are appended (the OS holds them: a kill -9 loses nothing written; fsync only on
// flush, which Kafka's flush rules and kmock's fsyncOnAcksAll ask for). Evicted batches are read
// back with positioned reads.
//
// Compaction writes a cleaned segment under `<base>.log.cleaned`, then swaps it in as Kafka does
// (`.cleaned` -> `.swap` -> `.log`, LocalLog.replaceSegments): a crash between the steps leaves
// files that loading finishes or discards (data-dir.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LogSegment, SegmentFile } from '../log/segment.js';
import { encodeOffsetIndex, encodeTimeIndex, encodeTxnIndex, segmentFileName, type AbortedTxnEntry } from './format/index.js';

export interface SegmentFileOptions {
  dir: string;
  baseOffset: number;
  /** Open an existing .log (loading) instead of creating an empty one. */
  existing?: { size: number };
  /** A cleaner output: written as `.log.cleaned` until `swapIn`. */
  cleaned?: boolean;
  /** The aborted transactions whose marker lies in [baseOffset, next segment): the .txnindex. */
  abortedTxns?: () => AbortedTxnEntry[];
}

export class FileSegment implements SegmentFile {
  /**
   * Open only while the segment is active or being read: an inactive segment's descriptor is
   * closed at roll and opened again for a read, so a broker with many partitions holds one
   * descriptor per partition, not one per segment (a process's limit is often 1024).
   */
  private fd: number | null;
  private logPath: string;
  unflushedBytes = 0;
  private closed = false;
  private active = true;

  constructor(private readonly opts: SegmentFileOptions) {
    const name = segmentFileName(opts.baseOffset, '.log');
    this.logPath = path.join(opts.dir, opts.cleaned ? `${name}.cleaned` : name);
    if (opts.existing) {
      this.fd = null;
      this.active = false;
    } else {
      this.fd = fs.openSync(this.logPath, 'w+');
    }
  }

  private open(): number {
    if (this.fd === null) this.fd = fs.openSync(this.logPath, 'r+');
    return this.fd;
  }

  /** An inactive segment lets its descriptor go after a read or a flush. */
  private release(): void {
    if (!this.active && this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }

  /** The loaded active segment keeps its descriptor (appends go there). */
  markActive(): void {
    this.active = true;
  }

  get file(): string {
    return this.logPath;
  }

  append(batch: Buffer, position: number): void {
    const fd = this.open();
    let written = 0;
    while (written < batch.length) written += fs.writeSync(fd, batch, written, batch.length - written, position + written);
    this.unflushedBytes += batch.length;
  }

  read(position: number, length: number): Buffer {
    const fd = this.open();
    const out = Buffer.allocUnsafe(length);
    let got = 0;
    try {
      while (got < length) {
        const n = fs.readSync(fd, out, got, length - got, position + got);
        if (n === 0) throw new Error(`${this.logPath}: ${length} bytes at ${position} but the file ends at ${position + got}`);
        got += n;
      }
    } finally {
      this.release();
    }
    return out;
  }

  flush(): void {
    if (this.unflushedBytes === 0) return;
    fs.fsyncSync(this.open());
    this.unflushedBytes = 0;
    this.release();
  }

  /** The segment stops being the active one: its indexes are written, trimmed; its descriptor goes. */
  onRoll(segment: LogSegment): void {
    this.writeIndexes(segment);
    this.active = false;
    this.release();
  }

  /** .index, .timeindex and .txnindex from the segment's in-memory indexes. */
  writeIndexes(segment: LogSegment): void {
    const base = this.opts.baseOffset;
    const suffix = this.opts.cleaned ? '.cleaned' : '';
    const offsets = segment.offsetIndex.entries();
    fs.writeFileSync(path.join(this.opts.dir, segmentFileName(base, '.index') + suffix), encodeOffsetIndex(base, offsets));
    const times = segment.timeIndexTimestamps.map((timestamp, i) => ({ timestamp, offset: segment.timeIndexOffsets[i] }));
    fs.writeFileSync(path.join(this.opts.dir, segmentFileName(base, '.timeindex') + suffix), encodeTimeIndex(base, times));
    const aborted = this.opts.abortedTxns?.() ?? [];
    const txnPath = path.join(this.opts.dir, segmentFileName(base, '.txnindex') + suffix);
    if (aborted.length > 0) fs.writeFileSync(txnPath, encodeTxnIndex(aborted));
    else fs.rmSync(txnPath, { force: true });
  }

  /** A cleaned segment takes the place of the segments it replaces (the old ones are deleted first). */
  swapIn(): void {
    if (!this.opts.cleaned) return;
    const base = this.opts.baseOffset;
    for (const s of ['.log', '.index', '.timeindex', '.txnindex'] as const) {
      const final = path.join(this.opts.dir, segmentFileName(base, s));
      const from = `${final}.cleaned`;
      if (fs.existsSync(from)) fs.renameSync(from, `${final}.swap`);
    }
    for (const s of ['.log', '.index', '.timeindex', '.txnindex'] as const) {
      const final = path.join(this.opts.dir, segmentFileName(base, s));
      if (fs.existsSync(`${final}.swap`)) fs.renameSync(`${final}.swap`, final);
    }
    this.logPath = path.join(this.opts.dir, segmentFileName(base, '.log'));
    this.opts.cleaned = false;
  }

  delete(): void {
    this.close();
    const base = this.opts.baseOffset;
    const suffix = this.opts.cleaned ? '.cleaned' : '';
    for (const s of ['.log', '.index', '.timeindex', '.txnindex'] as const) fs.rmSync(path.join(this.opts.dir, segmentFileName(base, s) + suffix), { force: true });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
