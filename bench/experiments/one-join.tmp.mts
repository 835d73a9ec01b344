import kafkajs from 'kafkajs';
const { Kafka, logLevel } = kafkajs;
const bs = process.argv[2];
const kafka = new Kafka({ clientId: 'one', brokers: [bs], logLevel: logLevel.NOTHING });
for (let i = 0; i < 3; i++) {
  const c = kafka.consumer({ groupId: `one-${i}-${Date.now()}` });
  await c.connect();
  await c.subscribe({ topic: 'jt', fromBeginning: true });
  const t0 = Date.now();
  c.on(c.events.REQUEST, (e) => console.log(`  +${e.payload.createdAt - t0} ${e.payload.apiName} sent=${e.payload.sentAt - t0} dur=${e.payload.duration}`));
  const joined = new Promise((r) => c.on(c.events.GROUP_JOIN, r));
  await c.run({ eachBatch: async () => {} });
  await joined;
  console.log(`run ${i}: joined after ${Date.now() - t0} ms`);
  await c.disconnect();
}
