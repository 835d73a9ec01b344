// DescribeClientQuotas (48), v0-1, as a Kafka 3.9 KRaft broker answers it
// (KafkaApis.handleDescribeClientQuotasRequest -> ClientQuotasImage.describe): DESCRIBE_CONFIGS on
// the cluster first (else CLUSTER_AUTHORIZATION_FAILED, no message: ApiError.fromThrowable drops
// the error's own text, and no entries); a filter Kafka refuses answers its error for the whole
// request with null entries (DescribeClientQuotasRequest.getErrorResponse); else the matching
// entities with their values (quotas/client-quotas.ts).
import { AclOperation, createDescribeClientQuotasResponse, ErrorCode } from '../../codec/index.js';
import { QuotaFilterError } from '../quotas/client-quotas.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const describeClientQuotasHandler = defineHandler({
  apiKey: 48,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const error = (errorCode: number, errorMessage: string | null) => createDescribeClientQuotasResponse({ throttleTimeMs: 0, errorCode, errorMessage, entries: null });
    if (!authorizedCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) return error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    try {
      const entries = ctx.services.clientQuotas.describe(req.components, req.strict);
      return createDescribeClientQuotasResponse({ throttleTimeMs: 0, errorCode: 0, errorMessage: '', entries });
    } catch (e) {
      if (e instanceof QuotaFilterError) return error(e.errorCode, e.message);
      throw e;
    }
  },
});
