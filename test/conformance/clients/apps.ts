// The client-matrix apps (PROTOCOL.md): how each is launched, what it can do, and whether it can
// run on this machine at all. A missing client is reported as unavailable, never as agreeing.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { commandMissing, pythonModuleMissing, PYTHON } from '../../support/clients/processes.js';

export interface ClientApp {
  /** Short id used in reports and in --clients filters: "kafkajs", "java-3.9.1", … */
  id: string;
  /** What it is, for the report: "kafkajs 2.2.4". */
  label: string;
  /** Can its consumer name itself (group.instance.id)? */
  staticMembership: boolean;
  /** Has it an admin call that describes a group? */
  describe: boolean;
  /** Can its admin remove a static member by instance id (KIP-345's admin path)? */
  remove: boolean;
  /** Has it a transactional producer (and a read_committed consumer)? */
  transactions: boolean;
  /**
   * Does its assignor deal the partitions out in an order the broker chose, one that Kafka takes
   * from a hash map (the members of the JoinGroup answer, the partitions of a Metadata answer)?
   * Which member gets which partition is then not comparable between brokers, only how many each
   * gets. The other clients' assignors sort the members by member id (or instance id, both made
   * by the broker from the client's ids) and the partitions by number.
   */
  assignmentFollowsBrokerOrder?: boolean;
  /**
   * How it authenticates on the SASL_SSL pass (PROTOCOL.md, "Security options"): the SASL
   * mechanism it uses there (default SCRAM-SHA-256; PLAIN for a client without SCRAM), or why it
   * cannot connect to a SASL_SSL listener at all (its steps are then n/a).
   */
  saslSsl?: { mechanism: 'SCRAM-SHA-256' | 'PLAIN' } | { cannot: string };
  /** Session timeout for its consumers when the default (driver.ts) is too short for its start-up. */
  sessionTimeoutMs?: number;
  /** The argv prefix to which `<role> --bootstrap …` is appended, or why it cannot run here. */
  resolve(): Promise<{ argv: string[] } | { unavailable: string }>;
}

function here(file: string): string {
  return fileURLToPath(new URL(`./${file}`, import.meta.url));
}

function nodeApp(
  id: string,
  label: string,
  file: string,
  caps: Pick<ClientApp, 'staticMembership' | 'describe' | 'remove' | 'transactions' | 'sessionTimeoutMs' | 'assignmentFollowsBrokerOrder'>,
): ClientApp {
  return { id, label, ...caps, resolve: async () => ({ argv: [process.execPath, '--import', 'tsx', here(file)] }) };
}

function pythonApp(
  id: string,
  label: string,
  file: string,
  module: string,
  debianPackage: string,
  caps: Pick<ClientApp, 'staticMembership' | 'describe' | 'remove' | 'transactions'>,
  extra?: () => string | undefined,
): ClientApp {
  return {
    id,
    label,
    ...caps,
    async resolve() {
      const missing = pythonModuleMissing(module, debianPackage) ?? extra?.();
      return missing ? { unavailable: missing } : { argv: [PYTHON, here(file)] };
    },
  };
}

/** `java/build.sh VERSION` compiles MatrixApp against that kafka-clients (cached) and prints the java command. */
function javaApp(version: string): ClientApp {
  let resolved: Promise<{ argv: string[] } | { unavailable: string }> | undefined;
  return {
    id: `java-${version}`,
    label: `Java kafka-clients ${version}`,
    staticMembership: true,
    describe: true,
    remove: true,
    transactions: true,
    resolve() {
      resolved ??= new Promise((resolve) => {
        const child = spawn('bash', [here('java/build.sh'), version], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.once('error', (e) => resolve({ unavailable: `java/build.sh: ${e.message}` }));
        child.once('close', (code) => {
          const line = out.trim().split('\n').pop() ?? '';
          if (code === 0 && line !== '') resolve({ argv: line.split(/\s+/) });
          else resolve({ unavailable: `java/build.sh ${version} exited ${code}: ${err.trim().split('\n').slice(-3).join(' / ')}` });
        });
      });
      return resolved;
    },
  };
}

export const JAVA_CLIENT_VERSIONS = (process.env.KMOCK_MATRIX_JAVA ?? '3.9.1,4.4.0').split(',').filter(Boolean);

export const CLIENT_APPS: ClientApp[] = [
  // Its roundrobin assignor sorts the members but takes the partitions in the Metadata answer's order.
  nodeApp('kafkajs', 'kafkajs 2.2.4', 'kafkajs-app.ts', { staticMembership: false, describe: true, remove: false, transactions: true, assignmentFollowsBrokerOrder: true }),
  // Loading @platformatic/kafka costs 2.5-3 s of CPU: on a loaded 2-core machine a restarted member
  // can take longer than 6 s to rejoin, which would expire its session and make the static restart
  // a rebalance on any broker.
  // Its roundrobin assignor takes the members in the JoinGroup answer's order.
  nodeApp('platformatic', '@platformatic/kafka 1.35.0', 'platformatic-app.ts', {
    staticMembership: true,
    describe: true,
    remove: false,
    transactions: true,
    sessionTimeoutMs: 20_000,
    assignmentFollowsBrokerOrder: true,
  }),
  // Debian's binding is confluent-kafka 1.7.0 on librdkafka 2.0.2: no describe_consumer_groups yet,
  // but AdminClient.list_groups(group=G) describes a group (DescribeGroups v0: no instance ids).
  pythonApp('confluent', 'librdkafka 2.0.2 (python3-confluent-kafka 1.7.0)', 'confluent_app.py', 'confluent_kafka', 'python3-confluent-kafka', {
    staticMembership: true,
    describe: true,
    remove: false,
    transactions: true,
  }),
  pythonApp('kcat', 'librdkafka 2.0.2 (kcat)', 'kcat_app.py', 'json', 'kcat', { staticMembership: true, describe: false, remove: false, transactions: true }, () =>
    commandMissing('kcat', 'kcat'),
  ),
  // kafka-python 2.0.2 has no transactional (nor idempotent) producer.
  pythonApp('kafka-python', 'kafka-python 2.0.2 (python3-kafka)', 'kafka_python_app.py', 'kafka', 'python3-kafka', {
    staticMembership: false,
    describe: true,
    remove: false,
    transactions: false,
  }),
  ...JAVA_CLIENT_VERSIONS.map(javaApp),
];
