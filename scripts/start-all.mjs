// `pnpm start`: runs the three services side by side on the embedded default and prints their base URLs.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const services = [
  { name: 'claims', port: 3001, path: '/api/rewards' },
  { name: 'collections', port: 3002, path: '/v1/addresses' },
  { name: 'land', port: 3003, path: '/v1/districts' },
]

const children = []
for (const service of services) {
  const dir = join(root, 'services', service.name)
  if (!existsSync(join(dir, 'dist', 'server.js'))) {
    console.log(`${service.name}: not built, skipped`)
    continue
  }
  const child = spawn(process.execPath, ['--single-threaded-gc', 'dist/server.js'], {
    cwd: dir,
    env: { PORT: String(service.port), LOG_LEVEL: 'info', ...process.env },
    stdio: ['ignore', 'inherit', 'inherit'],
    // Its own process group: a Ctrl-C reaches only this script, which passes one SIGTERM on (a second
    // signal would cut the services' graceful shutdown short).
    detached: true,
  })
  child.on('exit', (code, signal) => {
    console.log(`${service.name} exited (${signal ?? code})`)
    if (!stopping) stop(code ?? 1)
  })
  children.push({ ...service, child })
}

let stopping = false
function stop(code = 0) {
  stopping = true
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM')
  setTimeout(() => process.exit(code), 12_000).unref()
  Promise.all(
    children.map(({ child }) => child.exitCode !== null || new Promise((r) => child.on('exit', r))),
  ).then(() => process.exit(code))
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

async function waitReady({ name, port, path }) {
  const base = `http://localhost:${port}`
  for (let i = 0; i < 600; i++) {
    try {
      const response = await fetch(`${base}/health/ready`)
      if (response.ok)
        return console.log(`\n  ${name.padEnd(12)} ${base}   (try ${base}${path}, docs ${base}/docs)`)
    } catch {}
    await new Promise((r) => setTimeout(r, 500))
  }
  console.log(`${name}: not ready after 5 minutes`)
}
await Promise.all(children.map(waitReady))
if (children.length) console.log('\nAll services ready. Ctrl-C stops them.\n')
