// The timers of one clock, earliest deadline first (ties in scheduling order): a binary heap.
// Both clocks that keep their own timers use it: the broker's clock (broker-clock.ts) and the
// coordinator tests' FakeTimers (group/clock.ts). Cancelling only marks a timer; dead timers leave
// the heap when they reach its top, or all at once when they outnumber the live ones, so a Fetch
// long poll that is answered early (its timer cancelled) costs O(log n) and no scan.

export interface QueuedTimer {
  readonly deadline: number;
  readonly seq: number;
  readonly fn: () => void;
  /** What the timer is for ("heartbeat group/member", "fetch wait"...): shown by `pending()`. */
  readonly name: string;
  /**
   * Recurring upkeep (idle connections, the offsets expiry task): fired when time passes it, but
   * `runUntilIdle` does not wait for it, since it is always pending.
   */
  readonly housekeeping: boolean;
  live: boolean;
}

export class TimerQueue {
  private heap: QueuedTimer[] = [];
  private nextSeq = 0;
  private liveCount = 0;

  get size(): number {
    return this.liveCount;
  }

  add(deadline: number, fn: () => void, name = 'timer', housekeeping = false): QueuedTimer {
    const t: QueuedTimer = { deadline, seq: this.nextSeq++, fn, name, housekeeping, live: true };
    this.heap.push(t);
    this.siftUp(this.heap.length - 1);
    this.liveCount++;
    return t;
  }

  /** Idempotent; a timer that already fired is not live and stays as it is. */
  cancel(t: QueuedTimer): void {
    if (!t.live) return;
    t.live = false;
    this.liveCount--;
    if (this.heap.length > 64 && this.heap.length > 2 * this.liveCount) this.compact();
  }

  /** The earliest live timer, or undefined. */
  peek(): QueuedTimer | undefined {
    this.dropDeadTop();
    return this.heap[0];
  }

  /** Removes and returns the earliest live timer whose deadline is at most `limit`; it is no longer live. */
  popDue(limit: number): QueuedTimer | undefined {
    const top = this.peek();
    if (top === undefined || top.deadline > limit) return undefined;
    this.removeTop();
    top.live = false;
    this.liveCount--;
    return top;
  }

  /** The earliest live timer that is not housekeeping (a scan: runUntilIdle only). */
  earliestWork(): QueuedTimer | undefined {
    let best: QueuedTimer | undefined;
    for (const t of this.heap) {
      if (!t.live || t.housekeeping) continue;
      if (best === undefined || before(t, best)) best = t;
    }
    return best;
  }

  /** Live timers, earliest first. */
  list(): QueuedTimer[] {
    return this.heap.filter((t) => t.live).sort((a, b) => (before(a, b) ? -1 : 1));
  }

  clear(): void {
    for (const t of this.heap) t.live = false;
    this.heap = [];
    this.liveCount = 0;
  }

  private dropDeadTop(): void {
    while (this.heap.length > 0 && !this.heap[0].live) this.removeTop();
  }

  private removeTop(): void {
    const last = this.heap.pop()!;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    this.siftDown(0);
  }

  private compact(): void {
    this.heap = this.heap.filter((t) => t.live);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftUp(i: number): void {
    const h = this.heap;
    const t = h[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(t, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = t;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    const t = h[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(h[r], h[l]) ? r : l;
      if (!before(h[c], t)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = t;
  }
}

function before(a: QueuedTimer, b: QueuedTimer): boolean {
  return a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq);
}
