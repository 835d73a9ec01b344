// The examples of README.md and docs/*.md, as test/docs/examples.test.ts runs them. The conventions
// a doc follows (write examples to them, and they are checked):
//
//   ```ts                 a program: typechecked with tsc --strict against the built package (its
//                         `kmock` and `kmock/codec` imports resolve to this repository's dist/, as
//                         after `npm install kmock`), then run: with vitest when it imports
//                         'vitest', with node --test when it imports 'node:test', else with tsx
//                         (`npx tsx example.ts`). It must exit 0; check claims with node:assert.
//   ```ts file=NAME.ts    a helper the doc tells the reader to save as NAME.ts: typechecked, not
//                         run; the doc's other examples import it as './NAME.js'.
//   ```sh                 a shell session: run by bash (set -eu) in an empty directory
//                         where `npx kmock` is this package's CLI, as in a project that depends on
//                         kmock. Two things differ from a terminal: the ports 9092 and 9093 are
//                         replaced by free ones (and KMOCK_ADMIN_URL set to match), and a
//                         `kmock start ...` line (at most one per block, `&` or not) starts the
//                         broker in the background, waits for its listening line (and its admin
//                         line with --admin-port), and the block's end stops it as Ctrl-C would
//                         (SIGINT), which must exit 0. Other background jobs are killed at the end.
//   ```ts fragment, ```sh fragment
//                         not run: a piece of a program, or a command a test cannot run (npm
//                         install, a benchmark, a JVM). Use sparingly: every other block runs.
//
// Only 127.0.0.1 is used: brokers, the admin API, and clients (kafkajs, kcat, curl) all local.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The documents whose examples run: the README and every page under docs/. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

export interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** Words after the language: `fragment`, `file=NAME.ts`. */
  attrs: string[];
  code: string;
}

/** Every fenced block of a markdown text (``` fences at the start of a line). */
export function extractBlocks(text: string, doc: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const [lang = '', ...attrs] = open[2]!.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) body.push(lines[j++]!);
    if (j >= lines.length) throw new Error(`${doc}:${i + 1}: code block never closed`);
    blocks.push({ doc, line: i + 1, lang, attrs, code: body.join('\n') + '\n' });
    i = j;
  }
  return blocks;
}

export const isFragment = (b: Block): boolean => b.attrs.includes('fragment');
export const helperName = (b: Block): string | undefined => b.attrs.find((a) => a.startsWith('file='))?.slice('file='.length);

export type Runner = 'helper' | 'vitest' | 'node-test' | 'tsx';

export function runnerOf(b: Block): Runner {
  if (helperName(b) !== undefined) return 'helper';
  if (/from 'vitest'/.test(b.code)) return 'vitest';
  if (/from 'node:test'/.test(b.code)) return 'node-test';
  return 'tsx';
}

/** The ts and sh blocks that run (every one not marked fragment). */
export function runnableBlocks(): Block[] {
  return docFiles().flatMap((doc) =>
    extractBlocks(readFileSync(join(ROOT, doc), 'utf8'), doc).filter((b) => (b.lang === 'ts' || b.lang === 'sh') && !isFragment(b)),
  );
}

// ---- the workspace: a project that depends on kmock -------------------------------------------------

export interface Workspace {
  dir: string;
  /** Where each ts block was written. */
  files: Map<Block, string>;
}

/** A directory slug for a doc: "README.md" → "README", "docs/policies.md" → "docs-policies". */
const slug = (doc: string): string => doc.replace(/\.md$/, '').replace(/\//g, '-');

/**
 * A scratch project inside the repository (under .cache/, which git ignores, so that the
 * repository's node_modules serve kafkajs, vitest and tsx), with node_modules/kmock standing for an
 * installed kmock: this package.json and links to dist/, bin/ and schemas/, and its bin linked as
 * node_modules/.bin/kmock. Each doc's ts blocks go in a directory of their own.
 */
export function makeWorkspace(blocks: Block[]): Workspace {
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.cache', 'docs-examples-'));
  const pkg = join(dir, 'node_modules', 'kmock');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  for (const d of ['dist', 'bin', 'schemas']) symlinkSync(join(ROOT, d), join(pkg, d));
  mkdirSync(join(dir, 'node_modules', '.bin'));
  symlinkSync('../kmock/bin/kmock.js', join(dir, 'node_modules', '.bin', 'kmock'));
  const files = new Map<Block, string>();
  for (const b of blocks.filter((x) => x.lang === 'ts')) {
    const docDir = join(dir, slug(b.doc));
    mkdirSync(docDir, { recursive: true });
    const runner = runnerOf(b);
    const name = helperName(b) ?? `example-${b.line}${runner === 'vitest' || runner === 'node-test' ? '.test' : ''}.ts`;
    const file = join(docDir, name);
    writeFileSync(file, b.code);
    files.set(b, file);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        types: ['node'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ['*/**/*.ts'],
    }),
  );
  writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['**/*.test.ts'], testTimeout: 60000 } };\n");
  return { dir, files };
}

/** tsc --strict over every ts block at once; the errors of each block, by the doc's line numbers. */
export function typecheck(ws: Workspace): Map<Block, string[]> {
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ws.dir, 'tsconfig.json'), '--pretty', 'false'], {
    encoding: 'utf8',
    cwd: ws.dir,
  });
  const out = `${tsc.stdout}${tsc.stderr}`;
  const errors = new Map<Block, string[]>();
  const byFile = new Map([...ws.files].map(([b, f]) => [relative(ws.dir, f), b] as const));
  const unplaced: string[] = [];
  for (const line of out.split('\n').filter(Boolean)) {
    const m = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
    const b = m ? byFile.get(m[1]!) : undefined;
    if (!m || b === undefined) {
      if (/error/.test(line)) unplaced.push(line);
      continue;
    }
    // The block's first code line is one below its fence.
    errors.set(b, [...(errors.get(b) ?? []), `${b.doc}:${b.line + Number(m[2])}:${m[3]}: ${m[4]}`]);
  }
  if (unplaced.length > 0 || (tsc.status !== 0 && errors.size === 0)) {
    throw new Error(`tsc failed outside the examples:\n${unplaced.join('\n') || out}`);
  }
  return errors;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

/** Runs a command in its own process group; on timeout the whole group is killed. */
export function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    p.stdout.on('data', (d) => (output += d));
    p.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, opts.timeoutMs);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}

/** Runs a ts block as its runner would. */
export function runTs(ws: Workspace, b: Block, timeoutMs: number): Promise<RunResult> {
  const file = ws.files.get(b)!;
  const cwd = join(file, '..');
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  switch (runnerOf(b)) {
    case 'vitest':
      return run(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(ws.dir, 'vitest.config.mjs'), '--root', cwd, relative(cwd, file)], {
        cwd,
        timeoutMs,
      });
    case 'node-test':
      return run(process.execPath, [tsx, '--test', file], { cwd, timeoutMs });
    case 'tsx':
      return run(process.execPath, [tsx, file], { cwd, timeoutMs });
    case 'helper':
      throw new Error('a helper does not run on its own');
  }
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const START = /^(\s*)(?:npx\s+)?kmock\s+start\b(.*?)\s*(?:&\s*)?(?:#.*)?$/;

/** The bash script a sh block runs as; throws when the block breaks the conventions above. */
export function shScript(b: Block, ports: { broker: number; admin: number }): string {
  const code = b.code.replace(/\b9092\b/g, String(ports.broker)).replace(/\b9093\b/g, String(ports.admin));
  let starts = 0;
  const lines = code.split('\n').map((line) => {
    const m = START.exec(line);
    if (!m) return line;
    if (++starts > 1) throw new Error(`${b.doc}:${b.line}: more than one \`kmock start\` in one block; give each its own block`);
    const args = m[2]!;
    const port = /(^|\s)--port\b/.test(args) ? '' : ` --port ${ports.broker}`;
    return `${m[1]}__kmock_start${args}${port}`;
  });
  const bin = join(ROOT, 'bin', 'kmock.js');
  return `set -eu
__kmock_pid=
__kmock_log="$PWD/.kmock-start.log"
__kmock_start() {
  node ${JSON.stringify(bin)} start "$@" > "$__kmock_log" 2>&1 &
  __kmock_pid=$!
  local admin=0
  case " $* " in *" --admin-port "*) admin=1 ;; esac
  for _ in $(seq 200); do
    if grep -q '^listening on ' "$__kmock_log" && { [ "$admin" = 0 ] || grep -q '^admin API on ' "$__kmock_log"; }; then return 0; fi
    if ! kill -0 "$__kmock_pid" 2>/dev/null; then echo "kmock start exited:" >&2; cat "$__kmock_log" >&2; return 1; fi
    sleep 0.1
  done
  echo "kmock start printed no listening line:" >&2; cat "$__kmock_log" >&2; return 1
}
__kmock_end() {
  local rc=$?
  for j in $(jobs -p); do [ "$j" = "$__kmock_pid" ] || kill "$j" 2>/dev/null || true; done
  if [ -n "$__kmock_pid" ]; then
    kill -INT "$__kmock_pid" 2>/dev/null || true
    if ! wait "$__kmock_pid"; then echo "kmock start did not exit 0 on SIGINT:" >&2; cat "$__kmock_log" >&2; rc=1; fi
  fi
  exit $rc
}
trap __kmock_end EXIT
${lines.join('\n')}`;
}

/** Commands a sh block needs beyond bash, node and npx. */
export function toolsOf(b: Block): string[] {
  return ['kcat', 'curl'].filter((t) => new RegExp(`(^|[\\s|;&(])${t}\\s`, 'm').test(b.code));
}

export const hasTool = (t: string): boolean => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0;

export async function runSh(ws: Workspace, b: Block, timeoutMs: number): Promise<RunResult> {
  const ports = { broker: await freePort(), admin: await freePort() };
  const cwd = join(ws.dir, `sh-${slug(b.doc)}-${b.line}`);
  mkdirSync(cwd);
  const script = shScript(b, ports);
  writeFileSync(join(cwd, '.example.sh'), script);
  const env = {
    ...process.env,
    PATH: `${join(ws.dir, 'node_modules', '.bin')}:${process.env.PATH}`,
    KMOCK_ADMIN_URL: `http://127.0.0.1:${ports.admin}`,
    // npx must find the installed kmock and never reach for a registry.
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  return run('bash', [join(cwd, '.example.sh')], { cwd, env, timeoutMs });
}

/** Relative links of a markdown text: [text](target), without http(s) and mailto. */
export function relativeLinks(text: string): string[] {
  const out: string[] = [];
  const noCode = text.replace(/^(`{3,}).*?^\1/gms, '').replace(/`[^`\n]*`/g, '');
  for (const m of noCode.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (!/^(https?:|mailto:)/.test(target)) out.push(target);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
