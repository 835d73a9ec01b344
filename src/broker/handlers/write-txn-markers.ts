// WriteTxnMarkers (27), versions 0-1, as Kafka 3.9's KafkaApis.handleWriteTxnMarkersRequest: the
// transaction coordinator's request to a partition leader, also sent by admin tools
// (`kafka-transactions.sh abort` aborts a hanging transaction with it). Each marker is written to
// its partitions (txn/log-markers.ts); the answer lists, per producer id, every partition's error.
// As in Kafka the results are keyed by producer id, so two markers of one producer answer as one.
import { defineHandler } from './types.js';
import type { WriteTxnMarkersResponse } from '../../codec/index.js';
import { writeMarker } from '../txn/log-markers.js';

export const writeTxnMarkersHandler = defineHandler({
  apiKey: 27,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const byProducer = new Map<bigint, Map<string, Map<number, number>>>();
    for (const m of req.markers) {
      const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
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
