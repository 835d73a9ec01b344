// The apps' security options (PROTOCOL.md, "Security options") reach each client: every app's
// producer and group consumer, given the options the SASL_SSL pass gives it, connect to kmock's
// SASL_SSL listener (the pass's own settings: matrix.ts startSaslSslKmock) and authenticate as the
// pass's user with the app's mechanism, as kmock's connection list shows; a wrong password fails.
// An app that cannot run on this machine (client not installed) is skipped, and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kmock } from '../../../src/broker/server.js';
import { createCreateTopicsRequest } from '../../../src/codec/index.js';
import { ClientProcess } from '../../support/clients/processes.js';
import { RawClient } from '../../support/raw-client.js';
import { waitFor } from '../../support/clients/wait.js';
import { CLIENT_APPS } from './apps.js';
import { securityArgs, type MatrixSecurity } from './driver.js';
import { makeMatrixCertificate, startSaslSslKmock } from './matrix.js';

let cert: Awaited<ReturnType<typeof makeMatrixCertificate>>;
let kmock: Kmock;
let security: MatrixSecurity;
const processes: ClientProcess[] = [];

beforeAll(async () => {
  cert = await makeMatrixCertificate();
  ({ kmock, security } = await startSaslSslKmock(cert));
});

/** A one-partition topic, made on kmock's PLAINTEXT listener (as the driver makes its topics). */
async function createTopic(topic: string): Promise<void> {
  const c = await RawClient.connect(kmock.bootstrapServers);
  try {
    const res = await c.request(19, 4, createCreateTopicsRequest({ topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }));
    expect(res.topics[0]?.errorCode).toBe(0);
  } finally {
    c.close();
  }
}

afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill('SIGKILL', 3000)));
  await kmock?.close();
  await cert?.remove();
});

// The apps run side by side: most of each test is waiting for a client to start or give up.
describe.concurrent('client-matrix apps over SASL_SSL (the security options)', () => {
  for (const app of CLIENT_APPS) {
    it(`${app.id}: produce and a group consumer authenticate on the SASL_SSL listener`, async (ctx) => {
      const resolved = await app.resolve();
      if ('unavailable' in resolved) {
        ctx.skip(`${app.id} unavailable: ${resolved.unavailable}`);
        return;
      }
      const args = securityArgs(app, security);
      if (!Array.isArray(args)) {
        ctx.skip(`${app.id} cannot connect to SASL_SSL: ${args.cannot}`);
        return;
      }
      const mechanism = args[args.indexOf('--sasl-mechanism') + 1];
      const [cmd, ...prefix] = resolved.argv;
      const start = (name: string, role: string, roleArgs: string[], sec = args) => {
        const p = new ClientProcess(`${app.id}:${name}`, cmd, [...prefix, role, '--bootstrap', security.bootstrap, ...roleArgs, ...sec]);
        processes.push(p);
        return p;
      };
      const topic = `sec-${app.id.replace(/\W/g, '')}`;
      await createTopic(topic);
      const producer = start('produce', 'produce', ['--topic', topic, '--from', '0', '--count', '3', '--partitions', '1']);
      await producer.waitForExit(90_000);
      expect(producer.events.at(-1), producer.describe()).toEqual({ event: 'produced', count: 3 });

      const clientId = `${topic}-c1`;
      const consumer = start('consume', 'consume', ['--topic', topic, '--group', `${topic}-g`, '--client-id', clientId, '--session-timeout-ms', '20000', '--max-seconds', '90']);
      await waitFor(`${app.id} consumer reading the 3 records`, () => {
        if (!consumer.running) throw new Error(consumer.describe());
        return consumer.ofType('message').length >= 3 || undefined;
      }, 90_000, 100);
      const mine = kmock.control.connections().filter((c) => c.clientId === clientId);
      expect(mine.length).toBeGreaterThan(0);
      for (const c of mine) {
        expect({ listener: c.listener, securityProtocol: c.securityProtocol, principal: String(c.principal), saslMechanism: c.saslMechanism }).toEqual({
          listener: 'SASL_SSL',
          securityProtocol: 'SASL_SSL',
          principal: `User:${security.username}`,
          saslMechanism: mechanism,
        });
      }
      expect(consumer.ofType('message').map((e) => e.key)).toEqual(['k0', 'k1', 'k2']);
      await consumer.kill('SIGTERM', 30_000);

      // The password is the one given: a wrong one is refused.
      const wrong = args.map((a) => (a === security.password ? 'wrong-password' : a));
      const refused = start('produce-wrong-password', 'produce', ['--topic', topic, '--from', '3', '--count', '1', '--partitions', '1'], wrong);
      // (Some clients retry an authentication failure until their timeouts: 40 s is enough to see none is produced.)
      await refused.waitForExit(40_000).catch(() => refused.kill('SIGKILL'));
      expect(refused.events.some((e) => e.event === 'produced'), refused.describe()).toBe(false);
    }, 240_000);
  }
});
