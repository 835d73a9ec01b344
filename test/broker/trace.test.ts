// --trace: every request and response, decoded, as one JSON line each (the view people otherwise
// need Wireshark for).
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createJoinGroupRequest, createMetadataRequest } from '../../src/codec/index.js';
import { startKmock } from '../../src/broker/server.js';
import { RawClient } from '../support/raw-client.js';

it('writes one JSON line per request with api, version, client, connection, timing and both bodies', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  const kmock = await startKmock({ trace: true, logger: pino({ level: 'info' }, sink), groupInitialRebalanceDelayMs: 0 });
  try {
    const c = await RawClient.connect(kmock.bootstrapServers);
    await c.request(3, 12, createMetadataRequest({ topics: null }));
    await c.request(
      11,
      9,
      createJoinGroupRequest({
        groupId: 'g',
        sessionTimeoutMs: 10000,
        rebalanceTimeoutMs: 10000,
        memberId: '',
        groupInstanceId: 'i-1',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.from([1, 2]) }],
        reason: 'starting up',
      }),
    );
    c.close();
    const traces = lines.filter((l) => l.trace === true);
    expect(traces.map((t) => [t.api, t.version])).toEqual([
      ['Metadata', 12],
      ['JoinGroup', 9],
    ]);
    const join = traces[1] as { client: string; connection: number; ms: number; request: Record<string, unknown>; response: Record<string, unknown> };
    expect(join.client).toBe('kmock-raw-client');
    expect(typeof join.connection).toBe('number');
    expect(join.ms).toBeGreaterThanOrEqual(0);
    expect(join.request).toMatchObject({ groupId: 'g', groupInstanceId: 'i-1', reason: 'starting up', protocols: [{ name: 'range', metadata: '0102' }] });
    expect(join.response).toMatchObject({ errorCode: 0, generationId: 1, skipAssignment: false });
    // The KIP-800 reason also reaches the structured log with the rebalance it caused.
    const rebalance = lines.find((l) => (l.group as { type?: string } | undefined)?.type === 'rebalance-started');
    expect(JSON.stringify(rebalance)).toContain('starting up');
  } finally {
    await kmock.close();
  }
});
