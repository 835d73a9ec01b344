// Captures kmock's decoded traffic (`trace: true`) in memory, so a test can assert on the exact
// requests and responses a real client exchanged, and print them when it fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface TraceLine {
  trace?: boolean;
  api: string | number;
  apiKey: number;
  version: number;
  correlationId: number;
  client?: string;
  connection: number;
  request?: Record<string, unknown>;
  /** null when no response was sent (Produce acks=0). */
  response?: Record<string, unknown> | string | null;
  msg?: string;
  [k: string]: unknown;
}

export interface TraceCapture {
  logger: Logger;
  /** Every log line, trace lines included, parsed. */
  lines: TraceLine[];
  /** Only the request/response lines, optionally of one API (e.g. 'JoinGroup'). */
  traffic(api?: string): TraceLine[];
  /** The last `n` lines, one JSON per line, for a failure message. */
  tail(n?: number): string;
}

export function captureTrace(): TraceCapture {
  const lines: TraceLine[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      partial += chunk.toString();
      let nl: number;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const text = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        if (text.trim() !== '') lines.push(JSON.parse(text) as TraceLine);
      }
      cb();
    },
  });
  const logger = pino({ level: 'info', base: undefined }, stream);
  return {
    logger,
    lines,
    traffic: (api) => lines.filter((l) => l.trace === true && (api === undefined || l.api === api)),
    tail: (n = 60) =>
      lines
        .slice(-n)
        .map((l) => JSON.stringify(l))
        .join('\n'),
  };
}

/**
 * With KMOCK_TRACE_DIR set, writes every captured line of the test to `<dir>/<test name>.jsonl`
 * (for reading the decoded traffic of a passing test too).
 */
export function dumpTraceIfAsked(capture: TraceCapture, testName: string): void {
  const dir = process.env.KMOCK_TRACE_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${testName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120)}.jsonl`);
  writeFileSync(file, capture.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
