import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The bundle and gateway tests build bundles and start real services and nginx: one file at a time
    // keeps a 2-core CI machine responsive, and generous timeouts absorb a cold turbo cache.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
})
