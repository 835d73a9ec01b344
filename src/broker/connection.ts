// One client connection: cuts the byte stream into frames, hands each request to its handler
// and writes the responses back.
//
// Like Kafka's SocketServer, a connection handles one request at a time: the next frame is
// dispatched only after the previous response has been written (Kafka mutes the channel in the
// meantime). That keeps responses in request order even when a handler waits (JoinGroup, a
// Fetch long poll) and gives pipelined requests the same semantics as on a real broker.
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
import { NO_RESPONSE, type ApiHandler, type RequestContext } from './handlers/types.js';
import type { BrokerServices } from './services.js';
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
  /** The client closed its side while a request was in flight (see onPeerGone). */
  private peerGone = false;
  /** The idle check (connections.max.idle.ms) and when data last arrived, on the broker's clock. */
  private idleTimer: TimerHandle | undefined;
  private lastReceivedAt = 0;
  private readonly services: BrokerServices;
  private readonly closeThis = (why: string) => this.close(why);

  constructor(
    private readonly deps: ConnectionDeps,
    private readonly socket: Socket,
    id: number,
  ) {
    this.info = { id, clientHost: socket.remoteAddress ?? 'unknown', clientPort: socket.remotePort ?? 0, clientId: null };
    this.services = deps.services;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.close('socket error'));
    socket.on('end', () => this.onPeerGone());
    socket.on('close', () => this.onPeerGone());
    this.touch();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.idleTimer?.cancel();
    this.frames = [];
    this.pending = [];
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
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** After the in-flight request of a connection whose client left: one more, then closed. */
  private finishAfterPeerGone(): void {
    const next = this.frames.shift();
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

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.touch();
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 4) {
      const size = this.peekSize();
      // Checked before the frame is buffered: a hostile size never allocates (Kafka closes too).
      if (size < 0 || size > this.services.config.socketRequestMaxBytes) {
        this.services.log.warn({ connection: this.info.id, size }, 'frame size out of bounds; closing connection');
        this.close('frame size out of bounds');
        return;
      }
      if (this.pendingBytes < 4 + size) break;
      this.frames.push(this.takeFrame(4 + size));
    }
    if (this.frames.length >= MAX_QUEUED_FRAMES && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    }
    this.pump();
  }

  private peekSize(): number {
    const first = this.pending[0];
    if (first.length >= 4) return first.readInt32BE(0);
    const head = Buffer.concat(this.pending, 4);
    return head.readInt32BE(0);
  }

  /** `take(n).subarray(4)`: a frame without its size prefix, in one step when it lies in one chunk. */
  private takeFrame(n: number): Buffer {
    const first = this.pending[0];
    if (first.length < n) return this.take(n).subarray(4);
    if (first.length === n) this.pending.shift();
    else this.pending[0] = first.subarray(n);
    this.pendingBytes -= n;
    return first.subarray(4, n);
  }

  /** Removes `n` bytes from the front of the pending chunks; a view when they lie in one chunk. */
  private take(n: number): Buffer {
    const first = this.pending[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.pending.shift();
      else this.pending[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.pending[0];
        const k = Math.min(c.length, n - filled);
        c.copy(out, filled, 0, k);
        filled += k;
        if (k === c.length) this.pending.shift();
        else this.pending[0] = c.subarray(k);
      }
    }
    this.pendingBytes -= n;
    return out;
  }

  // ---- dispatch ----------------------------------------------------------------------------------

  private pump(): void {
    while (!this.busy && !this.closed && this.frames.length > 0) {
      const frame = this.frames.shift()!;
      if (this.readPaused && this.frames.length < MAX_QUEUED_FRAMES / 2) {
        this.readPaused = false;
        this.socket.resume();
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

  /** Handles one frame; returns a promise when the response is not ready yet. */
  private handleFrame(frame: Buffer): Promise<void> | undefined {
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
      ms: Math.round(ms * 1000) / 1000,
    };
    if (api && request !== null) line.request = toJson(api.request.schema, request as object, h.apiVersion);
    if (api && response !== null && typeof response === 'object') {
      line.response = toJson(api.response.schema, response as object, h.apiVersion);
    } else if (typeof response === 'string') {
      line.response = response;
    } else {
      line.response = null;
    }
    this.deps.traceLine(line);
  }
}
