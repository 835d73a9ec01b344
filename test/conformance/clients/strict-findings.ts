// The client matrix's "strict-clients findings" section: kmock plays every app in strict-clients
// mode (docs/strict-clients.md), and what each client family did that a correct client does not
// is listed per app: kind, count and the first example. Findings are facts about the clients,
// not failures of kmock: they never fail the matrix.
import type { FindingsSummary } from '../../../src/broker/strict/findings.js';
import type { ClientApp } from './apps.js';

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The section's lines (none when no run carried findings, i.e. kmock was not in strict mode). */
export function renderStrictFindings(runs: ReadonlyArray<{ app: ClientApp; strictClients?: FindingsSummary }>): string[] {
  const strict = runs.filter((r) => r.strictClients !== undefined);
  if (strict.length === 0) return [];
  const out = ['### Strict-clients findings', ''];
  out.push(
    'kmock played every app in strict-clients mode (docs/strict-clients.md): it answers as Kafka does and records what a correct client does not do. ' +
      'These are facts about the clients (and the driver\'s own raw requests, client id `kmock-raw-client`), not differences: they never fail the matrix.',
  );
  out.push('');
  out.push('| client | kind | count | first example |');
  out.push('|---|---|---|---|');
  for (const r of strict) {
    const kinds = r.strictClients!.kinds;
    if (kinds.length === 0) {
      out.push(`| ${esc(r.app.label)} | none | 0 | |`);
      continue;
    }
    for (const k of kinds) {
      const f = k.first;
      const who = `${f.api} v${f.apiVersion}, correlation id ${f.correlationId}, client id ${f.clientId === null ? 'null' : `\`${esc(f.clientId)}\``}`;
      out.push(`| ${esc(r.app.label)} | \`${k.kind}\` | ${k.count} | ${who}: ${esc(f.detail)} |`);
    }
  }
  out.push('');
  return out;
}
