// `kmock start`: runs a broker until SIGINT/SIGTERM. Prints `listening on HOST:PORT` once it
// accepts connections (scripts wait for that exact text), then structured JSON log lines.
// Settings and policies: docs/policies.md and the README's "Settings".
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { applySetting, DEFAULT_CONFIG, parseProperties, type BrokerConfig } from '../broker/config.js';
import { POLICIES } from '../broker/group/policies/list.js';
import { startKmock } from '../broker/server.js';
import { UsageError, type Io } from './codec.js';
import { cliLogger } from './logger.js';

/** One line per policy for --help: its name and the summary its definition gives. */
const POLICY_HELP = POLICIES.map((p) => `  ${p.name.padEnd(22)}${p.summary}`).join('\n');

export const START_USAGE = `usage: kmock start [options]
  --host H                    listen address (default 127.0.0.1)
  --port P                    listen port (default 9092; 0 = any free port)
  --advertised-host H         host put in Metadata (default: --host)
  --advertised-port P         port put in Metadata (default: the bound port)
  --partitions N              num.partitions for auto-created topics (default 1)
  --no-auto-create            auto.create.topics.enable=false
  --initial-rebalance-delay-ms N   group.initial.rebalance.delay.ms (default 3000)
  --data-dir DIR              keep topics, data and offsets in DIR, in Kafka's layout (log.dirs);
                              a restart brings them back (default: in memory; docs/storage.md)
  --fsync                     fsync the data dir before answering acks=all (fsyncOnAcksAll)
  --tls                       a self-signed CA and certificate for the advertised hosts, made at
                              start, for every SSL/SASL_SSL listener without a keystore; with no
                              listeners setting the one listener is SSL (docs/security.md)
  --tls-dir DIR               where --tls keeps ca.pem, server.pem and server.key (default: a new
                              temp dir); a restart with the same DIR reuses them
  --sasl-users U:P,...        users for every SASL listener: PLAIN logins and SCRAM-SHA-256/512
                              credentials (sasl.users)
  --config FILE               Kafka-style properties file (key=value)
  --set KEY=VALUE             any setting by its Kafka name, repeatable
  --policy TEXT               draft policies on or off, repeatable (below)
  --clock MODE                how the broker's clock moves: system (default), manual (only when
                              advanced: kmock admin clock advance MS), or a speed such as 10x
  --deterministic             ids from --seed instead of random (topic, member, cluster ids);
                              a manual clock then starts at 2025-01-01T00:00:00Z
  --seed N                    the seed of --deterministic (default 0)
  --trace                     log every request and response, decoded, as JSON lines
  --strict-clients            answer as Kafka does, and log (warn) what a correct client does not
                              do, with the request; a summary per kind at shutdown
                              (docs/strict-clients.md)
  --admin-port P              serve the control plane's HTTP API on 127.0.0.1:P (0 = any free port)
  --admin-host H              bind the admin API to H instead of 127.0.0.1 (needs --admin-token)
  --admin-token T             a bearer token every admin API request must carry (default
                              $KMOCK_ADMIN_TOKEN; kmock admin --token)
  --log-level L               silent|error|warn|info|debug (default info)

draft policies: all off by default (kmock then answers as Apache Kafka 3.9); docs/policies.md
${POLICY_HELP}
  --policy takes the text of a properties file's policies= line (also --set policies=TEXT):
  entries separated by commas or spaces, later ones win:
    NAME, NAME=on, NAME=off, all, none,
    registration-timeout=15m, expansion-timeout=30s (ms by default, or ms, s, m, h)
  e.g. kmock start --policy kip345-draft-errors,registration-timeout=15m`;

export async function startCommand(argv: string[], io: Io, signals: NodeJS.EventEmitter = process): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'advertised-host': { type: 'string' },
      'advertised-port': { type: 'string' },
      partitions: { type: 'string' },
      'no-auto-create': { type: 'boolean' },
      tls: { type: 'boolean' },
      'admin-host': { type: 'string' },
      'admin-token': { type: 'string' },
      'tls-dir': { type: 'string' },
      'sasl-users': { type: 'string' },
      'initial-rebalance-delay-ms': { type: 'string' },
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      fsync: { type: 'boolean' },
      set: { type: 'string', multiple: true },
      policy: { type: 'string', multiple: true },
      trace: { type: 'boolean' },
      clock: { type: 'string' },
      deterministic: { type: 'boolean' },
      seed: { type: 'string' },
      'strict-clients': { type: 'boolean' },
      'log-level': { type: 'string' },
      'admin-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(START_USAGE + '\n');
    return 0;
  }
  const config: BrokerConfig = { ...DEFAULT_CONFIG };
  // Lowest to highest precedence: config file, --set, dedicated flags.
  if (values.config) {
    for (const [k, v] of parseProperties(readFileSync(values.config, 'utf8'))) applySetting(config, k, v);
  }
  for (const kv of values.set ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set needs KEY=VALUE, got "${kv}"`);
    applySetting(config, kv.slice(0, eq), kv.slice(eq + 1));
  }
  if (values.host !== undefined) config.host = values.host;
  if (values.port !== undefined) applySetting(config, 'port', values.port);
  if (values['advertised-host'] !== undefined) config.advertisedHost = values['advertised-host'];
  if (values['advertised-port'] !== undefined) config.advertisedPort = Number(values['advertised-port']);
  if (values.partitions !== undefined) applySetting(config, 'num.partitions', values.partitions);
  if (values['no-auto-create']) config.autoCreateTopicsEnable = false;
  if (values['initial-rebalance-delay-ms'] !== undefined) {
    applySetting(config, 'group.initial.rebalance.delay.ms', values['initial-rebalance-delay-ms']);
  }
  // --policy is `--set policies=TEXT`: each one merged over the file's and --set's policies.
  for (const text of values.policy ?? []) {
    try {
      applySetting(config, 'policies', text);
    } catch (e) {
      throw new UsageError(`--policy ${(e as Error).message.replace(/^policies: /, '')}`);
    }
  }
  if (values['data-dir'] !== undefined) config.logDirs = values['data-dir'];
  if (values.fsync) config.fsyncOnAcksAll = true;
  if (values.tls) config.tls = true;
  if (values['admin-host'] !== undefined) config.adminHost = values['admin-host'];
  const adminToken = values['admin-token'] ?? process.env.KMOCK_ADMIN_TOKEN;
  if (adminToken !== undefined && adminToken !== '') config.adminToken = adminToken;
  if (values['tls-dir'] !== undefined) config.tlsDir = values['tls-dir'];
  if (values['sasl-users'] !== undefined) config.saslUsers = values['sasl-users'];
  if (values.trace) config.trace = true;
  if (values.clock !== undefined) {
    try {
      applySetting(config, 'clock', values.clock);
    } catch (e) {
      throw new UsageError(`--clock: ${(e as Error).message}`);
    }
  }
  if (values.deterministic) config.deterministic = true;
  if (values.seed !== undefined) applySetting(config, 'seed', values.seed);
  if (values['strict-clients']) config.strictClients = true;
  if (values['log-level'] !== undefined) config.logLevel = values['log-level'];
  if (values['admin-port'] !== undefined) {
    const p = values['admin-port'];
    if (!/^\d+$/.test(p) || Number(p) > 65535) throw new UsageError(`--admin-port must be a port number (0-65535), got "${p}"`);
    config.adminPort = Number(p);
  }

  // A deterministic broker's log lines carry its clock's time (known once it exists), so they repeat.
  let clockNow: (() => number) | undefined;
  const logger = cliLogger(config.logLevel, config.deterministic ? () => clockNow?.() ?? Date.now() : undefined);
  const kmock = await startKmock({ ...config, logger });
  clockNow = () => kmock.clock.now();
  // Signal handlers go in before the listening line: a script may signal as soon as it reads it.
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      void kmock.close().then(() => resolve(0));
    };
    signals.once('SIGINT', () => stop('SIGINT'));
    signals.once('SIGTERM', () => stop('SIGTERM'));
  });
  if (kmock.clock.view().mode === 'manual' && kmock.adminUrl === undefined) {
    logger.warn('the clock is manual and there is no --admin-port: nothing can advance it, so no broker timer will fire');
  }
  // One line per listener. kmock's default single PLAINTEXT listener keeps the bare line that
  // scripts wait for; named or secured listeners say their name and protocol after it.
  for (const l of kmock.listeners) {
    const plainDefault = kmock.listeners.length === 1 && l.name === 'PLAINTEXT' && l.protocol === 'PLAINTEXT';
    io.stdout(plainDefault ? `listening on ${l.host || "0.0.0.0"}:${l.port}\n` : `listening on ${l.host || "0.0.0.0"}:${l.port} ${l.name} ${l.protocol}\n`);
  }
  if (kmock.tls !== undefined) io.stdout(`TLS CA in ${kmock.tls.caPath}\n`);
  if (kmock.adminUrl !== undefined) io.stdout(`admin API on ${kmock.adminUrl}\n`);
  logger.info(
    {
      host: kmock.host,
      port: kmock.port,
      advertised: kmock.bootstrapServers,
      listeners: kmock.listeners.map((l) => `${l.name}://${l.bootstrapServers} (${l.protocol})`),
      nodeId: config.nodeId,
      admin: kmock.adminUrl,
      clock: kmock.clock.view().mode,
      ...(config.deterministic ? { deterministic: true, seed: config.seed } : {}),
    },
    'kmock started',
  );
  return stopped;
}
