// kafkajs 2.2.4, unchanged, against a kmock in strict-clients mode: a producer (plain, gzip and
// idempotent), a consumer group that rebalances as a second member joins and leaves, and admin
// calls. A correct client makes no finding; what kafkajs does is asserted exactly.
import { CompressionTypes } from 'kafkajs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import { KafkajsClients, settledAssignment } from '../../support/clients/kafkajs.js';
import { waitFor } from '../../support/clients/wait.js';

let kmock: Kmock;
let clients: KafkajsClients;

beforeEach(async () => {
  kmock = await startKmock({ groupInitialRebalanceDelayMs: 0, strictClients: true });
  clients = new KafkajsClients(kmock);
});
afterEach(async () => {
  await clients.closeAll();
  await kmock.close();
});

it('kafkajs producer, consumer group and admin: no findings', async () => {
  const admin = await clients.admin();
  expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true })).toBe(true);
  const producer = await clients.producer();
  await producer.send({ topic: 'orders', acks: -1, messages: [{ value: 'a' }, { value: 'b', timestamp: String(Date.now() - 5000) }, { value: 'c' }] });
  await producer.send({ topic: 'orders', compression: CompressionTypes.GZIP, messages: [{ value: 'd' }, { value: 'e' }] });
  const idempotent = await clients.producer({ idempotent: true, maxInFlightRequests: 1 });
  for (let i = 0; i < 3; i++) await idempotent.send({ topic: 'orders', acks: -1, messages: [{ value: `i${i}`, partition: 0 }, { value: `j${i}`, partition: 1 }] });

  const first = clients.consumer('first', 'g');
  await first.start('orders');
  await waitFor('first consumer has all partitions', () => settledAssignment(kmock, 'g', 'orders', [first])?.get(first)?.length === 2, 20_000);
  const second = clients.consumer('second', 'g');
  await second.start('orders');
  await waitFor('two members share the partitions', () => settledAssignment(kmock, 'g', 'orders', [first, second]) !== undefined, 20_000);
  await waitFor('every record consumed', () => first.values().length + second.values().length >= 11, 20_000);
  await second.stop();
  await waitFor('the first consumer has both partitions again', () => settledAssignment(kmock, 'g', 'orders', [first])?.get(first)?.length === 2, 20_000);
  await admin.describeGroups(['g']);
  await admin.fetchTopicMetadata({ topics: ['orders'] });

  // the group went through its rebalances (join, second member, leave), so the group checks saw them
  expect(kmock.control.group('g').generationId).toBeGreaterThanOrEqual(3);
  expect(kmock.control.strictClients()).toEqual({ enabled: true, total: 0, kinds: [] });
}, 90_000);
