// Kafka 3.9's on-disk formats as a pure library (issue #13, "A durable data dir"): every file of a
// log dir, encoded as Kafka writes it and decoded as Kafka reads it (errors name the file), and
// the recovery scan of a segment's .log. No I/O here except `fileSource` (log-scan.ts), which reads
// a file descriptor it is given. docs/storage-format.md describes the files.
export * from './result.js';
export * from './segment-files.js';
export * from './offset-index.js';
export * from './time-index.js';
export * from './txn-index.js';
export * from './segment-indexes.js';
export * from './checkpoints.js';
export * from './partition-metadata.js';
export * from './meta-properties.js';
export * from './clean-shutdown.js';
export * from './producer-snapshot.js';
export * from './log-scan.js';
export { parseKafkaUuid, ZERO_UUID } from './kafka-uuid.js';
