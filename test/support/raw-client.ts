// A minimal Kafka client for tests: sends frames built with kmock's codec over a plain TCP socket
// and decodes the answers, so tests can assert exact bytes-level behaviour per API version
// (error codes, fields present only in some versions, connection closes).
import { connect, type Socket } from 'node:net';
import { decodeResponse, encodeRequest, type ApiTypes } from '../../src/codec/index.js';

export interface RawResponse<T = unknown> {
  correlationId: number;
  body: T;
}

export class RawClient {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiters: Array<{ resolve: (b: Buffer) => void; reject: (e: Error) => void }> = [];
  private closedError: Error | undefined;
  private closeWaiters: Array<() => void> = [];
  private nextCorrelationId = 1;
  clientId: string | null = 'kmock-raw-client';

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.onClose(err));
    socket.on('close', () => this.onClose(new Error('connection closed')));
  }

  /** Connects to "host:port" (as `startKmock().bootstrapServers` gives it). */
  static async connect(bootstrap: string): Promise<RawClient> {
    const i = bootstrap.lastIndexOf(':');
    const host = bootstrap.slice(0, i);
    const port = Number(bootstrap.slice(i + 1));
    const socket = connect({ host, port, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  get isClosed(): boolean {
    return this.closedError !== undefined;
  }

  /** Sends one request and waits for its response, decoded at the request's version. */
  async request<K extends keyof ApiTypes>(
    apiKey: K,
    apiVersion: number,
    body: ApiTypes[K]['request'],
  ): Promise<ApiTypes[K]['response']> {
    const res = await this.requestFull(apiKey, apiVersion, body);
    return res.body;
  }

  async requestFull<K extends keyof ApiTypes>(
    apiKey: K,
    apiVersion: number,
    body: ApiTypes[K]['request'],
  ): Promise<RawResponse<ApiTypes[K]['response']>> {
    const correlationId = this.nextCorrelationId++;
    this.sendRaw(encodeRequest({ apiKey, apiVersion, correlationId, clientId: this.clientId }, body));
    const frame = await this.nextFrame();
    const decoded = decodeResponse(frame, apiKey, apiVersion);
    if (decoded.correlationId !== correlationId) {
      throw new Error(`correlation id ${decoded.correlationId} does not match the request's ${correlationId}`);
    }
    if (decoded.trailingBytes !== 0) throw new Error(`${decoded.trailingBytes} bytes left after the response body`);
    return { correlationId, body: decoded.body as ApiTypes[K]['response'] };
  }

  /** Writes bytes as they are (a whole frame, size prefix included, or anything else). */
  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next response frame, without its size prefix. */
  nextFrame(timeoutMs = 10_000): Promise<Buffer> {
    const ready = this.frames.shift();
    if (ready) return Promise.resolve(ready);
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`no response within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (b: Buffer): void => {
        clearTimeout(timer);
        resolve(b);
      };
      this.waiters.push({
        resolve: done,
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  /** Resolves true when the broker closes the connection within the time, false otherwise. */
  waitForClose(timeoutMs = 5_000): Promise<boolean> {
    if (this.closedError) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.closeWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) break;
      const frame = Buffer.from(this.buffered.subarray(4, 4 + size));
      this.buffered = this.buffered.subarray(4 + size);
      const w = this.waiters.shift();
      if (w) w.resolve(frame);
      else this.frames.push(frame);
    }
  }

  private onClose(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    for (const w of this.waiters) w.reject(err);
    this.waiters = [];
    for (const c of this.closeWaiters) c();
    this.closeWaiters = [];
  }
}
