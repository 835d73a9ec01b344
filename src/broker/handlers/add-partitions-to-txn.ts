// AddPartitionsToTxn (24), versions 0-5, as Kafka 3.9's KafkaApis.handleAddPartitionsToTxnRequest.
// v0-3 (clients) carry one transaction; v4+ (KIP-890: brokers, and admin tools) carry several and
// may ask only to verify (VerifyOnly) that partitions are in a transaction. Per transaction: a
// partition of a topic this broker does not have fails the whole transaction's request
// (UNKNOWN_TOPIC_OR_PARTITION for it, OPERATION_NOT_ATTEMPTED for the others, without asking the
// coordinator); otherwise the coordinator's one error is every partition's. PRODUCER_FENCED is
// INVALID_PRODUCER_EPOCH below v2.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType, type AddPartitionsToTxnRequest, type AddPartitionsToTxnResponse } from '../../codec/index.js';
import { authorized, authorizedCluster, filterAuthorized } from '../security/authorizer/index.js';
import type { RequestContext } from './types.js';
import type { BrokerServices } from '../services.js';
import { isInternalTopicName } from '../log/topics.js';
import type { TopicPartition } from '../txn/types.js';

type TopicResult = AddPartitionsToTxnResponse.TopicResult;

export const addPartitionsToTxnHandler = defineHandler({
  apiKey: 24,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    // AddPartitionsToTxnRequest.normalizeRequest: v0-3's fields as one transaction.
    const transactions: AddPartitionsToTxnRequest.Transaction[] = v < 4
      ? [{ transactionalId: req.v3AndBelowTransactionalId, producerId: req.v3AndBelowProducerId, producerEpoch: req.v3AndBelowProducerEpoch, verifyOnly: false, topics: req.v3AndBelowTopics }]
      : req.transactions;
    // v4+ comes from brokers: CLUSTER_ACTION, else the request's error (getErrorResponse).
    if (v >= 4 && !authorizedCluster(ctx, AclOperation.CLUSTER_ACTION)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, resultsByTransaction: [], resultsByTopicV3AndBelow: [] };
    const results = await Promise.all(transactions.map((t) => handleTransaction(ctx, v, t)));
    if (v < 4) return { throttleTimeMs: 0, errorCode: 0, resultsByTransaction: [], resultsByTopicV3AndBelow: results[0]?.topicResults ?? [] };
    return { throttleTimeMs: 0, errorCode: 0, resultsByTransaction: results, resultsByTopicV3AndBelow: [] };
  },
});

/**
 * One transaction, as KafkaApis.handleAddPartitionsToTxnRequest: from clients (v0-3), WRITE on the
 * transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition) and on each
 * topic; internal topics are never in the authorized set, so they are TOPIC_AUTHORIZATION_FAILED
 * even without an authorizer. Any failed partition fails the transaction: the others are
 * OPERATION_NOT_ATTEMPTED.
 */
function handleTransaction(ctx: RequestContext, v: number, t: AddPartitionsToTxnRequest.Transaction): Promise<AddPartitionsToTxnResponse.Result> | AddPartitionsToTxnResponse.Result {
  const b: BrokerServices = ctx.services;
  if (v < 4 && !authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, t.transactionalId)) return resultOf(t, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const writable = v < 4 ? filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, t.topics.map((x) => x.name).filter((n) => !isInternalTopicName(n))) : undefined;
  const partitions: TopicPartition[] = [];
  const failed = new Map<string, number>();
  for (const topic of t.topics) {
    const known = b.topics.get(topic.name);
    for (const partition of topic.partitions) {
      if (writable !== undefined && !writable.has(topic.name)) failed.set(`${topic.name}:${partition}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (known === undefined || partition < 0 || partition >= known.partitions.length) failed.set(`${topic.name}:${partition}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      partitions.push({ topic: topic.name, partition });
    }
  }
  if (failed.size > 0) {
    return resultOf(t, (topic, partition) => failed.get(`${topic}:${partition}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  }
  if (t.verifyOnly) {
    const verified = new Map(b.transactions.verifyPartitionsInTransaction(t.transactionalId, t.producerId, t.producerEpoch, partitions)
      .map((r) => [`${r.topic}:${r.partition}`, r.errorCode]));
    return resultOf(t, (topic, partition) => verified.get(`${topic}:${partition}`) ?? ErrorCode.NONE);
  }
  return new Promise((resolve) => {
    b.transactions.addPartitionsToTransaction(t.transactionalId, t.producerId, t.producerEpoch, partitions, (error) => {
      const errorCode = v < 2 && error === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : error;
      resolve(resultOf(t, () => errorCode));
    });
  });
}

/** AddPartitionsToTxnRequest.errorResponseForTransaction: the request's topics and partitions, in order, each with its error. */
function resultOf(t: AddPartitionsToTxnRequest.Transaction, errorOf: (topic: string, partition: number) => number): AddPartitionsToTxnResponse.Result {
  const topicResults: TopicResult[] = t.topics.map((topic) => ({
    name: topic.name,
    resultsByPartition: topic.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: errorOf(topic.name, partitionIndex) })),
  }));
  return { transactionalId: t.transactionalId, topicResults };
}
