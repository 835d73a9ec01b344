// DeleteTopics (20), v0-6: by name (v0-5 TopicNames, v6 Topics) or by topic id (v6). Kafka 3.9
// forwards it to the controller: TOPIC_DELETION_DISABLED (INVALID_REQUEST before v3) when
// delete.topic.enable=false, UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID for topics that do not
// exist, INVALID_REQUEST for duplicates and malformed entries (ControllerApis.deleteTopics).
import { createDeleteTopicsResponse } from '../../codec/index.js';
import { deleteTopics } from '../log/topic-admin.js';
import { defineHandler } from './types.js';

export const deleteTopicsHandler = defineHandler({
  apiKey: 20,
  minVersion: 0,
  maxVersion: 6,
  handle(ctx, req) {
    const results = deleteTopics(ctx.services, req.topicNames, req.topics, ctx.apiVersion, req.timeoutMs);
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
