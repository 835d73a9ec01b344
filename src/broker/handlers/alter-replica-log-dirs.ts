// AlterReplicaLogDirs (34), v0-2, as KafkaApis.handleAlterReplicaLogDirsRequest and
// ReplicaManager.alterReplicaLogDirs answer it on a broker with one log dir: ALTER on the cluster
// (else every partition CLUSTER_AUTHORIZATION_FAILED, AlterReplicaLogDirsRequest.getErrorResponse);
// a path that is not the log dir is LOG_DIR_NOT_FOUND (LogManager.isLogDirOnline); a partition
// the cluster does not have UNKNOWN_TOPIC_OR_PARTITION (getPartitionOrException; Kafka's
// REPLICA_NOT_AVAILABLE is for a partition with no replica on this broker, which one broker never
// has); the partition's own dir NONE (nothing to move).
// The results are grouped by topic, as Kafka's groupBy builds them. Without a data dir the only
// log dir is "(in memory)" (describe-log-dirs.ts).
import { AclOperation, createAlterReplicaLogDirsResponse, ErrorCode } from '../../codec/index.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { IN_MEMORY_LOG_DIR } from './describe-log-dirs.js';
import { defineHandler } from './types.js';

export const alterReplicaLogDirsHandler = defineHandler({
  apiKey: 34,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const allowed = authorizedCluster(ctx, AclOperation.ALTER);
    const logDir = ctx.services.logDir ?? IN_MEMORY_LOG_DIR;
    // A Map keyed by partition: a partition named twice keeps its last destination.
    const byTopic = new Map<string, Map<number, number>>();
    for (const d of req.dirs) {
      for (const t of d.topics) {
        const topic = ctx.services.topics.get(t.name);
        let results = byTopic.get(t.name);
        if (results === undefined) byTopic.set(t.name, (results = new Map()));
        for (const p of t.partitions) {
          const error = !allowed
            ? ErrorCode.CLUSTER_AUTHORIZATION_FAILED
            : d.path !== logDir
              ? ErrorCode.LOG_DIR_NOT_FOUND
              : topic?.partitions[p] === undefined
                ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                : ErrorCode.NONE;
          results.set(p, error);
        }
      }
    }
    return createAlterReplicaLogDirsResponse({
      throttleTimeMs: 0,
      results: [...byTopic].map(([topicName, parts]) => ({ topicName, partitions: [...parts].map(([partitionIndex, errorCode]) => ({ partitionIndex, errorCode })) })),
    });
  },
});
