// CreateDelegationToken (38), v0-3: KafkaApis.handleCreateTokenRequest's checks on the broker
// (allowTokenRequests, CREATE_TOKENS on the owner when it is not the requester, renewers of type
// User only), each answered with -1 timestamps (CreateDelegationTokenResponse.prepareResponse with
// DelegationTokenManager.ErrorTimestamp); then DelegationTokenControlManager.createDelegationToken
// (security/delegation-tokens.ts), whose refusal (no delegation.token.secret.key) keeps 0s.
import { AclOperation, createCreateDelegationTokenResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import type { TokenPrincipal } from '../security/delegation-tokens.js';
import { allowTokenRequests, ERROR_TIMESTAMP, requester } from './delegation-tokens.js';
import { defineHandler } from './types.js';

const EMPTY = Buffer.alloc(0);

export const createDelegationTokenHandler = defineHandler({
  apiKey: 38,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const by = requester(ctx);
    const owner: TokenPrincipal = req.ownerPrincipalName !== null && req.ownerPrincipalName !== '' ? { type: req.ownerPrincipalType ?? 'User', name: req.ownerPrincipalName } : by;
    const answer = (errorCode: number, o: { issue?: bigint; expiry?: bigint; max?: bigint; tokenId?: string; hmac?: Buffer } = {}) =>
      createCreateDelegationTokenResponse({
        throttleTimeMs: 0,
        errorCode,
        principalType: owner.type,
        principalName: owner.name,
        // CreateDelegationTokenResponse.prepareResponse: the requester fields exist from v3.
        tokenRequesterPrincipalType: ctx.apiVersion >= 3 ? by.type : '',
        tokenRequesterPrincipalName: ctx.apiVersion >= 3 ? by.name : '',
        issueTimestampMs: o.issue ?? ERROR_TIMESTAMP,
        expiryTimestampMs: o.expiry ?? ERROR_TIMESTAMP,
        maxTimestampMs: o.max ?? ERROR_TIMESTAMP,
        tokenId: o.tokenId ?? '',
        hmac: o.hmac ?? EMPTY,
      });
    if (!allowTokenRequests(ctx)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
    const self = owner.type === by.type && owner.name === by.name;
    if (!self && !authorized(ctx, AclOperation.CREATE_TOKENS, ResourceType.USER, `${owner.type}:${owner.name}`)) return answer(ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED);
    const renewers = req.renewers.map((r) => ({ type: r.principalType, name: r.principalName }));
    if (renewers.some((r) => r.type !== 'User')) return answer(ErrorCode.INVALID_PRINCIPAL_TYPE);
    const t = ctx.services.delegationTokens.create(owner, by, renewers, Number(req.maxLifetimeMs));
    // The controller's own refusal: its response data's timestamps stay 0.
    if ('errorCode' in t) return answer(t.errorCode, { issue: 0n, expiry: 0n, max: 0n });
    return answer(ErrorCode.NONE, { issue: BigInt(t.issueTimestamp), expiry: BigInt(t.expiryTimestamp), max: BigInt(t.maxTimestamp), tokenId: t.tokenId, hmac: t.hmac });
  },
});
