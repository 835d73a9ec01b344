// DescribeUserScramCredentials (50), v0, as a Kafka 3.9 KRaft broker answers it
// (KafkaApis.handleDescribeUserScramCredentialsRequest -> ScramImage.describe): every user when
// the list is null or empty, else each named one once; a repeated name is DUPLICATE_RESOURCE.
import { AclOperation, createDescribeUserScramCredentialsResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { SCRAM_MECHANISM_TYPE } from '../security/sasl/scram-credentials.js';
import { defineHandler } from './types.js';

export const describeUserScramCredentialsHandler = defineHandler({
  apiKey: 50,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const store = ctx.services.scramCredentials;
    if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.CLUSTER, 'kafka-cluster')) {
      // DescribeUserScramCredentialsRequest.getErrorResponse: one result per named user, its name
      // unset, no message (Errors.CLUSTER_AUTHORIZATION_FAILED.code only). With no user list Kafka
      // 3.9's getErrorResponse throws on the null list and never answers; kmock answers the error.
      const e = { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null };
      return createDescribeUserScramCredentialsResponse({ ...e, results: (req.users ?? []).map(() => ({ user: '', ...e, credentialInfos: [] })) });
    }
    const counts = new Map<string, number>();
    if (req.users === null || req.users.length === 0) for (const u of store.users()) counts.set(u, 1);
    else for (const u of req.users) counts.set(u.name, (counts.get(u.name) ?? 0) + 1);
    const results = [...counts].map(([user, n]) => {
      if (n > 1) return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] };
      const mechs = store.mechanisms(user);
      if (mechs.length === 0) return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
      return { user, errorCode: 0, errorMessage: '', credentialInfos: mechs.map((m) => ({ mechanism: SCRAM_MECHANISM_TYPE[m], iterations: store.get(user, m)!.iterations })) };
    });
    return createDescribeUserScramCredentialsResponse({ throttleTimeMs: 0, errorCode: 0, errorMessage: '', results });
  },
});
