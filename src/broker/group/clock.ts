// Time for the group coordinator is injected: the coordinator never calls Date.now or setTimeout
// itself. A broker passes its own clock (src/broker/time/broker-clock.ts: real, scaled or moved by
// the test); the coordinator's tests pass one `FakeTimers`, which is both the clock and the timer
// service, so that a whole rebalance runs in microseconds.
import { TimerQueue } from '../time/timer-queue.js';

/** Milliseconds since an arbitrary epoch. Only differences matter, except for commit timestamps. */
export interface Clock {
  now(): number;
}

export interface TimerHandle {
  /** Idempotent. Cancelling a timer that already fired does nothing. */
  cancel(): void;
}

export interface TimerOptions {
  /** What the timer is for, as the broker clock lists it (`kmock.clock.pending()`). */
  name?: string;
  /** Recurring upkeep that `runUntilIdle` does not wait for (broker-clock.ts). */
  housekeeping?: boolean;
  /**
   * Also fire after `delayMs` of real time if the clock has not got there first (broker-clock.ts):
   * for waits a client asked for (a Fetch's max wait) on a clock the test may have stopped.
   */
  realTimeCap?: boolean;
}

export interface Timers {
  /** Run `fn` once, `delayMs` (clamped to ≥ 0) after now. */
  schedule(delayMs: number, fn: () => void, options?: TimerOptions): TimerHandle;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Real timers. They are `unref()`d: a mock broker must not keep the process alive just because a
 * consumer group has a session timer running. (A broker runs its coordinator on its own clock,
 * src/broker/time/broker-clock.ts; these serve a coordinator built on its own.)
 */
export const systemTimers: Timers = {
  schedule(delayMs: number, fn: () => void): TimerHandle {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

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
  private readonly queue = new TimerQueue();

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  schedule(delayMs: number, fn: () => void, options?: TimerOptions): TimerHandle {
    const timer = this.queue.add(this.current + Math.max(0, delayMs), fn, options?.name, options?.housekeeping);
    return { cancel: () => this.queue.cancel(timer) };
  }

  /** Move time forward by `ms`, firing every timer that becomes due on the way. */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError(`cannot advance by a negative amount (${ms})`);
    const target = this.current + ms;
    for (let next = this.queue.popDue(target); next !== undefined; next = this.queue.popDue(target)) {
      this.current = next.deadline;
      next.fn();
    }
    this.current = target;
  }

  /** Number of timers scheduled and neither fired nor cancelled. */
  pendingCount(): number {
    return this.queue.size;
  }

  /** Deadline of the earliest live timer, if any. */
  nextDeadline(): number | undefined {
    return this.queue.peek()?.deadline;
  }
}
