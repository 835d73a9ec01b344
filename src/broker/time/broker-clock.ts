// The broker's one clock: every broker timer runs on it (session, rebalance, initial delay and
// the draft policies' timers in the group coordinator; Fetch long polls; idle connections; injected
// latency) and every broker timestamp comes from it (log-append times, commit times, producer
// expiry). A test picks how it moves:
//
//   system   real time (the default): now() is Date.now(), plus whatever the test advanced by;
//   scaled   real time, N times faster: 1 real ms is N clock ms, timers fire N times sooner;
//   manual   time stands still until the test calls advance(ms) or runUntilIdle().
//
// Advancing fires what falls due in deadline order (ties in scheduling order), each timer seeing
// now() equal to its own deadline, so a timer scheduled from inside another is measured from the
// moment its parent fired: the same sequence the deadlines give in real time. A timer that is due
// already (a delay of 0, or a deadline the clock has reached) fires on its own, as soon as the
// current I/O callback returns, in every mode: Kafka's purgatory completes an expired operation at
// once, and a manual clock would otherwise leave a zero delay waiting for the test.
//
// The clock can change mode while the broker runs (pause real time, advance, resume); virtual
// time never goes back.
import type { Clock, TimerHandle, TimerOptions, Timers } from '../group/clock.js';
import { TimerQueue, type QueuedTimer } from './timer-queue.js';

/** How the clock moves: `system`, `manual`, or `{ speed: N }` (real time, N× faster). */
export type ClockSetting = 'system' | 'manual' | { speed: number };

export interface ClockView {
  mode: 'system' | 'manual' | 'scaled';
  /** Clock ms per real ms while running (1 for system, 0 for manual). */
  speed: number;
  /** The clock's current time (epoch ms, as Date.now()). */
  now: number;
  /** now - Date.now(): how far the test has moved the clock from real time. */
  offsetMs: number;
  pending: PendingTimer[];
}

export interface PendingTimer {
  name: string;
  /** Clock ms until it fires (0 when due). */
  dueInMs: number;
  housekeeping: boolean;
}

export interface RunResult {
  /** Clock ms moved. */
  advancedMs: number;
  /** Timers fired. */
  fired: number;
}

export class ClockError extends Error {}

/** runUntilIdle's guard against timers that keep scheduling timers forever. */
const RUN_UNTIL_IDLE_LIMIT = 100_000;

export interface BrokerClockOptions {
  setting?: ClockSetting;
  /** The clock's time at start (epoch ms); default: real time. */
  startMs?: number;
  /** A timer callback threw: the clock carries on with the next one (the broker logs it). */
  onTimerError?: (name: string, err: unknown) => void;
  /** The real time source (tests replace it). */
  realNow?: () => number;
}

export class BrokerClock implements Clock, Timers {
  private readonly queue = new TimerQueue();
  private readonly realNow: () => number;
  private readonly onTimerError: (name: string, err: unknown) => void;
  /** Clock time at `anchorReal`, and clock ms per real ms since (0: manual). */
  private anchorClock: number;
  private anchorReal: number;
  private speed: number;
  /** While advance() fires a timer: its deadline is now(). */
  private firingAt: number | undefined;
  private advancing = false;
  /** The real timer armed for the earliest deadline, and that deadline. */
  private alarm: NodeJS.Timeout | undefined;
  private alarmFor = Number.POSITIVE_INFINITY;
  private dueScheduled = false;
  private closed = false;

  constructor(options: BrokerClockOptions = {}) {
    this.realNow = options.realNow ?? Date.now;
    this.onTimerError = options.onTimerError ?? ((name, err) => queueMicrotask(() => { throw Object.assign(new Error(`timer ${name} failed`), { cause: err }); }));
    this.anchorReal = this.realNow();
    this.anchorClock = options.startMs ?? this.anchorReal;
    this.speed = speedOf(options.setting ?? 'system');
  }

  now(): number {
    if (this.firingAt !== undefined) return this.firingAt;
    if (this.speed === 0) return this.anchorClock;
    return this.anchorClock + (this.realNow() - this.anchorReal) * this.speed;
  }

  get mode(): ClockView['mode'] {
    return this.speed === 0 ? 'manual' : this.speed === 1 ? 'system' : 'scaled';
  }

  schedule(delayMs: number, fn: () => void, options?: TimerOptions): TimerHandle {
    const delay = Math.max(0, delayMs);
    if (options?.realTimeCap) return this.scheduleCapped(delay, fn, options);
    const timer = this.queue.add(this.now() + delay, fn, options?.name, options?.housekeeping);
    if (!this.advancing) this.arm();
    return { cancel: () => this.queue.cancel(timer) };
  }

  /** A timer that fires at its deadline on this clock or after `delay` real ms, whichever is first. */
  private scheduleCapped(delay: number, fn: () => void, options: TimerOptions): TimerHandle {
    let real: NodeJS.Timeout | undefined;
    const timer = this.queue.add(this.now() + delay, () => {
      clearTimeout(real);
      fn();
    }, options.name, options.housekeeping);
    real = setTimeout(() => {
      if (!timer.live || this.closed) return;
      this.queue.cancel(timer);
      this.fire(timer);
    }, delay);
    real.unref();
    if (!this.advancing) this.arm();
    return {
      cancel: () => {
        clearTimeout(real);
        this.queue.cancel(timer);
      },
    };
  }

  /** Moves the clock forward by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): RunResult {
    if (!Number.isFinite(ms) || ms < 0) throw new ClockError(`advance takes a number of ms ≥ 0, got ${ms}`);
    return this.advanceTo(this.now() + ms);
  }

  /**
   * Fires every pending timer but the housekeeping ones, moving the clock to each deadline in turn,
   * until none is left: parked joins complete, sessions of members that stopped heartbeating
   * expire, long polls answer. Timers those fire are run too.
   */
  runUntilIdle(): RunResult {
    const start = this.now();
    let fired = 0;
    for (let next = this.queue.earliestWork(); next !== undefined; next = this.queue.earliestWork()) {
      fired += this.advanceTo(Math.max(next.deadline, this.now())).fired;
      if (fired > RUN_UNTIL_IDLE_LIMIT) throw new ClockError(`runUntilIdle: still busy after ${RUN_UNTIL_IDLE_LIMIT} timers (timers keep scheduling timers)`);
    }
    return { advancedMs: this.now() - start, fired };
  }

  /** Switches mode; the clock carries on from where it is. */
  set(setting: ClockSetting): void {
    const now = this.now();
    this.anchorReal = this.realNow();
    this.anchorClock = now;
    this.speed = speedOf(setting);
    this.disarm();
    this.arm();
  }

  view(): ClockView {
    const now = this.now();
    return {
      mode: this.mode,
      speed: this.speed,
      now,
      offsetMs: now - this.realNow(),
      pending: this.queue.list().map((t) => ({ name: t.name, dueInMs: Math.max(0, t.deadline - now), housekeeping: t.housekeeping })),
    };
  }

  get pendingCount(): number {
    return this.queue.size;
  }

  /** Drops every timer (broker shutdown). */
  close(): void {
    this.closed = true;
    this.disarm();
    this.queue.clear();
  }

  private advanceTo(target: number): RunResult {
    if (this.advancing) throw new ClockError('the clock cannot be advanced from inside a timer');
    if (this.closed) return { advancedMs: 0, fired: 0 };
    const start = this.now();
    this.advancing = true;
    let fired = 0;
    try {
      for (let t = this.queue.popDue(target); t !== undefined; t = this.queue.popDue(target)) {
        this.firingAt = Math.max(t.deadline, start);
        this.fire(t);
        fired++;
      }
    } finally {
      this.firingAt = undefined;
      this.advancing = false;
    }
    // Time moves by exactly what was asked, in every mode; the real timer was set for the old time.
    this.anchorClock += Math.max(0, target - this.now());
    this.disarm();
    this.arm();
    return { advancedMs: Math.max(0, target - start), fired };
  }

  private fire(t: QueuedTimer): void {
    try {
      t.fn();
    } catch (err) {
      this.onTimerError(t.name, err);
    }
  }

  /** Fires what real time has made due (running modes) or what is due already (every mode). */
  private fireDue(): void {
    this.dueScheduled = false;
    this.alarm = undefined;
    this.alarmFor = Number.POSITIVE_INFINITY;
    if (this.closed || this.advancing) return;
    this.advancing = true;
    try {
      for (let t = this.queue.popDue(this.now()); t !== undefined; t = this.queue.popDue(this.now())) this.fire(t);
    } finally {
      this.advancing = false;
    }
    this.arm();
  }

  /** Arms the one real timer for the earliest deadline (or a setImmediate when it is due). */
  private arm(): void {
    if (this.closed) return;
    const next = this.queue.peek();
    if (next === undefined) return;
    const waitMs = next.deadline - this.now();
    if (waitMs <= 0) {
      if (!this.dueScheduled) {
        this.dueScheduled = true;
        setImmediate(() => this.fireDue()).unref();
      }
      return;
    }
    if (this.speed === 0 || next.deadline >= this.alarmFor) return;
    this.disarm();
    this.alarmFor = next.deadline;
    // Node's timers run on a monotonic clock and may fire up to 1 ms before Date.now() shows the
    // deadline: fireDue then finds nothing due and arms again.
    this.alarm = setTimeout(() => this.fireDue(), Math.ceil(waitMs / this.speed));
    this.alarm.unref();
  }

  private disarm(): void {
    if (this.alarm !== undefined) clearTimeout(this.alarm);
    this.alarm = undefined;
    this.alarmFor = Number.POSITIVE_INFINITY;
  }
}

function speedOf(setting: ClockSetting): number {
  if (setting === 'system') return 1;
  if (setting === 'manual') return 0;
  const s = setting.speed;
  if (!Number.isFinite(s) || s <= 0) throw new ClockError(`clock speed must be a number > 0, got ${s}`);
  return s;
}

/** The clock setting's text form (`--clock`): system, manual, or a speed such as 10x. */
export function parseClockSetting(text: string): ClockSetting {
  const t = text.trim().toLowerCase();
  if (t === 'system' || t === 'manual') return t;
  const m = /^(\d+(?:\.\d+)?)x$/.exec(t);
  if (m && Number(m[1]) > 0) return Number(m[1]) === 1 ? 'system' : { speed: Number(m[1]) };
  throw new ClockError(`clock must be system, manual or a speed such as 10x, got "${text}"`);
}

export function formatClockSetting(setting: ClockSetting): string {
  return typeof setting === 'string' ? setting : `${setting.speed}x`;
}
