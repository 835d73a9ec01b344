// Produce (0), versions 0-11, as Kafka 3.9's KafkaApis.handleProduceRequest and
// ReplicaManager.appendRecords answer it on a single broker.
//
// Versions: v3+ carries exactly one magic-2 record batch per partition, stored as received (a
// view of the request frame). v0-v2 carry legacy message sets (magic 0 for v0-v1, magic 1 for
// v2, though Kafka checks no magic below v3): Kafka 3.9's log format is always v2, so they are
// up-converted into one v2 batch on append (PartitionLog.appendMessageSet, log/up-convert.ts).
//
// Order of checks, Kafka's:
// 1. the whole request: the first batch of each partition is framed (CORRUPT_MESSAGE for a bad
//    size or magic) and looked at for the transactional flag (RequestUtils.hasTransactionalRecords);
//    transactional records need the request's TransactionalId (v3+) and WRITE on it, else
//    TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request (without an authorizer only a
//    null transactional id fails);
// 2. per partition: TOPIC_AUTHORIZATION_FAILED without WRITE on the topic, then
//    UNKNOWN_TOPIC_OR_PARTITION (no auto-creation on produce), then, v3+ only,
//    ProduceRequest.validateRecords (exactly one magic-2 batch: INVALID_RECORD; zstd before v7:
//    UNSUPPORTED_COMPRESSION_TYPE);
// 3. ReplicaManager.handleProduceAppend: every batch framed (scanEntries), one transactional
//    producer at most (INVALID_PRODUCER_ID_MAPPING for the request), then KIP-890's verification
//    of the transactional partitions with the transaction coordinator (produce-txn.ts), whose
//    errors answer those partitions;
// 4. acks outside {-1, 0, 1}: INVALID_REQUIRED_ACKS for every partition that got this far;
// 5. the append (internal topics, then PartitionLog.appendAsLeader: base
//    offset, size, CRC, batch header, records, producer state and transactions; v0-v2:
//    appendMessageSet).
// acks=1 and acks=-1 answer the same with one in-sync replica; acks=0 gets no response, and a
// request with any partition error closes the connection, as Kafka does.
import { AclOperation, type ProduceRequest, type ProduceResponse, type RecordSet, ErrorCode, ResourceType } from '../../codec/index.js';
import { ATTRIBUTES_OFFSET, COMPRESSION_CODEC_MASK, LOG_OVERHEAD, MAGIC_OFFSET, PRODUCER_ID_OFFSET, TRANSACTIONAL_FLAG_MASK } from '../../codec/records/constants.js';
import { initCompression } from '../../codec/records/compression.js';
import { nextEntry, scanEntries } from '../../codec/records/validate.js';
import { zstdReady } from '../../codec/records/zstd.js';
import { resolveLogConfig } from '../log/log-config.js';
import { NO_VERIFICATION, type AppendResult, type TxnAppendOptions } from '../log/partition-log.js';
import { SENTINEL_GUARD, type VerificationGuard } from '../log/producer-state.js';
import type { Topic } from '../log/topics.js';
import { authorized, filterAuthorized } from '../security/authorizer/index.js';
import { checkAppendError, checkProduceBatches } from '../strict/batch-checks.js';
import { scanTransactional, verifyTransactionalPartitions, type Verification } from './produce-txn.js';
import { closeRequestConnection, defineHandler, NO_RESPONSE, type RequestContext } from './types.js';

/** AdminUtils.ADMIN_CLIENT_ID: the only client allowed to write to internal topics. */
const ADMIN_CLIENT_ID = '__admin_client';

export const produceHandler = defineHandler({
  apiKey: 0,
  minVersion: 0,
  maxVersion: 11,
  handle(ctx, req) {
    if (ctx.services.clientFindings.enabled) {
      // Strict mode reads each batch's records before the append stamps its header; a zstd batch
      // needs the codec loaded first.
      if (!zstdReady() && hasZstdBatch(req)) {
        return initCompression().then(() => {
          checkProduceBatches(ctx, req);
          return answer(ctx, req);
        });
      }
      checkProduceBatches(ctx, req);
    }
    return answer(ctx, req);
  },
});

function answer(ctx: RequestContext, req: ProduceRequest): ProduceResponse | typeof NO_RESPONSE | Promise<ProduceResponse | typeof NO_RESPONSE> {
  const simple = produceSimple(ctx, req);
  if (simple !== undefined) return simple;
  // zstd batches are validated by decompressing them, and a compression.type=zstd topic stores
  // what it gets recompressed: the WASM codec loads once, on first use.
  if (!zstdReady() && (hasZstdBatch(req) || writesZstdTopic(ctx, req))) return initCompression().then(() => produce(ctx, req));
  return produce(ctx, req);
}

/** Above this many partitions a request goes the general way (the duplicate checks below are quadratic). */
const SIMPLE_MAX_PARTITIONS = 32;

/**
 * The common request, answered without the general path's bookkeeping (string keys, Maps,
 * status objects): Produce v3+ with a valid acks, where every partition is a distinct partition
 * of a distinct, existing, non-internal topic and its records
 * are exactly one whole non-transactional v2 batch whose codec this version may use. For such a
 * request every check of `produce` before the appends passes for every partition, and its
 * answer lists the partitions in request order, so appending and answering here is what
 * `produce` would do. Anything else returns undefined before anything has changed, and `handle`
 * goes on as for any request. (Exported for test/broker/handlers/produce-fast-path.property.test.ts,
 * which checks it against `produce`.)
 */
export function produceSimple(ctx: RequestContext, req: ProduceRequest): ProduceResponse | typeof NO_RESPONSE | undefined {
  const v = ctx.apiVersion;
  const acks = req.acks;
  if (v < 3 || (acks !== -1 && acks !== 0 && acks !== 1)) return undefined;
  const topicData = req.topicData;
  if (topicData.length === 0 || topicData.length > SIMPLE_MAX_PARTITIONS) return undefined;
  const b = ctx.services;
  let count = 0;
  for (let i = 0; i < topicData.length; i++) {
    const t = topicData[i];
    for (let j = 0; j < i; j++) if (topicData[j].name === t.name) return undefined;
    const topic = b.topics.get(t.name);
    if (topic === undefined || topic.isInternal) return undefined;
    if (b.authorizer !== undefined && !authorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, t.name, false)) return undefined;
    const parts = t.partitionData;
    count += parts.length;
    if (parts.length === 0 || count > SIMPLE_MAX_PARTITIONS) return undefined;
    const config = resolveLogConfig(topic.configs, b.logDefaults);
    // a compression.type=zstd topic stores zstd batches: the codec loads first (see handle)
    if (config.compressionCodec === 4 && !zstdReady()) return undefined;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      const index = p.index;
      if (index < 0 || index >= topic.partitions.length) return undefined;
      for (let m = 0; m < k; m++) if (parts[m].index === index) return undefined;
      const records = p.records;
      if (records === null || !Buffer.isBuffer(records)) return undefined;
      // nextEntry(records, 0) is a whole magic-2 entry filling `records` (so no second entry),
      // big enough for scanEntries and the transactional check.
      const size = records.length;
      if (size < PRODUCER_ID_OFFSET + 8 || records[MAGIC_OFFSET] !== 2 || records.readInt32BE(8) + LOG_OVERHEAD !== size) return undefined;
      const attributes = records.readInt16BE(ATTRIBUTES_OFFSET);
      if ((attributes & TRANSACTIONAL_FLAG_MASK) !== 0) return undefined;
      const codec = attributes & COMPRESSION_CODEC_MASK;
      // zstd before v7 is refused; a zstd batch waits for the codec to load (see handle).
      if (codec === 4 && (v < 7 || !zstdReady())) return undefined;
      if (codec > 4 && v < 7) return undefined;
    }
  }

  // 4. ReplicaManager.appendToLocalLog, as in `produce`
  const now = b.clock.now();
  const responses: ProduceResponse['responses'] = acks === 0 ? [] : new Array(topicData.length);
  let failed = false;
  for (let i = 0; i < topicData.length; i++) {
    const t = topicData[i];
    const topic = b.topics.get(t.name)!;
    const config = resolveLogConfig(topic.configs, b.logDefaults);
    const parts = t.partitionData;
    const partitionResponses: ProduceResponse.PartitionProduceResponse[] = acks === 0 ? [] : new Array(parts.length);
    for (let k = 0; k < parts.length; k++) {
      const index = parts[k].index;
      const r = topic.partitions[index].appendAsLeader(parts[k].records as Buffer, config, now);
      if (r.errorCode !== 0) {
        failed = true;
        b.log.debug({ topic: topic.name, partition: index, error: r.errorCode, reason: r.reason }, 'produce failed');
        checkAppendError(ctx, topic.name, index, r.errorCode, r.reason);
      }
      if (r.appended) {
        b.fetchWaiters.notify(topic.name, index);
        // kmock's fsyncOnAcksAll: acknowledged acks=all records are on disk first.
        if (acks === -1 && b.config.fsyncOnAcksAll) topic.partitions[index].flush(now);
      }
      if (acks !== 0) partitionResponses[k] = partitionResponse(index, r);
    }
    if (acks !== 0) responses[i] = { name: t.name, partitionResponses };
  }
  if (acks === 0) {
    if (failed) closeRequestConnection(ctx, 'error in produce request with acks=0');
    return NO_RESPONSE;
  }
  return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
}

function asBuffer(r: RecordSet | null): Buffer | null {
  if (r === null) return null;
  return Buffer.isBuffer(r) ? r : Buffer.concat(r as readonly Buffer[]);
}

function hasZstdBatch(req: ProduceRequest): boolean {
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      const r = p.records;
      if (r === null || !Buffer.isBuffer(r) || r.length <= ATTRIBUTES_OFFSET + 1) continue;
      if (r.readInt8(MAGIC_OFFSET) === 2 && (r.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK) === 4) return true;
    }
  }
  return false;
}

/** A partition of a compression.type=zstd topic: its batches are stored zstd-compressed. */
function writesZstdTopic(ctx: RequestContext, req: ProduceRequest): boolean {
  for (const t of req.topicData) {
    const topic = ctx.services.topics.get(t.name);
    if (topic !== undefined && resolveLogConfig(topic.configs, ctx.services.logDefaults).compressionCodec === 4) return true;
  }
  return false;
}

interface PartitionStatus {
  errorCode: number;
  baseOffset: number;
  logAppendTime: number;
  logStartOffset: number;
  recordErrors: Array<{ batchIndex: number; message: string | null }>;
  errorMessage: string | null;
}

function status(errorCode: number, errorMessage: string | null = null): PartitionStatus {
  return { errorCode, baseOffset: -1, logAppendTime: -1, logStartOffset: -1, recordErrors: [], errorMessage };
}

function fromAppend(r: AppendResult): PartitionStatus {
  return {
    errorCode: r.errorCode,
    baseOffset: r.baseOffset,
    logAppendTime: r.logAppendTime,
    logStartOffset: r.logStartOffset,
    recordErrors: r.recordErrors,
    errorMessage: r.errorMessage,
  };
}

interface Target {
  topic: Topic;
  partition: number;
  /** v3+: the partition's single batch, a view of the request frame; v0-v2: the whole records field. */
  batch: Buffer | null;
}

/** Any Produce request, as Kafka's handleProduceRequest answers it (the numbered steps above). */
export function produce(ctx: RequestContext, req: ProduceRequest): ProduceResponse | typeof NO_RESPONSE {
  const v = ctx.apiVersion;
  const b = ctx.services;

  // 1. RequestUtils.hasTransactionalRecords over the first batch of every partition; then
  // authorize(WRITE, TRANSACTIONAL_ID): without an authorizer only a null transactional id fails.
  let hasTransactionalRecords = false;
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      const records = asBuffer(p.records);
      if (records === null) continue;
      const e = nextEntry(records, 0);
      if (e.kind === 'corrupt') return wholeRequestError(ctx, req, ErrorCode.CORRUPT_MESSAGE, e.message);
      if (e.kind === 'entry' && e.magic === 2) {
        if (e.size < ATTRIBUTES_OFFSET + 2) return wholeRequestError(ctx, req, ErrorCode.UNKNOWN_SERVER_ERROR, null);
        if ((records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) !== 0) hasTransactionalRecords = true;
      }
    }
  }
  // Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception carries the error's default text: no message.
  const transactionalId = v >= 3 ? req.transactionalId : null;
  if (hasTransactionalRecords && (transactionalId === null || !authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId))) {
    return wholeRequestError(ctx, req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null);
  }

  // 2. Per partition: WRITE on the topic, existence, then ProduceRequest.validateRecords.
  const writable = filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, req.topicData.map((t) => t.name));
  const order = new Map<string, [string, number]>();
  const targets = new Map<string, Target>();
  const errors = new Map<string, PartitionStatus>();
  for (const t of req.topicData) {
    const topic = b.topics.get(t.name);
    for (const p of t.partitionData) {
      const key = `${t.name}\0${p.index}`;
      if (!order.has(key)) order.set(key, [t.name, p.index]);
      if (!writable.has(t.name)) {
        errors.set(key, status(ErrorCode.TOPIC_AUTHORIZATION_FAILED));
        continue;
      }
      if (topic === undefined || p.index < 0 || p.index >= topic.partitions.length) {
        errors.set(key, status(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      const records = asBuffer(p.records);
      if (records === null || v < 3) {
        // Below v3 Kafka validates nothing here: the log sorts out legacy sets (appendMessageSet).
        targets.set(key, { topic, partition: p.index, batch: records });
        continue;
      }
      const first = nextEntry(records, 0);
      if (first.kind === 'corrupt') {
        errors.set(key, status(ErrorCode.CORRUPT_MESSAGE));
        continue;
      }
      if (first.kind === 'none' || first.magic !== 2) {
        // "must have at least one record batch" / "only allowed to contain record batches with magic version 2"
        errors.set(key, status(ErrorCode.INVALID_RECORD));
        continue;
      }
      if (v < 7) {
        const codec = records.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK;
        if (codec === 4) {
          errors.set(key, status(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE));
          continue;
        }
        // CompressionType.forId throws IllegalArgumentException, which escapes the handler.
        if (codec > 4) return wholeRequestError(ctx, req, ErrorCode.UNKNOWN_SERVER_ERROR, null);
      }
      const second = nextEntry(records, first.size);
      if (second.kind !== 'none') {
        // corrupt framing after the first batch, or "exactly one record batch per partition"
        errors.set(key, status(second.kind === 'corrupt' ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.INVALID_RECORD));
        continue;
      }
      // Bytes after the batch that do not make a whole entry are dropped (UnifiedLog.trimInvalidBytes).
      targets.set(key, { topic, partition: p.index, batch: first.size === records.length ? records : records.subarray(0, first.size) });
    }
  }

  const results = new Map<string, PartitionStatus>();
  if (targets.size > 0) {
    // ReplicaManager.handleProduceAppend looks at every batch of every partition (hasProducerId,
    // for transaction verification) before anything else; what throws there fails the request.
    for (const t of targets.values()) {
      const problem = scanEntries(t.batch);
      if (problem !== null) return wholeRequestError(ctx, req, ErrorCode[problem.error], problem.message);
    }
    // 3. transactional batches: one producer, then the coordinator's verification (produce-txn.ts)
    const now = b.clock.now();
    const scan = scanTransactional(txnTargets(targets));
    if (scan.kind === 'error') return wholeRequestError(ctx, req, scan.errorCode, scan.message);
    let verification: Verification | null = null;
    if (scan.kind === 'transactional' && transactionalId !== null) {
      verification = verifyTransactionalPartitions(ctx, transactionalId, scan, now);
      for (const [key, f] of verification.failures) {
        results.set(key, status(f.errorCode, f.errorMessage));
        targets.delete(key);
      }
    }
    const acks = req.acks;
    if (acks !== -1 && acks !== 0 && acks !== 1) {
      for (const key of targets.keys()) results.set(key, status(ErrorCode.INVALID_REQUIRED_ACKS));
    } else {
      // 5. ReplicaManager.appendToLocalLog
      const internalAllowed = ctx.header.clientId === ADMIN_CLIENT_ID;
      const verificationEnabled = b.config.transactionPartitionVerificationEnable;
      for (const [key, t] of targets) {
        if (t.topic.isInternal && !internalAllowed) {
          results.set(key, status(ErrorCode.INVALID_TOPIC_EXCEPTION));
          continue;
        }
        const log = t.topic.partitions[t.partition];
        const config = resolveLogConfig(t.topic.configs, b.logDefaults);
        // Partition.appendRecordsToLeader refuses acks=-1 when the ISR is smaller than the
        // effective min ISR, min(min.insync.replicas, replicas): 1 with kmock's one replica, so never.
        const txn = appendOptions(verificationEnabled, verification?.guards.get(key) ?? SENTINEL_GUARD);
        const r = v < 3 ? log.appendMessageSet(t.batch!, config, now, txn) : log.appendAsLeader(t.batch!, config, now, txn);
        if (r.errorCode !== 0) {
          b.log.debug({ topic: t.topic.name, partition: t.partition, error: r.errorCode, reason: r.reason }, 'produce failed');
          checkAppendError(ctx, t.topic.name, t.partition, r.errorCode, r.reason);
        }
        results.set(key, fromAppend(r));
        if (r.appended) {
          b.fetchWaiters.notify(t.topic.name, t.partition);
          if (acks === -1 && b.config.fsyncOnAcksAll) log.flush(now);
        }
      }
    }
  }
  // KafkaApis: responseStatus ++ nonExistingTopicResponses ++ invalidRequestResponses
  for (const [key, s] of errors) results.set(key, s);

  if (req.acks === 0) {
    for (const s of results.values()) {
      if (s.errorCode !== 0) {
        closeRequestConnection(ctx, 'error in produce request with acks=0');
        break;
      }
    }
    return NO_RESPONSE;
  }
  return buildResponse(order, results);
}

/** The partitions with records, for produce-txn.ts's scan. */
function* txnTargets(targets: Map<string, Target>) {
  for (const [key, t] of targets) {
    if (t.batch !== null) yield { key, topic: t.topic.name, partition: t.partition, log: t.topic.partitions[t.partition], records: t.batch };
  }
}

function appendOptions(verificationEnabled: boolean, guard: VerificationGuard): TxnAppendOptions {
  return verificationEnabled && guard === SENTINEL_GUARD ? NO_VERIFICATION : { verificationEnabled, guard };
}

function buildResponse(order: Map<string, [string, number]>, results: Map<string, PartitionStatus>): ProduceResponse {
  const byTopic = new Map<string, ProduceResponse.PartitionProduceResponse[]>();
  for (const [key, [topic, partition]] of order) {
    const s = results.get(key)!;
    let list = byTopic.get(topic);
    if (list === undefined) {
      list = [];
      byTopic.set(topic, list);
    }
    list.push(partitionResponse(partition, s));
  }
  return {
    responses: [...byTopic].map(([name, partitionResponses]) => ({ name, partitionResponses })),
    throttleTimeMs: 0,
    nodeEndpoints: [],
  };
}

const MINUS_ONE = BigInt(-1);

/** BigInt(n), without the conversion for the -1 that most answers carry. */
function int64(n: number): bigint {
  return n === -1 ? MINUS_ONE : BigInt(n);
}

function partitionResponse(index: number, s: PartitionStatus): ProduceResponse.PartitionProduceResponse {
  return {
    index,
    errorCode: s.errorCode,
    baseOffset: int64(s.baseOffset),
    logAppendTimeMs: int64(s.logAppendTime),
    logStartOffset: int64(s.logStartOffset),
    recordErrors: s.recordErrors.length === 0 ? [] : s.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
    errorMessage: s.errorMessage,
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
  };
}

/**
 * An exception escaping KafkaApis.handleProduceRequest: every partition gets the error
 * (ProduceRequest.getErrorResponse); with acks=0 there is no response and the connection closes.
 * `message` as ApiError.fromThrowable keeps it: null for UNKNOWN_SERVER_ERROR (nothing leaks) and
 * for an exception whose text is the error's default one.
 */
function wholeRequestError(ctx: RequestContext, req: ProduceRequest, errorCode: number, message: string | null): ProduceResponse | typeof NO_RESPONSE {
  if (req.acks === 0) {
    closeRequestConnection(ctx, 'error in produce request with acks=0');
    return NO_RESPONSE;
  }
  const order = new Map<string, [string, number]>();
  const results = new Map<string, PartitionStatus>();
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      const key = `${t.name}\0${p.index}`;
      if (!order.has(key)) order.set(key, [t.name, p.index]);
      results.set(key, status(errorCode, message));
    }
  }
  return buildResponse(order, results);
}
