// log.initial.task.delay.ms for the kmocks of the conformance suite (a test-only seam).
//
// Kafka's LogManager starts its retention task ("kafka-log-retention", LogManager.cleanupLogs) after
// log.initial.task.delay.ms (an internal setting, default 30 s: ServerLogConfigs.
// LOG_INITIAL_TASK_DELAY_MS_DEFAULT), then runs it every log.retention.check.interval.ms. The
// storage scenarios (scenarios/storage.ts) start the reference Kafka with a short delay so that
// retention runs within seconds of the broker starting. kmock has the delay as a constant
// (src/broker/log/log-manager.ts LOG_INITIAL_TASK_DELAY_MS) and no setting for it yet, so
// kmockOptions leaves the setting out; this seam gives kmock the same schedule: from
// `log.initial.task.delay.ms` on, every log.retention.check.interval.ms, it calls kmock's own
// retention check (LogManager.cleanupLogs, the function kmock's timer calls), on the broker's
// clock, until kmock's own first check is due (after that kmock's timer carries on by itself).
// Nothing else changes: what a check deletes is kmock's code.
//
// Remove this seam once kmock accepts `log.initial.task.delay.ms` (BrokerConfig, used by
// LogManager.start for retention and the flusher).
import type { Kmock } from '../../../src/broker/server.js';
import type { Settings } from '../runner.js';

export const LOG_INITIAL_TASK_DELAY_SETTING = 'log.initial.task.delay.ms';

/**
 * Applies `log.initial.task.delay.ms` from `settings` to a started kmock (see above); returns what
 * stops it (kmock.close() drops its timers too).
 */
export function applyLogInitialTaskDelay(k: Kmock, settings: Settings): () => void {
  const raw = settings[LOG_INITIAL_TASK_DELAY_SETTING];
  if (raw === undefined) return () => undefined;
  const delay = Number(raw);
  if (!Number.isFinite(delay) || delay < 0) throw new Error(`${LOG_INITIAL_TASK_DELAY_SETTING}: not a delay: ${String(raw)}`);
  const broker = k.broker;
  const clock = broker.clock;
  const own = clock.view().pending.find((t) => t.name === 'kafka-log-retention');
  // kmock's own first check (its timer is scheduled when the broker is built).
  const ownFirst = own === undefined ? clock.now() : clock.now() + own.dueInMs;
  const interval = Math.max(1, broker.config.logRetentionCheckIntervalMs);
  let handle: { cancel(): void } | undefined;
  let stopped = false;
  const run = (): void => {
    if (stopped || clock.now() >= ownFirst) return;
    broker.logManager.cleanupLogs();
    handle = clock.schedule(interval, run, { name: 'kafka-log-retention (log.initial.task.delay.ms seam)', housekeeping: true });
  };
  handle = clock.schedule(delay, run, { name: 'kafka-log-retention (log.initial.task.delay.ms seam)', housekeeping: true });
  return () => {
    stopped = true;
    handle?.cancel();
  };
}
