import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTimers, systemTimers } from '../../../src/broker/group/clock.js';

describe('FakeTimers', () => {
  it('fires a timer at exactly its deadline, not before', () => {
    const t = new FakeTimers(100);
    const fired: number[] = [];
    t.schedule(50, () => fired.push(t.now()));
    t.advance(49);
    expect(fired).toEqual([]);
    expect(t.now()).toBe(149);
    t.advance(1);
    expect(fired).toEqual([150]);
  });

  it('fires due timers in deadline order, ties in scheduling order, each at its own deadline', () => {
    const t = new FakeTimers();
    const fired: string[] = [];
    t.schedule(30, () => fired.push(`c@${t.now()}`));
    t.schedule(10, () => fired.push(`a@${t.now()}`));
    t.schedule(30, () => fired.push(`d@${t.now()}`));
    t.schedule(20, () => fired.push(`b@${t.now()}`));
    t.advance(100);
    expect(fired).toEqual(['a@10', 'b@20', 'c@30', 'd@30']);
    expect(t.now()).toBe(100);
  });

  it('timers scheduled while firing are measured from the firing time and fire in the same advance if due', () => {
    const t = new FakeTimers();
    const fired: string[] = [];
    t.schedule(10, () => {
      fired.push(`outer@${t.now()}`);
      t.schedule(5, () => fired.push(`inner@${t.now()}`));
      t.schedule(0, () => fired.push(`zero@${t.now()}`));
      t.schedule(100, () => fired.push('late'));
    });
    t.advance(20);
    expect(fired).toEqual(['outer@10', 'zero@10', 'inner@15']);
    expect(t.pendingCount()).toBe(1);
    expect(t.nextDeadline()).toBe(110);
  });

  it('cancelled timers never fire; cancel is idempotent and safe after firing', () => {
    const t = new FakeTimers();
    let n = 0;
    const a = t.schedule(5, () => n++);
    const b = t.schedule(5, () => n++);
    a.cancel();
    a.cancel();
    t.advance(10);
    b.cancel();
    expect(n).toBe(1);
    expect(t.pendingCount()).toBe(0);
  });

  it('a timer cancelled by an earlier timer in the same advance does not fire', () => {
    const t = new FakeTimers();
    let fired = false;
    const later = t.schedule(10, () => (fired = true));
    t.schedule(5, () => later.cancel());
    t.advance(20);
    expect(fired).toBe(false);
  });

  it('schedule(0) fires on the next advance, even advance(0); negative delays clamp to 0', () => {
    const t = new FakeTimers();
    let n = 0;
    t.schedule(0, () => n++);
    t.schedule(-5, () => n++);
    expect(n).toBe(0);
    t.advance(0);
    expect(n).toBe(2);
    expect(() => t.advance(-1)).toThrow(RangeError);
  });

  it('property: every timer fires exactly once, at its deadline, in non-decreasing deadline order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 10 }), (delays, steps) => {
        const t = new FakeTimers();
        const fired: { i: number; at: number }[] = [];
        delays.forEach((d, i) => t.schedule(d, () => fired.push({ i, at: t.now() })));
        for (const s of steps) t.advance(s);
        t.advance(1001);
        expect(fired.map((f) => f.i).sort((a, b) => a - b)).toEqual(delays.map((_, i) => i));
        for (const f of fired) expect(f.at).toBe(delays[f.i]);
        for (let k = 1; k < fired.length; k++) expect(fired[k]!.at).toBeGreaterThanOrEqual(fired[k - 1]!.at);
      }),
    );
  });
});

describe('systemTimers', () => {
  afterEach(() => vi.restoreAllMocks());

  it('uses setTimeout with unref() so timers never keep the process alive, and clearTimeout to cancel', () => {
    const unref = vi.fn();
    const handle = { unref } as unknown as NodeJS.Timeout;
    const set = vi.spyOn(globalThis, 'setTimeout').mockReturnValue(handle);
    const clear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(() => undefined);
    const fn = () => undefined;
    const h = systemTimers.schedule(-3, fn);
    expect(set).toHaveBeenCalledWith(fn, 0);
    expect(unref).toHaveBeenCalledOnce();
    h.cancel();
    expect(clear).toHaveBeenCalledWith(handle);
  });
});
