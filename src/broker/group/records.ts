// The group coordinator's records in __consumer_offsets, as Kafka 3.9's classic coordinator writes
// and reads them (core/.../coordinator/group/GroupMetadataManager.scala, its companion object:
// offsetCommitKey, offsetCommitValue, groupMetadataKey, groupMetadataValue, readMessageKey,
// readOffsetMessageValue, readGroupMessageValue), with the schemas of
// group-coordinator/src/main/resources/common/message/{OffsetCommitKey,OffsetCommitValue,
// GroupMetadataKey,GroupMetadataValue}.json (schemas/, generated codecs in src/codec/generated).
//
// Every key and value is MessageUtil.toVersionPrefixedBytes: an int16 version, then the message
// at that version. The key's version says what the record is: 0-1 an offset commit, 2 group
// metadata. The versions a 3.9 broker writes (its inter.broker.protocol.version is the metadata
// version, 3.9-IV0 on a fresh cluster, which is past every IBP these choices test):
//   OffsetCommitKey     v1 (HIGHEST_SUPPORTED_VERSION)
//   OffsetCommitValue   v3, or v1 when the offset has an expire timestamp (OffsetCommit v2-v4
//                       with a retention time), which only v1 can carry
//   GroupMetadataKey    v2 (its only version)
//   GroupMetadataValue  v3 ("the highest supported non-flexible version")
// A tombstone (offset deleted or expired, group deleted) is the key with a null value.
//
// The batches (GroupMetadataManager.storeGroup / generateOffsetRecords / cleanupGroupMetadata):
// magic 2, CreateTime, every record stamped with the coordinator's time.milliseconds(), the
// compression of offsets.topic.compression.codec (none by default, the only one kmock writes).
// Group metadata and tombstones: producer id -1, epoch -1, base sequence -1 (MemoryRecords.builder
// / withRecords defaults). Offset commits: producer id -1, epoch -1 but base sequence 0
// (generateOffsetRecords passes 0), and a TxnOffsetCommit a transactional batch with the
// producer's id and epoch (base sequence 0 as well).
//
// This module is pure (bytes in, bytes out); the coordinator hands GroupRecordBatch values to its
// GroupRecordSink (the seam), and the broker's sink (offsets-topic.ts) appends them to the log.
import {
  decodeGroupMetadataKey,
  decodeGroupMetadataValue,
  decodeOffsetCommitKey,
  decodeOffsetCommitValue,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  ErrorCode,
} from '../../codec/index.js';
import { encodeBatch } from '../../codec/records/batch.js';
import type { OffsetAndMetadata } from './offsets.js';

/** OffsetCommitKey.HIGHEST_SUPPORTED_VERSION: what offsetCommitKey writes. */
export const OFFSET_COMMIT_KEY_VERSION = 1;
/** GroupMetadataKey's one version (2): what groupMetadataKey writes. */
export const GROUP_METADATA_KEY_VERSION = 2;
/** What groupMetadataValue writes at a 3.9 metadata version. */
export const GROUP_METADATA_VALUE_VERSION = 3;
/** OffsetCommitRequest.DEFAULT_TIMESTAMP: "no expire timestamp" in OffsetCommitValue v1. */
const DEFAULT_TIMESTAMP = -1n;
/** RecordBatch.NO_PARTITION_LEADER_EPOCH. */
const NO_PARTITION_LEADER_EPOCH = -1;

/** offsetCommitValue's choice at a 3.9 metadata version: v1 carries an expire timestamp, else v3. */
export function offsetCommitValueVersion(offset: Pick<OffsetAndMetadata, 'expireTimestamp'>): 1 | 3 {
  return offset.expireTimestamp !== null ? 1 : 3;
}

/** One member in a group metadata record (GroupMetadataValue.MemberMetadata). */
export interface GroupMemberRecord {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** The member's metadata for the group's protocol. */
  subscription: Buffer;
  assignment: Buffer;
}

/** A group metadata record's value (GroupMetadataValue), as groupMetadataValue fills it. */
export interface GroupMetadataRecord {
  /** "" for a group without a protocol type (protocolType.getOrElse("")). */
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  /** -1 = none (a v0/v1 record; 3.9 always writes the time the group entered its state). */
  currentStateTimestamp: number;
  members: GroupMemberRecord[];
}

/** A record of __consumer_offsets: an offset commit or group metadata; a null value is a tombstone. */
export type GroupRecord =
  | { type: 'offset'; groupId: string; topic: string; partition: number; value: OffsetAndMetadata | null }
  | { type: 'group'; groupId: string; value: GroupMetadataRecord | null };

/** What a batch of group records is written for (3.9's GroupMetadataManager callers). */
export type GroupRecordCause =
  /** storeGroup from the leader's SyncGroup (doSyncGroup). */
  | 'sync-assignment'
  /** storeGroup from a static member's return without a rebalance (updateStaticMemberAndRebalance). */
  | 'static-member-replaced'
  /** storeGroup of a generation without members (onCompleteJoin). */
  | 'group-empty'
  /** storeOffsets for OffsetCommit. */
  | 'offset-commit'
  /** storeOffsets with a producer id, for TxnOffsetCommit. */
  | 'txn-offset-commit'
  /** cleanupGroupMetadata: deleted or expired offsets, a deleted group. */
  | 'tombstones';

/** One batch the coordinator appends to a __consumer_offsets partition. */
export interface GroupRecordBatch {
  /** The group's __consumer_offsets partition (partitionFor). */
  partition: number;
  cause: GroupRecordCause;
  records: readonly GroupRecord[];
  /** time.milliseconds() when the records were made: every record's (CreateTime) timestamp. */
  timestamp: number;
  /** -1 unless a TxnOffsetCommit. */
  producerId: bigint;
  producerEpoch: number;
  /** Kafka's: 0 for offset commits (generateOffsetRecords), -1 (NO_SEQUENCE) otherwise. */
  baseSequence: number;
  transactional: boolean;
}

/** The append's outcome: a raw log append error (NONE on success) and the batch's base offset. */
export interface GroupAppendResult {
  errorCode: number;
  /** The offset of the batch's first record (CommitRecordMetadataAndOffset.appendedBatchOffset); -1 on error. */
  baseOffset: number;
}

/**
 * Where the coordinator's records go (the broker: the __consumer_offsets partition logs,
 * offsets-topic.ts; tests: a recorder or a failing log). Synchronous, as kmock's logs are: the
 * answer is what ReplicaManager.appendRecords' callback gets.
 */
export interface GroupRecordSink {
  append(batch: GroupRecordBatch): GroupAppendResult;
}

/**
 * A sink that keeps nothing but each partition's next offset (the coordinator without a broker:
 * every append succeeds, and the positions the transactional commits are compared by still
 * increase as log offsets do).
 */
export class CountingGroupRecordSink implements GroupRecordSink {
  private readonly next = new Map<number, number>();

  append(batch: GroupRecordBatch): GroupAppendResult {
    const baseOffset = this.next.get(batch.partition) ?? 0;
    this.next.set(batch.partition, baseOffset + Math.max(1, batch.records.length));
    return { errorCode: ErrorCode.NONE, baseOffset };
  }
}

// --- keys and values -------------------------------------------------------------------------------

function versionPrefixed(version: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

/** GroupMetadataManager.offsetCommitKey. */
export function offsetCommitKeyBytes(groupId: string, topic: string, partition: number): Buffer {
  return versionPrefixed(OFFSET_COMMIT_KEY_VERSION, encodeOffsetCommitKey({ group: groupId, topic, partition }, OFFSET_COMMIT_KEY_VERSION));
}

/** GroupMetadataManager.groupMetadataKey. */
export function groupMetadataKeyBytes(groupId: string): Buffer {
  return versionPrefixed(GROUP_METADATA_KEY_VERSION, encodeGroupMetadataKey({ group: groupId }, GROUP_METADATA_KEY_VERSION));
}

/** GroupMetadataManager.offsetCommitValue (leader epoch -1 when none; expire timestamp -1 when none). */
export function offsetCommitValueBytes(offset: OffsetAndMetadata): Buffer {
  const version = offsetCommitValueVersion(offset);
  return versionPrefixed(
    version,
    encodeOffsetCommitValue(
      {
        offset: offset.offset,
        leaderEpoch: offset.leaderEpoch,
        metadata: offset.metadata,
        commitTimestamp: BigInt(offset.commitTimestamp),
        expireTimestamp: offset.expireTimestamp === null ? DEFAULT_TIMESTAMP : BigInt(offset.expireTimestamp),
      },
      version,
    ),
  );
}

/** GroupMetadataManager.groupMetadataValue. */
export function groupMetadataValueBytes(value: GroupMetadataRecord): Buffer {
  return versionPrefixed(
    GROUP_METADATA_VALUE_VERSION,
    encodeGroupMetadataValue(
      {
        protocolType: value.protocolType,
        generation: value.generation,
        protocol: value.protocol,
        leader: value.leader,
        currentStateTimestamp: BigInt(value.currentStateTimestamp),
        members: value.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rebalanceTimeout: m.rebalanceTimeoutMs,
          sessionTimeout: m.sessionTimeoutMs,
          subscription: m.subscription,
          assignment: m.assignment,
        })),
      },
      GROUP_METADATA_VALUE_VERSION,
    ),
  );
}

export function groupRecordKeyBytes(r: GroupRecord): Buffer {
  return r.type === 'offset' ? offsetCommitKeyBytes(r.groupId, r.topic, r.partition) : groupMetadataKeyBytes(r.groupId);
}

export function groupRecordValueBytes(r: GroupRecord): Buffer | null {
  if (r.value === null) return null;
  return r.type === 'offset' ? offsetCommitValueBytes(r.value) : groupMetadataValueBytes(r.value);
}

/** A key read back (GroupMetadataManager.readMessageKey: OffsetKey, GroupMetadataKey or UnknownKey). */
export type GroupRecordKey =
  | { type: 'offset'; version: number; groupId: string; topic: string; partition: number }
  | { type: 'group'; version: number; groupId: string }
  | { type: 'unknown'; version: number };

/** readMessageKey. Throws (DecodeError) on a key too short for its version's fields. */
export function readGroupRecordKey(key: Buffer): GroupRecordKey {
  if (key.length < 2) return { type: 'unknown', version: -1 };
  const version = key.readInt16BE(0);
  const body = key.subarray(2);
  if (version >= 0 && version <= OFFSET_COMMIT_KEY_VERSION) {
    const k = decodeOffsetCommitKey(body, version);
    return { type: 'offset', version, groupId: k.group, topic: k.topic, partition: k.partition };
  }
  if (version === GROUP_METADATA_KEY_VERSION) return { type: 'group', version, groupId: decodeGroupMetadataKey(body, version).group };
  return { type: 'unknown', version };
}

/** Kafka's IllegalStateException for a value of a version it cannot read. */
export class GroupRecordError extends Error {
  override readonly name = 'GroupRecordError';
}

/** readOffsetMessageValue (a tombstone is null): leader epoch -1 and expire timestamp -1 read as none. */
export function readOffsetCommitValue(value: Buffer | null): OffsetAndMetadata | null {
  if (value === null) return null;
  const version = value.readInt16BE(0);
  if (version < 0 || version > 4) throw new GroupRecordError(`Unknown offset message version: ${version}`);
  const v = decodeOffsetCommitValue(value.subarray(2), version);
  return {
    offset: v.offset,
    leaderEpoch: v.leaderEpoch,
    metadata: v.metadata,
    commitTimestamp: Number(v.commitTimestamp),
    expireTimestamp: v.expireTimestamp === DEFAULT_TIMESTAMP ? null : Number(v.expireTimestamp),
  };
}

/** readGroupMessageValue's reading (a tombstone is null); v0 has no rebalance timeout: the session timeout stands in. */
export function readGroupMetadataValue(value: Buffer | null): GroupMetadataRecord | null {
  if (value === null) return null;
  const version = value.readInt16BE(0);
  if (version < 0 || version > 4) throw new GroupRecordError(`Unknown group metadata message version: ${version}`);
  const v = decodeGroupMetadataValue(value.subarray(2), version);
  return {
    protocolType: v.protocolType,
    generation: v.generation,
    protocol: v.protocol,
    leader: v.leader,
    currentStateTimestamp: Number(v.currentStateTimestamp),
    members: v.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: version === 0 ? m.sessionTimeout : m.rebalanceTimeout,
      sessionTimeoutMs: m.sessionTimeout,
      subscription: m.subscription,
      assignment: m.assignment,
    })),
  };
}

/**
 * The batch as Kafka's MemoryRecords builder makes it (magic 2, CreateTime, uncompressed, base
 * offset 0 and partition leader epoch -1 until the log stamps them). `baseSequence` overrides the
 * batch's own (see offsets-topic.ts).
 */
export function encodeGroupRecordBatch(batch: GroupRecordBatch, baseSequence = batch.baseSequence): Buffer {
  return encodeBatch({
    records: batch.records.map((r) => ({ key: groupRecordKeyBytes(r), value: groupRecordValueBytes(r), timestamp: batch.timestamp })),
    baseTimestamp: batch.timestamp,
    partitionLeaderEpoch: NO_PARTITION_LEADER_EPOCH,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence,
    isTransactional: batch.transactional,
  });
}
