// SyncGroup (14): followers wait here for the leader's assignment. READ on the group, else
// GROUP_AUTHORIZATION_FAILED, checked after v5's mandatory protocol fields (the coordinator's
// INCONSISTENT_GROUP_PROTOCOL), as KafkaApis.handleSyncGroupRequest orders them.
import { defineHandler } from './types.js';
import { AclOperation, ErrorCode, ResourceType } from '../../codec/index.js';
import { syncError } from '../group/member.js';
import { authorized } from '../security/authorizer/index.js';

export const syncGroupHandler = defineHandler({
  apiKey: 14,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const protocolsMissing = ctx.apiVersion >= 5 && (req.protocolType == null || req.protocolName == null);
    if (!protocolsMissing && !authorized(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) {
      return { throttleTimeMs: 0, ...syncError(ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    }
    return new Promise((resolve) => {
      ctx.services.groups.syncGroup(ctx.apiVersion, req, (res) => resolve({ throttleTimeMs: 0, ...res }));
    });
  },
});
