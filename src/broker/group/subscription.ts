// The consumer protocol's Subscription (ConsumerProtocolSubscription.json, v0–v3), the metadata a
// consumer puts in each JoinGroup protocol. The coordinator only needs its topics, to answer
// OffsetDelete with GROUP_SUBSCRIBED_TO_TOPIC and to keep subscribed topics' offsets from expiring.
//
// Layout (non-flexible, big-endian): int16 version, then
//   v0+ Topics          int32 count, each int16-length UTF-8 string
//   v0+ UserData        int32 length (-1 = null) + bytes
//   v1+ OwnedPartitions int32 count of { Topic string, Partitions int32 count + int32s }
//   v2+ GenerationId    int32
//   v3+ RackId          int16 length (-1 = null) + bytes
// Versions above 3 are read as v3: the format only ever appends fields.

import type { SubscribedTopicsHook } from './config.js';

export interface ConsumerSubscription {
  version: number;
  topics: string[];
  userData: Buffer | null;
  ownedPartitions: { topic: string; partitions: number[] }[];
  /** -1 when absent (below v2). */
  generationId: number;
  /** null when absent (below v3). */
  rackId: string | null;
}

export class SubscriptionFormatError extends Error {}

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.buf.length) {
      throw new SubscriptionFormatError(`buffer underflow reading ${what} at offset ${this.pos}`);
    }
  }

  int16(what: string): number {
    this.need(2, what);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(what: string): number {
    this.need(4, what);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  nullableString(what: string): string | null {
    const len = this.int16(what);
    if (len < 0) return null;
    this.need(len, what);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  string(what: string): string {
    const s = this.nullableString(what);
    if (s === null) throw new SubscriptionFormatError(`non-nullable ${what} was serialized as null`);
    return s;
  }

  nullableBytes(what: string): Buffer | null {
    const len = this.int32(what);
    if (len < 0) return null;
    this.need(len, what);
    const b = Buffer.from(this.buf.subarray(this.pos, this.pos + len));
    this.pos += len;
    return b;
  }

  /** An array count; each element takes at least `minElementSize` bytes, so an absurd count is
   *  rejected before any allocation. */
  arrayCount(what: string, minElementSize: number): number {
    const n = this.int32(what);
    if (n < 0) throw new SubscriptionFormatError(`non-nullable ${what} was serialized as null`);
    this.need(n * minElementSize, what);
    return n;
  }
}

/** Decodes fields up to `min(version, 3)`. Throws SubscriptionFormatError on malformed input. */
export function decodeConsumerSubscription(metadata: Buffer): ConsumerSubscription {
  const r = new Reader(metadata);
  const version = r.int16('version');
  if (version < 0) throw new SubscriptionFormatError(`unsupported subscription version ${version}`);
  const topics = readTopicsAndUserData(r);
  const result: ConsumerSubscription = {
    version,
    topics: topics.topics,
    userData: topics.userData,
    ownedPartitions: [],
    generationId: -1,
    rackId: null,
  };
  if (version >= 1) {
    const n = r.arrayCount('ownedPartitions', 6);
    for (let i = 0; i < n; i++) {
      const topic = r.string('ownedPartitions.topic');
      const count = r.arrayCount('ownedPartitions.partitions', 4);
      const partitions: number[] = [];
      for (let j = 0; j < count; j++) partitions.push(r.int32('partition'));
      result.ownedPartitions.push({ topic, partitions });
    }
  }
  if (version >= 2) result.generationId = r.int32('generationId');
  if (version >= 3) result.rackId = r.nullableString('rackId');
  return result;
}

function readTopicsAndUserData(r: Reader): { topics: string[]; userData: Buffer | null } {
  const n = r.arrayCount('topics', 2);
  const topics: string[] = [];
  for (let i = 0; i < n; i++) topics.push(r.string('topic'));
  const userData = r.nullableBytes('userData');
  return { topics, userData };
}

/**
 * The topics as Kafka 3.9's GroupMetadata.computeSubscribedTopics reads them: an int16 version
 * (any value), then the v0 fields only — v0 is a prefix of every version, so the coordinator never
 * depends on the newer fields, and a malformed v1+ tail does not make the topics unknown.
 * Returns undefined when the prefix is malformed. (Kafka throws a non-schema exception for a null
 * topics array or an oversized count and fails the rebalance; kmock treats those as "unknown".)
 */
export function subscribedTopicsFromConsumerMetadata(metadata: Buffer): string[] | undefined {
  try {
    const r = new Reader(metadata);
    r.int16('version');
    return readTopicsAndUserData(r).topics;
  } catch (e) {
    if (e instanceof SubscriptionFormatError) return undefined;
    throw e;
  }
}

/** The default SubscribedTopicsHook: understands protocol type "consumer" only, like Kafka. */
export const consumerSubscribedTopics: SubscribedTopicsHook = (protocolType, _protocolName, metadata) =>
  protocolType === CONSUMER_PROTOCOL_TYPE ? subscribedTopicsFromConsumerMetadata(metadata) : undefined;

export const CONSUMER_PROTOCOL_TYPE = 'consumer';
