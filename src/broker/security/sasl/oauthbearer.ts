// OAUTHBEARER (RFC 7628) as Kafka's OAuthBearerSaslServer with the unsecured JWS validator
// (OAuthBearerUnsecuredValidatorCallbackHandler, OAuthBearerUnsecuredJws, OAuthBearerValidationUtils):
// a bad token gets the JSON error challenge; the client's %x01 answer then fails the exchange.
import { SaslAuthenticationError, SaslMechanismError, type SaslServer } from './mechanism.js';

export interface UnsecuredValidatorOptions {
  principalClaimName: string;
  scopeClaimName: string;
  requiredScope: string[];
  allowableClockSkewMs: number;
}

/** The validator's options from the listener's OAUTHBEARER JAAS options (Kafka's defaults). */
export function unsecuredValidatorOptions(option: (key: string) => string | undefined): UnsecuredValidatorOptions {
  const get = (k: string): string | undefined => {
    const v = option(`unsecuredValidator${k}`);
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const skew = get('AllowableClockSkewMs');
  const skewMs = skew === undefined ? 0 : Number(skew);
  if (!Number.isInteger(skewMs)) throw new Error(`For input string: "${skew}"`);
  if (skewMs < 0) throw new Error(`Allowable clock skew millis must not be negative: ${skew}`);
  return {
    principalClaimName: get('PrincipalClaimName') ?? 'sub',
    scopeClaimName: get('ScopeClaimName') ?? 'scope',
    requiredScope: (get('RequiredScope') ?? '').split(' ').filter((s) => s !== ''),
    allowableClockSkewMs: skewMs,
  };
}

export interface ValidToken { principal: string; expiresAtMs: number }
export type Validation = { ok: true; token: ValidToken } | { ok: false; scope?: string; reason: string };

function decodePart(part: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : 'malformed JSON';
  } catch {
    return 'malformed JSON';
  }
}

/** The unsecured validator's checks, in its order; `reason` is for kmock's log only. */
export function validateUnsecuredJws(token: string, o: UnsecuredValidatorOptions, nowMs: number): Validation {
  const fail = (reason: string): Validation => ({ ok: false, reason });
  if (token.includes('..')) return fail("Malformed compact serialization contains '..'");
  const parts = token.split('.');
  if (token.endsWith('.')) parts[parts.length - 1] = '';
  if (parts.length !== 3) return fail('Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values');
  const header = decodePart(parts[0]!);
  if (typeof header === 'string') return fail(header);
  const claims = decodePart(parts[1]!);
  if (typeof claims === 'string') return fail(claims);
  if (header.alg !== 'none') return fail("Unsecured JWS must have 'none' for an algorithm");
  if (parts[2] !== '') return fail('Unsecured JWS must not contain a digital signature');
  const exp = claims.exp;
  if (typeof exp !== 'number') return fail('No expiration time in JWT');
  const principal = claims[o.principalClaimName];
  if (typeof principal !== 'string' || principal.trim() === '') return fail(`No principal name in JWT claim: ${o.principalClaimName}`);
  const iat = claims.iat;
  if (typeof iat === 'number' && 1000 * iat > nowMs + o.allowableClockSkewMs) return fail('The Issued At value was after the indicated time plus allowable clock skew');
  if (nowMs - o.allowableClockSkewMs >= 1000 * exp) return fail('The indicated time minus allowable clock skew was on or after the Expiration Time value');
  if (typeof iat === 'number' && exp <= iat) return fail('The Expiration Time time was not after the Issued At time');
  const raw = claims[o.scopeClaimName];
  const scope = new Set((typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : []).filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()));
  for (const s of o.requiredScope) {
    // Kafka's failureScope is requiredScope.toString(): "[a, b]".
    if (!scope.has(s)) return { ok: false, scope: `[${o.requiredScope.join(', ')}]`, reason: `missing required scope ${s}` };
  }
  return { ok: true, token: { principal, expiresAtMs: Math.trunc(exp * 1000) } };
}

const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const KVPAIRS = '(?:[A-Za-z]+=[\\x21-\\x7E \\t\\r\\n]+\\x01)*';
const INITIAL = new RegExp(`^n,(?:a=(?<authzid>${SASLNAME}))?,\\x01(?<kv>${KVPAIRS})\\x01$`);
const AUTH = /^(?<scheme>\w+) +(?<token>[-_~+/.a-zA-Z0-9]+=*)$/;

export function createOAuthBearerServer(options: UnsecuredValidatorOptions, now: () => number, onRejected?: (reason: string) => void): SaslServer {
  let errorMessage: string | undefined;
  let complete = false;
  let authorizationId = '';
  let expiresAt: number | undefined;
  return {
    mechanism: 'OAUTHBEARER',
    get complete() { return complete; },
    get authorizationId() { return authorizationId; },
    get credentialExpiresAtMs() { return expiresAt; },
    evaluate(token: Buffer): Buffer {
      if (token.length === 1 && token[0] === 0x01 && errorMessage !== undefined) throw new SaslAuthenticationError(errorMessage);
      errorMessage = undefined;
      const m = INITIAL.exec(token.toString('utf8'));
      if (m === null) throw new SaslMechanismError('Invalid OAUTHBEARER client first message');
      const props = new Map<string, string>();
      for (const kv of m.groups!.kv!.split('\x01')) {
        if (kv === '') continue;
        const i = kv.indexOf('=');
        props.set(kv.slice(0, i), kv.slice(i + 1));
      }
      const auth = props.get('auth');
      if (auth === undefined) throw new SaslMechanismError("Invalid OAUTHBEARER client first message: 'auth' not specified");
      const a = AUTH.exec(auth);
      if (a === null) throw new SaslMechanismError("Invalid OAUTHBEARER client first message: invalid 'auth' format");
      if (a.groups!.scheme!.toLowerCase() !== 'bearer') throw new SaslMechanismError('Invalid scheme in OAUTHBEARER client first message: null');
      const v = validateUnsecuredJws(a.groups!.token!, options, now());
      if (!v.ok) {
        onRejected?.(v.reason);
        errorMessage = v.scope === undefined ? '{"status":"invalid_token"}' : `{"status":"insufficient_scope", "scope":"${v.scope}"}`;
        return Buffer.from(errorMessage, 'utf8');
      }
      const authzid = m.groups!.authzid ?? '';
      if (authzid !== '' && authzid !== v.token.principal) {
        throw new SaslAuthenticationError(`Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${v.token.principal})`);
      }
      authorizationId = v.token.principal;
      expiresAt = v.token.expiresAtMs;
      complete = true;
      return Buffer.alloc(0);
    },
  };
}
