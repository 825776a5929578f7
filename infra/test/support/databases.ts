import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { testServerUrl } from '@genesis/common/testing'
import { infraDir, type ServiceName } from './paths.js'
import { run } from './processes.js'

/** The PostgreSQL server the tests use (TEST_DATABASE_URL, DATABASE_URL or the local default). */
export const adminUrl = () => new URL(testServerUrl())

/** libpq variables (PGHOST, PGUSER, PGPASSWORD...) for psql and the init script. */
export function libpqEnv(url: URL = adminUrl()): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PGHOST: url.hostname,
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username || 'postgres'),
    PGPASSWORD: decodeURIComponent(url.password),
    PGDATABASE: url.pathname.slice(1) || 'postgres',
    PGCONNECT_TIMEOUT: '10',
  }
}

/** Runs one statement as the admin user (in `database`, default the server URL's) and returns its output. */
async function psql(sql: string, database?: string): Promise<string> {
  const url = adminUrl()
  const env = libpqEnv(url)
  if (database) env.PGDATABASE = database
  const result = await run('psql', ['-v', 'ON_ERROR_STOP=1', '--no-psqlrc', '-At', '-c', sql], {
    cwd: infraDir,
    env,
    timeoutMs: 30_000,
  })
  if (result.code !== 0) throw new Error(`psql failed (${result.code}): ${result.stderr}`)
  return result.stdout.trim()
}

export interface ServiceDatabases {
  /** The database and login role of each service, named <prefix><service>. */
  names: Record<ServiceName, string>
  /** A DATABASE_URL that logs in as the service's own role (not a superuser). */
  urls: Record<ServiceName, string>
  /** The init script's output. */
  log: string
  drop(): Promise<void>
}

/**
 * Creates each service's database and role with the same script the compose PostgreSQL runs
 * (infra/postgres/init-databases.sh), under a unique prefix so parallel runs never collide.
 */
export async function createServiceDatabases(services: readonly ServiceName[]): Promise<ServiceDatabases> {
  const prefix = `infra_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}_`
  const server = adminUrl()
  const passwords = Object.fromEntries(services.map((s) => [s, randomBytes(12).toString('hex')]))
  const env: NodeJS.ProcessEnv = {
    ...libpqEnv(server),
    POSTGRES_USER: decodeURIComponent(server.username || 'postgres'),
    POSTGRES_DB: server.pathname.slice(1) || 'postgres',
    GENESIS_SERVICES: services.join(' '),
    GENESIS_DB_PREFIX: prefix,
  }
  for (const service of services) env[`${service.toUpperCase()}_DB_PASSWORD`] = passwords[service]
  const names = {} as Record<ServiceName, string>
  const urls = {} as Record<ServiceName, string>
  for (const service of services) {
    names[service] = `${prefix}${service}`
    const url = new URL(server.toString())
    url.username = names[service]
    url.password = passwords[service] ?? ''
    url.pathname = `/${names[service]}`
    urls[service] = url.toString()
  }
  const drop = async () => {
    for (const name of Object.values(names)) {
      await psql(`drop database if exists "${name}" with (force)`)
      await psql(`drop role if exists "${name}"`)
    }
  }
  const result = await run('bash', [join(infraDir, 'postgres', 'init-databases.sh')], {
    cwd: infraDir,
    env,
    timeoutMs: 60_000,
  })
  if (result.code !== 0) {
    await drop()
    throw new Error(`init-databases.sh failed (${result.code}):\n${result.stdout}\n${result.stderr}`)
  }
  return { names, urls, log: result.stdout, drop }
}

export { psql }
