// `pnpm mutate [module...]`: mutation testing (StrykerJS, vitest runner) of the security- and money-critical
// code, one module at a time. Modules: auth (packages/common/src/auth), claims (domain, jobs, routes/caller.ts),
// collections (domain); none named = all three. Builds the workspace first (the services' tests import
// @genesis/common and the contracts from their dist/). Runs with CI=true: the tests then need the real
// PostgreSQL and a real anvil, and fail rather than skip without them, so that no mutant survives only
// because the tests that would kill it were skipped. Not part of `pnpm test` or CI: it takes a long while.
// Each module's report lands in <package>/reports/mutation/; the incremental file next to it lets the next
// run on this machine re-test only the mutants whose code or tests changed.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const modules = {
  auth: 'packages/common',
  claims: 'services/claims',
  collections: 'services/collections',
}

// Module names first; from the first flag on, everything goes to Stryker as it is
// (e.g. `pnpm mutate collections --mutate src/domain/guards.ts --concurrency 1`), except `--static`: Stryker's
// CLI can only turn `ignoreStatic` on, so this one reaches stryker.base.mjs through MUTATE_STATIC.
const given = process.argv.slice(2)
const withStatic = given.includes('--static')
const args = given.filter((arg) => arg !== '--static')
const firstFlag = args.findIndex((a) => a.startsWith('-'))
const named = firstFlag === -1 ? args : args.slice(0, firstFlag)
const flags = firstFlag === -1 ? [] : args.slice(firstFlag)
const unknown = named.filter((m) => !(m in modules))
if (unknown.length > 0) {
  console.error(`unknown module ${unknown.join(', ')}; known: ${Object.keys(modules).join(', ')}`)
  process.exit(2)
}
const chosen = named.length > 0 ? named : Object.keys(modules)

const run = (command, args, cwd) => {
  const result = spawnSync(command, args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, CI: 'true', ...(withStatic ? { MUTATE_STATIC: '1' } : {}) },
  })
  return result.status ?? 1
}

if (run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], root) !== 0) process.exit(1)

const stryker = fileURLToPath(new URL('../node_modules/.bin/stryker', import.meta.url))
let failed = 0
for (const name of chosen) {
  console.log(`\n== mutate ${name} (${modules[name]})`)
  const status = run(stryker, ['run', 'stryker.config.mjs', ...flags], `${root}${modules[name]}`)
  if (status !== 0) failed++
}
process.exit(failed > 0 ? 1 : 0)
