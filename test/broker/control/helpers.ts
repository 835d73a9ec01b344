// Helpers for the control-plane tests: consumer-protocol groups joined over the wire with frames
// built by kmock's codec (static members need no MEMBER_ID_REQUIRED round trip), produce, and a
// transactional producer's coordinator requests (InitProducerId, AddPartitionsToTxn, EndTxn).
import {
  createAddPartitionsToTxnRequest,
  createCreateTopicsRequest,
  createEndTxnRequest,
  createInitProducerIdRequest,
  createJoinGroupRequest,
  createMetadataRequest,
  createProduceRequest,
  createSyncGroupRequest,
  encodeConsumerProtocolAssignment,
  encodeConsumerProtocolSubscription,
  createConsumerProtocolAssignment,
  createConsumerProtocolSubscription,
} from '../../../src/codec/index.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { RawClient } from '../../support/raw-client.js';

/** Consumer-protocol bytes: int16 version, then the body. */
function versioned(version: number, body: Buffer): Buffer {
  const v = Buffer.alloc(2);
  v.writeInt16BE(version);
  return Buffer.concat([v, body]);
}

export function subscription(topics: string[], version = 1): Buffer {
  return versioned(version, encodeConsumerProtocolSubscription(createConsumerProtocolSubscription({ topics }), version));
}

export function assignment(parts: Record<string, number[]>, version = 1): Buffer {
  const assignedPartitions = Object.entries(parts).map(([topic, partitions]) => ({ topic, partitions }));
  return versioned(version, encodeConsumerProtocolAssignment(createConsumerProtocolAssignment({ assignedPartitions }), version));
}

export interface Joined {
  client: RawClient;
  memberId: string;
  generationId: number;
  leader: string;
}

/** A static member's JoinGroup (v5): parks until the join phase completes. */
export async function joinStatic(
  bootstrap: string,
  o: { groupId: string; instanceId: string; clientId?: string; topics?: string[]; protocolType?: string; metadata?: Buffer; client?: RawClient },
): Promise<Joined> {
  const client = o.client ?? (await RawClient.connect(bootstrap));
  client.clientId = o.clientId ?? `client-${o.instanceId}`;
  const res = await client.request(
    11,
    5,
    createJoinGroupRequest({
      groupId: o.groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      memberId: '',
      groupInstanceId: o.instanceId,
      protocolType: o.protocolType ?? 'consumer',
      protocols: [{ name: 'range', metadata: o.metadata ?? subscription(o.topics ?? ['t']) }],
    }),
  );
  if (res.errorCode !== 0) throw new Error(`JoinGroup failed: ${res.errorCode}`);
  return { client, memberId: res.memberId, generationId: res.generationId, leader: res.leader };
}

/** The leader's SyncGroup (v3) with the given assignments (member id → bytes). */
export async function syncLeader(j: Joined, groupId: string, instanceId: string, assignments: Record<string, Buffer>): Promise<Buffer> {
  const res = await j.client.request(
    14,
    3,
    createSyncGroupRequest({
      groupId,
      generationId: j.generationId,
      memberId: j.memberId,
      groupInstanceId: instanceId,
      assignments: Object.entries(assignments).map(([memberId, a]) => ({ memberId, assignment: a })),
    }),
  );
  if (res.errorCode !== 0) throw new Error(`SyncGroup failed: ${res.errorCode}`);
  return res.assignment;
}

/** One static member that leads a Stable group, assigned `parts`. */
export async function stableGroup(bootstrap: string, groupId: string, instanceId: string, parts: Record<string, number[]>): Promise<Joined> {
  const j = await joinStatic(bootstrap, { groupId, instanceId, topics: Object.keys(parts) });
  await syncLeader(j, groupId, instanceId, { [j.memberId]: assignment(parts) });
  return j;
}

/** Creates the topic (auto-creation through Metadata, with num.partitions partitions). */
export async function ensureTopic(client: RawClient, topic: string): Promise<void> {
  const md = await client.request(3, 9, createMetadataRequest({ topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: true }));
  const code = md.topics[0]!.errorCode;
  // Like Kafka, the first Metadata answers UNKNOWN_TOPIC_OR_PARTITION while it creates the topic.
  if (code !== 0 && code !== 3 && code !== 5) throw new Error(`Metadata for ${topic} failed: ${code}`);
}

/** Produces `n` records to topic/partition with acks -1 (Produce v9), creating the topic first;
 *  returns the error code. */
export async function produce(client: RawClient, topic: string, partition: number, n: number): Promise<number> {
  await ensureTopic(client, topic);
  const records = encodeBatch({ records: Array.from({ length: n }, (_, i) => ({ value: `v${i}`, offsetDelta: i })) });
  const res = await client.request(
    0,
    9,
    createProduceRequest({ acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] }),
  );
  return res.responses[0]!.partitionResponses[0]!.errorCode;
}

/** Creates a topic with CreateTopics v7; returns its error code (0, or 36 TOPIC_ALREADY_EXISTS). */
export async function createTopic(client: RawClient, name: string, numPartitions = 1): Promise<number> {
  const res = await client.request(19, 7, createCreateTopicsRequest({ topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 }));
  return res.topics[0]!.errorCode;
}

export interface TxnProducer {
  client: RawClient;
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
}

/** InitProducerId v4 for a transactional id (a new producer id, or the epoch bumped). */
export async function initTransactions(client: RawClient, transactionalId: string, transactionTimeoutMs = 60_000): Promise<TxnProducer> {
  const res = await client.request(22, 4, createInitProducerIdRequest({ transactionalId, transactionTimeoutMs }));
  if (res.errorCode !== 0) throw new Error(`InitProducerId failed: ${res.errorCode}`);
  return { client, transactionalId, producerId: res.producerId, producerEpoch: res.producerEpoch };
}

/** AddPartitionsToTxn v3 (what clients send): returns each partition's error code. */
export async function addPartitions(p: TxnProducer, topic: string, partitions: number[]): Promise<number[]> {
  const res = await p.client.request(
    24,
    3,
    createAddPartitionsToTxnRequest({
      v3AndBelowTransactionalId: p.transactionalId,
      v3AndBelowProducerId: p.producerId,
      v3AndBelowProducerEpoch: p.producerEpoch,
      v3AndBelowTopics: [{ name: topic, partitions }],
    }),
  );
  return res.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((r) => r.partitionErrorCode));
}

/** EndTxn v3: commit or abort; returns the error code. */
export async function endTransaction(p: TxnProducer, commit: boolean): Promise<number> {
  const res = await p.client.request(26, 3, createEndTxnRequest({ transactionalId: p.transactionalId, producerId: p.producerId, producerEpoch: p.producerEpoch, committed: commit }));
  return res.errorCode;
}
