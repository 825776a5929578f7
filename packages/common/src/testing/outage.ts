import { createSql, type DatabaseTimeouts, type SessionSettings, type Sql } from '../db/database.js'
import type { TestDatabase } from './database.js'
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
