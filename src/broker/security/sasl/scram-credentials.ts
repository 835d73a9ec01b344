// SCRAM credentials (Kafka's ScramCredential: salt, stored key, server key, iterations), per user
// and mechanism, as Kafka keeps them in its metadata (UserScramCredentialRecord); derivation as
// ScramFormatter.generateCredential. Never logs: the entries are secrets.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SCRAM_MECHANISMS: readonly ScramMechanism[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];
/** The wire's ScramMechanism type (org.apache.kafka.clients.admin.ScramMechanism). */
export const SCRAM_MECHANISM_TYPE: Record<ScramMechanism, number> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

export interface ScramCredential {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
  iterations: number;
}

/** JSON-able form of one credential (base64 buffers), for persistence. */
export interface ScramCredentialEntry {
  user: string;
  mechanism: ScramMechanism;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

export function hashName(m: ScramMechanism): 'sha256' | 'sha512' {
  return m === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
}

/** Hi(): PBKDF2 with the mechanism's HMAC (RFC 5802 section 2.2), ScramFormatter.hi. */
export function saltedPassword(password: string, salt: Buffer, iterations: number, m: ScramMechanism): Buffer {
  const h = hashName(m);
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, createHash(h).digest().length, h);
}

/** From a salted password, as the controller does for an upsertion (ScramControlManager.finishUpsertion). */
export function fromSaltedPassword(salted: Buffer, salt: Buffer, iterations: number, m: ScramMechanism): ScramCredential {
  const h = hashName(m);
  const clientKey = createHmac(h, salted).update('Client Key').digest();
  return { salt, storedKey: createHash(h).update(clientKey).digest(), serverKey: createHmac(h, salted).update('Server Key').digest(), iterations };
}

/** ScramFormatter.generateCredential: Kafka's salt is the UTF-8 of a random base-36 string. */
export function fromPassword(password: string, mechanism: ScramMechanism, iterations: number, salt?: Buffer): ScramCredential {
  const s = salt ?? Buffer.from(BigInt('0x' + randomBytes(17).toString('hex')).toString(36), 'utf8');
  return fromSaltedPassword(saltedPassword(password, s, iterations, mechanism), s, iterations, mechanism);
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

  /** True when there was one. */
  delete(user: string, mechanism: ScramMechanism): boolean {
    const m = this.byUser.get(user);
    if (m === undefined || !m.delete(mechanism)) return false;
    if (m.size === 0) this.byUser.delete(user);
    this.changed();
    return true;
  }

  users(): string[] {
    return [...this.byUser.keys()];
  }

  /** The mechanisms a user has, in Kafka's ScramMechanism order. */
  mechanisms(user: string): ScramMechanism[] {
    const m = this.byUser.get(user);
    return m === undefined ? [] : SCRAM_MECHANISMS.filter((x) => m.has(x));
  }

  /** kmock's sasl.users ("name:password,..."): SCRAM-SHA-256 and -512 at 4096 iterations each. */
  addUsers(saslUsers: string | null): void {
    for (const { name, password } of parseSaslUsers(saslUsers)) {
      for (const mech of SCRAM_MECHANISMS) this.set(name, mech, fromPassword(password, mech, SCRAM_MIN_ITERATIONS));
    }
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  entries(): ScramCredentialEntry[] {
    const out: ScramCredentialEntry[] = [];
    for (const [user, m] of this.byUser) {
      for (const [mechanism, c] of m) {
        out.push({ user, mechanism, salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations });
      }
    }
    return out;
  }

  /** Replaces everything with `entries` (as entries() gave them). */
  load(entries: readonly ScramCredentialEntry[]): void {
    this.byUser.clear();
    for (const e of entries) {
      let m = this.byUser.get(e.user);
      if (m === undefined) this.byUser.set(e.user, (m = new Map()));
      m.set(e.mechanism, { salt: Buffer.from(e.salt, 'base64'), storedKey: Buffer.from(e.storedKey, 'base64'), serverKey: Buffer.from(e.serverKey, 'base64'), iterations: e.iterations });
    }
    this.changed();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

/** "name:password,name2:password2" (a password may hold ':'; empty items are skipped). */
export function parseSaslUsers(text: string | null): Array<{ name: string; password: string }> {
  if (text === null) return [];
  const out: Array<{ name: string; password: string }> = [];
  for (const item of text.split(',')) {
    const t = item.trim();
    const i = t.indexOf(':');
    if (t === '' || i <= 0) continue;
    out.push({ name: t.slice(0, i), password: t.slice(i + 1) });
  }
  return out;
}
