// kafkajs 2.2.4 against a real listening kmock: a client factory with short timeouts, and a
// consumer wrapper that records what the consumer was assigned (GROUP_JOIN) and what it consumed.
import {
  AssignerProtocol,
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type ConsumerConfig,
  type ConsumerRunConfig,
  type Producer,
  type ProducerConfig,
} from 'kafkajs';
import type { Kmock } from '../../../src/broker/server.js';
import { within } from './wait.js';

/** Set KMOCK_CLIENT_DEBUG=1 to see kafkajs's own log lines (at INFO) on stderr. */
const KJS_LOG_LEVEL = process.env.KMOCK_CLIENT_DEBUG ? logLevel.INFO : logLevel.NOTHING;

/** Short timeouts: the broker's minimum session timeout is 6000 ms (group.min.session.timeout.ms). */
export const FAST_CONSUMER: Omit<ConsumerConfig, 'groupId'> = {
  sessionTimeout: 6000,
  rebalanceTimeout: 10_000,
  heartbeatInterval: 200,
  maxWaitTimeInMs: 100,
  retry: { initialRetryTime: 100, retries: 10 },
};

export interface Consumed {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
}

export interface Joined {
  memberId: string;
  isLeader: boolean;
  groupProtocol: string;
  /** topic -> sorted partitions */
  assignment: Record<string, number[]>;
}

/** A kafkajs consumer that remembers its group joins and consumed messages. */
export class TrackedConsumer {
  readonly joins: Joined[] = [];
  readonly consumed: Consumed[] = [];
  readonly crashes: string[] = [];
  /** Fetch responses received (kafkajs FETCH events). */
  fetches = 0;
  private running = false;
  private stopped = false;

  constructor(
    readonly name: string,
    readonly consumer: Consumer,
  ) {
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      const assignment: Record<string, number[]> = {};
      for (const [topic, parts] of Object.entries(e.payload.memberAssignment)) {
        assignment[topic] = [...parts].sort((a, b) => a - b);
      }
      this.joins.push({
        memberId: e.payload.memberId,
        isLeader: e.payload.isLeader,
        groupProtocol: e.payload.groupProtocol,
        assignment,
      });
    });
    consumer.on(consumer.events.FETCH, () => {
      this.fetches++;
    });
    consumer.on(consumer.events.CRASH, (e) => {
      this.crashes.push(String(e.payload.error));
    });
  }

  get lastJoin(): Joined | undefined {
    return this.joins[this.joins.length - 1];
  }

  /** Partitions of `topic` in the latest assignment this consumer received. */
  partitions(topic: string): number[] {
    return this.lastJoin?.assignment[topic] ?? [];
  }

  async start(topic: string, run: ConsumerRunConfig = {}, fromBeginning = true): Promise<void> {
    await within(`${this.name} connect`, 15_000, this.consumer.connect());
    await within(`${this.name} subscribe`, 15_000, this.consumer.subscribe({ topics: [topic], fromBeginning }));
    const record = (topicName: string, partition: number, m: { offset: string; key: Buffer | null; value: Buffer | null }) =>
      this.consumed.push({
        topic: topicName,
        partition,
        offset: Number(m.offset),
        key: m.key === null ? null : m.key.toString(),
        value: m.value === null ? null : m.value.toString(),
      });
    const config: ConsumerRunConfig =
      run.eachBatch !== undefined || run.eachMessage !== undefined
        ? run
        : {
            ...run,
            eachMessage: async ({ topic: t, partition, message }) => {
              record(t, partition, message);
            },
          };
    this.running = true;
    await within(`${this.name} run`, 15_000, this.consumer.run(config));
  }

  /** Graceful stop: kafkajs commits what it must and sends LeaveGroup, then closes its connections. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await within(`${this.name} disconnect`, 15_000, this.consumer.disconnect());
  }

  get isRunning(): boolean {
    return this.running && !this.stopped;
  }

  values(): string[] {
    return this.consumed.map((c) => c.value ?? '');
  }
}

/** Everything a test opened, closed (best effort, bounded) when the test ends. */
export class KafkajsClients {
  readonly kafka: Kafka;
  private readonly closers: Array<() => Promise<unknown>> = [];

  constructor(
    readonly kmock: Kmock,
    clientId = 'kmock-kafkajs-test',
  ) {
    this.kafka = new Kafka({
      brokers: [kmock.bootstrapServers],
      clientId,
      logLevel: KJS_LOG_LEVEL,
      connectionTimeout: 3000,
      requestTimeout: 15_000,
      retry: { initialRetryTime: 100, retries: 10 },
    });
  }

  async producer(config: ProducerConfig = {}): Promise<Producer> {
    const p = this.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, ...config });
    this.closers.push(() => p.disconnect());
    await within('producer connect', 15_000, p.connect());
    return p;
  }

  async admin(): Promise<Admin> {
    const a = this.kafka.admin({ retry: { initialRetryTime: 100, retries: 10 } });
    this.closers.push(() => a.disconnect());
    await within('admin connect', 15_000, a.connect());
    return a;
  }

  consumer(name: string, groupId: string, config: Partial<ConsumerConfig> = {}): TrackedConsumer {
    const c = new TrackedConsumer(name, this.kafka.consumer({ ...FAST_CONSUMER, groupId, ...config }));
    this.closers.push(() => c.stop());
    return c;
  }

  async closeAll(): Promise<void> {
    for (const close of this.closers.reverse()) {
      await within('client close', 15_000, close()).catch(() => undefined);
    }
    this.closers.length = 0;
  }
}

/** The assignment the broker stored for each member (decoded consumer-protocol Assignment). */
export function brokerAssignments(kmock: Kmock, groupId: string): Map<string, Record<string, number[]>> {
  const [g] = kmock.broker.groups.describeGroups([groupId]);
  const out = new Map<string, Record<string, number[]>>();
  for (const m of g?.members ?? []) {
    const decoded = m.memberAssignment.length === 0 ? null : AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    const assignment: Record<string, number[]> = {};
    for (const [topic, parts] of Object.entries(decoded?.assignment ?? {})) {
      assignment[topic] = [...parts].sort((a, b) => a - b);
    }
    out.set(m.memberId, assignment);
  }
  return out;
}

/**
 * The group is settled for `consumers`: the broker has it Stable with exactly these members, and each
 * consumer's latest GROUP_JOIN carries the assignment the broker stored for it. Returns each
 * consumer's partitions of `topic`, or undefined while not settled.
 */
export function settledAssignment(
  kmock: Kmock,
  groupId: string,
  topic: string,
  consumers: readonly TrackedConsumer[],
): Map<TrackedConsumer, number[]> | undefined {
  const group = kmock.broker.groups.group(groupId);
  if (!group || group.state !== 'Stable') return undefined;
  const stored = brokerAssignments(kmock, groupId);
  if (stored.size !== consumers.length) return undefined;
  const out = new Map<TrackedConsumer, number[]>();
  for (const c of consumers) {
    const join = c.lastJoin;
    if (!join) return undefined;
    const s = stored.get(join.memberId);
    if (!s) return undefined;
    if (JSON.stringify(s) !== JSON.stringify(join.assignment)) return undefined;
    out.set(c, join.assignment[topic] ?? []);
  }
  return out;
}
