// InitProducerId (22), versions 0-5, as Kafka 3.9's KafkaApis.handleInitProducerIdRequest: the
// request's ProducerId/ProducerEpoch (v3+) must be both -1 or both set (else INVALID_REQUEST), then
// the transaction coordinator answers (txn/coordinator.ts initProducerId): an idempotent producer
// gets a new producer id at epoch 0; a transactional id gets its producer id and a bumped epoch,
// fencing the previous producer, aborting its open transaction, recovering (KIP-360) after errors.
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v4, which older clients understand.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType, type InitProducerIdResponse } from '../../codec/index.js';
import { authorized, authorizedByResourceType, authorizedCluster } from '../security/authorizer/index.js';

export const initProducerIdHandler = defineHandler({
  apiKey: 22,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    // KafkaApis.handleInitProducerIdRequest: WRITE on the transactional id; an idempotent producer
    // needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679).
    if (req.transactionalId !== null) {
      if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return failure(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    } else if (!authorizedCluster(ctx, AclOperation.IDEMPOTENT_WRITE, false) && !authorizedByResourceType(ctx, AclOperation.WRITE, ResourceType.TOPIC)) {
      return failure(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    const pidGiven = req.producerId !== -1n;
    const epochGiven = req.producerEpoch !== -1;
    if (pidGiven !== epochGiven) return failure(ErrorCode.INVALID_REQUEST);
    const expected = pidGiven ? { producerId: req.producerId, epoch: req.producerEpoch } : undefined;
    return new Promise<InitProducerIdResponse>((resolve) => {
      ctx.services.transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs, expected, (r) => {
        const errorCode = ctx.apiVersion < 4 && r.errorCode === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : r.errorCode;
        ctx.services.log.debug(
          { transactionalId: req.transactionalId, producerId: String(r.producerId), producerEpoch: r.producerEpoch, errorCode },
          'InitProducerId answered',
        );
        resolve({ throttleTimeMs: 0, errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch });
      });
    });
  },
});

/** InitProducerIdRequest.getErrorResponse. */
function failure(errorCode: number): InitProducerIdResponse {
  return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 };
}
