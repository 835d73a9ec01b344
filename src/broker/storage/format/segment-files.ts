// File and folder names of a Kafka log dir:
// - a segment's files, `<base offset, 20 digits>.<suffix>` (storage/.../log/LogFileUtils.java:
//   filenamePrefixFromOffset, offsetFromFileName), and the temporary suffixes LocalLog adds while
//   deleting (".deleted"), cleaning (".cleaned") or swapping (".swap") segments
//   (core/.../log/LocalLog.scala);
// - a partition's folder, `<topic>-<partition>`, and the renamed folders of a partition being
//   deleted (`<topic>-<partition>.<uniqueId>-delete`), moved between log dirs (`-future`) or found
//   stray (`-stray`), as LocalLog.logDirName / parseTopicPartitionName name and read them;
// - the other files of a partition folder (leader-epoch-checkpoint, partition.metadata).

export type SegmentSuffix = '.log' | '.index' | '.timeindex' | '.txnindex' | '.snapshot';
export const SEGMENT_SUFFIXES: readonly SegmentSuffix[] = ['.log', '.index', '.timeindex', '.txnindex', '.snapshot'];

/** LocalLog's suffixes after a segment file's own: scheduled for deletion, being cleaned, being swapped in. */
export type PendingSuffix = '.deleted' | '.cleaned' | '.swap';
const PENDING_SUFFIXES: readonly PendingSuffix[] = ['.deleted', '.cleaned', '.swap'];

/** Digits of every segment file name (NumberFormat with setMinimumIntegerDigits(20)). */
export const OFFSET_DIGITS = 20;

/**
 * `00000000000000000042.log`: the base offset zero-padded to 20 digits, as filenamePrefixFromOffset.
 * For `.snapshot` the number is the offset the producer snapshot was taken at (the log end offset
 * then, exclusive: LogFileUtils.producerSnapshotFile), not a segment's base offset.
 */
export function segmentFileName(baseOffset: number, suffix: SegmentSuffix): string {
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0) throw new RangeError(`segment base offset ${baseOffset} is not a non-negative integer`);
  if (!SEGMENT_SUFFIXES.includes(suffix)) throw new RangeError(`unknown segment file suffix ${String(suffix)}`);
  return String(baseOffset).padStart(OFFSET_DIGITS, '0') + suffix;
}

export interface SegmentFileName {
  baseOffset: number;
  suffix: SegmentSuffix;
  /** Set for `….log.deleted`, `….index.cleaned`, `….log.swap` and the like: a file LocalLog left mid-operation. */
  pending?: PendingSuffix;
}

/**
 * The offset and suffix of a segment file name, or null when `name` is not one. Only names Kafka
 * writes are taken: exactly 20 digits (Kafka's offsetFromFileName would also parse fewer digits or a
 * sign, which no Kafka writes), one of the five suffixes, optionally followed by a pending suffix.
 */
export function parseSegmentFileName(name: string): SegmentFileName | null {
  const m = /^([0-9]{20})(\.[a-z]+)(\.[a-z]+)?$/.exec(name);
  if (m === null) return null;
  const suffix = m[2] as SegmentSuffix;
  if (!SEGMENT_SUFFIXES.includes(suffix)) return null;
  const baseOffset = Number(m[1]);
  // 20 digits reach 10^20, past int64; offsets above 2^53 are not kmock's.
  if (!Number.isSafeInteger(baseOffset)) return null;
  if (m[3] === undefined) return { baseOffset, suffix };
  const pending = m[3] as PendingSuffix;
  if (!PENDING_SUFFIXES.includes(pending)) return null;
  return { baseOffset, suffix, pending };
}

// ---- partition folders ----------------------------------------------------------------------

/** LeaderEpochCheckpointFile.LEADER_EPOCH_CHECKPOINT_FILENAME. */
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
/** PartitionMetadataFile.PARTITION_METADATA_FILE_NAME. */
export const PARTITION_METADATA_FILE = 'partition.metadata';

/** Topic names Kafka accepts (Topic.validate): 1-249 of [a-zA-Z0-9._-]. */
const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

/** `topic-partition` (LocalLog.logDirName). Throws for a topic Kafka could not have or a bad partition. */
export function partitionDirName(topic: string, partition: number): string {
  if (!LEGAL_TOPIC.test(topic) || topic === '.' || topic === '..') throw new RangeError(`"${topic}" is not a legal topic name`);
  if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) throw new RangeError(`partition ${partition} is not a non-negative int32`);
  return `${topic}-${partition}`;
}

/** What a partition folder is: live, or renamed by LocalLog for deletion, a log-dir move, or as stray. */
export type PartitionDirKind = 'live' | 'delete' | 'future' | 'stray';

export interface PartitionDirName {
  topic: string;
  partition: number;
  kind: PartitionDirKind;
  /** The `.uniqueId` of a renamed folder (a UUID without dashes in Kafka's). */
  uniqueId?: string;
}

const SUFFIXED = /^(\S+)-(\S+)\.(\S+)-(delete|future|stray)$/;

/**
 * LocalLog.parseTopicPartitionName: the topic and partition of a partition folder's name, or null
 * where Kafka throws ("is not in the form of topic-partition or topic-partition.uniqueId-delete").
 * A name ending in -delete, -future or -stray must match `topic-partition.uniqueId-<suffix>`; the
 * topic is what precedes the last '-' (for a -delete or -stray folder it may be cut short: Kafka
 * caps those names at 255 characters); the partition is read as Integer.parseInt does. A caller
 * loads only `kind: 'live'` folders and reports or skips the others (LogManager deletes the
 * -delete ones, ignores the -stray ones and resumes -future moves).
 */
export function parsePartitionDirName(name: string): PartitionDirName | null {
  if (name === '' || !name.includes('-')) return null;
  let base = name;
  let kind: PartitionDirKind = 'live';
  let uniqueId: string | undefined;
  for (const k of ['delete', 'future', 'stray'] as const) {
    if (!name.endsWith(`-${k}`)) continue;
    if (!SUFFIXED.test(name)) return null;
    const dot = name.lastIndexOf('.');
    base = name.slice(0, dot);
    uniqueId = name.slice(dot + 1, name.length - k.length - 1);
    kind = k;
    break;
  }
  const dash = base.lastIndexOf('-');
  const topic = base.slice(0, dash);
  const partitionText = base.slice(dash + 1);
  if (topic === '' || partitionText === '') return null;
  // Integer.parseInt: the text after the last '-' has no '-', so only a '+' sign can precede the digits.
  if (!/^\+?[0-9]+$/.test(partitionText)) return null;
  const partition = Number(partitionText);
  if (partition > 0x7fffffff) return null;
  return uniqueId === undefined ? { topic, partition, kind } : { topic, partition, kind, uniqueId };
}

/** What a file inside a partition folder is. */
export type PartitionFile =
  | ({ kind: 'segment' } & SegmentFileName)
  | { kind: 'leader-epoch-checkpoint' }
  | { kind: 'partition-metadata' }
  /** `….tmp`: a checkpoint or metadata file being written (CheckpointFile, PartitionMetadataFile write to `<name>.tmp`, then rename). */
  | { kind: 'temporary'; of: string }
  | { kind: 'unknown' };

/** Sorts a partition folder's entries for a loader (LogLoader.loadSegmentFiles and friends). */
export function classifyPartitionFile(name: string): PartitionFile {
  if (name === LEADER_EPOCH_CHECKPOINT_FILE) return { kind: 'leader-epoch-checkpoint' };
  if (name === PARTITION_METADATA_FILE) return { kind: 'partition-metadata' };
  if (name.endsWith('.tmp') && name.length > 4) return { kind: 'temporary', of: name.slice(0, -4) };
  const seg = parseSegmentFileName(name);
  return seg === null ? { kind: 'unknown' } : { kind: 'segment', ...seg };
}
