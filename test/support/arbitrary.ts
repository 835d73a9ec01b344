// fast-check arbitraries derived from the generated runtime schemas (`XSchema`): one generic
// `arbitraryFor(schema, version)` builds a valid message of any struct at any version, so the
// property tests cover every message without a hand-written generator per message.
import fc from 'fast-check';
import * as generated from '../../src/codec/generated/index.js';
import {
  inRange,
  type FieldSchema,
  type MessageCodec,
  type StructSchema,
  type TaggedField,
} from '../../src/codec/primitives/index.js';

/** Every generated codec: requests, responses, headers and the consumer-protocol structs. */
export const ALL_CODECS: MessageCodec<unknown>[] = Object.entries(generated)
  .filter(([name, v]) => name.endsWith('Codec') && typeof v === 'object' && v !== null && 'schema' in v)
  .map(([, v]) => v as MessageCodec<unknown>)
  .sort((a, b) => a.name.localeCompare(b.name));

/** Each struct schema (top level and nested) mapped to its message's first flexible version. */
const FLEXIBLE_FROM = new Map<StructSchema, number>();
for (const codec of ALL_CODECS) {
  const walk = (s: StructSchema): void => {
    if (FLEXIBLE_FROM.has(s)) return;
    FLEXIBLE_FROM.set(s, codec.flexibleFrom);
    for (const f of s.fields) if (f.struct) walk(f.struct);
  };
  walk(codec.schema);
}

/** Whether `schema` (any struct of a generated message) has a tag section at `version`. */
export function isFlexibleAt(schema: StructSchema, version: number): boolean {
  const from = FLEXIBLE_FROM.get(schema);
  if (from === undefined) throw new Error(`struct ${schema.name} belongs to no generated codec`);
  return from >= 0 && version >= from;
}

/** Every version of a codec, lowest first. */
export function versionsOf(codec: MessageCodec<unknown>): number[] {
  const out: number[] = [];
  for (let v = codec.validVersions[0]; v <= codec.validVersions[1]; v++) out.push(v);
  return out;
}

export interface ArbitraryOptions {
  /** Longest generated array (default 3). */
  maxArray?: number;
  /** Whether flexible versions may carry unknown tagged fields (default true). */
  unknownTags?: boolean;
}

const INT_RANGES: Record<string, [number, number]> = {
  int8: [-0x80, 0x7f],
  int16: [-0x8000, 0x7fff],
  uint16: [0, 0xffff],
  int32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Strings: mostly ASCII, some with 2-, 3- and 4-byte UTF-8 characters (never lone surrogates). */
export const stringArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 2 },
  { arbitrary: fc.constantFrom('', 'é', 'ünïcödé', '日本語のトピック', 'a🎉b', '𝄞'), weight: 1 },
);

/** Kafka's Uuid text: 16 random bytes as 22 base64url characters. */
export const uuidArb: fc.Arbitrary<string> = fc
  .uint8Array({ minLength: 16, maxLength: 16 })
  .map((b) => Buffer.from(b).toString('base64url'));

export const bytesArb: fc.Arbitrary<Buffer> = fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b));

function primitiveArb(type: FieldSchema['type']): fc.Arbitrary<unknown> {
  switch (type) {
    case 'bool':
      return fc.boolean();
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32': {
      const [min, max] = INT_RANGES[type];
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max, 0, -1 >= min ? -1 : 1));
    }
    case 'int64':
      return fc.oneof(
        { arbitrary: fc.bigInt(INT64_MIN, INT64_MAX), weight: 3 },
        { arbitrary: fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n, 2n ** 53n, -(2n ** 53n)), weight: 1 },
      );
    case 'float64':
      return fc.double();
    case 'string':
      return stringArb;
    case 'uuid':
      return uuidArb;
    case 'bytes':
    case 'records':
      return bytesArb;
    case 'struct':
      throw new Error('structs are handled by arbitraryFor');
  }
}

/** Tag numbers for unknown tagged fields: small, around the one-byte varint limit, and huge. */
const unknownTagArb = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 130 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 20_000 }), weight: 2 },
  { arbitrary: fc.integer({ min: 0, max: 0x7ffffffe }), weight: 1 },
);

/** A non-empty ascending list of unknown tagged fields avoiding `known` tags. */
export function unknownTaggedFieldsArb(known: readonly number[]): fc.Arbitrary<TaggedField[]> {
  return fc
    .uniqueArray(
      unknownTagArb.filter((t) => !known.includes(t)),
      { minLength: 1, maxLength: 3 },
    )
    .chain((tags) => fc.tuple(...tags.sort((a, b) => a - b).map((tag) => bytesArb.map((data) => ({ tag, data })))))
    .map((fields) => [...fields]);
}

const structCache = new Map<string, fc.Arbitrary<object>>();

/**
 * A valid value of `schema` at `version`: fields that do not exist at that version keep their
 * defaults (as `create` gives them), fields in the tagged section are sometimes left at their
 * default, null appears only where the version is nullable, and flexible versions sometimes
 * carry unknown tagged fields whose tags clash with no known tag of the struct.
 */
export function arbitraryFor<T = Record<string, unknown>>(
  schema: StructSchema,
  version: number,
  options: ArbitraryOptions = {},
): fc.Arbitrary<T> {
  const maxArray = options.maxArray ?? 3;
  const unknownTags = options.unknownTags ?? true;
  const key = `${schema.name}@${version}/${maxArray}/${unknownTags}`;
  let arb = structCache.get(key);
  if (arb === undefined) {
    arb = buildStruct(schema, version, { maxArray, unknownTags });
    structCache.set(key, arb);
  }
  return arb as fc.Arbitrary<T>;
}

function buildStruct(schema: StructSchema, version: number, options: Required<ArbitraryOptions>): fc.Arbitrary<object> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of schema.fields) {
    if (!inRange(version, f.versions)) continue; // stays at its default
    let value = fieldValueArb(f, version, options);
    if (inRange(version, f.nullableVersions)) value = fc.option(value, { nil: null, freq: 4 });
    // A tagged field is often left at its default (then it is not written at all).
    if (inRange(version, f.taggedVersions)) value = fc.option(value, { nil: KEEP_DEFAULT, freq: 2 });
    parts[f.name] = value;
  }
  const flexible = isFlexibleAt(schema, version);
  if (flexible && options.unknownTags) {
    const known = schema.fields.filter((f) => f.tag !== undefined).map((f) => f.tag!);
    parts[UNKNOWN] = fc.option(unknownTaggedFieldsArb(known), { nil: KEEP_DEFAULT, freq: 2 });
  }
  return fc.record(parts).map((values) => {
    const m = schema.create() as Record<string, unknown>;
    for (const [k, v] of Object.entries(values)) {
      if (v === KEEP_DEFAULT) continue;
      m[k === UNKNOWN ? 'unknownTaggedFields' : k] = v;
    }
    return m;
  });
}

const KEEP_DEFAULT = Symbol('keep the default');
const UNKNOWN = '\u0000unknownTaggedFields';

function fieldValueArb(f: FieldSchema, version: number, options: Required<ArbitraryOptions>): fc.Arbitrary<unknown> {
  const element = f.type === 'struct' ? arbitraryFor(f.struct!, version, options) : primitiveArb(f.type);
  return f.array ? fc.array(element, { maxLength: options.maxArray }) : element;
}
