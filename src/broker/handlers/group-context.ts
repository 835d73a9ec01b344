// What the coordinator needs to know about the client behind a group request.
import type { ClientContext } from '../group/index.js';
import type { RequestContext } from './types.js';

/** Kafka shows the client host as InetAddress.toString(): "/127.0.0.1". */
export function clientContext(ctx: RequestContext): ClientContext {
  return { clientId: ctx.header.clientId ?? '', clientHost: `/${ctx.connection.clientHost.replace(/^::ffff:/, '')}`, principal: ctx.connection.principal };
}
