// Secrets never reach kmock's log: `--trace` lines show SASL tokens and SCRAM salts as their size
// only (a PLAIN token holds the password in clear; a salted password is a password equivalent).
const SECRET_FIELDS: Readonly<Record<number, readonly string[]>> = {
  // SaslAuthenticate: the tokens, both ways.
  36: ['authBytes'],
  // AlterUserScramCredentials: the upsertions' salt and salted password.
  51: ['salt', 'saltedPassword'],
};

/** Replaces the secret fields of a decoded request or response (toJson's output) in place, at any depth. */
export function redactSecrets(apiKey: number, json: unknown): unknown {
  const fields = SECRET_FIELDS[apiKey];
  if (fields === undefined || json === null || typeof json !== 'object') return json;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const e of v) walk(e);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (fields.includes(k)) o[k] = `<redacted ${secretSize(o[k])}>`;
      else walk(o[k]);
    }
  };
  walk(json);
  return json;
}

function secretSize(v: unknown): string {
  if (typeof v === 'string') return `${Math.ceil(v.length / 2)} bytes`;
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  return 'value';
}
