// Fetch (1), versions 0-17, as Kafka 3.9's KafkaApis.handleFetchRequest, ReplicaManager.fetchMessages /
// readFromLog and DelayedFetch answer it on a single broker.
//
// Versions: kmock's log holds magic-2 record batches only (Kafka 3.9's log format is always v2).
// Fetch v4+ gets them as stored; Fetch v0-v1 read magic 0 and v2-v3 magic 1 message sets, which
// Kafka 3.9 makes by down-converting every partition's read (LazyDownConversionRecords; see
// log/down-convert.ts). v0-v2 also have a hard size limit (FetchParams.hardMaxBytesLimit): no
// "first batch even if too large", and a batch cut at the limit is kept as read.
//
// Fetch sessions (KIP-227, FetchSession.scala): kmock answers as a Kafka broker whose session
// cache has no slots (max.incremental.fetch.session.cache.slots=0): a full fetch (epoch 0 or -1)
// is served sessionless with sessionId 0, which every client handles by sending full fetches
// again; an incremental fetch (any other epoch) names a session the broker does not have, so it
// gets the top-level FETCH_SESSION_ID_NOT_FOUND, exactly what Kafka sends for an unknown session.
//
// Records are the log's stored Buffers, passed to the response writer as an array: the same
// objects, never copied (v4+). Like Kafka's file slice, the last one may be cut at the size limit.
//
// Isolation (FetchIsolation.of): a consumer's read_committed (v4+ isolation_level 1) reads stop at
// the last stable offset (TXN_COMMITTED: whole batches below the first unstable one) and carry the
// aborted transactions of the range read (PartitionLog.read: LocalLog.addAbortedTransactions; an
// empty list when nothing was read from the segment, null when ReplicaManager dropped the read:
// checkFetchDataInfo's incomplete first batch, a diverging epoch, errors); read_uncommitted reads
// stop at the high watermark with null aborted transactions. Every read answers the log's real last
// stable offset (LogReadInfo.lastStableOffset, taken before the read). A long poll waits for the
// offset its isolation reads up to (DelayedFetch: the LSO for read_committed), so a read_committed
// one wakes when a marker moves the LSO (markers notify the waiters like appends do).
import { AclOperation, type FetchResponse, ErrorCode, ResourceType, ZERO_UUID } from '../../codec/index.js';
import { authorizedCluster, filterAuthorized } from '../security/authorizer/index.js';
import type { BrokerServices } from '../services.js';
import { downConvert } from '../log/down-convert.js';
import { partitionKey, type FetchWaiter } from '../log/fetch-waiters.js';
import { LEADER_EPOCH } from '../log/partition-log.js';
import { defineHandler, type RequestContext } from './types.js';

/** Broker fetch.max.bytes default (55 MiB): caps the request's max_bytes. */
export const FETCH_MAX_BYTES = 57671680;

const NO_BUFFERS: Buffer[] = [];

/** One partition of the request (FetchRequest.PartitionData), topic resolved. */
interface PartitionRequest {
  /** Null when a v13+ topic id is unknown. */
  topic: string | null;
  topicId: string;
  partition: number;
  fetchOffset: number;
  maxBytes: number;
  /** -1 when absent (FetchRequest.optionalEpoch: negative means not given). */
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
}

/** FetchParams. */
interface Params {
  version: number;
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  readCommitted: boolean;
}

interface ReadOutcome {
  data: FetchResponse.PartitionData;
  /** Position of the fetch offset for DelayedFetch (LogOffsetMetadata), or -1 after an error. */
  startPosition: number;
  /** Base offset of the segment holding the fetch offset, -1 after an error. */
  startSegment: number;
  /** The bytes read (stored bytes, before any down-conversion): what every size limit counts. */
  bytes: number;
  error: boolean;
  diverging: boolean;
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  minVersion: 0,
  maxVersion: 17,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const b = ctx.services;

    // FetchManager.newContext with no session slots.
    const epoch = req.sessionEpoch;
    if (epoch !== 0 && epoch !== -1) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] };
    }

    // FetchRequest.fetchData: one entry per topic partition, in request order (a repeat replaces the data).
    const requested = new Map<string, PartitionRequest>();
    for (const t of req.topics) {
      let name: string | null;
      let id: string;
      if (v >= 13) {
        id = t.topicId;
        name = b.topics.getById(id)?.name ?? null;
      } else {
        id = ZERO_UUID;
        name = t.topic;
      }
      for (const p of t.partitions) {
        requested.set(`${id}\0${name ?? ''}\0${p.partition}`, {
          topic: name,
          topicId: id,
          partition: p.partition,
          fetchOffset: Number(p.fetchOffset),
          maxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch < 0 ? -1 : p.currentLeaderEpoch,
          lastFetchedEpoch: p.lastFetchedEpoch < 0 ? -1 : p.lastFetchedEpoch,
        });
      }
    }

    // KafkaApis: unknown topic ids, topics the principal may not READ (a follower: CLUSTER_ACTION
    // on the cluster, for every partition) and unknown partitions are answered without reading.
    const erroneous: Array<[PartitionRequest, FetchResponse.PartitionData]> = [];
    const interesting: PartitionRequest[] = [];
    const fromFollower = (v >= 15 ? req.replicaState.replicaId : req.replicaId) >= 0;
    const clusterAction = !fromFollower || authorizedCluster(ctx, AclOperation.CLUSTER_ACTION);
    // (No authorizer, the common case: nothing to filter, nothing allocated on this hot path.)
    const readable = fromFollower || b.authorizer === undefined ? undefined : filterAuthorized(ctx, AclOperation.READ, ResourceType.TOPIC, [...requested.values()].flatMap((p) => (p.topic === null ? [] : [p.topic])));
    for (const p of requested.values()) {
      if (!clusterAction) erroneous.push([p, partitionError(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED)]);
      else if (p.topic === null) erroneous.push([p, partitionError(p.partition, ErrorCode.UNKNOWN_TOPIC_ID)]);
      else if (readable !== undefined && !readable.has(p.topic)) erroneous.push([p, partitionError(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED)]);
      else {
        const t = b.topics.get(p.topic);
        if (t === undefined || p.partition < 0 || p.partition >= t.partitions.length) {
          erroneous.push([p, partitionError(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]);
        } else interesting.push(p);
      }
    }

    const maxBytes = Math.min(req.maxBytes, FETCH_MAX_BYTES);
    const params: Params = {
      version: v,
      replicaId: v >= 15 ? req.replicaState.replicaId : req.replicaId,
      maxWaitMs: req.maxWaitMs,
      minBytes: Math.min(req.minBytes, maxBytes),
      maxBytes,
      readCommitted: req.isolationLevel === 1,
    };
    if (interesting.length === 0) return respond(ctx, params, [], erroneous);

    // ReplicaManager.fetchMessages: answer now, or wait in "purgatory".
    const first = readFromLog(b, params, interesting);
    let bytesReadable = 0;
    let now = params.maxWaitMs <= 0;
    for (const r of first) {
      bytesReadable += r.bytes;
      if (r.error || r.diverging) now = true;
    }
    if (now || bytesReadable >= params.minBytes) return respond(ctx, params, withRequests(interesting, first), erroneous);
    return longPoll(ctx, params, interesting, first, erroneous);
  },
});

function withRequests(parts: PartitionRequest[], reads: ReadOutcome[]): Array<[PartitionRequest, ReadOutcome]> {
  return parts.map((p, i) => [p, reads[i]]);
}

/** DelayedFetch: completes when enough bytes arrived (woken by appends), or at max_wait_ms. */
function longPoll(
  ctx: RequestContext,
  params: Params,
  interesting: PartitionRequest[],
  first: ReadOutcome[],
  erroneous: Array<[PartitionRequest, FetchResponse.PartitionData]>,
): Promise<FetchResponse> {
  const b = ctx.services;
  const interest = new Set<string>();
  for (const p of interesting) interest.add(partitionKey(p.topic!, p.partition));
  return new Promise<FetchResponse>((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      timer.cancel();
      b.fetchWaiters.remove(waiter);
      try {
        resolve(respond(ctx, params, withRequests(interesting, readFromLog(b, params, interesting)), erroneous));
      } catch (e) {
        reject(e);
      }
    };
    const waiter: FetchWaiter = {
      interest,
      wake: () => {
        if (!done && tryComplete(b, params, interesting, first)) finish();
      },
    };
    // On the broker's clock: a test with a manual clock answers a long poll by advancing it (and,
    // with longPollsOnRealTime, real time answers it too: time/broker-clock.ts, docs/testing.md).
    const timer = b.clock.schedule(params.maxWaitMs, finish, {
      name: `fetch max wait (connection ${ctx.connection.id})`,
      realTimeCap: b.config.longPollsOnRealTime,
    });
    b.fetchWaiters.add(waiter);
  });
}

/** DelayedFetch.tryComplete (cases C, F, G and H; A, B, D and E cannot happen on one broker). */
function tryComplete(b: BrokerServices, params: Params, parts: PartitionRequest[], first: ReadOutcome[]): boolean {
  let accumulated = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const startPosition = first[i].startPosition;
    if (startPosition < 0) continue; // UNKNOWN_OFFSET_METADATA
    const log = b.topics.get(p.topic!)?.partitions[p.partition];
    if (log === undefined) return true; // the topic is gone
    // The offset this isolation reads up to, and its metadata (the batch holding it; the end position at the end).
    const end = params.readCommitted && params.replicaId < 0 ? log.lastStableOffset : log.highWatermark;
    if (p.fetchOffset > end) return true;
    if (p.fetchOffset < end) {
      const endMeta = log.offsetMetadata(end);
      const startSegment = first[i].startSegment;
      // Case F: the end is on an older segment (truncation), or the fetch offset is (a roll
      // happened, or the fetch fell behind the active segment): satisfied at once.
      if (endMeta.segmentBaseOffset !== startSegment) return true;
      accumulated += Math.min(endMeta.position - startPosition, p.maxBytes);
    }
    if (p.lastFetchedEpoch >= 0 && (p.lastFetchedEpoch > LEADER_EPOCH || end < p.fetchOffset)) return true;
  }
  return accumulated >= params.minBytes;
}

/** ReplicaManager.readFromLog: partitions in order, sharing the response byte limit. */
function readFromLog(b: BrokerServices, params: Params, parts: PartitionRequest[]): ReadOutcome[] {
  let limitBytes = params.maxBytes;
  // Fetch v3+ has no hard limit: the first non-empty partition returns at least one whole batch.
  // v0-v2 (FetchParams.hardMaxBytesLimit) never exceed the limits.
  let minOneMessage = params.version > 2;
  const out: ReadOutcome[] = [];
  for (const p of parts) {
    const r = read(b, params, p, limitBytes, minOneMessage);
    if (r.bytes > 0) minOneMessage = false;
    limitBytes = Math.max(0, limitBytes - r.bytes);
    out.push(r);
  }
  return out;
}

/** ReplicaManager.read for one partition. */
function read(b: BrokerServices, params: Params, p: PartitionRequest, limitBytes: number, minOneMessage: boolean): ReadOutcome {
  const topic = b.topics.get(p.topic!);
  const log = topic?.partitions[p.partition];
  if (topic === undefined || log === undefined) return readError(p, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (p.topicId !== ZERO_UUID && p.topicId !== topic.id) return readError(p, ErrorCode.INCONSISTENT_TOPIC_ID);
  // Partition.localLogWithEpochOrThrow: the leader epoch is 0, so a larger one is from the future.
  if (p.currentLeaderEpoch > LEADER_EPOCH) return readError(p, ErrorCode.UNKNOWN_LEADER_EPOCH);
  if (params.replicaId >= 0) {
    // Partition.followerReplicaOrThrow: the leader is the only replica, so no follower is known.
    return readError(p, p.currentLeaderEpoch >= 0 ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NOT_LEADER_OR_FOLLOWER);
  }
  const highWatermark = BigInt(log.highWatermark);
  const lastStableOffset = BigInt(log.lastStableOffset);
  const logStartOffset = BigInt(log.logStartOffset);
  if (p.lastFetchedEpoch >= 0) {
    // Partition.readRecords: the epoch cache holds epoch 0 from offset 0 to the log end.
    if (p.lastFetchedEpoch > LEADER_EPOCH) return readError(p, ErrorCode.OFFSET_OUT_OF_RANGE);
    if (p.fetchOffset < log.logStartOffset) return readError(p, ErrorCode.OFFSET_OUT_OF_RANGE);
    if (log.logEndOffset < p.fetchOffset) {
      // Partition.readRecords: FetchDataInfo.empty, no aborted transactions
      const data = partitionData(p.partition, highWatermark, lastStableOffset, logStartOffset, NO_BUFFERS, null);
      data.divergingEpoch = { epoch: LEADER_EPOCH, endOffset: BigInt(log.logEndOffset) };
      const at = log.offsetMetadata(p.fetchOffset);
      return { data, startPosition: at.position, startSegment: at.segmentBaseOffset, bytes: 0, error: false, diverging: true };
    }
  }
  // FetchIsolation.of: TXN_COMMITTED for a consumer (replica id < 0) reading committed
  const readCommitted = params.readCommitted && params.replicaId < 0;
  const r = log.read(p.fetchOffset, Math.min(p.maxBytes, limitBytes), minOneMessage, readCommitted);
  if (r.errorCode !== 0) return readError(p, r.errorCode);
  // checkFetchDataInfo: without a hard limit (v3+) an incomplete first batch becomes an empty
  // answer; v0-v2 keep the cut batch (which down-conversion then drops).
  if (r.firstEntryIncomplete && params.version > 2) {
    return { data: partitionData(p.partition, highWatermark, lastStableOffset, logStartOffset, NO_BUFFERS, null), startPosition: r.startPosition, startSegment: r.startSegment, bytes: 0, error: false, diverging: false };
  }
  const aborted = r.abortedTransactions === null ? null : r.abortedTransactions.map((t) => ({ producerId: t.producerId, firstOffset: BigInt(t.firstOffset) }));
  return {
    data: partitionData(p.partition, highWatermark, lastStableOffset, logStartOffset, r.records, aborted),
    startPosition: r.startPosition,
    startSegment: r.startSegment,
    bytes: r.bytes,
    error: false,
    diverging: false,
  };
}

function partitionData(
  partition: number,
  highWatermark: bigint,
  lastStableOffset: bigint,
  logStartOffset: bigint,
  records: Buffer[],
  abortedTransactions: FetchResponse.PartitionData['abortedTransactions'],
): FetchResponse.PartitionData {
  return {
    partitionIndex: partition,
    errorCode: 0,
    highWatermark,
    lastStableOffset,
    logStartOffset,
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions,
    preferredReadReplica: -1,
    records,
  };
}

/** ReplicaManager.createLogReadResult(e): offsets unknown, empty records. */
function readError(p: PartitionRequest, errorCode: number): ReadOutcome {
  const data = partitionData(p.partition, -1n, -1n, -1n, NO_BUFFERS, null);
  data.errorCode = errorCode;
  return { data, startPosition: -1, startSegment: -1, bytes: 0, error: true, diverging: false };
}

/** FetchResponse.partitionResponse: for partitions KafkaApis answers without reading. */
function partitionError(partition: number, errorCode: number): FetchResponse.PartitionData {
  const data = partitionData(partition, -1n, -1n, -1n, NO_BUFFERS, []);
  data.errorCode = errorCode;
  // Kafka answers these with MemoryRecords.EMPTY, not null (conformance run vs 3.9.1); null also
  // derails kafkajs's message-set decoder.
  return data;
}

/** FetchResponse.of: read partitions first, then the erroneous ones; consecutive partitions of a topic share an entry. */
function respond(
  ctx: RequestContext,
  params: Params,
  reads: Array<[PartitionRequest, ReadOutcome]>,
  erroneous: Array<[PartitionRequest, FetchResponse.PartitionData]>,
): FetchResponse {
  const v = ctx.apiVersion;
  const responses: FetchResponse.FetchableTopicResponse[] = [];
  const nodeEndpoints: FetchResponse.NodeEndpoint[] = [];
  let last: FetchResponse.FetchableTopicResponse | null = null;
  let lastKey = '';
  const add = (p: PartitionRequest, data: FetchResponse.PartitionData) => {
    if (v >= 16 && (data.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || data.errorCode === ErrorCode.FENCED_LEADER_EPOCH)) {
      // KafkaApis: point at the current leader, which is this broker.
      const b = ctx.services;
      data.currentLeader = { leaderId: b.config.nodeId, leaderEpoch: LEADER_EPOCH };
      if (nodeEndpoints.length === 0) {
        nodeEndpoints.push({ nodeId: b.config.nodeId, host: ctx.listener.advertised.host, port: ctx.listener.advertised.port, rack: b.config.rack });
      }
    }
    const key = `${p.topicId}\0${p.topic ?? ''}`;
    if (last === null || key !== lastKey) {
      last = { topic: v < 13 ? (p.topic ?? '') : '', topicId: v >= 13 ? p.topicId : ZERO_UUID, partitions: [] };
      lastKey = key;
      responses.push(last);
    }
    last.partitions.push(data);
  };
  // KafkaApis.maybeConvertFetchedData, for partitions the broker has a log for: the others (unknown
  // topics and partitions) are all in `erroneous`, and left as they are.
  for (const [p, r] of reads) add(p, v < 10 ? maybeConvert(ctx, params, p, r) : r.data);
  for (const [p, data] of erroneous) add(p, data);
  return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses, nodeEndpoints };
}

/**
 * KafkaApis.maybeConvertFetchedData (Fetch v0-v9): a topic whose compression.type is zstd is
 * refused below v10 (KIP-110); v0-v3 get the read down-converted, or UNSUPPORTED_VERSION when
 * the topic has message.downconversion.enable=false and the fetcher is a consumer.
 */
function maybeConvert(ctx: RequestContext, params: Params, p: PartitionRequest, r: ReadOutcome): FetchResponse.PartitionData {
  const topic = ctx.services.topics.get(p.topic!);
  if (topic === undefined || p.partition >= topic.partitions.length) return r.data; // deleted while parked
  if (topic.configs.get('compression.type') === 'zstd') return conversionError(p.partition, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  if (params.version > 3) return r.data;
  if (params.replicaId < 0 && topic.configs.get('message.downconversion.enable')?.toLowerCase() === 'false') {
    return conversionError(p.partition, ErrorCode.UNSUPPORTED_VERSION);
  }
  const records = r.data.records as Buffer[];
  if (records.length === 0) return r.data;
  const converted = downConvert(records, r.bytes, params.version <= 1 ? 0 : 1, p.fetchOffset);
  if (!converted.ok) return conversionError(p.partition, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  // New buffers: the stored batches themselves are never touched.
  return { ...r.data, records: converted.records };
}

/**
 * FetchResponse.partitionResponse as maybeConvertFetchedData uses it: unlike the partitions
 * answered before reading, these go out with null records (seen against Kafka 3.9.1).
 */
function conversionError(partition: number, errorCode: number): FetchResponse.PartitionData {
  const data = partitionError(partition, errorCode);
  data.records = null;
  return data;
}
