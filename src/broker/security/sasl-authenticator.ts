// A SASL listener's connection until it has authenticated, and again while it re-authenticates:
// Kafka's SaslServerAuthenticator (clients/.../security/authenticator/SaslServerAuthenticator.java)
// with KafkaChannel's re-authentication (KIP-368) and Selector's delayed close on failure.
//
//   INITIAL / HANDSHAKE_OR_VERSIONS  ApiVersions (answered as after authentication) or SaslHandshake
//   HANDSHAKE                        SaslHandshake only (after an ApiVersions)
//   AUTHENTICATE                     SaslAuthenticate requests (handshake v1), or raw size-prefixed
//                                    tokens without a Kafka header (handshake v0, Kafka 0.10 clients)
//   COMPLETE                         the connection is a normal one; its principal is User:<id>
//   FAILED                           the failure's answer (if it has one) is written after
//                                    connection.failed.authentication.delay.ms, then the close
//
// Any other request before authentication fails it ("Unexpected Kafka request of type X during
// SASL handshake."), as Kafka's does: no request reaches a handler unauthenticated.
import type { Logger } from 'pino';
import {
  createSaslAuthenticateResponse,
  createSaslHandshakeResponse,
  decodeRequest,
  DecodeError,
  encodeResponseChunks,
  ErrorCode,
  UnsupportedVersionError,
  apiByKey,
  type ApiTypes,
  type RequestHeaderInfo,
} from '../../codec/index.js';
import { buildErrorResponse } from '../control/error-response.js';
import type { TimerHandle } from '../group/clock.js';
import { SaslAuthenticationError, SaslMechanismError, type SaslMechanisms, type SaslServer } from './sasl/mechanism.js';
import { userPrincipal } from './types.js';

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
/** KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS: a client cannot re-authenticate more often. */
const MIN_REAUTH_INTERVAL_MS = 1000;

type State = 'initial' | 'handshake-or-versions' | 'handshake' | 'authenticate' | 'reauth-bad-mechanism' | 'complete' | 'failed';

/** What the authenticator needs of its connection. */
export interface AuthenticatorIo {
  readonly connectionId: number;
  write(chunks: Buffer[]): void;
  close(why: string): void;
  /** Answers an ApiVersions frame as the broker's handler does (the same answer as after authentication). */
  apiVersions(frame: Buffer): void;
  /** The ApiVersions versions the broker serves (an unsupported one is answered but moves no state). */
  readonly apiVersionsMax: number;
  schedule(delayMs: number, run: () => void, name: string): TimerHandle;
  now(): number;
  /** `--trace` of a request answered here; auth bytes are never passed. */
  trace(header: RequestHeaderInfo, request: unknown, response: unknown): void;
  /** Authentication (or re-authentication) succeeded: the connection's principal and mechanism. */
  /** tokenAuthenticated: the login was a delegation token's (SCRAM tokenauth=true). */
  authenticated(principal: string, mechanism: string, tokenAuthenticated: boolean): void;
}

export interface AuthenticatorSettings {
  listenerName: string;
  mechanisms: SaslMechanisms;
  /** connections.max.reauth.ms (per listener and mechanism in Kafka; one value here). */
  connectionsMaxReauthMs: number;
  /** connection.failed.authentication.delay.ms */
  failedAuthenticationDelayMs: number;
  log: Logger;
}

export class SaslServerAuthenticator {
  private state: State = 'initial';
  private server: SaslServer | undefined;
  private mechanism: string | undefined;
  /** Handshake v1+: tokens come in SaslAuthenticate requests; v0: raw. */
  private kafkaHeaders = false;
  /** KIP-368: when the session ends (broker clock ms), or undefined: never. */
  private sessionExpiresAt: number | undefined;
  private lastReauthStartAt = 0;
  /** Set while re-authenticating: the previous mechanism and principal, which must not change. */
  private reauth: { mechanism: string; principal: string } | undefined;
  private principalName: string | undefined;
  private tokenAuthenticated = false;
  private failTimer: TimerHandle | undefined;

  constructor(
    private readonly io: AuthenticatorIo,
    private readonly settings: AuthenticatorSettings,
  ) {}

  /** True while frames go to this authenticator instead of the handlers. */
  get active(): boolean {
    return this.state !== 'complete';
  }

  /** Whether the session has expired (KIP-368): a request then closes the connection. */
  sessionExpired(): boolean {
    return this.sessionExpiresAt !== undefined && this.io.now() >= this.sessionExpiresAt;
  }

  /**
   * A SaslHandshake on an authenticated connection (KafkaChannel.maybeBeginServerReauthentication):
   * when sessions expire and the last re-authentication began at least a second ago, re-authentication
   * begins with this frame; otherwise false, and the handshake goes to its handler (ILLEGAL_SASL_STATE).
   */
  maybeBeginReauthentication(frame: Buffer): boolean {
    if (this.state !== 'complete' || this.sessionExpiresAt === undefined) return false;
    const now = this.io.now();
    if (this.lastReauthStartAt !== 0 && now - this.lastReauthStartAt < MIN_REAUTH_INTERVAL_MS) return false;
    this.lastReauthStartAt = now;
    this.reauth = { mechanism: this.mechanism!, principal: this.principalName! };
    this.server = undefined;
    this.state = 'handshake-or-versions';
    this.settings.log.debug({ connection: this.io.connectionId }, 'beginning re-authentication');
    this.onFrame(frame);
    return true;
  }

  /** Cancels a pending delayed close (the connection closed some other way). */
  dispose(): void {
    this.failTimer?.cancel();
  }

  /** One frame while not authenticated. */
  onFrame(frame: Buffer): void {
    switch (this.state) {
      case 'failed':
        return; // Kafka stops reading a failed channel: the frame is dropped.
      case 'reauth-bad-mechanism':
        return this.fail(undefined, new SaslAuthenticationError(this.badMechanismMessage ?? 'bad mechanism'));
      case 'initial':
      case 'handshake-or-versions':
      case 'handshake':
        return this.handleKafkaRequest(frame);
      case 'authenticate':
        return this.handleSaslToken(frame);
      case 'complete':
        throw new Error('authenticator called after authentication');
    }
  }

  private badMechanismMessage: string | undefined;

  private handleKafkaRequest(frame: Buffer): void {
    if (frame.length < 8 || apiByKey(frame.readInt16BE(0)) === undefined) {
      // RequestHeader.parse fails: Kafka takes a first packet as a GSSAPI token, which kmock does not serve.
      if (this.state === 'initial') {
        return this.fail(undefined, new SaslAuthenticationError('Exception handling first SASL packet from client, GSSAPI is not supported by server'));
      }
      return this.closeNow('invalid request during SASL handshake');
    }
    if (this.state === 'initial') this.state = 'handshake-or-versions';
    const apiKey = frame.readInt16BE(0);
    const apiVersion = frame.readInt16BE(2);
    if (apiKey !== API_VERSIONS && apiKey !== SASL_HANDSHAKE) {
      const name = apiByKey(apiKey)?.name ?? String(apiKey);
      return this.fail(undefined, new SaslAuthenticationError(`Unexpected Kafka request of type ${kafkaApiName(name)} during SASL handshake.`));
    }
    if (apiKey === API_VERSIONS) {
      if (this.state !== 'handshake-or-versions') {
        // Not an AuthenticationException in Kafka: the channel closes at once.
        return this.closeNow(`Unexpected ApiVersions request received during SASL authentication state ${kafkaState(this.state)}`);
      }
      this.io.apiVersions(frame);
      if (apiVersion <= this.io.apiVersionsMax) this.state = 'handshake';
      return;
    }
    const decoded = this.decode(frame);
    if (decoded === undefined) return;
    const request = decoded.body as ApiTypes[17]['request'];
    const header = decoded.header;
    if (header.apiVersion >= 1) this.kafkaHeaders = true;
    const enabled = this.settings.mechanisms.enabled(this.settings.listenerName);
    const mechanism = request.mechanism;
    if (!enabled.includes(mechanism)) {
      const response = createSaslHandshakeResponse({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: enabled });
      return this.fail({ header, request, response }, new SaslAuthenticationError(`Unsupported SASL mechanism ${mechanism}`));
    }
    this.send(header, request, createSaslHandshakeResponse({ errorCode: ErrorCode.NONE, mechanisms: enabled }));
    if (this.reauth !== undefined && this.reauth.mechanism !== mechanism) {
      this.badMechanismMessage = `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.reauth.mechanism}'`;
      this.state = 'reauth-bad-mechanism';
      return;
    }
    this.server = this.settings.mechanisms.create(this.settings.listenerName, mechanism);
    this.mechanism = mechanism;
    this.state = 'authenticate';
  }

  private handleSaslToken(frame: Buffer): void {
    const server = this.server!;
    if (!this.kafkaHeaders) {
      // Handshake v0: the frame is the token itself, and so is the answer.
      try {
        const challenge = server.evaluate(frame);
        if (server.complete) this.completeOrThrow();
        const size = Buffer.alloc(4);
        size.writeInt32BE(challenge.length, 0);
        this.io.write([size, challenge]);
      } catch (e) {
        return this.fail(undefined, this.asAuthError(e));
      }
      if (server.complete) this.succeed();
      return;
    }
    if (frame.length < 8 || apiByKey(frame.readInt16BE(0)) === undefined) return this.closeNow('invalid request during SASL authentication');
    const apiKey = frame.readInt16BE(0);
    const decoded = this.decode(frame);
    if (decoded === undefined) return;
    const header = decoded.header;
    if (apiKey !== SASL_AUTHENTICATE) {
      const message = `Unexpected Kafka request of type ${kafkaApiName(apiByKey(apiKey)!.name)} during SASL authentication.`;
      const response = buildErrorResponse(apiKey, header.apiVersion, decoded.body, ErrorCode.ILLEGAL_SASL_STATE);
      return this.fail({ header, request: decoded.body, response }, new SaslAuthenticationError(message));
    }
    const request = decoded.body as ApiTypes[36]['request'];
    let challenge: Buffer;
    let lifetimeMs = 0n;
    try {
      challenge = server.evaluate(Buffer.from(request.authBytes));
      if (server.complete) lifetimeMs = BigInt(this.completeOrThrow());
    } catch (e) {
      const err = this.asAuthError(e);
      const response = createSaslAuthenticateResponse({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: err.message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n });
      return this.fail({ header, request, response }, err);
    }
    // ErrorMessage has no null default in the schema: Kafka's generated data sends "" on success.
    this.send(header, request, createSaslAuthenticateResponse({ errorCode: ErrorCode.NONE, errorMessage: '', authBytes: challenge, sessionLifetimeMs: lifetimeMs }));
    if (server.complete) this.succeed();
  }

  /**
   * The exchange completed: the principal must be the one before a re-authentication
   * (ReauthInfo.ensurePrincipalUnchanged), and the session's lifetime is
   * calcCompletionTimesAndReturnSessionLifetimeMs's: min(credential expiry, connections.max.reauth.ms).
   */
  private completeOrThrow(): number {
    const server = this.server!;
    const principal = userPrincipal(server.authorizationId);
    if (this.reauth !== undefined && this.reauth.principal !== principal) {
      const [pt, pn] = splitPrincipal(this.reauth.principal);
      const [nt, nn] = splitPrincipal(principal);
      throw new SaslAuthenticationError(`Cannot change principals during re-authentication from ${pt}.${pn}: ${nt}.${nn}`);
    }
    this.principalName = principal;
    this.tokenAuthenticated = server.tokenAuthenticated === true;
    const now = this.io.now();
    const maxReauth = this.settings.connectionsMaxReauthMs;
    const credentialExpiry = server.credentialExpiresAtMs;
    let lifetime = 0;
    this.sessionExpiresAt = undefined;
    if (credentialExpiry !== undefined || maxReauth > 0) {
      if (credentialExpiry === undefined) lifetime = Math.max(0, maxReauth);
      else if (maxReauth <= 0) lifetime = Math.max(0, credentialExpiry - now);
      else lifetime = Math.max(0, Math.min(credentialExpiry - now, maxReauth));
      this.sessionExpiresAt = now + lifetime;
    }
    return lifetime;
  }

  private succeed(): void {
    this.state = 'complete';
    const reauthenticated = this.reauth !== undefined;
    this.reauth = undefined;
    this.settings.log.info(
      { connection: this.io.connectionId, principal: this.principalName, mechanism: this.mechanism, listener: this.settings.listenerName, reauthenticated },
      reauthenticated ? 're-authenticated' : 'authenticated',
    );
    this.io.authenticated(this.principalName!, this.mechanism!, this.tokenAuthenticated);
  }

  private asAuthError(e: unknown): SaslAuthenticationError {
    if (e instanceof SaslAuthenticationError) return e;
    if (e instanceof SaslMechanismError) {
      const what = this.reauth !== undefined ? 're-authentication' : 'authentication';
      return new SaslAuthenticationError(`Authentication failed during ${what} due to invalid credentials with SASL mechanism ${this.mechanism}`);
    }
    throw e;
  }

  private decode(frame: Buffer): ReturnType<typeof decodeRequest> | undefined {
    try {
      return decodeRequest(frame);
    } catch (e) {
      if (e instanceof DecodeError || e instanceof UnsupportedVersionError) {
        this.closeNow(`malformed request during SASL authentication: ${(e as Error).message}`);
        return undefined;
      }
      throw e;
    }
  }

  private send(header: RequestHeaderInfo, request: unknown, response: unknown): void {
    this.io.write(encodeResponseChunks(header.apiKey as keyof ApiTypes, header.apiVersion, header.correlationId, response as never));
    this.io.trace(header, request, response);
  }

  /**
   * Authentication failed: Selector.delayCloseOnAuthenticationFailure. Nothing more is read; after
   * the delay the failure's answer (when it has one) is written and the connection closes.
   */
  private fail(answer: { header: RequestHeaderInfo; request: unknown; response: unknown } | undefined, err: SaslAuthenticationError): void {
    this.state = 'failed';
    this.settings.log.info(
      { connection: this.io.connectionId, listener: this.settings.listenerName, mechanism: this.mechanism, error: err.message },
      this.reauth !== undefined ? 're-authentication failed; closing connection' : 'authentication failed; closing connection',
    );
    const finish = () => {
      if (answer !== undefined) this.send(answer.header, answer.request, answer.response);
      this.io.close('authentication failed');
    };
    const delay = this.settings.failedAuthenticationDelayMs;
    if (delay <= 0) finish();
    else this.failTimer = this.io.schedule(delay, finish, `failed authentication close (connection ${this.io.connectionId})`);
  }

  private closeNow(why: string): void {
    this.state = 'failed';
    this.settings.log.warn({ connection: this.io.connectionId, listener: this.settings.listenerName, why }, 'closing connection during SASL authentication');
    this.io.close(why);
  }
}

/** ApiKeys' enum name as Kafka prints it in its messages (SASL_AUTHENTICATE, METADATA, ...). */
function kafkaApiName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function kafkaState(s: State): string {
  return s === 'handshake' ? 'HANDSHAKE_REQUEST' : s === 'authenticate' ? 'AUTHENTICATE' : s.toUpperCase().replace(/-/g, '_');
}

function splitPrincipal(p: string): [string, string] {
  const i = p.indexOf(':');
  return [p.slice(0, i), p.slice(i + 1)];
}
