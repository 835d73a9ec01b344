// Protocol constants other than error codes (those are in errors.ts): values the message specs
// carry as plain integers or strings but whose meaning Kafka fixes. Codes as in Apache Kafka 3.9.

/** The all-zero UUID (Kafka's Uuid.ZERO_UUID), in the base64url form the codec uses for `uuid` fields. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/**
 * The AuthorizedOperations value meaning "not requested" (Integer.MIN_VALUE; Kafka's
 * MetadataResponse / DescribeGroupsResponse / DescribeClusterResponse AUTHORIZED_OPERATIONS_OMITTED).
 */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** ACL resource types (org.apache.kafka.common.resource.ResourceType). */
export const ResourceType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;
export type ResourceType = (typeof ResourceType)[keyof typeof ResourceType];

/** ACL resource pattern types (org.apache.kafka.common.resource.PatternType). */
export const PatternType = {
  UNKNOWN: 0,
  ANY: 1,
  MATCH: 2,
  LITERAL: 3,
  PREFIXED: 4,
} as const;
export type PatternType = (typeof PatternType)[keyof typeof PatternType];

/** ACL operations (org.apache.kafka.common.acl.AclOperation); also the bit positions of AuthorizedOperations. */
export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
export type AclOperation = (typeof AclOperation)[keyof typeof AclOperation];

/** ACL permission types (org.apache.kafka.common.acl.AclPermissionType). */
export const AclPermissionType = {
  UNKNOWN: 0,
  ANY: 1,
  DENY: 2,
  ALLOW: 3,
} as const;
export type AclPermissionType = (typeof AclPermissionType)[keyof typeof AclPermissionType];

/** Config resource types of DescribeConfigs / AlterConfigs (org.apache.kafka.common.config.ConfigResource.Type). */
export const ConfigResourceType = {
  UNKNOWN: 0,
  TOPIC: 2,
  BROKER: 4,
  BROKER_LOGGER: 8,
  CLIENT_METRICS: 16,
} as const;
export type ConfigResourceType = (typeof ConfigResourceType)[keyof typeof ConfigResourceType];

/** An AuthorizedOperations bit field with one bit per operation (Kafka's Utils.to32BitField). */
export function authorizedOperations(ops: Iterable<AclOperation>): number {
  let bits = 0;
  for (const op of ops) bits |= 1 << op;
  return bits;
}
