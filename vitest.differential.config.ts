// The differential scenarios as a vitest suite (test/conformance/differential.test.ts), which the
// default config leaves out (it needs Java and takes minutes): `npx vitest run --config
// vitest.differential.config.ts`, with the KMOCK_CONFORMANCE_* variables the test file lists.
// CI runs the suite through `npm run conformance` instead.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/conformance/differential.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
