#!/usr/bin/env node
// The kmock command. `npm run build` bundles the CLI into one CommonJS file, dist/kmock.cjs
// (scripts/bundle.mjs); this compiles it with a V8 code cache, so a start does not parse and
// compile ~600 KB of JavaScript again. Without the bundle (only `tsc` has run) it imports the
// compiled modules, dist/cli/main.js.
//
// The code cache is V8's serialized bytecode of the functions the bundle has run. After a run
// without a usable one it is written (300 ms after start, or at exit if that comes first) as
// kmock.cjs.<node version>-<arch>.v8cache next to the bundle, or in ${XDG_CACHE_HOME:-~/.cache}/kmock
// when dist/ is not writable. Its header names the bundle's build id (V8 itself only compares the
// source's length); V8 rejects it after a Node upgrade or under other V8 flags. Either way it is
// rewritten. KMOCK_CACHE=DIR keeps it in DIR instead; KMOCK_CACHE=off neither reads nor writes one.
// With --enable-source-maps the bundle is require()d instead (no cache), so stack traces name src/.
//
// This file is CommonJS (bin/package.json): an ES module entry point costs Node ~12 ms more to
// start, and an ES import of node:fs would also load fs/promises and the fs streams.
'use strict';
const { createRequire } = require('node:module');
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

const BUILD_ID_MARK = '// kmock-build-id: ';

function run(main) {
  main(process.argv.slice(2)).then(
    (code) => { if (typeof code === 'number') process.exitCode = code; },
    (err) => { process.stderr.write(`kmock: ${err?.message ?? err}\n`); process.exitCode = 1; },
  );
}

/** mkdir -p for a few levels (fs.mkdirSync's recursive mode can spin forever, e.g. under /proc). */
function makeDir(dir, levels = 4) {
  try {
    mkdirSync(dir);
  } catch (e) {
    if (e?.code === 'EEXIST') return;
    if (e?.code !== 'ENOENT' || levels === 0 || dirname(dir) === dir) throw e;
    makeDir(dirname(dir), levels - 1);
    mkdirSync(dir);
  }
}

/** Compiles the bundle's source with the code cache (written after this run when missing or stale) and runs it. */
function loadWithCodeCache(bundle, source) {
  const { Script } = require('node:vm');
  const setting = process.env.KMOCK_CACHE ?? '';
  const at = source.lastIndexOf(BUILD_ID_MARK);
  const buildId = at < 0 ? '' : source.slice(at + BUILD_ID_MARK.length, at + BUILD_ID_MARK.length + 16);
  const useCache = /^[0-9a-f]{16}$/.test(buildId) && !/^(off|0|false|no)$/i.test(setting);
  const userCache = process.env.XDG_CACHE_HOME || (process.env.HOME ? join(process.env.HOME, '.cache') : process.env.LOCALAPPDATA);
  const dirs = setting !== '' ? [setting] : [dirname(bundle), ...(userCache ? [join(userCache, 'kmock')] : [])];
  const name = `kmock.cjs.${process.version}-${process.arch}.v8cache`;
  const header = `kmock-v8-cache 1 ${buildId} ${process.version} ${process.arch}\n`;

  let cachedData;
  if (useCache) {
    for (const dir of dirs) {
      try {
        const buf = readFileSync(join(dir, name));
        if (buf.length > header.length && buf.toString('latin1', 0, header.length) === header) {
          cachedData = buf.subarray(header.length);
          break;
        }
      } catch {
        // missing or unreadable: try the next place, else compile from source
      }
    }
  }

  // The CommonJS module wrapper, as Node's own loader applies it.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));

  if (useCache && (cachedData === undefined || script.cachedDataRejected === true)) {
    // Not now: a little later the cache also holds what start-up (and a first request) compiled.
    // Not much later: under load, V8 drops the bytecode of functions that have not run for a few
    // full GCs, and a cache without the start-up functions makes every later start slower.
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      try {
        const data = Buffer.concat([Buffer.from(header, 'latin1'), script.createCachedData()]);
        for (const dir of dirs) {
          const file = join(dir, name);
          const tmp = `${file}.${process.pid}.tmp`;
          try {
            if (dir !== dirname(bundle)) makeDir(dir);
            writeFileSync(tmp, data);
            renameSync(tmp, file); // atomic: a concurrent start reads the old file or the new one
            return;
          } catch {
            try { rmSync(tmp, { force: true }); } catch { /* nothing to clean up */ }
          }
        }
      } catch {
        // The cache only saves time: never fail (or change the exit code) over it.
      }
    };
    setTimeout(save, 300).unref();
    process.once('exit', save);
  }
  return module.exports;
}

const bundle = join(__dirname, '..', 'dist', 'kmock.cjs');
let source;
try {
  source = readFileSync(bundle, 'utf8');
} catch (e) {
  if (e?.code !== 'ENOENT') throw e;
}
if (source === undefined) {
  import(pathToFileURL(join(__dirname, '..', 'dist', 'cli', 'main.js')).href).then((m) => run(m.main));
} else if (process.sourceMapsEnabled ?? process.execArgv.includes('--enable-source-maps')) {
  run(require(bundle).main);
} else {
  run(loadWithCodeCache(bundle, source).main);
}
