// The control plane's door to the broker's clock (time/broker-clock.ts): read it, advance it, run
// it until no timer is left, switch it between real, scaled and manual time. `kmock.clock` and
// `kmock.control.clock` are this object; the admin HTTP API's /clock routes and `kmock admin
// clock` call it too. Input is checked here (400 ControlError), and each move is logged.
import type { Logger } from 'pino';
import { ClockError, formatClockSetting, parseClockSetting, type BrokerClock, type ClockSetting, type ClockView, type PendingTimer } from '../time/broker-clock.js';
import { badRequest, conflict, ControlError } from './errors.js';
import { integer, isObject, onlyFields } from './validate.js';

/** What a move of the clock did: how far it went, how many timers fired, and where it is now. */
export interface ClockMoveView {
  advancedMs: number;
  fired: number;
  now: number;
}

/** Input for `set`: 'system', 'manual', '10x', or { speed: 10 }. */
export type ClockSettingInput = ClockSetting | string;

export interface WaitForTimerOptions {
  /** Real ms to wait before giving up (default 10 s). */
  timeoutMs?: number;
}

/** Largest single move: about 31 years, far beyond any Kafka timeout. */
const MAX_ADVANCE_MS = 1e12;

export class ClockControl {
  constructor(
    private readonly clock: BrokerClock,
    private readonly log: Logger,
  ) {}

  /** The clock's time (epoch ms). */
  now(): number {
    return this.clock.now();
  }

  /** Mode, speed, time and the pending timers (name, ms until due). */
  view(): ClockView {
    return this.clock.view();
  }

  /**
   * Moves the clock forward by `ms` (any mode), firing what falls due in deadline order, each
   * timer at its own deadline: what waiting that long would have done.
   */
  advance(ms: unknown): ClockMoveView {
    const n = integer(ms, 'ms', 0, MAX_ADVANCE_MS);
    const r = this.move(() => this.clock.advance(n));
    // Debug: a test that follows real time with small moves advances many times a second.
    this.log.debug({ advancedMs: r.advancedMs, fired: r.fired, now: r.now }, 'clock advanced');
    return r;
  }

  /** Fires every pending timer except housekeeping (idle connections, expiry tasks), in order. */
  runUntilIdle(): ClockMoveView {
    const r = this.move(() => this.clock.runUntilIdle());
    this.log.info({ advancedMs: r.advancedMs, fired: r.fired, now: r.now }, 'clock ran until idle');
    return r;
  }

  /** Switches how the clock moves; it carries on from its current time. */
  set(setting: unknown): ClockView {
    const s = settingArg(setting);
    this.clock.set(s);
    this.log.info({ clock: formatClockSetting(s) }, 'clock mode set');
    return this.clock.view();
  }

  /**
   * Resolves once a pending timer's name contains `match` (or matches it, or `match(timer)` holds):
   * e.g. wait until a JoinGroup is parked on "initial rebalance delay my-group" and then advance
   * past it, or until a live member has heartbeated since the last jump (its "session timeout
   * my-group/<member id>" is due in its whole session timeout again). Polls in real time; rejects
   * after `timeoutMs`.
   */
  async waitForTimer(match: string | RegExp | ((timer: PendingTimer) => boolean), options: WaitForTimerOptions = {}): Promise<PendingTimer> {
    const test =
      typeof match === 'string' ? (t: PendingTimer) => t.name.includes(match) : match instanceof RegExp ? (t: PendingTimer) => match.test(t.name) : match;
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const found = this.clock.view().pending.find(test);
      if (found) return found;
      if (Date.now() >= deadline) throw new ControlError(408, `no timer matching ${String(match)} within ${options.timeoutMs ?? 10_000} ms`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  private move(run: () => { advancedMs: number; fired: number }): ClockMoveView {
    try {
      const r = run();
      return { ...r, now: this.clock.now() };
    } catch (e) {
      if (e instanceof ClockError) throw conflict(e.message);
      throw e;
    }
  }
}

function settingArg(v: unknown): ClockSetting {
  try {
    if (typeof v === 'string') return parseClockSetting(v);
    if (isObject(v)) {
      onlyFields(v, ['mode', 'speed'], 'clock');
      if (v.mode !== undefined && v.speed !== undefined) throw badRequest('give mode or speed, not both');
      if (typeof v.mode === 'string') return parseClockSetting(v.mode);
      if (typeof v.speed === 'number') return parseClockSetting(`${v.speed}x`);
    }
  } catch (e) {
    if (e instanceof ClockError) throw badRequest(e.message);
    throw e;
  }
  throw badRequest(`clock must be "system", "manual", a speed such as "10x", or { mode } / { speed }, got ${JSON.stringify(v)}`);
}
