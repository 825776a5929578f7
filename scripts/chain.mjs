// `pnpm chain`: a local anvil node with our contracts deployed (packages/contracts' local-chain). Builds the
// contracts package first when its build is missing or older than its sources, saying so (solc takes half
// a minute on a small machine) and showing the build's output only when it fails. Ctrl-C stops the node and
// exits 0: the node's process handles it (the terminal sends it to the whole group), this one waits.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const contracts = join(root, 'packages/contracts')
const entry = join(contracts, 'dist/local-chain.js')

/** The newest modification time under `dir` (files only). */
function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

const built = existsSync(entry) && statSync(entry).mtimeMs >= newest(join(contracts, 'src'))
if (!built) {
  const startedAt = performance.now()
  console.log('Building the contracts (solc; the first time takes about half a minute)…')
  const build = spawnSync(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=@genesis/contracts', '--output-logs=errors-only'],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    },
  )
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout}${build.stderr}`)
    console.error('pnpm chain: the contracts did not build (above)')
    process.exit(1)
  }
  console.log(`  built in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`)
}

const node = spawn(process.execPath, [entry], { cwd: contracts, stdio: 'inherit' })
// The terminal's Ctrl-C reaches the node's process too; it removes the env file and exits 0.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => node.kill('SIGTERM'))
node.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)))
