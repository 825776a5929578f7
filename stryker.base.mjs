// @ts-check
// What every package's stryker.config.mjs shares; each adds only the files it mutates. Run through
// `pnpm mutate` (scripts/mutate.mjs), which builds first and sets CI=true.
import { fileURLToPath } from 'node:url'

/**
 * @param {string[]} mutate globs of the files to mutate, relative to the package
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export const strykerConfig = (mutate) => ({
  testRunner: 'vitest',
  // Named explicitly: with pnpm's layout the runner is not next to @stryker-mutator/core, where the default
  // '@stryker-mutator/*' glob looks.
  plugins: [
    '@stryker-mutator/vitest-runner',
    fileURLToPath(new URL('./scripts/stryker-live-reporter.mjs', import.meta.url)),
  ],
  mutate,
  // Only the test files that import the mutated module run, and of those only the tests that reached the
  // mutant in the first run (per-test coverage).
  vitest: { configFile: 'vitest.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level constant: a regex, an EIP-712 type table) can only be tested by
  // reloading every module and running every test: here that is most of the time for a quarter of the
  // mutants. They are reported as ignored; `pnpm mutate <module> --static` tests them too.
  ignoreStatic: process.env.MUTATE_STATIC !== '1',
  // Two test processes: the machine may have two cores, shared. `pnpm mutate x --concurrency 1` for fewer.
  concurrency: 2,
  // Tests open databases, anvil nodes and servers: a slow machine needs room before a mutant counts as a
  // timeout (an endless loop still ends there).
  timeoutMS: 20_000,
  // The first run is the whole suite in one process with coverage: minutes on a busy machine.
  dryRunTimeoutMinutes: 30,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json', 'live'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
})
