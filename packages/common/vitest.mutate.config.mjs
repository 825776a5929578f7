// The package's vitest configuration, for `pnpm mutate auth` only: Stryker runs the suite instrumented, in
// one process, next to its other test process, so the slowest tests (starting PGlite) need more time.
import { defineConfig, mergeConfig } from 'vitest/config'
import base from './vitest.config.ts'

export default mergeConfig(base, defineConfig({ test: { testTimeout: 120_000, hookTimeout: 180_000 } }))
