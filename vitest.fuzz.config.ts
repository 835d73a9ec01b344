// `npm run fuzz`: the seeded wire fuzzer alone (test/broker/fuzz.test.ts), a CI step after
// `npm test` so the README's test command stays a few minutes. KMOCK_FUZZ_SEED and
// KMOCK_FUZZ_FRAMES choose the run (the seed is printed).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/broker/fuzz.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
