import { connect, type Socket } from 'node:net'
import postgres from 'postgres'
import { startEmbeddedPostgres } from './embedded.js'
import { inTransactionScope } from './transaction-scope.js'
import { DatabaseTimeoutError } from './unreachable.js'

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
  /** True on the embedded PGlite default: NOTIFY does not reach a LISTEN there. */
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
  /**
   * On a real PostgreSQL (the embedded one runs in this process and answers or fails at once). Without
   * a query deadline (the migrate command) a long statement is never cut.
   */
  timeouts?: DatabaseTimeouts
}

/** How long to wait for PostgreSQL before answering 503 (DB_CONNECT_TIMEOUT_S, DB_QUERY_TIMEOUT_MS). */
export interface DatabaseTimeouts {
  /** Seconds to open a connection, startup included. */
  connectS?: number | undefined
  /** Milliseconds PostgreSQL may stay silent after being sent a query; 0 waits for ever. */
  queryMs?: number | undefined
}

export const DEFAULT_CONNECT_TIMEOUT_S = 5

/**
 * A socket to PostgreSQL that gives up when the server stays silent for `queryMs` after being written
 * to. A stopped server refuses connections at once, but a lost network or a hung server leaves a query
 * waiting for ever on an open connection (TCP keep-alive takes minutes). One timer per socket, refreshed
 * on each write and disregarded once an answer arrives: the hot path pays no allocation. Destroying the
 * socket fails its queries with DatabaseTimeoutError (a 503) and postgres.js reconnects on the next one.
 */
function socketWithDeadline(queryMs: number) {
  return (options: { host: string[]; port: number[]; path?: string | false }): Socket => {
    // Connecting: postgres.js writes the startup message at once and net buffers it until connected.
    const socket = options.path
      ? connect(options.path)
      : connect({ host: options.host[0] ?? '127.0.0.1', port: options.port[0] ?? 5432 })
    let waiting = false
    const deadline = setTimeout(() => {
      if (waiting) socket.destroy(new DatabaseTimeoutError(queryMs))
    }, queryMs).unref()
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
    socket.write = ((...args: unknown[]) => {
      waiting = true
      deadline.refresh()
      return write(...args)
    }) as Socket['write']
    socket.on('data', () => {
      waiting = false
    })
    socket.once('close', () => clearTimeout(deadline))
    return socket
  }
}

/** The query deadline each pool was made with (createSql), for work that must stay under it. */
const queryDeadlines = new WeakMap<Sql, number>()

/** Milliseconds PostgreSQL may stay silent on this pool's queries before they fail; 0 for no deadline. */
export const queryDeadlineMs = (sql: Sql): number => queryDeadlines.get(sql) ?? 0

/**
 * A server on a Unix socket, named as libpq does (`postgres://user@localhost/db?host=/run/postgresql`): the
 * `host` parameter is the socket's directory. postgres.js would send the parameter to the server as a
 * setting, so it is taken out of the URL and given as the socket's path.
 */
function unixSocketOf(url: string): { url: string; path?: string } {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  const dir = parsed?.searchParams.get('host')
  if (!parsed || !dir?.startsWith('/')) return { url }
  parsed.searchParams.delete('host')
  return { url: parsed.toString(), path: `${dir}/.s.PGSQL.${parsed.port || 5432}` }
}

/** A porsager `postgres` client with the options every service uses. */
export function createSql(
  databaseUrl: string,
  options: { max?: number; settings?: SessionSettings | undefined; timeouts?: DatabaseTimeouts } = {},
): Sql {
  const queryMs = options.timeouts?.queryMs ?? 0
  const { url, path } = unixSocketOf(databaseUrl)
  const sql = postgres(url, {
    ...(path ? { path } : {}),
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: options.timeouts?.connectS ?? DEFAULT_CONNECT_TIMEOUT_S,
    // postgres.js waits backoff(failed attempts) before a connection's next attempt, 20 s at most, and a
    // query arriving meanwhile waits it out before its connect timeout even starts: a stopped server held
    // requests for most of that. A connection is only opened for a waiting query, so no delay means one
    // attempt per query: refused at once while the server is down (a 503), bounded by connect_timeout when it
    // is silent.
    backoff: () => 0,
    onnotice: () => {},
    connection: { application_name: 'genesis', ...options.settings },
    ...(queryMs > 0 ? { socket: socketWithDeadline(queryMs) } : {}),
  })
  if (queryMs > 0) queryDeadlines.set(sql, queryMs)
  markTransactions(sql)
  return sql
}

/**
 * Every `begin` callback runs marked as inside a transaction, so that a network call made there is caught
 * (transaction-scope.ts). `begin(fn)` and `begin(options, fn)`: the callback is the last argument.
 */
function markTransactions(sql: Sql) {
  const begin = sql.begin.bind(sql) as (...args: unknown[]) => Promise<unknown>
  const marked = (...args: unknown[]) => {
    const work = args.at(-1)
    if (typeof work === 'function') {
      args[args.length - 1] = (tx: unknown) =>
        inTransactionScope(() => (work as (tx: unknown) => unknown)(tx))
    }
    return begin(...args)
  }
  sql.begin = marked as Sql['begin']
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL under dataDir when there is none. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = createSql(options.databaseUrl, {
      max: options.max,
      settings: options.settings,
      timeouts: options.timeouts,
    })
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
