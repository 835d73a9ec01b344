// ExpireDelegationToken (40), v0-2: allowTokenRequests on the broker (else -1), then
// DelegationTokenControlManager.expireDelegationToken: a negative period removes the token at once;
// the new expiry, or its error with expiry 0.
import { createExpireDelegationTokenResponse, ErrorCode } from '../../codec/index.js';
import { allowTokenRequests, ERROR_TIMESTAMP, requester } from './delegation-tokens.js';
import { defineHandler } from './types.js';

export const expireDelegationTokenHandler = defineHandler({
  apiKey: 40,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    if (!allowTokenRequests(ctx)) return createExpireDelegationTokenResponse({ throttleTimeMs: 0, errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: ERROR_TIMESTAMP });
    const r = ctx.services.delegationTokens.expire(req.hmac, requester(ctx), Number(req.expiryTimePeriodMs));
    return createExpireDelegationTokenResponse({ throttleTimeMs: 0, errorCode: r.errorCode, expiryTimestampMs: BigInt(r.expiryTimestamp ?? 0) });
  },
});
