// kmock's message specs (schemas/) against Apache Kafka's own (common/message/*.json inside the
// kafka-clients jar of the release, fetched from Maven Central by scripts/kafka-reference and
// cached in ${KMOCK_CACHE:-~/.cache/kmock}; the coordinators' record schemas, OffsetCommitKey and
// the others, from the kafka-group-coordinator and kafka-transaction-coordinator jars of the
// release's libs). For every API and version kmock serves (the handler registry), and the headers,
// consumer-protocol structs and coordinator records: field order, names, types, versions,
// nullability, tagging, defaults, ignorable, mapKey, struct placement, validVersions and
// flexibleVersions must be Kafka 3.9's. Any difference fails, with a table naming file, field,
// property, versions, ours and Kafka's, unless schema-allowlist.ts keeps it with a reason.
//
// Kafka 4.x is compared too, for information: KIP-896 removed old versions and new versions were
// added, so its differences are listed ("known 4.x differences"), never failed on, except when
// the 3.9 jar cannot be had: then the newest 4.x is the reference, on the versions both define.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { HANDLERS } from '../../src/broker/handlers/index.js';
import { Versions } from '../../src/codec/generator/versions.js';
import { ALLOWED_DIFFERENCES, type AllowedDifference } from './schema-allowlist.js';
import {
  compareSpecs,
  differenceRows,
  formatVersions,
  metadataNotes,
  readSpecDir,
  table,
  type Difference,
  type RawSpec,
} from './schema-compare.js';
import { fetchReference, REFERENCE_4X_VERSIONS, REFERENCE_VERSION, referenceSpecs } from './support/reference.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const REPORT_DIR = join(process.env.KMOCK_CACHE ?? join(homedir(), '.cache', 'kmock'), 'conformance');

const ours = readSpecDir(SCHEMAS);

/** The versions kmock serves of each schema file: the handler's range; all of a non-API spec's. */
function servedVersions(spec: RawSpec): number[] {
  const out: number[] = [];
  if (spec.apiKey !== undefined) {
    const h = HANDLERS.find((x) => x.apiKey === spec.apiKey);
    if (h) for (let v = h.minVersion; v <= h.maxVersion; v++) out.push(v);
    return out;
  }
  const r = Versions.parse(spec.validVersions);
  for (let v = r.lo; v <= r.hi; v++) out.push(v);
  return out;
}

const served = new Map([...ours].map(([f, s]) => [f, servedVersions(s)]));

function title(name: string, reason: string | undefined): string {
  if (reason === undefined) return name;
  return `${name} (skipped: ${reason.length > 160 ? `${reason.slice(0, 157)}...` : reason})`;
}

function writeReport(name: string, text: string): void {
  try {
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(join(REPORT_DIR, name), text);
  } catch {
    // a report is a convenience; the test output carries the same text
  }
}

const HEADER = (kafka: string) => ['file', 'field', 'property', 'versions', 'ours', `Kafka ${kafka}`];

interface Classified {
  failing: Difference[];
  outside: Difference[];
  allowed: Array<{ d: Difference; reason: string }>;
}

/** Splits differences into those touching a served version (failing unless allowed) and the rest. */
function classify(diffs: Difference[], servedVs: number[], allow: AllowedDifference[], used: Set<AllowedDifference>): Classified {
  const out: Classified = { failing: [], outside: [], allowed: [] };
  for (const d of diffs) {
    const inServed = d.versions.length === 0 ? [] : d.versions.filter((v) => servedVs.includes(v));
    if (d.versions.length > 0 && inServed.length === 0) {
      out.outside.push(d);
      continue;
    }
    const shown = d.versions.length === 0 ? d : { ...d, versions: inServed };
    const a = allow.find((x) => x.file === d.file && x.path === d.path && x.property === d.property);
    if (a) {
      used.add(a);
      out.allowed.push({ d: shown, reason: a.reason });
    } else {
      out.failing.push(shown);
    }
  }
  return out;
}

/**
 * The specs a release keeps outside kafka-clients: common/message/*.json of its group and
 * transaction coordinator jars (OffsetCommitKey, GroupMetadataValue, TransactionLogValue...), read
 * from the libs next to `specsDir` when they are there, else (`fetch`) from the broker's jars
 * scripts/kafka-reference fetches. Empty when neither can be had.
 */
async function coordinatorSpecs(specsDir: string, version: string, fetch: boolean): Promise<Map<string, RawSpec>> {
  let libs = join(dirname(specsDir), 'libs');
  if (!existsSync(join(dirname(specsDir), 'libs.ok'))) {
    if (!fetch) return new Map();
    const fetched = await fetchReference(version);
    if (fetched.reason !== undefined) return new Map();
    libs = fetched.libs;
  }
  const out = new Map<string, RawSpec>();
  for (const jar of readdirSync(libs).filter((f) => /^kafka-(group|transaction)-coordinator-\d.*\.jar$/.test(f))) {
    const tmp = mkdtempSync(join(tmpdir(), 'kmock-specs-'));
    try {
      execFileSync('unzip', ['-q', '-o', join(libs, jar), 'common/message/*.json', '-d', tmp], { stdio: 'ignore' });
      for (const [file, spec] of readSpecDir(join(tmp, 'common', 'message'))) out.set(file, spec);
    } catch {
      // no unzip, or no specs in the jar: those files are reported missing
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return out;
}

/** kafka-clients' specs and the coordinators' (record schemas), by file name. */
async function allReferenceSpecs(dir: string, version: string, fetch: boolean): Promise<Map<string, RawSpec>> {
  if (!dir) return new Map();
  return new Map([...(await coordinatorSpecs(dir, version, fetch)), ...readSpecDir(dir)]);
}

const reference = await referenceSpecs(REFERENCE_VERSION);
const fourX: Array<{ version: string; specs: Awaited<ReturnType<typeof referenceSpecs>> }> = [];
for (const v of REFERENCE_4X_VERSIONS) fourX.push({ version: v, specs: await referenceSpecs(v) });
const referenceKafka = await allReferenceSpecs(reference.reason === undefined ? reference.dir : '', REFERENCE_VERSION, true);
const fourXKafka = new Map<string, Map<string, RawSpec>>();
for (const { version, specs } of fourX) fourXKafka.set(version, await allReferenceSpecs(specs.reason === undefined ? specs.dir : '', version, false));
/** Without 3.9, the newest 4.x obtainable is the reference (on the versions both define). */
const fallback = reference.reason === undefined ? undefined : [...fourX].reverse().find((x) => x.specs.reason === undefined);

describe('schema files', () => {
  test('every API kmock serves has its request and response spec in schemas/', () => {
    const missing: string[] = [];
    for (const h of HANDLERS) {
      for (const type of ['request', 'response']) {
        const found = [...ours.values()].some((s) => s.apiKey === h.apiKey && s.type === type);
        if (!found) missing.push(`apiKey ${h.apiKey} ${type}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the comparison itself (no Kafka needed)', () => {
  const base = ours.get('FetchRequest.json')!;
  const clone = (): RawSpec => JSON.parse(JSON.stringify(base)) as RawSpec;
  const field = (s: RawSpec, name: string) => s.fields.find((f) => f.name === name)!;
  const found = (k: RawSpec) =>
    compareSpecs('FetchRequest.json', base, k).map((d) => `${d.path} ${d.property} v${formatVersions(d.versions)} ${d.ours} | ${d.kafka}`);

  test('an identical spec has no difference; "-1" equals -1, "0x7fffffff" equals 2147483647, no default equals 0', () => {
    const k = clone();
    field(k, 'ReplicaId').default = -1;
    field(k, 'MaxBytes').default = 2147483647;
    field(k, 'MinBytes').default = '0';
    expect(found(k)).toEqual([]);
  });

  test('finds nullability, tagging, defaults, presence, order, flexibility and validVersions', () => {
    const k = clone();
    field(k, 'ClusterId').nullableVersions = '13+';
    const rack = field(k, 'RackId');
    rack.taggedVersions = '12+';
    rack.tag = 7;
    field(k, 'IsolationLevel').default = 1;
    field(k, 'MaxWaitMs').versions = '5+';
    const topics = field(k, 'Topics');
    topics.fields = [...topics.fields!.slice(1), topics.fields![0]];
    k.flexibleVersions = '13+';
    k.validVersions = '4-18';
    expect(found(k).sort()).toEqual(
      [
        '(message) flexibleVersions v12 12+ | 13+',
        '(message) validVersions v0-3, 18 0-17 | 4-18',
        'ClusterId nullable v12 yes | no',
        'IsolationLevel default v4-17 0 | 1',
        'MaxWaitMs present v4 yes (int32) | no',
        `RackId tag v12-17 (n/a) | 7`,
        'RackId tagged v12-17 no | yes',
        'Topics field order v4-12 Topic, Partitions | Partitions, Topic',
      ].sort(),
    );
  });
});

describe.skipIf(reference.reason !== undefined)(
  title(`schemas/ against Apache Kafka ${REFERENCE_VERSION}'s message specs`, reference.reason),
  () => {
    const dir = reference.reason === undefined ? reference.dir : '';
    const kafka = referenceKafka;
    const used = new Set<AllowedDifference>();
    const all: Classified = { failing: [], outside: [], allowed: [] };
    const notes: Difference[] = [];

    test.each([...ours.keys()])('%s', (file) => {
      const mine = ours.get(file)!;
      const theirs = kafka.get(file);
      expect(theirs, `Kafka ${REFERENCE_VERSION} has no common/message/${file}`).toBeDefined();
      const c = classify(compareSpecs(file, mine, theirs!), served.get(file)!, ALLOWED_DIFFERENCES, used);
      all.failing.push(...c.failing);
      all.outside.push(...c.outside);
      all.allowed.push(...c.allowed);
      notes.push(...metadataNotes(file, mine, theirs!));
      if (c.failing.length > 0) {
        expect.fail(
          `${file} differs from Kafka ${REFERENCE_VERSION} in versions kmock serves (v${formatVersions(served.get(file)!)}):\n` +
            table(HEADER(REFERENCE_VERSION), differenceRows(c.failing)),
        );
      }
    });

    test('allow-list entries all still match a difference; report', () => {
      const report = [
        `schemas/ against Apache Kafka ${REFERENCE_VERSION} (specs: ${dir})`,
        '',
        `Differences in versions kmock serves (failing): ${all.failing.length}`,
        table(HEADER(REFERENCE_VERSION), differenceRows(all.failing)),
        '',
        `Allowed differences (schema-allowlist.ts): ${all.allowed.length}`,
        table([...HEADER(REFERENCE_VERSION), 'reason'], all.allowed.map(({ d, reason }) => [...differenceRows([d])[0], reason])),
        '',
        `Differences only in versions kmock does not serve (not failing): ${all.outside.length}`,
        table(HEADER(REFERENCE_VERSION), differenceRows(all.outside)),
        '',
        `Metadata that does not change the wire (deprecatedVersions, latestVersionUnstable; not failing): ${notes.length}`,
        table(HEADER(REFERENCE_VERSION), differenceRows(notes)),
        '',
      ].join('\n');
      writeReport(`schema-${REFERENCE_VERSION}.txt`, report);
      console.log(report);
      const stale = ALLOWED_DIFFERENCES.filter((a) => !used.has(a));
      expect(stale, 'allow-list entries that match no difference: remove them').toEqual([]);
    });
  },
);

for (const { version, specs } of fourX) {
  const strict = fallback?.version === version;
  const name = strict
    ? `schemas/ against Apache Kafka ${version}, on the versions both define (${REFERENCE_VERSION} unavailable: ${reference.reason})`
    : `known 4.x differences: Apache Kafka ${version} (informational)`;
  describe.skipIf(specs.reason !== undefined)(title(name, specs.reason), () => {
    const dir = specs.reason === undefined ? specs.dir : '';
    const kafka = fourXKafka.get(version)!;

    test(strict ? 'no difference in versions kmock serves that Kafka still defines' : 'report', () => {
      const removed: string[][] = [];
      const added: string[][] = [];
      const changed: Difference[] = [];
      const missingFiles: string[] = [];
      for (const [file, mine] of ours) {
        const theirs = kafka.get(file);
        if (!theirs) {
          missingFiles.push(file);
          continue;
        }
        const servedVs = served.get(file)!;
        const ov = Versions.parse(mine.validVersions);
        const kv = Versions.parse(theirs.validVersions);
        const gone = servedVs.filter((v) => !kv.contains(v));
        if (gone.length > 0) removed.push([file, `v${formatVersions(gone)}`, mine.validVersions, theirs.validVersions]);
        const extra: number[] = [];
        for (let v = kv.lo; v <= kv.hi; v++) if (!ov.contains(v)) extra.push(v);
        if (extra.length > 0) {
          added.push([file, `v${formatVersions(extra)}`, mine.validVersions, theirs.validVersions, theirs.latestVersionUnstable ? 'latest unstable' : '']);
        }
        for (const d of compareSpecs(file, mine, theirs)) {
          if (d.property === 'validVersions') continue;
          const vs = d.versions.length === 0 ? [] : d.versions.filter((v) => servedVs.includes(v) && kv.contains(v));
          if (d.versions.length > 0 && vs.length === 0) continue;
          changed.push({ ...d, versions: vs });
        }
      }
      const report = [
        `schemas/ (as Kafka ${REFERENCE_VERSION}) against Apache Kafka ${version} (specs: ${dir})`,
        '',
        `Versions kmock serves that Kafka ${version} no longer defines (KIP-896 and later): ${removed.length} files`,
        table(['file', 'removed', 'ours validVersions', `Kafka ${version} validVersions`], removed),
        '',
        `Versions Kafka ${version} defines beyond ours: ${added.length} files`,
        table(['file', 'added', 'ours validVersions', `Kafka ${version} validVersions`, 'note'], added),
        '',
        `${strict ? 'Differences' : 'Known 4.x differences'} at versions kmock serves and Kafka ${version} defines: ${changed.length}`,
        table(HEADER(version), differenceRows(changed)),
        '',
        `Specs missing from Kafka ${version}: ${missingFiles.length ? missingFiles.join(', ') : '(none)'}`,
        '',
      ].join('\n');
      writeReport(`schema-${version}.txt`, report);
      console.log(report);
      if (strict) {
        expect(missingFiles, `specs missing from Kafka ${version}`).toEqual([]);
        if (changed.length > 0) expect.fail(`schemas/ differ from Kafka ${version}:\n${table(HEADER(version), differenceRows(changed))}`);
      }
    });
  });
}
