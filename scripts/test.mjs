// `pnpm test`: every package's tests through turbo (one package at a time: the machine may have 2 cores),
// then one closing line adding them up.
import { spawnSync } from 'node:child_process'

const turbo = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'test', '--concurrency=1', '--continue', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
)
const summary = spawnSync(process.execPath, [new URL('./test-summary.mjs', import.meta.url).pathname], {
  stdio: 'inherit',
})
process.exit(turbo.status || summary.status || 0)
