// Runtime descriptions of the generated messages: the spec's facts, kept next to the code so
// that tools (the CLI's JSON form, property-test generators) can walk a message generically.
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

export type FieldTypeName =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'uuid'
  | 'bytes'
  | 'records'
  | 'struct';

/** Inclusive version range [lo, hi]. */
export type VersionRange = readonly [number, number];

export interface FieldSchema {
  /** lowerCamelCase name used in the generated types and in JSON. */
  name: string;
  specName: string;
  /** The element type for arrays. */
  type: FieldTypeName;
  array: boolean;
  versions: VersionRange;
  nullableVersions: VersionRange | null;
  taggedVersions: VersionRange | null;
  tag?: number;
  flexibleVersions?: VersionRange | null;
  ignorable?: boolean;
  struct?: StructSchema;
}

export interface StructSchema {
  name: string;
  fields: FieldSchema[];
  /** A value with every field at its default. */
  create: () => object;
}

/** Counts the bytes of `records` fields, which the writer references instead of copying. */
export interface SizeTally {
  zeroCopy: number;
}

/** Everything the generated code offers for one message, as one value (for tables and tools). */
export interface MessageCodec<T> {
  name: string;
  apiKey: number | undefined;
  validVersions: VersionRange;
  deprecatedVersions: VersionRange | null;
  /** First flexible version, or -1 if none. */
  flexibleFrom: number;
  schema: StructSchema;
  create(init?: Partial<T>): T;
  decode(input: Buffer | Reader, version: number): T;
  size(m: T, version: number, tally?: SizeTally): number;
  write(w: Writer, m: T, version: number): void;
  encode(m: T, version: number): Buffer;
}

export function inRange(v: number, r: VersionRange | null | undefined): boolean {
  return r != null && v >= r[0] && v <= r[1];
}
