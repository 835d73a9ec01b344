// Starting and stopping a kmock broker: the programmatic API (`startKmock`) used by tests and
// by `kmock start`.
import { createServer, type Server } from 'node:net';
import type { Logger } from 'pino';
import { Broker } from './broker.js';
import { resolveConfig, type BrokerConfig } from './config.js';
import { ControlPlane } from './control/model.js';
import type { ClockControl } from './control/clock.js';
// The admin HTTP API (and node:http with it) loads only when `adminPort` is set: most brokers
// never serve it, and loading node:http costs start-up time.
import type { AdminServer } from './control/http.js';

export interface KmockOptions extends Partial<BrokerConfig> {
  /** A pino logger to use instead of the default (which is silent for the programmatic API). */
  logger?: Logger;
}

export interface Kmock {
  /** "host:port", ready for a client's bootstrap servers. */
  readonly bootstrapServers: string;
  readonly host: string;
  readonly port: number;
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
 * Resolves once the server accepts connections.
 */
export async function startKmock(options: KmockOptions = {}): Promise<Kmock> {
  const { logger, ...overrides } = options;
  const config = resolveConfig({ port: 0, logLevel: 'silent', ...overrides });
  const broker = new Broker(config, logger);
  const control = new ControlPlane(broker);
  const server: Server = createServer({ noDelay: true }, (socket) => broker.accept(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => broker.log.error({ err: String(err) }, 'server error'));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // With an ephemeral port, advertise the one actually bound.
  if (config.advertisedPort === undefined) broker.advertisedPort = port;
  const host = config.host;
  let admin: AdminServer | undefined;
  if (config.adminPort !== undefined) {
    try {
      const { startAdminServer } = await import('./control/http.js');
      admin = await startAdminServer(control, config.adminPort);
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      broker.shutdown();
      throw e;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    bootstrapServers: `${broker.advertisedHost}:${broker.advertisedPort}`,
    host,
    port,
    broker,
    control,
    clock: control.clock,
    adminPort: admin?.port,
    adminUrl: admin?.url,
    close() {
      closing ??= Promise.all([
        admin?.close(),
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          broker.shutdown();
        }),
      ]).then(() => undefined);
      return closing;
    },
  };
}
