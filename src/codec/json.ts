// The JSON form of messages, used by `kmock codec`, the trace log and the control plane.
// Field names are the generated (lowerCamelCase) ones; bytes and records are lowercase hex;
// int64 values are numbers when they are safe integers and decimal strings otherwise; float64
// values JSON cannot hold (-0, NaN, Infinity, -Infinity) are those strings; only the fields that
// exist at the given version are written.
import { inRange, type FieldSchema, type StructSchema } from './primitives/index.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The float64 values JSON has no number for, as toJson writes them. */
const FLOAT_WORDS: ReadonlySet<string> = new Set(['-0', 'NaN', 'Infinity', '-Infinity']);

function present(f: FieldSchema, version: number): boolean {
  return inRange(version, f.versions);
}

export function toJson(schema: StructSchema, value: object, version: number): { [k: string]: Json } {
  const m = value as Record<string, unknown>;
  const out: { [k: string]: Json } = {};
  for (const f of schema.fields) {
    if (!present(f, version)) continue;
    out[f.name] = fieldToJson(f, m[f.name], version);
  }
  const unknown = m.unknownTaggedFields as Array<{ tag: number; data: Buffer }> | undefined;
  if (unknown !== undefined && unknown.length > 0) {
    out.unknownTaggedFields = unknown.map((t) => ({ tag: t.tag, data: t.data.toString('hex') }));
  }
  return out;
}

function fieldToJson(f: FieldSchema, v: unknown, version: number): Json {
  if (v === null || v === undefined) return null;
  if (f.array) return (v as unknown[]).map((e) => valueToJson(f, e, version));
  return valueToJson(f, v, version);
}

function valueToJson(f: FieldSchema, v: unknown, version: number): Json {
  switch (f.type) {
    case 'struct':
      return toJson(f.struct!, v as object, version);
    case 'int64': {
      const b = v as bigint;
      return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b.toString();
    }
    case 'float64': {
      const n = v as number;
      return Number.isFinite(n) && !Object.is(n, -0) ? n : Object.is(n, -0) ? '-0' : String(n);
    }
    case 'bytes':
      return (v as Buffer).toString('hex');
    case 'records':
      return Buffer.isBuffer(v) ? v.toString('hex') : Buffer.concat(v as Buffer[]).toString('hex');
    default:
      return v as Json;
  }
}

/** Thrown for JSON that does not fit the message (wrong type, unknown field...). */
export class JsonFormError extends Error {
  override name = 'JsonFormError';
}

/** Builds a message from its JSON form; fields left out take their defaults. */
export function fromJson<T = Record<string, unknown>>(schema: StructSchema, json: unknown, version: number, path = ''): T {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new JsonFormError(`${path || schema.name}: expected an object`);
  }
  const obj = json as Record<string, unknown>;
  const known = new Set(schema.fields.map((f) => f.name));
  for (const k of Object.keys(obj)) {
    if (!known.has(k) && k !== 'unknownTaggedFields') throw new JsonFormError(`${path || schema.name}: unknown field "${k}"`);
  }
  const m = schema.create() as Record<string, unknown>;
  for (const f of schema.fields) {
    if (!(f.name in obj)) continue;
    const here = path ? `${path}.${f.name}` : f.name;
    m[f.name] = fieldFromJson(f, obj[f.name], version, here);
  }
  if (Array.isArray(obj.unknownTaggedFields)) {
    m.unknownTaggedFields = (obj.unknownTaggedFields as Array<{ tag: number; data: string }>).map((t) => ({
      tag: t.tag,
      data: hexToBuffer(t.data, `${path}.unknownTaggedFields`),
    }));
  }
  return m as T;
}

function fieldFromJson(f: FieldSchema, v: unknown, version: number, path: string): unknown {
  if (v === null) return null;
  if (f.array) {
    if (!Array.isArray(v)) throw new JsonFormError(`${path}: expected an array`);
    return v.map((e, i) => valueFromJson(f, e, version, `${path}[${i}]`));
  }
  return valueFromJson(f, v, version, path);
}

function valueFromJson(f: FieldSchema, v: unknown, version: number, path: string): unknown {
  switch (f.type) {
    case 'struct':
      return fromJson(f.struct!, v, version, path);
    case 'bool':
      if (typeof v !== 'boolean') throw new JsonFormError(`${path}: expected true or false`);
      return v;
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'float64':
      if (f.type === 'float64' && typeof v === 'string' && FLOAT_WORDS.has(v)) return Number(v);
      if (typeof v !== 'number' || (f.type !== 'float64' && !Number.isInteger(v))) {
        throw new JsonFormError(`${path}: expected ${f.type === 'float64' ? 'a number' : 'an integer'}`);
      }
      return v;
    case 'int64':
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
      throw new JsonFormError(`${path}: expected an integer or a decimal string`);
    case 'string':
    case 'uuid':
      if (typeof v !== 'string') throw new JsonFormError(`${path}: expected a string`);
      return v;
    case 'bytes':
    case 'records':
      return hexToBuffer(v, path);
  }
}

function hexToBuffer(v: unknown, path: string): Buffer {
  if (typeof v !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(v)) throw new JsonFormError(`${path}: expected hex bytes`);
  return Buffer.from(v, 'hex');
}
