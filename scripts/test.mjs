// `pnpm test`: every package's tests through turbo, then one closing line adding them up. land's first, with
// the machine to itself (its flood test bounds one process's memory growth and liveness under 60 large answers
// at once, which another package's tests beside it push past the bounds on a 2-core machine); then the others
// two at a time (one package's database waits and process starts would leave a core idle). Any other
// argument (`--filter=…`) runs what it selects one package at a time. `pnpm test:chain` (--chain): only the tests on a real anvil node
// (each package's test/chain/, its `test:chain` script).
import { spawnSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const args = process.argv.slice(2)
const chain = args.includes('--chain')
const task = chain ? 'test:chain' : 'test'
// One name for the whole run, so that a notice every test file could give (the in-memory PGlite fallback)
// is printed once, not once per file or package.
const run = `pnpm-test-${process.pid}-${Date.now()}`
const extra = args.filter((a) => a !== '--chain')
const runs =
  extra.length > 0
    ? [['--concurrency=1', ...extra]]
    : [
        ['--filter=@genesis/land', '--concurrency=1'],
        ['--filter=!@genesis/land', '--concurrency=2'],
      ]
let failed = 0
for (const selection of runs) {
  const turbo = spawnSync('pnpm', ['exec', 'turbo', 'run', task, '--continue', ...selection], {
    stdio: 'inherit',
    env: { ...process.env, GENESIS_TEST_RUN: run },
  })
  failed ||= turbo.status ?? 1
}
for (const name of readdirSync(tmpdir()))
  if (name.startsWith(`genesis-test-notice-${run}-`)) rmSync(join(tmpdir(), name), { force: true })
const summary = spawnSync(
  process.execPath,
  [
    new URL('./test-summary.mjs', import.meta.url).pathname,
    chain ? '.chain-test-results.json' : '.test-results.json',
  ],
  {
    stdio: 'inherit',
  },
)
process.exit(failed || summary.status || 0)
