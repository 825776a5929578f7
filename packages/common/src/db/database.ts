import postgres from 'postgres'
import { startEmbeddedPostgres } from './embedded.js'

/**
 * Clients of the embedded PGlite. It multiplexes connections message by message, so two connections'
 * extended-protocol exchanges can interleave and clobber each other's portal: they get one connection.
 */
const embeddedClients = new WeakSet<Sql>()
export const isEmbedded = (sql: Sql) => embeddedClients.has(sql)

export function createEmbeddedSql(url: string, settings?: SessionSettings): Sql {
  const sql = createSql(url, { max: 1, settings })
  embeddedClients.add(sql)
  return sql
}

export type Sql = ReturnType<typeof postgres>

/** PostgreSQL settings every connection of a pool starts with (sent at connect, e.g. plan_cache_mode). */
export type SessionSettings = Record<string, string>

export interface Database {
  sql: Sql
  url: string
  /** True on the embedded PGlite default: NOTIFY does not reach a LISTEN there (DESIGN §2). */
  embedded: boolean
  close(): Promise<void>
}

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined
  /** Where the embedded PostgreSQL keeps its data when no databaseUrl is given. */
  dataDir: string
  service: string
  /** Where the one line about the embedded default goes. */
  logger?: { info(msg: string): void }
  /** Pool size on a real PostgreSQL (the embedded one gets a single connection). */
  max?: number
  settings?: SessionSettings
}

/** A porsager `postgres` client with the options every service uses. */
export function createSql(
  url: string,
  options: { max?: number; settings?: SessionSettings | undefined } = {},
): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: 'genesis', ...options.settings },
  })
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL under dataDir when there is none. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = createSql(options.databaseUrl, { max: options.max, settings: options.settings })
    return { sql, url: options.databaseUrl, embedded: false, close: () => sql.end({ timeout: 5 }) }
  }
  const embedded = await startEmbeddedPostgres(options.dataDir)
  options.logger?.info(
    `DATABASE_URL is not set: using the embedded PostgreSQL (PGlite) with its data in ${options.dataDir}`,
  )
  const sql = createEmbeddedSql(embedded.url, options.settings)
  return {
    sql,
    url: embedded.url,
    embedded: true,
    close: async () => {
      await sql.end({ timeout: 5 })
      await embedded.stop()
    },
  }
}
