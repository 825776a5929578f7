// `pnpm start`: runs the three services side by side on the embedded default and prints their base URLs,
// the development credentials and what to try. Logs are made readable when stdout is a terminal (JSON lines
// otherwise, as in production).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import pretty from 'pino-pretty'
// Built with the services (turbo run build); one place for the services' data paths.
import { serviceDataDir } from '../packages/common/dist/db/data-dir.js'

const root = new URL('..', import.meta.url).pathname
// Read here, not by a turbo task: what the services are given decides what the banner shows.
const { env } = process
const services = [
  { name: 'claims', port: 3001, path: '/api/signer' },
  { name: 'collections', port: 3002, path: '/v1/addresses' },
  { name: 'land', port: 3003, path: '/v1/districts' },
]
const readable = process.stdout.isTTY && env.LOG_FORMAT !== 'json'

/**
 * Pretty-prints one service's pino lines on one line each, prefixed with the service's name; a request's
 * method, URL, status and duration go into the message instead of nested objects.
 */
function prettyStream(name) {
  return pretty({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name,service,req,res,reqId,responseTime',
    messageFormat: (log, messageKey) => {
      let text = String(log[messageKey] ?? '')
      if (log.req) text += ` ${log.req.method} ${log.req.url}`
      if (log.res) text += ` → ${log.res.statusCode}`
      if (typeof log.responseTime === 'number') text += ` in ${log.responseTime.toFixed(1)} ms`
      return `${name.padEnd(11)} ${text}`
    },
  })
}

/** Where a service keeps its generated files: DATA_DIR/<service>, or `.data/<service>` by default. */
const dataDir = (name) => serviceDataDir(name, env.DATA_DIR, root)

const children = []
for (const service of services) {
  const dir = join(root, 'services', service.name)
  if (!existsSync(join(dir, 'dist', 'server.js'))) {
    console.log(`${service.name}: not built, skipped`)
    continue
  }
  const child = spawn(process.execPath, ['--single-threaded-gc', 'dist/server.js'], {
    cwd: dir,
    // An exported DATA_DIR is shared by the three: each gets its own directory under it (an embedded
    // database belongs to one process; a second opening it is refused).
    env: {
      PORT: String(service.port),
      LOG_LEVEL: 'info',
      ...process.env,
      DATA_DIR: dataDir(service.name),
    },
    stdio: ['ignore', readable ? 'pipe' : 'inherit', 'inherit'],
    // Its own process group: a Ctrl-C reaches only this script, which passes one SIGTERM on (a second
    // signal would cut the services' graceful shutdown short).
    detached: true,
  })
  if (readable) child.stdout.pipe(prettyStream(service.name))
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

async function waitReady({ name, port }) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://localhost:${port}/health/ready`)).ok) return true
    } catch {}
    await new Promise((r) => setTimeout(r, 500))
  }
  console.log(`${name}: not ready after 5 minutes`)
  return false
}

const shown = (path) => relative(process.cwd(), path) || path
const developmentDefaults = !env.DATABASE_URL && env.NODE_ENV !== 'production'

function readKept(path) {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

function banner() {
  const lines = ['', 'All services ready:', '']
  for (const { name, port, path } of children) {
    const base = `http://localhost:${port}`
    const extra = name === 'land' ? `map explorer ${base}/, ` : ''
    lines.push(`  ${name.padEnd(12)} ${base}   (${extra}try ${base}${path}, docs ${base}/docs)`)
  }
  const claims = children.find((c) => c.name === 'claims')
  if (claims) {
    const tokenFile = join(dataDir('claims'), 'admin.token')
    const token = env.CLAIMS_ADMIN_TOKEN ?? (developmentDefaults ? readKept(tokenFile) : undefined)
    lines.push('')
    if (token) {
      const origin = env.CLAIMS_ADMIN_TOKEN ? 'CLAIMS_ADMIN_TOKEN' : `kept in ${shown(tokenFile)}`
      lines.push(`  Claims operator token: ${token}   (${origin})`)
      lines.push('  Grant a reward:')
      lines.push(
        `    curl -s -X POST http://localhost:${claims.port}/api/rewards -H 'authorization: Bearer ${token}' \\`,
        `      -H 'content-type: application/json' -d '{"rewards":[{"user":"0x00fc6024b6b74a26658c78aee87f5841d7f9dbd0","chain_id":"137","contract":"0x1111111111111111111111111111111111111111","item_id":"42"}]}'`,
      )
    } else lines.push('  Claims operator calls are off: set CLAIMS_ADMIN_TOKEN (at least 16 characters).')
  }
  if (children.some((c) => c.name === 'collections') && !env.COMMITTEE_ADDRESSES && developmentDefaults)
    lines.push(
      `  Collections committee (development): key in ${shown(join(dataDir('collections'), 'committee.key'))}`,
    )
  lines.push(
    '',
    '  Walk through every flow:  pnpm demo     (in another terminal)',
    '',
    'Ctrl-C stops them.',
    '',
  )
  console.log(lines.join('\n'))
}

const ready = await Promise.all(children.map(waitReady))
if (children.length && ready.every(Boolean)) banner()
