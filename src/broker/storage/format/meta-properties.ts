// The log dir's `meta.properties` (metadata/.../properties/MetaProperties.java,
// MetaPropertiesEnsemble.java, PropertiesUtils.java): which cluster and node the dir belongs to.
// Kafka 3.9 in KRaft mode writes version 1:
//
//   #
//   #Wed Dec 02 05:51:26 UTC 2026
//   node.id=1
//   directory.id=8trtQZb_oSHHzFYAfLe5zw
//   version=1
//   cluster.id=HBsmYSiztkHEqbCqcf5dRQ
//
// (java.util.Properties.store with an empty comment: "#", the date, then the keys in the
// Hashtable's order, which is the order above.) Version 0 is the ZooKeeper-era form (broker.id,
// cluster.id optional); Kafka still reads it, and so does the decoder, leaving the refusal to
// the caller.

import { parseJavaInt, parseJavaProperties, storeJavaProperties } from './java-text.js';
import { parseKafkaUuid } from './kafka-uuid.js';
import { fail, ok, type Decoded, type DecodeFileOptions } from './result.js';

/** MetaPropertiesEnsemble.META_PROPERTIES_NAME. */
export const META_PROPERTIES_FILE = 'meta.properties';

export interface MetaProperties {
  /** MetaPropertiesVersion: 1 for KRaft, 0 for the ZooKeeper-era file. */
  version: 0 | 1;
  /** Required in version 1. */
  clusterId?: string;
  /** `node.id` in version 1 (required), `broker.id` in version 0 (optional). */
  nodeId?: number;
  /** The log dir's Uuid (KIP-858), optional. */
  directoryId?: string;
}

/**
 * meta.properties in Kafka 3.9's KRaft form (version 1), as PropertiesUtils.writePropertiesFile
 * writes it; `date` is the header's timestamp (default now; written in UTC).
 */
export function encodeMetaProperties(
  props: { clusterId: string; nodeId: number; directoryId?: string },
  date: Date = new Date(),
): string {
  if (props.clusterId === '') throw new RangeError('cluster.id must not be empty');
  if (!Number.isInteger(props.nodeId) || props.nodeId < 0 || props.nodeId > 0x7fffffff) throw new RangeError(`node.id ${props.nodeId} is not a non-negative int32`);
  const entries: Array<[string, string]> = [['node.id', String(props.nodeId)]];
  if (props.directoryId !== undefined) {
    if (parseKafkaUuid(props.directoryId) !== props.directoryId) throw new RangeError(`directory.id "${props.directoryId}" is not a Kafka Uuid in its canonical text form`);
    entries.push(['directory.id', props.directoryId]);
  }
  entries.push(['version', '1'], ['cluster.id', props.clusterId]);
  return storeJavaProperties(entries, '', date);
}

/**
 * Reads meta.properties as MetaProperties.Builder(Properties).build() does: `version` (default 0)
 * must be 0 or 1; version 1 needs `node.id` (an int32) and `cluster.id`; version 0 takes an
 * optional `broker.id`; `directory.id`, when present, must be a Uuid. Other keys are ignored, as
 * Kafka ignores them. Bytes are read as ISO-8859-1, as Properties.load(InputStream) reads them.
 */
export function decodeMetaProperties(input: string | Buffer, options?: DecodeFileOptions): Decoded<MetaProperties> {
  const file = options?.file ?? META_PROPERTIES_FILE;
  const parsed = parseJavaProperties(typeof input === 'string' ? input : input.toString('latin1'));
  if (!parsed.ok) return fail(file, parsed.reason, { line: parsed.line });
  const p = parsed.props;
  const versionText = p.get('version') ?? '0';
  const version = parseJavaInt(versionText);
  if (version === null) return fail(file, `invalid meta.properties version string '${versionText}'`);
  if (version !== 0 && version !== 1) return fail(file, `unknown meta.properties version number ${version}`);
  const out: MetaProperties = { version };
  const idKey = version === 0 ? 'broker.id' : 'node.id';
  const idText = p.get(idKey);
  if (idText === undefined) {
    if (version === 1) return fail(file, 'failed to find node.id');
  } else {
    const id = parseJavaInt(idText);
    if (id === null) return fail(file, `unable to read ${idKey} as a base-10 number: "${idText}"`);
    out.nodeId = id;
  }
  const clusterId = p.get('cluster.id');
  if (clusterId !== undefined) out.clusterId = clusterId;
  else if (version === 1) return fail(file, 'cluster.id was not found');
  const dir = p.get('directory.id');
  if (dir !== undefined) {
    const id = parseKafkaUuid(dir);
    if (id === null) return fail(file, `unable to read directory.id as a Uuid: "${dir}"`);
    out.directoryId = id;
  }
  return ok(out);
}

export { isReservedDirectoryId, newDirectoryId } from './kafka-uuid.js';
