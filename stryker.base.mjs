// @ts-check
// What every package's stryker.config.mjs shares; each adds only the files it mutates. Run through
// `pnpm mutate` (scripts/mutate.mjs), which builds first and sets CI=true.

/**
 * @param {string[]} mutate globs of the files to mutate, relative to the package
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export const strykerConfig = (mutate) => ({
  testRunner: 'vitest',
  // Named explicitly: with pnpm's layout the runner is not next to @stryker-mutator/core, where the default
  // '@stryker-mutator/*' glob looks.
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate,
  // Only the test files that import the mutated module run, and of those only the tests that reached the
  // mutant in the first run (per-test coverage).
  vitest: { configFile: 'vitest.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // Two test processes: the machine may have two cores, shared. `pnpm mutate x --concurrency 1` for fewer.
  concurrency: 2,
  // Tests open databases, anvil nodes and servers: a slow machine needs room before a mutant counts as a
  // timeout (an endless loop still ends there).
  timeoutMS: 20_000,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
})
