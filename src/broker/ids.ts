// Where the broker's generated ids come from: topic ids, the uuid part of member ids, and the
// cluster id when none is configured. By default they are random, as Kafka's are (Uuid.randomUuid,
// UUID.randomUUID in GroupMetadataManager). A deterministic broker (`deterministic: true, seed`)
// draws them from its seed instead, so two runs of the same test see the same ids and a failing
// run can be replayed.
//
// Each seeded id is a hash of (seed, what it is for, a key, the n-th draw for that key): a topic
// id depends on the topic's name and how many topics of that name were created before, a member
// id on its group, its client or instance id and how many such members joined before. So an id
// does not change when requests on other connections arrive in another order, which real clients'
// timing does not guarantee. (Producer ids need no seed: a lone broker hands out 0, 1, 2...,
// log/producer-ids.ts.)
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ZERO_UUID } from '../codec/index.js';

export interface IdSource {
  /** A Kafka topic Uuid, base64url as Kafka's tools show it. */
  topicId(topicName: string): string;
  /** The uuid after `<client or instance id>-` in a member id Kafka generates. */
  memberUuid(groupId: string, prefix: string): string;
  /** The cluster id a broker without a configured one reports. */
  clusterId(): string;
}

/** Kafka's: random ids, and kmock's fixed default cluster id. */
export const randomIds: IdSource = {
  topicId: () => kafkaUuid(() => randomBytes(16)),
  memberUuid: () => randomUUID(),
  clusterId: () => DEFAULT_CLUSTER_ID,
};

export const DEFAULT_CLUSTER_ID = 'kmock-cluster-00000001';

export class SeededIds implements IdSource {
  private readonly draws = new Map<string, number>();

  constructor(private readonly seed: string) {}

  topicId(topicName: string): string {
    return kafkaUuid(() => this.draw('topic', topicName));
  }

  memberUuid(groupId: string, prefix: string): string {
    const b = this.draw('member', `${groupId}\0${prefix}`);
    // Shaped as UUID.randomUUID's version 4, variant 2, so a reader sees the usual form.
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  clusterId(): string {
    // A Kafka cluster id is a Uuid in base64url (kafka-storage random-uuid).
    return kafkaUuid(() => this.draw('cluster', ''));
  }

  private draw(purpose: string, key: string): Buffer {
    const k = `${purpose}\0${key}`;
    const n = this.draws.get(k) ?? 0;
    this.draws.set(k, n + 1);
    return createHash('sha256').update(`${this.seed}\0${k}\0${n}`).digest().subarray(0, 16);
  }
}

/** Uuid.randomUuid's rule: never the zero uuid nor one whose text starts with '-'. */
function kafkaUuid(bytes: () => Buffer): string {
  for (;;) {
    const s = bytes().toString('base64url');
    if (s !== ZERO_UUID && !s.startsWith('-')) return s;
  }
}
