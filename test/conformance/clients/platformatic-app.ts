// The client-matrix app for @platformatic/kafka 1.35 (see PROTOCOL.md in this directory for the
// contract).
//
//   node --import tsx test/conformance/clients/platformatic-app.ts <role> --bootstrap HOST:PORT [options]
//
// How the client behaves, as read from its source (dist/clients/consumer/*.js):
// - Group protocol "classic", its own eager `roundrobin` assignor (the only one it ships).
// - `consumer.consume()` joins the group before it returns the stream; the assignment arrives in
//   the `consumer:group:join` event. The client reports no revocation of its own: a revocation of
//   the whole previous assignment is implied at every rejoin (eager), so the app prints `revoked`
//   when the consumer emits `consumer:group:rebalance` (it saw REBALANCE_IN_PROGRESS) or, failing
//   that, when the next `consumer:group:join` arrives.
// - Records come one by one from a Readable stream; every record of one Fetch response is pushed
//   in one go, so a "batch" here is what arrived before the next turn of the event loop. After a
//   batch the stream is paused, the next offsets are committed (one OffsetCommit), and the stream
//   resumes.
// - Errors: a Kafka error is a ProtocolError whose `apiId` is the Kafka error name, usually inside
//   a ResponseError / MultipleErrors (`errors`).
// - A heartbeat answered FENCED_INSTANCE_ID is no reason for the client to stop (it only emits
//   `consumer:heartbeat:error` and keeps heartbeating): the app treats it as fatal (exit 3), like
//   Java and librdkafka, without closing (no LeaveGroup for the fenced member id).
// - close(): LeaveGroup with the member id only (group_instance_id null) — also for a static
//   member, which Kafka treats as leaving: unlike Java/librdkafka, a closed static member leaves.
//
// Set DEBUG=plt:kafka:* to see the client's own debug log on stderr.
import { readFileSync } from 'node:fs';
import { emit, intOption, isolationOption, parseRole, requireOption, securityOption, unsupported, untilOption, usage, type Json, type Security } from './app-cli.js';
import type { ConnectionOptions, GroupAssignment, Message, MessagesStream } from '@platformatic/kafka';

// Loading the client costs seconds of CPU (it compiles its option schemas at import time), so it
// is imported once the SIGTERM handler is in place: a member told to stop while still loading
// closes cleanly instead of dying of the signal.
type Platformatic = typeof import('@platformatic/kafka');
let pk: Platformatic;

/** What SIGTERM does once `consume` has a client; before that: print closed and exit 0. */
let terminate: (() => void) | null = null;

/** The Kafka error name (Errors enum) an error carries: `apiId` of a ProtocolError, looked for
 * through MultipleErrors/ResponseError (`errors`) and `cause`. */
function kafkaErrorName(e: unknown, depth = 0): string | null {
  if (e === null || typeof e !== 'object' || depth > 8) return null;
  const err = e as { apiId?: unknown; errors?: unknown; cause?: unknown };
  if (typeof err.apiId === 'string' && err.apiId !== 'NONE') return err.apiId;
  if (Array.isArray(err.errors)) {
    for (const inner of err.errors) {
      const name = kafkaErrorName(inner, depth + 1);
      if (name !== null) return name;
    }
  }
  return kafkaErrorName(err.cause, depth + 1);
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) {
      return `${e.message}: ${inner.map((x) => errorMessage(x)).join('; ')}`;
    }
    return e.message;
  }
  return String(e);
}

function errorLine(e: unknown, extra: Json = {}): Json {
  return { event: 'error', name: kafkaErrorName(e), message: errorMessage(e), ...extra };
}

function sorted(parts: Iterable<number>): number[] {
  return [...new Set(parts)].sort((a, b) => a - b);
}

function partitionsOf(assignments: GroupAssignment[] | null | undefined, topic: string): number[] {
  const out: number[] = [];
  for (const a of assignments ?? []) if (a.topic === topic) out.push(...a.partitions);
  return sorted(out);
}

/** The security options (PROTOCOL.md), set once by main(); undefined: PLAINTEXT. */
let security: Security | undefined;

/** The bootstrap broker and, with the security options, the client's `tls` (node:tls options) and `sasl`. */
function connection(bootstrap: string): { bootstrapBrokers: string[] } & Pick<ConnectionOptions, 'tls' | 'sasl'> {
  if (security === undefined) return { bootstrapBrokers: [bootstrap] };
  return {
    bootstrapBrokers: [bootstrap],
    tls: { ca: readFileSync(security.caFile, 'utf8') },
    sasl: { mechanism: security.mechanism, username: security.username, password: security.password },
  };
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

  const producer = new pk.Producer({
    clientId: 'matrix-platformatic-producer',
    ...connection(bootstrap),
    serializers: pk.stringSerializers,
    idempotent: false,
    acks: pk.ProduceAcks.ALL,
  });
  try {
    const messages = [];
    for (let i = from; i < from + count; i++) {
      messages.push({ topic, key: `k${i}`, value: `v${i}`, partition: i % partitions });
    }
    if (messages.length > 0) await producer.send({ messages, acks: pk.ProduceAcks.ALL });
  } catch (e) {
    emit(errorLine(e));
    await producer.close().catch(() => undefined);
    process.exit(1);
  }
  await producer.close().catch(() => undefined);
  emit({ event: 'produced', count });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// consume

async function consume(bootstrap: string, values: Record<string, unknown>): Promise<void> {
  const topic = requireOption(values, 'topic');
  const groupId = requireOption(values, 'group');
  const clientId = requireOption(values, 'client-id');
  const instance = typeof values.instance === 'string' && values.instance !== '' ? values.instance : undefined;
  const sessionTimeout = intOption(values, 'session-timeout-ms', 10_000);
  const maxSeconds = intOption(values, 'max-seconds', 120);

  const consumer = new pk.Consumer({
    clientId,
    ...connection(bootstrap),
    groupId,
    ...(instance !== undefined ? { groupInstanceId: instance } : {}),
    sessionTimeout,
    heartbeatInterval: Math.max(1, Math.floor(sessionTimeout / 10)),
    // The client's default is 102000, above any session timeout used here.
    rebalanceTimeout: Math.max(sessionTimeout, 60_000),
    deserializers: pk.stringDeserializers,
    autocommit: false,
    // Java's fetch.max.wait.ms (the client's default is 5000): bounds how long close() waits for
    // the fetch in flight.
    maxWaitTime: 500,
  });

  let closing = false;
  let fatal = false;
  /** close(true): closes the streams first; errors ignored. */
  const forceClose = (): Promise<void> => new Promise<void>((resolve) => consumer.close(true, () => resolve()));

  const die = (e: unknown): void => {
    if (fatal) return;
    fatal = true;
    closing = true;
    emit({ event: 'fatal', name: kafkaErrorName(e), message: errorMessage(e) });
    // No close(): it would send LeaveGroup for a member id the broker has already replaced.
    process.exit(3);
  };

  /** Errors the client survives are printed; a fenced static member is fatal. */
  const onClientError = (e: unknown, extra: Json = {}): void => {
    if (fatal) return;
    if (kafkaErrorName(e) === 'FENCED_INSTANCE_ID') {
      die(e);
      return;
    }
    if (closing) return;
    emit(errorLine(e, extra));
  };

  // What was last printed as assigned (null: nothing yet), and whether it was revoked since.
  let current: number[] | null = null;
  let revoked = true;
  const revokeCurrent = (): void => {
    if (current !== null && !revoked) {
      emit({ event: 'revoked', partitions: current });
      revoked = true;
    }
  };
  // Printed as they happen, also while closing (as the kafkajs app does).
  consumer.on('consumer:group:rebalance', () => {
    if (!fatal) revokeCurrent();
  });
  consumer.on('consumer:group:join', (payload) => {
    if (fatal) return;
    revokeCurrent();
    current = partitionsOf(payload.assignments, topic);
    revoked = false;
    emit({ event: 'assigned', partitions: current });
  });
  consumer.on('consumer:heartbeat:error', (payload) => onClientError(payload.error, { during: 'heartbeat' }));
  // Emitted when a rejoin after a failed heartbeat fails (an EventEmitter 'error' without a
  // listener would throw).
  consumer.on('error', (e: unknown) => onClientError(e, { during: 'rejoin' }));

  let stream: MessagesStream<string, string, string, string> | null = null;

  // The batch being printed: partition -> next offset.
  let pending = new Map<number, bigint>();
  let flushScheduled = false;
  let flushing: Promise<void> | null = null;

  const flush = async (): Promise<void> => {
    flushScheduled = false;
    if (pending.size === 0 || fatal) return;
    const batch = pending;
    pending = new Map();
    const s = stream;
    s?.pause();
    try {
      await consumer.commit({
        offsets: [...batch].map(([partition, offset]) => ({ topic, partition, offset, leaderEpoch: -1 })),
      });
      const offsets: Record<string, number> = {};
      for (const [p, o] of [...batch].sort((a, b) => a[0] - b[0])) offsets[String(p)] = Number(o);
      emit({ event: 'committed', offsets });
    } catch (e) {
      onClientError(e, { during: 'commit' });
    } finally {
      if (!closing) s?.resume();
    }
  };

  const onMessage = (m: Message<string, string, string, string>): void => {
    if (closing || m.topic !== topic) return;
    emit({
      event: 'message',
      partition: m.partition,
      offset: Number(m.offset),
      key: m.key ?? null,
      value: m.value ?? null,
    });
    pending.set(m.partition, m.offset + 1n);
    if (!flushScheduled) {
      flushScheduled = true;
      // Every record of one Fetch response is pushed before the event loop turns.
      setImmediate(() => {
        flushing = flush().finally(() => {
          flushing = null;
        });
      });
    }
  };

  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    try {
      if (flushing !== null) await flushing;
      if (stream !== null) await stream.close();
      // The client's normal close: LeaveGroup (member id only), then the connections.
      await consumer.close();
    } catch (e) {
      emit(errorLine(e, { during: 'close' }));
      await forceClose();
    }
    emit({ event: 'closed' });
    process.exit(0);
  };
  terminate = () => void close();
  setTimeout(() => void close(), maxSeconds * 1000).unref();

  emit({ event: 'started' });
  try {
    // Joins the group (the assignment arrives in consumer:group:join), then starts fetching from
    // the committed offsets, the earliest where none.
    stream = await consumer.consume({
      topics: [topic],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
    });
  } catch (e) {
    if (closing) return;
    if (kafkaErrorName(e) === 'FENCED_INSTANCE_ID') {
      die(e);
      return;
    }
    emit(errorLine(e));
    await forceClose();
    process.exit(1);
  }
  if (closing) {
    // SIGTERM arrived while joining: close() ran before the stream existed.
    await stream.close().catch(() => undefined);
    return;
  }
  stream.on('data', onMessage);
  stream.on('error', (e: unknown) => {
    if (closing) return;
    // The stream is destroyed: nothing more will be consumed.
    die(e);
  });
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

  // Transactions want an idempotent producer (beginTransaction() refuses any other).
  const producer = new pk.Producer({
    clientId: 'matrix-platformatic-txn-producer',
    ...connection(bootstrap),
    serializers: pk.stringSerializers,
    idempotent: true,
    transactionalId,
    acks: pk.ProduceAcks.ALL,
  });
  const records = (first: number, count: number) =>
    Array.from({ length: count }, (_, k) => ({ topic, key: `k${first + k}`, value: `v${first + k}`, partition: (first + k) % partitions }));
  let during = 'begin';
  try {
    // The first beginTransaction() finds the coordinator and sends InitProducerId; send() waits for the acks.
    let txn = await producer.beginTransaction();
    during = 'send';
    await txn.send({ messages: records(from, commitCount) });
    during = 'commit';
    await txn.commit();
    emit({ event: 'committed', count: commitCount });
    during = 'begin';
    txn = await producer.beginTransaction();
    during = 'send';
    await txn.send({ messages: records(from + commitCount, abortCount) });
    during = 'abort';
    await txn.abort();
    emit({ event: 'aborted', count: abortCount });
  } catch (e) {
    emit(errorLine(e, { during }));
    await producer.close().catch(() => undefined);
    process.exit(1);
  }
  await producer.close().catch(() => undefined);
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
  // consume() wants a group: one of its own, automatic commits off.
  const consumer = new pk.Consumer({
    clientId: 'matrix-platformatic-reader',
    ...connection(bootstrap),
    groupId: `${topic}-reader-${process.pid}-${Date.now()}`,
    deserializers: pk.stringDeserializers,
    autocommit: false,
    maxWaitTime: 100,
    isolationLevel: isolation === 'read_committed' ? pk.FetchIsolationLevels.READ_COMMITTED : pk.FetchIsolationLevels.READ_UNCOMMITTED,
  });
  /** close(true): closes the streams first; errors ignored. */
  const forceClose = (): Promise<void> => new Promise<void>((resolve) => consumer.close(true, () => resolve()));
  let stream: MessagesStream<string, string, string, string> | null = null;
  // The stream's next fetch offset per partition: past the last batch of every fetch, control
  // batches and filtered (aborted) ones included.
  const caughtUp = () => stream !== null && [...until].every(([p, o]) => o === 0 || (stream!.offsetsToFetch.get(`${topic}:${p}`) ?? 0n) >= BigInt(o));
  let finish: (complete: boolean) => void = () => undefined;
  const finished = new Promise<boolean>((resolve) => (finish = resolve));
  setTimeout(() => finish(false), maxSeconds * 1000).unref();
  try {
    stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
    stream.on('data', (m: Message<string, string, string, string>) => {
      emit({ event: 'message', partition: m.partition, offset: Number(m.offset), key: m.key ?? null, value: m.value ?? null });
    });
    stream.on('fetch', () => {
      // 'fetch' comes once the records of a Fetch have been pushed; 'data' handlers run as they
      // are read, so let the stream hand them out first.
      setImmediate(() => {
        if (caughtUp()) finish(true);
      });
    });
    stream.on('error', (e: unknown) => {
      emit(errorLine(e));
      finish(false);
    });
  } catch (e) {
    emit(errorLine(e));
    await forceClose();
    process.exit(1);
  }
  const complete = await finished;
  await stream?.close().catch(() => undefined);
  await forceClose();
  emit({ event: 'read', complete });
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// describe

/** The client upper-cases the state Kafka sends ("PreparingRebalance" -> "PREPARINGREBALANCE"). */
const STATES: Record<string, string> = {
  STABLE: 'Stable',
  EMPTY: 'Empty',
  PREPARINGREBALANCE: 'PreparingRebalance',
  COMPLETINGREBALANCE: 'CompletingRebalance',
  DEAD: 'Dead',
};

async function describe(bootstrap: string, values: Record<string, unknown>): Promise<never> {
  const groupId = requireOption(values, 'group');
  const topic = typeof values.topic === 'string' ? values.topic : null;
  const admin = new pk.Admin({ clientId: 'matrix-platformatic-admin', ...connection(bootstrap) });
  try {
    const groups = await admin.describeGroups({ groups: [groupId] });
    const group = groups.get(groupId);
    if (group === undefined) throw new Error(`DescribeGroups did not answer for group ${groupId}`);
    const rawState = String(group.state);
    const members = [...group.members.values()].map((m) => {
      const parts: number[] = [];
      for (const a of m.assignments?.values() ?? []) {
        if (topic !== null && a.topic !== topic) continue;
        parts.push(...a.partitions);
      }
      return { clientId: m.clientId, instanceId: m.groupInstanceId ?? null, partitions: sorted(parts) };
    });
    emit({
      event: 'group',
      state: STATES[rawState.replace(/_/g, '').toUpperCase()] ?? rawState,
      protocolType: group.protocolType,
      protocol: group.protocol,
      members,
    });
  } catch (e) {
    emit(errorLine(e));
    await admin.close().catch(() => undefined);
    process.exit(1);
  }
  await admin.close().catch(() => undefined);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { role, values } = parseRole(process.argv.slice(2));
  if (role === 'consume') {
    process.on('SIGTERM', () => {
      if (terminate !== null) {
        terminate();
        return;
      }
      emit({ event: 'closed' });
      process.exit(0);
    });
  }
  if (role === 'remove') {
    unsupported(
      'remove',
      "@platformatic/kafka's Admin.removeMembersFromConsumerGroup removes members by member id only (LeaveGroup with group_instance_id null)",
    );
  }
  const bootstrap = requireOption(values, 'bootstrap');
  security = securityOption(values);
  pk = await import('@platformatic/kafka');
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
