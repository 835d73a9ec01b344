// Where did a decode fail? The generated readers keep no per-field bookkeeping (it costs about
// half their speed), so when one throws, its bytes are read again here, field by field, by a
// generic walker over the message's schema descriptor, recording the path as it goes. It uses the
// same primitives in the same order, so it stops at the same byte; only failures pay for it.
import { DecodeError } from './errors.js';
import { Reader } from './reader.js';
import { inRange, type FieldSchema, type StructSchema } from './schema.js';

interface Walk {
  version: number;
  /** First flexible version of the message, or -1. */
  flexibleFrom: number;
  path: string[];
}

function isFlexible(w: Walk): boolean {
  return w.flexibleFrom >= 0 && w.version >= w.flexibleFrom;
}

/**
 * Replays `buf[start, end)` as `schema` at `version` and returns the field path where reading
 * fails, or undefined if it does not fail (then the caller keeps the error as it is).
 */
export function failurePath(
  schema: StructSchema,
  buf: Buffer,
  start: number,
  end: number,
  version: number,
  flexibleFrom: number,
): string[] | undefined {
  const w: Walk = { version, flexibleFrom, path: [] };
  try {
    walkStruct(new Reader(buf, start, end), schema, w);
    return undefined;
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError) return w.path;
    return undefined;
  }
}

/** Turns whatever a generated reader threw into a located DecodeError (or rethrows it). */
export function locateDecodeError(
  e: unknown,
  schema: StructSchema,
  buf: Buffer,
  start: number,
  end: number,
  version: number,
  flexibleFrom: number,
  name: string,
  apiKey: number | undefined,
): DecodeError {
  let err: DecodeError;
  if (e instanceof DecodeError) err = e;
  else if (e instanceof RangeError) err = new DecodeError(e.message);
  else throw e;
  if (err.path.length === 0) {
    const path = failurePath(schema, buf, start, end, version, flexibleFrom);
    if (path !== undefined) err.path = path;
  }
  return err.locate(name, version, apiKey);
}

function walkStruct(r: Reader, s: StructSchema, w: Walk): void {
  const v = w.version;
  for (const f of s.fields) {
    if (!inRange(v, f.versions) || inRange(v, f.taggedVersions)) continue;
    w.path.push(f.name);
    walkField(r, f, w, fieldFlexible(f, w), inRange(v, f.nullableVersions));
    w.path.pop();
  }
  if (!isFlexible(w)) return;
  w.path.push('(tagged fields)');
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    const known = s.fields.find((f) => f.tag === tag && inRange(v, f.taggedVersions));
    if (known === undefined) {
      r.view(size);
      continue;
    }
    const sub = r.sub(size);
    w.path.pop();
    w.path.push(known.name);
    walkField(sub, known, w, true, inRange(v, known.nullableVersions));
    if (sub.remaining !== 0) throw new DecodeError(`tagged field ${tag} has ${sub.remaining} bytes left over`);
    w.path.pop();
    w.path.push('(tagged fields)');
  }
  w.path.pop();
}

function fieldFlexible(f: FieldSchema, w: Walk): boolean {
  if (f.flexibleVersions !== undefined) return inRange(w.version, f.flexibleVersions);
  return isFlexible(w);
}

function walkField(r: Reader, f: FieldSchema, w: Walk, flex: boolean, nullable: boolean): void {
  if (f.array) {
    const n = flex ? r.compactArrayLength(1) : r.arrayLength(1);
    if (n < 0) {
      if (!nullable) throw new DecodeError(n === -1 ? 'non-nullable array was null' : `invalid array length ${n}`);
      return;
    }
    for (let i = 0; i < n; i++) {
      w.path.push(`[${i}]`);
      walkValue(r, f, w, flex, false);
      w.path.pop();
    }
    return;
  }
  walkValue(r, f, w, flex, nullable);
}

function walkValue(r: Reader, f: FieldSchema, w: Walk, flex: boolean, nullable: boolean): void {
  switch (f.type) {
    case 'struct':
      if (nullable && r.int8() < 0) return;
      walkStruct(r, f.struct!, w);
      return;
    case 'string':
      if (flex) nullable ? r.compactNullableString() : r.compactString();
      else nullable ? r.nullableString() : r.string();
      return;
    case 'bytes':
    case 'records':
      if (flex) nullable ? r.compactNullableBytes() : r.compactBytes();
      else nullable ? r.nullableBytes() : r.bytes();
      return;
    default:
      (r[f.type] as () => unknown).call(r);
  }
}
