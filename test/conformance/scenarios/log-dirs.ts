// DescribeLogDirs (35) and AlterReplicaLogDirs (34) on a broker with one log dir
// (KafkaApis.handleDescribeLogDirsRequest / handleAlterReplicaLogDirsRequest, ReplicaManager
// describeLogDirs / alterReplicaLogDirs; DescribeLogDirsRequestTest, AlterReplicaLogDirsRequestTest).
// The log dir's path and its volume's sizes are the broker's own (normalised to <log-dir> and
// <bytes>); partition sizes are compared: both store the produced batch as it came.
import type { Ctx, Scenario } from '../runner.js';
import { encodeBatch } from '../../../src/codec/records/index.js';
import { E, createTopic, scenario, send, wait } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['admin', 'log-dirs'], groups: [] });

const batch = encodeBatch({ baseTimestamp: 1_700_000_000_000, records: [{ key: 'k', value: 'v', timestampDelta: 0, headers: [] }] });
const describe = (v: number, topics: (c: Ctx) => Array<{ topic: string; partitions: number[] }>, label: string, expect?: unknown) =>
  send('a', 35, v, (c: Ctx) => ({ topics: topics(c) }), {
    label,
    expect: expect as never,
    capture: (res, c: Ctx) => {
      const dir = (res as { results?: Array<{ logDir: string }> }).results?.[0]?.logDir;
      if (dir !== undefined) c.set('logDir', dir);
    },
  });
const alter = (v: number, path: (c: Ctx) => string, topics: (c: Ctx) => Array<{ name: string; partitions: number[] }>, label: string, expect?: unknown) =>
  send('a', 34, v, (c: Ctx) => ({ dirs: [{ path: path(c), topics: topics(c) }] }), { label, expect: expect as never });

export const logDirScenarios: Scenario[] = [
  tag(
    scenario('testDescribeLogDirs', {
      mirrors: 'DescribeLogDirsRequestTest.testDescribeLogDirsRequest / ReplicaManager.describeLogDirs',
      description:
        'DescribeLogDirs v0-v4 for a two-partition topic, one partition holding a one-record batch: the one log dir with both partitions and their sizes (offset lag 0, no future log), v4 with the volume sizes; asking for one partition lists only it, a missing topic and a missing partition list nothing',
      steps: [
        createTopic('a', 't', 2),
        // Kafka's broker leads the new partitions once the controller's records reach it.
        wait(500),
        send('a', 0, 9, (c: Ctx) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: c.t(), partitionData: [{ index: 1, records: batch }] }] }), {
          label: 'produce one batch to partition 1',
          expect: { responses: [{ partitionResponses: [{ errorCode: 0, baseOffset: 0 }] }] },
        }),
        ...[0, 1, 2, 3, 4].map((v) =>
          describe(v, (c) => [{ topic: c.t(), partitions: [0, 1] }], `v${v} both partitions`, {
            results: [{ errorCode: 0, topics: [{ partitions: [{ partitionIndex: 0, partitionSize: 0 }, { partitionIndex: 1 }] }] }],
          }),
        ),
        describe(4, (c) => [{ topic: c.t(), partitions: [1] }], 'one partition', { errorCode: 0, results: [{ topics: [{ partitions: [{ partitionIndex: 1 }] }] }] }),
        describe(4, (c) => [{ topic: c.t('missing'), partitions: [0] }, { topic: c.t(), partitions: [7] }], 'a missing topic and partition', { errorCode: 0, results: [{ topics: [] }] }),
      ],
    }),
  ),
  tag(
    scenario('testAlterReplicaLogDirs', {
      mirrors: 'AlterReplicaLogDirsRequestTest / ReplicaManager.alterReplicaLogDirs (LogManager.isLogDirOnline: a dir not in the config is LOG_DIR_NOT_FOUND)',
      description:
        'AlterReplicaLogDirs v0-v2: to the broker\'s own log dir (taken from DescribeLogDirs) NONE for an existing partition and UNKNOWN_TOPIC_OR_PARTITION for a missing one; to a dir not in log.dirs LOG_DIR_NOT_FOUND',
      steps: [
        createTopic('a', 't', 1),
        // Kafka's broker makes the partition's log once the controller's records reach it.
        wait(500),
        describe(1, (c) => [{ topic: c.t(), partitions: [0] }], 'the log dir'),
        ...[0, 1, 2].map((v) =>
          alter(v, (c) => c.v<string>('logDir', ''), (c) => [{ name: c.t(), partitions: [0, 5] }], `v${v} to its own dir`, {
            results: [{ partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 5, errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] }],
          }),
        ),
        alter(2, () => '/no/such/kafka-log-dir', (c) => [{ name: c.t(), partitions: [0] }], 'to another dir', { results: [{ partitions: [{ partitionIndex: 0, errorCode: E.LOG_DIR_NOT_FOUND }] }] }),
      ],
    }),
  ),
];
