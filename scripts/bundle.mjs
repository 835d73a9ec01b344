// Bundles the CLI (dist/cli/main.js and everything it imports) into one CommonJS file,
// dist/kmock.cjs, which bin/kmock.js compiles with a V8 code cache (see bin/kmock.js). One file so
// `kmock start` does not resolve and load hundreds of small modules at start-up; CommonJS because
// only a classic script can be compiled from (and into) a code cache on Node 20.
//
// What start-up does not need is bound lazily in the bundle:
// - pino: its default export is replaced by a stand-in that loads the real pino (bundled, with
//   sonic-boom, thread-stream and the node:assert, node:worker_threads and node:os they require)
//   on the first call. `kmock start --log-level silent` never calls it (src/cli/logger.ts).
// - node:crypto: kmock calls randomBytes/randomUUID only when a topic or a group member is
//   created, so the module is required on the first call of one of its functions.
// - node:http: src/broker/server.ts imports the admin API only when --admin-port is given.
// Native and WASM packages stay external (they load their own binaries, lazily, on first use).
//
// The bundle ends with a build id (a hash of its text) that keys the code cache, since V8 itself
// only compares the source's length.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const requireHere = createRequire(import.meta.url);
const OUT = 'dist/kmock.cjs';
const BUILD_ID_MARK = '// kmock-build-id: ';
const BUILD_ID_PLACEHOLDER = '0'.repeat(16);

/** `import x from PKG` gets a function that forwards calls and static properties to the real default export, required on first use. */
function lazyDefaultExport(pkg) {
  const statics = Object.keys(requireHere(pkg)).filter((k) => k !== 'default');
  return {
    name: `lazy-default:${pkg}`,
    setup(b) {
      // Only ES imports (kmock's own modules): a dependency's require() gets the real package.
      b.onResolve({ filter: new RegExp(`^${pkg}$`) }, (args) =>
        args.kind === 'import-statement' && args.namespace !== 'kmock-lazy' ? { path: pkg, namespace: 'kmock-lazy' } : undefined,
      );
      b.onLoad({ filter: new RegExp(`^${pkg}$`), namespace: 'kmock-lazy' }, () => ({
        resolveDir: process.cwd(),
        loader: 'js',
        contents: `let real;
const load = () => (real ??= require(${JSON.stringify(pkg)}));
function lazy(...args) { return load().apply(this, args); }
for (const k of ${JSON.stringify(statics)}) {
  Object.defineProperty(lazy, k, { get: () => load()[k], enumerable: true, configurable: true });
}
export default lazy;
`,
      }));
    },
  };
}

/**
 * `import { f } from 'node:MOD'` gets a function that requires the module on its first call. Plain
 * functions are offered, classes as constructors that build the real class's object (`new
 * X509Certificate(pem)`; `instanceof` against the stand-in does not hold), and the objects named in
 * `objects` as proxies whose properties are the real object's (methods bound to it: webcrypto).
 * Anything else fails the build.
 */
function lazyBuiltin(mod, objects = []) {
  const real = requireHere(`node:${mod}`);
  const fns = Object.keys(real).filter((k) => typeof real[k] === 'function' && /^[a-z]/.test(k));
  const classes = Object.keys(real).filter((k) => typeof real[k] === 'function' && /^[A-Z]/.test(k));
  return {
    name: `lazy-builtin:${mod}`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^(node:)?${mod}$`) }, (args) =>
        args.kind === 'import-statement' && args.namespace !== 'kmock-lazy' ? { path: `node:${mod}`, namespace: 'kmock-lazy' } : undefined,
      );
      b.onLoad({ filter: new RegExp(`^node:${mod}$`), namespace: 'kmock-lazy' }, () => ({
        resolveDir: process.cwd(),
        loader: 'js',
        contents: `let real;
const load = () => (real ??= require('node:${mod}'));
${fns.map((f) => `export function ${f}(...args) { return load().${f}(...args); }`).join('\n')}
${classes.map((c) => `export function ${c}(...args) { return new (load().${c})(...args); }`).join('\n')}
${objects.map((o) => `export const ${o} = new Proxy({}, { get: (_, k) => { const t = load().${o}; const v = t[k]; return typeof v === 'function' ? v.bind(t) : v; } });`).join('\n')}
`,
      }));
    },
  };
}

const result = await build({
  entryPoints: ['dist/cli/main.js'],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  // Smaller to read and to compile when the code cache is missing (the source map keeps stack traces readable).
  minify: true,
  // @peculiar/x509 (and the reflect-metadata it needs) loads only for --tls: kept out of the bundle.
  external: ['snappy', 'lz4-napi', '@node-rs/crc32', '@bokuweb/zstd-wasm', '@peculiar/x509', 'reflect-metadata'],
  // No dynamic import(): a vm.Script has no module loader behind it, so they become require().
  supported: { 'dynamic-import': false },
  // import.meta.url (src/codec/records/native.ts's createRequire) is the bundle's own URL.
  define: { 'import.meta.url': '__kmockImportMetaUrl' },
  banner: { js: "var __kmockImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: BUILD_ID_MARK + BUILD_ID_PLACEHOLDER },
  plugins: [lazyDefaultExport('pino'), lazyBuiltin('crypto')],
  // A namespace import reading a name the lazy stand-ins lack would silently be undefined.
  logOverride: { 'import-is-undefined': 'error' },
  write: false,
  logLevel: 'warning',
});

let buildId;
for (const f of result.outputFiles) {
  let text = f.text;
  if (f.path.endsWith('.cjs')) {
    const id = (buildId = createHash('sha256').update(text).digest('hex').slice(0, 16));
    const at = text.lastIndexOf(BUILD_ID_MARK + BUILD_ID_PLACEHOLDER);
    if (at < 0) throw new Error('bundle: build id placeholder not found');
    // Same length, so the source map stays exact.
    text = text.slice(0, at) + BUILD_ID_MARK + id + text.slice(at + BUILD_ID_MARK.length + id.length);
  }
  writeFileSync(f.path, text);
}

// Code caches of another build (bin/kmock.js would not use them) and leftover temporary files;
// the ES module bundle that earlier versions built.
const cacheOf = (name) => {
  try {
    return /^kmock-v8-cache 1 ([0-9a-f]{16}) /.exec(readFileSync(`dist/${name}`).toString('latin1', 0, 64))?.[1];
  } catch {
    return undefined;
  }
};
for (const name of readdirSync('dist')) {
  const stale =
    /^kmock\.cjs\..*\.v8cache\.\d+\.tmp$/.test(name) ||
    (/^kmock\.cjs\..*\.v8cache$/.test(name) && cacheOf(name) !== buildId) ||
    name === 'kmock.mjs' ||
    name === 'kmock.mjs.map';
  if (stale) rmSync(`dist/${name}`, { force: true });
}
