import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The differential run against a real Kafka has its own step (`npm run conformance`): its
    // JVMs and tight timer margins should not compete with the parallel unit tests.
    exclude: ['test/conformance/differential.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
