// WriteTxnMarkers (27), versions 0-1, as Kafka 3.9's KafkaApis.handleWriteTxnMarkersRequest: the
// transaction coordinator's request to a partition leader, also sent by admin tools
// (`kafka-transactions.sh abort` aborts a hanging transaction with it). Each marker is written to
// its partitions (txn/log-markers.ts); the answer lists, per producer id, every partition's error.
// As in Kafka the results are keyed by producer id, so two markers of one producer answer as one.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, type WriteTxnMarkersRequest, type WriteTxnMarkersResponse } from '../../codec/index.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { writeMarker } from '../txn/log-markers.js';

export const writeTxnMarkersHandler = defineHandler({
  apiKey: 27,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    // From the transaction coordinator's broker: ALTER on the cluster, or CLUSTER_ACTION; else the
    // request's error, CLUSTER_AUTHORIZATION_FAILED on every partition (KafkaApis.handleWriteTxnMarkersRequest).
    if (!authorizedCluster(ctx, AclOperation.ALTER, false) && !authorizedCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return errorResponse(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    const byProducer = new Map<bigint, Map<string, Map<number, number>>>();
    for (const m of req.markers) {
      const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
      if (cannotBuildMarker(m) && partitions.some((tp) => ctx.services.topics.get(tp.topic)?.partitions[tp.partition] !== undefined)) {
        // MemoryRecords.withEndTransactionMarker throws IllegalArgumentException for producer id -1
        // ("End transaction marker requires a valid producerId") and for epoch -1 ("Invalid
        // negative producer epoch"): the request fails as a whole, every partition of every marker
        // UNKNOWN_SERVER_ERROR (WriteTxnMarkersRequest.getErrorResponse); earlier markers stay written.
        ctx.services.log.info({ producerId: String(m.producerId), producerEpoch: m.producerEpoch }, 'WriteTxnMarkers: a marker without a producer id or epoch cannot be built');
        return errorResponse(req, ErrorCode.UNKNOWN_SERVER_ERROR);
      }
      const results = writeMarker(ctx.services, {
        producerId: m.producerId,
        producerEpoch: m.producerEpoch,
        coordinatorEpoch: m.coordinatorEpoch,
        result: m.transactionResult ? 'COMMIT' : 'ABORT',
        partitions,
      });
      const topics = byProducer.get(m.producerId) ?? new Map<string, Map<number, number>>();
      byProducer.set(m.producerId, topics);
      for (const r of results) {
        const p = topics.get(r.topic) ?? new Map<number, number>();
        topics.set(r.topic, p);
        p.set(r.partition, r.errorCode);
      }
    }
    const markers: WriteTxnMarkersResponse.WritableTxnMarkerResult[] = [...byProducer].map(([producerId, topics]) => ({
      producerId,
      topics: [...topics].map(([name, partitions]) => ({
        name,
        partitions: [...partitions].map(([partitionIndex, errorCode]) => ({ partitionIndex, errorCode })),
      })),
    }));
    return { markers };
  },
});

/** MemoryRecordsBuilder's checks that make withEndTransactionMarker throw. */
function cannotBuildMarker(m: WriteTxnMarkersRequest.WritableTxnMarker): boolean {
  return m.producerId === -1n || m.producerEpoch === -1;
}

/** WriteTxnMarkersRequest.getErrorResponse: per producer id, every partition of its markers with the error. */
function errorResponse(req: WriteTxnMarkersRequest, errorCode: number): WriteTxnMarkersResponse {
  const byProducer = new Map<bigint, Map<string, Set<number>>>();
  for (const m of req.markers) {
    // A HashMap keyed by producer id: a later marker of the same producer replaces the earlier's partitions.
    const topics = new Map<string, Set<number>>();
    for (const t of m.topics) {
      const set = topics.get(t.name) ?? new Set<number>();
      for (const p of t.partitionIndexes) set.add(p);
      topics.set(t.name, set);
    }
    byProducer.set(m.producerId, topics);
  }
  return {
    markers: [...byProducer].map(([producerId, topics]) => ({
      producerId,
      topics: [...topics].map(([name, partitions]) => ({ name, partitions: [...partitions].map((partitionIndex) => ({ partitionIndex, errorCode })) })),
    })),
  };
}
