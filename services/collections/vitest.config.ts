import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file has its own database; a couple at a time keeps a shared 2-core machine responsive.
    maxWorkers: 2,
    minWorkers: 1,
  },
})
