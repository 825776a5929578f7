// `pnpm test`: every package's tests through turbo (one package at a time: the machine may have 2 cores),
// then one closing line adding them up. `pnpm test:chain` (--chain): only the tests on a real anvil node
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
const turbo = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', task, '--concurrency=1', '--continue', ...args.filter((a) => a !== '--chain')],
  { stdio: 'inherit', env: { ...process.env, GENESIS_TEST_RUN: run } },
)
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
process.exit(turbo.status || summary.status || 0)
