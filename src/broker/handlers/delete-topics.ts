// DeleteTopics (20), v0-6: by name (v0-5 TopicNames, v6 Topics) or by topic id (v6). Kafka 3.9
// forwards it to the controller: TOPIC_DELETION_DISABLED (INVALID_REQUEST before v3) when
// delete.topic.enable=false, UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID for topics that do not
// exist, INVALID_REQUEST for duplicates and malformed entries (ControllerApis.deleteTopics); with
// an authorizer, DELETE on the cluster or DESCRIBE and DELETE on each topic, else
// TOPIC_AUTHORIZATION_FAILED.
import { AclOperation, createDeleteTopicsResponse, ResourceType } from '../../codec/index.js';
import { deleteTopics, type DeleteTopicsAccess } from '../log/topic-admin.js';
import { authorizedCluster, filterAuthorized } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

export const deleteTopicsHandler = defineHandler({
  apiKey: 20,
  minVersion: 0,
  maxVersion: 6,
  handle(ctx, req) {
    const access =
      ctx.services.authorizer === undefined
        ? undefined
        : (names: readonly string[]): DeleteTopicsAccess => {
            if (authorizedCluster(ctx, AclOperation.DELETE, false)) return { describable: new Set(names), deletable: new Set(names) };
            return { describable: filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names, false), deletable: filterAuthorized(ctx, AclOperation.DELETE, ResourceType.TOPIC, names) };
          };
    const results = deleteTopics(ctx.services, req.topicNames, req.topics, ctx.apiVersion, req.timeoutMs, access);
    return createDeleteTopicsResponse({
      throttleTimeMs: 0,
      responses: results.map((r) => ({
        // Before v6 the name is not nullable; only v6 entries given by id can lack one.
        name: r.name ?? (ctx.apiVersion >= 6 ? null : ''),
        topicId: r.topicId,
        errorCode: r.error.code,
        errorMessage: r.error.message,
      })),
    });
  },
});
