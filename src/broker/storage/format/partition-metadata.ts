// A partition folder's `partition.metadata` (storage/.../checkpoint/PartitionMetadataFile.java,
// PartitionMetadata.encode, PartitionMetadataReadBuffer): the topic id, so a folder left by a
// deleted topic is not taken for a new topic of the same name. Two lines, the second without a
// line end:
//
//   version: 0
//   topic_id: ZTdiAUvQTKSWHX-QynA3Ow

import { javaLines, parseJavaInt } from './java-text.js';
import { parseKafkaUuid, ZERO_UUID } from './kafka-uuid.js';
import { fail, ok, type Decoded, type DecodeFileOptions } from './result.js';

/** PartitionMetadataFile.CURRENT_VERSION. */
export const PARTITION_METADATA_VERSION = 0;

export interface PartitionMetadata {
  version: number;
  /** The topic id in Kafka's text form (22 characters of base64url). */
  topicId: string;
}

/** PartitionMetadata.encode: exactly what Kafka writes (no line end after the topic id). */
export function encodePartitionMetadata(topicId: string): string {
  const id = parseKafkaUuid(topicId);
  if (id === null || id !== topicId) throw new RangeError(`"${topicId}" is not a Kafka Uuid in its canonical text form`);
  if (id === ZERO_UUID) throw new RangeError('the zero Uuid is not a topic id');
  return `version: ${PARTITION_METADATA_VERSION}\ntopic_id: ${id}`;
}

/**
 * PartitionMetadataReadBuffer.read: each line split at ":" plus whitespace into two fields; the
 * version is an int32 of at least 0 (a later version is accepted, for downgrades, as Kafka does);
 * the topic id a Uuid (Uuid.fromString) other than zero. Stricter than Kafka: the field names must
 * be `version` and `topic_id`, and nothing but blank lines may follow.
 */
export function decodePartitionMetadata(input: string | Buffer, options?: DecodeFileOptions): Decoded<PartitionMetadata> {
  const file = options?.file ?? 'partition.metadata';
  const lines = javaLines(typeof input === 'string' ? input : input.toString('utf8'));
  const first = field(lines[0], 'version');
  if (first === null) return fail(file, `malformed line "${lines[0] ?? ''}": expected "version: N"`, { line: 1 });
  const version = parseJavaInt(first);
  if (version === null) return fail(file, `malformed line "${lines[0]}": the version is not an int32`, { line: 1 });
  if (version < PARTITION_METADATA_VERSION) return fail(file, `unrecognized version ${version}`, { line: 1 });
  const second = field(lines[1], 'topic_id');
  if (second === null) return fail(file, `malformed line "${lines[1] ?? ''}": expected "topic_id: <Uuid>"`, { line: 2 });
  const topicId = parseKafkaUuid(second);
  if (topicId === null) return fail(file, `malformed line "${lines[1]}": "${second}" is not a Uuid`, { line: 2 });
  if (topicId === ZERO_UUID) return fail(file, 'invalid topic ID (the zero Uuid)', { line: 2 });
  for (let i = 2; i < lines.length; i++) {
    if (lines[i].trim() !== '') return fail(file, `unexpected line "${lines[i]}"`, { line: i + 1 });
  }
  return ok({ version, topicId });
}

/** `name: value` split as WHITE_SPACES_PATTERN (":\\s+") does, with the name checked; null when malformed. */
function field(line: string | undefined, name: string): string | null {
  if (line === undefined) return null;
  const parts = line.split(/:\s+/);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 2 || parts[0] !== name) return null;
  return parts[1];
}
