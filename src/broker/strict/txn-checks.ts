// The strict-clients check of transactional Produce (called by handlers/produce-txn.ts when the
// transaction coordinator says a partition is not in the producer's transaction): the client
// skipped AddPartitionsToTxn for it, or wrote after its transaction ended. Kafka 3.9 answers it
// with a generic transactional error (or, with verification disabled, not at all); the finding
// names the partition, the transactional id and the producer.
import { errorName } from '../../codec/index.js';
import type { RequestContext } from '../handlers/types.js';

/** `answered`: the error the partition got, or null when it was appended (verification disabled). */
export function checkTxnVerification(
  ctx: RequestContext,
  tp: { topic: string; partition: number },
  transactionalId: string,
  producer: { producerId: bigint; producerEpoch: number },
  answered: number | null,
): void {
  if (!ctx.services.clientFindings.enabled) return;
  const outcome = answered === null ? 'appended without verification (transaction.partition.verification.enable=false)' : `answered ${errorName(answered)}`;
  ctx.services.clientFindings.record(
    'txn-partition-not-added',
    ctx.connection,
    ctx.header,
    `${tp.topic}-${tp.partition}: transactional id "${transactionalId}" (producer ${producer.producerId}, epoch ${producer.producerEpoch}) has not added it to its transaction; ${outcome}`,
  );
}
