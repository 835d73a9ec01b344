// SCRAM credentials (Kafka's ScramCredential: salt, stored key, server key, iterations), per user
// and mechanism, as Kafka keeps them in its metadata (UserScramCredentialRecord), and
// ScramFormatter's derivation of them from a password (RFC 5802: SaltedPassword = Hi(password,
// salt, i); ClientKey = HMAC(SaltedPassword, "Client Key"); StoredKey = H(ClientKey); ServerKey =
// HMAC(SaltedPassword, "Server Key")).
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export const SCRAM_MECHANISMS: readonly ScramMechanism[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** ScramMechanism's hash, its key length, and minIterations (4096 for both). */
export const SCRAM_HASH: Readonly<Record<ScramMechanism, { hash: 'sha256' | 'sha512'; bytes: number; minIterations: number }>> = {
  'SCRAM-SHA-256': { hash: 'sha256', bytes: 32, minIterations: 4096 },
  'SCRAM-SHA-512': { hash: 'sha512', bytes: 64, minIterations: 4096 },
};

export function isScramMechanism(m: string): m is ScramMechanism {
  return m === 'SCRAM-SHA-256' || m === 'SCRAM-SHA-512';
}

export interface ScramCredential {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
  iterations: number;
}

/** ScramFormatter.generateCredential from a salted password (what AlterUserScramCredentials sends). */
export function credentialFromSaltedPassword(mechanism: ScramMechanism, salt: Buffer, saltedPassword: Buffer, iterations: number): ScramCredential {
  const { hash } = SCRAM_HASH[mechanism];
  const clientKey = createHmac(hash, saltedPassword).update('Client Key').digest();
  return {
    salt,
    storedKey: createHash(hash).update(clientKey).digest(),
    serverKey: createHmac(hash, saltedPassword).update('Server Key').digest(),
    iterations,
  };
}

/** ScramFormatter.generateCredential from a password (a random salt when none is given). */
export function credentialFromPassword(mechanism: ScramMechanism, password: string, iterations: number, salt: Buffer = randomBytes(24)): ScramCredential {
  const { hash, bytes } = SCRAM_HASH[mechanism];
  return credentialFromSaltedPassword(mechanism, salt, pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, bytes, hash), iterations);
}

/** A credential as JSON can hold it (the data dir's). */
export interface SavedScramCredential {
  user: string;
  mechanism: ScramMechanism;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

export class ScramCredentialStore {
  private readonly byUser = new Map<string, Map<ScramMechanism, ScramCredential>>();
  private readonly listeners: Array<() => void> = [];

  get(user: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.byUser.get(user)?.get(mechanism);
  }

  set(user: string, mechanism: ScramMechanism, credential: ScramCredential): void {
    let m = this.byUser.get(user);
    if (m === undefined) this.byUser.set(user, (m = new Map()));
    m.set(mechanism, credential);
    this.changed();
  }

  /** False when the user had no credential of that mechanism. */
  delete(user: string, mechanism: ScramMechanism): boolean {
    const m = this.byUser.get(user);
    if (m === undefined || !m.delete(mechanism)) return false;
    if (m.size === 0) this.byUser.delete(user);
    this.changed();
    return true;
  }

  /** Every user with a credential, and each one's mechanisms and iterations. */
  users(): Array<{ user: string; credentials: Array<{ mechanism: ScramMechanism; iterations: number }> }> {
    return [...this.byUser].map(([user, m]) => ({ user, credentials: [...m].map(([mechanism, c]) => ({ mechanism, iterations: c.iterations })) }));
  }

  has(user: string): boolean {
    return this.byUser.has(user);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  entries(): SavedScramCredential[] {
    return [...this.byUser].flatMap(([user, m]) =>
      [...m].map(([mechanism, c]) => ({ user, mechanism, salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations })),
    );
  }

  load(saved: readonly SavedScramCredential[]): void {
    for (const s of saved) {
      if (!isScramMechanism(s.mechanism)) continue;
      let m = this.byUser.get(s.user);
      if (m === undefined) this.byUser.set(s.user, (m = new Map()));
      m.set(s.mechanism, { salt: Buffer.from(s.salt, 'base64'), storedKey: Buffer.from(s.storedKey, 'base64'), serverKey: Buffer.from(s.serverKey, 'base64'), iterations: s.iterations });
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
