// TLS and SASL listeners with the other client families, unchanged, as users configure them:
// librdkafka (python3-confluent-kafka and kcat) over SASL_SSL with SCRAM, kafka-python over SSL
// and over SASL_PLAINTEXT with PLAIN, and Kafka's own Java console producer and consumer over
// SASL_SSL (kafka-clients, with a PEM truststore). One kmock serves all four listeners, its
// certificate made at start (`tls: true`, the CA written to a temp dir).
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock, type KmockListener } from '../../../src/broker/server.js';
import { commandMissing, PYTHON, pythonModuleMissing, run } from '../../support/clients/processes.js';
import { fetchReference } from '../../conformance/support/reference.js';

const CI = process.env.CI === 'true';
const CONFLUENT = pythonModuleMissing('confluent_kafka', 'python3-confluent-kafka');
const KAFKA_PYTHON = pythonModuleMissing('kafka', 'python3-kafka');
const KCAT = commandMissing('kcat', 'kcat');
const found = await fetchReference('3.9.1');
const libs = found.reason === undefined ? found.libs : undefined;
if (CI && (CONFLUENT || KAFKA_PYTHON || KCAT || libs === undefined)) throw new Error(`security clients must run under CI: ${CONFLUENT ?? KAFKA_PYTHON ?? KCAT ?? found.reason}`);

let kmock: Kmock;
let dir: string;
const listener = (protocol: string): KmockListener => kmock.listeners.find((l) => l.protocol === protocol)!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kmock-sec-clients-'));
  kmock = await startKmock({
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
    saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    saslUsers: 'alice:alice-secret',
    tls: true,
    tlsDir: join(dir, 'tls'),
    groupInitialRebalanceDelayMs: 0,
  });
}, 60_000);
afterAll(async () => {
  await kmock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a python script (one JSON line out) and returns what it printed. */
async function python(script: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await run(PYTHON, ['-c', script, ...args], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`python exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

const CONFLUENT_ROUND_TRIP = `
import json, sys
from confluent_kafka import Producer, Consumer
bootstrap, ca, topic = sys.argv[1:4]
conf = {'bootstrap.servers': bootstrap, 'security.protocol': 'SASL_SSL', 'sasl.mechanisms': 'SCRAM-SHA-256',
        'sasl.username': 'alice', 'sasl.password': sys.argv[4], 'ssl.ca.location': ca}
p = Producer(conf)
errors = []
for i in range(5):
    p.produce(topic, value=('m%d' % i).encode(), on_delivery=lambda e, m: errors.append(str(e)) if e else None)
left = p.flush(20)
c = Consumer(dict(conf, **{'group.id': 'g-' + topic, 'auto.offset.reset': 'earliest'}))
c.subscribe([topic])
got = []
import time
deadline = time.time() + 30
while len(got) < 5 and time.time() < deadline:
    m = c.poll(0.5)
    if m is None: continue
    if m.error(): errors.append(str(m.error())); break
    got.append(m.value().decode())
c.close()
print(json.dumps({'left': left, 'errors': errors, 'got': got}))
`;

describe.skipIf(CONFLUENT !== undefined)('librdkafka (confluent-kafka) over SASL_SSL with SCRAM-SHA-256', () => {
  it('produces and consumes', async () => {
    const out = await python(CONFLUENT_ROUND_TRIP, listener('SASL_SSL').bootstrapServers, kmock.tls!.caPath, 'confluent-sasl-ssl', 'alice-secret');
    expect(out).toEqual({ left: 0, errors: [], got: ['m0', 'm1', 'm2', 'm3', 'm4'] });
  });

  it('a wrong password fails authentication', async () => {
    const script = `
import json, sys
from confluent_kafka.admin import AdminClient
a = AdminClient({'bootstrap.servers': sys.argv[1], 'security.protocol': 'SASL_SSL', 'sasl.mechanisms': 'SCRAM-SHA-256',
                 'sasl.username': 'alice', 'sasl.password': 'nope', 'ssl.ca.location': sys.argv[2]})
try:
    a.list_topics(timeout=5)
    print(json.dumps({'ok': True}))
except Exception as e:
    print(json.dumps({'ok': False, 'error': str(e)}))
`;
    const out = await python(script, listener('SASL_SSL').bootstrapServers, kmock.tls!.caPath);
    expect(out.ok).toBe(false);
  });
});

describe.skipIf(KCAT !== undefined)('kcat over SASL_SSL with SCRAM-SHA-512', () => {
  it('lists the broker at the SASL_SSL address and round-trips a record', async () => {
    const l = listener('SASL_SSL');
    const x = ['-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=SCRAM-SHA-512', '-X', 'sasl.username=alice', '-X', 'sasl.password=alice-secret', '-X', `ssl.ca.location=${kmock.tls!.caPath}`];
    const meta = await run('kcat', ['-b', l.bootstrapServers, ...x, '-L', '-J'], { timeoutMs: 30_000 });
    expect(meta.code).toBe(0);
    const brokers = (JSON.parse(meta.stdout) as { brokers: Array<{ name: string }> }).brokers;
    expect(brokers.map((b) => b.name)).toEqual([l.bootstrapServers]);
    const produced = await run('kcat', ['-b', l.bootstrapServers, ...x, '-P', '-t', 'kcat-sasl-ssl'], { stdin: 'one\ntwo\n', timeoutMs: 30_000 });
    expect(produced.code).toBe(0);
    const consumed = await run('kcat', ['-b', l.bootstrapServers, ...x, '-C', '-t', 'kcat-sasl-ssl', '-o', 'beginning', '-e', '-q'], { timeoutMs: 30_000 });
    expect(consumed.stdout.trim().split('\n')).toEqual(['one', 'two']);
  });
});

const KAFKA_PYTHON_ROUND_TRIP = `
import json, sys
from kafka import KafkaProducer, KafkaConsumer
bootstrap, protocol, topic = sys.argv[1:4]
extra = json.loads(sys.argv[4])
p = KafkaProducer(bootstrap_servers=bootstrap, security_protocol=protocol, **extra)
for i in range(3):
    p.send(topic, ('v%d' % i).encode()).get(timeout=20)
p.close()
c = KafkaConsumer(topic, bootstrap_servers=bootstrap, security_protocol=protocol, auto_offset_reset='earliest', consumer_timeout_ms=5000, **extra)
got = [m.value.decode() for m in c]
c.close()
print(json.dumps({'got': got}))
`;

describe.skipIf(KAFKA_PYTHON !== undefined)('kafka-python', () => {
  it('over SSL, trusting the CA', async () => {
    const out = await python(KAFKA_PYTHON_ROUND_TRIP, listener('SSL').bootstrapServers, 'SSL', 'kp-ssl', JSON.stringify({ ssl_cafile: kmock.tls!.caPath }));
    expect(out.got).toEqual(['v0', 'v1', 'v2']);
  });

  it('over SASL_PLAINTEXT with PLAIN', async () => {
    const out = await python(KAFKA_PYTHON_ROUND_TRIP, listener('SASL_PLAINTEXT').bootstrapServers, 'SASL_PLAINTEXT', 'kp-plain', JSON.stringify({ sasl_mechanism: 'PLAIN', sasl_plain_username: 'alice', sasl_plain_password: 'alice-secret' }));
    expect(out.got).toEqual(['v0', 'v1', 'v2']);
  });
});

describe.skipIf(libs === undefined)('Java kafka-clients (Kafka 3.9.1 console tools) over SASL_SSL with SCRAM-SHA-512', () => {
  it('the console producer writes and the console consumer reads', async () => {
    const l = listener('SASL_SSL');
    const props = join(dir, 'client.properties');
    writeFileSync(
      props,
      [
        'security.protocol=SASL_SSL',
        'sasl.mechanism=SCRAM-SHA-512',
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";',
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${kmock.tls!.caPath}`,
      ].join('\n'),
    );
    const java = ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`];
    const produced = await run('java', [...java, 'kafka.tools.ConsoleProducer', '--bootstrap-server', l.bootstrapServers, '--topic', 'java-sasl-ssl', '--producer.config', props], { stdin: 'a\nb\nc\n', timeoutMs: 90_000 });
    expect(produced.code, produced.stderr).toBe(0);
    const consumed = await run('java', [...java, 'org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', l.bootstrapServers, '--topic', 'java-sasl-ssl', '--from-beginning', '--max-messages', '3', '--consumer.config', props, '--timeout-ms', '30000'], { timeoutMs: 90_000 });
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.trim().split('\n')).toEqual(['a', 'b', 'c']);
  }, 180_000);
});
