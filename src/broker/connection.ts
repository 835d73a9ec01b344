// One client connection: cuts the byte stream into frames, hands each request to its handler
// and writes the responses back.
//
// Like Kafka's SocketServer, a connection handles one request at a time: the next frame is
// dispatched only after the previous response has been written (Kafka mutes the channel in the
// meantime). That keeps responses in request order even when a handler waits (JoinGroup, a
// Fetch long poll) and gives pipelined requests the same semantics as on a real broker.
//
// A frame's bytes come from the broker's request memory pool (memory-pool.ts, KIP-72's
// queued.max.request.bytes) once its size is known; when the pool cannot give them the connection
// stops reading until a request somewhere is handled (see readFrames).
import type { Socket } from 'node:net';
import {
  apiByKey,
  decodeRequest,
  DecodeError,
  encodeResponseChunks,
  toJson,
  UnsupportedVersionError,
  type ApiTypes,
  type RequestHeaderInfo,
} from '../codec/index.js';
import type { TimerHandle } from './group/clock.js';
import type { MemoryPool, MemoryWaiter } from './memory-pool.js';
import { NO_RESPONSE, type ApiHandler, type RequestContext } from './handlers/types.js';
import type { BrokerServices, ListenerEndpoint } from './services.js';
import { isTlsProtocol, type SecurityProtocol } from './security/types.js';
import { looksLikeTlsClientHello } from './security/tls/client-errors.js';
import { redactSecrets } from './security/redact.js';
import { SaslServerAuthenticator, type AuthenticatorSettings } from './security/sasl-authenticator.js';
import { checkLeftover, checkUnadvertisedVersion } from './strict/frame-checks.js';

/** Frames parsed but not yet handled: beyond this, reading pauses until the queue drains. */
const MAX_QUEUED_FRAMES = 64;

export interface ConnectionInfo {
  id: number;
  clientHost: string;
  clientPort: number;
  /** Set by ApiVersions v3+ (KIP-511). */
  clientSoftwareName?: string;
  clientSoftwareVersion?: string;
  /** The client id of the latest request (header ClientId). */
  clientId?: string | null;
  /** The listener the connection came in on, and its security protocol. */
  listenerName: string;
  securityProtocol: SecurityProtocol;
  /**
   * Who the connection authenticated as ("User:alice"): User:ANONYMOUS on PLAINTEXT and on SSL
   * without a client certificate, the SSL client's mapped DN, the SASL authorization id.
   */
  principal: string;
  /** The SASL mechanism it authenticated with, on SASL listeners once authenticated. */
  saslMechanism?: string;
  /** It logged in with a delegation token (KafkaPrincipal.tokenAuthenticated): it may not ask for tokens. */
  tokenAuthenticated?: boolean;
}

/** What a connection knows of its listener's security when it opens. */
export interface ConnectionSecurity {
  endpoint: ListenerEndpoint;
  /** ANONYMOUS, or the TLS client certificate's principal (security/tls). */
  principal: string;
  /** On SASL listeners: the authenticator's settings (every connection authenticates first). */
  sasl?: AuthenticatorSettings;
}

/** What the control plane does to one request (fault injection). */
export interface RequestFault {
  /** Added latency: wait this long before the request is answered. */
  delayMs: number;
  /** An injected error: answer with this instead of running the handler. */
  respond?: (request: unknown, apiVersion: number) => unknown;
}

/** Installed by the control plane. Connections call `intercept` only while `armed` is true, so
 *  without injected faults a request costs one more property read and boolean check. */
export interface RequestInterceptor {
  readonly armed: boolean;
  intercept(apiKey: number, connection: ConnectionInfo): RequestFault | undefined;
}

export interface ConnectionHooks {
  interceptor: RequestInterceptor | undefined;
}

/** What a connection needs of its broker (Broker provides it): no more, so no import of it. */
export interface ConnectionDeps {
  readonly services: BrokerServices;
  readonly handlers: ReadonlyMap<number, ApiHandler>;
  /** Shared by every connection; the control plane sets its interceptor. */
  readonly hooks: ConnectionHooks;
  readonly stats: { requests: number };
  /** The bytes of requests being read, queued and handled, all connections together (queued.max.request.bytes). */
  readonly requestMemory: MemoryPool;
  onConnectionClosed(c: Connection, why: string): void;
  traceLine(line: Record<string, unknown>): void;
}

export class Connection {
  readonly info: ConnectionInfo;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private frames: Buffer[] = [];
  private busy = false;
  private closed = false;
  /** Reading was paused because too many frames are queued (resumed once half have been handled). */
  private readPaused = false;
  /** The size of the frame whose 4-byte prefix has been read and whose bytes are not yet being read; -1 when none. */
  private headSize = -1;
  /** Whether the pool gave headSize's bytes (a waiter granted them). */
  private headAllocated = false;
  /** Waiting for the pool to give headSize's bytes: reading is paused meanwhile. */
  private memoryWait: MemoryWaiter | undefined;
  /** The frame being read: its payload, taken from the pool, and how much of it has arrived. */
  private receive: { buf: Buffer; filled: number } | undefined;
  /** Whether socket.pause() is in effect (for readPaused or memoryWait). */
  private socketPaused = false;
  /** The client closed its side while a request was in flight (see onPeerGone). */
  private peerGone = false;
  /** The idle check (connections.max.idle.ms) and when data last arrived, on the broker's clock. */
  private idleTimer: TimerHandle | undefined;
  private lastReceivedAt = 0;
  private readonly services: BrokerServices;
  private readonly pool: MemoryPool;
  private readonly closeThis = (why: string) => this.close(why);
  private readonly listener: ListenerEndpoint;
  /** SASL listeners: the authenticator every frame goes to until the connection has authenticated. */
  private readonly auth: SaslServerAuthenticator | undefined;

  constructor(
    private readonly deps: ConnectionDeps,
    private readonly socket: Socket,
    id: number,
    security: ConnectionSecurity,
  ) {
    this.listener = security.endpoint;
    this.info = {
      id,
      clientHost: socket.remoteAddress ?? 'unknown',
      clientPort: socket.remotePort ?? 0,
      clientId: null,
      listenerName: security.endpoint.name,
      securityProtocol: security.endpoint.protocol,
      principal: security.principal,
    };
    this.services = deps.services;
    this.pool = deps.requestMemory;
    this.auth = security.sasl === undefined ? undefined : this.authenticator(security.sasl);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.close('socket error'));
    socket.on('end', () => this.onPeerGone());
    socket.on('close', () => this.onPeerGone());
    this.touch();
  }

  private authenticator(settings: AuthenticatorSettings): SaslServerAuthenticator {
    const apiVersions = this.deps.handlers.get(18);
    return new SaslServerAuthenticator(
      {
        connectionId: this.info.id,
        write: (chunks) => this.write(chunks),
        close: (why) => this.close(why),
        apiVersions: (frame) => void this.handleRequest(frame),
        apiVersionsMax: apiVersions?.maxVersion ?? 0,
        schedule: (ms, run, name) => this.services.clock.schedule(ms, run, { name }),
        now: () => this.services.clock.now(),
        trace: (header, request, response) => {
          if (this.services.config.trace) this.trace(header, request, response, 0);
        },
        authenticated: (principal, mechanism, tokenAuthenticated) => {
          this.info.principal = principal;
          this.info.saslMechanism = mechanism;
          this.info.tokenAuthenticated = tokenAuthenticated;
        },
      },
      settings,
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.idleTimer?.cancel();
    this.auth?.dispose();
    // The queued frames' bytes and the frame being read go back to the pool; the request being
    // handled gives its own back when its handler returns (dispatch).
    for (const f of this.frames) this.pool.release(f.length);
    this.frames = [];
    this.dropUnfinishedFrame();
    this.pending = [];
    this.pendingBytes = 0;
    this.socket.destroy();
    this.deps.onConnectionClosed(this, why);
  }

  /**
   * The client closed the connection. With no request in flight it is simply closed. With one in
   * flight (a parked JoinGroup, a Fetch long poll) kmock does what Kafka's muted channel does:
   * Kafka reads nothing more from the socket until that request is answered, so it only notices
   * the end of the stream afterwards. The answer goes nowhere, the one request Kafka then reads
   * from the socket buffer is still handled (its answer fails to send) and the rest are dropped
   * when the failed send closes the channel.
   */
  private onPeerGone(): void {
    if (this.closed || this.peerGone) return;
    if (!this.busy) {
      this.close('closed by peer');
      return;
    }
    this.peerGone = true;
    this.dropUnfinishedFrame();
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Gives back the bytes of a frame not yet complete (or leaves the pool's line): it will never be read. */
  private dropUnfinishedFrame(): void {
    if (this.memoryWait !== undefined) this.pool.cancel(this.memoryWait);
    this.memoryWait = undefined;
    if (this.headAllocated) this.pool.release(this.headSize);
    this.headAllocated = false;
    this.headSize = -1;
    if (this.receive !== undefined) this.pool.release(this.receive.buf.length);
    this.receive = undefined;
  }

  /** After the in-flight request of a connection whose client left: one more, then closed. */
  private finishAfterPeerGone(): void {
    const next = this.frames.shift();
    for (const f of this.frames) this.pool.release(f.length);
    this.frames = [];
    if (next === undefined) {
      this.close('closed by peer');
      return;
    }
    const done = this.dispatch(next);
    if (done === null) return;
    if (done === undefined) this.close('closed by peer');
    else done.finally(() => this.close('closed by peer')).catch(() => undefined);
  }

  /** Restarts the idle count (connections.max.idle.ms): runs on every chunk received. */
  private touch(): void {
    this.lastReceivedAt = this.services.clock.now();
    if (this.idleTimer === undefined) this.armIdleCheck(this.services.config.connectionsMaxIdleMs);
  }

  /**
   * One timer per connection, not one per chunk: when it fires it closes the connection if
   * nothing arrived for the whole idle time (and no request is in flight), else it checks again
   * when the idle time since the last data would be up.
   */
  private armIdleCheck(delayMs: number): void {
    const idleMs = this.services.config.connectionsMaxIdleMs;
    if (idleMs <= 0 || this.closed) return;
    this.idleTimer = this.services.clock.schedule(
      delayMs,
      () => {
        this.idleTimer = undefined;
        if (this.closed) return;
        const now = this.services.clock.now();
        if (this.busy) this.lastReceivedAt = now;
        const quietMs = now - this.lastReceivedAt;
        if (quietMs >= idleMs) this.close('idle');
        else this.armIdleCheck(idleMs - quietMs);
      },
      { name: `idle connection ${this.info.id}`, housekeeping: true },
    );
  }

  // ---- framing -----------------------------------------------------------------------------------

  /** The frame being read, for the control plane and tests: its size and the bytes received of it. */
  get readingFrame(): { size: number; received: number; allocated: boolean } | undefined {
    if (this.receive !== undefined) return { size: this.receive.buf.length, received: this.receive.filled, allocated: true };
    if (this.headSize >= 0) return { size: this.headSize, received: 0, allocated: this.headAllocated };
    return undefined;
  }

  /** Whether reading is paused until the request memory pool gives this connection a frame's bytes. */
  get waitingForMemory(): boolean {
    return this.memoryWait !== undefined;
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.touch();
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.readFrames();
    if (this.closed) return;
    if (this.frames.length >= MAX_QUEUED_FRAMES && !this.readPaused) {
      this.readPaused = true;
      this.updateReading();
    }
    this.pump();
  }

  /**
   * Cuts the pending bytes into frames, as Kafka's NetworkReceive.readFrom: the 4-byte size first
   * (checked against socket.request.max.bytes before anything is buffered: a hostile size never
   * allocates, and Kafka closes too), then the payload's bytes from the pool, then the payload.
   * When the pool refuses them, the connection pauses reading and waits in the pool's line
   * (KafkaChannel.read mutes the channel when the size is known and the memory is not); the bytes
   * already received stay pending, at most what one socket read brought. A frame whose bytes were
   * given is always read to its end, whatever the pool's state (KafkaChannel.isInMutableState is
   * false once a receive's memory is allocated): the frames holding the pool's memory are the ones
   * that can complete and give it back, so waiting never deadlocks on memory.
   */
  private readFrames(): void {
    for (;;) {
      const r = this.receive;
      if (r !== undefined) {
        if (!this.fillReceive(r)) return;
        this.receive = undefined;
        this.frames.push(r.buf);
      }
      if (this.headSize < 0) {
        if (this.pendingBytes < 4) return;
        const size = this.readSize();
        // Before authentication a SASL listener takes frames up to sasl.server.max.receive.size
        // (SaslServerAuthenticator's NetworkReceive), after it socket.request.max.bytes.
        const max = this.auth?.active ? this.services.config.saslServerMaxReceiveSize : this.services.config.socketRequestMaxBytes;
        if (size < 0 || size > max) {
          this.frameSizeOutOfBounds(size, max);
          return;
        }
        this.headSize = size;
      }
      const size = this.headSize;
      // A size of 0 takes nothing from the pool (NetworkReceive's EMPTY_BUFFER); handleFrame closes it.
      if (size > 0 && !this.headAllocated) {
        if (this.memoryWait !== undefined) return;
        if (!this.pool.tryAllocate(size)) {
          this.waitForMemory(size);
          return;
        }
      }
      this.headSize = -1;
      this.headAllocated = false;
      const first = this.pending[0];
      if (first !== undefined && first.length >= size) {
        // The whole payload is in one chunk: a view of it, no copy.
        this.frames.push(first.subarray(0, size));
        if (first.length === size) this.pending.shift();
        else this.pending[0] = first.subarray(size);
        this.pendingBytes -= size;
        continue;
      }
      // NetworkReceive's buffer, of the payload's size; chunks are copied in as they arrive.
      this.receive = { buf: Buffer.allocUnsafe(size), filled: 0 };
    }
  }

  /**
   * A frame size past the limit: Kafka closes (InvalidReceiveException). The commonest cause is a
   * client speaking TLS to a plaintext listener: its ClientHello (0x16 0x03 ..) reads as a size
   * of about 369 MB, so the log line says so instead of quoting the number alone.
   */
  private frameSizeOutOfBounds(size: number, max: number): void {
    const l = this.listener;
    if (!isTlsProtocol(l.protocol) && looksLikeTlsClientHello(sizeBytes(size))) {
      this.services.log.warn({ connection: this.info.id, host: this.info.clientHost, listener: l.name }, `TLS handshake on the ${l.protocol} listener ${l.name}; closing connection (the client wants SSL: point it at an SSL listener, or start kmock with --tls)`);
      this.close('TLS handshake on a plaintext listener');
      return;
    }
    this.services.log.warn({ connection: this.info.id, size, max, listener: l.name }, 'frame size out of bounds; closing connection');
    this.close('frame size out of bounds');
  }

  /** Copies pending bytes into the frame being read; true once it is complete. */
  private fillReceive(r: { buf: Buffer; filled: number }): boolean {
    const n = r.buf.length;
    while (r.filled < n && this.pending.length > 0) {
      const c = this.pending[0];
      const k = Math.min(c.length, n - r.filled);
      c.copy(r.buf, r.filled, 0, k);
      r.filled += k;
      this.pendingBytes -= k;
      if (k === c.length) this.pending.shift();
      else this.pending[0] = c.subarray(k);
    }
    return r.filled === n;
  }

  /** Removes the 4-byte size prefix from the pending bytes and reads it. */
  private readSize(): number {
    const first = this.pending[0];
    let size: number;
    if (first.length >= 4) {
      size = first.readInt32BE(0);
      if (first.length === 4) this.pending.shift();
      else this.pending[0] = first.subarray(4);
    } else {
      const head = Buffer.concat(this.pending, 4);
      size = head.readInt32BE(0);
      let left = 4;
      while (left > 0) {
        const c = this.pending[0];
        if (c.length <= left) {
          left -= c.length;
          this.pending.shift();
        } else {
          this.pending[0] = c.subarray(left);
          left = 0;
        }
      }
    }
    this.pendingBytes -= 4;
    return size;
  }

  /**
   * Pauses reading until the pool gives `size` bytes. The pool takes them for this connection
   * before telling it, in the order connections were refused; reading resumes on the next turn of
   * the event loop (not inside the release that freed the memory, which runs in another
   * connection's request).
   */
  private waitForMemory(size: number): void {
    const waiter: MemoryWaiter = {
      bytes: size,
      granted: () => {
        if (this.memoryWait !== waiter) {
          // Not this connection's wait any more (it closed): the bytes go back.
          this.pool.release(size);
          return;
        }
        this.memoryWait = undefined;
        this.headAllocated = true;
        setImmediate(() => this.resumeAfterMemory());
      },
    };
    this.memoryWait = waiter;
    this.updateReading();
    this.pool.wait(waiter);
  }

  private resumeAfterMemory(): void {
    if (this.closed || this.memoryWait !== undefined) return;
    this.readFrames();
    if (this.closed) return;
    if (this.frames.length >= MAX_QUEUED_FRAMES) this.readPaused = true;
    this.updateReading();
    this.pump();
  }

  /** Pauses or resumes the socket: paused while too many frames are queued or memory is awaited. */
  private updateReading(): void {
    const pause = this.readPaused || this.memoryWait !== undefined;
    if (pause === this.socketPaused || this.closed) return;
    this.socketPaused = pause;
    if (pause) this.socket.pause();
    else this.socket.resume();
  }

  // ---- dispatch ----------------------------------------------------------------------------------

  private pump(): void {
    while (!this.busy && !this.closed && this.frames.length > 0) {
      const frame = this.frames.shift()!;
      if (this.readPaused && this.frames.length < MAX_QUEUED_FRAMES / 2) {
        this.readPaused = false;
        this.updateReading();
      }
      const done = this.dispatch(frame);
      if (done === null) return;
      if (done === undefined) {
        this.busy = false;
      } else {
        done.then(
          () => {
            this.busy = false;
            if (this.peerGone) return this.finishAfterPeerGone();
            // The next frame waits for the I/O events already queued: a close by the client that
            // arrived while this request was parked must be seen before more requests are handled.
            setImmediate(() => (this.peerGone ? this.finishAfterPeerGone() : this.pump()));
          },
          (err) => this.failed(err),
        );
        return;
      }
    }
  }

  /**
   * Marks the connection busy and handles `frame`: undefined when it was answered at once, a
   * promise when the answer comes later, null when handling threw (the connection is closed).
   */
  private dispatch(frame: Buffer): Promise<void> | undefined | null {
    this.busy = true;
    try {
      return this.handleFrame(frame);
    } catch (err) {
      this.failed(err);
      return null;
    } finally {
      // The frame's bytes go back to the pool once its handler has returned, as Kafka's
      // KafkaRequestHandler releases the request's buffer after `apis.handle` (RequestChannel
      // .Request.releaseBuffer; requests without bytes fields release it right after parsing,
      // which in kmock is the same synchronous step). A handler that waits (a JoinGroup for the
      // rebalance, a Fetch long poll, a Produce for the zstd codec or the transaction coordinator)
      // has returned its promise by then, as Kafka's handle returns once the request is parked in
      // a purgatory: a waiting request holds none of the pool, so it cannot hold up the requests
      // it waits for. What a handler keeps of the frame is no longer a request being read:
      // Produce stores its record batches as views of the frame's buffer, and those bytes are
      // stored data, bounded by storedMaxBytes, not by this pool (counted here, stored data would
      // fill the pool for good and stop every connection's reading). Kafka draws the same line:
      // the append copies the batches into the log, and the buffer is released after it.
      this.pool.release(frame.length);
    }
  }

  /**
   * A request whose handling threw (a kmock bug, or input no check foresaw): that connection is
   * closed and logged; the broker and every other connection carry on.
   */
  private failed(err: unknown): void {
    const e = err as { stack?: string } | undefined;
    this.services.log.error({ connection: this.info.id, err: String(e?.stack ?? err) }, 'request failed; closing connection');
    this.close('handler error');
  }

  /**
   * Handles one frame; returns a promise when the response is not ready yet. On a SASL listener the
   * authenticator takes every frame until the connection has authenticated (raw v0 tokens have no
   * Kafka header), and a handshake after it may begin re-authentication (KIP-368); a request after
   * the session expired closes the connection (SocketServer's "Disconnecting expired channel").
   */
  private handleFrame(frame: Buffer): Promise<void> | undefined {
    const auth = this.auth;
    if (auth !== undefined) {
      if (auth.active) {
        auth.onFrame(frame);
        return undefined;
      }
      if (frame.length >= 8 && frame.readInt16BE(0) === 17 && auth.maybeBeginReauthentication(frame)) return undefined;
      if (auth.sessionExpired()) {
        this.services.log.info({ connection: this.info.id, principal: this.info.principal }, 'SASL session expired; closing connection');
        this.close('session expired');
        return undefined;
      }
    }
    return this.handleRequest(frame);
  }

  /** Handles one request of an authenticated connection (or an ApiVersions during authentication). */
  private handleRequest(frame: Buffer): Promise<void> | undefined {
    // peekRequestHeader's fields, read here (it throws only for frames under 8 bytes).
    if (frame.length < 8) {
      // Kafka cannot read a request header from it either (InvalidRequestException → close).
      this.services.log.warn({ connection: this.info.id, size: frame.length }, 'frame too short for a request header; closing connection');
      this.close('frame too short for a request header');
      return undefined;
    }
    const header = { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) };
    const api = apiByKey(header.apiKey);
    const served = this.deps.handlers.get(header.apiKey);
    if (api === undefined || served === undefined) {
      if (this.services.clientFindings.enabled) checkUnadvertisedVersion(this.services.clientFindings, this.info, frame, header, undefined);
      // Kafka cannot parse a request header for an API it does not know and closes the connection.
      this.services.log.warn({ connection: this.info.id, apiKey: header.apiKey }, 'unknown API key; closing connection');
      this.close('unknown API key');
      return undefined;
    }
    if (header.apiVersion < served.minVersion || header.apiVersion > served.maxVersion) {
      // Recorded before the answer or the close, so the finding names the request that caused it.
      if (this.services.clientFindings.enabled) checkUnadvertisedVersion(this.services.clientFindings, this.info, frame, header, served);
      if (served.onUnsupportedVersion) {
        // ApiVersions answers an unknown version with error 35 in the v0 layout (KIP-511).
        const chunks = served.onUnsupportedVersion(header.correlationId);
        this.write(chunks);
        this.trace(header, null, 'unsupported version', 0);
        return undefined;
      }
      this.services.log.warn({ connection: this.info.id, ...header }, 'unsupported API version; closing connection');
      this.close('unsupported API version');
      return undefined;
    }
    let decoded;
    try {
      decoded = decodeRequest(frame);
    } catch (e) {
      if (e instanceof DecodeError || e instanceof UnsupportedVersionError) {
        this.services.log.warn({ connection: this.info.id, ...header, error: (e as Error).message }, 'malformed request; closing connection');
        this.close('malformed request');
        return undefined;
      }
      throw e;
    }
    const ctx: RequestContext = {
      services: this.services,
      connection: this.info,
      listener: this.listener,
      closeConnection: this.closeThis,
      header: decoded.header,
      apiVersion: decoded.header.apiVersion,
      receivedAt: performance.now(),
      receivedAtClock: this.services.clock.now(),
    };
    this.deps.stats.requests++;
    this.info.clientId = decoded.header.clientId;
    // Kafka ignores bytes after the body (AbstractRequest.parseRequest); strict mode records them.
    if (decoded.trailingBytes !== 0 && this.services.clientFindings.enabled) {
      checkLeftover(this.services.clientFindings, this.info, decoded.header, frame, decoded.trailingBytes);
    }
    const interceptor = this.deps.hooks.interceptor;
    if (interceptor !== undefined && interceptor.armed) {
      const fault = interceptor.intercept(header.apiKey, this.info);
      if (fault !== undefined) return this.handleFaulted(ctx, served, decoded.body, fault);
    }
    const result = served.handle(ctx, decoded.body as never);
    if (result instanceof Promise) {
      return result.then((res) => this.respond(ctx, decoded.body, res));
    }
    this.respond(ctx, decoded.body, result);
    return undefined;
  }

  /** A request the control plane delays and/or answers with an injected error. */
  private async handleFaulted(ctx: RequestContext, served: ApiHandler, request: unknown, fault: RequestFault): Promise<void> {
    if (fault.delayMs > 0) {
      await new Promise<void>((resolve) => this.services.clock.schedule(fault.delayMs, resolve, { name: `injected latency (connection ${this.info.id})` }));
    }
    if (this.closed) return;
    const response = fault.respond ? fault.respond(request, ctx.apiVersion) : await served.handle(ctx, request as never);
    this.respond(ctx, request, response);
  }

  private respond(ctx: RequestContext, request: unknown, response: unknown): void {
    if (this.closed) return;
    const h = ctx.header;
    const trace = this.services.config.trace;
    if (response === NO_RESPONSE) {
      if (trace) this.trace(h, request, null, this.elapsedMs(ctx));
      return;
    }
    const chunks = encodeResponseChunks(h.apiKey as keyof ApiTypes, h.apiVersion, h.correlationId, response as never);
    this.write(chunks);
    if (trace) this.trace(h, request, response, this.elapsedMs(ctx));
  }

  /** How long the request took: real time, or the broker clock's on a deterministic broker (so traces repeat). */
  private elapsedMs(ctx: RequestContext): number {
    if (this.services.config.deterministic) return this.services.clock.now() - ctx.receivedAtClock;
    return performance.now() - ctx.receivedAt;
  }

  private write(chunks: Buffer[]): void {
    if (this.closed || this.peerGone) return;
    if (chunks.length === 1) {
      this.socket.write(chunks[0]);
      return;
    }
    this.socket.cork();
    for (const c of chunks) this.socket.write(c);
    this.socket.uncork();
  }

  /** `--trace`: every request and response, decoded, as one JSON line. */
  private trace(
    h: RequestHeaderInfo | { apiKey: number; apiVersion: number; correlationId: number },
    request: unknown,
    response: unknown,
    ms: number,
  ): void {
    if (!this.services.config.trace) return;
    const api = apiByKey(h.apiKey);
    const line: Record<string, unknown> = {
      trace: true,
      api: api?.name ?? h.apiKey,
      apiKey: h.apiKey,
      version: h.apiVersion,
      correlationId: h.correlationId,
      client: 'clientId' in h ? h.clientId : undefined,
      connection: this.info.id,
      host: this.info.clientHost,
      principal: this.info.principal,
      ms: Math.round(ms * 1000) / 1000,
    };
    if (api && request !== null) line.request = redactSecrets(h.apiKey, toJson(api.request.schema, request as object, h.apiVersion));
    if (api && response !== null && typeof response === 'object') {
      line.response = redactSecrets(h.apiKey, toJson(api.response.schema, response as object, h.apiVersion));
    } else if (typeof response === 'string') {
      line.response = response;
    } else {
      line.response = null;
    }
    this.deps.traceLine(line);
  }
}

/** The 4 bytes a frame size was read from (the start of whatever the client sent). */
function sizeBytes(size: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(size, 0);
  return b;
}
