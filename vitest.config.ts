import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The differential run against a real Kafka has its own step (`npm run conformance`): its
    // JVMs and tight timer margins should not compete with the parallel unit tests. The wire
    // fuzzer (100,000 frames, ~30-60 s of CPU) has its own too (`npm run fuzz`, vitest.fuzz.config.ts).
    exclude: ['test/conformance/differential.test.ts', 'test/broker/fuzz.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
