// Starting and stopping a kmock broker: the programmatic API (`startKmock`) used by tests and
// by `kmock start`.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from 'pino';
import { Broker } from './broker.js';
import { resolveConfig, type BrokerConfig } from './config.js';
import { ControlPlane } from './control/model.js';
import type { ClockControl } from './control/clock.js';
import { resolveListeners } from './security/listeners.js';
import { listenerSettings } from './security/listener-settings.js';
import { isTlsProtocol, type SecurityProtocol } from './security/types.js';
import { describeTlsClientError, makeDevCertificate, parsePrincipalMappingRules, requestedClientCertError, sslPrincipal, tlsServerOptions, type DevCertificate } from './security/tls/index.js';
// The admin HTTP API (and node:http with it) loads only when `adminPort` is set: most brokers
// never serve it, and loading node:http costs start-up time.
import type { AdminServer } from './control/http.js';

export interface KmockOptions extends Partial<BrokerConfig> {
  /** A pino logger to use instead of the default (which is silent for the programmatic API). */
  logger?: Logger;
}

/** One listener as bound: where clients connect, with its name and security protocol. */
export interface KmockListener {
  name: string;
  protocol: SecurityProtocol;
  host: string;
  port: number;
  /** "host:port" as advertised, ready for a client's bootstrap servers. */
  bootstrapServers: string;
}

export interface Kmock {
  /** "host:port" of the first listener, ready for a client's bootstrap servers. */
  readonly bootstrapServers: string;
  readonly host: string;
  readonly port: number;
  /** Every listener, in `listeners` order (one PLAINTEXT listener unless `listeners` says otherwise). */
  readonly listeners: readonly KmockListener[];
  /** With `tls: true`: the CA clients trust (its PEM and the file it was written to). */
  readonly tls: { caPath: string; caPem: string; dir: string } | undefined;
  /**
   * @internal The broker's internals (connections, handlers, topic logs, the group coordinator),
   * for kmock's own tests. Not a public API: its shape changes without notice. Use `control`.
   */
  readonly broker: Broker;
  /**
   * The control plane, kmock's public surface for driving a running broker: read groups (members,
   * decoded assignments, offsets, policies, rebalance history), topics and connections; set draft
   * policies broker-wide or per group; force rebalances and remove members; inject errors and
   * latency; drop connections; watch group events. The same model the admin HTTP API
   * (`adminPort`) and `kmock admin` serve (docs/control-plane.md); bad input throws ControlError.
   */
  readonly control: ControlPlane;
  /**
   * The broker's clock (`control.clock`): with `clock: 'manual'` time moves only when the test
   * calls `advance(ms)` or `runUntilIdle()`; every broker timer runs on it (docs/testing.md).
   */
  readonly clock: ClockControl;
  /** The admin HTTP API's bound port and base URL, when `adminPort` was set. */
  readonly adminPort: number | undefined;
  readonly adminUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts a broker. Port 0 (the default here) picks an ephemeral port; `kmock start` passes 9092.
 * Resolves once every listener accepts connections.
 */
export async function startKmock(options: KmockOptions = {}): Promise<Kmock> {
  const { logger, ...overrides } = options;
  const config = resolveConfig({ port: 0, logLevel: 'silent', ...overrides });
  // Checked before anything is bound (a bad listener setting fails the start with Kafka's reason).
  const specs = resolveListeners(config);
  const dev = config.tls && specs.some((l) => isTlsProtocol(l.protocol))
    ? await makeDevCertificate([...new Set(specs.map((l) => l.advertisedHost))], config.tlsDir)
    : undefined;
  const broker = new Broker(config, logger);
  const fds = new FileDescriptorWatch(broker);
  const control = new ControlPlane(broker);
  const servers: Server[] = [];
  const bound: KmockListener[] = [];
  try {
    for (const listener of broker.listeners) {
      const server = listenerServer(broker, listener, dev, () => fds.onAccepted());
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listener.spec.port, listener.spec.host === '' ? undefined : listener.spec.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      watchServerErrors(broker, server, listener.spec.name);
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : listener.spec.port;
      // With an ephemeral port, advertise the one actually bound.
      if (listener.spec.advertisedPort === undefined) listener.endpoint.advertised.port = port;
      const a = listener.endpoint.advertised;
      bound.push({ name: listener.spec.name, protocol: listener.spec.protocol, host: listener.spec.host, port, bootstrapServers: `${a.host}:${a.port}` });
    }
  } catch (e) {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    broker.shutdown();
    throw e;
  }
  let admin: AdminServer | undefined;
  if (config.adminPort !== undefined) {
    try {
      const { startAdminServer } = await import('./control/http.js');
      admin = await startAdminServer(control, config.adminPort, config.adminHost ?? '127.0.0.1', { token: config.adminToken });
    } catch (e) {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      broker.shutdown();
      throw e;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    bootstrapServers: bound[0].bootstrapServers,
    host: bound[0].host,
    port: bound[0].port,
    listeners: bound,
    tls: dev === undefined ? undefined : { caPath: dev.caPath, caPem: dev.caPem, dir: dev.dir },
    broker,
    control,
    clock: control.clock,
    adminPort: admin?.port,
    adminUrl: admin?.url,
    close() {
      closing ??= Promise.all([
        admin?.close(),
        ...servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
        Promise.resolve().then(() => broker.shutdown()),
      ]).then(() => undefined);
      return closing;
    },
  };
}

type BrokerListener = Broker['listeners'][number];

/**
 * The server of one listener: net for PLAINTEXT and SASL_PLAINTEXT, tls for SSL and SASL_SSL. A
 * TLS connection reaches the broker once its handshake is done, with the principal of its client
 * certificate; a handshake that fails (plaintext bytes on the TLS port, an untrusted client
 * certificate) is one log line saying why.
 */
function listenerServer(broker: Broker, listener: BrokerListener, dev: DevCertificate | undefined, accepted: () => void): Server {
  const { spec } = listener;
  if (!isTlsProtocol(spec.protocol)) {
    return createServer({ noDelay: true }, (socket) => {
      broker.accept(socket, listener);
      accepted();
    });
  }
  const settings = listenerSettings(broker.config, spec.name);
  const rules = settings.get('ssl.principal.mapping.rules') ?? 'DEFAULT';
  parsePrincipalMappingRules(rules); // a bad rule fails the start, as KafkaConfig fails it
  const server = createTlsServer({ ...tlsServerOptions(settings, dev), noDelay: true }, (socket) => {
    // ssl.client.auth=requested: no certificate is fine, an untrusted one fails the handshake as
    // Kafka's SSLEngine fails it (node accepts it under rejectUnauthorized: false).
    const refused = requestedClientCertError(socket);
    if (refused !== null) {
      broker.log.warn({ host: socket.remoteAddress, port: socket.remotePort, listener: spec.name, error: refused }, `untrusted client certificate on the ${spec.protocol} listener ${spec.name}; closing connection`);
      socket.destroy();
      return;
    }
    let principal: string;
    try {
      principal = sslPrincipal(socket, rules);
    } catch (e) {
      // SslPrincipalMapper: no rule matched the certificate's DN, so the connection is not authenticated.
      broker.log.warn({ host: socket.remoteAddress, listener: spec.name, error: (e as Error).message }, `no principal for the client certificate on the ${spec.protocol} listener ${spec.name}; closing connection`);
      socket.destroy();
      return;
    }
    broker.accept(socket, listener, principal);
    accepted();
  });
  server.on('tlsClientError', (err, socket) => {
    broker.log.warn(
      { host: socket.remoteAddress, port: socket.remotePort, listener: spec.name, error: err.message },
      `${describeTlsClientError(err)} (on the ${spec.protocol} listener ${spec.name}); closing connection`,
    );
  });
  return server;
}

/** Logs a listener's server errors. */
function watchServerErrors(broker: Broker, server: Server, name: string): void {
  server.on('error', (err) => broker.log.error({ listener: name, err: String(err) }, 'server error'));
}

/**
 * Out of file descriptors, Node's listener says nothing: libuv accepts each new connection and
 * closes it at once (its EMFILE trick), and no error reaches the server. So kmock watches its own
 * count: when the connections it holds bring the process near its open-files limit, one line says
 * so (with the limit and how many are open), at most once every 10 s of a burst.
 */
export class FileDescriptorWatch {
  private readonly limit = openFilesLimit();
  private readonly atStart = openFileCount() ?? 0;
  private lastWarningAt = -Infinity;

  constructor(private readonly broker: Broker) {}

  /** After each accepted connection: cheap unless the connections alone come near the limit. */
  onAccepted(): void {
    const limit = this.limit;
    if (limit === undefined) return;
    const margin = Math.max(8, Math.floor(limit / 50));
    if (this.atStart + this.broker.connections.size < limit - margin) return;
    const open = openFileCount();
    if (open === undefined || open < limit - margin) return;
    const now = Date.now();
    if (now - this.lastWarningAt < 10_000) return;
    this.lastWarningAt = now;
    this.broker.log.error(
      { openFiles: open, openFilesLimit: limit, connections: this.broker.connections.size },
      'out of file descriptors: connections past the limit are closed by the OS layer as soon as they open, with no error to the client (raise the limit: ulimit -n)',
    );
  }
}

/** The process's soft limit on open files (Linux: /proc/self/limits), or undefined. */
function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const n = Number(line?.split(/\s+/)[3]);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** How many files the process has open (Linux: /proc/self/fd), or undefined. */
function openFileCount(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}
