// Reads Kafka JSON message specs into a checked model. The checks follow Apache Kafka's own
// generator (MessageSpec, StructSpec, FieldSpec): a spec that Kafka's generator would refuse
// is refused here too, with the file and field named.
import { Versions } from './versions.js';

export const PRIMITIVES = [
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'uuid',
  'bytes',
  'records',
] as const;
export type Primitive = (typeof PRIMITIVES)[number];

/** A field's type: a primitive, a struct, or an array of either. */
export type FieldType =
  | { kind: 'primitive'; name: Primitive }
  | { kind: 'struct'; struct: StructSpec }
  | { kind: 'array'; element: FieldType };

export interface FieldSpec {
  /** As written in the spec, e.g. "GroupInstanceId". */
  specName: string;
  /** lowerCamelCase, as it appears in generated types and JSON. */
  name: string;
  type: FieldType;
  versions: Versions;
  nullableVersions: Versions;
  /** Versions in which the field travels in the tagged section (empty if never). */
  taggedVersions: Versions;
  tag: number | undefined;
  /** The raw `default` from the spec, or undefined. */
  defaultText: string | undefined;
  ignorable: boolean;
  mapKey: boolean;
  /** Per-field override of the message's flexible versions (strings/bytes only). */
  flexibleVersions: Versions | undefined;
  zeroCopy: boolean;
  about: string;
}

export interface StructSpec {
  /** Spec name, e.g. "JoinGroupRequestProtocol". */
  specName: string;
  /**
   * The name inside the message's namespace (see emit.ts for the scheme), e.g. "Protocol"; for the
   * top-level struct, the message name.
   */
  localName: string;
  /** How TypeScript refers to the type, e.g. "JoinGroupRequest.Protocol"; for the top-level struct, "JoinGroupRequest". */
  tsName: string;
  fields: FieldSpec[];
  /** Versions in which this struct can appear (hull of its uses, within the message's). */
  versions: Versions;
}

export type MessageType = 'request' | 'response' | 'header' | 'data';

export interface MessageSpec {
  file: string;
  name: string;
  type: MessageType;
  apiKey: number | undefined;
  validVersions: Versions;
  flexibleVersions: Versions;
  deprecatedVersions: Versions;
  latestVersionUnstable: boolean;
  /** The top-level struct (named like the message). */
  struct: StructSpec;
  /** Every struct of the message, top-level first, each once. */
  structs: StructSpec[];
}

const MESSAGE_KEYS = new Set([
  'apiKey',
  'type',
  'name',
  'validVersions',
  'flexibleVersions',
  'deprecatedVersions',
  'latestVersionUnstable',
  'fields',
  'commonStructs',
  'listeners',
]);
const FIELD_KEYS = new Set([
  'name',
  'type',
  'versions',
  'nullableVersions',
  'default',
  'ignorable',
  'mapKey',
  'entityType',
  'about',
  'tag',
  'taggedVersions',
  'flexibleVersions',
  'zeroCopy',
  'fields',
]);
const STRUCT_KEYS = new Set(['name', 'versions', 'fields', 'deprecatedVersions']);
const NULLABLE_CAPABLE = new Set(['string', 'bytes', 'uuid', 'records']);
/** Names a nested struct cannot take: inside the message's namespace it would hide the type the generated code means. */
const RESERVED_LOCAL_NAMES = new Set(['Buffer', 'RecordSet', 'TaggedField', 'Reader', 'Writer', 'StructSchema', 'SizeTally', 'MessageCodec']);

/** Kafka's spec files may hold `//` comments; strip them outside string literals. */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

export function lowerCamel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

class SpecError extends Error {}

/** Parses and checks one spec file's text. */
export function parseMessageSpec(file: string, text: string): MessageSpec {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(stripJsonComments(text)) as Record<string, unknown>;
  } catch (e) {
    throw new SpecError(`${file}: invalid JSON: ${(e as Error).message}`);
  }
  return new SpecReader(file).message(json);
}

class SpecReader {
  private commonStructs = new Map<string, { json: Record<string, unknown>; spec?: StructSpec }>();
  private structs: StructSpec[] = [];
  private messageName = '';
  /** The prefixes a nested struct's name loses: the message name, then the API name (no Request/Response). */
  private namePrefixes: string[] = [];
  private validVersions = Versions.NONE;

  constructor(private readonly file: string) {}

  private fail(where: string, msg: string): never {
    throw new SpecError(`${this.file}: ${where}: ${msg}`);
  }

  message(json: Record<string, unknown>): MessageSpec {
    for (const k of Object.keys(json)) if (!MESSAGE_KEYS.has(k)) this.fail('message', `unknown key "${k}"`);
    const name = str(json.name) ?? this.fail('message', 'missing name');
    this.messageName = name;
    const type = json.type as MessageType;
    if (!['request', 'response', 'header', 'data'].includes(type)) this.fail(name, `bad type "${String(json.type)}"`);
    this.namePrefixes = [name];
    if (type === 'request' || type === 'response') {
      const api = name.replace(/(Request|Response)$/, '');
      if (api !== name && api !== '') this.namePrefixes.push(api);
    }
    const apiKey = json.apiKey === undefined ? undefined : Number(json.apiKey);
    if ((type === 'request' || type === 'response') && (apiKey === undefined || !Number.isInteger(apiKey))) {
      this.fail(name, 'requests and responses need an integer apiKey');
    }
    const validVersions = this.versions(name, 'validVersions', json.validVersions);
    if (validVersions.isOpenEnded()) this.fail(name, 'validVersions must have a maximum');
    this.validVersions = validVersions;
    if (json.flexibleVersions === undefined) this.fail(name, 'flexibleVersions is mandatory');
    const flexibleVersions = this.versions(name, 'flexibleVersions', json.flexibleVersions);
    if (!flexibleVersions.isEmpty() && !flexibleVersions.isOpenEnded()) {
      this.fail(name, 'flexibleVersions must be "none" or open-ended (N+)');
    }
    const deprecatedVersions =
      json.deprecatedVersions === undefined ? Versions.NONE : this.versions(name, 'deprecatedVersions', json.deprecatedVersions);

    for (const c of (json.commonStructs as Record<string, unknown>[] | undefined) ?? []) {
      for (const k of Object.keys(c)) if (!STRUCT_KEYS.has(k)) this.fail(`commonStructs`, `unknown key "${k}"`);
      const cname = str(c.name) ?? this.fail('commonStructs', 'missing name');
      if (this.commonStructs.has(cname)) this.fail('commonStructs', `duplicate struct ${cname}`);
      this.commonStructs.set(cname, { json: c });
    }
    const top = this.struct(name, json.fields, validVersions, name);
    if (!Array.isArray(json.fields)) this.fail(name, 'missing fields');
    return {
      file: this.file,
      name,
      type,
      apiKey,
      validVersions,
      flexibleVersions,
      deprecatedVersions,
      latestVersionUnstable: json.latestVersionUnstable === true,
      struct: top,
      structs: this.structs,
    };
  }

  private versions(where: string, key: string, v: unknown): Versions {
    try {
      return Versions.parse(v === undefined ? undefined : String(v));
    } catch (e) {
      this.fail(where, `${key}: ${(e as Error).message}`);
    }
  }

  /**
   * A nested struct's name inside its message's namespace: the spec name without a leading message
   * or API name where what is left starts a new word (DescribeConfigsResource in
   * DescribeConfigsRequest -> Resource, JoinGroupRequestProtocol -> Protocol; CreatableTopic and
   * FetchableTopicResponse keep theirs). It depends on this message's spec alone, so adding a schema
   * never renames a type of another message.
   */
  private localStructName(specName: string): string {
    if (specName === this.messageName) return specName;
    for (const prefix of this.namePrefixes) {
      const rest = specName.slice(prefix.length);
      if (specName.startsWith(prefix) && /^[A-Z]/.test(rest)) return rest;
    }
    return specName;
  }

  private struct(specName: string, fieldsJson: unknown, versions: Versions, path: string): StructSpec {
    const top = this.structs.length === 0;
    const localName = top ? specName : this.localStructName(specName);
    const tsName = top ? specName : `${this.messageName}.${localName}`;
    const spec: StructSpec = { specName, localName, tsName, fields: [], versions };
    if (this.structs.some((s) => s.specName === specName)) this.fail(path, `struct name ${specName} is used twice`);
    const clash = this.structs.find((s) => s.localName === localName);
    if (clash) this.fail(path, `struct ${specName} would be named ${tsName} like ${clash.specName}; rename one in the spec`);
    if (!top && RESERVED_LOCAL_NAMES.has(localName)) this.fail(path, `struct ${specName} would be named ${localName}, which the generated code uses for another type`);
    this.structs.push(spec);
    const fields = (fieldsJson as Record<string, unknown>[] | undefined) ?? [];
    const names = new Set<string>();
    const tags = new Set<number>();
    for (const f of fields) {
      const field = this.field(f, versions, path);
      if (names.has(field.name)) this.fail(path, `duplicate field ${field.specName}`);
      names.add(field.name);
      if (field.tag !== undefined) {
        if (tags.has(field.tag)) this.fail(path, `duplicate tag ${field.tag}`);
        tags.add(field.tag);
      }
      spec.fields.push(field);
    }
    // Kafka requires tags to be contiguous from 0 within a struct.
    for (let t = 0; t < tags.size; t++) if (!tags.has(t)) this.fail(path, `tags must be contiguous from 0; ${t} is missing`);
    return spec;
  }

  private field(f: Record<string, unknown>, structVersions: Versions, parentPath: string): FieldSpec {
    const specName = str(f.name) ?? this.fail(parentPath, 'field without a name');
    const path = `${parentPath}.${specName}`;
    for (const k of Object.keys(f)) if (!FIELD_KEYS.has(k)) this.fail(path, `unknown key "${k}"`);
    const typeText = str(f.type) ?? this.fail(path, 'missing type');
    const tag = f.tag === undefined ? undefined : Number(f.tag);
    if (tag !== undefined && (!Number.isInteger(tag) || tag < 0)) this.fail(path, `bad tag ${String(f.tag)}`);
    const taggedVersions =
      f.taggedVersions === undefined ? Versions.NONE : this.versions(path, 'taggedVersions', f.taggedVersions);
    if ((tag === undefined) !== taggedVersions.isEmpty()) this.fail(path, 'tag and taggedVersions go together');
    if (!taggedVersions.isEmpty() && !taggedVersions.isOpenEnded()) this.fail(path, 'taggedVersions must be open-ended');
    const versions =
      f.versions === undefined
        ? taggedVersions.isEmpty()
          ? this.fail(path, 'missing versions')
          : taggedVersions
        : this.versions(path, 'versions', f.versions);
    if (!versions.containsAll(taggedVersions)) this.fail(path, 'taggedVersions must lie within versions');
    const nullableVersions =
      f.nullableVersions === undefined ? Versions.NONE : this.versions(path, 'nullableVersions', f.nullableVersions);
    const mapKey = f.mapKey === true;
    if (mapKey && tag !== undefined) this.fail(path, 'a tagged field cannot be a mapKey');
    const fieldVersions = versions.intersect(structVersions).intersect(this.validVersions);

    const type = this.fieldType(typeText, f, fieldVersions, path);
    const base = type.kind === 'array' ? undefined : type.kind === 'primitive' ? type.name : 'struct';
    if (!nullableVersions.isEmpty()) {
      if (base !== undefined && base !== 'struct' && !NULLABLE_CAPABLE.has(base)) this.fail(path, `${typeText} cannot be nullable`);
      if (!taggedVersions.isEmpty()) {
        const t = taggedVersions.intersect(nullableVersions);
        if (!t.isEmpty() && !(t.lo === taggedVersions.lo && t.hi === taggedVersions.hi)) {
          this.fail(path, 'either every tagged version is nullable or none is');
        }
      }
    }
    const flexibleVersions =
      f.flexibleVersions === undefined ? undefined : this.versions(path, 'flexibleVersions', f.flexibleVersions);
    if (flexibleVersions && base !== 'string' && base !== 'bytes') this.fail(path, 'flexibleVersions only on string or bytes');
    const zeroCopy = f.zeroCopy === true;
    if (zeroCopy && base !== 'bytes') this.fail(path, 'zeroCopy only on bytes');
    const defaultText = f.default === undefined ? undefined : String(f.default);
    if (defaultText === 'null' && !nullableVersions.containsAll(fieldVersions)) {
      this.fail(path, 'a null default needs the field nullable in every version it exists');
    }
    return {
      specName,
      name: lowerCamel(specName),
      type,
      versions,
      nullableVersions,
      taggedVersions,
      tag,
      defaultText,
      ignorable: f.ignorable === true,
      mapKey,
      flexibleVersions,
      zeroCopy,
      about: str(f.about) ?? '',
    };
  }

  private fieldType(typeText: string, f: Record<string, unknown>, versions: Versions, path: string): FieldType {
    if (typeText.startsWith('[]')) {
      const element = this.fieldType(typeText.slice(2), f, versions, path);
      if (element.kind === 'array') this.fail(path, 'arrays of arrays are not allowed');
      return { kind: 'array', element };
    }
    if ((PRIMITIVES as readonly string[]).includes(typeText)) {
      if (f.fields !== undefined) this.fail(path, `a ${typeText} field cannot have fields`);
      return { kind: 'primitive', name: typeText as Primitive };
    }
    if (!/^[A-Z]\w*$/.test(typeText)) this.fail(path, `unknown type "${typeText}"`);
    if (f.fields !== undefined) return { kind: 'struct', struct: this.struct(typeText, f.fields, versions, path) };
    const common = this.commonStructs.get(typeText) ?? this.fail(path, `unknown struct "${typeText}"`);
    if (!common.spec) {
      const declared =
        common.json.versions === undefined ? Versions.ALL : this.versions(typeText, 'versions', common.json.versions);
      common.spec = this.struct(typeText, common.json.fields, declared.intersect(versions), `commonStructs.${typeText}`);
    } else {
      // A common struct used by several fields is generated once, for all their versions.
      this.widen(common.spec, versions);
    }
    return { kind: 'struct', struct: common.spec };
  }

  /**
   * Widens a struct to versions it is also used in, and with it the structs its fields hold (a
   * common struct first met in v4+ and then in v0-3, AddPartitionsToTxnResponse's
   * AddPartitionsToTxnTopicResult, carries its AddPartitionsToTxnPartitionResult into v0-3 too).
   */
  private widen(s: StructSpec, versions: Versions): void {
    const wider = s.versions.hull(versions);
    if (wider.lo === s.versions.lo && wider.hi === s.versions.hi) return;
    s.versions = wider;
    for (const f of s.fields) {
      let t = f.type;
      if (t.kind === 'array') t = t.element;
      if (t.kind === 'struct') this.widen(t.struct, f.versions.intersect(wider).intersect(this.validVersions));
    }
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
