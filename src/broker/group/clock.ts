// Time for the group coordinator is injected: the coordinator never calls Date.now or setTimeout
// itself. Production code passes `systemClock`/`systemTimers`; tests pass one `FakeTimers`, which is
// both the clock and the timer service, so that a whole rebalance runs in microseconds.

/** Milliseconds since an arbitrary epoch. Only differences matter, except for commit timestamps. */
export interface Clock {
  now(): number;
}

export interface TimerHandle {
  /** Idempotent. Cancelling a timer that already fired does nothing. */
  cancel(): void;
}

export interface Timers {
  /** Run `fn` once, `delayMs` (clamped to ≥ 0) after now. */
  schedule(delayMs: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Real timers. They are `unref()`d: a mock broker must not keep the process alive just because a
 * consumer group has a session timer running.
 */
export const systemTimers: Timers = {
  schedule(delayMs: number, fn: () => void): TimerHandle {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

interface FakeTimer {
  deadline: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Deterministic clock + timers for tests.
 *
 * A timer is due when `deadline <= now`. `advance(ms)` fires due timers one at a time in deadline
 * order (ties in scheduling order), moving `now()` to each timer's deadline before running it, so a
 * timer scheduled from inside a callback is measured from the moment its parent fired and also
 * fires within the same `advance` if it becomes due.
 *
 * Note: Kafka's own MockTimer fires only when `now > deadline` (strictly), which is why Kafka's
 * tests advance by `timeout + 1`. Here a timer fires at exactly its deadline, like a real timer.
 */
export class FakeTimers implements Clock, Timers {
  private current: number;
  private seq = 0;
  private queue: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    const timer: FakeTimer = {
      deadline: this.current + Math.max(0, delayMs),
      seq: this.seq++,
      fn,
      cancelled: false,
    };
    this.queue.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Move time forward by `ms`, firing every timer that becomes due on the way. */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError(`cannot advance by a negative amount (${ms})`);
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.current = next.deadline;
      next.cancelled = true; // a timer fires at most once
      next.fn();
    }
    this.current = target;
  }

  /** Number of timers scheduled and neither fired nor cancelled. */
  pendingCount(): number {
    this.queue = this.queue.filter((t) => !t.cancelled);
    return this.queue.length;
  }

  /** Deadline of the earliest live timer, if any. */
  nextDeadline(): number | undefined {
    return this.nextDue(Number.POSITIVE_INFINITY)?.deadline;
  }

  private nextDue(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.queue) {
      if (t.cancelled || t.deadline > limit) continue;
      if (!best || t.deadline < best.deadline || (t.deadline === best.deadline && t.seq < best.seq)) best = t;
    }
    if (best) this.queue = this.queue.filter((t) => !t.cancelled || t === best);
    return best;
  }
}
