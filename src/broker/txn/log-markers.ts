// Transaction markers into the logs: what WriteTxnMarkers does on the partition leader (KafkaApis
// handleWriteTxnMarkersRequest, 3.9), shared by the coordinator's own marker sending (the
// MarkerWriter seam of markers.ts, standing in for TransactionMarkerChannelManager's requests to
// the leaders, which on one broker are this broker) and the WriteTxnMarkers API that admin tools
// send (`kafka-transactions.sh abort`).
//
// Per partition, as KafkaApis: a partition this broker does not have answers
// UNKNOWN_TOPIC_OR_PARTITION; every other partition, `__consumer_offsets` included, gets a
// COMMIT/ABORT control batch appended (PartitionLog.appendControlMarker, with the producer- and
// coordinator-epoch checks of ProducerAppendInfo.appendEndTxnMarker). Then, for the
// `__consumer_offsets` partitions whose marker was written (maybeSendResponseCallback's
// successfulOffsetsPartitions, with group.coordinator.new.enable=false as on 3.9), the group
// coordinator completes the producer's pending TxnOffsetCommit offsets
// (GroupCoordinator.onTransactionCompleted): the marker in the log is what a coordinator loaded
// from it resolves them by. Fetch long polls on a partition are woken when its marker lands: the
// last stable offset moved.
import type { BrokerServices } from '../services.js';
import type { Clock } from '../group/clock.js';
import { OFFSETS_TOPIC } from '../internal-topics.js';
import type { MarkerPartitionResult, MarkerWriter, TxnMarkerRequest } from './markers.js';
import type { TransactionResult } from './types.js';
import { ErrorCode } from '../../codec/index.js';
import { resolveLogConfig } from '../log/log-config.js';

export interface MarkerToWrite {
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  result: TransactionResult;
  partitions: ReadonlyArray<{ topic: string; partition: number }>;
}

type MarkerServices = Pick<BrokerServices, 'logDefaults' | 'topics' | 'groups' | 'fetchWaiters' | 'log'> & { clock: Clock };

/**
 * Writes one marker to each of its partitions; one result per partition, in the marker's order.
 * `unknownPartition` is what a partition this broker does not have answers: the API's
 * UNKNOWN_TOPIC_OR_PARTITION, or for the coordinator NONE, as TransactionMarkerChannelManager skips
 * a partition without a leader ("likely deleted already") and removes it from the transaction.
 */
export function writeMarker(b: MarkerServices, marker: MarkerToWrite, unknownPartition: number = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION): MarkerPartitionResult[] {
  const results: MarkerPartitionResult[] = [];
  const offsetsPartitions: number[] = [];
  for (const tp of marker.partitions) {
    const topic = b.topics.get(tp.topic);
    const log = topic?.partitions[tp.partition];
    if (log === undefined) {
      if (unknownPartition === ErrorCode.NONE) b.log.info({ topic: tp.topic, partition: tp.partition }, 'transaction marker skipped: the partition is gone');
      results.push({ ...tp, errorCode: unknownPartition });
      continue;
    }
    const { errorCode } = log.appendControlMarker(
      { producerId: marker.producerId, producerEpoch: marker.producerEpoch, coordinatorEpoch: marker.coordinatorEpoch, result: marker.result },
      b.clock.now(),
      // The topic's settings: LogAppendTime stamps the marker too.
      resolveLogConfig(topic!.configs, b.logDefaults),
    );
    results.push({ ...tp, errorCode });
    if (errorCode === ErrorCode.NONE && tp.topic === OFFSETS_TOPIC) offsetsPartitions.push(tp.partition);
    if (errorCode === ErrorCode.NONE) b.fetchWaiters.notify(tp.topic, tp.partition);
    else b.log.info({ topic: tp.topic, partition: tp.partition, producerId: String(marker.producerId), errorCode }, 'transaction marker refused');
  }
  if (offsetsPartitions.length > 0) b.groups.onTransactionCompleted(marker.producerId, offsetsPartitions, marker.result);
  return results;
}

/** The coordinator's MarkerWriter on this broker's own logs: written at once. */
export function logMarkerWriter(b: MarkerServices): MarkerWriter {
  return {
    write(request: TxnMarkerRequest, done) {
      done(writeMarker(b, request, ErrorCode.NONE));
    },
  };
}
