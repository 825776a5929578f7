import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps the modules it loaded from one file to the next (every file builds its own app and
    // database, none changes a module's state): loading them again per file was half the CPU of a run.
    isolate: false,
  },
})
