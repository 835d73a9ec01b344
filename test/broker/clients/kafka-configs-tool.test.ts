// `kafka-configs.sh` (kafka.admin.ConfigCommand from the Kafka 3.9.1 jars that
// scripts/kafka-reference caches) against a real listening kmock, as an operator runs it: topic
// configs added and deleted (IncrementalAlterConfigs), broker 1's and the cluster default's
// (ConfigCommand 3.9 reads the broker's dynamic configs, then replaces them with AlterConfigs),
// each followed by --describe, whose lines (value, sensitive, synonyms with their sources) are
// compared whole. The same commands against Kafka 3.9.1 print the same lines:
// KMOCK_CONFIGS_TEST_BOOTSTRAP=host:port runs this test against a Kafka started by
// `scripts/kafka-reference start 3.9.1` (it passes there too; the describes are repeated until a
// change has reached the broker, which takes a moment on a KRaft broker).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchReference } from '../../conformance/support/reference.js';
import { run } from '../../support/clients/processes.js';
import { waitFor } from '../../support/clients/wait.js';
import { createTopic } from '../../support/clients/txn.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';

const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
if (libs === undefined && required) throw new Error(`Kafka 3.9.1's jars are required here: ${found.reason}`);

const EXTERNAL = process.env.KMOCK_CONFIGS_TEST_BOOTSTRAP || undefined;
let kmock: Kmock | undefined;
let bootstrap: string;

beforeAll(async () => {
  if (EXTERNAL !== undefined) {
    bootstrap = EXTERNAL;
    return;
  }
  kmock = await startKmock();
  bootstrap = kmock.bootstrapServers;
});
afterAll(async () => {
  await kmock?.close();
});

/** Runs kafka-configs.sh with `args`; its stdout. */
async function configs(...args: string[]): Promise<string> {
  const r = await run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.ConfigCommand', '--bootstrap-server', bootstrap, ...args], {
    timeoutMs: 60_000,
  });
  if (r.code !== 0) throw new Error(`kafka-configs.sh ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(-2000)}${r.stdout}`);
  return r.stdout;
}

/** --describe until it prints `expected` (a KRaft broker applies a change a moment after answering). */
async function describedAs(args: string[], expected: string): Promise<void> {
  let last = '';
  await waitFor(`kafka-configs.sh ${args.join(' ')} to print the change`, async () => {
    last = await configs(...args, '--describe');
    return last === expected;
  }, 20_000, 200).catch(() => undefined);
  expect(last).toBe(expected);
}

const unique = (base: string) => (EXTERNAL === undefined ? base : `${base}-${Date.now().toString(36)}`);

describe.skipIf(libs === undefined)('kafka-configs.sh (Kafka 3.9.1 tools) against kmock', () => {
  it('adds and deletes topic configs, describes them with their synonyms', async () => {
    const topic = unique('configs-tool');
    await createTopic(bootstrap, topic, 1);
    const entity = ['--entity-type', 'topics', '--entity-name', topic];
    expect(await configs(...entity, '--alter', '--add-config', 'retention.ms=1000,cleanup.policy=[compact,delete]')).toBe(
      `Completed updating config for topic ${topic}.\n`,
    );
    await describedAs(
      entity,
      `Dynamic configs for topic ${topic} are:\n` +
        '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n' +
        '  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}\n',
    );
    expect(await configs(...entity, '--alter', '--delete-config', 'retention.ms')).toBe(`Completed updating config for topic ${topic}.\n`);
    await describedAs(
      entity,
      `Dynamic configs for topic ${topic} are:\n` +
        '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n',
    );
    // A bad value: ConfigCommand prints Kafka's message and exits 1.
    const bad = await run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.ConfigCommand', '--bootstrap-server', bootstrap, ...entity, '--alter', '--add-config', 'retention.ms=soon'], {
      timeoutMs: 60_000,
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toContain('Invalid value soon for configuration retention.ms: Not a number of type LONG');
  });

  it('alters broker 1 and the cluster default, then describes both; deleting falls back a layer', async () => {
    const broker = ['--entity-type', 'brokers', '--entity-name', '1'];
    const defaults = ['--entity-type', 'brokers', '--entity-default'];
    try {
      expect(await configs(...broker, '--alter', '--add-config', 'log.retention.ms=100000')).toBe('Completed updating config for broker 1.\n');
      expect(await configs(...defaults, '--alter', '--add-config', 'log.retention.ms=200000,log.segment.bytes=100000000')).toBe(
        'Completed updating default config for brokers in the cluster.\n',
      );
      await describedAs(
        broker,
        'Dynamic configs for broker 1 are:\n' +
          '  log.retention.ms=100000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=100000, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=200000, DEFAULT_CONFIG:log.retention.hours=168}\n',
      );
      await describedAs(
        defaults,
        'Default configs for brokers in the cluster are:\n' +
          '  log.retention.ms=200000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=200000}\n' +
          '  log.segment.bytes=100000000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=100000000}\n',
      );
      // A topic without overrides takes the broker's values.
      const topic = unique('configs-tool-broker');
      await createTopic(bootstrap, topic, 1);
      const all = await configs('--entity-type', 'topics', '--entity-name', topic, '--describe', '--all');
      expect(all).toContain(
        '  retention.ms=100000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=100000, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=200000, DEFAULT_CONFIG:log.retention.hours=168}\n',
      );
      expect(all).toContain(
        '  segment.bytes=100000000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=100000000, DEFAULT_CONFIG:log.segment.bytes=1073741824}\n',
      );
      expect(await configs(...broker, '--alter', '--delete-config', 'log.retention.ms')).toBe('Completed updating config for broker 1.\n');
      await describedAs(broker, 'Dynamic configs for broker 1 are:\n');
      // A config Kafka cannot change at run time.
      const refused = await run('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`, 'kafka.admin.ConfigCommand', '--bootstrap-server', bootstrap, ...broker, '--alter', '--add-config', 'log.retention.hours=1'], {
        timeoutMs: 60_000,
      });
      expect(refused.code).toBe(1);
      expect(refused.stdout + refused.stderr).toContain('Cannot update these configs dynamically: Set(log.retention.hours)');
    } finally {
      await configs(...defaults, '--alter', '--delete-config', 'log.retention.ms,log.segment.bytes').catch(() => undefined);
      await configs(...broker, '--alter', '--delete-config', 'log.retention.ms').catch(() => undefined);
    }
    await describedAs(defaults, 'Default configs for brokers in the cluster are:\n');
  });

  it('sets a broker logger level (BROKER_LOGGER)', async () => {
    const loggers = ['--entity-type', 'broker-loggers', '--entity-name', '1'];
    expect(await configs(...loggers, '--alter', '--add-config', 'root=ERROR')).toBe("Completed updating config for broker-logger 1.\n");
    const out = await waitFor('root at ERROR', async () => {
      const o = await configs(...loggers, '--describe');
      return o.includes('root=ERROR') ? o : undefined;
    });
    expect(out).toContain('  root=ERROR sensitive=false synonyms={}\n');
    await configs(...loggers, '--alter', '--add-config', 'root=INFO');
  });
});
