import type { LightMyRequestResponse } from 'fastify'
import {
  createSql,
  type DatabaseTimeouts,
  DEFAULT_CONNECT_TIMEOUT_S,
  type SessionSettings,
  type Sql,
} from '../db/database.js'
import { migrate } from '../db/migrate.js'
import type { App } from '../kit/create-app.js'
import type { TestDatabase } from './database.js'
import { type PrivateCluster, startPrivateCluster } from './private-cluster.js'
import { onTestDatabase, type TestService, type TestServiceOptions } from './service.js'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js'

export interface ProxiedDatabase {
  /** A client of the test database that reaches it through `proxy`. */
  sql: Sql
  proxy: TcpProxy
  close(): Promise<void>
}

/** Short waits, so that an outage test sees its 503s in a couple of seconds. */
export const OUTAGE_TIMEOUTS: DatabaseTimeouts = { connectS: 2, queryMs: 1500 }

/**
 * The test database behind a proxy the test can cut and restore (`proxy.cut('refuse' | 'blackhole')`),
 * for outage tests that must not stop the PostgreSQL every other test file shares.
 */
export async function proxiedDatabase(
  db: TestDatabase,
  options: { settings?: SessionSettings; max?: number; timeouts?: DatabaseTimeouts } = {},
): Promise<ProxiedDatabase> {
  const { hostname, port } = new URL(db.url)
  const proxy = await startTcpProxy({ host: hostname, port: Number(port) })
  const sql = createSql(proxy.via(db.url), {
    max: options.max ?? 4,
    settings: options.settings,
    timeouts: options.timeouts ?? OUTAGE_TIMEOUTS,
  })
  return {
    sql,
    proxy,
    close: async () => {
      await sql.end({ timeout: 1 })
      await proxy.close()
    },
  }
}

/** Polls until the check holds, or throws past the timeout. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A started test service whose app reaches its database through a proxy the test can cut. */
export interface ProxiedTestService extends TestService {
  proxied: ProxiedDatabase
}

/** `startTestService` for outage tests: the app is built on a client through the proxy. */
export async function startProxiedTestService(options: TestServiceOptions): Promise<ProxiedTestService> {
  return onTestDatabase(options, async (db) => {
    const proxied = await proxiedDatabase(db, { settings: options.settings })
    try {
      const app = await options.build(proxied.sql)
      return {
        app,
        proxied,
        close: async () => {
          await app.close()
          await proxied.close()
        },
      }
    } catch (error) {
      await proxied.close()
      throw error
    }
  })
}

type Send = () => Promise<LightMyRequestResponse>

/**
 * What an outage must look like from outside, checked on each request while the database is cut: a 503
 * service_unavailable with Retry-After, in the envelope, within `withinMs`; readiness 503 too. Returns
 * every departure from that (empty when all is as it should be).
 */
export async function outageProblems(app: App, requests: Send[], withinMs = 8000): Promise<string[]> {
  const problems: string[] = []
  for (const [i, send] of requests.entries()) {
    const started = Date.now()
    const answer = await send()
    const took = Date.now() - started
    const body = answer.json() as { ok?: unknown; code?: unknown }
    if (took > withinMs) problems.push(`request ${i}: answered after ${took} ms`)
    if (answer.statusCode !== 503) problems.push(`request ${i}: ${answer.statusCode} ${answer.body}`)
    if (answer.headers['retry-after'] === undefined) problems.push(`request ${i}: no Retry-After`)
    if (body.ok !== false || body.code !== 'service_unavailable')
      problems.push(`request ${i}: ${answer.body}`)
  }
  const ready = await app.inject({ method: 'GET', url: '/health/ready' })
  if (ready.statusCode !== 503) problems.push(`readiness answered ${ready.statusCode}`)
  return problems
}

/** After the database is back: waits until `probe` answers 200 and readiness is 200, without a restart. */
export async function recovered(app: App, probe: Send): Promise<void> {
  await eventually(async () => (await probe()).statusCode === 200)
  await eventually(async () => (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200)
}

/** A service whose database is a private cluster the test stops for real. */
export interface ClusterService {
  cluster: PrivateCluster
  /** The app's pool, with the deployment's default waits (DB_CONNECT_TIMEOUT_S 5, DB_QUERY_TIMEOUT_MS 5000). */
  sql: Sql
  app: App
  close(): Promise<void>
}

/**
 * The service's app on a private cluster (`startPrivateCluster`), migrated as a deployment is (its own
 * connection, no query deadline); undefined when the cluster cannot run here (the test skips; CI=true fails).
 */
export interface ClusterServiceOptions {
  migrationsDir: string
  settings?: SessionSettings
  build: (sql: Sql) => Promise<App>
  timeouts?: DatabaseTimeouts
}

export async function startServiceOnPrivateCluster(
  options: ClusterServiceOptions,
): Promise<ClusterService | undefined> {
  const cluster = await startPrivateCluster()
  if (cluster === undefined) return undefined
  let sql: Sql | undefined
  try {
    const migrator = createSql(cluster.url, { max: 2 })
    try {
      await migrate(migrator, options.migrationsDir)
    } finally {
      await migrator.end({ timeout: 5 })
    }
    sql = createSql(cluster.url, {
      settings: options.settings,
      timeouts: options.timeouts ?? { connectS: DEFAULT_CONNECT_TIMEOUT_S, queryMs: 5000 },
    })
    const app = await options.build(sql)
    const pool = sql
    return {
      cluster,
      sql: pool,
      app,
      close: async () => {
        await app.close()
        await pool.end({ timeout: 1 })
        await cluster.destroy()
      },
    }
  } catch (error) {
    await sql?.end({ timeout: 1 })
    await cluster.destroy()
    throw error
  }
}

/**
 * A real database stop, as an operator or a crash makes it: `pg_ctl stop -m fast` (the server closes its
 * connections, then refuses new ones), `downMs` down, started again. Every `everyMs` meanwhile each of
 * `requests` and the readiness probe is sent, without waiting for the previous ones: each must answer
 * within `withinMs`, and one that answered before the restart a 503 (a request: service_unavailable in the
 * envelope, with Retry-After).
 * Returns every departure from that (empty when all is as it should be). The database is up again on return.
 */
export async function databaseStopProblems(
  service: ClusterService,
  requests: Send[],
  options: { downMs?: number; everyMs?: number; withinMs?: number } = {},
): Promise<string[]> {
  const { downMs = 10_000, everyMs = 500, withinMs = 6000 } = options
  const ready: Send = () => service.app.inject({ method: 'GET', url: '/health/ready' })
  const problems: string[] = []
  let restartedAt = Number.POSITIVE_INFINITY
  const watch = async (name: string, send: Send, readiness = false) => {
    const started = Date.now()
    const answer = await send()
    const ended = Date.now()
    const at = `${name} sent ${started - stoppedAt} ms into the outage`
    if (ended - started > withinMs) problems.push(`${at}: answered after ${ended - started} ms`)
    if (ended >= restartedAt) return
    if (readiness) {
      if (answer.statusCode !== 503) problems.push(`${at}: ${answer.statusCode}`)
      return
    }
    const body = answer.json() as { ok?: unknown; code?: unknown }
    if (answer.statusCode !== 503 || body.ok !== false || body.code !== 'service_unavailable')
      problems.push(`${at}: ${answer.statusCode} ${answer.body.slice(0, 200)}`)
    else if (answer.headers['retry-after'] === undefined) problems.push(`${at}: no Retry-After`)
  }
  await service.cluster.stop()
  const stoppedAt = Date.now()
  const pending: Promise<void>[] = []
  while (Date.now() - stoppedAt < downMs) {
    for (const [i, send] of requests.entries()) pending.push(watch(`request ${i}`, send))
    pending.push(watch('readiness', ready, true))
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  restartedAt = Date.now()
  await service.cluster.start()
  await Promise.all(pending)
  return problems
}
