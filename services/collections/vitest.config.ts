import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps the modules it loaded from one file to the next (every file builds its own app and
    // database, none changes a module's state): loading them again per file was half the CPU of a run.
    isolate: false,
    // Each file has its own database; a couple at a time keeps a shared 2-core machine responsive.
    maxWorkers: 2,
    minWorkers: 1,
  },
})
