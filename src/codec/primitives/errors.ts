// Typed codec failures. A decode either returns a whole message or throws one of these;
// it never returns a partial result.

/** Bytes that do not form a valid message: truncated, hostile length, bad varint... */
export class DecodeError extends Error {
  override name = 'DecodeError';
  /** Field path from the message root, e.g. ['protocols', '[2]', 'metadata']. */
  path: string[] = [];
  /** Set by the message-level decoder that caught the error. */
  apiKey?: number;
  apiVersion?: number;
  messageName?: string;
  /** The low-level cause, without the location prefix. */
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }

  /** Rebuilds `message` from the location and the reason. */
  locate(messageName: string, apiVersion: number, apiKey?: number): this {
    this.messageName = messageName;
    this.apiVersion = apiVersion;
    this.apiKey = apiKey;
    const where = this.path.length > 0 ? ` at ${formatPath(this.path)}` : '';
    const key = apiKey === undefined ? '' : ` (api key ${apiKey})`;
    this.message = `${messageName} v${apiVersion}${key}${where}: ${this.reason}`;
    return this;
  }
}

/** A value that cannot be written at the requested version (Kafka's UnsupportedVersionException). */
export class UnsupportedVersionError extends Error {
  override name = 'UnsupportedVersionError';
}

/** A value that cannot be written at all: null in a non-nullable field, a string too long... */
export class EncodeError extends Error {
  override name = 'EncodeError';
}

function formatPath(path: string[]): string {
  let out = '';
  for (const p of path) out += p.startsWith('[') ? p : out === '' ? p : `.${p}`;
  return out;
}

/** The EncodeError for a value an integer field's type cannot hold. */
export function badInteger(field: string, type: string, value: unknown): EncodeError {
  const shown = typeof value === 'bigint' ? `${value}n` : String(value);
  return new EncodeError(`field ${field} is ${type} but holds ${shown}`);
}

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
