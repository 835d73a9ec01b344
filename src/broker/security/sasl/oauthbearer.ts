// SASL/OAUTHBEARER (RFC 7628), the server side with Kafka's unsecured-JWS validator:
// org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer,
// OAuthBearerClientInitialResponse, and .../unsecured/OAuthBearerUnsecuredJws +
// OAuthBearerUnsecuredValidatorCallbackHandler + OAuthBearerValidationUtils (what kafkajs's
// oauthBearerProvider and Kafka's OAuthBearerUnsecuredLoginCallbackHandler send: alg "none").
// An invalid token is answered with RFC 7628's JSON error challenge; the client then sends %x01
// and the exchange fails with that JSON as its message.
import { SaslAuthenticationError, SaslMechanismError, type SaslServer } from './mechanism.js';

/** The validator's options (unsecuredValidator* in the listener's oauthbearer JAAS config). */
export interface UnsecuredValidatorOptions {
  principalClaimName: string;
  scopeClaimName: string;
  requiredScope: string[];
  allowableClockSkewMs: number;
}

export function validatorOptions(options: ReadonlyMap<string, string>): UnsecuredValidatorOptions {
  const skew = Number(options.get('unsecuredValidatorAllowableClockSkewMs') ?? '0');
  return {
    principalClaimName: (options.get('unsecuredValidatorPrincipalClaimName') ?? '').trim() || 'sub',
    scopeClaimName: (options.get('unsecuredValidatorScopeClaimName') ?? '').trim() || 'scope',
    requiredScope: (options.get('unsecuredValidatorRequiredScope') ?? '').split(/[ ,]+/).filter((s) => s !== ''),
    allowableClockSkewMs: Number.isInteger(skew) && skew >= 0 ? skew : 0,
  };
}

/** OAuthBearerClientInitialResponse: "n,[a=authzid]," %x01 "auth=Bearer " token %x01 [key=value %x01]* %x01 */
const INITIAL = /^n,(a=([^,]*))?,\u0001(.*)\u0001\u0001$/s;
const AUTH = /^auth=([\w]+)[ ]+([-_.a-zA-Z0-9]+)$/;

class InvalidToken extends Error {
  constructor(
    message: string,
    readonly status = 'invalid_token',
    readonly scope?: string,
  ) {
    super(message);
  }
}

export class OAuthBearerSaslServer implements SaslServer {
  readonly mechanism = 'OAUTHBEARER';
  complete = false;
  authorizationId = '';
  credentialExpiresAtMs: number | undefined;
  private errorMessage: string | undefined;

  constructor(
    private readonly options: UnsecuredValidatorOptions,
    private readonly now: () => number,
  ) {}

  evaluate(token: Buffer): Buffer {
    if (token.length === 1 && token[0] === 0x01 && this.errorMessage !== undefined) throw new SaslAuthenticationError(this.errorMessage);
    this.errorMessage = undefined;
    const m = INITIAL.exec(token.toString('utf8'));
    if (m === null) throw new SaslMechanismError('Invalid OAUTHBEARER client first message');
    const authzid = m[2] ?? '';
    let tokenValue: string | undefined;
    for (const kv of m[3]!.split('\u0001')) {
      const auth = AUTH.exec(kv);
      if (auth !== null) {
        if (auth[1]!.toLowerCase() !== 'bearer') throw new SaslMechanismError(`Invalid scheme in OAUTHBEARER client first message: ${auth[1]}`);
        tokenValue = auth[2];
      }
    }
    if (tokenValue === undefined) throw new SaslMechanismError('Invalid OAUTHBEARER client first message: no auth=Bearer token');
    let principal: string;
    let expMs: number;
    try {
      ({ principal, expMs } = this.validate(tokenValue));
    } catch (e) {
      if (!(e instanceof InvalidToken)) throw e;
      // OAuthBearerSaslServer.jsonErrorResponse
      this.errorMessage = `{"status":"${e.status}"${e.scope !== undefined ? `, "scope":"${e.scope}"` : ''}}`;
      return Buffer.from(this.errorMessage, 'utf8');
    }
    if (authzid !== '' && authzid !== principal) {
      throw new SaslAuthenticationError(`Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${principal})`);
    }
    this.authorizationId = principal;
    this.credentialExpiresAtMs = expMs;
    this.complete = true;
    return Buffer.alloc(0);
  }

  /** OAuthBearerUnsecuredValidatorCallbackHandler.handleCallback */
  private validate(jws: string): { principal: string; expMs: number } {
    const parts = jws.split('.');
    if (parts.length !== 3 || parts[2] !== '') throw new InvalidToken('Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values and the third must be empty');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new InvalidToken('Invalid unsecured JWS');
    }
    if (header.alg !== 'none') throw new InvalidToken('Unsecured JWS must have an alg of none');
    const o = this.options;
    const principal = claims[o.principalClaimName];
    if (principal === undefined) throw new InvalidToken(`Required claim missing: ${o.principalClaimName}`);
    if (typeof principal !== 'string' || principal.trim() === '') throw new InvalidToken(`The ${o.principalClaimName} claim had the incorrect type`);
    const now = this.now();
    const iat = claims.iat;
    if (iat !== undefined) {
      if (typeof iat !== 'number') throw new InvalidToken('The iat claim had the incorrect type');
      if (iat * 1000 > now + o.allowableClockSkewMs) throw new InvalidToken('The Issued At value must be in the past');
    }
    const exp = claims.exp;
    if (exp === undefined) throw new InvalidToken('Required claim missing: exp');
    if (typeof exp !== 'number') throw new InvalidToken('The exp claim had the incorrect type');
    if (now > exp * 1000 + o.allowableClockSkewMs) throw new InvalidToken('The indicated time is past the token expiration time');
    if (typeof iat === 'number' && iat > exp) throw new InvalidToken('The Expiration Time time must be after the Issued At time');
    const scopeClaim = claims[o.scopeClaimName];
    const scope = typeof scopeClaim === 'string' ? scopeClaim.split(' ').filter((s) => s !== '') : Array.isArray(scopeClaim) ? scopeClaim.map(String) : [];
    for (const required of o.requiredScope) {
      if (!scope.includes(required)) throw new InvalidToken(`The provided scope (${scope.join(' ')}) was missing a required scope (${required})`, 'insufficient_scope', o.requiredScope.join(' '));
    }
    return { principal, expMs: exp * 1000 };
  }
}
