// What every API handler sees and returns. One file per API under handlers/, registered in
// handlers/index.ts with the versions kmock serves faithfully (and so advertises).
import type { ApiTypes, RequestHeaderInfo } from '../../codec/index.js';
import type { ConnectionInfo } from '../connection.js';
import type { BrokerServices, ListenerEndpoint } from '../services.js';

export interface RequestContext {
  /** The broker's parts a handler may use (services.ts), built once by Broker's constructor. */
  services: BrokerServices;
  connection: ConnectionInfo;
  /** The listener the request came in on: Metadata and FindCoordinator answer its endpoints. */
  listener: ListenerEndpoint;
  /** Closes the connection this request came on (`why` goes to kmock's log). */
  closeConnection(why: string): void;
  header: RequestHeaderInfo;
  apiVersion: number;
  /** performance.now() when the request was dispatched. */
  receivedAt: number;
  /** The broker clock's time then (services.clock). */
  receivedAtClock: number;
}

/** Returned by a handler whose request gets no response (Produce with acks=0). */
export const NO_RESPONSE = Symbol('no response');

export type HandlerResult<R> = R | typeof NO_RESPONSE | Promise<R | typeof NO_RESPONSE>;

export interface ApiHandler<K extends keyof ApiTypes = keyof ApiTypes> {
  apiKey: K;
  /** The versions kmock answers as Kafka 3.9 does; advertised in ApiVersions. */
  minVersion: number;
  maxVersion: number;
  handle(ctx: RequestContext, request: ApiTypes[K]['request']): HandlerResult<ApiTypes[K]['response']>;
  /** Only ApiVersions: the frame answering a version outside [minVersion, maxVersion]. */
  onUnsupportedVersion?: (correlationId: number) => Buffer[];
}

/** Helper that keeps the request/response types tied to the key. */
export function defineHandler<K extends keyof ApiTypes>(h: ApiHandler<K>): ApiHandler<K> {
  return h;
}

/**
 * Closes the connection the request came on (Kafka's requestChannel.closeConnection), `why` going
 * to kmock's log: how Kafka answers an acks=0 failure or a request it cannot parse.
 */
export function closeRequestConnection(ctx: RequestContext, why: string): void {
  // Kafka logs these closes at INFO too (KafkaApis: "Closing connection due to error during
  // produce request ... with ack=0").
  ctx.services.log.info({ connection: ctx.connection.id, apiKey: ctx.header.apiKey, correlationId: ctx.header.correlationId, why }, 'closing connection');
  ctx.closeConnection(why);
}
