// The control plane over HTTP: a small JSON API on 127.0.0.1:<adminPort> (opt-in, `--admin-port`),
// plus server-sent events (group events, strict-clients findings, transaction events). Every route
// calls one ControlPlane method; errors come back as `{"error": "..."}` with the ControlError's
// status (4xx), unknown routes as 404.
//
// It listens on 127.0.0.1 unless told otherwise; off loopback it needs a bearer token. Browsers are
// kept out: see refusal() (docs/control-plane.md, "Security").
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GroupEvent } from '../group/index.js';
import { ControlError, badRequest, notFound } from './errors.js';
// Bodies are JSON nobody has checked yet: handed on as the actions' input types, which the
// control plane validates at run time.
import type { ConnectionFilter, ControlPlane, ErrorInjectionInput, LatencyInput, PoliciesInput, StaticMembershipOptions } from './model.js';
import { transactionalIdArg } from './transactions.js';
import { objectBody, onlyFields } from './validate.js';

/** Largest request body accepted. */
export const MAX_BODY_BYTES = 64 * 1024;
/** SSE comment line sent this often so proxies and clients see the stream is alive. */
const SSE_KEEPALIVE_MS = 15_000;

type Handler = (p: { params: string[]; body: unknown; query: URLSearchParams }) => unknown;

interface Route {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Path segments; ":" marks a parameter. */
  path: string[];
  handler: Handler;
}

export interface AdminServer {
  readonly host: string;
  readonly port: number;
  /** "http://127.0.0.1:PORT" */
  readonly url: string;
  close(): Promise<void>;
}

/** The routes, as a table (also the API reference: docs/control-plane.md mirrors it). */
export function adminRoutes(control: ControlPlane): Route[] {
  const r = (method: Route['method'], path: string, handler: Handler): Route => ({
    method,
    path: path.split('/').filter((s) => s !== ''),
    handler,
  });
  const noFields = (body: unknown, what: string, allowed: string[] = []): Record<string, unknown> => {
    const o = objectBody(body, what);
    onlyFields(o, allowed, what);
    return o;
  };
  return [
    r('GET', '/groups', () => control.groups()),
    r('GET', '/groups/:id', ({ params }) => control.group(params[0])),
    r('GET', '/groups/:id/policies', ({ params }) => control.groupPolicies(params[0])),
    r('PUT', '/groups/:id/policies', ({ params, body }) => {
      if (body === undefined) throw badRequest('body must be a policy update object, or null to clear the group\'s own policies');
      return control.setGroupPolicies(params[0], body);
    }),
    r('DELETE', '/groups/:id/policies', ({ params }) => control.setGroupPolicies(params[0], null)),
    r('POST', '/groups/:id/rebalance', ({ params, body }) => control.forceRebalance(params[0], noFields(body, 'body', ['reason']).reason as string | undefined)),
    r('POST', '/groups/:id/members/remove', ({ params, body }) => control.removeMembers(params[0], body ?? {})),
    r('POST', '/groups/:id/static-membership', ({ params, body }) => control.enableStaticMembership(params[0], body as StaticMembershipOptions)),
    r('POST', '/groups/:id/dynamic-membership', ({ params, body }) => {
      noFields(body, 'body');
      return control.enableDynamicMembership(params[0]);
    }),
    r('POST', '/groups/:id/force-static-rebalance', ({ params, body }) => {
      noFields(body, 'body');
      return control.forceStaticRebalance(params[0]);
    }),
    r('GET', '/topics', () => control.topics()),
    r('GET', '/policies', () => control.policies()),
    r('PUT', '/policies', ({ body }) => control.setBrokerPolicies(body as PoliciesInput)),
    r('GET', '/faults', () => control.faultsView()),
    r('POST', '/faults/errors', ({ body }) => control.injectErrors(body as ErrorInjectionInput)),
    r('POST', '/faults/latency', ({ body }) => control.setLatency(body as LatencyInput)),
    r('DELETE', '/faults', ({ body }) => {
      noFields(body, 'body');
      return control.clearFaults();
    }),
    r('GET', '/clock', () => control.clock.view()),
    r('PUT', '/clock', ({ body }) => control.clock.set(body)),
    r('POST', '/clock/advance', ({ body }) => control.clock.advance(noFields(body, 'body', ['ms']).ms)),
    r('POST', '/clock/run-until-idle', ({ body }) => {
      noFields(body, 'body', []);
      return control.clock.runUntilIdle();
    }),
    r('GET', '/strict-clients', () => control.strictClients()),
    r('PUT', '/strict-clients', ({ body }) => {
      const o = noFields(body, 'body', ['enabled']);
      if (typeof o.enabled !== 'boolean') throw badRequest('body must be {"enabled": true} or {"enabled": false}');
      return control.setStrictClients(o.enabled);
    }),
    r('POST', '/strict-clients/reset', ({ body }) => {
      noFields(body, 'body');
      return control.resetStrictClients();
    }),
    r('GET', '/transactions', () => control.transactions.list()),
    // GET /transactions/events (the stream) is served before these routes: see handle().
    r('GET', '/transactions/:id', ({ params }) => control.transactions.get(params[0])),
    r('GET', '/connections', () => control.connections()),
    r('POST', '/connections/drop', ({ body }) => control.dropConnections(body as ConnectionFilter)),
  ];
}

/** Who may call the admin API besides local, non-browser clients. */
export interface AdminSecurity {
  /**
   * A bearer token every request must carry (`Authorization: Bearer <token>`). Required when the
   * API listens on anything but loopback: then a reachable port must not be an open door.
   */
  token?: string;
}

/** Starts the admin API on host:port (port 0 = any free port; host: loopback unless told otherwise). */
export async function startAdminServer(control: ControlPlane, port: number, host = '127.0.0.1', security: AdminSecurity = {}): Promise<AdminServer> {
  const loopback = LOOPBACK_HOST.test(host) || host === '::1';
  if (!loopback && (security.token === undefined || security.token === '')) {
    throw new Error(`the admin API on ${host} (not loopback) needs a token (adminToken / --admin-token): set one, or keep it on 127.0.0.1`);
  }
  let boundPort = port;
  const routes = adminRoutes(control);
  const streams = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    handle(control, routes, streams, req, res, { host, port: boundPort, loopback, token: security.token }).catch((e) => {
      control.broker.log.error({ err: String((e as Error)?.stack ?? e) }, 'admin API request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => control.broker.log.error({ err: String(err) }, 'admin API server error'));
  const bound = (server.address() as AddressInfo).port;
  boundPort = bound;
  let closing: Promise<void> | undefined;
  return {
    host,
    port: bound,
    url: `http://${host}:${bound}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

interface Listening {
  host: string;
  port: number;
  loopback: boolean;
  token: string | undefined;
}

async function handle(
  control: ControlPlane,
  routes: Route[],
  streams: Set<ServerResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  listening: Listening,
): Promise<void> {
  try {
    const refused = refusal(req, listening);
    if (refused !== undefined) {
      control.broker.log.warn({ method: req.method, url: req.url, origin: req.headers.origin, host: req.headers.host, status: refused.status, why: refused.message }, 'admin API request refused');
      throw refused;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const segments = url.pathname.split('/').filter((s) => s !== '');
    let params: string[];
    try {
      params = segments.map((s) => decodeURIComponent(s));
    } catch {
      throw badRequest('malformed percent-encoding in the path');
    }
    if (req.method === 'GET' && params.length === 1 && params[0] === 'events') {
      return streamEvents(control, streams, req, res, url.searchParams);
    }
    if (req.method === 'GET' && params.length === 2 && params[0] === 'strict-clients' && params[1] === 'events') {
      for (const k of url.searchParams.keys()) throw badRequest(`unknown query parameter "${k}" (none allowed)`);
      return openStream(streams, req, res, (send) => control.subscribeStrictClients((f) => send(f.kind, f)));
    }
    // The raw segment: `/transactions/%65vents` reads the transactional id "events" instead.
    if (req.method === 'GET' && segments.length === 2 && segments[0] === 'transactions' && segments[1] === 'events') {
      return streamTxnEvents(control, streams, req, res, url.searchParams);
    }
    const matches = routes.filter((r) => matchPath(r.path, params) !== undefined);
    if (matches.length === 0) throw notFound(`no route ${req.method} ${url.pathname}`);
    const route = matches.find((r) => r.method === req.method);
    if (!route) {
      const allow = [...new Set(matches.map((r) => r.method))].join(', ');
      res.setHeader('allow', allow);
      throw new ControlError(405, `${req.method} not allowed on ${url.pathname} (allowed: ${allow})`);
    }
    const body = await readJsonBody(req);
    const result = route.handler({ params: matchPath(route.path, params)!, body, query: url.searchParams });
    sendJson(res, 200, result ?? null);
  } catch (e) {
    if (e instanceof ControlError) {
      if (e.status === 413) {
        // The rest of the body is not read: answer, then drop the connection.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
      }
      sendJson(res, e.status, { error: e.message, ...e.details });
      return;
    }
    throw e;
  }
}

/** The parameters of `path` matched against `segments`, or undefined. */
function matchPath(path: string[], segments: string[]): string[] | undefined {
  if (path.length !== segments.length) return undefined;
  const params: string[] = [];
  for (let i = 0; i < path.length; i++) {
    if (path[i]!.startsWith(':')) params.push(segments[i]!);
    else if (path[i] !== segments[i]) return undefined;
  }
  return params;
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;

/** Methods that change something: a web page must not be able to send them. */
const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Why a request is refused, or undefined. The admin API serves local programs (tests, `kmock
 * admin`, curl), never a web page: a page's request carries an Origin (sandboxed iframes and
 * file:// pages send "null"), and Sec-Fetch-Site says when it is cross-site, so any Origin but the
 * API's own is refused; on loopback the Host must be a loopback name (DNS rebinding); a change must
 * be JSON (a page can send text/plain and form bodies without a preflight, never JSON); with a
 * token, every request carries it.
 */
function refusal(req: IncomingMessage, l: Listening): ControlError | undefined {
  const host = req.headers.host;
  if (l.loopback && host !== undefined && !(LOOPBACK_HOST.test(host) && host.endsWith(`:${l.port}`))) return new ControlError(403, `refused: Host ${host} is not a loopback name (the admin API listens on ${l.host})`);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const own = new Set([`http://${l.host}:${l.port}`, ...(l.loopback ? [`http://localhost:${l.port}`, `http://127.0.0.1:${l.port}`, `http://[::1]:${l.port}`] : [])]);
    if (!own.has(origin)) return new ControlError(403, `refused: cross-origin request (Origin ${origin}); the admin API serves local programs and its own pages only`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return new ControlError(403, `refused: a ${site} browser request`);
  if (l.token !== undefined && l.token !== '') {
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    // Compared as SHA-256 digests: constant time, and the token's length does not leak either.
    const digest = (t: string): Buffer => createHash('sha256').update(t).digest();
    if (!timingSafeEqual(digest(given), digest(l.token))) return new ControlError(401, 'refused: missing or wrong token (Authorization: Bearer <token>)');
  }
  if (CHANGING.has(req.method ?? '')) {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (type !== 'application/json' && (hasBody || type !== '')) return new ControlError(415, `refused: ${req.method} needs Content-Type: application/json (got ${type === '' ? 'none' : type})`);
  }
  return undefined;
}

/** The JSON body, or undefined when there is none. Bigger than MAX_BODY_BYTES → 413. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ControlError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ControlError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`body is not valid JSON: ${(e as Error).message}`);
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value, jsonReplacer) + '\n';
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

/** bigint → number when exact, else string; Buffer → base64. */
export function jsonReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
    return Buffer.from((value as { data: number[] }).data).toString('base64');
  }
  return value;
}

/**
 * `GET /events[?group=ID]`: server-sent events, one per group event (`event:` its type, `data:` the
 * event as JSON). A comment line `: subscribed` comes first: events after it are not missed.
 */
function streamEvents(
  control: ControlPlane,
  streams: Set<ServerResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): void {
  for (const k of query.keys()) if (k !== 'group') throw badRequest(`unknown query parameter "${k}" (allowed: group)`);
  const group = query.get('group') ?? undefined;
  if (group === '') throw badRequest('group must not be empty');
  openStream(streams, req, res, (send) => control.subscribe((e: GroupEvent) => send(e.type, e), group));
}

/**
 * `GET /transactions/events[?transactionalId=ID]`: server-sent events, one per transaction event
 * (`event:` its type: txn-state-changed, txn-timed-out, txn-id-expired; `data:` the event as JSON).
 */
function streamTxnEvents(
  control: ControlPlane,
  streams: Set<ServerResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): void {
  for (const k of query.keys()) if (k !== 'transactionalId') throw badRequest(`unknown query parameter "${k}" (allowed: transactionalId)`);
  const id = query.get('transactionalId');
  const only = id === null ? undefined : transactionalIdArg(id);
  openStream(streams, req, res, (send) => control.transactions.subscribe((e) => send(e.type, e), only));
}

/**
 * An SSE stream of what `subscribe` hands to `send` (`event:` a type, `data:` JSON): group events
 * (`GET /events`), strict-clients findings (`GET /strict-clients/events`, `event:` the kind) and
 * transaction events (`GET /transactions/events`).
 */
function openStream(
  streams: Set<ServerResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  subscribe: (send: (type: string, data: unknown) => void) => () => void,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let seq = 0;
  const unsubscribe = subscribe((type, data) => {
    res.write(`id: ${++seq}\nevent: ${type}\ndata: ${JSON.stringify(data, jsonReplacer)}\n\n`);
  });
  res.write(': subscribed\n\n');
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), SSE_KEEPALIVE_MS);
  keepalive.unref();
  streams.add(res);
  const done = (): void => {
    clearInterval(keepalive);
    unsubscribe();
    streams.delete(res);
  };
  res.once('close', done);
  req.once('close', done);
}
