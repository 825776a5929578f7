// `pnpm start`: runs the three services side by side, from source (tsx; nothing to build first), on the
// embedded default, and prints their base URLs, the development credentials and what to try. With
// `pnpm chain` running, they follow its chain (the environment it wrote to the chain env file; a
// variable exported in the shell wins). Refuses, in one line and before anything starts, when another
// `pnpm start` holds the ports or the data directories. Logs are made readable when stdout is a terminal
// (JSON lines otherwise, as in production). Ctrl-C stops them gracefully and exits 0.
//
// Runs under `node --conditions=genesis-source --import tsx` (the root package.json's script), so that the
// workspace packages resolve to their TypeScript sources.
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
// The modules themselves, not the package's index: it would load the whole kit (fastify, ethers, …).
import { serviceDataDir } from '../packages/common/src/data-dir.ts'
import {
  createEmbeddedCluster,
  embeddedHolder,
  hasEmbeddedCluster,
} from '../packages/common/src/db/embedded.ts'
import { prettyLogStream, wantsPrettyLogs } from '../packages/common/src/kit/pretty-log.ts'
import { imageRuntime } from '../packages/common/src/testing/image.ts'
import { chainEnvFile, readChainEnv } from '../packages/contracts/src/chain-env.ts'
import { embeddedDir as landEmbeddedDir } from '../services/land/src/paths.ts'
import { describeProcess, listenerOf } from './port-owner.mjs'

const startedAt = performance.now()
// Read here, not by a turbo task: what the services are given decides what the banner shows.
const shell = process.env
const root = fileURLToPath(new URL('..', import.meta.url))
// Each service runs as the image runs it: its command's Node flags (the garbage collector on one thread, the
// young generation capped: services/land/BENCHMARKS.md, "Memory on the embedded default") and its settings
// of the C library's allocator.
const image = imageRuntime()
const seconds = () => `${((performance.now() - startedAt) / 1000).toFixed(1)} s`
/** A path as typed from here: relative when inside the working directory, else absolute. */
const shown = (path) => {
  const near = relative(process.cwd(), path)
  return near && !near.startsWith('..') ? near : path
}
const say = (line) => console.log(line)
/** One line on stderr and exit 1: nothing started, nothing to clean up. */
function refuse(line) {
  console.error(`pnpm start: ${line}`)
  process.exit(1)
}

const services = [
  { name: 'claims', port: 3001, path: '/api/signer' },
  { name: 'collections', port: 3002, path: '/v1/addresses' },
  { name: 'land', port: 3003, path: '/v1/districts' },
].map((service) => {
  const variable = `${service.name.toUpperCase()}_PORT`
  const port = shell[variable] ? Number(shell[variable]) : service.port
  if (!Number.isInteger(port) || port < 1 || port > 65535) refuse(`${variable} must be a port number`)
  // An exported DATA_DIR is shared by the three: each gets its own directory under it (an embedded
  // database belongs to one process).
  const dataDir = serviceDataDir(service.name, shell.DATA_DIR, root)
  // Its embedded database's directory: land keeps a chain's data apart from the demo set's.
  const databaseDir = (given) =>
    join(dataDir, service.name === 'land' ? landEmbeddedDir({ LAND_RPC_URL: given.LAND_RPC_URL }) : 'pglite')
  return { ...service, port, variable, dataDir, databaseDir }
})

// ---- one `pnpm start` per data directory ----------------------------------------------------------

/** DATA_DIR, or `.data`: where the services' directories are. */
const dataRoot = dirname(services[0].dataDir)
const startLock = join(dataRoot, 'pnpm-start.pid')

const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/** Holds `dataRoot` for this run (a stale file, its process gone, is taken over), or refuses. */
function takeStartLock() {
  mkdirSync(dataRoot, { recursive: true })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(startLock, `${process.pid}\n`, { flag: 'wx' })
      process.on('exit', () => {
        if (readKept(startLock) === String(process.pid)) rmSync(startLock, { force: true })
      })
      return
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    const pid = Number.parseInt(readKept(startLock) ?? '', 10)
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      const running = describeProcess(pid)
      refuse(
        `already running as process ${pid}${running ? ` (${running})` : ''}, with ${shown(dataRoot)}. Stop it ` +
          `first (Ctrl-C in its terminal), or give this one another DATA_DIR and ${services.map((s) => s.variable).join(', ')}.`,
      )
    }
    rmSync(startLock, { force: true })
  }
  refuse(`cannot take ${shown(startLock)}`)
}
takeStartLock()

// ---- the local chain, when `pnpm chain` runs -------------------------------------------------------

const chainFile = chainEnvFile(shell, root)
const chain = await followedChain(chainFile)

/** The chain env file's variables when its node answers, else null (a stale file is named and skipped). */
async function followedChain(file) {
  const vars = readChainEnv(file)
  if (!vars) return null
  const url = vars.LAND_RPC_URL ?? vars.RPC_URL
  const chainId = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(3000),
  })
    .then(async (answer) => Number.parseInt((await answer.json()).result, 16))
    .catch(() => null)
  if (chainId === null) {
    say(`Ignoring ${shown(file)}: no node answers at ${url} (pnpm chain is not running; delete the file)`)
    return null
  }
  return { vars, url, chainId }
}

const env = { ...(chain?.vars ?? {}), ...shell }
const embedded = !env.DATABASE_URL

// ---- already running? ---------------------------------------------------------------------------

/** Whether nothing listens on the port the service would take (a listen that fails says so). */
const portFree = (port, host) =>
  new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)))
  })

for (const service of services) {
  const holder = embedded ? embeddedHolder(service.databaseDir(env)) : null
  const busy = !(await portFree(service.port, env.HOST ?? '0.0.0.0'))
  if (holder === null && !busy) continue
  const listener = busy ? listenerOf(service.port) : null
  const facts = [
    holder === null ? '' : `${shown(service.dataDir)} is held by process ${holder}`,
    busy
      ? `port ${service.port} is in use${listener && listener !== holder ? ` by process ${listener}` : ''}`
      : '',
  ].filter(Boolean)
  const running = describeProcess(holder ?? listener)
  refuse(
    `${service.name} is already running (${facts.join(', ')}${running ? `: ${running}` : ''}). Stop it first ` +
      `(Ctrl-C in its terminal), or give this one another DATA_DIR and ${services.map((s) => s.variable).join(', ')}.`,
  )
}

// ---- one-time work: the embedded databases, land's Atlas view -----------------------------------

/**
 * initdb once for every service without a database yet; the others get a copy of that directory. Each is
 * made beside its place and moved in when whole, so that an interrupted first start leaves none half made.
 */
async function createDatabases() {
  const missing = services.filter((s) => !hasEmbeddedCluster(s.databaseDir(env)))
  if (!embedded || missing.length === 0) return
  say(`Creating the embedded PostgreSQL of ${missing.map((s) => s.name).join(', ')} (first start only)…`)
  const making = (service) => `${service.databaseDir(env)}.creating`
  const moveIn = (service) => {
    const target = service.databaseDir(env)
    rmSync(target, { recursive: true, force: true })
    renameSync(making(service), target)
  }
  for (const service of missing) rmSync(making(service), { recursive: true, force: true })
  const [first, ...rest] = missing
  await createEmbeddedCluster(making(first))
  for (const service of rest) {
    cpSync(making(first), making(service), { recursive: true })
    moveIn(service)
  }
  moveIn(first)
  say(`  created in ${seconds()}`)
}

/** The newest modification time of the files directly in `dir`. */
const newest = (dir) => Math.max(...readdirSync(dir).map((name) => statSync(join(dir, name)).mtimeMs))

/** Land's Atlas view (`/atlas`) is an esbuild bundle: made when missing or older than its sources. */
async function bundleAtlasView() {
  const sources = join(root, 'services/land/scripts/atlas')
  const bundle = join(root, 'services/land/dist/atlas-page/atlas.js')
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= newest(sources)) return
  const { buildAtlasPage } = await import('../services/land/scripts/atlas/build.ts')
  await buildAtlasPage()
  say(`Bundled land's Atlas view (${shown(join(root, 'services/land/dist/atlas-page'))})`)
}

await Promise.all([createDatabases(), bundleAtlasView()])

// ---- the services --------------------------------------------------------------------------------

const pretty = wantsPrettyLogs(env.LOG_FORMAT)
const tsx = import.meta.resolve('tsx')
say(`Starting ${services.map((s) => s.name).join(', ')} from source…`)
const children = []
let stopping = false

for (const service of services) {
  const dir = join(root, 'services', service.name)
  const child = spawn(
    process.execPath,
    [...image.nodeFlags, '--conditions=genesis-source', '--import', tsx, 'src/server.ts'],
    {
      cwd: dir,
      env: {
        ...image.env,
        LOG_LEVEL: 'info',
        ...env,
        PORT: String(service.port),
        DATA_DIR: service.dataDir,
        // JSON to this script, which makes it readable when stdout is a terminal.
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', pretty ? 'pipe' : 'inherit', 'inherit'],
      // Its own process group: a Ctrl-C reaches only this script, which passes one SIGTERM on (a second
      // signal would cut the services' graceful shutdown short).
      detached: true,
    },
  )
  if (pretty) child.stdout.pipe(prettyLogStream({ prefix: service.name }) ?? process.stdout)
  const entry = { ...service, child, exited: null }
  entry.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  entry.exited.then(({ code, signal }) => {
    if (stopping) return
    say(`${service.name} exited (${signal ?? code}) before it was stopped: stopping the others`)
    stop(code || 1)
  })
  children.push(entry)
}

let stoppedAt = 0
function stop(code = 0) {
  if (stopping) {
    // A Ctrl-C reaches this script twice (from the terminal, and passed on by pnpm): only a second one
    // typed later means "no more waiting".
    if (performance.now() - stoppedAt < 1000) return
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL')
    process.exit(130)
  }
  stopping = true
  stoppedAt = performance.now()
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM')
  setTimeout(() => process.exit(code), 15_000).unref()
  Promise.all(children.map((c) => c.exited)).then(() => process.exit(code))
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

/** Polls /health/ready until it answers 200; false when the service exits first. */
async function waitReady(service) {
  let exited = false
  service.exited.then(() => {
    exited = true
  })
  while (!exited) {
    const answer = await fetch(`http://127.0.0.1:${service.port}/health/ready`).catch(() => null)
    if (answer?.ok) return true
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return false
}

const developmentDefaults = embedded && env.NODE_ENV !== 'production'

function readKept(path) {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

function banner() {
  const lines = ['', `All services ready in ${seconds()}:`, '']
  for (const { name, port, path } of children) {
    const base = `http://localhost:${port}`
    const extra = name === 'land' ? `map explorer ${base}/, ` : ''
    lines.push(`  ${name.padEnd(12)} ${base}   (${extra}try ${base}${path}, docs ${base}/docs)`)
  }
  if (chain)
    lines.push(
      '',
      `  Following the local chain ${chain.url} (chain ${chain.chainId}, environment from ${shown(chainFile)}):`,
      '  claims settles claims from it, collections reads it, land indexes it.',
    )
  const claims = children.find((c) => c.name === 'claims')
  const tokenFile = join(claims.dataDir, 'admin.token')
  const token = env.CLAIMS_ADMIN_TOKEN ?? (developmentDefaults ? readKept(tokenFile) : undefined)
  lines.push('')
  if (token) {
    const origin = env.CLAIMS_ADMIN_TOKEN ? 'CLAIMS_ADMIN_TOKEN' : `kept in ${shown(tokenFile)}`
    const chainId = chain ? String(chain.chainId) : '137'
    const contract = chain?.vars.REWARDS_DISPENSER_ADDRESS ?? '0x1111111111111111111111111111111111111111'
    lines.push(
      `  Claims operator token: ${token}   (${origin}; in /docs: Authorize, bearer)`,
      '  Grant a reward:',
      `    curl -s -X POST http://localhost:${claims.port}/api/rewards -H 'authorization: Bearer ${token}' \\`,
      `      -H 'content-type: application/json' -d '{"rewards":[{"user":"0x00fc6024b6b74a26658c78aee87f5841d7f9dbd0","chain_id":"${chainId}","contract":"${contract}","item_id":"42"}]}'`,
    )
  } else lines.push('  Claims operator calls are off: set CLAIMS_ADMIN_TOKEN (at least 16 characters).')
  if (!env.COMMITTEE_ADDRESSES && developmentDefaults) {
    const collections = children.find((c) => c.name === 'collections')
    lines.push(
      `  Collections committee (development): key in ${shown(join(collections.dataDir, 'committee.key'))}`,
    )
  }
  lines.push(
    '',
    // The plain walkthrough publishes a collection it never deployed: only the embedded default takes it.
    ...(chain
      ? ['  A claim settled on the chain:  pnpm demo --chain     (in another terminal)']
      : ['  Walk through every flow:  pnpm demo     (in another terminal)']),
    '',
    'Ctrl-C stops them.',
    '',
  )
  say(lines.join('\n'))
}

// No silent minute: while a service is not ready, one line every 5 s names it (land loads its demo set on
// a first start; the services' own lines say what they are doing).
const pending = new Set(children.map((c) => c.name))
const waiting = setInterval(() => {
  if (!stopping && pending.size > 0) say(`  waiting for ${[...pending].join(', ')} (${seconds()})`)
}, 5000)
const ready = await Promise.all(
  children.map(async (service) => {
    const answer = await waitReady(service)
    pending.delete(service.name)
    return answer
  }),
)
clearInterval(waiting)
if (ready.every(Boolean) && !stopping) banner()
