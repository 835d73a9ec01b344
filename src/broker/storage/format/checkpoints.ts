// Kafka's checkpoint text files (server-common/.../common/CheckpointFile.java): a version line, a
// count line, then one entry per line, each line ended by "\n" (BufferedWriter.newLine on Linux):
//
//   0                  <- version (0 for every file here)
//   2                  <- entry count
//   <entry>
//   <entry>
//
// Two kinds of entry:
// - a partition folder's `leader-epoch-checkpoint` (storage/.../checkpoint/
//   LeaderEpochCheckpointFile.java): `epoch startOffset`;
// - the log dir's `recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
//   `replication-offset-checkpoint` and `cleaner-offset-checkpoint` (core/.../checkpoints/
//   OffsetCheckpointFile.scala): `topic partition offset`.
//
// Reading follows CheckpointReadBuffer: an empty file and a file with only its version line hold
// no entries (Kafka creates `cleaner-offset-checkpoint` empty and leaves it so until a compacted
// topic is cleaned); fields are split on runs of whitespace; a count that disagrees with the
// entries is an error. Stricter than Kafka, so a foreign or damaged file is caught with its line:
// negative epochs and offsets (LeaderEpochFileCache.assign throws on those), leader epochs or start
// offsets that do not increase (Kafka truncates such entries away as it loads them), and the same
// partition twice in an offset checkpoint (Kafka keeps the last).

import { javaLines, parseJavaInt, parseJavaLong } from './java-text.js';
import { fail, ok, type Decoded, type DecodeFileOptions } from './result.js';

export const CHECKPOINT_VERSION = 0;

/** The log dir's offset checkpoint files (LogManager's names). */
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
/** ReplicaManager's high watermarks. */
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
/** LogCleanerManager's per-partition cleaned-up-to offsets. */
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

/** CheckpointWriteBuffer.write: version, count, entries, each line ended by "\n". */
function encodeCheckpoint(lines: readonly string[]): string {
  return `${CHECKPOINT_VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`;
}

/** `leader-epoch-checkpoint` for these entries (epochs and start offsets increasing, none negative). */
export function encodeLeaderEpochCheckpoint(entries: readonly EpochEntry[]): string {
  entries.forEach((e, i) => {
    checkNonNegative(e.epoch, 'leader epoch', true);
    checkNonNegative(e.startOffset, 'start offset', false);
    const prev = entries[i - 1];
    if (prev !== undefined && (e.epoch <= prev.epoch || e.startOffset <= prev.startOffset)) {
      throw new RangeError(`leader epoch entry ${e.epoch} ${e.startOffset} does not follow ${prev.epoch} ${prev.startOffset}: both must increase`);
    }
  });
  return encodeCheckpoint(entries.map((e) => `${e.epoch} ${e.startOffset}`));
}

/** An offset checkpoint (`topic partition offset` lines) for these entries, in their order. */
export function encodeOffsetCheckpoint(entries: readonly PartitionOffset[]): string {
  const seen = new Set<string>();
  for (const e of entries) {
    if (!/^[a-zA-Z0-9._-]{1,249}$/.test(e.topic)) throw new RangeError(`"${e.topic}" is not a legal topic name`);
    checkNonNegative(e.partition, 'partition', true);
    checkNonNegative(e.offset, 'offset', false);
    const key = `${e.topic} ${e.partition}`;
    if (seen.has(key)) throw new RangeError(`partition ${e.topic}-${e.partition} appears twice`);
    seen.add(key);
  }
  return encodeCheckpoint(entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`));
}

/** Reads `leader-epoch-checkpoint` (text or the file's bytes, UTF-8). */
export function decodeLeaderEpochCheckpoint(input: string | Buffer, options?: DecodeFileOptions): Decoded<EpochEntry[]> {
  const file = options?.file ?? 'leader-epoch-checkpoint';
  const entries: EpochEntry[] = [];
  const r = readCheckpoint(input, file, (fields, line) => {
    if (fields.length !== 2) return `malformed line "${line}": expected "epoch startOffset"`;
    const epoch = parseJavaInt(fields[0]);
    const start = parseJavaLong(fields[1]);
    if (epoch === null) return `malformed line "${line}": epoch "${fields[0]}" is not an int32`;
    if (start.value === null) return `malformed line "${line}": start offset "${fields[1]}" is not ${start.tooBig ? 'a safe integer' : 'an int64'}`;
    if (epoch < 0 || start.value < 0) return `invalid leader epoch entry "${line}": epoch and start offset must not be negative`;
    const prev = entries[entries.length - 1];
    if (prev !== undefined && (epoch <= prev.epoch || start.value <= prev.startOffset)) {
      return `leader epoch entry "${line}" does not follow ${prev.epoch} ${prev.startOffset}: epochs and start offsets must increase`;
    }
    entries.push({ epoch, startOffset: start.value });
    return null;
  });
  return r.ok ? ok(entries) : r;
}

/** Reads one of the log dir's offset checkpoints (text or the file's bytes, UTF-8). */
export function decodeOffsetCheckpoint(input: string | Buffer, options?: DecodeFileOptions): Decoded<PartitionOffset[]> {
  const file = options?.file ?? 'offset checkpoint';
  const entries: PartitionOffset[] = [];
  const seen = new Set<string>();
  const r = readCheckpoint(input, file, (fields, line) => {
    if (fields.length !== 3) return `malformed line "${line}": expected "topic partition offset"`;
    const [topic, p, o] = fields;
    const partition = parseJavaInt(p);
    const offset = parseJavaLong(o);
    if (partition === null || partition < 0) return `malformed line "${line}": partition "${p}" is not a non-negative int32`;
    if (offset.value === null) return `malformed line "${line}": offset "${o}" is not ${offset.tooBig ? 'a safe integer' : 'an int64'}`;
    if (offset.value < 0) return `invalid entry "${line}": the offset must not be negative`;
    const key = `${topic} ${partition}`;
    if (seen.has(key)) return `partition ${topic}-${partition} appears twice`;
    seen.add(key);
    entries.push({ topic, partition, offset: offset.value });
    return null;
  });
  return r.ok ? ok(entries) : r;
}

/**
 * CheckpointReadBuffer.read with an entry parser that answers null (taken) or why the line is bad.
 * Lines are numbered from 1 (the version line).
 */
function readCheckpoint(
  input: string | Buffer,
  file: string,
  entry: (fields: string[], line: string) => string | null,
): Decoded<null> {
  const text = typeof input === 'string' ? input : input.toString('utf8');
  const lines = javaLines(text);
  if (lines.length === 0) return ok(null);
  const version = parseJavaInt(lines[0]);
  if (version === null) return fail(file, `malformed version line "${lines[0]}"`, { line: 1 });
  if (version !== CHECKPOINT_VERSION) return fail(file, `unrecognised version ${version}, expected version ${CHECKPOINT_VERSION}`, { line: 1 });
  if (lines.length === 1) return ok(null);
  const expected = parseJavaInt(lines[1]);
  if (expected === null || expected < 0) return fail(file, `malformed entry count "${lines[1]}"`, { line: 2 });
  for (let i = 2; i < lines.length; i++) {
    // Java's String.split("\\s+") leaves a leading empty field for a line starting with blanks
    // and drops trailing ones.
    const fields = lines[i].split(/\s+/);
    while (fields.length > 0 && fields[fields.length - 1] === '') fields.pop();
    const why = entry(fields, lines[i]);
    if (why !== null) return fail(file, why, { line: i + 1 });
  }
  const found = lines.length - 2;
  if (found !== expected) return fail(file, `expected ${expected} entries, but found ${found}`, { line: 2 });
  return ok(null);
}

function checkNonNegative(v: number, what: string, int32: boolean): void {
  if (!Number.isSafeInteger(v) || v < 0 || (int32 && v > 0x7fffffff)) throw new RangeError(`${what} ${v} is not a non-negative ${int32 ? 'int32' : 'integer'}`);
}
