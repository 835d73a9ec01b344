// The generator: a fresh run equals the committed src/codec/generated/ (the drift check), and
// spec validation refuses what Kafka's own generator refuses, naming the file and the field.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/codec/generator/main.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SCHEMAS = join(ROOT, 'schemas');
const COMMITTED = join(ROOT, 'src/codec/generated');

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kmock-gen-'));
  temps.push(d);
  return d;
}
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('generated code is up to date', () => {
  it('generate() into a temp dir equals src/codec/generated/ file for file', () => {
    const out = tempDir();
    const { written, removed } = generate(SCHEMAS, out);
    expect(removed).toEqual([]);
    const fresh = readdirSync(out).sort();
    const committed = readdirSync(COMMITTED).sort();
    expect(fresh.length).toBeGreaterThan(50);
    expect(written.sort()).toEqual(fresh);
    const hint = 'src/codec/generated/ is out of date with schemas/ or the generator: run npm run generate';
    expect(committed, `${hint} (file list differs)`).toEqual(fresh);
    const stale = fresh.filter((f) => readFileSync(join(out, f), 'utf8') !== readFileSync(join(COMMITTED, f), 'utf8'));
    expect(stale, `${hint} (files differ: ${stale.join(', ')})`).toEqual([]);
  });

  it('a second run writes nothing, and stale files are removed', () => {
    const out = tempDir();
    generate(SCHEMAS, out);
    writeFileSync(join(out, 'Stale.ts'), '// left over\n');
    const again = generate(SCHEMAS, out);
    expect(again.written).toEqual([]);
    expect(again.removed).toEqual(['Stale.ts']);
  });
});

// ---- spec validation on tiny temp specs ----------------------------------------------------------

type Json = Record<string, unknown>;

/** A valid little spec; each test below breaks one thing. */
function tinySpec(): Json {
  return {
    type: 'data',
    name: 'Tiny',
    validVersions: '0-3',
    flexibleVersions: '2+',
    fields: [
      { name: 'Count', type: 'int32', versions: '0+', about: 'A number.' },
      { name: 'Label', type: 'string', versions: '1+', nullableVersions: '1+', default: 'null', about: 'A label.' },
      {
        name: 'Items',
        type: '[]Item',
        versions: '0+',
        about: 'Nested.',
        fields: [
          { name: 'Id', type: 'int64', versions: '0+' },
          { name: 'Note', type: 'string', versions: '2+', taggedVersions: '2+', tag: 0, nullableVersions: '2+', default: 'null' },
        ],
      },
      { name: 'First', type: 'int32', versions: '2+', taggedVersions: '2+', tag: 0 },
      { name: 'Second', type: 'bool', versions: '2+', taggedVersions: '2+', tag: 1 },
    ],
  };
}

function field(spec: Json, name: string): Json {
  const fields = spec.fields as Json[];
  for (const f of fields) if (f.name === name) return f;
  for (const f of fields) {
    const inner = (f.fields as Json[] | undefined)?.find((x) => x.name === name);
    if (inner) return inner;
  }
  throw new Error(`no field ${name}`);
}

function generateOne(spec: Json, file = 'Tiny.json'): { out: string } {
  const dir = tempDir();
  const schemas = join(dir, 'schemas');
  const out = join(dir, 'out');
  mkdirSync(schemas);
  writeFileSync(join(schemas, file), JSON.stringify(spec, null, 2));
  generate(schemas, out);
  return { out };
}

function refusal(spec: Json, file = 'Tiny.json'): string {
  try {
    generateOne(spec, file);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the spec was accepted');
}

describe('spec validation', () => {
  it('the tiny spec itself is valid (control)', () => {
    const { out } = generateOne(tinySpec());
    expect(readdirSync(out).sort()).toEqual(['Tiny.ts', 'index.ts']);
    const code = readFileSync(join(out, 'Tiny.ts'), 'utf8');
    expect(code).toContain('export function decodeTiny(');
    expect(code).toContain('export const TinySchema');
  });

  it('an unknown key on a field', () => {
    const s = tinySpec();
    field(s, 'Count').bogus = true;
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('Count');
    expect(msg).toContain('unknown key "bogus"');
  });

  it('an unknown key on a nested field names its path', () => {
    const s = tinySpec();
    field(s, 'Id').mapkey = true; // misspelt mapKey
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toMatch(/Items\.Id/);
    expect(msg).toContain('unknown key "mapkey"');
  });

  it('an unknown key on the message', () => {
    const s = tinySpec();
    s.flexibleVersion = '2+';
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('unknown key "flexibleVersion"');
  });

  it('non-contiguous tags', () => {
    const s = tinySpec();
    field(s, 'Second').tag = 2;
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('Tiny');
    expect(msg).toMatch(/contiguous/);
    expect(msg).toMatch(/\b1\b/); // the missing tag
  });

  it('a duplicate tag', () => {
    const s = tinySpec();
    field(s, 'Second').tag = 0;
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toMatch(/duplicate tag 0/);
  });

  it('a closed flexibleVersions range', () => {
    const s = tinySpec();
    s.flexibleVersions = '2-3';
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('flexibleVersions');
  });

  it('a taggedVersions range that is not open-ended', () => {
    const s = tinySpec();
    field(s, 'First').taggedVersions = '2-3';
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('First');
    expect(msg).toContain('taggedVersions');
  });

  it('a tag without taggedVersions', () => {
    const s = tinySpec();
    delete field(s, 'First').taggedVersions;
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('First');
  });

  it('a null default on a field that is not nullable in every version it exists', () => {
    const s = tinySpec();
    field(s, 'Label').nullableVersions = '2+';
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('Label');
    expect(msg).toMatch(/null default/);
  });

  it('a nullable int', () => {
    const s = tinySpec();
    field(s, 'Count').nullableVersions = '0+';
    const msg = refusal(s);
    expect(msg).toContain('Tiny.json');
    expect(msg).toContain('Count');
    expect(msg).toMatch(/int32 cannot be nullable/);
  });

  it('an unknown type and a bad version range', () => {
    const s = tinySpec();
    field(s, 'Count').type = 'int33';
    expect(refusal(s)).toMatch(/Tiny\.json.*Count.*unknown type "int33"/);
    const t = tinySpec();
    field(t, 'Count').versions = '3-1';
    expect(refusal(t)).toMatch(/Tiny\.json.*Count.*versions/);
  });

  it('a file not named after its message', () => {
    expect(refusal(tinySpec(), 'Other.json')).toMatch(/Other\.json.*Tiny\.json/);
  });

  it('invalid JSON names the file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'Broken.json'), '{ "name": ');
    expect(() => generate(dir, join(dir, 'out'))).toThrow(/Broken\.json: invalid JSON/);
  });
});
