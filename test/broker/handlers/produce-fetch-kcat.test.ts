// librdkafka (through kcat) producing to and consuming from kmock: Produce, Fetch and
// ListOffsets as a C client uses them, with every compression codec and idempotence.
// Skipped, with the reason in its name, when kcat is not installed
// (apt-get install kcat).
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';

const haveKcat = spawnSync('kcat', ['-V'], { stdio: 'ignore' }).status === 0;
const title = haveKcat ? 'kcat (librdkafka)' : 'kcat (librdkafka) — SKIPPED: kcat is not installed (apt-get install kcat)';

function kcat(args: string[], input?: string, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`kcat ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, timeoutMs);
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    p.stdin.end(input ?? '');
  });
}

describe.skipIf(!haveKcat)(title, () => {
  let kmock: Kmock;
  beforeAll(async () => {
    kmock = await startKmock();
  });
  afterAll(async () => {
    await kmock.close();
  });

  it('produces lines (acks=all) and consumes them back with offsets', async () => {
    kmock.broker.topics.create('kc', 1, 1);
    const b = kmock.bootstrapServers;
    const p = await kcat(['-P', '-b', b, '-t', 'kc', '-p', '0'], 'one\ntwo\nthree\n');
    expect(p.code, p.stderr).toBe(0);
    expect(kmock.broker.topics.get('kc')!.partitions[0].logEndOffset).toBe(3);
    const c = await kcat(['-C', '-b', b, '-t', 'kc', '-p', '0', '-o', 'beginning', '-e', '-f', '%o:%s\n']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toBe('0:one\n1:two\n2:three\n');
    const tail = await kcat(['-C', '-b', b, '-t', 'kc', '-p', '0', '-o', '1', '-e', '-f', '%o:%s\n']);
    expect(tail.stdout).toBe('1:two\n2:three\n');
  });

  it('every compression codec, and the idempotent producer', async () => {
    kmock.broker.topics.create('kz', 1, 1);
    const b = kmock.bootstrapServers;
    const expected: string[] = [];
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      const lines = [`${codec}-a`, `${codec}-b`];
      const p = await kcat(['-P', '-b', b, '-t', 'kz', '-p', '0', '-z', codec], lines.join('\n') + '\n');
      expect(p.code, p.stderr).toBe(0);
      expected.push(...lines);
    }
    const idem = await kcat(['-P', '-b', b, '-t', 'kz', '-p', '0', '-X', 'enable.idempotence=true'], 'i1\ni2\n');
    expect(idem.code, idem.stderr).toBe(0);
    expected.push('i1', 'i2');
    const c = await kcat(['-C', '-b', b, '-t', 'kz', '-p', '0', '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.trim().split('\n')).toEqual(expected);
    expect(kmock.broker.topics.get('kz')!.partitions[0].producers.size).toBe(1);
  });

  it('without ApiVersions, as a 0.8/0.9 client: Produce v0/v1 of magic 0 sets (every codec), Fetch v0/v1 down-converted', async () => {
    kmock.broker.topics.create('kold', 1, 1);
    const b = kmock.bootstrapServers;
    const old = (fallback: string) => ['-X', 'api.version.request=false', '-X', `broker.version.fallback=${fallback}`];
    const expected: string[] = [];
    for (const [fallback, codec] of [
      ['0.8.2.2', 'none'],
      ['0.8.2.2', 'gzip'],
      ['0.9.0', 'snappy'],
      ['0.9.0', 'lz4'],
      ['0.9.0', 'none'],
    ]) {
      const lines = [`${fallback}-${codec}-a`, `${fallback}-${codec}-b`];
      const p = await kcat(['-P', '-b', b, '-t', 'kold', '-p', '0', '-z', codec, ...old(fallback)], lines.join('\n') + '\n');
      expect(p.code, p.stderr).toBe(0);
      expected.push(...lines);
    }
    // The log holds v2 batches only, whatever the producers sent.
    expect(kmock.broker.topics.get('kold')!.partitions[0].storedBatches().every((x) => x[16] === 2)).toBe(true);
    for (const fallback of ['0.8.2.2', '0.9.0']) {
      const c = await kcat(['-C', '-b', b, '-t', 'kold', '-p', '0', '-o', 'beginning', '-e', '-f', '%o:%s\n', ...old(fallback)]);
      expect(c.code, c.stderr).toBe(0);
      expect(c.stdout.trim().split('\n')).toEqual(expected.map((v, i) => `${i}:${v}`));
      const tail = await kcat(['-C', '-b', b, '-t', 'kold', '-p', '0', '-o', '3', '-e', '-f', '%o:%s\n', ...old(fallback)]);
      expect(tail.stdout.trim().split('\n')).toEqual(expected.slice(3).map((v, i) => `${i + 3}:${v}`));
    }
  });

  it('queries offsets by timestamp (ListOffsets)', async () => {
    kmock.broker.topics.create('kq', 1, 1);
    const b = kmock.bootstrapServers;
    const before = Date.now() - 1;
    await kcat(['-P', '-b', b, '-t', 'kq', '-p', '0'], 'x\ny\n');
    const q = await kcat(['-Q', '-b', b, '-t', `kq:0:${before}`]);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout).toContain('kq [0] offset 0');
    const late = await kcat(['-Q', '-b', b, '-t', `kq:0:${Date.now() + 60_000}`]);
    expect(late.stdout).toContain('kq [0] offset -1');
  });
});
