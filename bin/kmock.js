#!/usr/bin/env node
// The kmock command: runs the CLI bundled by `npm run build` (dist/kmock.mjs, one file so start-up
// stays fast), or the compiled modules when only `tsc` has run.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/kmock.mjs', import.meta.url);
const { main } = await import(existsSync(bundle) ? bundle.href : new URL('../dist/cli/main.js', import.meta.url).href);

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { process.stderr.write(`kmock: ${err?.message ?? err}\n`); process.exitCode = 1; },
);
