// Bundles the CLI (dist/cli/main.js and everything it imports) into one file, dist/kmock.mjs, so
// `kmock start` does not resolve and load hundreds of small modules at start-up. Native and WASM
// packages stay external (they load their own binaries, lazily, on first use).
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli/main.js'],
  outfile: 'dist/kmock.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Smaller to compile at start-up (the source map keeps stack traces readable).
  minify: true,
  external: ['snappy', 'lz4-napi', '@node-rs/crc32', '@bokuweb/zstd-wasm'],
  // Bundled CommonJS dependencies (pino) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __kmockCreateRequire } from 'node:module'; const require = __kmockCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
