// The answer to a request whose error was injected by the control plane: the API's own response,
// built from the request, with every `ErrorCode` field set to the injected code. It is what
// Kafka's `AbstractRequest.getErrorResponse` builds (ProduceRequest, FetchRequest, ... each mirror
// their request's topics/partitions/groups and put the error on every one) and what librdkafka's
// mock broker sends for `rd_kafka_mock_push_request_errors`, but derived generically from the
// message schemas instead of one hand-written function per API:
//
//  * every `errorCode` field valid at the version (top level, per topic, partition, group, member,
//    coordinator key, resource; AddPartitionsToTxn's `partitionErrorCode`) gets the code;
//  * a response array whose elements carry an error code somewhere (Produce `Responses[]`,
//    `PartitionResponses[]`, OffsetFetch `Groups[]`, DescribeGroups `Groups[]`, ...) gets one
//    element per element of the matching request array, with the identifying fields copied over
//    (topic name/id, partition index, group id, member id, instance id, coordinator key, resource
//    type/name);
//  * arrays without error codes (Metadata brokers, JoinGroup members, ApiVersions keys, ...) stay
//    empty and all other fields keep their schema defaults;
//  * Produce with acks=0 gets no response at all, as Kafka never answers it;
//  * where an API's getErrorResponse departs from these rules, EXCEPTIONS says how.
import { inRange, type FieldSchema, type StructSchema } from '../../codec/primitives/schema.js';
import { apiByKey } from '../../codec/index.js';
import { NO_RESPONSE } from '../handlers/types.js';

/** Response fields that identify an element (copied from the request), with the request field
 *  names they may be called there. */
const KEY_FIELDS: Record<string, readonly string[]> = {
  name: ['name', 'topic'],
  topic: ['topic', 'name'],
  topicId: ['topicId'],
  partitionIndex: ['partitionIndex', 'partition', 'index'],
  partition: ['partition', 'partitionIndex', 'index'],
  index: ['index', 'partitionIndex', 'partition'],
  groupId: ['groupId'],
  memberId: ['memberId'],
  groupInstanceId: ['groupInstanceId'],
  key: ['key'],
  resourceType: ['resourceType'],
  resourceName: ['resourceName'],
  transactionalId: ['transactionalId'],
  // WriteTxnMarkers: each marker's result names its producer id (WriteTxnMarkersRequest.getErrorResponse).
  producerId: ['producerId'],
};

/** The fields that carry an error code (int16). */
const ERROR_FIELDS = new Set(['errorCode', 'partitionErrorCode']);

interface Exception {
  /** Response arrays Kafka leaves empty although their elements carry an error code. */
  emptyArrays?: readonly string[];
  /** Fields that keep their schema default instead of the "none" value. */
  defaultsKept?: readonly string[];
}

/** Where an API's getErrorResponse departs from the generic rules (Kafka 3.9), by API key. */
const EXCEPTIONS: Record<number, Exception> = {
  // AddPartitionsToTxnRequest: v0-3 (clients) mirror the topics and partitions with
  // PartitionErrorCode; v4+ (brokers' batches) answer only the top-level ErrorCode.
  24: { emptyArrays: ['resultsByTransaction'] },
  // DescribeTransactionsRequest: one TransactionState per id with only the id and the error set:
  // ProducerId and ProducerEpoch stay 0.
  65: { defaultsKept: ['producerId', 'producerEpoch'] },
};

const NO_EXCEPTION: Exception = {};

/** Offsets, ids and epochs that Kafka's error responses set to "none" (-1: INVALID_OFFSET,
 *  INVALID_HIGH_WATERMARK, INVALID_LOW_WATERMARK, NO_PRODUCER_ID/EPOCH, Node.noNode()) where the
 *  schema's default is 0. */
const NONE_FIELDS = new Set([
  'baseOffset',
  'highWatermark',
  'lastStableOffset',
  'logStartOffset',
  'lowWatermark',
  'committedOffset',
  'offset',
  'producerId',
  'producerEpoch',
  'nodeId',
  'port',
]);

type Obj = Record<string, unknown>;

/**
 * The error response to `request` (API `apiKey` at `version`), with every error code set to
 * `errorCode`; NO_RESPONSE for a Produce with acks=0.
 */
export function buildErrorResponse(apiKey: number, version: number, request: unknown, errorCode: number): unknown {
  const api = apiByKey(apiKey);
  if (api === undefined) throw new Error(`no schema for API key ${apiKey}`);
  if (apiKey === 0 && (request as { acks?: number }).acks === 0) return NO_RESPONSE;
  if (apiKey === 51) {
    // AlterUserScramCredentialsRequest.getErrorResponse: one result per user named in the
    // deletions or upsertions, sorted, each with the error.
    const r = request as { deletions?: Array<{ name: string }>; upsertions?: Array<{ name: string }> };
    const users = [...new Set([...(r.deletions ?? []), ...(r.upsertions ?? [])].map((u) => u.name))].sort();
    return { throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode, errorMessage: null })) };
  }
  if (apiKey === 34) {
    // AlterReplicaLogDirsRequest.getErrorResponse: every partition of every dir's topics.
    const r = request as { dirs?: Array<{ topics: Array<{ name: string; partitions: number[] }> }> };
    const results = (r.dirs ?? []).flatMap((d) => d.topics.map((t) => ({ topicName: t.name, partitions: t.partitions.map((partitionIndex) => ({ partitionIndex, errorCode })) })));
    return { throttleTimeMs: 0, results };
  }
  if (apiKey === 35 && version < 3) {
    // DescribeLogDirsRequest.getErrorResponse sets only the top-level ErrorCode, which v0-2 lack:
    // there the injected error goes on one log dir result, so the client still sees it.
    return { throttleTimeMs: 0, errorCode, results: [{ errorCode, logDir: '', topics: [], totalBytes: -1n, usableBytes: -1n }] };
  }
  if (apiKey === 49) {
    // AlterClientQuotasRequest.getErrorResponse: every entry, its entity copied, with the error.
    const r = request as { entries?: Array<{ entity: Array<{ entityType: string; entityName: string | null }> }> };
    return { throttleTimeMs: 0, entries: (r.entries ?? []).map((e) => ({ errorCode, errorMessage: null, entity: e.entity.map((x) => ({ ...x })) })) };
  }
  const ctx: Ctx = { version, errorCode, exception: EXCEPTIONS[apiKey] ?? NO_EXCEPTION };
  return fill(api.response.schema, api.request.schema, request as Obj, ctx, false);
}

/** What every level of one error response shares. */
interface Ctx {
  version: number;
  errorCode: number;
  exception: Exception;
}

function fill(schema: StructSchema, reqSchema: StructSchema | undefined, req: Obj | undefined, ctx: Ctx, copyKeys: boolean): Obj {
  const { version } = ctx;
  const out = schema.create() as Obj;
  for (const f of schema.fields) {
    if (!inRange(version, f.versions)) continue;
    if (ERROR_FIELDS.has(f.name) && !f.array && f.type === 'int16') {
      out[f.name] = ctx.errorCode;
      continue;
    }
    if (f.type === 'struct' && f.struct !== undefined) {
      if (!hasErrorCode(f.struct, version)) continue;
      if (f.array) {
        const source = reqSchema && req && !ctx.exception.emptyArrays?.includes(f.name) ? matchingArray(f, reqSchema, req, version) : undefined;
        out[f.name] = source ? mirror(f.struct, source, ctx) : [];
      } else {
        const sub = reqSchema?.fields.find((r) => r.name === f.name && r.struct && !r.array && inRange(version, r.versions));
        out[f.name] = fill(f.struct, sub?.struct, sub ? (req?.[sub.name] as Obj | undefined) : undefined, ctx, false);
      }
      continue;
    }
    // An identifying field the request has is copied (before "none": a marker's producer id).
    if (copyKeys && req && reqSchema && !f.array && f.name in KEY_FIELDS) {
      const from = reqSchema.fields.find(
        (r) => KEY_FIELDS[f.name]!.includes(r.name) && !r.array && r.type === f.type && inRange(version, r.versions),
      );
      if (from && req[from.name] !== undefined) {
        out[f.name] = req[from.name];
        continue;
      }
    }
    if (NONE_FIELDS.has(f.name) && !f.array && !ctx.exception.defaultsKept?.includes(f.name)) {
      if (f.type === 'int64') out[f.name] = -1n;
      else if (f.type === 'int32' || f.type === 'int16') out[f.name] = -1;
    }
  }
  return out;
}

/** One response element per request element. */
function mirror(schema: StructSchema, source: { field: FieldSchema; values: unknown[] }, ctx: Ctx): Obj[] {
  const { field, values } = source;
  const { version } = ctx;
  if (field.type === 'struct' && field.struct) {
    return values.map((v) => fill(schema, field.struct, v as Obj, ctx, true));
  }
  // A request array of plain values (group ids, topic names, coordinator keys, partition indexes):
  // each value fills the element's first identifying field of the same type.
  const key = schema.fields.find((f) => f.name in KEY_FIELDS && !f.array && f.type === field.type && inRange(version, f.versions));
  return values.map((v) => {
    const el = fill(schema, undefined, undefined, ctx, false);
    if (key) el[key.name] = v;
    return el;
  });
}

/** The request array a response array mirrors: same name, else the one whose elements share the
 *  most identifying fields (ties: the first declared, e.g. Fetch `Topics` before `ForgottenTopicsData`). */
function matchingArray(
  resp: FieldSchema,
  reqSchema: StructSchema,
  req: Obj,
  version: number,
): { field: FieldSchema; values: unknown[] } | undefined {
  const candidates = reqSchema.fields.filter((r) => r.array && inRange(version, r.versions) && Array.isArray(req[r.name]));
  if (candidates.length === 0) return undefined;
  let best = candidates.find((r) => r.name === resp.name);
  if (!best) {
    let bestScore = -1;
    for (const c of candidates) {
      const s = similarity(resp.struct!, c, version);
      if (s > bestScore) {
        best = c;
        bestScore = s;
      }
    }
    if (bestScore <= 0) {
      // Elements with nothing to identify them (CreateAcls `Results[]`, DeleteAcls
      // `FilterResults[]`) answer the request's only array position by position, as Kafka's
      // getErrorResponse does (one copy of the error per creation / filter).
      const anonymous = !resp.struct!.fields.some((f) => f.name in KEY_FIELDS && inRange(version, f.versions));
      if (!(anonymous && candidates.length === 1 && candidates[0]!.type === 'struct')) return undefined;
      best = candidates[0];
    }
  }
  return { field: best!, values: req[best!.name] as unknown[] };
}

function similarity(resp: StructSchema, req: FieldSchema, version: number): number {
  const keys = resp.fields.filter((f) => f.name in KEY_FIELDS && !f.array && inRange(version, f.versions));
  if (req.type !== 'struct' || !req.struct) return keys.some((k) => k.type === req.type) ? 1 : 0;
  let score = 0;
  for (const k of keys) {
    if (req.struct.fields.some((r) => KEY_FIELDS[k.name]!.includes(r.name) && r.type === k.type && inRange(version, r.versions))) score++;
  }
  // Nested arrays that also mirror (topics → partitions) count too.
  for (const f of resp.fields) {
    if (f.array && f.struct && inRange(version, f.versions) && req.struct.fields.some((r) => r.array && inRange(version, r.versions))) {
      score++;
      break;
    }
  }
  return score;
}

const errorCodeCache = new WeakMap<StructSchema, Map<number, boolean>>();

/** Does the struct (or anything nested in it) carry an error code at this version? */
function hasErrorCode(schema: StructSchema, version: number): boolean {
  let byVersion = errorCodeCache.get(schema);
  if (!byVersion) errorCodeCache.set(schema, (byVersion = new Map()));
  const known = byVersion.get(version);
  if (known !== undefined) return known;
  const result = schema.fields.some(
    (f) =>
      inRange(version, f.versions) &&
      ((ERROR_FIELDS.has(f.name) && f.type === 'int16') || (f.type === 'struct' && f.struct !== undefined && hasErrorCode(f.struct, version))),
  );
  byVersion.set(version, result);
  return result;
}
