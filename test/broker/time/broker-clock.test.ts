import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTimers } from '../../../src/broker/group/clock.js';
import { BrokerClock, ClockError, parseClockSetting } from '../../../src/broker/time/broker-clock.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('BrokerClock, manual', () => {
  it('stands still until advanced, then fires due timers in deadline order, each seeing its own deadline', () => {
    const c = new BrokerClock({ setting: 'manual', startMs: 1000 });
    const fired: string[] = [];
    c.schedule(30, () => fired.push(`c@${c.now()}`));
    c.schedule(10, () => fired.push(`a@${c.now()}`));
    c.schedule(30, () => fired.push(`d@${c.now()}`));
    c.schedule(20, () => fired.push(`b@${c.now()}`));
    expect(c.now()).toBe(1000);
    expect(c.advance(25)).toEqual({ advancedMs: 25, fired: 2 });
    expect(fired).toEqual(['a@1010', 'b@1020']);
    expect(c.now()).toBe(1025);
    c.advance(100);
    expect(fired).toEqual(['a@1010', 'b@1020', 'c@1030', 'd@1030']);
    expect(c.now()).toBe(1125);
  });

  it('measures a timer scheduled inside another from the moment its parent fired', () => {
    const c = new BrokerClock({ setting: 'manual', startMs: 0 });
    const fired: string[] = [];
    c.schedule(10, () => {
      fired.push(`outer@${c.now()}`);
      c.schedule(5, () => fired.push(`inner@${c.now()}`));
    });
    c.advance(20);
    expect(fired).toEqual(['outer@10', 'inner@15']);
  });

  it('fires a timer that is already due on its own, without being advanced (a 0 ms delay)', async () => {
    const c = new BrokerClock({ setting: 'manual', startMs: 0 });
    let fired = 0;
    c.schedule(0, () => fired++);
    c.schedule(1, () => fired++);
    expect(fired).toBe(0);
    await tick();
    expect(fired).toBe(1);
    expect(c.now()).toBe(0);
    c.close();
  });

  it('runUntilIdle fires every timer but housekeeping, following chains, and reports how far it went', () => {
    const c = new BrokerClock({ setting: 'manual', startMs: 0 });
    const fired: string[] = [];
    c.schedule(600_000, () => fired.push('idle check'), { name: 'idle connection 1', housekeeping: true });
    c.schedule(45_000, () => {
      fired.push(`session@${c.now()}`);
      c.schedule(300_000, () => fired.push(`rebalance@${c.now()}`));
    });
    c.schedule(3_000, () => fired.push(`delay@${c.now()}`));
    expect(c.runUntilIdle()).toEqual({ advancedMs: 345_000, fired: 3 });
    expect(fired).toEqual(['delay@3000', 'session@45000', 'rebalance@345000']);
    // The housekeeping timer is still pending, and fires when time passes it.
    expect(c.view().pending).toEqual([{ name: 'idle connection 1', dueInMs: 255_000, housekeeping: true }]);
    c.advance(255_000);
    expect(fired.at(-1)).toBe('idle check');
  });

  it('runUntilIdle stops a timer that reschedules itself forever with an error', () => {
    const c = new BrokerClock({ setting: 'manual' });
    const loop = () => void c.schedule(1, loop);
    loop();
    expect(() => c.runUntilIdle()).toThrow(ClockError);
  });

  it('cancelled timers never fire; a throwing timer is reported and the rest still fire', () => {
    const errors: string[] = [];
    const c = new BrokerClock({ setting: 'manual', startMs: 0, onTimerError: (name) => errors.push(name) });
    let n = 0;
    const a = c.schedule(5, () => n++);
    c.schedule(6, () => {
      throw new Error('boom');
    }, { name: 'bad' });
    c.schedule(7, () => n++);
    a.cancel();
    a.cancel();
    c.advance(10);
    expect(n).toBe(1);
    expect(errors).toEqual(['bad']);
  });

  it('refuses a negative advance and one from inside a timer', () => {
    const c = new BrokerClock({ setting: 'manual', startMs: 0 });
    expect(() => c.advance(-1)).toThrow(ClockError);
    let inner: unknown;
    c.schedule(1, () => {
      try {
        c.advance(1);
      } catch (e) {
        inner = e;
      }
    });
    c.advance(1);
    expect(inner).toBeInstanceOf(ClockError);
  });
});

describe('BrokerClock, running', () => {
  afterEach(() => vi.useRealTimers());

  it('system: now() is real time, timers fire on real timers, and advance() jumps ahead of it', () => {
    vi.useFakeTimers({ now: 5_000 });
    const c = new BrokerClock();
    expect(c.now()).toBe(5_000);
    const fired: number[] = [];
    c.schedule(100, () => fired.push(c.now()));
    c.schedule(10_000, () => fired.push(c.now()));
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([5_100]);
    c.advance(5_000);
    expect(fired).toEqual([5_100]);
    expect(c.now()).toBe(10_100);
    expect(c.view().offsetMs).toBe(5_000);
    // The second timer (due at 15 000) now fires 4 900 real ms later, not 9 900.
    vi.advanceTimersByTime(4_899);
    expect(fired).toEqual([5_100]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([5_100, 15_000]);
  });

  it('scaled: 1 real ms is N clock ms, and timers fire N times sooner', () => {
    vi.useFakeTimers({ now: 0 });
    const c = new BrokerClock({ setting: { speed: 100 }, startMs: 1_000_000 });
    const fired: number[] = [];
    c.schedule(45_000, () => fired.push(c.now()));
    vi.advanceTimersByTime(449);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1_045_000]);
    expect(c.view()).toMatchObject({ mode: 'scaled', speed: 100 });
  });

  it('switches mode without moving back: pause, advance, resume', () => {
    vi.useFakeTimers({ now: 0 });
    const c = new BrokerClock({ startMs: 0 });
    vi.advanceTimersByTime(1_000);
    c.set('manual');
    vi.advanceTimersByTime(1_000);
    expect(c.now()).toBe(1_000);
    c.advance(500);
    c.set({ speed: 2 });
    vi.advanceTimersByTime(100);
    expect(c.now()).toBe(1_700);
    c.set('system');
    vi.advanceTimersByTime(100);
    expect(c.now()).toBe(1_800);
  });
});

describe('BrokerClock, a timer capped by real time (realTimeCap)', () => {
  afterEach(() => vi.useRealTimers());

  it('fires after its delay in real time while a manual clock stands still, once', () => {
    vi.useFakeTimers({ now: 0 });
    const c = new BrokerClock({ setting: 'manual', startMs: 100 });
    const fired: number[] = [];
    c.schedule(500, () => fired.push(c.now()), { realTimeCap: true });
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([100]);
    c.advance(1_000);
    expect(fired).toEqual([100]);
    expect(c.pendingCount).toBe(0);
  });

  it('fires at its deadline when the clock gets there first, and not again in real time; cancel stops both', () => {
    vi.useFakeTimers({ now: 0 });
    const c = new BrokerClock({ setting: 'manual', startMs: 0 });
    const fired: string[] = [];
    c.schedule(500, () => fired.push(`a@${c.now()}`), { realTimeCap: true });
    const b = c.schedule(500, () => fired.push('b'), { realTimeCap: true });
    b.cancel();
    c.advance(500);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual(['a@500']);
  });
});

describe('parseClockSetting', () => {
  it('reads system, manual and speeds; refuses the rest', () => {
    expect(parseClockSetting('manual')).toBe('manual');
    expect(parseClockSetting('System')).toBe('system');
    expect(parseClockSetting('10x')).toEqual({ speed: 10 });
    expect(parseClockSetting('1x')).toBe('system');
    expect(parseClockSetting('0.5x')).toEqual({ speed: 0.5 });
    for (const bad of ['', 'fast', '0x', '-2x', 'x10']) expect(() => parseClockSetting(bad)).toThrow(ClockError);
  });
});

/**
 * A random set of timers, some of which schedule (or cancel) others when they fire: the firing log
 * (which timer, at what time) every way of moving time must produce.
 */
interface Plan {
  delays: number[];
  /** When timer i fires it schedules a child `childDelay[i]` later (if defined). */
  children: Array<number | undefined>;
  /** When timer i fires it cancels timer `cancels[i]` (if still pending). */
  cancels: Array<number | undefined>;
}

const plan: fc.Arbitrary<Plan> = fc.integer({ min: 1, max: 25 }).chain((n) =>
  fc.record({
    delays: fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: n, maxLength: n }),
    children: fc.array(fc.option(fc.integer({ min: 0, max: 700 }), { nil: undefined }), { minLength: n, maxLength: n }),
    cancels: fc.array(fc.option(fc.nat(n - 1), { nil: undefined }), { minLength: n, maxLength: n }),
  }),
);

type Schedulable = { now(): number; schedule(ms: number, fn: () => void): { cancel(): void } };

function install(p: Plan, c: Schedulable): string[] {
  const log: string[] = [];
  const handles: Array<{ cancel(): void }> = [];
  p.delays.forEach((d, i) => {
    handles[i] = c.schedule(d, () => {
      log.push(`${i}@${c.now()}`);
      const child = p.children[i];
      if (child !== undefined) c.schedule(child, () => log.push(`${i}.child@${c.now()}`));
      const victim = p.cancels[i];
      if (victim !== undefined && victim !== i) handles[victim]!.cancel();
    });
  });
  return log;
}

describe('moving time: every way gives the same firings as the same deadlines in real time', () => {
  afterEach(() => vi.useRealTimers());

  it('property: one advance, advances in random steps, runUntilIdle, FakeTimers and a real-time run agree', () => {
    fc.assert(
      fc.property(plan, fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 12 }), (p, steps) => {
        const horizon = 3_000;

        const fake = new FakeTimers(0);
        const reference = install(p, fake);
        fake.advance(horizon);

        const once = new BrokerClock({ setting: 'manual', startMs: 0 });
        const onceLog = install(p, once);
        once.advance(horizon);

        const stepped = new BrokerClock({ setting: 'manual', startMs: 0 });
        const steppedLog = install(p, stepped);
        let moved = 0;
        for (const s of steps) {
          const by = Math.min(s, horizon - moved);
          stepped.advance(by);
          moved += by;
        }
        stepped.advance(horizon - moved);

        const idle = new BrokerClock({ setting: 'manual', startMs: 0 });
        const idleLog = install(p, idle);
        idle.runUntilIdle();

        // Real time (Node's timers, faked so the run is instant): the system clock.
        vi.useFakeTimers({ now: 0 });
        const real = new BrokerClock();
        const realLog = install(p, real);
        vi.advanceTimersByTime(horizon);
        real.close();
        vi.useRealTimers();

        expect(onceLog).toEqual(reference);
        expect(steppedLog).toEqual(reference);
        expect(idleLog).toEqual(reference);
        expect(realLog).toEqual(reference);
      }),
      { numRuns: 300 },
    );
  });
});
