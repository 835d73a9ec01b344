// Every example in README.md and docs/*.md runs as written (conventions: examples.ts). The ts
// blocks are typechecked together with tsc --strict against the built package (`npm test` builds
// first), then each runs; the sh blocks run in bash against a real `kmock start`. A doc's relative
// links must point at files (and headings) that exist.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anchorOf,
  docFiles,
  extractBlocks,
  hasTool,
  isFragment,
  makeWorkspace,
  relativeLinks,
  ROOT,
  runnableBlocks,
  runnerOf,
  runSh,
  runTs,
  shScript,
  toolsOf,
  typecheck,
  type Block,
  type Workspace,
} from './examples.js';

const BUILT = existsSync(join(ROOT, 'dist', 'index.js')) && existsSync(join(ROOT, 'dist', 'codec', 'index.js'));
const CI = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
const blocks = runnableBlocks();
const RUN_TIMEOUT_MS = 90_000;

let ws: Workspace;
let typeErrors: Map<Block, string[]>;

describe.skipIf(!BUILT && !CI)('the examples of README.md and docs/ (needs dist/: npm run build)', () => {
  beforeAll(() => {
    expect(BUILT, 'dist/ is missing: npm run build (npm test builds first)').toBe(true);
    ws = makeWorkspace(blocks);
    typeErrors = typecheck(ws);
  }, 120_000);
  afterAll(() => {
    if (ws !== undefined) rmSync(ws.dir, { recursive: true, force: true });
  });

  it('no block is in a language that does not run (ts and sh do), and fragments stay few', () => {
    const all = docFiles().flatMap((doc) => extractBlocks(readFileSync(join(ROOT, doc), 'utf8'), doc));
    const unmarked = all.filter((b) => ['typescript', 'js', 'javascript', 'bash', 'shell', 'console'].includes(b.lang));
    expect(unmarked.map((b) => `${b.doc}:${b.line} (${b.lang}: write ts or sh, which run)`)).toEqual([]);
    expect(blocks.filter((b) => b.lang === 'ts').length).toBeGreaterThan(10);
    expect(all.filter(isFragment).length).toBeLessThan(blocks.length / 2);
  });

  for (const b of blocks.filter((x) => x.lang === 'ts')) {
    const runner = runnerOf(b);
    it(`${b.doc}:${b.line} (${runner === 'helper' ? 'helper: typechecks' : `typechecks, runs with ${runner}`})`, async () => {
      expect(typeErrors.get(b) ?? [], 'tsc --strict').toEqual([]);
      if (runner === 'helper') return;
      const r = await runTs(ws, b, RUN_TIMEOUT_MS);
      expect(r.timedOut, `timed out after ${RUN_TIMEOUT_MS} ms:\n${r.output}`).toBe(false);
      expect(r.code, r.output).toBe(0);
    }, RUN_TIMEOUT_MS + 10_000);
  }

  for (const b of blocks.filter((x) => x.lang === 'sh')) {
    const missing = toolsOf(b).filter((t) => !hasTool(t));
    // A developer's machine may lack kcat or curl; CI installs them, and there the block must run.
    it.skipIf(missing.length > 0 && !CI)(`${b.doc}:${b.line} (sh${missing.length > 0 ? `; needs ${missing.join(', ')}` : ''})`, async () => {
      const r = await runSh(ws, b, RUN_TIMEOUT_MS);
      expect(r.timedOut, `timed out after ${RUN_TIMEOUT_MS} ms:\n${r.output}`).toBe(false);
      expect(r.code, r.output).toBe(0);
    }, RUN_TIMEOUT_MS + 10_000);
  }
});

describe('the example conventions', () => {
  it('a sh block gets free ports and one background broker stopped with SIGINT', () => {
    const b: Block = { doc: 'x.md', line: 1, lang: 'sh', attrs: [], code: 'npx kmock start --admin-port 9093 &   # here\ncurl -s localhost:9093/groups\n' };
    const s = shScript(b, { broker: 40001, admin: 40002 });
    expect(s).toContain('\n__kmock_start --admin-port 40002 --port 40001\ncurl -s localhost:40002/groups\n');
    expect(s).toContain('kill -INT "$__kmock_pid"');
    const two: Block = { ...b, code: 'npx kmock start\nnpx kmock start --port 1\n' };
    expect(() => shScript(two, { broker: 1, admin: 2 })).toThrow(/more than one/);
  });

  it('blocks are found with their line, language and attributes', () => {
    const text = '# t\n\n```ts file=h.ts\nexport const a = 1;\n```\n\n````sh fragment\n```\n````\n';
    expect(extractBlocks(text, 'd.md')).toEqual([
      { doc: 'd.md', line: 3, lang: 'ts', attrs: ['file=h.ts'], code: 'export const a = 1;\n' },
      { doc: 'd.md', line: 7, lang: 'sh', attrs: ['fragment'], code: '```\n' },
    ]);
  });
});

describe('links in README.md and docs/', () => {
  for (const doc of docFiles()) {
    it(`${doc}: every relative link points at a file (and heading) that exists`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(ROOT, doc) : normalize(join(ROOT, dirname(doc), path));
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md')) {
          const headings = readFileSync(target, 'utf8')
            .split('\n')
            .filter((l) => /^#{1,6} /.test(l))
            .map((l) => anchorOf(l.replace(/^#+ /, '')));
          if (!headings.includes(anchor)) broken.push(`${link}: no heading #${anchor}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
