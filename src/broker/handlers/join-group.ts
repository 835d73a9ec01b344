// JoinGroup (11): parked in the coordinator until the rebalance completes, so this handler
// returns a promise (the connection holds its later requests meanwhile, as Kafka does). READ on
// the group first, else GROUP_AUTHORIZATION_FAILED (KafkaApis.handleJoinGroupRequest).
import { checkJoinGroupRequest, noteJoinGroupAnswer } from '../strict/group-checks.js';
import { clientContext } from './group-context.js';
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { joinError } from '../group/member.js';
import { shapeJoinResponse } from '../group/membership.js';
import { authorized } from '../security/authorizer/index.js';

export const joinGroupHandler = defineHandler({
  apiKey: 11,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req) {
    const strict = ctx.services.clientFindings.enabled;
    if (strict) checkJoinGroupRequest(ctx, req);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, ...shapeJoinResponse(ctx.apiVersion, joinError('', ErrorCode.GROUP_AUTHORIZATION_FAILED)) };
    // The coordinator reads the request by version (v0's rebalance timeout is its session timeout).
    return new Promise((resolve) => {
      ctx.services.groups.joinGroup(ctx.apiVersion, clientContext(ctx), req, (res) => {
        const response = { throttleTimeMs: 0, ...res };
        if (strict) noteJoinGroupAnswer(ctx, req, response);
        resolve(response);
      });
    });
  },
});
