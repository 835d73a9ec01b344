// Security benchmark (issue #14): kmock and Kafka 3.9.1 in the same run, each serving PLAINTEXT,
// SSL and SASL_SSL (SCRAM-SHA-256) with the same certificate (kmock's --tls one, given to Kafka as
// a PEM keystore), as ratios:
//   - connection set-up: a new connection until it can send its first request (TCP, the TLS
//     handshake, and on SASL_SSL the SaslHandshake and the two SCRAM round trips), median of N;
//   - kafkajs produce (acks=1, 1 KiB values, batches of 500) and consume of the same records.
//
//   npx tsx bench/broker/security.ts [--quick] [--no-kafka] [--out FILE]
//
// Writes bench/results/security.md. The machine is shared: only ratios within one run count.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { decodeResponse, encodeRequest, type ApiTypes } from '../../src/codec/index.js';
import { REPO } from './peers.js';

const quick = process.argv.includes('--quick');
const noKafka = process.argv.includes('--no-kafka');
const outIdx = process.argv.indexOf('--out');
const OUT = outIdx >= 0 ? process.argv[outIdx + 1] : join(REPO, 'bench', 'results', quick ? 'security.quick.md' : 'security.md');
const CONNECTS = quick ? 20 : 60;
const MESSAGES = quick ? 20_000 : 100_000;
const VALUE = Buffer.alloc(1024, 0x61);
const USER = 'bench';
const PASSWORD = 'bench-secret';

interface Listeners {
  PLAINTEXT: string;
  SSL: string;
  SASL_SSL: string;
}

function progress(s: string): void {
  process.stderr.write(`${s}\n`);
}

// ---- one connection, by hand ------------------------------------------------------------------------

/** Frames in, frames out, on a plain or TLS socket. */
class Conn {
  private buf = Buffer.alloc(0);
  private waiter: ((f: Buffer) => void) | undefined;
  private corr = 1;
  constructor(private readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      this.drain();
    });
  }
  private drain(): void {
    if (this.waiter === undefined || this.buf.length < 4) return;
    const n = this.buf.readInt32BE(0);
    if (this.buf.length < 4 + n) return;
    const f = this.buf.subarray(4, 4 + n);
    this.buf = this.buf.subarray(4 + n);
    const w = this.waiter;
    this.waiter = undefined;
    w(f);
  }
  async request<K extends keyof ApiTypes>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    const frame = new Promise<Buffer>((resolve) => {
      this.waiter = resolve;
    });
    this.socket.write(encodeRequest({ apiKey, apiVersion: version, correlationId: this.corr++, clientId: 'bench' }, body));
    this.drain();
    return decodeResponse(await frame, apiKey, version).body as ApiTypes[K]['response'];
  }
  close(): void {
    this.socket.destroy();
  }
}

async function open(address: string, tls: boolean, ca: string): Promise<Conn> {
  const [host, port] = address.split(':');
  const socket: Socket = tls ? tlsConnect({ host, port: Number(port), ca, servername: undefined, noDelay: true } as never) : netConnect({ host, port: Number(port), noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
    socket.once('error', reject);
  });
  return new Conn(socket);
}

/** RFC 5802 SCRAM-SHA-256, the client's side. */
async function scram(conn: Conn): Promise<void> {
  const hs = await conn.request(17, 1, { mechanism: 'SCRAM-SHA-256' });
  if (hs.errorCode !== 0) throw new Error(`SaslHandshake error ${hs.errorCode}`);
  const nonce = randomBytes(18).toString('base64');
  const bare = `n=${USER},r=${nonce}`;
  const first = await conn.request(36, 2, { authBytes: Buffer.from(`n,,${bare}`) });
  if (first.errorCode !== 0) throw new Error(`SCRAM first: ${first.errorMessage}`);
  const serverFirst = first.authBytes.toString();
  const attrs = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
  const salted = pbkdf2Sync(PASSWORD, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const withoutProof = `c=biws,r=${attrs.r}`;
  const authMessage = `${bare},${serverFirst},${withoutProof}`;
  const signature = createHmac('sha256', storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
  const final = await conn.request(36, 2, { authBytes: Buffer.from(`${withoutProof},p=${proof.toString('base64')}`) });
  if (final.errorCode !== 0) throw new Error(`SCRAM final: ${final.errorMessage}`);
}

/** Median ms from connect() until the connection may send its first request. */
async function setup(listeners: Listeners, ca: string): Promise<Record<keyof Listeners, number>> {
  const out = {} as Record<keyof Listeners, number>;
  for (const name of ['PLAINTEXT', 'SSL', 'SASL_SSL'] as const) {
    const times: number[] = [];
    for (let i = 0; i < CONNECTS + 3; i++) {
      const t0 = performance.now();
      const c = await open(listeners[name], name !== 'PLAINTEXT', ca);
      if (name === 'SASL_SSL') await scram(c);
      else await c.request(18, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' });
      if (i >= 3) times.push(performance.now() - t0);
      c.close();
    }
    times.sort((a, b) => a - b);
    out[name] = times[Math.floor(times.length / 2)]!;
  }
  return out;
}

// ---- kafkajs throughput --------------------------------------------------------------------------------

async function throughput(listeners: Listeners, ca: string, topic: string): Promise<Record<'SSL' | 'SASL_SSL', { produceMBs: number; consumeMBs: number }>> {
  const out = {} as Record<'SSL' | 'SASL_SSL', { produceMBs: number; consumeMBs: number }>;
  for (const name of ['SSL', 'SASL_SSL'] as const) {
    const sasl: SASLOptions | undefined = name === 'SASL_SSL' ? { mechanism: 'scram-sha-256', username: USER, password: PASSWORD } : undefined;
    const kafka = new Kafka({ clientId: `bench-${name}`, brokers: [listeners[name]], ssl: { ca: [ca] }, sasl, logLevel: logLevel.NOTHING });
    const t = `${topic}-${name.toLowerCase()}`;
    const producer = kafka.producer();
    await producer.connect();
    const batch = Array.from({ length: 500 }, () => ({ value: VALUE }));
    const p0 = performance.now();
    for (let sent = 0; sent < MESSAGES; sent += batch.length) await producer.send({ topic: t, acks: 1, messages: batch });
    const produceS = (performance.now() - p0) / 1000;
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `bench-${t}`, maxBytes: 16 << 20 });
    await consumer.connect();
    await consumer.subscribe({ topic: t, fromBeginning: true });
    let got = 0;
    let c0 = 0;
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachBatch: async ({ batch: b }) => {
          if (c0 === 0) c0 = performance.now();
          got += b.messages.length;
          if (got >= MESSAGES) resolve();
        },
      });
    });
    const consumeS = (performance.now() - c0) / 1000;
    await consumer.disconnect();
    const mb = (MESSAGES * VALUE.length) / 1e6;
    out[name] = { produceMBs: mb / produceS, consumeMBs: mb / consumeS };
  }
  return out;
}

// ---- the brokers -----------------------------------------------------------------------------------------

async function startKmockProcess(dir: string): Promise<{ listeners: Listeners; ca: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [join(REPO, 'bin', 'kmock.js'), 'start', '--log-level', 'warn', '--tls', '--tls-dir', dir,
    '--set', 'listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0', '--set', 'sasl.enabled.mechanisms=SCRAM-SHA-256', '--sasl-users', `${USER}:${PASSWORD}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const listeners = await new Promise<Listeners>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`kmock did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const found = [...out.matchAll(/^listening on (\S+) (\S+) \S+$/gm)];
      if (found.length === 3 && /^TLS CA in /m.test(out)) {
        clearTimeout(t);
        resolve(Object.fromEntries(found.map((m) => [m[2], m[1]])) as unknown as Listeners);
      }
    });
  });
  return {
    listeners,
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Kafka 3.9.1 with the same three listeners, kmock's certificate as its PEM keystore and the SCRAM user created at format time. */
function startKafka(certDir: string): { listeners: Listeners; stop: () => void } {
  const keystore = join(certDir, 'kafka-keystore.pem');
  // Kafka's PemParser wants whitespace after each END line.
  writeFileSync(keystore, `${readFileSync(join(certDir, 'server.key'), 'utf8').trim()}\n${readFileSync(join(certDir, 'server.pem'), 'utf8').trim()}\n`);
  const script = join(REPO, 'scripts', 'kafka-reference');
  const out = execFileSync(script, ['start', '3.9.1', '--listener', 'SSL:SSL', '--listener', 'SASL_SSL:SASL_SSL',
    '--add-scram', `SCRAM-SHA-256=[name=${USER},password=${PASSWORD}]`,
    '--set', 'ssl.keystore.type=PEM', '--set', `ssl.keystore.location=${keystore}`,
    '--set', 'sasl.enabled.mechanisms=SCRAM-SHA-256',
    '--set', 'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const plain = /listening on (\S+)/.exec(out)?.[1];
  const named = Object.fromEntries([...out.matchAll(/^listener (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
  if (plain === undefined || named.SSL === undefined || named.SASL_SSL === undefined) throw new Error(`kafka-reference start printed: ${out}`);
  return { listeners: { PLAINTEXT: plain, SSL: named.SSL, SASL_SSL: named.SASL_SSL }, stop: () => execFileSync(script, ['stop', '--port', plain.split(':')[1]!], { stdio: 'ignore' }) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kmock-bench-tls-'));
  const results: Array<{ name: string; setup: Record<keyof Listeners, number>; tput: Awaited<ReturnType<typeof throughput>> }> = [];
  const load0 = loadavg()[0].toFixed(2);
  try {
    const k = await startKmockProcess(dir);
    try {
      progress('kmock: connection set-up');
      const s = await setup(k.listeners, k.ca);
      progress('kmock: throughput');
      results.push({ name: 'kmock', setup: s, tput: await throughput(k.listeners, k.ca, 'tput') });
    } finally {
      await k.stop();
    }
    if (!noKafka) {
      const kafka = startKafka(dir);
      try {
        const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
        progress('Kafka 3.9.1: connection set-up');
        const s = await setup(kafka.listeners, ca);
        progress('Kafka 3.9.1: throughput');
        results.push({ name: 'Kafka 3.9.1', setup: s, tput: await throughput(kafka.listeners, ca, 'tput') });
      } finally {
        kafka.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const kafka = results.find((r) => r.name.startsWith('Kafka'));
  const ratio = (a: number, b: number | undefined, lowerIsBetter = false) => (b === undefined ? '—' : `${(lowerIsBetter ? b / a : a / b).toFixed(2)}×`);
  const rows = [
    '# Security benchmark (issue #14)',
    '',
    `Written by \`npx tsx bench/broker/security.ts${quick ? ' --quick' : ''}\`; load average at start ${load0}. kmock and Kafka 3.9.1 in the same run, one after the other, with the same certificate (ECDSA P-256, kmock's \`--tls\`). Ratios: how many times kmock's figure is better than Kafka's (set-up: Kafka's time over kmock's).`,
    '',
    `## Connection set-up (median of ${CONNECTS}, ms)`,
    '',
    'From connect() until the connection may send its first request: TCP (+ TLS handshake) + ApiVersions, or on SASL_SSL the TLS handshake + SaslHandshake + two SCRAM-SHA-256 round trips (4096 iterations).',
    '',
    '| broker | PLAINTEXT | SSL | SASL_SSL (SCRAM) | SSL ÷ Kafka | SASL_SSL ÷ Kafka |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${r.setup.PLAINTEXT.toFixed(2)} | ${r.setup.SSL.toFixed(2)} | ${r.setup.SASL_SSL.toFixed(2)} | ${ratio(r.setup.SSL, kafka?.setup.SSL, true)} | ${ratio(r.setup.SASL_SSL, kafka?.setup.SASL_SSL, true)} |`),
    '',
    `## kafkajs throughput (${MESSAGES.toLocaleString('en')} records of 1 KiB, batches of 500, acks=1; MB/s)`,
    '',
    '| broker | SSL produce | SSL consume | SASL_SSL produce | SASL_SSL consume | produce ÷ Kafka (SSL / SASL_SSL) | consume ÷ Kafka |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${r.tput.SSL.produceMBs.toFixed(1)} | ${r.tput.SSL.consumeMBs.toFixed(1)} | ${r.tput.SASL_SSL.produceMBs.toFixed(1)} | ${r.tput.SASL_SSL.consumeMBs.toFixed(1)} | ${ratio(r.tput.SSL.produceMBs, kafka?.tput.SSL.produceMBs)} / ${ratio(r.tput.SASL_SSL.produceMBs, kafka?.tput.SASL_SSL.produceMBs)} | ${ratio(r.tput.SSL.consumeMBs, kafka?.tput.SSL.consumeMBs)} / ${ratio(r.tput.SASL_SSL.consumeMBs, kafka?.tput.SASL_SSL.consumeMBs)} |`),
    '',
  ];
  writeFileSync(OUT, rows.join('\n'));
  progress(`wrote ${OUT}`);
  process.stdout.write(rows.join('\n'));
}

await main();
