// Injected faults, per API key: a queue of error codes answered to the next requests of that key
// (librdkafka's `rd_kafka_mock_push_request_errors`), and an added latency. Installed into the
// broker's connections as their request interceptor; with nothing configured `armed` is false and
// connections never call in.
import { apiByKey, errorName } from '../../codec/index.js';
import type { ConnectionInfo, RequestFault, RequestInterceptor } from '../connection.js';
import { buildErrorResponse } from './error-response.js';

export interface FaultsView {
  /** Error codes still queued, per API, in answer order (runs of one code counted). */
  errors: Array<{ apiKey: number; api: string; remaining: Array<{ code: number; name: string; count: number }> }>;
  /** Added latency, per API. */
  latency: Array<{ apiKey: number; api: string; ms: number }>;
  /** Errors answered so far (since start or the last clear), per API. */
  injected: Array<{ apiKey: number; api: string; count: number }>;
}

export interface InjectedError {
  apiKey: number;
  errorCode: number;
  connection: number;
  clientId: string | null;
}

export class FaultInjector implements RequestInterceptor {
  armed = false;
  private readonly errors = new Map<number, number[]>();
  private readonly latency = new Map<number, number>();
  private readonly injected = new Map<number, number>();

  constructor(private readonly onInjected?: (e: InjectedError) => void) {}

  /** Appends `count` copies of `errorCode` to the queue of `apiKey` (or the codes of `codes`, in order). */
  pushErrors(apiKey: number, codes: readonly number[]): void {
    if (codes.length === 0) return;
    const q = this.errors.get(apiKey);
    if (q) q.push(...codes);
    else this.errors.set(apiKey, [...codes]);
    this.rearm();
  }

  /** Sets the added latency of `apiKey`; 0 removes it. */
  setLatency(apiKey: number, ms: number): void {
    if (ms > 0) this.latency.set(apiKey, ms);
    else this.latency.delete(apiKey);
    this.rearm();
  }

  clear(): void {
    this.errors.clear();
    this.latency.clear();
    this.injected.clear();
    this.rearm();
  }

  intercept(apiKey: number, connection: ConnectionInfo): RequestFault | undefined {
    const delayMs = this.latency.get(apiKey) ?? 0;
    const queue = this.errors.get(apiKey);
    const code = queue?.shift();
    if (queue !== undefined && queue.length === 0) {
      this.errors.delete(apiKey);
      this.rearm();
    }
    if (code === undefined) return delayMs > 0 ? { delayMs } : undefined;
    this.injected.set(apiKey, (this.injected.get(apiKey) ?? 0) + 1);
    this.onInjected?.({ apiKey, errorCode: code, connection: connection.id, clientId: connection.clientId ?? null });
    return { delayMs, respond: (request, version) => buildErrorResponse(apiKey, version, request, code) };
  }

  view(): FaultsView {
    const api = (k: number) => apiByKey(k)?.name ?? String(k);
    return {
      errors: [...this.errors].map(([apiKey, q]) => ({
        apiKey,
        api: api(apiKey),
        remaining: runs(q).map(([code, count]) => ({ code, name: errorName(code), count })),
      })),
      latency: [...this.latency].map(([apiKey, ms]) => ({ apiKey, api: api(apiKey), ms })),
      injected: [...this.injected].map(([apiKey, count]) => ({ apiKey, api: api(apiKey), count })),
    };
  }

  private rearm(): void {
    this.armed = this.errors.size > 0 || this.latency.size > 0;
  }
}

function runs(codes: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const c of codes) {
    const last = out[out.length - 1];
    if (last && last[0] === c) last[1]++;
    else out.push([c, 1]);
  }
  return out;
}
