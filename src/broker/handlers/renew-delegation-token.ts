// RenewDelegationToken (39), v0-2: allowTokenRequests on the broker (else -1), then
// DelegationTokenControlManager.renewDelegationToken: the new expiry, or its error with expiry 0.
import { createRenewDelegationTokenResponse, ErrorCode } from '../../codec/index.js';
import { allowTokenRequests, ERROR_TIMESTAMP, requester } from './delegation-tokens.js';
import { defineHandler } from './types.js';

export const renewDelegationTokenHandler = defineHandler({
  apiKey: 39,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    if (!allowTokenRequests(ctx)) return createRenewDelegationTokenResponse({ throttleTimeMs: 0, errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: ERROR_TIMESTAMP });
    const r = ctx.services.delegationTokens.renew(req.hmac, requester(ctx), Number(req.renewPeriodMs));
    return createRenewDelegationTokenResponse({ throttleTimeMs: 0, errorCode: r.errorCode, expiryTimestampMs: BigInt(r.expiryTimestamp ?? 0) });
  },
});
