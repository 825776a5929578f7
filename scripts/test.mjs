// `pnpm test`: every package's tests through turbo (one package at a time: the machine may have 2 cores),
// then one closing line adding them up. `pnpm test:chain` (--chain): only the tests on a real anvil node
// (each package's test/chain/, its `test:chain` script).
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
const chain = args.includes('--chain')
const task = chain ? 'test:chain' : 'test'
const turbo = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', task, '--concurrency=1', '--continue', ...args.filter((a) => a !== '--chain')],
  {
    stdio: 'inherit',
  },
)
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
