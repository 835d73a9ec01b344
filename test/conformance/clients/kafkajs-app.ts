// The client-matrix app for kafkajs 2.2.4 (see PROTOCOL.md in this directory for the contract).
//
//   node --import tsx test/conformance/clients/kafkajs-app.ts <role> --bootstrap HOST:PORT [options]
//
// kafkajs has no static membership (no group.instance.id) and no admin call that removes a member
// by instance id: `consume --instance` and `remove` answer "unsupported" (exit 2).
//
// kafkajs reports no revocation of its own. A member's assignment arrives in the GROUP_JOIN
// instrumentation event; kafkajs's rebalances are eager (it gives up everything and rejoins), so a
// revocation of the whole previous assignment is implied at every rejoin: the app prints `revoked`
// (the previous assignment) when the consumer reports REBALANCING, or when a new GROUP_JOIN arrives
// and no revocation was printed since the previous one (a rejoin after UNKNOWN_MEMBER_ID or a
// restart after a crash goes without REBALANCING).
//
// Set KMOCK_APP_LOG=debug|info to see more of kafkajs's own log on stderr (default warn).
import { emit, intOption, isolationOption, parseRole, requireOption, securityOption, unsupported, untilOption, usage, type Json, type Security } from './app-cli.js';
import { readFileSync } from 'node:fs';
import {
  AssignerProtocol,
  Kafka,
  logLevel,
  Partitioners,
  type Consumer,
  type KafkaConfig,
  type LogEntry,
} from 'kafkajs';

/** The Kafka error name (Errors enum) an error carries, looking through kafkajs's wrappers. */
function kafkaErrorName(e: unknown, depth = 0): string | null {
  if (e === null || typeof e !== 'object' || depth > 8) return null;
  const err = e as { type?: unknown; originalError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof err.type === 'string' && /^[A-Z][A-Z0-9_]+$/.test(err.type)) return err.type;
  for (const inner of [err.originalError, err.cause]) {
    const name = kafkaErrorName(inner, depth + 1);
    if (name !== null) return name;
  }
  if (Array.isArray(err.errors)) {
    for (const inner of err.errors) {
      const name = kafkaErrorName(inner, depth + 1);
      if (name !== null) return name;
    }
  }
  return null;
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

function errorLine(e: unknown, extra: Json = {}): Json {
  return { event: 'error', name: kafkaErrorName(e), message: errorMessage(e), ...extra };
}

const LOG_LEVELS: Record<string, logLevel> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/** kafkajs's log lines, one JSON object each, on stderr (stdout belongs to the contract). */
function stderrLogCreator() {
  return ({ namespace, level, log }: LogEntry): void => {
    const { timestamp, message, ...rest } = log;
    const label = level === logLevel.ERROR ? 'ERROR' : level === logLevel.WARN ? 'WARN' : level === logLevel.INFO ? 'INFO' : 'DEBUG';
    process.stderr.write(`${JSON.stringify({ t: timestamp, level: label, namespace, message, ...rest })}\n`);
  };
}

/** The security options (PROTOCOL.md), set once by main(); undefined: PLAINTEXT. */
let security: Security | undefined;

/** kafkajs's `ssl` and `sasl` for the security options. */
function securityConfig(s: Security | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  if (s === undefined) return {};
  const credentials = { username: s.username, password: s.password };
  return {
    ssl: { ca: [readFileSync(s.caFile, 'utf8')] },
    sasl: s.mechanism === 'PLAIN' ? { mechanism: 'plain', ...credentials } : { mechanism: 'scram-sha-256', ...credentials },
  };
}

function makeKafka(bootstrap: string, clientId: string): Kafka {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    ...securityConfig(security),
    logLevel: LOG_LEVELS[process.env.KMOCK_APP_LOG ?? 'warn'] ?? logLevel.WARN,
    logCreator: stderrLogCreator,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
  });
}

// ---------------------------------------------------------------------------------------------
// produce

async function produce(bootstrap: string, values: Record<string, unknown>): Promise<never> {
  const topic = requireOption(values, 'topic');
  const from = intOption(values, 'from', 0);
  const count = intOption(values, 'count', NaN);
  if (!Number.isInteger(count)) usage('--count is required');
  const partitions = intOption(values, 'partitions', 3);
  if (partitions < 1) usage('--partitions must be at least 1');

  const kafka = makeKafka(bootstrap, 'matrix-kafkajs-producer');
  const producer = kafka.producer({
    idempotent: false,
    // Every record names its partition; the partitioner is never asked.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
    const messages = [];
    for (let i = from; i < from + count; i++) {
      messages.push({ key: `k${i}`, value: `v${i}`, partition: i % partitions });
    }
    if (messages.length > 0) await producer.send({ topic, acks: -1, messages });
  } catch (e) {
    emit(errorLine(e));
    await producer.disconnect().catch(() => undefined);
    process.exit(1);
  }
  await producer.disconnect().catch(() => undefined);
  emit({ event: 'produced', count });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// consume

async function consume(bootstrap: string, values: Record<string, unknown>): Promise<void> {
  const topic = requireOption(values, 'topic');
  const groupId = requireOption(values, 'group');
  const clientId = requireOption(values, 'client-id');
  if (values.instance !== undefined) {
    unsupported('consume', 'kafkajs has no static membership (group.instance.id)');
  }
  const sessionTimeout = intOption(values, 'session-timeout-ms', 10_000);
  const maxSeconds = intOption(values, 'max-seconds', 120);

  const kafka = makeKafka(bootstrap, clientId);
  const consumer: Consumer = kafka.consumer({
    groupId,
    sessionTimeout,
    heartbeatInterval: Math.max(1, Math.floor(sessionTimeout / 10)),
    // Java's fetch.max.wait.ms (kafkajs's default is 5000): disconnect() waits for the fetch in
    // flight, so this bounds how long a SIGTERMed member takes to leave.
    maxWaitTimeInMs: 500,
    allowAutoTopicCreation: false,
  });

  // What was last printed as assigned (null: nothing yet), and whether it was revoked since.
  let current: number[] | null = null;
  let revoked = true;
  const revokeCurrent = (): void => {
    if (current !== null && !revoked) {
      emit({ event: 'revoked', partitions: current });
      revoked = true;
    }
  };

  consumer.on(consumer.events.REBALANCING, () => {
    revokeCurrent();
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    revokeCurrent();
    const mine = e.payload.memberAssignment[topic] ?? [];
    current = [...mine].sort((a, b) => a - b);
    revoked = false;
    emit({ event: 'assigned', partitions: current });
  });

  let closing = false;
  consumer.on(consumer.events.CRASH, (e) => {
    const { error, restart } = e.payload;
    if (closing) return;
    if (restart) {
      emit(errorLine(error, { restart: true }));
      return;
    }
    emit({ event: 'fatal', name: kafkaErrorName(error), message: errorMessage(error) });
    void consumer.disconnect().catch(() => undefined).finally(() => process.exit(3));
    setTimeout(() => process.exit(3), 5000).unref();
  });

  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    try {
      // kafkajs's normal close: stop fetching, wait for the running batch, LeaveGroup, disconnect.
      await consumer.disconnect();
    } catch (e) {
      emit(errorLine(e, { during: 'close' }));
    }
    emit({ event: 'closed' });
    process.exit(0);
  };
  process.on('SIGTERM', () => void close());
  setTimeout(() => void close(), maxSeconds * 1000).unref();

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
  } catch (e) {
    emit(errorLine(e));
    await consumer.disconnect().catch(() => undefined);
    process.exit(1);
  }
  emit({ event: 'started' });

  try {
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, isRunning, isStale }) => {
        if (batch.topic !== topic) return;
        let next: number | null = null;
        for (const m of batch.messages) {
          if (!isRunning() || isStale()) break;
          emit({
            event: 'message',
            partition: batch.partition,
            offset: Number(m.offset),
            key: m.key === null ? null : m.key.toString(),
            value: m.value === null ? null : m.value.toString(),
          });
          resolveOffset(m.offset);
          next = Number(m.offset) + 1;
        }
        if (next === null) return;
        try {
          await consumer.commitOffsets([{ topic, partition: batch.partition, offset: String(next) }]);
          emit({ event: 'committed', offsets: { [String(batch.partition)]: next } });
        } catch (e) {
          emit(errorLine(e, { during: 'commit' }));
        }
      },
    });
  } catch (e) {
    if (closing) return;
    emit({ event: 'fatal', name: kafkaErrorName(e), message: errorMessage(e) });
    await consumer.disconnect().catch(() => undefined);
    process.exit(3);
  }
}

// ---------------------------------------------------------------------------------------------
// describe

async function describe(bootstrap: string, values: Record<string, unknown>): Promise<never> {
  const groupId = requireOption(values, 'group');
  const topic = typeof values.topic === 'string' ? values.topic : null;
  const kafka = makeKafka(bootstrap, 'matrix-kafkajs-admin');
  const admin = kafka.admin();
  try {
    await admin.connect();
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups.find((g) => g.groupId === groupId);
    if (group === undefined) throw new Error(`DescribeGroups did not answer for group ${groupId}`);
    const errorCode = (group as { errorCode?: number }).errorCode ?? 0;
    if (errorCode !== 0) throw new Error(`DescribeGroups answered error code ${errorCode}`);
    const members = group.members.map((m) => {
      let partitions: number[] = [];
      if (m.memberAssignment !== null && m.memberAssignment.length > 0) {
        const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
        if (decoded !== null) {
          const set = new Set<number>();
          for (const [t, parts] of Object.entries(decoded.assignment)) {
            if (topic !== null && t !== topic) continue;
            for (const p of parts) set.add(p);
          }
          partitions = [...set].sort((a, b) => a - b);
        }
      }
      // kafkajs's DescribeGroups (v2 and older) carries no group.instance.id.
      return { clientId: m.clientId, instanceId: null, partitions };
    });
    emit({
      event: 'group',
      state: group.state,
      protocolType: group.protocolType,
      protocol: group.protocol,
      members,
    });
  } catch (e) {
    emit(errorLine(e));
    await admin.disconnect().catch(() => undefined);
    process.exit(1);
  }
  await admin.disconnect().catch(() => undefined);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// transact

async function transact(bootstrap: string, values: Record<string, unknown>): Promise<never> {
  const topic = requireOption(values, 'topic');
  const from = intOption(values, 'from', 0);
  const commitCount = intOption(values, 'commit', 0);
  const abortCount = intOption(values, 'abort', 0);
  const transactionalId = requireOption(values, 'transactional-id');
  const partitions = intOption(values, 'partitions', 3);
  if (partitions < 1) usage('--partitions must be at least 1');

  const kafka = makeKafka(bootstrap, 'matrix-kafkajs-txn-producer');
  // As kafkajs's documentation has it; retries bounded (the default for an idempotent producer is
  // unbounded), enough for the CONCURRENT_TRANSACTIONS answers while markers are written.
  const producer = kafka.producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 100, retries: 8 },
  });
  const records = (first: number, count: number) =>
    Array.from({ length: count }, (_, k) => ({ key: `k${first + k}`, value: `v${first + k}`, partition: (first + k) % partitions }));
  let during = 'init';
  try {
    await producer.connect();
    // kafkajs sends InitProducerId at the first transaction(). send() waits for the acks.
    let txn = await producer.transaction();
    during = 'send';
    await txn.send({ topic, acks: -1, messages: records(from, commitCount) });
    during = 'commit';
    await txn.commit();
    emit({ event: 'committed', count: commitCount });
    during = 'begin';
    txn = await producer.transaction();
    during = 'send';
    await txn.send({ topic, acks: -1, messages: records(from + commitCount, abortCount) });
    during = 'abort';
    await txn.abort();
    emit({ event: 'aborted', count: abortCount });
  } catch (e) {
    emit(errorLine(e, { during }));
    await producer.disconnect().catch(() => undefined);
    process.exit(1);
  }
  await producer.disconnect().catch(() => undefined);
  emit({ event: 'transacted' });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// read

async function read(bootstrap: string, values: Record<string, unknown>): Promise<never> {
  const topic = requireOption(values, 'topic');
  const until = untilOption(values);
  const isolation = isolationOption(values);
  const maxSeconds = intOption(values, 'max-seconds', 60);
  const kafka = makeKafka(bootstrap, 'matrix-kafkajs-reader');
  // kafkajs has no assign(): a consumer of a group of its own, automatic commits off.
  const consumer = kafka.consumer({
    groupId: `${topic}-reader-${process.pid}-${Date.now()}`,
    readUncommitted: isolation === 'read_uncommitted',
    maxWaitTimeInMs: 100,
    sessionTimeout: 10_000,
    heartbeatInterval: 1000,
    allowAutoTopicCreation: false,
  });
  // How far the consumer got in each partition: END_BATCH_PROCESS carries the last offset of every
  // fetched batch, also of one holding only control or aborted records, which it hands to no one.
  const position = new Map<number, number>();
  const caughtUp = () => [...until].every(([p, o]) => o === 0 || (position.get(p) ?? 0) >= o);
  let finish: (complete: boolean) => void = () => undefined;
  const finished = new Promise<boolean>((resolve) => (finish = resolve));
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    if (e.payload.topic !== topic) return;
    const next = Number(e.payload.lastOffset) + 1;
    if (next > (position.get(e.payload.partition) ?? 0)) position.set(e.payload.partition, next);
    if (caughtUp()) finish(true);
  });
  setTimeout(() => finish(false), maxSeconds * 1000).unref();
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        emit({
          event: 'message',
          partition,
          offset: Number(message.offset),
          key: message.key === null ? null : message.key.toString(),
          value: message.value === null ? null : message.value.toString(),
        });
      },
    });
    if (caughtUp()) finish(true);
  } catch (e) {
    emit(errorLine(e));
    await consumer.disconnect().catch(() => undefined);
    process.exit(1);
  }
  const complete = await finished;
  await consumer.disconnect().catch(() => undefined);
  emit({ event: 'read', complete });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { role, values } = parseRole(process.argv.slice(2));
  if (role === 'remove') {
    unsupported('remove', 'kafkajs has no static membership and no admin call to remove a member by group.instance.id');
  }
  const bootstrap = requireOption(values, 'bootstrap');
  security = securityOption(values);
  switch (role) {
    case 'produce':
      return produce(bootstrap, values);
    case 'consume':
      return consume(bootstrap, values);
    case 'describe':
      return describe(bootstrap, values);
    case 'transact':
      return transact(bootstrap, values);
    case 'read':
      return read(bootstrap, values);
    default:
      usage(`unknown role ${String(role)} (want produce, consume, describe, remove, transact or read)`);
  }
}

main().catch((e: unknown) => {
  emit({ event: 'fatal', name: kafkaErrorName(e), message: errorMessage(e) });
  process.exit(3);
});
