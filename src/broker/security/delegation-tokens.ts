// Delegation tokens (KIP-48) as a Kafka 3.9 KRaft cluster keeps them: the controller's
// DelegationTokenControlManager (create, renew, expire, with its lifetimes and errors) and the
// brokers' DelegationTokenCache (describe, and the SCRAM credentials a token logs in with). kmock
// is both, so one store does both jobs.
//
// A token's HMAC is HmacSHA512 of its id under delegation.token.secret.key
// (DelegationTokenManager.createHmac); its password for a SCRAM login is the HMAC in base64, with
// the token id as user name and the tokenauth=true extension (ScramSaslServer). Expired tokens go at
// the periodic check (delegation.token.expiry.check.interval.ms), as the controller removes them.
import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import { fromPassword, SCRAM_MIN_ITERATIONS, type ScramCredential, type ScramMechanism } from './sasl/scram-credentials.js';

/** A principal as the token APIs carry it (type and name apart). */
export interface TokenPrincipal {
  type: string;
  name: string;
}

export interface TokenInformation {
  tokenId: string;
  hmac: Buffer;
  owner: TokenPrincipal;
  requester: TokenPrincipal;
  renewers: TokenPrincipal[];
  issueTimestamp: number;
  expiryTimestamp: number;
  maxTimestamp: number;
}

/** A controller answer: an error code, and the new expiry when there is one. */
export interface TokenResult {
  errorCode: number;
  expiryTimestamp?: number;
}

/** What the data dir keeps of a token (as Kafka's DelegationTokenRecord): all but the HMAC, which kmock derives again. */
export type SavedDelegationToken = Omit<TokenInformation, 'hmac'>;

const NONE = 0;
const DELEGATION_TOKEN_AUTH_DISABLED = 61;
const DELEGATION_TOKEN_NOT_FOUND = 62;
const DELEGATION_TOKEN_OWNER_MISMATCH = 63;
const DELEGATION_TOKEN_EXPIRED = 66;
const INVALID_PRINCIPAL_TYPE = 67;

const same = (a: TokenPrincipal, b: TokenPrincipal) => a.type === b.type && a.name === b.name;

/** TokenInformation.ownerOrRenewer. */
export function ownerOrRenewer(t: TokenInformation, p: TokenPrincipal): boolean {
  return same(t.owner, p) || same(t.requester, p) || t.renewers.some((r) => same(r, p));
}

/** "User:alice" as a TokenPrincipal (the connection principal's form). */
export function tokenPrincipal(principal: string): TokenPrincipal {
  const i = principal.indexOf(':');
  return { type: principal.slice(0, i), name: principal.slice(i + 1) };
}

export class DelegationTokenStore {
  private readonly tokens = new Map<string, TokenInformation>();
  private readonly credentials = new Map<string, ScramCredential>();
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly config: Pick<BrokerConfig, 'delegationTokenSecretKey' | 'delegationTokenMaxLifetimeMs' | 'delegationTokenExpiryTimeMs'>,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Whether delegation.token.secret.key is set (DelegationTokenControlManager.isEnabled). */
  get enabled(): boolean {
    return this.config.delegationTokenSecretKey !== null && this.config.delegationTokenSecretKey !== '';
  }

  /** createDelegationToken: the new token, or the error. */
  create(owner: TokenPrincipal, requester: TokenPrincipal, renewers: readonly TokenPrincipal[], maxLifetimeMs: number): TokenInformation | { errorCode: number } {
    if (!this.enabled) return { errorCode: DELEGATION_TOKEN_AUTH_DISABLED };
    if (renewers.some((r) => r.type !== 'User')) return { errorCode: INVALID_PRINCIPAL_TYPE };
    const now = this.now();
    const maxLife = maxLifetimeMs > 0 ? Math.min(this.config.delegationTokenMaxLifetimeMs, maxLifetimeMs) : this.config.delegationTokenMaxLifetimeMs;
    const maxTimestamp = now + maxLife;
    // Uuid.randomUuid().toString(): 16 random bytes in URL-safe base64 without padding.
    const tokenId = randomBytes(16).toString('base64url');
    const token: TokenInformation = {
      tokenId,
      hmac: this.hmacOf(tokenId),
      owner,
      requester,
      renewers: renewers.map((r) => ({ ...r })),
      issueTimestamp: now,
      maxTimestamp,
      expiryTimestamp: Math.min(maxTimestamp, now + this.config.delegationTokenExpiryTimeMs),
    };
    this.tokens.set(tokenId, token);
    this.log.info({ tokenId, owner: `${owner.type}:${owner.name}` }, 'delegation token created');
    this.changed();
    return token;
  }

  /** renewDelegationToken. */
  renew(hmac: Buffer, principal: TokenPrincipal, renewPeriodMs: number): TokenResult {
    if (!this.enabled) return { errorCode: DELEGATION_TOKEN_AUTH_DISABLED };
    const t = this.byHmac(hmac);
    if (t === undefined) return { errorCode: DELEGATION_TOKEN_NOT_FOUND };
    const now = this.now();
    if (t.maxTimestamp < now || t.expiryTimestamp < now) return { errorCode: DELEGATION_TOKEN_EXPIRED };
    if (!allowedToRenew(t, principal)) return { errorCode: DELEGATION_TOKEN_OWNER_MISMATCH };
    const period = renewPeriodMs > 0 ? Math.min(this.config.delegationTokenExpiryTimeMs, renewPeriodMs) : this.config.delegationTokenExpiryTimeMs;
    t.expiryTimestamp = Math.min(t.maxTimestamp, now + period);
    this.changed();
    return { errorCode: NONE, expiryTimestamp: t.expiryTimestamp };
  }

  /** expireDelegationToken: a negative period removes the token at once. */
  expire(hmac: Buffer, principal: TokenPrincipal, expiryPeriodMs: number): TokenResult {
    if (!this.enabled) return { errorCode: DELEGATION_TOKEN_AUTH_DISABLED };
    const t = this.byHmac(hmac);
    if (t === undefined) return { errorCode: DELEGATION_TOKEN_NOT_FOUND };
    if (!allowedToRenew(t, principal)) return { errorCode: DELEGATION_TOKEN_OWNER_MISMATCH };
    const now = this.now();
    if (expiryPeriodMs < 0) {
      this.remove(t.tokenId);
      this.changed();
      return { errorCode: NONE, expiryTimestamp: now };
    }
    if (t.maxTimestamp < now || t.expiryTimestamp < now) return { errorCode: DELEGATION_TOKEN_EXPIRED };
    t.expiryTimestamp = Math.min(t.maxTimestamp, now + expiryPeriodMs);
    this.changed();
    return { errorCode: NONE, expiryTimestamp: t.expiryTimestamp };
  }

  /** Every token, in creation order (DelegationTokenManager.getTokens before its filter). */
  all(): TokenInformation[] {
    return [...this.tokens.values()];
  }

  /**
   * A token login's credential (DelegationTokenCache.credential): the token's SCRAM credential for
   * the mechanism, made once from base64(HMAC) with 4096 iterations, and the token.
   */
  credential(tokenId: string, mechanism: ScramMechanism): { credential: ScramCredential; token: TokenInformation } | undefined {
    const t = this.tokens.get(tokenId);
    if (t === undefined) return undefined;
    const key = `${tokenId}\u0000${mechanism}`;
    let c = this.credentials.get(key);
    if (c === undefined) this.credentials.set(key, (c = fromPassword(t.hmac.toString('base64'), mechanism, SCRAM_MIN_ITERATIONS)));
    return { credential: c, token: t };
  }

  /** The controller's periodic removal of expired tokens. */
  removeExpired(): void {
    const now = this.now();
    let removed = 0;
    for (const t of this.all()) {
      if (t.expiryTimestamp < now || t.maxTimestamp < now) {
        this.remove(t.tokenId);
        removed++;
      }
    }
    if (removed > 0) {
      this.log.info({ removed }, 'expired delegation tokens removed');
      this.changed();
    }
  }

  entries(): SavedDelegationToken[] {
    return this.all().map(({ hmac: _, ...t }) => ({ ...t, renewers: t.renewers.map((r) => ({ ...r })) }));
  }

  /** Puts saved tokens back (at start; their HMACs derived again from the secret key). */
  load(saved: readonly SavedDelegationToken[]): void {
    this.tokens.clear();
    this.credentials.clear();
    if (!this.enabled) return;
    for (const t of saved) this.tokens.set(t.tokenId, { ...t, hmac: this.hmacOf(t.tokenId), renewers: t.renewers.map((r) => ({ ...r })) });
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private hmacOf(tokenId: string): Buffer {
    return createHmac('sha512', Buffer.from(this.config.delegationTokenSecretKey ?? '', 'utf8')).update(tokenId, 'utf8').digest();
  }

  private byHmac(hmac: Buffer): TokenInformation | undefined {
    for (const t of this.tokens.values()) if (t.hmac.equals(hmac)) return t;
    return undefined;
  }

  private remove(tokenId: string): void {
    this.tokens.delete(tokenId);
    for (const k of [...this.credentials.keys()]) if (k.startsWith(`${tokenId}\u0000`)) this.credentials.delete(k);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** DelegationTokenControlManager.allowedToRenew: the owner, the requester or a renewer. */
function allowedToRenew(t: TokenInformation, p: TokenPrincipal): boolean {
  return ownerOrRenewer(t, p);
}
