// A kmock on a manual clock (`startKmock({ clock: 'manual' })`) for the "[manual clock]" variants
// (suite.ts clockVariant): the claim they check is that advancing kmock's clock gives the answers
// waiting gives on a real Kafka. So the only thing that may differ from the ordinary kmock run is
// that a `wait(ms)` step is a jump, `kmock.clock.advance(ms)`, instead of a real sleep:
//
// - Between wait steps the clock follows real time: a real-time follower advances it by the real
//   time elapsed since its last move, every TICK_MS (a few ms), so settle pauses, collect and
//   parked timeouts, polls and request round trips count for kmock exactly as they do for Kafka
//   (every broker timer still fires through advance(), each at its own deadline, at most a tick
//   of real time after it fell due; the scenarios' margins are ≥ 50 ms).
// - A wait step first catches up with real time, then advances by exactly `ms` at once (the
//   timers falling due fire in deadline order, each seeing now() at its deadline), and lets the
//   event loop turn once, as the real sleep would let the broker finish what the timers started,
//   before the runner's next step. The real time the jump itself takes is not added: the jump
//   stands for the whole wait.
//
// The clock is kmock's own (the public `kmock.clock`, control/clock.ts); nothing here changes
// kmock. `breakClock` lets support/mutations.ts break the clock for the gate check.
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { ClockControl } from '../../../src/broker/control/clock.js';
import type { Settings } from '../runner.js';
import { kmockOptions, type TargetProvider } from '../suite.js';

/** Real ms between the follower's moves. */
export const TICK_MS = 2;

export interface RealTimeFollower {
  /** A wait step: catch up with real time, then advance by `ms` at once. */
  jump(ms: number): Promise<void>;
  stop(): void;
}

/** Keeps `clock` (manual) in step with real time, in moves of a few ms, except for jumps. */
export function followRealTime(clock: ClockControl, tickMs = TICK_MS): RealTimeFollower {
  const realMs = () => Math.floor(performance.now());
  let last = realMs();
  const catchUp = () => {
    const now = realMs();
    if (now <= last) return;
    const d = now - last;
    last = now;
    clock.advance(d);
  };
  const timer = setInterval(catchUp, tickMs);
  return {
    async jump(ms) {
      catchUp();
      clock.advance(ms);
      last = realMs();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * kmocks on a manual clock with a real-time follower; a `wait` step on their target jumps the
 * clock (Target.passTime). `breakClock` runs on the started kmock before anything else does.
 */
export function manualClockKmockProvider(name = 'kmock[manual clock]', breakClock?: (k: Kmock) => void): TargetProvider {
  return {
    name,
    kind: 'kmock',
    async start(settings: Settings) {
      const k = await startKmock({ ...kmockOptions(settings).options, clock: 'manual', strictClients: true });
      breakClock?.(k);
      const follower = followRealTime(k.clock);
      return {
        target: { name, bootstrapServers: k.bootstrapServers, nodeId: k.broker.config.nodeId, passTime: (ms) => follower.jump(ms) },
        async stop() {
          follower.stop();
          await k.close();
        },
      };
    },
  };
}
