// Loading groups and offsets back from a __consumer_offsets partition, as Kafka 3.9's classic
// coordinator does when it becomes the partition's leader (GroupMetadataManager
// .doLoadGroupsAndOffsets / loadGroup, GroupMetadata.loadGroup / initializeOffsets,
// GroupCoordinator.onGroupLoaded). Reading is pure (readOffsetsPartition: batches in, the
// partition's contents out); applying the contents to the coordinator's registry is
// `loadOffsetsPartition`, which GroupCoordinator.loadFromLog runs as one operation.
//
// What the log says, batch by batch, in offset order (the last record of a key wins):
//  * a plain offset commit record sets the group's committed offset of the partition, its
//    position being the offset of its batch's first record; a tombstone removes it;
//  * a transactional batch's offset records are pending for its producer (a tombstone removes a
//    pending one) until the producer's control batch: COMMIT materializes each unless the offset in
//    place was written later, ABORT drops them (an empty control batch, which the cleaner leaves,
//    changes nothing);
//  * a group metadata record makes the group's metadata the record's, a tombstone removes it.
// What comes back:
//  * a group with metadata: its generation, protocol type and protocol, leader, state timestamp and
//    members (each with its metadata for the protocol, its assignment and timeouts): Empty when the
//    record had no members, else Stable; each member's session timeout runs from the load, so
//    members that do not come back expire and the group rebalances; one over group.max.size
//    rebalances at once ("Freshly-loaded group is over capacity");
//  * a group with offsets but no metadata (a simple consumer's, or one whose metadata was
//    removed): Empty, generation 0, no protocol type;
//  * its committed offsets and pending transactional offsets (by producer);
//  * the partition's open transactions: producers whose last transactional batch there has no
//    marker after it (the coordinator's OffsetsLog, which skips KIP-890 verification for them).
// A group already in the registry is kept as it is (addGroup keeps the cached group).
import type { RecordBatch } from '../../codec/records/batch.js';
import { ControlRecordType } from '../../codec/records/control.js';
import { ClassicGroup } from './group.js';
import type { GroupKernel } from './kernel.js';
import { GroupMember } from './member.js';
import type { OffsetsLog } from './offsets-log.js';
import type { StoredOffset } from './offsets.js';
import { readGroupMetadataValue, readGroupRecordKey, readOffsetCommitValue, type GroupMetadataRecord } from './records.js';

/** One offset of a group, as loaded. */
export interface LoadedOffset {
  groupId: string;
  topic: string;
  partition: number;
  offset: StoredOffset;
}

/** What one __consumer_offsets partition holds once read to its end. */
export interface OffsetsPartitionContents {
  /** Committed offsets (loadedOffsets), in first-write order. */
  offsets: LoadedOffset[];
  /** Pending transactional offsets by producer (pendingOffsets). */
  pending: Map<bigint, LoadedOffset[]>;
  /** Group metadata records (loadedGroups), in first-write order. */
  groups: Map<string, GroupMetadataRecord>;
  /** Groups whose last metadata record is a tombstone (removedGroups). */
  removedGroups: Set<string>;
  /** Producers with a transactional batch and no marker after it: producer id -> its last epoch. */
  openTransactions: Map<bigint, number>;
  /** Records with a key of an unknown version (Kafka warns and skips them). */
  unknownKeys: number;
}

const keyOf = (groupId: string, topic: string, partition: number): string => JSON.stringify([groupId, topic, partition]);

/** doLoadGroupsAndOffsets' reading loop over a partition's batches (log start to end, in order). */
export function readOffsetsPartition(batches: Iterable<RecordBatch>): OffsetsPartitionContents {
  const loaded = new Map<string, LoadedOffset>();
  const pending = new Map<bigint, Map<string, LoadedOffset>>();
  const groups = new Map<string, GroupMetadataRecord>();
  const removedGroups = new Set<string>();
  const openTransactions = new Map<bigint, number>();
  let unknownKeys = 0;
  for (const batch of batches) {
    const { producerId } = batch;
    if (batch.isControl) {
      const record = batch.records[0];
      if (record === undefined) continue;
      if (record.control?.type === ControlRecordType.COMMIT) {
        for (const [key, o] of pending.get(producerId) ?? []) {
          const current = loaded.get(key);
          if (current === undefined || current.offset.appendSeq < o.offset.appendSeq) {
            loaded.delete(key);
            loaded.set(key, o);
          }
        }
      }
      pending.delete(producerId);
      openTransactions.delete(producerId);
      continue;
    }
    const isTxnOffsetCommit = batch.isTransactional;
    if (isTxnOffsetCommit) openTransactions.set(producerId, batch.producerEpoch);
    let batchBaseOffset: number | null = null;
    for (const record of batch.records) {
      if (record.key === null) throw new Error('Group metadata/offset entry key should not be null');
      // The offset of the batch's first record (a compacted batch may have lost its first ones).
      batchBaseOffset ??= Number(batch.baseOffset) + record.offsetDelta;
      const key = readGroupRecordKey(record.key);
      switch (key.type) {
        case 'offset': {
          const k = keyOf(key.groupId, key.topic, key.partition);
          let producerOffsets: Map<string, LoadedOffset> | undefined;
          if (isTxnOffsetCommit) {
            producerOffsets = pending.get(producerId);
            if (producerOffsets === undefined) pending.set(producerId, (producerOffsets = new Map()));
          }
          const value = readOffsetCommitValue(record.value);
          const target = producerOffsets ?? loaded;
          target.delete(k);
          if (value !== null) {
            target.set(k, { groupId: key.groupId, topic: key.topic, partition: key.partition, offset: { ...value, appendSeq: batchBaseOffset } });
          }
          break;
        }
        case 'group': {
          const value = readGroupMetadataValue(record.value);
          groups.delete(key.groupId);
          if (value !== null) {
            removedGroups.delete(key.groupId);
            groups.set(key.groupId, value);
          } else {
            removedGroups.add(key.groupId);
          }
          break;
        }
        case 'unknown':
          unknownKeys++;
          break;
      }
    }
  }
  return {
    offsets: [...loaded.values()],
    pending: new Map([...pending].map(([pid, offsets]) => [pid, [...offsets.values()]])),
    groups,
    removedGroups,
    openTransactions,
    unknownKeys,
  };
}

/** What a load did: the groups it added (ids), and how many offsets and pending offsets they got. */
export interface GroupLoadSummary {
  partition: number;
  groups: string[];
  offsets: number;
  pendingOffsets: number;
  /** Groups the partition's records name that were already in the registry (kept as they were). */
  alreadyLoaded: string[];
  unknownKeys: number;
  /** Why the partition could not be read (nothing of it was loaded). */
  error?: string;
}

/** GroupMetadataManager.readGroupMessageValue's GroupMetadata.loadGroup: Empty without members, else Stable. */
export function groupFromRecord(groupId: string, record: GroupMetadataRecord, now: number): ClassicGroup {
  const group = new ClassicGroup(groupId, record.members.length === 0 ? 'Empty' : 'Stable', now);
  group.generationId = record.generation;
  group.protocolType = record.protocolType === '' ? null : record.protocolType;
  group.protocolName = record.protocol;
  group.leaderId = record.leader;
  group.currentStateTimestamp = record.currentStateTimestamp;
  for (const m of record.members) {
    const member = new GroupMember({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      protocolType: record.protocolType,
      // supportedProtocols = List((value.protocol, memberMetadata.subscription))
      protocols: [{ name: record.protocol ?? '', metadata: m.subscription }],
    });
    member.assignment = m.assignment;
    group.add(member, null);
  }
  // add() set the protocol type from the first member and kept the record's leader.
  group.protocolType = record.protocolType === '' ? null : record.protocolType;
  group.leaderId = record.leader;
  return group;
}

/**
 * The rest of doLoadGroupsAndOffsets: the groups of the partition's contents into the registry
 * with their offsets (loadGroup: offsets first, then addGroup), each then onGroupLoaded; the
 * open transactions into the coordinator's OffsetsLog. Run inside a coordinator operation.
 */
export function loadOffsetsPartition(kernel: GroupKernel, offsetsLog: OffsetsLog, partition: number, contents: OffsetsPartitionContents): GroupLoadSummary {
  const now = kernel.clock.now();
  const summary: GroupLoadSummary = { partition, groups: [], offsets: 0, pendingOffsets: 0, alreadyLoaded: [], unknownKeys: contents.unknownKeys };
  const committedByGroup = new Map<string, LoadedOffset[]>();
  for (const o of contents.offsets) push(committedByGroup, o.groupId, o);
  const pendingByGroup = new Map<string, Map<bigint, LoadedOffset[]>>();
  for (const [producerId, offsets] of contents.pending) {
    for (const o of offsets) {
      let byProducer = pendingByGroup.get(o.groupId);
      if (byProducer === undefined) pendingByGroup.set(o.groupId, (byProducer = new Map()));
      push(byProducer, producerId, o);
    }
  }
  const load = (group: ClassicGroup) => {
    for (const o of committedByGroup.get(group.groupId) ?? []) group.offsets.put(o.topic, o.partition, o.offset);
    for (const [producerId, offsets] of pendingByGroup.get(group.groupId) ?? []) {
      for (const o of offsets) group.offsets.prepareTxn(producerId, o.topic, o.partition, o.offset);
    }
    const current = kernel.addLoadedGroup(group);
    if (current !== group) {
      summary.alreadyLoaded.push(group.groupId);
      return;
    }
    summary.groups.push(group.groupId);
    summary.offsets += group.offsets.size;
    summary.pendingOffsets += group.offsets.pendingTxnOffsets().length;
    group.subscribedTopics = kernel.engine.computeSubscribedTopics(group);
    onGroupLoaded(kernel, group);
  };
  for (const [groupId, record] of contents.groups) load(groupFromRecord(groupId, record, now));
  // Groups that store offsets but have no metadata (no members ever, or their metadata removed).
  for (const groupId of new Set([...committedByGroup.keys(), ...pendingByGroup.keys()])) {
    if (!contents.groups.has(groupId)) load(new ClassicGroup(groupId, 'Empty', now));
  }
  for (const [producerId, epoch] of contents.openTransactions) offsetsLog.appendTransactionalBatch(partition, producerId, epoch);
  return summary;
}

/** GroupCoordinator.onGroupLoaded: over group.max.size rebalances; every member's session starts now. */
function onGroupLoaded(kernel: GroupKernel, group: ClassicGroup): void {
  if (group.size > kernel.config.groupMaxSize) {
    kernel.engine.prepareRebalance(group, {
      trigger: 'loaded-over-capacity',
      memberId: null,
      groupInstanceId: null,
      clientReason: null,
      description: `Freshly-loaded group is over capacity (${kernel.config.groupMaxSize}). Rebalancing in order to give a chance for consumers to commit offsets`,
    });
  }
  for (const member of group.allMembers()) kernel.engine.completeAndScheduleNextHeartbeatExpiration(group, member);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
