// The tables of what kmock serves (README.md's by area, docs/supported.md's per API key) are
// generated from the handler list by scripts/supported-table.ts: this fails when a committed table
// differs from a fresh generation (a handler added or its versions changed, an API key leaving the
// not-yet-served list), and checks the generation against its sources.
import { describe, expect, it } from 'vitest';
import { HANDLERS } from '../../src/broker/handlers/index.js';
import { NOT_YET_SERVED_API_KEYS } from '../conformance/causes.js';
import { apiRows, BEGIN, END, generated, KAFKA_391_API_KEYS, readmeTable, withTable } from '../../scripts/supported-table.js';

describe('the supported-API tables', () => {
  for (const { file, current, fresh } of generated()) {
    it(`${file} holds a fresh generation (else: npx tsx scripts/supported-table.ts)`, () => {
      expect(current.includes(BEGIN) && current.includes(END)).toBe(true);
      expect(current).toBe(fresh);
    });
  }

  it('has one row per API key of Kafka 3.9.1: every handler with its versions, every missing key with its issue', () => {
    const rows = apiRows();
    expect(rows).toHaveLength(KAFKA_391_API_KEYS);
    expect(new Set(rows.map((r) => r.key)).size).toBe(KAFKA_391_API_KEYS);
    for (const h of HANDLERS) {
      const r = rows.find((x) => x.key === h.apiKey)!;
      expect(r.versions).toBe(h.minVersion === h.maxVersion ? `${h.minVersion}` : `${h.minVersion}–${h.maxVersion}`);
    }
    for (const n of NOT_YET_SERVED_API_KEYS) {
      const r = rows.find((x) => x.key === n.key)!;
      expect([r.versions, r.issue]).toEqual([null, n.issue]);
    }
  });

  it('a hand-edited table differs from the generation, which restores it', () => {
    const { current, fresh } = generated()[0]!;
    const drifted = current.replace(/Produce 0–\d+/, 'Produce 0–99');
    expect(drifted).not.toBe(fresh);
    expect(withTable(drifted, readmeTable(), 'README.md')).toBe(fresh);
    expect(() => withTable('no markers', 'x', 'README.md')).toThrow(/markers/);
  });
});
