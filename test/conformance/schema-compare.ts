// Compares kmock's message specs (schemas/) with Apache Kafka's (common/message/*.json of the
// kafka-clients jar), version by version: at each version both define, the fields present, in
// order, with their name, type, nullability, tagging (and tag), default, ignorable, mapKey, the
// per-field flexibleVersions override and whether a struct is inline or from commonStructs; plus
// the message's name, type, apiKey, validVersions and flexibleVersions. Differences are grouped
// into version ranges so that a report reads "Foo.Bar nullable, v4-9: ours no, Kafka yes".
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stripJsonComments } from '../../src/codec/generator/spec.js';
import { Versions } from '../../src/codec/generator/versions.js';

export interface RawField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  ignorable?: boolean;
  mapKey?: boolean;
  flexibleVersions?: string;
  fields?: RawField[];
  [k: string]: unknown;
}

export interface RawSpec {
  name: string;
  type: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  deprecatedVersions?: string;
  latestVersionUnstable?: boolean;
  fields: RawField[];
  commonStructs?: Array<{ name: string; versions?: string; fields: RawField[] }>;
}

export function readSpec(path: string): RawSpec {
  return JSON.parse(stripJsonComments(readFileSync(path, 'utf8'))) as RawSpec;
}

/** Every *.json in dir, by file name. */
export function readSpecDir(dir: string): Map<string, RawSpec> {
  const out = new Map<string, RawSpec>();
  for (const f of readdirSync(dir).sort()) {
    if (f.endsWith('.json')) out.set(f, readSpec(join(dir, f)));
  }
  return out;
}

/** One difference, at the versions listed (ascending). */
export interface Difference {
  file: string;
  /** Field path by spec names, e.g. "Topics.Partitions.PartitionIndex"; "(message)" for the message. */
  path: string;
  property: string;
  ours: string;
  kafka: string;
  versions: number[];
}

const PRIMITIVE = new Set([
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
]);
const NUMERIC = new Set(['int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64']);

function elementType(type: string): string {
  return type.startsWith('[]') ? type.slice(2) : type;
}

/** The field's default as a canonical text: Kafka's implicit defaults made explicit, "-1" equal to -1. */
export function normalizeDefault(field: RawField): string {
  const d = field.default;
  if (field.type.startsWith('[]')) return d === 'null' ? 'null' : '[]';
  const t = field.type;
  if (NUMERIC.has(t)) {
    if (d === undefined || d === '') return '0';
    const n = typeof d === 'number' ? d : Number(String(d).trim());
    return Number.isNaN(n) ? `invalid ${JSON.stringify(d)}` : String(n);
  }
  if (t === 'bool') return d === undefined ? 'false' : String(d);
  if (t === 'uuid') return d === undefined || d === '' ? 'AAAAAAAAAAAAAAAAAAAAAA' : String(d);
  if (t === 'string') return d === 'null' ? 'null' : JSON.stringify(d === undefined ? '' : String(d));
  if (t === 'bytes' || t === 'records') return d === 'null' ? 'null' : d === undefined || d === '' ? '(empty)' : String(d);
  return d === undefined ? '(none)' : String(d);
}

function range(text: string | undefined, fallback: Versions = Versions.NONE): Versions {
  return Versions.parse(text, fallback);
}

interface FieldAt {
  name: string;
  props: Record<string, string>;
  children: FieldAt[] | undefined;
}

/** The fields present at version v, with the properties compared, children resolved. */
function layout(fields: RawField[], v: number, spec: RawSpec): FieldAt[] {
  const common = new Map((spec.commonStructs ?? []).map((s) => [s.name, s]));
  const out: FieldAt[] = [];
  for (const f of fields) {
    if (!range(f.versions).contains(v)) continue;
    const tagged = range(f.taggedVersions).contains(v);
    const el = elementType(f.type);
    let children: FieldAt[] | undefined;
    let structFrom = '';
    if (!PRIMITIVE.has(el)) {
      if (f.fields) {
        structFrom = 'inline';
        children = layout(f.fields, v, spec);
      } else if (common.has(el)) {
        structFrom = 'commonStructs';
        children = layout(common.get(el)!.fields, v, spec);
      } else {
        structFrom = 'undefined struct';
        children = [];
      }
    }
    const props: Record<string, string> = {
      type: f.type,
      nullable: range(f.nullableVersions).contains(v) ? 'yes' : 'no',
      tagged: tagged ? 'yes' : 'no',
      default: normalizeDefault(f),
      ignorable: f.ignorable ? 'yes' : 'no',
      mapKey: f.mapKey ? 'yes' : 'no',
    };
    if (tagged) props.tag = String(f.tag);
    if (f.flexibleVersions !== undefined || f.type === 'string' || f.type === 'bytes') {
      props.flexibleVersions =
        f.flexibleVersions === undefined ? "message's" : range(f.flexibleVersions).contains(v) ? 'flexible' : 'not flexible';
    }
    if (structFrom) props.struct = structFrom;
    out.push({ name: f.name, props, children });
  }
  return out;
}

type Sink = (path: string, property: string, ours: string, kafka: string) => void;

function compareFields(ours: FieldAt[], kafka: FieldAt[], prefix: string, sink: Sink): void {
  const oursByName = new Map(ours.map((f) => [f.name, f]));
  const kafkaByName = new Map(kafka.map((f) => [f.name, f]));
  const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
  for (const f of ours) {
    if (!kafkaByName.has(f.name)) sink(at(f.name), 'present', `yes (${f.props.type})`, 'no');
  }
  for (const f of kafka) {
    if (!oursByName.has(f.name)) sink(at(f.name), 'present', 'no', `yes (${f.props.type})`);
  }
  const oursOrder = ours.filter((f) => kafkaByName.has(f.name)).map((f) => f.name);
  const kafkaOrder = kafka.filter((f) => oursByName.has(f.name)).map((f) => f.name);
  if (oursOrder.join() !== kafkaOrder.join()) {
    sink(prefix || '(top level)', 'field order', oursOrder.join(', '), kafkaOrder.join(', '));
  }
  for (const o of ours) {
    const k = kafkaByName.get(o.name);
    if (!k) continue;
    const props = new Set([...Object.keys(o.props), ...Object.keys(k.props)]);
    for (const p of props) {
      const a = o.props[p] ?? '(n/a)';
      const b = k.props[p] ?? '(n/a)';
      if (a !== b) sink(at(o.name), p, a, b);
    }
    if (o.children && k.children) compareFields(o.children, k.children, at(o.name), sink);
  }
}

/** All versions 0..max named by either range (open ends stop at the highest finite bound seen). */
function versionsOf(...rs: Versions[]): number[] {
  let hi = 0;
  for (const r of rs) if (!r.isEmpty()) hi = Math.max(hi, r.isOpenEnded() ? r.lo : r.hi);
  const out: number[] = [];
  for (let v = 0; v <= hi; v++) if (rs.some((r) => r.contains(v))) out.push(v);
  return out;
}

/** Differences between our spec and Kafka's for one file, grouped by version. */
export function compareSpecs(file: string, ours: RawSpec, kafka: RawSpec): Difference[] {
  const grouped = new Map<string, Difference>();
  const add = (v: number, path: string, property: string, a: string, b: string) => {
    const key = JSON.stringify([path, property, a, b]);
    let d = grouped.get(key);
    if (!d) {
      d = { file, path, property, ours: a, kafka: b, versions: [] };
      grouped.set(key, d);
    }
    if (!d.versions.includes(v)) d.versions.push(v);
  };
  const msg = '(message)';
  for (const p of ['name', 'type', 'apiKey'] as const) {
    if (String(ours[p]) !== String(kafka[p])) add(-1, msg, p, String(ours[p]), String(kafka[p]));
  }
  const ov = range(ours.validVersions);
  const kv = range(kafka.validVersions);
  const of = range(ours.flexibleVersions);
  const kf = range(kafka.flexibleVersions);
  for (const v of versionsOf(ov, kv)) {
    if (ov.contains(v) !== kv.contains(v)) {
      add(v, msg, 'validVersions', ours.validVersions, kafka.validVersions);
      continue;
    }
    if (of.contains(v) !== kf.contains(v)) add(v, msg, 'flexibleVersions', ours.flexibleVersions, kafka.flexibleVersions);
    compareFields(layout(ours.fields, v, ours), layout(kafka.fields, v, kafka), '', (path, property, a, b) =>
      add(v, path, property, a, b),
    );
  }
  return [...grouped.values()].map((d) => ({ ...d, versions: d.versions.filter((v) => v >= 0).sort((a, b) => a - b) }));
}

/** Properties that do not change the bytes on the wire: reported, never failed on. */
export function metadataNotes(file: string, ours: RawSpec, kafka: RawSpec): Difference[] {
  const out: Difference[] = [];
  for (const p of ['deprecatedVersions', 'latestVersionUnstable'] as const) {
    const a = ours[p] === undefined ? '(none)' : String(ours[p]);
    const b = kafka[p] === undefined ? '(none)' : String(kafka[p]);
    const same = a === b || (p === 'latestVersionUnstable' && [a, b].every((x) => x === '(none)' || x === 'false'));
    if (!same) out.push({ file, path: '(message)', property: p, ours: a, kafka: b, versions: [] });
  }
  return out;
}

/** "0-3, 7, 9-11" */
export function formatVersions(vs: number[]): string {
  if (vs.length === 0) return '-';
  const parts: string[] = [];
  let start = vs[0];
  let prev = vs[0];
  for (const v of [...vs.slice(1), Number.NaN]) {
    if (v === prev + 1) {
      prev = v;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = v;
    prev = v;
  }
  return parts.join(', ');
}

/** A plain-text table, columns padded, for test failure messages and reports. */
export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = header.map((h, i) => Math.min(70, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: string[]) => cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

export function differenceRows(diffs: Difference[], versionsOf: (d: Difference) => number[] = (d) => d.versions): string[][] {
  return diffs.map((d) => {
    const vs = versionsOf(d);
    return [d.file, d.path, d.property, vs.length === 0 ? 'all' : `v${formatVersions(vs)}`, d.ours, d.kafka];
  });
}
