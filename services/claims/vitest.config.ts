import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // one file at a time: the machine is small and each file has its own database
    fileParallelism: false,
  },
})
