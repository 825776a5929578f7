import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * A PostgreSQL cluster of the test's own on a free loopback port, for fault tests that stop the server for
 * real (`pg_ctl stop -m fast`: the server closes its connections, then refuses new ones), which the
 * shared server every other test file uses must never see.
 */
export interface PrivateCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (with the password when one is asked) */
  url: string
  port: number
  /** `pg_ctl stop -m fast`: open connections are closed, new ones refused until start(). */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>
}

/** Where initdb and pg_ctl are: PG_BINDIR, or what `pg_config --bindir` says. */
function binDir(): string | undefined {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface PrivateClusterOptions {
  /**
   * Keep fsync and full-page writes on, as a deployment runs (default off: a fault test needs no
   * durability, and its cluster starts faster).
   */
  durable?: boolean
  /** More server settings (`-c name=value`), e.g. shared_preload_libraries. */
  settings?: Record<string, string>
  /**
   * The `postgres` user's password, asked of every TCP connection (scram-sha-256), as a deployment's server
   * does; `url` carries it. Default: no password asked (trust).
   */
  password?: string
}

/**
 * Starts a private cluster, or says why it cannot and returns undefined (the caller skips), except under
 * CI=true, where a missing initdb is an error. PostgreSQL refuses to run as root: as root the cluster
 * belongs to the `postgres` user and every command runs through `runuser -u postgres --`.
 */
export async function startPrivateCluster(
  clusterOptions: PrivateClusterOptions = {},
): Promise<PrivateCluster | undefined> {
  const bin = binDir()
  if (bin === undefined || !existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'pg_ctl'))) {
    const why = `no initdb/pg_ctl found (pg_config --bindir: ${bin ?? 'not found'}; PG_BINDIR sets it)`
    if (process.env.CI === 'true' || process.env.CI === '1') {
      throw new Error(`CI=true and ${why}: the private-cluster tests need PostgreSQL's server binaries`)
    }
    console.warn(`Skipped the private-cluster tests: ${why}`)
    return undefined
  }
  const asRoot = process.getuid?.() === 0
  const command = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args)
  const dir = mkdtempSync(join(tmpdir(), 'genesis-pg-'))
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))
    chownSync(dir, uid, gid)
  }
  const data = join(dir, 'data')
  const port = await freePort()
  const settings = {
    listen_addresses: '127.0.0.1',
    ...(clusterOptions.durable ? {} : { fsync: 'off', full_page_writes: 'off' }),
    ...clusterOptions.settings,
  }
  const options = [
    `-p ${port} -k ${dir}`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ')
  const start = async () => {
    await command('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start'])
  }
  const stop = async () => {
    await command('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop'])
  }
  const auth = ['-A', 'trust']
  if (clusterOptions.password !== undefined) {
    const pwfile = join(dir, 'pwfile')
    writeFileSync(pwfile, `${clusterOptions.password}\n`, { mode: 0o644 })
    auth.splice(0, 2, '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`)
  }
  try {
    await command('initdb', ['-D', data, '-U', 'postgres', ...auth, '-E', 'UTF8', '--no-sync'])
    await start()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: `postgres://postgres${clusterOptions.password === undefined ? '' : `:${encodeURIComponent(clusterOptions.password)}`}@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy: async () => {
      await stop().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
