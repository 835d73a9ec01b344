// docs/control-plane.md is the admin API's reference: its route table names every route of
// adminRoutes() and every event stream, and nothing else; its `kmock admin` table names every
// command of the admin usage text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Broker } from '../../../src/broker/broker.js';
import { resolveConfig } from '../../../src/broker/config.js';
import { ControlPlane } from '../../../src/broker/control/model.js';
import { adminRoutes } from '../../../src/broker/control/http.js';
import { ADMIN_USAGE } from '../../../src/cli/admin.js';

const DOC = readFileSync(new URL('../../../docs/control-plane.md', import.meta.url), 'utf8');
/** The SSE streams, which http.ts serves before its route table (handle()). */
const STREAMS = ['GET /events', 'GET /strict-clients/events', 'GET /transactions/events'];

/** The section of the doc under a `## ` heading. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end < 0 ? undefined : end);
}

describe('docs/control-plane.md', () => {
  it('the route table lists exactly the routes of adminRoutes() and the event streams', () => {
    const broker = new Broker(resolveConfig({ port: 0, logLevel: 'silent' }));
    try {
      const routes = adminRoutes(new ControlPlane(broker)).map((r) => `${r.method} /${r.path.join('/')}`);
      const documented = [...section('Over HTTP').matchAll(/^\| `(GET|PUT|POST|DELETE) ([^`[]+)(?:\[[^\]]*\])?` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
      expect(new Set(documented).size, 'no route twice').toBe(documented.length);
      expect(documented.sort()).toEqual([...routes, ...STREAMS].sort());
    } finally {
      broker.shutdown();
    }
  });

  it('the kmock admin table names every command of the usage text', () => {
    const commands = [...ADMIN_USAGE.matchAll(/^ {2}([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/gm)].map((m) => m[1]!);
    expect(commands).toContain('transactions');
    const table = section('`kmock admin`');
    for (const c of new Set(commands)) expect(table, c).toMatch(new RegExp(`\\| \`${c}[ \`]|, \`${c}[ \`]`));
  });
});
