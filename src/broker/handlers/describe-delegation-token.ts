// DescribeDelegationToken (41), v0-3, as KafkaApis.handleDescribeTokensRequest: allowTokenRequests,
// then delegation tokens enabled, then an empty owner list answers nothing; else the tokens
// DelegationTokenManager.filterToken lets through: of the owners asked for (a token matches an
// owner that is its owner, requester or a renewer), those the principal owns or renews, or may
// DESCRIBE (the token) or DESCRIBE_TOKENS (its owner) -- everyone may without an authorizer.
import { createDescribeDelegationTokenResponse, ErrorCode } from '../../codec/index.js';
import { ownerOrRenewer } from '../security/delegation-tokens.js';
import { allowTokenRequests, mayDescribeToken, requester } from './delegation-tokens.js';
import { defineHandler } from './types.js';

export const describeDelegationTokenHandler = defineHandler({
  apiKey: 41,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const error = (errorCode: number) => createDescribeDelegationTokenResponse({ throttleTimeMs: 0, errorCode, tokens: [] });
    if (!allowTokenRequests(ctx)) return error(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
    const store = ctx.services.delegationTokens;
    if (!store.enabled) return error(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
    if (req.owners !== null && req.owners.length === 0) return error(ErrorCode.NONE);
    const owners = req.owners?.map((o) => ({ type: o.principalType, name: o.principalName }));
    const me = requester(ctx);
    // DescribeDelegationTokenResponse: the requester fields exist from v3.
    const v3 = ctx.apiVersion >= 3;
    const tokens = store.all().filter((t) => {
      if (owners !== undefined && !owners.some((o) => ownerOrRenewer(t, o))) return false;
      return ownerOrRenewer(t, me) || mayDescribeToken(ctx, t.tokenId, t.owner);
    });
    return createDescribeDelegationTokenResponse({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      tokens: tokens.map((t) => ({
        principalType: t.owner.type,
        principalName: t.owner.name,
        tokenRequesterPrincipalType: v3 ? t.requester.type : '',
        tokenRequesterPrincipalName: v3 ? t.requester.name : '',
        issueTimestamp: BigInt(t.issueTimestamp),
        expiryTimestamp: BigInt(t.expiryTimestamp),
        maxTimestamp: BigInt(t.maxTimestamp),
        tokenId: t.tokenId,
        hmac: t.hmac,
        renewers: t.renewers.map((r) => ({ principalType: r.type, principalName: r.name })),
      })),
    });
  },
});
