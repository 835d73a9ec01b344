// The command-line plumbing the Node client-matrix apps share (PROTOCOL.md): JSON lines on stdout,
// the exit codes, and the options every role may take. What differs per client (how its errors
// carry the Kafka error name) stays in each app.
import { parseArgs } from 'node:util';

export type Json = Record<string, unknown>;
export type Options = Record<string, unknown>;

export function emit(obj: Json): void {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** Bad arguments: an error line, exit 1. */
export function usage(message: string): never {
  emit({ event: 'error', name: null, message });
  process.exit(1);
}

/** A role this client cannot play: exit 2. */
export function unsupported(role: string, why: string): never {
  emit({ event: 'unsupported', role, why });
  process.exit(2);
}

export function intOption(values: Options, name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} wants a non-negative integer, got ${String(raw)}`);
  return n;
}

export function requireOption(values: Options, name: string): string {
  const raw = values[name];
  if (typeof raw !== 'string' || raw === '') usage(`--${name} is required`);
  return raw;
}

/** `<role> --option value ...` as PROTOCOL.md defines them; unknown options are a usage error. */
export function parseRole(argv: string[]): { role: string | undefined; values: Options } {
  const [role, ...rest] = argv;
  try {
    const { values } = parseArgs({
      args: rest,
      strict: true,
      options: {
        bootstrap: { type: 'string' },
        topic: { type: 'string' },
        from: { type: 'string' },
        count: { type: 'string' },
        partitions: { type: 'string' },
        group: { type: 'string' },
        'client-id': { type: 'string' },
        instance: { type: 'string' },
        'session-timeout-ms': { type: 'string' },
        'max-seconds': { type: 'string' },
        commit: { type: 'string' },
        abort: { type: 'string' },
        'transactional-id': { type: 'string' },
        until: { type: 'string' },
        isolation: { type: 'string' },
        // The connection's security (PROTOCOL.md, "Security options"), for every role.
        'security-protocol': { type: 'string' },
        'sasl-mechanism': { type: 'string' },
        'sasl-username': { type: 'string' },
        'sasl-password': { type: 'string' },
        'ssl-ca': { type: 'string' },
      },
    });
    return { role, values };
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
}

/** `--until 0:4,1:4,2:2` (read): partition -> offset to read up to. */
export function untilOption(values: Options): Map<number, number> {
  const raw = requireOption(values, 'until');
  const out = new Map<number, number>();
  for (const item of raw.split(',')) {
    const [p, o] = item.split(':').map(Number);
    if (!Number.isInteger(p) || !Number.isInteger(o) || p! < 0 || o! < 0) usage(`--until wants partition:offset,..., got ${raw}`);
    out.set(p!, o!);
  }
  return out;
}

/** `--isolation read_committed|read_uncommitted` (read), default read_committed. */
export function isolationOption(values: Options): 'read_committed' | 'read_uncommitted' {
  const raw = values.isolation ?? 'read_committed';
  if (raw !== 'read_committed' && raw !== 'read_uncommitted') usage(`--isolation wants read_committed or read_uncommitted, got ${String(raw)}`);
  return raw;
}

/** The connection's security as PROTOCOL.md's security options give it (absent: PLAINTEXT). */
export interface Security {
  protocol: 'SASL_SSL';
  mechanism: 'PLAIN' | 'SCRAM-SHA-256';
  username: string;
  password: string;
  /** The PEM file of the CA the broker's certificate chains to. */
  caFile: string;
}

/** `--security-protocol SASL_SSL --sasl-mechanism M --sasl-username U --sasl-password P --ssl-ca FILE`, or none of them. */
export function securityOption(values: Options): Security | undefined {
  const given = ['security-protocol', 'sasl-mechanism', 'sasl-username', 'sasl-password', 'ssl-ca'].filter((k) => values[k] !== undefined);
  if (given.length === 0) return undefined;
  const protocol = requireOption(values, 'security-protocol');
  if (protocol !== 'SASL_SSL') usage(`--security-protocol wants SASL_SSL, got ${protocol}`);
  const mechanism = requireOption(values, 'sasl-mechanism');
  if (mechanism !== 'PLAIN' && mechanism !== 'SCRAM-SHA-256') usage(`--sasl-mechanism wants PLAIN or SCRAM-SHA-256, got ${mechanism}`);
  return { protocol, mechanism, username: requireOption(values, 'sasl-username'), password: requireOption(values, 'sasl-password'), caFile: requireOption(values, 'ssl-ca') };
}
