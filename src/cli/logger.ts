// The logger of `kmock start`. At --log-level silent nothing is ever written, so pino is not
// needed: a no-op logger stands in, and the bundled CLI (scripts/bundle.mjs loads pino on first
// use) never loads pino, sonic-boom, thread-stream and the node:assert / node:worker_threads /
// node:os modules they pull in. Every other level gets the pino logger it always had.
import pino, { type Logger } from 'pino';

const noop = (): void => {};

/** A logger that drops everything, as pino does at level 'silent'. */
export function silentLogger(): Logger {
  const logger = {
    level: 'silent',
    fatal: noop,
    error: noop,
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    silent: noop,
    isLevelEnabled: () => false,
    flush: noop,
    bindings: () => ({}),
    child: () => logger,
  };
  return logger as unknown as Logger;
}

/**
 * JSON lines on stdout, written synchronously (so a line is out before the process exits). `now`
 * gives each line's time: a deterministic broker passes its clock's, so that its log repeats.
 */
export function cliLogger(level: string, now?: () => number): Logger {
  if (level === 'silent') return silentLogger();
  const timestamp = now === undefined ? undefined : () => `,"time":${now()}`;
  return pino({ level, base: undefined, ...(timestamp ? { timestamp } : {}) }, pino.destination({ dest: 1, sync: true }));
}
