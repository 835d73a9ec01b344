// Topics and their partitions, in memory. Names follow Kafka's rules (legal characters, length,
// reserved names); ids are Kafka Uuids (random unless the broker is deterministic: ../ids.ts),
// shown as base64url like Kafka's tools show them.
import { systemClock, type Clock } from '../group/clock.js';
import { randomIds, type IdSource } from '../ids.js';
import { TopicConfigMap } from './log-config.js';
import { PartitionLog, type PartitionLogOptions } from './partition-log.js';
import { ErrorCode } from '../../codec/index.js';

/** What a topic store takes from its broker: the clock (partition creation times) and ids. */
export interface TopicStoreDeps {
  clock: Clock;
  ids: IdSource;
  /** When the broker started, on its clock. */
  startedAt: number;
  /** How a new partition's log is made (its segment files, the memory cap's hook); default: in memory. */
  logOptions?: (topic: Topic, partition: number) => PartitionLogOptions;
  /** After a topic is created, deleted, grows partitions or changes a config (the data dir saves them). */
  onChanged?: (change: TopicChange) => void;
}

/** What changed in the topic store. */
export type TopicChange = { kind: 'created' | 'deleted' | 'partitions' | 'configs'; topic: Topic };

const MAX_NAME_LENGTH = 249;
const LEGAL_NAME = /^[a-zA-Z0-9._-]+$/;

export class Topic {
  readonly partitions: PartitionLog[] = [];
  /** Topic-level config overrides (CreateTopics configs, DescribeConfigs). */
  readonly configs = new TopicConfigMap();

  constructor(
    readonly name: string,
    readonly id: string,
    partitionCount: number,
    readonly replicationFactor: number,
    private readonly deps: Pick<TopicStoreDeps, 'clock' | 'startedAt' | 'logOptions' | 'onChanged'> = { clock: systemClock, startedAt: Date.now() },
  ) {
    this.growPartitions(partitionCount);
  }

  addPartitions(total: number): void {
    this.growPartitions(total);
    this.deps.onChanged?.({ kind: 'partitions', topic: this });
  }

  /** Partitions made without announcing them (a topic being created or restored announces itself). */
  addPartitionsQuietly(total: number): void {
    this.growPartitions(total);
  }

  private growPartitions(total: number): void {
    const now = this.deps.clock.now();
    while (this.partitions.length < total) {
      const index = this.partitions.length;
      const options = this.deps.logOptions?.(this, index) ?? {};
      this.partitions.push(new PartitionLog(this.name, index, now, { brokerStartMs: this.deps.startedAt, ...options }));
    }
  }

  /** Internal topics (`__consumer_offsets`...) are flagged in Metadata. */
  get isInternal(): boolean {
    return isInternalTopicName(this.name);
  }
}

/** Kafka's Topic.isInternal: the internal topics' names, whether the topic exists or not. */
export function isInternalTopicName(name: string): boolean {
  return name === '__consumer_offsets' || name === '__transaction_state' || name === '__share_group_state';
}

/** Kafka's topic name check (Topic.validate): the error code to answer, or 0. */
export function checkTopicName(name: string): number {
  if (name.length === 0 || name === '.' || name === '..') return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (name.length > MAX_NAME_LENGTH) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (!LEGAL_NAME.test(name)) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  return 0;
}

export class TopicStore {
  private readonly byName = new Map<string, Topic>();
  private readonly byId = new Map<string, Topic>();

  constructor(private readonly deps: TopicStoreDeps = { clock: systemClock, ids: randomIds, startedAt: Date.now() }) {}

  /** A new topic id for `name` (the controller draws one even for a validate-only CreateTopics). */
  newTopicId(name: string): string {
    return this.deps.ids.topicId(name);
  }

  get(name: string): Topic | undefined {
    return this.byName.get(name);
  }

  getById(id: string): Topic | undefined {
    return this.byId.get(id);
  }

  all(): Topic[] {
    return [...this.byName.values()];
  }

  create(name: string, partitions: number, replicationFactor: number, configs?: Map<string, string>): Topic {
    return this.add(name, this.newTopicId(name), partitions, replicationFactor, configs ?? new Map(), 'created');
  }

  /** A topic the data dir kept (its id and configs as they were; its logs load from their files). */
  restore(name: string, id: string, partitions: number, replicationFactor: number, configs: ReadonlyMap<string, string>): Topic {
    return this.add(name, id, partitions, replicationFactor, configs, null);
  }

  private add(name: string, id: string, partitions: number, replicationFactor: number, configs: ReadonlyMap<string, string>, announce: 'created' | null): Topic {
    // The configs first: a partition's log is made with the topic's settings (segment.index.bytes...).
    const topic = new Topic(name, id, 0, replicationFactor, this.deps);
    for (const [k, v] of configs) topic.configs.set(k, v);
    topic.addPartitionsQuietly(partitions);
    topic.configs.onChange = () => this.deps.onChanged?.({ kind: 'configs', topic });
    this.byName.set(name, topic);
    this.byId.set(topic.id, topic);
    if (announce !== null) this.deps.onChanged?.({ kind: announce, topic });
    return topic;
  }

  delete(name: string): Topic | undefined {
    const t = this.byName.get(name);
    if (t) {
      this.byName.delete(name);
      this.byId.delete(t.id);
      this.deps.onChanged?.({ kind: 'deleted', topic: t });
    }
    return t;
  }

  /**
   * Kafka treats topic names that differ only in '.' vs '_' as colliding (metrics names):
   * returns the existing topic a new name would collide with.
   */
  collision(name: string): Topic | undefined {
    const norm = name.replace(/\./g, '_');
    for (const t of this.byName.values()) if (t.name !== name && t.name.replace(/\./g, '_') === norm) return t;
    return undefined;
  }
}
