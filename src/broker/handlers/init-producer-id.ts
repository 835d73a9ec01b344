// InitProducerId (22), versions 0-5, as Kafka 3.9's KafkaApis.handleInitProducerIdRequest and
// TransactionCoordinator.handleInitProducerId answer an idempotent producer: a new producer id
// (0, 1, 2, ... on a single broker) with epoch 0, whatever producer id/epoch the request carries
// (v3+), once those pass KafkaApis' check that they are both -1 or both set (else INVALID_REQUEST).
//
// Transactional ids: kmock has no transaction coordinator (no AddPartitionsToTxn, EndTxn...). It
// answers a transactional InitProducerId as Kafka does when the authorizer denies WRITE on the
// transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED (checked before anything else, as in
// KafkaApis), which clients report at once as a fatal error instead of retrying. Produce answers
// transactional batches the same way, so the behaviour is that of one consistent Kafka setup.
import { defineHandler } from './types.js';
import { ErrorCode } from '../../codec/index.js';

export const initProducerIdHandler = defineHandler({
  apiKey: 22,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    if (req.transactionalId !== null) return failure(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    const pidGiven = req.producerId !== -1n;
    const epochGiven = req.producerEpoch !== -1;
    if (pidGiven !== epochGiven) return failure(ErrorCode.INVALID_REQUEST);
    const producerId = ctx.services.producerIds.generateProducerId();
    ctx.services.log.debug({ producerId: String(producerId) }, 'producer id assigned');
    return { throttleTimeMs: 0, errorCode: 0, producerId, producerEpoch: 0 };
  },
});

/** InitProducerIdRequest.getErrorResponse. */
function failure(errorCode: number) {
  return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 };
}
