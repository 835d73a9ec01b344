// Turns one checked MessageSpec into TypeScript: an interface per struct covering every version,
// and read/size/write/create functions per struct. Version conditions are decided here, at
// generation time: each function knows the versions it can be called with, and a condition is
// emitted only where the wire format really changes inside that range (Kafka's VersionConditional).
import { ZERO_UUID } from '../constants.js';
import { type FieldSpec, type FieldType, type MessageSpec, type Primitive, type StructSpec } from './spec.js';
import { Versions } from './versions.js';
import { Code, branchExpr, branchStmts } from './code.js';

/** Where one field sits on the wire at one version. */
type Mode =
  | { kind: 'absent' }
  | { kind: 'tagged' }
  | { kind: 'regular'; flexible: boolean; nullable: boolean };

export class MessageEmitter {
  private code = new Code();
  private readonly flexible: Versions;
  private readonly recordsStructs = new Set<StructSpec>();
  private readonly needsIsDefault = new Set<StructSpec>();
  readonly imports = new Set<string>();

  constructor(private readonly msg: MessageSpec) {
    this.flexible = msg.flexibleVersions;
    for (const s of msg.structs) if (this.containsRecords(s, new Set())) this.recordsStructs.add(s);
    for (const s of msg.structs) {
      for (const f of s.fields) if (f.type.kind === 'struct') this.needsIsDefault.add(f.type.struct);
    }
  }

  private containsRecords(s: StructSpec, seen: Set<StructSpec>): boolean {
    if (seen.has(s)) return false;
    seen.add(s);
    return s.fields.some((f) => {
      const t = f.type.kind === 'array' ? f.type.element : f.type;
      if (t.kind === 'primitive') return t.name === 'records';
      return t.kind === 'struct' && this.containsRecords(t.struct, seen);
    });
  }

  private use(name: string): string {
    this.imports.add(name);
    return name;
  }

  // ---- names (the scheme is described in main.ts) ----------------------------------------------------

  private isTop(s: StructSpec): boolean {
    return s === this.msg.struct;
  }

  /** The exported create function: `createFetchRequest`, `FetchRequest.createTopic`. */
  private createRef(s: StructSpec, insideNamespace = false): string {
    if (this.isTop(s)) return `create${s.localName}`;
    return insideNamespace ? `create${s.localName}` : `${this.msg.name}.create${s.localName}`;
  }

  /** The exported schema: `FetchRequestSchema`, `FetchRequest.TopicSchema`. */
  private schemaRef(s: StructSpec, insideNamespace = false): string {
    if (this.isTop(s)) return `${s.localName}Schema`;
    return insideNamespace ? `${s.localName}Schema` : `${this.msg.name}.${s.localName}Schema`;
  }

  // ---- per-field facts ---------------------------------------------------------------------------

  private fieldVersions(f: FieldSpec, s: StructSpec): Versions {
    return f.versions.intersect(s.versions);
  }

  private mode(f: FieldSpec, v: number): Mode {
    if (!f.versions.contains(v)) return { kind: 'absent' };
    if (f.taggedVersions.contains(v)) return { kind: 'tagged' };
    const flex = (f.flexibleVersions ?? this.flexible).contains(v);
    return { kind: 'regular', flexible: flex, nullable: f.nullableVersions.contains(v) };
  }

  private boundaries(f: FieldSpec): Versions[] {
    return [f.versions, f.taggedVersions, f.nullableVersions, f.flexibleVersions ?? this.flexible, this.flexible];
  }

  private canBeNull(f: FieldSpec): boolean {
    return !f.nullableVersions.isEmpty();
  }

  private tsType(t: FieldType): string {
    if (t.kind === 'array') {
      const e = this.tsType(t.element);
      return `${e}[]`;
    }
    if (t.kind === 'struct') return t.struct.tsName;
    switch (t.name) {
      case 'bool':
        return 'boolean';
      case 'int64':
        return 'bigint';
      case 'string':
      case 'uuid':
        return 'string';
      case 'bytes':
        return 'Buffer';
      case 'records':
        return this.use('RecordSet');
      default:
        return 'number';
    }
  }

  private fieldTsType(f: FieldSpec): string {
    return this.tsType(f.type) + (this.canBeNull(f) || f.defaultText === 'null' ? ' | null' : '');
  }

  private defaultExpr(f: FieldSpec): string {
    const d = f.defaultText;
    const t = f.type;
    if (t.kind === 'array') return d === 'null' ? 'null' : '[]';
    if (t.kind === 'struct') return d === 'null' ? 'null' : `${this.createRef(t.struct)}()`;
    switch (t.name) {
      case 'bool':
        return d === 'true' ? 'true' : 'false';
      case 'int64':
        return `${d === undefined ? 0n : BigInt(d)}n`;
      case 'int8':
      case 'int16':
      case 'uint16':
      case 'int32':
      case 'uint32':
        return String(d === undefined ? 0 : parseIntDefault(d));
      case 'float64':
        return String(d === undefined ? 0 : Number(d));
      case 'string':
        return d === 'null' ? 'null' : JSON.stringify(d ?? '');
      case 'uuid':
        return JSON.stringify(ZERO_UUID);
      case 'bytes':
        return d === 'null' ? 'null' : this.use('EMPTY_BYTES');
      case 'records':
        return 'null';
    }
  }

  /** An expression true when `x` differs from the field's default (Kafka's non-default test). */
  private nonDefault(f: FieldSpec, x: string): string {
    const t = f.type;
    const nullDefault = f.defaultText === 'null';
    if (t.kind === 'array') {
      if (nullDefault) return `${x} !== null`;
      return this.canBeNull(f) ? `(${x} === null || ${x}.length !== 0)` : `${x}.length !== 0`;
    }
    if (t.kind === 'struct') {
      if (nullDefault) return `${x} !== null`;
      const check = `!isDefault${t.struct.localName}(${x})`;
      return this.canBeNull(f) ? `(${x} === null || ${check})` : check;
    }
    switch (t.name) {
      case 'bytes':
        if (nullDefault) return `${x} !== null`;
        return this.canBeNull(f) ? `(${x} === null || ${x}.length !== 0)` : `${x}.length !== 0`;
      case 'records':
        return `${x} !== null`;
      default:
        return `${x} !== ${this.defaultExpr(f)}`;
    }
  }

  /** Smallest encoding of a value of type `t` at one version (regular fields only count). */
  private minSizeAt(t: FieldType, flexible: boolean, v: number): number {
    if (t.kind === 'array') return flexible ? 1 : 4;
    if (t.kind === 'struct') {
      let n = this.flexible.contains(v) ? 1 : 0; // the tag section's count byte
      for (const f of t.struct.fields) {
        const m = this.mode(f, v);
        if (m.kind === 'regular') n += m.nullable && f.type.kind === 'struct' ? 1 : this.minSizeAt(f.type, m.flexible, v);
      }
      return n;
    }
    switch (t.name) {
      case 'bool':
      case 'int8':
        return 1;
      case 'int16':
      case 'uint16':
        return 2;
      case 'int32':
      case 'uint32':
        return 4;
      case 'int64':
      case 'float64':
        return 8;
      case 'uuid':
        return 16;
      case 'string':
        return flexible ? 1 : 2;
      case 'bytes':
      case 'records':
        return flexible ? 1 : 4;
    }
  }

  /**
   * The smallest element of an array field over every version in `range` with the given
   * flexibility: a lower bound, so checking `count * min <= bytes left` never refuses valid input.
   * At least 1, so that a hostile count always fails before a loop runs.
   */
  private minElementSize(f: FieldSpec, el: FieldType, range: Versions, flexible: boolean): number {
    let min = Infinity;
    for (let v = range.lo; v <= range.hi; v++) {
      const m = this.mode(f, v);
      const flex = m.kind === 'tagged' || (m.kind === 'regular' && m.flexible);
      if (m.kind !== 'absent' && flex === flexible) min = Math.min(min, this.minSizeAt(el, flex, v));
    }
    return Math.max(1, min === Infinity ? 1 : min);
  }

  // ---- reading -----------------------------------------------------------------------------------

  private readPrimitive(p: Primitive, flex: boolean, nullable: boolean, r: string): string {
    switch (p) {
      case 'string':
        return flex
          ? nullable
            ? `${r}.compactNullableString()`
            : `${r}.compactString()`
          : nullable
            ? `${r}.nullableString()`
            : `${r}.string()`;
      case 'bytes':
      case 'records':
        return flex
          ? nullable
            ? `${r}.compactNullableBytes()`
            : `${r}.compactBytes()`
          : nullable
            ? `${r}.nullableBytes()`
            : `${r}.bytes()`;
      default:
        return `${r}.${p}()`;
    }
  }

  /** Expression reading a field's value at a version where it is on the wire (regular or tagged). */
  private readValue(f: FieldSpec, s: StructSpec, flex: boolean, nullable: boolean, r: string): string {
    const t = f.type;
    if (t.kind === 'array') return `_read${s.localName}_${f.name}(${r}, v)`;
    if (t.kind === 'struct') {
      const call = `_read${t.struct.localName}(${r}, v)`;
      return nullable ? `(${r}.int8() < 0 ? null : ${call})` : call;
    }
    return this.readPrimitive(t.name, flex, nullable, r);
  }

  private emitArrayReader(f: FieldSpec, s: StructSpec): void {
    if (f.type.kind !== 'array') return;
    const el = f.type.element;
    const fv = this.fieldVersions(f, s);
    const c = this.code;
    const elType = this.tsType(el);
    const bounds = this.boundaries(f);
    const readers = this.use('Reader');
    c.open(`function _read${s.localName}_${f.name}(r: ${readers}, v: number): ${elType}[]${this.canBeNull(f) ? ' | null' : ''} {`);
    c.line(
      `const n = ${branchExpr(fv, bounds, (v) => {
        const m = this.mode(f, v);
        const flex = m.kind === 'tagged' || (m.kind === 'regular' && m.flexible);
        const min = this.minElementSize(f, el, fv, flex);
        return flex ? `r.compactArrayLength(${min})` : `r.arrayLength(${min})`;
      })};`,
    );
    const nullCase = branchExpr(fv, bounds, (v) => (f.nullableVersions.contains(v) ? 'true' : 'false'));
    // Any negative count is null where the array is nullable (Kafka reads `length < 0` as null);
    // elsewhere -1 is a null in the wrong place and other negatives are no count at all.
    const refuse = `throw new ${this.use('DecodeError')}(n === -1 ? 'non-nullable array was null' : \`invalid array length \${n}\`);`;
    c.open('if (n < 0) {');
    if (nullCase === 'true') c.line('return null;');
    else if (nullCase === 'false') c.line(refuse);
    else {
      c.line(`if (${nullCase}) return null;`);
      c.line(refuse);
    }
    c.close();
    c.line(`const a: ${elType}[] = [];`);
    const elRead =
      el.kind === 'struct'
        ? `_read${el.struct.localName}(r, v)`
        : el.kind === 'primitive'
          ? branchExpr(fv, bounds, (v) => {
              const m = this.mode(f, v);
              const flex = m.kind === 'tagged' || (m.kind === 'regular' && m.flexible);
              return this.readPrimitive(el.name, flex, false, 'r');
            })
          : 'never';
    c.line(`for (let i = 0; i < n; i++) a.push(${elRead});`);
    c.line('return a;');
    c.close();
    c.line();
  }

  private emitReader(s: StructSpec): void {
    const c = this.code;
    const flexInStruct = this.flexible.intersect(s.versions);
    const regular = s.fields;
    c.open(`function _read${s.localName}(r: ${this.use('Reader')}, v: number): ${s.tsName} {`);
    for (const f of regular) {
      const fv = this.fieldVersions(f, s);
      const expr = branchExpr(s.versions, this.boundaries(f), (v) => {
        const m = this.mode(f, v);
        if (m.kind === 'regular') return this.readValue(f, s, m.flexible, m.nullable, 'r');
        return this.defaultExpr(f);
      });
      const decl = f.tag !== undefined ? 'let' : 'const';
      c.line(`${decl} _${f.name}: ${this.fieldTsType(f)} = ${expr};`);
    }
    const hasTagSection = !flexInStruct.isEmpty();
    if (hasTagSection) c.line(`let _unknown: ${this.use('TaggedField')}[] | undefined;`);
    if (hasTagSection) {
      const tagged = regular.filter((f) => f.tag !== undefined);
      const cond = flexInStruct.containsAll(s.versions) ? '' : `v >= ${flexInStruct.lo}`;
      if (cond) c.open(`if (${cond}) {`);
      c.line('const count = r.uvarint();');
      c.open('for (let t = 0; t < count; t++) {');
      c.line('const tag = r.uvarint();');
      c.line('const size = r.uvarint();');
      if (tagged.length > 0) {
        c.open('switch (tag) {');
        for (const f of tagged) {
          c.open(`case ${f.tag}: {`);
          if (!f.taggedVersions.containsAll(flexInStruct)) {
            c.line(
              `if (v < ${f.taggedVersions.lo}) throw new ${this.use('DecodeError')}(\`tag ${f.tag} is not valid at version \${v}\`);`,
            );
          }
          c.line('const s = r.sub(size);');
          c.line(`_${f.name} = ${this.readValue(f, s, true, !f.nullableVersions.intersect(f.taggedVersions).isEmpty(), 's')};`);
          c.line(
            `if (s.remaining !== 0) throw new ${this.use('DecodeError')}(\`tagged field ${f.tag} has \${s.remaining} bytes left over\`);`,
          );
          c.line('break;');
          c.close();
        }
        c.line('default:');
        c.line('  (_unknown ??= []).push({ tag, data: r.view(size) });');
        c.close();
      } else {
        c.line('(_unknown ??= []).push({ tag, data: r.view(size) });');
      }
      c.close();
      if (cond) c.close();
    }
    const props = regular.map((f) => `${f.name}: _${f.name}`);
    c.line(`const m: ${s.tsName} = { ${props.join(', ')} };`);
    if (hasTagSection) c.line('if (_unknown !== undefined) m.unknownTaggedFields = _unknown;');
    c.line('return m;');
    c.close();
    c.line();
  }

  // ---- sizing (with the version-gating checks) ------------------------------------------------------

  private sizePrimitive(p: Primitive, flex: boolean, x: string, tally: string): string {
    switch (p) {
      case 'bool':
      case 'int8':
        return '1';
      case 'int16':
      case 'uint16':
        return '2';
      case 'int32':
      case 'uint32':
        return '4';
      case 'int64':
      case 'float64':
        return '8';
      case 'uuid':
        return '16';
      case 'string':
        return flex ? `${this.use('sizeOfCompactString')}(${x})` : `${this.use('sizeOfString')}(${x})`;
      case 'bytes':
        return flex ? `${this.use('sizeOfCompactBytes')}(${x})` : `${this.use('sizeOfBytes')}(${x})`;
      case 'records':
        return flex ? `${this.use('sizeOfCompactRecords')}(${x}, ${tally})` : `${this.use('sizeOfRecords')}(${x}, ${tally})`;
    }
  }

  private tallyArg(st: StructSpec): string {
    return this.recordsStructs.has(st) ? ', t' : '';
  }

  private sizeValue(f: FieldSpec, s: StructSpec, flex: boolean, nullable: boolean, x: string, tally = 't'): string {
    const t = f.type;
    if (t.kind === 'array') return `_size${s.localName}_${f.name}(${x}, v${this.recordsStructs.has(s) ? `, ${tally}` : ''})`;
    if (t.kind === 'struct') {
      const call = `_size${t.struct.localName}(${x}, v${this.recordsStructs.has(t.struct) ? `, ${tally}` : ''})`;
      return nullable ? `(${x} === null ? 1 : 1 + ${call})` : call;
    }
    return this.sizePrimitive(t.name, flex, x, tally);
  }

  /**
   * A statement refusing a value the integer type cannot hold (or a non-integer): TypeScript's
   * `number` does not say int16 from int32, so the size pass checks, and encoding never writes
   * a truncated or wrapped value.
   */
  private rangeCheck(p: Primitive, x: string, specName: string): string {
    let bad: string;
    switch (p) {
      case 'int8':
        bad = `((${x} << 24) >> 24) !== ${x}`;
        break;
      case 'int16':
        bad = `((${x} << 16) >> 16) !== ${x}`;
        break;
      case 'uint16':
        bad = `(${x} & 0xffff) !== ${x}`;
        break;
      case 'int32':
        bad = `(${x} | 0) !== ${x}`;
        break;
      case 'uint32':
        bad = `${x} >>> 0 !== ${x}`;
        break;
      case 'int64':
        bad = `typeof ${x} !== 'bigint' || ${x} < ${this.use('INT64_MIN')} || ${x} > ${this.use('INT64_MAX')}`;
        break;
      default:
        return '';
    }
    return `if (${bad}) throw ${this.use('badInteger')}(${JSON.stringify(specName)}, '${p}', ${x});`;
  }

  private nullCheck(f: FieldSpec, x: string): string {
    return `if (${x} === null) throw new ${this.use('EncodeError')}(\`non-nullable field ${f.specName} was null at version \${v}\`);`;
  }

  private emitArraySizer(f: FieldSpec, s: StructSpec): void {
    if (f.type.kind !== 'array') return;
    const el = f.type.element;
    const fv = this.fieldVersions(f, s);
    const c = this.code;
    const tally = this.recordsStructs.has(s) ? `, t: ${this.use('SizeTally')}` : '';
    c.open(`function _size${s.localName}_${f.name}(a: ${this.tsType(f.type)} | null, v: number${tally}): number {`);
    const bounds = this.boundaries(f);
    c.line(
      `if (a === null) return ${branchExpr(fv, bounds, (v) => {
        const m = this.mode(f, v);
        return m.kind === 'tagged' || (m.kind === 'regular' && m.flexible) ? '1' : '4';
      })};`,
    );
    c.line(
      `let n = ${branchExpr(fv, bounds, (v) => {
        const m = this.mode(f, v);
        return m.kind === 'tagged' || (m.kind === 'regular' && m.flexible) ? `${this.use('sizeOfUvarint')}(a.length + 1)` : '4';
      })};`,
    );
    if (el.kind === 'struct') {
      c.line(`for (let i = 0; i < a.length; i++) n += _size${el.struct.localName}(a[i], v${this.tallyArg(el.struct)});`);
    } else if (el.kind === 'primitive') {
      const fixed = this.sizePrimitive(el.name, false, 'x', 't');
      const check = this.rangeCheck(el.name, 'a[i]', f.specName);
      if (check) c.line(`for (let i = 0; i < a.length; i++) ${check}`);
      if (/^\d+$/.test(fixed)) {
        c.line(`n += a.length * ${fixed};`);
      } else {
        const expr = branchExpr(fv, bounds, (v) => {
          const m = this.mode(f, v);
          const flex = m.kind === 'tagged' || (m.kind === 'regular' && m.flexible);
          return this.sizePrimitive(el.name, flex, 'a[i]', 't');
        });
        c.line(`for (let i = 0; i < a.length; i++) n += ${expr};`);
      }
    }
    c.line('return n;');
    c.close();
    c.line();
  }

  private emitSizer(s: StructSpec): void {
    const c = this.code;
    const tally = this.recordsStructs.has(s) ? `, t: ${this.use('SizeTally')}` : '';
    c.open(`function _size${s.localName}(m: ${s.tsName}, v: number${tally}): number {`);
    c.line('let n = 0;');
    for (const f of s.fields) {
      const x = `m.${f.name}`;
      branchStmts(c, s.versions, this.boundaries(f), (v) => {
        const mode = this.mode(f, v);
        if (mode.kind === 'tagged') return '';
        if (mode.kind === 'absent') {
          if (f.ignorable) return '';
          return `if (${this.nonDefault(f, x)}) throw new ${this.use('UnsupportedVersionError')}(\`Attempted to write a non-default ${f.specName} at version \${v}\`);`;
        }
        const lines: string[] = [];
        const mayBeNullInTs = this.canBeNull(f) || f.defaultText === 'null';
        if (mayBeNullInTs && !mode.nullable) lines.push(this.nullCheck(f, x));
        if (f.type.kind === 'primitive') {
          const check = this.rangeCheck(f.type.name, x, f.specName);
          if (check) lines.push(check);
        }
        lines.push(`n += ${this.sizeValue(f, s, mode.flexible, mode.nullable, x)};`);
        return lines.join('\n');
      });
    }
    this.emitTagSection(s, 'size');
    c.line('return n;');
    c.close();
    c.line();
  }

  /** The tagged-field section: sized in `size`, written in `write`. */
  private emitTagSection(s: StructSpec, phase: 'size' | 'write'): void {
    const c = this.code;
    const flexInStruct = this.flexible.intersect(s.versions);
    const tagged = s.fields.filter((f) => f.tag !== undefined).sort((a, b) => a.tag! - b.tag!);
    const nonFlex = s.versions.lo < flexInStruct.lo || flexInStruct.isEmpty();
    if (phase === 'size' && nonFlex && !flexInStruct.isEmpty()) {
      const cond = flexInStruct.isEmpty() ? '' : ` && v < ${flexInStruct.lo}`;
      c.line(
        `if (m.unknownTaggedFields !== undefined && m.unknownTaggedFields.length > 0${cond}) throw new ${this.use('UnsupportedVersionError')}(\`Tagged fields were set, but version \${v} of ${this.msg.name} does not support them.\`);`,
      );
    }
    if (flexInStruct.isEmpty()) return;
    const cond = flexInStruct.containsAll(s.versions) ? '' : `v >= ${flexInStruct.lo}`;
    if (cond) c.open(`if (${cond}) {`);
    // Known tags present at this version with a non-default value, in ascending tag order,
    // merged with the unknown tags kept from decoding (Kafka's RawTaggedFieldWriter).
    c.line('const unknown = m.unknownTaggedFields;');
    if (tagged.length === 0) {
      if (phase === 'size') c.line(`n += ${this.use('sizeOfTagSection')}(0, unknown, ${this.use('NO_KNOWN_TAGS')});`);
      else {
        c.line('w.uvarint(unknown === undefined ? 0 : unknown.length);');
        c.line(`${this.use('writeUnknownTags')}(w, unknown, -1, Infinity);`);
      }
      if (cond) c.close();
      return;
    }
    const present = (f: FieldSpec) => {
      const nd = this.nonDefault(f, `m.${f.name}`);
      return f.taggedVersions.containsAll(flexInStruct) ? nd : `v >= ${f.taggedVersions.lo} && ${nd}`;
    };
    if (phase === 'size') {
      c.line('let known = 0;');
      c.line('let body = 0;');
      for (const f of tagged) {
        c.open(`if (${present(f)}) {`);
        if (f.type.kind === 'primitive') {
          const check = this.rangeCheck(f.type.name, `m.${f.name}`, f.specName);
          if (check) c.line(check);
        }
        c.line('known++;');
        c.line(`const sz = ${this.sizeValue(f, s, true, !f.nullableVersions.intersect(f.taggedVersions).isEmpty(), `m.${f.name}`)};`);
        c.line(`body += ${this.use('sizeOfUvarint')}(${f.tag}) + ${this.use('sizeOfUvarint')}(sz) + sz;`);
        c.close();
      }
      c.line(`n += ${this.use('sizeOfTagSection')}(known, unknown, [${tagged.map((f) => f.tag).join(', ')}]) + body;`);
    } else {
      c.line('let known = 0;');
      for (const f of tagged) c.line(`if (${present(f)}) known++;`);
      c.line(`w.uvarint(known + (unknown === undefined ? 0 : unknown.length));`);
      let prev = -1;
      for (const f of tagged) {
        c.line(`${this.use('writeUnknownTags')}(w, unknown, ${prev}, ${f.tag});`);
        c.open(`if (${present(f)}) {`);
        const nullable = !f.nullableVersions.intersect(f.taggedVersions).isEmpty();
        c.line(`w.uvarint(${f.tag});`);
        c.line(`w.uvarint(${this.sizeValue(f, s, true, nullable, `m.${f.name}`, '{ zeroCopy: 0 }')});`);
        for (const l of this.writeValue(f, s, true, nullable, `m.${f.name}`).split('\n')) c.line(l);
        c.close();
        prev = f.tag!;
      }
      c.line(`${this.use('writeUnknownTags')}(w, unknown, ${prev}, Infinity);`);
    }
    if (cond) c.close();
  }

  // ---- writing -----------------------------------------------------------------------------------

  private writePrimitive(p: Primitive, flex: boolean, x: string): string {
    switch (p) {
      case 'string':
        return flex ? `w.compactString(${x});` : `w.string(${x});`;
      case 'bytes':
        return flex ? `w.compactBytes(${x});` : `w.bytes(${x});`;
      case 'records':
        return flex ? `w.compactRecords(${x});` : `w.records(${x});`;
      default:
        return `w.${p}(${x});`;
    }
  }

  private writeValue(f: FieldSpec, s: StructSpec, flex: boolean, nullable: boolean, x: string): string {
    const t = f.type;
    if (t.kind === 'array') return `_write${s.localName}_${f.name}(w, ${x}, v);`;
    if (t.kind === 'struct') {
      const call = `_write${t.struct.localName}(w, ${x}, v);`;
      if (!nullable) return call;
      return `if (${x} === null) {\n  w.int8(-1);\n} else {\n  w.int8(1);\n  ${call}\n}`;
    }
    return this.writePrimitive(t.name, flex, x);
  }

  private emitArrayWriter(f: FieldSpec, s: StructSpec): void {
    if (f.type.kind !== 'array') return;
    const el = f.type.element;
    const fv = this.fieldVersions(f, s);
    const c = this.code;
    const bounds = this.boundaries(f);
    const isFlex = (v: number) => {
      const m = this.mode(f, v);
      return m.kind === 'tagged' || (m.kind === 'regular' && m.flexible);
    };
    c.open(`function _write${s.localName}_${f.name}(w: ${this.use('Writer')}, a: ${this.tsType(f.type)} | null, v: number): void {`);
    c.open('if (a === null) {');
    branchStmts(c, fv, bounds, (v) => (isFlex(v) ? 'w.uvarint(0);' : 'w.int32(-1);'));
    c.line('return;');
    c.close();
    branchStmts(c, fv, bounds, (v) => (isFlex(v) ? 'w.uvarint(a.length + 1);' : 'w.int32(a.length);'));
    if (el.kind === 'struct') {
      c.line(`for (let i = 0; i < a.length; i++) _write${el.struct.localName}(w, a[i], v);`);
    } else if (el.kind === 'primitive') {
      c.open('for (let i = 0; i < a.length; i++) {');
      branchStmts(c, fv, bounds, (v) => this.writePrimitive(el.name, isFlex(v), 'a[i]'));
      c.close();
    }
    c.close();
    c.line();
  }

  private emitWriter(s: StructSpec): void {
    const c = this.code;
    c.open(`function _write${s.localName}(w: ${this.use('Writer')}, m: ${s.tsName}, v: number): void {`);
    for (const f of s.fields) {
      branchStmts(c, s.versions, this.boundaries(f), (v) => {
        const mode = this.mode(f, v);
        if (mode.kind !== 'regular') return '';
        return this.writeValue(f, s, mode.flexible, mode.nullable, `m.${f.name}`);
      });
    }
    this.emitTagSection(s, 'write');
    c.close();
    c.line();
  }

  // ---- types, defaults, schema -------------------------------------------------------------------

  private emitInterface(s: StructSpec): void {
    const c = this.code;
    if (s.specName !== s.localName) c.line(`/** ${s.specName} in the spec. */`);
    c.open(`export interface ${s.localName} {`);
    for (const f of s.fields) {
      const notes: string[] = [];
      if (f.about) notes.push(f.about.trim());
      notes.push(
        `Versions ${f.versions.intersect(s.versions)}` +
          (f.nullableVersions.isEmpty() ? '' : `, nullable ${f.nullableVersions}`) +
          (f.tag === undefined ? '' : `, tag ${f.tag} in ${f.taggedVersions}`) +
          (f.defaultText === undefined ? '' : `, default ${f.defaultText}`) +
          (f.ignorable ? ', ignorable' : '') +
          '.',
      );
      c.line(`/** ${notes.join(' ').replace(/\*\//g, '* /')} */`);
      c.line(`${f.name}: ${this.fieldTsType(f)};`);
    }
    if (!this.flexible.intersect(s.versions).isEmpty()) {
      c.line('/** Tagged fields this codec does not know, kept from decoding and written back unchanged. */');
      c.line(`unknownTaggedFields?: ${this.use('TaggedField')}[];`);
    }
    c.close();
    c.line();
  }

  private emitCreate(s: StructSpec): void {
    const c = this.code;
    c.line(`/** A ${s.tsName} with every field at its default, overridden by \`init\`. */`);
    c.open(`export function create${s.localName}(init?: Partial<${s.tsName}>): ${s.tsName} {`);
    c.open(`const m: ${s.tsName} = {`);
    for (const f of s.fields) c.line(`${f.name}: ${this.defaultExpr(f)},`);
    c.close('};');
    c.line('return init === undefined ? m : Object.assign(m, init);');
    c.close();
    c.line();
  }

  private emitIsDefault(s: StructSpec): void {
    const c = this.code;
    if (this.needsIsDefault.has(s)) {
      c.open(`function isDefault${s.localName}(m: ${s.tsName}): boolean {`);
      const conds = s.fields.map((f) => `!(${this.nonDefault(f, `m.${f.name}`)})`);
      if (!this.flexible.intersect(s.versions).isEmpty()) conds.push('(m.unknownTaggedFields === undefined || m.unknownTaggedFields.length === 0)');
      c.line(`return ${conds.length ? conds.join(' && ') : 'true'};`);
      c.close();
      c.line();
    }
  }

  private fieldSchema(f: FieldSpec, s: StructSpec, insideNamespace: boolean): string {
    const t = f.type;
    const base = t.kind === 'array' ? t.element : t;
    const typeName = base.kind === 'struct' ? 'struct' : base.kind === 'primitive' ? base.name : 'never';
    const range = (x: Versions) => (x.isEmpty() ? 'null' : `[${x.lo}, ${x.hi}]`);
    const parts = [
      `name: ${JSON.stringify(f.name)}`,
      `specName: ${JSON.stringify(f.specName)}`,
      `type: ${JSON.stringify(typeName)}`,
      `array: ${t.kind === 'array'}`,
      `versions: ${range(f.versions.intersect(s.versions))}`,
      `nullableVersions: ${range(f.nullableVersions)}`,
      `taggedVersions: ${range(f.taggedVersions)}`,
    ];
    if (f.tag !== undefined) parts.push(`tag: ${f.tag}`);
    if (f.flexibleVersions !== undefined) parts.push(`flexibleVersions: ${range(f.flexibleVersions)}`);
    if (f.ignorable) parts.push('ignorable: true');
    if (base.kind === 'struct') parts.push(`struct: ${this.schemaRef(base.struct, insideNamespace)}`);
    return `{ ${parts.join(', ')} }`;
  }

  /** The schemas of `structs`, children first so that every reference is declared before use. */
  private emitSchemas(structs: StructSpec[], insideNamespace: boolean): void {
    const c = this.code;
    const schemaType = this.use('StructSchema');
    for (const s of [...structs].reverse()) {
      c.open(`export const ${s.localName}Schema: ${schemaType} = {`);
      c.line(`name: ${JSON.stringify(s.tsName)},`);
      c.line(`create: ${this.createRef(s, insideNamespace)},`);
      c.open('fields: [');
      for (const f of s.fields) c.line(this.fieldSchema(f, s, insideNamespace) + ',');
      c.close('],');
      c.close('};');
      c.line();
    }
  }

  // ---- the message ---------------------------------------------------------------------------------

  emit(sourceFile: string): string {
    const msg = this.msg;
    const top = msg.struct;
    const c = this.code;
    const nested = msg.structs.filter((s) => s !== top);
    this.emitInterface(top);
    if (nested.length > 0) {
      // The nested structs' types, create functions and schemas, in the message's namespace.
      c.open(`export namespace ${msg.name} {`);
      for (const s of nested) this.emitInterface(s);
      for (const s of nested) this.emitCreate(s);
      this.emitSchemas(nested, true);
      c.trimBlank().close();
      c.line();
    }
    this.emitCreate(top);
    for (const s of msg.structs) this.emitIsDefault(s);
    for (const s of msg.structs) {
      for (const f of s.fields) this.emitArrayReader(f, s);
      this.emitReader(s);
    }
    for (const s of msg.structs) {
      for (const f of s.fields) this.emitArraySizer(f, s);
      this.emitSizer(s);
    }
    for (const s of msg.structs) {
      for (const f of s.fields) this.emitArrayWriter(f, s);
      this.emitWriter(s);
    }
    this.emitSchemas([top], false);

    const n = msg.name;
    const lo = msg.validVersions.lo;
    const hi = msg.validVersions.hi;
    const flexFrom = msg.flexibleVersions.isEmpty() ? -1 : msg.flexibleVersions.lo;
    const hasTally = this.recordsStructs.has(top);
    const key = msg.apiKey === undefined ? 'undefined' : String(msg.apiKey);
    const uve = this.use('UnsupportedVersionError');
    c.open(`function check${n}Version(version: number, op: string): void {`);
    c.line(`if (!Number.isInteger(version) || version < ${lo} || version > ${hi}) throw new ${uve}(\`Can't \${op} version \${version} of ${n} (valid: ${lo}-${hi})\`);`);
    c.close();
    c.line();
    c.line(`/** Decodes a ${n} body at \`version\`. Throws DecodeError on bad bytes. */`);
    c.open(`export function decode${n}(input: Buffer | ${this.use('Reader')}, version: number): ${n} {`);
    c.line(`check${n}Version(version, 'read');`);
    c.line('const r = Buffer.isBuffer(input) ? new Reader(input) : input;');
    c.line('const start = r.pos;');
    c.open('try {');
    c.line(`return _read${n}(r, version);`);
    c.close('} catch (e) {');
    c.line('  // Only failures pay for locating the field: the bytes are replayed against the schema.');
    c.line(`  throw ${this.use('locateDecodeError')}(e, ${n}Schema, r.buf, start, r.end, version, ${flexFrom}, ${JSON.stringify(n)}, ${key});`);
    c.line('}');
    c.close();
    c.line();
    c.line(`/** Bytes of a ${n} body at \`version\`; records bytes are also added to \`tally.zeroCopy\`. */`);
    c.open(`export function size${n}(m: ${n}, version: number, tally: ${this.use('SizeTally')} = { zeroCopy: 0 }): number {`);
    c.line(`check${n}Version(version, 'write');`);
    c.line(`return _size${n}(m, version${hasTally ? ', tally' : ''});`);
    c.close();
    c.line();
    c.line(`/** Writes a ${n} body; \`size${n}\` must have been called first (it checks the values). */`);
    c.open(`export function write${n}(w: ${this.use('Writer')}, m: ${n}, version: number): void {`);
    c.line(`_write${n}(w, m, version);`);
    c.close();
    c.line();
    c.line(`/** Encodes a ${n} body at \`version\` into one exactly sized buffer. */`);
    c.open(`export function encode${n}(m: ${n}, version: number): Buffer {`);
    c.line('const tally = { zeroCopy: 0 };');
    c.line(`const w = new Writer(size${n}(m, version, tally) - tally.zeroCopy);`);
    c.line(`write${n}(w, m, version);`);
    c.line('return w.finish();');
    c.close();
    c.line();
    c.open(`export const ${n}Codec: ${this.use('MessageCodec')}<${n}> = {`);
    c.line(`name: ${JSON.stringify(n)},`);
    c.line(`apiKey: ${key},`);
    c.line(`validVersions: [${lo}, ${hi}],`);
    c.line(`deprecatedVersions: ${msg.deprecatedVersions.isEmpty() ? 'null' : `[${msg.deprecatedVersions.lo}, ${msg.deprecatedVersions.hi}]`},`);
    c.line(`flexibleFrom: ${flexFrom},`);
    c.line(`schema: ${n}Schema,`);
    c.line(`create: create${n},`);
    c.line(`decode: decode${n},`);
    c.line(`size: size${n},`);
    c.line(`write: write${n},`);
    c.line(`encode: encode${n},`);
    c.close('};');

    this.use('Writer');
    let body = c.toString();
    const header = [
      '// Generated by kmock\'s generator (src/codec/generator) from',
      `// schemas/${sourceFile}. Do not edit: change the schema or the generator, then run \`npm run generate\`.`,
      '/* eslint-disable */',
      `import { ${[...this.imports].sort().join(', ')} } from '../primitives/index.js';`,
      '',
    ];
    return header.join('\n') + body + '\n';
  }
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function parseIntDefault(d: string): number {
  const neg = d.startsWith('-');
  const t = neg ? d.slice(1) : d;
  const n = t.startsWith('0x') || t.startsWith('0X') ? parseInt(t.slice(2), 16) : Number(t);
  if (!Number.isFinite(n)) throw new Error(`bad default ${d}`);
  return neg ? -n : n;
}
