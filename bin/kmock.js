#!/usr/bin/env node
// The kmock command: a thin shim over the compiled CLI in dist/ (built by `npm install`).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { process.stderr.write(`kmock: ${err?.message ?? err}\n`); process.exitCode = 1; },
);
