// What the four delegation token APIs share (KafkaApis / ControllerApis, Kafka 3.9): which
// connections may ask for tokens at all (allowTokenRequests), and the owner a request names.
import { AclOperation, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { tokenPrincipal, type TokenPrincipal } from '../security/delegation-tokens.js';
import type { RequestContext } from './types.js';

/** DelegationTokenManager.ErrorTimestamp: the timestamps of an answer the broker refuses itself. */
export const ERROR_TIMESTAMP = -1n;

/**
 * KafkaApis.allowTokenRequests: not on PLAINTEXT, not over one-way SSL (an anonymous SSL client),
 * not from a connection that itself logged in with a token.
 */
export function allowTokenRequests(ctx: RequestContext): boolean {
  const c = ctx.connection;
  if (c.tokenAuthenticated === true || c.securityProtocol === 'PLAINTEXT') return false;
  return !(c.securityProtocol === 'SSL' && c.principal === 'User:ANONYMOUS');
}

/** The request's principal, as the token APIs carry it. */
export function requester(ctx: RequestContext): TokenPrincipal {
  return tokenPrincipal(ctx.connection.principal);
}

/** DelegationTokenManager.filterToken's permission for a token that is not the principal's own. */
export function mayDescribeToken(ctx: RequestContext, tokenId: string, owner: TokenPrincipal): boolean {
  return authorized(ctx, AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, tokenId, false) || authorized(ctx, AclOperation.DESCRIBE_TOKENS, ResourceType.USER, `${owner.type}:${owner.name}`, false);
}
